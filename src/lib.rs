//! # cuckoo-nest
//!
//! A concurrent cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher,
//! "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014) that many
//! threads share through `&self`: approximate set membership with deletion.
//!
//! ```
//! use std::sync::Arc;
//! use cuckoo_nest::CuckooFilter;
//!
//! let filter = Arc::new(CuckooFilter::with_capacity(100_000));
//! let writers: Vec<_> = (0..2u64)
//!     .map(|t| {
//!         let filter = Arc::clone(&filter);
//!         std::thread::spawn(move || {
//!             for k in (t * 1000)..(t * 1000 + 1000) {
//!                 filter.insert(&k).expect("sized for 100k items");
//!             }
//!         })
//!     })
//!     .collect();
//! for w in writers {
//!     w.join().unwrap();
//! }
//! assert!(filter.contains(&1234u64));
//! assert_eq!(filter.len(), 2000);
//! assert!(filter.remove(&1234u64));
//! ```
//!
//! ## The contract
//!
//! - **No false negatives.** If `insert(x)` returned `Ok` before
//!   `contains(x)` began and no `remove(x)` came in between, `contains(x)` is
//!   true, whatever other threads insert, remove or look up meanwhile.
//!   `contains` may say true for an item never inserted (a false positive,
//!   rate about `2b / 2^f` at full load; see
//!   [`CuckooFilter::expected_false_positive_rate`]).
//! - **A failed insert loses nothing.** When no free slot can be reached,
//!   `insert` returns [`InsertError::Full`] and every earlier item is still
//!   there (many cuckoo filters drop a victim at this point; this one does
//!   not, because it finds a whole displacement path before moving anything).
//! - **Lookups take no lock and write no shared memory**: no lookup makes
//!   another core's cache line dirty, and none is ever refused. (How that
//!   scales on a given machine is measured, not promised:
//!   docs/benchmarks.md.) Lookups are optimistic, seqlock-style: a lookup
//!   looks again while a *versioned section* is open on the stripe of one
//!   of its two buckets: a displacement moving a fingerprint, a remove
//!   that leaves a colliding copy, a semi-sorted bucket's re-encoding, or
//!   a chunk of a `clear`. Inserts into a free slot (of plain buckets) and
//!   removes that leave no other copy of their fingerprint do not disturb
//!   lookups at all. So a lookup is not wait-free: it waits out each
//!   section it meets, which lasts a few hundred nanoseconds (a `clear`'s
//!   chunk, microseconds), except that **a writer preempted inside a
//!   section delays lookups on those stripes until it runs again**.
//!   docs/benchmarks.md gives the longest waits measured.
//! - **Writers on unrelated buckets run in parallel**: they lock only the
//!   stripes of the buckets they touch, in a global order (no deadlock).
//! - **Removing an item never inserted** may remove another item that has
//!   the same fingerprint in the same buckets (as in the paper): only remove
//!   what you inserted.
//! - **Bad input is a typed error** ([`BuildError`], [`InsertError`]), never
//!   a panic.
//!
//! ## Hashing
//!
//! `insert`, `contains` and `remove` hash with [`StableHasher`], whose output
//! is the same on every run, process and platform (seed 0 by default; set
//! one with [`Builder::seed`]). Callers who already hash their keys use the
//! `*_hash` methods with any well-mixed 64-bit hash. The hash is part of
//! the saved format: for byte-string keys, [`CuckooFilter::hash_bytes`]
//! depends on the format alone, while keys hashed through
//! `std::hash::Hash` also depend on their type's `Hash` impl, which the
//! standard library does not promise to keep across Rust releases.
//!
//! ## Saving and loading
//!
//! [`CuckooFilter::to_bytes`] and [`CuckooFilter::write_to`] save a filter
//! (safely while other threads write) in a versioned, checksummed,
//! little-endian format, documented byte by byte in docs/format.md;
//! [`CuckooFilter::from_bytes`] and [`CuckooFilter::read_from`] load it back
//! as an owned filter; [`FilterView`] answers lookups straight from the
//! saved bytes (a memory-mapped file, say) without loading them. Bad bytes
//! are a [`DecodeError`], never a panic. With the `serde` feature, the
//! filter is `Serialize`/`Deserialize` through the same format.

