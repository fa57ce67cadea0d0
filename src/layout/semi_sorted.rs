//! Semi-sorted buckets (paper section 5.2): four slots ordered by
//! fingerprint, whose high nibbles are stored as one 12-bit index into the
//! 3,876 sorted nibble 4-tuples, saving one bit per item. Every write
//! re-encodes the whole bucket, so every write is versioned.

use super::bits::{
    fixed_or, lanes_equal, load_bits, load_span, low_bits, packed_lane, write_bits, WordOp,
};
use super::{Bucket, Layout, Mask, WordSource, ONE_LOAD_BITS};
use crate::config::bucket_bits;
use crate::sync::AtomicU64;
use cuckoo_nest_simd::{Kernel, PackedLanes};

/// Bit `j` set iff lane `j` of four `w`-bit lanes has its top bit set in
/// `hits` (an `eq_high_bits` result: nothing but lane top bits set), for
/// `4 <= w <= 16` (four lanes in a word), with one multiply. After the shift, lane `j`'s bit is at
/// `j w`; the multiplier's term `2^((3 - k) w + k)` moves it to `3 w + j`
/// when `k == j`. The other products land at `3 w + (j - k) w + k`: never
/// in `3w..3w + 4` (that needs `j == k` as `k < 4 <= w`), and all at
/// distinct positions, so no sum carries into the four bits kept.
#[inline(always)]
fn slot_bits(hits: u64, w: u32) -> u32 {
    debug_assert!((4..=16).contains(&w));
    let magic = 1u64 << (3 * w) | 1 << (2 * w + 1) | 1 << (w + 2) | 1 << 3;
    ((hits >> (w - 1)).wrapping_mul(magic) >> (3 * w)) as u32 & 0xf
}

/// The multiplier that moves bit `4j` (slot `j`'s nibble hit, shifted to
/// the bottom of its nibble) to bit `jL + L - 1` (the top of slot `j`'s
/// `L`-bit low-bits lane) for every `j < 4` at once, if one multiply does it
/// exactly for this `L`, else `None`. The term `2^(k(L - 4) + L - 1)` moves
/// bit `4a` to `4a + k(L - 4) + L - 1`: the wanted place when `k == a`. It
/// is exact when the 16 products `4a + k(L - 4)` are distinct (no sum
/// carries) and no product with `k != a` lands on a lane top `cL` (no false
/// hit). Checked here for the given `L`, at compile time for the shapes
/// that fix their width (`L = 9` for 13-bit fingerprints qualifies; 8 and
/// 12 do not).
const fn nibble_spread(l: u32) -> Option<u64> {
    if l < 4 || 4 * l > 64 {
        return None;
    }
    let (mut magic, mut k) = (0u64, 0);
    while k < 4 {
        magic |= 1 << (k * (l - 4) + l - 1);
        k += 1;
    }
    let mut a = 0;
    while a < 16 {
        let pa = 4 * (a % 4) + (a / 4) * (l - 4);
        if a % 4 != a / 4 && pa.is_multiple_of(l) && pa / l < 4 {
            return None;
        }
        let mut b = a + 1;
        while b < 16 {
            if pa == 4 * (b % 4) + (b / 4) * (l - 4) {
                return None;
            }
            b += 1;
        }
        a += 1;
    }
    Some(magic)
}

/// Non-decreasing 4-tuples of nibbles, `n0 <= n1 <= n2 <= n3`, packed as
/// `n0 << 12 | n1 << 8 | n2 << 4 | n3`, in increasing order: entry `k` is
/// the tuple whose index is `k`. 3,876 = C(15 + 4, 4) of them.
pub(crate) const NIBBLE_TUPLES: [u16; 3876] = nibble_tuples();

