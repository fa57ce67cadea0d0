//! The public face of a growable filter (`Builder::growable(true)`): every
//! method on a filter that has grown, the builder's refusals, and the
//! saved format (version 5; 4 before keys were hashed in lanes, 3 before keys were hashed as bytes)
//! through every way in and out. The concurrent contract (threads
//! inserting through growth while others remove and look up) is
//! tests/it/growth.rs's; the interleavings are loom-tests/tests/models/growth.rs's.

use cuckoo_nest::{
    BuildError, CuckooFilter, DecodeError, FilterView, InsertError, LoadOptions, MergeError,
    PreHashed, StableHasher,
};

pub(crate) fn growable(capacity: usize) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(0.01)
        .growable(true)
        .build()
        .unwrap()
}

/// Distinct well-mixed hashes, `salt` picking the set.
pub(crate) fn hashes(n: usize, salt: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|k| StableHasher::hash_one(salt, &k))
        .collect()
}

#[test]
fn every_method_works_on_a_grown_filter() {
    let filter = growable(500);
    assert!(filter.max_capacity().is_some());
    let first_capacity = filter.capacity();
    let keys = hashes(20_000, 1);
    filter
        .insert_batch(keys[..10_000].iter().map(|&h| PreHashed(h)))
        .unwrap();
    for &h in &keys[10_000..] {
        filter.insert(&PreHashed(h)).unwrap();
    }
    assert_eq!(filter.len(), 20_000);
    // 40 times the first capacity: five or six doublings.
    assert!(filter.capacity() >= 20_000, "{}", filter.capacity());
    assert!(filter.capacity() > first_capacity * 32);
    assert_eq!(
        filter.shape().slots,
        filter.shape().buckets * filter.shape().bucket_size
    );
    assert!(keys.iter().all(|&h| filter.contains(&PreHashed(h))));
    let mut found = vec![false; keys.len()];
    assert_eq!(
        filter.contains_batch_into(keys.iter().map(|&h| PreHashed(h)), &mut found),
        Ok(keys.len())
    );

    // Unique inserts see every copy, counts count them.
    assert_eq!(filter.insert_unique(&PreHashed(keys[7])), Ok(false));
    assert!(filter.count(&PreHashed(keys[7])) >= 1);

    // Byte keys and their batches.
    filter.insert(b"user:42").unwrap();
    filter
        .insert_batch(&[b"a".as_slice(), b"b".as_slice()])
        .unwrap();
    assert!(filter.contains(b"user:42"));
    assert_eq!(filter.count(b"a"), 1);
    let mut two = [false; 2];
    assert_eq!(filter.contains_batch_into(&["a", "b"], &mut two), Ok(2));
    assert!(filter.remove(b"user:42"));

    // Removes take one copy each; `len` stays exact.
    for &h in &keys[..5000] {
        assert!(filter.remove(&PreHashed(h)));
    }
    assert_eq!(filter.len(), 15_000 + 2);
    assert!(keys[5000..].iter().all(|&h| filter.contains(&PreHashed(h))));

    // The rate the builder promised, at the grown size.
    let absent = hashes(200_000, 2);
    let false_positives = absent
        .iter()
        .filter(|&&h| filter.contains(&PreHashed(h)))
        .count();
    let rate = false_positives as f64 / absent.len() as f64;
    assert!(rate <= 0.01, "false-positive rate {rate}");
    assert!(filter.shape().false_positive_rate_at_capacity <= 0.01);

    filter.clear();
    assert!(filter.is_empty());
    assert!(keys.iter().all(|&h| !filter.contains(&PreHashed(h))));
}

