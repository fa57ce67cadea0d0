//! Model 4: an insert that fails because the table is full, racing lookups.
//!
//! **Invariant: every earlier item is still found, during and after, and
//! the table is unchanged.** The failing insert locks the item's buckets,
//! searches every displacement path without locks and finds no free slot;
//! it must return `InsertError::Full` having moved nothing (no victim
//! dropped, no half-done path), while lookups of the items in its buckets
//! run alongside.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::{InsertError, PreHashed};
use cuckoo_nest_loom_tests::{check, snapshot, tiny, Aim, BUCKETS};
use loom::sync::Arc;
use loom::thread;

#[test]
fn failed_insert_changes_nothing() {
    check("4 failed insert vs lookups", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        // Two items per bucket, each in its primary: all eight slots full.
        let mut items = Vec::new();
        for b in 0..BUCKETS {
            for _ in 0..2 {
                let it = aim.primary(b, &[]);
                filter.insert(&PreHashed(it.hash)).expect("setup insert");
                items.push(it);
            }
        }
        let z = aim.item(|_| true);
        let before = snapshot(&filter);
        assert!(before.iter().flatten().all(|&fp| fp != 0), "setup: full");
        // The items sharing z's buckets: the ones a buggy failure would touch.
        let watched: Vec<_> = items
            .iter()
            .copied()
            .filter(|it| [z.i1, z.i2].iter().any(|&b| before[b].contains(&it.fp)))
            .collect();
        let filter = Arc::new(filter);

        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || {
                watched
                    .iter()
                    .all(|it| filter.contains(&PreHashed(it.hash)))
            })
        };
        let err = filter.insert(&PreHashed(z.hash)).unwrap_err();
        assert!(matches!(err, InsertError::Full { .. }), "{err}");
        assert!(
            reader.join().unwrap(),
            "a lookup missed an item during the failed insert"
        );

        assert_eq!(
            snapshot(&filter),
            before,
            "the failed insert changed the table"
        );
        assert_eq!(filter.len(), items.len());
        for it in &items {
            assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
        }
    });
}
