//! Version/lock stripes: the seqlock half of the protocol.
//!
//! Bucket `i` belongs to stripe `i & mask`. A stripe is one stamp word and
//! one item counter. The stamp is `version << 1 | locked`:
//!
//! - bit 0, the lock: writers (insert, remove, every displacement hop, clear)
//!   hold the locks of every bucket they write. Readers ignore it, so plain
//!   inserts and removes never make a reader retry (contract 3).
//! - bits 1.., the version: bumped to odd before a fingerprint *moves*
//!   between buckets and to even after. A reader takes an even stamp before
//!   loading a bucket and, if it found nothing, checks the stamp is still the
//!   same; if a move ran in between, it retries rather than answer a false
//!   "no" for an item that was in flight.
//!
//! The shape follows crossbeam-utils' `SeqLock` (acquire load, data, acquire
//! fence, relaxed re-load), with the data itself in atomics. Locks are taken
//! in ascending stripe order, so writers cannot deadlock.

use crate::sync::{fence, AtomicU64, Ordering, Spin};

const LOCKED: u64 = 1;
const MOVING: u64 = 2;
/// Bits that hold the lock and the version. Under `cuckoo_small_stamp` the
/// version is two bits wide, so the loom models can make it wrap around.
#[cfg(not(cuckoo_small_stamp))]
const STAMP_BITS: u64 = u64::MAX;
#[cfg(cuckoo_small_stamp)]
const STAMP_BITS: u64 = 0b111;

/// The largest stripe count: 1024 stripes of 16 bytes stay within L2.
pub(crate) const MAX_STRIPES: usize = 1024;

struct Stripe {
    stamp: AtomicU64,
    /// Items inserted minus items removed under this stripe's lock, wrapping:
    /// only the sum over all stripes means anything.
    count: AtomicU64,
}

pub(crate) struct Stripes {
    stripes: Box<[Stripe]>,
    mask: usize,
}

/// A stamp read by [`Stripes::read_begin`], to hand back to
/// [`Stripes::read_valid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

impl Stripes {
    /// Stripes for `buckets` buckets: a power of two, one per bucket for
    /// tables of up to 16 buckets (so small models exercise independent
    /// locks), then one per 16 buckets, at most [`MAX_STRIPES`].
    pub(crate) fn new(buckets: usize) -> Self {
        let per_bucket = buckets.next_power_of_two().min(16);
        let n = buckets
            .div_ceil(16)
            .next_power_of_two()
            .clamp(per_bucket, MAX_STRIPES);
        let stripes = (0..n)
            .map(|_| Stripe {
                stamp: AtomicU64::new(0),
                count: AtomicU64::new(0),
            })
            .collect();
        Stripes {
            stripes,
            mask: n - 1,
        }
    }

    #[inline(always)]
    pub(crate) fn of(&self, bucket: usize) -> usize {
        bucket & self.mask
    }

    #[inline(always)]
    fn stripe(&self, s: usize) -> &Stripe {
        &self.stripes[s]
    }

    /// Starts an optimistic read of stripe `s`: its stamp, or `None` while a
    /// move is under way there (the caller waits and starts again).
    #[inline(always)]
    pub(crate) fn read_begin(&self, s: usize) -> Option<Stamp> {
        let v = self.stripe(s).stamp.load(Ordering::Acquire);
        if v & MOVING != 0 {
            None
        } else {
            Some(Stamp(v & !LOCKED))
        }
    }

    /// Orders the bucket loads before the stamp re-checks that follow.
    /// Called once after the loads, before one or more [`Self::read_valid`].
    #[inline(always)]
    pub(crate) fn read_fence() {
        fence(Ordering::Acquire);
    }

    /// True if no move touched stripe `s` since [`Self::read_begin`] returned
    /// `stamp`.
    #[inline(always)]
    pub(crate) fn read_valid(&self, s: usize, stamp: Stamp) -> bool {
        if cfg!(cuckoo_broken_no_recheck) {
            // Deliberately broken variant for the loom models: never re-check.
            return true;
        }
        self.stripe(s).stamp.load(Ordering::Relaxed) & !LOCKED == stamp.0
    }

