//! [`CuckooFilter`]: the public face, one method per operation. Each hashes
//! its key (`hash.rs`) and runs the table of the filter's shape
//! (`shape.rs`, `table/`).

use crate::builder::Builder;
use crate::config::{config_accessors, Config};
use crate::error::{BatchInsertError, BuildError, InsertError, LengthMismatch, MergeError};
use crate::grow::with_growable;
use crate::hash::StableHasher;
use crate::persist::FilterView;
use crate::shape::{with_table, Inner};
use crate::table::Nested;
use crate::table::{check_lengths, Copies, DEFAULT_DISTANCE};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A concurrent cuckoo filter. `Send + Sync`: share it with `Arc`; every
/// method takes `&self`. See the [crate docs](crate) for the contract.
///
/// ```
/// use std::sync::Arc;
/// use cuckoo_nest::CuckooFilter;
///
/// let filter = Arc::new(CuckooFilter::builder().capacity(10_000).build()?);
/// let worker = {
///     let filter = Arc::clone(&filter);
///     std::thread::spawn(move || filter.insert("from a worker"))
/// };
/// worker.join().unwrap()?;
/// assert!(filter.contains("from a worker"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Not `Extend` or `FromIterator`: an insert can fail (the filter is full,
/// or one item was inserted more than `2 * bucket_size` times), and neither
/// trait has a way to say so. [`insert_batch`](Self::insert_batch) returns
/// how many items went in before a failure.
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
    /// The key is hashed through `std::hash::Hash`, which feeds `str` and
    /// `[u8]` differently (`insert("k")` is not found by
    /// `contains(&b"k"[..])`) and is not promised stable across Rust
    /// releases: for byte-string keys use
    /// [`insert_bytes`](Self::insert_bytes) and the other `*_bytes` methods.
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
    /// **Not a put-if-absent for a store.** "Present" may be another
    /// item's colliding copy: the new item then gets no copy of its own,
    /// and removing the other item makes the new one vanish, a false
    /// negative for the application (RedisBloom's `CF.ADDNX` has the same
    /// caveat). To mirror a store, insert when the *store* says the key is
    /// new and remove when the store deleted it: one copy per stored key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// assert_eq!(filter.insert_unique(&1u64), Ok(true));
    /// // A key the filter mistakes for 1 (searched for: a false positive).
    /// let b = (2u64..).find(|b| filter.contains(b)).unwrap();
    /// assert_eq!(filter.insert_unique(&b), Ok(false)); // "present": no copy
    /// assert!(filter.remove(&1u64));
    /// assert!(!filter.contains(&b)); // b, never removed, is gone
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
    /// Hashed through `std::hash::Hash`, as [`insert`](Self::insert) says;
    /// byte-string keys: [`contains_bytes`](Self::contains_bytes).
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
        }, g => g.insert(hash, Copies::Any).map(|_| ()))
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
        }, g => g.insert(hash, Copies::Unique))
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
        with_table!(&self.inner, t => t.contains_hash(hash), g => g.contains(hash))
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
        }, g => g.remove(hash))
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
        let seeded = self.seeded();
        Ok(self.lookup_batch(items.len(), |k| hash_from(&seeded, &items[k]), out))
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
        Ok(self.lookup_batch(hashes.len(), |k| hashes[k], out))
    }

    /// The batch lookup of `n` keys (key `k` hashes to `hash_at(k)`) behind
    /// every `contains_batch*`: compiled for AVX-512 where the CPU has it and
    /// the shape gains (`table/batch.rs`), in a function apart, else as the
    /// crate was compiled.
    #[inline(always)]
    fn lookup_batch(&self, n: usize, hash_at: impl Fn(usize) -> u64, out: &mut [bool]) -> usize {
        if with_table!(&self.inner, t => t.wide_batches(), _g => false) {
            return self.lookup_batch_wide(n, hash_at, out);
        }
        with_table!(
            &self.inner,
            t => t.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out)
        )
    }

    #[inline(never)]
    fn lookup_batch_wide(
        &self,
        n: usize,
        hash_at: impl Fn(usize) -> u64,
        out: &mut [bool],
    ) -> usize {
        with_table!(
            &self.inner,
            t => t.contains_many_wide::<DEFAULT_DISTANCE>(n, hash_at, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out)
        )
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
        let seeded = self.seeded();
        let hash_at = |k: usize| hash_from(&seeded, &items[k]);
        with_table!(
            &self.inner,
            t => t.insert_many::<{ DEFAULT_DISTANCE }>(items.len(), hash_at),
            g => g.insert_many(items.len(), hash_at)
        )
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
        with_table!(
            &self.inner,
            t => t.insert_many::<{ DEFAULT_DISTANCE }>(hashes.len(), |k| hashes[k]),
            g => g.insert_many(hashes.len(), |k| hashes[k])
        )
    }

    /// Removes one copy of each of many items: `out[k]` says whether a copy
    /// of `items[k]` was found (and removed); returns how many were. An
    /// item listed twice removes two copies, as two
    /// [`remove`](Self::remove) calls would. The same shape as
    /// [`contains_batch`](Self::contains_batch) so one buffer serves both,
    /// and so a caller learns which keys were not there (a delete of a key
    /// it never inserted, or already removed), which a count alone would
    /// not say. The removes run one after another, each as `remove`, with
    /// its guarantees (only remove what you inserted).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert_batch(&[1u64, 2, 3])?;
    /// let mut removed = [false; 4];
    /// assert_eq!(filter.remove_batch(&[1u64, 3, 4, 1], &mut removed), Ok(2));
    /// assert_eq!(removed, [true, true, false, false]);
    /// assert_eq!(filter.len(), 1);
    /// assert!(filter.contains(&2u64) && !filter.contains(&1u64));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `items` (nothing is
    /// removed).
    pub fn remove_batch<T: Hash>(
        &self,
        items: &[T],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(items.len(), out.len())?;
        let seeded = self.seeded();
        Ok(self.remove_each(|k| hash_from(&seeded, &items[k]), out))
    }

    /// [`remove_batch`](Self::remove_batch) for pre-hashed keys.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert_batch_hash(&[10, 20])?;
    /// let mut removed = [false; 3];
    /// assert_eq!(filter.remove_batch_hash(&[10, 20, 30], &mut removed), Ok(2));
    /// assert_eq!(removed, [true, true, false]);
    /// assert!(filter.is_empty());
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `hashes` (nothing is
    /// removed).
    pub fn remove_batch_hash(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(hashes.len(), out.len())?;
        Ok(self.remove_each(|k| hashes[k], out))
    }

    /// The removes behind every `remove_batch*`: key `k` (one per entry of
    /// `out`, which the caller checked) hashes to `hash_at(k)`; `out[k]`
    /// says whether a copy was removed.
    fn remove_each(&self, hash_at: impl Fn(usize) -> u64, out: &mut [bool]) -> usize {
        let mut removed = 0;
        for (k, found) in out.iter_mut().enumerate() {
            *found = self.remove_hash(hash_at(k));
            removed += usize::from(*found);
        }
        removed
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
        with_table!(&self.inner, t => t.len(), g => g.len())
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

    /// The configuration as of now: a growable filter's current generation
    /// (its buckets, capacity and stored width), else the one built.
    pub(crate) fn current_config(&self) -> Config {
        match &self.inner {
            Inner::Growable(any) => with_growable!(&**any, g => g.config_now(&self.config)),
            _ => self.config,
        }
    }

    /// True if the filter grows when full
    /// ([`Builder::growable`](crate::Builder::growable)).
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// assert!(!CuckooFilter::with_capacity(100).is_growable());
    /// let growable = CuckooFilter::builder().capacity(100).growable(true).build()?;
    /// assert!(growable.is_growable());
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
    pub fn is_growable(&self) -> bool {
        self.config.growth.is_some()
    }

    /// The most items a growable filter holds at its rate: its first
    /// capacity times `2^d`, `d` the doublings its fingerprints have spare
    /// bits for (7 unless [`Builder::max_capacity`](crate::Builder::max_capacity)
    /// chose). There inserts that find no room fail with
    /// [`InsertError::MaxCapacity`]. `None` for a fixed filter.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder().capacity(1000).growable(true).build()?;
    /// assert_eq!(filter.max_capacity(), Some(128_000));
    /// assert!(filter.can_grow());
    /// assert_eq!(CuckooFilter::with_capacity(1000).max_capacity(), None);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
    pub fn max_capacity(&self) -> Option<usize> {
        match &self.inner {
            Inner::Growable(any) => Some(with_growable!(&**any, g => g.max_capacity())),
            _ => None,
        }
    }

    /// Finishes a growth step under way, if there is one, on this thread:
    /// copies what the writes since the step have not copied of the old
    /// table (each write copies a 16-bucket chunk of it, so a filter no one
    /// writes stays mid-step, its lookups looking in both tables on a
    /// miss), then frees the old table. Returns true if a step was under
    /// way. For a background thread of an idle filter, or for a host that
    /// must never leave a step half done between two commands (a
    /// replicated store whose snapshot or replica must match the primary
    /// byte for byte). A fixed filter has nothing to finish.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder().capacity(1000).growable(true).build()?;
    /// for k in 0..5_000u64 {
    ///     filter.insert(&k)?;
    ///     filter.finish_growth(); // every step done within its insert
    /// }
    /// assert!(!filter.finish_growth());
    /// assert!((0..5_000u64).all(|k| filter.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish_growth(&self) -> bool {
        match &self.inner {
            Inner::Growable(any) => with_growable!(&**any, g => g.finish_growth()),
            _ => false,
        }
    }

    /// True if the filter can still grow: growable, and not yet at its
    /// [`max_capacity`](Self::max_capacity).
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder()
    ///     .capacity(100)
    ///     .max_capacity(200)
    ///     .growable(true)
    ///     .build()?;
    /// assert!(filter.can_grow());
    /// // Filled past its maximum: the last generation refuses, typed.
    /// let err = (0u64..).find_map(|k| filter.insert(&k).err()).unwrap();
    /// assert!(matches!(err, cuckoo_nest::InsertError::MaxCapacity { max_capacity: 200, .. }));
    /// assert!(!filter.can_grow());
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
    pub fn can_grow(&self) -> bool {
        match &self.inner {
            Inner::Growable(any) => with_growable!(&**any, g => g.can_grow()),
            _ => false,
        }
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
        with_table!(&self.inner, t => t.memory_usage(), g => g.memory_usage())
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
        let table = with_table!(&self.inner, t => t.table_bytes(), g => g.table_bytes());
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
        with_table!(&self.inner, t => t.clear(), g => g.clear())
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

/// Byte-string keys and copy counts.
///
/// Keys in a storage engine are byte strings. `insert("xyz")` and
/// `contains(&b"xyz"[..])` disagree (`str` and `[u8]` feed `Hash`
/// differently, and std does not promise to keep either across releases);
/// the `*_bytes` methods hash the bytes themselves with the format's hash
/// ([`hash_bytes`](CuckooFilter::hash_bytes), docs/format.md), so they are
/// equal to the `*_hash` methods on `hash_bytes(key)` and stable across
/// platforms and releases.
impl CuckooFilter {
    /// Adds the byte-string `key` (see the `*_bytes` methods' section).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_bytes(b"user:42")?;
    /// assert!(filter.contains_bytes(b"user:42"));
    /// assert!(filter.contains_hash(filter.hash_bytes(b"user:42")));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_bytes(&self, key: &[u8]) -> Result<(), InsertError> {
        self.insert_hash(self.hash_bytes(key))
    }

    /// [`insert_unique`](Self::insert_unique) for the byte-string `key`:
    /// adds it unless it is (probably) present already; returns whether it
    /// was added. Atomic, and with the same caveat: **not a put-if-absent
    /// for a store**. "Present" may be another key's colliding copy, which
    /// the new key then shares; removing that other key makes the new one
    /// vanish. To mirror a store, insert when the store says the key is new
    /// and remove when the store deleted it.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// assert_eq!(filter.insert_unique_bytes(b"user:42"), Ok(true));
    /// assert_eq!(filter.insert_unique_bytes(b"user:42"), Ok(false));
    /// assert_eq!(filter.count_bytes(b"user:42"), 1);
    /// // The same hash as the other byte-key methods.
    /// assert_eq!(filter.insert_unique_hash(filter.hash_bytes(b"user:42")), Ok(false));
    /// ```
    ///
    /// # Errors
    /// [`InsertError::Full`] when the key is absent and no free slot is
    /// reachable; nothing is lost.
    #[inline]
    #[must_use = "Ok(false) means the key was (probably) present and nothing was added"]
    pub fn insert_unique_bytes(&self, key: &[u8]) -> Result<bool, InsertError> {
        self.insert_unique_hash(self.hash_bytes(key))
    }

    /// True if the byte-string `key` is probably in the filter.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_bytes(b"k")?;
    /// assert!(filter.contains_bytes(b"k"));
    /// assert!(!filter.contains_bytes(b"absent"));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_bytes(key))
    }

    /// Removes one copy of the byte-string `key`; returns whether one was
    /// found.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_bytes(b"k")?;
    /// assert!(filter.remove_bytes(b"k"));
    /// assert!(!filter.contains_bytes(b"k"));
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[inline]
    #[must_use = "false means no copy was found: the item was not in the filter"]
    pub fn remove_bytes(&self, key: &[u8]) -> bool {
        self.remove_hash(self.hash_bytes(key))
    }

    /// Inserts many byte-string keys in order, overlapping their memory
    /// accesses (as [`insert_batch`](Self::insert_batch)).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// let keys: Vec<Vec<u8>> = vec![b"a".to_vec(), b"b".to_vec()];
    /// filter.insert_batch_bytes(&keys)?;
    /// assert!(filter.contains_bytes(b"a") && filter.contains_bytes(b"b"));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// As [`insert_batch`](Self::insert_batch).
    pub fn insert_batch_bytes<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<(), BatchInsertError> {
        let seed = self.config.seed;
        let hash_at = |k: usize| StableHasher::hash_bytes(seed, keys[k].as_ref());
        with_table!(
            &self.inner,
            t => t.insert_many::<DEFAULT_DISTANCE>(keys.len(), hash_at),
            g => g.insert_many(keys.len(), hash_at)
        )
    }

    /// Looks up many byte-string keys at once: `out[k]` says whether
    /// `keys[k]` is probably present; returns how many were (as
    /// [`contains_batch`](Self::contains_batch)).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_bytes(b"a")?;
    /// let mut found = [false; 2];
    /// assert_eq!(filter.contains_batch_bytes(&["a", "z"], &mut found), Ok(1));
    /// assert_eq!(found, [true, false]);
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `keys`.
    pub fn contains_batch_bytes<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(keys.len(), out.len())?;
        let seed = self.config.seed;
        Ok(self.lookup_batch(
            keys.len(),
            |k| StableHasher::hash_bytes(seed, keys[k].as_ref()),
            out,
        ))
    }

    /// Removes one copy of each of many byte-string keys: `out[k]` says
    /// whether a copy of `keys[k]` was found (and removed); returns how
    /// many were (as [`remove_batch`](Self::remove_batch)).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_batch_bytes(&["a", "b"])?;
    /// let mut removed = [false; 2];
    /// assert_eq!(filter.remove_batch_bytes(&["a", "z"], &mut removed), Ok(1));
    /// assert_eq!(removed, [true, false]);
    /// assert!(!filter.contains_bytes(b"a") && filter.contains_bytes(b"b"));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `keys` (nothing is
    /// removed).
    pub fn remove_batch_bytes<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(keys.len(), out.len())?;
        let seed = self.config.seed;
        Ok(self.remove_each(|k| StableHasher::hash_bytes(seed, keys[k].as_ref()), out))
    }

    /// How many copies of `item`'s fingerprint its two buckets hold: at
    /// least the number of times it was inserted and not removed, exact
    /// unless another item shares its fingerprint and buckets (a
    /// collision, about as likely as a false positive). A consistent read,
    /// lock-free like [`contains`](Self::contains).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert("twice")?;
    /// filter.insert("twice")?;
    /// assert_eq!(filter.count("twice"), 2);
    /// assert!(filter.remove("twice"));
    /// assert_eq!(filter.count("twice"), 1);
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
    pub fn count<T: Hash + ?Sized>(&self, item: &T) -> usize {
        self.count_hash(self.hash(item))
    }

    /// [`count`](Self::count) for a pre-hashed key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_hash(7)?;
    /// assert_eq!(filter.count_hash(7), 1);
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
    pub fn count_hash(&self, hash: u64) -> usize {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.count(i1, fp)
        }, g => g.count(hash))
    }

    /// [`count`](Self::count) for a byte-string key.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert_bytes(b"k")?;
    /// assert_eq!(filter.count_bytes(b"k"), 1);
    /// # Ok::<(), cuckoo_nest::InsertError>(())
    /// ```
    #[must_use]
    pub fn count_bytes(&self, key: &[u8]) -> usize {
        self.count_hash(self.hash_bytes(key))
    }
}

