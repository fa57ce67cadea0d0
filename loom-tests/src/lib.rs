//! Scaffolding for the loom models of cuckoo-nest's concurrency protocol.
//!
//! The models live in `tests/`, one file per race class, and run the real
//! table code: under `--cfg cuckoo_nest_loom` the crate's atomics come from loom (see
//! `src/sync.rs` in the main crate), so every load, store, read-modify-write
//! and fence of a lookup, an insert, a displacement hop or a clear is a
//! point where loom may switch threads or hand a relaxed load an older value.
//!
//! ```text
//! RUSTFLAGS="--cfg cuckoo_nest_loom" cargo test -p cuckoo-nest-loom-tests --release
//! ```
//!
//! This file holds what every model needs: a tiny table ([`tiny`]), hashes
//! aimed at chosen buckets ([`Aim`]) so a displacement happens within two or
//! three operations, and a runner (`check`, under `cfg(cuckoo_nest_loom)`) that bounds
//! preemptions so the command above is all it takes. Without `--cfg cuckoo_nest_loom`
//! the helpers still compile (they are plain code over the public API) and
//! the model files compile to nothing.

use cuckoo_nest::{CuckooFilter, PreHashed};

/// Buckets in every model's table. With two slots per bucket, eight items
/// fill it; with one stripe per bucket (tables of up to 16 buckets), every
/// bucket has its own lock and version.
pub const BUCKETS: usize = 4;

// How the models are written, because of how loom searches.
//
// loom 0.7's partial-order reduction remembers only the most recent access
// to each atomic. A spawned thread whose first access to an atomic is a load
// followed by its own store (a lock's load-then-CAS, a version bump's
// load-then-store) hides an earlier load of the same atomic by the main
// thread, and loom never tries the other order (tokio-rs/loom#166, #392).
// So in every model the main thread, which loom runs first, is a *writer*,
// and lookups run in spawned threads: their loads meet the writer's stores
// and loom backtracks to every one of them. The broken variants in
// docs/verification.md are the check that the search reaches the races
// that matter.

/// A table of [`BUCKETS`] buckets of `bucket_size` 16-bit fingerprints.
pub fn tiny(bucket_size: usize) -> CuckooFilter {
    CuckooFilter::builder()
        .buckets(BUCKETS)
        .bucket_size(bucket_size)
        .fingerprint_bits(16)
        .build()
        .expect("a 4-bucket table is a valid configuration")
}

/// A table of [`BUCKETS`] buckets of `bucket_size` slots of `bits`-bit
/// fingerprints, semi-sorted or not: the packed and semi-sorted layouts,
/// whose buckets and slots straddle words.
pub fn tiny_shape(bucket_size: usize, bits: u32, semi_sorted: bool) -> CuckooFilter {
    CuckooFilter::builder()
        .buckets(BUCKETS)
        .bucket_size(bucket_size)
        .fingerprint_bits(bits)
        .semi_sorted(semi_sorted)
        .build()
        .expect("a 4-bucket table is a valid configuration")
}

/// An item a model inserts: its hash and where the table puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// What the model passes to the `*_hash` methods.
    pub hash: u64,
    /// Primary bucket.
    pub i1: usize,
    /// Alternate bucket (never equal to `i1` for items from [`Aim`]).
    pub i2: usize,
    /// Fingerprint (distinct among the items of one [`Aim`]).
    pub fp: u32,
}

impl Item {
    /// True if `bucket` is one of the item's two buckets.
    pub fn lives_in(&self, bucket: usize) -> bool {
        self.i1 == bucket || self.i2 == bucket
    }
}

/// Finds hashes that land in chosen buckets, using the filter's own
/// `debug_locate`, so the models aim at the real hash-to-bucket mapping.
///
/// Every item [`Aim::item`] hands out has two distinct buckets and a
/// fingerprint no other item of the same `Aim` has: no lookup in a model can
/// hit by an accidental fingerprint collision, so "not found" and "exactly
/// one copy" are exact statements. Collisions a model wants, it asks for by
/// name with [`Aim::same_fingerprint`].
/// The search is deterministic, so every loom iteration builds the same
/// table.
pub struct Aim<'a> {
    filter: &'a CuckooFilter,
    next: u64,
    fingerprints: Vec<u32>,
    colliding: Vec<u64>,
}

