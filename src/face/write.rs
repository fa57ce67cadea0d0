//! Inserts and removes, one key or many: each hashes its key with the
//! filter's seed (`hash.rs`, as the read face does) and runs the table of
//! the filter's shape (`table/insert.rs`) or the growable filter's
//! (`grow/`); a refused insert is counted here (`counted`).

use super::CuckooFilter;
use crate::error::InsertError;
use crate::grow::with_growable;
use crate::hash::StableHasher;
use crate::key::Key;
use crate::shape::{with_table, Inner};
use crate::sync::Ordering;
use crate::table::Copies;

impl CuckooFilter {
    /// Adds `item`. Inserting the same item twice stores two copies (so it
    /// survives one `remove`); an item fits at most `2 * bucket_size` times
    /// (`bucket_size` times if its two buckets are one bucket, as for about
    /// one item in as many as the table has buckets). A growable filter
    /// keeps `bucket_size` copies (sometimes one more) where its stored
    /// fingerprints tell copies from distinct items, as at a 1% rate with
    /// 4-slot buckets: [`InsertError::TooManyCopies`].
    ///
    /// `item` is any [`Key`]: a byte string (`str`, `[u8]`, `String`,
    /// `Vec<u8>`, `[u8; N]`, references to them) is hashed as its bytes, an
    /// integer as its little-endian bytes, with the format's own hash
    /// (docs/format.md, "Keys"), so every way of passing one key reaches
    /// the same fingerprint and buckets. Other types:
    /// [`ByHash`](crate::ByHash); a hash of your own:
    /// [`PreHashed`](crate::PreHashed). (A filter loaded from a file
    /// of format version 1 to 3 hashes generic keys through
    /// `std::hash::Hash`, as it did when saved: docs/format.md, "Keys".)
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(100);
    /// filter.insert("apple")?;
    /// assert!(filter.contains("apple"));
    /// assert!(filter.contains(b"apple") && filter.contains(&String::from("apple")));
    /// filter.insert(&cuckoo_nest::PreHashed(0x1234_5678_9abc_def0))?;
    /// assert!(filter.contains(&cuckoo_nest::PreHashed(0x1234_5678_9abc_def0)));
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
    pub fn insert<K: Key + ?Sized>(&self, item: &K) -> Result<(), InsertError> {
        self.insert_hash(self.key_hash(item))
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
    pub fn insert_unique<K: Key + ?Sized>(&self, item: &K) -> Result<bool, InsertError> {
        self.insert_unique_hash(self.key_hash(item))
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
    pub fn remove<K: Key + ?Sized>(&self, item: &K) -> bool {
        self.remove_hash(self.key_hash(item))
    }

    /// [`insert`](Self::insert) of the key's hash. This and the two below
    /// are inlined into the caller in a build without debug assertions,
    /// and compiled once, in this crate, in one with them (as `probe`,
    /// `face/read.rs`).
    ///
    /// A growable filter's insert is called from here, not from the
    /// shapes' `match` ([`Self::insert_fixed_hash`]): that function,
    /// every fixed shape's insert inlined, is too large to inline, and its
    /// entry and exit (a large frame, six registers saved) cost a growable
    /// insert about 20 instructions it does not use (callgrind, `g4x10`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn insert_hash(&self, hash: u64) -> Result<(), InsertError> {
        if let Inner::Growable(any) = &self.inner {
            return self.counted(with_growable!(any, g => g.insert(hash, Copies::Any).map(|_| ())));
        }
        self.insert_fixed_hash(hash)
    }

    /// [`Self::insert_hash`] into a filter of a fixed shape (its growable
    /// arm, which `insert_hash` does not reach, is kept so the `match`
    /// needs no arm that panics).
    #[cfg_attr(not(debug_assertions), inline)]
    fn insert_fixed_hash(&self, hash: u64) -> Result<(), InsertError> {
        self.counted(with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.insert(i1, fp, Copies::Any).map(|_| ())
        }, g => g.insert(hash, Copies::Any).map(|_| ())))
    }

    /// [`insert_unique`](Self::insert_unique) of the key's hash.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn insert_unique_hash(&self, hash: u64) -> Result<bool, InsertError> {
        self.counted(with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.insert(i1, fp, Copies::Unique)
        }, g => g.insert(hash, Copies::Unique)))
    }

    /// [`remove`](Self::remove) of the key's hash.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn remove_hash(&self, hash: u64) -> bool {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.remove(i1, fp)
        }, g => g.remove(hash))
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

    /// The hash the generic methods use for `item`: the filter's key
    /// encoding with its seed.
    #[inline(always)]
    fn key_hash<K: Key + ?Sized>(&self, item: &K) -> u64 {
        self.config
            .keys
            .hash(&StableHasher::with_seed(self.config.seed), item)
    }

    /// `result`, counted as a refused insert if it is an error (a relaxed
    /// add on the error path only).
    #[inline(always)]
    pub(crate) fn counted<T, E>(&self, result: Result<T, E>) -> Result<T, E> {
        if result.is_err() {
            self.counters.0.refused.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}
