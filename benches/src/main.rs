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
mod growth;
mod lookups;
mod memory;
mod plot;
mod progress;
mod report;
mod single;
mod sizes;
mod space;
mod subjects;
mod table;
mod threads;

use std::process::ExitCode;
use std::time::Instant;

use cli::{Options, Part};
use env::Busy;
use report::{header, write_outputs, Report};

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
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
    let mut report = Report::new(o);
    let header = header(&report, &before);
    println!("{header}");
    for &part in &o.parts {
        report.keys_for(part);
        let r = &mut report;
        match part {
            Part::Single => single::part(r),
            Part::Space => space::part(r),
            Part::Lookups => lookups::part(r),
            Part::Threads => threads::part(r),
            Part::Growth => growth::part(r),
            Part::Memory => memory::part(r),
            Part::ByteKeys => byte_keys::part(r),
        }?;
    }
    let after = Busy::now();
    let busy = format!("{}; {}", after.describe(), before.steal_since(&after));
    eprintln!("after the run: {busy}");
    let secs = started.elapsed().as_secs_f64();
    let footer = format!("Total time: {secs:.0} s. After the run: {busy}.");
    write_outputs(&report, &header, &footer)?;
    eprintln!("total: {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
