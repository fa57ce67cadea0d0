//! What one insert can cost while a growable filter grows: every insert timed, through N
//! items, for a growable filter started at capacity C and for a fixed filter built for N, on
//! the same keys, in alternating runs.
//!
//! `cargo run --release -p cuckoo-nest-bench --bin growth_latency [-- N [C [RUNS [PAGES]]]]`
//! (default N = 8,000,000, C = 125,000, 2 runs of each; PAGES `huge`, the default, or `4k`:
//! both filters built with `huge_pages(false)`, so no table is backed ahead by a thread of its
//! own)
//!
//! Prints, per run, in microseconds: the insert latency's p50, p99, p99.9 and maximum, how many
//! inserts took over 1 ms, and for the growable filter the slowest insert of each growth step
//! (from the insert that started it to the next step). The fixed filter's figures are the
//! machine's own floor: page faults as the table is first touched, the hypervisor, the other
//! core's load.

use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::stream;
use cuckoo_nest_bench::tool::arg;
use std::time::Instant;

const RATE: f64 = 0.01;

struct Run {
    /// Nanoseconds per insert, in insert order.
    ns: Vec<u32>,
    /// (items when the step started, slowest insert of the step in ns).
    steps: Vec<(usize, u32)>,
    total_s: f64,
}

fn fill(filter: &CuckooFilter, keys: &[u64]) -> Run {
    let mut ns = Vec::with_capacity(keys.len());
    let mut steps = Vec::new();
    let mut capacity = filter.capacity();
    let start = Instant::now();
    for (k, key) in keys.iter().enumerate() {
        let t = Instant::now();
        filter.insert(key).expect("insert");
        let took = t.elapsed().as_nanos().min(u32::MAX as u128) as u32;
        ns.push(took);
        if filter.capacity() != capacity {
            capacity = filter.capacity();
            steps.push((k, took));
        } else if let Some(last) = steps.last_mut() {
            last.1 = last.1.max(took);
        }
    }
    Run {
        ns,
        steps,
        total_s: start.elapsed().as_secs_f64(),
    }
}

fn report(name: &str, run: &Run) {
    let mut sorted = run.ns.clone();
    sorted.sort_unstable();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    let over_1ms = run.ns.iter().filter(|&&t| t > 1_000_000).count();
    println!(
        "  {name:<9} p50 {:>6.2}  p99 {:>6.2}  p99.9 {:>7.2}  max {:>9.1}  over 1 ms: {over_1ms:>3}   ({:.1} ns an insert in all)",
        at(0.5),
        at(0.99),
        at(0.999),
        at(1.0),
        run.total_s * 1e9 / run.ns.len() as f64,
    );
}

/// Prints `label` and the items, comma-separated, on a line of the growable filter's.
fn list(label: &str, items: impl Iterator<Item = String>) {
    println!(
        "  growable: {label}: {}",
        items.collect::<Vec<_>>().join(", ")
    );
}

fn main() {
    const USAGE: &str = "growth_latency [N [C [RUNS [PAGES]]]]";
    let n: usize = arg(1, 8_000_000, USAGE);
    let c: usize = arg(2, 125_000, USAGE);
    let runs: usize = arg(3, 2, USAGE);
    let huge = match arg(4, "huge".to_string(), USAGE).as_str() {
        "huge" => true,
        "4k" => false,
        other => panic!("pages {other}: want huge or 4k"),
    };
    let keys = stream(42, n);
    println!(
        "every insert timed (us), {n} keys at a {RATE} false-positive rate: growable from capacity {c} vs fixed built for {n}; {runs} alternating runs; {} pages",
        if huge { "huge" } else { "4 KiB" }
    );
    // Each filter is dropped before the next is built.
    let run = |capacity, growable| {
        let filter = CuckooFilter::builder()
            .capacity(capacity)
            .false_positive_rate(RATE)
            .growable(growable)
            .huge_pages(huge)
            .build()
            .expect("filter");
        fill(&filter, &keys)
    };
    let us = |ns: u32| ns as f64 / 1e3;
    for r in 1..=runs {
        println!("run {r}:");
        let fixed = run(n, false);
        let grown = run(c, true);
        report("fixed", &fixed);
        report("growable", &grown);
        let steps = grown.steps.iter();
        list(
            "slowest insert of each step (items at the step: us)",
            steps
                .clone()
                .map(|&(at, ns)| format!("{at}: {:.1}", us(ns))),
        );
        list(
            "the insert starting each step",
            steps.map(|&(at, _)| format!("{:.1}", us(grown.ns[at]))),
        );
        let mut slowest: Vec<(u32, usize)> =
            grown.ns.iter().enumerate().map(|(k, &t)| (t, k)).collect();
        slowest.sort_unstable_by(|a, b| b.cmp(a));
        let top = slowest[..12].iter();
        list(
            "slowest inserts",
            top.map(|&(t, k)| format!("#{k}: {:.1}", us(t))),
        );
    }
}
