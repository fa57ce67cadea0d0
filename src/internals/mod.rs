//! Test hooks, behind the `internals` cargo feature (off by default, on for
//! this workspace's tests, loom models and benchmarks): aiming items at
//! buckets, reading a bucket, tuning the batch distance, finding the table's
//! memory. Unstable: no semver promise covers them. Growable filters are
//! reached as users reach them, through
//! [`Builder::growable`](crate::Builder::growable).

use crate::error::{BuildError, LengthMismatch};
use crate::face::CuckooFilter;
use crate::shape::with_table;
use crate::table::{check_lengths, Words};

/// The loom models of the read-side sections' protocol on its own
/// (`grow/reclaim/slot.rs`): each function is one model, run by a test of
/// the models' binary (`loom-tests/tests/models/sections.rs`).
#[cfg(cuckoo_nest_loom)]
pub mod section_models {
    pub use crate::grow::section_models::{
        a_nested_section_does_not_end_the_outer_one, a_second_section_sees_the_state_unlinked,
        a_section_never_sees_its_state_freed,
    };
}

impl CuckooFilter {
    /// [`contains_batch_into`](Self::contains_batch_into) of hashes keeping `distance`
    /// lookups in flight (rounded to a power of two in 1..=64), for tuning.
    pub fn contains_batch_hash_with_distance(
        &self,
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) -> Result<usize, LengthMismatch> {
        check_lengths(hashes.len(), out.len())?;
        Ok(
            with_table!(&self.inner, t => match distance.clamp(1, 64).next_power_of_two() {
                0 | 1 => t.contains_many::<1>(hashes, out),
                2 => t.contains_many::<2>(hashes, out),
                4 => t.contains_many::<4>(hashes, out),
                8 => t.contains_many::<8>(hashes, out),
                16 => t.contains_many::<16>(hashes, out),
                32 => t.contains_many::<32>(hashes, out),
                _ => t.contains_many::<64>(hashes, out),
            }, g => g.contains_many::<{ crate::table::DEFAULT_DISTANCE }>(hashes, out)),
        )
    }

    /// Address and length in bytes of the bucket table; only for
    /// tests/huge_pages.rs, which checks how the kernel backs it.
    pub fn debug_table_ptr(&self) -> (usize, usize) {
        with_table!(&self.inner, t => t.words_range(), g => g.words_range())
    }

    /// Primary bucket, alternate bucket and fingerprint of a hash (for tests
    /// and models that need to aim items at buckets).
    pub fn debug_locate(&self, hash: u64) -> (usize, usize, u32) {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            (i1, t.alt(i1, fp), fp)
        }, g => g.locate(hash))
    }

    /// The `k`-th hash whose primary bucket is `i1` and fingerprint `fp`
    /// (`None` past the last, or for a bucket or fingerprint out of range,
    /// or on a growable filter): for tests and models that aim several
    /// items at one bucket pair with one fingerprint.
    pub fn debug_hash_for(&self, i1: usize, fp: u32, k: u32) -> Option<u64> {
        with_table!(&self.inner, t => t.unlocate(i1, fp, k), _g => None)
    }

    /// The hash whose spread (the first step of every filter's addressing)
    /// is `spread`: for tests that aim items at a growable filter's local
    /// bucket, key and spare bits, which are fields of the spread hash.
    pub fn debug_hash_spreading_to(spread: u64) -> u64 {
        crate::hash::unspread(spread)
    }

    /// The most hops a displacement path of this filter's bucket size may
    /// have (the search's depth): the bound of
    /// [`Statistics::longest_displacement`](crate::Statistics::longest_displacement).
    pub fn debug_max_path_depth(&self) -> u64 {
        u64::from(crate::table::insert::max_path_depth(
            self.config.bucket_size,
        ))
    }

    /// The fingerprints in bucket `i` (0 = empty; of the current
    /// generation of a growable filter), for tests.
    pub fn debug_bucket(&self, i: usize) -> Vec<u32> {
        with_table!(&self.inner, t => t.bucket_fingerprints(i), g => g.bucket_fingerprints(i))
    }

    /// Stores fingerprint `fp` in a free slot of bucket `i` of a growable
    /// filter's current generation, even where a growth step has not yet
    /// copied that bucket's share (which no insert does: tests reach a
    /// step's copy that finds no room with it). False if the bucket is
    /// full, or the filter is not growable.
    pub fn debug_place_ahead_of_copy(&self, i: usize, fp: u32) -> bool {
        with_table!(&self.inner, _t => false, g => g.place_ahead_of_copy(i, fp))
    }

    /// [`save_to_path`](Self::save_to_path) whose rename fails with
    /// `error`, as a crash between writing the temporary file and the
    /// rename would leave things (for tests).
    pub fn debug_save_to_path_failing_rename(
        &self,
        path: &std::path::Path,
        error: std::io::ErrorKind,
    ) -> std::io::Result<()> {
        crate::persist::save_to_path(&self.inner, &self.config, path, &[], |_, _| {
            Err(error.into())
        })
    }
}

