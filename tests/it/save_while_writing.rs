//! Saves taken while writers keep a table nearly full: every item inserted
//! before a save began and never removed is in what the save wrote.
//!
//! A save copies the table a chunk at a time, and writers go on between
//! chunks. The hazard it must defeat: a displacement hop that moves an
//! item's fingerprint from a bucket not yet copied into one already copied
//! (the item would be in neither copy), and the inserts that copy chunks
//! ahead of the save when every path they find would do that. Here the table holds a fixed set of
//! items `A`, inserted first and never removed, to 85% of its slots (72%
//! for two-slot buckets); writer threads insert and remove their own keys
//! 8 points above that, near what the shape can hold, so most of
//! their inserts displace fingerprints (many of them `A`'s) across the
//! table while the main thread saves through every path (`to_bytes`,
//! `write_to_seekable`, `clone`) over and over. Each saved filter is loaded
//! (which audits that its item count is what its table holds) and must
//! find every key of `A`. The table spans many save chunks, so hops cross
//! the save's progress all the time; with the save's check broken
//! (`--cfg cuckoo_broken_save_ignores_marks`) this test fails.
//!
//! Duration: `CUCKOO_STRESS_MS` per shape (default 1500 ms).

use cuckoo_nest::{CuckooFilter, PreHashed, SaveOptions};
use std::io::Cursor;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn budget() -> Duration {
    let ms = std::env::var("CUCKOO_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    Duration::from_millis(ms)
}

/// A well-mixed key per counter (splitmix64), for the `*_hash` methods.
fn key(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn run(bucket_size: usize, bits: u32, semi: bool) {
    let what = format!("{bucket_size}x{bits} semi={semi}");
    let filter = CuckooFilter::builder()
        .buckets(1 << 18)
        .bucket_size(bucket_size)
        .fingerprint_bits(bits)
        .semi_sorted(semi)
        .build()
        .unwrap();
    let slots = filter.shape().slots;
    // Below what each shape reaches (two-slot buckets stop near 89%).
    let (kept_pct, churn_pct) = if bucket_size == 2 { (72, 8) } else { (85, 8) };
    let kept = slots * kept_pct / 100;
    for n in 0..kept as u64 {
        filter.insert(&PreHashed(key(n))).unwrap();
    }
    let writers = 2;
    let churn = slots * churn_pct / 100 / writers;
    let stop = AtomicBool::new(false);
    let inserted = AtomicUsize::new(0);
    let saves = std::thread::scope(|s| {
        for w in 0..writers as u64 {
            let (filter, stop, inserted, what) = (&filter, &stop, &inserted, &what);
            s.spawn(move || {
                // Keys of this writer: w + k * writers past the kept ones.
                let mine = |k: u64| key(kept as u64 + w + k * writers as u64);
                let (mut next, mut oldest) = (0u64, 0u64);
                while !stop.load(Ordering::Relaxed) {
                    if filter.insert(&PreHashed(mine(next))).is_ok() {
                        next += 1;
                        inserted.fetch_add(1, Ordering::Relaxed);
                    }
                    if next - oldest > churn as u64 {
                        assert!(
                            filter.remove(&PreHashed(mine(oldest))),
                            "{what}: own key lost"
                        );
                        oldest += 1;
                    }
                }
            });
        }
        // Let the writers reach their load before saving.
        while inserted.load(Ordering::Relaxed) < churn * writers {
            std::thread::yield_now();
        }
        let start = Instant::now();
        let mut saves = 0;
        while start.elapsed() < budget() || saves < 6 {
            let loaded = match saves % 3 {
                0 => CuckooFilter::from_bytes(&filter.to_bytes()).unwrap(),
                1 => {
                    let mut out = Cursor::new(Vec::new());
                    filter
                        .save_seekable(&mut out, &SaveOptions::default())
                        .unwrap();
                    CuckooFilter::from_bytes(out.get_ref()).unwrap()
                }
                _ => filter.clone(),
            };
            let missing = (0..kept as u64)
                .filter(|&n| !loaded.contains(&PreHashed(key(n))))
                .count();
            assert_eq!(missing, 0, "{what}: save {saves} lost kept items");
            assert!(loaded.len() >= kept && loaded.len() <= slots, "{what}");
            saves += 1;
        }
        stop.store(true, Ordering::Relaxed);
        saves
    });
    let moved = inserted.load(Ordering::Relaxed);
    println!(
        "{what}: {saves} saves while writers inserted {moved} keys at ~{}% load",
        kept_pct + churn_pct
    );
    for n in 0..kept as u64 {
        assert!(
            filter.contains(&PreHashed(key(n))),
            "{what}: live filter lost a key"
        );
    }
}

#[test]
fn saves_under_writers_keep_every_item_inserted_before() {
    for (b, f, semi) in [
        (4, 16, false),
        (2, 16, false),
        (4, 12, false),
        (4, 13, true),
    ] {
        run(b, f, semi);
    }
}
