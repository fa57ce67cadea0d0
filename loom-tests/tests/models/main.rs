//! The loom models: one test binary, one module per part of the protocol,
//! so each build of the models (.ci/loom.sh makes one per cfg variant, in
//! release) compiles and links the table code once, not once per file.
//! Run one module's models with a filter: `cargo test -p
//! cuckoo-nest-loom-tests --release --test models growth::` (with
//! `RUSTFLAGS="--cfg cuckoo_nest_loom"`; without it every module is empty).

mod batch_vs_displacement;
mod chains;
mod claims;
mod clear_vs_writers;
mod colliding_fingerprints;
mod failed_insert_vs_lookup;
mod growth;
mod insert_remove_shared_bucket;
mod lookup_vs_displacement;
mod packed_and_semi_sorted;
mod remove_vs_displacement;
mod save_vs_displacement;
mod sections;
mod unique_vs_unique;
mod version_wrap;
mod writers_same_buckets;
