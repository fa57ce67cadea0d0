//! A growable filter past its spare bits (docs/design.md, "Growth past
//! the spare bits"): with no maximum capacity it starts a second chain
//! where it used to refuse, keeps the false-positive rate, finds every
//! item after removes, and saves (format version 6), loads, views and
//! clones with every chain. The concurrent contract is
//! tests/it/growth.rs's; the interleavings of a chain's start with lookups
//! and removes are loom-tests/tests/models/chains.rs's (model 16).

// A growable filter at 1% with no maximum capacity, and distinct hashes.
use crate::growable::{growable as unbounded, hashes};
use cuckoo_nest::{
    CuckooFilter, DecodeError, FilterView, InsertError, LoadOptions, MergeError, PreHashed,
};

fn version(bytes: &[u8]) -> u16 {
    u16::from_le_bytes([bytes[8], bytes[9]])
}

/// 1,024 times the first capacity, 8 times where the spare bits end: every
/// key goes in, the rate holds over absent keys, and after every other key
/// is removed the rest are all found and `len` is exact. A remove that took
/// its match from the oldest chain first (`--cfg
/// cuckoo_broken_chains_remove_oldest_first`) loses hundreds of them here;
/// a lookup of the current chain alone (`--cfg
/// cuckoo_broken_chains_lookup_newest_only`) misses most of the first
/// chain's.
#[test]
fn a_filter_without_a_maximum_grows_past_its_spare_bits() {
    let filter = unbounded(100);
    let keys = hashes(102_400, 1);
    for (k, &h) in keys.iter().enumerate() {
        if let Err(e) = filter.insert(&PreHashed(h)) {
            panic!("insert {k} of {}: {e}", keys.len());
        }
    }
    assert!(filter.can_grow());
    assert!(filter.max_capacity().unwrap() > 100 << 20);
    assert!(filter.capacity() >= keys.len());
    assert_eq!(filter.len(), keys.len());
    let missing = keys
        .iter()
        .filter(|&&h| !filter.contains(&PreHashed(h)))
        .count();
    assert_eq!(missing, 0, "of {} keys", keys.len());
    let absent = hashes(200_000, 2);
    let hits = absent
        .iter()
        .filter(|&&h| filter.contains(&PreHashed(h)))
        .count();
    let rate = hits as f64 / absent.len() as f64;
    assert!(rate <= 0.011, "false-positive rate {rate}");
    // Batches read the earlier chains apart from single lookups
    // (`State::older_contain_many`): the same answers, key by key.
    let batch = filter.contains_batch(keys.iter().chain(&absent).map(|&h| PreHashed(h)));
    assert!(batch[..keys.len()].iter().all(|&hit| hit), "a batch missed a key");
    let batch_hits = batch[keys.len()..].iter().filter(|&&hit| hit).count();
    assert_eq!(batch_hits, hits, "batches and single lookups disagree on absent keys");

    for &h in keys.iter().step_by(2) {
        assert!(filter.remove(&PreHashed(h)));
    }
    assert_eq!(filter.len(), keys.len() / 2);
    let lost = keys
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&h| !filter.contains(&PreHashed(h)))
        .count();
    assert_eq!(lost, 0, "kept keys not found after removing the others");
    assert!(keys
        .iter()
        .skip(1)
        .step_by(2)
        .all(|&h| filter.count(&PreHashed(h)) >= 1));
}

/// A filter with a maximum capacity still stops there, saved and loaded
/// too: with 7 spare bits (a maximum 65 to 128 times the capacity) format
/// version 5 could not tell it from one without, so it is written as 6.
#[test]
fn a_maximum_capacity_still_stops_growth_across_a_save() {
    let filter = CuckooFilter::builder()
        .capacity(100)
        .false_positive_rate(0.01)
        .growable(true)
        .max_capacity(100 << 7)
        .build()
        .unwrap();
    let bytes = filter.to_bytes();
    assert_eq!(version(&bytes), 6);
    let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.max_capacity(), Some(100 << 7));
    let refused = hashes(100_000, 3)
        .into_iter()
        .find_map(|h| loaded.insert(&PreHashed(h)).err());
    assert!(
        matches!(refused, Some(InsertError::MaxCapacity { max_capacity, .. }) if max_capacity == 100 << 7),
        "{refused:?}"
    );
    // One without a maximum saves as version 5 until it starts a chain.
    let grows = unbounded(100);
    assert_eq!(version(&grows.to_bytes()), 5);
}

