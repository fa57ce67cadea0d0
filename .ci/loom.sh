#!/usr/bin/env bash
# loom models of the concurrency protocol (loom-tests/, release build), run
# on the real table code with loom's atomics (--cfg cuckoo_nest_loom).
#
#   .ci/loom.sh            the models, twice: with the real version width, and
#                          with --cfg cuckoo_small_stamp (2-bit versions, so
#                          model 7 wraps the counter); both must pass. Then
#                          two teeth checks: with cuckoo_broken_no_recheck the
#                          lookup models must fail, with
#                          cuckoo_broken_remove_unversioned the colliding-
#                          fingerprint models (a guard against a search that
#                          silently stopped exploring).
#   .ci/loom.sh --broken   the teeth check for every deliberately broken
#                          variant (cuckoo_broken_*): each must make the
#                          models it is listed against in
#                          docs/verification.md fail.
#
# Each build gets its own target directory under $CARGO_TARGET_DIR (default
# target/), because --cfg flags invalidate every crate of a build.
# Preemption bounds are set inside the models; LOOM_MAX_PREEMPTIONS
# overrides them for a deeper search by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
fail() {
    printf '\n!!! loom.sh FAILED: %s\n' "$1" >&2
    printf '!!! loom.sh wall time: %ds\n' $((SECONDS - start)) >&2
    exit 1
}
command -v cargo >/dev/null || fail "cargo not found: install Rust with rustup"
cargo --version

target_root=${CARGO_TARGET_DIR:-$PWD/target}
broken=false
for arg in "$@"; do
    case $arg in
        --broken) broken=true ;;
        *) fail "unknown argument $arg (want --broken or nothing)" ;;
    esac
done

# run_models NAME FLAGS LOG [MODELS]: builds the models (one test binary,
# loom-tests/tests/models/) with extra cfg flags FLAGS in target dir suffix
# NAME, runs them into LOG, returns cargo's exit status. Without MODELS:
# every model. With MODELS (test names, space-separated) only those run: a
# broken variant must fail the models it names, and running the others
# (which it leaves alone) checks nothing.
run_models() {
    local name=$1 flags=$2 log=$3 models=${4:-} status=0
    local filters=()
    read -r -a filters <<<"$models"
    RUSTFLAGS="--cfg cuckoo_nest_loom $flags" CARGO_TARGET_DIR="$target_root/loom-$name" \
        timeout 1200 cargo test -p cuckoo-nest-loom-tests --release --no-fail-fast \
        -- --nocapture --test-threads=1 "${filters[@]}" >"$log" 2>&1 || status=$?
    return $status
}

# The release profile's debug info (line tables, for profiling the report)
# slows each of these builds and serves no model: off here.
export CARGO_PROFILE_RELEASE_DEBUG=0

logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