#[test]
fn the_builder_refuses_what_cannot_grow() {
    let b = || CuckooFilter::builder().capacity(1000);
    assert_eq!(
        b().growable(true).semi_sorted(true).build().unwrap_err(),
        BuildError::GrowableSemiSorted
    );
    assert_eq!(
        b().growable(true).fingerprint_bits(30).build().unwrap_err(),
        BuildError::GrowableFingerprintTooWide { bits: 30, max: 25 }
    );
    for (max, growable) in [(4000, false), (999, true), (1000 << 30, true)] {
        let err = b()
            .growable(growable)
            .max_capacity(max)
            .build()
            .unwrap_err();
        assert!(
            matches!(err, BuildError::InvalidMaxCapacity { max_capacity, .. } if max_capacity == max),
            "{err}"
        );
    }
}

#[test]
fn a_generation_takes_its_capacity_before_it_grows() {
    // The first generation is sized for the load it grows at: `capacity`
    // items go in without a growth step, and the step comes before the
    // table reaches its design load (95% of it, at most).
    for (b, design_load, capacity) in [
        (2, 0.85, 3000),
        (4, 0.95, 1000),
        (4, 0.95, 50_000),
        (8, 0.98, 7000),
    ] {
        let filter = CuckooFilter::builder()
            .capacity(capacity)
            .bucket_size(b)
            .fingerprint_bits(12)
            .growable(true)
            .build()
            .unwrap();
        let keys = hashes(4 * capacity, b as u64);
        let mut grew_at = None;
        for (n, &h) in keys.iter().enumerate() {
            filter.insert(&PreHashed(h)).unwrap();
            if grew_at.is_none() && filter.capacity() != capacity {
                grew_at = Some(n + 1);
            }
        }
        let grew_at = grew_at.expect("4x the capacity grows the filter");
        assert!(
            grew_at > capacity,
            "b = {b}: grew at {grew_at} of {capacity}"
        );
        // The first generation's slots, at the step: under its design load.
        let first_slots = filter.shape().slots >> 2;
        let load = grew_at as f64 / first_slots as f64;
        assert!(
            (0.9 * design_load..0.96 * design_load).contains(&load),
            "b = {b}: grew at load {load:.3}, design load {design_load}"
        );
        assert_eq!(filter.capacity(), 4 * capacity, "b = {b}");
        assert!(keys.iter().all(|&h| filter.contains(&PreHashed(h))));
    }
}

