//! [`Shape`]: what a filter or a view is built as, in one value.

/// A filter's table as it stands: its geometry, its fingerprints and
/// seed, and the false-positive rate it was sized for. From
/// [`CuckooFilter::shape`](crate::CuckooFilter::shape) or
/// [`FilterView::shape`](crate::FilterView::shape). A growable filter's
/// buckets and fingerprint bits are its current generation's; past its
/// spare bits, where it holds a table per chain (docs/design.md, "Growth
/// past the spare bits"), its slots are every chain's and its rate the
/// sum of theirs.
///
/// ```
/// let filter = cuckoo_nest::CuckooFilter::builder()
///     .capacity(1000)
///     .bucket_size(4)
///     .fingerprint_bits(16)
///     .seed(7)
///     .build()?;
/// let shape = filter.shape();
/// assert_eq!((shape.bucket_size, shape.fingerprint_bits, shape.seed), (4, 16, 7));
/// assert_eq!(shape.slots, shape.buckets * shape.bucket_size);
/// assert!(shape.slots >= 1000 && !shape.semi_sorted);
/// // About 2 * 4 / 2^16 at the load it was sized for.
/// assert!(shape.false_positive_rate_at_capacity < 2e-4);
/// # Ok::<(), cuckoo_nest::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Shape {
    /// Buckets in the table.
    pub buckets: usize,
    /// Fingerprints per bucket: 2, 4 or 8.
    pub bucket_size: usize,
    /// `buckets * bucket_size`: the fingerprints the table can hold (with a
    /// growable filter's earlier chains' tables, past its spare bits).
    pub slots: usize,
    /// Bits per fingerprint.
    pub fingerprint_bits: u32,
    /// Whether buckets are semi-sorted (each fingerprint one bit shorter in
    /// the table than in plain buckets; docs/design.md).
    pub semi_sorted: bool,
    /// The seed of the key hash: two filters answer alike for the same
    /// keys only with the same seed.
    pub seed: u64,
    /// The expected false-positive rate once the filter holds its
    /// capacity: what it was sized for.
    pub false_positive_rate_at_capacity: f64,
}
