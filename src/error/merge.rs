//! Why a merge refused or stopped: [`MergeError`].

use super::InsertError;
use std::fmt;

/// Why [`CuckooFilter::merge`](crate::CuckooFilter::merge) refused or
/// stopped.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, MergeError};
/// let a = CuckooFilter::builder().capacity(1000).seed(1).build()?;
/// let b = CuckooFilter::builder().capacity(1000).seed(2).build()?;
/// assert!(matches!(a.merge(&b), Err(MergeError::Mismatch { what: "hash seed", .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeError {
    /// The two filters differ in configuration, so a fingerprint of one
    /// means nothing in the other: nothing was merged.
    Mismatch {
        /// What differs: `"bucket count"`, `"bucket size"`,
        /// `"fingerprint width"`, `"layout"` (plain or semi-sorted),
        /// `"hash seed"`, `"key hash"` (keys hashed through
        /// `std::hash::Hash`, as in a filter loaded from a file of format
        /// version 1 to 3, or as bytes) or, between growable filters, their
        /// first bucket count, key width or spare bits.
        what: &'static str,
        /// This filter's value (a layout as 0 plain, 1 semi-sorted; a key
        /// hash as 0 through `std::hash::Hash`, 1 as bytes).
        ours: u64,
        /// The other filter's value.
        theirs: u64,
    },
    /// This filter had no room for the next fingerprint: the first
    /// `merged` of the other's `total` fingerprints (in the merge's
    /// order) are in, the rest are not, and everything this filter held
    /// before is still there.
    ///
    /// Not necessarily a full table. A merge inserts every copy the other
    /// filter holds into the same two buckets, so an item held in both
    /// filters, or several times, or in a filter merged into itself, needs
    /// a slot per copy there (at most `2 * bucket_size` in all). Such
    /// items fill their two buckets, and pin the items sharing them, long
    /// before the table fills: with 2-slot buckets, a filter whose items
    /// are all held twice stops merging into itself at about a fifth of
    /// its slots. `error` says how the insert failed:
    /// [`InsertError::TooManyCopies`] when the item's buckets hold nothing
    /// but its copies, [`InsertError::Full`] when no displacement reached
    /// a free slot, whatever the load, [`InsertError::Crowded`] for a
    /// growable filter whose buckets are crowded below its growth load.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, InsertError, MergeError};
    /// let filter = CuckooFilter::builder().capacity(1000).bucket_size(2).build()?;
    /// for _ in 0..3 {
    ///     filter.insert("thrice")?;
    /// }
    /// // Merged into itself, "thrice" needs 6 slots of its buckets' 4.
    /// let err = filter.merge(&filter.clone()).unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     MergeError::Full { merged: 1, error: InsertError::TooManyCopies { copies: 4 }, .. }
    /// ));
    /// assert!(err.to_string().contains("a merge adds every copy"));
    /// assert_eq!(filter.count("thrice"), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Full {
        /// Fingerprints merged before the failure.
        merged: usize,
        /// Fingerprints the other filter held (its snapshot).
        total: usize,
        /// Why the next one did not fit.
        error: InsertError,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Mismatch { what, ours, theirs } => write!(
                f,
                "cannot merge filters of different {what} ({ours} here, {theirs} in the other): nothing was merged"
            ),
            MergeError::Full {
                merged,
                total,
                error,
            } => {
                write!(
                    f,
                    "merge stopped after {merged} of {total} fingerprints: {error}; everything held before is still there"
                )?;
                if matches!(
                    error,
                    InsertError::Full { .. } | InsertError::TooManyCopies { .. }
                ) {
                    // The table may be far from full: say what else fills
                    // an item's two buckets in a merge.
                    write!(
                        f,
                        " (a merge adds every copy the other filter holds to the same two buckets, so items held in both filters or several times fill their buckets long before the table is full)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for MergeError {}
