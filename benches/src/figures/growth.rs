//! The growth figures: lookups, memory and inserts of a growable filter from C to 64C
//! items, against a fixed filter built for each count and the peer that grows.

use super::{At, FigureSpec, PlotSpec, Ratio};

/// The fixed filter the growth figures compare with, by the start of its line's label.
pub const GROWTH_BASE: &str = "cuckoo-nest fixed";

const GROWTH_PLOT: &str = "growth.svg";
const GROWTH_TITLE: &str = "Growth: from C to 64C items, against a filter built for the count";
const GROWTH_X: &str = "k (items = 2^k C)";

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

pub static GROWTH_LOOKUPS: FigureSpec = FigureSpec {
    name: "growth_lookups",
    title: "Growth: shuffled lookups (M lookups/s, one thread, 50% hits) by items inserted",
    unit: "M lookups/s",
    label: "filter",
    ratios: GROWTH_TIME,
    plot: Some(PlotSpec {
        file: GROWTH_PLOT,
        title: GROWTH_TITLE,
        panel: "lookups, 50% hits shuffled",
        x_label: GROWTH_X,
    }),
};

pub static GROWTH_BITS: FigureSpec = FigureSpec {
    name: "growth_bits_per_item",
    title: "Growth: memory (bits per item) by items inserted",
    unit: "bits/item",
    label: "filter",
    ratios: &[
        Ratio::VsLine {
            line: GROWTH_BASE,
            at: At::Value(3.0),
        },
        Ratio::VsLine {
            line: GROWTH_BASE,
            at: At::Last,
        },
    ],
    plot: Some(PlotSpec {
        file: GROWTH_PLOT,
        title: GROWTH_TITLE,
        panel: "bits per item (all memory / items)",
        x_label: GROWTH_X,
    }),
};

pub static GROWTH_INSERTS: FigureSpec = FigureSpec {
    name: "growth_inserts",
    title:
        "Growth: inserts from empty (M inserts/s, one thread, growth included) by items inserted",
    unit: "M inserts/s",
    label: "filter",
    ratios: GROWTH_TIME,
    plot: Some(PlotSpec {
        file: GROWTH_PLOT,
        title: GROWTH_TITLE,
        panel: "inserts from empty",
        x_label: GROWTH_X,
    }),
};
