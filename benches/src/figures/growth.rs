//! The growth figures: lookups, memory and inserts of a growable filter from C to 64C
//! items, against a fixed filter built for each count and the peer that grows.

use super::{At, FigureSpec, Ratio};

/// The fixed filter the growth figures compare with, by the start of its line's label.
pub const GROWTH_BASE: &str = "cuckoo-nest fixed";

/// Ratios against the fixed filter at 8x (x = 3, where the growth issue sets its targets) and
/// at 64x.
const GROWTH_TIME: &[Ratio] = &[
    Ratio::TimeVsLine {
        line: GROWTH_BASE,
        at: At::Value(3.0),
    },
    Ratio::TimeVsLine {
        line: GROWTH_BASE,
        at: At::Last,
    },
];

/// A growth figure, drawn as `panel` of growth.svg.
const fn growth(
    name: &'static str,
    title: &'static str,
    unit: &'static str,
    ratios: &'static [Ratio],
    panel: &'static str,
) -> FigureSpec {
    FigureSpec::new(name, title, unit, ratios).plotted(
        "growth.svg",
        "Growth: from C to 64C items, against a filter built for the count",
        panel,
        "k (items = 2^k C)",
    )
}

pub static GROWTH_LOOKUPS: FigureSpec = growth(
    "growth_lookups",
    "Growth: shuffled lookups (M lookups/s, one thread, 50% hits) by items inserted",
    "M lookups/s",
    GROWTH_TIME,
    "lookups, 50% hits shuffled",
);

pub static GROWTH_BITS: FigureSpec = growth(
    "growth_bits_per_item",
    "Growth: memory (bits per item) by items inserted",
    "bits/item",
    &[
        Ratio::VsLine {
            line: GROWTH_BASE,
            at: At::Value(3.0),
        },
        Ratio::VsLine {
            line: GROWTH_BASE,
            at: At::Last,
        },
    ],
    "bits per item (all memory / items)",
);

pub static GROWTH_INSERTS: FigureSpec = growth(
    "growth_inserts",
    "Growth: inserts from empty (M inserts/s, one thread, growth included) by items inserted",
    "M inserts/s",
    GROWTH_TIME,
    "inserts from empty",
);
