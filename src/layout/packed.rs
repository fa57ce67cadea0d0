//! Any fingerprint width from 4 to 32 bits, packed back to back: a bucket
//! (and a slot) may straddle two words. Buckets of up to 64 bits are
//! loaded with one funnel shift and compared with an exact SWAR kernel
//! ([`PackedLanes`]), wider ones lane by lane.

use super::bits::{
    fixed_or, lanes_equal, load_bits, load_span, low_bits, packed_lane, write_bits, WordOp,
};
use super::{Bucket, Layout, Mask, WordSource};
use crate::config::bucket_bits;
use crate::sync::AtomicU64;
use cuckoo_nest_simd::{Kernel, PackedLanes};

/// Any width from 4 to 32 bits, packed back to back. `F` is the width when
/// it is known at compile time (the shapes the builder picks most get their
/// own table type, so shifts and masks are constants and a lookup costs
/// about as many instructions as a fixed-width one); 0 means "read it from
/// the fields", the one table type every other width shares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed<const F: u32 = 0> {
    f: u32,
    bucket_bits: usize,
    /// The bucket's bits, for buckets of up to 64 bits.
    bucket_mask: u64,
    /// The SWAR kernel, for buckets of up to 64 bits.
    swar: Option<PackedLanes>,
}

impl<const F: u32> Packed<F> {
    pub(crate) fn new(bucket_size: usize, f: u32) -> Self {
        debug_assert!(F == 0 || F == f);
        let bucket_bits = bucket_bits(bucket_size, f, false);
        Packed {
            f,
            bucket_bits,
            bucket_mask: low_bits(bucket_bits as u32),
            swar: PackedLanes::new(f, bucket_size as u32),
        }
    }
}

/// The width and what follows from it: constants when `F` fixes the width
/// ([`fixed_or`]), the fields' values otherwise.
impl<const F: u32> Packed<F> {
    #[inline(always)]
    fn width(&self) -> u32 {
        fixed_or::<F, _>(self.f, F)
    }

    #[inline(always)]
    fn bits<const B: usize>(&self) -> usize {
        fixed_or::<F, _>(self.bucket_bits, bucket_bits(B, F, false))
    }

    #[inline(always)]
    fn mask<const B: usize>(&self) -> u64 {
        fixed_or::<F, _>(self.bucket_mask, low_bits(bucket_bits(B, F, false) as u32))
    }

    #[inline(always)]
    fn lanes<const B: usize>(&self) -> Option<PackedLanes> {
        fixed_or::<F, _>(self.swar, const { PackedLanes::new(F, B as u32) })
    }
}

impl<const B: usize, const F: u32> Layout<B> for Packed<F> {
    const WRITES_VERSIONED: bool = false;
    /// The widths fixed at compile time (the builder's picks) gain; a width
    /// known only at run time loses (docs/benchmarks.md).
    const WIDE_BATCH_PAYS: bool = F != 0;

    #[inline(always)]
    fn fingerprint_bits(&self) -> u32 {
        self.width()
    }

    #[inline(always)]
    fn bucket_bits(&self) -> usize {
        self.bits::<B>()
    }

    #[inline(always)]
    fn load<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> Bucket {
        let first = i * self.bits::<B>();
        if self.bits::<B>() <= 64 {
            [
                load_bits(words, first, self.bits::<B>()) & self.mask::<B>(),
                0,
                0,
                0,
            ]
        } else {
            let last = (first + self.bits::<B>() - 1) / 64;
            load_span::<4, W>(words, first / 64, last, (first % 64) as u32)
        }
    }

    #[inline(always)]
    fn lane(&self, bucket: &Bucket, j: usize) -> u32 {
        packed_lane(bucket, j, self.width())
    }

    #[inline(always)]
    fn matches<K: Kernel>(&self, _: K, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask) {
        match self.lanes::<B>() {
            Some(p) => (Mask(p.eq(a[0], value)), Mask(p.eq(b[0], value))),
            None => (
                lanes_equal::<B>(a, self.width(), value),
                lanes_equal::<B>(b, self.width(), value),
            ),
        }
    }

    #[inline(always)]
    fn first_match<K: Kernel>(&self, k: K, a: &Bucket, value: u32) -> Option<usize> {
        match self.lanes::<B>() {
            Some(p) => p.first_eq(a[0], value).map(|j| j as usize),
            None => <Self as Layout<B>>::matches(self, k, a, a, value)
                .0
                .lowest_set_bit(),
        }
    }

