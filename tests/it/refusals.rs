//! What a growable filter refuses below its ceiling, and what it never
//! refuses: distinct keys fill one with a `max_capacity` to it whatever its
//! first capacity and bucket size, and one without past its spare bits;
//! keys with up to `bucket_size` copies each grow it like distinct keys;
//! after any refusal, fresh keys go in.

use cuckoo_nest::{CuckooFilter, InsertError, PreHashed, StableHasher};

/// Distinct 64-bit keys, salted apart per run.
fn distinct(salt: u64) -> impl Iterator<Item = u64> {
    (0u64..).map(move |k| StableHasher::hash_one(salt, &k))
}

/// Fills `filter` with `keys`, each inserted `copies` times, until the
/// first refusal; returns it with the number of keys fully inserted.
fn fill(
    filter: &CuckooFilter,
    keys: impl Iterator<Item = u64>,
    copies: usize,
    limit: usize,
) -> (usize, Option<InsertError>) {
    for (n, h) in keys.take(limit).enumerate() {
        for _ in 0..copies {
            if let Err(e) = filter.insert(&PreHashed(h)) {
                return (n, Some(e));
            }
        }
    }
    (limit, None)
}

/// Of 100 fresh distinct keys, how many go in.
fn fresh_taken(filter: &CuckooFilter, salt: u64) -> usize {
    distinct(salt)
        .take(100)
        .filter(|&h| filter.insert(&PreHashed(h)).is_ok())
        .count()
}

fn growable(capacity: usize, bucket_size: usize) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(bucket_size)
        .growable(true)
        .build()
        .unwrap()
}

/// A growable filter that stops at 128 times its capacity (its 7 spare
/// bits: the default's, which grows on in chains past them).
fn bounded(capacity: usize, bucket_size: usize) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(bucket_size)
        .growable(true)
        .max_capacity(capacity * 128)
        .build()
        .unwrap()
}

/// Fills a filter with distinct keys to its first refusal; `Err` says how
/// it was refused if that was not `MaxCapacity` at its last generation,
/// with how many of 100 fresh keys went in after it.
fn fill_to_ceiling(capacity: usize, bucket_size: usize) -> Result<(), String> {
    let filter = bounded(capacity, bucket_size);
    let max = filter.max_capacity().expect("growable");
    let (n, err) = fill(&filter, distinct(capacity as u64), 1, 64 * max + 100_000);
    match err {
        Some(InsertError::MaxCapacity { .. }) if !filter.can_grow() => Ok(()),
        other => Err(format!(
            "capacity {capacity}, {bucket_size}-slot buckets: {other:?} after {n} keys \
             (capacity now {}, max {max}); then {} of 100 fresh keys went in",
            filter.capacity(),
            fresh_taken(&filter, 1 << 40)
        )),
    }
}

/// Every filter of `capacities` with 2-, 4- and 8-slot buckets, filled to
/// its first refusal: prints and fails on those refused below their
/// ceiling.
fn every_fills_to_its_ceiling(capacities: impl Iterator<Item = usize> + Clone) {
    let mut stuck = Vec::new();
    let mut filters = 0;
    for bucket_size in [2, 4, 8] {
        for capacity in capacities.clone() {
            filters += 1;
            if let Err(e) = fill_to_ceiling(capacity, bucket_size) {
                eprintln!("{e}");
                stuck.push(e);
            }
        }
    }
    eprintln!(
        "{} of {filters} filters refused below their ceiling",
        stuck.len()
    );
    assert!(
        stuck.is_empty(),
        "{} of {filters}: {}",
        stuck.len(),
        stuck[0]
    );
}

#[test]
#[cfg_attr(miri, ignore = "fills hundreds of filters")]
fn small_growable_filters_fill_to_their_ceiling() {
    every_fills_to_its_ceiling(
        (1..=64)
            .chain((65..=300).step_by(7))
            .chain([500, 999, 1000]),
    );
}

