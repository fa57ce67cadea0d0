//! Runs the report binary in tiny mode and checks that every table and plot it promises is
//! written, that every figure in the CSV files is a finite, positive number (or an empty
//! cell, for an operation the filter cannot do), that measured cells carry their spread
//! (min <= median <= max), that ratio columns recompute from their cells, and that the thread
//! tables have the machine's reference row; and that `--only` runs only the parts it names.

use std::path::{Path, PathBuf};
use std::process::Command;

const CSV_FILES: [&str; 22] = [
    "table3_space_and_construction",
    "space_bits_per_item",
    "fig5_lookup_vs_positive_share",
    "fig6_positive_lookup_vs_occupancy",
    "fig6_negative_lookup_vs_occupancy",
    "fig7_insert_vs_occupancy",
    "fig8_delete_vs_occupancy",
    "lookups_shuffled_in_cache",
    "lookups_shuffled_out_of_l3",
    "lookups_beside_writer",
    "threads_lookups",
    "threads_inserts",
    "threads_mixed_90_10",
    "threads_mixed_50_50",
    "threads_fill_large",
    "growth_lookups",
    "growth_bits_per_item",
    "growth_inserts",
    "growth_false_positive_rate",
    "cache_line_rate_and_out_of_cache",
    "byte_keys",
    "byte_keys_v5_vs_v4",
];

/// The tables counted or computed once, not measured in rounds: every other CSV has a min and
/// a max beside its cells.
const COUNTED_FILES: [&str; 4] = [
    "table3_space_and_construction",
    "space_bits_per_item",
    "growth_false_positive_rate",
    "cache_line_rate_and_out_of_cache",
];

/// Tables of ratios alone (each with the range of its per-round ratios, not a min and max).
const RATIO_FILES: [&str; 1] = ["byte_keys_v5_vs_v4"];

/// What `--only growth` writes.
const GROWTH_FILES: [&str; 4] = [
    "growth_lookups",
    "growth_bits_per_item",
    "growth_inserts",
    "growth_false_positive_rate",
];

/// Tables whose rows include the machine's own scaling as a reference.
const SCALING_FILES: [&str; 5] = [
    "threads_lookups",
    "threads_inserts",
    "threads_mixed_90_10",
    "threads_mixed_50_50",
    "threads_fill_large",
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

/// Columns that may hold a measured zero: a false-positive rate on a few thousand absent keys,
/// and the count of lost items (zero is the correct answer for most filters).
fn may_be_zero(column: &str) -> bool {
    column.starts_with("fpr_measured") || column == "lost_items"
}

/// An empty output directory of the test `name`'s own: the tests run in
/// parallel in one process, so a directory shared between them (or cleared
/// by another) loses a running report's files.
fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "cuckoo-nest-report-smoke-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Splits one CSV line; the report quotes fields that contain commas.
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// For every column `c` with `c_min` and `c_max` beside it: min <= median <= max in each row.
/// Returns how many such columns the file has.
fn check_spread(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap());
    let spread: Vec<usize> = (0..header.len())
        .filter(|&i| {
            header.get(i + 1) == Some(&format!("{}_min", header[i]))
                && header.get(i + 2) == Some(&format!("{}_max", header[i]))
        })
        .collect();
    for line in lines {
        let cells = fields(line);
        for &i in &spread {
            if cells[i].is_empty() {
                continue;
            }
            let v: Vec<f64> = cells[i..i + 3].iter().map(|c| c.parse().unwrap()).collect();
            assert!(
                v[1] <= v[0] && v[0] <= v[2],
                "{}: {} not within its min and max: {line}",
                path.display(),
                header[i]
            );
        }
    }
    spread.len()
}

fn check_csv(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = fields(lines.next().expect("a header line"));
    assert!(header.len() >= 2, "{}: too few columns", path.display());
    let mut numbers = 0;
    let mut rows = 0;
    for line in lines {
        rows += 1;
        let cells = fields(line);
        assert_eq!(
            cells.len(),
            header.len(),
            "{}: ragged row {line:?}",
            path.display()
        );
        assert!(
            !cells[0].is_empty(),
            "{}: row without a label",
            path.display()
        );
        for (cell, column) in cells.iter().zip(&header).skip(1) {
            if cell.is_empty() {
                continue; // the filter cannot do this operation
            }
            let v: f64 = cell.parse().unwrap_or_else(|_| {
                panic!("{}: {column} = {cell:?} is not a number", path.display())
            });
            assert!(
                v.is_finite(),
                "{}: {column} = {v} is not finite",
                path.display()
            );
            if may_be_zero(column) {
                assert!(v >= 0.0, "{}: {column} = {v} is negative", path.display());
            } else {
                assert!(
                    v > 0.0,
                    "{}: {column} = {v} is not positive",
                    path.display()
                );
            }
            numbers += 1;
        }
    }
    assert!(rows > 0, "{}: no rows", path.display());
    numbers
}

