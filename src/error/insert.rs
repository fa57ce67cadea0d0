//! Why an insert or a batch call failed: [`InsertError`], [`LengthMismatch`],
//! [`BatchInsertError`].

use std::fmt;

/// Why an insert failed. A failed insert leaves every earlier item in place.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, InsertError};
/// let filter = CuckooFilter::with_capacity(1000);
/// // One item fits 8 times (two buckets of 4 slots); the ninth copy does not.
/// for _ in 0..8 {
///     filter.insert("same")?;
/// }
/// assert_eq!(filter.insert("same"), Err(InsertError::TooManyCopies { copies: 8 }));
///
/// // A filter filled past its capacity runs out of reachable free slots.
/// let small = CuckooFilter::with_capacity(10);
/// let err = (0u64..).find_map(|k| small.insert(&k).err()).unwrap();
/// assert!(matches!(err, InsertError::Full { len, .. } if len >= 10));
/// # Ok::<(), InsertError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsertError {
    /// No free slot was reachable from the item's two buckets within the
    /// displacement search limit: the filter is (nearly) full. (An item
    /// whose two buckets hold nothing but its own fingerprint is
    /// [`InsertError::TooManyCopies`] instead.)
    Full {
        /// Items in the filter when the insert gave up.
        len: usize,
        /// Fingerprint slots in the table.
        slots: usize,
    },
    /// The item's buckets hold as many copies of its fingerprint as the
    /// filter keeps: the item (or items colliding with it) was inserted
    /// `2 * bucket_size` times already (both buckets full of it), or
    /// `bucket_size` times if its two buckets are one bucket (about one
    /// item in as many as the table has buckets). A growable filter whose
    /// stored fingerprints are wide enough to tell copies from distinct
    /// items (10 bits or more with 4-slot buckets, as at a 1% rate or
    /// lower) keeps `bucket_size` copies of one item in either case (one
    /// more where they all lie in the item's second bucket), so that no
    /// pair fills with copies that no displacement can move (docs/design.md,
    /// "Growth for load, not for crafted keys"). A growable filter also
    /// says this of a pair full of fingerprints with the item's key that
    /// differ in spare bits only: growing would not separate them. The rest
    /// of the filter may have room.
    TooManyCopies {
        /// Copies of the fingerprint in the item's buckets.
        copies: usize,
    },
    /// A growable filter refused this item without growing: its two
    /// buckets are full of distinct items that belong to that same pair of
    /// buckets (so no displacement can take them out of it), while the
    /// filter holds less than half the load it grows at. Random keys
    /// practically never do this with keys of 6 bits or more (4- or 5-bit
    /// keys and 2-slot buckets make such pairs by chance: a filter with no
    /// maximum capacity then places the item in an earlier chain, or
    /// starts the next one from the last generation of a chain, and
    /// refuses only where neither can be done: in practice in its first
    /// chain, before its last doubling); keys chosen to
    /// share a bucket pair do (the default seed is public: seed the hasher
    /// with [`Builder::seed`](crate::Builder::seed) against untrusted
    /// keys). Growing would double the memory without separating them, so
    /// a growable filter does not grow for them. Nothing was changed.
    Crowded {
        /// Items in the filter when the insert gave up.
        len: usize,
        /// Fingerprint slots in the table.
        slots: usize,
    },
    /// A growable filter is full at its maximum capacity
    /// ([`CuckooFilter::max_capacity`](crate::CuckooFilter::max_capacity)):
    /// it has doubled as many times as its fingerprints have spare bits
    /// for, and no free slot was reachable. Nothing was changed. Once the
    /// filter has refused an item so, later inserts whose two buckets are
    /// full are refused at once (a lookup's work, not a displacement
    /// search), until a remove or `clear` makes room.
    MaxCapacity {
        /// The capacity the filter was built to grow to. Its last table
        /// holds a few percent more or fewer items than that before no
        /// free slot is reachable, so `len` may be above or below it.
        max_capacity: usize,
        /// Items in the filter when the insert gave up.
        len: usize,
    },
    /// A growable filter was full and could not grow: the allocator refused
    /// the next, twice larger table. Nothing was lost; the filter stays as
    /// it was, and a later insert tries to grow again.
    GrowthFailed {
        /// Bytes the next table needed (`usize::MAX` if its size overflows).
        bytes: usize,
    },
    /// A growable filter was full and could not grow: the system refused
    /// the process-wide memory barrier a growth step takes to stop the
    /// writers (`membarrier`, then the page-protection barrier it falls
    /// back to; a seccomp filter can deny both). Nothing was lost; the
    /// filter stays as it was, and a later insert tries again.
    GrowthBlocked,
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InsertError::Full { len, slots } => write!(
                f,
                "filter full: no free slot reachable for this item ({len} items in {slots} slots); every item is still in, though some may have moved between their two buckets"
            ),
            InsertError::TooManyCopies { copies } => write!(
                f,
                "the item's two buckets hold {copies} copies of its fingerprint, as many as the filter keeps of one item: it (or an item colliding with it) was inserted too many times; nothing was changed"
            ),
            InsertError::Crowded { len, slots } => write!(
                f,
                "the item's two buckets are full of colliding keys that belong to them alone, while the filter is far from full ({len} items in {slots} slots): growing would not separate them, so the filter did not grow; nothing was changed"
            ),
            InsertError::MaxCapacity { max_capacity, len } => write!(
                f,
                "filter full at its largest size: no free slot reachable with {len} items in it, and it has grown as far as its fingerprints have spare bits for (built to grow to a capacity of {max_capacity} items: Builder::max_capacity); nothing was changed"
            ),
            InsertError::GrowthFailed { bytes } => write!(
                f,
                "the filter is full and could not grow: the allocator refused the next table ({bytes} bytes); nothing was lost"
            ),
            InsertError::GrowthBlocked => write!(
                f,
                "the filter is full and could not grow: the system refused the process-wide memory barrier a growth step takes (membarrier and its mprotect fallback, e.g. a seccomp filter); nothing was lost"
            ),
        }
    }
}

