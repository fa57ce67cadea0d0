//! Any fingerprint width from 4 to 32 bits, packed back to back: a bucket
//! (and a slot) may straddle two words. Buckets of up to 64 bits are
//! loaded as one range of bits ([`WordSource::bits`]: one load on the
//! owned table's lookup path for buckets of up to 57 bits, two words and a
//! funnel shift otherwise) and compared with an exact SWAR kernel
//! ([`PackedLanes`]); a lookup compares wider ones in parts that each fit
//! one load ([`parts`]), the other operations lane by lane.

use super::access::claim_word;
use super::bits::{
    fixed_or, lanes_equal, load_bits, load_span, low_bits, packed_lane, write_bits, WordOp,
};
use super::{Bucket, Claim, Layout, Mask, WordSource, ONE_LOAD_BITS};
use crate::config::bucket_bits;
use crate::sync::AtomicU64;
use cuckoo_nest_simd::{Kernel, PackedLanes};

/// Any width from 4 to 32 bits, packed back to back. `F` is the width when
/// it is known at compile time (the shapes the builder picks most get their
/// own table type, so shifts and masks are constants and a lookup costs
/// about as many instructions as a fixed-width one); 0 means "read it from
/// the fields", the one table type every other width shares. `repr(C)`,
/// and `F` names no field: `Packed<F>` is laid out as `Packed<0>`
/// (`table/at_width.rs` relies on it). The fields stand in the order the
/// compiler chose for them before: in the declared order, a lookup of a
/// semi-sorted 4x13 filter took 115 instructions instead of 113.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Packed<const F: u32 = 0> {
    /// The SWAR kernel, for buckets of up to 64 bits.
    swar: Option<PackedLanes>,
    /// The SWAR kernel for a part of a bucket (a half, a quarter or one
    /// lane), for wider buckets whose parts are each one short load
    /// ([`parts`]).
    parts: Option<PackedLanes>,
    bucket_bits: usize,
    /// The bucket's bits, for buckets of up to 64 bits.
    bucket_mask: u64,
    f: u32,
}

/// Lanes for a part of a bucket of `lanes` lanes of `f` bits, where the
/// bucket is wider than 64 bits: the most lanes, half the bucket's, a
/// quarter or one, whose bits fit one short load ([`ONE_LOAD_BITS`]).
/// Halves for 4 x 17 to 4 x 28 and 8 x 9 to 8 x 14, quarters for 8 x 15 to
/// 8 x 28, single lanes above. A lookup then reads each part in one load
/// and compares a part of both buckets in one SWAR step, instead of lane by
/// lane with shifts across words (an 8-slot growable filter's lookup at 8x,
/// 16-bit slots: 499 instructions lane by lane; docs/benchmarks.md).
const fn parts(f: u32, lanes: u32) -> Option<PackedLanes> {
    if f * lanes <= 64 {
        return None;
    }
    let mut part = lanes / 2;
    while part > 0 {
        if lanes.is_multiple_of(part) && (f * part) as usize <= ONE_LOAD_BITS {
            return PackedLanes::new(f, part);
        }
        part /= 2;
    }
    None
}

/// For bucket `i` of `b` slots of `f` bits (at most 128 bits in all), at
/// `i % 64`: the lowest bit of each of its slots that lies across two
/// words, counted from the bucket's first bit (the bucket's first bit is at
/// `i * f * b`, so its offset in a word repeats every 64 buckets). A bucket
/// of at most 64 bits has at most one such slot, of up to 128 bits two.
const fn across_words(f: u32, b: usize) -> [u128; 64] {
    let (w, bits) = (f as usize, f as usize * b);
    let mut marks = [0u128; 64];
    let mut i = 0;
    while i < 64 && bits <= 128 && w > 0 {
        // The word boundaries inside the bucket, from its first bit.
        let mut cut = 64 - i * bits % 64;
        while cut < bits {
            if !cut.is_multiple_of(w) {
                marks[i] |= 1 << (cut / w * w);
            }
            cut += 64;
        }
        i += 1;
    }
    marks
}

/// [`across_words`] for buckets of at most 64 bits, whose marks all lie in
/// their first word: a table of words, as the claim's index scales best.
const fn narrow(marks: [u128; 64]) -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        out[i] = marks[i] as u64;
        i += 1;
    }
    out
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
            parts: parts(f, bucket_size as u32),
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

    #[inline(always)]
    fn parts<const B: usize>(&self) -> Option<PackedLanes> {
        fixed_or::<F, _>(self.parts, const { parts(F, B as u32) })
    }
}

