//! The lookup figures beyond the paper's: shuffled hits and misses in cache and out of L3,
//! and lookups beside a writer.

use super::{At, FigureSpec, Ratio};

pub static SHUFFLED_IN_CACHE: FigureSpec = FigureSpec::new(
    "lookups_shuffled_in_cache",
    "Shuffled lookups in cache (M lookups/s, one thread): hits and misses mixed",
    "M lookups/s",
    &[
        Ratio::VsLine {
            line: "cuckoofilter",
            at: At::Value(0.0),
        },
        Ratio::VsLine {
            line: "cuckoofilter",
            at: At::Value(0.5),
        },
        Ratio::VsLine {
            line: "cuckoofilter",
            at: At::Value(1.0),
        },
        Ratio::MidVsEnds {
            mid: At::Value(0.5),
        },
    ],
);

pub static SHUFFLED_OUT_OF_L3: FigureSpec = FigureSpec::new(
    "lookups_shuffled_out_of_l3",
    "Shuffled lookups out of L3 (M lookups/s, one thread)",
    "M lookups/s",
    &[Ratio::VsLine {
        line: "cuckoofilter",
        at: At::Value(0.5),
    }],
);

pub static BESIDE_WRITER: FigureSpec = FigureSpec {
    name: "lookups_beside_writer",
    title: "Lookups beside a writer (M lookups/s, the looking-up thread)",
    unit: "M lookups/s",
    label: "lookups",
    ratios: &[Ratio::Within {
        name: "slowdown",
        num: At::First,
        den: At::Last,
    }],
    plot: None,
};
