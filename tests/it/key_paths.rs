//! One key path (issue 42): a key reaches the same fingerprint and buckets
//! however it is passed. One 8-byte key is inserted through every way the
//! face accepts it (each `Key` type, `PreHashed`, the unique and batch
//! forms, slices and iterators) and looked up through every way (single and
//! batch, copy counts), in the filter and in a `FilterView`, before and
//! after saving and loading, then removed through every way: all found,
//! every removal finds its copy. The key `user:042` is also the integers
//! whose little-endian bytes those are, so the integer forms take part.
//!
//! And files saved before the `Key` trait (format versions 1 to 3, whose
//! generic methods hashed through `std::hash::Hash`) still find their keys
//! when looked up the way they were inserted: `tests/data/legacy-keys-*.cnf`
//! were written by cuckoo-nest at commit 4a3fee0 (before this change) with
//! the program quoted at `legacy_fill` below.

use cuckoo_nest::{
    ByHash, CuckooFilter, FilterView, LoadOptions, MergeError, PreHashed, ReadFilter, StableHasher,
};
use std::borrow::Cow;
use std::path::PathBuf;

/// The key: 8 bytes of ASCII, so it is a `str`, a `[u8; 8]` and a `u64`.
const KEY: [u8; 8] = *b"user:042";

fn text(k: &[u8; 8]) -> &str {
    std::str::from_utf8(k).unwrap()
}

