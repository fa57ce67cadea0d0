//! Sixteen threads on one growable filter while it grows 64x (8x under
//! Miri): writers insert and remove, pairs of writers insert the same items
//! (colliding copies: one fingerprint, one bucket pair) and one of each
//! pair takes its copy out again, readers look up, savers save the filter
//! and load the bytes back. No false negative in any lookup, none in any
//! loaded save, and the exact count at the end. Twice: in one chain (the
//! default spare bits), and through chains (two spare bits).
//!
//! How a "no" is known to be wrong: every item has two counters, copies
//! acknowledged (counted after the insert returned) and removes started
//! (counted before the remove). A reader reads the removes started, then
//! the copies acknowledged, looks up, and reads the removes started again:
//! if no remove started meanwhile and more copies were acknowledged than
//! removes started, a copy was in the filter the whole time. A saver does
//! the same around its save for every item at once.

use cuckoo_nest::{CuckooFilter, PreHashed};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::SeqCst};

const MIRI: bool = cfg!(miri);
/// Writers (in pairs), readers, savers: sixteen in all.
const WRITERS: usize = 10;
const READERS: usize = 4;
const SAVERS: usize = 2;
/// Removes trail inserts by this many items.
const LAG: usize = 16;

/// One item's counters (see the module docs).
#[derive(Default)]
struct Item {
    acknowledged: AtomicU8,
    removing: AtomicU8,
}

impl Item {
    /// Before an operation: the removes started, then the copies
    /// acknowledged.
    fn before(&self) -> (u8, u8) {
        let removing = self.removing.load(SeqCst);
        (removing, self.acknowledged.load(SeqCst))
    }

    /// After it: true if a copy was in the filter throughout.
    fn held(&self, (removing, acknowledged): (u8, u8)) -> bool {
        acknowledged > removing && self.removing.load(SeqCst) == removing
    }
}

/// What becomes of writer `w`'s `i`-th item.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Its own, removed `LAG` items later.
    Removed,
    /// Shared with the other writer of its pair: both insert it, the even
    /// writer removes its copy later, so one copy stays.
    Shared,
    /// Its own, kept.
    Kept,
}

fn plan(i: usize) -> Plan {
    match i % 4 {
        0 => Plan::Removed,
        1 => Plan::Shared,
        _ => Plan::Kept,
    }
}

fn hash_of(w: usize, i: usize) -> u64 {
    let owner = if plan(i) == Plan::Shared {
        1_000 + w / 2
    } else {
        w
    };
    cuckoo_nest::StableHasher::hash_one(owner as u64, &(i as u64))
}

/// The counters for writer `w`'s `i`-th item (shared items: the pair's).
fn item<'a>(own: &'a [Vec<Item>], shared: &'a [Vec<Item>], w: usize, i: usize) -> &'a Item {
    if plan(i) == Plan::Shared {
        &shared[w / 2][i]
    } else {
        &own[w][i]
    }
}

#[test]
fn sixteen_threads_grow_a_filter_64x_with_removes_copies_and_saves() {
    grow_under_load(None);
}

/// The same through chains: with two spare bits and no maximum, the filter
/// starts a new chain at every 4x or so, so chains start while writers
/// insert, remove and add copies, readers look up and savers save (a
/// lookup and a remove then read every chain, and a save writes them all).
#[test]
fn sixteen_threads_grow_a_filter_through_chains_with_removes_copies_and_saves() {
    grow_under_load(Some(2));
}

