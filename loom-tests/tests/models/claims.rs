//! Model 15: an insert that claims a free slot without a lock, racing a
//! displacement hop into the same slot.
//!
//! The table of [`one_hop_to_alternate`], with one more item `w` in `x`'s
//! other bucket R, so that R has exactly one free slot. The main thread
//! inserts `y`, whose buckets are full: it moves `x` from P into R's free
//! slot. A spawned thread inserts `z` (primary R, alternate S, which has
//! room) with no lock: it claims R's free slot if it finds it first, else a
//! slot of S. Both writes into R's slot are compare-and-swaps, so whichever
//! comes second finds the slot filled: the claim takes S, the hop stops and
//! the search runs again (it then moves another fingerprint, or `x` on a
//! longer path).
//!
//! **Invariant: nothing is lost.** Afterwards every item is found and `len`
//! is exact. With two 16-bit slots per bucket, R and its neighbour bucket
//! share a 64-bit word, so the claim's compare-and-swap also meets the
//! hop's writes to the other half of the word; with four slots a bucket is
//! its word. Broken variants: `cuckoo_broken_mover_overwrites` (the hop
//! writes over the claimed slot: `z` is lost) and `cuckoo_broken_plain_store`
//! (both write with a load and a store: one of them is lost).
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, one_hop_to_alternate, place, tiny, Aim, OneHop, R};
use loom::sync::Arc;
use loom::thread;

/// The fourth bucket, where `z` goes if R is taken.
const S: usize = 3;

fn race(bucket_size: usize) {
    let filter = Arc::new(tiny(bucket_size));
    let OneHop {
        x, y, mut others, ..
    } = one_hop_to_alternate(&filter);
    // A second aim starts over, so it is told the fingerprints in use: a
    // copy of another item's fingerprint could answer for that item.
    let mut used: Vec<u32> = others.iter().chain([&x, &y]).map(|it| it.fp).collect();
    let mut aim = Aim::new(&filter);
    let mut fresh = |want: &dyn Fn(usize, usize) -> bool| {
        let it = aim.item(|it| want(it.i1, it.i2) && !used.contains(&it.fp));
        used.push(it.fp);
        it
    };
    // Fill R but one slot (x's one-hop setup leaves R empty).
    for _ in 0..bucket_size - 1 {
        let w = fresh(&|i1, i2| i1 == R && i2 != S);
        place(&filter, &w, R);
        others.push(w);
    }
    let z = fresh(&|i1, i2| i1 == R && i2 == S);
    let len_before = filter.len();
    let claimer = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.insert(&PreHashed(z.hash)))
    };
    filter
        .insert(&PreHashed(y.hash))
        .expect("insert with a free slot one hop away");
    claimer
        .join()
        .unwrap()
        .expect("z's buckets have room between them");
    for it in others.iter().chain([&x, &y, &z]) {
        assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
    assert_eq!(filter.len(), len_before + 2);
}

#[test]
fn claim_races_a_hop_into_the_same_slot() {
    check("15a claim vs hop into one slot, b=2", 3, || race(2));
}

#[test]
fn four_slot_buckets_claim_races_a_hop_into_the_same_slot() {
    check("15b claim vs hop into one slot, b=4", 3, || race(4));
}
