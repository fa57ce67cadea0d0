//! Runs the report binary in tiny mode and checks that it writes exactly the tables and plots it
//! promises, that every figure in the CSV files is a finite, positive number (or an empty cell,
//! for an operation the filter cannot do), that measured cells carry their spread
//! (min <= median <= max), that ratio columns recompute from their cells, and that the thread
//! tables have the machine's reference row; and that `--only` runs only the parts it names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How a table's cells are checked beyond being numbers: `Spread`, measured in rounds (a min and
/// a max beside its cells); `Counted` or computed once (no spread); `Ratios` alone, each with
/// the range of its per-round ratios; `Scaling`, measured in rounds with the machine's own
/// scaling as a reference row.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Spread,
    Counted,
    Ratios,
    Scaling,
}
use Kind::{Counted, Ratios, Scaling, Spread};

/// Every table of a full run, in report order; the growth part's tables start with `growth_`.
const TABLES: [(&str, Kind); 22] = [
    ("table3_space_and_construction", Counted),
    ("space_bits_per_item", Counted),
    ("fig5_lookup_vs_positive_share", Spread),
    ("fig6_positive_lookup_vs_occupancy", Spread),
    ("fig6_negative_lookup_vs_occupancy", Spread),
    ("fig7_insert_vs_occupancy", Spread),
    ("fig8_delete_vs_occupancy", Spread),
    ("lookups_shuffled_in_cache", Spread),
    ("lookups_shuffled_out_of_l3", Spread),
    ("lookups_beside_writer", Spread),
    ("threads_lookups", Scaling),
    ("threads_inserts", Scaling),
    ("threads_mixed_90_10", Scaling),
    ("threads_mixed_50_50", Scaling),
    ("threads_fill_large", Scaling),
    ("growth_lookups", Spread),
    ("growth_bits_per_item", Spread),
    ("growth_inserts", Spread),
    ("growth_false_positive_rate", Counted),
    ("cache_line_rate_and_out_of_cache", Counted),
    ("byte_keys", Spread),
    ("byte_keys_v5_vs_v4", Ratios),
];

const SVG_FILES: [&str; 7] = [
    "space_bits_per_item",
    "fig5_lookup_vs_positive_share",
    "fig6_lookup_vs_occupancy",
    "fig7_insert_vs_occupancy",
    "fig8_delete_vs_occupancy",
    "threads_scaling",
    "growth",
];

/// The summary line of each phase on stderr; `--only growth` prints only `growth:`.
const PHASES: [&str; 7] = [
    "keys:",
    "single thread:",
    "shuffled lookups:",
    "thread scaling:",
    "growth:",
    "cache-line rate:",
    "out-of-cache lookups:",
];

fn run(args: &[&str]) -> Output {
    let mut report = Command::new(env!("CARGO_BIN_EXE_report"));
    report.args(args).output().expect("the report binary runs")
}

/// A successful run of the report, with `--out` a fresh folder of the test `name`'s own (the
/// tests run in parallel in one process).
struct Run {
    stdout: String,
    stderr: String,
    out: PathBuf,
}

impl Run {
    fn new(name: &str, args: &[&str]) -> Run {
        let pid = std::process::id();
        let out = std::env::temp_dir().join(format!("cuckoo-nest-report-smoke-{pid}-{name}"));
        let _ = std::fs::remove_dir_all(&out);
        let result = run(&[args, &["--out", out.to_str().unwrap()]].concat());
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let (stdout, stderr) = (text(&result.stdout), text(&result.stderr));
        assert!(result.status.success(), "report failed:\n{stderr}");
        Run {
            stdout,
            stderr,
            out,
        }
    }

