//! Builds a filter for N keys (default 10 million), then prints the
//! single-thread insert and lookup rates, batched and not.
//!
//! `cargo run --release -p cuckoo-nest-examples --example throughput [-- N]`

#[path = "common/mod.rs"]
mod common;

use common::keys;
use cuckoo_nest::CuckooFilter;
use std::time::Instant;

fn rate(n: usize, secs: f64) -> String {
    format!(
        "{:7.2} M ops/s ({:6.1} ns/op)",
        n as f64 / secs / 1e6,
        secs * 1e9 / n as f64
    )
}

fn main() {
    let n: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 10_000_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: throughput [ITEMS > 0]");
            std::process::exit(2);
        }
    };
    let present = keys(n, 1);
    let absent = keys(n, 2);
    let filter = match CuckooFilter::try_with_capacity(n) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot build a filter for {n} items: {e}");
            std::process::exit(1);
        }
    };
    println!("{filter:?}");

    let t = Instant::now();
    for k in &present {
        filter.insert(k).expect("sized for n items");
    }
    println!("insert          {}", rate(n, t.elapsed().as_secs_f64()));

    let t = Instant::now();
    let found = present.iter().filter(|k| filter.contains(*k)).count();
    println!("lookup (hit)    {}", rate(n, t.elapsed().as_secs_f64()));
    assert_eq!(found, n, "false negatives");

    let t = Instant::now();
    let fp = absent.iter().filter(|k| filter.contains(*k)).count();
    println!("lookup (miss)   {}", rate(n, t.elapsed().as_secs_f64()));

    let mut out = vec![false; n];
    let t = Instant::now();
    let hits = filter.contains_batch_into(&present, &mut out).unwrap();
    println!("batch (hit)     {}", rate(n, t.elapsed().as_secs_f64()));
    assert_eq!(hits, n, "false negatives");
    let t = Instant::now();
    filter.contains_batch_into(&absent, &mut out).unwrap();
    println!("batch (miss)    {}", rate(n, t.elapsed().as_secs_f64()));

    println!(
        "load {:.3}, {:.2} bits/item at capacity, {} MiB, false positives {:.3e} (expected {:.3e})",
        filter.load_factor(),
        filter.bits_per_item(),
        filter.memory_usage() >> 20,
        fp as f64 / n as f64,
        filter.expected_false_positive_rate()
    );
}