impl CuckooFilter {
    /// Adds every fingerprint of `other` to this filter: afterwards it
    /// answers `true` for everything either answered `true` for (a union,
    /// as when compaction merges the filters of the files it merges, or
    /// shards built apart are combined). Both may be in use by other
    /// threads meanwhile: `other` is copied as
    /// [`to_bytes`](Self::to_bytes) copies it (every item inserted before
    /// the merge began and not removed is in the copy), then its fingerprints are
    /// inserted here one by one, each an ordinary insert into the same
    /// bucket pair it occupied there, in an order scattered over the table
    /// so no region fills before the rest.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let a = CuckooFilter::with_capacity(1000);
    /// let b = CuckooFilter::with_capacity(1000);
    /// a.insert("in a")?;
    /// b.insert("in b")?;
    /// a.merge(&b)?;
    /// assert!(a.contains("in a") && a.contains("in b"));
    /// assert_eq!(a.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MergeError::Mismatch`] if the filters differ in bucket count,
    /// bucket size, fingerprint width, layout or seed (nothing is merged).
    /// [`MergeError::Full`] if this filter has no room for the next
    /// fingerprint: the first `merged` fingerprints are in, the rest are
    /// not, and nothing this filter held before is lost or hidden (a
    /// failed insert drops nothing). Merging `other` again after making
    /// room would add the prefix twice: on `Full`, rebuild or merge into a
    /// larger filter. This can happen well below full load: every copy
    /// `other` holds goes into the same two buckets as the copies already
    /// here, and an item's two buckets hold `2 * bucket_size` copies at
    /// most (with 2-slot buckets, a filter whose items are all held twice
    /// fails to merge into itself at about a fifth of its slots); the
    /// wrapped [`InsertError`] says which way the insert failed.
    pub fn merge(&self, other: &CuckooFilter) -> Result<(), MergeError> {
        if let Some((what, ours, theirs)) = merge_mismatch(&self.config, &other.config) {
            return Err(MergeError::Mismatch { what, ours, theirs });
        }
        let saved = other.to_bytes();
        let snapshot = FilterView::new_unverified(&saved[..]).expect("a filter's own bytes decode");
        let total = snapshot.len();
        // A growable filter's fingerprints are placed by their item, which
        // the saved generation's addressing reads back (both filters may
        // have grown to different depths).
        let config = snapshot.config();
        let saved_generation = config.growth.map(|g| Nested::of(g, config.buckets));
        // Buckets a pass: the (bucket, fingerprint) buffer stays small.
        // The buckets are visited in a scattered order (a stride coprime
        // with their count: every bucket once), so each pass spreads its
        // inserts over the whole table. In bucket order, every item of a
        // pass would have a bucket in one small range (and a growable
        // filter's in one block), crowding it long before the table fills.
        const PASS: usize = 4096;
        let buckets = snapshot.buckets();
        let stride = scatter_stride(buckets);
        let mut pending = Vec::with_capacity(PASS * self.bucket_size());
        let mut merged = 0;
        let mut i = 0;
        for first in (0..buckets).step_by(PASS) {
            pending.clear();
            for _ in first..(first + PASS).min(buckets) {
                snapshot.fingerprints(i, i + 1, &mut pending);
                i = (i + stride) % buckets;
            }
            for &(i, fp) in &pending {
                with_table!(&self.inner, t => t.insert(i, fp, Copies::Any).map(|_| ()), g => {
                    let from = saved_generation.as_ref().expect("merge_mismatch: both growable");
                    g.insert_stored(from, i, fp)
                })
                .map_err(|error| MergeError::Full {
                    merged,
                    total,
                    error,
                })?;
                merged += 1;
            }
        }
        Ok(())
    }
}

