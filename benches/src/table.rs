//! One measurement as a table: rendered as markdown for stdout and report.md, and as CSV for
//! anyone re-plotting. Rows are filters (or measurements), columns are numbers with units;
//! an empty cell means the filter cannot do the operation, never a made-up figure.

use std::fmt::Write as _;

use cuckoo_nest_bench::stats::Spread;

/// A measured cell is flagged noisy when its rounds' max - min exceeds this share of its median.
const NOISY: f64 = 0.3;

pub struct Column {
    /// Header in the markdown table, with its unit ("10%", "bits/item").
    pub header: String,
    /// Header in the CSV file: lower case, no spaces, with its unit.
    pub csv: String,
    /// How to print the value in markdown.
    pub format: Format,
    /// Measured over rounds: the CSV adds `<csv>_min` and `<csv>_max` beside the median (for a
    /// [`Format::WithRange`] ratio, `<csv>_round_min` and `<csv>_round_max`).
    pub spread: bool,
}

#[derive(Clone, Copy)]
pub enum Format {
    /// Fixed decimals.
    Fixed(usize),
    /// Three significant digits, for rates spanning orders of magnitude (false-positive rates).
    Significant,
    /// An integer with thousands separators.
    Count,
    /// A ratio with fixed decimals followed by the range of the per-round ratios,
    /// `1.05 (0.98-1.12)`; the CSV names that range `<csv>_round_min` and `<csv>_round_max`.
    WithRange(usize),
}

#[derive(Default)]
pub struct Table {
    /// File stem of the CSV (and of the plot, where there is one).
    pub name: String,
    pub title: String,
    /// Lines under the title: what was measured, with its units.
    pub notes: Vec<String>,
    /// Header of the label column.
    pub label: String,
    pub columns: Vec<Column>,
    pub rows: Vec<(String, Vec<Option<Spread>>)>,
}

