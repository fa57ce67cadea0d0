//! 8, 16 and 32-bit fingerprints: buckets of a power-of-two size that never
//! straddle a word or a cache line, compared by the SIMD kernels, both
//! candidate buckets in one register. Below the layout, what every layout
//! shares: the word sources it reads through ([`WordSource`]), the slot
//! mask its matches answer with ([`Mask`]), the prefetch of a bucket's
//! lines ([`prefetch_bucket`]) and the one way a writer changes a word
//! ([`change_word`]): here, in the file the default filter's lookup and
//! insert pass, so they read down without leaving it.

use super::bits::{claim_word, low_bits, two_word_bits};
use super::{Bucket, Layout};
use crate::sync::{AtomicU64, Ordering};
use cuckoo_nest_simd::Kernel;

/// A change a writer makes to a table word's bits.
#[derive(Clone, Copy)]
pub(crate) enum Change {
    /// Sets these bits.
    Or(u64),
    /// Keeps these bits, clears the rest.
    And(u64),
    /// Flips these bits.
    Xor(u64),
}

/// Makes `change` to `word`, under the stripe lock of the bucket it
/// writes. Where buckets of another stripe may share the word, with a
/// read-modify-write, so neither stripe's writer undoes the other's. Where
/// the word holds one stripe's buckets only (`own`, [`Layout::set`]),
/// every writer of it holds that lock, so a relaxed load and store do the
/// same without a locked instruction (a lookup reads the word whole either
/// way).
#[inline(always)]
pub(crate) fn change_word(word: &AtomicU64, change: Change, own: bool) {
    let relaxed = Ordering::Relaxed;
    if own {
        let w = word.load(relaxed);
        let new = match change {
            Change::Or(v) => w | v,
            Change::And(v) => w & v,
            Change::Xor(v) => w ^ v,
        };
        word.store(new, relaxed);
    } else {
        match change {
            Change::Or(v) => word.fetch_or(v, relaxed),
            Change::And(v) => word.fetch_and(v, relaxed),
            Change::Xor(v) => word.fetch_xor(v, relaxed),
        };
    }
}

/// 8, 16 or 32-bit fingerprints: buckets of a power-of-two size that never
/// straddle a word or a line, compared by the SIMD kernels.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fixed<const F: u32>;

impl<const F: u32> Fixed<F> {
    const FP_MASK: u64 = low_bits(F);

    /// The kernel's match bits for buckets `a` and `b` compared at once:
    /// `a`'s slots from bit 0, `b`'s from the returned offset. Buckets of
    /// up to 64 bits share one 128-bit group (lanes past a bucket are zero
    /// words' lanes: masked off by the callers), 128-bit buckets one
    /// 256-bit group, 256-bit buckets a group each.
    #[inline(always)]
    fn side_by_side<const B: usize, K: Kernel>(
        k: K,
        a: &Bucket,
        b: &Bucket,
        value: u32,
    ) -> (u64, u32) {
        match B * F as usize {
            bits if bits <= 64 => {
                let g = [a[0], b[0]];
                let m = match F {
                    8 => k.eq8x16(g, value as u8),
                    16 => k.eq16x8(g, value as u16),
                    _ => k.eq32x4(g, value),
                };
                (m as u64, 64 / F)
            }
            128 => {
                let g = [a[0], a[1], b[0], b[1]];
                let m = match F {
                    8 => k.eq8x32(g, value as u8),
                    16 => k.eq16x16(g, value as u16),
                    _ => k.eq32x8(g, value),
                };
                (m as u64, B as u32)
            }
            // 256-bit buckets (8 x 32 bits): one group each.
            _ => (
                k.eq32x8(*a, value) as u64 | (k.eq32x8(*b, value) as u64) << 8,
                8,
            ),
        }
    }
}

impl<const B: usize, const F: u32> Layout<B> for Fixed<F> {
    const WRITES_VERSIONED: bool = false;

    #[inline(always)]
    fn fingerprint_bits(&self) -> u32 {
        F
    }

    #[inline(always)]
    fn bucket_bits(&self) -> usize {
        B * F as usize
    }

    /// A power-of-two bucket: within one word up to 64 bits, else whole
    /// words.
    #[inline(always)]
    fn span(&self, i: usize) -> (usize, usize) {
        let bits = B * F as usize;
        let first = i * bits / 64;
        (first, first + bits.div_ceil(64) - 1)
    }