#[test]
fn max_capacity_stops_growth_and_spares_bits() {
    let bounded = CuckooFilter::builder()
        .capacity(1000)
        .false_positive_rate(0.01)
        .growable(true)
        .max_capacity(3000)
        .build()
        .unwrap();
    // Two doublings reach 3000: two spare bits instead of seven.
    let unbounded = growable(1000);
    assert_eq!(
        bounded.shape().fingerprint_bits + 5,
        unbounded.shape().fingerprint_bits,
        "two spare bits, not seven"
    );
    let mut inserted = 0;
    let err = loop {
        match bounded.insert(&inserted) {
            Ok(()) => inserted += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(
        err,
        InsertError::MaxCapacity {
            max_capacity: 4000,
            len: inserted as usize
        }
    );
    assert!(
        err.to_string().contains("grow to a capacity of 4000 items"),
        "{err}"
    );
    assert_eq!(bounded.max_capacity(), Some(4000));
    assert!(!bounded.can_grow());
    assert_eq!(bounded.capacity(), 4000);
    assert!(inserted >= 3000, "refused at {inserted}");
    assert!((0..inserted).all(|k| bounded.contains(&k)));
}

#[test]
fn a_grown_filter_saves_loads_views_and_clones() {
    let filter = growable(300);
    let keys = hashes(5000, 3);
    filter
        .insert_batch(keys.iter().map(|&h| PreHashed(h)))
        .unwrap();
    let depth_bits = filter.shape().fingerprint_bits;
    let bytes = filter.to_bytes();
    // Version 5, hash algorithm 6: a growable filter of keys hashed as
    // bytes in lanes.
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 5);
    assert_eq!(bytes[13], 6);

    let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
    let read = CuckooFilter::load(&bytes[..], &LoadOptions::default())
        .map(|(f, _)| f)
        .unwrap();
    let view = FilterView::new(&bytes[..]).unwrap();
    let clone = filter.clone();
    for f in [&loaded, &read, &clone] {
        assert!(f.max_capacity().is_some());
        assert_eq!(f.len(), 5000);
        assert_eq!(f.capacity(), filter.capacity());
        assert_eq!(f.shape().fingerprint_bits, depth_bits);
        assert!(keys.iter().all(|&h| f.contains(&PreHashed(h))));
    }
    assert_eq!(loaded, filter);
    assert_eq!(view.len(), 5000);
    assert_eq!(view.shape().buckets, filter.shape().buckets);
    assert!(keys.iter().all(|&h| view.contains(&PreHashed(h))));
    let mut found = vec![false; keys.len()];
    assert_eq!(
        view.contains_batch_into(keys.iter().map(|&h| PreHashed(h)), &mut found),
        Ok(keys.len())
    );
    // The same answers on absent keys, too.
    for h in hashes(20_000, 4) {
        assert_eq!(view.contains(&PreHashed(h)), filter.contains(&PreHashed(h)));
        assert_eq!(
            loaded.contains(&PreHashed(h)),
            filter.contains(&PreHashed(h))
        );
    }

    // A loaded filter keeps growing from where it was saved.
    let more = hashes(20_000, 5);
    loaded
        .insert_batch(more.iter().map(|&h| PreHashed(h)))
        .unwrap();
    assert!(loaded.capacity() > filter.capacity());
    assert!(keys
        .iter()
        .chain(&more)
        .all(|&h| loaded.contains(&PreHashed(h))));
    let reloaded = CuckooFilter::from_bytes(&crate::common::saved_with(&loaded, b"m")).unwrap();
    assert_eq!(reloaded.len(), 25_000);
    assert_eq!(
        CuckooFilter::read_metadata(&crate::common::saved_with(&loaded, b"m")).unwrap(),
        b"m"
    );
}

#[test]
fn a_damaged_growth_header_is_refused() {
    let filter = growable(300);
    filter
        .insert_batch(hashes(2000, 6).iter().map(|&h| PreHashed(h)))
        .unwrap();
    let bytes = filter.to_bytes();
    for (at, value) in [
        (30usize, 0u8),
        (30, 40),
        (31, 40),
        (13, 1),
        (13, 2),
        (13, 3),
    ] {
        let mut bad = bytes.clone();
        bad[at] = value;
        // Re-seal the header so only the field is wrong.
        let sum = xxhash_rust::xxh3::xxh3_64(&bad[..56]);
        bad[56..64].copy_from_slice(&sum.to_le_bytes());
        let err = CuckooFilter::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(err, DecodeError::InvalidConfiguration { .. }),
            "byte {at} = {value}: {err}"
        );
    }
}

