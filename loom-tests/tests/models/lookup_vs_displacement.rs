//! Model 1: a lookup racing a displacement of the item it looks up.
//!
//! **Invariant: the lookup is never false.** `x` was inserted before the
//! lookup began and is never removed; the writer's insert of `y` finds both
//! of `y`'s buckets full and moves `x` to its other bucket (one hop of a
//! displacement path) while the lookup reads `x`'s two buckets. Whatever the
//! interleaving, and whichever older values loom hands the lookup's relaxed
//! loads, `contains(x)` is true; afterwards every item is found and `len` is
//! exact.
//!
//! Two directions, because a lookup reads the primary bucket first: a move
//! primary -> alternate can only be missed through stale reads, a move
//! alternate -> primary is missed even under sequential consistency if the
//! lookup reads the primary before the copy and the alternate after the
//! clear.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, one_hop_to_alternate, one_hop_to_primary, tiny, OneHop};
use loom::sync::Arc;
use loom::thread;

/// The main thread inserts `y` (moving `x`) while a spawned thread looks up
/// `x`.
fn race(bucket_size: usize, setup: fn(&cuckoo_nest::CuckooFilter) -> OneHop) {
    let filter = Arc::new(tiny(bucket_size));
    let OneHop { x, y, others, .. } = setup(&filter);
    let len_before = filter.len();
    let reader = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.contains(&PreHashed(x.hash)))
    };
    filter
        .insert(&PreHashed(y.hash))
        .expect("insert with a free slot one hop away");
    assert!(
        reader.join().unwrap(),
        "false negative: lookup missed {x:?} while it was displaced"
    );
    for it in others.iter().chain([&x, &y]) {
        assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
    assert_eq!(filter.len(), len_before + 1);
}

#[test]
fn lookup_never_misses_an_item_moving_to_its_alternate() {
    check("1a lookup vs move primary->alternate, b=2", 3, || {
        race(2, one_hop_to_alternate)
    });
}

#[test]
fn lookup_never_misses_an_item_moving_to_its_primary() {
    check("1b lookup vs move alternate->primary, b=2", 3, || {
        race(2, one_hop_to_primary)
    });
}

/// Four-slot buckets: one 64-bit word per bucket, another kernel path.
#[test]
fn four_slot_buckets_item_moving_to_its_alternate() {
    check("1c lookup vs move primary->alternate, b=4", 3, || {
        race(4, one_hop_to_alternate)
    });
}

#[test]
fn four_slot_buckets_item_moving_to_its_primary() {
    check("1d lookup vs move alternate->primary, b=4", 3, || {
        race(4, one_hop_to_primary)
    });
}
