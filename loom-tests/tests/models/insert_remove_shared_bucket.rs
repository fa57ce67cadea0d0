//! Model 3: an insert and a remove of different items that share a bucket
//! (or a bucket word).
//!
//! **Invariant: the survivor is found.** The inserted item is found
//! afterwards, the removed one is gone, a bystander sharing the bucket is
//! found throughout (plain inserts and removes never make a lookup miss an
//! unrelated item), and `len` is exact.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, copies, place, tiny, Aim, P, Q, R};
use loom::sync::Arc;
use loom::thread;

/// `x` and `z` fill bucket P; `y`'s buckets are P and Q (Q has room). The
/// main thread removes `x` while one spawned thread inserts `y` (into P if
/// the remove came first, else into Q) and another looks up `z`.
#[test]
fn survivor_in_a_shared_bucket_is_found() {
    check("3a insert vs remove, shared bucket", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let x = aim.primary(P, &[Q]);
        let z = aim.primary(P, &[]);
        let q1 = aim.primary(Q, &[]);
        let y = aim.at(P, Q);
        place(&filter, &x, P);
        place(&filter, &z, P);
        place(&filter, &q1, Q);
        let filter = Arc::new(filter);
        let len_before = filter.len();

        let inserter = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.insert(&PreHashed(y.hash)))
        };
        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.contains(&PreHashed(z.hash)))
        };
        assert!(
            filter.remove(&PreHashed(x.hash)),
            "remove of a present item"
        );
        inserter.join().unwrap().expect("insert with room");
        assert!(reader.join().unwrap(), "bystander {z:?} missed");

        assert!(filter.contains(&PreHashed(y.hash)), "inserted {y:?} lost");
        assert_eq!(copies(&filter, &x), 0, "removed {x:?} still there");
        for it in [z, q1] {
            assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
        }
        assert_eq!(filter.len(), len_before);
    });
}

/// Buckets 0 and 1 share one 64-bit word (two slots of 16 bits each) but
/// not a stripe: `x` (buckets 0 and 2) is removed while `y` (buckets 1 and
/// 3) goes in, under disjoint locks, with read-modify-writes to the same
/// word. Neither may undo the other.
#[test]
fn writers_under_different_locks_share_a_word() {
    check("3b insert vs remove, shared word", 3, || {
        let filter = tiny(2);
        let mut aim = Aim::new(&filter);
        let x = aim.at(0, R);
        let z = aim.primary(0, &[1]);
        let y = aim.at(1, 3);
        place(&filter, &x, 0);
        place(&filter, &z, 0);
        let filter = Arc::new(filter);
        let len_before = filter.len();

        let inserter = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.insert(&PreHashed(y.hash)))
        };
        assert!(
            filter.remove(&PreHashed(x.hash)),
            "remove of a present item"
        );
        inserter
            .join()
            .unwrap()
            .expect("insert into an empty bucket");

        assert!(filter.contains(&PreHashed(y.hash)), "inserted {y:?} lost");
        assert!(filter.contains(&PreHashed(z.hash)), "bystander {z:?} lost");
        assert_eq!(copies(&filter, &x), 0, "removed {x:?} came back");
        assert_eq!(filter.len(), len_before);
    });
}
