//! The workload of the reference benchmark (FastFilter/fastfilter_cpp's `bulk-insert-and-query`),
//! run on cuckoo-nest, so the two can be timed side by side in alternating processes
//! (docs/against_reference.md):
//!
//! 1. `n` random 64-bit keys inserted one by one, each its own hash (`PreHashed`), as the
//!    reference takes raw 64-bit keys;
//! 2. `min(n, 10M)` lookups, shuffled, with 0%, 25%, 50%, 75% and 100% of them keys that were
//!    added, one pass each;
//! 3. the 50% set again through `contains_batch_into`;
//! 4. the same `n` keys inserted into a fresh filter through `insert_batch` (the bulk load of a
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
use cuckoo_nest_bench::keys::Keys;
use cuckoo_nest_bench::tool::{arg, ns_per, shape as builder};
use std::hint::black_box;
use std::time::Instant;

const MAX_LOOKUPS: usize = 10_000_000;

/// Nanoseconds an operation of `f`, which does `n` of them.
fn ns<R>(n: usize, f: impl FnOnce() -> R) -> f64 {
    let start = Instant::now();
    black_box(f());
    ns_per(start, n)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const USAGE: &str = "reference_workload [N [SHAPES [SEED]]]";
    let n: usize = arg(1, 1_000_000, USAGE);
    let shapes: String = arg(2, "4x12,4x16,ss4x13".into(), USAGE);
    let seed: u64 = arg(3, 1, USAGE);
    let keys = Keys::generate(seed, n, 0);
    let hashes = || keys.present.iter().map(|&h| PreHashed(h));
    let sample = n.min(MAX_LOOKUPS);
    let shares = [0.0, 0.25, 0.5, 0.75, 1.0].iter().zip(0..);
    let sets: Vec<Vec<u64>> = shares
        .map(|(&p, tag)| keys.queries(sample, n, p, tag))
        .collect();
    println!(
        "{:<8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>12}",
        "shape", "insert ns", "find 0%", "25%", "50%", "75%", "100%", "batch 50%", "batch insert"
    );
    for shape in shapes.split(',') {
        let build = || builder(shape, n)?.build().map_err(|e| e.to_string());
        let filter = build()?;
        let insert = ns(n, || hashes().try_for_each(|k| filter.insert(&k)).unwrap());
        let mut finds = String::new();
        for set in &sets {
            let found = || {
                set.iter()
                    .filter(|&&k| filter.contains(&PreHashed(k)))
                    .count()
            };
            finds += &format!(" {:>8.1}", ns(sample, found));
        }
        let mut out = vec![false; sample];
        let hashed = sets[2].iter().map(|&h| PreHashed(h));
        let batch = ns(sample, || {
            filter.contains_batch_into(hashed, &mut out).unwrap()
        });
        drop(filter);
        let bulk = build()?;
        let batch_insert = ns(n, || bulk.insert_batch(hashes()).unwrap());
        println!("{shape:<8} {insert:>10.1}{finds} {batch:>9.1} {batch_insert:>12.1}");
    }
    Ok(())
}
