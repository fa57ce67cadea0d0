//! Bit-level helpers shared by the layouts: masks, lanes of a loaded
//! bucket, loads of bit ranges that straddle words (in two word loads, or
//! in one unaligned load on the owned table's lookup path), and writes of bit
//! ranges: read-modify-writes where writers holding different stripes may
//! share a word, so neither loses the other's bits, a load and a store
//! where the word is one stripe's.

use super::access::{change_word, Change, Mask, WordSource};
use super::Bucket;
use crate::broken;
use crate::sync::AtomicU64;

/// A mask of the low `bits` bits (every bit from 64 on): a layout's
/// constant widths fold it away.
#[inline(always)]
pub(super) const fn low_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `constant` when the const width `F` fixes the layout's width (not 0),
/// else `stored`, the value a layout of run-time width keeps in its fields:
/// the shapes the builder picks most get constants, so shifts and masks
/// fold, and every other width shares one table type.
#[inline(always)]
pub(super) fn fixed_or<const F: u32, T>(stored: T, constant: T) -> T {
    if F == 0 {
        stored
    } else {
        constant
    }
}

/// Lane `j` of `f` bits from a bucket laid out lane after lane.
#[inline(always)]
pub(super) fn packed_lane(bucket: &Bucket, j: usize, f: u32) -> u32 {
    let bit = j * f as usize;
    let (w, o) = (bit / 64, (bit % 64) as u32);
    let hi = if w + 1 < 4 { bucket[w + 1] } else { 0 };
    let both = (hi as u128) << 64 | bucket[w] as u128;
    ((both >> o) as u64 & low_bits(f)) as u32
}

/// Mask of the lanes equal to `value`, lane by lane.
#[inline(always)]
pub(super) fn lanes_equal<const B: usize>(bucket: &Bucket, f: u32, value: u32) -> Mask {
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
pub(super) fn load_span<const N: usize, W: WordSource + ?Sized>(
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
/// `at`) into the words with `op` per word touched: an or to set, an and
/// of the complement to clear, an xor to flip, each a read-modify-write or,
/// where the words are the caller's stripe's alone (`own`), a load and a
/// store ([`change_word`]).
#[inline(always)]
pub(super) fn write_bits(
    words: &[AtomicU64],
    at: usize,
    bits: u128,
    len: u32,
    op: WordOp,
    own: bool,
) {
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
            WordOp::Set => change_word(word, Change::Or(part), broken::packed_own(own, k)),
            WordOp::Clear => change_word(word, Change::And(!mask), own),
            WordOp::Flip if part & mask != 0 => change_word(word, Change::Xor(part & mask), own),
            WordOp::Flip => {}
        }
        w += 1;
    }
}

#[derive(Clone, Copy)]
pub(super) enum WordOp {
    Set,
    Clear,
    Flip,
}

/// Loads up to 64 bits at table bit `first`, from the source's
/// [`WordSource::bits`]: two whole words shifted together, or where the
/// source can, one load. Bits above `len` are left for the caller to mask.
#[inline(always)]
pub(super) fn load_bits<W: WordSource + ?Sized>(words: &W, first: usize, len: usize) -> u64 {
    words.bits(first, len)
}

/// Fresh zeroed words, for the layouts' unit tests.
#[cfg(test)]
pub(super) fn words(n: usize) -> Vec<AtomicU64> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}