/// A step near `0.618 * n` with no factor in common with `n`: `k * step mod
/// n` for `k` in `0..n` visits every bucket once, consecutive ones far apart.
fn scatter_stride(n: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let start = (n as f64 * 0.618_033_988_7) as usize;
    (start.max(1)..)
        .find(|&s| gcd(s, n) == 1)
        .expect("n + 1 is coprime with n")
}

/// The first configuration two filters differ in that a merge cannot
/// bridge, as (what, ours, theirs): fixed filters must match in every
/// table setting; growable ones in all but their depth (the generation
/// each has grown to), which the merge translates.
fn merge_mismatch(a: &Config, b: &Config) -> Option<(&'static str, u64, u64)> {
    let mut checks = vec![
        (
            "growable",
            a.growth.is_some() as u64,
            b.growth.is_some() as u64,
        ),
        ("bucket size", a.bucket_size as u64, b.bucket_size as u64),
        ("layout", a.semi_sorted as u64, b.semi_sorted as u64),
        ("hash seed", a.seed, b.seed),
    ];
    match (a.growth, b.growth) {
        (Some(ga), Some(gb)) => checks.extend([
            (
                "first generation's bucket count",
                (a.buckets >> ga.depth) as u64,
                (b.buckets >> gb.depth) as u64,
            ),
            ("key width", ga.key_bits as u64, gb.key_bits as u64),
            ("spare bits", ga.spare as u64, gb.spare as u64),
        ]),
        _ => checks.extend([
            ("bucket count", a.buckets as u64, b.buckets as u64),
            (
                "fingerprint width",
                a.fingerprint_bits as u64,
                b.fingerprint_bits as u64,
            ),
        ]),
    }
    checks.into_iter().find(|(_, x, y)| x != y)
}