/// Zeroed memory of at least `bytes` bytes, allocated as a table's words
/// are (with `huge_pages`, from 4 MiB up: 2 MiB-aligned and advised for
/// transparent huge pages before its first touch, and backed before this
/// returns; without, from the heap, backed as it is first written): for the
/// report's random cache-line load rate, measured on the pages the lookups
/// it bounds read.
///
/// ```
/// # #[cfg(feature = "internals")] {
/// use std::sync::atomic::Ordering;
/// let memory = cuckoo_nest::debug_table_memory(8 << 20, true).unwrap();
/// assert!(memory.len() >= (8 << 20) / 8);
/// assert!(memory.iter().all(|w| w.load(Ordering::Relaxed) == 0));
/// # }
/// ```
pub fn debug_table_memory(bytes: usize, huge_pages: bool) -> Result<TableMemory, BuildError> {
    Words::zeroed(bytes.div_ceil(8), huge_pages).map(TableMemory)
}

/// Memory from [`debug_table_memory`], freed when dropped.
pub struct TableMemory(Words);

impl std::ops::Deref for TableMemory {
    type Target = [crate::sync::AtomicU64];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// Makes the process-wide barriers a growth step takes fail from now on,
/// as a seccomp filter denying them would: `membarrier` (the filter then
/// falls back to the page-protection barrier) and that fallback too (a
/// growth step then refuses with `InsertError::GrowthBlocked`). False
/// where growth does not use `membarrier` at all (no fallback to test).
/// Process-wide: for a test binary of its own. Unstable. (Not under loom,
/// whose barriers are fences.)
#[cfg(not(cuckoo_nest_loom))]
pub fn debug_fail_barriers(membarrier: bool, page: bool) -> bool {
    use crate::grow::barrier::{FAIL, FAIL_MEMBARRIER, FAIL_PAGE_BARRIER};
    crate::grow::barrier::init();
    let bits =
        if membarrier { FAIL_MEMBARRIER } else { 0 } | if page { FAIL_PAGE_BARRIER } else { 0 };
    FAIL.store(bits, crate::sync::process::Ordering::Relaxed);
    crate::grow::barrier::is_light()
}

std::thread_local! {
    static REFUSE_THREAD_STARTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes the threads a growable filter starts for its next table's pages
/// (`cuckoo-nest-back`, `cuckoo-nest-huge`) fail to start when this
/// thread is the one starting them, as a process out of threads would
/// (`refuse`), or start again. This thread only, so tests running beside
/// it are not touched. Unstable.
///
/// ```
/// use cuckoo_nest::{debug_refuse_thread_starts, CuckooFilter};
/// let filter = CuckooFilter::builder().capacity(1000).growable(true).build()?;
/// debug_refuse_thread_starts(true);
/// for k in 0..10_000u64 {
///     filter.insert(&k)?; // grows on, its tables' pages left to the kernel
/// }
/// debug_refuse_thread_starts(false);
/// assert!((0..10_000u64).all(|k| filter.contains(&k)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn debug_refuse_thread_starts(refuse: bool) {
    REFUSE_THREAD_STARTS.with(|r| r.set(refuse));
}

/// True where [`debug_refuse_thread_starts`] told this thread to refuse.
#[cfg_attr(any(cuckoo_nest_loom, miri), allow(dead_code))]
pub(crate) fn thread_starts_refused() -> bool {
    REFUSE_THREAD_STARTS.with(|r| r.get())
}

impl CuckooFilter {
    /// A copy of this (empty) filter that hashes its generic methods'
    /// byte and integer keys as a filter loaded from a
    /// format version 4 file does ([`StableHasher::hash_bytes`](crate::StableHasher::hash_bytes),
    /// 8 bytes per multiply): for the report, which times the two key
    /// hashes side by side in one filter shape, and for tests of version 4
    /// behaviour. Goes through a save and a load; a fixed filter only.
    pub fn debug_with_v4_key_hash(&self) -> CuckooFilter {
        use crate::persist::header::{Header, HEADER_LEN};
        assert!(self.max_capacity().is_none(), "a fixed filter only");
        let mut bytes = self.to_bytes();
        let mut header = Header::decode(&bytes).expect("a filter's own bytes");
        header.config.keys = crate::key::KeyHash::Bytes;
        let encoded = Header::encode(&header.config, header.items, header.table_checksum, &[]);
        bytes[..HEADER_LEN].copy_from_slice(&encoded[..HEADER_LEN]);
        CuckooFilter::from_bytes(&bytes).expect("the same filter, version 4")
    }
}
