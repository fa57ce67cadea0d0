//! The sizes of the measurements that do not follow `--items` (the cache-line load buffer,
//! line loads, out-of-cache and shuffled lookups, the growth and byte-key filters), by mode.

use crate::cli::Mode;

/// Sets of single-thread filters filled and emptied at most (the rounds of Figures 7 and 8).
pub const FILL_SETS: usize = 3;

pub struct Sizes {
    /// MiB of the random cache-line load buffer and of the out-of-cache cuckoo-nest filter
    /// (`--memory-mib` overrides it).
    pub memory_mib: usize,
    /// Random line loads per line-rate measurement.
    pub loads: usize,
    /// Lookups per out-of-cache measurement.
    pub oc_lookups: usize,
    /// Items of the in-cache shuffled-lookup filters (the 1M).
    pub shuffled_items: usize,
    /// Items of the out-of-L3 shuffled-lookup filters; `None`: skipped.
    pub out_of_l3_items: Option<usize>,
    /// Lookups per shuffled (and beside-a-writer) measurement.
    pub shuffled_lookups: usize,
    /// Capacity of the filter of the writers' scaling fill.
    pub large_fill_items: usize,
    /// First capacity C of the growing filters (filled to 64C).
    pub growth_first: usize,
    /// Lookups per growth measurement.
    pub growth_lookups: usize,
    /// Absent keys for the growing filters' false-positive rate.
    pub growth_absent: usize,
    /// Byte keys: (items, lookups) in cache, and out of cache (`None`: skipped).
    pub byte_keys_in_cache: (usize, usize),
    pub byte_keys_out_of_cache: Option<(usize, usize)>,
}

impl Sizes {
    /// Each size as `[default, --quick, --tiny]`.
    pub fn of(mode: Mode) -> Sizes {
        let m = mode as usize;
        Sizes {
            memory_mib: [256, 128, 4][m],
            loads: [16_000_000, 8_000_000, 64_000][m],
            oc_lookups: [4_000_000, 2_000_000, 20_000][m],
            shuffled_items: [1_000_000, 1_000_000, 20_000][m],
            out_of_l3_items: [Some(64_000_000), None, Some(40_000)][m],
            shuffled_lookups: [1 << 20, 1 << 19, 20_000][m],
            large_fill_items: [8 << 20, 2 << 20, 40_000][m],
            growth_first: [125_000, 15_625, 1000][m],
            growth_lookups: [1 << 18, 1 << 16, 1 << 12][m],
            growth_absent: [500_000, 200_000, 20_000][m],
            byte_keys_in_cache: [(50_000, 1 << 20), (50_000, 1 << 19), (2_000, 4_000)][m],
            byte_keys_out_of_cache: [Some((20 << 20, 1 << 20)), None, Some((20_000, 4_000))][m],
        }
    }
}
