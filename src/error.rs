//! Typed errors: every input a user can get wrong has a variant here.

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
    /// Both of the item's buckets hold nothing but copies of its
    /// fingerprint: the item (or items colliding with it) was inserted
    /// `2 * bucket_size` times already. The rest of the filter may have room.
    TooManyCopies {
        /// Copies of the fingerprint in the item's buckets.
        copies: usize,
    },
    /// A growable filter refused this item without growing: its two
    /// buckets, and every bucket a displacement reaches from them, are
    /// full while the filter holds less than half the load it grows at.
    /// Random keys practically never do this; keys chosen to share a bucket
    /// pair do (the default seed is public: seed the hasher with
    /// [`Builder::seed`](crate::Builder::seed) against untrusted keys).
    /// Growing would double the memory without making room for them, so a
    /// growable filter grows for load only. Nothing was changed.
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
        /// The most items the filter was built to grow to.
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
                "the item's two buckets hold {copies} copies of its fingerprint and nothing else: it (or an item colliding with it) was inserted too many times; nothing was changed"
            ),
            InsertError::Crowded { len, slots } => write!(
                f,
                "the item's buckets are crowded by colliding keys while the filter is far from full ({len} items in {slots} slots): a growable filter grows for load only; nothing was changed"
            ),
            InsertError::MaxCapacity { max_capacity, len } => write!(
                f,
                "filter full at its maximum capacity of {max_capacity} items ({len} items in it): it has grown as far as its fingerprints have spare bits for (Builder::max_capacity); nothing was changed"
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
///     filter.contains_batch(&[1u32, 2, 3], &mut out),
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
        /// `"fingerprint width"`, `"layout"` (plain or semi-sorted) or
        /// `"hash seed"`.
        what: &'static str,
        /// This filter's value (a layout as 0 plain, 1 semi-sorted).
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

/// Metadata longer than a saved filter carries
/// ([`MAX_METADATA`](crate::MAX_METADATA) bytes).
///
/// ```
/// use cuckoo_nest::{CuckooFilter, MetadataTooLong, MAX_METADATA};
/// let filter = CuckooFilter::with_capacity(100);
/// let e = filter.to_bytes_with_metadata(&vec![0u8; MAX_METADATA + 1]).unwrap_err();
/// assert_eq!(e, MetadataTooLong { len: MAX_METADATA + 1, max: MAX_METADATA });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataTooLong {
    /// Bytes given.
    pub len: usize,
    /// Bytes a saved filter carries at most.
    pub max: usize,
}

impl fmt::Display for MetadataTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes of metadata: a saved filter carries at most {}",
            self.len, self.max
        )
    }
}

impl std::error::Error for MetadataTooLong {}

