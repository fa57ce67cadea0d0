//! The workload of the reference benchmark (FastFilter/fastfilter_cpp's `bulk-insert-and-query`),
//! run on cuckoo-nest, so the two can be timed side by side in alternating processes
//! (docs/against_reference.md):
//!
//! 1. `n` random 64-bit keys are added one by one (`insert_hash`, each key taken as its own
//!    hash, as the reference takes raw 64-bit keys);
//! 2. `min(n, 10M)` lookups (`contains_hash`), shuffled, with 0%, 25%, 50%, 75% and 100% of
//!    them keys that were added, one pass each;
//! 3. the 50% set again through `contains_batch_hash`;
//! 4. the same `n` keys added to a fresh filter through `insert_batch_hash` (the bulk load of a
//!    database building a filter per flushed table), the first filter dropped before.
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-bench --bin reference_workload -- 1000000 4x12,4x16,ss4x13
//! ```
//!
//! Prints one line per shape: nanoseconds per insert, per lookup at each
//! hit rate, per batch lookup at 50%, and per key of the batch insert. Shapes as in
//! `lookup_instructions` (`BxF`, `ssBxF` for semi-sorted).

use cuckoo_nest::PreHashed;
use cuckoo_nest_bench::keys::{stream, SplitMix64};
use cuckoo_nest_bench::tool::{arg, ns_per, shape as builder};
use std::hint::black_box;
use std::time::Instant;

const MAX_LOOKUPS: usize = 10_000_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const USAGE: &str = "reference_workload [N [SHAPES [SEED]]]";
    let n: usize = arg(1, 1_000_000, USAGE);
    let shapes: String = arg(2, "4x12,4x16,ss4x13".into(), USAGE);
    let seed: u64 = arg(3, 1, USAGE);
    let added = stream(seed, n);
    let sample = n.min(MAX_LOOKUPS);
    let fresh = stream(seed + 1_000_003, sample);
    let rates = [0.0, 0.25, 0.5, 0.75, 1.0];
    let lookup_sets: Vec<Vec<u64>> = rates
        .iter()
        .enumerate()
        .map(|(r, &p)| {
            let hits = (p * sample as f64).round() as usize;
            let mut set: Vec<u64> = added
                .iter()
                .step_by((n / hits.max(1)).max(1))
                .copied()
                .collect();
            set.truncate(hits);
            set.extend_from_slice(&fresh[..sample - set.len()]);
            SplitMix64::new(seed + 7 + r as u64).shuffle(&mut set);
            set
        })
        .collect();
    println!(
        "{:<8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>12}",
        "shape", "insert ns", "find 0%", "25%", "50%", "75%", "100%", "batch 50%", "batch insert"
    );
    for shape in shapes.split(',') {
        let build = || builder(shape, n)?.build().map_err(|e| e.to_string());
        let filter = build()?;
        let start = Instant::now();
        for &k in &added {
            filter.insert(&PreHashed(k))?;
        }
        let insert = ns_per(start, n);
        let mut finds = String::new();
        for set in &lookup_sets {
            let start = Instant::now();
            let found = set
                .iter()
                .filter(|&&k| filter.contains(&PreHashed(k)))
                .count();
            finds += &format!(" {:>8.1}", ns_per(start, sample));
            black_box(found);
        }
        let mut out = vec![false; sample];
        let start = Instant::now();
        let found =
            filter.contains_batch_into(lookup_sets[2].iter().map(|&h| PreHashed(h)), &mut out)?;
        let batch = ns_per(start, sample);
        black_box(found);
        drop(filter);
        let bulk = build()?;
        let start = Instant::now();
        bulk.insert_batch(added.iter().map(|&h| PreHashed(h)))?;
        let batch_insert = ns_per(start, n);
        black_box(bulk.len());
        println!("{shape:<8} {insert:>10.1}{finds} {batch:>9.1} {batch_insert:>12.1}");
    }
    Ok(())
}