/// Every way in and out of a filter with two chains: the bytes (version
/// 6: every chain's table), a load from bytes and from a stream, a view and
/// a clone all hold every key and answer absent keys alike; a merge is
/// refused, typed; a loaded filter keeps growing.
#[test]
fn a_chained_filter_saves_loads_views_clones_and_merges() {
    let filter = unbounded(100);
    let keys = hashes(30_000, 4);
    filter
        .insert_batch(keys.iter().map(|&h| PreHashed(h)))
        .unwrap();
    let bytes = filter.to_bytes();
    assert_eq!(version(&bytes), 6);
    assert_eq!(bytes[12], 1, "one chain before the current one");

    let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
    let read = CuckooFilter::load(&bytes[..], &LoadOptions::default())
        .map(|(f, _)| f)
        .unwrap();
    let view = FilterView::new(&bytes[..]).unwrap();
    let clone = filter.clone();
    for f in [&loaded, &read, &clone] {
        assert_eq!(f.len(), keys.len());
        assert_eq!(f.capacity(), filter.capacity());
        assert_eq!(f.max_capacity(), filter.max_capacity());
        assert!(keys.iter().all(|&h| f.contains(&PreHashed(h))));
    }
    assert_eq!(loaded.to_bytes(), bytes, "re-saved byte for byte");
    assert_eq!(view.len(), keys.len());
    assert!(keys.iter().all(|&h| view.contains(&PreHashed(h))));
    let mut found = vec![false; keys.len()];
    assert_eq!(
        view.contains_batch_into(keys.iter().map(|&h| PreHashed(h)), &mut found),
        Ok(keys.len())
    );
    for h in hashes(20_000, 5) {
        let here = filter.contains(&PreHashed(h));
        assert_eq!(view.contains(&PreHashed(h)), here);
        assert_eq!(loaded.contains(&PreHashed(h)), here);
        assert_eq!(view.count(&PreHashed(h)), filter.count(&PreHashed(h)));
    }

    // A filter past its spare bits does not merge, either way: the first
    // chain's items go to the first chain's table alone, which is full.
    let young = unbounded(100);
    young.insert(&PreHashed(1)).unwrap();
    for (a, b) in [(&filter, &young), (&young, &filter), (&filter, &clone)] {
        assert!(matches!(
            a.merge(b),
            Err(MergeError::Mismatch { what: "chains", .. })
        ));
    }
    assert_eq!(filter.len(), keys.len());
    assert_eq!(young.len(), 1);

    // A loaded filter keeps growing, and starts further chains.
    let more = hashes(200_000, 7);
    loaded
        .insert_batch(more.iter().map(|&h| PreHashed(h)))
        .unwrap();
    assert!(keys
        .iter()
        .chain(&more)
        .all(|&h| loaded.contains(&PreHashed(h))));
    let again = CuckooFilter::from_bytes(&loaded.to_bytes()).unwrap();
    assert_eq!(again.len(), keys.len() + more.len());
    assert!(more.iter().all(|&h| again.contains(&PreHashed(h))));
}

/// A version 6 header whose chain count or bound is not one a writer
/// makes is refused, typed, before anything is allocated.
#[test]
fn a_damaged_chain_header_is_refused() {
    let filter = unbounded(100);
    filter
        .insert_batch(hashes(30_000, 8).iter().map(|&h| PreHashed(h)))
        .unwrap();
    let bytes = filter.to_bytes();
    for (at, value) in [(12usize, 0x81u8), (12, 0x7f), (12, 9), (30, 4), (31, 12)] {
        let mut bad = bytes.clone();
        bad[at] = value;
        // Re-seal the header so only the field is wrong.
        let sum = xxhash_rust::xxh3::xxh3_64(&bad[..56]);
        bad[56..64].copy_from_slice(&sum.to_le_bytes());
        let err = CuckooFilter::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::InvalidConfiguration { .. } | DecodeError::Truncated { .. }
            ),
            "byte {at} = {value:#x}: {err}"
        );
    }
    // A chain count the table has room for but another one's: the
    // checksum (or the length) says so.
    let mut bad = bytes.clone();
    bad[12] = 2;
    let sum = xxhash_rust::xxh3::xxh3_64(&bad[..56]);
    bad[56..64].copy_from_slice(&sum.to_le_bytes());
    assert!(CuckooFilter::from_bytes(&bad).is_err());
}