impl<'a> Aim<'a> {
    /// Starts aiming at `filter`'s buckets.
    pub fn new(filter: &'a CuckooFilter) -> Self {
        Aim {
            filter,
            next: 0,
            fingerprints: Vec::new(),
            colliding: Vec::new(),
        }
    }

    /// The next item (in a fixed hash sequence) for which `want` holds.
    pub fn item(&mut self, want: impl Fn(&Item) -> bool) -> Item {
        for _ in 0..1 << 20 {
            self.next += 1;
            let hash = splitmix64(self.next);
            let (i1, i2, fp) = self.filter.debug_locate(hash);
            let item = Item { hash, i1, i2, fp };
            if i1 != i2 && !self.fingerprints.contains(&fp) && want(&item) {
                self.fingerprints.push(fp);
                return item;
            }
        }
        panic!("no hash satisfies the model's placement in 2^20 tries");
    }

    /// Another item with `of`'s fingerprint and bucket pair, whose primary
    /// bucket is `primary` (one of `of`'s two): the table cannot tell the
    /// two apart, it holds copies of one fingerprint in one pair. Built with
    /// the filter's inverse of its hash split, so any fingerprint width
    /// works; each call gives a new hash.
    pub fn same_fingerprint(&mut self, of: &Item, primary: usize) -> Item {
        assert!(of.lives_in(primary), "{primary} is not a bucket of {of:?}");
        for k in 0..1 << 16 {
            let Some(hash) = self.filter.debug_hash_for(primary, of.fp, k) else {
                break;
            };
            let (i1, i2, fp) = self.filter.debug_locate(hash);
            let item = Item { hash, i1, i2, fp };
            if hash != of.hash && !self.colliding.contains(&hash) {
                assert!(of.lives_in(i2) && fp == of.fp, "pair changed: {item:?}");
                self.colliding.push(hash);
                return item;
            }
        }
        panic!(
            "no more hashes with fingerprint {} in bucket {primary}",
            of.fp
        );
    }

    /// An item whose primary bucket is `i1` and alternate `i2`.
    pub fn at(&mut self, i1: usize, i2: usize) -> Item {
        self.item(|it| it.i1 == i1 && it.i2 == i2)
    }

    /// An item whose primary bucket is `i1` and whose alternate is none of
    /// `avoid`.
    pub fn primary(&mut self, i1: usize, avoid: &[usize]) -> Item {
        self.item(|it| it.i1 == i1 && !avoid.contains(&it.i2))
    }
}

