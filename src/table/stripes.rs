//! Version/lock stripes: the seqlock half of the protocol.
//!
//! A stripe is a run of `2^shift` consecutive buckets: bucket `i` belongs to
//! stripe `i >> shift`. (Runs, not every `n`-th bucket: a save copies the
//! table a stripe at a time, holding that stripe's lock only, see snapshot.rs.)
//! A stripe has two halves, kept in separate arrays so that they never share
//! a cache line:
//!
//! - a lock, for writers that must keep others off a bucket while they
//!   write it: every displacement hop, remove, `insert_unique`, an insert
//!   into a semi-sorted or straddling slot, a save's or a growth step's
//!   chunk, and clear lock the stripes of every bucket they write. An
//!   insert into a free slot takes no lock at all (`insert.rs`, the claim). The lock's
//!   line also holds a share of the item count (`counts.rs`). Readers never
//!   touch it, so inserts and plain removes neither make a reader retry
//!   (contract 3) nor evict the lines readers read.
//! - a version, for readers: bumped to odd before a write that can change
//!   which bucket of a pair holds the copy of a fingerprint that answers for
//!   an item (a move between buckets, a remove that leaves another copy of
//!   its fingerprint in the pair, a clear) and to even after. A reader takes
//!   an even version before loading a bucket and, if it found nothing,
//!   checks the version is still the same; if such a write ran in between,
//!   it retries rather than answer a false "no".
//!
//! The shape follows crossbeam-utils' `SeqLock` (acquire load, data, acquire
//! fence, relaxed re-load), with the data itself in atomics. Locks are taken
//! in ascending stripe order, so writers cannot deadlock.

use super::counts::{self, Counter};
use crate::broken;
use crate::sync::{fence, AtomicU64, Ordering, Spin};

/// Why a write opens a versioned section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    /// A displacement hop moving a fingerprint between its buckets.
    Move,
    /// A remove that leaves another copy of its fingerprint in the pair.
    CollidingRemove,
    /// A semi-sorted bucket re-encoded by an insert or a remove.
    SemiSortedRewrite,
    /// A chunk of `clear`.
    Clear,
}

impl Section {
    /// True unless a broken variant leaves this section out (the seam of
    /// `broken.rs`'s unversioned variants).
    #[inline(always)]
    const fn kept(self) -> bool {
        !match self {
            Section::Move => broken::NO_MOVE_VERSION,
            Section::CollidingRemove => broken::REMOVE_UNVERSIONED,
            Section::SemiSortedRewrite => broken::SEMI_UNVERSIONED,
            Section::Clear => broken::CLEAR_UNVERSIONED,
        }
    }
}

const LOCKED: u64 = 1;
/// A version step. Versions are even at rest and odd while a move runs.
const STEP: u64 = 1;
/// Bits of the version. Under `cuckoo_small_stamp` the version is two bits
/// wide, so the loom models can make it wrap around.
#[cfg(not(cuckoo_small_stamp))]
const VERSION_BITS: u64 = u64::MAX;
#[cfg(cuckoo_small_stamp)]
const VERSION_BITS: u64 = 0b11;

/// The largest stripe count: 1024 versions (8 KiB) and 1024 locks (64 KiB)
/// stay within L2.
pub(crate) const MAX_STRIPES: usize = 1024;

/// The writers' half of a stripe. Readers never touch it, so a writer
/// taking a lock or counting an item does not evict readers' cache lines.
/// A cache line each: four to a line made writers on different cores take
/// the same lines from each other (16 threads filling one filter: 39 M
/// inserts/s with four to a line, 75 M/s with one; docs/benchmarks.md,
/// "Writers on 16 cores"), and the line is one thread's counter's
/// (`counts.rs`).
#[repr(align(64))]
struct Lock {
    locked: AtomicU64,
    /// A share of the item count: only the sum over all stripes means
    /// anything.
    count: Counter,
}

// The line per lock is what lets writers on many cores scale (above); a
// build where it is lost does not compile.
const _: () = assert!(std::mem::align_of::<Lock>() == 64);

