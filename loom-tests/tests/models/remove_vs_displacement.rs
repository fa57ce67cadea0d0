//! Model 6: `remove` racing a displacement of the same fingerprint.
//!
//! **Invariant: exactly one copy removed, nothing else lost.** The writer's
//! insert moves `x` from P to its other bucket while another thread removes
//! `x`. The remove returns true and takes exactly one copy, wherever the
//! move had got to; the hop, re-checked under its locks, never resurrects
//! the removed fingerprint nor moves a slot that changed since the search.
//! Every other item is found and `len` is exact.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{
    check, copies, one_hop_to_alternate, place, tiny, Aim, OneHop, P, Q, R,
};
use loom::sync::Arc;
use loom::thread;

fn race(filter: cuckoo_nest::CuckooFilter, hop: OneHop, copies_before: usize) {
    let OneHop { x, y, others, .. } = hop;
    let filter = Arc::new(filter);
    let len_before = filter.len();
    let remover = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.remove(&PreHashed(x.hash)))
    };
    filter
        .insert(&PreHashed(y.hash))
        .expect("room one hop away");
    assert!(remover.join().unwrap(), "remove of a present item failed");
    assert_eq!(
        copies(&filter, &x),
        copies_before - 1,
        "copies of {x:?} after one remove"
    );
    for it in others.iter().chain([&y]) {
        assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
    assert_eq!(filter.len(), len_before);
}

/// One copy of `x`: afterwards none.
#[test]
fn remove_of_a_moving_item() {
    check("6a remove vs move, one copy, b=2", 3, || {
        let filter = tiny(2);
        let hop = one_hop_to_alternate(&filter);
        race(filter, hop, 1);
    });
}

/// As above with four-slot buckets.
#[test]
fn four_slot_buckets_remove_of_a_moving_item() {
    check("6c remove vs move, one copy, b=4", 3, || {
        let filter = tiny(4);
        let hop = one_hop_to_alternate(&filter);
        race(filter, hop, 1);
    });
}

/// Two copies of `x` fill P, one of which the insert moves: afterwards
/// exactly one is left.
#[test]
fn remove_one_of_two_copies_while_one_moves() {
    check("6b remove vs move, two copies", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let x = aim.at(P, R);
        let g1 = aim.primary(Q, &[]);
        let g2 = aim.primary(Q, &[]);
        let y = aim.at(P, Q);
        place(&filter, &x, P);
        place(&filter, &x, P);
        place(&filter, &g1, Q);
        place(&filter, &g2, Q);
        let hop = OneHop {
            x,
            y,
            others: vec![g1, g2],
            from: P,
            to: R,
        };
        race(filter, hop, 2);
    });
}
