//! Items that share a fingerprint and a bucket pair, cycled through insert
//! and remove while other threads look up one that stays. Zero false
//! negatives.
//!
//! The table holds copies of a fingerprint in a bucket pair, not items. Item
//! `x` has buckets (P, Q) and its copy sits in Q, which is full; P has one
//! free slot. `z` (primary Q) and `w` (primary P) have the same fingerprint
//! and pair. `insert(z)` finds Q full and puts a copy in P; `remove(z)` scans
//! Q first and clears the copy there, which was the one answering for `x`:
//! the answer moved from Q to P with no displacement. `insert(w)` +
//! `remove(w)` move it back. A lookup of `x` that loads P before the insert
//! and Q after the remove sees neither copy; such a remove must make it
//! retry (docs/verification.md, section 1).
//!
//! Several such families sit in one small table, one of them with P and Q
//! on the same stripe, so one cycling writer keeps many answers moving while
//! two readers (single and batch lookups) probe every `x`.
//!
//! Duration: `CUCKOO_STRESS_MS` per configuration (default 1000 ms).

use cuckoo_nest::{CuckooFilter, PreHashed};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Buckets in the table: 32, so 16 stripes and buckets `i` and `i + 16`
/// share one.
const BUCKETS: usize = 32;
const STRIPES: usize = 16;

/// One family: `x` stays, `z` and `w` cycle.
#[derive(Clone, Copy, Debug)]
struct Family {
    x: u64,
    z: u64,
    w: u64,
    fp: u32,
    p: usize,
    q: usize,
}

fn hash_for(filter: &CuckooFilter, bucket: usize, fp: u32, k: u32) -> u64 {
    filter
        .debug_hash_for(bucket, fp, k)
        .expect("a small table has many hashes per bucket")
}

/// Families in disjoint buckets: each with a Q from `qs`; the first with its
/// P on Q's stripe. Fillers make Q full around `x` and leave P one slot.
fn set_up(filter: &CuckooFilter) -> Vec<Family> {
    let b = filter.shape().bucket_size;
    let fp_max = if filter.shape().fingerprint_bits == 32 {
        u32::MAX
    } else {
        (1u32 << filter.shape().fingerprint_bits) - 1
    };
    let mut used = Vec::new();
    let mut families = Vec::new();
    for (n, q) in [1usize, 6, 11, 20, 27].into_iter().enumerate() {
        let same_stripe = n == 0;
        let found = (1..=fp_max.min(1 << 16)).find_map(|fp| {
            let x = hash_for(filter, q, fp, 0);
            let (_, p, _) = filter.debug_locate(x);
            let fits = p != q
                && !used.contains(&p)
                && !used.contains(&q)
                && [1, 6, 11, 20, 27].iter().all(|&o| o != p)
                && (p % STRIPES == q % STRIPES) == same_stripe;
            fits.then(|| Family {
                x,
                z: hash_for(filter, q, fp, 1),
                w: hash_for(filter, p, fp, 0),
                fp,
                p,
                q,
            })
        });
        let family = found.expect("some fingerprint gives a pair in free buckets");
        used.extend([family.p, family.q]);
        families.push(family);
    }
    for f in &families {
        filter.insert(&PreHashed(f.x)).unwrap();
        // Fillers with other fingerprints: b - 1 more in Q, b - 1 in P.
        for (bucket, count) in [(f.q, b - 1), (f.p, b - 1)] {
            for k in 0..count {
                let other = if f.fp < fp_max { f.fp + 1 } else { 1 };
                filter
                    .insert(&PreHashed(hash_for(filter, bucket, other, k as u32 + 10)))
                    .unwrap();
            }
        }
        let (in_q, in_p) = (filter.debug_bucket(f.q), filter.debug_bucket(f.p));
        assert!(in_q.contains(&f.fp), "setup: x's copy in Q: {f:?} {in_q:?}");
        assert!(!in_q.contains(&0), "setup: Q full: {in_q:?}");
        assert_eq!(
            in_p.iter().filter(|&&v| v == 0).count(),
            1,
            "setup: P {in_p:?}"
        );
        assert!(!in_p.contains(&f.fp), "setup: no copy in P yet");
    }
    families
}