    /// All `F` bits set, a constant.
    #[inline(always)]
    fn fp_max(&self) -> u32 {
        u32::MAX >> (32 - F)
    }

    #[inline(always)]
    fn load<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> Bucket {
        let bits = B * F as usize;
        let mut out = [0u64; 4];
        if bits <= 64 {
            // Whole buckets per word, a power of two: `i * bits / 64`
            // without the multiply's overflow to mask away.
            let per = 64 / bits;
            let v = words.word(i / per) >> ((i % per) * bits);
            out[0] = v & low_bits(bits as u32);
        } else {
            let per = bits / 64;
            for (k, o) in out.iter_mut().enumerate().take(per) {
                *o = words.word(i * per + k);
            }
        }
        out
    }

    #[inline(always)]
    fn lane(&self, bucket: &Bucket, j: usize) -> u32 {
        let bit = j * F as usize;
        ((bucket[bit / 64] >> (bit % 64)) & Self::FP_MASK) as u32
    }

    #[inline(always)]
    fn matches<K: Kernel>(&self, k: K, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask) {
        let (m, at) = Self::side_by_side::<B, K>(k, a, b, value);
        let lanes = low_bits(B as u32);
        (Mask((m & lanes) as u32), Mask((m >> at & lanes) as u32))
    }

    /// The lowest set bit of the kernel's mask for `a`.
    #[inline(always)]
    fn first_match<K: Kernel>(&self, k: K, a: &Bucket, value: u32) -> Option<usize> {
        <Self as Layout<B>>::matches(self, k, a, a, value)
            .0
            .lowest_set_bit()
    }

    /// Both buckets loaded, then one test of the kernel's mask.
    #[inline(always)]
    fn probe<K: Kernel, W: WordSource + ?Sized>(
        &self,
        k: K,
        words: &W,
        i1: usize,
        i2: usize,
        fp: u32,
    ) -> bool {
        let load = |i| <Self as Layout<B>>::load(self, words, i);
        <Self as Layout<B>>::any_match(self, k, &load(i1), &load(i2), fp)
    }

    /// One test of the kernel's mask, where [`Self::matches`] would split it.
    #[inline(always)]
    fn any_match<K: Kernel>(&self, k: K, a: &Bucket, b: &Bucket, value: u32) -> bool {
        let (m, at) = Self::side_by_side::<B, K>(k, a, b, value);
        let lanes = low_bits(B as u32);
        m & (lanes | lanes << at) != 0
    }

    /// Occupied lanes counted a word at a time (lanes never straddle
    /// words, and every bit pattern is a fingerprint or empty): a few
    /// instructions a word, so the audit of a loaded table costs a fraction
    /// of its copy.
    fn audit_buckets<K: Kernel, W: WordSource + ?Sized>(
        &self,
        _: K,
        words: &W,
        buckets: usize,
    ) -> Result<usize, (usize, &'static str)> {
        // The top bit of every lane; adding the low bits into it carries
        // iff they are not all zero, and never into the next lane.
        let ones = u64::MAX / Self::FP_MASK;
        let tops = ones << (F - 1);
        let low = !tops;
        // The lanes' 0/1 flags summed into the top lane by one multiply
        // (the baseline x86_64 target has no popcnt instruction).
        let occupied = |w: u64| {
            ((((((w & low) + low) | w) & tops) >> (F - 1)).wrapping_mul(ones) >> (64 - F)) as usize
        };
        let bits = buckets * B * F as usize;
        let whole = bits / 64;
        let mut n = (0..whole).map(|k| occupied(words.word(k))).sum();
        if !bits.is_multiple_of(64) {
            n += occupied(words.word(whole) & low_bits((bits % 64) as u32));
        }
        Ok(n)
    }

    #[inline(always)]
    fn claim(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32) -> super::Claim {
        let bit = (i * B + j) * F as usize;
        let (word, shift) = (&words[bit / 64], bit % 64);
        if claim_word(word, Self::FP_MASK << shift, (fp as u64) << shift) {
            super::Claim::Stored
        } else {
            super::Claim::Taken
        }
    }

