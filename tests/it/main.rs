//! The integration tests: one test binary, one module per concern, so the
//! crate's test build links the table code once, not once per file.
//!
//! A test that needs a process of its own keeps its own file in tests/ and
//! says why at its top (tests/alloc.rs: a counting global allocator;
//! tests/barrier_fallback.rs: a hook that makes the process's barriers fail), as do
//! tests built only with a feature (tests/serde.rs). Run one concern with a
//! filter on its module: `cargo test --test it load::`.
//!
//! ThreadSanitizer's build (.ci/tsan.sh, `--cfg cuckoo_tsan`) compiles only
//! the modules it runs, the multi-threaded ones: an instrumented build of
//! every module took most of its 16 minutes.

#[path = "../common/mod.rs"]
mod common;

#[cfg(not(cuckoo_tsan))]
mod bad_bytes;
#[cfg(not(cuckoo_tsan))]
mod batch;
#[cfg(not(cuckoo_tsan))]
mod chains;
mod claims;
mod collisions;
#[cfg(not(cuckoo_tsan))]
mod contract;
#[cfg(not(cuckoo_tsan))]
mod embedding;
#[cfg(not(cuckoo_tsan))]
mod forged;
#[cfg(not(cuckoo_tsan))]
mod golden;
mod grow_under_load;
mod growable;
mod growth;
#[cfg(not(cuckoo_tsan))]
mod huge_pages;
#[cfg(not(cuckoo_tsan))]
mod key_paths;
#[cfg(not(cuckoo_tsan))]
mod load;
#[cfg(not(cuckoo_tsan))]
mod membership_filter;
#[cfg(not(cuckoo_tsan))]
mod model;
#[cfg(not(cuckoo_tsan))]
mod persist;
#[cfg(not(cuckoo_tsan))]
mod refusals;
mod save_while_writing;
mod stress;
#[cfg(not(cuckoo_tsan))]
mod thread_local_destructor;
