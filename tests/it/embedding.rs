//! What a storage engine embedding the filter relies on: merge (a union,
//! refused across configurations, a clear state when out of room), byte
//! keys equal to their hashed form (one by one and in batches, owned and
//! viewed), copy counts, and `Clone` as an independent snapshot taken while
//! other threads write.

use cuckoo_nest::{CuckooFilter, FilterView, LoadOptions, MergeError, PreHashed, SaveOptions};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn keys(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("key:{i:08}").into_bytes()).collect()
}

#[test]
fn byte_keys_are_the_hashed_form_everywhere() {
    let filter = CuckooFilter::builder()
        .capacity(10_000)
        .seed(99)
        .build()
        .unwrap();
    let ks = keys(5000);
    let (first, second) = ks.split_at(2500);
    for k in first {
        filter.insert(k).unwrap();
    }
    filter.insert_batch(second).unwrap();
    for k in &ks {
        let h = filter.hash_item(k);
        assert!(filter.contains(k) && filter.contains(&PreHashed(h)));
        assert_eq!(filter.count(k), filter.count(&PreHashed(h)));
    }
    // `str` and `[u8]` hash differently through `Hash`; `*_bytes` does not
    // care which of them holds the bytes.
    assert!(filter.contains("key:00000001".as_bytes()));
    let probe: Vec<Vec<u8>> = (0..4000)
        .map(|i| format!("key:{:08}", i * 3).into_bytes())
        .collect();
    let hashes: Vec<u64> = probe.iter().map(|k| filter.hash_item(k)).collect();
    let (mut by_bytes, mut by_hash) = (vec![false; probe.len()], vec![false; probe.len()]);
    let n = filter.contains_batch_into(&probe, &mut by_bytes).unwrap();
    assert_eq!(
        n,
        filter
            .contains_batch_into(hashes.iter().map(|&h| PreHashed(h)), &mut by_hash)
            .unwrap()
    );
    assert_eq!(by_bytes, by_hash);
    let saved = filter.to_bytes();
    let view = FilterView::new(&saved).unwrap();
    let mut viewed = vec![false; probe.len()];
    assert_eq!(view.contains_batch_into(&probe, &mut viewed).unwrap(), n);
    assert_eq!(viewed, by_bytes);
    for k in &probe {
        assert_eq!(view.contains(k), filter.contains(k));
    }
    for k in first {
        assert!(filter.remove(k));
        assert_eq!(
            filter.count(k),
            0,
            "no collision expected among 5000 keys at 16 bits"
        );
    }
    assert_eq!(filter.len(), second.len());
}

#[test]
fn count_follows_inserts_and_removes() {
    for (b, f, semi) in [
        (4usize, 16u32, false),
        (2, 12, false),
        (4, 13, true),
        (8, 8, false),
    ] {
        let filter = CuckooFilter::builder()
            .capacity(1000)
            .bucket_size(b)
            .fingerprint_bits(f)
            .semi_sorted(semi)
            .build()
            .unwrap();
        for k in 0..300u32 {
            filter.insert(&k).unwrap();
        }
        // An item's two buckets hold 2b copies of its fingerprint, colliding
        // ones (another key's, same buckets and fingerprint) included.
        let most = 2 * b - filter.count("dup");
        for n in 1..=most {
            filter.insert("dup").unwrap();
            assert!(
                filter.count("dup") >= n,
                "{b}x{f}: {} < {n}",
                filter.count("dup")
            );
        }
        let base = filter.count("dup") - most; // colliding copies, if any
        for n in (0..most).rev() {
            assert!(filter.remove("dup"));
            assert_eq!(filter.count("dup"), base + n, "{b}x{f} semi {semi}");
        }
        assert!((0..300u32).all(|k| filter.count(&k) >= 1));
    }
}

