//! Saving and loading: round trips for every shape, the view's answers
//! against the owned filter's (aligned and unaligned bytes), the streaming
//! API, the typed errors, and snapshots taken while other threads write.

use cuckoo_nest::{CuckooFilter, DecodeError, FilterView, LoadOptions, PreHashed, SaveOptions};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Every shape family: fixed widths, packed widths with and without a
/// table type of their own, semi-sorted, each bucket size.
fn shapes() -> Vec<(usize, u32, bool)> {
    let mut v = Vec::new();
    for b in [2usize, 4, 8] {
        for f in [4u32, 7, 8, 12, 13, 16, 19, 32] {
            v.push((b, f, false));
        }
    }
    for f in [5u32, 9, 13, 16, 17, 24, 32] {
        v.push((4, f, true));
    }
    v
}

fn build(b: usize, f: u32, semi: bool, capacity: usize, seed: u64) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(b)
        .fingerprint_bits(f)
        .semi_sorted(semi)
        .seed(seed)
        .build()
        .unwrap()
}

/// Fills to about 80% of capacity with keys 0.., removes every 7th.
fn fill(filter: &CuckooFilter) -> u64 {
    let n = (filter.capacity() as u64 * 4) / 5;
    for k in 0..n {
        filter.insert(&k).unwrap();
    }
    for k in (0..n).step_by(7) {
        assert!(filter.remove(&k));
    }
    n
}

/// The bytes at an odd address (so the view takes its unaligned path).
fn misaligned(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut v = vec![0u8; bytes.len() + 8];
    let at = (1..8)
        .find(|&o| !(v.as_ptr() as usize + o + 64).is_multiple_of(8))
        .unwrap();
    v[at..at + bytes.len()].copy_from_slice(bytes);
    (v, at)
}

#[test]
fn round_trip_answers_exactly_as_the_original_in_every_shape() {
    for (b, f, semi) in shapes() {
        let filter = build(b, f, semi, 3000, 0x5eed ^ f as u64);
        let n = fill(&filter);
        let bytes = filter.to_bytes();
        let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
        let view = FilterView::new(&bytes[..]).unwrap();
        assert!(view.is_aligned(), "a Vec's table is 8-byte aligned");
        let (moved, at) = misaligned(&bytes);
        let unaligned = FilterView::new(&moved[at..at + bytes.len()]).unwrap();
        assert!(!unaligned.is_aligned());
        let what = format!("b={b} f={f} semi={semi}");
        {
            let fl = &loaded;
            assert_eq!(fl.len(), filter.len(), "{what}");
            assert_eq!(fl.shape().buckets, filter.shape().buckets, "{what}");
            assert_eq!(fl.capacity(), filter.capacity(), "{what}");
            assert_eq!(fl.shape().seed, filter.shape().seed, "{what}");
            assert_eq!(fl.shape().semi_sorted, semi, "{what}");
        }
        assert_eq!(view.len(), filter.len(), "{what}");
        assert_eq!(view.shape().buckets, filter.shape().buckets, "{what}");
        assert_eq!(view.shape().bucket_size, b, "{what}");
        assert_eq!(view.shape().fingerprint_bits, f, "{what}");
        assert_eq!(view.shape().semi_sorted, semi, "{what}");
        assert_eq!(view.capacity(), filter.capacity(), "{what}");
        assert_eq!(view.load_factor(), filter.load_factor(), "{what}");
        assert_eq!(
            view.expected_false_positive_rate(),
            filter.expected_false_positive_rate(),
            "{what}"
        );
        let keys: Vec<u64> = (0..n + 20_000).collect();
        let hashes: Vec<u64> = keys.iter().map(|k| filter.hash_item(k)).collect();
        let mut want = vec![false; keys.len()];
        filter.contains_batch_into(&keys, &mut want).unwrap();
        for (k, &w) in keys.iter().zip(&want) {
            assert_eq!(filter.contains(k), w);
            assert_eq!(loaded.contains(k), w, "{what} key {k}");
            assert_eq!(view.contains(k), w, "{what} key {k}");
            assert_eq!(unaligned.contains(k), w, "{what} key {k}");
        }
        for k in 0..n {
            assert_eq!(view.contains(&k), k % 7 != 0 || want[k as usize], "{what}");
        }
        let mut got = vec![false; keys.len()];
        for v in [&view, &unaligned] {
            got.fill(false);
            v.contains_batch_into(&keys, &mut got).unwrap();
            assert_eq!(got, want, "{what}");
            got.fill(false);
            v.contains_batch_into(hashes.iter().map(|&h| PreHashed(h)), &mut got)
                .unwrap();
            assert_eq!(got, want, "{what}");
        }
        // The loaded copy saves to the same bytes, and takes writes.
        assert_eq!(loaded.to_bytes(), bytes, "{what}");
        for k in (0..n).step_by(7) {
            loaded.insert(&k).unwrap();
        }
        for k in 0..n {
            assert!(loaded.contains(&k), "{what}");
        }
        for k in 0..n / 2 {
            assert!(loaded.remove(&k), "{what}");
        }
        assert_eq!(loaded.len() as u64, n - n / 2, "{what}");
    }
}

