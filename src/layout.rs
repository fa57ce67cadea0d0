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
//!   ([`PackedLanes`]), wider ones lane by lane.
//! - [`SemiSorted`]: four slots per bucket, ordered by their fingerprints'
//!   high 4 bits, which are stored as a 12-bit index into the 3,876 sorted
//!   nibble combinations (paper section 5.2): `4f - 4` bits per bucket, one
//!   bit per item less than [`Packed`].
//!
//! Every layout loads a bucket into the same register shape, a [`Bucket`]
//! with lane `j` at bits `j * f`, so matching and the insert path's slot
//! logic are shared. Loads are relaxed atomic loads of whole words (the
//! stripes order them); writes are atomic read-modify-writes of whole words
//! (`fetch_or`, `fetch_and`, `fetch_xor`), so writers holding different
//! stripes may share a word without losing each other's bits. A bucket that
//! spans several words is loaded one word at a time, so a reader can see a
//! slot half written; docs/verification.md argues why that never makes a
//! lookup answer a false "no" (for semi-sorted buckets, whose every write
//! re-encodes the bucket, only because those writes are versioned).

use crate::broken;
use crate::error::DecodeError;
use crate::sync::{AtomicU64, Ordering};
use cuckoo_nest_simd::{Kernel, PackedLanes};

/// Where a lookup reads the table's 64-bit words from: the owned table's
/// atomics (relaxed loads, ordered by the stripes) or a saved filter's
/// immutable bytes ([`FilterView`](crate::FilterView)), little-endian. The
/// load path of every layout is written once over this trait; for the
/// atomic slice it compiles to exactly the loads it did before.
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
}

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

/// A loaded bucket: lane `j` (fingerprint of slot `j`) at bits `j * f`.
pub(crate) type Bucket = [u64; 4];

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

/// One bucket layout for buckets of `B` slots.
pub(crate) trait Layout<const B: usize>: Send + Sync + Sized + 'static {
    /// Every write rewrites more than the slot it changes (semi-sorted
    /// buckets re-encode), so writes must run in a versioned section.
    const WRITES_VERSIONED: bool;

    /// A torn read can show a fingerprint that was never stored, so a hit
    /// is final only once the versions validate too.
    const HITS_NEED_VALIDATION: bool = false;

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
    /// most the word after the span's first too (the table's lookup path
    /// relies on this to skip bounds checks).
    fn load<W: WordSource + ?Sized>(&self, words: &W, i: usize) -> Bucket;

    /// Slot `j` of a loaded bucket.
    fn lane(&self, bucket: &Bucket, j: usize) -> u32;

    /// Which slots of `a` and of `b` equal `value` (0 asks for empty
    /// slots).
    fn matches<K: Kernel>(&self, kernel: K, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask);

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
    #[inline(always)]
    fn probe<K: Kernel, W: WordSource + ?Sized>(
        &self,
        kernel: K,
        words: &W,
        i1: usize,
        i2: usize,
        fp: u32,
    ) -> bool {
        let (a, b) = (self.load(words, i1), self.load(words, i2));
        self.any_match(kernel, &a, &b, fp)
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

    /// Writes `fp` into empty slot `j` of bucket `i`, whose loaded value
    /// under its stripe lock is `current`.
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, current: &Bucket);

    /// Empties slot `j` of bucket `i` (loaded as `current` under its lock).
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, current: &Bucket);
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

/// A mask of the `bits` lowest bits (`bits` in 0..=64); `const`, so
/// constant widths fold it away.
#[inline(always)]
const fn low_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Lane `j` of `f` bits from a bucket laid out lane after lane.
#[inline(always)]
fn packed_lane(bucket: &Bucket, j: usize, f: u32) -> u32 {
    let bit = j * f as usize;
    let (w, o) = (bit / 64, (bit % 64) as u32);
    let hi = if w + 1 < 4 { bucket[w + 1] } else { 0 };
    let both = (hi as u128) << 64 | bucket[w] as u128;
    ((both >> o) as u64 & low_bits(f)) as u32
}

/// Mask of the lanes equal to `value`, lane by lane.
#[inline(always)]
fn lanes_equal<const B: usize>(bucket: &Bucket, f: u32, value: u32) -> Mask {
    let mut m = 0;
    for j in 0..B {
        m |= ((packed_lane(bucket, j, f) == value) as u32) << j;
    }
    Mask(m)
}

/// Loads words `first..=last` (at most five) and shifts them so that bit
/// `shift` of word `first` becomes bit 0. Words past `last` are not read
/// (the index is clamped), so a bucket never costs a cache line it does not
/// touch.
#[inline(always)]
fn load_span<const N: usize, W: WordSource + ?Sized>(
    words: &W,
    first: usize,
    last: usize,
    shift: u32,
) -> Bucket {
    let mut raw = [0u64; 5];
    for (k, r) in raw.iter_mut().enumerate().take(N + 1) {
        *r = words.word((first + k).min(last));
    }
    let mut out = [0u64; 4];
    for k in 0..N {
        let both = (raw[k + 1] as u128) << 64 | raw[k] as u128;
        out[k] = (both >> shift) as u64;
    }
    out
}