/// A clone holds every item whose insert returned before the clone began,
/// while a writer keeps inserting; afterwards the two are independent.
#[test]
fn clone_is_a_consistent_independent_snapshot_under_writers() {
    let filter = CuckooFilter::builder().capacity(200_000).build().unwrap();
    let done = AtomicUsize::new(0);
    // Set once a clone began with the writer part way: the writer waits for
    // one halfway, so the test never runs with every clone before the first
    // insert or after the last (on a loaded host the writer could finish
    // before the first clone, and the test checked nothing).
    let cloned_midway = AtomicBool::new(false);
    let total = 150_000u64;
    let clones = std::thread::scope(|s| {
        s.spawn(|| {
            for k in 0..total {
                filter.insert(&k).unwrap();
                done.store(k as usize + 1, Ordering::Release);
                if k == total / 2 {
                    while !cloned_midway.load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                }
            }
        });
        let mut clones = Vec::new();
        loop {
            let before = done.load(Ordering::Acquire);
            let copy = filter.clone();
            clones.push((before, copy));
            if before == total as usize {
                break clones;
            }
            if before > 0 {
                cloned_midway.store(true, Ordering::Release);
            }
            std::thread::yield_now();
        }
    });
    assert!(clones.iter().any(|&(before, _)| before > 0 && before < total as usize));
    for (before, copy) in &clones {
        assert!(copy.len() >= *before);
        for k in 0..*before as u64 {
            assert!(
                copy.contains(&k),
                "{k} inserted before the clone is missing"
            );
        }
    }
    // Independent: writes to one are not seen by the other.
    let (_, copy) = clones.last().unwrap();
    let len = copy.len();
    copy.insert("only in the copy").unwrap();
    filter.insert("only in the original").unwrap();
    assert!(copy.contains("only in the copy") && !filter.contains("only in the copy"));
    assert!(!copy.contains("only in the original"));
    assert_eq!(copy.len(), len + 1);
    assert_eq!(filter.len(), total as usize + 1);
    assert_eq!(filter.clone(), filter);
}

fn filter(buckets: usize, b: usize, f: u32, semi: bool, seed: u64) -> CuckooFilter {
    CuckooFilter::builder()
        .buckets(buckets)
        .bucket_size(b)
        .fingerprint_bits(f)
        .semi_sorted(semi)
        .seed(seed)
        .build()
        .unwrap()
}

#[test]
fn merge_is_a_union_in_every_layout() {
    for (b, f, semi) in [
        (4usize, 16u32, false),
        (2, 12, false),
        (4, 13, true),
        (8, 8, false),
    ] {
        let (x, y) = (filter(4096, b, f, semi, 3), filter(4096, b, f, semi, 3));
        for k in 0..3000u64 {
            x.insert(&k).unwrap();
            y.insert(&(k + 1_000_000)).unwrap();
        }
        y.insert(&7u64).unwrap(); // in both: two copies after the merge
        x.merge(&y).unwrap();
        assert_eq!(x.len(), 6001, "{b}x{f} semi {semi}");
        assert!((0..3000u64).all(|k| x.contains(&k) && x.contains(&(k + 1_000_000))));
        assert!(x.count(&7u64) >= 2);
        assert_eq!(y.len(), 3001, "the other filter is unchanged");
    }
}

#[test]
fn merge_refuses_other_configurations_and_merges_nothing() {
    let base = filter(1024, 4, 16, false, 1);
    base.insert("mine").unwrap();
    let others = [
        (filter(1025, 4, 16, false, 1), "bucket count"),
        (filter(1024, 2, 16, false, 1), "bucket size"),
        (filter(1024, 4, 12, false, 1), "fingerprint width"),
        (filter(1024, 4, 16, false, 2), "hash seed"),
    ];
    for (other, want) in &others {
        other.insert("theirs").unwrap();
        match base.merge(other) {
            Err(MergeError::Mismatch { what, .. }) => assert_eq!(what, *want),
            r => panic!("{want}: {r:?}"),
        }
    }
    let (plain, semi) = (filter(1024, 4, 13, false, 1), filter(1024, 4, 13, true, 1));
    assert!(matches!(
        plain.merge(&semi),
        Err(MergeError::Mismatch { what: "layout", .. })
    ));
    assert_eq!(base.len(), 1);
    assert!(!base.contains("theirs"));
}

/// A merge into a filter that runs out of room: it stops with the count
/// merged, nothing held before is lost, and exactly that many copies came in.
#[test]
fn merge_out_of_room_keeps_everything_and_says_how_far_it_got() {
    let (small, big) = (filter(256, 4, 16, false, 5), filter(256, 4, 16, false, 5));
    for k in 0..800u64 {
        small.insert(&k).unwrap();
    }
    for k in 10_000..10_900u64 {
        big.insert(&k).unwrap();
    }
    let before = small.len();
    match small.merge(&big) {
        Err(MergeError::Full { merged, total, .. }) => {
            assert_eq!(total, 900);
            assert!(merged < total);
            assert_eq!(small.len(), before + merged);
        }
        r => panic!("expected Full, got {r:?}"),
    }
    assert!(
        (0..800u64).all(|k| small.contains(&k)),
        "an item held before the merge was lost"
    );
}

