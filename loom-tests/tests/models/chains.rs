//! Model 16: a growable filter's growth past its spare bits (docs/design.md,
//! "Growth past the spare bits"): the step that starts a new chain racing
//! a lookup, and a remove that has a match in two chains.
//!
//! When the last generation of a chain is full, the growth step
//! (`start_chain`, src/grow/step.rs) closes the writers' gate, keeps that
//! generation as it is among the earlier chains (`State::older`), publishes
//! the next chain's first generation as current, and opens the gate again;
//! nothing is copied. Lookups read the current chain, then every earlier
//! one. Removes take a match from the current chain first, then from the
//! earlier ones, newest to oldest: an entry that matches an item in a newer
//! chain agrees with it on everything an older chain stores, so a match
//! taken from the newest chain that has one is never the only entry another
//! item is found by.
//!
//! Every filter here has 2 spare bits (`Builder::spare_bits`, an
//! `internals` hook), not the default 7: its first chain ends after two
//! doublings, which a setup loom replays in every execution can afford.
//! The setup aims items at one block of the last generation (a block is two
//! buckets of two slots there: an item's pair never leaves it) so that one
//! more item aimed there finds no room and starts the chain, with the
//! rest of the generation nearly empty: 5 items, not 16.
//!
//! **Invariants.** 16a: an item inserted before the chain starts is found
//! by a lookup in every interleaving with the step, and every item after
//! it; the filter then has two chains (`statistics().tables`) and `len` is
//! exact. 16b: with `x` in the first chain and `y` in the second, whose
//! first-chain placement (local buckets, key, spare bits) is `x`'s, `y`'s
//! remove succeeds and takes `y`'s own entry: a lookup of `x` racing it,
//! and every lookup after, finds `x`; `len` is exact. 16c: a remove of an
//! item of the first chain racing the insert that starts the second (it
//! runs either before the gate closes, on the first chain as the current
//! one, or after, on it as an earlier chain) succeeds, and leaves every
//! other item found and `len` exact. 16d: a unique insert of an item of
//! the first chain racing the insert that starts the second adds nothing,
//! on either side of the step, and `len` is exact.
//!
//! Broken variants they catch (docs/verification.md):
//! `cuckoo_broken_chains_lookup_newest_only` (16a, in the lookup racing
//! the step; 16b and 16c too, whose items of the first chain it misses),
//! `cuckoo_broken_chains_remove_oldest_first` (16b),
//! `cuckoo_broken_reclaim_no_wait` (16a: the state the step retires is
//! freed under the lookup), `cuckoo_broken_unique_current_chain_only`
//! (16d, once the step is over). No variant fails 16c by its race: see its
//! comment.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::{Builder, CuckooFilter, PreHashed};
use cuckoo_nest_loom_tests::{check, UNBOUNDED};
use loom::sync::Arc;
use loom::thread;

/// Spare bits of the models' filters: the fewest that start a chain (each
/// chain's first table keeps two of the last one's block bits as spare
/// bits, so a chain needs at least two doublings).
const SPARE: u32 = 2;

/// A growable filter without a maximum capacity whose first generation has
/// one block of 2 buckets of 2 slots, with 8-bit keys and [`SPARE`] spare
/// bits.
fn tiny_unbounded() -> CuckooFilter {
    Builder::default()
        .buckets(2)
        .bucket_size(2)
        .fingerprint_bits(8)
        .growable(true)
        .spare_bits(SPARE)
        .build()
        .expect("a 2-bucket growable table is a valid configuration")
}

/// A well-mixed spread hash for key `k`. The models choose items by their
/// spread hash (the first step of the filter's addressing), whose fields
/// are the item's local bucket, key and spare bits, so that an item
/// differing from another in one chosen bit of it can be made (16b).
fn spread(k: u64) -> u64 {
    cuckoo_nest::StableHasher::hash_one(99, &k)
}

/// The hash the models pass to the filter for spread hash `s`.
fn hash(s: u64) -> u64 {
    CuckooFilter::debug_hash_spreading_to(s)
}

/// What a filter at depth 0 says of an item: its two buckets, and the
/// spare bits its fingerprint stores above the key (all [`SPARE`] of them
/// at depth 0): the low bits name its block in every later generation of
/// the first chain.
fn spare_bits(filter: &CuckooFilter, h: u64) -> (usize, usize, u32) {
    let (i1, i2, fp) = filter.debug_locate(h);
    (i1, i2, fp >> 8)
}

/// The setup: a filter in the last generation of its first chain (depth
/// 2: 4 blocks of 2 buckets), with no step under way, whose block 0 holds
/// four items (`full`, their spare bits 0) and block 2 one (`other`, spare
/// bits 2, the insert that took the filter from depth 1 to 2 as it went
/// in). Returns it, the items and `trigger`, an item aimed at block 0: its
/// insert finds no room there, and the filter, its spare bits spent,
/// starts the second chain. Aimed by the hash arithmetic on the filter
/// itself at depth 0, which places every item in its one block.
struct LastGeneration {
    filter: CuckooFilter,
    full: Vec<u64>,
    /// The spread hash of `full[0]`.
    x_spread: u64,
    other: u64,
    trigger: u64,
}

