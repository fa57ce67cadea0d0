//! What a filter reports for monitoring: growth steps, refused inserts and
//! the longest displacement.

use super::CuckooFilter;
use crate::shape::{with_table, Inner};
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
/// // Near full, some insert found both its buckets full and moved items.
/// assert!(stats.longest_displacement >= 1);
///
/// // A filter far from full puts every item in a free slot: nothing moved.
/// let roomy = CuckooFilter::with_capacity(1_000_000);
/// roomy.insert_batch(&[1u32, 2, 3])?;
/// assert_eq!(roomy.statistics().longest_displacement, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Statistics {
    /// Growth steps a growable filter has taken (kept across a save and
    /// load): its table is `2^steps` times its first one while it has
    /// spare bits left; past them, each chain started counts one step, and
    /// each doubling of a chain's table one more (docs/design.md, "Growth
    /// past the spare bits"). 0 for a fixed filter.
    pub growth_steps: u32,
    /// Tables a lookup reads: 1, or for a growable filter grown past its
    /// spare bits without a maximum capacity, one per chain (the second
    /// from 128 times the first capacity, a third from 16,384 times, a
    /// fourth from about 2 million times). Their buckets are all known
    /// from one hash.
    pub tables: u32,
    /// Inserts (single, or a batch stopped at its failing key) refused with
    /// an [`InsertError`](crate::InsertError) of any kind since the filter
    /// was built, loaded or cloned: a filter that refuses inserts is full,
    /// at its maximum capacity, or fed colliding keys.
    pub refused_inserts: u64,
    /// The most items one insert moved to make room (the hops of the
    /// longest displacement path carried out whole, its cuckoo kicks) since
    /// the filter was built, loaded or cloned; 0 while every insert found a
    /// free slot in one of its two buckets. At most the search's depth (20
    /// hops for 2-slot buckets, 6 for 4, 4 for 8). Counted on the
    /// displacing path only (a relaxed maximum per path), so an insert into
    /// a free slot pays nothing for it. Paths near that depth mean the
    /// filter is near its maximum load. Not saved: like `refused_inserts`
    /// it describes this process's inserts, not the table (a loaded filter
    /// holds the same items whatever paths placed them), and the saved
    /// format has no field for it; a save and load, or a clone, starts it
    /// at 0.
    pub longest_displacement: u64,
}

/// The counters behind [`Statistics`], one per filter, boxed: an atomic
/// held in `CuckooFilter` itself would make the struct interior-mutable,
/// and the compiler could then no longer treat `&CuckooFilter` as
/// read-only, so a loop of lookups would re-read the shape on every key
/// instead of choosing it once (docs/benchmarks.md has the instruction
/// counts).
pub(crate) struct Counters(pub(super) Box<CounterWords>);

pub(super) struct CounterWords {
    pub(super) refused: AtomicU64,
}

impl Counters {
    pub(crate) fn new() -> Self {
        Counters(Box::new(CounterWords {
            refused: AtomicU64::new(0),
        }))
    }
}

impl CuckooFilter {
    /// What the filter has done: see [`Statistics`].
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(1000);
    /// for _ in 0..9 {
    ///     let _ = filter.insert("hot key"); // the ninth copy is refused
    /// }
    /// let stats = filter.statistics();
    /// assert_eq!(stats.refused_inserts, 1);
    /// assert_eq!(stats.growth_steps, 0); // a fixed filter never grows
    /// ```
    #[must_use]
    pub fn statistics(&self) -> Statistics {
        let (growth_steps, tables) = match &self.inner {
            Inner::Growable(any) => {
                crate::grow::with_growable!(any, g => (g.depth(), g.chains()))
            }
            _ => (0, 1),
        };
        Statistics {
            growth_steps,
            tables,
            refused_inserts: self.counters.0.refused.load(Ordering::Relaxed),
            longest_displacement: with_table!(&self.inner, t => t.longest_path(), g => g.longest_path()),
        }
    }
}