type Insert = (&'static str, fn(&CuckooFilter, [u8; 8]));

/// Every way in. Each inserts one copy of `k`.
fn insert_ways() -> Vec<Insert> {
    vec![
        ("insert(&str)", |f, k| f.insert(text(&k)).unwrap()),
        ("insert(&&str)", |f, k| f.insert(&text(&k)).unwrap()),
        ("insert(&[u8])", |f, k| f.insert(&k[..]).unwrap()),
        ("insert(&[u8; 8])", |f, k| f.insert(&k).unwrap()),
        ("insert(&String)", |f, k| {
            f.insert(&text(&k).to_string()).unwrap()
        }),
        ("insert(&Vec<u8>)", |f, k| f.insert(&k.to_vec()).unwrap()),
        ("insert(&Box<str>)", |f, k| {
            f.insert(&Box::<str>::from(text(&k))).unwrap()
        }),
        ("insert(&Cow<[u8]>)", |f, k| {
            f.insert(&Cow::Borrowed(&k[..])).unwrap()
        }),
        ("insert(&u64)", |f, k| {
            f.insert(&u64::from_le_bytes(k)).unwrap()
        }),
        ("insert(&i64)", |f, k| {
            f.insert(&i64::from_le_bytes(k)).unwrap()
        }),
        ("insert(&usize)", |f, k| {
            f.insert(&(u64::from_le_bytes(k) as usize)).unwrap()
        }),
        ("insert_unique(&str)", |f, k| {
            assert_eq!(f.insert_unique(text(&k)), Ok(true))
        }),
        ("insert_unique(&u64)", |f, k| {
            assert_eq!(f.insert_unique(&u64::from_le_bytes(k)), Ok(true))
        }),
        ("insert(&PreHashed(hash_item(&str)))", |f, k| {
            f.insert(&PreHashed(f.hash_item(text(&k)))).unwrap()
        }),
        ("insert_unique(&PreHashed)", |f, k| {
            assert_eq!(f.insert_unique(&PreHashed(f.hash_item(&k))), Ok(true))
        }),
        ("insert(&PreHashed)", |f, k| {
            f.insert(&PreHashed(f.hash_item(&k))).unwrap()
        }),
        ("insert_batch(&[&str])", |f, k| {
            f.insert_batch(&[text(&k)]).unwrap()
        }),
        ("insert_batch(&[String])", |f, k| {
            f.insert_batch(&[text(&k).to_string()]).unwrap()
        }),
        ("insert_batch(&[&[u8]])", |f, k| {
            f.insert_batch(&[&k[..]]).unwrap()
        }),
        ("insert_batch(&[[u8; 8]])", |f, k| {
            f.insert_batch([k]).unwrap()
        }),
        ("insert_batch(&[Vec<u8>])", |f, k| {
            f.insert_batch(&[k.to_vec()]).unwrap()
        }),
        ("insert_batch(&[u64])", |f, k| {
            f.insert_batch([u64::from_le_bytes(k)]).unwrap()
        }),
        ("insert_batch(&[PreHashed])", |f, k| {
            f.insert_batch([PreHashed(f.hash_item(&k))]).unwrap()
        }),
        ("insert_batch(iterator of PreHashed)", |f, k| {
            let hashes = [f.hash_item(&k)];
            f.insert_batch(hashes.iter().map(|&h| PreHashed(h)))
                .unwrap()
        }),
        ("insert_batch(iterator of String)", |f, k| {
            f.insert_batch(std::iter::once(text(&k).to_string()))
                .unwrap()
        }),
    ]
}

/// Every way a filter or a view looks `k` up: (way, found).
fn lookups(f: &impl ReadFilter, k: [u8; 8]) -> Vec<(&'static str, bool)> {
    let s = text(&k);
    let n = u64::from_le_bytes(k);
    let batch = |found: &[bool; 1], r| r == Ok(1) && found[0];
    let mut out = vec![
        ("contains(&str)", f.contains(s)),
        ("contains(&&str)", f.contains(&s)),
        ("contains(&[u8])", f.contains(&k[..])),
        ("contains(&[u8; 8])", f.contains(&k)),
        ("contains(&String)", f.contains(&s.to_string())),
        ("contains(&Vec<u8>)", f.contains(&k.to_vec())),
        (
            "contains(&Box<[u8]>)",
            f.contains(&Box::<[u8]>::from(&k[..])),
        ),
        ("contains(&Cow<str>)", f.contains(&Cow::Borrowed(s))),
        ("contains(&u64)", f.contains(&n)),
        ("contains(&i64)", f.contains(&(n as i64))),
        ("contains(&isize)", f.contains(&(n as i64 as isize))),
        (
            "contains(&PreHashed(hash_item(&u64)))",
            f.contains(&PreHashed(f.hash_item(&n))),
        ),
        (
            "contains(&PreHashed)",
            f.contains(&PreHashed(f.hash_item(s.as_bytes()))),
        ),
        ("count(&str)", f.count(s) >= 1),
        ("count(&u64)", f.count(&n) >= 1),
        (
            "count(&PreHashed)",
            f.count(&PreHashed(f.hash_item(&k))) >= 1,
        ),
    ];
    let mut found = [false; 1];
    let r = f.contains_batch_into(&[s], &mut found);
    out.push(("contains_batch_into(&[&str])", batch(&found, r)));
    let r = f.contains_batch_into(&[&k[..]], &mut found);
    out.push(("contains_batch_into(&[&[u8]])", batch(&found, r)));
    let r = f.contains_batch_into([k], &mut found);
    out.push(("contains_batch_into(&[[u8; 8]])", batch(&found, r)));
    let r = f.contains_batch_into(&[s.to_string()], &mut found);
    out.push(("contains_batch_into(&[String])", batch(&found, r)));
    let r = f.contains_batch_into([n], &mut found);
    out.push(("contains_batch_into(&[u64])", batch(&found, r)));
    let r = f.contains_batch_into([PreHashed(f.hash_item(s))], &mut found);
    out.push(("contains_batch_into(&[PreHashed])", batch(&found, r)));
    let r = f.contains_batch_into(&[k.to_vec()], &mut found);
    out.push(("contains_batch_into(&[Vec<u8>])", batch(&found, r)));
    let hashes = [f.hash_item(&k)];
    let r = f.contains_batch_into(hashes.iter().map(|&h| PreHashed(h)), &mut found);
    out.push((
        "contains_batch_into(iterator of PreHashed)",
        batch(&found, r),
    ));
    out.push(("contains_batch([&str])", f.contains_batch([s]) == [true]));
    out.push((
        "contains_batch_into(&[u64])",
        f.contains_batch([n]) == [true],
    ));
    out.push((
        "contains_batch(iterator of String)",
        f.contains_batch(std::iter::once(s.to_string())) == [true],
    ));
    // Every way agrees on the hash itself, too.
    let h = f.hash_item(&k);
    out.push((
        "hash_item of every form is the same",
        [
            f.hash_item(s),
            f.hash_item(&k[..]),
            f.hash_item(&k),
            f.hash_item(&s.to_string()),
            f.hash_item(&k.to_vec()),
            f.hash_item(&n),
            f.hash_item(&(n as usize)),
            f.hash_item(&PreHashed(h)),
        ]
        .iter()
        .all(|&x| x == h),
    ));
    out
}

type Remove = (&'static str, fn(&CuckooFilter, [u8; 8]) -> bool);

/// Every way out: true if a copy was found and removed.
fn remove_ways() -> Vec<Remove> {
    vec![
        ("remove(&str)", |f, k| f.remove(text(&k))),
        ("remove(&[u8])", |f, k| f.remove(&k[..])),
        ("remove(&String)", |f, k| f.remove(&text(&k).to_string())),
        ("remove(&u64)", |f, k| f.remove(&u64::from_le_bytes(k))),
        ("remove(&PreHashed)", |f, k| {
            f.remove(&PreHashed(f.hash_item(&k)))
        }),
        ("remove_batch([&str])", |f, k| {
            f.remove_batch([text(&k)]) == [true]
        }),
        ("remove_batch(&[u64])", |f, k| {
            f.remove_batch([u64::from_le_bytes(k)]) == [true]
        }),
        ("remove_batch(&[[u8; 8]])", |f, k| {
            f.remove_batch([k]) == [true]
        }),
        ("remove_batch(PreHashed iterator)", |f, k| {
            let hashes = [f.hash_item(&k)];
            f.remove_batch(hashes.iter().map(|&h| PreHashed(h))) == [true]
        }),
    ]
}

fn assert_found(f: &impl ReadFilter, k: [u8; 8], how: &str) {
    let missed: Vec<&str> = lookups(f, k)
        .into_iter()
        .filter(|&(_, found)| !found)
        .map(|(way, _)| way)
        .collect();
    assert!(missed.is_empty(), "{how}: not found by {missed:?}");
}

fn filters() -> Vec<(&'static str, CuckooFilter)> {
    let fixed = CuckooFilter::builder()
        .capacity(100)
        .seed(42)
        .build()
        .unwrap();
    let growable = CuckooFilter::builder()
        .capacity(100)
        .growable(true)
        .seed(43)
        .build()
        .unwrap();
    vec![("fixed", fixed), ("growable", growable)]
}

#[test]
fn one_key_in_every_way_is_found_every_way_before_and_after_saving() {
    let mut checked = 0;
    for (kind, _) in filters() {
        for (put, insert) in insert_ways() {
            let filter = filters().into_iter().find(|(k, _)| *k == kind).unwrap().1;
            insert(&filter, KEY);
            assert_eq!(filter.len(), 1, "{kind}, {put}");
            let how = format!("{kind}, inserted by {put}");
            assert_found(&filter, KEY, &how);

            let bytes = filter.to_bytes();
            let with_meta = crate::common::saved_with(&filter, b"meta");
            let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
            let streamed = CuckooFilter::load(&with_meta[..], &LoadOptions::default())
                .map(|(f, _)| f)
                .unwrap();
            assert_found(
                &FilterView::new(&bytes[..]).unwrap(),
                KEY,
                &format!("{how}, view"),
            );
            assert_found(
                &FilterView::new_unverified(with_meta.clone()).unwrap(),
                KEY,
                &format!("{how}, view with metadata"),
            );
            assert_found(&loaded, KEY, &format!("{how}, loaded"));
            assert_found(&streamed, KEY, &format!("{how}, read_from"));
            assert_found(&filter.clone(), KEY, &format!("{how}, clone"));
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * insert_ways().len());
}

#[test]
fn one_key_in_every_way_is_removed_every_way_before_and_after_saving() {
    for (kind, _) in filters() {
        for (put, insert) in insert_ways() {
            for (take, remove) in remove_ways() {
                let filter = filters().into_iter().find(|(k, _)| *k == kind).unwrap().1;
                insert(&filter, KEY);
                let loaded = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
                for (when, f) in [("before saving", &filter), ("after loading", &loaded)] {
                    assert!(remove(f, KEY), "{kind}: {put}, then {take} {when}");
                    assert!(f.is_empty() && !f.contains(&KEY), "{kind}: {put}, {take}");
                }
            }
        }
    }
}

/// Many keys in one batch, each looked up every way, and many keys
/// inserted one by one found by one batch: the pipelined paths hash as
/// the single ones do.
#[test]
fn batches_of_many_keys_agree_with_single_lookups() {
    let fixed = CuckooFilter::with_capacity(1000);
    // Grows from 100 on the way.
    let growable = filters().remove(1).1;
    for (kind, filter) in [("fixed", fixed), ("growable", growable)] {
        let keys: Vec<String> = (0..500).map(|k| format!("user:{k:03}")).collect();
        let (strs, bytes) = keys.split_at(250);
        filter.insert_batch(strs).unwrap();
        filter.insert_batch(bytes).unwrap();
        let saved = filter.to_bytes();
        let view = FilterView::new(&saved[..]).unwrap();
        let as_bytes: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        let mut found = vec![false; keys.len()];
        assert_eq!(
            filter.contains_batch_into(&as_bytes, &mut found),
            Ok(500),
            "{kind}"
        );
        assert_eq!(
            view.contains_batch_into(&keys, &mut found),
            Ok(500),
            "{kind}"
        );
        assert_eq!(
            view.contains_batch_into(&as_bytes, &mut found),
            Ok(500),
            "{kind}"
        );
        for k in &keys {
            let k8: [u8; 8] = k.as_bytes().try_into().unwrap();
            assert_found(&filter, k8, &format!("{kind}, {k} of a batch"));
            assert_found(&view, k8, &format!("{kind}, {k} of a batch, view"));
        }
    }
}

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// The fixtures' writer (cuckoo-nest at 4a3fee0, before `Key`), for the
// record: each of `legacy-keys-v1.cnf` (capacity 1000, seed 11, saved
// with `to_bytes`), `legacy-keys-v2.cnf` (the same filter saved with
// `to_bytes_with_metadata(b"saved before the Key trait")`) and
// `legacy-keys-v3.cnf` (growable, capacity 200, seed 12, grown once, then
// `finish_growth`) was filled with:
//
//     for k in 0..40u32 {
//         f.insert(&format!("str:{k}")[..]).unwrap(); // str, std Hash
//         f.insert(&format!("string:{k}")).unwrap(); // String, std Hash
//         f.insert(format!("slice:{k}").as_bytes()).unwrap(); // [u8], std Hash
//         f.insert(&(u64::from(k) + 1_000)).unwrap(); // u64
//         f.insert(&(k + 5_000)).unwrap(); // u32
//         f.insert(format!("bytes:{k}").as_bytes()).unwrap();
//         f.insert(&PreHashed(0x5eed_0000_0000_0000 | u64::from(k))).unwrap();
//     }
//     f.insert_batch(&(0..40).map(|k| format!("batch:{k}")).collect::<Vec<_>>()).unwrap();
//     f.insert_batch(&(0..40).map(|k| format!("batch-bytes:{k}")).collect::<Vec<_>>()).unwrap();

/// A key the removed `insert_bytes` stored in a file of format version 1
/// to 3: its `StableHasher::hash_bytes` with the filter's seed (what
/// docs/format.md tells such files' users to pass).
fn legacy_bytes(f: &impl ReadFilter, key: &[u8]) -> PreHashed {
    PreHashed(StableHasher::hash_bytes(f.shape().seed, key))
}

/// Every key of the legacy fixtures, looked up the way it was inserted:
/// the names of the ways that missed.
fn legacy_missing(f: &impl ReadFilter) -> Vec<String> {
    let mut missed = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            missed.push(what);
        }
    };
    for k in 0..40u32 {
        check(f.contains(&format!("str:{k}")[..]), format!("str:{k}"));
        check(f.contains(&format!("string:{k}")), format!("string:{k}"));
        check(
            f.contains(format!("slice:{k}").as_bytes()),
            format!("slice:{k}"),
        );
        check(f.contains(&(u64::from(k) + 1_000)), format!("u64 {k}"));
        check(f.contains(&(k + 5_000)), format!("u32 {k}"));
        // The removed `*_bytes` methods hashed with `hash_bytes` in every
        // version: such keys are found as that hash.
        check(
            f.contains(&legacy_bytes(f, format!("bytes:{k}").as_bytes())),
            format!("bytes:{k}"),
        );
        check(
            f.contains(&PreHashed(0x5eed_0000_0000_0000 | u64::from(k))),
            format!("hash {k}"),
        );
        check(f.contains(&format!("batch:{k}")), format!("batch:{k}"));
        check(
            f.contains(&legacy_bytes(f, format!("batch-bytes:{k}").as_bytes())),
            format!("batch-bytes:{k}"),
        );
    }
    let batch: Vec<String> = (0..40).map(|k| format!("batch:{k}")).collect();
    let mut found = vec![false; 40];
    check(
        f.contains_batch_into(&batch, &mut found) == Ok(40),
        "contains_batch".into(),
    );
    let batch = (0..40).map(|k| legacy_bytes(f, format!("batch-bytes:{k}").as_bytes()));
    check(
        f.contains_batch(batch) == [true; 40],
        "contains_batch(legacy bytes)".into(),
    );
    missed
}

#[test]
fn files_saved_before_the_key_trait_still_find_their_keys() {
    for (name, version) in [
        ("legacy-keys-v1.cnf", 1u16),
        ("legacy-keys-v2.cnf", 2),
        ("legacy-keys-v3.cnf", 3),
    ] {
        let bytes = data(name);
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), version, "{name}");
        let filter = CuckooFilter::from_bytes(&bytes).unwrap();
        assert_eq!(filter.len(), 9 * 40, "{name}");
        assert_eq!(filter.max_capacity().is_some(), version == 3, "{name}");
        let streamed = CuckooFilter::load(&bytes[..], &LoadOptions::default())
            .map(|(f, _)| f)
            .unwrap();
        let view = FilterView::new(&bytes[..]).unwrap();
        assert_eq!(legacy_missing(&filter), Vec::<String>::new(), "{name}");
        assert_eq!(
            legacy_missing(&streamed),
            Vec::<String>::new(),
            "{name}, read_from"
        );
        assert_eq!(legacy_missing(&view), Vec::<String>::new(), "{name}, view");
        // A loaded filter keeps its encoding: it saves to the same bytes
        // (the same version), and so does its clone.
        let metadata = view.metadata().to_vec();
        let resaved = if metadata.is_empty() {
            filter.to_bytes()
        } else {
            crate::common::saved_with(&filter, &metadata)
        };
        assert_eq!(resaved, bytes, "{name}: re-saved");
        assert_eq!(filter.clone(), filter);

        // Keys inserted after loading hash as the file's did, and
        // survive a save and load of their own.
        for k in 0..20u64 {
            filter.insert(&format!("later:{k}")).unwrap();
            filter.insert(&(k + 9_000)).unwrap();
        }
        let again = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
        // Saved without metadata: version 1 if fixed, 3 if growable.
        let expected = if version == 3 { 3 } else { 1 };
        assert_eq!(again.to_bytes()[8], expected, "{name}");
        for f in [&filter, &again] {
            assert_eq!(legacy_missing(f), Vec::<String>::new(), "{name}, later");
            assert!(
                (0..20u64).all(|k| f.contains(&format!("later:{k}")) && f.contains(&(k + 9_000)))
            );
        }
    }
    // The v1 file, saved with v2's metadata, is the v2 file.
    let v1 = CuckooFilter::from_bytes(&data("legacy-keys-v1.cnf")).unwrap();
    assert_eq!(
        crate::common::saved_with(&v1, b"saved before the Key trait"),
        data("legacy-keys-v2.cnf")
    );
}