/// Every key width and depth a version 5 header (or 4, or 3) can state, on one table:
/// what loads is a configuration a builder makes (keys of 4 bits or more),
/// and once it has grown it still saves to bytes that load, clones and
/// merges without a panic. Keys of 1 to 3 bits used to load, then fail
/// their own re-save (and panic `merge`) once the filter grew.
#[test]
fn every_loadable_growth_header_grows_resaves_and_merges() {
    let filter = CuckooFilter::builder()
        .capacity(64)
        .fingerprint_bits(4)
        .growable(true)
        .build()
        .unwrap();
    let bytes = filter.to_bytes();
    let stored = u32::from(bytes[11]);
    assert_eq!((bytes[30], bytes[31], stored), (4, 0, 11));
    let mut loaded = 0;
    for key in 0..=33u8 {
        for depth in 0..=12u8 {
            let mut forged = bytes.clone();
            forged[30] = key;
            forged[31] = depth;
            let sum = xxhash_rust::xxh3::xxh3_64(&forged[..56]);
            forged[56..64].copy_from_slice(&sum.to_le_bytes());
            let Ok(f) = CuckooFilter::from_bytes(&forged) else {
                continue;
            };
            loaded += 1;
            assert!(
                (4..=32).contains(&key),
                "key of {key} bits at depth {depth} loaded"
            );
            let keys = hashes(400, u64::from(key) << 8 | u64::from(depth));
            for &h in &keys {
                if f.insert(&PreHashed(h)).is_err() {
                    break;
                }
            }
            let again = CuckooFilter::from_bytes(&f.to_bytes()).unwrap_or_else(|e| {
                panic!("key {key}, depth {depth}: its own bytes do not load: {e}")
            });
            assert_eq!(again.len(), f.len());
            let copy = f.clone();
            let _ = f.merge(&copy);
            let _ = again.merge(&f);
        }
    }
    assert!(loaded > 0);
    // The reported case: 1 to 3 bits, each refused with a reason.
    for key in 1..=3u8 {
        let mut forged = bytes.clone();
        forged[30] = key;
        let sum = xxhash_rust::xxh3::xxh3_64(&forged[..56]);
        forged[56..64].copy_from_slice(&sum.to_le_bytes());
        let err = CuckooFilter::from_bytes(&forged).unwrap_err();
        assert!(
            matches!(err, DecodeError::InvalidConfiguration { .. }),
            "{err}"
        );
        assert!(FilterView::new(&forged[..]).is_err());
    }
}

