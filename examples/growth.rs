//! A growable filter (`Builder::growable(true)`): started at a capacity of 1,000 and a 1%
//! false-positive rate, it doubles its table as 200,000 keys come. Nothing is refused, every key is
//! found, and the rate measured on keys never inserted stays at or under the 1% it was built for.
//!
//! `cargo run --release -p cuckoo-nest-examples --example growth`

use cuckoo_nest::CuckooFilter;

const RATE: f64 = 0.01;
const ITEMS: u64 = 200_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let filter = CuckooFilter::builder()
        .capacity(1_000)
        .false_positive_rate(RATE)
        .growable(true)
        .build()?;
    let first = filter.capacity();

    for k in 0..ITEMS {
        // A growable filter makes room instead of refusing.
        filter.insert(&k)?;
    }
    assert_eq!(filter.len(), ITEMS as usize);
    assert!(filter.capacity() >= ITEMS as usize);
    assert!((0..ITEMS).all(|k| filter.contains(&k)));

    // Keys never inserted: the share the filter says "maybe" to.
    let absent = ITEMS..ITEMS + 100_000;
    let false_positives = absent.clone().filter(|k| filter.contains(k)).count();
    let rate = false_positives as f64 / absent.count() as f64;
    assert!(rate <= RATE, "false-positive rate {rate} over {RATE}");

    let steps = filter.statistics().growth_steps;
    let capacity = filter.capacity();
    println!("capacity {first} -> {capacity} in {steps} growth steps; false positives {rate}");
    Ok(())
}
