//! Inserts and removes of many keys: the inserts pipelined over the table
//! (`table/batch.rs`), the removes one after another.

use super::read::{BatchHasher, BATCH_CHUNK};
use super::CuckooFilter;
use crate::error::BatchInsertError;
use crate::hash::StableHasher;
use crate::key::Key;
use crate::shape::with_table;
use crate::table::DEFAULT_DISTANCE;

impl CuckooFilter {
    /// Inserts many items, in order, overlapping their memory accesses.
    /// Takes any iterator of [`Key`]s (a slice, a `Vec`, a block
    /// iterator's keys), each hashed as [`insert`](Self::insert) hashes it.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let keys: Vec<u64> = (0..500).collect();
    /// filter.insert_batch(&keys)?;
    /// filter.insert_batch((500u64..600).map(|k| k.to_string()))?;
    /// assert_eq!(filter.len(), 600);
    /// assert!(keys.iter().all(|k| filter.contains(k)));
    /// assert!(filter.contains("599"));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    ///
    /// # Errors
    /// [`BatchInsertError`] at the first item that does not fit: the items
    /// before it are in, it and the rest are not (the iterator is not
    /// drained past it and a few hundred keys hashed ahead). As with
    /// [`insert`](Self::insert), the failed insert may have moved other
    /// items between their two buckets before it gave up (each is still
    /// found; nothing is dropped, `len` counts only what went in).
    pub fn insert_batch<I>(&self, items: I) -> Result<(), BatchInsertError>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut items = items.into_iter();
        let hasher = BatchHasher::new(&self.config);
        let mut chunk = [0u64; BATCH_CHUNK];
        let mut done = 0;
        loop {
            let n = hasher.fill(&mut items, &mut chunk);
            let result = self.insert_hashes(&chunk[..n]);
            self.counted(result.map_err(|e| BatchInsertError {
                inserted: done + e.inserted,
                error: e.error,
            }))?;
            done += n;
            if n < BATCH_CHUNK {
                return Ok(());
            }
        }
    }

    /// Removes one copy of each of many items, in order: element `k` of
    /// the answer says whether a copy of the `k`-th item was found (and
    /// removed). Tells the caller which keys were not there (a key it
    /// never inserted, or already removed), which a count alone would
    /// not say. Takes any iterator of [`Key`]s. The removes run one after
    /// another, each as [`remove`](Self::remove), with its guarantees
    /// (only remove what you inserted).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert_batch([1u64, 2, 3])?;
    /// assert_eq!(filter.remove_batch([1u64, 3, 4, 1]), [true, true, false, false]);
    /// assert_eq!(filter.len(), 1);
    /// assert!(filter.contains(&2u64) && !filter.contains(&1u64));
    /// # Ok::<(), cuckoo_nest::BatchInsertError>(())
    /// ```
    #[must_use = "false marks an item that had no copy to remove"]
    pub fn remove_batch<I>(&self, items: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let (seeded, keys) = (StableHasher::with_seed(self.config.seed), self.config.keys);
        items
            .into_iter()
            .map(|item| self.remove_hash(keys.hash(&seeded, &item)))
            .collect()
    }

    /// The pipelined inserts of one chunk of hashes. Not generic: the batch
    /// loop of every shape is compiled once, in this crate, not again for
    /// each caller's key and iterator types.
    fn insert_hashes(&self, hashes: &[u64]) -> Result<(), BatchInsertError> {
        with_table!(
            &self.inner,
            t => t.insert_many::<{ DEFAULT_DISTANCE }>(hashes),
            g => g.insert_many(hashes)
        )
    }
}
