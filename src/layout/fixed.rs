//! 8, 16 and 32-bit fingerprints: buckets of a power-of-two size that never
//! straddle a word or a cache line, compared by the SIMD kernels, both
//! candidate buckets in one register. What every layout shares below it
//! (word sources, the slot mask, prefetches, word changes) is in
//! `access.rs`.

use super::access::{change_word, claim_word, Change, Mask, WordSource};
use super::bits::low_bits;
use super::{Bucket, Layout};
use crate::sync::AtomicU64;
use cuckoo_nest_simd::Kernel;

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

    /// The first empty slot: 8-, 16- and 32-bit slots never cross a word.
    #[inline(always)]
    fn first_claimable<K: Kernel>(&self, k: K, a: &Bucket, _: usize) -> Option<usize> {
        <Self as Layout<B>>::first_match(self, k, a, 0)
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
