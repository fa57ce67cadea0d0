//! The bucket array and the lookup path.
//!
//! Buckets of `B` fingerprints of `F` bits are packed back to back in
//! `AtomicU64` words: bucket `i`, slot `j` is bits `(i*B + j)*F ..` of the
//! array. A bucket is 16 to 256 bits, a power of two, so it never straddles a
//! 64-byte cache line, and buckets of 64 bits or less never straddle a word.
//! Every access is atomic: readers load whole words with `Relaxed` loads
//! (ordered by the stripe stamps), writers change one slot with
//! `fetch_or`/`fetch_and`, so two writers holding different stripes may
//! share a word without losing each other's bits.
//!
//! A lookup: prefetch both buckets, load them, ask the SIMD kernel which
//! slots hold the fingerprint. A hit is final (that fingerprint really was
//! there). A miss is final only if a second look, between two reads of both
//! stripes' versions, also misses and no move ran on either stripe
//! meanwhile; otherwise look again.

use crate::error::BuildError;
use crate::hash::{alt_index, split, unsplit};
use crate::stripes::Stripes;
use crate::sync::{AtomicU64, Ordering, Spin};
use crate::words::Words;
use cuckoo_nest_simd::{Kernel, Native};

/// One bucket's bits, in up to four words. Buckets of 64 bits or less sit in
/// the low bits of word 0 (the rest zero).
pub(crate) type Bucket = [u64; 4];

/// `K` is the fingerprint-match kernel: [`Native`] in every filter users
/// build; the scalar reference only in the hidden benchmark variant.
pub(crate) struct Table<const B: usize, const F: u32, K = Native> {
    kernel: K,
    words: Words,
    buckets: usize,
    pub(crate) stripes: Stripes,
}

impl<const B: usize, const F: u32, K: Kernel + Default> Table<B, F, K> {
    pub(crate) const BUCKET_BITS: usize = B * F as usize;
    const WORDS_PER_BUCKET: usize = if Self::BUCKET_BITS >= 64 {
        Self::BUCKET_BITS / 64
    } else {
        1
    };
    pub(crate) const FP_MASK: u64 = if F == 64 { u64::MAX } else { (1u64 << F) - 1 };
    const LANE_MASK: u32 = (1u32 << B) - 1;

    /// A zeroed table of `buckets` buckets, or the reason it cannot be had.
    pub(crate) fn new(
        buckets: usize,
        capacity: usize,
        huge_pages: bool,
    ) -> Result<Self, BuildError> {
        let too_large = BuildError::CapacityTooLarge { capacity };
        let bits = buckets
            .checked_mul(Self::BUCKET_BITS)
            .ok_or(too_large.clone())?;
        // Whole cache lines (8 words), so prefetches and SIMD loads of the
        // last bucket stay inside the allocation.
        let words = bits.div_ceil(512).checked_mul(8).ok_or(too_large.clone())?;
        if words > isize::MAX as usize / 8 {
            return Err(too_large);
        }
        Ok(Table {
            kernel: K::default(),
            words: Words::zeroed(words, huge_pages)?,
            buckets,
            stripes: Stripes::new(buckets),
        })
    }

    #[inline(always)]
    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    pub(crate) fn memory_usage(&self) -> usize {
        self.words.len() * 8
    }

    #[inline(always)]
    pub(crate) fn locate(&self, hash: u64) -> (usize, u32) {
        split(hash, self.buckets, Self::FP_MASK as u32)
    }

    /// The inverse of [`Self::locate`] (see [`unsplit`]).
    pub(crate) fn unlocate(&self, i1: usize, fp: u32, k: u32) -> Option<u64> {
        unsplit(i1, fp, self.buckets, Self::FP_MASK as u32, k)
    }

    #[inline(always)]
    pub(crate) fn alt(&self, i: usize, fp: u32) -> usize {
        alt_index(i, fp, self.buckets)
    }

    #[inline(always)]
    fn word(&self, w: usize) -> &AtomicU64 {
        &self.words[w]
    }

    /// Word index and bit shift of slot `j` of bucket `i`.
    #[inline(always)]
    fn slot_pos(i: usize, j: usize) -> (usize, u32) {
        let bit = (i * B + j) * F as usize;
        (bit / 64, (bit % 64) as u32)
    }

