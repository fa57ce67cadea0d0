//! Model 5: `insert_unique` racing `insert_unique` of the same item.
//!
//! **Invariant: exactly one copy.** Exactly one call returns `Ok(true)`, the
//! other `Ok(false)`; afterwards the item's fingerprint is in its buckets
//! exactly once and `len` grew by one. The presence check and the placement
//! happen under the same stripe locks, including when the first placement
//! attempt finds both buckets full and the insert displaces and retries.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, copies, place, tiny, Aim, Item, P, Q};
use loom::sync::Arc;
use loom::thread;

fn race(filter: cuckoo_nest::CuckooFilter, x: Item, others: Vec<Item>) {
    let filter = Arc::new(filter);
    let len_before = filter.len();
    let other = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.insert_unique(&PreHashed(x.hash)))
    };
    let mine = filter
        .insert_unique(&PreHashed(x.hash))
        .expect("room in the table");
    let theirs = other.join().unwrap().expect("room in the table");
    assert!(
        mine ^ theirs,
        "added: {mine} and {theirs}, want exactly one"
    );
    assert_eq!(copies(&filter, &x), 1, "copies of {x:?}");
    assert_eq!(filter.len(), len_before + 1);
    for it in &others {
        assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
}

/// Both buckets have room: the plain fast path.
#[test]
fn one_copy_with_room() {
    check("5a unique vs unique, room", 3, || {
        let filter = tiny(2);
        let x = Aim::new(&filter).at(P, Q);
        race(filter, x, vec![]);
    });
}

/// Both buckets full: each writer displaces before placing, and must find
/// the other's copy when it comes back for the slot.
#[test]
fn one_copy_after_displacing() {
    check("5b unique vs unique, displacing", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let others: Vec<_> = [P, P, Q, Q].iter().map(|&b| aim.primary(b, &[])).collect();
        let x = aim.at(P, Q);
        for (it, b) in others.iter().zip([P, P, Q, Q]) {
            place(&filter, it, b);
        }
        race(filter, x, others);
    });
}
