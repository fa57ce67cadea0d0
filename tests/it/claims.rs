//! Inserts that claim a free slot without a lock (`src/table/claim.rs`)
//! and the count kept in per-thread words (`src/table/counts.rs`): `len`
//! is exact at quiescence however many threads counted and whatever raced,
//! clears included. The count is checked against what the table really
//! holds: a saved filter's count is its occupied slots, counted when it is
//! loaded (`from_bytes` audits every bucket).

use cuckoo_nest::{CuckooFilter, PreHashed};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the table holds, counted slot by slot.
fn occupied(filter: &CuckooFilter) -> usize {
    CuckooFilter::from_bytes(&filter.to_bytes())
        .expect("a filter's own bytes load")
        .len()
}

fn shapes() -> Vec<CuckooFilter> {
    let build = |b: usize, f: u32, semi: bool| {
        CuckooFilter::builder()
            .capacity(40_000)
            .bucket_size(b)
            .fingerprint_bits(f)
            .semi_sorted(semi)
            .build()
            .unwrap()
    };
    vec![
        build(4, 16, false),
        build(2, 8, false),
        build(4, 12, false),
        build(4, 13, true),
    ]
}

/// More threads than the table has stripes (16 for a table of at most
/// 16K buckets): some count in words of their own, the rest in shared
/// words, threads come and go (their indices are handed on), and the sum
/// is what the table holds.
#[test]
fn len_is_exact_with_more_threads_than_stripes() {
    for filter in shapes() {
        let rounds = 3;
        for round in 0..rounds {
            std::thread::scope(|s| {
                for t in 0..24u64 {
                    let filter = &filter;
                    s.spawn(move || {
                        for k in 0..300u64 {
                            let key = (round << 40) | (t << 20) | k;
                            filter
                                .insert(&PreHashed(key.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                                .unwrap();
                        }
                        for k in (0..300u64).step_by(3) {
                            let key = (round << 40) | (t << 20) | k;
                            assert!(
                                filter.remove(&PreHashed(key.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                            );
                        }
                    });
                }
            });
        }
        assert_eq!(filter.len(), rounds as usize * 24 * 200, "{filter:?}");
        assert_eq!(filter.len(), occupied(&filter), "{filter:?}");
    }
}

/// Clears while writers insert: each insert lands before the clear's swap
/// of its word (cleared, and uncounted by the clear) or after (kept), so
/// at the end `len` is what the table holds, and every key inserted after
/// the last clear is found.
#[test]
fn clears_racing_inserts_keep_len_exact() {
    for filter in shapes() {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let writers: Vec<_> = (0..3u64)
                .map(|t| {
                    let (filter, stop) = (&filter, &stop);
                    s.spawn(move || {
                        let mut k = 0u64;
                        while !stop.load(Ordering::Relaxed) {
                            let key = ((t << 32) | k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                            // Full after a run without a clear: fine.
                            let _ = filter.insert(&PreHashed(key));
                            k = (k + 1) % 20_000;
                        }
                    })
                })
                .collect();
            for _ in 0..20 {
                filter.clear();
                std::thread::yield_now();
            }
            stop.store(true, Ordering::Relaxed);
            for w in writers {
                w.join().unwrap();
            }
        });
        assert_eq!(filter.len(), occupied(&filter), "{filter:?}");
        filter.clear();
        assert_eq!((filter.len(), occupied(&filter)), (0, 0));
        let keys: Vec<u64> = (0..10_000u64)
            .map(|k| k.wrapping_mul(0x2545_f491_4f6c_dd1d))
            .collect();
        for &k in &keys {
            filter.insert(&PreHashed(k)).unwrap();
        }
        assert!(keys.iter().all(|&k| filter.contains(&PreHashed(k))));
        assert_eq!(filter.len(), 10_000);
    }
}
