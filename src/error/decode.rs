//! Why saved bytes could not be read, or metadata could not be saved:
//! [`DecodeError`], [`MetadataTooLong`].

use super::Bytes;
use std::fmt;

/// Metadata longer than a saved filter carries
/// ([`MAX_METADATA`](crate::MAX_METADATA) bytes).
///
/// ```
/// use cuckoo_nest::{MetadataTooLong, SaveOptions, MAX_METADATA};
/// let e = SaveOptions::default().metadata(&[0u8; MAX_METADATA + 1]).unwrap_err();
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
/// [`CuckooFilter::load`](crate::CuckooFilter::load),
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
    /// Reading failed ([`CuckooFilter::load`](crate::CuckooFilter::load)
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
