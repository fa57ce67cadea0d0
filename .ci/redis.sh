#!/usr/bin/env bash
# The Redis module (redis/, crate cuckoo-nest-redis): installs redis-server
# (Debian's, 7.0) and libclang-dev (redis-module's bindgen) with apt-get if
# they are missing, builds the module, and runs its tests against real
# servers (commands and errors, RDB/AOF restarts, forged RESTORE payloads
# and a truncated RDB, a replica compared byte for byte, a three-primary
# cluster). CUCKOO_REDIS_REQUIRED=1 makes a test
# fail, not skip, if redis-server is missing. Fails loudly when anything
# cannot run. Measured on the 2-vCPU machine of redis/README.md: 23-31 s
# with the module's dependencies built; from an empty target directory 472 s
# with one build job (CARGO_BUILD_JOBS=1) while other builds kept the load
# average near 5 (5 min 17 s of CPU), so a few minutes on 2 free cores.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
fail() {
    printf '\n!!! redis.sh FAILED: %s\n' "$1" >&2
    printf '!!! redis.sh wall time: %ds\n' $((SECONDS - start)) >&2
    exit 1
}
command -v cargo >/dev/null || fail "cargo not found: install Rust with rustup"

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get"
    command -v apt-get >/dev/null ||
        fail "apt-get not found: install ${missing[*]} by hand (redis-server >= 7.0, libclang for bindgen)"
    apt-get update || fail "apt-get update failed (root and the Debian mirrors are needed to install ${missing[*]})"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" ||
        fail "apt-get install ${missing[*]} failed"
fi
command -v redis-server >/dev/null || fail "redis-server is still not on the PATH"
redis-server --version

# The tests load the module built with the test profile (they build it
# themselves too; building it here first reports a build failure as such).
cargo build -p cuckoo-nest-redis --profile test --lib || fail "building the module"
CUCKOO_REDIS_REQUIRED=1 cargo test -p cuckoo-nest-redis || fail "cargo test -p cuckoo-nest-redis"
printf '\nredis.sh passed in %ds\n' $((SECONDS - start))