    /// The run wrote exactly the tables (checked by kind) and plots (each with lines) whose names
    /// start with `part` ("" for all), and report.md linking every plot; printed every table on
    /// stdout; printed the summary line of each phase that starts with `part`, and no other; and
    /// wrote the growth part's ratios and memory through a fill (both runs have that part).
    fn check(&self, part: &str) {
        let tables: Vec<_> = TABLES.iter().filter(|(n, _)| n.starts_with(part)).collect();
        let svgs: Vec<_> = SVG_FILES.iter().filter(|n| n.starts_with(part)).collect();
        for &&(name, kind) in &tables {
            check_table(&self.out, name, kind);
        }
        let report = read(&self.out.join("report.md"));
        for name in &svgs {
            let svg = read(&self.out.join(format!("{name}.svg")));
            let lines = svg.contains("<polyline") || svg.contains("<path");
            assert!(svg.contains("</svg>") && lines, "{name}.svg: no lines");
            let link = format!("({name}.svg)");
            assert!(report.contains(&link), "no link to {name}.svg");
        }
        let written: BTreeSet<String> = (std::fs::read_dir(&self.out).unwrap())
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let want: BTreeSet<String> = (tables.iter().map(|(n, _)| format!("{n}.csv")))
            .chain(svgs.iter().map(|n| format!("{n}.svg")))
            .chain(["report.md".to_string()])
            .collect();
        assert_eq!(written, want);
        let stdout = &self.stdout;
        let tables_printed = stdout.matches("\n### ").count();
        assert_eq!(tables_printed, tables.len(), "tables on stdout:\n{stdout}");
        for phase in PHASES {
            let printed = self.stderr.contains(phase);
            assert_eq!(printed, phase.starts_with(part), "{phase}\n{}", self.stderr);
        }
        check_growth_ratios(&self.out);
        check_memory_through_fill(stdout);
    }
}

/// The folder goes when the test passes; a failing test leaves it to look at.
impl Drop for Run {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.out);
        }
    }
}

/// A CSV file: its name, header and rows (label first).
struct Csv {
    name: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(out: &Path, name: &str) -> Csv {
        let text = read(&out.join(format!("{name}.csv")));
        let mut lines = text.lines().map(fields);
        let header = lines.next().expect("a header line");
        let (name, rows) = (name.to_string(), lines.collect());
        Csv { name, header, rows }
    }

    fn cell(&self, row: &[String], column: &str) -> f64 {
        let (name, columns) = (&self.name, &self.header);
        let i = columns.iter().position(|h| h == column);
        let c = &row[i.unwrap_or_else(|| panic!("{name}: no column {column} in {columns:?}"))];
        (c.parse()).unwrap_or_else(|_| panic!("{name}: {column} = {c:?} in {row:?}"))
    }

    /// The first row whose label starts with `label`.
    fn row(&self, label: &str) -> &[String] {
        (self.rows.iter().find(|r| r[0].starts_with(label)))
            .unwrap_or_else(|| panic!("{}: no {label} row", self.name))
    }

    /// In every row, `ratio` is `want(row)` but for rounding and lies within its per-round range.
    fn check_ratio(&self, ratio: &str, want: impl Fn(&[String]) -> f64) {
        for row in &self.rows {
            let (got, want) = (self.cell(row, ratio), want(row));
            let what = format!("{} {}: {ratio}", self.name, row[0]);
            close(got, want, &what);
            let lo = self.cell(row, &format!("{ratio}_round_min"));
            let hi = self.cell(row, &format!("{ratio}_round_max"));
            assert!(lo <= got && got <= hi, "{what}: {got} outside {lo}-{hi}");
        }
    }

