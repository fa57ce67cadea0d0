//! A growable filter's own operations: whether it grows, how far, and
//! finishing a growth step (`grow/`).

use super::CuckooFilter;
use crate::grow::with_growable;
use crate::shape::Inner;

impl CuckooFilter {
    /// The most items a growable filter holds at its rate. With
    /// [`Builder::max_capacity`](crate::Builder::max_capacity): its first
    /// capacity times `2^d`, `d` the doublings its fingerprints have spare
    /// bits for; there inserts that find no room fail with
    /// [`InsertError::MaxCapacity`](crate::InsertError::MaxCapacity).
    /// Without one, the filter starts a new chain of tables each time its
    /// spare bits are spent (docs/design.md, "Growth past the spare
    /// bits"), and this is what every chain the hash has bits for holds:
    /// about `2^28` times the first capacity for a 1% rate, past any
    /// machine's memory (an insert then fails with
    /// [`InsertError::GrowthFailed`](crate::InsertError::GrowthFailed)
    /// first), saturated at `usize::MAX`. `None` for a fixed filter:
    /// whether a filter grows at all.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder().capacity(1000).growable(true).build()?;
    /// assert!(filter.max_capacity() > Some(1000 << 28));
    /// assert!(filter.can_grow());
    /// let bounded = CuckooFilter::builder()
    ///     .capacity(1000)
    ///     .growable(true)
    ///     .max_capacity(128_000)
    ///     .build()?;
    /// assert_eq!(bounded.max_capacity(), Some(128_000));
    /// assert_eq!(CuckooFilter::with_capacity(1000).max_capacity(), None);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
    pub fn max_capacity(&self) -> Option<usize> {
        match &self.inner {
            Inner::Growable(any) => Some(with_growable!(any, g => g.max_capacity())),
            _ => None,
        }
    }

    /// Finishes a growth step under way, if there is one, on this thread:
    /// copies what the writes since the step have not copied of the old
    /// table (each write copies an 8-bucket chunk or two of it, so a filter
    /// no one writes stays mid-step, its lookups looking in both tables on
    /// a miss), then frees the old table. Returns true if a step was under
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
            Inner::Growable(any) => with_growable!(any, g => g.finish_growth()),
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
            Inner::Growable(any) => with_growable!(any, g => g.can_grow()),
            _ => false,
        }
    }
}
