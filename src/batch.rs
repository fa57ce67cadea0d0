//! Batch operations: software-pipelined lookups and inserts.
//!
//! One lookup is two dependent cache misses away from an answer when the
//! table is bigger than the cache; done one at a time, the core waits for
//! each. A batch keeps `D` lookups in flight: it hashes key `k + D` and
//! prefetches its two buckets before probing key `k`, so by the time key `k`
//! is probed its buckets are (nearly) in L1, and up to `2D` line fills
//! overlap. `D` was tuned by measurement (docs/benchmarks.md); every probe
//! is the same [`Table::contains_at`] the single lookup uses, so the batch
//! path keeps the single path's guarantees (no false negatives under
//! concurrent displacements).

use crate::error::{BatchInsertError, InsertError};
use crate::layout::Layout;
use crate::table::Table;
use cuckoo_nest_simd::Kernel;

/// Lookups in flight: the tuned default.
pub(crate) const DEFAULT_DISTANCE: usize = 16;

/// Where one key lives: both buckets and the fingerprint.
#[derive(Clone, Copy, Default)]
struct Located {
    i1: usize,
    i2: usize,
    fp: u32,
}

impl<const B: usize, L: Layout<B>, K: Kernel + Default> Table<B, L, K> {
    #[inline(always)]
    fn locate_and_prefetch(&self, hash: u64) -> Located {
        let (i1, fp) = self.locate(hash);
        let i2 = self.alt(i1, fp);
        self.prefetch(i1);
        self.prefetch(i2);
        Located { i1, i2, fp }
    }

    /// Looks up `n` keys (key `k` hashes to `hash_at(k)`), writing
    /// `out[k]`; returns how many were found. `D` must be a power of two.
    /// `out.len() >= n`.
    pub(crate) fn contains_many<const D: usize>(
        &self,
        n: usize,
        hash_at: impl Fn(usize) -> u64,
        out: &mut [bool],
    ) -> usize {
        let out = &mut out[..n];
        let mut ring = [Located::default(); D];
        for (k, slot) in ring.iter_mut().enumerate().take(n.min(D)) {
            *slot = self.locate_and_prefetch(hash_at(k));
        }
        let mut hits = 0;
        for (k, result) in out.iter_mut().enumerate() {
            let at = ring[k % D];
            if k + D < n {
                ring[k % D] = self.locate_and_prefetch(hash_at(k + D));
            }
            let hit = self.contains_at(at.i1, at.i2, at.fp);
            *result = hit;
            hits += hit as usize;
        }
        hits
    }

    /// Inserts `n` keys in order, `D` ahead in hashing and prefetching.
    /// Stops at the first failure.
    pub(crate) fn insert_many<const D: usize>(
        &self,
        n: usize,
        hash_at: impl Fn(usize) -> u64,
    ) -> Result<(), BatchInsertError> {
        let mut ring = [Located::default(); D];
        for (k, slot) in ring.iter_mut().enumerate().take(n.min(D)) {
            *slot = self.locate_and_prefetch(hash_at(k));
        }
        for k in 0..n {
            let at = ring[k % D];
            if k + D < n {
                ring[k % D] = self.locate_and_prefetch(hash_at(k + D));
            }
            self.insert(at.i1, at.fp, false)
                .map_err(|error: InsertError| BatchInsertError { inserted: k, error })?;
        }
        Ok(())
    }
}