    /// [`check_ratio`](Csv::check_ratio): `ratio` is the row's `column` over the `base` row's,
    /// to the `power` (-1 for a ratio of times from rates: the base's rate over the row's).
    fn check_against(&self, ratio: &str, base: &str, column: &str, power: i32) {
        let theirs = self.cell(self.row(base), column);
        self.check_ratio(ratio, |row| (self.cell(row, column) / theirs).powi(power));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `got` is `want` but for rounding.
fn close(got: f64, want: f64, what: &str) {
    let near = (got - want).abs() <= 1e-9 * want.abs();
    assert!(near, "{what}: {got}, the cells give {want}");
}

/// Splits one CSV line; the report quotes the labels (the first field) that contain commas.
fn fields(line: &str) -> Vec<String> {
    let (label, rest) = match line.strip_prefix('"') {
        Some(quoted) => quoted.split_once("\",").expect("a closing quote"),
        None => line.split_once(',').expect("two fields at least"),
    };
    let fields = std::iter::once(label).chain(rest.split(','));
    fields.map(str::to_string).collect()
}

/// The table's cells are numbers, finite and positive (zero allowed for a false-positive rate
/// on a few thousand absent keys and for lost items), or empty where the filter cannot do the
/// operation; measured cells lie within their min and max; the machine's row where promised.
fn check_table(out: &Path, name: &str, kind: Kind) {
    let csv = Csv::read(out, name);
    let h = &csv.header;
    let enough = h.len() >= 2 && !csv.rows.is_empty();
    assert!(enough, "{name}: too few columns or no rows");
    // Columns `c` with `c_min` and `c_max` beside them.
    let beside = |i: usize, k: usize, end: &str| h.get(i + k) == Some(&format!("{}{end}", h[i]));
    let spread: Vec<usize> = (0..h.len())
        .filter(|&i| beside(i, 1, "_min") && beside(i, 2, "_max"))
        .collect();
    let mut numbers = 0;
    for row in &csv.rows {
        assert_eq!(row.len(), h.len(), "{name}: ragged row {row:?}");
        assert!(!row[0].is_empty(), "{name}: row without a label");
        for (cell, column) in row.iter().zip(h).skip(1).filter(|(c, _)| !c.is_empty()) {
            let v: f64 = (cell.parse()).unwrap_or_else(|_| panic!("{name}: {column} = {cell:?}"));
            let zero_ok = column.starts_with("fpr_measured") || column == "lost_items";
            let fine = v.is_finite() && (v > 0.0 || zero_ok && v == 0.0);
            assert!(fine, "{name}: {column} = {v}");
            numbers += 1;
        }
        for &i in spread.iter().filter(|&&i| !row[i].is_empty()) {
            let v: Vec<f64> = row[i..i + 3].iter().map(|c| c.parse().unwrap()).collect();
            let within = v[1] <= v[0] && v[0] <= v[2];
            assert!(within, "{name}: {} outside its min and max: {row:?}", h[i]);
        }
    }
    assert!(numbers > 0, "{name} has no figures");
    let ranges = h.iter().any(|c| c.contains("_round_min"));
    match kind {
        Counted => {}
        Ratios => assert!(ranges, "{name}: no ranges"),
        Spread | Scaling => assert!(!spread.is_empty(), "{name} has no min/max columns"),
    }
    if kind == Scaling {
        let machine = csv.rows.iter().any(|r| r[0].starts_with("machine"));
        assert!(machine, "{name}: no machine row");
        // The speedup is the last thread count's rate over the first's.
        let counts: Vec<&String> = h.iter().filter(|c| c.ends_with("thr_m_ops_s")).collect();
        let speedup = (h.iter())
            .find(|c| c.starts_with("ratio_speedup") && !c.contains("_round_"))
            .unwrap_or_else(|| panic!("{name} has no speedup column"));
        let (first, last) = (counts[0], counts[counts.len() - 1]);
        csv.check_ratio(speedup, |row| csv.cell(row, last) / csv.cell(row, first));
    }
}

/// The growth figures' ratios against the fixed filter at 8x and 64x: of times for lookups and
/// inserts, of bits per item for memory; and the 1% target.
fn check_growth_ratios(out: &Path) {
    for (name, unit, of, power) in [
        ("growth_lookups", "m_lookups_s", "time_", -1),
        ("growth_inserts", "m_inserts_s", "time_", -1),
        ("growth_bits_per_item", "bits_item", "", 1),
    ] {
        let csv = Csv::read(out, name);
        let rows = csv.rows.len();
        assert_eq!(rows, 3, "{name}: growable, fixed and scalable rows");
        for at in ["8x", "64x"] {
            let ratio = format!("ratio_{of}vs_cuckoo_nest_fixed_at_{at}");
            csv.check_against(&ratio, "cuckoo-nest fixed", &format!("{at}_{unit}"), power);
        }
    }
    let csv = Csv::read(out, "growth_false_positive_rate");
    for row in &csv.rows {
        assert_eq!(csv.cell(row, "fpr_target_pct"), 1.0, "the growth target");
    }
}

/// The growth part's memory through a whole fill, a note under its bits-per-item figure: a
/// mean and a most, each a finite positive ratio, the mean no more than the most.
fn check_memory_through_fill(stdout: &str) {
    let line = (stdout.lines())
        .find(|l| l.starts_with("Through a whole fill"))
        .unwrap_or_else(|| panic!("no memory through a whole fill on stdout\n{stdout}"));
    let number = |after: &str| -> f64 {
        (line.split(after).nth(1))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|word| word.trim_end_matches(',').parse().ok())
            .unwrap_or_else(|| panic!("no number after {after:?}: {line}"))
    };
    let (mean, most) = (number("filter's memory "), number("on average, "));
    assert!(mean > 0.0 && mean <= most && most.is_finite(), "{line}");
}

#[test]
fn tiny_report_writes_every_table_and_plot() {
    let run = Run::new("tiny", &["--tiny", "--items", "20000", "--threads", "2"]);
    run.check("");
    let out = &run.out;
    // Ratio columns print the ratio of the medians in the row's cells.
    let fig5 = Csv::read(out, "fig5_lookup_vs_positive_share");
    let (ratio, column) = ("ratio_vs_cuckoofilter_at_50pct", "50pct_m_lookups_s");
    fig5.check_against(ratio, "cuckoofilter", column, 1);
    let lines = Csv::read(out, "cache_line_rate_and_out_of_cache");
    let bound = lines.cell(lines.row("lookup bound"), "value");
    for row in lines.rows.iter().filter(|r| !r[3].is_empty()) {
        let want = lines.cell(row, "value") / bound * 100.0;
        let got = lines.cell(row, "pct_of_bound");
        close(got, want, &format!("% of bound, {}", row[0]));
    }
    // Bloom filters cannot delete: an empty cell, not a number.
    let fig8 = Csv::read(out, "fig8_delete_vs_occupancy");
    let bloom = fig8.row("fastbloom");
    let empty = bloom[1..].iter().all(String::is_empty);
    assert!(empty, "fastbloom deletes: {bloom:?}");
    // Markdown tables on stdout and in report.md; how busy the machine was before and after.
    let (stdout, stderr) = (&run.stdout, &run.stderr);
    assert!(stdout.contains("| filter"), "no markdown table on stdout");
    let report = read(&out.join("report.md"));
    assert!(report.contains("### Table 3"), "{report}");
    assert!(report.contains("steal"), "no steal time in report.md");
    for when in ["before", "after"] {
        let line = format!("{when} the run: load average");
        assert!(stderr.contains(&line), "no {line:?} on stderr\n{stderr}");
    }
}

/// `--only growth`: the growth tables and plot, no other part's, and none of their phases.
#[test]
fn only_growth_writes_only_the_growth_figures() {
    let run = Run::new("only-growth", &["--tiny", "--only", "growth"]);
    run.check("growth");
}

/// Bad options exit with code 2 and a clear message; `--help` lists every option.
#[test]
fn command_line() {
    let bad = "--items many|--items 10|--threads|--no-such-option|--configs 3x7|--configs 4x33|\
               --configs ss4x3|--configs fpr=2|--reps 0|--only everything|--only ,";
    for args in bad.split('|') {
        let result = run(&args.split(' ').collect::<Vec<_>>());
        assert_eq!(result.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        let clear = stderr.contains("error:") && !stderr.contains("panicked");
        assert!(clear, "{args}: {stderr}");
    }
    let result = run(&["--help"]);
    assert!(result.status.success());
    let help = String::from_utf8_lossy(&result.stdout);
    let options =
        "--items --threads --configs --out --quick --tiny --reps --memory-mib --seed --only";
    let options = format!("{options} --help");
    for option in options.split_whitespace() {
        assert!(help.contains(option), "--help does not list {option}");
    }
}
