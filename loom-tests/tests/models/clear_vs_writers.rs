//! Model 8: `clear` racing inserts and lookups.
//!
//! **Invariant: no torn state, no panic.** A lookup sees the table before
//! the clear or after it, never half cleared: once one lookup has found an
//! item gone, a later lookup (same thread) finds no other pre-clear item.
//! (That holds for the words one versioned section of the clear zeroes: the
//! whole table below 2^16 buckets, as here; a larger table is cleared in
//! sections, and the same holds per section.)
//! An insert racing the clear either lands before it (and is cleared) or
//! after it (and stays): afterwards every slot is empty or holds the new
//! item, and `len` is 1 exactly when the new item is found.
//!
//! One racing thread per model. With the clear, an insert and a lookup all
//! at once, loom's scheduler can keep the two spinning threads (the lookup
//! waiting out the odd versions, the insert waiting for a lock) handing the
//! processor to each other while the preempted clear never runs again, and
//! the search dies on loom's branch limit: a property of loom's handling of
//! spin loops, not of the table, so the race is checked pairwise instead.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, place, snapshot, tiny, Aim, P, Q};
use loom::sync::Arc;
use loom::thread;

/// The clear zeroes bucket words in order; `x1` (bucket 0, word 0) is
/// zeroed before `x2` (bucket 2, word 1). A lookup of `x1` then `x2` must
/// never see `x1` gone and `x2` still there.
#[test]
fn lookups_see_before_or_after_the_clear() {
    check("8a clear vs lookups", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let x1 = aim.primary(0, &[]);
        let x2 = aim.primary(2, &[]);
        place(&filter, &x1, 0);
        place(&filter, &x2, 2);
        let filter = Arc::new(filter);

        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || {
                (
                    filter.contains(&PreHashed(x1.hash)),
                    filter.contains(&PreHashed(x2.hash)),
                )
            })
        };
        filter.clear();
        let (saw1, saw2) = reader.join().unwrap();
        assert!(saw1 || !saw2, "torn clear: x1 gone but x2 still there");
        assert!(snapshot(&filter).iter().flatten().all(|&f| f == 0));
        assert_eq!(filter.len(), 0);
    });
}

/// A plain insert (its bucket has room) racing the clear: it lands before
/// (and is cleared) or after (and stays), never half.
#[test]
fn insert_lands_before_or_after_the_clear() {
    check("8b clear vs insert", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let x1 = aim.primary(0, &[]);
        let y = aim.primary(0, &[]);
        place(&filter, &x1, 0);
        clear_racing_insert(filter, y.hash, y.fp);
    });
}

/// The racing insert needs a displacement (its buckets P and Q are full),
/// so the clear can land between its search and its hops: the hop's
/// re-check under the locks sees the changed table and the insert retries.
#[test]
fn clear_lands_inside_a_displacement() {
    check("8c clear vs displacing insert", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let full: Vec<_> = [P, P, Q, Q].iter().map(|&b| aim.primary(b, &[])).collect();
        let y = aim.at(P, Q);
        for (it, b) in full.iter().zip([P, P, Q, Q]) {
            place(&filter, it, b);
        }
        clear_racing_insert(filter, y.hash, y.fp);
    });
}

/// Clears `filter` while another thread inserts `hash`, then checks what
/// is left ([`after_clear`]).
fn clear_racing_insert(filter: cuckoo_nest::CuckooFilter, hash: u64, fp: u32) {
    let filter = Arc::new(filter);
    let inserter = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.insert(&PreHashed(hash)))
    };
    filter.clear();
    inserter.join().unwrap().expect("room in the table");
    after_clear(&filter, hash, fp);
}

/// Every slot empty or holding `fp`; `len` agrees with what is there.
fn after_clear(filter: &cuckoo_nest::CuckooFilter, hash: u64, fp: u32) {
    let table = snapshot(filter);
    let held = table.iter().flatten().filter(|&&f| f != 0).count();
    assert!(
        table.iter().flatten().all(|&f| f == 0 || f == fp),
        "pre-clear fingerprints survived: {table:?}"
    );
    assert!(held <= 1, "{table:?}");
    assert_eq!(filter.contains(&PreHashed(hash)), held == 1);
    assert_eq!(filter.len(), held, "len after clear: {table:?}");
}
