//! Model 10: items that share a fingerprint and a bucket pair.
//!
//! The table holds copies of a fingerprint in a bucket pair, not items, so a
//! copy that answers for one item can be cleared by the remove of another.
//! Item `x` (primary P, alternate Q) sits in Q because P was full; Q is full,
//! P has one free slot. `z` (primary Q) and `w` (primary P) have `x`'s
//! fingerprint and pair. `insert(z)` finds Q full and puts a copy in P;
//! `remove(z)` scans its primary Q first and clears the copy there, the one
//! that was answering for `x`. Nothing was displaced, yet the answer for `x`
//! went from Q to P: a lookup of `x` that loads P before the insert and Q
//! after the remove sees neither copy. `insert(w)` + `remove(w)` move it
//! back.
//!
//! **Invariant: a lookup of an item that stays is never false**, whatever
//! its colliding neighbours do; afterwards exactly the copies of the items
//! still in are left, and `len` is exact. What makes it hold: a remove that
//! leaves another copy of its fingerprint in the pair is versioned like a
//! move (`src/insert.rs`, `remove`); `cuckoo_broken_remove_unversioned`
//! takes that away.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::{CuckooFilter, PreHashed};
use cuckoo_nest_loom_tests::{check, copies, place, snapshot, tiny, Aim, Item, P, R};
use loom::sync::Arc;
use loom::thread;

/// The pair every model aims at: buckets 0 and 2. Not 0 and 1: with two
/// 16-bit slots per bucket those two share one 64-bit word, and a lookup
/// that loads the word a second time cannot read it older than the first
/// time (coherence), so the race needs three answer moves to show instead of
/// one, beyond the models' preemption bounds.
const PAIR: (usize, usize) = (P, R);

/// The table described above, for bucket size `b` and [`PAIR`] = (P, Q):
/// `x` in Q, Q full, one free slot in P, and (with `w_in_p`) a copy of `w`
/// already in P, which then has one free slot left beside it.
struct Family {
    filter: Arc<CuckooFilter>,
    x: Item,
    z: Item,
    w: Item,
    fillers: Vec<Item>,
}

fn family(b: usize, w_in_p: bool) -> Family {
    let (p, q) = PAIR;
    let filter = tiny(b);
    let mut aim = Aim::new(&filter);
    let x = aim.at(p, q);
    let z = aim.same_fingerprint(&x, q);
    let w = aim.same_fingerprint(&x, p);
    let in_p: Vec<_> = (0..b).map(|_| aim.primary(p, &[])).collect();
    let in_q: Vec<_> = (0..b - 1).map(|_| aim.primary(q, &[])).collect();
    // P full, so x goes to its alternate Q; then P gets its free slot.
    for it in &in_p {
        place(&filter, it, p);
    }
    place(&filter, &x, q);
    for it in &in_q {
        place(&filter, it, q);
    }
    assert!(
        filter.remove(&PreHashed(in_p[0].hash)),
        "setup: free a slot in P"
    );
    let mut fillers: Vec<_> = in_p[1..].to_vec();
    fillers.extend(in_q);
    if w_in_p {
        // w's copy takes a filler's place in P, leaving the one free slot.
        assert!(
            filter.remove(&PreHashed(fillers[0].hash)),
            "setup: room for w"
        );
        fillers.remove(0);
        place(&filter, &w, p);
    }
    assert_eq!(copies(&filter, &x), 1 + w_in_p as usize);
    assert!(
        !filter.debug_bucket(q).contains(&0),
        "setup: Q full: {:?}",
        snapshot(&filter)
    );
    Family {
        filter: Arc::new(filter),
        x,
        z,
        w,
        fillers,
    }
}

/// Spawns a thread that looks `x` up once.
fn look_up(filter: &Arc<CuckooFilter>, x: Item) -> thread::JoinHandle<bool> {
    let filter = Arc::clone(filter);
    thread::spawn(move || filter.contains(&PreHashed(x.hash)))
}

/// `insert(z)` (into P) then `remove(z)` (clears Q's copy).
fn flip_to_p(filter: &CuckooFilter, z: &Item) {
    filter
        .insert(&PreHashed(z.hash))
        .expect("P has a free slot");
    assert!(
        filter.remove(&PreHashed(z.hash)),
        "z's fingerprint is in the pair"
    );
}

/// After the race: `x` found, `expected` copies of its fingerprint, the
/// fillers found, `len` as given.
fn settled(f: &Family, expected: usize, len: usize) {
    assert!(f.filter.contains(&PreHashed(f.x.hash)), "x lost");
    assert_eq!(
        copies(&f.filter, &f.x),
        expected,
        "{:?}",
        snapshot(&f.filter)
    );
    for it in &f.fillers {
        assert!(f.filter.contains(&PreHashed(it.hash)), "{it:?} lost");
    }
    assert_eq!(f.filter.len(), len);
}

