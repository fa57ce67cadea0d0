//! Where a layout reads the table's words from: the owned table's atomics
//! (with or without bounds checks) or a saved filter's immutable bytes,
//! aligned or not. The load path of every layout is written once over
//! [`WordSource`].

use crate::sync::{AtomicU64, Ordering};

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