pub(crate) struct Stripes {
    /// Read by every lookup, written only around fingerprint moves.
    versions: Box<[AtomicU64]>,
    locks: Box<[Lock]>,
    /// Stripe `s` is buckets `s << shift .. (s + 1) << shift`.
    shift: u32,
}

/// A stripe, as a reader names it: made only by [`Stripes::reader`], so it
/// is always in bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StripeId(usize);

/// A version read by [`Stripes::read_begin`], to hand back to
/// [`Stripes::read_valid_pair`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

impl Stripes {
    /// Stripes for `buckets` buckets (at least one): one per bucket for
    /// tables of up to 16 buckets (so small models exercise independent
    /// locks), at least 16, then about one per 1024 buckets, at most
    /// [`MAX_STRIPES`]; each a power-of-two run of buckets, the last one
    /// perhaps shorter. At 72 bytes a stripe that is about 0.15 bits per
    /// item (a 4-slot bucket holds 3.8 items), so the stripes do not undo
    /// what packed fingerprints save; 16 stripes already keep two writers
    /// apart almost always, and 1024 serve the largest tables.
    pub(crate) fn new(buckets: usize) -> Self {
        let buckets = buckets.max(1);
        let per_bucket = buckets.next_power_of_two().min(16);
        // Rounded down to a power of two, so the stripes stay under 0.05
        // bits per item.
        let target = (buckets / 1024 + 1)
            .next_power_of_two()
            .wrapping_shr(1)
            .max(1)
            .clamp(per_bucket, MAX_STRIPES);
        // The shortest runs that cover the table in `target` stripes.
        let shift = buckets
            .div_ceil(target)
            .next_power_of_two()
            .trailing_zeros();
        let n = ((buckets - 1) >> shift) + 1;
        Stripes {
            versions: (0..n).map(|_| AtomicU64::new(0)).collect(),
            locks: (0..n)
                .map(|_| Lock {
                    locked: AtomicU64::new(0),
                    count: Counter::new(),
                })
                .collect(),
            shift,
        }
    }

    /// The stripe of `bucket`, which is below the table's bucket count.
    #[inline(always)]
    fn of(&self, bucket: usize) -> usize {
        bucket >> self.shift
    }

    /// Buckets per stripe: a power of two.
    pub(crate) fn run(&self) -> usize {
        1 << self.shift
    }

    /// True if every stripe's run of buckets `bucket_bits` wide ends on a
    /// word boundary, so that no table word holds bits of two stripes and
    /// each word is written only under one stripe's lock (runs start at
    /// bucket 0, and the words past the last bucket are never written).
    /// False only in small tables, whose runs are a bucket or a few.
    #[inline(always)]
    pub(crate) fn runs_end_on_words(&self, bucket_bits: usize) -> bool {
        (bucket_bits << self.shift).is_multiple_of(64)
    }

    /// The stripe of `bucket`, for a reader. `bucket` is below the table's
    /// bucket count, as every bucket the table computes is (the lookups
    /// load its words unchecked on the same ground).
    #[inline(always)]
    pub(crate) fn reader(&self, bucket: usize) -> StripeId {
        debug_assert!(self.of(bucket) < self.versions.len(), "bucket {bucket}");
        StripeId(self.of(bucket))
    }

    /// Stripe `s`'s version, without a bounds check: two of these per
    /// lookup.
    #[inline(always)]
    fn version(&self, s: StripeId) -> &AtomicU64 {
        debug_assert!(s.0 < self.versions.len());
        // SAFETY: a `StripeId` is only made by `reader`, as `bucket >>
        // shift` of a bucket below the table's bucket count `m`, and `new`
        // made `((m - 1) >> shift) + 1` versions, so the index is in bounds.
        unsafe { self.versions.get_unchecked(s.0) }
    }

