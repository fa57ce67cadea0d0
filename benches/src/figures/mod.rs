//! The report's figures as data: every timed figure's spec (the paper's single-thread Figures 5
//! to 8, the lookups beyond the paper's, thread scaling and growth), each filled by the measuring
//! code with one [`Line`] per subject and one [`Samples`] per x value; the markdown table, the CSV
//! (median, min, max) and the plot panel all come from that one value.

use cuckoo_nest_bench::stats::{of_medians, Samples, Spread};

use crate::plot::{Panel, Rgb, Series};
use crate::table::{Format, Table};

mod specs;
pub use specs::*;

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
    /// `(line, at)`: the row against the line whose label starts with `line`, at one x.
    VsLine(&'static str, At),
    /// `(line, at)`: the row's time per operation against the line's, at one x, in a figure of
    /// rates: the line's rate over the row's (1.5: the row's operations take 1.5 times as long).
    TimeVsLine(&'static str, At),
    /// `(name, num, den)`: the row at `num` over the row at `den`: a speedup, or a slowdown.
    Within(&'static str, At, At),
    /// The row at this x over the mean of its first and last cells (mixed against pure streams).
    MidVsEnds(At),
    /// `(line)`: the row's last-over-first speedup divided by the same speedup of the line
    /// `line` (the machine's own scaling for the same traffic).
    ScalingVs(&'static str),
}

impl Ratio {
    /// The row against the line whose label starts with `line`, at the x value `x`.
    pub const fn vs(line: &'static str, x: f64) -> Ratio {
        Ratio::VsLine(line, At::Value(x))
    }
}

/// How a ratio combines one round's cells (in the order its cells are listed).
type RatioOf = fn(&[f64]) -> f64;

/// A spec's texts: names, titles, units, labels.
type Text = &'static str;
/// A spec's ratio columns.
type Ratios = &'static [Ratio];

/// A plot panel: the figures sharing a `file` (the SVG's name without `.svg`) are drawn side by
/// side in one SVG.
pub struct PlotSpec {
    pub file: Text,
    pub title: Text,
    pub panel: Text,
    pub x_label: Text,
}

/// One figure of the report, as data.
pub struct FigureSpec {
    /// File stem of the CSV.
    pub name: Text,
    pub title: Text,
    /// Unit of the cells, e.g. "M lookups/s".
    pub unit: Text,
    /// Header of the label column.
    pub label: Text,
    pub ratios: Ratios,
    pub plot: Option<PlotSpec>,
}

impl FigureSpec {
    /// A figure with one row per filter, not plotted.
    pub const fn new(name: Text, title: Text, unit: Text, ratios: Ratios) -> FigureSpec {
        FigureSpec {
            name,
            title,
            unit,
            label: "filter",
            ratios,
            plot: None,
        }
    }

    /// The figure drawn as `panel` of the SVG `file` (titled `title`), x axis `x_label`.
    pub const fn plotted(self, file: Text, title: Text, panel: Text, x_label: Text) -> FigureSpec {
        FigureSpec {
            plot: Some(PlotSpec {
                file,
                title,
                panel,
                x_label,
            }),
            ..self
        }
    }
}

/// One subject's measured line.
pub struct Line {
    pub label: String,
    pub color: Rgb,
    /// One cell per x value, each with its samples by round.
    pub cells: Vec<Samples>,
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

/// A figure's x values, with their column headers ("50%", "2 thr", "alone") and their form in
/// CSV column names ("50pct", "2thr").
pub type Axis = (Vec<f64>, Vec<String>, Vec<String>);

/// Percent labels for shares and occupancies.
pub fn percent_axis(xs: &[f64]) -> Axis {
    let label = |unit| {
        xs.iter()
            .map(|x| format!("{:.0}{unit}", x * 100.0))
            .collect()
    };
    (xs.to_vec(), label("%"), label("pct"))
}

/// Thread-count labels.
pub fn thread_axis(counts: &[usize]) -> Axis {
    let xs = counts.iter().map(|&c| c as f64).collect();
    let label = |gap| counts.iter().map(|c| format!("{c}{gap}thr")).collect();
    (xs, label(" "), label(""))
}

/// `s` as a CSV name: lower-case words joined by `_`, `%` as "pct" ("50% hits": "50pct_hits").
fn slug(s: &str) -> String {
    let s = s.to_ascii_lowercase().replace('%', "pct");
    let mut words: Vec<&str> = s.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    words.retain(|w| !w.is_empty());
    words.join("_")
}

impl Figure {
    pub fn new(spec: &'static FigureSpec, (xs, x_labels, x_csv): Axis) -> Figure {
        Figure {
            spec,
            notes: Vec::new(),
            xs,
            x_labels,
            x_csv,
            lines: Vec::new(),
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Figure {
        self.notes.push(note.into());
        self
    }

    /// Adds a line, with a cell for each x value.
    pub fn line(&mut self, label: impl Into<String>, color: Rgb) {
        let cells = vec![Samples::default(); self.xs.len()];
        let label = label.into();
        self.lines.push(Line {
            label,
            color,
            cells,
        });
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

    /// What a ratio column divides, in its header: "vs cuckoofilter at 50%".
    fn ratio_what(&self, r: Ratio) -> String {
        let x = |at| {
            self.x_index(at)
                .map_or(String::new(), |i| self.x_labels[i].clone())
        };
        match r {
            Ratio::VsLine(line, at) => format!("vs {line} at {}", x(at)),
            Ratio::TimeVsLine(line, at) => format!("time vs {line} at {}", x(at)),
            Ratio::Within(name, num, den) => format!("{name} {} / {}", x(num), x(den)),
            Ratio::MidVsEnds(mid) => {
                let (mid, first, last) = (x(mid), x(At::First), x(At::Last));
                format!("{mid} / mean of {first} and {last}")
            }
            Ratio::ScalingVs(line) => format!("speedup / {line}'s"),
        }
    }

    /// The ratio column's cell for line `row`: `median` is the ratio computed from the medians
    /// shown in the cells, `min` and `max` the smallest and largest ratio of a single round
    /// (rounds missing a cell are skipped). `None` when a cell it needs is empty.
    pub fn ratio(&self, r: Ratio, row: usize) -> Option<Spread> {
        let cell = |line: usize, at: At| Some(&self.lines[line].cells[self.x_index(at)?]);
        let vs = |line, at| Some(vec![cell(row, at)?, cell(self.line_index(line)?, at)?]);
        let ends = |line| Some(vec![cell(line, At::First)?, cell(line, At::Last)?]);
        let (cells, f): (Vec<&Samples>, RatioOf) = match r {
            Ratio::VsLine(line, at) => (vs(line, at)?, |v| v[0] / v[1]),
            Ratio::TimeVsLine(line, at) => (vs(line, at)?, |v| v[1] / v[0]),
            Ratio::Within(_, num, den) => (vec![cell(row, num)?, cell(row, den)?], |v| v[0] / v[1]),
            Ratio::MidVsEnds(mid) => {
                let cells = [vec![cell(row, mid)?], ends(row)?].concat();
                (cells, |v| v[0] / ((v[1] + v[2]) / 2.0))
            }
            Ratio::ScalingVs(line) => {
                let cells = [ends(row)?, ends(self.line_index(line)?)?].concat();
                (cells, |v| (v[1] / v[0]) / (v[3] / v[2]))
            }
        };
        of_medians(&cells, f)
    }

    /// The figure as a table: one column per x value (median, min and max in the CSV), then the
    /// ratio columns.
    pub fn table(&self) -> Table {
        let s = self.spec;
        let mut t = Table::new(s.name, s.title, s.label);
        t.notes.clone_from(&self.notes);
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
            let what = self.ratio_what(r);
            let header = format!("{what}: ratio of medians (per-round min-max)");
            let csv = format!("ratio_{}", slug(&what));
            t = t.measured(&header, &csv, Format::WithRange(2));
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
        let series = self.lines.iter().filter_map(|l| {
            let points = xs.iter().zip(&l.cells);
            let points: Vec<(f64, Spread)> = points
                .filter_map(|(x, c)| Some((*x, c.spread()?)))
                .collect();
            (!points.is_empty()).then(|| Series {
                name: l.label.clone(),
                color: l.color,
                // The machine's own rate for the same traffic, beside the filters.
                reference: l.label.ends_with("(reference)"),
                points,
            })
        });
        Some(Panel {
            title: p.panel.to_string(),
            x_label: p.x_label.to_string(),
            y_label: self.spec.unit.to_string(),
            series: series.collect(),
            x_ticks: xs,
        })
    }
}

/// Groups the figures' panels by plot file, in the order the figures come.
pub fn plots(figures: &[Figure]) -> Vec<(&'static str, &'static str, Vec<Panel>)> {
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

    static TWO_LINES: FigureSpec = FigureSpec::new(
        "two_lines",
        "Two lines",
        "M ops/s",
        &[Ratio::vs("base", 1.0)],
    );

    /// Three rounds of two lines at one x, "mine" 10, 4, 9 and "base" 5, 4, 3, where the median
    /// of the per-round ratios (10/5, 4/4, 9/3: 2) differs from the ratio of the medians (9/4 =
    /// 2.25): the column must print the latter, with the rounds' range beside it.
    #[test]
    fn ratio_column_is_the_ratio_of_the_cells_medians() {
        let mut f = Figure::new(&TWO_LINES, (vec![1.0], vec!["x".into()], vec!["x".into()]));
        f.line("mine", Rgb(0, 0, 0));
        f.line("base", Rgb(0, 0, 0));
        let rounds = [(10.0, 5.0), (4.0, 4.0), (9.0, 3.0)];
        for (round, (x, y)) in rounds.into_iter().enumerate() {
            f.lines[0].cells[0].push(round, Some(x));
            f.lines[1].cells[0].push(round, Some(y));
        }
        let r = f.ratio(TWO_LINES.ratios[0], 0).unwrap();
        assert_eq!((r.median, r.min, r.max), (9.0 / 4.0, 1.0, 3.0));
        let t = f.table();
        // The cells show 9.0 and 4.0; the ratio 2.25 (flagged: its rounds span 1 to 3).
        let md = t.markdown();
        let md = md.split_whitespace().collect::<Vec<_>>().join(" ");
        let header = "| filter | x | vs base at x: ratio of medians (per-round min-max) |";
        assert!(md.contains(header), "{md}");
        assert!(md.contains("| mine | ~9.0 | ~2.25 (1.00-3.00) |"), "{md}");
        assert!(md.contains("| base | ~4.0 | 1.00 (1.00-1.00) |"), "{md}");
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
}
