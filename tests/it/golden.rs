//! Golden files: small filters saved in format version 1 and committed
//! under tests/data, loaded here and asked about keys known to be present
//! and keys known to be absent, so the format (header, table layout, hash)
//! cannot change by accident. A change that breaks this test breaks every
//! filter users have saved: it needs a new format version, not new files.
//!
//! The files were written by this test with `CUCKOO_BLESS_GOLDEN=1`
//! (which refuses to overwrite existing files). The first five before
//! keys were hashed as bytes: their u64 keys went in through
//! `std::hash::Hash`, which a filter loaded from a version 1 file keeps
//! using for its generic methods. The `v5-` files were blessed with format
//! version 5, whose keys (byte strings and u64s) are hashed as bytes in
//! lanes (`StableHasher::hash_key_bytes`). Version 4 files are pinned by
//! tests/it/key_paths.rs (`byte-keys-v4*.cnf`).

use cuckoo_nest::{CuckooFilter, FilterView, PreHashed, ReadFilter, StableHasher};
use std::path::PathBuf;

/// The hash a file of format `version` stored its byte keys under (what
/// the removed `hash_bytes` method gave): in version 5, what every method
/// hashes a byte key to (`hash_key_bytes`); in version 1, the bytes hash
/// of its day (`StableHasher::hash_bytes`), while its generic methods
/// hash through `std::hash::Hash`.
fn bytes_hash(version: u8, f: &impl ReadFilter, key: &[u8]) -> u64 {
    if version >= 5 {
        f.hash_item(key)
    } else {
        StableHasher::hash_bytes(f.shape().seed, key)
    }
}

/// (file, bucket size, width, semi-sorted, seed): a fixed-width default,
/// packed widths with and without their own table type, semi-sorted, and
/// 8-slot buckets.
const GOLDEN: &[(&str, usize, u32, bool, u64)] = &[
    ("b4-f16.cnf", 4, 16, false, 0),
    ("b4-f12-packed.cnf", 4, 12, false, 1),
    ("b2-f7-packed.cnf", 2, 7, false, 2),
    ("b4-f13-semisorted.cnf", 4, 13, true, 3),
    ("b8-f8.cnf", 8, 8, false, 0xdead_beef),
    ("v5-b4-f16.cnf", 4, 16, false, 0),
    ("v5-b4-f13-semisorted.cnf", 4, 13, true, 3),
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Present: byte keys `present-{k}` through `hash_bytes`, and u64 keys
/// 1_000_000 + k through `Hash`; every 10th byte key removed again.
fn present(k: u32) -> String {
    format!("present-{k}")
}

fn absent(k: u32) -> String {
    format!("absent-{k}")
}

const KEYS: u32 = 300;

fn expected_present(k: u32) -> bool {
    k % 10 != 3
}

fn build(b: usize, f: u32, semi: bool, seed: u64) -> CuckooFilter {
    let filter = CuckooFilter::builder()
        .capacity(1000)
        .bucket_size(b)
        .fingerprint_bits(f)
        .semi_sorted(semi)
        .seed(seed)
        .build()
        .unwrap();
    for k in 0..KEYS {
        filter.insert(present(k).as_bytes()).unwrap();
        filter.insert(&(1_000_000u64 + k as u64)).unwrap();
    }
    for k in (0..KEYS).filter(|&k| !expected_present(k)) {
        assert!(filter.remove(present(k).as_bytes()));
    }
    filter
}

/// The absent keys a filter (wrongly) says are present: its false
/// positives, recorded beside each file.
fn false_positives(contains: impl Fn(u64) -> bool, hash: impl Fn(&[u8]) -> u64) -> Vec<u32> {
    (0..10_000)
        .filter(|&k| contains(hash(absent(k).as_bytes())))
        .collect()
}

#[test]
fn golden_files_load_and_answer_as_when_saved() {
    let bless = std::env::var_os("CUCKOO_BLESS_GOLDEN").is_some();
    for &(name, b, f, semi, seed) in GOLDEN {
        let path = dir().join(name);
        let fp_path = dir().join(format!("{name}.false-positives"));
        if bless && !path.exists() {
            let filter = build(b, f, semi, seed);
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, filter.to_bytes()).unwrap();
            let fps = false_positives(|h| filter.contains(&PreHashed(h)), |k| filter.hash_item(k));
            let text: Vec<String> = fps.iter().map(|k| k.to_string()).collect();
            std::fs::write(&fp_path, text.join("\n") + "\n").unwrap();
        }
        let bytes = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run with CUCKOO_BLESS_GOLDEN=1 once)",
                path.display()
            )
        });
        let recorded: Vec<u32> = std::fs::read_to_string(&fp_path)
            .unwrap()
            .split_whitespace()
            .map(|k| k.parse().unwrap())
            .collect();
        let filter = CuckooFilter::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let view = FilterView::new(&bytes).unwrap();
        assert_eq!(
            (
                filter.shape().bucket_size,
                filter.shape().fingerprint_bits,
                filter.shape().semi_sorted,
                filter.shape().seed
            ),
            (b, f, semi, seed),
            "{name}"
        );
        let items = KEYS as usize * 2 - (0..KEYS).filter(|&k| !expected_present(k)).count();
        assert_eq!(filter.len(), items, "{name}");
        assert_eq!(view.len(), items, "{name}");
        for k in 0..KEYS {
            let h = bytes_hash(bytes[8], &filter, present(k).as_bytes());
            if expected_present(k) {
                assert!(filter.contains(&PreHashed(h)), "{name}: present-{k}");
                assert!(view.contains(&PreHashed(h)), "{name}: present-{k}");
            }
            assert!(filter.contains(&(1_000_000u64 + k as u64)), "{name}: {k}");
            assert!(view.contains(&(1_000_000u64 + k as u64)), "{name}: {k}");
        }
        let got = false_positives(
            |h| filter.contains(&PreHashed(h)),
            |k| bytes_hash(bytes[8], &filter, k),
        );
        assert_eq!(got, recorded, "{name}: absent keys answer differently");
        let got = false_positives(
            |h| view.contains(&PreHashed(h)),
            |k| bytes_hash(bytes[8], &view, k),
        );
        assert_eq!(
            got, recorded,
            "{name}: absent keys answer differently in the view"
        );
        // Saving the loaded filter gives the file back, byte for byte.
        assert_eq!(filter.to_bytes(), bytes, "{name}");
    }
}