/// Items crafted to share a bucket pair never grow the filter: a growable
/// filter grows for load only. Four copies each of two items that differ in
/// one spare bit, and a third that differs in another (so growth would not
/// separate them for several doublings), are refused as `TooManyCopies`
/// (as is a fifth copy of one item: a growable filter keeps a bucket's
/// worth of one key's copies), and nine items with
/// distinct keys whose buckets are the same pair as `Crowded`; memory
/// stays at the first generation's.
#[test]
fn crafted_collisions_never_grow_the_filter() {
    // A spread hash whose top bits aim at local bucket `l` of `local`,
    // key bits from `low` (bits 0..32), spare bits 32.. from `spare`.
    let aim = |local: usize, l: usize, spare: u64, low: u64| {
        let start = ((l as u128) << 64).div_ceil(local as u128) as u64;
        let base = start.div_ceil(1 << 40) << 40;
        CuckooFilter::debug_hash_spreading_to(base | spare << 32 | low)
    };

    let filter = CuckooFilter::builder()
        .capacity(1_000_000)
        .growable(true)
        .build()
        .unwrap();
    let (memory, capacity, local) = (
        filter.memory_usage(),
        filter.capacity(),
        filter.shape().buckets,
    );
    let a = aim(local, 12_345, 0, 0x1234_5678);
    let b = aim(local, 12_345, 1 << 6, 0x1234_5678);
    let c = aim(local, 12_345, 1 << 5, 0x1234_5678);
    let (ia, ja, fa) = filter.debug_locate(a);
    let (ib, jb, fb) = filter.debug_locate(b);
    let (ic, jc, fc) = filter.debug_locate(c);
    assert!(
        (ia, ja) == (ib, jb) && (ia, ja) == (ic, jc),
        "a, b and c share their bucket pair"
    );
    assert!(
        fa != fb && fa != fc && fb != fc,
        "and differ in a spare bit of the stored fingerprint"
    );
    // A growable filter keeps a bucket's worth of one key's copies in its
    // pair: the fifth copy of a is refused where the pair has room.
    for _ in 0..4 {
        filter.insert(&PreHashed(a)).unwrap();
    }
    assert_eq!(
        filter.insert(&PreHashed(a)),
        Err(InsertError::TooManyCopies { copies: 4 })
    );
    for _ in 0..4 {
        filter.insert(&PreHashed(b)).unwrap();
    }
    assert_eq!(
        filter.insert(&PreHashed(c)),
        Err(InsertError::TooManyCopies { copies: 8 })
    );
    assert_eq!(
        (filter.memory_usage(), filter.capacity()),
        (memory, capacity)
    );
    assert!(filter.memory_usage() <= 2 * memory);
    assert_eq!(filter.len(), 8);
    assert!(filter.contains(&PreHashed(a)) && filter.count(&PreHashed(a)) == 4);
    assert!(filter.contains(&PreHashed(b)) && filter.count(&PreHashed(b)) == 4);

    // Distinct keys, one pair: found by scanning the key bits at one local
    // bucket for keys whose other bucket is the first one's.
    // (Blocks of 1,024 slots or more: smaller ones fill by chance and grow
    // on any failure.)
    let filter = CuckooFilter::builder()
        .capacity(5000)
        .false_positive_rate(0.0001)
        .growable(true)
        .build()
        .unwrap();
    let (memory, local) = (filter.memory_usage(), filter.shape().buckets);
    assert!(local * filter.shape().bucket_size >= 1024);
    let first = aim(local, 7, 0, 0);
    let (i1, i2, _) = filter.debug_locate(first);
    assert_ne!(i1, i2);
    let mut keys = std::collections::HashSet::new();
    let crafted: Vec<u64> = (0..1u64 << 18)
        .map(|v| aim(local, 7, 0, v << 14))
        .filter(|&h| {
            let (j1, j2, fp) = filter.debug_locate(h);
            (j1, j2) == (i1, i2) && keys.insert(fp)
        })
        .take(9)
        .collect();
    assert_eq!(crafted.len(), 9, "nine keys sharing one pair");
    for &h in &crafted[..8] {
        filter.insert(&PreHashed(h)).unwrap();
    }
    let err = filter.insert(&PreHashed(crafted[8])).unwrap_err();
    assert_eq!(
        err,
        InsertError::Crowded {
            len: 8,
            slots: filter.shape().slots
        }
    );
    assert!(err.to_string().contains("colliding keys"), "{err}");
    assert_eq!(filter.memory_usage(), memory);
    assert!(crafted[..8].iter().all(|&h| filter.contains(&PreHashed(h))));
    // Random keys still fill it and grow it.
    filter
        .insert_batch(hashes(40_000, 9).iter().map(|&h| PreHashed(h)))
        .unwrap();
    assert!(filter.memory_usage() > 4 * memory);
}

#[test]
fn a_fingerprint_with_a_zero_key_is_refused() {
    // A one-bucket-pair filter: 4-bit keys, so the stored fingerprints are
    // 4 + 7 bits; a forged slot holds spare bits over a zero key.
    let filter = CuckooFilter::builder()
        .capacity(8)
        .fingerprint_bits(4)
        .growable(true)
        .build()
        .unwrap();
    let mut bytes = filter.to_bytes();
    assert!(bytes[64..].iter().all(|&b| b == 0));
    // Slot 0 of bucket 0: bits 0..11 of the table; key bits 0..4 zero.
    bytes[64] = 0b1111_0000;
    bytes[32..40].copy_from_slice(&1u64.to_le_bytes()); // one item
    let table = xxhash_rust::xxh3::xxh3_64(&bytes[64..]);
    bytes[48..56].copy_from_slice(&table.to_le_bytes());
    let header = xxhash_rust::xxh3::xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&header.to_le_bytes());
    for err in [
        CuckooFilter::from_bytes(&bytes).unwrap_err(),
        FilterView::new(&bytes[..]).map(|_| ()).unwrap_err(),
    ] {
        assert!(
            matches!(err, DecodeError::InvalidBucket { bucket: 0, .. }),
            "{err}"
        );
    }
    // With a key bit set, the same slot loads.
    bytes[64] = 0b1111_0001;
    let table = xxhash_rust::xxh3::xxh3_64(&bytes[64..]);
    bytes[48..56].copy_from_slice(&table.to_le_bytes());
    let header = xxhash_rust::xxh3::xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&header.to_le_bytes());
    assert_eq!(CuckooFilter::from_bytes(&bytes).unwrap().len(), 1);
}

