//! The integration tests: one test binary, one module per concern, so the
//! crate's test build links the table code once, not once per file.
//!
//! A test that needs a process of its own keeps its own file in tests/ and
//! says why at its top (tests/alloc.rs: a counting global allocator;
//! tests/barrier_fallback.rs: a hook that makes the process's barriers fail), as do
//! tests built only with a feature (tests/serde.rs). Run one concern with a
//! filter on its module: `cargo test --test it load::`.

#[path = "../common/mod.rs"]
mod common;

mod bad_bytes;
mod batch;
mod chains;
mod claims;
mod collisions;
mod contract;
mod embedding;
mod forged;
mod golden;
mod grow_under_load;
mod growable;
mod growth;
mod huge_pages;
mod key_paths;
mod load;
mod membership_filter;
mod model;
mod persist;
mod refusals;
mod save_while_writing;
mod stress;
mod thread_local_destructor;
