//! What a filter reports for monitoring: growth steps and refused inserts.

use super::CuckooFilter;
use crate::shape::Inner;
use crate::sync::{AtomicU64, Ordering};

/// A filter's statistics ([`CuckooFilter::statistics`]), read without
/// stopping writers.
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::builder().capacity(100).growable(true).build()?;
/// for k in 0..1_000u32 {
///     filter.insert(&k)?;
/// }
/// let _ = filter.insert_batch(&["same"; 20]); // the ninth copy is refused
/// let stats = filter.statistics();
/// assert!(stats.growth_steps >= 3); // 100 -> 800 or more
/// assert_eq!(stats.refused_inserts, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Statistics {
    /// Growth steps a growable filter has taken: its table is `2^steps`
    /// times its first one (kept across a save and load). 0 for a fixed
    /// filter.
    pub growth_steps: u32,
    /// Inserts (single, or a batch stopped at its failing key) refused with
    /// an [`InsertError`](crate::InsertError) of any kind since the filter
    /// was built, loaded or cloned: a filter that refuses inserts is full,
    /// at its maximum capacity, or fed colliding keys.
    pub refused_inserts: u64,
}

/// The counters behind [`Statistics`], one per filter.
pub(crate) struct Counters {
    refused: AtomicU64,
}

impl Counters {
    pub(crate) fn new() -> Self {
        Counters {
            refused: AtomicU64::new(0),
        }
    }
}

impl CuckooFilter {
    /// What the filter has done: see [`Statistics`].
    #[must_use]
    pub fn statistics(&self) -> Statistics {
        let growth_steps = match &self.inner {
            Inner::Growable(any) => crate::grow::with_growable!(&**any, g => g.depth()),
            _ => 0,
        };
        Statistics {
            growth_steps,
            refused_inserts: self.counters.refused.load(Ordering::Relaxed),
        }
    }

    /// `result`, counted as a refused insert if it is an error (a relaxed
    /// add on the error path only).
    #[inline(always)]
    pub(crate) fn counted<T, E>(&self, result: Result<T, E>) -> Result<T, E> {
        if result.is_err() {
            self.counters.refused.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}
