//! What one insert can cost while a growable filter grows: every insert timed, through N
//! items, for a growable filter started at capacity C and for a fixed filter built for N, on
//! the same keys, in alternating runs.
//!
//! `cargo run --release -p cuckoo-nest-bench --bin growth_latency [-- N [C [RUNS [PAGES]]]]`
//! (default N = 8,000,000, C = 125,000, 2 runs of each; PAGES `huge`, the default, or `4k`: both
//! filters built with `huge_pages(false)`, so no table is backed ahead by a thread of its own)
//!
//! Prints, per run, in microseconds: the insert latency's p50, p99, p99.9 and maximum, how many
//! inserts took over 1 ms, and for the growable filter the slowest insert of each growth step (from
//! the insert that started it to the next step). The fixed filter's figures are the machine's own
//! floor: page faults as the table is first touched, the hypervisor, the other core's load.

use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::stream;
use cuckoo_nest_bench::tool::{arg, ns_per};
use std::time::Instant;

const RATE: f64 = 0.01;

/// Inserts `keys` into `filter`, timing each, and prints the figures on a line of `name`'s:
/// returns the nanoseconds of every insert, in order, and the growth steps (the insert that
/// started each, and the slowest of the step).
fn fill(name: &str, filter: &CuckooFilter, keys: &[u64]) -> (Vec<u32>, Vec<(usize, u32)>) {
    let (mut ns, mut steps) = (Vec::with_capacity(keys.len()), Vec::<(usize, u32)>::new());
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
    let all = ns_per(start, keys.len());
    let mut sorted = ns.clone();
    sorted.sort_unstable();
    let at = |q: f64| us(sorted[((sorted.len() - 1) as f64 * q) as usize]);
    let [p50, p99, p999, max] = [0.5, 0.99, 0.999, 1.0].map(at);
    let over_1ms = ns.iter().filter(|&&t| t > 1_000_000).count();
    println!(
        "  {name:<9} p50 {p50:>6.2}  p99 {p99:>6.2}  p99.9 {p999:>7.2}  max {max:>9.1}  over 1 ms: {over_1ms:>3}   ({all:.1} ns an insert in all)",
    );
    (ns, steps)
}

fn us(ns: u32) -> f64 {
    ns as f64 / 1e3
}

/// Prints `label` and the `items`, each as `show` writes it, comma-separated, on a line of the
/// growable filter's.
fn list<T>(label: &str, items: &[T], show: impl Fn(&T) -> String) {
    let items: Vec<String> = items.iter().map(show).collect();
    println!("  growable: {label}: {}", items.join(", "));
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
    let build = |capacity, growable| {
        CuckooFilter::builder()
            .capacity(capacity)
            .false_positive_rate(RATE)
            .growable(growable)
            .huge_pages(huge)
            .build()
            .expect("filter")
    };
    for r in 1..=runs {
        println!("run {r}:");
        // Each filter is dropped before the next is built.
        fill("fixed", &build(n, false), &keys);
        let (ns, steps) = fill("growable", &build(c, true), &keys);
        let each_step = "slowest insert of each step (items at the step: us)";
        list(each_step, &steps, |&(at, t)| format!("{at}: {:.1}", us(t)));
        let starts = "the insert starting each step";
        list(starts, &steps, |&(at, _)| format!("{:.1}", us(ns[at])));
        let mut slowest: Vec<(u32, usize)> = ns.iter().enumerate().map(|(k, &t)| (t, k)).collect();
        slowest.sort_unstable_by(|a, b| b.cmp(a));
        list("slowest inserts", &slowest[..12], |&(t, k)| {
            format!("#{k}: {:.1}", us(t))
        });
    }
}
