//! A table's lookups over a saved filter's immutable bytes, for
//! [`FilterView`](crate::FilterView): the owned table's layout code over
//! another [`WordSource`], without the stripe versions (bytes that cannot
//! change need no validation), and the same pipelined batch loop.

use super::batch::{self, Located, Probe};
use super::{Addressing, Plain};
use crate::error::DecodeError;
use crate::layout::{audit_table, prefetch_bucket, Layout, WordSource};
use cuckoo_nest_simd::Native;

/// One shape's lookup over borrowed words, addressed by `A`.
#[derive(Clone)]
pub(crate) struct ViewTable<const B: usize, L, A = Plain> {
    layout: L,
    kernel: Native,
    addressing: A,
    buckets: usize,
}

/// A view table with the words it reads: what the batch loop runs over.
struct Over<'a, const B: usize, L, A, W: ?Sized> {
    table: &'a ViewTable<B, L, A>,
    words: &'a W,
    /// The words' first byte, for prefetching.
    base: *const u64,
}

impl<const B: usize, L: Layout<B>, A: Addressing, W: WordSource + ?Sized> Probe
    for Over<'_, B, L, A, W>
{
    #[inline(always)]
    fn locate_and_prefetch(&self, hash: u64) -> Located {
        let t = self.table;
        let (i1, i2, fp) = t.addressing.locate_pair(hash, t.buckets, t.layout.fp_max());
        prefetch_bucket(&t.layout, self.base, i1, W::SLACK);
        prefetch_bucket(&t.layout, self.base, i2, W::SLACK);
        Located { i1, i2, fp }
    }

    #[inline(always)]
    fn probe(&self, at: Located) -> bool {
        let t = self.table;
        t.layout.probe(t.kernel, self.words, at.i1, at.i2, at.fp)
    }

    const WIDE_BATCH_PAYS: bool = L::WIDE_BATCH_PAYS;
}

impl<const B: usize, L: Layout<B>> ViewTable<B, L> {
    pub(crate) fn new(layout: L, buckets: usize) -> Self {
        Self::with_addressing(layout, Plain, buckets)
    }
}

impl<const B: usize, L: Layout<B>, A: Addressing> ViewTable<B, L, A> {
    /// A view of `buckets` buckets addressed by `addressing` (a growable
    /// filter's saved generation).
    pub(crate) fn with_addressing(layout: L, addressing: A, buckets: usize) -> Self {
        ViewTable {
            layout,
            kernel: Native::default(),
            addressing,
            buckets,
        }
    }

    /// The occupied slots of the saved table in `words` (`table_words`
    /// long), or the first thing in it no writer stores ([`audit_table`]).
    pub(crate) fn audit<W: WordSource + ?Sized>(
        &self,
        words: &W,
        table_words: usize,
    ) -> Result<usize, DecodeError> {
        audit_table(&self.layout, self.kernel, words, self.buckets, table_words)
    }

    /// Appends `(bucket, fingerprint)` for every occupied slot of buckets
    /// `first..end` to `out` (for `merge`).
    pub(crate) fn fingerprints<W: WordSource + ?Sized>(
        &self,
        words: &W,
        first: usize,
        end: usize,
        out: &mut Vec<(usize, u32)>,
    ) {
        for i in first..end.min(self.buckets) {
            let bucket = self.layout.load(words, i);
            for j in 0..B {
                let fp = self.layout.lane(&bucket, j);
                if fp != 0 {
                    out.push((i, fp));
                }
            }
        }
    }

    /// True if `hash`'s fingerprint is in either of its buckets.
    #[inline(always)]
    pub(crate) fn contains<W: WordSource + ?Sized>(&self, words: &W, hash: u64) -> bool {
        let (i1, i2, fp) = self
            .addressing
            .locate_pair(hash, self.buckets, self.layout.fp_max());
        self.layout.probe(self.kernel, words, i1, i2, fp)
    }

    /// Copies of `hash`'s fingerprint in its two buckets (one bucket's,
    /// if they are the same), as the owned table's `count`.
    pub(crate) fn count<W: WordSource + ?Sized>(&self, words: &W, hash: u64) -> usize {
        let (i1, i2, fp) = self
            .addressing
            .locate_pair(hash, self.buckets, self.layout.fp_max());
        let in_bucket = |i| {
            let bucket = self.layout.load(words, i);
            (0..B)
                .filter(|&j| self.layout.lane(&bucket, j) == fp)
                .count()
        };
        in_bucket(i1) + if i2 == i1 { 0 } else { in_bucket(i2) }
    }

    /// [`batch::contains_many`] over `words`, whose first byte is at
    /// `base`; with `WIDE`, [`batch::contains_many_wide`] (for callers that
    /// asked [`Self::wide_batches`]).
    pub(crate) fn contains_many<const WIDE: bool, W: WordSource + ?Sized>(
        &self,
        words: &W,
        base: *const u8,
        hashes: &[u64],
        out: &mut [bool],
    ) -> usize {
        let over = Over {
            table: self,
            words,
            base: base.cast(),
        };
        const D: usize = batch::DEFAULT_DISTANCE;
        if WIDE {
            batch::contains_many_wide::<D, _>(&over, hashes, out)
        } else {
            batch::contains_many::<D, _>(&over, hashes, out)
        }
    }

    /// Whether the `WIDE` form of [`Self::contains_many`] is the faster
    /// batch here.
    #[inline]
    pub(crate) fn wide_batches(&self) -> bool {
        batch::wide_batches::<B, L>()
    }
}