/// Small filters with no maximum capacity, each bucket size, filled with
/// distinct keys past their spare bits (about 128 times their capacity)
/// into a second chain, then to four times as many keys (the second chain
/// grown twice): nothing refused, every key found.
#[test]
#[cfg_attr(miri, ignore = "fills hundreds of filters")]
fn small_unbounded_filters_grow_past_their_spare_bits() {
    let mut stuck = Vec::new();
    for bucket_size in [2, 4, 8] {
        for capacity in (1..=24).chain([50, 100, 333]) {
            let filter = growable(capacity, bucket_size);
            let mut keys = distinct(capacity as u64);
            let at_chain = keys
                .by_ref()
                .take(4096 * capacity + 10_000)
                .position(|h| {
                    filter.insert(&PreHashed(h)).is_err() || filter.statistics().tables == 2
                })
                .map(|k| k + 1);
            let Some(first) = at_chain.filter(|_| filter.statistics().tables == 2) else {
                stuck.push(format!(
                    "capacity {capacity}, {bucket_size}-slot buckets: no second chain after {at_chain:?} keys"
                ));
                continue;
            };
            let n = 4 * first;
            let (inserted, err) = fill(&filter, keys, 1, n - first);
            if err.is_some() {
                stuck.push(format!(
                    "capacity {capacity}, {bucket_size}-slot buckets: {err:?} after {} of {n} keys",
                    first + inserted
                ));
                continue;
            }
            let missing = distinct(capacity as u64)
                .take(n)
                .filter(|&h| !filter.contains(&PreHashed(h)))
                .count();
            assert_eq!(
                missing, 0,
                "capacity {capacity}, {bucket_size}-slot buckets"
            );
        }
    }
    assert!(
        stuck.is_empty(),
        "{} stuck: {}",
        stuck.len(),
        stuck.join("; ")
    );
}

/// The whole range: capacities 1 to 1,000 with each bucket size (about
/// 200M inserts; run with `--ignored --release`, a few minutes).
#[test]
#[ignore = "long: every capacity from 1 to 1,000, each to its ceiling"]
fn every_small_growable_filter_fills_to_its_ceiling() {
    every_fills_to_its_ceiling(1..=1000);
}

#[test]
#[cfg_attr(miri, ignore = "fills to 12,800 items")]
fn three_copies_of_each_key_fill_to_the_ceiling() {
    let filter = bounded(100, 4);
    let max = filter.max_capacity().expect("growable");
    assert_eq!(max, 12_800);
    let (n, err) = fill(&filter, distinct(3), 3, 10_000);
    assert!(
        matches!(err, Some(InsertError::MaxCapacity { .. })),
        "{err:?} after {n} keys of 3 copies (len {})",
        filter.len()
    );
    eprintln!("3 copies: MaxCapacity at len {} of max {max}", filter.len());
}

#[test]
#[cfg_attr(miri, ignore = "fills to 80,000 items")]
fn four_copies_of_each_key_grow_past_eight_times() {
    let filter = growable(10_000, 4);
    let first = filter.capacity();
    let (n, err) = fill(&filter, distinct(4), 4, 20_000);
    assert_eq!(
        err,
        None,
        "after {n} keys of 4 copies (len {})",
        filter.len()
    );
    assert!(
        filter.capacity() >= 8 * first,
        "capacity {}",
        filter.capacity()
    );
}

#[test]
#[cfg_attr(miri, ignore = "fills thousands of items")]
fn copies_up_to_bucket_size_grow_like_distinct_keys() {
    for bucket_size in [2, 4, 8] {
        for capacity in [13, 100, 1000, 5000] {
            let filter = growable(capacity, bucket_size);
            let (n, err) = fill(
                &filter,
                distinct(bucket_size as u64),
                bucket_size,
                8 * capacity,
            );
            assert!(
                matches!(err, None | Some(InsertError::MaxCapacity { .. })),
                "capacity {capacity}, {bucket_size}-slot buckets, {bucket_size} copies: {err:?} after {n} keys (len {})",
                filter.len()
            );
            assert!(fresh_taken(&filter, 77) >= 99 || err.is_some());
        }
    }
}