#[test]
fn merge_translates_between_depths() {
    let small = growable(400);
    let large = growable(400);
    let a = hashes(1000, 7);
    let b = hashes(12_000, 8);
    small.insert_batch(a.iter().map(|&h| PreHashed(h))).unwrap();
    large.insert_batch(b.iter().map(|&h| PreHashed(h))).unwrap();
    assert!(large.capacity() > small.capacity());
    // Into the shallower filter (which grows) and into the deeper one.
    let into_small = small.clone();
    into_small.merge(&large).unwrap();
    large.merge(&small).unwrap();
    for f in [&into_small, &large] {
        assert_eq!(f.len(), 13_000);
        assert!(a.iter().chain(&b).all(|&h| f.contains(&PreHashed(h))));
    }
    // Growable and fixed filters do not merge.
    let fixed = CuckooFilter::with_capacity(1000);
    assert!(matches!(
        fixed.merge(&small),
        Err(MergeError::Mismatch {
            what: "growable",
            ..
        })
    ));
    let other_seed = CuckooFilter::builder()
        .capacity(400)
        .false_positive_rate(0.01)
        .growable(true)
        .seed(9)
        .build()
        .unwrap();
    assert!(matches!(
        small.merge(&other_seed),
        Err(MergeError::Mismatch {
            what: "hash seed",
            ..
        })
    ));
}

/// Saves, clones and merges taken while a writer inserts through growth
/// steps: each holds every key acknowledged before it began (the save
/// finishes a step under way and holds off the next; writers keep going).
#[test]
fn saves_while_a_writer_grows_the_filter_hold_every_acknowledged_key() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let filter = growable(10_000);
    let keys = hashes(if cfg!(miri) { 3000 } else { 1_000_000 }, 10);
    let acknowledged = AtomicUsize::new(0);
    let mut checks = 0;
    std::thread::scope(|s| {
        let writer = s.spawn(|| {
            for (k, &h) in keys.iter().enumerate() {
                filter.insert(&PreHashed(h)).unwrap();
                acknowledged.store(k + 1, Ordering::Release);
            }
        });
        // Until the writer ends (a writer that panics ends the loop too).
        while !writer.is_finished() || checks < 3 {
            let before = acknowledged.load(Ordering::Acquire);
            let copy: CuckooFilter = match checks % 3 {
                0 => CuckooFilter::from_bytes(&filter.to_bytes()).unwrap(),
                1 => filter.clone(),
                _ => {
                    let into = growable(10_000);
                    into.merge(&filter).unwrap();
                    into
                }
            };
            let lost = keys[..before]
                .iter()
                .filter(|&&h| !copy.contains(&PreHashed(h)))
                .count();
            assert_eq!(lost, 0, "copy {checks} lost {lost} of {before} keys");
            assert!(copy.len() >= before);
            checks += 1;
        }
    });
    assert!(filter.capacity() >= keys.len());
    assert!(keys.iter().all(|&h| filter.contains(&PreHashed(h))));
    println!("{checks} copies checked while the filter grew");
}

