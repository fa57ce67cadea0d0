//! [`CuckooFilter`]: the public face, one method per operation. Each hashes
//! its key (`hash.rs`) and runs the table of the filter's shape
//! (`shape.rs`, `table/`).

use crate::builder::Builder;
use crate::config::{config_accessors, Config};
use crate::error::{BatchInsertError, BuildError, InsertError, LengthMismatch};
use crate::hash::StableHasher;
use crate::shape::{with_table, Inner};
use crate::table::{check_lengths, Copies, DEFAULT_DISTANCE};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A concurrent cuckoo filter. `Send + Sync`: share it with `Arc`; every
/// method takes `&self`. See the [crate docs](crate) for the contract.
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::with_capacity(10_000);
/// // Every method takes `&self`: threads share one filter, no lock around it.
/// std::thread::scope(|s| {
///     s.spawn(|| filter.insert("from one thread").unwrap());
///     s.spawn(|| filter.insert("from another").unwrap());
/// });
/// assert!(filter.contains("from one thread") && filter.contains("from another"));
/// assert_eq!(filter.len(), 2);
/// ```
pub struct CuckooFilter {
    pub(crate) inner: Inner,
    pub(crate) config: Config,
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
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(10_000)
    ///     .seed(7)
    ///     .build()?;
    /// assert_eq!(filter.seed(), 7);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
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
    /// each time, which costs a dozen instructions a key the compiler does
    /// not hoist out of the loop.
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
    #[must_use = "Ok(false) means the item was (probably) present and nothing was added"]
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
    #[must_use]
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
    #[must_use = "false means no copy was found: the item was not in the filter"]
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
            t.insert(i1, fp, Copies::Any).map(|_| ())
        })
    }

    /// [`insert_unique`](Self::insert_unique) for a pre-hashed key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// let hash = filter.hash_bytes(b"id:7");
    /// assert_eq!(filter.insert_unique_hash(hash), Ok(true));
    /// assert_eq!(filter.insert_unique_hash(hash), Ok(false));
    /// assert_eq!(filter.len(), 1);
    /// ```
    ///
    /// # Errors
    /// [`InsertError::Full`] when no free slot is reachable; nothing is lost.
    #[inline]
    #[must_use = "Ok(false) means the item was (probably) present and nothing was added"]
    pub fn insert_unique_hash(&self, hash: u64) -> Result<bool, InsertError> {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.insert(i1, fp, Copies::Unique)
        })
    }

    /// [`contains`](Self::contains) for a pre-hashed key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// let hash = filter.hash_item("k");
    /// filter.insert_hash(hash)?;
    /// assert!(filter.contains_hash(hash));
    /// assert!(filter.contains("k")); // the hash `insert("k")` would use
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        with_table!(&self.inner, t => t.contains_hash(hash))
    }

    /// [`remove`](Self::remove) for a pre-hashed key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_hash(42)?;
    /// assert!(filter.remove_hash(42));
    /// assert!(!filter.contains_hash(42));
    /// assert!(!filter.remove_hash(42)); // no copy left
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[inline]
    #[must_use = "false means no copy was found: the item was not in the filter"]
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
            t.contains_many::<{ DEFAULT_DISTANCE }>(items.len(), |k| hash_from(&seeded, &items[k]), out)
        }))
    }

    /// [`contains_batch`](Self::contains_batch) for pre-hashed keys.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let hashes = [10u64, 20, 30];
    /// filter.insert_batch_hash(&hashes[..2])?;
    /// let mut found = [false; 3];
    /// assert_eq!(filter.contains_batch_hash(&hashes, &mut found), Ok(2));
    /// assert_eq!(found, [true, true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `hashes`.
    pub fn contains_batch_hash(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(hashes.len(), out.len())?;
        Ok(with_table!(&self.inner, t => {
            t.contains_many::<DEFAULT_DISTANCE>(hashes.len(), |k| hashes[k], out)
        }))
    }

    /// Inserts many items, in order, overlapping their memory accesses.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let keys: Vec<u64> = (0..500).collect();
    /// filter.insert_batch(&keys)?;
    /// assert_eq!(filter.len(), 500);
    /// assert!(keys.iter().all(|k| filter.contains(k)));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
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
            t.insert_many::<{ DEFAULT_DISTANCE }>(items.len(), |k| hash_from(&seeded, &items[k]))
        })
    }

    /// [`insert_batch`](Self::insert_batch) for pre-hashed keys.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let hashes: Vec<u64> = ["a", "b", "c"]
    ///     .iter()
    ///     .map(|k| filter.hash_bytes(k.as_bytes()))
    ///     .collect();
    /// filter.insert_batch_hash(&hashes)?;
    /// assert_eq!(filter.len(), 3);
    /// assert!(filter.contains_hash(filter.hash_bytes(b"b")));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// As [`insert_batch`](Self::insert_batch).
    pub fn insert_batch_hash(&self, hashes: &[u64]) -> Result<(), BatchInsertError> {
        with_table!(&self.inner, t => {
            t.insert_many::<{ DEFAULT_DISTANCE }>(hashes.len(), |k| hashes[k])
        })
    }

    /// Items in the filter (inserts minus removes). Exact when no write is
    /// in flight.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert(&1u8)?;
    /// filter.insert(&1u8)?; // a second copy
    /// assert_eq!(filter.len(), 2);
    /// assert!(filter.remove(&1u8));
    /// assert_eq!(filter.len(), 1);
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        with_table!(&self.inner, t => t.len())
    }

    /// True if the filter holds no items.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// assert!(filter.is_empty());
    /// filter.insert("x")?;
    /// assert!(!filter.is_empty());
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    config_accessors!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(&1u32)?;"
    );

    /// Bytes of the table and its stripes.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1_000_000);
    /// // 16-bit fingerprints: at least 2 bytes a slot, plus the stripes.
    /// assert!(filter.memory_usage() >= filter.slots() * 2);
    /// ```
    #[must_use]
    pub fn memory_usage(&self) -> usize {
        with_table!(&self.inner, t => t.memory_usage())
    }

    /// Bits of the bucket table per item at [`capacity`](Self::capacity),
    /// the paper's measure (the stripes, at most 24 KiB, are counted in
    /// [`memory_usage`](Self::memory_usage) but not here).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1_000_000);
    /// // 16-bit fingerprints in 4-slot buckets sized for a load of 0.95.
    /// let bits = filter.bits_per_item();
    /// assert!(bits > 16.0 && bits < 17.5);
    /// ```
    #[must_use]
    pub fn bits_per_item(&self) -> f64 {
        let table = with_table!(&self.inner, t => t.table_bytes());
        table as f64 * 8.0 / self.capacity() as f64
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

    /// The hash `insert`/`contains` use for `item`. It depends on `T`'s
    /// [`Hash`] impl as well as on the saved format: for keys that must
    /// hash the same in every later Rust release, use
    /// [`hash_bytes`](Self::hash_bytes).
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, StableHasher};
    /// let filter = CuckooFilter::with_capacity(100);
    /// let hash = filter.hash_item(&42u64);
    /// assert_eq!(hash, StableHasher::hash_one(filter.seed(), &42u64));
    /// filter.insert_hash(hash)?;
    /// assert!(filter.contains(&42u64));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
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
    #[must_use]
    pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        StableHasher::hash_bytes(self.config.seed, bytes)
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