/// Every CSV of `names` with figures, and with their spread unless it is counted once.
fn check_tables(out: &Path, names: &[&str]) {
    for name in names {
        let numbers = check_csv(&out.join(format!("{name}.csv")));
        assert!(numbers > 0, "{name}.csv has no figures");
        if RATIO_FILES.contains(name) {
            let text = std::fs::read_to_string(out.join(format!("{name}.csv"))).unwrap();
            let header = text.lines().next().unwrap_or_default();
            assert!(header.contains("_round_min"), "{name}.csv has no ranges");
        } else if !COUNTED_FILES.contains(name) {
            let columns = check_spread(&out.join(format!("{name}.csv")));
            assert!(columns > 0, "{name}.csv has no min/max columns");
        }
    }
}

/// An SVG with lines.
fn check_svg(out: &Path, name: &str) {
    let path = out.join(format!("{name}.svg"));
    let svg = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        svg.contains("<svg") && svg.contains("</svg>"),
        "{name}.svg is not an SVG"
    );
    assert!(
        svg.contains("<polyline") || svg.contains("<path"),
        "{name}.svg has no lines"
    );
}

/// Every CSV with figures (and spread, and the machine's row where promised), every SVG with
/// lines.
fn check_files(out: &Path) {
    check_tables(out, &CSV_FILES);
    for name in SCALING_FILES {
        let text = std::fs::read_to_string(out.join(format!("{name}.csv"))).unwrap();
        assert!(
            text.lines().any(|l| l.starts_with("machine")),
            "{name}.csv has no machine reference row"
        );
        assert!(
            text.contains("ratio_speedup"),
            "{name}.csv has no speedup column"
        );
    }
    for name in SVG_FILES {
        check_svg(out, name);
    }
}

/// A CSV as its header and its rows (label first).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap());
    (header, lines.map(fields).collect())
}

fn cell(header: &[String], row: &[String], column: &str) -> f64 {
    let i = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column} in {header:?}"));
    row[i]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?} in {row:?}", row[i]))
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs(),
        "{what}: {got}, but the cells give {want}"
    );
}

/// Ratio columns print the ratio of the medians in the row's cells, so a reader can check one
/// against the other; the per-round range of a two-cell ratio holds that ratio.
fn check_ratios(out: &Path) {
    let (h, rows) = read_csv(&out.join("fig5_lookup_vs_positive_share.csv"));
    let base = rows
        .iter()
        .find(|r| r[0].starts_with("cuckoofilter"))
        .expect("a cuckoofilter row");
    let ratio = "ratio_vs_cuckoofilter_at_50pct";
    for row in &rows {
        let want = cell(&h, row, "50pct_m_lookups_s") / cell(&h, base, "50pct_m_lookups_s");
        let got = cell(&h, row, ratio);
        assert_close(got, want, &format!("fig5 {}", row[0]));
        let (lo, hi) = (
            cell(&h, row, &format!("{ratio}_round_min")),
            cell(&h, row, &format!("{ratio}_round_max")),
        );
        assert!(
            lo <= got && got <= hi,
            "fig5 {}: {got} outside {lo}-{hi}",
            row[0]
        );
    }
    for name in SCALING_FILES {
        let (h, rows) = read_csv(&out.join(format!("{name}.csv")));
        // The thread counts, first and last: `1thr_m_ops_s` .. `2thr_m_ops_s`.
        let counts: Vec<&String> = h.iter().filter(|c| c.ends_with("thr_m_ops_s")).collect();
        let (first, last) = (counts[0], counts[counts.len() - 1]);
        let speedup = h
            .iter()
            .find(|c| c.starts_with("ratio_speedup") && !c.contains("_round_"))
            .expect("a speedup column");
        for row in &rows {
            let want = cell(&h, row, last) / cell(&h, row, first);
            assert_close(cell(&h, row, speedup), want, &format!("{name} {}", row[0]));
        }
    }
    check_growth_ratios(out);
    let (h, rows) = read_csv(&out.join("cache_line_rate_and_out_of_cache.csv"));
    let bound = rows
        .iter()
        .find(|r| r[0].starts_with("lookup bound"))
        .expect("a bound row");
    for row in rows.iter().filter(|r| !r[3].is_empty()) {
        let want = cell(&h, row, "value") / cell(&h, bound, "value") * 100.0;
        assert_close(
            cell(&h, row, "pct_of_bound"),
            want,
            &format!("% of bound, {}", row[0]),
        );
    }
}