#[test]
fn filters_of_the_two_key_hashes_do_not_merge_or_compare_equal() {
    let old = CuckooFilter::from_bytes(&data("legacy-keys-v1.cnf")).unwrap();
    let new = CuckooFilter::builder()
        .capacity(1000)
        .seed(11)
        .build()
        .unwrap();
    assert_eq!(old.shape().bucket_size, new.shape().bucket_size);
    assert_eq!(old.shape().buckets, new.shape().buckets);
    assert!(matches!(
        new.merge(&old),
        Err(MergeError::Mismatch {
            what: "key hash",
            ours: 2,
            theirs: 0
        })
    ));
    assert!(new.is_empty());
    // Emptied, the old one still differs: its keys hash another way.
    old.clear();
    assert_ne!(old, new);
    // Two of the same key hash merge.
    let twin = CuckooFilter::from_bytes(&data("legacy-keys-v1.cnf")).unwrap();
    old.merge(&twin).unwrap();
    assert_eq!(legacy_missing(&old), Vec::<String>::new());
}

// The version 4 fixtures' writer (cuckoo-nest at 07276ed, before format
// version 5's key hash), for the record: `byte-keys-v4.cnf` (capacity
// 1000, seed 11) and `byte-keys-v4-growable.cnf` (growable, capacity 200,
// seed 12, grown once, then `finish_growth`), each saved with `to_bytes`
// after `v4_fill`, which is that program's fill.

