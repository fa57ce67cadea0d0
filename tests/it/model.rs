//! Random operation sequences against a model multiset, on every shape
//! (bucket size, width, semi-sorted): never a false negative, `len` exact,
//! `insert_unique` never stores a second copy.

use cuckoo_nest::CuckooFilter;
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Op {
    Insert(u16),
    InsertUnique(u16),
    Remove(u16),
    Contains(u16),
}

fn op() -> impl Strategy<Value = Op> {
    // A small key universe, so keys repeat: duplicates, removes of present
    // keys, unique inserts of present keys.
    let key = 0u16..400;
    prop_oneof![
        4 => key.clone().prop_map(Op::Insert),
        2 => key.clone().prop_map(Op::InsertUnique),
        3 => key.clone().prop_map(Op::Remove),
        3 => key.prop_map(Op::Contains),
    ]
}

/// Every shape: bucket size, width from 4 to 32 (fixed and packed), and
/// semi-sorted 4-slot buckets, at a random capacity.
fn config() -> impl Strategy<Value = (usize, u32, bool, usize)> {
    (
        prop::sample::select(vec![2usize, 4, 8]),
        4u32..=32,
        any::<bool>(),
        1usize..300,
    )
        .prop_map(|(b, f, semi, capacity)| (if semi { 4 } else { b }, f, semi, capacity))
}

fn run(
    ops: &[Op],
    (bucket_size, bits, semi_sorted, capacity): (usize, u32, bool, usize),
) -> Result<(), TestCaseError> {
    let filter = CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(bucket_size)
        .fingerprint_bits(bits)
        .semi_sorted(semi_sorted)
        .build()
        .unwrap();
    let mut model: HashMap<u16, usize> = HashMap::new();
    for op in ops {
        match *op {
            Op::Insert(k) => {
                if filter.insert(&k).is_ok() {
                    *model.entry(k).or_default() += 1;
                }
            }
            Op::InsertUnique(k) => {
                let present = model.get(&k).copied().unwrap_or(0) > 0;
                match filter.insert_unique(&k) {
                    Ok(true) => {
                        prop_assert!(!present, "insert_unique stored a second copy of {}", k);
                        *model.entry(k).or_default() += 1;
                    }
                    // Present, or a colliding fingerprint (false positive).
                    Ok(false) => {}
                    Err(_) => prop_assert!(!present, "insert_unique failed for present {}", k),
                }
            }
            Op::Remove(k) => {
                // Only remove what was inserted: the documented contract.
                if let Some(c) = model.get_mut(&k).filter(|c| **c > 0) {
                    prop_assert!(filter.remove(&k), "remove lost {}", k);
                    *c -= 1;
                }
            }
            Op::Contains(k) => {
                if model.get(&k).copied().unwrap_or(0) > 0 {
                    prop_assert!(filter.contains(&k), "false negative for {}", k);
                }
            }
        }
        prop_assert_eq!(filter.len(), model.values().sum::<usize>());
    }
    for (k, c) in &model {
        if *c > 0 {
            prop_assert!(filter.contains(k), "false negative for {} at the end", k);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

    #[test]
    fn behaves_like_a_multiset(
        config in config(),
        // Shorter sequences under miri, which interprets every operation
        // (600 took ten minutes there).
        ops in prop::collection::vec(op(), 1..if cfg!(miri) { 80 } else { 600 }),
    ) {
        run(&ops, config)?;
    }
}