const fn nibble_tuples() -> [u16; 3876] {
    let mut out = [0u16; 3876];
    let mut k = 0;
    let mut a = 0;
    while a < 16 {
        let mut b = a;
        while b < 16 {
            let mut c = b;
            while c < 16 {
                let mut d = c;
                while d < 16 {
                    out[k] = (a << 12 | b << 8 | c << 4 | d) as u16;
                    k += 1;
                    d += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    out
}

/// The index of a sorted nibble tuple `a <= b <= c <= d` in
/// [`NIBBLE_TUPLES`], counted instead of searched for:
/// `RANK[0][a] + RANK[1][b] + RANK[2][c] + d` (wrapping). The tuples before
/// it are those with a smaller first nibble (`C(18 - x, 3)` for each first
/// nibble `x < a`), then those starting with `a` whose second nibble is
/// smaller than `b` (`C(17 - y, 2)` for each `a <= y < b`), and so on; with
/// `P2[v]`, `P1[v]` the sums of those terms below `v`, the index is
/// `A[a] - P2[a] + P2[b] - P1[b] + P1[c] - c + d`, grouped here by nibble.
/// (Checked against the list for every tuple, in the tests.) Three adds and
/// three loads from 96 bytes where a binary search over 3,876 entries took
/// a dozen unpredictable branches on every semi-sorted write.
static RANK: [[u16; 16]; 3] = nibble_rank();

const fn nibble_rank() -> [[u16; 16]; 3] {
    const fn choose(n: u32, k: u32) -> u32 {
        let (mut r, mut i) = (1, 0);
        while i < k {
            r = r * (n - i) / (i + 1);
            i += 1;
        }
        r
    }
    let (mut a, mut p2, mut p1) = ([0u32; 16], [0u32; 16], [0u32; 16]);
    let mut v = 1;
    while v < 16 {
        a[v] = a[v - 1] + choose(18 - (v as u32 - 1), 3);
        p2[v] = p2[v - 1] + choose(17 - (v as u32 - 1), 2);
        p1[v] = p1[v - 1] + (16 - (v as u32 - 1));
        v += 1;
    }
    let mut out = [[0u16; 16]; 3];
    let mut v = 0;
    while v < 16 {
        out[0][v] = a[v].wrapping_sub(p2[v]) as u16;
        out[1][v] = p2[v].wrapping_sub(p1[v]) as u16;
        out[2][v] = p1[v].wrapping_sub(v as u32) as u16;
        v += 1;
    }
    out
}

/// The index in [`NIBBLE_TUPLES`] of nibbles `a <= b <= c <= d` ([`RANK`]).
#[inline(always)]
fn tuple_index(a: u32, b: u32, c: u32, d: u32) -> usize {
    RANK[0][a as usize & 15]
        .wrapping_add(RANK[1][b as usize & 15])
        .wrapping_add(RANK[2][c as usize & 15])
        .wrapping_add(d as u16) as usize
}

/// Four values in non-decreasing order: a sorting network of five
/// compare-exchanges, each a min and a max (no branch).
#[inline(always)]
fn sort4(mut v: [u32; 4]) -> [u32; 4] {
    for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        let (lo, hi) = (v[i].min(v[j]), v[i].max(v[j]));
        v[i] = lo;
        v[j] = hi;
    }
    v
}

/// The same tuples in lane order, `n0 | n1 << 4 | n2 << 8 | n3 << 12` (slot
/// `j`'s nibble at bits `4j`), padded to 4096 entries so that any 12-bit
/// index read from a torn bucket is in bounds (a torn read is retried: every
/// semi-sorted write is versioned).
static NIBBLE_LANES: [u16; 4096] = nibble_lanes();

const fn nibble_lanes() -> [u16; 4096] {
    let mut out = [0u16; 4096];
    let mut k = 0;
    while k < NIBBLE_TUPLES.len() {
        let t = NIBBLE_TUPLES[k];
        out[k] = (t >> 12) | ((t >> 8) & 0xf) << 4 | ((t >> 4) & 0xf) << 8 | (t & 0xf) << 12;
        k += 1;
    }
    out
}

/// Four-slot buckets ordered by fingerprint, whose high nibbles are stored
/// as one 12-bit index (paper section 5.2). Layout of a bucket's `4f - 4`
/// bits: the index in bits 0..12, then the four slots' low `f - 4` bits in
/// sorted order. `F` as in [`Packed`](super::Packed): the width when known at compile
/// time, 0 to read it from the fields.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SemiSorted<const F: u32 = 0> {
    f: u32,
    bucket_bits: usize,
    /// The SWAR kernel over decoded lanes, for widths up to 16.
    swar: Option<PackedLanes>,
    /// The SWAR kernel over the stored low bits, for buckets of up to 64
    /// bits (widths up to 17).
    lows: Option<PackedLanes>,
}

impl<const F: u32> SemiSorted<F> {
    pub(crate) fn new(f: u32) -> Self {
        debug_assert!(F == 0 || F == f);
        SemiSorted {
            f,
            bucket_bits: bucket_bits(4, f, true),
            swar: PackedLanes::new(f, 4),
            lows: if f > 4 && f <= 17 {
                PackedLanes::new(f - 4, 4)
            } else {
                None
            },
        }
    }

    #[inline(always)]
    fn width(&self) -> u32 {
        fixed_or::<F, _>(self.f, F)
    }

    #[inline(always)]
    fn bits(&self) -> usize {
        fixed_or::<F, _>(self.bucket_bits, bucket_bits(4, F, true))
    }

    #[inline(always)]
    fn lanes(&self) -> Option<PackedLanes> {
        fixed_or::<F, _>(self.swar, const { PackedLanes::new(F, 4) })
    }

    #[inline(always)]
    fn low_lanes(&self) -> Option<PackedLanes> {
        let lows = const {
            if F > 4 && F <= 17 {
                PackedLanes::new(F - 4, 4)
            } else {
                None
            }
        };
        fixed_or::<F, _>(self.lows, lows)
    }

    /// The bucket's stored bits.
    #[inline(always)]
    fn load_raw<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> u128 {
        let bits = self.bits();
        let first = i * bits;
        if bits <= 64 {
            return (load_bits(words, first, bits) & low_bits(bits as u32)) as u128;
        }
        let last = (first + bits - 1) / 64;
        let b = load_span::<2, W>(words, first / 64, last, (first % 64) as u32);
        ((b[1] as u128) << 64 | b[0] as u128) & ((1u128 << bits) - 1)
    }

    /// The four fingerprints of stored bits `raw`, in sorted order.
    #[inline(always)]
    pub(crate) fn decode(&self, raw: u128) -> [u32; 4] {
        let nibbles = NIBBLE_LANES[raw as usize & 0xfff] as u32;
        let low = self.width() - 4;
        let mut out = [0u32; 4];
        for (j, o) in out.iter_mut().enumerate() {
            let nibble = (nibbles >> (4 * j)) & 0xf;
            let rest = (raw >> (12 + j as u32 * low)) as u32 & low_bits(low) as u32;
            *o = nibble << low | rest;
        }
        out
    }

    /// The stored bits of four fingerprints (any order).
    #[inline]
    pub(crate) fn encode(&self, fps: [u32; 4]) -> u128 {
        let fps = sort4(fps);
        let low = self.width() - 4;
        let n = fps.map(|fp| fp >> low);
        let mut raw = tuple_index(n[0], n[1], n[2], n[3]) as u128;
        for (j, &fp) in fps.iter().enumerate() {
            raw |= ((fp as u64 & low_bits(low)) as u128) << (12 + j as u32 * low);
        }
        raw
    }

    /// True if bucket `i` holds `fp`, without decoding it: the slots whose
    /// stored low bits equal `fp`'s (SWAR over the low-bit lanes) and whose
    /// nibble equals `fp`'s (SWAR over the looked-up nibble lanes).
    #[inline(always)]
    fn holds<W: WordSource + ?Sized>(
        &self,
        words: &W,
        i: usize,
        fp: u32,
        lows: PackedLanes,
    ) -> bool {
        let low = self.width() - 4;
        let raw = if F != 0 && self.bits() <= ONE_LOAD_BITS {
            words.short_bucket(i, self.bits())
        } else {
            load_bits(words, i * self.bits(), self.bits())
        };
        let nibbles = NIBBLE_LANES[raw as usize & 0xfff] as u64;
        // Bits above the four low-bit lanes are ignored by the compare.
        let low_hits = lows.eq_high_bits(raw >> 12, fp & low_bits(low) as u32);
        let nibble_hits = const {
            match PackedLanes::new(4, 4) {
                Some(p) => p,
                None => unreachable!(),
            }
        }
        .eq_high_bits(nibbles, fp >> low);
        // (For a run-time width, `F` is 0 and this is `None`.)
        if let Some(magic) = const { nibble_spread(F.saturating_sub(4)) } {
            // Each slot's nibble hit moved onto its low-bits hit: one
            // multiply, one AND. `(h >> 3) * magic`, written as
            // `h * (magic >> 3)` (a constant): the hits sit at bits
            // `4j + 3` and every term of `magic` at bit `L - 1 >= 3` or
            // above (`nibble_spread` wants `L >= 4`), so both are the same
            // product, one shift fewer per bucket.
            low_hits & nibble_hits.wrapping_mul(magic >> 3) != 0
        } else if low >= 4 {
            slot_bits(low_hits, low) & slot_bits(nibble_hits, 4) != 0
        } else {
            let mut both = 0;
            for j in 0..4 {
                both |= (low_hits >> (j * low + low - 1)) & (nibble_hits >> (4 * j + 3));
            }
            both & 1 != 0
        }
    }

    /// Re-encodes bucket `i` with slot `j` of its decoded lanes `current`
    /// set to `fp`. The flip is taken against the bits stored, not against
    /// the encoding of `current`, so the bucket ends up exactly the new
    /// encoding even if what was stored was not canonical (a saved table
    /// loaded without its audit): no write turns one odd bucket into
    /// garbage that loses other fingerprints.
    fn rewrite(
        &self,
        words: &[AtomicU64],
        i: usize,
        j: usize,
        fp: u32,
        current: &Bucket,
        own: bool,
    ) {
        let mut fps = [0u32; 4];
        for (k, v) in fps.iter_mut().enumerate() {
            *v = packed_lane(current, k, self.width());
        }
        fps[j] = fp;
        let new = self.encode(fps);
        let stored = self.load_raw(words, i);
        write_bits(
            words,
            i * self.bits(),
            stored ^ new,
            self.bits() as u32,
            WordOp::Flip,
            own,
        );
    }
}

impl<const F: u32> Layout<4> for SemiSorted<F> {
    const WRITES_VERSIONED: bool = true;
    // A torn read of a re-encoding can decode to a fingerprint never
    // stored; the re-encoding is versioned, so validating hits too catches
    // it.
    const HITS_NEED_VALIDATION: bool = true;
    /// As for packed buckets: the widths fixed at compile time gain.
    const WIDE_BATCH_PAYS: bool = F != 0;

    #[inline(always)]
    fn fingerprint_bits(&self) -> u32 {
        self.width()
    }

    #[inline(always)]
    fn bucket_bits(&self) -> usize {
        self.bits()
    }

    #[inline(always)]
    fn load<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> Bucket {
        let fps = self.decode(self.load_raw(words, i));
        let mut lanes = 0u128;
        for (j, &fp) in fps.iter().enumerate() {
            lanes |= (fp as u128) << (j as u32 * self.width());
        }
        [lanes as u64, (lanes >> 64) as u64, 0, 0]
    }

    #[inline(always)]
    fn lane(&self, bucket: &Bucket, j: usize) -> u32 {
        packed_lane(bucket, j, self.width())
    }

    /// A bucket's slots decode in sorted order, so if it has an empty slot
    /// (fingerprint 0, the smallest) slot 0 is one: the free-slot question
    /// is one test of lane 0. (Every bucket a writer meets is canonical:
    /// writers store only canonical encodings and loading refuses any
    /// other, docs/format.md.)
    #[inline(always)]
    fn first_match<K: Kernel>(&self, k: K, a: &Bucket, value: u32) -> Option<usize> {
        if value == 0 {
            (self.lane(a, 0) == 0).then_some(0)
        } else {
            self.matches(k, a, a, value).0.lowest_set_bit()
        }
    }

    #[inline(always)]
    fn matches<K: Kernel>(&self, _: K, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask) {
        match self.lanes() {
            Some(p) => (Mask(p.eq(a[0], value)), Mask(p.eq(b[0], value))),
            None => (
                lanes_equal::<4>(a, self.width(), value),
                lanes_equal::<4>(b, self.width(), value),
            ),
        }
    }

    #[inline(always)]
    fn probes_in_one_load(&self) -> bool {
        self.low_lanes().is_some() && self.bits() <= ONE_LOAD_BITS
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
        match self.low_lanes() {
            Some(lows) => self.holds(words, i1, fp, lows) | self.holds(words, i2, fp, lows),
            None => {
                let (a, b) = (self.load(words, i1), self.load(words, i2));
                self.any_match(k, &a, &b, fp)
            }
        }
    }

    /// A bucket a writer stores: its index names a listed nibble tuple and
    /// its slots are in sorted order, i.e. it is the encoding of what it
    /// decodes to.
    fn audit_bucket<K: Kernel, W: WordSource + ?Sized>(
        &self,
        _: K,
        words: &W,
        i: usize,
    ) -> Result<u32, &'static str> {
        let raw = self.load_raw(words, i);
        if raw as usize & 0xfff >= NIBBLE_TUPLES.len() {
            return Err("its nibble index is above 3875, the last the format lists");
        }
        let fps = self.decode(raw);
        if self.encode(fps) != raw {
            return Err("its fingerprints are not stored in sorted order");
        }
        Ok(fps.iter().filter(|&&fp| fp != 0).count() as u32)
    }

    #[inline(always)]
    fn set(
        &self,
        words: &[AtomicU64],
        i: usize,
        j: usize,
        fp: u32,
        current: &Bucket,
        own: bool,
    ) -> bool {
        // Every write of a semi-sorted table holds its stripe's lock (no
        // claim: `Layout::claim`), so the slot is still empty.
        self.rewrite(words, i, j, fp, current, own);
        true
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, current: &Bucket, own: bool) {
        self.rewrite(words, i, j, 0, current, own);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::bits::{words, write_bits, WordOp};

    #[test]
    fn slot_bits_gathers_every_pattern_at_every_width() {
        for w in 4..=16u32 {
            for pattern in 0..16u32 {
                let mut hits = 0u64;
                for j in 0..4 {
                    if pattern >> j & 1 == 1 {
                        hits |= 1 << (j * w + w - 1);
                    }
                }
                assert_eq!(
                    slot_bits(hits, w),
                    pattern,
                    "width {w} pattern {pattern:04b}"
                );
            }
        }
    }

    #[test]
    fn nibble_spread_is_exact_where_offered() {
        // Every width with low-bit lanes in one word: where a multiplier is
        // offered, every pattern of nibble hits lands exactly on the lane
        // tops of the same slots.
        for l in 1..=16u32 {
            let Some(magic) = nibble_spread(l) else {
                continue;
            };
            for pattern in 0..16u64 {
                let mut nibble_hits = 0u64;
                let mut want = 0u64;
                for j in 0..4 {
                    if pattern >> j & 1 == 1 {
                        nibble_hits |= 1 << (4 * j + 3);
                        want |= 1 << (j * l as u64 + l as u64 - 1);
                    }
                }
                let lane_tops = (0..4).fold(0u64, |m, j| m | 1 << (j * l + l - 1));
                let got = (nibble_hits >> 3).wrapping_mul(magic) & lane_tops;
                assert_eq!(got, want, "L = {l}, pattern {pattern:04b}");
            }
        }
        assert!(nibble_spread(9).is_some(), "13-bit semi-sorted uses it");
    }

    #[test]
    fn nibble_lanes_match_the_tuples() {
        for (k, &t) in NIBBLE_TUPLES.iter().enumerate() {
            let l = NIBBLE_LANES[k];
            assert_eq!((l & 0xf, l >> 12), (t >> 12, t & 0xf));
        }
    }

    #[test]
    fn counted_index_is_the_listed_index() {
        for (k, &t) in NIBBLE_TUPLES.iter().enumerate() {
            let n = |j: u32| (t >> (12 - 4 * j)) as u32 & 0xf;
            assert_eq!(tuple_index(n(0), n(1), n(2), n(3)), k, "tuple {t:04x}");
        }
    }

    #[test]
    fn sort4_sorts_every_order() {
        // Every arrangement of four values with ties: base-4 digits.
        for x in 0..256u32 {
            let v = [x & 3, x >> 2 & 3, x >> 4 & 3, x >> 6 & 3];
            let mut want = v;
            want.sort_unstable();
            assert_eq!(sort4(v), want, "{v:?}");
        }
    }

    #[test]
    fn nibble_tuples_are_sorted_and_complete() {
        assert!(NIBBLE_TUPLES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(NIBBLE_TUPLES[0], 0);
        assert_eq!(NIBBLE_TUPLES[3875], 0xffff);
    }

    #[test]
    fn semi_sorted_encoding_round_trips() {
        // Under miri (which interprets every step) fewer widths and rounds.
        let widths: &[u32] = if cfg!(miri) {
            &[4, 13, 32]
        } else {
            &[4, 5, 8, 12, 13, 16, 17, 24, 31, 32]
        };
        for &f in widths {
            let layout = SemiSorted::<0>::new(f);
            let max = if f == 32 { u32::MAX } else { (1 << f) - 1 };
            let mut s = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..if cfg!(miri) { 40 } else { 500 } {
                let mut fps = [0u32; 4];
                for v in fps.iter_mut() {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    // Some empty slots, some shared nibbles.
                    *v = if s.is_multiple_of(5) {
                        0
                    } else {
                        (s as u32) & max
                    };
                }
                let raw = layout.encode(fps);
                assert!(raw < 1u128 << layout.bucket_bits, "f={f}");
                let mut sorted = fps;
                sorted.sort_unstable();
                assert_eq!(layout.decode(raw), sorted, "f={f}");
            }
        }
    }

    #[test]
    fn semi_sorted_buckets_round_trip_across_words() {
        let widths: &[u32] = if cfg!(miri) {
            &[9, 13, 20]
        } else {
            &[4, 9, 12, 13, 16, 17, 20, 32]
        };
        for &f in widths {
            let layout = SemiSorted::<0>::new(f);
            let buckets = 7;
            let w = words((buckets * layout.bucket_bits).div_ceil(64) + 1);
            let mut model = vec![[0u32; 4]; buckets];
            let max = if f == 32 { u32::MAX } else { (1 << f) - 1 };
            for step in 0..(buckets * 4 * 3) {
                let i = (step * 5) % buckets;
                let current = layout.load(&w[..], i);
                let lanes: Vec<u32> = (0..4).map(|j| layout.lane(&current, j)).collect();
                let mut sorted = model[i];
                sorted.sort_unstable();
                assert_eq!(lanes, sorted, "f={f} bucket {i}");
                let fp = (((step as u64 + 1) * 0x9e37_79b9_7f4a) as u32 & max).max(1);
                match lanes.iter().position(|&v| v == 0) {
                    Some(j) if step % 3 != 2 => {
                        // Both write paths: read-modify-writes and (as for
                        // words of one stripe) loads and stores.
                        layout.set(&w, i, j, fp, &current, step % 2 == 0);
                        let k = model[i].iter().position(|&v| v == 0).unwrap();
                        model[i][k] = fp;
                    }
                    _ => {
                        let j = (step % 4).max(lanes.iter().position(|&v| v != 0).unwrap_or(0));
                        if lanes[j] != 0 {
                            layout.clear(&w, i, j, &current, step % 2 == 1);
                            let k = model[i].iter().position(|&v| v == lanes[j]).unwrap();
                            model[i][k] = 0;
                        }
                    }
                }
                for (k, want) in model.iter().enumerate() {
                    let got = layout.load(&w[..], k);
                    let mut want = *want;
                    want.sort_unstable();
                    let lanes: Vec<u32> = (0..4).map(|j| layout.lane(&got, j)).collect();
                    assert_eq!(lanes, want, "f={f} bucket {k} after step {step}");
                    for v in [0, fp, want[3]] {
                        assert_eq!(
                            layout.first_match(cuckoo_nest_simd::Scalar, &got, v),
                            want.iter().position(|&x| x == v),
                            "first_match f={f} bucket {k} value {v}"
                        );
                    }
                }
            }
        }
    }

    /// A stored bucket that is not the encoding of what it decodes to
    /// (slots out of order, an index past the list): a write re-encodes
    /// from what it decodes to, so the bucket ends up canonical with the
    /// new fingerprint and every decoded one but the slot written, and its
    /// neighbours are untouched.
    #[test]
    fn semi_sorted_writes_over_an_odd_bucket_keep_its_other_fingerprints() {
        for f in [9u32, 13, 17] {
            let layout = SemiSorted::<0>::new(f);
            let low = f - 4;
            let bits = layout.bucket_bits;
            let w = words((3 * bits).div_ceil(64) + 1);
            let n = 5u32 << low;
            // Bucket 1, out of order: slot 2's low bits above slot 3's.
            let odd = [n | 1, n | 2, n | 7, n | 3];
            let mut raw = layout.encode(odd);
            let (s2, s3) = (12 + 2 * low, 12 + 3 * low);
            let lows = (1u128 << low) - 1;
            raw = raw & !(lows << s2) & !(lows << s3) | 7 << s2 | 3 << s3;
            assert_ne!(layout.encode(layout.decode(raw)), raw, "forged as odd");
            write_bits(&w, bits, raw, bits as u32, WordOp::Flip, false);
            // Neighbours: canonical buckets 0 and 2.
            for i in [0usize, 2] {
                let nb = layout.encode([1, 2, 0, 3 << low]);
                write_bits(&w, i * bits, nb, bits as u32, WordOp::Flip, true);
            }
            let current = Layout::<4>::load(&layout, &w[..], 1);
            let decoded: Vec<u32> = (0..4).map(|j| layout.lane(&current, j)).collect();
            // Replace slot 0 (n | 1) by a new fingerprint.
            let new_fp = (9u32 << low) | 4;
            layout.set(&w, 1, 0, new_fp, &current, false);
            let stored = layout.load_raw(&w[..], 1);
            let mut want = [new_fp, decoded[1], decoded[2], decoded[3]];
            assert_eq!(
                stored,
                layout.encode(want),
                "f={f}: not the canonical new encoding"
            );
            want.sort_unstable();
            assert_eq!(layout.decode(stored), want, "f={f}");
            for i in [0usize, 2] {
                assert_eq!(
                    layout.decode(layout.load_raw(&w[..], i)),
                    [0, 1, 2, 3 << low],
                    "f={f}: neighbour {i}"
                );
            }
        }
    }
}