impl Table {
    pub fn new(name: &str, title: &str, label: &str) -> Table {
        Table {
            name: name.to_string(),
            title: title.to_string(),
            label: label.to_string(),
            ..Table::default()
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Table {
        self.notes.push(note.into());
        self
    }

    /// A column of values counted or computed once.
    pub fn column(self, header: &str, csv: &str, format: Format) -> Table {
        self.push_column(header, csv, format, false)
    }

    /// A column of medians over rounds, with their min and max in the CSV.
    pub fn measured(self, header: &str, csv: &str, format: Format) -> Table {
        self.push_column(header, csv, format, true)
    }

    fn push_column(mut self, header: &str, csv: &str, format: Format, spread: bool) -> Table {
        self.columns.push(Column {
            header: header.to_string(),
            csv: csv.to_string(),
            format,
            spread,
        });
        self
    }

    /// A row of single values (no spread).
    pub fn row_exact(&mut self, label: impl Into<String>, values: Vec<Option<f64>>) {
        let values = values.into_iter().map(|v| v.map(Spread::exact));
        self.row(label, values.collect());
    }

    pub fn row(&mut self, label: impl Into<String>, values: Vec<Option<Spread>>) {
        debug_assert_eq!(values.len(), self.columns.len());
        self.rows.push((label.into(), values));
    }

    pub fn markdown(&self) -> String {
        let mut s = format!("### {}\n\n", self.title);
        for n in &self.notes {
            let _ = writeln!(s, "{n}  ");
        }
        if !self.notes.is_empty() {
            s.push('\n');
        }
        // Cells whose rounds spread widely are flagged in the table itself.
        let noisy = |v: &Spread| v.median > 0.0 && (v.max - v.min) / v.median > NOISY;
        let mut any_noisy = false;
        let headers = self.columns.iter().map(|c| c.header.clone());
        let mut cells = vec![std::iter::once(self.label.clone()).chain(headers).collect()];
        for (label, values) in &self.rows {
            let mut line = vec![label.clone()];
            for (v, c) in values.iter().zip(&self.columns) {
                let flag = c.spread && v.as_ref().is_some_and(noisy);
                any_noisy |= flag;
                let cell = v.as_ref().map(|v| format_spread(v, c.format));
                let flag = if flag { "~" } else { "" };
                line.push(format!("{flag}{}", cell.unwrap_or_default()));
            }
            cells.push(line);
        }
        if any_noisy {
            let _ = writeln!(
                s,
                "`~`: a noisy cell, its rounds spread over more than {:.0}% of its median (min and \
                 max in the CSV).\n",
                NOISY * 100.0
            );
        }
        let widths: Vec<usize> = (0..cells[0].len())
            .map(|i| cells.iter().fold(3, |w, r| w.max(r[i].chars().count())))
            .collect();
        // The label column left-aligned, the numbers right-aligned.
        let rule = widths.iter().enumerate().map(|(i, &w)| match i {
            0 => "-".repeat(w),
            _ => format!("{}:", "-".repeat(w - 1)),
        });
        cells.insert(1, rule.collect());
        for line in &cells {
            s.push('|');
            for (i, (cell, &w)) in line.iter().zip(&widths).enumerate() {
                let _ = match i {
                    0 => write!(s, " {cell:<w$} |"),
                    _ => write!(s, " {cell:>w$} |"),
                };
            }
            s.push('\n');
        }
        s
    }

    pub fn csv(&self) -> String {
        let mut s = csv_field(&self.label.to_lowercase().replace(' ', "_"));
        for c in &self.columns {
            let name = csv_field(&c.csv);
            let _ = write!(s, ",{name}");
            if c.spread {
                let round = matches!(c.format, Format::WithRange(_));
                let kind = if round { "_round" } else { "" };
                let _ = write!(s, ",{name}{kind}_min,{name}{kind}_max");
            }
        }
        s.push('\n');
        for (label, values) in &self.rows {
            s.push_str(&csv_field(label));
            for (v, c) in values.iter().zip(&self.columns) {
                // Full precision: the CSV is for re-plotting, the markdown for reading.
                let _ = match (v, c.spread) {
                    (Some(v), true) => write!(s, ",{},{},{}", v.median, v.min, v.max),
                    (Some(v), false) => write!(s, ",{}", v.median),
                    (None, true) => write!(s, ",,,"),
                    (None, false) => write!(s, ","),
                };
            }
            s.push('\n');
        }
        s
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A markdown cell: the median, and for a [`Format::WithRange`] column its range beside it.
fn format_spread(v: &Spread, format: Format) -> String {
    match format {
        Format::WithRange(d) => format!("{:.d$} ({:.d$}-{:.d$})", v.median, v.min, v.max),
        _ => format_value(v.median, format),
    }
}

pub fn format_value(v: f64, format: Format) -> String {
    match format {
        Format::Fixed(d) | Format::WithRange(d) => format!("{v:.d$}"),
        Format::Significant if v == 0.0 => "0".to_string(),
        Format::Significant => {
            let digits = (2 - v.abs().log10().floor() as i64).clamp(0, 12) as usize;
            format!("{v:.digits$}")
        }
        Format::Count => {
            let raw = (v.round() as u128).to_string();
            let mut out = String::new();
            for (i, ch) in raw.chars().enumerate() {
                if i > 0 && (raw.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(ch);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_empty_cells_and_units() {
        let mut t = Table::new("t", "T", "filter")
            .column("a (M ops/s)", "a_mops", Format::Fixed(1))
            .column("b", "b", Format::Count)
            .measured("c", "c_mops", Format::Fixed(1));
        t.row_exact("x, y", vec![Some(1.25), None, None]);
        t.row(
            "z",
            vec![
                None,
                Some(Spread::exact(1234567.0)),
                Spread::of(&[1.0, 3.0, 2.0]),
            ],
        );
        let md = t.markdown();
        assert!(
            md.contains("| x, y   |         1.2 |           |      |"),
            "{md}"
        );
        // Rounds 1, 2, 3: a spread of 100% of the median, flagged.
        assert!(
            md.contains("~2.0") && md.contains("`~`: a noisy cell"),
            "{md}"
        );
        assert!(md.contains("1,234,567"));
        assert_eq!(
            t.csv(),
            "filter,a_mops,b,c_mops,c_mops_min,c_mops_max\n\"x, y\",1.25,,,,\nz,,1234567,2,1,3\n"
        );
    }

    #[test]
    fn significant_digits() {
        assert_eq!(format_value(0.012207, Format::Significant), "0.0122");
        assert_eq!(format_value(3.1, Format::Significant), "3.10");
    }
}
