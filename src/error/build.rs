//! Why a filter could not be built: [`BuildError`].

use super::{Bytes, Rate};
use std::fmt;

/// Why a filter could not be built.
///
/// ```
/// use cuckoo_nest::{BuildError, CuckooFilter};
/// assert_eq!(CuckooFilter::try_with_capacity(0).unwrap_err(), BuildError::ZeroCapacity);
/// let err = CuckooFilter::builder().capacity(1000).bucket_size(3).build().unwrap_err();
/// assert_eq!(err, BuildError::UnsupportedBucketSize { bucket_size: 3 });
/// assert_eq!(err.to_string(), "bucket size 3 is not supported: use 2, 4 or 8");
/// ```
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
    /// An exact bucket count of 0 was asked for (`Builder::buckets`, a
    /// test hook of the `internals` feature): a table needs at least one
    /// bucket.
    ZeroBuckets,
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
    /// A growable filter cannot have semi-sorted buckets: growing rewrites
    /// each fingerprint one bit narrower, which a semi-sorted bucket's
    /// encoding does not allow.
    GrowableSemiSorted,
    /// A growable filter keeps spare fingerprint bits for its doublings,
    /// so its fingerprints are at most `max` bits wide.
    GrowableFingerprintTooWide {
        /// The width asked for (or picked for the false-positive rate).
        bits: u32,
        /// The widest a growable filter allows.
        max: u32,
    },
    /// [`Builder::max_capacity`](crate::Builder::max_capacity) was given
    /// without [`Builder::growable`](crate::Builder::growable)`(true)`, or
    /// below the capacity, or so far above it that the fingerprints cannot
    /// hold the spare bits its doublings need.
    InvalidMaxCapacity {
        /// The maximum capacity asked for.
        max_capacity: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::GrowableSemiSorted => write!(
                f,
                "a growable filter cannot have semi-sorted buckets: each growth step rewrites fingerprints one bit narrower"
            ),
            BuildError::GrowableFingerprintTooWide { bits, max } => write!(
                f,
                "a growable filter's fingerprints are at most {max} bits (it keeps spare bits for its doublings); {bits} were asked for"
            ),
            BuildError::InvalidMaxCapacity {
                max_capacity,
                reason,
            } => write!(f, "maximum capacity {max_capacity}: {reason}"),
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
                "capacity {capacity} items is too large: its table would not fit in the address space"
            ),
            BuildError::ZeroBuckets => write!(f, "an exact bucket count must be at least 1"),
            BuildError::TooManyBuckets { buckets, max } => write!(
                f,
                "{buckets} buckets is too many: at most {max} buckets fit in any address space"
            ),
            BuildError::AllocationFailed { bytes } => write!(
                f,
                "could not allocate the table's {} ({bytes} bytes)",
                Bytes(*bytes as u64)
            ),
            BuildError::InvalidFalsePositiveRate { rate } => write!(
                f,
                "false-positive rate must be strictly between 0 and 1, got {}",
                Rate(*rate)
            ),
            BuildError::FalsePositiveRateUnreachable { requested, best } => write!(
                f,
                "false-positive rate {} is unreachable: the best allowed configuration gives {}",
                Rate(*requested),
                Rate(*best)
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