#[test]
fn write_to_and_read_from_are_the_same_bytes() {
    let filter = build(4, 13, true, 5000, 9);
    fill(&filter);
    let bytes = filter.to_bytes();
    let mut streamed = Vec::new();
    filter.save(&mut streamed, &SaveOptions::default()).unwrap();
    assert_eq!(streamed, bytes);
    // read_from reads exactly the filter, leaving what follows.
    let mut stream = bytes.clone();
    stream.extend_from_slice(b"trailer");
    let mut cursor = std::io::Cursor::new(&stream);
    let loaded = CuckooFilter::load(&mut cursor, &LoadOptions::default())
        .map(|(f, _)| f)
        .unwrap();
    assert_eq!(cursor.position() as usize, bytes.len());
    assert_eq!(loaded.to_bytes(), bytes);
    // A truncated stream.
    let err = CuckooFilter::load(&bytes[..bytes.len() - 1], &LoadOptions::default())
        .map(|(f, _)| f)
        .unwrap_err();
    assert!(matches!(err, DecodeError::Truncated { .. }), "{err}");
}

#[test]
fn empty_and_tiny_filters_round_trip() {
    for buckets in [1usize, 2, 3, 17] {
        let filter = CuckooFilter::builder().buckets(buckets).build().unwrap();
        let bytes = filter.to_bytes();
        // 4 x 16-bit buckets: 64 bits each, in whole 64-byte lines.
        assert_eq!(bytes.len(), 64 + (buckets * 64).div_ceil(512) * 64);
        let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
        assert!(loaded.is_empty());
        loaded.insert(&1u8).unwrap();
        assert!(loaded.contains(&1u8));
        assert!(FilterView::new(&bytes).unwrap().is_empty());
    }
}

