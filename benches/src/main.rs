//! The throughput report: `cargo run --release -p cuckoo-nest-bench`.
//!
//! Reproduces the evaluation of Fan et al., "Cuckoo Filter: Practically Better Than Bloom"
//! (CoNEXT 2014) on the machine it runs on, for cuckoo-nest and the crates.io filters a user
//! would otherwise pick, from the same pre-generated keys: Table 3 (space, false positives,
//! construction), Figures 5 to 8 (lookups by share of hits and by occupancy, inserts, deletes),
//! shuffled hit/miss lookups in and out of cache, lookups beside a writer, thread scaling
//! against the machine's own scaling, what growth costs from C to 64C items, and out-of-cache
//! lookups against the core's random cache-line load rate. Every figure measures its filters
//! side by side in interleaved rounds (see `cuckoo_nest_bench::stats`). Markdown tables go to
//! stdout; CSV files (median, min, max), SVG plots (with min-max error bars) and report.md to
//! the output folder; `--only` runs some parts alone.

mod byte_keys;
mod cli;
mod env;
mod figures;
mod growing;
mod growth;
mod lookups;
mod memory;
mod plot;
mod progress;
mod shared;
mod single;
mod space;
mod subjects;
mod table;
mod threads;

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cuckoo_nest_bench::keys;

use cli::{Mode, Options, Parsed, Part};
use env::Busy;
use figures::{Figure, SHUFFLED_IN_CACHE, SHUFFLED_OUT_OF_L3};
use progress::Phase;
use single::Workload;
use table::{Format, Table};

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

/// Sizes of the measurements that do not follow `--items`, by mode.
struct Sizes {
    /// Random line loads per line-rate measurement.
    loads: usize,
    /// Lookups per out-of-cache measurement.
    oc_lookups: usize,
    /// Items of the in-cache shuffled-lookup filters (the 1M).
    shuffled_items: usize,
    /// Items of the out-of-L3 shuffled-lookup filters; `None`: skipped.
    out_of_l3_items: Option<usize>,
    /// Lookups per shuffled (and beside-a-writer) measurement.
    shuffled_lookups: usize,
    /// Capacity of the filter of the writers' scaling fill.
    large_fill_items: usize,
    /// First capacity C of the growing filters (filled to 64C).
    growth_first: usize,
    /// Lookups per growth measurement.
    growth_lookups: usize,
    /// Absent keys for the growing filters' false-positive rate.
    growth_absent: usize,
    /// Byte keys: (items, lookups) in cache, and out of cache (`None`: skipped).
    byte_keys_in_cache: (usize, usize),
    byte_keys_out_of_cache: Option<(usize, usize)>,
}

impl Sizes {
    fn of(mode: Mode) -> Sizes {
        match mode {
            Mode::Default => Sizes {
                loads: 16_000_000,
                oc_lookups: 4_000_000,
                shuffled_items: 1_000_000,
                out_of_l3_items: Some(64_000_000),
                shuffled_lookups: 1 << 20,
                large_fill_items: 8 << 20,
                growth_first: 100_000,
                growth_lookups: 1 << 18,
                growth_absent: 500_000,
                byte_keys_in_cache: (50_000, 1 << 20),
                byte_keys_out_of_cache: Some((20 << 20, 1 << 20)),
            },
            Mode::Quick => Sizes {
                loads: 8_000_000,
                oc_lookups: 2_000_000,
                shuffled_items: 1_000_000,
                out_of_l3_items: None,
                shuffled_lookups: 1 << 19,
                large_fill_items: 2 << 20,
                growth_first: 15_625,
                growth_lookups: 1 << 16,
                growth_absent: 200_000,
                byte_keys_in_cache: (50_000, 1 << 19),
                byte_keys_out_of_cache: None,
            },
            Mode::Tiny => Sizes {
                loads: 64_000,
                oc_lookups: 20_000,
                shuffled_items: 20_000,
                out_of_l3_items: Some(40_000),
                shuffled_lookups: 20_000,
                large_fill_items: 40_000,
                growth_first: 1000,
                growth_lookups: 1 << 12,
                growth_absent: 20_000,
                byte_keys_in_cache: (2_000, 4_000),
                byte_keys_out_of_cache: Some((20_000, 4_000)),
            },
        }
    }
}

/// Everything the run produces, in report order.
struct Output {
    tables: Vec<Table>,
    figures: Vec<Figure>,
    /// Plots drawn from data that is not a timed figure: (file, title, panel).
    extra_plots: Vec<(&'static str, &'static str, plot::Panel)>,
}

