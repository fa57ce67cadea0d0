//! Every timed figure's spec, as data: the paper's single-thread Figures 5 to 8, the lookups
//! beyond the paper's, thread scaling and growth.

use super::{At, FigureSpec, Ratio, Ratios, Text};

// Fan et al.'s single-thread figures.

const OCCUPANCY: &str = "occupancy (% of n)";

/// One of the paper's figures, drawn alone in the SVG of its own name.
const fn paper(name: Text, title: Text, unit: Text, plot: Text, x_label: Text) -> FigureSpec {
    FigureSpec::new(name, title, unit, &[]).plotted(name, plot, "one thread", x_label)
}

pub static FIG5: FigureSpec = FigureSpec {
    ratios: &[Ratio::vs("cuckoofilter", 0.5)],
    ..paper(
        "fig5_lookup_vs_positive_share",
        "Figure 5: lookups (M lookups/s, one thread) by share of queries that hit",
        "M lookups/s",
        "Figure 5: lookup throughput vs share of positive queries",
        "positive lookups (%)",
    )
};

/// The two panels of Figure 6.
const fn fig6(name: Text, title: Text, panel: Text) -> FigureSpec {
    FigureSpec::new(name, title, "M lookups/s", &[]).plotted(
        "fig6_lookup_vs_occupancy",
        "Figure 6: lookup throughput vs occupancy",
        panel,
        OCCUPANCY,
    )
}

pub static FIG6_POSITIVE: FigureSpec = fig6(
    "fig6_positive_lookup_vs_occupancy",
    "Figure 6a: positive lookups (M lookups/s, one thread) by occupancy",
    "positive lookups",
);

pub static FIG6_NEGATIVE: FigureSpec = fig6(
    "fig6_negative_lookup_vs_occupancy",
    "Figure 6b: negative lookups (M lookups/s, one thread) by occupancy",
    "negative lookups",
);

pub static FIG7: FigureSpec = paper(
    "fig7_insert_vs_occupancy",
    "Figure 7: inserts (M inserts/s, one thread) by occupancy",
    "M inserts/s",
    "Figure 7: insert throughput vs occupancy",
    OCCUPANCY,
);

pub static FIG8: FigureSpec = paper(
    "fig8_delete_vs_occupancy",
    "Figure 8: delete until empty (M deletes/s, one thread) by occupancy",
    "M deletes/s",
    "Figure 8: delete-until-empty throughput vs occupancy",
    OCCUPANCY,
);

// The lookups beyond the paper's.

pub static SHUFFLED_IN_CACHE: FigureSpec = FigureSpec::new(
    "lookups_shuffled_in_cache",
    "Shuffled lookups in cache (M lookups/s, one thread): hits and misses mixed",
    "M lookups/s",
    &[
        Ratio::vs("cuckoofilter", 0.0),
        Ratio::vs("cuckoofilter", 0.5),
        Ratio::vs("cuckoofilter", 1.0),
        Ratio::MidVsEnds(At::Value(0.5)),
    ],
);

pub static SHUFFLED_OUT_OF_L3: FigureSpec = FigureSpec::new(
    "lookups_shuffled_out_of_l3",
    "Shuffled lookups out of L3 (M lookups/s, one thread)",
    "M lookups/s",
    &[Ratio::vs("cuckoofilter", 0.5)],
);

pub static BESIDE_WRITER: FigureSpec = FigureSpec {
    label: "lookups",
    ..FigureSpec::new(
        "lookups_beside_writer",
        "Lookups beside a writer (M lookups/s, the looking-up thread)",
        "M lookups/s",
        &[Ratio::Within("slowdown", At::First, At::Last)],
    )
};

// Thread scaling, each against the machine's own scaling.

/// Ratio columns of every thread-scaling table.
const SCALING: &[Ratio] = &[
    Ratio::Within("speedup", At::Last, At::First),
    Ratio::ScalingVs("machine"),
];

/// A thread-scaling figure, drawn as `panel` of threads_scaling.svg.
const fn scaling(name: Text, title: Text, panel: Text) -> FigureSpec {
    FigureSpec::new(name, title, "M ops/s", SCALING).plotted(
        "threads_scaling",
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

// Growth from C to 64C items, against a fixed filter built for each count and the peer that grows.

/// The fixed filter the growth figures compare with, by the start of its line's label.
pub const GROWTH_BASE: &str = "cuckoo-nest fixed";

/// Ratios against the fixed filter at 8x (x = 3, where the growth issue sets its targets) and
/// at 64x: of times for the rates, of bits per item for memory.
const GROWTH_TIME: &[Ratio] = &[
    Ratio::TimeVsLine(GROWTH_BASE, At::Value(3.0)),
    Ratio::TimeVsLine(GROWTH_BASE, At::Last),
];
const GROWTH_SPACE: &[Ratio] = &[
    Ratio::vs(GROWTH_BASE, 3.0),
    Ratio::VsLine(GROWTH_BASE, At::Last),
];

/// A growth figure, drawn as `panel` of growth.svg.
const fn growth(name: Text, title: Text, unit: Text, ratios: Ratios, panel: Text) -> FigureSpec {
    FigureSpec::new(name, title, unit, ratios).plotted(
        "growth",
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
    GROWTH_SPACE,
    "bits per item (all memory / items)",
);

pub static GROWTH_INSERTS: FigureSpec = growth(
    "growth_inserts",
    "Growth: inserts from empty (M inserts/s, one thread, growth included) by items inserted",
    "M inserts/s",
    GROWTH_TIME,
    "inserts from empty",
);