/// The keys of the version 4 fixtures: byte strings of 5 to 64 bytes,
/// integers, pre-hashed keys and a batch.
fn v4_keys(k: u32) -> (String, String, Vec<u8>, [Vec<u8>; 3]) {
    (
        format!("str:{k}"),
        format!("string:{k}"),
        format!("slice:{k}").into_bytes(),
        [16, 32, 64].map(|w| format!("{k:0>w$}").into_bytes()),
    )
}

fn v4_fill(f: &CuckooFilter) {
    for k in 0..40u32 {
        let (s, string, slice, wide) = v4_keys(k);
        f.insert(&s[..]).unwrap();
        f.insert(&string).unwrap();
        f.insert(&slice[..]).unwrap();
        f.insert(&(u64::from(k) + 1_000)).unwrap();
        f.insert(&(k + 5_000)).unwrap();
        for w in &wide {
            f.insert(w).unwrap();
        }
        f.insert(&PreHashed(0x5eed_0000_0000_0000 | u64::from(k)))
            .unwrap();
    }
    f.insert_batch((0..40).map(|k| format!("batch:{k}")))
        .unwrap();
}

/// The version 4 fixtures' keys a filter misses, looked up the way they
/// were inserted, one by one and in batches.
fn v4_missing(f: &impl ReadFilter) -> Vec<String> {
    let mut missed = Vec::new();
    for k in 0..40u32 {
        let (s, string, slice, wide) = v4_keys(k);
        let found = [
            f.contains(&s[..]),
            f.contains(&string),
            f.contains(&slice[..]),
            f.contains(&(u64::from(k) + 1_000)),
            f.contains(&(k + 5_000)),
            f.contains(&wide[0]),
            f.contains(&wide[1]),
            f.contains(&wide[2]),
            f.contains(&PreHashed(0x5eed_0000_0000_0000 | u64::from(k))),
            f.contains(&format!("batch:{k}")),
        ];
        missed.extend(
            found
                .iter()
                .enumerate()
                .filter(|(_, ok)| !**ok)
                .map(|(i, _)| format!("key {i} of {k}")),
        );
    }
    let wide: Vec<Vec<u8>> = (0..40).map(|k| v4_keys(k).3[1].clone()).collect();
    let mut found = vec![false; 40];
    if f.contains_batch_into(&wide, &mut found) != Ok(40) {
        missed.push("contains_batch of 32-byte keys".into());
    }
    missed
}