    #[inline(always)]
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, _: &Bucket, own: bool) -> bool {
        let bit = (i * B + j) * F as usize;
        let (word, shift) = (&words[bit / 64], bit % 64);
        if own {
            change_word(word, Change::Or((fp as u64) << shift), true);
            return true;
        }
        claim_word(word, Self::FP_MASK << shift, (fp as u64) << shift)
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, _: &Bucket, own: bool) {
        let bit = (i * B + j) * F as usize;
        let keep = !(Self::FP_MASK << (bit % 64));
        change_word(&words[bit / 64], Change::And(keep), own);
    }
}

// The slot mask: what every layout's `matches` answers with, iterated by
// the insert and remove paths instead of bit arithmetic on kernel results.

/// Which slots of a bucket matched: bit `j` for slot `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mask(pub(crate) u32);

impl Mask {
    /// True if any slot matched.
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }

    /// The first matching slot.
    #[inline(always)]
    pub(crate) fn lowest_set_bit(self) -> Option<usize> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as usize)
    }

    /// How many slots matched.
    #[inline(always)]
    pub(crate) fn count(self) -> u32 {
        self.0.count_ones()
    }
}

/// The matching slots, lowest first.
impl Iterator for Mask {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let j = self.lowest_set_bit()?;
        self.0 &= self.0 - 1;
        Some(j)
    }
}

/// Hints the CPU to fetch the line(s) a load of bucket `i` reads from the
/// table words at `base`. A bucket whose size does not divide a 512-bit line
/// may straddle two; its second word is then prefetched too, without asking
/// whether it lies on another line: on a shuffled stream that test is a
/// coin-flip branch (one bucket in ten straddles at 48 bits), and a second
/// prefetch of a line already requested costs less than a mispredicted
/// branch. From a source with slack (`WordSource::SLACK`) a bucket of up to
/// 64 bits is loaded as its first word and the next, so that next word's
/// line is the one prefetched.
#[inline(always)]
pub(crate) fn prefetch_bucket<const B: usize, L: Layout<B>>(
    layout: &L,
    base: *const u64,
    i: usize,
    slack: bool,
) {
    let bits = layout.bucket_bits();
    let (first, last) = layout.span(i);
    prefetch_addr(base.wrapping_add(first).cast());
    if 512 % bits != 0 {
        let second = if slack && bits <= 64 { first + 1 } else { last };
        prefetch_addr(base.wrapping_add(second).cast());
    }
}

/// Prefetches the cache line holding address `p` (a hint; never faults,
/// whatever `p` is).
#[inline(always)]
fn prefetch_addr(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetch is only a hint: it never faults or reads into
        // the program, whatever the address (SSE is baseline on x86_64).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom))))]
    let _ = p;
}

// Where a layout reads the table's words from: the owned table's atomics
// (with or without bounds checks, [`InBounds`]) or a saved filter's
// immutable bytes, aligned or not ([`LeBytes`]). The load path of every
// layout is written once over [`WordSource`].

/// Where a lookup reads the table's 64-bit words from: the owned table's
/// atomics (relaxed loads, ordered by the stripes) or a saved filter's
/// immutable bytes ([`FilterView`](crate::FilterView)), little-endian. The
/// load path of every layout is written once over this trait; for the
/// atomic slice each `word` is one relaxed load, a plain `mov` on x86_64.
pub(crate) trait WordSource {
    /// The word after any bucket's first word may be read, whether or not
    /// the bucket reaches into it (the owned table keeps zero padding after
    /// its last line), so a bucket of up to 64 bits loads as words `w` and
    /// `w + 1` without working out where its last bit is. Saved bytes have
    /// no padding, so a view computes the last word.
    const SLACK: bool = false;

    /// Word `w`, as a number (bit `k` of the word is bit `64 w + k` of the
    /// table).
    fn word(&self, w: usize) -> u64;

    /// Up to 64 bits at table bit `first`, `len` of them (bits above are
    /// left for the caller to mask): by default two word loads shifted
    /// together ([`two_word_bits`]); the owned table's lookup path reads
    /// ranges of up to [`ONE_LOAD_BITS`] bits in one load.
    #[inline(always)]
    fn bits(&self, first: usize, len: usize) -> u64 {
        if len <= ONE_LOAD_BITS {
            self.short_bits(first, len)
        } else {
            two_word_bits(self, first, len)
        }
    }

    /// Bucket `i` of buckets of `bits` bits (at most [`ONE_LOAD_BITS`]),
    /// as [`Self::short_bits`] reads it; for a width fixed at compile time
    /// (the owned table's one load takes its byte offset as `i * (bits /
    /// 8)` where buckets are whole bytes, no shift).
    #[inline(always)]
    fn short_bucket(&self, i: usize, bits: usize) -> u64 {
        self.short_bits(i * bits, bits)
    }

