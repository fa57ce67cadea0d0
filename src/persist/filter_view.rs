//! [`FilterView`]: lookups straight from a saved filter's bytes (a memory
//! mapped file, say), without loading it.
//!
//! The view runs the owned filter's own lookup code: the layouts' load and
//! probe path is generic over where words come from (`WordSource`, `layout/access.rs`), and
//! the view gives it the bytes instead of the table's atomics. Bytes that
//! cannot change need no atomics and no version checks, so a view lookup is
//! the owned one without the stripe reads. Words are read through a
//! `&[u64]` when the table is 8-byte aligned (a file mapped at a page
//! boundary: the table starts at byte 64), and with `u64::from_le_bytes`
//! from any other address; never by casting unaligned bytes.

use super::header::{Header, HEADER_LEN};
use crate::config::{debug_shape, Config};
use crate::error::DecodeError;
use crate::face::Reader;
use crate::table::Nested;
use std::fmt;

mod tables;
use tables::{TableBytes, Tables};

/// A read-only filter over a saved filter's bytes
/// ([`CuckooFilter::to_bytes`](crate::CuckooFilter::to_bytes) or
/// [`save`](crate::CuckooFilter::save)), queried in place: nothing
/// is copied or allocated, so a memory-mapped file of any size opens in
/// microseconds with [`new_unverified`](Self::new_unverified). Answers
/// exactly as the filter that was saved (same configuration, seed and
/// table).
///
/// `B` holds the bytes: borrowed (`FilterView<&[u8]>`) or owned
/// (`FilterView<Vec<u8>>`, `FilterView<Arc<[u8]>>`, `FilterView<memmap2::Mmap>`),
/// so a view over a mapped file can live behind an `Arc` beside the file's
/// other state. The view is `Send + Sync` when `B` is. `B::as_ref` must
/// give the same bytes every time (every standard container and `Mmap`
/// do); a `B` that changes them gets wrong answers or a panic, never
/// undefined behaviour.
///
/// The bytes may sit at any address. When the table (byte 64 on) is 8-byte
/// aligned, as in a file mapped at a page boundary or a `Vec<u8>` from the
/// allocator, lookups read whole words and run as fast as the owned
/// filter's; otherwise they assemble each word from bytes.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, FilterView};
/// let filter = CuckooFilter::with_capacity(1000);
/// filter.insert("k")?;
/// let bytes = filter.to_bytes();
/// let view = FilterView::new(&bytes)?;
/// assert!(view.contains("k"));
/// assert_eq!(view.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct FilterView<B: AsRef<[u8]>> {
    /// The configuration and how to read the tables, apart from `B`
    /// (`filter_view/tables.rs`).
    tables: Tables,
    /// The saved filter, header and table, exactly as long as the header
    /// says (checked when the view was made).
    bytes: B,
    /// Where the table starts: after the header and the metadata block.
    table_at: usize,
    /// Bytes of metadata, right after the metadata block's checksum.
    metadata_len: usize,
    items: usize,
}

