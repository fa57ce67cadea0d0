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
mod parts;
mod plot;
mod progress;
mod report;
mod shared;
mod single;
mod sizes;
mod space;
mod subjects;
mod table;
mod threads;

use std::process::ExitCode;
use std::time::Instant;

use cli::{Options, Parsed, Part};
use env::Busy;
use progress::Phase;
use report::{header, write_outputs, Output};
use sizes::Sizes;

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

    let mut out = Output::default();
    // The single-thread, space and thread figures share one key set; the other parts make
    // their own.
    let keys = [Part::Single, Part::Space, Part::Threads]
        .iter()
        .any(|&p| o.runs(p))
        .then(|| parts::shared_keys(o));
    let keys_for = |part| keys.as_ref().filter(|_| o.runs(part));
    if let Some(keys) = keys_for(Part::Single) {
        parts::single_thread(o, keys, lookups, fpr_target, &mut out)?;
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
        parts::user_lookups(o, &sizes, &mut out)?;
    }
    if let Some(keys) = keys_for(Part::Threads) {
        parts::thread_scaling(o, keys, fpr_target, &sizes, &mut out)?;
    }
    drop(keys);
    if o.runs(Part::Growth) {
        parts::growth(o, &sizes, &mut out)?;
    }
    if o.runs(Part::Memory) {
        parts::out_of_cache(o, &sizes, &mut out)?;
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