#![warn(missing_docs)]
// README's example runs as a doctest, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod batch;
mod broken;
mod builder;
mod error;
mod hash;
mod insert;
mod layout;
mod stripes;
mod sync;
mod table;
mod words;

pub use builder::{Builder, BUCKET_SIZES, FINGERPRINT_BITS};
pub use error::{BatchInsertError, BuildError, DecodeError, InsertError, LengthMismatch};
pub use hash::StableHasher;

use builder::{design_load, false_positive_rate, Config};
use layout::{Fixed, Packed, SemiSorted};
use std::fmt;
use std::hash::{Hash, Hasher};
use table::Table;

/// The table, monomorphised per (bucket size, layout) so the hot path's
/// shifts and masks are constants where they can be; one well-predicted
/// match per call picks the variant. The shapes are listed once, here.
/// The table, monomorphised per (bucket size, layout) so the hot path's
/// shifts and masks are constants where they can be; one well-predicted
/// match per call picks the variant. The shapes are listed once, here: name,
/// bucket size, layout type, the (bucket size, width, semi-sorted) it
/// serves, and how its layout is made. The first matching row wins, so the
/// packed widths with a table type of their own come before the catch-all
/// run-time-width rows.
macro_rules! shapes {
    ($m:ident) => {
        $m! {
            B2F8: 2, Fixed<8>, (2, 8, false) => Fixed;
            B2F16: 2, Fixed<16>, (2, 16, false) => Fixed;
            B2F32: 2, Fixed<32>, (2, 32, false) => Fixed;
            B4F8: 4, Fixed<8>, (4, 8, false) => Fixed;
            B4F16: 4, Fixed<16>, (4, 16, false) => Fixed;
            B4F32: 4, Fixed<32>, (4, 32, false) => Fixed;
            B8F8: 8, Fixed<8>, (8, 8, false) => Fixed;
            B8F16: 8, Fixed<16>, (8, 16, false) => Fixed;
            B8F32: 8, Fixed<32>, (8, 32, false) => Fixed;
            B4P12: 4, Packed<12>, (4, 12, false) => Packed::new(4, 12);
            B4P13: 4, Packed<13>, (4, 13, false) => Packed::new(4, 13);
            B2Packed: 2, Packed, (2, f, false) => Packed::new(2, f);
            B4Packed: 4, Packed, (4, f, false) => Packed::new(4, f);
            B8Packed: 8, Packed, (8, f, false) => Packed::new(8, f);
            B4S13: 4, SemiSorted<13>, (4, 13, true) => SemiSorted::new(13);
            B4SemiSorted: 4, SemiSorted, (4, f, true) => SemiSorted::new(f);
        }
    };
}

