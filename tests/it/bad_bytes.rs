//! Bad bytes: every truncation, every changed byte, random bit flips,
//! random bytes, huge claimed tables, future versions. Each must be a
//! `DecodeError` (or, where only the unverified view skips the table
//! checksum, a view whose lookups still never panic), never a panic.

use cuckoo_nest::{CuckooFilter, DecodeError, FilterView, LoadOptions};
use proptest::prelude::*;

/// A small saved filter in each layout family.
fn saved() -> Vec<Vec<u8>> {
    [
        (4usize, 16u32, false),
        (4, 12, false),
        (2, 7, false),
        (4, 13, true),
    ]
    .iter()
    .map(|&(b, f, semi)| {
        let filter = CuckooFilter::builder()
            .capacity(200)
            .bucket_size(b)
            .fingerprint_bits(f)
            .semi_sorted(semi)
            .build()
            .unwrap();
        for k in 0..150u32 {
            filter.insert(&k).unwrap();
        }
        filter.to_bytes()
    })
    .collect()
}

/// Every way in, fed `bytes`: the errors must agree, and whatever loads
/// must answer lookups (and, for the owned filter, take writes) without
/// panicking.
fn decode_all(bytes: &[u8]) -> Result<(), DecodeError> {
    let owned = CuckooFilter::from_bytes(bytes);
    let streamed = CuckooFilter::load(bytes, &LoadOptions::default()).map(|(f, _)| f);
    let view = FilterView::new(bytes);
    let unverified = FilterView::new_unverified(bytes);
    if let Ok(v) = &unverified {
        exercise_view(v);
    }
    match (owned, streamed, view) {
        (Ok(f), Ok(g), Ok(v)) => {
            exercise_view(&v);
            for k in 0..64u32 {
                assert_eq!(f.contains(&k), v.contains(&k));
                assert_eq!(g.contains(&k), v.contains(&k));
            }
            let _ = f.insert(&7u32);
            let _ = f.remove(&7u32);
            let _ = f.remove(&3u32);
            let _ = f.to_bytes();
            Ok(())
        }
        (Err(a), Err(b), Err(c)) => {
            assert_eq!(a.to_string(), c.to_string());
            // read_from sees the same problems, but cannot tell trailing
            // bytes from what follows in a stream.
            if !matches!(a, DecodeError::SizeMismatch { .. }) {
                assert_eq!(a.to_string(), b.to_string());
            }
            // The unverified view reads no table byte: it loads whatever
            // only the table's checksum or audit refuses.
            let table_only = matches!(
                a,
                DecodeError::ChecksumMismatch { part: "table", .. }
                    | DecodeError::InvalidBucket { .. }
                    | DecodeError::NonZeroPadding { .. }
                    | DecodeError::ItemCountMismatch { .. }
            );
            assert_eq!(unverified.is_ok(), table_only, "{a}");
            Err(a)
        }
        (a, b, c) => {
            // Only trailing bytes may split them: read_from stops at the
            // filter's end.
            let a = a.unwrap_err();
            assert!(matches!(a, DecodeError::SizeMismatch { .. }), "{a}");
            assert!(b.is_ok() && c.is_err());
            Err(a)
        }
    }
}

fn exercise_view<B: AsRef<[u8]>>(v: &FilterView<B>) {
    let keys: Vec<u64> = (0..100).collect();
    let mut out = vec![false; keys.len()];
    let n = v.contains_batch_into(&keys, &mut out).unwrap();
    assert_eq!(n, out.iter().filter(|&&x| x).count());
    for (k, &o) in keys.iter().zip(&out) {
        assert_eq!(v.contains(k), o);
    }
    let _ = (v.len(), v.load_factor(), v.expected_false_positive_rate());
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in saved() {
        for len in 0..bytes.len() {
            let e = decode_all(&bytes[..len]).unwrap_err();
            assert!(
                matches!(e, DecodeError::Truncated { .. }),
                "length {len}: {e}"
            );
        }
        assert!(decode_all(&bytes).is_ok());
    }
}

#[test]
fn every_changed_byte_is_an_error() {
    for bytes in saved() {
        for at in 0..bytes.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[at] ^= x;
                let e = decode_all(&b).unwrap_err();
                let ok = match at {
                    0..=7 => matches!(e, DecodeError::NotAFilter),
                    // A flip to another readable version (5 ^ 1 = 4) meets
                    // the header checksum; any other, the version check.
                    8..=9 if (1..=5).contains(&u16::from_le_bytes([b[8], b[9]])) => {
                        matches!(e, DecodeError::ChecksumMismatch { part: "header", .. })
                    }
                    8..=9 => matches!(e, DecodeError::UnsupportedVersion { .. }),
                    10..=63 => matches!(e, DecodeError::ChecksumMismatch { part: "header", .. }),
                    _ => matches!(e, DecodeError::ChecksumMismatch { part: "table", .. }),
                };
                assert!(ok, "byte {at} ^ {x:#x}: {e}");
            }
        }
    }
}

