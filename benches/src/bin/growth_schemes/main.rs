//! Growth without a ceiling: which scheme (issue 40, docs/design.md,
//! "Growth past the spare bits"). A single-threaded model of a growable
//! filter's table, 4-slot buckets, grown three ways from capacity C to
//! `GROWTH` times C, on the same keys:
//!
//! - **today**: one nested table whose fingerprints carry 7 spare bits,
//!   one spent per doubling; refuses once they are spent (128x).
//! - **chains**: when a table has spent its spare bits, new items go to a
//!   new nested table with 7 fresh spare bits and 2 more key bits per chain
//!   (so the rates of all chains sum to under the first one's 1.5 times);
//!   lookups read every chain. *Independent*: the new chain hashes on its
//!   own (as a chain of filters does). *Refined*: the new chain continues
//!   the old one's addressing (same local buckets and pair, more block
//!   bits, a key that extends the old key), so whatever matches an entry in
//!   a newer chain matches everything the same item would match in an older
//!   one, and a remove that takes the newest match first never takes the
//!   only copy another item is found by.
//! - **aged S**: one table whose slots all have `key + S + 1` bits: the key,
//!   the spare bits an entry has left (0 to S), and a terminating 1 below
//!   them (the unary age of InfiniFilter, SIGMOD 2023); new items get S
//!   fresh spare bits; an entry with none left is copied into both halves
//!   at a doubling (the Aleph filter's duplication, VLDB 2024). A remove
//!   takes the matching entry with the most spare bits.
//!
//! Printed per scheme: refusals, tables a lookup reads, the table's bits
//! per item against a fixed filter built for the same count at 1%
//! (`memory_usage()` of this crate's, at the end and at checkpoints every
//! 1.5x from 10,000 to 1,200,000: mean and worst), extra slots taken by
//! duplicates, the false-positive rate over absent keys, and the false
//! negatives after removing every other key. The model counts table bits
//! only and grows a whole table at once, as the filter does today. A last
//! row measures this crate's growable filter itself the same way (its
//! `memory_usage()`, everything it holds), up to its first refusal.
//!
//! `cargo run --release -p cuckoo-nest-bench --bin growth_schemes [-- C GROWTH ABSENT SEEDS [ONLY]]`
//! (defaults 1000, 2048, 1000000, 1; ONLY: run the schemes whose name
//! contains it)

mod model;

use model::{mix, Filter, Mode, Scheme, KEY_BITS};

/// Bits a fixed filter built for `n` items at 1% holds (`memory_usage()`).
fn fixed_bits(n: usize) -> f64 {
    let f = cuckoo_nest::CuckooFilter::builder()
        .capacity(n)
        .false_positive_rate(0.01)
        .build()
        .expect("a fixed filter for the count");
    f.memory_usage() as f64 * 8.0
}

fn arg(n: usize, default: usize) -> usize {
    std::env::args().nth(n).map_or(default, |s| {
        s.parse().unwrap_or_else(|_| {
            eprintln!("argument {n}: a whole number, not {s:?}");
            std::process::exit(2)
        })
    })
}

