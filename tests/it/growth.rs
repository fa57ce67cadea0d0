//! A growable filter grown 32x while other threads use it: writers insert
//! (each insert may be the one that grows the filter, or land during a
//! growth step another writer runs) and remove their own keys, readers look
//! up keys published as inserted. Zero false negatives, exact `len`, and
//! the false-positive rate of the last generation at or under what its key
//! width promises.
//!
//! How a reader knows a "no" is wrong (as in tests/it/stress.rs): every key has
//! a state word. A writer publishes `INSERTED` (release) only after the
//! insert returned, and sets `REMOVING` *before* it removes; keys are never
//! reinserted. A reader that sees `INSERTED` before and after its lookup
//! knows no remove overlapped it, so the lookup had to say yes. Every
//! fourth key is inserted twice and loses one copy later: its other copy
//! must still be found (removes across generations take one copy, never an
//! item's last).

use cuckoo_nest::{Builder, PreHashed};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

const FRESH: u8 = 0;
const INSERTED: u8 = 1;
const REMOVING: u8 = 2;

fn key(w: usize, i: usize) -> u64 {
    cuckoo_nest::StableHasher::hash_one(w as u64, &(i as u64))
}

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// What writer `w` does with its `i`-th key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Inserted once, kept.
    Keep,
    /// Inserted once, removed later.
    Remove,
    /// Inserted twice, one copy removed later.
    Twice,
}

fn plan(i: usize) -> Plan {
    match i % 4 {
        0 => Plan::Remove,
        1 => Plan::Twice,
        _ => Plan::Keep,
    }
}

fn grow_32x(bucket_size: usize, writers: usize, readers: usize) {
    let (capacity, growth) = if cfg!(miri) { (32, 4) } else { (2_000, 32) };
    let filter = Builder::default()
        .capacity(capacity)
        .bucket_size(bucket_size)
        .fingerprint_bits(12)
        .growable(true)
        .build()
        .unwrap();
    let first_capacity = filter.capacity();
    let per_writer = first_capacity * growth / writers;
    let states: Vec<Vec<AtomicU8>> = (0..writers)
        .map(|_| (0..per_writer).map(|_| AtomicU8::new(FRESH)).collect())
        .collect();
    let published: Vec<AtomicU64> = (0..writers).map(|_| AtomicU64::new(0)).collect();
    let done = AtomicBool::new(false);
    let false_negatives = AtomicU64::new(0);
    let lookups = AtomicU64::new(0);

    std::thread::scope(|s| {
        let writer_threads: Vec<_> = (0..writers)
            .map(|w| {
                let (filter, states, published) = (&filter, &states[w], &published[w]);
                s.spawn(move || {
                    // Removes trail inserts by this many keys.
                    const LAG: usize = 64;
                    for i in 0..per_writer {
                        let h = key(w, i);
                        filter
                            .insert(&PreHashed(h))
                            .expect("a growable filter takes every insert");
                        if plan(i) == Plan::Twice {
                            filter.insert(&PreHashed(h)).expect("second copy");
                        }
                        states[i].store(INSERTED, Ordering::Release);
                        published.store(i as u64 + 1, Ordering::Release);
                        if let Some(j) = i.checked_sub(LAG) {
                            let p = plan(j);
                            if p == Plan::Remove {
                                states[j].store(REMOVING, Ordering::Release);
                            }
                            if p != Plan::Keep {
                                assert!(
                                    filter.remove(&PreHashed(key(w, j))),
                                    "remove of present key {j}"
                                );
                            }
                        }
                    }
                })
            })
            .collect();
        for r in 0..readers {
            let (filter, states, published, done) = (&filter, &states, &published, &done);
            let (false_negatives, lookups) = (&false_negatives, &lookups);
            s.spawn(move || {
                let mut next = rng(0x9e37 + r as u64);
                while !done.load(Ordering::Acquire) {
                    let w = next() as usize % writers;
                    let n = published[w].load(Ordering::Acquire) as usize;
                    if n == 0 {
                        continue;
                    }
                    let i = next() as usize % n;
                    if states[w][i].load(Ordering::Acquire) != INSERTED {
                        continue;
                    }
                    let found = filter.contains(&PreHashed(key(w, i)));
                    lookups.fetch_add(1, Ordering::Relaxed);
                    if !found && states[w][i].load(Ordering::Acquire) == INSERTED {
                        false_negatives.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
        for t in writer_threads {
            t.join().unwrap();
        }
        done.store(true, Ordering::Release);
    });

    assert_eq!(
        false_negatives.load(Ordering::Relaxed),
        0,
        "false negatives"
    );
    assert!(
        lookups.load(Ordering::Relaxed) > 0,
        "the readers looked nothing up"
    );
    let depth = filter.statistics().growth_steps;
    assert!(
        filter.capacity() >= first_capacity * growth / 2 && depth >= growth.ilog2() - 1,
        "grew to depth {depth}, capacity {}",
        filter.capacity()
    );
    // Every key the plans keep is found; the count is exact.
    let mut expected = 0;
    for w in 0..writers {
        for i in 0..per_writer {
            let removed = plan(i) == Plan::Remove && i + 64 < per_writer;
            if !removed {
                assert!(
                    filter.contains(&PreHashed(key(w, i))),
                    "writer {w} key {i} lost"
                );
            }
            expected += match plan(i) {
                Plan::Keep => 1,
                Plan::Remove | Plan::Twice if i + 64 < per_writer => {
                    usize::from(plan(i) == Plan::Twice)
                }
                Plan::Remove => 1,
                Plan::Twice => 2,
            };
        }
    }
    assert_eq!(filter.len(), expected);
}

#[test]
fn four_slot_buckets_grow_32x_under_readers_and_writers() {
    grow_32x(4, 2, 2);
}

#[test]
fn two_slot_buckets_grow_32x_under_readers_and_writers() {
    grow_32x(2, 2, 1);
}

#[test]
fn eight_slot_buckets_grow_32x_under_readers_and_writers() {
    grow_32x(8, 3, 1);
}

/// Threads racing unique inserts of the same keys, in the same order, while
/// the filter grows through its steps and past its spare bits into later
/// chains: no key is added twice (at most one `Ok(true)` each; a key the
/// filter mistakes for present gets none), `len` counts what was added, and
/// every key is found. Loom model 16d explores the race with a chain's
/// start itself; this runs it at scale.
#[test]
#[cfg_attr(
    miri,
    ignore = "tens of thousands of inserts; loom's model 16d covers the race"
)]
fn racing_unique_inserts_through_growth_and_chains_add_one_copy() {
    let (threads, keys) = (4, 20_000);
    let filter = Builder::default()
        .capacity(16)
        .false_positive_rate(0.01)
        .growable(true)
        .spare_bits(2)
        .build()
        .unwrap();
    let hashes: Vec<u64> = (0..keys).map(|i| key(99, i)).collect();
    let added: Vec<AtomicU8> = (0..keys).map(|_| AtomicU8::new(0)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                for (h, a) in hashes.iter().zip(&added) {
                    match filter.insert_unique(&PreHashed(*h)) {
                        Ok(true) => _ = a.fetch_add(1, Ordering::Relaxed),
                        Ok(false) => {}
                        Err(e) => panic!("unique insert refused: {e}"),
                    }
                }
            });
        }
    });
    let added: Vec<u8> = added.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    let twice = added.iter().filter(|&&a| a > 1).count();
    assert_eq!(twice, 0, "keys added more than once");
    let copies: usize = added.iter().map(|&a| usize::from(a)).sum();
    assert_eq!(filter.len(), copies);
    assert!(copies > keys * 99 / 100, "{copies} of {keys} keys added");
    assert!(hashes.iter().all(|&h| filter.contains(&PreHashed(h))));
    assert!(filter.statistics().tables >= 3, "{:?}", filter.statistics());
}