fn last_generation() -> LastGeneration {
    let filter = tiny_unbounded();
    // Items with two distinct buckets: every pair of a block is then the
    // block's two buckets, and 4 items fill it.
    let mut keys = (1..).map(spread).filter(|&s| {
        let (i1, i2, _) = spare_bits(&filter, hash(s));
        i1 != i2
    });
    let filter_ref = &filter;
    let in_block = |bits: u32| move |&s: &u64| spare_bits(filter_ref, hash(s)).2 == bits;
    let full_spread: Vec<u64> = keys.by_ref().filter(in_block(0)).take(4).collect();
    let full: Vec<u64> = full_spread.iter().map(|&s| hash(s)).collect();
    let other = hash(keys.by_ref().find(in_block(2)).unwrap());
    let trigger = hash(keys.find(in_block(0)).unwrap());
    for &h in &full {
        filter.insert(&PreHashed(h)).unwrap();
    }
    // The generation is full: this insert grows it to depth 1 (where the
    // four share block 0 again, full) and, finding its block full there,
    // to depth 2, where it goes to block 2.
    filter.insert(&PreHashed(other)).unwrap();
    // Under loom a chunk of the copy is one bucket, and that insert copied
    // only its own item's and one more: finish the copy, so the trigger's
    // insert starts the chain and nothing else.
    filter.finish_growth();
    let stats = filter.statistics();
    assert_eq!(
        (stats.growth_steps, stats.tables),
        (SPARE, 1),
        "setup: the last generation of the first chain"
    );
    assert!(filter.can_grow(), "setup: a filter without a maximum");
    LastGeneration {
        filter,
        full,
        x_spread: full_spread[0],
        other,
        trigger,
    }
}

impl LastGeneration {
    fn items(&self) -> Vec<u64> {
        let mut items = self.full.clone();
        items.push(self.other);
        items
    }
}

#[test]
fn lookup_during_a_chain_start_finds_every_item() {
    // Every interleaving: about 2,000 executions, under a second.
    check("16a lookup vs the start of a chain", UNBOUNDED, || {
        let LastGeneration {
            filter,
            full,
            other,
            trigger,
            ..
        } = last_generation();
        let items: Vec<u64> = full.iter().copied().chain([other]).collect();
        let filter = Arc::new(filter);
        // One item of the full block looked up (each more multiplies the
        // interleavings; every item of the first chain is in the same
        // table, read the same way).
        let watched = full[0];
        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.contains(&PreHashed(watched)))
        };
        filter.insert(&PreHashed(trigger)).unwrap();
        let stats = filter.statistics();
        assert_eq!(stats.tables, 2, "the insert started the second chain");
        assert_eq!(stats.growth_steps, SPARE + 1);
        assert!(
            reader.join().unwrap(),
            "a lookup missed an item of the first chain while the second started"
        );
        assert!(
            items.iter().all(|&h| filter.contains(&PreHashed(h))),
            "an item of the first chain was missed after the second started"
        );
        assert!(filter.contains(&PreHashed(trigger)));
        assert_eq!(filter.len(), items.len() + 1);
    });
}

/// [`last_generation`] with the second chain started (by its trigger) and
/// `y` inserted into it: `y`'s spread hash is `x`'s (the first of the full
/// block) with one low bit flipped, which changes neither its local bucket
/// (the spread hash's high bits) nor its key (the top bits of its low 32)
/// nor its spare bits (bits 32 and up), so in the first chain it is `x`
/// itself (checked: a flip can carry into the key); the second chain's longer key and spare bits come from a second
/// mix of the hash, where the flip changes everything. Returns the filter,
/// every item in it (`y` last) and `x`.
fn chains_with_a_colliding_item() -> (CuckooFilter, Vec<u64>, u64) {
    let setup = last_generation();
    let items = setup.items();
    let filter = setup.filter;
    let x = setup.full[0];
    // Candidates whose placement equals `x`'s in the first chain: at
    // depth 0 the stored fingerprint holds the whole key and every spare
    // bit, so equal buckets and fingerprint there mean the same item in
    // every generation of the chain. Checked on a filter still at depth 0.
    let depth0 = tiny_unbounded();
    let candidates: Vec<u64> = (0..8)
        .map(|bit| hash(setup.x_spread ^ (1 << bit)))
        .filter(|&y| depth0.debug_locate(y) == depth0.debug_locate(x))
        .collect();
    filter.insert(&PreHashed(setup.trigger)).unwrap();
    assert_eq!(filter.statistics().tables, 2, "setup: the second chain");
    // In the second chain (the filter's current generation now, one
    // block of two buckets: every item's pair) `y`'s fingerprint must be
    // neither `x`'s nor the trigger's: then `x` is found only by its entry
    // in the first chain, and `y`'s remove has a match of its own in the
    // second.
    let fp = |h: u64| filter.debug_locate(h).2;
    let y = candidates
        .into_iter()
        .find(|&y| fp(y) != fp(x) && fp(y) != fp(setup.trigger))
        .expect("setup: a one-bit flip that separates x and y in the second chain");
    assert_ne!(fp(x), fp(setup.trigger));
    filter.insert(&PreHashed(y)).unwrap();
    let mut all = items;
    all.push(setup.trigger);
    all.push(y);
    assert_eq!(filter.len(), all.len());
    (filter, all, x)
}