    /// Hints the CPU to fetch bucket `i`'s cache line.
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        let (w, _) = Self::slot_pos(i, 0);
        self.words.prefetch(w);
    }

    /// Loads bucket `i` (relaxed: the caller orders it with the stripes).
    #[inline(always)]
    pub(crate) fn load_bucket(&self, i: usize) -> Bucket {
        let mut out = [0u64; 4];
        if Self::BUCKET_BITS <= 64 {
            let (w, shift) = Self::slot_pos(i, 0);
            let v = self.word(w).load(Ordering::Relaxed) >> shift;
            out[0] = if Self::BUCKET_BITS == 64 {
                v
            } else {
                v & ((1u64 << Self::BUCKET_BITS) - 1)
            };
        } else {
            let first = i * Self::WORDS_PER_BUCKET;
            for (k, o) in out.iter_mut().enumerate().take(Self::WORDS_PER_BUCKET) {
                *o = self.word(first + k).load(Ordering::Relaxed);
            }
        }
        out
    }

    /// Slot `j` of a loaded bucket.
    #[inline(always)]
    pub(crate) fn lane(bucket: &Bucket, j: usize) -> u32 {
        let bit = j * F as usize;
        ((bucket[bit / 64] >> (bit % 64)) & Self::FP_MASK) as u32
    }

    /// Which slots of buckets `a` and `b` equal `value` (0 asks for empty
    /// slots): two masks, bit `j` = slot `j`. One kernel call covers both
    /// buckets when together they fit in 256 bits.
    #[inline(always)]
    pub(crate) fn match_pair(&self, a: &Bucket, b: &Bucket, value: u32) -> (u32, u32) {
        let k = self.kernel;
        if Self::BUCKET_BITS <= 64 {
            let g = [a[0], b[0]];
            let m = match F {
                8 => k.eq8x16(g, value as u8),
                16 => k.eq16x8(g, value as u16),
                _ => k.eq32x4(g, value),
            };
            let lanes_per_word = 64 / F;
            (m & Self::LANE_MASK, (m >> lanes_per_word) & Self::LANE_MASK)
        } else if Self::BUCKET_BITS == 128 {
            let g = [a[0], a[1], b[0], b[1]];
            let m = match F {
                8 => k.eq8x32(g, value as u8),
                16 => k.eq16x16(g, value as u16),
                _ => k.eq32x8(g, value),
            };
            (m & Self::LANE_MASK, (m >> B) & Self::LANE_MASK)
        } else {
            // 256-bit buckets (8 x 32 bits): one group each.
            (k.eq32x8(*a, value), k.eq32x8(*b, value))
        }
    }

    /// Which slots of bucket `a` equal `value`.
    #[inline(always)]
    pub(crate) fn match_one(&self, a: &Bucket, value: u32) -> u32 {
        self.match_pair(a, a, value).0
    }

    /// True if fingerprint `fp` is in bucket `i1` or its alternate.
    /// Lock-free, writes no shared memory.
    #[inline]
    pub(crate) fn contains(&self, i1: usize, fp: u32) -> bool {
        let i2 = self.alt(i1, fp);
        self.prefetch(i1);
        self.prefetch(i2);
        self.contains_at(i1, i2, fp)
    }

    /// The probe of [`Self::contains`] once both buckets are known (and
    /// prefetched): the batch path calls it directly.
    #[inline(always)]
    pub(crate) fn contains_at(&self, i1: usize, i2: usize, fp: u32) -> bool {
        // A hit needs no versions: a fingerprint seen in a bucket really was
        // there. So look once without them; hits (and a writer's version
        // bumps) then never cost the reader the versions' cache lines.
        let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
        let (ma, mb) = self.match_pair(&a, &b, fp);
        if ma | mb != 0 {
            return true;
        }
        self.contains_versioned(i1, i2, fp)
    }

    /// The seqlock read: a miss counts only if no move ran on either bucket's
    /// stripe while the buckets were loaded.
    #[inline]
    fn contains_versioned(&self, i1: usize, i2: usize, fp: u32) -> bool {
        let (s1, s2) = (self.stripes.of(i1), self.stripes.of(i2));
        let spin = Spin::new();
        loop {
            let (Some(t1), Some(t2)) = (self.stripes.read_begin(s1), self.stripes.read_begin(s2))
            else {
                spin.wait();
                continue;
            };
            let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
            let (ma, mb) = self.match_pair(&a, &b, fp);
            if ma | mb != 0 {
                return true;
            }
            Stripes::read_fence();
            if self.stripes.read_valid(s1, t1) && self.stripes.read_valid(s2, t2) {
                return false;
            }
            spin.wait();
        }
    }

    /// Writes `fp` into empty slot `j` of bucket `i`. Caller holds the
    /// bucket's stripe lock and has seen the slot empty under it.
    #[inline]
    pub(crate) fn set_slot(&self, i: usize, j: usize, fp: u32) {
        let (w, shift) = Self::slot_pos(i, j);
        if cfg!(cuckoo_broken_plain_store) {
            // Deliberately broken variant for the loom models: load + store
            // loses a concurrent write to another bucket sharing the word.
            let v = self.word(w).load(Ordering::Relaxed);
            self.word(w)
                .store(v | (fp as u64) << shift, Ordering::Relaxed);
            return;
        }
        self.word(w)
            .fetch_or((fp as u64) << shift, Ordering::Relaxed);
    }

    /// Empties slot `j` of bucket `i`. Caller holds the bucket's stripe lock.
    #[inline]
    pub(crate) fn clear_slot(&self, i: usize, j: usize) {
        let (w, shift) = Self::slot_pos(i, j);
        self.word(w)
            .fetch_and(!(Self::FP_MASK << shift), Ordering::Relaxed);
    }

    /// Zeroes every word. Caller holds every stripe lock.
    pub(crate) fn zero_all(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// The fingerprints of bucket `i`, 0 for empty slots (for tests and
    /// debugging; not a consistent snapshot under concurrent writes).
    pub(crate) fn bucket_fingerprints(&self, i: usize) -> Vec<u32> {
        let b = self.load_bucket(i);
        (0..B).map(|j| Self::lane(&b, j)).collect()
    }
}
