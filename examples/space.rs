//! Space and speed of the packed and semi-sorted layouts, the figures
//! docs/benchmarks.md quotes for them.
//!
//! `cargo run --release -p cuckoo-nest-examples --example space [-- ITEMS [OUT_OF_CACHE_ITEMS [ROUNDS [SPACE]]]]`
//! (defaults: 1,000,000; 32,000,000; 7; 1, and 0 skips part 1 and 2)
//!
//! 1. For false-positive rates from 10% to 10^-6: the builder's choice,
//!    plain and semi-sorted, filled to capacity with random keys: bits per
//!    item counting all of `memory_usage()`, the measured false-positive
//!    rate on absent keys, beside a Bloom filter's optimum (1.44 log2 1/e)
//!    and the lower bound (log2 1/e).
//! 2. The paper's Table 3 rows: 4 x 12 bits, and semi-sorted 4 x 13 bits,
//!    filled to 95% of their slots as in the paper.
//! 3. Single-thread `contains` (a shuffled 50% hit stream) and
//!    `contains_batch` for 4 x 12, 4 x 13 and semi-sorted 4 x 13 against
//!    the 4 x 16 default, in cache (ITEMS) and out of cache
//!    (OUT_OF_CACHE_ITEMS): ROUNDS rounds, each measuring every filter once
//!    in a rotated order; medians with min and max, and the median of the
//!    per-round ratios to the default.

#[path = "common/mod.rs"]
mod common;

use common::{keys, median, shuffle, splitmix64};
use cuckoo_nest::CuckooFilter;
use std::time::Instant;

fn arg(k: usize, default: usize) -> usize {
    std::env::args()
        .nth(k)
        .map(|a| a.parse().expect("a positive whole number"))
        .unwrap_or(default)
}

/// Fills `filter` with `n` random keys; returns them.
fn fill(filter: &CuckooFilter, n: usize, seed: u64) -> Vec<u64> {
    let present = keys(n, seed);
    for k in &present {
        filter.insert(k).expect("capacity(n) holds n random keys");
    }
    present
}

/// Measured false-positive rate on absent keys: enough probes for about
/// 1000 false positives, at most 50 million.
fn measured_rate(filter: &CuckooFilter, expected: f64) -> (f64, usize, usize) {
    let probes = ((1000.0 / expected) as usize).clamp(200_000, 50_000_000);
    let hits = splitmix64(u64::MAX / 7)
        .take(probes)
        .filter(|k| filter.contains(k))
        .count();
    (hits as f64 / probes as f64, hits, probes)
}

fn space(n: usize) {
    println!("## Bits per item against false-positive rate ({n} items, at capacity)\n");
    println!("| target | layout | b x f | bits/item (all memory) | measured rate | probes | Bloom optimum | lower bound |");
    println!("|---:|---|---|---:|---:|---:|---:|---:|");
    for target in [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 1e-4, 1e-5, 1e-6] {
        for semi in [false, true] {
            let filter = CuckooFilter::builder()
                .capacity(n)
                .false_positive_rate(target)
                .semi_sorted(semi)
                .build()
                .expect("a reachable rate");
            fill(&filter, n, 1);
            let (rate, hits, probes) =
                measured_rate(&filter, filter.expected_false_positive_rate());
            let bits = filter.memory_usage() as f64 * 8.0 / n as f64;
            let log = (1.0 / target).log2();
            println!(
                "| {target:.0e} | {} | {}x{} | {bits:.2} | {rate:.3e} ({hits}) | {probes} | {:.2} | {:.2} |",
                if semi { "semi-sorted" } else { "plain" },
                filter.shape().bucket_size,
                filter.shape().fingerprint_bits,
                1.44 * log,
                log
            );
        }
    }
    println!(
        "\n## The paper's Table 3 rows (a table sized for {n} items, filled to 95% of its slots)\n"
    );
    println!("| filter | items | bits/item (all memory) | load | measured rate | expected |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, f, semi) in [("CF, f = 12", 12, false), ("ss-CF, f = 13", 13, true)] {
        let filter = four_slot(n, f, semi);
        // The paper reports Table 3 at 95% load: past the capacity (which
        // keeps a margin below the first failure), short of that failure.
        let items = (filter.shape().slots as f64 * 0.95).ceil() as usize;
        for k in splitmix64(2).take(items) {
            filter.insert(&k).expect("95% is below the first failure");
        }
        let expected = filter.expected_false_positive_rate();
        let (rate, hits, _) = measured_rate(&filter, expected);
        println!(
            "| {name} | {items} | {:.2} | {:.3} | {rate:.3e} ({hits}) | {expected:.3e} |",
            filter.memory_usage() as f64 * 8.0 / items as f64,
            filter.load_factor()
        );
    }
}

