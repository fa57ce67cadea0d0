//! [`CuckooFilter`]'s public face, in one place: one file per family of
//! operations, each calling down into the layers below and none into
//! another face file's internals.
//!
//! - `read.rs`: what a filter and a [`FilterView`](crate::FilterView) both
//!   answer (lookups, copy counts, batches, statistics), written once as
//!   [`ReadFilter`]; `read_methods.rs` gives both types those methods
//!   inherent.
//! - `write.rs`, `write_batch.rs`: inserts and removes, one key or many.
//! - `grow.rs`: a growable filter's own questions and `finish_growth`.
//! - `merge.rs`: the union of two filters.
//! - `save.rs`, `load.rs`: the saved format, calling `persist/`.
//! - here: the type, its constructors (and [`Builder::build`]), `Debug`,
//!   `PartialEq`, `Clone`.
//!
//! Below: `shape.rs` picks the table of the filter's shape (`table/`,
//! `layout/`) or the growable filter (`grow/`); `persist/` saves and loads
//! a table; `hash.rs` hashes keys; `config.rs` and `builder/` choose the
//! configuration.

mod grow;
mod load;
mod merge;
mod read;
mod read_methods;
mod save;
#[cfg(feature = "serde")]
mod serde;
mod shape;
mod stats;
mod write;
mod write_batch;

pub use read::ReadFilter;
pub use shape::Shape;
pub use stats::Statistics;

use crate::builder::Builder;
use crate::config::{debug_shape, Config};
use crate::error::{BuildError, Bytes};
use crate::persist;
use crate::shape::Inner;
pub(crate) use read::sealed::Reader;
use std::fmt;

/// A concurrent cuckoo filter. `Send + Sync`: share it with `Arc`; every
/// method takes `&self`. See the [crate docs](crate) for the contract.
///
/// ```
/// use std::sync::Arc;
/// use cuckoo_nest::CuckooFilter;
///
/// let filter = Arc::new(CuckooFilter::builder().capacity(10_000).build()?);
/// let worker = {
///     let filter = Arc::clone(&filter);
///     std::thread::spawn(move || filter.insert("from a worker"))
/// };
/// worker.join().unwrap()?;
/// assert!(filter.contains("from a worker"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Not `Extend` or `FromIterator`: an insert can fail (the filter is full,
/// or one item was inserted more than `2 * bucket_size` times), and neither
/// trait has a way to say so. [`insert_batch`](Self::insert_batch) returns
/// how many items went in before a failure.
pub struct CuckooFilter {
    pub(crate) inner: Inner,
    pub(crate) config: Config,
    /// What [`CuckooFilter::statistics`] counts.
    pub(crate) counters: stats::Counters,
}

impl CuckooFilter {
    /// A filter for `capacity` items in the default configuration (4
    /// fingerprints of 16 bits per bucket).
    ///
    /// # Panics
    /// If `capacity` is 0 or the table cannot be allocated; use
    /// [`CuckooFilter::try_with_capacity`] to get those as errors.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// assert!(filter.capacity() >= 1000);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        match Self::try_with_capacity(capacity) {
            Ok(f) => f,
            Err(e) => panic!("CuckooFilter::with_capacity({capacity}): {e}"),
        }
    }

    /// A filter for `capacity` items in the default configuration, or why
    /// not.
    ///
    /// ```
    /// use cuckoo_nest::{BuildError, CuckooFilter};
    /// assert!(CuckooFilter::try_with_capacity(1000).is_ok());
    /// assert_eq!(CuckooFilter::try_with_capacity(0).unwrap_err(), BuildError::ZeroCapacity);
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<Self, BuildError> {
        Self::builder().capacity(capacity).build()
    }

    /// Starts a [`Builder`] to choose the capacity, false-positive rate,
    /// bucket size, fingerprint width or hash seed.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(10_000)
    ///     .seed(7)
    ///     .build()?;
    /// assert_eq!(filter.shape().seed, 7);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use]
    pub fn builder() -> Builder {
        Builder::default()
    }

    pub(crate) fn from_config(config: Config) -> Result<Self, BuildError> {
        Ok(CuckooFilter {
            inner: Inner::new(&config)?,
            config,
            counters: stats::Counters::new(),
        })
    }
}