/// Writes `bits` (a slot or a bucket's change, `len` bits at table bit
/// `at`) into the words with `op` per word touched: `fetch_or` to set,
/// `fetch_and` of the complement to clear, `fetch_xor` to flip.
#[inline(always)]
fn write_bits(words: &[AtomicU64], at: usize, bits: u128, len: u32, op: WordOp) {
    let (mut w, shift) = (at / 64, (at % 64) as u32);
    // Up to 128 bits at an offset of up to 63: at most three words.
    let parts = [
        (bits << shift) as u64,
        ((bits << shift) >> 64) as u64,
        if shift == 0 {
            0
        } else {
            (bits >> (128 - shift)) as u64
        },
    ];
    let span = (shift + len).div_ceil(64) as usize;
    for (k, &part) in parts.iter().enumerate().take(span) {
        let mask = {
            // The bits of this word that belong to the written range.
            let lo = if k == 0 { shift } else { 0 };
            let end = (shift + len).saturating_sub(64 * k as u32).min(64);
            low_bits(end) & !low_bits(lo)
        };
        let word = &words[w];
        match op {
            WordOp::Set => {
                if broken::PACKED_PLAIN_STORE && k > 0 {
                    // Deliberately broken variant for the loom models: the
                    // second word of a straddling slot written with load +
                    // store, losing a concurrent write to a neighbour.
                    let v = word.load(Ordering::Relaxed);
                    word.store(v | part, Ordering::Relaxed);
                } else {
                    word.fetch_or(part, Ordering::Relaxed);
                }
            }
            WordOp::Clear => {
                word.fetch_and(!mask, Ordering::Relaxed);
            }
            WordOp::Flip => {
                if part & mask != 0 {
                    word.fetch_xor(part & mask, Ordering::Relaxed);
                }
            }
        }
        w += 1;
    }
}

#[derive(Clone, Copy)]
enum WordOp {
    Set,
    Clear,
    Flip,
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
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, _: &Bucket) {
        let bit = (i * B + j) * F as usize;
        let (word, shift) = (&words[bit / 64], bit % 64);
        if broken::PLAIN_STORE {
            // Deliberately broken variant for the loom models: load + store
            // loses a concurrent write to another bucket sharing the word.
            let v = word.load(Ordering::Relaxed);
            word.store(v | (fp as u64) << shift, Ordering::Relaxed);
            return;
        }
        word.fetch_or((fp as u64) << shift, Ordering::Relaxed);
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, _: &Bucket) {
        let bit = (i * B + j) * F as usize;
        words[bit / 64].fetch_and(!(Self::FP_MASK << (bit % 64)), Ordering::Relaxed);
    }
}

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
        let bucket_bits = bucket_size * f as usize;
        Packed {
            f,
            bucket_bits,
            bucket_mask: low_bits(bucket_bits as u32),
            swar: PackedLanes::new(f, bucket_size as u32),
        }
    }
}

/// Loads up to 64 bits at table bit `first`: the word holding the first
/// bit and the one holding bit `first + len - 1` (the same word if the
/// range does not straddle; the next word from a source with slack),
/// shifted together. Bits above `len` are left for the caller to mask.
#[inline(always)]
fn load_bits<W: WordSource + ?Sized>(words: &W, first: usize, len: usize) -> u64 {
    let w = first / 64;
    // With slack, the next word whether or not the range reaches it: three
    // instructions fewer per bucket, and the word is zero or another
    // bucket's bits, above what the caller keeps.
    let last = if W::SLACK {
        w + 1
    } else {
        (first + len - 1) / 64
    };
    let lo = words.word(w);
    let hi = words.word(last);
    funnel(lo, hi, (first % 64) as u32)
}

/// Bits `shift..shift + 64` of `hi:lo` (`shift` in 0..64). With `hi == lo`
/// (no straddle) the bits brought in from `hi` land at positions
/// `>= 64 - shift`, above what a caller loading at most `64 - shift` bits
/// keeps. Written with two plain shifts rather than a 128-bit shift, which
/// compiles to `shrd` by `cl`: several micro-ops on AMD cores.
#[inline(always)]
fn funnel(lo: u64, hi: u64, shift: u32) -> u64 {
    // `(hi << 1) << (63 - shift)` is `hi << (64 - shift)` without the
    // undefined shift by 64 when `shift` is 0.
    (lo >> shift) | ((hi << 1) << (63 - shift))
}

impl<const F: u32> Packed<F> {
    #[inline(always)]
    fn width(&self) -> u32 {
        if F == 0 {
            self.f
        } else {
            F
        }
    }