/// After any refusal below the ceiling, fresh distinct keys still go in.
#[test]
#[cfg_attr(miri, ignore = "fills thousands of items")]
fn after_a_refusal_fresh_keys_go_in() {
    for bucket_size in [2, 4, 8] {
        for capacity in [13, 14, 21, 100, 1000] {
            let filter = growable(capacity, bucket_size);
            // Nine copies of one key: the pair holds at most 2b.
            let key = StableHasher::hash_one(9, &0u64);
            let err = (0..2 * bucket_size + 1)
                .find_map(|_| filter.insert(&PreHashed(key)).err())
                .expect("too many copies are refused");
            assert!(matches!(err, InsertError::TooManyCopies { .. }), "{err}");
            let taken = fresh_taken(&filter, capacity as u64);
            assert!(taken >= 99, "capacity {capacity}: {taken} of 100");
        }
    }
}

/// An item whose two buckets are one bucket holds `bucket_size` copies,
/// and its refusal says so, in a fixed and a growable filter.
#[test]
#[cfg_attr(
    miri,
    ignore = "searches keys in six filters; the rule is the table's, tested here natively"
)]
fn an_item_with_one_bucket_holds_bucket_size_copies() {
    for bucket_size in [2, 4, 8] {
        for growable in [false, true] {
            let filter = CuckooFilter::builder()
                .capacity(1000)
                .bucket_size(bucket_size)
                .growable(growable)
                .build()
                .unwrap();
            let single = distinct(5)
                .find(|&h| {
                    let (i1, i2, _) = filter.debug_locate(h);
                    i1 == i2
                })
                .expect("about one key in as many as there are buckets");
            for _ in 0..bucket_size {
                filter.insert(&PreHashed(single)).unwrap();
            }
            assert_eq!(
                filter.insert(&PreHashed(single)),
                Err(InsertError::TooManyCopies {
                    copies: bucket_size
                }),
                "{bucket_size}-slot buckets, growable {growable}"
            );
            assert_eq!(filter.count(&PreHashed(single)), bucket_size);
        }
    }
}

/// A skewed key stream (key `k` drawn with probability about `1/k^2`, as a
/// hot-key workload or a multiset would insert): below the ceiling the only
/// refusals are `TooManyCopies`, all but a few of them for keys drawn more
/// than `bucket_size` times (a cold key refused so shares its pair and key
/// bits with a hot one: the filter cannot tell them apart), and the filter
/// grows for the rest; fresh distinct keys still go in.
#[test]
#[cfg_attr(miri, ignore = "inserts 40,000 keys")]
fn a_skewed_stream_refuses_only_the_hot_keys() {
    for bucket_size in [2, 4, 8] {
        let filter = growable(100, bucket_size);
        let first = filter.capacity();
        // Inverse transform of P(K >= k) = 1/k over uniform draws.
        let draws = distinct(11).take(40_000).map(|u| {
            let unit = (u >> 11) as f64 / (1u64 << 53) as f64;
            (1.0 / (1.0 - unit)).floor() as u64
        });
        let mut drawn = std::collections::HashMap::new();
        let (mut refused, mut cold) = (0, 0);
        for k in draws {
            let h = StableHasher::hash_one(12, &k);
            *drawn.entry(k).or_insert(0usize) += 1;
            match filter.insert(&PreHashed(h)) {
                Ok(_) => {}
                Err(InsertError::TooManyCopies { copies }) => {
                    assert!(copies >= bucket_size, "{copies} copies");
                    cold += usize::from(drawn[&k] <= bucket_size);
                    refused += 1;
                }
                // Never `MaxCapacity`: until displacements waited for a
                // growth step's copy, the hottest keys took this filter to
                // its first chain's last generation, whose step's copy then
                // stuck and was refused there as at a ceiling.
                Err(e) => panic!("{bucket_size}-slot buckets, key {k}: {e}"),
            }
        }
        eprintln!(
            "{bucket_size}-slot buckets: {} distinct keys, {} items in; {refused} refused as \
             TooManyCopies ({cold} of keys drawn at most {bucket_size} times); {} steps",
            drawn.len(),
            filter.len(),
            filter.statistics().growth_steps
        );
        assert!(refused > 0, "the hottest keys have thousands of draws");
        assert!(
            cold * 100 <= refused,
            "{cold} of {refused} refusals were of cold keys"
        );
        assert!(filter.capacity() > first, "the filter grew");
        assert!(fresh_taken(&filter, 13) >= 99);
    }
}

