//! The thread-scaling figures: lookups, inserts and two mixes by thread count, and writers
//! filling one large filter, each against the machine's own scaling.

use super::{At, FigureSpec, PlotSpec, Ratio};

/// Ratio columns of every thread-scaling table.
const SCALING: &[Ratio] = &[
    Ratio::Within {
        name: "speedup",
        num: At::Last,
        den: At::First,
    },
    Ratio::ScalingVs { line: "machine" },
];

const THREADS_PLOT: &str = "threads_scaling.svg";
const THREADS_TITLE: &str = "Thread scaling: aggregate throughput";

pub static THREADS_LOOKUPS: FigureSpec = FigureSpec {
    name: "threads_lookups",
    title: "Thread scaling: lookups (M ops/s, all threads)",
    unit: "M ops/s",
    label: "filter",
    ratios: SCALING,
    plot: Some(PlotSpec {
        file: THREADS_PLOT,
        title: THREADS_TITLE,
        panel: "lookups",
        x_label: "threads",
    }),
};

pub static THREADS_INSERTS: FigureSpec = FigureSpec {
    name: "threads_inserts",
    title: "Thread scaling: inserts (M ops/s, all threads)",
    unit: "M ops/s",
    label: "filter",
    ratios: SCALING,
    plot: Some(PlotSpec {
        file: THREADS_PLOT,
        title: THREADS_TITLE,
        panel: "inserts",
        x_label: "threads",
    }),
};

pub static THREADS_MIXED_90: FigureSpec = FigureSpec {
    name: "threads_mixed_90_10",
    title: "Thread scaling: mixed 90% lookups / 10% inserts (M ops/s, all threads)",
    unit: "M ops/s",
    label: "filter",
    ratios: SCALING,
    plot: Some(PlotSpec {
        file: THREADS_PLOT,
        title: THREADS_TITLE,
        panel: "mixed 90% lookups / 10% inserts",
        x_label: "threads",
    }),
};

pub static THREADS_MIXED_50: FigureSpec = FigureSpec {
    name: "threads_mixed_50_50",
    title: "Thread scaling: mixed 50% lookups / 50% inserts (M ops/s, all threads)",
    unit: "M ops/s",
    label: "filter",
    ratios: SCALING,
    plot: Some(PlotSpec {
        file: THREADS_PLOT,
        title: THREADS_TITLE,
        panel: "mixed 50% lookups / 50% inserts",
        x_label: "threads",
    }),
};

pub static THREADS_FILL: FigureSpec = FigureSpec {
    name: "threads_fill_large",
    title: "Writers scaling: filling one large filter (M inserts/s, all threads)",
    unit: "M ops/s",
    label: "filter",
    ratios: SCALING,
    plot: None,
};
