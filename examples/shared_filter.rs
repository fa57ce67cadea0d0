//! One filter shared by threads behind an `Arc`: every method takes `&self`, so four writers
//! insert keys of their own while two readers check keys inserted before the threads started,
//! with no `Mutex` around it. A key whose insert returned `Ok` is found by every lookup that
//! starts after it (no false negatives), whatever the writers do meanwhile.
//!
//! `cargo run --release -p cuckoo-nest-examples --example shared_filter`

use cuckoo_nest::CuckooFilter;
use std::sync::Arc;
use std::thread;

const WRITERS: u64 = 4;
const PER_WRITER: u64 = 50_000;
const EARLY: u64 = 10_000;

fn main() {
    let filter = Arc::new(CuckooFilter::with_capacity(300_000));
    // Keys in before any thread starts: the readers must find every one.
    for k in 0..EARLY {
        filter.insert(&k).expect("sized for every key");
    }

    let writers = (0..WRITERS).map(|w| {
        let filter = Arc::clone(&filter);
        thread::spawn(move || {
            let first = EARLY + w * PER_WRITER;
            for k in first..first + PER_WRITER {
                filter.insert(&k).expect("sized for every key");
            }
        })
    });
    let readers = (0..2).map(|_| {
        let filter = Arc::clone(&filter);
        thread::spawn(move || {
            for _ in 0..10 {
                assert!((0..EARLY).all(|k| filter.contains(&k)), "a false negative");
            }
        })
    });
    for t in writers.chain(readers).collect::<Vec<_>>() {
        t.join().expect("no thread panics");
    }

    let total = EARLY + WRITERS * PER_WRITER;
    assert_eq!(filter.len(), total as usize);
    assert!((0..total).all(|k| filter.contains(&k)));
    // Removes are shared the same way: one copy out per key inserted.
    assert!(filter.remove(&7u64));
    assert_eq!(filter.len(), total as usize - 1);
    let items = filter.len();
    println!("{WRITERS} writers and 2 readers shared one filter: {items} items, every one found");
}
