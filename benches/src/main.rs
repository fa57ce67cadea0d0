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
    let mut sizes = Sizes::of(o.mode);
    sizes.memory_mib = o.memory_mib.unwrap_or(sizes.memory_mib);
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
    // The single-thread, space and thread parts share one key set, dropped after the last of
    // them; the other parts make their own.
    let mut keys = [Part::Single, Part::Space, Part::Threads]
        .iter()
        .any(|&p| o.runs(p))
        .then(|| parts::shared_keys(o));
    for &part in &o.parts {
        if part > Part::Threads {
            keys = None;
        }
        let shared = || keys.as_ref().expect("made for the parts that share them");
        match part {
            Part::Single => parts::single_thread(o, shared(), lookups, fpr_target, &mut out)?,
            Part::Space => parts::space(o, shared(), &mut out),
            Part::Lookups => parts::user_lookups(o, &sizes, &mut out)?,
            Part::Threads => parts::thread_scaling(o, shared(), fpr_target, &sizes, &mut out)?,
            Part::Growth => parts::growth(o, &sizes, &mut out)?,
            Part::Memory => parts::out_of_cache(o, &sizes, &mut out)?,
            Part::ByteKeys => parts::byte_keys(o, &sizes, fpr_target, &mut out)?,
        }
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
