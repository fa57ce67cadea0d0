//! Batch operations: the one software-pipelined loop, for the owned table
//! and for views of saved bytes alike.
//!
//! One lookup is two dependent cache misses away from an answer when the
//! table is bigger than the cache; done one at a time, the core waits for
//! each. A batch keeps `D` lookups in flight: it locates key `k + D` and
//! prefetches its two buckets before probing key `k`, so by the time key `k`
//! is probed its buckets are (nearly) in L1, and up to `2D` line fills
//! overlap. `D` was tuned by measurement (docs/benchmarks.md). Each probe is
//! the single lookup's own ([`Probe::probe`]), so a batch keeps its
//! guarantees (no false negatives under concurrent displacements).
//!
//! A batch of lookups on a shape that gains from it
//! ([`Layout::WIDE_BATCH_PAYS`]) runs compiled for AVX-512 where the CPU
//! has it: detected once per process ([`avx512`]), entered once per batch,
//! so the whole loop is compiled with those features. What it gains is the
//! compiler's: the packed and semi-sorted compares are word arithmetic
//! (SWAR), and with AVX-512 it has 64-bit vector multiplies, three-input
//! logic and variable shifts for them. Every other batch, and every single
//! lookup (inlined into the caller, where a per-call dispatch would cost
//! more than it saves), runs as the crate was compiled: SSE2 on a default
//! x86_64 build. AVX2 lost or tied on every shape measured, so it is never
//! picked (docs/benchmarks.md, "Compare kernels in the batch path").

use super::{Addressing, Copies, Nested, Table};
use crate::error::{BatchInsertError, InsertError, LengthMismatch};
use crate::layout::{Layout, Packed};

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

    /// Batches of lookups run faster compiled for AVX-512
    /// ([`Layout::WIDE_BATCH_PAYS`]).
    // Read only where the AVX-512 loop exists, which loom and Miri leave out.
    #[cfg_attr(any(cuckoo_nest_loom, miri), allow(dead_code))]
    const WIDE_BATCH_PAYS: bool;
}

/// Whether the running CPU has the AVX-512 subsets a wide batch is compiled
/// for (F, BW, VL, DQ): asked of the kernel crate's one dispatcher,
/// [`Dynamic::detect`](cuckoo_nest_simd::Dynamic::detect), which inspects
/// the CPU on its first call and caches its choice. Never under Miri or
/// loom (no run-time features there: the batch runs as compiled).
#[inline]
fn avx512() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
    {
        cuckoo_nest_simd::Dynamic::detect().is_avx512()
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom))))]
    false
}

/// [`lookups`] compiled with AVX-512 enabled.
#[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn lookups_avx512<const D: usize, P: Probe>(p: &P, hashes: &[u64], out: &mut [bool]) -> usize {
    lookups::<D, P>(p, hashes, out)
}

/// What the pipelined loop does with each located key.
trait Step<E> {
    fn step(&mut self, k: usize, at: Located) -> Result<(), E>;
}

impl<E, F: FnMut(usize, Located) -> Result<(), E>> Step<E> for F {
    #[inline(always)]
    fn step(&mut self, k: usize, at: Located) -> Result<(), E> {
        self(k, at)
    }
}

/// A lookup's step: the probe, its answer written and counted. A struct
/// with an always-inlined method rather than a closure: compiled into the
/// AVX-512 batch ([`lookups_avx512`]), a closure stayed a call per key.
struct Lookup<'a, P> {
    p: &'a P,
    out: &'a mut [bool],
    hits: usize,
}

impl<P: Probe> Step<()> for Lookup<'_, P> {
    #[inline(always)]
    fn step(&mut self, k: usize, at: Located) -> Result<(), ()> {
        let hit = self.p.probe(at);
        self.out[k] = hit;
        self.hits += hit as usize;
        Ok(())
    }
}

/// Runs `each.step(k, located)` for every key `k` in order (key `k`
/// hashing to `hashes[k]`), with key `k + D` located and prefetched before
/// key `k` is handed over. Stops at the first error. `D` must be a power of two.
#[inline(always)]
fn pipelined<const D: usize, P: Probe, E>(
    p: &P,
    hashes: &[u64],
    each: &mut impl Step<E>,
) -> Result<(), E> {
    let n = hashes.len();
    let mut ring = [Located::default(); D];
    for (slot, &hash) in ring.iter_mut().zip(hashes) {
        *slot = p.locate_and_prefetch(hash);
    }
    for k in 0..n {
        let at = ring[k % D];
        if let Some(&ahead) = hashes.get(k + D) {
            ring[k % D] = p.locate_and_prefetch(ahead);
        }
        each.step(k, at)?;
    }
    Ok(())
}

/// Looks up the keys whose hashes are `hashes`, writing `out[k]` for key
/// `k`; returns how many were found. `out.len() >= hashes.len()`.
#[inline]
pub(crate) fn contains_many<const D: usize, P: Probe>(
    p: &P,
    hashes: &[u64],
    out: &mut [bool],
) -> usize {
    lookups::<D, P>(p, hashes, out)
}

