//! The rest of the read face's inherent methods (batches, copy counts,
//! sizes), documented once for both types: `read_methods!` writes
//! them into an `impl` block of [`CuckooFilter`] or [`FilterView`], each
//! calling [`ReadFilter`]'s one implementation, so they need no import.
//! `$setup` opens every example, making `filter`. The single lookups,
//! `contains*`, and the hashes are beside the trait, in `read.rs`.

use super::read::ReadFilter;
use super::CuckooFilter;
use crate::error::LengthMismatch;
use crate::key::Key;
use crate::persist::FilterView;

macro_rules! read_methods {
    ($setup:literal) => {
        /// Looks up many items at once: `out[k]` says whether `items[k]` is
        /// probably present. Returns how many were. Each item is any
        /// [`Key`](crate::Key), hashed as [`contains`](Self::contains) hashes it. Faster than one `contains`
        /// after another on tables bigger than the CPU cache, because the lookups'
        /// memory accesses overlap (`table/batch.rs`); same guarantees as
        /// `contains`.
        ///
        #[doc = $setup]
        /// let mut found = [false; 2];
        /// assert_eq!(filter.contains_batch(&["k", "absent"], &mut found), Ok(1));
        /// assert_eq!(found, [true, false]);
        /// assert_eq!(filter.contains_batch(&[&b"b"[..], b"k"], &mut found), Ok(2));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        /// [`LengthMismatch`] if `out` is not as long as `items` (nothing is
        /// looked up).
        pub fn contains_batch<K: Key>(
            &self,
            items: &[K],
            out: &mut [bool],
        ) -> Result<usize, LengthMismatch> {
            <Self as ReadFilter>::contains_batch(self, items, out)
        }

        /// [`contains_batch`](Self::contains_batch) for pre-hashed keys.
        ///
        #[doc = $setup]
        /// let hashes = [filter.hash_item("k"), filter.hash_item("absent")];
        /// let mut found = [false; 2];
        /// assert_eq!(filter.contains_batch_hash(&hashes, &mut found), Ok(1));
        /// assert_eq!(found, [true, false]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        /// [`LengthMismatch`] if `out` is not as long as `hashes`.
        pub fn contains_batch_hash(
            &self,
            hashes: &[u64],
            out: &mut [bool],
        ) -> Result<usize, LengthMismatch> {
            <Self as ReadFilter>::contains_batch_hash(self, hashes, out)
        }

        /// [`contains_batch`](Self::contains_batch) for byte-string keys, hashed
        /// with [`hash_bytes`](Self::hash_bytes) (as `contains_batch` hashes
        /// them, except in a filter loaded from a file of format version 1 to 3).
        ///
        #[doc = $setup]
        /// let mut found = [false; 2];
        /// assert_eq!(filter.contains_batch_bytes(&["b", "absent"], &mut found), Ok(1));
        /// assert_eq!(found, [true, false]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        /// [`LengthMismatch`] if `out` is not as long as `keys`.
        pub fn contains_batch_bytes<K: AsRef<[u8]>>(
            &self,
            keys: &[K],
            out: &mut [bool],
        ) -> Result<usize, LengthMismatch> {
            <Self as ReadFilter>::contains_batch_bytes(self, keys, out)
        }

        /// How many copies of `item`'s fingerprint its two buckets hold: at
        /// least the number of times it was inserted and not removed, exact
        /// unless another item shares its fingerprint and buckets (a collision,
        /// about as likely as a false positive). A consistent read, lock-free like
        /// [`contains`](Self::contains).
        ///
        #[doc = $setup]
        /// assert_eq!(filter.count("k"), 1);
        /// assert_eq!(filter.count(b"b"), 1);
        /// assert_eq!(filter.count("absent"), 0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn count<K: Key + ?Sized>(&self, item: &K) -> usize {
            <Self as ReadFilter>::count(self, item)
        }

        /// [`count`](Self::count) for a pre-hashed key.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.count_hash(filter.hash_item("k")), 1);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn count_hash(&self, hash: u64) -> usize {
            <Self as ReadFilter>::count_hash(self, hash)
        }

        /// [`count`](Self::count) for a byte-string key.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.count_bytes(b"b"), 1);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn count_bytes(&self, key: &[u8]) -> usize {
            <Self as ReadFilter>::count_bytes(self, key)
        }

        /// Items in the filter (inserts minus removes; a view's, as saved).
        /// Exact when no write is in flight.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.len(), 2);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn len(&self) -> usize {
            <Self as ReadFilter>::len(self)
        }

        /// True if the filter holds no items.
        ///
        #[doc = $setup]
        /// assert!(!filter.is_empty());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn is_empty(&self) -> bool {
            <Self as ReadFilter>::is_empty(self)
        }

        /// The number of items the filter was sized for: the capacity asked
        /// for (or, for an exact bucket count, what those buckets hold at the
        /// design load). That many random inserts always fit; more usually
        /// do, up to the load at which the first insert fails, measured per
        /// shape in docs/design.md (for example 0.97 of
        /// [`slots`](Self::slots) for 4-slot buckets). A growable filter's
        /// is its current generation's: the first capacity, doubled at
        /// each growth step. Never 0, since every table holds one item,
        /// even where a saved header says 0.
        ///
        #[doc = $setup]
        /// assert!(filter.capacity() >= 1000);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn capacity(&self) -> usize {
            <Self as ReadFilter>::capacity(self)
        }

        /// Fingerprint slots in the table (buckets x bucket size).
        ///
        #[doc = $setup]
        /// assert_eq!(filter.slots(), filter.buckets() * filter.bucket_size());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn slots(&self) -> usize {
            <Self as ReadFilter>::slots(self)
        }

        /// Buckets in the table.
        ///
        #[doc = $setup]
        /// assert!(filter.buckets() * 4 >= 1000);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn buckets(&self) -> usize {
            <Self as ReadFilter>::buckets(self)
        }

        /// Fingerprints per bucket (2, 4 or 8).
        ///
        #[doc = $setup]
        /// assert_eq!(filter.bucket_size(), 4);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn bucket_size(&self) -> usize {
            <Self as ReadFilter>::bucket_size(self)
        }

        /// Fingerprint width in bits (4 to 32). A growable filter's is the
        /// width its current generation stores: the key's bits and the
        /// spare bits not yet spent, one narrower at each growth step.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.fingerprint_bits(), 16);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn fingerprint_bits(&self) -> u32 {
            <Self as ReadFilter>::fingerprint_bits(self)
        }

        /// True if the buckets are semi-sorted
        /// ([`Builder::semi_sorted`](crate::Builder::semi_sorted)).
        ///
        #[doc = $setup]
        /// assert!(!filter.is_semi_sorted());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn is_semi_sorted(&self) -> bool {
            <Self as ReadFilter>::is_semi_sorted(self)
        }

        /// The seed of the filter's hash
        /// ([`Builder::seed`](crate::Builder::seed)).
        ///
        #[doc = $setup]
        /// assert_eq!(filter.seed(), 0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn seed(&self) -> u64 {
            <Self as ReadFilter>::seed(self)
        }

        /// The fraction of slots in use, in `0.0..=1.0`.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.load_factor(), 2.0 / filter.slots() as f64);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn load_factor(&self) -> f64 {
            <Self as ReadFilter>::load_factor(self)
        }

        /// The false-positive rate expected at the current load: each lookup
        /// compares against `2 * b * load_factor` fingerprints on average,
        /// each matching by chance with probability `1 / (2^f - 1)`. About
        /// `2b/2^f` when full.
        ///
        #[doc = $setup]
        /// assert!(filter.expected_false_positive_rate() < 1e-6);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn expected_false_positive_rate(&self) -> f64 {
            <Self as ReadFilter>::expected_false_positive_rate(self)
        }

        /// The false-positive rate expected once the filter holds
        /// [`capacity`](Self::capacity) items.
        ///
        #[doc = $setup]
        /// assert!(filter.expected_false_positive_rate_at_capacity() < 2e-4);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn expected_false_positive_rate_at_capacity(&self) -> f64 {
            <Self as ReadFilter>::expected_false_positive_rate_at_capacity(self)
        }

        /// Bytes of memory the filter reads: an owned filter's table and its
        /// stripes; a view's saved bytes, header and table (it allocates
        /// nothing: `FilterView::size_in_bytes`).
        ///
        #[doc = $setup]
        /// // 16-bit fingerprints: at least 2 bytes a slot.
        /// assert!(filter.memory_usage() >= filter.slots() * 2);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn memory_usage(&self) -> usize {
            <Self as ReadFilter>::memory_usage(self)
        }

        /// Bits of the bucket table per item at [`capacity`](Self::capacity),
        /// the paper's measure (an owned filter's stripes, at most 24 KiB, are
        /// counted in [`memory_usage`](Self::memory_usage) but not here).
        ///
        #[doc = $setup]
        /// // 16-bit fingerprints, at least one slot per item.
        /// assert!(filter.bits_per_item() >= 16.0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn bits_per_item(&self) -> f64 {
            <Self as ReadFilter>::bits_per_item(self)
        }
    };
}

impl CuckooFilter {
    read_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert_bytes(b\"b\")?;"
    );
}

impl<B: AsRef<[u8]>> FilterView<B> {
    read_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert_bytes(b\"b\")?;\nlet bytes = filter.to_bytes();\nlet filter = cuckoo_nest::FilterView::new(&bytes)?;"
    );
}