    /// Starts an optimistic read of stripe `s`: its version, even or odd
    /// (odd: a versioned section is open there, and [`Self::read_valid_pair`]
    /// will say so). Reading it never waits, so a lookup takes the same path
    /// whether it hits or misses.
    #[inline(always)]
    pub(crate) fn read_begin(&self, s: StripeId) -> Stamp {
        Stamp(self.version(s).load(Ordering::Acquire))
    }

    /// Orders the bucket loads before the version re-checks that follow.
    /// Called once after the loads, before one or more [`Self::read_valid_pair`].
    #[inline(always)]
    pub(crate) fn read_fence() {
        if !broken::NO_READ_FENCE {
            fence(Ordering::Acquire);
        }
    }

    /// True if no versioned section was open on stripe `s1` or `s2` at
    /// [`Self::read_begin`] (which returned `t1` and `t2`) or ran since.
    /// Both in one test: a lookup validates both of its buckets' stripes on
    /// every call.
    #[inline(always)]
    pub(crate) fn read_valid_pair(&self, s1: StripeId, t1: Stamp, s2: StripeId, t2: Stamp) -> bool {
        let (now1, now2) = (
            self.version(s1).load(Ordering::Relaxed),
            self.version(s2).load(Ordering::Relaxed),
        );
        if let Some(verdict) = broken::validation(t1.0, now1, t2.0, now2) {
            return verdict;
        }
        // Zero iff both stamps were even and neither version moved.
        (now1 ^ t1.0) | (now2 ^ t2.0) | ((t1.0 | t2.0) & STEP) == 0
    }

    /// Takes stripe `s`'s lock: one compare-and-swap when it is free (almost
    /// always: 16 or more stripes), the wait out of line.
    #[inline(always)]
    fn lock(&self, s: usize) {
        let locked = &self.locks[s].locked;
        if locked
            .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            Self::lock_contended(locked);
        }
    }

    /// [`Self::lock`] when the first try failed: spin on a plain load until
    /// the lock looks free, then try again, backing off.
    #[cold]
    #[inline(never)]
    fn lock_contended(locked: &AtomicU64) {
        let spin = Spin::new();
        loop {
            spin.wait();
            if locked.load(Ordering::Relaxed) == 0
                && locked
                    .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
        }
    }

    #[inline(always)]
    fn unlock(&self, s: usize) {
        self.locks[s].locked.store(0, Ordering::Release);
    }

    /// Locks the stripes of buckets `a` and `b` (once if they share one), in
    /// ascending order.
    #[inline]
    pub(crate) fn lock_pair(&self, a: usize, b: usize) -> PairGuard<'_> {
        let (lo, hi) = broken::lock_order(self.of(a), self.of(b));
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

    /// Sets the item count of stripes no one else sees yet (a loaded
    /// table): only the sum of the counters means anything.
    pub(crate) fn set_len(&self, len: usize) {
        counts::set(self.locks.iter().map(|l| &l.count), len);
    }

    /// Adds `delta` (wrapping) to the item count, in the calling thread's
    /// own word where it has one (`counts.rs`), else near `bucket` (a
    /// bucket the caller wrote, below the table's count): no lock needed.
    #[inline(always)]
    pub(crate) fn count_add(&self, delta: i64, bucket: usize) {
        let locks = &self.locks[..];
        counts::add(locks.len(), |k| &locks[k].count, delta, self.of(bucket));
    }

    /// Locks every stripe, in ascending order (for `clear`).
    pub(crate) fn lock_all(&self) -> AllGuard<'_> {
        for s in 0..self.count() {
            self.lock(s);
        }
        AllGuard { stripes: self }
    }

    /// Locks the stripes of buckets `first..end` (`first < end`), in
    /// ascending order; the caller holds no other stripe lock.
    pub(crate) fn lock_buckets(&self, first: usize, end: usize) -> RangeGuard<'_> {
        let (lo, hi) = (self.of(first), self.of(end - 1) + 1);
        for s in lo..hi {
            self.lock(s);
        }
        RangeGuard {
            stripes: self,
            lo,
            hi,
        }
    }

    /// Steps the version of stripe `s`, whose lock the caller holds (only
    /// the lock holder writes a version, so load + store is enough).
    fn bump(&self, s: usize) {
        let version = &self.versions[s];
        let v = version.load(Ordering::Relaxed);
        version.store(v.wrapping_add(STEP) & VERSION_BITS, Ordering::Release);
    }

    /// The item count: the sum of the stripes' counters that threads have
    /// counted in (`counts.rs`). Exact when no write is in flight; a
    /// snapshot otherwise.
    pub(crate) fn len(&self) -> usize {
        let locks = &self.locks;
        counts::sum(locks.len(), |k| &locks[k].count)
    }

    pub(crate) fn count(&self) -> usize {
        self.versions.len()
    }

    /// Bytes of versions and locks.
    pub(crate) fn memory_usage(&self) -> usize {
        self.count() * (8 + std::mem::size_of::<Lock>())
    }
}

