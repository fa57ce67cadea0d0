//! Model 2: two writers inserting into the same nearly full buckets (2a,
//! 2b: two-slot buckets, two to a word; 2c: four-slot buckets, a word each).
//!
//! **Invariant: both inserts succeed, both items are found afterwards with
//! every earlier item, `len` counts both, and neither writer waits forever
//! (no deadlock).** The two new items have the same two buckets P and Q but
//! in opposite order (one's primary is the other's alternate), so their
//! writers ask for the same two stripe locks in opposite argument order;
//! only the global lock order keeps them from deadlocking. A deadlock shows
//! as both threads spinning until loom's branch limit fails the model.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, place, tiny, Aim, Item, P, Q};
use loom::sync::Arc;
use loom::thread;

fn race(filter: cuckoo_nest::CuckooFilter, a: Item, b: Item, others: Vec<Item>) {
    let filter = Arc::new(filter);
    let len_before = filter.len();
    let other = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.insert(&PreHashed(b.hash)))
    };
    let ra = filter.insert(&PreHashed(a.hash));
    let rb = other.join().unwrap();
    assert_eq!((ra, rb), (Ok(()), Ok(())), "inserts with room in the table");
    for it in others.iter().chain([&a, &b]) {
        assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
    assert_eq!(filter.len(), len_before + 2);
}

/// P full, one free slot in Q: one writer takes it, the other displaces.
#[test]
fn one_free_slot_two_writers() {
    check("2a two writers, one free slot", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let p1 = aim.primary(P, &[]);
        let p2 = aim.primary(P, &[]);
        let q1 = aim.primary(Q, &[]);
        let a = aim.at(P, Q);
        let b = aim.at(Q, P);
        place(&filter, &p1, P);
        place(&filter, &p2, P);
        place(&filter, &q1, Q);
        race(filter, a, b, vec![p1, p2, q1]);
    });
}

/// P and Q full: both writers search for displacement paths and carry them
/// out at the same time, each hop re-checked under its locks.
#[test]
fn both_writers_displace() {
    check("2b two writers, both displace", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let p1 = aim.primary(P, &[]);
        let p2 = aim.primary(P, &[]);
        let q1 = aim.primary(Q, &[]);
        let q2 = aim.primary(Q, &[]);
        let a = aim.at(P, Q);
        let b = aim.at(Q, P);
        place(&filter, &p1, P);
        place(&filter, &p2, P);
        place(&filter, &q1, Q);
        place(&filter, &q2, Q);
        race(filter, a, b, vec![p1, p2, q1, q2]);
    });
}

/// Four-slot buckets of 16 bits: each bucket is one word of its own, which
/// writers set with a load and a store under the bucket's stripe lock (no
/// `fetch_or`). P full, two free slots in Q: both writers may store into
/// Q's one word, one after the other under its lock; neither store may
/// undo the other's, nor a displacement's.
#[test]
fn two_writers_one_word_of_their_own() {
    check("2c two writers, one word per bucket", 3, || {
        let filter = tiny(4);
        let mut aim = Aim::new(&filter);
        let ps: Vec<Item> = (0..4).map(|_| aim.primary(P, &[])).collect();
        let qs: Vec<Item> = (0..2).map(|_| aim.primary(Q, &[])).collect();
        let a = aim.at(P, Q);
        let b = aim.at(Q, P);
        for it in &ps {
            place(&filter, it, P);
        }
        for it in &qs {
            place(&filter, it, Q);
        }
        race(filter, a, b, ps.into_iter().chain(qs).collect());
    });
}
