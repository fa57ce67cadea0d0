//! Model 11: packed slots that straddle two words. Model 12: semi-sorted
//! buckets, which every insert and remove re-encodes.
//!
//! **Invariants.** (11) Two writers under different stripe locks whose
//! slots share a word, one of them a slot split across two words, lose
//! neither write; a lookup of an item whose slot straddles a word boundary
//! never misses it while it moves or while colliding copies come and go.
//! (12) A lookup of an item never misses it while another insert or remove
//! re-encodes its bucket (the item's slot and low bits move inside the
//! bucket, across words), nor while colliding copies come and go.
//!
//! Layouts in a 4-bucket table: packed 2 x 12 bits puts bucket 2 at bits
//! 48..72, so its slot 1 (bits 60..72) straddles words 0 and 1; semi-sorted
//! 4 x 16 bits makes each bucket 60 bits, so bucket 1 (bits 60..120) spans
//! words 0 and 1. Packed 2 x 12 and semi-sorted 4 x 13 (12d) buckets are
//! short enough for the lookup's one-load read (`InBounds::short_bits`),
//! modelled under loom as the two words it touches, the higher first.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::{CuckooFilter, PreHashed};
use cuckoo_nest_loom_tests::{
    check, copies, one_hop_to_primary, place, snapshot, tiny_shape, Aim, Item, OneHop, P, Q, R,
};
use loom::sync::Arc;
use loom::thread;

fn packed() -> CuckooFilter {
    tiny_shape(2, 12, false)
}

fn semi_sorted() -> CuckooFilter {
    tiny_shape(4, 16, true)
}

/// 11a: `y` goes into the straddling slot 1 of bucket 2 (two `fetch_or`s,
/// on words 0 and 1) while `z` goes into bucket 3 (word 1) under another
/// lock. Both must be there afterwards.
#[test]
fn straddling_slot_and_neighbour_share_a_word() {
    check("11a packed: straddling slot vs neighbour insert", 3, || {
        let filter = packed();
        let mut aim = Aim::new(&filter);
        let first = aim.primary(R, &[]);
        let y = aim.primary(R, &[]);
        let z = aim.primary(3, &[R]);
        place(&filter, &first, R);
        let filter = Arc::new(filter);
        let other = {
            let (filter, z) = (Arc::clone(&filter), z);
            thread::spawn(move || filter.insert(&PreHashed(z.hash)))
        };
        filter
            .insert(&PreHashed(y.hash))
            .expect("bucket 2 has room");
        other.join().unwrap().expect("bucket 3 has room");
        assert_eq!(filter.debug_bucket(R)[1], y.fp, "{:?}", snapshot(&filter));
        for it in [first, y, z] {
            assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
        }
        assert_eq!(filter.len(), 3);
    });
}

/// 11e: packed 4 x 12 in a 64-bucket table: 16 stripes of 4 buckets, each
/// run 192 bits. With slots 0, 2 and 3 of bucket 1 taken and `y`'s other
/// bucket full, `y` goes into slot 1 of bucket 1 (bits 60..72, straddling
/// words 0 and 1), under both buckets' locks (a claim without a lock passes
/// over a straddling slot, `Layout::first_claimable`: here it is the pair's
/// one free slot), while `z` claims slot 0 of bucket 2 (bits 96..108, word
/// 1): word 1 is written by both. All must be there afterwards. (`y`'s
/// other bucket starts a word, `i % 4 == 0`, so it has no straddling slot
/// and fills in place.)
#[test]
fn writers_of_one_stripe_share_a_word() {
    check("11e packed: one stripe's writers share a word", 3, || {
        let filter = CuckooFilter::builder()
            .buckets(64)
            .bucket_size(4)
            .fingerprint_bits(12)
            .build()
            .expect("a 64-bucket table is a valid configuration");
        let mut aim = Aim::new(&filter);
        let held: Vec<Item> = (0..3).map(|_| aim.primary(1, &[0, 2, 3])).collect();
        let y = aim.item(|it| it.i1 == 1 && it.i2 % 4 == 0 && it.i2 != 0);
        let full: Vec<Item> = (0..4)
            .map(|_| aim.item(|it| it.i1 == y.i2 && ![1, 2].contains(&it.i2)))
            .collect();
        let z = aim.primary(2, &[0, 1, 3]);
        for it in &held {
            place(&filter, it, 1);
        }
        for it in &full {
            place(&filter, it, y.i2);
        }
        assert_eq!(filter.debug_bucket(1)[1], 0, "{:?}", snapshot(&filter));
        let filter = Arc::new(filter);
        let other = {
            let (filter, z) = (Arc::clone(&filter), z);
            thread::spawn(move || filter.insert(&PreHashed(z.hash)))
        };
        filter
            .insert(&PreHashed(y.hash))
            .expect("bucket 1 has room");
        other.join().unwrap().expect("bucket 2 has room");
        let buckets = [filter.debug_bucket(1), filter.debug_bucket(2)];
        assert_eq!(buckets[0][1], y.fp, "{buckets:?}");
        for it in held.iter().chain(&full).chain([&y, &z]) {
            assert!(
                filter.contains(&PreHashed(it.hash)),
                "{it:?} lost: {buckets:?}"
            );
        }
        assert_eq!(filter.len(), 9);
    });
}

/// 11b: model 1b on the packed layout: `x` moves between buckets 0 and 2,
/// into or out of a straddling slot, while it is looked up.
#[test]
fn packed_lookup_vs_move() {
    check("11b packed: lookup vs move alternate->primary", 3, || {
        let filter = packed();
        let OneHop { x, y, others, .. } = one_hop_to_primary(&filter);
        let filter = Arc::new(filter);
        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.contains(&PreHashed(x.hash)))
        };
        filter
            .insert(&PreHashed(y.hash))
            .expect("room one hop away");
        assert!(reader.join().unwrap(), "false negative: {x:?} moving");
        for it in others.iter().chain([&x, &y]) {
            assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
        }
    });
}

