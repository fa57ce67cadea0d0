#!/usr/bin/env bash
# Miri over the tests that exercise unsafe code: the table's aligned
# allocation and raw-pointer slice (src/words.rs), every fingerprint kernel
# (simd/), and the filter end to end in every configuration. Sizes shrink
# under cfg(miri) inside the tests themselves.
#
#   cuckoo-nest:      unit tests (--lib), tests/it/contract.rs, tests/it/model.rs,
#                     tests/it/load.rs, tests/it/growth.rs,
#                     tests/it/thread_local_destructor.rs (sections on a slot
#                     of their own once the thread's is gone) and
#                     tests/it/grow_under_load.rs (sixteen threads, 8x from
#                     capacity 32: about 4.5 minutes). Not
#                     tests/it/stress.rs (time-boxed: under
#                     Miri's clock too few operations happen to reach its
#                     target load; ThreadSanitizer and loom cover it), nor
#                     tests/it/batch.rs (safe code over the same probe, sized
#                     for native speed), nor the doctests.
#   cuckoo-nest-simd: all its tests (kernels against the scalar reference).
#
# Installs the nightly toolchain, miri and rust-src if missing; if that fails
# it says so loudly and exits 1, never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
fail() {
    printf '\n!!! miri.sh FAILED: %s\n' "$1" >&2
    printf '!!! miri.sh wall time: %ds\n' $((SECONDS - start)) >&2
    exit 1
}

command -v rustup >/dev/null || fail "rustup not found: Miri needs a nightly toolchain installed with rustup"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "nightly toolchain missing: installing it"
    rustup toolchain install nightly --profile minimal --component miri,rust-src ||
        fail "could not install the nightly toolchain (rustup toolchain install nightly)"
fi
if ! rustup component add --toolchain nightly miri rust-src; then
    # Some nightlies ship without miri: fall back to the newest that has it.
    rustup toolchain install nightly --profile minimal --component miri,rust-src --allow-downgrade ||
        fail "could not install miri and rust-src for nightly (rustup component add --toolchain nightly miri rust-src)"
fi
cargo +nightly miri --version || fail "cargo miri does not run"
cargo +nightly miri setup || fail "cargo miri setup (building the Miri sysroot)"

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}/miri
# proptest (tests/it/model.rs) asks for the working directory to find its
# regression files, which Miri's isolation refuses.
export MIRIFLAGS="-Zmiri-disable-isolation ${MIRIFLAGS:-}"

run() {
    local t0=$SECONDS
    echo
    echo "--- cargo +nightly miri test $*"
    cargo +nightly miri test "$@" || fail "cargo +nightly miri test $*"
    echo "--- ok in $((SECONDS - t0))s"
}

run -p cuckoo-nest --lib
# The integration tests are modules of one binary (tests/it): a filter per
# module picks those listed above.
run -p cuckoo-nest --test it -- contract:: model:: load:: growth:: thread_local_destructor:: grow_under_load::
run -p cuckoo-nest-simd

printf '\nmiri.sh: passed; wall time %ds\n' $((SECONDS - start))