#[test]
fn remove_takes_the_newest_chains_match() {
    // Every interleaving: the remove and the lookup meet in one word (the
    // second chain's table, two buckets of two 14-bit slots) and its
    // stripes' versions, a handful of executions.
    check(
        "16b remove with a match in two chains vs lookup",
        UNBOUNDED,
        || {
            let (filter, items, x) = chains_with_a_colliding_item();
            let y = *items.last().unwrap();
            let filter = Arc::new(filter);
            let reader = {
                let filter = Arc::clone(&filter);
                thread::spawn(move || filter.contains(&PreHashed(x)))
            };
            assert!(filter.remove(&PreHashed(y)), "y's remove found no match");
            assert!(
                reader.join().unwrap(),
                "a lookup of x missed it while y was removed"
            );
            assert!(
                filter.contains(&PreHashed(x)),
                "y's remove took x's entry in the first chain"
            );
            let kept = &items[..items.len() - 1];
            assert!(kept.iter().all(|&h| filter.contains(&PreHashed(h))));
            assert_eq!(filter.len(), kept.len());
        },
    );
}

/// The remove's two paths across the step: before the gate closes it
/// takes the item's entry from the first chain as the current one (the
/// step waits for it to leave the gate, then keeps that generation as it
/// is); after, it waits at the closed gate and finds the entry in the
/// first chain as an earlier one. Neither 16a nor 16b has a writer racing
/// the step.
///
/// No broken variant fails it by its race (`chains_lookup_newest_only`
/// fails it, in the lookups of the first chain's items after), and none
/// of those there are could: a remove is right on either side of the
/// step, and with the gate left open (`cuckoo_broken_grow_no_gate`, which
/// passes) a remove in flight across the step still writes the generation
/// the step keeps, which every later lookup reads. (The gate across a
/// chain's start keeps inserts out of the chain left behind; nothing here
/// depends on it.) `reclaim_no_wait` passes too: the remove reads the
/// state it loaded only inside the gate, which the step waits to drain
/// before it retires that state.
///
/// Bound 5: about 33,000 executions in 9 s (bound 6: 107,000 in 30 s; with
/// no bound it ran past 10 minutes).
#[test]
fn remove_of_a_first_chain_item_during_a_chain_start() {
    check(
        "16c remove of a first-chain item vs the start of a chain",
        5,
        || {
            let setup = last_generation();
            let items = setup.items();
            let (filter, trigger) = (Arc::new(setup.filter), setup.trigger);
            // Not an item of the trigger's block: removed first, it would make
            // room there, and no chain would start.
            let gone = setup.other;
            let remover = {
                let filter = Arc::clone(&filter);
                thread::spawn(move || filter.remove(&PreHashed(gone)))
            };
            filter.insert(&PreHashed(trigger)).unwrap();
            assert_eq!(filter.statistics().tables, 2, "the insert started a chain");
            assert!(remover.join().unwrap(), "the remove found no match");
            assert!(
                items
                    .iter()
                    .filter(|&&h| h != gone)
                    .all(|&h| filter.contains(&PreHashed(h))),
                "an item was lost to a remove racing the start of a chain"
            );
            assert!(filter.contains(&PreHashed(trigger)));
            assert_eq!(filter.len(), items.len(), "len: items + trigger - one");
        },
    );
}

/// A unique insert of an item of the first chain racing the insert that
/// starts the second. Before the gate closes it runs on the first chain as
/// the current one, whose pair holds the item; after, the item is in an
/// earlier chain, which the unique insert must ask first
/// (`State::unique_held_earlier`): either way it adds nothing.
///
/// Broken variant it catches: `cuckoo_broken_unique_current_chain_only`
/// (the unique insert asks the current chain alone, as it did until
/// 2026-11-30, and stores a second copy once the step is over).
///
/// Bound 5, as 16c: the unique insert takes the same gate and locks as the
/// remove there.
#[test]
fn unique_insert_of_a_first_chain_item_during_a_chain_start() {
    check(
        "16d unique insert of a first-chain item vs the start of a chain",
        5,
        || {
            let setup = last_generation();
            let items = setup.items();
            let (filter, trigger) = (Arc::new(setup.filter), setup.trigger);
            let held = setup.full[0];
            let adder = {
                let filter = Arc::clone(&filter);
                thread::spawn(move || filter.insert_unique(&PreHashed(held)))
            };
            filter.insert(&PreHashed(trigger)).unwrap();
            assert_eq!(filter.statistics().tables, 2, "the insert started a chain");
            assert_eq!(
                adder.join().unwrap(),
                Ok(false),
                "a unique insert added a second copy of an item the first chain holds"
            );
            assert!(items.iter().all(|&h| filter.contains(&PreHashed(h))));
            assert_eq!(filter.len(), items.len() + 1, "len: items + trigger");
        },
    );
}