/// `statistics`: growth steps are the doublings (kept by a save), refused
/// inserts count every error a single or batch insert returned (a clone or
/// a load starts counting afresh), and a fixed filter has no growth steps.
#[test]
fn statistics_count_growth_steps_and_refused_inserts() {
    let filter = CuckooFilter::builder()
        .capacity(1_000)
        .growable(true)
        .build()
        .unwrap();
    assert_eq!(filter.statistics().growth_steps, 0);
    for k in 0..8_000u64 {
        filter.insert(&k).unwrap();
    }
    filter.finish_growth();
    let steps = filter.statistics().growth_steps;
    assert!(
        steps >= 3,
        "8x the first capacity is 3 doublings or more: {steps}"
    );
    assert_eq!(filter.statistics().refused_inserts, 0);
    // A growable filter keeps four copies of one item (a bucket's worth);
    // the fifth is refused, once by a single insert and once by a batch.
    for _ in 0..4 {
        filter.insert("same").unwrap();
    }
    assert!(filter.insert("same").is_err());
    assert!(filter.insert_batch(&["same"; 3]).is_err());
    assert_eq!(filter.statistics().refused_inserts, 2);
    let loaded = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
    assert_eq!(loaded.statistics().growth_steps, steps);
    assert_eq!(loaded.statistics().refused_inserts, 0);
    assert_eq!(filter.clone().statistics().refused_inserts, 0);
    let fixed = CuckooFilter::with_capacity(100);
    assert_eq!(fixed.statistics().growth_steps, 0);
    // A maximum of twice the first capacity is one spare bit, fewer than a
    // later chain's: the count once subtracted past zero there (a panic in
    // a debug build, before any step).
    let once = CuckooFilter::builder()
        .capacity(1_000)
        .growable(true)
        .max_capacity(2_000)
        .build()
        .unwrap();
    assert_eq!(once.statistics().growth_steps, 0);
    for k in 0..1_500u64 {
        once.insert(&k).unwrap();
    }
    once.finish_growth();
    assert_eq!(once.statistics().growth_steps, 1);
    // Past its spare bits: two spare bits are two doublings and a step to
    // the second chain, whose four (two more spare bits) and a step lead to
    // the third.
    let chained = CuckooFilter::builder()
        .capacity(10)
        .growable(true)
        .spare_bits(2)
        .build()
        .unwrap();
    let mut k = 0u64;
    while chained.statistics().tables < 3 {
        chained.insert(&k).unwrap();
        k += 1;
    }
    assert_eq!(chained.statistics().growth_steps, 2 + 1 + 4 + 1);
}

/// `statistics().longest_displacement`: a filter filled into displacements
/// (fixed, each bucket size, and growable) reports a path of at least one
/// hop and at most the search's depth; one that never displaced (far from
/// full) reports 0; a save and load starts it afresh.
#[test]
fn statistics_longest_displacement() {
    for b in [2, 4, 8] {
        let filter = CuckooFilter::builder()
            .capacity(20_000)
            .bucket_size(b)
            .build()
            .unwrap();
        // Random keys to the first refusal: past the first full bucket
        // pair, inserts displace.
        let inserted = crate::common::splitmix64(b as u64)
            .take_while(|h| filter.insert(&PreHashed(*h)).is_ok())
            .count();
        assert!(inserted >= 20_000, "b = {b}: {inserted}");
        let longest = filter.statistics().longest_displacement;
        let depth = filter.debug_max_path_depth();
        assert!(
            (1..=depth).contains(&longest),
            "b = {b}: longest path {longest}, search depth {depth}"
        );
        let loaded = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
        assert_eq!(loaded.statistics().longest_displacement, 0);
    }
    let growable = CuckooFilter::builder()
        .capacity(2_000)
        .growable(true)
        .build()
        .unwrap();
    for h in crate::common::splitmix64(7).take(40_000) {
        growable.insert(&PreHashed(h)).unwrap();
    }
    assert!(growable.statistics().growth_steps >= 3);
    let longest = growable.statistics().longest_displacement;
    assert!((1..=growable.debug_max_path_depth()).contains(&longest));
    // A hundred items in a table for a million: every insert finds a free
    // slot, none moves anything.
    let roomy = CuckooFilter::with_capacity(1_000_000);
    for h in crate::common::splitmix64(9).take(100) {
        roomy.insert(&PreHashed(h)).unwrap();
    }
    assert_eq!(roomy.statistics().longest_displacement, 0);
}