/// The format's checksum (XXH3-64, docs/format.md), to forge headers.
fn fix_checksums(b: &mut [u8]) {
    if b.len() >= 64 {
        let table = xxhash_rust::xxh3::xxh3_64(&b[64..]);
        b[48..56].copy_from_slice(&table.to_le_bytes());
        let header = xxhash_rust::xxh3::xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&header.to_le_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bit_flips_in_the_table_are_errors(which in 0usize..4, flips in prop::collection::vec(any::<prop::sample::Index>(), 1..8)) {
        let bytes = &saved()[which];
        let mut b = bytes.clone();
        let table_bits = (b.len() - 64) * 8;
        for f in &flips {
            let bit = f.index(table_bits);
            b[64 + bit / 8] ^= 1 << (bit % 8);
        }
        if b != *bytes {
            let e = decode_all(&b).unwrap_err();
            prop_assert!(matches!(e, DecodeError::ChecksumMismatch { part: "table", .. }), "{}", e);
        }
    }

    #[test]
    fn any_table_content_with_valid_checksums_is_refused_or_works(which in 0usize..4, seed in any::<u64>()) {
        // Garbage in the table (semi-sorted indexes past 3875, more
        // fingerprints than items...) behind correct checksums: a forged or
        // buggy writer. It is refused with an error naming what no writer
        // stores, or (the unverified view) answers without panicking.
        // tests/it/forged.rs forges tables that do load and checks the items.
        let mut b = saved()[which].clone();
        let mut s = seed | 1;
        for x in b[64..].iter_mut() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            *x = s as u8;
        }
        fix_checksums(&mut b);
        match decode_all(&b) {
            Ok(()) => {
                let f = CuckooFilter::from_bytes(&b).unwrap();
                for k in 0..300u32 {
                    let _ = f.insert(&k);
                }
                for k in 0..300u32 {
                    let _ = f.remove(&k);
                }
                f.clear();
                prop_assert!(f.is_empty());
            }
            Err(e) => prop_assert!(
                matches!(
                    e,
                    DecodeError::InvalidBucket { .. }
                        | DecodeError::NonZeroPadding { .. }
                        | DecodeError::ItemCountMismatch { .. }
                ),
                "{}",
                e
            ),
        }
    }

    #[test]
    fn random_bytes_of_any_length_are_errors(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        prop_assert!(decode_all(&bytes).is_err());
    }

    #[test]
    fn random_bytes_after_a_valid_magic_are_errors(bytes in prop::collection::vec(any::<u8>(), 0..600), version in any::<bool>()) {
        let mut b = b"CUCKNEST".to_vec();
        if version {
            b.extend_from_slice(&1u16.to_le_bytes());
        }
        b.extend_from_slice(&bytes);
        prop_assert!(decode_all(&b).is_err());
    }

    #[test]
    fn random_headers_with_valid_checksums_never_panic(header in prop::collection::vec(any::<u8>(), 64), b in prop::sample::select(vec![2u8, 4, 8]), f in 0u8..40, flags in 0u8..3, buckets in prop_oneof![1u64..64, any::<u64>()], items in 0u64..600, tail in 0usize..2100) {
        // A plausible header (checksum right) claiming any size, with any
        // number of table bytes after it: never a panic, and never an
        // allocation of the claimed size before the length matches.
        let mut h = header;
        h[0..8].copy_from_slice(b"CUCKNEST");
        h[8..10].copy_from_slice(&1u16.to_le_bytes());
        h[10] = b;
        h[11] = f;
        h[12] = flags;
        h[13] = 1;
        h[14] = 0;
        h[15] = 0;
        h[24..32].copy_from_slice(&buckets.to_le_bytes());
        h[32..40].copy_from_slice(&items.to_le_bytes());
        h.resize(64 + tail, 0);
        fix_checksums(&mut h);
        let _ = decode_all(&h);
    }

    #[test]
    fn future_versions_are_refused(version in 7u16.., which in 0usize..4) {
        let mut b = saved()[which].clone();
        b[8..10].copy_from_slice(&version.to_le_bytes());
        fix_checksums(&mut b);
        let e = decode_all(&b).unwrap_err();
        prop_assert!(matches!(e, DecodeError::UnsupportedVersion { version: v, supported: 6 } if v == version), "{}", e);
    }

    /// Version 3 is a growable filter's (hash algorithm 2): a fixed
    /// filter's bytes (version 5, hash algorithm 5) relabelled as version 3
    /// are refused, not read with the wrong addressing or key hash.
    #[test]
    fn a_fixed_filter_relabelled_growable_is_refused(which in 0usize..4) {
        let mut b = saved()[which].clone();
        b[8..10].copy_from_slice(&3u16.to_le_bytes());
        fix_checksums(&mut b);
        let e = decode_all(&b).unwrap_err();
        prop_assert!(matches!(e, DecodeError::InvalidConfiguration { .. }), "{}", e);
    }

    #[test]
    fn huge_claimed_tables_are_refused_by_length(buckets in 1u64 << 20.., which in 0usize..4) {
        let mut b = saved()[which].clone();
        b[24..32].copy_from_slice(&buckets.to_le_bytes());
        fix_checksums(&mut b);
        let e = decode_all(&b).unwrap_err();
        prop_assert!(matches!(e, DecodeError::Truncated { .. } | DecodeError::InvalidConfiguration { .. }), "{}", e);
    }
}
