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

/// Modules ThreadSanitizer's build leaves out (`--cfg cuckoo_tsan`): it
/// runs only those declared after this list.
macro_rules! not_under_tsan {
    ($($module:ident)*) => {
        $(
            #[cfg(not(cuckoo_tsan))]
            mod $module;
        )*
    };
}

not_under_tsan! {
    bad_bytes batch chains contract embedding forged golden huge_pages key_paths load
    membership_filter model multiset persist refusals thread_local_destructor
}

// What .ci/tsan.sh runs: the multi-threaded stress of the table and growth.
mod claims;
mod collisions;
mod grow_under_load;
mod growable;
mod growth;
mod save_while_writing;
mod stress;