/// Short keys crowd a pair without any key chosen to: every chain pairs an
/// item's buckets by the first chain's key alone, so with 4-bit keys and
/// 2-slot buckets an item's pair is one of 15 per bucket, and five random
/// items of one pair turn up within a few hundred thousand inserts. Such an
/// item goes into an earlier chain with room, or, from the last generation
/// of a chain, starts the next chain: an unbounded filter does not refuse
/// it. Each fill below was refused before (plain `u64` keys): the first at
/// insert 179,202, `Crowded` in the second chain; the second at 74,352,
/// `TooManyCopies` in the first chain's last generation. Run both ways at
/// once, by two writers, then every key is found, and found again after
/// every other one is removed.
#[test]
#[cfg_attr(miri, ignore = "300,000 inserts: hours under Miri")]
fn short_keys_crowding_a_pair_are_placed_not_refused() {
    let fills: [(u64, u64); 2] = [(0, 200_000), (4, 100_000)];
    let key = |salt: u64, i: u64| (i ^ salt << 40).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let short = || {
        CuckooFilter::builder()
            .capacity(1000)
            .bucket_size(2)
            .fingerprint_bits(4)
            .growable(true)
            .build()
            .unwrap()
    };
    let check = |filter: &CuckooFilter, salt: u64, n: u64| {
        let missing = (0..n).filter(|&i| !filter.contains(&key(salt, i))).count();
        assert_eq!(missing, 0, "of {n} keys (salt {salt})");
    };
    // One writer each.
    for (salt, n) in fills {
        let filter = short();
        for i in 0..n {
            if let Err(e) = filter.insert(&key(salt, i)) {
                panic!("salt {salt}, insert {i} of {n}: {e}");
            }
        }
        assert_eq!(filter.len(), n as usize);
        assert!(filter.statistics().tables >= 2);
        check(&filter, salt, n);
        for i in (0..n).step_by(2) {
            assert!(filter.remove(&key(salt, i)), "salt {salt}, remove {i}");
        }
        assert_eq!(filter.len(), n as usize / 2);
        let lost = (1..n)
            .step_by(2)
            .filter(|&i| !filter.contains(&key(salt, i)))
            .count();
        assert_eq!(lost, 0, "salt {salt}: kept keys lost to removes");
    }
    // Both fills into one filter at once.
    let filter = short();
    std::thread::scope(|s| {
        for (salt, n) in fills {
            let filter = &filter;
            s.spawn(move || {
                for i in 0..n {
                    if let Err(e) = filter.insert(&key(salt, i)) {
                        panic!("salt {salt}, insert {i} of {n}: {e}");
                    }
                }
            });
        }
    });
    assert_eq!(filter.len(), 300_000);
    for (salt, n) in fills {
        check(&filter, salt, n);
    }
}

/// `insert_unique` of an item an earlier chain holds adds nothing, as in a
/// filter of one chain: it used to check the current chain's pair only, and
/// stored a second copy of every such item (found by
/// tests/it/multiset.rs).
#[test]
fn unique_inserts_see_every_chain() {
    let filter = unbounded(100);
    let keys = hashes(102_400, 7);
    for &h in &keys {
        filter.insert(&PreHashed(h)).unwrap();
    }
    assert!(filter.statistics().tables >= 2, "a second chain");
    for &h in keys.iter().step_by(97) {
        let before = filter.count(&PreHashed(h));
        assert_eq!(filter.insert_unique(&PreHashed(h)), Ok(false));
        assert_eq!(filter.count(&PreHashed(h)), before);
    }
    assert_eq!(filter.len(), keys.len());
    let fresh = hashes(1000, 8);
    let added = fresh
        .iter()
        .filter(|&&h| filter.insert_unique(&PreHashed(h)) == Ok(true))
        .count();
    // Absent keys are added, but for the few the filter mistakes for present.
    assert!(added >= 980, "{added} of 1000 absent keys added");
    assert_eq!(filter.len(), keys.len() + added);
}
