//! Batch operations: the one software-pipelined loop, for the owned table
//! and for views of saved bytes alike.
//!
//! One lookup is two dependent cache misses away from an answer when the
//! table is bigger than the cache; done one at a time, the core waits for
//! each. A batch keeps `D` lookups in flight: it hashes key `k + D` and
//! prefetches its two buckets before probing key `k`, so by the time key `k`
//! is probed its buckets are (nearly) in L1, and up to `2D` line fills
//! overlap. `D` was tuned by measurement (docs/benchmarks.md). Each probe is
//! the single lookup's own ([`Probe::probe`]), so a batch keeps its
//! guarantees (no false negatives under concurrent displacements).

use super::words::prefetch_addr;
use crate::error::{BatchInsertError, InsertError, LengthMismatch};
use crate::layout::Layout;

/// Lookups in flight: the tuned default.
pub(crate) const DEFAULT_DISTANCE: usize = 16;

/// Where one key lives: both buckets and the fingerprint.
#[derive(Clone, Copy, Default)]
/// Set only inside `table` (the owned table's probe reads without bounds
/// checks, relying on `i1` and `i2` being buckets of the table).
pub(crate) struct Located {
    pub(super) i1: usize,
    pub(super) i2: usize,
    pub(super) fp: u32,
}

/// What the pipelined loop runs over: the owned table, or a view's lookups
/// over saved bytes.
pub(crate) trait Probe {
    /// Both buckets and the fingerprint of `hash`, their lines prefetched.
    fn locate_and_prefetch(&self, hash: u64) -> Located;

    /// A whole lookup of a located key: true if its fingerprint is in
    /// either bucket.
    fn probe(&self, at: Located) -> bool;
}

/// Hints the CPU to fetch the line(s) a load of bucket `i` reads, from the
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
    if 512 % bits != 0 {
        let second = if slack && bits <= 64 { first + 1 } else { last };
        prefetch_addr(base.wrapping_add(second).cast());
    }
}

/// Runs `each(k, located)` for `k` in `0..n` in order, with key `k + D`
/// (hashed by `hash_at`) located and prefetched before key `k` is handed
/// over. Stops at the first error. `D` must be a power of two.
#[inline(always)]
fn pipelined<const D: usize, P: Probe, E>(
    p: &P,
    n: usize,
    hash_at: impl Fn(usize) -> u64,
    mut each: impl FnMut(usize, Located) -> Result<(), E>,
) -> Result<(), E> {
    let mut ring = [Located::default(); D];
    for (k, slot) in ring.iter_mut().enumerate().take(n.min(D)) {
        *slot = p.locate_and_prefetch(hash_at(k));
    }
    for k in 0..n {
        let at = ring[k % D];
        if k + D < n {
            ring[k % D] = p.locate_and_prefetch(hash_at(k + D));
        }
        each(k, at)?;
    }
    Ok(())
}

/// Looks up `n` keys (key `k` hashes to `hash_at(k)`), writing `out[k]`;
/// returns how many were found. `out.len() >= n`.
#[inline]
pub(crate) fn contains_many<const D: usize, P: Probe>(
    p: &P,
    n: usize,
    hash_at: impl Fn(usize) -> u64,
    out: &mut [bool],
) -> usize {
    let out = &mut out[..n];
    let mut hits = 0;
    let done: Result<(), ()> = pipelined::<D, P, ()>(p, n, hash_at, |k, at| {
        let hit = p.probe(at);
        out[k] = hit;
        hits += hit as usize;
        Ok(())
    });
    debug_assert!(done.is_ok());
    hits
}

/// Runs `insert(located)` for `n` keys in order, `D` ahead in hashing and
/// prefetching; stops at the first failure.
#[inline]
pub(crate) fn insert_many<const D: usize, P: Probe>(
    p: &P,
    n: usize,
    hash_at: impl Fn(usize) -> u64,
    insert: impl Fn(Located) -> Result<(), InsertError>,
) -> Result<(), BatchInsertError> {
    pipelined::<D, P, _>(p, n, hash_at, |k, at| {
        insert(at).map_err(|error| BatchInsertError { inserted: k, error })
    })
}

/// A batch's keys and results must pair up.
pub(crate) fn check_lengths(keys: usize, results: usize) -> Result<(), LengthMismatch> {
    if keys == results {
        Ok(())
    } else {
        Err(LengthMismatch { keys, results })
    }
}
