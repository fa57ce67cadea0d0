//! How every layout reaches the table's words: the sources a lookup reads
//! them through ([`WordSource`]), the two ways a writer changes a word
//! ([`change_word`] under its stripe's lock, [`claim_word`] into an empty
//! slot with or without it), the slot mask every layout's matches answer with
//! ([`Mask`]) and the prefetch of a bucket's lines ([`prefetch_bucket`]).
//! The layouts and their bit helpers (`bits.rs`) import this file; it
//! imports none of them.

use super::Layout;
use crate::broken;
use crate::sync::{AtomicU64, Ordering};

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

/// Puts `bits` (a fingerprint, shifted into place) into `word` if the bits
/// of `slot` (its mask) are all zero there, with one compare-and-swap,
/// taken again while only other slots of the word change under it.
/// Returns false, writing nothing, once the slot is seen filled. This is
/// how every insert into a slot that lies in one word writes it, with its
/// stripe's lock or without ([`Layout::claim`]): both race with inserts
/// that take no lock, so neither may overwrite what one stored.
#[inline(always)]
pub(crate) fn claim_word(word: &AtomicU64, slot: u64, bits: u64) -> bool {
    let relaxed = Ordering::Relaxed;
    let mut now = word.load(relaxed);
    loop {
        if now & slot != 0 {
            return false;
        }
        match broken::claim_write(word, now, now | bits) {
            Ok(_) => return true,
            Err(seen) => now = seen,
        }
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
    if may_straddle(bits) {
        let second = if slack && bits <= 64 { first + 1 } else { last };
        prefetch_addr(base.wrapping_add(second).cast());
    }
}

/// True unless buckets of `bits` bits tile a 512-bit line (`512 % bits !=
/// 0`), without a division where the width is known only at run time (a
/// growable filter's generations, the catch-all packed and semi-sorted
/// shapes): 512's divisors are its powers of two. The `div` cost a batched
/// lookup of a growable filter one per key.
#[inline(always)]
const fn may_straddle(bits: usize) -> bool {
    bits > 512 || !bits.is_power_of_two()
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
            return unsafe { load_at(self.0, i * (bits / 8)) };
        }
        self.short_bits(i * bits, bits)
    }

    /// A range of up to [`ONE_LOAD_BITS`] bits in one unaligned 64-bit
    /// load at its first byte (x86_64, [`load_at`]), shifted by the bit
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
            unsafe { load_at(self.0, first / 8) >> (first % 8) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom))))]
        {
            one_load_model(self, first, len)
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

/// Up to 64 bits at table bit `first` as two word loads: the word holding
/// the first bit and the one holding bit `first + len - 1` (the same word
/// if the range does not straddle; the next word from a source with
/// slack), shifted together. Bits above `len` are left for the caller to
/// mask.
#[inline(always)]
pub(super) fn two_word_bits<W: WordSource + ?Sized>(words: &W, first: usize, len: usize) -> u64 {
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
pub(super) fn funnel(lo: u64, hi: u64, shift: u32) -> u64 {
    // `(hi << 1) << (63 - shift)` is `hi << (64 - shift)` without the
    // undefined shift by 64 when `shift` is 0.
    (lo >> shift) | ((hi << 1) << (63 - shift))
}

/// The 8 bytes of `words` from byte `at`, in one unaligned load.
///
/// # Safety
///
/// `at / 8 + 1` is below `words.len()`: the bytes lie in words `at / 8`
/// and `at / 8 + 1`.
///
/// The read races with writers' atomic read-modify-writes of those words,
/// which the language does not see: the block is opaque to it, and at the
/// machine's level (x86_64) each byte is read single-copy atomically, as a
/// relaxed atomic load of that byte would read it; docs/verification.md
/// (section 1, "Packed buckets in one load") argues why the lookup's answer
/// stands on that alone. No stack, no flags, no write; not `pure`, so it is
/// neither dropped nor merged, and it stays between the version reads
/// that order it (an asm block that reads memory is not moved across an
/// acquire load or fence).
#[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
#[inline(always)]
pub(super) unsafe fn load_at(words: &[AtomicU64], at: usize) -> u64 {
    debug_assert!(
        at / 8 + 1 < words.len(),
        "byte {at} of {} words",
        words.len()
    );
    let value: u64;
    // SAFETY: the bytes `at..at + 8` lie in the allocation of `words` (the
    // caller's contract), which outlives this call; the read is not a Rust
    // access (see above).
    unsafe {
        core::arch::asm!(
            "mov {value}, qword ptr [{base} + {at}]",
            base = in(reg) words.as_ptr().cast::<u8>(),
            at = in(reg) at,
            value = lateout(reg) value,
            options(readonly, nostack, preserves_flags)
        );
    }
    value
}

/// What the one load reads, where it is not compiled (Miri, cuckoo_nest_loom, other
/// targets): the two words it touches, each one relaxed load. Under loom
/// the higher word is read first: the load's two parts, where it crosses a
/// word, may be read in either order, and the portable two-word path
/// ([`two_word_bits`]) reads the lower first.
#[cfg(not(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom))))]
#[inline(always)]
pub(super) fn one_load_model<W: WordSource + ?Sized>(words: &W, first: usize, len: usize) -> u64 {
    if cfg!(cuckoo_nest_loom) {
        let w = first / 64;
        let hi = words.word(w + 1);
        let lo = words.word(w);
        funnel(lo, hi, (first % 64) as u32)
    } else {
        two_word_bits(words, first, len)
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

    #[test]
    fn a_bucket_may_straddle_exactly_when_its_bits_do_not_divide_a_line() {
        for bits in 1..=2048 {
            assert_eq!(may_straddle(bits), 512 % bits != 0, "{bits} bits");
        }
    }
}
