//! The report's figures as data: what each one is called, its unit, its ratio columns and
//! where it is plotted. The measuring code fills a [`Figure`] with one [`Line`] per subject
//! (each carrying its own colour) and one [`Samples`] per x value; the markdown table, the CSV
//! (median, min, max) and the plot panel all come from that one value.

use cuckoo_nest_bench::stats::{of_medians, Samples, Spread};

use crate::plot::{Panel, Rgb, Series};
use crate::table::{Format, Table};

/// Where on the x axis a ratio reads its cells.
#[derive(Clone, Copy, Debug)]
pub enum At {
    First,
    Last,
    /// The x value (a share, an occupancy, a thread count).
    Value(f64),
}

/// A ratio column. Its cell is the ratio of the medians shown in the row's cells (so a reader
/// can check it against them), with the smallest and largest per-round ratio beside it.
#[derive(Clone, Copy, Debug)]
pub enum Ratio {
    /// The row against the line whose label starts with `line`, at one x.
    VsLine { line: &'static str, at: At },
    /// The row's time per operation against the line's, at one x, in a figure of rates: the
    /// line's rate over the row's (1.5: the row's operations take 1.5 times as long), for
    /// targets set in time.
    TimeVsLine { line: &'static str, at: At },
    /// The row at `num` over the row at `den`: a speedup, or a slowdown.
    Within {
        name: &'static str,
        num: At,
        den: At,
    },
    /// The row at `mid` over the mean of its first and last cells (a mixed stream against the
    /// two pure ones).
    MidVsEnds { mid: At },
    /// The row's last-over-first speedup divided by the same speedup of the line `line` (the
    /// machine's own scaling for the same traffic).
    ScalingVs { line: &'static str },
}

/// How a ratio combines one round's cells (in the order its cells are listed).
type RatioOf = fn(&[f64]) -> f64;

/// A plot panel: the figures sharing a `file` are drawn side by side in one SVG.
pub struct PlotSpec {
    pub file: &'static str,
    pub title: &'static str,
    pub panel: &'static str,
    pub x_label: &'static str,
}

/// One figure of the report, as data.
pub struct FigureSpec {
    /// File stem of the CSV.
    pub name: &'static str,
    pub title: &'static str,
    /// Unit of the cells, e.g. "M lookups/s".
    pub unit: &'static str,
    /// Header of the label column.
    pub label: &'static str,
    pub ratios: &'static [Ratio],
    pub plot: Option<PlotSpec>,
}

/// One subject's measured line.
pub struct Line {
    pub label: String,
    pub color: Rgb,
    /// One cell per x value, each with its samples by round.
    pub cells: Vec<Samples>,
}

impl Line {
    pub fn new(label: impl Into<String>, color: Rgb, xs: usize) -> Line {
        Line {
            label: label.into(),
            color,
            cells: vec![Samples::default(); xs],
        }
    }
}

/// A measured figure.
pub struct Figure {
    pub spec: &'static FigureSpec,
    /// Lines under the title, computed from the constants the measurement used.
    pub notes: Vec<String>,
    pub xs: Vec<f64>,
    /// Column headers of the x values ("50%", "2 thr", "alone").
    pub x_labels: Vec<String>,
    /// The x values in CSV column names ("50pct", "2thr").
    pub x_csv: Vec<String>,
    pub lines: Vec<Line>,
}

/// Percent labels for shares and occupancies.
pub fn percent_axis(xs: &[f64]) -> (Vec<String>, Vec<String>) {
    let labels = xs.iter().map(|x| format!("{:.0}%", x * 100.0)).collect();
    let csv = xs.iter().map(|x| format!("{:.0}pct", x * 100.0)).collect();
    (labels, csv)
}

/// Thread-count labels.
pub fn thread_axis(counts: &[usize]) -> (Vec<f64>, Vec<String>, Vec<String>) {
    (
        counts.iter().map(|&c| c as f64).collect(),
        counts.iter().map(|c| format!("{c} thr")).collect(),
        counts.iter().map(|c| format!("{c}thr")).collect(),
    )
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c == '%' {
            out.push_str("pct");
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

impl Figure {
    pub fn new(
        spec: &'static FigureSpec,
        xs: Vec<f64>,
        labels: (Vec<String>, Vec<String>),
    ) -> Figure {
        Figure {
            spec,
            notes: Vec::new(),
            xs,
            x_labels: labels.0,
            x_csv: labels.1,
            lines: Vec::new(),
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Figure {
        self.notes.push(note.into());
        self
    }

    /// Index of a line by the start of its label.
    pub fn line_index(&self, prefix: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| l.label == prefix)
            .or_else(|| self.lines.iter().position(|l| l.label.starts_with(prefix)))
    }

    fn x_index(&self, at: At) -> Option<usize> {
        match at {
            At::First => (!self.xs.is_empty()).then_some(0),
            At::Last => self.xs.len().checked_sub(1),
            At::Value(v) => self.xs.iter().position(|x| (x - v).abs() < 1e-9),
        }
    }

    fn x_label(&self, at: At) -> String {
        self.x_index(at)
            .map(|i| self.x_labels[i].clone())
            .unwrap_or_default()
    }

    /// A ratio column's header, which says plainly what the cell is: the ratio of the medians
    /// in the row's cells, then the range of the per-round ratios.
    fn ratio_header(&self, r: Ratio) -> String {
        let what = self.ratio_what(r);
        format!("{what}: ratio of medians (per-round min-max)")
    }

    fn ratio_what(&self, r: Ratio) -> String {
        match r {
            Ratio::VsLine { line, at } => format!("vs {line} at {}", self.x_label(at)),
            Ratio::TimeVsLine { line, at } => {
                format!("time vs {line} at {}", self.x_label(at))
            }
            Ratio::Within { name, num, den } => {
                format!("{name} {} / {}", self.x_label(num), self.x_label(den))
            }
            Ratio::MidVsEnds { mid } => format!(
                "{} / mean of {} and {}",
                self.x_label(mid),
                self.x_label(At::First),
                self.x_label(At::Last)
            ),
            Ratio::ScalingVs { line } => format!("speedup / {line}'s"),
        }
    }

    /// The ratio column's cell for line `row`: `median` is the ratio computed from the medians
    /// shown in the cells, `min` and `max` the smallest and largest ratio of a single round
    /// (rounds missing a cell are skipped). `None` when a cell it needs is empty.
    pub fn ratio(&self, r: Ratio, row: usize) -> Option<Spread> {
        let line = &self.lines[row];
        let (first, last) = (self.x_index(At::First)?, self.x_index(At::Last)?);
        let (cells, f): (Vec<&Samples>, RatioOf) = match r {
            Ratio::VsLine { line: other, at } => {
                let (o, x) = (self.line_index(other)?, self.x_index(at)?);
                (vec![&line.cells[x], &self.lines[o].cells[x]], |v| {
                    v[0] / v[1]
                })
            }
            Ratio::TimeVsLine { line: other, at } => {
                let (o, x) = (self.line_index(other)?, self.x_index(at)?);
                (vec![&line.cells[x], &self.lines[o].cells[x]], |v| {
                    v[1] / v[0]
                })
            }
            Ratio::Within { num, den, .. } => {
                let (a, b) = (self.x_index(num)?, self.x_index(den)?);
                (vec![&line.cells[a], &line.cells[b]], |v| v[0] / v[1])
            }
            Ratio::MidVsEnds { mid } => {
                let m = self.x_index(mid)?;
                (
                    vec![&line.cells[m], &line.cells[first], &line.cells[last]],
                    |v| v[0] / ((v[1] + v[2]) / 2.0),
                )
            }
            Ratio::ScalingVs { line: other } => {
                let o = &self.lines[self.line_index(other)?];
                (
                    vec![
                        &line.cells[first],
                        &line.cells[last],
                        &o.cells[first],
                        &o.cells[last],
                    ],
                    |v| (v[1] / v[0]) / (v[3] / v[2]),
                )
            }
        };
        of_medians(&cells, f)
    }

    /// The figure as a table: one column per x value (median, min and max in the CSV), then the
    /// ratio columns.
    pub fn table(&self) -> Table {
        let s = self.spec;
        let mut t = Table::new(s.name, s.title, s.label);
        for n in &self.notes {
            t = t.note(n.clone());
        }
        if !s.ratios.is_empty() {
            t = t.note(
                "Cells: median over interleaved rounds (min and max in the CSV). Ratio columns: \
                 the ratio of the medians in the row's cells, then in brackets the smallest and \
                 largest ratio within a single round.",
            );
        }
        let unit = slug(s.unit);
        for (label, csv) in self.x_labels.iter().zip(&self.x_csv) {
            t = t.measured(label, &format!("{csv}_{unit}"), Format::Fixed(1));
        }
        for &r in s.ratios {
            let header = self.ratio_header(r);
            t = t.measured(
                &header,
                &format!("ratio_{}", slug(&self.ratio_what(r))),
                Format::WithRange(2),
            );
        }
        for (i, line) in self.lines.iter().enumerate() {
            let mut v: Vec<Option<Spread>> = line.cells.iter().map(Samples::spread).collect();
            v.extend(s.ratios.iter().map(|&r| self.ratio(r, i)));
            t.row(line.label.clone(), v);
        }
        t
    }

    /// The figure as a plot panel, when it has one.
    pub fn panel(&self) -> Option<Panel> {
        let p = self.spec.plot.as_ref()?;
        let percent = self.x_labels.first().is_some_and(|l| l.ends_with('%'));
        let scale = if percent { 100.0 } else { 1.0 };
        let xs: Vec<f64> = self.xs.iter().map(|x| x * scale).collect();
        let series = self
            .lines
            .iter()
            .filter_map(|l| {
                let points: Vec<(f64, Spread)> = xs
                    .iter()
                    .zip(&l.cells)
                    .filter_map(|(x, c)| c.spread().map(|s| (*x, s)))
                    .collect();
                (!points.is_empty()).then(|| Series {
                    name: l.label.clone(),
                    color: l.color,
                    // The machine's own rate for the same traffic, beside the filters.
                    reference: l.label.ends_with("(reference)"),
                    points,
                })
            })
            .collect();
        Some(Panel {
            title: p.panel.to_string(),
            x_label: p.x_label.to_string(),
            y_label: self.spec.unit.to_string(),
            series,
            x_ticks: xs,
        })
    }
}

// --- the figures -------------------------------------------------------------------------------

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

pub static SHUFFLED_IN_CACHE: FigureSpec = FigureSpec {
    name: "lookups_shuffled_in_cache",
    title: "Shuffled lookups in cache (M lookups/s, one thread): hits and misses mixed",
    unit: "M lookups/s",
    label: "filter",
    ratios: &[
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
    plot: None,
};

pub static SHUFFLED_OUT_OF_L3: FigureSpec = FigureSpec {
    name: "lookups_shuffled_out_of_l3",
    title: "Shuffled lookups out of L3 (M lookups/s, one thread)",
    unit: "M lookups/s",
    label: "filter",
    ratios: &[Ratio::VsLine {
        line: "cuckoofilter",
        at: At::Value(0.5),
    }],
    plot: None,
};

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

/// Groups the figures' panels by plot file, in the order the figures come.
pub fn plots(figures: &[&Figure]) -> Vec<(&'static str, &'static str, Vec<Panel>)> {
    let mut out: Vec<(&'static str, &'static str, Vec<Panel>)> = Vec::new();
    for f in figures {
        let (Some(spec), Some(panel)) = (f.spec.plot.as_ref(), f.panel()) else {
            continue;
        };
        match out.iter_mut().find(|(file, _, _)| *file == spec.file) {
            Some(entry) => entry.2.push(panel),
            None => out.push((spec.file, spec.title, vec![panel])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    static TWO_LINES: FigureSpec = FigureSpec {
        name: "two_lines",
        title: "Two lines",
        unit: "M ops/s",
        label: "filter",
        ratios: &[Ratio::VsLine {
            line: "base",
            at: At::First,
        }],
        plot: None,
    };

    /// Three rounds where the median of the per-round ratios (10/5, 4/4, 9/3: 2) differs from
    /// the ratio of the medians (9/4 = 2.25): the column must print the latter, with the
    /// rounds' range beside it.
    #[test]
    fn ratio_column_is_the_ratio_of_the_cells_medians() {
        let mut f = Figure::new(&TWO_LINES, vec![1.0], (vec!["x".into()], vec!["x".into()]));
        let mut a = Line::new("mine", Rgb(0, 0, 0), 1);
        let mut b = Line::new("base", Rgb(0, 0, 0), 1);
        for (round, (x, y)) in [(10.0, 5.0), (4.0, 4.0), (9.0, 3.0)]
            .into_iter()
            .enumerate()
        {
            a.cells[0].push(round, Some(x));
            b.cells[0].push(round, Some(y));
        }
        f.lines = vec![a, b];
        let r = f.ratio(TWO_LINES.ratios[0], 0).unwrap();
        assert_eq!((r.median, r.min, r.max), (9.0 / 4.0, 1.0, 3.0));
        let t = f.table();
        let md = t.markdown();
        // The cells show 9.0 and 4.0; the ratio 2.25 (flagged: its rounds span 1 to 3).
        assert!(
            md.contains("vs base at x: ratio of medians (per-round min-max)"),
            "{md}"
        );
        let row = |label: &str| -> Vec<String> {
            let line = md
                .lines()
                .find(|l| l.starts_with(&format!("| {label} ")))
                .unwrap();
            line.split('|').map(|c| c.trim().to_string()).collect()
        };
        assert_eq!(row("mine")[2..4], ["~9.0", "~2.25 (1.00-3.00)"], "{md}");
        assert_eq!(row("base")[2..4], ["~4.0", "1.00 (1.00-1.00)"], "{md}");
        let csv = t.csv();
        assert!(
            csv.starts_with(
                "filter,x_m_ops_s,x_m_ops_s_min,x_m_ops_s_max,ratio_vs_base_at_x,\
                 ratio_vs_base_at_x_round_min,ratio_vs_base_at_x_round_max\n"
            ),
            "{csv}"
        );
        assert!(csv.contains("mine,9,4,10,2.25,1,3\n"), "{csv}");
    }

    /// A ratio of times in a figure of rates: the line's rate over the row's, per round too.
    #[test]
    fn time_ratio_is_the_inverse_rate_ratio() {
        let mut f = Figure::new(&TWO_LINES, vec![1.0], (vec!["x".into()], vec!["x".into()]));
        let mut a = Line::new("mine", Rgb(0, 0, 0), 1);
        let mut b = Line::new("base", Rgb(0, 0, 0), 1);
        for (round, (x, y)) in [(10.0, 5.0), (4.0, 4.0), (9.0, 3.0)]
            .into_iter()
            .enumerate()
        {
            a.cells[0].push(round, Some(x));
            b.cells[0].push(round, Some(y));
        }
        f.lines = vec![a, b];
        let time = Ratio::TimeVsLine {
            line: "base",
            at: At::First,
        };
        let r = f.ratio(time, 0).unwrap();
        assert_eq!((r.median, r.min, r.max), (4.0 / 9.0, 1.0 / 3.0, 1.0));
        assert_eq!(f.ratio_what(time), "time vs base at x");
    }
}