impl<B: AsRef<[u8]>> FilterView<B> {
    /// A view of `bytes`, checked as [`CuckooFilter::from_bytes`](crate::CuckooFilter::from_bytes)
    /// checks them: the header, both checksums, every bucket one a writer
    /// stores and the item count (two passes over the bytes: the checksum's
    /// and the buckets').
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, DecodeError, FilterView};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes();
    /// let view = FilterView::new(&bytes)?;
    /// assert!(view.contains("k"));
    ///
    /// let mut damaged = bytes.clone();
    /// damaged[100] ^= 1; // a bit of the table
    /// let err = FilterView::new(&damaged).unwrap_err();
    /// assert!(matches!(err, DecodeError::ChecksumMismatch { part: "table", .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`DecodeError`] saying what is wrong; never a panic.
    pub fn new(bytes: B) -> Result<Self, DecodeError> {
        let view = Self::new_unverified(bytes)?;
        let header = Header::decode(view.bytes.as_ref())?;
        header.verify(view.table())?;
        header.check_items(view.tables.audit(view.table())?)?;
        Ok(view)
    }

    /// A view of `bytes` whose header is checked (magic, version, the
    /// header's own checksum, the configuration, the length) but whose
    /// table is not read at all: for trusted files that must open at once,
    /// whatever their size. It trusts the table's checksum, that every
    /// bucket is one a writer stores, and the header's item count (what
    /// [`len`](Self::len) reports, at most [`Shape::slots`](crate::Shape::slots) all the
    /// same). A damaged or badly written table gives wrong answers (false
    /// negatives too), never undefined behaviour, an out-of-bounds read or
    /// a panic: every lookup reads only words inside the table, and a
    /// semi-sorted bucket's index of any value decodes.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, FilterView};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes();
    /// let view = FilterView::new_unverified(&bytes)?; // the table is not read
    /// assert!(view.contains("k"));
    /// assert!(FilterView::new_unverified(&bytes[..32]).is_err()); // the header is
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`DecodeError`] for a bad header or length.
    pub fn new_unverified(bytes: B) -> Result<Self, DecodeError> {
        let header = Header::decode(bytes.as_ref())?;
        header.table(bytes.as_ref())?;
        let tables = Tables::new(header.config);
        Ok(FilterView {
            tables,
            bytes,
            table_at: header.prefix_len(),
            metadata_len: header.metadata_len,
            items: header.items,
        })
    }

    /// The table's bytes (every chain's, for a growable filter).
    #[inline(always)]
    fn table(&self) -> &[u8] {
        &self.bytes.as_ref()[self.table_at..]
    }

    /// The caller's metadata saved with the filter
    /// ([`SaveOptions::metadata`](crate::SaveOptions::metadata)),
    /// empty if none; its checksum was checked when the view was made
    /// (by `new_unverified` too).
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, FilterView, SaveOptions};
    /// let mut bytes = Vec::new();
    /// let options = SaveOptions::default().metadata(b"commit 5")?;
    /// CuckooFilter::with_capacity(100).save(&mut bytes, &options)?;
    /// assert_eq!(FilterView::new_unverified(&bytes)?.metadata(), b"commit 5");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn metadata(&self) -> &[u8] {
        let at = HEADER_LEN + 8;
        &self.bytes.as_ref()[at..at + self.metadata_len]
    }

    /// The saved tables a merge reads (`Tables::list`).
    pub(crate) fn tables(&self) -> Vec<(usize, Option<Nested>)> {
        self.tables.list()
    }

    /// Appends `(bucket, fingerprint)` for every occupied slot of buckets
    /// `first..end` of table `k` of [`Self::tables`] to `out`.
    pub(crate) fn fingerprints_of(
        &self,
        k: usize,
        first: usize,
        end: usize,
        out: &mut Vec<(usize, u32)>,
    ) {
        self.tables
            .fingerprints_of(self.table(), k, first, end, out);
    }

    /// True if `hash`'s fingerprint is in either of its buckets.
    #[inline(always)]
    pub(crate) fn lookup(&self, hash: u64) -> bool {
        self.tables.lookup(self.table(), hash)
    }

    /// Copies of `hash`'s fingerprint in its two buckets (of every chain).
    pub(crate) fn copies(&self, hash: u64) -> usize {
        self.tables.copies(self.table(), hash)
    }

    /// Items the header says the saved filter holds.
    pub(crate) fn saved_items(&self) -> usize {
        self.items
    }

    /// Bytes of the saved table.
    pub(crate) fn table_len(&self) -> usize {
        self.table().len()
    }

    /// The batch lookup of the keys whose hashes are `hashes`.
    pub(crate) fn lookup_many(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        self.tables.lookup_many(self.table(), hashes, out)
    }

    /// True if the table is read as aligned words (the fast path).
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, FilterView};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes(); // system allocators align it to 8 or more
    /// assert!(FilterView::new(&bytes)?.is_aligned());
    /// // One byte further on: words assembled from bytes, same answers.
    /// let mut shifted = vec![0u8; bytes.len() + 1];
    /// shifted[1..].copy_from_slice(&bytes);
    /// let view = FilterView::new(&shifted[1..])?;
    /// assert!(!view.is_aligned() && view.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_aligned(&self) -> bool {
        matches!(self.tables.words(self.table()), TableBytes::Aligned(_))
    }

    /// The saved filter's configuration.
    pub(crate) fn config(&self) -> &Config {
        &self.tables.config
    }

    /// Bytes of the saved filter (header and table).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes();
    /// let view = cuckoo_nest::FilterView::new(&bytes)?;
    /// assert_eq!(view.size_in_bytes(), bytes.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn size_in_bytes(&self) -> usize {
        self.bytes.as_ref().len()
    }
}

/// A view's primitives of the read face (`face/read.rs`): its lookups
/// over the saved bytes.
#[allow(private_interfaces)]
impl<B: AsRef<[u8]>> Reader for FilterView<B> {
    #[inline(always)]
    fn built(&self) -> &Config {
        self.config()
    }

    fn now(&self) -> Config {
        *self.config()
    }

    fn items(&self) -> usize {
        self.saved_items()
    }

    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        self.lookup(hash)
    }

    fn tally(&self, hash: u64) -> usize {
        self.copies(hash)
    }

    fn probe_many(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        self.lookup_many(hashes, out)
    }

    fn held_bytes(&self) -> usize {
        self.size_in_bytes()
    }

    fn table_bytes(&self) -> usize {
        self.table_len()
    }
}

/// Shape and load at a glance, as [`CuckooFilter`](crate::CuckooFilter)'s,
/// and whether the table is read as aligned words.
impl<B: AsRef<[u8]>> fmt::Debug for FilterView<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("FilterView");
        debug_shape(&mut d, self.config(), self.items)
            .field("aligned", &self.is_aligned())
            .finish()
    }
}