/// The false-positive rate, measured on keys never inserted, at each size
/// from 1x to 64x the first capacity: at or under the rate the key width
/// gives a filter of that bucket size at its design load (what a filter
/// built for the final count with these fingerprints promises).
#[test]
#[cfg_attr(miri, ignore = "millions of lookups")]
fn false_positive_rate_holds_from_1x_to_64x() {
    let bits = 10;
    let filter = Builder::default()
        .capacity(4_000)
        .bucket_size(4)
        .fingerprint_bits(bits)
        .growable(true)
        .build()
        .unwrap();
    // What a fixed-size filter of 4 x 10-bit slots at full design load
    // expects: 2 * 4 * 0.95 / 2^10, about 0.74%.
    let promised = cuckoo_nest::CuckooFilter::builder()
        .capacity(4_000)
        .bucket_size(4)
        .fingerprint_bits(bits)
        .build()
        .unwrap()
        .shape()
        .false_positive_rate_at_capacity;
    let first = filter.capacity();
    let mut inserted = 0u64;
    for size in [1usize, 2, 4, 8, 16, 32, 64] {
        while (inserted as usize) < first * size {
            filter
                .insert(&PreHashed(key(0, inserted as usize)))
                .unwrap();
            inserted += 1;
        }
        let probes = 200_000u64;
        let hits = (0..probes)
            .filter(|&k| filter.contains(&PreHashed(key(1, k as usize))))
            .count() as f64;
        let rate = hits / probes as f64;
        // A binomial margin: 4 standard deviations of the promised rate.
        let margin = 4.0 * (promised / probes as f64).sqrt();
        assert!(
            rate <= promised + margin,
            "{size}x: rate {rate:.5} over the promised {promised:.5} (depth {})",
            filter.statistics().growth_steps
        );
    }
}
