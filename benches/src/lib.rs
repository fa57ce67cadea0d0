//! Helpers shared by the report binary (`src/main.rs`), the measurement binaries of `src/bin/`,
//! the criterion benches (`benches/`) and the tests: the key generator, the statistics,
//! the huge-page buffer for cache-line load rates and the binaries' arguments, kept in one place
//! so every measurement draws its keys, takes its medians and gets its pages the same way.

pub mod keys;
pub mod pages;
pub mod stats;
pub mod tool;
