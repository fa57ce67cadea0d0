//! Many threads on one filter: writers insert past 90% load (so most inserts
//! displace other items) and remove their own keys; readers look up keys
//! that were published as inserted. Zero false negatives, exact `len`.
//!
//! How a reader knows a "no" is wrong: every key has a state word. A writer
//! publishes `INSERTED` (release) only after `insert` returned `Ok`, and
//! sets `REMOVING` *before* it calls `remove`; keys are never reinserted. A
//! reader that sees `INSERTED` before and after its `contains` knows no
//! remove overlapped the lookup, so `contains` had to be true.
//!
//! Duration: `CUCKOO_STRESS_MS` (default 2000 ms; shorter under miri).

use cuckoo_nest::CuckooFilter;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

const FRESH: u8 = 0;
const INSERTED: u8 = 1;
const REMOVING: u8 = 2;
const REMOVED: u8 = 3;
const FAILED: u8 = 4;

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Key `i` of writer `w`: distinct across writers, spread by the hash.
fn key(w: usize, i: usize) -> u64 {
    ((w as u64) << 40) | i as u64
}

fn run(bucket_size: usize, bits: u32, semi_sorted: bool, writers: usize, readers: usize) {
    let ms: u64 = std::env::var("CUCKOO_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(miri) { 200 } else { 2000 });
    let buckets = if cfg!(miri) { 32 } else { 1 << 12 };
    let filter = CuckooFilter::builder()
        .buckets(buckets)
        .bucket_size(bucket_size)
        .fingerprint_bits(bits)
        .semi_sorted(semi_sorted)
        .build()
        .unwrap();
    let slots = filter.shape().slots;
    // Writers keep the table just under its maximum load: past 90% for
    // 4-slot buckets, past 85% for 2-slot ones (whose maximum is ~89%).
    let high_percent = if bucket_size == 2 { 87 } else { 93 };
    let high = slots * high_percent / 100;
    let per_writer = slots * 8; // keys each writer may use, never reused
    let states: Vec<Vec<AtomicU8>> = (0..writers)
        .map(|_| (0..per_writer).map(|_| AtomicU8::new(FRESH)).collect())
        .collect();
    let next_key: Vec<AtomicU64> = (0..writers).map(|_| AtomicU64::new(0)).collect();
    let stop = AtomicBool::new(false);
    let false_negatives = AtomicU64::new(0);
    let lookups = AtomicU64::new(0);
    let deadline = Instant::now() + Duration::from_millis(ms);

    std::thread::scope(|s| {
        for w in 0..writers {
            let (filter, states, next_key, stop) = (&filter, &states[w], &next_key[w], &stop);
            s.spawn(move || {
                let mut rand = rng(w as u64 + 1);
                let mut oldest = 0usize; // next own key to consider removing
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) && n < per_writer {
                    if filter.len() < high {
                        let k = key(w, n);
                        let st = if filter.insert(&k).is_ok() {
                            INSERTED
                        } else {
                            FAILED
                        };
                        states[n].store(st, Ordering::Release);
                        n += 1;
                        next_key.store(n as u64, Ordering::Release);
                    } else {
                        // Remove a few old keys, oldest first, some skipped.
                        while oldest < n {
                            let i = oldest;
                            oldest += 1;
                            if states[i].load(Ordering::Relaxed) == INSERTED
                                && !rand().is_multiple_of(4)
                            {
                                states[i].store(REMOVING, Ordering::Release);
                                assert!(
                                    filter.remove(&key(w, i)),
                                    "remove lost key {i} of writer {w}"
                                );
                                states[i].store(REMOVED, Ordering::Release);
                                break;
                            }
                        }
                    }
                }
            });
        }
        // One more reader uses the batch path: same check, a batch at a time.
        {
            let (filter, states, next_key, stop) = (&filter, &states, &next_key, &stop);
            let (false_negatives, lookups) = (&false_negatives, &lookups);
            s.spawn(move || {
                let mut rand = rng(999);
                let mut done = 0u64;
                let (mut picked, mut before, mut ks) = (Vec::new(), Vec::new(), Vec::new());
                let mut found = [false; 64];
                while !stop.load(Ordering::Relaxed) {
                    picked.clear();
                    before.clear();
                    ks.clear();
                    for _ in 0..64 {
                        let w = rand() as usize % writers;
                        let n = next_key[w].load(Ordering::Acquire) as usize;
                        if n == 0 {
                            continue;
                        }
                        let i = rand() as usize % n;
                        picked.push((w, i));
                        before.push(states[w][i].load(Ordering::Acquire));
                        ks.push(key(w, i));
                    }
                    let out = &mut found[..ks.len()];
                    filter.contains_batch_into(&ks, out).unwrap();
                    for (j, &(w, i)) in picked.iter().enumerate() {
                        let after = states[w][i].load(Ordering::Acquire);
                        if before[j] == INSERTED && after == INSERTED && !out[j] {
                            false_negatives.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    done += ks.len() as u64;
                }
                lookups.fetch_add(done, Ordering::Relaxed);
            });
        }
        for r in 0..readers {
            let (filter, states, next_key, stop) = (&filter, &states, &next_key, &stop);
            let (false_negatives, lookups) = (&false_negatives, &lookups);
            s.spawn(move || {
                let mut rand = rng(1000 + r as u64);
                let mut done = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let w = rand() as usize % writers;
                    let n = next_key[w].load(Ordering::Acquire) as usize;
                    if n == 0 {
                        std::hint::spin_loop();
                        continue;
                    }
                    let i = rand() as usize % n;
                    let before = states[w][i].load(Ordering::Acquire);
                    let found = filter.contains(&key(w, i));
                    let after = states[w][i].load(Ordering::Acquire);
                    if before == INSERTED && after == INSERTED && !found {
                        false_negatives.fetch_add(1, Ordering::Relaxed);
                    }
                    done += 1;
                }
                lookups.fetch_add(done, Ordering::Relaxed);
            });
        }
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.store(true, Ordering::Relaxed);
    });

    let live: Vec<(usize, usize)> = (0..writers)
        .flat_map(|w| {
            let states = &states[w];
            (0..per_writer)
                .filter(move |&i| states[i].load(Ordering::Relaxed) == INSERTED)
                .map(move |i| (w, i))
        })
        .collect();
    let failed: usize = states
        .iter()
        .flatten()
        .filter(|s| s.load(Ordering::Relaxed) == FAILED)
        .count();
    let inserted: u64 = next_key.iter().map(|n| n.load(Ordering::Relaxed)).sum();
    eprintln!(
        "b={bucket_size} f={bits}{}: {writers} writers, {readers} readers, {ms} ms: {inserted} inserts ({failed} failed), \
         {} lookups, load {:.3}, {} false negatives",
        if semi_sorted { " semi-sorted" } else { "" },
        lookups.load(Ordering::Relaxed),
        filter.load_factor(),
        false_negatives.load(Ordering::Relaxed)
    );
    assert_eq!(
        false_negatives.load(Ordering::Relaxed),
        0,
        "false negatives under concurrency"
    );
    assert!(lookups.load(Ordering::Relaxed) > 0, "readers never ran");
    assert!(
        inserted as usize > slots * (high_percent - 5) / 100,
        "writers never came near the target load"
    );
    assert_eq!(filter.len(), live.len(), "len after the run");
    let lost = live
        .iter()
        .filter(|&&(w, i)| !filter.contains(&key(w, i)))
        .count();
    assert_eq!(lost, 0, "keys lost after the run");
}

#[test]
fn stress_four_slot_buckets() {
    run(4, 16, false, 2, 1);
}

#[test]
fn stress_two_slot_buckets() {
    run(2, 16, false, 2, 1);
}

/// 12-bit slots packed back to back: slots and buckets straddle words.
#[test]
fn stress_packed_twelve_bit_fingerprints() {
    run(4, 12, false, 2, 1);
}

/// Semi-sorted buckets: every write re-encodes its bucket.
#[test]
fn stress_semi_sorted_buckets() {
    run(4, 13, true, 2, 1);
}
