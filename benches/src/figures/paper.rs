//! The single-thread figures of Fan et al. the report reproduces: Figure 5 (lookups by
//! share of hits), Figure 6 (positive and negative lookups by occupancy), Figure 7 (inserts)
//! and Figure 8 (deletes until empty).

use super::{At, FigureSpec, Ratio};

const OCCUPANCY: &str = "occupancy (% of n)";

pub static FIG5: FigureSpec = FigureSpec::new(
    "fig5_lookup_vs_positive_share",
    "Figure 5: lookups (M lookups/s, one thread) by share of queries that hit",
    "M lookups/s",
    &[Ratio::VsLine {
        line: "cuckoofilter",
        at: At::Value(0.5),
    }],
)
.plotted(
    "fig5_lookup_vs_positive_share.svg",
    "Figure 5: lookup throughput vs share of positive queries",
    "one thread",
    "positive lookups (%)",
);

/// The two panels of Figure 6.
const fn fig6(name: &'static str, title: &'static str, panel: &'static str) -> FigureSpec {
    FigureSpec::new(name, title, "M lookups/s", &[]).plotted(
        "fig6_lookup_vs_occupancy.svg",
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

pub static FIG7: FigureSpec = FigureSpec::new(
    "fig7_insert_vs_occupancy",
    "Figure 7: inserts (M inserts/s, one thread) by occupancy",
    "M inserts/s",
    &[],
)
.plotted(
    "fig7_insert_vs_occupancy.svg",
    "Figure 7: insert throughput vs occupancy",
    "one thread",
    OCCUPANCY,
);

pub static FIG8: FigureSpec = FigureSpec::new(
    "fig8_delete_vs_occupancy",
    "Figure 8: delete until empty (M deletes/s, one thread) by occupancy",
    "M deletes/s",
    &[],
)
.plotted(
    "fig8_delete_vs_occupancy.svg",
    "Figure 8: delete-until-empty throughput vs occupancy",
    "one thread",
    OCCUPANCY,
);
