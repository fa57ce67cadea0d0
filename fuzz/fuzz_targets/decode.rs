//! Any bytes into every decoder: `CuckooFilter::from_bytes`, `read_from`,
//! `FilterView::new` and `new_unverified`. Each must return a filter that
//! works or a `DecodeError`; a panic or undefined behaviour is a bug. A
//! filter that loads must keep every item inserted after loading (through
//! removes of others), save to bytes that load again (loading refuses any
//! table or configuration a writer would not store, docs/format.md) and
//! merge without a panic. Growable filters are seeded from fuzz/seeds/
//! and grow under the inserts here; `growable-chain-1.cnf` (version 6) holds
//! two chains' tables, so the fuzzer mutates a chained header and table.
//!
//! The first input byte picks a mode: even, the bytes as given (the
//! checksums stop nearly everything at the door); odd, the rest with both
//! checksums recomputed, so the fuzzer reaches the configuration checks,
//! the length checks and lookups over arbitrary tables.
#![no_main]

use cuckoo_nest::{CuckooFilter, FilterView, LoadOptions};
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
            let _ = view.contains_batch_into(&keys, &mut out);
            for k in &keys {
                assert_eq!(view.contains(k), out[*k as usize]);
            }
            let _ = view.expected_false_positive_rate();
        }
    }
    let owned = CuckooFilter::from_bytes(&bytes);
    let streamed = CuckooFilter::load(&bytes[..], &LoadOptions::default()).map(|(f, _)| f);
    let checked_view = FilterView::new(&bytes);
    assert_eq!(owned.is_ok(), checked_view.is_ok());
    if let Ok(f) = owned {
        assert!(streamed.is_ok());
        assert!(f.len() <= f.shape().slots && f.load_factor() <= 1.0);
        // Whatever loaded keeps what is inserted after loading.
        // Enough keys for a small growable filter (version 3 or 4) to grow.
        let mut inserted = Vec::new();
        for k in 0..200u32 {
            if f.insert(&k).is_ok() {
                inserted.push(k);
            }
        }
        for k in &inserted {
            assert!(f.contains(k), "{k} inserted after loading is missing");
        }
        for k in inserted.iter().step_by(2) {
            assert!(f.remove(k));
        }
        for k in inserted.iter().skip(1).step_by(2) {
            assert!(f.contains(k), "{k} missing after removes of others");
        }
        // And saves to bytes that load again.
        let again = f.to_bytes();
        let g = CuckooFilter::from_bytes(&again).expect("a loaded filter re-saves loadably");
        assert_eq!(g.len(), f.len());
        for k in inserted.iter().skip(1).step_by(2) {
            assert!(g.contains(k));
        }
        // And merges without a panic, into itself and into its reload
        // (a merge may refuse for lack of room, never lose or crash).
        let copy = f.clone();
        let _ = f.merge(&copy);
        let _ = g.merge(&f);
        for k in inserted.iter().skip(1).step_by(2) {
            assert!(f.contains(k) && g.contains(k), "{k} lost in a merge");
        }
    }
});