/// `item`'s hash, from a hasher already seeded ([`CuckooFilter::seeded`]):
/// equal to `StableHasher::hash_one(seed, item)`.
#[inline(always)]
pub(crate) fn hash_from<T: Hash + ?Sized>(seeded: &StableHasher, item: &T) -> u64 {
    let mut h = seeded.clone();
    item.hash(&mut h);
    h.finish()
}

/// Shape and load at a glance:
/// `CuckooFilter { shape: "4 x 16 bits", len: 12, slots: 1028, load: "1.2%", capacity: 1000, memory: "2.1 KiB" }`.
///
/// `capacity` is the number of items the filter holds for certain:
/// [`capacity`](CuckooFilter::capacity) (what it was sized for), or `len`
/// once more than that went in. A table holds more than it was sized for,
/// up to the load at which inserts start to fail (a growable filter at its
/// [`max_capacity`](crate::Builder::max_capacity) fills on past the load
/// it would have grown at), and a capacity printed below `len` would read
/// as a filter holding more than it can.
///
/// ```
/// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
/// let mut k = 0u64;
/// while filter.len() <= filter.capacity() {
///     filter.insert(&k)?;
///     k += 1;
/// }
/// let shown = format!("{filter:?}");
/// assert!(shown.contains(&format!("len: {}", filter.len())));
/// assert!(shown.contains(&format!("capacity: {}", filter.len())));
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl fmt::Debug for CuckooFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("CuckooFilter");
        debug_shape(&mut d, &self.current_config(), self.len())
            .field(
                "memory",
                &format_args!("{}", crate::error::Bytes(self.memory_usage() as u64)),
            )
            .finish()
    }
}