/// Files of format version 4 (keys hashed as bytes 8 at a time, before
/// version 5's lanes) keep that hash: their keys are found, keys added
/// after loading too, and they save back as version 4, byte for byte.
#[test]
fn files_of_version_4_keep_their_byte_hash() {
    for (name, growable) in [
        ("byte-keys-v4.cnf", false),
        ("byte-keys-v4-growable.cnf", true),
    ] {
        let bytes = data(name);
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 4, "{name}");
        let filter = CuckooFilter::from_bytes(&bytes).unwrap();
        assert_eq!(
            (filter.len(), filter.max_capacity().is_some()),
            (400, growable)
        );
        let streamed = CuckooFilter::load(&bytes[..], &LoadOptions::default())
            .map(|(f, _)| f)
            .unwrap();
        let view = FilterView::new(&bytes[..]).unwrap();
        for (how, missing) in [
            ("from_bytes", v4_missing(&filter)),
            ("read_from", v4_missing(&streamed)),
            ("view", v4_missing(&view)),
        ] {
            assert_eq!(missing, Vec::<String>::new(), "{name}, {how}");
        }
        assert_eq!(filter.to_bytes(), bytes, "{name}: re-saved");
        // Its generic methods hash with version 4's byte hash.
        let seed = filter.shape().seed;
        assert_eq!(
            filter.hash_item("k"),
            cuckoo_nest::StableHasher::hash_bytes(seed, b"k")
        );
        assert_ne!(
            filter.hash_item("k"),
            cuckoo_nest::StableHasher::hash_key_bytes(seed, b"k")
        );
        // Keys added after loading hash as the file's did and survive a
        // save (still version 4) and load of their own.
        for k in 0..20u64 {
            filter.insert(&format!("later:{k}")).unwrap();
            filter.insert(&[k as u8; 32]).unwrap();
        }
        let resaved = filter.to_bytes();
        assert_eq!(u16::from_le_bytes([resaved[8], resaved[9]]), 4);
        let again = CuckooFilter::from_bytes(&resaved).unwrap();
        for f in [&filter, &again] {
            assert_eq!(v4_missing(f), Vec::<String>::new(), "{name}, later");
            assert!(
                (0..20u64).all(|k| f.contains(&format!("later:{k}")) && f.contains(&[k as u8; 32]))
            );
        }
    }
    // A filter built today merges with neither, nor compares equal.
    let v4 = CuckooFilter::from_bytes(&data("byte-keys-v4.cnf")).unwrap();
    let today = CuckooFilter::builder()
        .capacity(1000)
        .seed(11)
        .build()
        .unwrap();
    assert_eq!(today.shape().buckets, v4.shape().buckets);
    assert!(matches!(
        today.merge(&v4),
        Err(MergeError::Mismatch {
            what: "key hash",
            ours: 2,
            theirs: 1
        })
    ));
    v4.clear();
    assert_ne!(v4, today);
    // The report's version 4 filter (a test hook) is the fixture's writer:
    // the same fill gives the fixture, byte for byte.
    let hooked = today.debug_with_v4_key_hash();
    v4_fill(&hooked);
    assert_eq!(hooked.to_bytes(), data("byte-keys-v4.cnf"));
    // And the same fill in a filter of today is found, saved as version 5.
    v4_fill(&today);
    let bytes = today.to_bytes();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 5);
    let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(v4_missing(&loaded), Vec::<String>::new());
}

/// `ByHash` is the other encoding, on purpose: the key through its `Hash`
/// impl, the same in every filter (old or new), never the bytes' hash.
#[test]
fn by_hash_keys_are_found_by_hash_only() {
    let (_, filter) = filters().remove(0);
    filter.insert(&ByHash(("user", 42u32))).unwrap();
    let bytes = filter.to_bytes();
    let view = FilterView::new(&bytes[..]).unwrap();
    assert!(filter.contains(&ByHash(("user", 42u32))));
    assert!(filter.contains(&ByHash(&("user", 42u32))));
    assert!(view.contains(&ByHash(("user", 42u32))));
    let mut found = [false];
    assert_eq!(
        view.contains_batch_into(&[ByHash(("user", 42u32))], &mut found),
        Ok(1)
    );
    let old = CuckooFilter::from_bytes(&data("legacy-keys-v1.cnf")).unwrap();
    assert_eq!(
        old.hash_item(&ByHash("str:1")),
        old.hash_item("str:1"),
        "in an old file, ByHash is how every generic key was hashed"
    );
    assert!(old.contains(&ByHash("str:1")));
}
