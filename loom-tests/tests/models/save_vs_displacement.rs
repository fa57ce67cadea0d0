//! Model 13: a save racing a displacement hop across the save's progress.
//!
//! **Invariant: the saved filter holds every item inserted before the save
//! began.** A save copies the table a chunk at a time (in these four-bucket
//! tables, one bucket per chunk with four slots, two buckets with two), and
//! writers run between chunks. The writer's insert of `y` finds both of
//! `y`'s buckets full and moves `x` one hop, between a bucket the save
//! copies early and one it copies late, while another thread saves
//! (`to_bytes`). Loaded back (the load audits that the saved item count is
//! what the saved table holds), the copy must find `x` and every other item
//! inserted before.
//!
//! Backwards (from a late bucket to an early one) is the hazard: the early
//! bucket copied before `x` arrived, the late one after it left, and `x` is
//! in neither. The insert must then copy its buckets' chunks ahead of the
//! save, or find another path. Forwards may save `x` twice, never zero
//! times. With the check broken (`cuckoo_broken_save_ignores_marks`) the
//! backward models fail.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::{CuckooFilter, PreHashed};
use cuckoo_nest_loom_tests::{check, place, tiny, Aim, Item};
use loom::sync::Arc;
use loom::thread;

/// A table where inserting `y` moves `x` from bucket `from` to bucket `to`
/// (`x`'s two buckets): `y`'s buckets `from` and `third` are full, `x` sits
/// in slot 0 of `from` (so the search tries it first), `to` is empty.
fn setup(filter: &CuckooFilter, from: usize, to: usize, third: usize) -> (Item, Item, Vec<Item>) {
    let b = filter.shape().bucket_size;
    let mut aim = Aim::new(filter);
    let x = aim.at(from, to);
    let mut others = Vec::new();
    for bucket in std::iter::repeat_n(from, b - 1).chain(std::iter::repeat_n(third, b)) {
        others.push(aim.primary(bucket, &[to]));
    }
    let y = aim.at(from, third);
    place(filter, &x, from);
    for it in &others {
        place(filter, it, it.i1);
    }
    (x, y, others)
}

/// The main thread inserts `y` (moving `x` from `from` to `to`) while a
/// spawned thread saves.
fn race(bucket_size: usize, from: usize, to: usize, third: usize) {
    let filter = Arc::new(tiny(bucket_size));
    let (x, y, others) = setup(&filter, from, to, third);
    let saver = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.to_bytes())
    };
    filter
        .insert(&PreHashed(y.hash))
        .expect("room one hop away");
    let saved = CuckooFilter::from_bytes(&saver.join().unwrap()).expect("a save loads");
    let copies = saved.count(&PreHashed(x.hash));
    assert!(
        copies == 1 || (copies == 2 && from < to),
        "{x:?} saved {copies} times while it moved from {from} to {to}"
    );
    for it in &others {
        assert!(
            saved.contains(&PreHashed(it.hash)),
            "{it:?} missing from the save"
        );
    }
    let live = filter.len();
    assert!(
        (live - 1..=live + 1).contains(&saved.len()),
        "y in or out, x perhaps twice"
    );
    assert_eq!(cuckoo_nest_loom_tests::copies(&filter, &x), 1, "live x");
}

/// Four slots: one bucket per chunk. `x` moves from bucket 2 (copied
/// third) to bucket 0 (copied first).
#[test]
fn save_keeps_an_item_moving_backwards() {
    check("13a save vs hop 2->0, b=4", 2, || race(4, 2, 0, 3));
}

/// `x` moves from bucket 0 to bucket 2: saved once or twice, never lost.
#[test]
fn save_keeps_an_item_moving_forwards() {
    check("13b save vs hop 0->2, b=4", 2, || race(4, 0, 2, 3));
}

/// Two slots: two buckets per chunk, so the save is two chunks and the
/// hop from bucket 3 to bucket 1 crosses between them.
#[test]
fn two_slot_save_keeps_an_item_moving_backwards() {
    check("13c save vs hop 3->1, b=2", 2, || race(2, 3, 1, 2));
}

/// 13d: a save racing an insert and a remove of `y`, an item colliding
/// with `x` (same fingerprint, same pair; `y`'s first bucket is `x`'s
/// bucket 2, full, so `y`'s copy goes to bucket 0). The remove then holds
/// copies in both buckets; taking the one in bucket 2 would hand the answer
/// for `x` to the copy in bucket 0, which arrived after the save may have
/// copied bucket 0, while bucket 2 is copied after the remove: `x` in
/// neither. The remove must take bucket 0's copy while the save has copied
/// bucket 0 and not bucket 2 (`cuckoo_broken_remove_ignores_save` takes
/// bucket 2's, and fails).
#[test]
fn save_keeps_an_item_whose_colliding_copy_is_removed() {
    check("13d save vs colliding insert + remove, b=4", 2, || {
        let filter = Arc::new(tiny(4));
        let mut aim = Aim::new(&filter);
        let x = aim.at(2, 0);
        place(&filter, &x, 2);
        let fillers: Vec<Item> = (0..3).map(|_| aim.primary(2, &[0])).collect();
        for it in &fillers {
            place(&filter, it, 2);
        }
        let y = aim.same_fingerprint(&x, 2);
        let saver = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.to_bytes())
        };
        filter
            .insert(&PreHashed(y.hash))
            .expect("bucket 0 has room");
        assert!(filter.remove(&PreHashed(y.hash)));
        let saved = CuckooFilter::from_bytes(&saver.join().unwrap()).expect("a save loads");
        assert!(
            saved.contains(&PreHashed(x.hash)),
            "{x:?} lost from the save"
        );
        for it in &fillers {
            assert!(
                saved.contains(&PreHashed(it.hash)),
                "{it:?} missing from the save"
            );
        }
        assert!(filter.contains(&PreHashed(x.hash)), "live x");
    });
}