    #[inline(always)]
    fn probe<K: Kernel, W: WordSource + ?Sized>(
        &self,
        k: K,
        words: &W,
        i1: usize,
        i2: usize,
        fp: u32,
    ) -> bool {
        match self.lanes::<B>() {
            Some(p) => {
                let bits = self.bits::<B>();
                // No mask: the compare looks only at the bucket's lanes,
                // whatever lies above them.
                let a = load_bits(words, i1 * bits, bits);
                let b = load_bits(words, i2 * bits, bits);
                p.any_eq2(a, b, fp)
            }
            None => {
                let (a, b) = (
                    Layout::<B>::load(self, words, i1),
                    Layout::<B>::load(self, words, i2),
                );
                Layout::<B>::any_match(self, k, &a, &b, fp)
            }
        }
    }

    #[inline(always)]
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, _: &Bucket) {
        let at = i * self.bits::<B>() + j * self.width() as usize;
        write_bits(words, at, fp as u128, self.width(), WordOp::Set);
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, _: &Bucket) {
        let at = i * self.bits::<B>() + j * self.width() as usize;
        write_bits(words, at, 0, self.width(), WordOp::Clear);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::bits::words;

    fn first_match<const B: usize>(
        layout: &Packed<0>,
        w: &[AtomicU64],
        i: usize,
        value: u32,
    ) -> Option<usize>
    where
        Packed<0>: Layout<B>,
    {
        let bucket = Layout::<B>::load(layout, w, i);
        Layout::<B>::first_match(layout, cuckoo_nest_simd::Scalar, &bucket, value)
    }

    /// Every width, every bucket size: set and clear slots of neighbouring
    /// buckets and read them back, so straddling slots and buckets are
    /// checked against a plain model.
    #[test]
    fn packed_slots_round_trip_across_words() {
        for b in [2usize, 4, 8] {
            // Under miri: a width per kind of straddle (none, slot,
            // bucket) and the extremes.
            let widths: Vec<u32> = if cfg!(miri) {
                vec![4, 12, 13, 31, 32]
            } else {
                (4..=32).collect()
            };
            for f in widths {
                let layout = Packed::<0>::new(b, f);
                // Under miri fewer buckets (each still spans several
                // words) and two passes (set, then clear), not three.
                let (buckets, passes) = if cfg!(miri) { (5, 2) } else { (9, 3) };
                let w = words((buckets * b * f as usize).div_ceil(64) + 1);
                let mut model = vec![vec![0u32; b]; buckets];
                let max = if f == 32 { u32::MAX } else { (1 << f) - 1 };
                for step in 0..(buckets * b * passes) {
                    let (i, j) = ((step * 7) % buckets, (step * 3) % b);
                    let current = match b {
                        2 => Layout::<2>::load(&layout, &w[..], i),
                        4 => Layout::<4>::load(&layout, &w[..], i),
                        _ => Layout::<8>::load(&layout, &w[..], i),
                    };
                    let fp = (((step as u64 + 1) * 0x9e37_79b9) as u32 & max).max(1);
                    if model[i][j] == 0 {
                        Layout::<2>::set(&layout, &w, i, j, fp, &current);
                        model[i][j] = fp;
                    } else {
                        Layout::<2>::clear(&layout, &w, i, j, &current);
                        model[i][j] = 0;
                    }
                    for (k, slots) in model.iter().enumerate() {
                        for v in [0, fp, model[k][0]] {
                            let want = slots.iter().position(|&x| x == v);
                            let got = match b {
                                2 => first_match::<2>(&layout, &w, k, v),
                                4 => first_match::<4>(&layout, &w, k, v),
                                _ => first_match::<8>(&layout, &w, k, v),
                            };
                            assert_eq!(got, want, "first_match b={b} f={f} bucket {k} {v}");
                        }
                        let got = Layout::<8>::load(&layout, &w[..], k);
                        for (s, &want) in slots.iter().enumerate() {
                            assert_eq!(
                                packed_lane(&got, s, f),
                                want,
                                "b={b} f={f} bucket {k} slot {s}"
                            );
                        }
                    }
                }
            }
        }
    }
}