/// The last step of a [`Builder`]: its checked configuration made into a
/// filter (the builder chooses, the face builds).
impl Builder {
    /// Builds the filter.
    ///
    /// ```
    /// use cuckoo_nest::{BuildError, CuckooFilter};
    /// let filter = CuckooFilter::builder().capacity(1000).build()?;
    /// assert_eq!(filter.capacity(), 1000);
    /// assert_eq!(CuckooFilter::builder().build().unwrap_err(), BuildError::NoCapacity);
    /// # Ok::<(), BuildError>(())
    /// ```
    ///
    /// # Errors
    /// A [`BuildError`]: a capacity missing or 0, a setting out of range,
    /// a combination no table supports (a false-positive rate no shape
    /// reaches, say), a table too large for the address space, or an
    /// allocation the allocator refused.
    pub fn build(self) -> Result<CuckooFilter, BuildError> {
        CuckooFilter::from_config(self.config()?)
    }
}

/// Shape and load at a glance:
/// `CuckooFilter { shape: "4 x 16 bits", len: 12, slots: 1028, load: "1.2%", capacity: 1000, memory: "2.1 KiB" }`.
///
/// `capacity` is the number of items the filter holds for certain:
/// [`capacity`](CuckooFilter::capacity) (what it was sized for), or `len`
/// once more than that went in. A table holds more than it was sized for,
/// up to the load at which inserts start to fail (a growable filter at its
/// [`max_capacity`](crate::Builder::max_capacity) fills on past the load
/// it would have grown at), and a capacity printed below `len` would read
/// as a filter holding more than it can.
///
/// ```
/// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
/// let mut k = 0u64;
/// while filter.len() <= filter.capacity() {
///     filter.insert(&k)?;
///     k += 1;
/// }
/// let shown = format!("{filter:?}");
/// assert!(shown.contains(&format!("len: {}", filter.len())));
/// assert!(shown.contains(&format!("capacity: {}", filter.len())));
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl fmt::Debug for CuckooFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("CuckooFilter");
        debug_shape(&mut d, &self.now(), self.items())
            .field(
                "memory",
                &format_args!("{}", Bytes(self.held_bytes() as u64)),
            )
            .finish()
    }
}

/// Two filters are equal if they hold the same fingerprints in the same
/// places: the same shape, bucket count, hash seed and key hash, and the same table
/// (so they answer every lookup alike, and save to the same table bytes).
/// The capacity each was sized for is not compared. Each filter's table is
/// copied as [`to_bytes`](CuckooFilter::to_bytes) copies it, one after the
/// other (compare filters no thread is writing to: under writers the copies
/// are of moving tables): a comparison
/// costs both tables' memory and a pass over each.
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let a = CuckooFilter::with_capacity(1000);
/// let b = CuckooFilter::with_capacity(1000);
/// a.insert("k")?;
/// assert_ne!(a, b);
/// b.insert("k")?;
/// assert_eq!(a, b);
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl PartialEq for CuckooFilter {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.now(), other.now());
        if a.shape() != b.shape()
            || a.buckets != b.buckets
            || a.seed != b.seed
            || a.growth != b.growth
            || a.keys != b.keys
        {
            return false;
        }
        persist::snapshot(&self.inner, &self.config).0
            == persist::snapshot(&other.inner, &other.config).0
    }
}

/// An independent filter with the same configuration and the same items,
/// copied as [`to_bytes`](CuckooFilter::to_bytes) copies them, while other
/// threads write (it holds every item whose insert returned before `clone`
/// began and that was not removed before it returned). A writer waits only
/// while a piece of its stripe is copied; lookups never do.
///
/// # Panics
/// If the copy's table cannot be allocated (as `Vec::clone` would).
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::with_capacity(1000);
/// filter.insert("kept")?;
/// let snapshot = filter.clone();
/// filter.insert("later")?;
/// assert!(snapshot.contains("kept") && !snapshot.contains("later"));
/// assert_eq!(snapshot.len(), 1);
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl Clone for CuckooFilter {
    fn clone(&self) -> Self {
        let (table, items, config) = persist::snapshot(&self.inner, &self.config);
        let inner = Inner::from_le_bytes(&config, items, &[&table])
            .unwrap_or_else(|e| panic!("CuckooFilter::clone: {e}"));
        CuckooFilter {
            inner,
            config,
            counters: stats::Counters::new(),
        }
    }
}