/// [`parts_hold`] out of line, for run-time widths: inlined into the
/// table type every such width shares, it took registers from every other
/// shape's lookup in the caller's loop (callgrind: 4x12 88 instructions a
/// lookup with it out of line, 90 inlined). `HALVES` picks the halves'
/// copy, so a bucket that has halves pays no test for the other parts.
#[inline(never)]
fn probe_parts<const B: usize, const HALVES: bool, W: WordSource + ?Sized>(
    p: PackedLanes,
    bucket: usize,
    words: &W,
    i1: usize,
    i2: usize,
    fp: u32,
) -> bool {
    if HALVES {
        parts_hold::<2, W>(p, bucket, words, i1, i2, fp)
    } else {
        parts_hold_any::<B, W>(p, bucket, words, i1, i2, fp)
    }
}

/// [`parts_hold`] of buckets of `bucket` bits, in as many parts as `p`
/// makes of a `B`-slot bucket ([`parts`]; a constant where the width is).
#[inline(always)]
fn parts_hold_any<const B: usize, W: WordSource + ?Sized>(
    p: PackedLanes,
    bucket: usize,
    words: &W,
    i1: usize,
    i2: usize,
    fp: u32,
) -> bool {
    if bucket / 2 <= ONE_LOAD_BITS {
        parts_hold::<2, W>(p, bucket, words, i1, i2, fp)
    } else if bucket / 4 <= ONE_LOAD_BITS || B < 8 {
        parts_hold::<4, W>(p, bucket, words, i1, i2, fp)
    } else {
        parts_hold::<8, W>(p, bucket, words, i1, i2, fp)
    }
}

/// The probe of buckets of `bucket` bits in `N` parts of `p`'s lanes each
/// ([`parts`]): each part one load, a part of both buckets compared in one
/// SWAR step (the compare ignores the bits above a part's lanes). `N` is 2
/// for halves, 4 for quarters, 8 for an 8-slot bucket's single lanes.
#[inline(always)]
fn parts_hold<const N: usize, W: WordSource + ?Sized>(
    p: PackedLanes,
    bucket: usize,
    words: &W,
    i1: usize,
    i2: usize,
    fp: u32,
) -> bool {
    debug_assert_eq!(p.lanes() as usize * N * p.width() as usize, bucket);
    let part = bucket / N;
    let (a, b) = (i1 * bucket, i2 * bucket);
    (0..N).fold(false, |hit, k| {
        let at = k * part;
        hit | p.any_eq2(
            words.short_bits(a + at, part),
            words.short_bits(b + at, part),
            fp,
        )
    })
}

/// The part of a loaded bucket (lane `j` at bit `j * f`) from bit `bit`
/// on, in one word: a funnel shift of the two words it lies in. The bits
/// above a part's lanes are the compare's to ignore.
#[inline(always)]
fn part_at(bucket: &Bucket, bit: usize) -> u64 {
    let (w, o) = (bit / 64, (bit % 64) as u32);
    let hi = match bucket.get(w + 1) {
        Some(&next) if o != 0 => next << (64 - o),
        _ => 0,
    };
    bucket[w] >> o | hi
}

