//! Random operation sequences against a model multiset, on growable
//! filters through growth steps and chains, and on fixed ones: from a
//! capacity of a few items, with keys of 4 to 16 bits (so distinct keys
//! collide and pairs fill with one key's copies), 2 to 7 spare bits (so
//! some sequences reach a second chain, or a third) or a maximum capacity,
//! duplicates, removes, batches of inserts and of removes, growth steps
//! finished at once, and the filter replaced on the way by its clone, by a
//! load of its bytes (saved three ways, which must agree), merged with
//! another, or cleared. After every operation `len` is the model's size (a
//! refused insert adds nothing) and the keys it touched are found if the
//! model holds them; at every clone and reload, and at the end, every key
//! the model holds is found (one at a time, in a batch, and through a view
//! of the saved bytes), its `count` at least the model's.
//! tests/it/model.rs runs the first four operations on every fixed shape,
//! under Miri too; this module's name keeps it out of Miri's `model::`
//! selection (.ci/miri.sh). `MULTISET_CASES` and `MULTISET_OPS` (default
//! 128 sequences of up to 400 operations) run it longer.

use cuckoo_nest::{CuckooFilter, FilterView, InsertError, LoadOptions, MergeError, SaveOptions};
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Op {
    Insert(u16),
    InsertUnique(u16),
    Remove(u16),
    Contains(u16),
    /// A run of fresh keys: enough to take the filter through its steps.
    InsertRange(u16, u8),
    Clone,
    /// `to_bytes` then `load`, every model key checked through a view of
    /// the bytes on the way.
    Reload,
    /// Another filter of the same build holding these keys, merged in.
    Merge(u16, u8),
    /// `insert_batch` of a run of keys: the prefix it reports went in.
    InsertBatch(u16, u8),
    /// `remove_batch` of the held keys among a run of keys below 1,000.
    RemoveBatch(u16, u8),
    /// A growth step under way, finished (`finish_growth`).
    FinishGrowth,
    Clear,
}

/// Keys below 1,000 repeat; `InsertRange` reaches up to 65,535 distinct.
fn op() -> impl Strategy<Value = Op> {
    let key = 0u16..1000;
    prop_oneof![
        6 => key.clone().prop_map(Op::Insert),
        2 => key.clone().prop_map(Op::InsertUnique),
        4 => key.clone().prop_map(Op::Remove),
        3 => key.prop_map(Op::Contains),
        3 => (any::<u16>(), any::<u8>()).prop_map(|(k, n)| Op::InsertRange(k, n)),
        1 => Just(Op::Clone),
        1 => Just(Op::Reload),
        1 => (any::<u16>(), 0u8..64).prop_map(|(k, n)| Op::Merge(k, n)),
        2 => (any::<u16>(), any::<u8>()).prop_map(|(k, n)| Op::InsertBatch(k, n)),
        2 => (0u16..1000, any::<u8>()).prop_map(|(k, n)| Op::RemoveBatch(k, n)),
        1 => Just(Op::FinishGrowth),
        1 => Just(Op::Clear),
    ]
}

/// How far a filter grows: not at all, through spare bits (2 to 7) and
/// chains after them, or up to a maximum capacity `2^k` times the first,
/// where inserts are refused.
#[derive(Clone, Copy, Debug)]
enum Growth {
    Fixed,
    Spare(u32),
    Max(u32),
}

/// Bucket size, key bits, first capacity, growth.
type Config = (usize, u32, usize, Growth);

fn config() -> impl Strategy<Value = Config> {
    let growth = prop_oneof![
        1 => Just(Growth::Fixed),
        4 => (2u32..=7).prop_map(Growth::Spare),
        1 => (1u32..=5).prop_map(Growth::Max),
    ];
    (
        prop::sample::select(vec![2usize, 4, 8]),
        4u32..=16,
        1usize..64,
        growth,
    )
}

fn build((bucket_size, key_bits, capacity, growth): Config) -> CuckooFilter {
    let builder = CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(bucket_size)
        .fingerprint_bits(key_bits);
    match growth {
        Growth::Fixed => builder,
        Growth::Spare(bits) => builder.growable(true).spare_bits(bits),
        Growth::Max(k) => builder.growable(true).max_capacity(capacity << k),
    }
    .build()
    .unwrap()
}

struct Model {
    copies: HashMap<u16, usize>,
    /// False once a merge failed part way: its first fingerprints are in
    /// the filter, uncounted here, so `len` is no longer the model's.
    len_exact: bool,
}

impl Model {
    fn holds(&self, k: u16) -> usize {
        self.copies.get(&k).copied().unwrap_or(0)
    }

    fn add(&mut self, k: u16) {
        *self.copies.entry(k).or_default() += 1;
    }

    /// Every key the model holds is in `filter`, as many times at least,
    /// and a batch lookup of them all finds them.
    fn check(&self, filter: &CuckooFilter, when: &str) -> Result<(), TestCaseError> {
        let held: Vec<u16> = (self.copies.iter())
            .filter(|(_, c)| **c > 0)
            .map(|(k, _)| *k)
            .collect();
        for &k in &held {
            prop_assert!(filter.contains(&k), "false negative for {} {}", k, when);
            let (counted, c) = (filter.count(&k), self.holds(k));
            prop_assert!(counted >= c, "{}: count {} < {} {}", k, counted, c, when);
        }
        let batch = filter.contains_batch(&held);
        prop_assert!(batch.iter().all(|&hit| hit), "a batch missed a key {}", when);
        Ok(())
    }