for pass in "real:" "small-stamp:--cfg cuckoo_small_stamp"; do
    name=${pass%%:*}
    flags=${pass#*:}
    t0=$SECONDS
    printf '\n--- loom models, %s versions (RUSTFLAGS="--cfg cuckoo_nest_loom %s")\n' "$name" "$flags"
    if ! run_models "$name" "$flags" "$logdir/$name.log"; then
        cat "$logdir/$name.log"
        fail "loom models failed ($name versions)"
    fi
    grep -oE 'loom model .*|ignored, .*' "$logdir/$name.log" || true
    grep -q 'loom model' "$logdir/$name.log" || fail "no loom model ran ($name): was --cfg cuckoo_nest_loom lost?"
    printf -- '--- %s versions: ok in %ds\n' "$name" $((SECONDS - t0))
done

{
    # variant | extra cfgs | test functions that must fail: every one that
    # failed when the table in docs/verification.md was made, so a search
    # that stops reaching a race shows here.
    lookups="lookup_never_misses_an_item_moving_to_its_alternate lookup_never_misses_an_item_moving_to_its_primary"
    lookups+=" four_slot_buckets_item_moving_to_its_alternate four_slot_buckets_item_moving_to_its_primary"
    lookups+=" batch_never_misses_a_moving_item"
    colliding="lookup_survives_one_answer_move four_slot_buckets_lookup_survives_one_answer_move"
    colliding+=" lookup_survives_the_answer_moving_back_and_forth batch_lookup_survives_one_answer_move"
    colliding+=" colliding_removes_race_a_lookup insert_unique_races_a_colliding_remove"
    claims="claim_races_a_hop_into_the_same_slot four_slot_buckets_claim_races_a_hop_into_the_same_slot"
    variants=(
        "no_recheck|--cfg cuckoo_broken_no_recheck|$lookups $colliding lookups_see_before_or_after_the_clear packed_lookup_vs_move semi_sorted_insert_rewrites_a_bucket_being_read semi_sorted_remove_rewrites_a_bucket_being_read"
        "accept_odd|--cfg cuckoo_broken_accept_odd|$lookups lookups_see_before_or_after_the_clear"
        "no_read_fence|--cfg cuckoo_broken_no_read_fence|$lookups lookups_see_before_or_after_the_clear"
        "no_move_version|--cfg cuckoo_broken_no_move_version|$lookups"
        "wrap_compare|--cfg cuckoo_small_stamp --cfg cuckoo_broken_wrap_compare|lookup_never_misses_across_a_version_wrap"
        "clear_unversioned|--cfg cuckoo_broken_clear_unversioned|lookups_see_before_or_after_the_clear"
        "lock_order|--cfg cuckoo_broken_lock_order|one_free_slot_two_writers both_writers_displace"
        "unique_unlocked|--cfg cuckoo_broken_unique_unlocked|one_copy_with_room one_copy_after_displacing insert_unique_races_a_colliding_remove"
        # Every remove unversioned: the false negative of colliding items.
        "remove_unversioned|--cfg cuckoo_broken_remove_unversioned|$colliding"
        "no_hop_check|--cfg cuckoo_broken_no_hop_check|remove_of_a_moving_item remove_one_of_two_copies_while_one_moves four_slot_buckets_remove_of_a_moving_item one_copy_after_displacing clear_lands_inside_a_displacement"
        # Model 15 (claims.rs): an insert's lock-free claim vs a hop into its slot.
        "plain_store|--cfg cuckoo_broken_plain_store|survivor_in_a_shared_bucket_is_found writers_under_different_locks_share_a_word $claims"
        "mover_overwrites|--cfg cuckoo_broken_mover_overwrites|$claims"
        "packed_plain_store|--cfg cuckoo_broken_packed_plain_store|straddling_slot_and_neighbour_share_a_word"
        "own_words_always|--cfg cuckoo_broken_own_words_always|straddling_slot_and_neighbour_share_a_word writers_under_different_locks_share_a_word both_writers_displace"
        "semi_unversioned|--cfg cuckoo_broken_semi_unversioned|semi_sorted_insert_rewrites_a_bucket_being_read semi_sorted_remove_rewrites_a_bucket_being_read"
        "probe_stamp_after_load|--cfg cuckoo_broken_probe_stamp_after_load|$lookups"
        # The lookup's one-load read of packed and semi-sorted buckets.
        "one_load_unvalidated|--cfg cuckoo_broken_one_load_unvalidated|packed_lookup_vs_move packed_colliding_insert_remove semi_sorted_one_load_insert_rewrites_a_bucket_being_read"
        "save_ignores_marks|--cfg cuckoo_broken_save_ignores_marks|save_keeps_an_item_moving_backwards two_slot_save_keeps_an_item_moving_backwards"
        "remove_ignores_save|--cfg cuckoo_broken_remove_ignores_save|save_keeps_an_item_whose_colliding_copy_is_removed"
        # Growth (model 14, loom-tests/tests/models/growth.rs; the section
        # models, written in src/grow/reclaim/slot.rs, run by sections.rs).
        "grow_lookup_skips_frozen|--cfg cuckoo_broken_grow_lookup_skips_frozen|lookup_during_growth_finds_every_item a_step_finished_by_another_writer_loses_nothing a_step_grown_again_for_a_stuck_copy_loses_nothing a_displacement_that_copies_a_chunk_first_loses_nothing"
        "grow_publish_early|--cfg cuckoo_broken_grow_publish_early|a_step_finished_by_another_writer_loses_nothing a_step_grown_again_for_a_stuck_copy_loses_nothing"
        "grow_no_gate|--cfg cuckoo_broken_grow_no_gate|insert_during_growth_is_kept"
        "gate_skips_marks|--cfg cuckoo_broken_gate_skips_marks|insert_during_growth_is_kept"
        "grow_remove_skips_copy|--cfg cuckoo_broken_grow_remove_skips_copy|remove_of_one_copy_during_growth_leaves_the_other"
        "regrow_skips_left_over|--cfg cuckoo_broken_regrow_skips_left_over|a_step_grown_again_for_a_stuck_copy_loses_nothing"
        "section_no_fence|--cfg cuckoo_broken_section_no_fence|a_section_never_sees_its_state_freed a_nested_section_does_not_end_the_outer_one a_second_section_sees_the_state_unlinked"
        "section_leave_store|--cfg cuckoo_broken_section_leave_store|a_second_section_sees_the_state_unlinked"
        "reclaim_no_wait|--cfg cuckoo_broken_reclaim_no_wait|lookup_during_growth_finds_every_item insert_during_growth_is_kept remove_of_one_copy_during_growth_leaves_the_other a_step_finished_by_another_writer_loses_nothing a_step_grown_again_for_a_stuck_copy_loses_nothing a_displacement_that_copies_a_chunk_first_loses_nothing lookup_during_a_chain_start_finds_every_item"
        # Growth past the spare bits (model 16, loom-tests/tests/models/chains.rs).
        "chains_lookup_newest_only|--cfg cuckoo_broken_chains_lookup_newest_only|lookup_during_a_chain_start_finds_every_item remove_takes_the_newest_chains_match remove_of_a_first_chain_item_during_a_chain_start"
        "chains_remove_oldest_first|--cfg cuckoo_broken_chains_remove_oldest_first|remove_takes_the_newest_chains_match"
        "unique_current_chain_only|--cfg cuckoo_broken_unique_current_chain_only|unique_insert_of_a_first_chain_item_during_a_chain_start"
        # Invisible under the version protocol (docs/verification.md, section 3).
        "clear_first|--cfg cuckoo_broken_clear_first|"
    )
    for v in "${variants[@]}"; do
        IFS='|' read -r name flags expect <<<"$v"
        # Without --broken: no_recheck and remove_unversioned (the teeth of
        # the lookup and the colliding-fingerprint models); LOOM_BROKEN_ONLY="a b" picks.
        if $broken; then only=${LOOM_BROKEN_ONLY:-$name}; else only="no_recheck remove_unversioned"; fi
        case " $only " in *" $name "*) ;; *) continue ;; esac
        t0=$SECONDS
        printf '\n--- broken variant %s (RUSTFLAGS="--cfg cuckoo_nest_loom %s")\n' "$name" "$flags"
        log="$logdir/broken-$name.log"
        if run_models "broken-$name" "$flags" "$log" "$expect"; then
            status=passed
        else
            status=failed
        fi
        grep -q '^running' "$log" || { cat "$log"; fail "variant $name did not build"; }
        # The test functions listed under "failures:". (Each is printed with
        # its module path: the name is what follows the last "::".)
        failed=$(awk '/^failures:$/ {f = 1; next} f && /^    [a-z0-9_:]+$/ {n = split($1, p, "::"); print p[n]; next} {f = 0}' "$log" |
            sort -u | tr '\n' ' ')
        printf 'caught by: %s\n' "${failed:-nothing}"
        for t in $expect; do
            case " $failed " in
                *" $t "*) ;;
                *) cat "$log"; fail "variant $name should fail $t but did not" ;;
            esac
        done
        if [ -z "$expect" ] && [ "$status" = failed ]; then
            printf 'note: %s was expected to be invisible but failed: %s\n' "$name" "$failed"
        fi
        printf -- '--- %s: %s in %ds\n' "$name" "$status" $((SECONDS - t0))
    done
}

printf '\nloom.sh: all passed; wall time %ds\n' $((SECONDS - start))