/// A growable filter as the Redis module builds one (3 spare bits: a chain
/// of tables per 8x), for 1,000 items at 1%.
fn like_a_redis_key() -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(1000)
        .false_positive_rate(0.01)
        .growable(true)
        .spare_bits(3)
        .build()
        .unwrap()
}

/// Hot keys among fresh ones, as a Redis key takes `CF.ADD`s of a few
/// popular items between new ones (the module's growable keys: 3 spare
/// bits, a chain of tables per 8x): fresh keys keep going in, and every
/// key acknowledged is found. A hot key whose pair was full used to make
/// room for one more copy by displacement, which during a growth step
/// moved other items into buckets the step had not copied yet; the copy
/// then found them taken, and the step stuck for good: from about 10,000
/// items on, every insert was refused (a fifth of the fresh keys here).
#[test]
#[cfg_attr(miri, ignore = "inserts 30,000 keys")]
fn hot_keys_among_fresh_ones_do_not_stop_growth() {
    for seed in 0..2u64 {
        let filter = like_a_redis_key();
        let mut fresh = distinct(20 + seed);
        let hot: Vec<u64> = distinct(30 + seed).take(200).collect();
        let mut draw = distinct(40 + seed);
        let (mut acknowledged, mut fresh_refused, mut fresh_tried) = (Vec::new(), 0, 0);
        for i in 0..30_000 {
            let h = if i % 2 == 0 {
                fresh_tried += 1;
                fresh.next().unwrap()
            } else {
                hot[(draw.next().unwrap() % 200) as usize]
            };
            match filter.insert(&PreHashed(h)) {
                Ok(_) => acknowledged.push(h),
                Err(InsertError::TooManyCopies { .. }) if i % 2 == 1 => {}
                Err(_) if i % 2 == 0 => fresh_refused += 1,
                Err(e) => panic!("seed {seed}, insert {i} of a hot key: {e}"),
            }
        }
        assert!(
            fresh_refused * 100 <= fresh_tried,
            "seed {seed}: {fresh_refused} of {fresh_tried} fresh keys refused"
        );
        assert!(acknowledged.iter().all(|&h| filter.contains(&PreHashed(h))));
    }
}

/// `filter.memory_usage()` over a fixed filter's built for its `len()` at 1%.
fn over_a_fixed_filter(filter: &CuckooFilter) -> f64 {
    let fixed = CuckooFilter::builder()
        .capacity(filter.len())
        .false_positive_rate(0.01)
        .build()
        .unwrap();
    filter.memory_usage() as f64 / fixed.memory_usage() as f64
}

/// Hot keys among fresh ones leave the filter close to a fixed filter's
/// memory for what it holds: each hot key keeps a bucket's worth of copies
/// in its pair, so its pair never fills with copies no displacement can
/// move. While they filled it, a fresh key whose two buckets were two hot
/// keys' pairs had the filter double for it: 15 to 281 times a fixed
/// filter's `memory_usage()` after the same streams (docs/benchmarks.md,
/// "Hot keys among fresh ones"); 1.4 to 2.5 now.
#[test]
#[cfg_attr(miri, ignore = "inserts 30,000 keys four times")]
fn hot_keys_among_fresh_ones_leave_memory_near_a_fixed_filters() {
    let default = || {
        CuckooFilter::builder()
            .capacity(1000)
            .false_positive_rate(0.01)
            .growable(true)
            .build()
            .unwrap()
    };
    for (build, name) in [(like_a_redis_key as fn() -> CuckooFilter, "3 spare bits"), (default, "7")] {
        for seed in 0..2u64 {
            let filter = build();
            let mut fresh = distinct(60 + seed);
            let hot: Vec<u64> = distinct(70 + seed).take(200).collect();
            let mut draw = distinct(80 + seed);
            let mut fresh_refused = 0;
            for i in 0..30_000 {
                let h = if i % 2 == 0 {
                    fresh.next().unwrap()
                } else {
                    hot[(draw.next().unwrap() % 200) as usize]
                };
                match filter.insert(&PreHashed(h)) {
                    Ok(_) => {}
                    // A few fresh keys find both buckets full of hot keys'.
                    Err(_) if i % 2 == 0 => fresh_refused += 1,
                    Err(InsertError::TooManyCopies { .. }) => {}
                    Err(e) => panic!("{name}, seed {seed}, insert {i}: {e}"),
                }
            }
            assert!(fresh_refused <= 150, "{name}, seed {seed}: {fresh_refused} refused");
            let ratio = over_a_fixed_filter(&filter);
            eprintln!("{name}, seed {seed}: {ratio:.2}x a fixed filter's memory");
            assert!(
                ratio <= 4.0,
                "{name}, seed {seed}: {} bytes for {} items, {ratio:.1}x a fixed filter's",
                filter.memory_usage(),
                filter.len()
            );
            for &h in &hot {
                let copies = filter.count(&PreHashed(h));
                let tables = filter.statistics().tables as usize;
                // A bucket's worth a table, or one more where the copies
                // all lay in the pair's second bucket.
                assert!(
                    (1..=5 * tables).contains(&copies),
                    "{name}, seed {seed}: {copies} copies of a hot key in {tables} tables"
                );
            }
        }
    }
}

