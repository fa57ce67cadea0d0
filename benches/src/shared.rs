//! What the parts share: the timer of the timed loops, and the [`Shared`] adapter of the
//! thread-scaling figures (cuckoo-nest through `&self`, the peers behind a lock or their own
//! atomics).

use std::collections::hash_map::DefaultHasher;
use std::hint::black_box;
use std::sync::{LockResult, Mutex, PoisonError, RwLock};
use std::time::Instant;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::stats::mops;

/// Runs `f` once: its result and the seconds it took.
#[inline]
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

/// One timed pass of `lookups` over `queries`, in M lookups/s.
pub fn lookup_rate(queries: &[u64], lookups: impl Fn(&[u64]) -> usize) -> Option<f64> {
    let ((), secs) = timed(|| {
        black_box(lookups(black_box(queries)));
    });
    mops(queries.len(), secs)
}

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

type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

/// A panicking measurement thread ends the run anyway; the filter inside is still usable.
#[inline]
fn unpoisoned<G>(guard: LockResult<G>) -> G {
    guard.unwrap_or_else(PoisonError::into_inner)
}

impl Shared for Mutex<Peer> {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        unpoisoned(self.lock()).add(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        unpoisoned(self.lock()).contains(key)
    }
}

impl Shared for RwLock<Peer> {
    #[inline]
    fn insert_key(&self, key: &u64) -> bool {
        unpoisoned(self.write()).add(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        unpoisoned(self.read()).contains(key)
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