/// A growable filter whose next table would be under 4 MiB holds only its
/// current one up to the step (docs/design.md, "Growth", step 0): holding
/// the next one from 80% of the growth load on doubled what a small filter
/// reports for the last fifth of each generation. After the step it holds
/// the new table alone.
#[test]
fn a_small_filter_holds_no_next_table_before_its_step() {
    let filter = growable(10_000);
    let (memory, buckets) = (filter.memory_usage(), filter.shape().buckets);
    let keys = hashes(40_000, 11);
    let mut inserted = 0;
    for &h in &keys {
        filter.insert(&PreHashed(h)).unwrap();
        inserted += 1;
        if filter.shape().buckets != buckets {
            break;
        }
        assert_eq!(
            filter.memory_usage(),
            memory,
            "memory grew before the step, at {inserted} items"
        );
    }
    assert!(
        inserted > 9_000,
        "the first generation took {inserted} items"
    );
    assert_eq!(filter.shape().buckets, 2 * buckets, "one step taken");
    // Past the step (the copy finished by the writes or by `len`'s
    // quiescent reads), the filter holds about twice the first table.
    for &h in &keys[inserted..inserted + 5_000] {
        filter.insert(&PreHashed(h)).unwrap();
    }
    assert!(
        filter.memory_usage() < 3 * memory,
        "{} after the step against {memory} before",
        filter.memory_usage()
    );
    assert!(keys[..inserted + 5_000]
        .iter()
        .all(|&h| filter.contains(&PreHashed(h))));
}

/// A generation's batch reads its table through the layout of its own
/// width as a constant for the widths a 1% filter of 4-slot buckets passes
/// through (10 to 21 bits: `table/batch.rs`, `AtWidth`), and as the table
/// is for every other: at every width a batch answers as single lookups
/// do, and finds every key inserted.
#[test]
fn batches_answer_as_single_lookups_at_every_generation_width() {
    let mut widths = std::collections::BTreeSet::new();
    for (bits, bucket_size) in [(4, 4), (8, 4), (10, 4), (12, 4), (15, 4), (10, 2), (10, 8)] {
        let filter = CuckooFilter::builder()
            .capacity(400)
            .bucket_size(bucket_size)
            .fingerprint_bits(bits)
            .growable(true)
            .build()
            .unwrap();
        let keys = hashes(12_000, 20 + u64::from(bits));
        let absent = hashes(2_000, 40 + u64::from(bits));
        for (round, chunk) in keys.chunks(1_500).enumerate() {
            for &h in chunk {
                filter.insert(&PreHashed(h)).unwrap();
            }
            let width = filter.shape().fingerprint_bits;
            widths.insert((bucket_size, width));
            let queries: Vec<u64> = keys[..(round + 1) * 1_500]
                .iter()
                .chain(&absent)
                .copied()
                .collect();
            let single: Vec<bool> = queries
                .iter()
                .map(|&h| filter.contains(&PreHashed(h)))
                .collect();
            let mut batch = vec![false; queries.len()];
            filter
                .contains_batch_into(queries.iter().map(|&h| PreHashed(h)), &mut batch)
                .unwrap();
            assert_eq!(
                batch, single,
                "{bits}-bit keys, {bucket_size}-slot buckets, width {width}"
            );
            assert!(
                batch[..(round + 1) * 1_500].iter().all(|&hit| hit),
                "{bits}-bit keys, width {width}: a key inserted is missed"
            );
        }
    }
    // Both paths ran: widths with a constant layout and widths without.
    assert!(
        widths
            .iter()
            .any(|&(b, w)| b == 4 && (10..=21).contains(&w)),
        "{widths:?}"
    );
    assert!(
        widths
            .iter()
            .any(|&(b, w)| b == 4 && !(10..=21).contains(&w)),
        "{widths:?}"
    );
}
