//! [`SaveOptions`] and [`LoadOptions`]: what a save writes besides the
//! table, and what a load chooses for the table it allocates.

use super::header::MAX_METADATA;
use crate::error::MetadataTooLong;

/// How [`CuckooFilter::save`](crate::CuckooFilter::save) and its forms
/// write: the caller's metadata, if any (checked here, so a save never
/// fails on it). `SaveOptions::default()` writes none.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, MetadataTooLong, SaveOptions, MAX_METADATA};
/// let filter = CuckooFilter::with_capacity(100);
/// let options = SaveOptions::default().metadata(b"lsn=42")?;
/// let mut saved = Vec::new();
/// filter.save(&mut saved, &options)?;
/// assert_eq!(CuckooFilter::read_metadata(&saved)?, b"lsn=42");
/// let long = vec![0u8; MAX_METADATA + 1];
/// assert_eq!(
///     SaveOptions::default().metadata(&long).unwrap_err(),
///     MetadataTooLong { len: MAX_METADATA + 1, max: MAX_METADATA }
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SaveOptions<'a> {
    pub(crate) metadata: &'a [u8],
}

impl<'a> SaveOptions<'a> {
    /// Up to [`MAX_METADATA`] bytes of the caller's
    /// own stored after the header, covered by a checksum of their own:
    /// a log sequence number or commit id binding the filter to the state
    /// of the store it summarises, say.
    /// [`CuckooFilter::read_metadata`](crate::CuckooFilter::read_metadata)
    /// and [`read_metadata_from`](crate::CuckooFilter::read_metadata_from)
    /// read them back without the table,
    /// [`CuckooFilter::load`](crate::CuckooFilter::load) with it, and
    /// [`FilterView::metadata`](crate::FilterView::metadata) in place.
    ///
    /// # Errors
    /// [`MetadataTooLong`] past `MAX_METADATA` bytes.
    pub fn metadata(self, metadata: &'a [u8]) -> Result<Self, MetadataTooLong> {
        if metadata.len() > MAX_METADATA {
            return Err(MetadataTooLong {
                len: metadata.len(),
                max: MAX_METADATA,
            });
        }
        Ok(SaveOptions { metadata })
    }
}

/// How [`CuckooFilter::load`](crate::CuckooFilter::load) allocates the
/// table it fills. `LoadOptions::default()` keeps the saved choice.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, LoadOptions};
/// let bytes = CuckooFilter::with_capacity(1000).to_bytes();
/// let options = LoadOptions::default().huge_pages(false);
/// let (loaded, metadata) = CuckooFilter::load(&bytes[..], &options)?;
/// assert_eq!(loaded.to_bytes(), bytes);
/// assert!(metadata.is_empty());
/// # Ok::<(), cuckoo_nest::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    pub(crate) huge_pages: Option<bool>,
}

impl LoadOptions {
    /// Whether a large table gets huge pages (as
    /// [`Builder::huge_pages`](crate::Builder::huge_pages); by default,
    /// yes). With `false` the table comes from the global allocator
    /// whatever its size, as a host that accounts for memory through its
    /// allocator needs (a Redis module: otherwise a loaded table of 4 MiB
    /// or more is a mapping of its own that `INFO memory` and `maxmemory`
    /// do not see). Clones of the filter keep the choice.
    #[must_use]
    pub fn huge_pages(self, enabled: bool) -> Self {
        LoadOptions {
            huge_pages: Some(enabled),
        }
    }
}