/// A filter for `n` items of 4-slot buckets, `f`-bit keys, semi-sorted or not.
fn four_slot(n: usize, f: u32, semi: bool) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(n)
        .bucket_size(4)
        .fingerprint_bits(f)
        .semi_sorted(semi)
        .build()
        .expect("a 4-slot shape of 8 to 16 bits")
}

struct Subject {
    name: &'static str,
    filter: CuckooFilter,
}

fn subjects(n: usize) -> Vec<Subject> {
    [
        ("4x16 (default)", 16, false),
        ("4x12 packed", 12, false),
        ("4x13 packed", 13, false),
        ("4x13 semi-sorted", 13, true),
    ]
    .into_iter()
    .map(|(name, f, semi)| {
        let filter = four_slot(n, f, semi);
        Subject { name, filter }
    })
    .collect()
}

fn speed(n: usize, rounds: usize, label: &str) {
    let subjects = subjects(n);
    for s in &subjects {
        fill(&s.filter, n, 3);
    }
    // Half present, half absent, shuffled together.
    let present = keys(n, 3);
    let absent = keys(n, 4);
    let mut stream: Vec<u64> = present
        .iter()
        .take(n / 2)
        .chain(absent.iter().take(n / 2))
        .copied()
        .collect();
    shuffle(&mut stream, 5);
    let mut out = vec![false; stream.len()];
    let k = subjects.len();
    // rates[subject][op][round], M lookups/s.
    let mut rates = vec![[vec![], vec![]]; k];
    for round in 0..rounds {
        for j in 0..k {
            let s = &subjects[(round + j) % k];
            let idx = (round + j) % k;
            let t = Instant::now();
            let hits = stream.iter().filter(|key| s.filter.contains(*key)).count();
            let single = stream.len() as f64 / t.elapsed().as_secs_f64() / 1e6;
            assert!(hits >= n / 2, "{}: false negatives", s.name);
            let t = Instant::now();
            let hits = s.filter.contains_batch_into(&stream, &mut out).unwrap();
            let batch = stream.len() as f64 / t.elapsed().as_secs_f64() / 1e6;
            assert!(hits >= n / 2, "{}: false negatives", s.name);
            rates[idx][0].push(single);
            rates[idx][1].push(batch);
        }
    }
    println!("\n## Lookups, shuffled 50% hits, {label} ({n} items, {rounds} rounds)\n");
    println!("| filter | bits/item | contains M/s (min-max) | ratio to default | contains_batch M/s (min-max) | ratio to default |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (i, s) in subjects.iter().enumerate() {
        let mut cells = Vec::new();
        for (r, base) in rates[i].iter().zip(&rates[0]) {
            let mut sorted = r.clone();
            let med = median(&mut sorted);
            let mut ratios: Vec<f64> = r.iter().zip(base).map(|(a, b)| a / b).collect();
            cells.push(format!(
                "{med:.1} ({:.1}-{:.1}) | {:.2}",
                sorted[0],
                sorted[sorted.len() - 1],
                median(&mut ratios)
            ));
        }
        println!(
            "| {} | {:.2} | {} | {} |",
            s.name,
            s.filter.memory_usage() as f64 * 8.0 / n as f64,
            cells[0],
            cells[1]
        );
    }
}

fn main() {
    let n = arg(1, 1_000_000);
    let big = arg(2, 32_000_000);
    let rounds = arg(3, 7);
    // A fourth argument, 0, skips the space tables (speed only).
    if arg(4, 1) != 0 {
        space(n);
    }
    speed(n, rounds, "in cache");
    if big > 0 {
        speed(big, rounds, "out of cache");
    }
}