/// A hot key does not grow a filter of small blocks (under 1,024 slots,
/// which grow for any other failure below half the load): one whose copies
/// filled half its pair with those of hot keys sharing its key bits found
/// no room by displacement and doubled the filter four times in one insert
/// (30 times a fixed filter's memory at the end of this fill); its copies
/// now have it refused `TooManyCopies` as in larger blocks, and it starts
/// no chain there either.
#[test]
#[cfg_attr(miri, ignore = "inserts 100,000 keys five times")]
fn a_hot_key_grows_no_small_blocks() {
    // SplitMix64's finalizer: the stream the harness in docs/benchmarks.md
    // ("Hot keys among fresh ones") drew, whose fifth seed met it.
    let mix = |x: u64| {
        let x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    };
    for seed in 0..5u64 {
        let filter = CuckooFilter::builder()
            .capacity(500)
            .false_positive_rate(0.01)
            .growable(true)
            .build()
            .unwrap();
        let (mut r, mut fresh) = (seed.wrapping_mul(0x123_4567), 0u64);
        for i in 0..100_000u64 {
            r = mix(r);
            let key = if i % 2 == 0 {
                fresh += 1;
                mix(fresh ^ (seed << 40) ^ (1 << 63))
            } else {
                mix((r % 1000) ^ (seed << 32))
            };
            match filter.insert(&key) {
                Ok(()) | Err(InsertError::TooManyCopies { .. }) => {}
                Err(e) if i % 2 == 0 => eprintln!("seed {seed}, fresh key {i}: {e}"),
                Err(e) => panic!("seed {seed}, insert {i}: {e}"),
            }
        }
        let ratio = over_a_fixed_filter(&filter);
        eprintln!("seed {seed}: {ratio:.2}x a fixed filter's memory");
        // 3.5 to 5.6 now; the fifth seed's 30.2 before. (What remains: hot
        // keys sharing a pair whose spare bits agree through a chain, which
        // the next chain reuses: docs/design.md.)
        assert!(ratio <= 12.0, "seed {seed}: {ratio:.1}x a fixed filter's memory");
    }
}

/// Only hot keys, offered again and again: each keeps a bucket's worth of
/// copies (four, or five), and the filter neither grows for them past what their
/// copies fill nor starts a chain of tables to hold more (a key refused as
/// hot once went on into earlier chains and new ones, `2b` copies more in
/// each).
#[test]
#[cfg_attr(miri, ignore = "inserts 40,000 keys")]
fn hot_keys_alone_start_no_chain() {
    let filter = like_a_redis_key();
    let hot: Vec<u64> = distinct(50).take(200).collect();
    for (i, r) in distinct(51).take(40_000).enumerate() {
        match filter.insert(&PreHashed(hot[(r % 200) as usize])) {
            Ok(_) | Err(InsertError::TooManyCopies { .. }) => {}
            Err(e) => panic!("insert {i}: {e}"),
        }
    }
    assert_eq!(filter.statistics().tables, 1, "a chain started for hot keys");
    assert!(filter.len() <= 200 * 5, "{} copies of 200 keys", filter.len());
    assert!(hot.iter().all(|&h| filter.contains(&PreHashed(h))));
}
