//! The single-thread figures of Fan et al. the report reproduces: Figure 5 (lookups by
//! share of hits), Figure 6 (positive and negative lookups by occupancy), Figure 7 (inserts)
//! and Figure 8 (deletes until empty).

use super::{At, FigureSpec, PlotSpec, Ratio};

const OCCUPANCY: &str = "occupancy (% of n)";

pub static FIG5: FigureSpec = FigureSpec {
    name: "fig5_lookup_vs_positive_share",
    title: "Figure 5: lookups (M lookups/s, one thread) by share of queries that hit",
    unit: "M lookups/s",
    label: "filter",
    ratios: &[Ratio::VsLine {
        line: "cuckoofilter",
        at: At::Value(0.5),
    }],
    plot: Some(PlotSpec {
        file: "fig5_lookup_vs_positive_share.svg",
        title: "Figure 5: lookup throughput vs share of positive queries",
        panel: "one thread",
        x_label: "positive lookups (%)",
    }),
};

pub static FIG6_POSITIVE: FigureSpec = FigureSpec {
    name: "fig6_positive_lookup_vs_occupancy",
    title: "Figure 6a: positive lookups (M lookups/s, one thread) by occupancy",
    unit: "M lookups/s",
    label: "filter",
    ratios: &[],
    plot: Some(PlotSpec {
        file: "fig6_lookup_vs_occupancy.svg",
        title: "Figure 6: lookup throughput vs occupancy",
        panel: "positive lookups",
        x_label: OCCUPANCY,
    }),
};

pub static FIG6_NEGATIVE: FigureSpec = FigureSpec {
    name: "fig6_negative_lookup_vs_occupancy",
    title: "Figure 6b: negative lookups (M lookups/s, one thread) by occupancy",
    unit: "M lookups/s",
    label: "filter",
    ratios: &[],
    plot: Some(PlotSpec {
        file: "fig6_lookup_vs_occupancy.svg",
        title: "Figure 6: lookup throughput vs occupancy",
        panel: "negative lookups",
        x_label: OCCUPANCY,
    }),
};

pub static FIG7: FigureSpec = FigureSpec {
    name: "fig7_insert_vs_occupancy",
    title: "Figure 7: inserts (M inserts/s, one thread) by occupancy",
    unit: "M inserts/s",
    label: "filter",
    ratios: &[],
    plot: Some(PlotSpec {
        file: "fig7_insert_vs_occupancy.svg",
        title: "Figure 7: insert throughput vs occupancy",
        panel: "one thread",
        x_label: OCCUPANCY,
    }),
};

pub static FIG8: FigureSpec = FigureSpec {
    name: "fig8_delete_vs_occupancy",
    title: "Figure 8: delete until empty (M deletes/s, one thread) by occupancy",
    unit: "M deletes/s",
    label: "filter",
    ratios: &[],
    plot: Some(PlotSpec {
        file: "fig8_delete_vs_occupancy.svg",
        title: "Figure 8: delete-until-empty throughput vs occupancy",
        panel: "one thread",
        x_label: OCCUPANCY,
    }),
};