/// The colliding family of model 10 on any table: `x` in `q` (full), one
/// free slot in `p`, `z` (primary `q`) with `x`'s fingerprint and pair.
fn colliding_family(filter: &CuckooFilter, p: usize, q: usize) -> (u64, u64, usize) {
    let b = filter.shape().bucket_size;
    let mut aim = Aim::new(filter);
    let x = aim.at(p, q);
    let z = aim.same_fingerprint(&x, q);
    let in_p: Vec<_> = (0..b).map(|_| aim.primary(p, &[])).collect();
    let in_q: Vec<_> = (0..b - 1).map(|_| aim.primary(q, &[])).collect();
    for it in &in_p {
        place(filter, it, p);
    }
    place(filter, &x, q);
    for it in &in_q {
        place(filter, it, q);
    }
    assert!(
        filter.remove(&PreHashed(in_p[0].hash)),
        "setup: free a slot in p"
    );
    assert_eq!(copies(filter, &x), 1);
    (x.hash, z.hash, filter.len())
}

/// `insert(z)` + `remove(z)` move the answer for `x` from `q` to `p` while
/// `x` is looked up.
fn colliding_flip(filter: CuckooFilter, p: usize, q: usize) {
    let (x, z, len) = colliding_family(&filter, p, q);
    let filter = Arc::new(filter);
    let reader = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.contains(&PreHashed(x)))
    };
    filter.insert(&PreHashed(z)).expect("p has a free slot");
    assert!(filter.remove(&PreHashed(z)));
    assert!(reader.join().unwrap(), "false negative: the answer moved");
    assert!(filter.contains(&PreHashed(x)));
    assert_eq!(filter.len(), len);
}

/// 11c: model 10a on the packed layout, the pair being buckets 0 and 2
/// (bucket 2 straddles words).
#[test]
fn packed_colliding_insert_remove() {
    check("11c packed: lookup vs colliding insert+remove", 3, || {
        colliding_flip(packed(), P, R)
    });
}

/// 12a: an insert into `x`'s semi-sorted bucket re-encodes it (x's slot
/// and low bits move, across words 0 and 1) while `x` is looked up.
#[test]
fn semi_sorted_insert_rewrites_a_bucket_being_read() {
    check(
        "12a semi-sorted: lookup vs insert into its bucket",
        3,
        || insert_rewrites_x_bucket(semi_sorted()),
    );
}

/// 12d: 12a on semi-sorted 4 x 13 bits, whose 48-bit buckets a lookup
/// reads in one load (on x86_64 one unaligned load; here the two words it
/// touches, the higher first): bucket 1 (bits 48..96) spans words 0 and 1.
#[test]
fn semi_sorted_one_load_insert_rewrites_a_bucket_being_read() {
    check(
        "12d semi-sorted 4x13 (one load): lookup vs insert into its bucket",
        3,
        || insert_rewrites_x_bucket(tiny_shape(4, 13, true)),
    );
}

/// The body of 12a and 12d: `x` in bucket 1, looked up while `y`'s insert
/// into the same bucket re-encodes it.
fn insert_rewrites_x_bucket(filter: CuckooFilter) {
    let mut aim = Aim::new(&filter);
    let x = aim.primary(Q, &[]);
    let y = aim.primary(Q, &[]);
    place(&filter, &x, Q);
    let filter = Arc::new(filter);
    let reader = {
        let filter = Arc::clone(&filter);
        thread::spawn(move || filter.contains(&PreHashed(x.hash)))
    };
    filter
        .insert(&PreHashed(y.hash))
        .expect("bucket 1 has room");
    assert!(reader.join().unwrap(), "false negative: {x:?} re-encoded");
    assert!(filter.contains(&PreHashed(x.hash)) && filter.contains(&PreHashed(y.hash)));
    assert_eq!(filter.len(), 2);
}

/// 12b: a remove from `x`'s semi-sorted bucket re-encodes it while `x` is
/// looked up.
#[test]
fn semi_sorted_remove_rewrites_a_bucket_being_read() {
    check(
        "12b semi-sorted: lookup vs remove from its bucket",
        3,
        || {
            let filter = semi_sorted();
            let mut aim = Aim::new(&filter);
            let w = aim.primary(Q, &[]);
            let x = aim.primary(Q, &[]);
            place(&filter, &w, Q);
            place(&filter, &x, Q);
            let filter = Arc::new(filter);
            let reader = {
                let filter = Arc::clone(&filter);
                thread::spawn(move || filter.contains(&PreHashed(x.hash)))
            };
            assert!(filter.remove(&PreHashed(w.hash)));
            assert!(reader.join().unwrap(), "false negative: {x:?} re-encoded");
            assert!(!filter.contains(&PreHashed(w.hash)) || copies(&filter, &w) == 0);
            assert_eq!(filter.len(), 1);
        },
    );
}

/// 12c: model 10a on semi-sorted buckets (pair 0 and 1: both straddle or
/// end at a word boundary).
#[test]
#[cfg_attr(
    cuckoo_small_stamp,
    ignore = "a semi-sorted insert and remove are two versioned sections on one stripe during one lookup: they wrap a 2-bit version (model 7)"
)]
fn semi_sorted_colliding_insert_remove() {
    check(
        "12c semi-sorted: lookup vs colliding insert+remove",
        2,
        || colliding_flip(semi_sorted(), P, Q),
    );
}
