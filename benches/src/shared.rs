//! The filters of the thread-scaling figures: one filter shared by every
//! thread, behind the [`Shared`] adapter (cuckoo-nest through `&self`, the
//! peers behind a lock or their own atomics).

use std::collections::hash_map::DefaultHasher;
use std::sync::{Mutex, RwLock};

use cuckoo_nest::CuckooFilter as Nest;

/// One filter shared by all threads of a scaling run.
pub trait Shared: Sync {
    fn insert_key(&self, key: &u64) -> bool;
    fn contains_key(&self, key: &u64) -> bool;

    fn count_hits(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.contains_key(k)).count()
    }

    fn insert_all(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.insert_key(k)).count()
    }

    /// `ops` operations: every `write_period`-th one inserts the next key of `writes`, the others
    /// look up the next key of `reads` (cycling). Returns hits plus successful inserts, so the
    /// work cannot be optimised away.
    fn mixed(&self, ops: usize, write_period: usize, reads: &[u64], writes: &[u64]) -> usize {
        let (mut r, mut w, mut acc) = (0, 0, 0);
        for i in 0..ops {
            if i % write_period == write_period - 1 && w < writes.len() {
                acc += usize::from(self.insert_key(&writes[w]));
                w += 1;
            } else {
                acc += usize::from(self.contains_key(&reads[r]));
                r += 1;
                if r == reads.len() {
                    r = 0;
                }
            }
        }
        acc
    }
}

impl Shared for Nest {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        self.insert(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.contains(key)
    }
}

impl Shared for Mutex<cuckoofilter::CuckooFilter<DefaultHasher>> {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        lock(self).add(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        lock(self).contains(key)
    }
}

impl Shared for RwLock<cuckoofilter::CuckooFilter<DefaultHasher>> {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        self.write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .add(key)
            .is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(key)
    }
}

impl Shared for fastbloom::AtomicBloomFilter {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        self.insert(key);
        true
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.contains(key)
    }
}

#[inline]
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking measurement thread ends the run anyway; the filter inside is still usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