    #[inline(always)]
    fn bits<const B: usize>(&self) -> usize {
        if F == 0 {
            self.bucket_bits
        } else {
            B * F as usize
        }
    }

    #[inline(always)]
    fn mask<const B: usize>(&self) -> u64 {
        if F == 0 {
            self.bucket_mask
        } else {
            low_bits((B * F as usize) as u32)
        }
    }

    #[inline(always)]
    fn lanes<const B: usize>(&self) -> Option<PackedLanes> {
        if F == 0 {
            self.swar
        } else {
            const { PackedLanes::new(F, B as u32) }
        }
    }
}

impl<const B: usize, const F: u32> Layout<B> for Packed<F> {
    const WRITES_VERSIONED: bool = false;

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
/// sorted order. `F` as in [`Packed`]: the width when known at compile
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
            bucket_bits: 4 * f as usize - 4,
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
        if F == 0 {
            self.f
        } else {
            F
        }
    }

    #[inline(always)]
    fn bits(&self) -> usize {
        if F == 0 {
            self.bucket_bits
        } else {
            4 * F as usize - 4
        }
    }

    #[inline(always)]
    fn lanes(&self) -> Option<PackedLanes> {
        if F == 0 {
            self.swar
        } else {
            const { PackedLanes::new(F, 4) }
        }
    }

    #[inline(always)]
    fn low_lanes(&self) -> Option<PackedLanes> {
        if F == 0 {
            self.lows
        } else if F > 4 && F <= 17 {
            const { PackedLanes::new(if F > 4 { F - 4 } else { 1 }, 4) }
        } else {
            None
        }
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
    pub(crate) fn encode(&self, mut fps: [u32; 4]) -> u128 {
        fps.sort_unstable();
        let low = self.width() - 4;
        let tuple = fps.iter().fold(0u16, |t, &fp| t << 4 | (fp >> low) as u16);
        let index = NIBBLE_TUPLES
            .binary_search(&tuple)
            .expect("sorted nibbles are a listed tuple");
        let mut raw = index as u128;
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
        let raw = load_bits(words, i * self.bits(), self.bits());
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
            // multiply, one AND.
            low_hits & (nibble_hits >> 3).wrapping_mul(magic) != 0
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
    fn rewrite(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, current: &Bucket) {
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
        );
    }
}

impl<const F: u32> Layout<4> for SemiSorted<F> {
    const WRITES_VERSIONED: bool = true;
    // A torn read of a re-encoding can decode to a fingerprint never
    // stored; the re-encoding is versioned, so validating hits too catches
    // it.
    const HITS_NEED_VALIDATION: bool = true;

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
    fn set(&self, words: &[AtomicU64], i: usize, j: usize, fp: u32, current: &Bucket) {
        self.rewrite(words, i, j, fp, current);
    }

    #[inline(always)]
    fn clear(&self, words: &[AtomicU64], i: usize, j: usize, current: &Bucket) {
        self.rewrite(words, i, j, 0, current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_iterates_its_slots_lowest_first() {
        assert_eq!(Mask(0b1010_0110).collect::<Vec<_>>(), [1, 2, 5, 7]);
        assert_eq!(Mask(0).lowest_set_bit(), None);
        assert_eq!(Mask(0b100).count(), 1);
    }

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

    fn words(n: usize) -> Vec<AtomicU64> {
        (0..n).map(|_| AtomicU64::new(0)).collect()
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
                let buckets = 9;
                let w = words((buckets * b * f as usize).div_ceil(64) + 1);
                let mut model = vec![vec![0u32; b]; buckets];
                let max = if f == 32 { u32::MAX } else { (1 << f) - 1 };
                for step in 0..(buckets * b * 3) {
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
                        layout.set(&w, i, j, fp, &current);
                        let k = model[i].iter().position(|&v| v == 0).unwrap();
                        model[i][k] = fp;
                    }
                    _ => {
                        let j = (step % 4).max(lanes.iter().position(|&v| v != 0).unwrap_or(0));
                        if lanes[j] != 0 {
                            layout.clear(&w, i, j, &current);
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
            write_bits(&w, bits, raw, bits as u32, WordOp::Flip);
            // Neighbours: canonical buckets 0 and 2.
            for i in [0usize, 2] {
                let nb = layout.encode([1, 2, 0, 3 << low]);
                write_bits(&w, i * bits, nb, bits as u32, WordOp::Flip);
            }
            let current = Layout::<4>::load(&layout, &w[..], 1);
            let decoded: Vec<u32> = (0..4).map(|j| layout.lane(&current, j)).collect();
            // Replace slot 0 (n | 1) by a new fingerprint.
            let new_fp = (9u32 << low) | 4;
            layout.set(&w, 1, 0, new_fp, &current);
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
