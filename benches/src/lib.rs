//! Helpers shared by the report binary (`src/main.rs`), the criterion benches
//! (`benches/filter.rs`) and the tests: the key generator and the statistics, kept in one
//! place so every measurement draws its keys and takes its medians the same way.

pub mod keys;
pub mod stats;