#[test]
fn hash_bytes_keys_answer_the_same_after_loading() {
    let filter = build(4, 16, false, 1000, 77);
    for k in 0..500u32 {
        filter
            .insert(&PreHashed(filter.hash_item(format!("key-{k}").as_bytes())))
            .unwrap();
    }
    let bytes = filter.to_bytes();
    let view = FilterView::new(&bytes).unwrap();
    for k in 0..500u32 {
        let key = format!("key-{k}");
        assert!(view.contains(&PreHashed(view.hash_item(key.as_bytes()))));
        assert_eq!(
            view.hash_item(key.as_bytes()),
            filter.hash_item(key.as_bytes())
        );
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let filter = build(4, 12, false, 1000, 1);
    fill(&filter);
    let bytes = filter.to_bytes();
    let check = |b: &[u8], want: &str| {
        let e = CuckooFilter::from_bytes(b).unwrap_err();
        let v = FilterView::new(b).unwrap_err();
        assert_eq!(e.to_string(), v.to_string());
        assert!(e.to_string().contains(want), "{e} lacks {want:?}");
        let _: &dyn std::error::Error = &e;
        e
    };
    assert!(matches!(
        check(b"hello world, not a filter", "not a saved"),
        DecodeError::NotAFilter
    ));
    assert!(matches!(
        check(&bytes[..40], "truncated"),
        DecodeError::Truncated {
            expected: 64,
            actual: 40
        }
    ));
    assert!(matches!(
        check(&bytes[..bytes.len() - 8], "truncated"),
        DecodeError::Truncated { .. }
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        check(&longer, "size mismatch"),
        DecodeError::SizeMismatch { .. }
    ));
    let mut future = bytes.clone();
    future[8] = 7;
    assert!(matches!(
        check(&future, "unsupported format version 7"),
        DecodeError::UnsupportedVersion {
            version: 7,
            supported: 6
        }
    ));
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(matches!(
        check(&flipped, "table checksum mismatch"),
        DecodeError::ChecksumMismatch { part: "table", .. }
    ));
    // The unverified view accepts a damaged table (its header is fine).
    assert!(FilterView::new_unverified(&flipped).is_ok());
    let mut header = bytes.clone();
    header[20] ^= 1;
    assert!(matches!(
        check(&header, "header checksum mismatch"),
        DecodeError::ChecksumMismatch { part: "header", .. }
    ));
    assert!(FilterView::new_unverified(&header).is_err());
}

/// Rewrites header fields and fixes the header checksum, as a buggy or
/// hostile writer would.
fn with_header(bytes: &[u8], edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut b = bytes.to_vec();
    edit(&mut b[..64]);
    let sum = xxh3(&b[..56]);
    b[56..64].copy_from_slice(&sum.to_le_bytes());
    b
}

fn xxh3(b: &[u8]) -> u64 {
    // The format's checksum, through the public API: a header whose
    // checksum we fix by asking the decoder what it computed.
    match FilterView::new_unverified(&[&b[..56], &[0u8; 8][..]].concat()) {
        Err(DecodeError::ChecksumMismatch { computed, .. }) => computed,
        Ok(_) => 0,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn headers_with_valid_checksums_but_bad_configurations_are_refused() {
    // A filter saved today (version 5), one whose keys were hashed as
    // bytes 8 at a time (version 4), and one saved before keys were hashed
    // as bytes (version 1, a golden file of the same shape).
    let filter = build(4, 12, false, 1000, 1);
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (bytes, version) in [
        (filter.to_bytes(), 5),
        (std::fs::read(data.join("byte-keys-v4.cnf")).unwrap(), 4),
        (std::fs::read(data.join("b4-f12-packed.cnf")).unwrap(), 1),
    ] {
        assert_eq!(bytes[8], version);
        bad_configurations_are_refused(&bytes, version);
    }
}

fn bad_configurations_are_refused(bytes: &[u8], version: u8) {
    let hash_9 = format!("hash algorithm 9 in a version {version} header");
    type Edit = Box<dyn Fn(&mut [u8])>;
    let mut cases: Vec<(&str, Edit)> = vec![
        ("bucket size 3", Box::new(|h| h[10] = 3)),
        ("fingerprint width 33", Box::new(|h| h[11] = 33)),
        ("fingerprint width 3", Box::new(|h| h[11] = 3)),
        (
            "semi-sorted buckets hold 4 fingerprints, not 2",
            Box::new(|h| {
                h[10] = 2;
                h[12] = 1
            }),
        ),
        ("unknown flags", Box::new(|h| h[12] = 4)),
        (&hash_9, Box::new(|h| h[13] = 9)),
        (
            "0 buckets",
            Box::new(|h| h[24..32].copy_from_slice(&0u64.to_le_bytes())),
        ),
        (
            "items in",
            Box::new(|h| h[32..40].copy_from_slice(&u64::MAX.to_le_bytes())),
        ),
    ];
    if version == 1 {
        // Bytes 14..16 are version 2's metadata length: reserved in 1.
        cases.push(("reserved", Box::new(|h| h[15] = 1)));
        cases.push((
            "hash algorithm 3 in a version 1 header",
            Box::new(|h| h[13] = 3),
        ));
    } else if version == 4 {
        // Version 4 keys are hashed as bytes: algorithms 3 and 4 only.
        cases.push((
            "hash algorithm 1 in a version 4 header",
            Box::new(|h| h[13] = 1),
        ));
        cases.push((
            "hash algorithm 5 in a version 4 header",
            Box::new(|h| h[13] = 5),
        ));
    } else {
        // Version 5 keys are hashed as bytes in lanes: algorithms 5 and 6.
        cases.push((
            "hash algorithm 3 in a version 5 header",
            Box::new(|h| h[13] = 3),
        ));
    }
    for (want, edit) in cases {
        let b = with_header(bytes, edit);
        let e = CuckooFilter::from_bytes(&b).unwrap_err();
        assert!(
            matches!(e, DecodeError::InvalidConfiguration { .. }),
            "{want}: {e}"
        );
        assert!(e.to_string().contains(want), "{e} lacks {want:?}");
    }
    // A header claiming a huge table: refused by length, nothing allocated.
    for buckets in [1u64 << 40, 1 << 48, (1 << 48) + 1, u64::MAX] {
        let b = with_header(bytes, |h| h[24..32].copy_from_slice(&buckets.to_le_bytes()));
        let e = CuckooFilter::from_bytes(&b).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::Truncated { .. } | DecodeError::InvalidConfiguration { .. }
            ),
            "{e}"
        );
        let e = CuckooFilter::load(&b[..], &LoadOptions::default())
            .map(|(f, _)| f)
            .unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::Truncated { .. } | DecodeError::InvalidConfiguration { .. }
            ),
            "{e}"
        );
    }
}