    fn lock(&self, s: usize) {
        let stamp = &self.stripe(s).stamp;
        let spin = Spin::new();
        loop {
            let v = stamp.load(Ordering::Relaxed);
            if v & LOCKED == 0
                && stamp
                    .compare_exchange_weak(v, v | LOCKED, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
            spin.wait();
        }
    }

    fn unlock(&self, s: usize) {
        let stamp = &self.stripe(s).stamp;
        // Only the holder changes a locked stamp, so a plain store is enough.
        let v = stamp.load(Ordering::Relaxed);
        stamp.store(v & !LOCKED, Ordering::Release);
    }

    /// Locks the stripes of buckets `a` and `b` (once if they share one), in
    /// ascending order.
    pub(crate) fn lock_pair(&self, a: usize, b: usize) -> PairGuard<'_> {
        let (lo, hi) = {
            let (x, y) = (self.of(a), self.of(b));
            (x.min(y), x.max(y))
        };
        self.lock(lo);
        if hi != lo {
            self.lock(hi);
        }
        PairGuard {
            stripes: self,
            lo,
            hi,
        }
    }

    /// Locks every stripe, in ascending order (for `clear`).
    pub(crate) fn lock_all(&self) -> AllGuard<'_> {
        for s in 0..self.stripes.len() {
            self.lock(s);
        }
        AllGuard { stripes: self }
    }

    /// Bumps the version of locked stripe `s` by one step (odd = moving).
    /// A version bumped to odd is published before the data writes that
    /// follow by the release fence in [`PairGuard::begin_move`].
    fn bump(&self, s: usize) {
        let stamp = &self.stripe(s).stamp;
        let v = stamp.load(Ordering::Relaxed);
        stamp.store(v.wrapping_add(MOVING) & STAMP_BITS, Ordering::Release);
    }

    /// The item count: the sum of every stripe's counter. Exact when no write
    /// is in flight; a snapshot otherwise.
    pub(crate) fn len(&self) -> usize {
        let sum = self.stripes.iter().fold(0u64, |acc, s| {
            acc.wrapping_add(s.count.load(Ordering::Relaxed))
        });
        // Transiently negative sums (a remove counted before a racing insert)
        // read as 0.
        if (sum as i64) < 0 {
            0
        } else {
            sum as usize
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.stripes.len()
    }
}

/// Holds the locks of one or two stripes; releases them when dropped.
pub(crate) struct PairGuard<'a> {
    stripes: &'a Stripes,
    lo: usize,
    hi: usize,
}

impl PairGuard<'_> {
    /// Marks both stripes as moving: readers that start now wait, readers in
    /// flight will see a changed version and retry.
    pub(crate) fn begin_move(&self) {
        self.stripes.bump(self.lo);
        if self.hi != self.lo {
            self.stripes.bump(self.hi);
        }
        // The odd versions must be visible to any reader that sees one of the
        // data writes that follow.
        fence(Ordering::Release);
    }

    /// Ends a move: versions even again, one step past where they started.
    pub(crate) fn end_move(&self) {
        self.stripes.bump(self.lo);
        if self.hi != self.lo {
            self.stripes.bump(self.hi);
        }
    }

    /// Adds `delta` (wrapping) to the item counter of a locked stripe.
    pub(crate) fn count_add(&self, delta: i64) {
        self.stripes
            .stripe(self.lo)
            .count
            .fetch_add(delta as u64, Ordering::Relaxed);
    }
}

impl Drop for PairGuard<'_> {
    fn drop(&mut self) {
        if self.hi != self.lo {
            self.stripes.unlock(self.hi);
        }
        self.stripes.unlock(self.lo);
    }
}

/// Holds every stripe lock (for `clear`).
pub(crate) struct AllGuard<'a> {
    stripes: &'a Stripes,
}

impl AllGuard<'_> {
    pub(crate) fn begin_move(&self) {
        for s in 0..self.stripes.count() {
            self.stripes.bump(s);
        }
        fence(Ordering::Release);
    }

    pub(crate) fn end_move(&self) {
        for s in 0..self.stripes.count() {
            self.stripes.bump(s);
        }
    }

    pub(crate) fn reset_counts(&self) {
        for s in self.stripes.stripes.iter() {
            s.count.store(0, Ordering::Relaxed);
        }
    }
}

impl Drop for AllGuard<'_> {
    fn drop(&mut self) {
        for s in (0..self.stripes.count()).rev() {
            self.stripes.unlock(s);
        }
    }
}