fn flip_once(b: usize) {
    let f = family(b, false);
    let len = f.filter.len();
    let reader = look_up(&f.filter, f.x);
    flip_to_p(&f.filter, &f.z);
    assert!(
        reader.join().unwrap(),
        "false negative: {:?} missed while a colliding item's insert and remove moved its answer",
        f.x
    );
    settled(&f, 1, len);
}

#[test]
fn lookup_survives_one_answer_move() {
    check("10a lookup vs colliding insert+remove, b=2", 3, || {
        flip_once(2)
    });
}

#[test]
fn four_slot_buckets_lookup_survives_one_answer_move() {
    check("10b lookup vs colliding insert+remove, b=4", 3, || {
        flip_once(4)
    });
}

/// The answer moves to P and back while one lookup runs.
#[test]
#[cfg_attr(
    cuckoo_small_stamp,
    ignore = "two versioned sections on one stripe during one lookup wrap a 2-bit version back to where it started: what the real width is for (model 7)"
)]
fn lookup_survives_the_answer_moving_back_and_forth() {
    check("10c lookup vs two answer moves, b=2", 2, || {
        let f = family(2, false);
        let len = f.filter.len();
        let reader = look_up(&f.filter, f.x);
        flip_to_p(&f.filter, &f.z);
        // w (primary P) finds P full now and lands in Q's freed slot; its
        // remove scans P first and clears the copy there.
        f.filter
            .insert(&PreHashed(f.w.hash))
            .expect("Q has a free slot");
        assert!(f.filter.remove(&PreHashed(f.w.hash)));
        assert!(reader.join().unwrap(), "false negative after two moves");
        settled(&f, 1, len);
    });
}

#[test]
fn batch_lookup_survives_one_answer_move() {
    check(
        "10d batch lookup vs colliding insert+remove, b=2",
        3,
        || {
            let f = family(2, false);
            let len = f.filter.len();
            let batch = [f.x.hash, f.fillers[0].hash, f.x.hash];
            let reader = {
                let filter = Arc::clone(&f.filter);
                thread::spawn(move || {
                    let mut out = vec![false; batch.len()];
                    let hits = filter
                        .contains_batch_into(batch.iter().map(|&h| PreHashed(h)), &mut out)
                        .unwrap();
                    (hits, out)
                })
            };
            flip_to_p(&f.filter, &f.z);
            let (hits, out) = reader.join().unwrap();
            assert_eq!(out, [true, true, true], "false negative in a batch");
            assert_eq!(hits, 3);
            settled(&f, 1, len);
        },
    );
}

/// Two colliding removes at once: `w`'s (its copy in P) and `z`'s (after
/// its insert), while `x` is looked up. Exactly `x`'s copy is left.
#[test]
#[cfg_attr(
    cuckoo_small_stamp,
    ignore = "two versioned sections on one stripe during one lookup wrap a 2-bit version back to where it started: what the real width is for (model 7)"
)]
fn colliding_removes_race_a_lookup() {
    check("10e colliding remove vs remove vs lookup, b=2", 2, || {
        let f = family(2, true);
        let len = f.filter.len();
        let reader = look_up(&f.filter, f.x);
        let remover = {
            let (filter, w) = (Arc::clone(&f.filter), f.w);
            thread::spawn(move || filter.remove(&PreHashed(w.hash)))
        };
        // Q stays full and P keeps at least one free slot whatever the
        // remover does, so z's insert lands in P without displacing.
        flip_to_p(&f.filter, &f.z);
        assert!(remover.join().unwrap(), "w's copy was there to remove");
        assert!(reader.join().unwrap(), "false negative under two removes");
        settled(&f, 1, len - 1);
    });
}

/// `insert_unique(w)` while the answer for `x` moves: a copy of the
/// fingerprint is in the pair throughout (x's), so it must see one and add
/// nothing; before it, the same thread looks `x` up, racing the move. (One
/// spawned thread, not two: with a lookup waiting out an odd version and an
/// insert waiting for a lock in two threads, loom's scheduler hands the
/// processor between the two spinners until its branch limit, see
/// docs/verification.md.)
#[test]
fn insert_unique_races_a_colliding_remove() {
    check(
        "10f insert_unique vs colliding insert+remove, b=2",
        3,
        || {
            let f = family(2, false);
            let len = f.filter.len();
            let other = {
                let (filter, w, x) = (Arc::clone(&f.filter), f.w, f.x);
                thread::spawn(move || {
                    let found = filter.contains(&PreHashed(x.hash));
                    (filter.insert_unique(&PreHashed(w.hash)), found)
                })
            };
            flip_to_p(&f.filter, &f.z);
            let (unique, found) = other.join().unwrap();
            assert_eq!(
                unique,
                Ok(false),
                "insert_unique missed the copy that was in the pair throughout"
            );
            assert!(found, "false negative");
            settled(&f, 1, len);
        },
    );
}
