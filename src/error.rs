//! Typed errors: every input a user can get wrong has a variant here.

use std::fmt;

/// Why a filter could not be built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// The builder was given no capacity.
    NoCapacity,
    /// The capacity given was 0.
    ZeroCapacity,
    /// Semi-sorted buckets hold exactly 4 fingerprints.
    SemiSortedNeedsFourSlots {
        /// The bucket size given.
        bucket_size: usize,
    },
    /// The table for this capacity would not fit in this machine's address
    /// space (the size computation overflows or passes the table-size limit).
    CapacityTooLarge {
        /// The capacity asked for.
        capacity: usize,
    },
    /// An exact bucket count was asked for that no table can have.
    TooManyBuckets {
        /// The bucket count asked for.
        buckets: usize,
        /// The largest bucket count allowed.
        max: usize,
    },
    /// The allocator refused the table.
    AllocationFailed {
        /// Bytes requested.
        bytes: usize,
    },
    /// The false-positive rate must be a number strictly between 0 and 1.
    InvalidFalsePositiveRate {
        /// The rate given.
        rate: f64,
    },
    /// No supported configuration reaches this false-positive rate.
    FalsePositiveRateUnreachable {
        /// The rate asked for.
        requested: f64,
        /// The lowest rate the allowed configurations reach.
        best: f64,
    },
    /// Buckets hold 2, 4 or 8 fingerprints.
    UnsupportedBucketSize {
        /// The bucket size given.
        bucket_size: usize,
    },
    /// Fingerprints are 4 to 32 bits wide.
    UnsupportedFingerprintBits {
        /// The width given.
        bits: u32,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoCapacity => write!(
                f,
                "no capacity given: call Builder::capacity with the number of items the filter must hold"
            ),
            BuildError::ZeroCapacity => write!(f, "capacity must be at least 1 item"),
            BuildError::SemiSortedNeedsFourSlots { bucket_size } => write!(
                f,
                "semi-sorted buckets hold 4 fingerprints, not {bucket_size}: use bucket_size(4) or semi_sorted(false)"
            ),
            BuildError::CapacityTooLarge { capacity } => write!(
                f,
                "capacity {capacity} is too large: its table would not fit in the address space"
            ),
            BuildError::TooManyBuckets { buckets, max } => write!(
                f,
                "{buckets} buckets is too many: at most {max} buckets fit in any address space"
            ),
            BuildError::AllocationFailed { bytes } => {
                write!(f, "could not allocate the {bytes}-byte table")
            }
            BuildError::InvalidFalsePositiveRate { rate } => write!(
                f,
                "false-positive rate must be strictly between 0 and 1, got {rate}"
            ),
            BuildError::FalsePositiveRateUnreachable { requested, best } => write!(
                f,
                "false-positive rate {requested} is unreachable: the best allowed configuration gives {best:.3e}"
            ),
            BuildError::UnsupportedBucketSize { bucket_size } => write!(
                f,
                "bucket size {bucket_size} is not supported: use 2, 4 or 8"
            ),
            BuildError::UnsupportedFingerprintBits { bits } => write!(
                f,
                "fingerprint width {bits} bits is not supported: use 4 to 32"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// Why an insert failed. A failed insert leaves every earlier item in place.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsertError {
    /// No free slot was reachable from the item's two buckets within the
    /// displacement search limit: the filter is (nearly) full, or the item was
    /// inserted too many times (both its buckets hold only its fingerprint).
    Full {
        /// Items in the filter when the insert gave up.
        len: usize,
        /// Fingerprint slots in the table.
        slots: usize,
    },
    /// Both of the item's buckets hold nothing but copies of its
    /// fingerprint: the item (or items colliding with it) was inserted
    /// `2 * bucket_size` times already. The rest of the filter may have room.
    TooManyCopies {
        /// Copies of the fingerprint in the item's buckets.
        copies: usize,
    },
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
                "the item's two buckets hold {copies} copies of its fingerprint and nothing else: it (or an item colliding with it) was inserted too many times; nothing was changed"
            ),
        }
    }
}

impl std::error::Error for InsertError {}

/// A batch call's output slice is not as long as its input.
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
