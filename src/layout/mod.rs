//! How a bucket's fingerprints sit in the table's words, in three layouts
//! behind one face ([`Layout`]), so the table, the insert path and the batch
//! path never see which one they run on.
//!
//! - [`Fixed`]: 8, 16 or 32-bit fingerprints. A bucket is 16 to 256 bits, a
//!   power of two, so it never straddles a word (up to 64 bits) or a cache
//!   line, and the SIMD kernels compare both candidate buckets at once.
//! - [`Packed`]: any width from 4 to 32 bits, packed back to back: the table
//!   costs `m * b * f` bits. A bucket (and a slot) may straddle two words;
//!   buckets of up to 64 bits are compared with an exact SWAR kernel
//!   (`cuckoo_nest_simd::PackedLanes`), wider ones lane by lane.
//! - [`SemiSorted`]: four slots per bucket, ordered by their fingerprints'
//!   high 4 bits, which are stored as a 12-bit index into the 3,876 sorted
//!   nibble combinations (paper section 5.2): `4f - 4` bits per bucket, one
//!   bit per item less than [`Packed`].
//!
//! Words: a *slot* is a place in a bucket in the table; a *lane* is where
//! slot `j`'s fingerprint sits once the bucket is loaded. Every layout loads
//! a bucket into the same register shape, a [`Bucket`] with lane `j` at bits
//! `j * f`, so matching and the insert path's slot logic are shared. Loads are relaxed atomic loads of whole words (the
//! stripes order them); writes are atomic read-modify-writes of whole words
//! (`fetch_or`, `fetch_and`, `fetch_xor`), so writers holding different
//! stripes may share a word without losing each other's bits. A bucket that
//! spans several words is loaded one word at a time, so a reader can see a
//! slot half written; docs/verification.md argues why that never makes a
//! lookup answer a false "no" (for semi-sorted buckets, whose every write
//! re-encodes the bucket, only because those writes are versioned).

mod access;
mod bits;
mod fixed;
mod packed;
mod semi_sorted;

pub(crate) use access::{
    claim_word, prefetch_bucket, InBounds, LeBytes, Mask, WordSource, ONE_LOAD_BITS,
};
pub(crate) use fixed::Fixed;

/// How a lock-free claim of a slot went ([`Layout::claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The fingerprint is in the slot.
    Stored,
    /// Another writer filled the slot first: nothing written.
    Taken,
    /// This slot is written only under its stripe's lock (it straddles
    /// two words, or the layout re-encodes whole buckets): nothing written.
    NeedsLock,
}
pub(crate) use packed::Packed;
pub(crate) use semi_sorted::SemiSorted;

use crate::error::DecodeError;
use crate::sync::AtomicU64;
use cuckoo_nest_simd::Kernel;

/// A loaded bucket: lane `j` (fingerprint of slot `j`) at bits `j * f`.
pub(crate) type Bucket = [u64; 4];