/// The snapshot guarantee: writers insert (and some remove what they
/// inserted) while another thread saves; every item whose insert returned
/// before `to_bytes` began, and that was not removed, is in the loaded copy.
#[test]
fn snapshots_under_load_hold_every_completed_insert() {
    let filter = Arc::new(build(4, 16, false, 400_000, 3));
    let writers = 3u64;
    // Per writer: how many of its keys (0..) have returned from insert.
    let done: Arc<Vec<AtomicU64>> = Arc::new((0..writers).map(|_| AtomicU64::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let key = |w: u64, i: u64| (w << 40) | i;
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let (filter, done, stop) = (filter.clone(), done.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) && i < 100_000 {
                    filter.insert(&key(w, i)).unwrap();
                    // Removed keys: odd multiples of 1000 are inserted twice
                    // and removed once, so one copy must stay.
                    if i % 2000 == 1000 {
                        filter.insert(&key(w, i)).unwrap();
                        assert!(filter.remove(&key(w, i)));
                    }
                    done[w as usize].store(i + 1, Ordering::Release);
                    i += 1;
                }
            })
        })
        .collect();
    let mut snapshots = 0;
    while done.iter().any(|d| d.load(Ordering::Relaxed) < 100_000) && snapshots < 200 {
        let before: Vec<u64> = done.iter().map(|d| d.load(Ordering::Acquire)).collect();
        let bytes = filter.to_bytes();
        let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
        let view = FilterView::new(&bytes).unwrap();
        for (w, &n) in before.iter().enumerate() {
            for i in 0..n {
                assert!(
                    loaded.contains(&key(w as u64, i)),
                    "writer {w} key {i} of {n}"
                );
                assert!(
                    view.contains(&key(w as u64, i)),
                    "writer {w} key {i} of {n}"
                );
            }
        }
        assert!(loaded.len() as u64 >= before.iter().sum::<u64>());
        snapshots += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().unwrap();
    }
    assert!(snapshots > 0);
}