/// The first lane of a loaded bucket equal to `value`, a part of `p`'s
/// lanes at a time ([`parts`]): one SWAR step a part, stopping at the
/// first part that holds it (a free slot for an insert, a step's copy or a
/// displacement search; a key's copy for the bound on copies), where lane
/// by lane cut every lane out of a 128-bit pair of words
/// (docs/benchmarks.md, "8-slot growable lookups in parts").
#[inline(always)]
fn parts_first<const B: usize>(p: PackedLanes, bucket: &Bucket, value: u32) -> Option<usize> {
    let (f, lanes) = (p.width() as usize, p.lanes() as usize);
    let mut j = 0;
    while j < B {
        if let Some(l) = p.first_eq(part_at(bucket, j * f), value) {
            return Some(j + l as usize);
        }
        j += lanes;
    }
    None
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
        match (self.lanes::<B>(), self.parts::<B>()) {
            (Some(p), _) => p.first_eq(a[0], value).map(|j| j as usize),
            (None, Some(p)) => parts_first::<B>(p, a, value),
            (None, None) => <Self as Layout<B>>::matches(self, k, a, a, value)
                .0
                .lowest_set_bit(),
        }
    }

    #[inline(always)]
    fn holds<K: Kernel>(&self, k: K, a: &Bucket, value: u32) -> bool {
        match (self.lanes::<B>(), self.parts::<B>()) {
            (None, Some(p)) => parts_first::<B>(p, a, value).is_some(),
            _ => <Self as Layout<B>>::matches(self, k, a, a, value).0.any(),
        }
    }

    /// A bucket's slots that lie across two words (one in a bucket of at
    /// most 64 bits, two in one of up to 128), marked taken in a copy of
    /// `a`, are passed over, so the claim takes a slot it can write with
    /// one compare-and-swap where the bucket has one (at 8x, 14-bit slots,
    /// one growable insert in six found such a slot first and took both
    /// buckets' locks; docs/benchmarks.md, "Growth"; from 2026-12-02 also in
    /// buckets of 65 to 128 bits, a growable filter's first generations of
    /// 4-slot buckets and its 8-slot ones). At a width known when
    /// compiling; run-time widths take the first empty slot.
    #[inline(always)]
    fn first_claimable<K: Kernel>(&self, k: K, a: &Bucket, i: usize) -> Option<usize> {
        if F == 0 || B * F as usize > 128 || 64 % F == 0 {
            return Layout::<B>::first_match(self, k, a, 0);
        }
        let mut b = *a;
        if B * F as usize <= 64 {
            let marks: &[u64; 64] = &const { narrow(across_words(F, B)) };
            b[0] |= marks[i % 64];
        } else {
            let marks: &[u128; 64] = &const { across_words(F, B) };
            let m = marks[i % 64];
            b[0] |= m as u64;
            b[1] |= (m >> 64) as u64;
        }
        Layout::<B>::first_match(self, k, &b, 0)
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
        match (self.lanes::<B>(), self.parts::<B>()) {
            (Some(p), _) => {
                let bits = self.bits::<B>();
                // No mask: the compare looks only at the bucket's lanes,
                // whatever lies above them. One test of the width for both
                // buckets (a constant but for run-time widths).
                let (a, b) = if bits <= ONE_LOAD_BITS && F != 0 {
                    (words.short_bucket(i1, bits), words.short_bucket(i2, bits))
                } else if bits <= ONE_LOAD_BITS {
                    (
                        words.short_bits(i1 * bits, bits),
                        words.short_bits(i2 * bits, bits),
                    )
                } else {
                    (
                        load_bits(words, i1 * bits, bits),
                        load_bits(words, i2 * bits, bits),
                    )
                };
                p.any_eq2(a, b, fp)
            }
            (None, Some(p)) => {
                let bits = self.bits::<B>();
                if F != 0 {
                    parts_hold_any::<B, W>(p, bits, words, i1, i2, fp)
                } else if bits / 2 <= ONE_LOAD_BITS {
                    probe_parts::<B, true, W>(p, bits, words, i1, i2, fp)
                } else {
                    probe_parts::<B, false, W>(p, bits, words, i1, i2, fp)
                }
            }
            (None, None) => {
                let (a, b) = (
                    Layout::<B>::load(self, words, i1),
                    Layout::<B>::load(self, words, i2),
                );
                Layout::<B>::any_match(self, k, &a, &b, fp)
            }
        }
    }

    #[inline(always)]
    fn probes_in_one_load(&self) -> bool {
        (self.lanes::<B>().is_some() && self.bits::<B>() <= ONE_LOAD_BITS)
            || self.parts::<B>().is_some()
    }

    #[inline(always)]
    fn claim(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32) -> Claim {
        let at = i * self.bits::<B>() + j * self.width() as usize;
        let (w, shift) = (at / 64, (at % 64) as u32);
        if shift + self.width() > 64 {
            return Claim::NeedsLock;
        }
        let slot = low_bits(self.width()) << shift;
        if claim_word(&words[w], slot, (fp as u64) << shift) {
            Claim::Stored
        } else {
            Claim::Taken
        }
    }

    #[inline(always)]
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, _: &Bucket, own: bool) -> bool {
        let at = i * self.bits::<B>() + j * self.width() as usize;
        if own || (at % 64) as u32 + self.width() > 64 {
            // A slot across two words is written under its lock alone (no
            // claim takes it), so or-ing it in cannot meet another's bits.
            write_bits(words, at, fp as u128, self.width(), WordOp::Set, own);
            return true;
        }
        Layout::<B>::claim(self, words, i, j, fp) == Claim::Stored
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, _: &Bucket, own: bool) {
        let at = i * self.bits::<B>() + j * self.width() as usize;
        write_bits(words, at, 0, self.width(), WordOp::Clear, own);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::bits::words;

    /// Bucket `i`'s first slot equal to `value`, and whether it holds one
    /// (`first_match` and `holds`).
    fn first_match<const B: usize>(
        layout: &Packed<0>,
        w: &[AtomicU64],
        i: usize,
        value: u32,
    ) -> (Option<usize>, bool)
    where
        Packed<0>: Layout<B>,
    {
        let bucket = Layout::<B>::load(layout, w, i);
        let kernel = cuckoo_nest_simd::Scalar;
        (
            Layout::<B>::first_match(layout, kernel, &bucket, value),
            Layout::<B>::holds(layout, kernel, &bucket, value),
        )
    }

    /// Bucket `i`'s slots equal to `value`, as `matches` says: bit `j` for
    /// slot `j`.
    fn mask<const B: usize>(layout: &Packed<0>, w: &[AtomicU64], i: usize, value: u32) -> u32
    where
        Packed<0>: Layout<B>,
    {
        let bucket = Layout::<B>::load(layout, w, i);
        let (mask, _) =
            Layout::<B>::matches(layout, cuckoo_nest_simd::Scalar, &bucket, &bucket, value);
        mask.0
    }

    /// `across_words` marks, for every width and bucket size of up to 128
    /// bits and every offset of a bucket in its word, exactly the slots
    /// that lie across two words, at their lowest bit.
    #[test]
    fn the_marks_name_every_slot_across_two_words() {
        for f in 1..=32u32 {
            for b in [2usize, 4, 8] {
                let bits = f as usize * b;
                let marks = across_words(f, b);
                for (i, &m) in marks.iter().enumerate() {
                    let mut want = 0u128;
                    for j in 0..b {
                        let at = i * bits + j * f as usize;
                        if bits <= 128 && at % 64 + f as usize > 64 {
                            want |= 1 << (j * f as usize);
                        }
                    }
                    assert_eq!(m, want, "f={f} b={b} bucket {i}");
                }
            }
        }
    }

    /// Every width, every bucket size: a probe of the table's own words
    /// (`InBounds`: one load per bucket or half bucket where it applies)
    /// answers as the slots say, for every pair of buckets, at every
    /// alignment of a bucket in its words.
    #[test]
    fn probe_reads_every_bucket_at_every_offset() {
        use crate::layout::InBounds;
        use cuckoo_nest_simd::Scalar;
        fn check<const B: usize>(f: u32)
        where
            Packed<0>: Layout<B>,
        {
            let layout = Packed::<0>::new(B, f);
            let buckets = if cfg!(miri) { 5 } else { 17 };
            // The table's words then one line of padding, as a table has.
            let w = words((buckets * B * f as usize).div_ceil(64) + 8);
            let max = if f == 32 { u32::MAX } else { (1 << f) - 1 };
            let mut model = vec![vec![0u32; B]; buckets];
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ f as u64;
            for (i, slots) in model.iter_mut().enumerate() {
                for (j, slot) in slots.iter_mut().enumerate() {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Some slots empty, some full of ones (every bit of a
                    // slot that straddles must be read), the rest random.
                    let fp = match x >> 61 {
                        0 => continue,
                        1 => max,
                        _ => ((x >> 20) as u32 & max).max(1),
                    };
                    let current = Layout::<B>::load(&layout, &w[..], i);
                    Layout::<B>::set(&layout, &w, i, j, fp, &current, x & 1 == 0);
                    *slot = fp;
                }
            }
            // SAFETY: every bucket below `buckets` lies in the words before
            // the padding, and the padding holds the word after any of them.
            let source = unsafe { InBounds::new(&w) };
            for i1 in 0..buckets {
                for i2 in [0, i1 / 2, buckets - 1 - i1 / 3] {
                    let mut values: Vec<u32> =
                        model[i1].iter().chain(&model[i2]).copied().collect();
                    values.extend([1, max, max ^ 1, model[i1][0] ^ 1]);
                    for v in values.into_iter().filter(|&v| v != 0) {
                        let want = model[i1].contains(&v) || model[i2].contains(&v);
                        let got = Layout::<B>::probe(&layout, Scalar, &source, i1, i2, v);
                        assert_eq!(got, want, "b={B} f={f} buckets {i1} {i2} value {v:#x}");
                    }
                }
            }
        }
        let widths: Vec<u32> = if cfg!(miri) {
            vec![4, 10, 12, 13, 16, 17, 28, 30]
        } else {
            (4..=32).collect()
        };
        for f in widths {
            check::<2>(f);
            check::<4>(f);
            check::<8>(f);
        }
    }

    /// Every width, every bucket size: set and clear slots of neighbouring
    /// buckets and read them back, so straddling slots and buckets are
    /// checked against a plain model: every slot, the first match and
    /// (outside Miri) the whole mask of matches.
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
                        // Both write paths: read-modify-writes, and loads
                        // and stores (as for words of one stripe).
                        Layout::<2>::set(&layout, &w, i, j, fp, &current, step % 2 == 0);
                        model[i][j] = fp;
                    } else {
                        Layout::<2>::clear(&layout, &w, i, j, &current, step % 3 == 0);
                        model[i][j] = 0;
                    }
                    for (k, slots) in model.iter().enumerate() {
                        for v in [0, fp, model[k][0]] {
                            let want: u32 = (slots.iter().enumerate())
                                .map(|(s, &x)| u32::from(x == v) << s)
                                .sum();
                            // Safe code over the loads checked below:
                            // not worth Miri's time (28 s).
                            let got = match b {
                                _ if cfg!(miri) => want,
                                2 => mask::<2>(&layout, &w, k, v),
                                4 => mask::<4>(&layout, &w, k, v),
                                _ => mask::<8>(&layout, &w, k, v),
                            };
                            assert_eq!(got, want, "matches b={b} f={f} bucket {k} {v}");
                            let want = slots.iter().position(|&x| x == v);
                            let (got, held) = match b {
                                2 => first_match::<2>(&layout, &w, k, v),
                                4 => first_match::<4>(&layout, &w, k, v),
                                _ => first_match::<8>(&layout, &w, k, v),
                            };
                            assert_eq!(got, want, "first_match b={b} f={f} bucket {k} {v}");
                            assert_eq!(held, want.is_some(), "holds b={b} f={f} bucket {k} {v}");
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

    /// An insert without a lock is offered the first empty slot that lies
    /// in one word, at every offset of a bucket in its words: never a slot
    /// across two (which `claim` sends to the lock), never one past an
    /// empty slot it could claim, and none only where every empty slot
    /// lies across two words. Buckets of up to 64 bits and of 65 to 128
    /// (two slots across words at most), and a width that never crosses.
    #[test]
    fn the_first_claimable_slot_lies_in_one_word() {
        fn check<const F: u32, const B: usize>()
        where
            Packed<F>: Layout<B>,
        {
            let layout = Packed::<F>::new(B, F);
            let w = words(64 * B * F as usize / 64 + 2);
            let subsets = if cfg!(miri) { 1u32 << B.min(4) } else { 1 << B };
            for i in (0..64).step_by(if cfg!(miri) { 7 } else { 1 }) {
                for taken in 0..subsets {
                    let mut bucket = [0u64; 4];
                    for j in (0..B).filter(|j| taken >> j & 1 == 1) {
                        let at = j * F as usize;
                        bucket[at / 64] |= 1 << (at % 64);
                    }
                    let got = layout.first_claimable(cuckoo_nest_simd::Scalar, &bucket, i);
                    let in_one_word = |j: usize| {
                        let at = (i * B + j) * F as usize;
                        at % 64 + F as usize <= 64
                    };
                    let want = (0..B).find(|&j| taken >> j & 1 == 0 && in_one_word(j));
                    assert_eq!(got, want, "{B} x {F} bits, bucket {i}, taken {taken:b}");
                    if let Some(j) = got {
                        assert_ne!(layout.claim(&w, i, j, 1), Claim::NeedsLock);
                        w.iter()
                            .for_each(|x| x.store(0, crate::sync::Ordering::Relaxed));
                    }
                }
            }
        }
        check::<10, 4>();
        check::<12, 4>();
        check::<13, 4>();
        check::<14, 4>();
        check::<15, 4>();
        check::<21, 2>();
        check::<9, 2>();
        check::<7, 8>();
        check::<16, 4>();
        check::<17, 4>();
        check::<19, 4>();
        check::<21, 4>();
        check::<12, 8>();
        check::<15, 8>();
        check::<16, 8>();
    }
}