macro_rules! declare_inner {
    ($($name:ident: $b:literal, $layout:ty, $shape:pat => $make:expr;)*) => {
        enum Inner {
            $($name(Table<$b, $layout>),)*
            /// The default shape with the scalar reference kernel
            /// (benchmarks only).
            B4F16Scalar(Table<4, Fixed<16>, cuckoo_nest_simd::Scalar>),
        }

        /// Runs `$body` with `$t` bound to the concrete table.
        macro_rules! with_table {
            ($inner:expr, $t:ident => $body:expr) => {
                match $inner {
                    $(Inner::$name($t) => $body,)*
                    Inner::B4F16Scalar($t) => $body,
                }
            };
        }

        impl Inner {
            /// The table for a validated configuration.
            fn new(config: &Config) -> Result<Self, BuildError> {
                let (m, n, hp) = (config.buckets, config.capacity, config.huge_pages);
                let shape = (config.bucket_size, config.fingerprint_bits, config.semi_sorted);
                if config.reference_kernel && shape == (4, 16, false) {
                    return Ok(Inner::B4F16Scalar(Table::new(Fixed, m, n, hp)?));
                }
                Ok(match shape {
                    $($shape => Inner::$name(Table::new($make, m, n, hp)?),)*
                    (b, f, semi) => unreachable!(
                        "builder validated bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                })
            }

            /// The table of a validated saved header, holding `len` items,
            /// whose words are `parts` one after another (exactly as long
            /// as the header says), not yet audited.
            fn from_le_bytes(config: &Config, len: usize, parts: &[&[u8]]) -> Result<Self, BuildError> {
                let (m, hp) = (config.buckets, config.huge_pages);
                let shape = (config.bucket_size, config.fingerprint_bits, config.semi_sorted);
                Ok(match shape {
                    $($shape => Inner::$name(Table::from_le_bytes($make, m, len, hp, parts)?),)*
                    (b, f, semi) => unreachable!(
                        "the header was validated: bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                })
            }
        }

        /// [`Inner`] for a [`FilterView`]: the same shapes over borrowed bytes.
        #[derive(Clone)]
        enum ViewShape {
            $($name(view::ViewTable<$b, $layout>),)*
        }

        /// Runs `$body` with `$t` bound to the concrete view table.
        macro_rules! with_view {
            ($view:expr, $t:ident => $body:expr) => {
                match $view {
                    $(ViewShape::$name($t) => $body,)*
                }
            };
        }

        impl ViewShape {
            /// The view table of a validated saved header.
            fn new(config: &Config) -> Self {
                let m = config.buckets;
                let shape = (config.bucket_size, config.fingerprint_bits, config.semi_sorted);
                match shape {
                    $($shape => ViewShape::$name(view::ViewTable::new($make, m)),)*
                    (b, f, semi) => unreachable!(
                        "the header was validated: bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                }
            }
        }
    };
}
shapes!(declare_inner);

// After the shapes: these use `with_table!` and `with_view!`.
mod persist;
#[cfg(feature = "serde")]
mod serde_impl;
mod view;

pub use view::FilterView;

/// A concurrent cuckoo filter. `Send + Sync`: share it with `Arc`; every
/// method takes `&self`. See the [crate docs](crate) for the contract.
pub struct CuckooFilter {
    inner: Inner,
    config: Config,
}

impl CuckooFilter {
    /// A filter for `capacity` items in the default configuration (4
    /// fingerprints of 16 bits per bucket).
    ///
    /// # Panics
    /// If `capacity` is 0 or the table cannot be allocated; use
    /// [`CuckooFilter::try_with_capacity`] to get those as errors.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// assert!(filter.capacity() >= 1000);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        match Self::try_with_capacity(capacity) {
            Ok(f) => f,
            Err(e) => panic!("CuckooFilter::with_capacity({capacity}): {e}"),
        }
    }

    /// A filter for `capacity` items in the default configuration, or why
    /// not.
    ///
    /// ```
    /// use cuckoo_nest::{BuildError, CuckooFilter};
    /// assert!(CuckooFilter::try_with_capacity(1000).is_ok());
    /// assert_eq!(CuckooFilter::try_with_capacity(0).unwrap_err(), BuildError::ZeroCapacity);
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, BuildError> {
        Self::builder().capacity(capacity).build()
    }

    /// Starts a [`Builder`] to choose the capacity, false-positive rate,
    /// bucket size, fingerprint width or hash seed.
    pub fn builder() -> Builder {
        Builder::default()
    }

    pub(crate) fn from_config(config: Config) -> Result<Self, BuildError> {
        Ok(CuckooFilter {
            inner: Inner::new(&config)?,
            config,
        })
    }

    #[inline]
    fn hash<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        StableHasher::hash_one(self.config.seed, item)
    }

    /// The hasher [`Self::hash`] starts from, for hashing many items: the
    /// batch loops clone it per key rather than derive it from the seed
    /// each time (the compiler did not hoist that, a dozen instructions per
    /// key).
    #[inline(always)]
    fn seeded(&self) -> StableHasher {
        StableHasher::with_seed(self.config.seed)
    }

    /// Adds `item`. Inserting the same item twice stores two copies (so it
    /// survives one `remove`); an item fits at most `2 * bucket_size` times.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert("apple")?;
    /// assert!(filter.contains("apple"));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`InsertError::Full`] when no free slot is reachable; nothing is lost.
    /// An insert that gives up may have moved other items between their two
    /// buckets on the way (hops of displacement paths it carried out before
    /// another writer took the room they made): every item is still found
    /// and `len` is unchanged.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, item: &T) -> Result<(), InsertError> {
        self.insert_hash(self.hash(item))
    }

    /// Adds `item` unless it is (probably) present already; returns whether
    /// it was added. Atomic: threads racing to add the same item store one
    /// copy between them. An item that collides with another's fingerprint
    /// in the same buckets counts as present (a false positive).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// assert_eq!(filter.insert_unique(&7u32), Ok(true));
    /// assert_eq!(filter.insert_unique(&7u32), Ok(false));
    /// assert_eq!(filter.len(), 1);
    /// ```
    ///
    /// # Errors
    /// [`InsertError::Full`] when the item is absent and no free slot is
    /// reachable; nothing is lost.
    #[inline]
    pub fn insert_unique<T: Hash + ?Sized>(&self, item: &T) -> Result<bool, InsertError> {
        self.insert_unique_hash(self.hash(item))
    }

    /// True if `item` is probably in the filter; false if it certainly is not.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert(&42u64).unwrap();
    /// assert!(filter.contains(&42u64));
    /// ```
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Removes one copy of `item`; returns whether a copy was found. Only
    /// remove items you inserted (see the crate docs).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert(&1u8).unwrap();
    /// assert!(filter.remove(&1u8));
    /// assert!(!filter.contains(&1u8));
    /// ```
    #[inline]
    pub fn remove<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.remove_hash(self.hash(item))
    }

    /// [`insert`](Self::insert) for a key already hashed to 64 well-mixed bits.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_hash(0x1234_5678_9abc_def0)?;
    /// assert!(filter.contains_hash(0x1234_5678_9abc_def0));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`InsertError::Full`] when no free slot is reachable; nothing is lost.
    #[inline]
    pub fn insert_hash(&self, hash: u64) -> Result<(), InsertError> {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.insert(i1, fp, false).map(|_| ())
        })
    }

    /// [`insert_unique`](Self::insert_unique) for a pre-hashed key.
    ///
    /// # Errors
    /// [`InsertError::Full`] when no free slot is reachable; nothing is lost.
    #[inline]
    pub fn insert_unique_hash(&self, hash: u64) -> Result<bool, InsertError> {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.insert(i1, fp, true)
        })
    }

    /// [`contains`](Self::contains) for a pre-hashed key.
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        with_table!(&self.inner, t => t.contains_hash(hash))
    }

    /// [`remove`](Self::remove) for a pre-hashed key.
    #[inline]
    pub fn remove_hash(&self, hash: u64) -> bool {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.remove(i1, fp)
        })
    }

    /// Looks up many items at once: `out[k]` says whether `items[k]` is
    /// probably present. Returns how many were. Faster than one `contains`
    /// after another on tables bigger than the CPU cache, because the
    /// lookups' memory accesses overlap (see the `batch` module docs); same
    /// guarantees as `contains`.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert_batch(&[1u64, 2, 3])?;
    /// let mut found = [false; 4];
    /// assert_eq!(filter.contains_batch(&[1u64, 2, 3, 4], &mut found), Ok(3));
    /// assert_eq!(found, [true, true, true, false]);
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `items` (nothing is
    /// looked up).
    pub fn contains_batch<T: Hash>(
        &self,
        items: &[T],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(items.len(), out.len())?;
        Ok(with_table!(&self.inner, t => {
            let seeded = self.seeded();
            t.contains_many::<{ batch::DEFAULT_DISTANCE }>(items.len(), |k| hash_from(&seeded, &items[k]), out)
        }))
    }

    /// [`contains_batch`](Self::contains_batch) for pre-hashed keys.
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `hashes`.
    pub fn contains_batch_hash(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        self.contains_batch_hash_with_distance(hashes, out, batch::DEFAULT_DISTANCE)
    }

    /// [`contains_batch_hash`](Self::contains_batch_hash) keeping `distance`
    /// lookups in flight (rounded to a power of two in 1..=64), for tuning.
    #[doc(hidden)]
    pub fn contains_batch_hash_with_distance(
        &self,
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) -> Result<usize, LengthMismatch> {
        check_lengths(hashes.len(), out.len())?;
        let n = hashes.len();
        let h = |k: usize| hashes[k];
        Ok(
            with_table!(&self.inner, t => match distance.clamp(1, 64).next_power_of_two() {
                0 | 1 => t.contains_many::<1>(n, h, out),
                2 => t.contains_many::<2>(n, h, out),
                4 => t.contains_many::<4>(n, h, out),
                8 => t.contains_many::<8>(n, h, out),
                16 => t.contains_many::<16>(n, h, out),
                32 => t.contains_many::<32>(n, h, out),
                _ => t.contains_many::<64>(n, h, out),
            }),
        )
    }

    /// Inserts many items, in order, overlapping their memory accesses.
    ///
    /// # Errors
    /// [`BatchInsertError`] at the first item that does not fit: the items
    /// before it are in, it and the rest are not. As with
    /// [`insert`](Self::insert), the failed insert may have moved other
    /// items between their two buckets before it gave up (each is still
    /// found; nothing is dropped, `len` counts only what went in).
    pub fn insert_batch<T: Hash>(&self, items: &[T]) -> Result<(), BatchInsertError> {
        with_table!(&self.inner, t => {
            let seeded = self.seeded();
            t.insert_many::<{ batch::DEFAULT_DISTANCE }>(items.len(), |k| hash_from(&seeded, &items[k]))
        })
    }

    /// [`insert_batch`](Self::insert_batch) for pre-hashed keys.
    ///
    /// # Errors
    /// As [`insert_batch`](Self::insert_batch).
    pub fn insert_batch_hash(&self, hashes: &[u64]) -> Result<(), BatchInsertError> {
        with_table!(&self.inner, t => {
            t.insert_many::<{ batch::DEFAULT_DISTANCE }>(hashes.len(), |k| hashes[k])
        })
    }

    /// Items in the filter (inserts minus removes). Exact when no write is
    /// in flight.
    pub fn len(&self) -> usize {
        with_table!(&self.inner, t => t.len())
    }

    /// True if the filter holds no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of items the filter was sized for: the capacity asked for
    /// (or, for an exact bucket count, what those buckets hold at the design
    /// load). That many random inserts always fit; more usually do, up to
    /// the load at which the first insert fails, measured per shape in
    /// docs/design.md (for example 0.97 of [`slots`](Self::slots) for
    /// 4-slot buckets).
    pub fn capacity(&self) -> usize {
        self.config.capacity
    }

    /// Fingerprint slots in the table (buckets x bucket size).
    pub fn slots(&self) -> usize {
        self.config.buckets * self.config.bucket_size
    }

    /// Buckets in the table.
    pub fn buckets(&self) -> usize {
        self.config.buckets
    }

    /// Fingerprints per bucket (2, 4 or 8).
    pub fn bucket_size(&self) -> usize {
        self.config.bucket_size
    }

    /// Fingerprint width in bits (4 to 32).
    pub fn fingerprint_bits(&self) -> u32 {
        self.config.fingerprint_bits
    }

    /// True if the buckets are semi-sorted ([`Builder::semi_sorted`]).
    pub fn is_semi_sorted(&self) -> bool {
        self.config.semi_sorted
    }

    /// The fraction of slots in use, in `0.0..=1.0`.
    pub fn load_factor(&self) -> f64 {
        self.len() as f64 / self.slots() as f64
    }

    /// Bytes of the table and its stripes.
    pub fn memory_usage(&self) -> usize {
        with_table!(&self.inner, t => t.memory_usage())
    }

    /// Address and length in bytes of the bucket table; only for
    /// tests/huge_pages.rs, which checks how the kernel backs it.
    #[doc(hidden)]
    pub fn debug_table_ptr(&self) -> (usize, usize) {
        with_table!(&self.inner, t => t.words_range())
    }

    /// Bits of the bucket table per item at [`capacity`](Self::capacity),
    /// the paper's measure (the stripes, at most 24 KiB, are counted in
    /// [`memory_usage`](Self::memory_usage) but not here).
    pub fn bits_per_item(&self) -> f64 {
        let table = with_table!(&self.inner, t => t.table_bytes());
        table as f64 * 8.0 / self.capacity() as f64
    }

    /// The false-positive rate expected at the current load: each lookup
    /// compares against `2 * b * load_factor` fingerprints on average, each
    /// matching by chance with probability `1 / (2^f - 1)`. About
    /// `2b/2^f` when full.
    pub fn expected_false_positive_rate(&self) -> f64 {
        false_positive_rate(
            self.bucket_size(),
            self.fingerprint_bits(),
            self.load_factor(),
        )
    }

    /// The false-positive rate expected once the filter holds
    /// [`capacity`](Self::capacity) items.
    pub fn expected_false_positive_rate_at_capacity(&self) -> f64 {
        let b = self.bucket_size();
        false_positive_rate(
            b,
            self.fingerprint_bits(),
            design_load(b, self.fingerprint_bits()),
        )
    }

    /// Removes every item. Writers wait for the whole clear, so each write
    /// lands wholly before it (and is cleared) or after it (and stays).
    /// Lookups see each bucket before or after its clear, never half
    /// cleared, and wait at most for one chunk of it, not the whole table:
    /// a filter of 2^16 buckets or more is cleared in chunks (microseconds
    /// each), so a lookup running during the clear may find some items
    /// already gone and others not yet. Smaller filters clear in one step.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert("a")?;
    /// filter.clear();
    /// assert!(filter.is_empty() && !filter.contains("a"));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    pub fn clear(&self) {
        with_table!(&self.inner, t => t.clear())
    }

    /// Primary bucket, alternate bucket and fingerprint of a hash (for tests
    /// and models that need to aim items at buckets).
    #[doc(hidden)]
    pub fn debug_locate(&self, hash: u64) -> (usize, usize, u32) {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            (i1, t.alt(i1, fp), fp)
        })
    }

    /// The `k`-th hash whose primary bucket is `i1` and fingerprint `fp`
    /// (`None` past the last, or for a bucket or fingerprint out of range):
    /// for tests and models that aim several items at one bucket pair with
    /// one fingerprint.
    #[doc(hidden)]
    pub fn debug_hash_for(&self, i1: usize, fp: u32, k: u32) -> Option<u64> {
        with_table!(&self.inner, t => t.unlocate(i1, fp, k))
    }

    /// The fingerprints in bucket `i` (0 = empty), for tests.
    #[doc(hidden)]
    pub fn debug_bucket(&self, i: usize) -> Vec<u32> {
        with_table!(&self.inner, t => t.bucket_fingerprints(i))
    }

    /// The hash `insert`/`contains` use for `item`. It depends on `T`'s
    /// [`Hash`] impl as well as on the saved format: for keys that must
    /// hash the same in every later Rust release, use
    /// [`hash_bytes`](Self::hash_bytes).
    pub fn hash_item<T: Hash + ?Sized>(&self, item: &T) -> u64 {
        self.hash(item)
    }

    /// The format's hash of a key that is bytes, with this filter's seed:
    /// the hash to pass to the `*_hash` methods (`insert_hash`,
    /// `contains_hash`, `remove_hash`, the batches) for keys that must
    /// answer the same in every later version of this crate and of Rust. It
    /// depends on the saved format alone (docs/format.md gives it byte by
    /// byte): [`StableHasher::hash_bytes`].
    ///
    /// `insert(&key)` and friends hash through `std::hash::Hash`, so their
    /// hash also depends on the key type's `Hash` impl (which for `str` and
    /// slices std adds a terminator or a length prefix to, and does not
    /// promise to keep across Rust releases): `contains(b"k")` and
    /// `contains_hash(hash_bytes(b"k"))` are different hashes. Use one or
    /// the other for a given set of keys.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_hash(filter.hash_bytes(b"user:42"))?;
    /// assert!(filter.contains_hash(filter.hash_bytes(b"user:42")));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        StableHasher::hash_bytes(self.config.seed, bytes)
    }

    /// The seed of the filter's hash ([`Builder::seed`]).
    pub fn seed(&self) -> u64 {
        self.config.seed
    }
}

/// `item`'s hash, from a hasher already seeded ([`CuckooFilter::seeded`]):
/// equal to `StableHasher::hash_one(seed, item)`.
#[inline(always)]
fn hash_from<T: Hash + ?Sized>(seeded: &StableHasher, item: &T) -> u64 {
    let mut h = seeded.clone();
    item.hash(&mut h);
    h.finish()
}

fn check_lengths(keys: usize, results: usize) -> Result<(), LengthMismatch> {
    if keys == results {
        Ok(())
    } else {
        Err(LengthMismatch { keys, results })
    }
}

impl fmt::Debug for CuckooFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CuckooFilter")
            .field("bucket_size", &self.bucket_size())
            .field("fingerprint_bits", &self.fingerprint_bits())
            .field("buckets", &self.buckets())
            .field("capacity", &self.capacity())
            .field("len", &self.len())
            .field("load_factor", &self.load_factor())
            .field("memory_usage", &self.memory_usage())
            .field("bits_per_item", &self.bits_per_item())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn filter_is_send_and_sync() {
        assert_send_sync::<CuckooFilter>();
        assert_send_sync::<FilterView<'static>>();
        assert_send_sync::<DecodeError>();
    }
}