/// Both filters in use while merging: the merge holds everything the other
/// held before it began.
#[test]
fn merge_while_both_filters_take_writes() {
    let (into, from) = (
        filter(1 << 16, 4, 16, false, 8),
        filter(1 << 16, 4, 16, false, 8),
    );
    for k in 0..50_000u64 {
        from.insert(&k).unwrap();
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            for k in 100_000..120_000u64 {
                from.insert(&k).unwrap();
                into.insert(&(k + 1_000_000)).unwrap();
            }
        });
        into.merge(&from).unwrap();
    });
    assert!((0..50_000u64).all(|k| into.contains(&k)));
    assert!((100_000..120_000u64).all(|k| into.contains(&(k + 1_000_000))));
}

/// A view that owns its bytes (a `Vec`, an `Arc<[u8]>`) lives behind an
/// `Arc` next to the rest of a store's state and answers from any thread.
#[test]
fn owned_views_are_shared_across_threads() {
    let filter = CuckooFilter::with_capacity(10_000);
    for k in 0..5000u32 {
        filter.insert(&k).unwrap();
    }
    let saved = filter.to_bytes();
    let owned = std::sync::Arc::new(FilterView::new(saved.clone()).unwrap());
    let arc_bytes: std::sync::Arc<[u8]> = saved.into();
    let shared = std::sync::Arc::new(FilterView::new(arc_bytes).unwrap());
    let workers: Vec<_> = (0..4u32)
        .map(|t| {
            let (owned, shared) = (owned.clone(), shared.clone());
            std::thread::spawn(move || {
                for k in (t..5000).step_by(4) {
                    assert!(owned.contains(&k) && shared.contains(&k));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(owned.len(), 5000);
    assert_eq!(shared.size_in_bytes(), owned.size_in_bytes());
}

/// A crash-safe save: the file at the path is the old save or the new one,
/// never a torn mix, and a failed step leaves no temporary file behind.
/// The crash between writing and renaming is simulated by failing the
/// rename.
#[test]
fn save_to_path_leaves_the_old_file_or_the_new_one() {
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("filter.bin");
    let files = || std::fs::read_dir(&dir).unwrap().count();

    let filter = CuckooFilter::with_capacity(10_000);
    filter.insert("first").unwrap();
    // No file yet, and the rename fails: still no file, nothing left over.
    let e = filter
        .debug_save_to_path_failing_rename(&path, std::io::ErrorKind::Interrupted)
        .unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    assert!(!path.exists());
    assert_eq!(files(), 0, "a temporary file was left behind");

    filter.save_to_path(&path, &SaveOptions::default()).unwrap();
    let old = std::fs::read(&path).unwrap();
    assert_eq!(old, filter.to_bytes());

    // A second save whose rename fails: the first save is intact.
    filter.insert("second").unwrap();
    assert!(filter
        .debug_save_to_path_failing_rename(&path, std::io::ErrorKind::Other)
        .is_err());
    assert_eq!(std::fs::read(&path).unwrap(), old);
    assert_eq!(files(), 1);
    let loaded = CuckooFilter::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert!(loaded.contains("first") && !loaded.contains("second"));

    // And one that goes through replaces it whole.
    filter.save_to_path(&path, &SaveOptions::default()).unwrap();
    let loaded = CuckooFilter::load(std::fs::File::open(&path).unwrap(), &LoadOptions::default())
        .map(|(f, _)| f)
        .unwrap();
    assert!(loaded.contains("first") && loaded.contains("second"));
    assert_eq!(files(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Several saves to one path at once, from threads of one process: every
/// save succeeds, and a reader opening the path at any moment finds one
/// whole filter (each thread saves a filter of its own, so a torn file
/// would also show as a mix). A leftover temporary file under the old
/// naming scheme (what a dead process with this pid left) changes nothing.
/// Runs `CUCKOO_SAVE_RACE_SECS` seconds (default 1).
#[test]
fn concurrent_saves_to_one_path_never_tear_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let secs: f64 = std::env::var("CUCKOO_SAVE_RACE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("filter.bin");
    let leftover = dir.join(format!(".filter.bin.tmp-{}", std::process::id()));
    std::fs::write(&leftover, b"left by a crash").unwrap();

    let filters: Vec<CuckooFilter> = (0..3u64)
        .map(|t| {
            let f = CuckooFilter::with_capacity(20_000);
            for k in 0..10_000u64 {
                f.insert(&(t << 32 | k)).unwrap();
            }
            f
        })
        .collect();
    let wholes: Vec<Vec<u8>> = filters.iter().map(|f| f.to_bytes()).collect();
    filters[0]
        .save_to_path(&path, &SaveOptions::default())
        .unwrap();
    let stop = AtomicBool::new(false);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    let (saves, reads) = std::thread::scope(|s| {
        let savers: Vec<_> = filters
            .iter()
            .map(|f| {
                let (path, stop) = (&path, &stop);
                s.spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        f.save_to_path(path, &SaveOptions::default())
                            .unwrap_or_else(|e| panic!("save failed: {e}"));
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut reads = 0u64;
        while std::time::Instant::now() < deadline {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                wholes.contains(&bytes),
                "read {} bytes that are no whole save (read {reads})",
                bytes.len()
            );
            reads += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let saves: u64 = savers.into_iter().map(|h| h.join().unwrap()).sum();
        (saves, reads)
    });
    println!("{saves} saves and {reads} whole reads in {secs} s, none failed or torn");
    assert!(saves >= 3 && reads > 0);
    // Only the final file and the foreign leftover remain.
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [leftover.file_name().unwrap(), path.file_name().unwrap()]
    );
    assert_eq!(std::fs::read(&leftover).unwrap(), b"left by a crash");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A failed save's error names the path it was saving to.
#[test]
fn a_failed_save_names_its_path() {
    let path = std::env::temp_dir()
        .join(format!("cuckoo-nest-no-such-dir-{}", std::process::id()))
        .join("f.bin");
    let e = CuckooFilter::with_capacity(100)
        .save_to_path(&path, &SaveOptions::default())
        .unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
}

/// A merge adds a copy for each the other filter holds, so it can stop
/// far below full load: items held twice in 2-slot buckets, merged into
/// their own filter, need four slots of their two buckets each. The error
/// says so, whichever way the wrapped insert failed.
#[test]
fn a_merge_that_stops_below_full_load_says_why() {
    let filter = CuckooFilter::builder()
        .capacity(10_000)
        .bucket_size(2)
        .fingerprint_bits(16)
        .build()
        .unwrap();
    let n = filter.capacity() / 8;
    for k in 0..n as u64 {
        filter.insert(&k).unwrap();
        filter.insert(&k).unwrap();
    }
    let err = filter.merge(&filter.clone()).unwrap_err();
    assert!(matches!(err, MergeError::Full { .. }), "{err:?}");
    // About a fifth of the slots: far from the 0.85 this shape is sized for.
    assert!(filter.load_factor() < 0.5, "{}", filter.load_factor());
    let message = err.to_string();
    assert!(
        message.contains("a merge adds every copy the other filter holds")
            && message.contains("long before the table is full"),
        "{message}"
    );
}

/// `insert_unique_bytes` is `insert_unique_hash` on `hash_bytes`: one copy
/// however often it is called, atomic between threads, on fixed and
/// growable filters.
#[test]
fn insert_unique_bytes_stores_one_copy_per_key() {
    for growable in [false, true] {
        let filter = CuckooFilter::builder()
            .capacity(if growable { 1000 } else { 10_000 })
            .growable(growable)
            .build()
            .unwrap();
        let keys = keys(5000);
        let added: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        keys.iter()
                            .filter(|k| filter.insert_unique(k).unwrap())
                            .count()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(added, filter.len(), "growable {growable}");
        // Each key is in once, unless its fingerprint collided with another's.
        assert!(filter.len() > 4990, "{}", filter.len());
        assert!(keys.iter().all(|k| filter.contains(k)));
        for k in &keys[..100] {
            assert_eq!(filter.insert_unique(k), Ok(false));
            assert_eq!(
                filter.insert_unique(&PreHashed(filter.hash_item(k))),
                Ok(false)
            );
        }
        assert_eq!(filter.len(), added);
        if growable {
            assert!(filter.capacity() >= 5000, "grown");
        }
    }
}