fn main() {
    let (capacity, growth, absent, seeds) =
        (arg(1, 1000), arg(2, 2048), arg(3, 1_000_000), arg(4, 1));
    let n = capacity * growth;
    let scheme = |name, mode, chain_step, refined, start_smaller| Scheme {
        name,
        mode,
        chain_step,
        refined,
        start_smaller,
    };
    let nested = Mode::Nested;
    let schemes = [
        scheme("today (7 spare bits)", nested, None, false, 0),
        scheme("chains, independent, +2 bits", nested, Some(2), false, 0),
        scheme("chains, refined, +1 bit", nested, Some(1), true, 0),
        scheme("chains, refined, +2 bits", nested, Some(2), true, 0),
        scheme(
            "chains, refined, +2 bits, first table 4x smaller",
            nested,
            Some(2),
            true,
            2,
        ),
        scheme(
            "chains, refined, +2 bits, first table 8x smaller",
            nested,
            Some(2),
            true,
            3,
        ),
        scheme("aged S=3", Mode::Aged(3), None, false, 0),
        scheme("aged S=4", Mode::Aged(4), None, false, 0),
        scheme("aged S=5", Mode::Aged(5), None, false, 0),
        scheme("aged S=7", Mode::Aged(7), None, false, 0),
    ];
    let fixed_end = fixed_bits(n);
    println!(
        "from {capacity} to {n} items ({growth}x), 4-slot buckets, {KEY_BITS}-bit keys (1%); \
         a fixed filter for {n} at 1%: {:.2} bits/item; {seeds} seed(s), {absent} absent keys each",
        fixed_end / n as f64
    );
    println!(
        "| scheme | refused | tables read | bits/item | x fixed at end | x fixed, checkpoints: mean | worst | duplicates | false positives | false negatives after removing half |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let only = std::env::args().nth(5).unwrap_or_default();
    for scheme in schemes
        .into_iter()
        .filter(|s| s.name.contains(only.as_str()))
    {
        for seed in 0..seeds as u64 {
            let key = |i: u64| mix(i ^ seed << 48);
            let mut f = Filter::new(scheme, capacity);
            let mut rng = seed + 1;
            let (mut ratios, mut checkpoint) = (Vec::new(), 10_000usize);
            for i in 0..n as u64 {
                f.insert(key(i), &mut rng);
                if i as usize + 1 == checkpoint && checkpoint <= 1_200_000 {
                    ratios.push(f.bits() as f64 / fixed_bits(checkpoint));
                    checkpoint = checkpoint * 3 / 2;
                }
            }
            let tables = f.tables();
            let bits_per_item = f.bits() as f64 / f.len as f64;
            let duplicates = f.used() as f64 / f.len as f64 - 1.0;
            let fp = (0..absent as u64)
                .filter(|&i| f.contains(key(i | 1 << 40)))
                .count();
            let inserted = |i: &u64| !f.refused.contains(&key(*i));
            let kept: Vec<u64> = (0..n as u64).filter(inserted).collect();
            for &i in kept.iter().filter(|&&i| i % 2 == 0) {
                f.remove(key(i));
            }
            let false_negatives = kept
                .iter()
                .filter(|&&i| i % 2 == 1 && !f.contains(key(i)))
                .count();
            let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
            let worst = ratios.iter().copied().fold(0.0, f64::max);
            println!(
                "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}% | {:.3}% | {} |{}",
                scheme.name,
                f.refused.len(),
                tables,
                bits_per_item,
                f.bits() as f64 / fixed_end,
                mean,
                worst,
                duplicates * 100.0,
                fp as f64 * 100.0 / absent as f64,
                false_negatives,
                if f.lost > 0 {
                    format!(" ({} entries lost in steps)", f.lost)
                } else {
                    String::new()
                },
            );
        }
    }
    if "the filter".contains(only.as_str()) {
        for seed in 0..seeds as u64 {
            the_filter(capacity, n, absent, seed, fixed_end);
        }
    }
}

/// The same measurements of this crate's growable filter itself (1%, from
/// `capacity`, default spare bits), its `memory_usage()` against a fixed
/// filter's: what the model's "today" row stands for.
fn the_filter(capacity: usize, n: usize, absent: usize, seed: u64, fixed_end: f64) {
    let key = |i: u64| mix(i ^ seed << 48);
    let f = cuckoo_nest::CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(0.01)
        .growable(true)
        .build()
        .expect("a growable filter");
    let (mut ratios, mut checkpoint) = (Vec::new(), 10_000usize);
    let mut inserted = 0u64;
    for i in 0..n as u64 {
        if f.insert(&key(i)).is_err() {
            break;
        }
        inserted += 1;
        if i as usize + 1 == checkpoint && checkpoint <= 1_200_000 {
            ratios.push(f.memory_usage() as f64 * 8.0 / fixed_bits(checkpoint));
            checkpoint = checkpoint * 3 / 2;
        }
    }
    let bits = f.memory_usage() as f64 * 8.0;
    let tables = f.statistics().tables;
    let fp = (0..absent as u64)
        .filter(|&i| f.contains(&key(i | 1 << 40)))
        .count();
    for i in (0..inserted).step_by(2) {
        assert!(f.remove(&key(i)), "an inserted key was not found to remove");
    }
    assert_eq!(
        f.len() as u64,
        inserted / 2,
        "len after removing every other key"
    );
    let false_negatives = (1..inserted)
        .step_by(2)
        .filter(|&i| !f.contains(&key(i)))
        .count();
    let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    let worst = ratios.iter().copied().fold(0.0, f64::max);
    println!(
        "| the filter (growable, memory_usage) | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | | {:.3}% | {} |",
        n as u64 - inserted,
        tables,
        bits / inserted as f64,
        bits / fixed_end,
        mean,
        worst,
        fp as f64 * 100.0 / absent as f64,
        false_negatives,
    );
}