/// Why bytes could not be read as a saved filter
/// ([`CuckooFilter::from_bytes`](crate::CuckooFilter::from_bytes),
/// [`CuckooFilter::read_from`](crate::CuckooFilter::read_from),
/// [`FilterView::new`](crate::FilterView::new)). The format is described
/// byte by byte in docs/format.md.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, DecodeError};
/// let bytes = CuckooFilter::with_capacity(100).to_bytes();
/// let cut = CuckooFilter::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
/// assert!(matches!(cut, DecodeError::Truncated { expected, actual } if actual + 1 == expected));
///
/// let mut damaged = bytes.clone();
/// damaged[100] ^= 1; // a bit of the table
/// let err = CuckooFilter::from_bytes(&damaged).unwrap_err();
/// assert!(matches!(err, DecodeError::ChecksumMismatch { part: "table", .. }));
///
/// let err = CuckooFilter::from_bytes(b"some other file").unwrap_err();
/// assert!(matches!(err, DecodeError::NotAFilter));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeError {
    /// The bytes do not start with the format's magic number: not a saved
    /// cuckoo-nest filter.
    NotAFilter,
    /// A saved filter, but in a format version this build cannot read
    /// (written by a later version of the crate, or damaged).
    UnsupportedVersion {
        /// The version in the header.
        version: u16,
        /// The version this build reads and writes.
        supported: u16,
    },
    /// The bytes end before the filter does.
    Truncated {
        /// Bytes the header says the filter takes (or, before the header is
        /// read, the header's own length).
        expected: u64,
        /// Bytes there are.
        actual: u64,
    },
    /// There are more bytes than the header says the filter takes.
    SizeMismatch {
        /// Bytes the header says the filter takes.
        expected: u64,
        /// Bytes there are.
        actual: u64,
    },
    /// A checksum does not match: the header or the table was changed
    /// after it was written (a damaged file or a bad transfer).
    ChecksumMismatch {
        /// `"header"` or `"table"`.
        part: &'static str,
        /// The checksum stored in the header.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// The header's checksum matches but it describes no filter this build
    /// can have: an unknown hash algorithm or flag, a bucket size or width
    /// out of range, more items than slots, a table too large.
    InvalidConfiguration {
        /// What is wrong.
        reason: String,
    },
    /// The checksums match, but bucket `bucket` holds bits that no writer
    /// of the format stores (a semi-sorted bucket whose nibble index is
    /// past the last listed tuple or whose slots are out of order,
    /// docs/format.md): written by a buggy writer, not damaged in transit.
    /// Loading it would let later writes destroy other fingerprints.
    InvalidBucket {
        /// Index of the first bad bucket.
        bucket: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The checksums match, but a table bit after the last bucket is set:
    /// a writer leaves them zero.
    NonZeroPadding {
        /// The first bit after the last bucket (bit `k` of the table is bit
        /// `k % 64` of its little-endian word `k / 64`).
        first_bit: u64,
    },
    /// The checksums match, but the header's item count is not the number
    /// of fingerprints the table holds.
    ItemCountMismatch {
        /// The count in the header.
        stored: u64,
        /// Occupied slots in the table.
        counted: u64,
    },
    /// The allocator refused the table (it did fit in the bytes given).
    AllocationFailed {
        /// Bytes requested.
        bytes: usize,
    },
    /// Reading failed ([`CuckooFilter::read_from`](crate::CuckooFilter::read_from)
    /// only; an early end of the stream is [`DecodeError::Truncated`]).
    Io(std::io::Error),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotAFilter => write!(
                f,
                "not a saved cuckoo-nest filter: the bytes do not start with the magic number"
            ),
            DecodeError::UnsupportedVersion { version, supported } => write!(
                f,
                "unsupported format version {version}: this build reads versions 1 to {supported} (a newer crate wrote it, or it is damaged)"
            ),
            DecodeError::Truncated { expected, actual } => write!(
                f,
                "truncated saved filter: {actual} bytes where the filter takes {expected}"
            ),
            DecodeError::SizeMismatch { expected, actual } => write!(
                f,
                "size mismatch: the header describes a {expected}-byte filter but there are {actual} bytes"
            ),
            DecodeError::ChecksumMismatch {
                part,
                stored,
                computed,
            } => write!(
                f,
                "{part} checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the saved filter is damaged"
            ),
            DecodeError::InvalidConfiguration { reason } => {
                write!(f, "invalid configuration in the header: {reason}")
            }
            DecodeError::InvalidBucket { bucket, reason } => write!(
                f,
                "bucket {bucket} holds bits no writer of the format stores: {reason}"
            ),
            DecodeError::NonZeroPadding { first_bit } => write!(
                f,
                "the table has bits set after its last bucket (from bit {first_bit}), where a writer stores zeros"
            ),
            DecodeError::ItemCountMismatch { stored, counted } => write!(
                f,
                "the header says {stored} items but the table holds {counted} fingerprints"
            ),
            DecodeError::AllocationFailed { bytes } => write!(
                f,
                "could not allocate the table's {} ({bytes} bytes)",
                Bytes(*bytes as u64)
            ),
            DecodeError::Io(e) => write!(f, "reading the saved filter failed: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// A byte count as a person reads it: `135 TiB`, `64 KiB`, `12 bytes`.
pub(crate) struct Bytes(pub(crate) u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let (mut value, mut unit) = (self.0 as f64 / 1024.0, 0);
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        let digits = if value < 10.0 { 1 } else { 0 };
        write!(f, "{value:.digits$} {}", UNITS[unit])
    }
}

/// A rate as a person reads it: `0.01`, `1e-15` (scientific below 1e-4).
struct Rate(f64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        if r != 0.0 && r.is_finite() && r.abs() < 1e-4 {
            write!(f, "{r:.3e}")
        } else {
            write!(f, "{r}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_in_human_units() {
        assert_eq!(Bytes(12).to_string(), "12 bytes");
        assert_eq!(Bytes(64 << 10).to_string(), "64 KiB");
        assert_eq!(Bytes(148_144_741_361_856).to_string(), "135 TiB");
        assert_eq!(Bytes(3 << 29).to_string(), "1.5 GiB");
        assert_eq!(Rate(0.01).to_string(), "0.01");
        assert_eq!(Rate(0.000000000000001).to_string(), "1.000e-15");
        let e = BuildError::AllocationFailed {
            bytes: 148_144_741_361_856,
        };
        assert_eq!(
            e.to_string(),
            "could not allocate the table's 135 TiB (148144741361856 bytes)"
        );
    }
}
