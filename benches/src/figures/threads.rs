//! The thread-scaling figures: lookups, inserts and two mixes by thread count, and writers
//! filling one large filter, each against the machine's own scaling.

use super::{At, FigureSpec, Ratio};

/// Ratio columns of every thread-scaling table.
const SCALING: &[Ratio] = &[
    Ratio::Within {
        name: "speedup",
        num: At::Last,
        den: At::First,
    },
    Ratio::ScalingVs { line: "machine" },
];

/// A thread-scaling figure, drawn as `panel` of threads_scaling.svg.
const fn scaling(name: &'static str, title: &'static str, panel: &'static str) -> FigureSpec {
    FigureSpec::new(name, title, "M ops/s", SCALING).plotted(
        "threads_scaling.svg",
        "Thread scaling: aggregate throughput",
        panel,
        "threads",
    )
}

pub static THREADS_LOOKUPS: FigureSpec = scaling(
    "threads_lookups",
    "Thread scaling: lookups (M ops/s, all threads)",
    "lookups",
);

pub static THREADS_INSERTS: FigureSpec = scaling(
    "threads_inserts",
    "Thread scaling: inserts (M ops/s, all threads)",
    "inserts",
);

pub static THREADS_MIXED_90: FigureSpec = scaling(
    "threads_mixed_90_10",
    "Thread scaling: mixed 90% lookups / 10% inserts (M ops/s, all threads)",
    "mixed 90% lookups / 10% inserts",
);

pub static THREADS_MIXED_50: FigureSpec = scaling(
    "threads_mixed_50_50",
    "Thread scaling: mixed 50% lookups / 50% inserts (M ops/s, all threads)",
    "mixed 50% lookups / 50% inserts",
);

pub static THREADS_FILL: FigureSpec = FigureSpec::new(
    "threads_fill_large",
    "Writers scaling: filling one large filter (M inserts/s, all threads)",
    "M ops/s",
    SCALING,
);
