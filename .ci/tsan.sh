#!/usr/bin/env bash
# ThreadSanitizer over the multi-thread stress tests (tests/it/stress.rs:
# writers insert past 90% load (so most inserts displace) and remove, readers
# look up published keys; tests/it/collisions.rs: colliding items cycled
# through insert and remove while readers look up one that stays;
# tests/it/save_while_writing.rs: saves, with chunks copied ahead by inserts,
# while writers displace near full; tests/it/growth.rs: writers grow a
# growable filter 32x while readers look up and writers remove;
# tests/it/growable.rs: saves, clones and merges while a writer grows one;
# tests/it/grow_under_load.rs: sixteen threads grow one 64x with removes,
# shared copies and saves, in one chain and through chains;
# tests/it/claims.rs: lock-free claims from more
# threads than stripes, and clears racing them). Nightly
# only: -Zsanitizer=thread, with std rebuilt instrumented (-Zbuild-std, needs
# the rust-src component), in its own target directory so the flags never
# touch other builds.
#
#   CUCKOO_STRESS_MS   how long each stress run lasts (default here: 1500 ms;
#                      TSan slows the code 5-15x, so fewer operations than
#                      a plain run, still many thousands of displacements)
#
# Installs the nightly toolchain and rust-src if missing; if that fails it
# says so loudly and exits 1, never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
fail() {
    printf '\n!!! tsan.sh FAILED: %s\n' "$1" >&2
    printf '!!! tsan.sh wall time: %ds\n' $((SECONDS - start)) >&2
    exit 1
}

command -v rustup >/dev/null || fail "rustup not found: TSan needs a nightly toolchain installed with rustup"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "nightly toolchain missing: installing it"
    rustup toolchain install nightly --profile minimal --component rust-src ||
        fail "could not install the nightly toolchain (rustup toolchain install nightly)"
fi
rustup component add --toolchain nightly rust-src ||
    fail "could not install rust-src for nightly (needed by -Zbuild-std)"
rustup run nightly rustc --version

host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
case $host in
    x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu | x86_64-apple-darwin | aarch64-apple-darwin) ;;
    *) fail "ThreadSanitizer is not supported on $host" ;;
esac

export CUCKOO_STRESS_MS=${CUCKOO_STRESS_MS:-1500}
# Any report fails the run (exit code 66) instead of only being printed.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
target_dir=${CARGO_TARGET_DIR:-$PWD/target}/tsan

# The integration tests are modules of one binary (tests/it); each run below
# takes one module, by filter. --cfg cuckoo_tsan leaves the other modules
# out of the build (tests/it/main.rs): built instrumented, all of them took
# 15 of this script's 16 minutes on 2 cores.
tsan_test() {
    RUSTFLAGS="-Zsanitizer=thread --cfg cuckoo_tsan" RUSTDOCFLAGS="-Zsanitizer=thread" CARGO_TARGET_DIR="$target_dir" \
        cargo +nightly test -Zbuild-std --target "$host" -p cuckoo-nest --test it "$@"
}

for test in stress collisions save_while_writing growth growable grow_under_load claims; do
    echo "ThreadSanitizer: tests/it/$test.rs on $host, CUCKOO_STRESS_MS=$CUCKOO_STRESS_MS"
    bin=$(tsan_test --no-run --message-format=json |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1) ||
        fail "building tests/it with -Zsanitizer=thread -Zbuild-std"
    [ -n "$bin" ] || fail "no test binary for tests/it in cargo's output"
    if command -v nm >/dev/null; then
        # (grep without -q reads all of nm's output: no SIGPIPE under pipefail)
        nm "$bin" | grep __tsan_init >/dev/null || fail "$bin is not instrumented by ThreadSanitizer"
    else
        echo "note: nm not found, cannot double-check the instrumentation of $bin"
    fi
    tsan_test -- --nocapture "$test::" ||
        fail "ThreadSanitizer run of tests/it/$test.rs (a data race report or a test failure, above)"
done

printf '\ntsan.sh: passed; wall time %ds\n' $((SECONDS - start))
