//! The throughput report: `cargo run --release -p cuckoo-nest-bench`.
//!
//! Reproduces the evaluation of Fan et al., "Cuckoo Filter: Practically Better Than Bloom"
//! (CoNEXT 2014) on the machine it runs on, for cuckoo-nest and the crates.io filters a user
//! would otherwise pick, from the same pre-generated keys: Table 3 (space, false positives,
//! construction), Figures 5 to 8 (lookups by share of hits and by occupancy, inserts, deletes),
//! thread scaling, and out-of-cache lookups against the core's random cache-line load rate.
//! Markdown tables go to stdout; CSV files, SVG plots and report.md to the output folder.

mod cli;
mod keys;
mod memory;
mod plot;
mod progress;
mod single;
mod subjects;
mod table;
mod threads;

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use cli::{Mode, NestConfig, Options, Parsed};
use plot::{Panel, Series};
use progress::Phase;
use single::{SingleResult, Workload, POSITIVE_SHARES, STEPS};
use subjects::{
    BloomSubject, CuckooFilterSubject, NestSubject, QuotientSubject, Subject, XorSubject,
};
use table::{Format, Table};
use threads::{Contender, Job};

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(o)) => *o,
        Ok(Parsed::Help) => {
            print!("{}", cli::help_text());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\nRun with --help to see the options.");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Palette slots: a filter keeps its colour in every plot.
const COLOR_CUCKOOFILTER: usize = 1;
const COLOR_BLOOM: usize = 2;
const COLOR_QUOTIENT: usize = 3;
const COLOR_XOR: usize = 4;
const COLOR_RWLOCK: usize = 10;

fn nest_color(i: usize) -> usize {
    if i == 0 {
        0
    } else {
        4 + i
    }
}

struct Machine {
    cpu: String,
    cores: usize,
    thp: String,
    /// One-minute load average when the run starts: on a shared machine, other work competes
    /// for the cores and the numbers drop.
    load: String,
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

fn machine() -> Machine {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    Machine {
        cpu,
        cores: cli::available_cores(),
        thp: memory::thp_mode(),
        load: load_average(),
    }
}

fn run(o: &Options) -> Result<(), String> {
    let started = std::time::Instant::now();
    std::fs::create_dir_all(&o.out)
        .map_err(|e| format!("cannot create output folder {}: {e}", o.out.display()))?;
    let m = machine();
    let n = o.items;
    let lookups = (n / 4).max(1000);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = if args.is_empty() {
        "cargo run --release -p cuckoo-nest-bench".to_string()
    } else {
        format!(
            "cargo run --release -p cuckoo-nest-bench -- {}",
            args.join(" ")
        )
    };
    // Bloom and quotient filters are sized for the false-positive rate cuckoo-nest's default
    // configuration expects, so the space columns compare like with like.
    let fpr_target = cuckoo_nest::CuckooFilter::with_capacity(n)
        .expected_false_positive_rate_at_capacity()
        .clamp(1e-9, 0.5);

    let mut header = String::new();
    let _ = writeln!(header, "# cuckoo-nest throughput report\n");
    let _ = writeln!(header, "- command: `{command}`");
    let _ = writeln!(
        header,
        "- machine: {}, {} cores available; transparent huge pages: {}; load average at start: {}",
        m.cpu, m.cores, m.thp, m.load
    );
    let _ = writeln!(
        header,
        "- n = {} items: every filter is sized for n; keys are u64 from splitmix64 (seed {}), \
         hashed by each filter through its own `&T: Hash` API",
        table::format_value(n as f64, Format::Count),
        o.seed
    );
    let _ = writeln!(
        header,
        "- Bloom (fastbloom) and quotient (qfilter) filters sized for n at a {:.4}% false-positive \
         target, the rate cuckoo-nest's default (4x16) expects",
        fpr_target * 100.0
    );
    let _ = writeln!(
        header,
        "- {} lookups per measurement, median of {}; M ops/s = million operations per second{}",
        table::format_value(lookups as f64, Format::Count),
        o.reps,
        if o.mode == Mode::Tiny {
            "\n- TINY MODE: a smoke test, the numbers mean nothing"
        } else {
            ""
        }
    );
    println!("{header}");

    // --- keys --------------------------------------------------------------------------------
    let phase = Phase::start("keys", 1);
    // Twice n inserted keys: enough to fill any cuckoo filter sized for n until it fails.
    let keys = keys::Keys::generate(o.seed, 2 * n + 1024, n);
    let workload = Workload::new(&keys, n, lookups, o.reps);
    phase.inc();
    phase.finish(&format!(
        "{} keys to insert, {} absent keys, query sets ready",
        keys.present.len(),
        keys.absent.len()
    ));

    // --- single thread: Table 3, Figures 5-8 ------------------------------------------------
    let mut results: Vec<SingleResult> = Vec::new();
    let subjects = o.configs.len() + 4;
    let phase = Phase::start("single thread", subjects as u64);
    let mut single_summary = Vec::new();
    let mut record = |r: SingleResult, phase: &Phase| {
        phase.inc();
        let line = format!(
            "{}: {} items at capacity, {:.1} bits/item, construction {:.1} M/s, lookups {:.1} M/s (50% hits)",
            r.name,
            r.items_at_capacity.unwrap_or(0),
            r.bits_per_item.unwrap_or(0.0),
            r.construction_mops.unwrap_or(0.0),
            r.fig5[2].unwrap_or(0.0)
        );
        phase.message(line.clone());
        single_summary.push(line);
        results.push(r);
    };
    // Inserts cannot be repeated on one filter: the fill runs on up to three fresh filters.
    let fills = o.reps.min(3);
    for (i, config) in o.configs.iter().enumerate() {
        // Probe the configuration once, so a bad one is skipped with its error.
        if let Err(e) = subjects::build_nest(*config, n) {
            phase.inc();
            eprintln!("warning: skipped {e}");
            continue;
        }
        let batched = *config == NestConfig::Default;
        let mut make = || -> Box<dyn Subject> {
            let filter = subjects::build_nest(*config, n).expect("built once already");
            Box::new(NestSubject { filter, batched })
        };
        let r = single::run_dynamic(
            &config.label(),
            nest_color(i),
            &mut make,
            &workload,
            fills,
            &phase,
        );
        record(r, &phase);
    }
    {
        let mut make = || -> Box<dyn Subject> { Box::new(CuckooFilterSubject::new(n)) };
        let r = single::run_dynamic(
            "cuckoofilter 0.5 (4x8)",
            COLOR_CUCKOOFILTER,
            &mut make,
            &workload,
            fills,
            &phase,
        );
        record(r, &phase);
    }
    {
        let mut make =
            || -> Box<dyn Subject> { Box::new(BloomSubject::new(n, fpr_target, o.seed)) };
        let r = single::run_dynamic(
            "fastbloom 0.17 (Bloom)",
            COLOR_BLOOM,
            &mut make,
            &workload,
            fills,
            &phase,
        );
        record(r, &phase);
    }
    match QuotientSubject::new(n, fpr_target) {
        Ok(_) => {
            let mut make = || -> Box<dyn Subject> {
                Box::new(QuotientSubject::new(n, fpr_target).expect("built once already"))
            };
            let r = single::run_dynamic(
                "qfilter 0.3 (quotient)",
                COLOR_QUOTIENT,
                &mut make,
                &workload,
                fills,
                &phase,
            );
            record(r, &phase);
        }
        Err(e) => {
            phase.inc();
            eprintln!("warning: skipped {e}");
        }
    }
    match single::run_static(
        "xorf 0.13 (BinaryFuse16, static)",
        COLOR_XOR,
        |k| XorSubject::build(k).map(|s| Box::new(s) as Box<dyn Subject>),
        &workload,
        &phase,
    ) {
        Ok(r) => record(r, &phase),
        Err(e) => {
            phase.inc();
            eprintln!("warning: skipped {e}");
        }
    }
    let lines = single_summary.len();
    phase.finish(&format!("{lines} filters measured"));
    for l in &single_summary {
        eprintln!("          {l}");
    }
    drop(workload);

    // --- thread scaling -------------------------------------------------------------------------
    let counts = threads::thread_counts(o.threads);
    let phase = Phase::start(
        "thread scaling",
        (Contender::ALL.len() * counts.len() * Job::ALL.len()) as u64,
    );
    let scaling = threads::run(
        &keys,
        n,
        o.threads,
        o.positive_fraction,
        fpr_target,
        o.reps.min(3),
        &phase,
    )?;
    let max_i = counts.len() - 1;
    let nest_lookups = scaling.results[0][0][max_i].unwrap_or(0.0);
    phase.finish(&format!(
        "threads {:?}; cuckoo-nest lookups at {} threads: {:.1} M/s",
        counts, counts[max_i], nest_lookups
    ));
    drop(keys);

    // --- memory: cache-line rate and out-of-cache lookups ------------------------------------
    let loads = match o.mode {
        Mode::Default => 16_000_000,
        Mode::Quick => 8_000_000,
        Mode::Tiny => 64_000,
    };
    let phase = Phase::start("cache-line rate", 2);
    let (rates, mut buffer) = memory::line_rates(o.memory_mib, loads, o.reps, &phase)?;
    phase.finish(&format!(
        "{:.0} M random 64-B lines/s on one core (2 MiB pages), {:.0} M/s (4 KiB pages); \
         latency {:.0} ns",
        rates.huge_pages / 1e6,
        rates.small_pages / 1e6,
        rates.latency_ns_huge
    ));
    let phase = Phase::start("out-of-cache lookups", 3);
    let (oc_fill, oc_lookups) = match o.mode {
        Mode::Default => (0.5, 4_000_000),
        Mode::Quick => (0.5, 2_000_000),
        Mode::Tiny => (0.5, 20_000),
    };
    let oc = memory::out_of_cache(
        o.memory_mib,
        oc_fill,
        oc_lookups,
        o.threads,
        o.reps,
        o.seed,
        &mut buffer,
        loads,
        &phase,
    )?;
    drop(buffer);
    phase.finish(&format!(
        "{:.0} MiB filter: {:.1} M negative lookups/s on one core = {:.0}% of the {:.1} M/s bound \
         ({:.0}% batched)",
        oc.filter_mib,
        oc.negative_1,
        oc.negative_pct,
        oc.lines_per_s / 2e6,
        oc.negative_batched_pct
    ));

    // --- output ---------------------------------------------------------------------------------
    let phase = Phase::start("tables and plots", 1);
    let tables = build_tables(o, &results, &scaling, &rates, &oc, n, fpr_target);
    let mut report = format!("{header}\n");
    for t in &tables {
        let md = t.markdown();
        println!("{md}");
        report.push_str(&md);
        report.push('\n');
        write_file(&o.out.join(format!("{}.csv", t.name)), &t.csv())?;
    }
    let plots = draw_plots(&o.out, &results, &scaling)?;
    report.push_str("### Plots\n\n");
    for p in &plots {
        let _ = writeln!(report, "![{p}]({p})\n");
    }
    let _ = writeln!(
        report,
        "Total time: {:.0} s; load average at the end: {}.",
        started.elapsed().as_secs_f64(),
        load_average()
    );
    write_file(&o.out.join("report.md"), &report)?;
    phase.inc();
    phase.finish(&format!(
        "{} CSV files, {} SVG plots and report.md in {}",
        tables.len(),
        plots.len(),
        o.out.display()
    ));
    eprintln!("total: {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn pct_labels(xs: &[f64]) -> Vec<String> {
    xs.iter().map(|x| format!("{:.0}%", x * 100.0)).collect()
}

fn per_step_table(
    name: &str,
    title: &str,
    note: &str,
    results: &[SingleResult],
    pick: impl Fn(&SingleResult) -> &Vec<Option<f64>>,
    csv_prefix: &str,
) -> Table {
    let mut t = Table::new(name, title, "filter").note(note);
    for (label, s) in pct_labels(&STEPS).iter().zip(STEPS) {
        t = t.column(
            label,
            &format!("{csv_prefix}_{:.0}pct_mops", s * 100.0),
            Format::Fixed(1),
        );
    }
    for r in results {
        t.row(r.name.clone(), pick(r).clone());
    }
    t
}

fn build_tables(
    o: &Options,
    results: &[SingleResult],
    scaling: &threads::Scaling,
    rates: &memory::LineRates,
    oc: &memory::OutOfCache,
    n: usize,
    fpr_target: f64,
) -> Vec<Table> {
    let mut tables = Vec::new();

    let mut t3 = Table::new("table3_space_and_construction", "Table 3: space, false positives, construction", "filter")
        .note(format!(
            "Cuckoo filters: items inserted until the first failed insert (sized for n = {n}); \
             Bloom, quotient: the configured capacity n at a {:.4}% target; xorf: built from n keys.",
            fpr_target * 100.0
        ))
        .note("False-positive rate measured with n absent keys at capacity; lost = inserted keys no longer found (false negatives).")
        .column("items at capacity", "items_at_capacity", Format::Count)
        .column("load (% of slots)", "load_pct_of_slots", Format::Fixed(1))
        .column("bits/item", "bits_per_item", Format::Fixed(2))
        .column("FPR measured (%)", "fpr_measured_pct", Format::Significant)
        .column("FPR expected (%)", "fpr_expected_pct", Format::Significant)
        .column("construction (M items/s)", "construction_mops", Format::Fixed(2))
        .column("lost items", "lost_items", Format::Count);
    for r in results {
        t3.row(
            r.name.clone(),
            vec![
                r.items_at_capacity.map(|v| v as f64),
                r.load_at_capacity.map(|v| v * 100.0),
                r.bits_per_item,
                r.fpr_measured.map(|v| v * 100.0),
                r.fpr_expected.map(|v| v * 100.0),
                r.construction_mops,
                r.lost.map(|v| v as f64),
            ],
        );
    }
    let remarks: Vec<String> = results
        .iter()
        .filter_map(|r| r.remark.as_ref().map(|m| format!("{}: {m}", r.name)))
        .collect();
    if !remarks.is_empty() {
        t3 = t3.note(format!("Remarks: {}.", remarks.join("; ")));
    }
    tables.push(t3);

    let base = results
        .iter()
        .find(|r| r.name.starts_with("cuckoofilter"))
        .and_then(|r| r.fig5[2]);
    let mut f5 = Table::new(
        "fig5_lookup_vs_positive_share",
        "Figure 5: lookups (M lookups/s, one thread) by share of queries that hit",
        "filter",
    )
    .note("Filters at 95% of n (xorf holds all n keys); columns: share of positive lookups.");
    for (label, p) in pct_labels(&POSITIVE_SHARES).iter().zip(POSITIVE_SHARES) {
        f5 = f5.column(
            label,
            &format!("pos_{:.0}pct_mops", p * 100.0),
            Format::Fixed(1),
        );
    }
    f5 = f5.column(
        "vs cuckoofilter at 50%",
        "ratio_vs_cuckoofilter_at_50pct",
        Format::Fixed(2),
    );
    for r in results {
        let mut v = r.fig5.clone();
        v.push(r.fig5[2].zip(base).map(|(a, b)| a / b));
        f5.row(r.name.clone(), v);
        if let Some(b) = &r.fig5_batched {
            let mut v = b.clone();
            v.push(b[2].zip(base).map(|(a, b)| a / b));
            f5.row(format!("{}, batched", r.name), v);
        }
    }
    tables.push(f5);

    let dynamic: Vec<SingleResult> = results
        .iter()
        .filter(|r| !r.name.contains("static"))
        .cloned()
        .collect();
    tables.push(per_step_table(
        "fig6_positive_lookup_vs_occupancy",
        "Figure 6a: positive lookups (M lookups/s, one thread) by occupancy",
        "Occupancy = items inserted / n; every query hits.",
        &dynamic,
        |r| &r.fig6_positive,
        "pos",
    ));
    tables.push(per_step_table(
        "fig6_negative_lookup_vs_occupancy",
        "Figure 6b: negative lookups (M lookups/s, one thread) by occupancy",
        "Occupancy = items inserted / n; every query misses.",
        &dynamic,
        |r| &r.fig6_negative,
        "neg",
    ));
    tables.push(per_step_table(
        "fig7_insert_vs_occupancy",
        "Figure 7: inserts (M inserts/s, one thread) by occupancy",
        "Column x%: inserts that fill the filter from the previous step to x% of n.",
        &dynamic,
        |r| &r.fig7_insert,
        "ins",
    ));
    tables.push(per_step_table(
        "fig8_delete_vs_occupancy",
        "Figure 8: delete until empty (M deletes/s, one thread) by occupancy",
        "Column x%: deletes that empty the filter from x% of n to the next step down. Empty: the filter cannot delete.",
        &dynamic,
        |r| &r.fig8_delete,
        "del",
    ));

    for (j, job) in Job::ALL.iter().enumerate() {
        let note = match job {
            Job::Lookups => format!(
                "Filter at 90% of n; {:.0}% of lookups hit; aggregate over all threads.",
                o.positive_fraction * 100.0
            ),
            Job::Inserts => {
                "Empty filter filled to 80% of n, keys split between threads.".to_string()
            }
            _ => format!(
                "Filter at 40% of n; writes insert new keys; {:.0}% of lookups hit.",
                o.positive_fraction * 100.0
            ),
        };
        let mut t = Table::new(
            &format!("threads_{}", job.file()),
            &format!("Thread scaling: {} (M ops/s, all threads)", job.title()),
            "filter",
        )
        .note(note);
        for c in &scaling.counts {
            t = t.column(
                &format!("{c} thr"),
                &format!("threads_{c}_mops"),
                Format::Fixed(1),
            );
        }
        let last = *scaling.counts.last().unwrap_or(&1);
        t = t.column(&format!("speedup {last} vs 1"), "speedup", Format::Fixed(2));
        for (c, contender) in Contender::ALL.iter().enumerate() {
            let mut v = scaling.results[j][c].clone();
            let first = v[0];
            let lastv = *v.last().unwrap_or(&None);
            v.push(first.zip(lastv).map(|(a, b)| b / a));
            t.row(contender.name(), v);
        }
        tables.push(t);
    }

    let bound = oc.lines_per_s / 2.0 / 1e6;
    let mut mem = Table::new(
        "cache_line_rate_and_out_of_cache",
        "Out-of-cache lookups against the hardware limit (one core)",
        "measurement",
    )
    .note(format!(
        "Random independent 64-byte loads over a {} MiB buffer; a cuckoo lookup needs two lines, \
         so lines/s / 2 bounds lookups/s. cuckoo-nest default filter of {:.0} MiB, {} items \
         ({:.0}% of slots), keys hashed by the filter.",
        rates.buffer_mib,
        oc.filter_mib,
        oc.items,
        oc.load_factor * 100.0
    ))
    .note(
        "The bound is re-measured right before each round of lookups; % of bound is the median \
         of the rounds' ratios, so both sides saw the same competition for the machine.",
    )
    .column("value", "value", Format::Fixed(1))
    .column("% of bound", "pct_of_bound", Format::Fixed(0));
    mem.row(
        "random line loads, 2 MiB pages (M lines/s)",
        vec![Some(rates.huge_pages / 1e6), None],
    );
    mem.row(
        "random line loads, 4 KiB pages (M lines/s)",
        vec![Some(rates.small_pages / 1e6), None],
    );
    mem.row(
        "dependent load latency, 2 MiB pages (ns)",
        vec![Some(rates.latency_ns_huge), None],
    );
    mem.row(
        "dependent load latency, 4 KiB pages (ns)",
        vec![Some(rates.latency_ns_small), None],
    );
    mem.row(
        "lookup bound = lines/s / 2, beside the lookups (M lookups/s)",
        vec![Some(bound), Some(100.0)],
    );
    mem.row(
        "cuckoo-nest negative lookups, 1 thread (M/s)",
        vec![Some(oc.negative_1), Some(oc.negative_pct)],
    );
    mem.row(
        "cuckoo-nest positive lookups, 1 thread (M/s)",
        vec![Some(oc.positive_1), Some(oc.positive_pct)],
    );
    // BATCHED LOOKUPS
    mem.row(
        "cuckoo-nest negative lookups, contains_batch, 1 thread (M/s)",
        vec![Some(oc.negative_batched_1), Some(oc.negative_batched_pct)],
    );
    mem.row(
        format!("cuckoo-nest negative lookups, {} threads (M/s)", oc.threads),
        vec![Some(oc.negative_all), None],
    );
    mem.row(
        format!(
            "cuckoo-nest fill with insert_batch, {} threads (M inserts/s)",
            oc.threads
        ),
        vec![Some(oc.fill_mops), None],
    );
    tables.push(mem);
    tables
}

fn series_of(
    results: &[SingleResult],
    xs: &[f64],
    pick: impl Fn(&SingleResult) -> &Vec<Option<f64>>,
) -> Vec<Series> {
    results
        .iter()
        .filter_map(|r| {
            let points: Vec<(f64, f64)> = xs
                .iter()
                .zip(pick(r))
                .filter_map(|(x, y)| y.map(|y| (*x, y)))
                .collect();
            (!points.is_empty()).then(|| Series {
                name: r.name.clone(),
                color: r.color,
                points,
            })
        })
        .collect()
}

fn draw_plots(
    out: &Path,
    results: &[SingleResult],
    scaling: &threads::Scaling,
) -> Result<Vec<String>, String> {
    let occupancy: Vec<f64> = STEPS.iter().map(|s| s * 100.0).collect();
    let shares: Vec<f64> = POSITIVE_SHARES.iter().map(|s| s * 100.0).collect();
    let panel =
        |title: &str, x_label: &str, y_label: &str, series: Vec<Series>, ticks: &[f64]| Panel {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            series,
            x_ticks: ticks.to_vec(),
        };
    let mut fig5 = series_of(results, &shares, |r| &r.fig5);
    for r in results {
        if let Some(b) = &r.fig5_batched {
            let batched = SingleResult {
                name: format!("{}, batched", r.name),
                color: 11,
                fig5: b.clone(),
                ..SingleResult::default()
            };
            fig5.extend(series_of(&[batched], &shares, |r| &r.fig5));
        }
    }
    let mut written = Vec::new();
    let mut emit = |file: &str, title: &str, panels: Vec<Panel>| -> Result<(), String> {
        plot::draw(&out.join(file), title, &panels)?;
        written.push(file.to_string());
        Ok(())
    };
    emit(
        "fig5_lookup_vs_positive_share.svg",
        "Figure 5: lookup throughput vs share of positive queries (filters at 95%)",
        vec![panel(
            "one thread",
            "positive lookups (%)",
            "M lookups/s",
            fig5,
            &shares,
        )],
    )?;
    emit(
        "fig6_lookup_vs_occupancy.svg",
        "Figure 6: lookup throughput vs occupancy",
        vec![
            panel(
                "positive lookups",
                "occupancy (% of n)",
                "M lookups/s",
                series_of(results, &occupancy, |r| &r.fig6_positive),
                &occupancy,
            ),
            panel(
                "negative lookups",
                "occupancy (% of n)",
                "M lookups/s",
                series_of(results, &occupancy, |r| &r.fig6_negative),
                &occupancy,
            ),
        ],
    )?;
    emit(
        "fig7_insert_vs_occupancy.svg",
        "Figure 7: insert throughput vs occupancy",
        vec![panel(
            "one thread",
            "occupancy (% of n)",
            "M inserts/s",
            series_of(results, &occupancy, |r| &r.fig7_insert),
            &occupancy,
        )],
    )?;
    emit(
        "fig8_delete_vs_occupancy.svg",
        "Figure 8: delete-until-empty throughput vs occupancy",
        vec![panel(
            "one thread",
            "occupancy (% of n)",
            "M deletes/s",
            series_of(results, &occupancy, |r| &r.fig8_delete),
            &occupancy,
        )],
    )?;
    let counts: Vec<f64> = scaling.counts.iter().map(|c| *c as f64).collect();
    let colors = [0, COLOR_CUCKOOFILTER, COLOR_RWLOCK, COLOR_BLOOM];
    let panels = Job::ALL
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let series = Contender::ALL
                .iter()
                .enumerate()
                .map(|(c, contender)| Series {
                    name: contender.name().to_string(),
                    color: colors[c],
                    points: counts
                        .iter()
                        .zip(&scaling.results[j][c])
                        .filter_map(|(x, y)| y.map(|y| (*x, y)))
                        .collect(),
                })
                .collect();
            panel(
                job.title(),
                "threads",
                "M ops/s (all threads)",
                series,
                &counts,
            )
        })
        .collect();
    emit(
        "threads_scaling.svg",
        "Thread scaling: aggregate throughput",
        panels,
    )?;
    Ok(written)
}