impl Output {
    fn figure(&mut self, f: Figure) {
        self.tables.push(f.table());
        self.figures.push(f);
    }
}

fn run(o: &Options) -> Result<(), String> {
    let started = Instant::now();
    std::fs::create_dir_all(&o.out)
        .map_err(|e| format!("cannot create output folder {}: {e}", o.out.display()))?;
    let before = Busy::now();
    eprintln!("before the run: {}", before.describe());
    let sizes = Sizes::of(o.mode);
    let lookups = (o.items / 4).max(1000);
    // Bloom and quotient filters are sized for the false-positive rate cuckoo-nest's default
    // configuration expects, so the space columns compare like with like.
    let fpr_target = cuckoo_nest::CuckooFilter::with_capacity(o.items)
        .shape()
        .false_positive_rate_at_capacity
        .clamp(1e-9, 0.5);
    let header = header(o, &before, lookups, fpr_target);
    println!("{header}");

    let mut out = Output {
        tables: Vec::new(),
        figures: Vec::new(),
        extra_plots: Vec::new(),
    };
    // The single-thread, space and thread figures share one key set; the other parts make
    // their own.
    let keys = [Part::Single, Part::Space, Part::Threads]
        .iter()
        .any(|&p| o.runs(p))
        .then(|| shared_keys(o));
    let keys_for = |part| keys.as_ref().filter(|_| o.runs(part));
    if let Some(keys) = keys_for(Part::Single) {
        single_thread(o, keys, lookups, fpr_target, &mut out)?;
    }
    if let Some(keys) = keys_for(Part::Space) {
        let phase = Phase::start("bits per item against false-positive rate", 1);
        let (table, panel) = space::bits_per_item(&keys.present[..o.items], o.seed);
        out.tables.push(table);
        out.extra_plots.push((
            "space_bits_per_item.svg",
            "Bits per item against the false-positive rate",
            panel,
        ));
        phase.inc();
        phase.finish("sizes of every filter at six rates");
    }
    if o.runs(Part::Lookups) {
        user_lookups(o, &sizes, &mut out)?;
    }
    if let Some(keys) = keys_for(Part::Threads) {
        thread_scaling(o, keys, fpr_target, &sizes, &mut out)?;
    }
    drop(keys);
    if o.runs(Part::Growth) {
        growth(o, &sizes, &mut out)?;
    }
    if o.runs(Part::Memory) {
        out_of_cache(o, &sizes, &mut out)?;
    }
    if o.runs(Part::ByteKeys) {
        // Out of cache every round refills 25 filters of 20M keys: --reps rounds there.
        let (n, l) = sizes.byte_keys_in_cache;
        let mut at = vec![(n, l, 2 * o.reps + 1, "in cache")];
        if let Some((n, l)) = sizes.byte_keys_out_of_cache {
            at.push((n, l, o.reps.max(1), "out of cache"));
        }
        let tables = byte_keys::byte_keys(&at, fpr_target, o.seed ^ 0xB7E5)?;
        out.tables.extend(tables);
    }

    let after = Busy::now();
    eprintln!(
        "after the run: {}; {}",
        after.describe(),
        before.steal_since(&after)
    );
    let footer = format!(
        "Total time: {:.0} s. After the run: {}; {}.",
        started.elapsed().as_secs_f64(),
        after.describe(),
        before.steal_since(&after)
    );
    write_outputs(o, &header, &footer, &out)?;
    eprintln!("total: {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn shared_keys(o: &Options) -> keys::Keys {
    let phase = Phase::start("keys", 1);
    // Twice n inserted keys: enough to fill any cuckoo filter sized for n until it fails.
    let keys = keys::Keys::generate(o.seed, 2 * o.items + 1024, o.items);
    phase.inc();
    phase.finish(&format!(
        "{} keys to insert, {} absent keys",
        keys.present.len(),
        keys.absent.len()
    ));
    keys
}

fn header(o: &Options, before: &Busy, lookups: usize, fpr_target: f64) -> String {
    let m = env::machine();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = ["cargo run --release -p cuckoo-nest-bench".to_string()]
        .into_iter()
        .chain((!args.is_empty()).then(|| format!("-- {}", args.join(" "))))
        .collect::<Vec<_>>()
        .join(" ");
    let mut h = String::new();
    let _ = writeln!(h, "# cuckoo-nest throughput report\n");
    let _ = writeln!(h, "- command: `{command}`");
    let _ = writeln!(
        h,
        "- machine: {}, {} cores available; transparent huge pages: {}",
        m.cpu, m.cores, m.thp
    );
    let _ = writeln!(h, "- before the run: {}", before.describe());
    if o.parts != Part::ALL {
        let parts: Vec<&str> = o.parts.iter().map(|p| p.name()).collect();
        let _ = writeln!(h, "- parts run (`--only`): {}", parts.join(", "));
    }
    // n, the peers' target and the single-thread rounds are those parts' settings; the growth
    // and memory figures give their own sizes.
    if [Part::Single, Part::Space, Part::Lookups, Part::Threads]
        .iter()
        .any(|&p| o.runs(p))
    {
        let _ = writeln!(
            h,
            "- n = {} items: every filter is sized for n; keys are u64 from splitmix64 (seed \
             {}), hashed by each filter through its own `&T: Hash` API",
            table::format_value(o.items as f64, Format::Count),
            o.seed
        );
        let _ = writeln!(
            h,
            "- Bloom (fastbloom) and quotient (qfilter) filters sized for n at a {:.4}% \
             false-positive target, the rate cuckoo-nest's default (4x16) expects",
            fpr_target * 100.0
        );
    }
    if o.runs(Part::Single) {
        let _ = writeln!(
            h,
            "- {} lookups per measurement, {} interleaved rounds ({} sets of filters filled \
             for Figures 7 and 8 and Table 3's construction rate); M ops/s = million \
             operations per second",
            table::format_value(lookups as f64, Format::Count),
            o.reps,
            o.reps.min(FILL_SETS),
        );
    } else {
        let _ = writeln!(
            h,
            "- {} interleaved rounds; M ops/s = million operations per second",
            o.reps
        );
    }
    if o.mode == Mode::Tiny {
        let _ = writeln!(h, "- TINY MODE: a smoke test, the numbers mean nothing");
    }
    h
}

/// Sets of single-thread filters filled and emptied at most (the rounds of Figures 7 and 8).
const FILL_SETS: usize = 3;

fn single_thread(
    o: &Options,
    keys: &keys::Keys,
    lookups: usize,
    fpr_target: f64,
    out: &mut Output,
) -> Result<(), String> {
    let contenders = subjects::single_contenders(&o.configs, o.items, fpr_target, o.seed);
    let fills = o.reps.min(FILL_SETS);
    let phase = Phase::start("single thread", fills as u64);
    let workload = Workload::new(keys, o.items, lookups, o.reps);
    let run = single::run(&contenders, &workload, fills, &phase)?;
    phase.finish(&format!(
        "{} filters measured side by side",
        contenders.len()
    ));
    for l in &run.summary {
        eprintln!("          {l}");
    }
    out.tables.push(run.table3);
    for f in run.figures {
        out.figure(f);
    }
    Ok(())
}

/// Shuffled hit/miss lookups (in cache, out of L3) and lookups beside a writer.
fn user_lookups(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("shuffled lookups", 3);
    let rounds = 2 * o.reps + 1;
    let seed = o.seed ^ 0x5111_FF1E;
    let fig = lookups::shuffled(
        &SHUFFLED_IN_CACHE,
        sizes.shuffled_items,
        &lookups::SHUFFLED_SHARES,
        sizes.shuffled_lookups,
        rounds,
        seed,
        o.threads,
        &phase,
    )?;
    out.figure(fig);
    match sizes.out_of_l3_items {
        Some(items) => {
            let fig = lookups::shuffled(
                &SHUFFLED_OUT_OF_L3,
                items,
                &[0.5],
                sizes.shuffled_lookups,
                o.reps,
                seed ^ 1,
                o.threads,
                &phase,
            )?;
            out.figure(fig);
        }
        None => eprintln!("          shuffled lookups out of L3: skipped in this mode"),
    }
    let fig = lookups::beside_writer(
        o.items,
        sizes.shuffled_lookups,
        rounds,
        seed ^ 2,
        o.threads,
        &phase,
    )?;
    let slowdown = fig
        .ratio(BESIDE_WRITER_SLOWDOWN, 0)
        .map_or(0.0, |s| s.median);
    out.figure(fig);
    phase.finish(&format!(
        "lookups beside a writer: {slowdown:.2}x slower than alone"
    ));
    Ok(())
}

const BESIDE_WRITER_SLOWDOWN: figures::Ratio = figures::BESIDE_WRITER.ratios[0];

fn thread_scaling(
    o: &Options,
    keys: &keys::Keys,
    fpr_target: f64,
    sizes: &Sizes,
    out: &mut Output,
) -> Result<(), String> {
    // Two-thread cells move most from run to run (the second vCPU of a
    // shared host is the one most often busy elsewhere): more rounds for
    // the four scaling figures, whose measurements are short. The large
    // fill builds a fresh filter per measurement and keeps `reps`.
    let rounds = 2 * o.reps + 1;
    let counts = threads::thread_counts(o.threads);
    let phase = Phase::start(
        "thread scaling",
        (rounds * threads::Job::ALL.len() + o.reps) as u64,
    );
    let figs = threads::run(
        keys,
        o.items,
        &counts,
        o.positive_fraction,
        fpr_target,
        rounds,
        &phase,
    )?;
    for f in figs {
        out.figure(f);
    }
    let fill = threads::large_fill(sizes.large_fill_items, o.threads, o.reps, o.seed, &phase)?;
    let vs_machine = fill.ratio(figures::Ratio::ScalingVs { line: "machine" }, 0);
    out.figure(fill);
    phase.finish(&format!(
        "threads {counts:?}; large fill at {} threads: {:.2} of the machine's scaling",
        o.threads,
        vs_machine.map_or(0.0, |s| s.median)
    ));
    Ok(())
}

/// What growth costs from C to 64C items: a growable filter against filters built for each
/// count and against the peer that grows.
fn growth(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("growth", o.reps as u64);
    let run = growth::run(
        sizes.growth_first,
        sizes.growth_lookups,
        sizes.growth_absent,
        o.reps,
        o.seed ^ 0x6120_3717,
        &phase,
    )?;
    phase.finish(&run.summary);
    for f in run.figures {
        out.figure(f);
    }
    out.tables.push(run.fpr);
    Ok(())
}

fn out_of_cache(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("cache-line rate", 2);
    let (rates, mut buffer) = memory::line_rates(o.memory_mib, sizes.loads, o.reps, &phase)?;
    phase.finish(&format!(
        "{:.0} M random 64-B lines/s on one core (2 MiB pages), {:.0} M/s (4 KiB pages); \
         latency {:.0} ns",
        rates.huge_pages / 1e6,
        rates.small_pages / 1e6,
        rates.latency_ns_huge
    ));
    let phase = Phase::start("out-of-cache lookups", 3);
    let oc = memory::out_of_cache(
        o.memory_mib,
        0.5,
        sizes.oc_lookups,
        o.threads,
        o.reps,
        o.seed,
        &mut buffer,
        sizes.loads,
        &phase,
    )?;
    drop(buffer);
    phase.finish(&format!(
        "{:.0} MiB filter: {:.1} M negative lookups/s on one core = {:.0}% of the {:.1} M/s bound \
         ({:.0}% batched)",
        oc.filter_mib,
        oc.negative_1,
        oc.negative_pct.map_or(f64::NAN, |s| s.median),
        oc.lines_per_s / 2e6,
        oc.negative_batched_pct.map_or(f64::NAN, |s| s.median)
    ));
    out.tables.push(memory::table(&rates, &oc));
    Ok(())
}

fn write_outputs(o: &Options, header: &str, footer: &str, out: &Output) -> Result<(), String> {
    let phase = Phase::start("tables and plots", 1);
    let mut report = format!("{header}\n");
    for t in &out.tables {
        let md = t.markdown();
        println!("{md}");
        report.push_str(&md);
        report.push('\n');
        write_file(&o.out.join(format!("{}.csv", t.name)), &t.csv())?;
    }
    println!("{footer}");
    let figs: Vec<&Figure> = out.figures.iter().collect();
    let plots = figures::plots(&figs);
    report.push_str("### Plots\n\nError bars: the slowest and the fastest round.\n\n");
    for (file, title, panels) in &plots {
        plot::draw(&o.out.join(file), title, panels)?;
        let _ = writeln!(report, "![{file}]({file})\n");
    }
    for (file, title, panel) in &out.extra_plots {
        plot::draw(&o.out.join(file), title, std::slice::from_ref(panel))?;
        let _ = writeln!(report, "![{file}]({file})\n");
    }
    let _ = writeln!(report, "{footer}");
    write_file(&o.out.join("report.md"), &report)?;
    phase.inc();
    phase.finish(&format!(
        "{} CSV files, {} SVG plots and report.md in {}",
        out.tables.len(),
        plots.len() + out.extra_plots.len(),
        o.out.display()
    ));
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