/// The caller's metadata (format version 2, and 4 and 5): read back every
/// way without the table, its own checksum, its limits. A filter built
/// today is written as version 5 with or without metadata; one loaded from a
/// version 1 file as version 1 without and 2 with (tests/it/golden.rs and
/// tests/it/key_paths.rs check that byte for byte).
#[test]
fn metadata_round_trips_and_is_checked() {
    use cuckoo_nest::{MetadataTooLong, MAX_METADATA};
    let filter = CuckooFilter::with_capacity(5000);
    for k in 0..3000u32 {
        filter.insert(&k).unwrap();
    }
    assert_eq!(
        u16::from_le_bytes([filter.to_bytes()[8], filter.to_bytes()[9]]),
        5
    );
    for meta in [
        &b"x"[..],
        b"commit 0123456789abcdef",
        &[7u8; 56],
        &[9u8; 57],
        &[1u8; MAX_METADATA],
    ] {
        let bytes = crate::common::saved_with(&filter, meta);
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 5);
        // The table stays 64-byte aligned in the file.
        assert_eq!((bytes.len() - 64) % 64, 0);
        assert_eq!(CuckooFilter::read_metadata(&bytes).unwrap(), meta);
        let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
        let (streamed, got) = CuckooFilter::load(&bytes[..], &LoadOptions::default()).unwrap();
        assert_eq!(got, meta);
        let view = FilterView::new(&bytes[..]).unwrap();
        let unverified = FilterView::new_unverified(&bytes[..]).unwrap();
        assert_eq!(view.metadata(), meta);
        assert_eq!(unverified.metadata(), meta);
        assert!(view.is_aligned() || !(bytes.as_ptr() as usize).is_multiple_of(8));
        for k in 0..3000u32 {
            assert!(loaded.contains(&k) && streamed.contains(&k) && view.contains(&k));
        }
        assert_eq!(loaded, filter);
        // Re-saved with the same metadata: the same bytes.
        assert_eq!(crate::common::saved_with(&loaded, meta), bytes);
        let mut written = Vec::new();
        filter
            .save(
                &mut written,
                &SaveOptions::default()
                    .metadata(meta)
                    .expect("metadata fits"),
            )
            .unwrap();
        assert_eq!(written, bytes);

        // A changed metadata byte: its checksum says so, every way in.
        let mut bad = bytes.clone();
        bad[72] ^= 1;
        for e in [
            CuckooFilter::read_metadata(&bad).unwrap_err(),
            CuckooFilter::from_bytes(&bad).unwrap_err(),
            CuckooFilter::load(&bad[..], &LoadOptions::default())
                .map(|(f, _)| f)
                .unwrap_err(),
            FilterView::new_unverified(&bad[..]).unwrap_err(),
        ] {
            assert!(
                matches!(
                    e,
                    DecodeError::ChecksumMismatch {
                        part: "metadata",
                        ..
                    }
                ),
                "{e}"
            );
        }
        // Cut inside the metadata block: truncated.
        assert!(matches!(
            CuckooFilter::read_metadata(&bytes[..70]).unwrap_err(),
            DecodeError::Truncated { .. }
        ));
        assert!(matches!(
            CuckooFilter::load(&bytes[..100], &LoadOptions::default())
                .map(|(f, _)| f)
                .unwrap_err(),
            DecodeError::Truncated { .. }
        ));
    }
    let too_long = vec![0u8; MAX_METADATA + 1];
    assert_eq!(
        SaveOptions::default().metadata(&too_long).unwrap_err(),
        MetadataTooLong {
            len: MAX_METADATA + 1,
            max: MAX_METADATA
        }
    );

    // A version-2 header (a filter loaded from a version 1 file, saved
    // with metadata) claiming no metadata, or more than the format
    // carries (header checksum made right): refused.
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/b4-f16.cnf");
    let old = CuckooFilter::from_bytes(&std::fs::read(golden).unwrap()).unwrap();
    let bytes = crate::common::saved_with(&old, b"m");
    assert_eq!(bytes[8], 2);
    for len in [0u16, MAX_METADATA as u16 + 1] {
        let mut b = bytes.clone();
        b[14..16].copy_from_slice(&len.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&sum.to_le_bytes());
        assert!(matches!(
            CuckooFilter::from_bytes(&b).unwrap_err(),
            DecodeError::InvalidConfiguration { .. }
        ));
    }
    // Version 5 carries 0 to MAX_METADATA bytes: more is refused.
    let mut b = crate::common::saved_with(&filter, b"m");
    b[14..16].copy_from_slice(&(MAX_METADATA as u16 + 1).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..56]);
    b[56..64].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        CuckooFilter::from_bytes(&b).unwrap_err(),
        DecodeError::InvalidConfiguration { .. }
    ));
}