fn run(bucket_size: usize, bits: u32, semi_sorted: bool) {
    let ms: u64 = std::env::var("CUCKOO_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let filter = CuckooFilter::builder()
        .buckets(BUCKETS)
        .bucket_size(bucket_size)
        .fingerprint_bits(bits)
        .semi_sorted(semi_sorted)
        .build()
        .unwrap();
    let families = set_up(&filter);
    let len_before = filter.len();
    let stop = AtomicBool::new(false);
    let false_negatives = AtomicU64::new(0);
    let lookups = AtomicU64::new(0);
    let flips = AtomicU64::new(0);
    let deadline = Instant::now() + Duration::from_millis(ms);
    std::thread::scope(|s| {
        s.spawn(|| {
            while Instant::now() < deadline {
                for _ in 0..64 {
                    for f in &families {
                        // z lands in P (Q is full) and its remove clears Q's
                        // copy; w lands in Q and its remove clears P's.
                        filter.insert(&PreHashed(f.z)).expect("P has a free slot");
                        assert!(filter.remove(&PreHashed(f.z)));
                        filter.insert(&PreHashed(f.w)).expect("Q has a free slot");
                        assert!(filter.remove(&PreHashed(f.w)));
                    }
                    flips.fetch_add(2 * families.len() as u64, Ordering::Relaxed);
                }
            }
            stop.store(true, Ordering::Relaxed);
        });
        s.spawn(|| {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                for f in &families {
                    n += 1;
                    if !filter.contains(&PreHashed(f.x)) {
                        false_negatives.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            lookups.fetch_add(n, Ordering::Relaxed);
        });
        s.spawn(|| {
            let batch: Vec<u64> = families.iter().flat_map(|f| [f.x, f.x]).collect();
            let mut out = vec![false; batch.len()];
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let hits = filter
                    .contains_batch_into(batch.iter().map(|&h| PreHashed(h)), &mut out)
                    .unwrap();
                n += batch.len() as u64;
                false_negatives.fetch_add((batch.len() - hits) as u64, Ordering::Relaxed);
            }
            lookups.fetch_add(n, Ordering::Relaxed);
        });
    });
    let (fns, looked, flipped) = (
        false_negatives.load(Ordering::Relaxed),
        lookups.load(Ordering::Relaxed),
        flips.load(Ordering::Relaxed),
    );
    println!(
        "{bucket_size}x{bits}{}: {} families, {flipped} answer moves, {looked} lookups, {fns} false negatives",
        if semi_sorted { " semi-sorted" } else { "" },
        families.len()
    );
    assert!(flipped > 0 && looked > 0, "the threads did no work");
    assert_eq!(fns, 0, "false negatives for items that stayed");
    assert_eq!(filter.len(), len_before);
    for f in &families {
        assert!(filter.contains(&PreHashed(f.x)));
        let copies: usize = [f.p, f.q]
            .iter()
            .map(|&i| {
                filter
                    .debug_bucket(i)
                    .iter()
                    .filter(|&&v| v == f.fp)
                    .count()
            })
            .sum();
        assert_eq!(copies, 1, "exactly x's copy is left: {f:?}");
    }
}

#[test]
fn default_4x16() {
    run(4, 16, false);
}

#[test]
fn two_slot_buckets_2x16() {
    run(2, 16, false);
}

#[test]
fn eight_slot_buckets_8x32() {
    run(8, 32, false);
}

#[test]
fn small_fingerprints_4x8() {
    run(4, 8, false);
}

#[test]
fn packed_2x12() {
    run(2, 12, false);
}

#[test]
fn semi_sorted_4x13() {
    run(4, 13, true);
}