impl std::error::Error for InsertError {}

/// A batch call's output slice is not as long as its input.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, LengthMismatch};
/// let filter = CuckooFilter::with_capacity(100);
/// let mut out = [false; 2];
/// assert_eq!(
///     filter.contains_batch_into(&[1u32, 2, 3], &mut out),
///     Err(LengthMismatch { keys: 3, results: 2 })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LengthMismatch {
    /// Keys given.
    pub keys: usize,
    /// Result slots given.
    pub results: usize,
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "batch of {} keys needs as many result slots, got {}; nothing was looked up",
            self.keys, self.results
        )
    }
}

impl std::error::Error for LengthMismatch {}

/// Why `insert_batch` stopped: the first `inserted` keys are in the filter,
/// the failing key and those after it are not.
///
/// ```
/// use cuckoo_nest::{BatchInsertError, CuckooFilter, InsertError};
/// let filter = CuckooFilter::with_capacity(1000);
/// // One item fits 8 times (two buckets of 4 slots): the ninth copy stops the batch.
/// let err = filter.insert_batch(&["same"; 10]).unwrap_err();
/// let copies = InsertError::TooManyCopies { copies: 8 };
/// assert_eq!(err, BatchInsertError { inserted: 8, error: copies });
/// assert_eq!(filter.len(), 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchInsertError {
    /// Keys inserted before the failure (a prefix of the batch).
    pub inserted: usize,
    /// Why key number `inserted` could not be inserted.
    pub error: InsertError,
}

impl fmt::Display for BatchInsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "batch insert stopped after {} keys: {}",
            self.inserted, self.error
        )
    }
}

impl std::error::Error for BatchInsertError {}