/// One bucket layout for buckets of `B` slots.
pub(crate) trait Layout<const B: usize>: Send + Sync + Sized + 'static {
    /// Every write rewrites more than the slot it changes (semi-sorted
    /// buckets re-encode), so writes must run in a versioned section.
    const WRITES_VERSIONED: bool;

    /// A torn read can show a fingerprint that was never stored, so a hit
    /// is final only once the versions validate too.
    const HITS_NEED_VALIDATION: bool = false;

    /// A batch of lookups runs faster compiled for AVX-512 than for SSE2
    /// (`table/batch.rs`): measured per shape (docs/benchmarks.md, "Compare
    /// kernels in the batch path"), only the packed and semi-sorted layouts
    /// whose width is a compile-time constant gain.
    const WIDE_BATCH_PAYS: bool = false;

    /// Fingerprint width in bits.
    fn fingerprint_bits(&self) -> u32;

    /// Bits one bucket takes in the table.
    fn bucket_bits(&self) -> usize;

    /// The largest fingerprint (all `f` bits set).
    #[inline(always)]
    fn fp_max(&self) -> u32 {
        let f = self.fingerprint_bits();
        if f == 32 {
            u32::MAX
        } else {
            (1 << f) - 1
        }
    }

    /// The words holding bucket `i`'s first and last bits.
    #[inline(always)]
    fn span(&self, i: usize) -> (usize, usize) {
        let bits = self.bucket_bits();
        let first = i * bits;
        (first / 64, (first + bits - 1) / 64)
    }

    /// Loads bucket `i` (relaxed: the caller orders it with the stripes).
    /// Like every method here that takes `words`, it reads only the words
    /// of [`Self::span`]`(i)`, and from a [`WordSource::SLACK`] source at
    /// most the word after the span's last too (the table's lookup path
    /// relies on this to skip bounds checks).
    fn load<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> Bucket;

    /// Slot `j` of a loaded bucket.
    fn lane(&self, bucket: &Bucket, j: usize) -> u32;

    /// Which slots of `a` and of `b` equal `value` (0 asks for empty
    /// slots).
    fn matches<K: Kernel>(&self, kernel: K, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask);

    /// The first slot of `a` equal to `value` (0: the first empty slot,
    /// where an insert stores), if any. Each layout finds it its own way,
    /// some without building the whole slot mask.
    fn first_match<K: Kernel>(&self, kernel: K, a: &Bucket, value: u32) -> Option<usize>;

    /// The first empty slot of bucket `i` (loaded: `a`) that an insert
    /// without a lock can claim ([`Self::claim`]): the first empty one but
    /// where a layout has slots across two words, which only a lock writes.
    #[inline(always)]
    fn first_claimable<K: Kernel>(&self, kernel: K, a: &Bucket, i: usize) -> Option<usize> {
        let _ = i;
        self.first_match(kernel, a, 0)
    }

    /// True if any slot of `a` equals `value` (an insert's bound on a
    /// key's copies asks it of the first bucket).
    #[inline(always)]
    fn holds<K: Kernel>(&self, kernel: K, a: &Bucket, value: u32) -> bool {
        self.matches(kernel, a, a, value).0.any()
    }

    /// True if any slot of `a` or `b` equals `value`.
    #[inline(always)]
    fn any_match<K: Kernel>(&self, kernel: K, a: &Bucket, b: &Bucket, value: u32) -> bool {
        let (x, y) = self.matches(kernel, a, b, value);
        x.any() | y.any()
    }

    /// Loads buckets `i1` and `i2` and says whether either holds `fp`: the
    /// lookup's whole data path, which a layout may do without building
    /// [`Bucket`]s (fewer instructions per lookup keep more lookups' cache
    /// misses in flight).
    fn probe<K: Kernel, W: WordSource + ?Sized>(
        &self,
        kernel: K,
        words: &W,
        i1: usize,
        i2: usize,
        fp: u32,
    ) -> bool;

    /// True if [`Self::probe`] reads each bucket as one range of at most
    /// [`ONE_LOAD_BITS`] bits ([`WordSource::bits`]), which the owned
    /// table's lookup reads in one load (for the broken variant that skips
    /// the version re-check on such probes).
    #[inline(always)]
    fn probes_in_one_load(&self) -> bool {
        false
    }

    /// The number of occupied slots of bucket `i` of a saved table, or why
    /// its bits are not what a writer stores.
    #[inline]
    fn audit_bucket<K: Kernel, W: WordSource + ?Sized>(
        &self,
        kernel: K,
        words: &W,
        i: usize,
    ) -> Result<u32, &'static str> {
        let b = self.load(words, i);
        Ok(B as u32 - self.matches(kernel, &b, &b, 0).0.count())
    }

    /// The occupied slots of buckets `0..buckets` of a saved table, or the
    /// first bucket whose bits no writer stores and why.
    fn audit_buckets<K: Kernel, W: WordSource + ?Sized>(
        &self,
        kernel: K,
        words: &W,
        buckets: usize,
    ) -> Result<usize, (usize, &'static str)> {
        let mut n = 0;
        for i in 0..buckets {
            n += self.audit_bucket(kernel, words, i).map_err(|e| (i, e))? as usize;
        }
        Ok(n)
    }

    /// Without a lock: writes `fp` into slot `j` of bucket `i` with one
    /// compare-and-swap on the word that holds the slot, if the slot is
    /// still empty ([`Claim`] says how it went). A slot that is not inside
    /// one word, or a layout that re-encodes whole buckets, answers
    /// [`Claim::NeedsLock`] and writes nothing: such slots are written
    /// under their stripe's lock only (docs/design.md, "Inserts without a
    /// lock").
    #[inline(always)]
    fn claim(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32) -> Claim {
        let _ = (words, i, j, fp);
        Claim::NeedsLock
    }

    /// Writes `fp` into slot `j` of bucket `i`, found empty in `current`
    /// (loaded under its stripe lock). Returns false, writing nothing, if
    /// an insert without a lock ([`Self::claim`]) filled the slot since:
    /// the caller looks for another. `own`: every word holds buckets of
    /// one stripe only and no lock-free claim writes them
    /// ([`Table::own_words`](crate::table::Table)), so each word this
    /// writes is written only under the lock the caller holds, and a load
    /// and a store may stand for a read-modify-write.
    fn set(
        &self,
        words: &[AtomicU64],
        i: usize,
        j: usize,
        fp: u32,
        current: &Bucket,
        own: bool,
    ) -> bool;

    /// Empties slot `j` of bucket `i` (loaded as `current` under its lock;
    /// `own` as for [`Layout::set`]).
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, current: &Bucket, own: bool);
}

/// Audits a saved table of `buckets` buckets in `table_words` words: every
/// bucket as [`Layout::audit_bucket`] wants it, and every bit after the
/// last bucket zero (a writer never sets one). Returns the occupied slots,
/// the item count the table really holds.
pub(crate) fn audit_table<const B: usize, L: Layout<B>, K: Kernel, W: WordSource + ?Sized>(
    layout: &L,
    kernel: K,
    words: &W,
    buckets: usize,
    table_words: usize,
) -> Result<usize, DecodeError> {
    let items = layout
        .audit_buckets(kernel, words, buckets)
        .map_err(|(bucket, reason)| DecodeError::InvalidBucket { bucket, reason })?;
    let end = buckets * layout.bucket_bits();
    let (w, o) = (end / 64, (end % 64) as u32);
    let tail_dirty = (o != 0 && words.word(w) >> o != 0)
        || (w + (o != 0) as usize..table_words).any(|k| words.word(k) != 0);
    if tail_dirty {
        return Err(DecodeError::NonZeroPadding {
            first_bit: end as u64,
        });
    }
    Ok(items)
}