/// Holds the locks of one or two stripes; releases them when dropped.
pub(crate) struct PairGuard<'a> {
    stripes: &'a Stripes,
    lo: usize,
    hi: usize,
}

impl PairGuard<'_> {
    /// Opens a versioned section on both stripes: readers that start now
    /// wait, readers in flight will see a changed version and retry. The
    /// section ends (versions even again, one step past where they started)
    /// when the returned guard is dropped, before the locks are released.
    pub(crate) fn versioned(&self, why: Section) -> Option<VersionedSection<'_>> {
        if !why.kept() {
            return None;
        }
        self.stripes.bump(self.lo);
        if self.hi != self.lo {
            self.stripes.bump(self.hi);
        }
        // The odd versions must be visible to any reader that sees one of the
        // data writes that follow.
        fence(Ordering::Release);
        Some(VersionedSection {
            stripes: self.stripes,
            lo: self.lo,
            hi: self.hi,
        })
    }
}

/// A write readers must not trust half done: a move, a remove that leaves
/// another copy of its fingerprint, a clear. Borrowed from the lock guard,
/// so it always ends before the locks are released.
#[must_use = "the section ends when this guard is dropped"]
pub(crate) struct VersionedSection<'a> {
    stripes: &'a Stripes,
    lo: usize,
    hi: usize,
}

impl Drop for VersionedSection<'_> {
    fn drop(&mut self) {
        self.stripes.bump(self.lo);
        if self.hi != self.lo {
            self.stripes.bump(self.hi);
        }
    }
}

impl Drop for PairGuard<'_> {
    #[inline]
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
    /// Opens a versioned section (see [`PairGuard::versioned`]) on stripes
    /// `lo..hi`. It ends when the returned guard drops. Readers of other
    /// stripes go on undisturbed.
    pub(crate) fn versioned_stripes(
        &self,
        lo: usize,
        hi: usize,
    ) -> Option<RangeVersionedSection<'_>> {
        if !Section::Clear.kept() {
            return None;
        }
        for s in lo..hi {
            self.stripes.bump(s);
        }
        fence(Ordering::Release);
        Some(RangeVersionedSection {
            stripes: self.stripes,
            lo,
            hi,
        })
    }
}

/// [`VersionedSection`] over the stripes of a range of buckets (for
/// `clear`, a chunk at a time).
#[must_use = "the section ends when this guard is dropped"]
pub(crate) struct RangeVersionedSection<'a> {
    stripes: &'a Stripes,
    lo: usize,
    hi: usize,
}

impl Drop for RangeVersionedSection<'_> {
    fn drop(&mut self) {
        for s in self.lo..self.hi {
            self.stripes.bump(s);
        }
    }
}

/// Holds the locks of a run of stripes (a save's chunk); releases them
/// when dropped.
pub(crate) struct RangeGuard<'a> {
    stripes: &'a Stripes,
    lo: usize,
    hi: usize,
}

impl Drop for RangeGuard<'_> {
    fn drop(&mut self) {
        for s in (self.lo..self.hi).rev() {
            self.stripes.unlock(s);
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