/// The fields the Debug output of a filter and of a view open with: shape,
/// len, slots, load, capacity (never below len: see `CuckooFilter`'s
/// `Debug`).
pub(crate) fn debug_shape<'d, 'a, 'b>(
    d: &'d mut fmt::DebugStruct<'a, 'b>,
    config: &Config,
    len: usize,
) -> &'d mut fmt::DebugStruct<'a, 'b> {
    let load = len as f64 / config.slots() as f64;
    d.field("shape", &format_args!("{}", ShapeName(config)))
        .field("len", &len)
        .field("slots", &config.slots())
        .field("load", &format_args!("{:.1}%", 100.0 * load))
        .field("capacity", &config.capacity.max(1).max(len))
}

/// `4 x 16 bits`, `4 x 13 bits, semi-sorted`.
pub(crate) struct ShapeName<'a>(pub(crate) &'a Config);

impl fmt::Display for ShapeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(f, "{} x {} bits", c.bucket_size, c.fingerprint_bits)?;
        if c.semi_sorted {
            f.write_str(", semi-sorted")?;
        }
        Ok(())
    }
}

/// Two filters are equal if they hold the same fingerprints in the same
/// places: the same shape, bucket count and hash seed, and the same table
/// (so they answer every lookup alike, and save to the same table bytes).
/// The capacity each was sized for is not compared. Each filter's table is
/// copied as [`to_bytes`](CuckooFilter::to_bytes) copies it, one after the
/// other (compare filters no thread is writing to: under writers the copies
/// are of moving tables): a comparison
/// costs both tables' memory and a pass over each.
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let a = CuckooFilter::with_capacity(1000);
/// let b = CuckooFilter::with_capacity(1000);
/// a.insert("k")?;
/// assert_ne!(a, b);
/// b.insert("k")?;
/// assert_eq!(a, b);
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl PartialEq for CuckooFilter {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.current_config(), other.current_config());
        if a.shape() != b.shape()
            || a.buckets != b.buckets
            || a.seed != b.seed
            || a.growth != b.growth
        {
            return false;
        }
        self.table_snapshot() == other.table_snapshot()
    }
}