    /// [`Self::bits`] of a range known to be at most [`ONE_LOAD_BITS`]
    /// long (a caller that has tested the length once for several ranges).
    #[inline(always)]
    fn short_bits(&self, first: usize, len: usize) -> u64 {
        debug_assert!(len <= ONE_LOAD_BITS);
        two_word_bits(self, first, len)
    }
}

/// The longest range [`InBounds`] reads in one unaligned 64-bit load: one
/// that starts anywhere in a byte still ends inside the 8 bytes loaded.
pub(crate) const ONE_LOAD_BITS: usize = 57;

impl WordSource for [AtomicU64] {
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        self[w].load(Ordering::Relaxed)
    }
}

/// The table's own words on the lookup path, read without bounds checks
/// (a packed lookup reads four words; their checks were a tenth of its
/// instructions).
#[derive(Clone, Copy)]
pub(crate) struct InBounds<'a>(&'a [AtomicU64]);

impl<'a> InBounds<'a> {
    /// # Safety
    ///
    /// Every word index later asked of the result must be below
    /// `words.len()`.
    #[inline(always)]
    pub(crate) unsafe fn new(words: &'a [AtomicU64]) -> Self {
        InBounds(words)
    }
}

impl WordSource for InBounds<'_> {
    /// The table's words are followed by `PADDING_WORDS` zero words.
    const SLACK: bool = true;

    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        debug_assert!(w < self.0.len(), "word {w} of {}", self.0.len());
        // SAFETY: whoever made this `InBounds` promised (`InBounds::new`)
        // that every index asked is below the slice's length.
        unsafe { self.0.get_unchecked(w) }.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn short_bucket(&self, i: usize, bits: usize) -> u64 {
        #[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
        if bits.is_multiple_of(8) {
            // The byte offset without first forming the bit offset
            // (`(i * bits) / 8` costs two instructions more: the compiler
            // cannot assume the product does not wrap).
            // SAFETY: as in `short_bits`, for `first = i * bits`, whose
            // byte is `i * (bits / 8)` and bit offset in it 0.
            return unsafe { super::bits::load_at(self.0, i * (bits / 8)) };
        }
        self.short_bits(i * bits, bits)
    }

    /// A range of up to [`ONE_LOAD_BITS`] bits in one unaligned 64-bit
    /// load at its first byte (x86_64, [`load_at`](super::bits::load_at)), shifted by the bit
    /// offset in that byte ([`WordSource::bits`] reads longer ranges as two
    /// words; elsewhere every range is read so).
    #[inline(always)]
    fn short_bits(&self, first: usize, len: usize) -> u64 {
        debug_assert!(len <= ONE_LOAD_BITS);
        #[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
        {
            // SAFETY: bytes `first / 8..first / 8 + 8` lie in words
            // `first / 64` and `first / 64 + 1` (see `load_at`), both below
            // the length by `InBounds::new`'s contract with a `SLACK` source.
            unsafe { super::bits::load_at(self.0, first / 8) >> (first % 8) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom))))]
        {
            super::bits::one_load_model(self, first, len)
        }
    }
}

/// Immutable words stored little-endian, 8-byte aligned (a saved table on
/// its own alignment): `from_le` is a no-op on little-endian targets.
impl WordSource for [u64] {
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        u64::from_le(self[w])
    }
}

/// Immutable little-endian words at any address, read byte-wise (a saved
/// table that is not 8-byte aligned).
#[derive(Clone, Copy)]
pub(crate) struct LeBytes<'a>(pub(crate) &'a [u8]);

impl WordSource for LeBytes<'_> {
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        let b: &[u8; 8] = self.0[w * 8..w * 8 + 8]
            .try_into()
            .expect("an 8-byte range");
        u64::from_le_bytes(*b)
    }
}

#[cfg(test)]
mod mask_tests {
    use super::*;

    #[test]
    fn mask_iterates_its_slots_lowest_first() {
        assert_eq!(Mask(0b1010_0110).collect::<Vec<_>>(), [1, 2, 5, 7]);
        assert_eq!(Mask(0).lowest_set_bit(), None);
        assert_eq!(Mask(0b100).count(), 1);
    }
}