/// Grows a filter (with `spare_bits` where given) 64x under sixteen threads
/// and checks it (see the module docs).
fn grow_under_load(spare_bits: Option<u32>) {
    let (capacity, growth) = if MIRI { (32, 8) } else { (500, 64) };
    let builder = CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(0.01)
        .growable(true);
    let builder = match spare_bits {
        Some(bits) => builder.spare_bits(bits),
        None => builder,
    };
    let filter = builder.build().unwrap();
    let first = filter.capacity();
    // Each writer's items: with the removes and the shared ones counted
    // once per pair, about 0.6 of these are left at the end, which takes
    // the filter to `growth` times its first capacity.
    let per_writer = first * growth / WRITERS;
    let own: Vec<Vec<Item>> = (0..WRITERS)
        .map(|_| (0..per_writer).map(|_| Item::default()).collect())
        .collect();
    let shared: Vec<Vec<Item>> = (0..WRITERS / 2)
        .map(|_| (0..per_writer).map(|_| Item::default()).collect())
        .collect();
    let published: Vec<AtomicU64> = (0..WRITERS).map(|_| AtomicU64::new(0)).collect();
    let writing = AtomicU64::new(WRITERS as u64);
    let done = AtomicBool::new(false);
    let (false_negatives, lookups) = (AtomicU64::new(0), AtomicU64::new(0));
    let (lost_in_saves, saves) = (AtomicU64::new(0), AtomicU64::new(0));

    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (filter, own, shared, published) = (&filter, &own, &shared, &published[w]);
            let (writing, done) = (&writing, &done);
            s.spawn(move || {
                for i in 0..per_writer {
                    let h = hash_of(w, i);
                    filter
                        .insert(&PreHashed(h))
                        .unwrap_or_else(|e| panic!("writer {w} item {i}: {e}"));
                    item(own, shared, w, i).acknowledged.fetch_add(1, SeqCst);
                    published.store(i as u64 + 1, SeqCst);
                    // Hand the core over: growth steps then span many
                    // turns of the scheduler, with lookups and saves run
                    // during them, not only between them.
                    std::thread::yield_now();
                    if let Some(j) = i.checked_sub(LAG) {
                        let removes = match plan(j) {
                            Plan::Removed => true,
                            Plan::Shared => w % 2 == 0,
                            Plan::Kept => false,
                        };
                        if removes {
                            item(own, shared, w, j).removing.fetch_add(1, SeqCst);
                            assert!(filter.remove(&PreHashed(hash_of(w, j))), "remove {w}/{j}");
                        }
                    }
                }
                if writing.fetch_sub(1, SeqCst) == 1 {
                    done.store(true, SeqCst);
                }
            });
        }
        for r in 0..READERS {
            let (filter, own, shared, published) = (&filter, &own, &shared, &published);
            let (done, false_negatives, lookups) = (&done, &false_negatives, &lookups);
            s.spawn(move || {
                let mut x = 0x9e37_79b9_u64 + r as u64;
                // Under Miri, which interprets every step, a few lookups.
                let mut budget = if MIRI { 24 } else { u64::MAX };
                while !done.load(SeqCst) && budget > 0 {
                    budget -= 1;
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let w = x as usize % WRITERS;
                    let n = published[w].load(SeqCst) as usize;
                    if n == 0 {
                        std::thread::yield_now();
                        continue;
                    }
                    let i = (x >> 20) as usize % n;
                    let it = item(own, shared, w, i);
                    let seen = it.before();
                    let found = filter.contains(&PreHashed(hash_of(w, i)));
                    if lookups.fetch_add(1, SeqCst) % 16 == 0 {
                        // As the writers do: no thread holds a core for a
                        // whole time slice while the others wait.
                        std::thread::yield_now();
                    }
                    if !found && it.held(seen) {
                        false_negatives.fetch_add(1, SeqCst);
                    }
                }
            });
        }
        for _ in 0..SAVERS {
            let (filter, own, shared, done) = (&filter, &own, &shared, &done);
            let (lost_in_saves, saves) = (&lost_in_saves, &saves);
            s.spawn(move || {
                let every = || (0..WRITERS).flat_map(move |w| (0..per_writer).map(move |i| (w, i)));
                loop {
                    let last = done.load(SeqCst);
                    let seen: Vec<(u8, u8)> = every()
                        .map(|(w, i)| item(own, shared, w, i).before())
                        .collect();
                    let bytes = filter.to_bytes();
                    let loaded = CuckooFilter::from_bytes(&bytes).expect("a save loads");
                    saves.fetch_add(1, SeqCst);
                    for ((w, i), seen) in every().zip(seen) {
                        if item(own, shared, w, i).held(seen)
                            && !loaded.contains(&PreHashed(hash_of(w, i)))
                        {
                            lost_in_saves.fetch_add(1, SeqCst);
                        }
                    }
                    if last || MIRI {
                        break;
                    }
                    std::thread::yield_now();
                }
            });
        }
    });

    eprintln!(
        "grew to {}x in {} table(s): {} lookups, {} saves",
        filter.capacity() / first,
        filter.statistics().tables,
        lookups.load(SeqCst),
        saves.load(SeqCst)
    );
    assert_eq!(
        false_negatives.load(SeqCst),
        0,
        "false negatives in lookups"
    );
    assert_eq!(lost_in_saves.load(SeqCst), 0, "items lost in saves");
    assert!(lookups.load(SeqCst) > 0, "the readers looked nothing up");
    assert!(saves.load(SeqCst) >= SAVERS as u64);
    // One chain doubles to the next power of two past what it holds; chains
    // add a table of their own each (their capacities summed), which the
    // items cross at other counts: there, three tables or more (two at
    // Miri's 8x).
    let grown = match spare_bits {
        None => filter.capacity() >= first * growth,
        Some(_) => filter.statistics().tables >= if MIRI { 2 } else { 3 },
    };
    assert!(
        grown,
        "grew to capacity {} from {first}: {:?}",
        filter.capacity(),
        filter.statistics()
    );
    // Every item with a copy left is found; the count is exact.
    let mut expected = 0;
    for w in 0..WRITERS {
        for i in 0..per_writer {
            let it = item(&own, &shared, w, i);
            if plan(i) == Plan::Shared && w % 2 == 1 {
                continue; // the pair's item, counted with the even writer
            }
            let left = usize::from(it.acknowledged.load(SeqCst) - it.removing.load(SeqCst));
            if left > 0 {
                assert!(
                    filter.contains(&PreHashed(hash_of(w, i))),
                    "writer {w} item {i} lost"
                );
            }
            expected += left;
        }
    }
    assert_eq!(filter.len(), expected);
}