/// The growth figures' ratios against the fixed filter at 8x and 64x: of times (its rate over
/// the row's) for lookups and inserts, of bits per item for memory.
fn check_growth_ratios(out: &Path) {
    for (name, unit, time) in [
        ("growth_lookups", "m_lookups_s", true),
        ("growth_inserts", "m_inserts_s", true),
        ("growth_bits_per_item", "bits_item", false),
    ] {
        let (h, rows) = read_csv(&out.join(format!("{name}.csv")));
        let base = rows
            .iter()
            .find(|r| r[0].starts_with("cuckoo-nest fixed"))
            .unwrap_or_else(|| panic!("{name}: no fixed-filter row"));
        assert_eq!(rows.len(), 3, "{name}: growable, fixed and scalable rows");
        for at in ["8x", "64x"] {
            let column = format!("{at}_{unit}");
            let ratio = if time {
                format!("ratio_time_vs_cuckoo_nest_fixed_at_{at}")
            } else {
                format!("ratio_vs_cuckoo_nest_fixed_at_{at}")
            };
            for row in &rows {
                let (mine, theirs) = (cell(&h, row, &column), cell(&h, base, &column));
                let want = if time { theirs / mine } else { mine / theirs };
                let got = cell(&h, row, &ratio);
                assert_close(got, want, &format!("{name} {} at {at}", row[0]));
                let (lo, hi) = (
                    cell(&h, row, &format!("{ratio}_round_min")),
                    cell(&h, row, &format!("{ratio}_round_max")),
                );
                assert!(
                    lo <= got && got <= hi,
                    "{name} {}: {got} outside {lo}-{hi}",
                    row[0]
                );
            }
        }
    }
    let (h, rows) = read_csv(&out.join("growth_false_positive_rate.csv"));
    for row in &rows {
        assert_close(cell(&h, row, "fpr_target_pct"), 1.0, "the growth target");
    }
}

#[test]
fn tiny_report_writes_every_table_and_plot() {
    let out = out_dir("tiny");
    let result = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["--tiny", "--items", "20000", "--threads", "2", "--out"])
        .arg(&out)
        .output()
        .expect("the report binary runs");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "report failed:\n{stderr}");

    check_files(&out);
    check_ratios(&out);
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");

    // Every measurement is printed on stdout as a markdown table, and kept in report.md.
    let tables = stdout.matches("\n### ").count();
    assert_eq!(tables, CSV_FILES.len(), "tables on stdout:\n{stdout}");
    assert!(stdout.contains("| filter"), "no markdown table on stdout");
    assert!(report.contains("### Table 3"));
    for name in SVG_FILES {
        assert!(
            report.contains(&format!("{name}.svg")),
            "report.md does not link {name}.svg"
        );
    }
    // Bloom filters cannot delete: an empty cell, not a number.
    let fig8 = std::fs::read_to_string(out.join("fig8_delete_vs_occupancy.csv")).unwrap();
    let bloom = fig8
        .lines()
        .find(|l| l.starts_with("fastbloom"))
        .expect("a fastbloom row");
    assert!(
        bloom.split(',').skip(1).all(str::is_empty),
        "fastbloom deletes: {bloom}"
    );
    // One summary line per phase on stderr.
    for phase in [
        "keys:",
        "single thread:",
        "shuffled lookups:",
        "thread scaling:",
        "growth:",
        "cache-line rate:",
        "out-of-cache lookups:",
    ] {
        assert!(stderr.contains(phase), "no summary for {phase}\n{stderr}");
    }
    // How busy the machine was, before and after.
    for moment in [
        "before the run: load average",
        "after the run: load average",
    ] {
        assert!(stderr.contains(moment), "no {moment:?} on stderr\n{stderr}");
    }
    assert!(
        report.contains("steal"),
        "report.md does not give the steal time"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// `--only growth`: the growth tables and plot, no other part's, and none of their phases.
#[test]
fn only_growth_writes_only_the_growth_figures() {
    let out = out_dir("only-growth");
    let result = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["--tiny", "--only", "growth", "--out"])
        .arg(&out)
        .output()
        .expect("the report binary runs");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "report failed:\n{stderr}");
    check_tables(&out, &GROWTH_FILES);
    check_growth_ratios(&out);
    check_svg(&out, "growth");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut want: Vec<String> = GROWTH_FILES.iter().map(|n| format!("{n}.csv")).collect();
    want.extend(["growth.svg".to_string(), "report.md".to_string()]);
    want.sort();
    assert_eq!(written, want);
    assert_eq!(
        stdout.matches("\n### ").count(),
        GROWTH_FILES.len(),
        "{stdout}"
    );
    assert!(stderr.contains("growth:"), "{stderr}");
    for phase in [
        "keys:",
        "single thread:",
        "thread scaling:",
        "cache-line rate:",
    ] {
        assert!(!stderr.contains(phase), "{phase} ran\n{stderr}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_options_exit_with_code_2() {
    for args in [
        &["--items", "many"][..],
        &["--no-such-option"],
        &["--configs", "3x7"],
        &["--positive-fraction", "2"],
        &["--only", "everything"],
    ] {
        let result = Command::new(env!("CARGO_BIN_EXE_report"))
            .args(args)
            .output()
            .expect("the report binary runs");
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains("error:"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_lists_every_option() {
    let result = Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("--help")
        .output()
        .expect("the report binary runs");
    assert!(result.status.success());
    let help = String::from_utf8_lossy(&result.stdout);
    for option in [
        "--items",
        "--threads",
        "--positive-fraction",
        "--configs",
        "--out",
        "--quick",
        "--tiny",
        "--reps",
        "--memory-mib",
        "--seed",
        "--only",
        "--help",
    ] {
        assert!(help.contains(option), "--help does not list {option}");
    }
}
