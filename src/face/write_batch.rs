//! Inserts and removes of many keys: the inserts pipelined over the table
//! (`table/batch.rs`), the removes one after another.

use super::CuckooFilter;
use crate::error::{BatchInsertError, LengthMismatch};
use crate::hash::StableHasher;
use crate::key::Key;
use crate::shape::with_table;
use crate::table::{check_lengths, DEFAULT_DISTANCE};

impl CuckooFilter {
    /// Inserts many items, in order, overlapping their memory accesses.
    /// Each is any [`Key`], hashed as [`insert`](Self::insert) hashes it.
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
    pub fn insert_batch<K: Key>(&self, items: &[K]) -> Result<(), BatchInsertError> {
        let (seeded, keys) = (StableHasher::with_seed(self.config.seed), self.config.keys);
        let hash_at = |k: usize| keys.hash(&seeded, &items[k]);
        self.counted(with_table!(
            &self.inner,
            t => t.insert_many::<{ DEFAULT_DISTANCE }>(items.len(), hash_at),
            g => g.insert_many(items.len(), hash_at)
        ))
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
        self.counted(with_table!(
            &self.inner,
            t => t.insert_many::<{ DEFAULT_DISTANCE }>(hashes.len(), |k| hashes[k]),
            g => g.insert_many(hashes.len(), |k| hashes[k])
        ))
    }

    /// Inserts many byte-string keys in order, overlapping their memory
    /// accesses (as [`insert_batch`](Self::insert_batch)), each hashed with
    /// [`hash_bytes`](Self::hash_bytes): as `insert_batch` hashes them,
    /// except in a filter loaded from a file of format version 1 to 3.
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
        let (seed, hash) = (self.config.seed, self.config.keys);
        let hash_at = |k: usize| hash.hash_bytes(seed, keys[k].as_ref());
        self.counted(with_table!(
            &self.inner,
            t => t.insert_many::<DEFAULT_DISTANCE>(keys.len(), hash_at),
            g => g.insert_many(keys.len(), hash_at)
        ))
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
    pub fn remove_batch<K: Key>(
        &self,
        items: &[K],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(items.len(), out.len())?;
        let (seeded, keys) = (StableHasher::with_seed(self.config.seed), self.config.keys);
        Ok(self.remove_each(|k| keys.hash(&seeded, &items[k]), out))
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
        let (seed, hash) = (self.config.seed, self.config.keys);
        Ok(self.remove_each(|k| hash.hash_bytes(seed, keys[k].as_ref()), out))
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
}