/// A reader that counts the bytes handed out.
struct Counting<R> {
    inner: R,
    read: usize,
}

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

/// `read_metadata_from` and `read_metadata_from_path` read the header and
/// the metadata block only, never the table, for fixed and growable
/// filters, with and without metadata; bad bytes are the same typed
/// errors as `read_metadata`'s.
#[test]
fn metadata_reads_from_streams_and_paths_skip_the_table() {
    let fixed = CuckooFilter::with_capacity(100_000);
    let growable = CuckooFilter::builder()
        .capacity(1000)
        .growable(true)
        .build()
        .unwrap();
    for k in 0..5000u32 {
        fixed.insert(&k).unwrap();
        growable.insert(&k).unwrap();
    }
    assert!(growable.capacity() > 1000, "grown");
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-meta-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, filter) in [("fixed", &fixed), ("growable", &growable)] {
        for meta in [&b""[..], b"commit 42", &[3u8; cuckoo_nest::MAX_METADATA]] {
            let bytes = crate::common::saved_with(filter, meta);
            let mut reader = Counting {
                inner: &bytes[..],
                read: 0,
            };
            let got = CuckooFilter::read_metadata_from(&mut reader).unwrap();
            assert_eq!(got, meta, "{name}");
            let want = if meta.is_empty() {
                64
            } else {
                64 + (8 + meta.len()).next_multiple_of(64)
            };
            assert_eq!(reader.read, want, "{name}: read past the metadata");
            assert!(reader.read < bytes.len() / 10, "{name}");

            let path = dir.join(format!("{name}-{}.bin", meta.len()));
            filter
                .save_to_path(
                    &path,
                    &SaveOptions::default()
                        .metadata(meta)
                        .expect("metadata fits"),
                )
                .unwrap();
            let file = std::fs::File::open(&path).unwrap();
            assert_eq!(CuckooFilter::read_metadata_from(file).unwrap(), meta);
        }
        // Damaged metadata, a cut stream, a missing file: typed errors.
        let mut bad = crate::common::saved_with(filter, b"m");
        bad[72] ^= 1;
        assert!(matches!(
            CuckooFilter::read_metadata_from(&bad[..]).unwrap_err(),
            DecodeError::ChecksumMismatch {
                part: "metadata",
                ..
            }
        ));
        let good = crate::common::saved_with(filter, b"m");
        assert!(matches!(
            CuckooFilter::read_metadata_from(&good[..100]).unwrap_err(),
            DecodeError::Truncated {
                expected: 128,
                actual: 100
            }
        ));
        assert!(matches!(
            CuckooFilter::read_metadata_from(&b"not a filter at all"[..]).unwrap_err(),
            DecodeError::NotAFilter
        ));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A saved header may say capacity 0 (the tiniest tables once did): the
/// loaded filter and a view of it report at least 1.
#[test]
fn a_saved_capacity_of_zero_reads_as_one() {
    let filter = CuckooFilter::with_capacity(100);
    let mut bytes = filter.to_bytes();
    bytes[40..48].copy_from_slice(&0u64.to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.capacity(), 1);
    assert!(loaded.bits_per_item().is_finite());
    let view = FilterView::new(&bytes[..]).unwrap();
    assert_eq!(view.capacity(), 1);
    assert!(format!("{view:?}").contains("capacity: 1,"), "{view:?}");
}
