#!/usr/bin/env bash
# Fuzzes the saved-filter decoders (fuzz/fuzz_targets/decode.rs:
# CuckooFilter::from_bytes and read_from, FilterView::new and
# new_unverified) with cargo-fuzz and libFuzzer for FUZZ_SECONDS (default
# 60). Seeds the corpus with the golden files in tests/data. Installs the
# nightly toolchain and cargo-fuzz if missing; if that fails it says so
# loudly and exits 1, never skips. A crash fails the script and leaves the
# input in fuzz/artifacts/decode/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
seconds=${FUZZ_SECONDS:-60}
fail() {
    printf '\n!!! fuzz.sh FAILED: %s\n' "$1" >&2
    printf '!!! fuzz.sh wall time: %ds\n' $((SECONDS - start)) >&2
    exit 1
}

command -v rustup >/dev/null || fail "rustup not found: cargo-fuzz needs a nightly toolchain installed with rustup"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "nightly toolchain missing: installing it"
    rustup toolchain install nightly --profile minimal ||
        fail "could not install the nightly toolchain (rustup toolchain install nightly)"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz missing: installing it"
    cargo install cargo-fuzz --locked || fail "could not install cargo-fuzz (cargo install cargo-fuzz --locked)"
fi
cargo fuzz --version

# Seed corpus: the golden saved filters and the growable (versions 3 and 6)
# seeds of fuzz/seeds, each in both modes (the target's first byte: even =
# as is, odd = checksums recomputed).
corpus=fuzz/corpus/decode
mkdir -p "$corpus"
for f in tests/data/*.cnf fuzz/seeds/*.cnf; do
    name=$(basename "$f" .cnf)
    { printf '\x00'; cat "$f"; } >"$corpus/seed-$name-raw"
    { printf '\x01'; cat "$f"; } >"$corpus/seed-$name-fixed"
done

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}/fuzz
cargo +nightly fuzz build decode || fail "cargo +nightly fuzz build decode"
cargo +nightly fuzz run decode "$corpus" -- -max_total_time="$seconds" -max_len=4096 ||
    fail "the decode target found a crash (input in fuzz/artifacts/decode/)"

printf '\nfuzz.sh: passed (%ss of fuzzing); wall time %ds\n' "$seconds" $((SECONDS - start))
