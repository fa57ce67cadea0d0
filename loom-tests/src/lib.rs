//! loom models of cuckoo-nest live in `tests/`; run them with
//! `RUSTFLAGS="--cfg loom" cargo test -p cuckoo-nest-loom-tests --release`.