/// A well-mixed 64-bit value per counter (splitmix64), as the `*_hash`
/// methods expect.
fn splitmix64(n: u64) -> u64 {
    let mut z = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Inserts `item` before the model's threads start; panics if it does not
/// land in `bucket` (the model's premise).
pub fn place(filter: &CuckooFilter, item: &Item, bucket: usize) {
    filter
        .insert(&PreHashed(item.hash))
        .expect("setup insert into a table with room");
    assert!(
        filter.debug_bucket(bucket).contains(&item.fp),
        "setup: {item:?} should sit in bucket {bucket}, table is {:?}",
        snapshot(filter)
    );
}

/// Copies of `item`'s fingerprint in its two buckets.
pub fn copies(filter: &CuckooFilter, item: &Item) -> usize {
    [item.i1, item.i2]
        .iter()
        .map(|&i| {
            filter
                .debug_bucket(i)
                .iter()
                .filter(|&&fp| fp == item.fp)
                .count()
        })
        .sum()
}

/// Every bucket's fingerprints (0 = empty slot). Only meaningful when no
/// writer is running.
pub fn snapshot(filter: &CuckooFilter) -> Vec<Vec<u32>> {
    (0..filter.shape().buckets)
        .map(|i| filter.debug_bucket(i))
        .collect()
}

/// A table set up so that inserting `y` moves `x` one hop, from bucket
/// `from` to bucket `to`: `y`'s buckets P and Q are full, `x` sits in slot 0
/// of P (so the breadth-first search tries it first) and `x`'s other bucket
/// has a free slot. Works for any bucket size.
#[derive(Clone, Debug)]
pub struct OneHop {
    /// The item that gets displaced.
    pub x: Item,
    /// The item whose insert displaces `x`.
    pub y: Item,
    /// Everything else in the table.
    pub others: Vec<Item>,
    /// Where `x` is before the move (P).
    pub from: usize,
    /// Where `x` is after the move.
    pub to: usize,
}

/// Buckets the one-hop setups use: P and Q hold the inserting item's two
/// buckets, R is the displaced item's other bucket.
pub const P: usize = 0;
/// See [`P`].
pub const Q: usize = 1;
/// See [`P`].
pub const R: usize = 2;

/// [`OneHop`] with `x` moving from its primary bucket P to its alternate R.
/// A lookup reads the primary first, so under sequential consistency it
/// cannot miss this move; only stale (weak-memory) reads could.
pub fn one_hop_to_alternate(filter: &CuckooFilter) -> OneHop {
    let b = filter.shape().bucket_size;
    let mut aim = Aim::new(filter);
    let x = aim.at(P, R);
    let mut others = Vec::new();
    for bucket in std::iter::repeat_n(P, b - 1).chain(std::iter::repeat_n(Q, b)) {
        others.push(aim.primary(bucket, &[]));
    }
    let y = aim.at(P, Q);
    place(filter, &x, P);
    for it in &others {
        place(filter, it, it.i1);
    }
    OneHop {
        x,
        y,
        others,
        from: P,
        to: R,
    }
}

/// [`OneHop`] with `x` moving from its alternate bucket P back to its
/// primary R (it went to P because R was full then). A lookup that reads R
/// before the copy and P after the clear misses `x` even under sequential
/// consistency: only the version re-check saves it.
pub fn one_hop_to_primary(filter: &CuckooFilter) -> OneHop {
    let b = filter.shape().bucket_size;
    let mut aim = Aim::new(filter);
    let in_r: Vec<_> = (0..b).map(|_| aim.primary(R, &[])).collect();
    let x = aim.at(R, P);
    let mut others = Vec::new();
    for bucket in std::iter::repeat_n(P, b - 1).chain(std::iter::repeat_n(Q, b)) {
        others.push(aim.primary(bucket, &[]));
    }
    let y = aim.at(P, Q);
    for it in &in_r {
        place(filter, it, R);
    }
    place(filter, &x, P);
    assert!(
        filter.remove(&PreHashed(in_r[0].hash)),
        "setup: remove a filler"
    );
    for it in &others {
        place(filter, it, it.i1);
    }
    others.extend_from_slice(&in_r[1..]);
    OneHop {
        x,
        y,
        others,
        from: P,
        to: R,
    }
}

/// The `preemptions` for [`check`] that bounds nothing: every
/// interleaving, for a model small enough to be explored whole.
pub const UNBOUNDED: usize = usize::MAX;

/// Runs `model` under loom for every interleaving within `preemptions`
/// preemptions per execution ([`UNBOUNDED`]: every interleaving), and
/// reports how many executions that took and how long.
/// `LOOM_MAX_PREEMPTIONS` in the environment overrides the bound (to search
/// deeper by hand); nothing else truncates the search.
#[cfg(cuckoo_nest_loom)]
pub fn check(name: &str, preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() && preemptions != UNBOUNDED {
        builder.preemption_bound = Some(preemptions);
    }
    // A lookup that meets an odd version waits (yields) and reads again;
    // in some schedules that takes more than loom's default 1000 branches
    // in one execution without being a livelock (model 8a needs ~1100).
    builder.max_branches = builder.max_branches.max(20_000);
    let bound = builder.preemption_bound;
    let executions = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&executions);
    let start = std::time::Instant::now();
    builder.check(move || {
        counter.fetch_add(1, Ordering::Relaxed);
        model();
    });
    eprintln!(
        "loom model {name}: {} executions, preemption bound {}, {:.2?}",
        executions.load(Ordering::Relaxed),
        bound.map_or("none".to_string(), |b| b.to_string()),
        start.elapsed()
    );
}
