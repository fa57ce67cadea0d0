//! Any bytes into every decoder: `CuckooFilter::from_bytes`, `read_from`,
//! `FilterView::new` and `new_unverified`. Each must return a filter that
//! works or a `DecodeError`; a panic or undefined behaviour is a bug.
//!
//! The first input byte picks a mode: even, the bytes as given (the
//! checksums stop nearly everything at the door); odd, the rest with both
//! checksums recomputed, so the fuzzer reaches the configuration checks,
//! the length checks and lookups over arbitrary tables.
#![no_main]

use cuckoo_nest::{CuckooFilter, FilterView};
use libfuzzer_sys::fuzz_target;

fn fix_checksums(b: &mut [u8]) {
    if b.len() >= 64 {
        let table = xxhash_rust::xxh3::xxh3_64(&b[64..]);
        b[48..56].copy_from_slice(&table.to_le_bytes());
        let header = xxhash_rust::xxh3::xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&header.to_le_bytes());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 {
        fix_checksums(&mut bytes);
    }
    // At an odd address too, for the view's unaligned path.
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    for b in [&bytes[..], &shifted[1..]] {
        for view in [FilterView::new(b), FilterView::new_unverified(b)]
            .into_iter()
            .flatten()
        {
            let keys: Vec<u64> = (0..32).collect();
            let mut out = vec![false; keys.len()];
            let _ = view.contains_batch(&keys, &mut out);
            for k in &keys {
                assert_eq!(view.contains(k), out[*k as usize]);
            }
            let _ = view.expected_false_positive_rate();
        }
    }
    let owned = CuckooFilter::from_bytes(&bytes);
    let streamed = CuckooFilter::read_from(&bytes[..]);
    if let Ok(f) = owned {
        assert!(streamed.is_ok());
        for k in 0..16u32 {
            let _ = f.insert(&k);
        }
        for k in 0..16u32 {
            let _ = f.remove(&k);
        }
        let _ = f.to_bytes();
    }
});