/// Whether batches of lookups over layout `L` run compiled for AVX-512
/// ([`contains_many_wide`]) on this CPU.
#[inline]
pub(crate) fn wide_batches<const B: usize, L: Layout<B>>() -> bool {
    L::WIDE_BATCH_PAYS && avx512()
}

/// [`contains_many`] compiled for AVX-512, for callers that asked
/// [`wide_batches`] first: callers keep the wide path in a function apart
/// from the usual one, because in one function with every shape's loop the
/// extra code cost the loops that do not go wide 4 to 7 instructions per
/// lookup in spills. (Where `wide_batches` is false, the usual loop, out of
/// line.)
#[inline]
pub(crate) fn contains_many_wide<const D: usize, P: Probe>(
    p: &P,
    hashes: &[u64],
    out: &mut [bool],
) -> usize {
    #[cfg(all(target_arch = "x86_64", not(miri), not(cuckoo_nest_loom)))]
    if P::WIDE_BATCH_PAYS && avx512() {
        // SAFETY: `avx512()` found every feature `lookups_avx512` is
        // compiled for on the running CPU.
        return unsafe { lookups_avx512::<D, P>(p, hashes, out) };
    }
    narrow::<D, P>(p, hashes, out)
}

/// [`lookups`] as compiled, out of line: the fallback of
/// [`contains_many_wide`], which its callers do not take.
#[cold]
#[inline(never)]
fn narrow<const D: usize, P: Probe>(p: &P, hashes: &[u64], out: &mut [bool]) -> usize {
    lookups::<D, P>(p, hashes, out)
}

/// The lookup loop of [`contains_many`].
#[inline(always)]
fn lookups<const D: usize, P: Probe>(p: &P, hashes: &[u64], out: &mut [bool]) -> usize {
    let mut lookup = Lookup {
        p,
        out: &mut out[..hashes.len()],
        hits: 0,
    };
    let done = pipelined::<D, P, ()>(p, hashes, &mut lookup);
    debug_assert!(done.is_ok());
    lookup.hits
}

/// Runs `insert(located)` for each hash in order, `D` ahead in locating
/// and prefetching; stops at the first failure.
#[inline]
pub(crate) fn insert_many<const D: usize, P: Probe>(
    p: &P,
    hashes: &[u64],
    insert: impl Fn(Located) -> Result<(), InsertError>,
) -> Result<(), BatchInsertError> {
    pipelined::<D, P, _>(p, hashes, &mut |k, at| {
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

/// The owned table in the batch loop: each probe is the single lookup's.
impl<const B: usize, L: Layout<B>, A: Addressing> Probe for Table<B, L, A> {
    #[inline(always)]
    fn locate_and_prefetch(&self, hash: u64) -> Located {
        let (i1, i2, fp) = self.locate_pair(hash);
        self.prefetch(i1);
        self.prefetch(i2);
        Located { i1, i2, fp }
    }

    #[inline(always)]
    fn probe(&self, at: Located) -> bool {
        self.contains_at(at.i1, at.i2, at.fp)
    }

    const WIDE_BATCH_PAYS: bool = L::WIDE_BATCH_PAYS;
}

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// Looks up the keys whose hashes are `hashes` with `D` in flight,
    /// writing `out[k]`; returns how many were found.
    pub(crate) fn contains_many<const D: usize>(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        contains_many::<D, _>(self, hashes, out)
    }

    /// Whether [`Self::contains_many_wide`] is the faster batch here.
    #[inline]
    pub(crate) fn wide_batches(&self) -> bool {
        wide_batches::<B, L>()
    }

    /// [`Self::contains_many`] compiled for AVX-512 ([`contains_many_wide`]).
    pub(crate) fn contains_many_wide<const D: usize>(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> usize {
        contains_many_wide::<D, _>(self, hashes, out)
    }

    /// Inserts the keys whose hashes are `hashes`, in order, `D` ahead in
    /// locating and prefetching; stops at the first failure.
    pub(crate) fn insert_many<const D: usize>(
        &self,
        hashes: &[u64],
    ) -> Result<(), BatchInsertError> {
        insert_many::<D, _>(self, hashes, |at| {
            self.insert(at.i1, at.fp, Copies::Any).map(|_| ())
        })
    }
}

impl<const B: usize> Table<B, Packed, Nested> {
    /// [`Self::contains_many`] of a growable generation, at its width as a
    /// constant where it is one of [`with_width!`](super::with_width)'s:
    /// one batch asks the width once. Per key, the run-time width cost a
    /// batched lookup at 8x 61 instructions of 179 (a fixed 4x14 table,
    /// whose width has no table type of its own either, 146 against 110 for
    /// 4x13's).
    pub(crate) fn contains_many_nested<const D: usize>(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> usize {
        super::with_width!(self, t => contains_many::<D, _>(t, hashes, out))
    }
}