    fn total(&self) -> usize {
        self.copies.values().sum()
    }
}

fn run(ops: &[Op], config: Config) -> Result<(), TestCaseError> {
    let mut filter = build(config);
    let mut model = Model {
        copies: HashMap::new(),
        len_exact: true,
    };
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Insert(k) => {
                if filter.insert(&k).is_ok() {
                    model.add(k);
                }
            }
            Op::InsertUnique(k) => {
                let present = model.holds(k) > 0;
                match filter.insert_unique(&k) {
                    Ok(true) => {
                        prop_assert!(!present, "insert_unique stored a second copy of {}", k);
                        model.add(k);
                    }
                    // Present, or a colliding fingerprint (a false positive).
                    Ok(false) => {}
                    Err(e) => prop_assert!(!present, "insert_unique of present {}: {}", k, e),
                }
            }
            Op::Remove(k) => {
                // Only what was inserted: the documented contract.
                if model.holds(k) > 0 {
                    prop_assert!(filter.remove(&k), "remove lost {}", k);
                    *model.copies.get_mut(&k).unwrap() -= 1;
                }
            }
            Op::Contains(k) => {
                if model.holds(k) > 0 {
                    prop_assert!(filter.contains(&k), "false negative for {}", k);
                }
            }
            Op::InsertRange(first, n) => {
                for k in (first..=u16::MAX).take(usize::from(n) * 4) {
                    match filter.insert(&k) {
                        Ok(()) => model.add(k),
                        // Full (a fixed filter, or one at its maximum): the
                        // rest of the run would search in vain.
                        Err(InsertError::Full { .. }) => break,
                        Err(_) => {}
                    }
                }
            }
            Op::Clone => {
                let clone = filter.clone();
                model.check(&clone, "in a clone")?;
                filter = clone;
            }
            Op::Reload => {
                let bytes = filter.to_bytes();
                // The streaming saves write the same bytes.
                let (mut streamed, mut seekable) = (Vec::new(), std::io::Cursor::new(Vec::new()));
                filter.save(&mut streamed, &SaveOptions::default()).unwrap();
                filter.save_seekable(&mut seekable, &SaveOptions::default()).unwrap();
                prop_assert!(streamed == bytes && seekable.into_inner() == bytes, "saves differ");
                let view = FilterView::new(&bytes[..]).unwrap();
                for (&k, &c) in model.copies.iter().filter(|(_, c)| **c > 0) {
                    prop_assert!(view.contains(&k), "false negative for {} in a view", k);
                    prop_assert!(view.count(&k) >= c, "{}: a view's count under {}", k, c);
                }
                if model.len_exact {
                    prop_assert_eq!(view.len(), model.total(), "a view's len");
                }
                let (loaded, _) = CuckooFilter::load(&bytes[..], &LoadOptions::default())
                    .map_err(|e| TestCaseError::fail(format!("load: {e}")))?;
                prop_assert_eq!(loaded.to_bytes(), bytes);
                model.check(&loaded, "after a reload")?;
                filter = loaded;
            }
            Op::InsertBatch(first, n) => {
                let keys: Vec<u16> = (first..=u16::MAX).take(usize::from(n) * 4).collect();
                let went_in = match filter.insert_batch(&keys) {
                    Ok(()) => keys.len(),
                    Err(e) => e.inserted,
                };
                keys[..went_in].iter().for_each(|&k| model.add(k));
            }
            Op::RemoveBatch(first, n) => {
                // Only what was inserted: each key of the run as often as
                // the model holds it.
                let mut keys = Vec::new();
                for k in (first..1000).take(usize::from(n)) {
                    keys.extend(std::iter::repeat_n(k, model.holds(k)));
                }
                let found = filter.remove_batch(&keys);
                for (&k, found) in keys.iter().zip(found) {
                    prop_assert!(found, "remove_batch lost {}", k);
                    *model.copies.get_mut(&k).unwrap() -= 1;
                }
            }
            Op::FinishGrowth => {
                filter.finish_growth();
            }
            Op::Clear => {
                filter.clear();
                model.copies.clear();
                model.len_exact = true;
            }
            Op::Merge(first, n) => {
                let other = build(config);
                let mut theirs = Vec::new();
                // Up to 252 keys: the other filter may have grown deeper.
                for k in (first..=u16::MAX).take(usize::from(n) * 4) {
                    if other.insert(&k).is_ok() {
                        theirs.push(k);
                    }
                }
                match filter.merge(&other) {
                    Ok(()) => theirs.into_iter().for_each(|k| model.add(k)),
                    // Either filter in a second chain: nothing merged. Two
                    // filters of one build differ in nothing else.
                    Err(MergeError::Mismatch { what, .. }) => {
                        prop_assert_eq!(what, "chains", "filters of one build refused")
                    }
                    Err(MergeError::Full { .. }) => model.len_exact = false,
                    Err(e) => return Err(TestCaseError::fail(format!("merge: {e}"))),
                }
            }
        }
        if model.len_exact {
            prop_assert_eq!(filter.len(), model.total(), "after step {}: {:?}", step, op);
        }
    }
    model.check(&filter, "at the end")
}

/// A whole number from the environment variable `name`, or `default`.
fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: want a whole number"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(env_or("MULTISET_CASES", 128) as u32))]

    #[test]
    fn a_filter_behaves_like_a_multiset_through_growth_and_saves(
        config in config(),
        ops in prop::collection::vec(op(), 1..env_or("MULTISET_OPS", 400)),
    ) {
        run(&ops, config)?;
    }
}
