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
        /// Looks up many items at once and returns the answers: element `k`
        /// says whether the `k`-th item is probably present. Takes any
        /// iterator of [`Key`](crate::Key)s (a slice, a `Vec`, a block
        /// iterator's keys), each hashed as [`contains`](Self::contains)
        /// hashes it. Faster than one `contains` after another on tables
        /// bigger than the CPU cache, because the lookups' memory accesses
        /// overlap (`table/batch.rs`); same guarantees as `contains`.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.contains_batch(["k", "absent"]), [true, false]);
        /// let keys: Vec<Vec<u8>> = vec![b"b".to_vec(), b"k".to_vec()];
        /// assert_eq!(filter.contains_batch(&keys), [true, true]);
        /// // Any iterator: here pre-hashed keys.
        /// let hashes = [filter.hash_item("k")];
        /// let found = filter.contains_batch(hashes.iter().map(|&h| cuckoo_nest::PreHashed(h)));
        /// assert_eq!(found, [true]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn contains_batch<I>(&self, items: I) -> Vec<bool>
        where
            I: IntoIterator,
            I::Item: Key,
        {
            <Self as ReadFilter>::contains_batch(self, items)
        }

        /// [`contains_batch`](Self::contains_batch) into the caller's buffer,
        /// reused from batch to batch: `out[k]` says whether the `k`-th item
        /// is probably present. Returns how many were.
        ///
        #[doc = $setup]
        /// let mut found = [false; 2];
        /// assert_eq!(filter.contains_batch_into(["k", "absent"], &mut found), Ok(1));
        /// assert_eq!(found, [true, false]);
        /// assert_eq!(filter.contains_batch_into([&b"b"[..], b"k"], &mut found), Ok(2));
        /// assert!(filter.contains_batch_into(["k"], &mut found).is_err());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        /// [`LengthMismatch`] if `out` is not as long as `items` (nothing is
        /// looked up).
        pub fn contains_batch_into<I>(
            &self,
            items: I,
            out: &mut [bool],
        ) -> Result<usize, LengthMismatch>
        where
            I: IntoIterator,
            I::Item: Key,
            I::IntoIter: ExactSizeIterator,
        {
            <Self as ReadFilter>::contains_batch_into(self, items, out)
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
        /// shape in docs/design.md (for example 0.97 of the
        /// [`shape`](Self::shape)'s slots for 4-slot buckets). A growable filter's
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

        /// The table's geometry, fingerprints, seed and the false-positive
        /// rate at capacity, in one [`Shape`](crate::Shape).
        ///
        #[doc = $setup]
        /// let shape = filter.shape();
        /// assert_eq!((shape.bucket_size, shape.fingerprint_bits, shape.seed), (4, 16, 0));
        /// assert_eq!(shape.slots, shape.buckets * 4);
        /// assert!(shape.false_positive_rate_at_capacity < 2e-4);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn shape(&self) -> crate::Shape {
            <Self as ReadFilter>::shape(self)
        }

        /// The fraction of slots in use, in `0.0..=1.0`.
        ///
        #[doc = $setup]
        /// assert_eq!(filter.load_factor(), 2.0 / filter.shape().slots as f64);
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

        /// Bytes of memory the filter reads: an owned filter's table and its
        /// stripes; a view's saved bytes, header and table (it allocates
        /// nothing: `FilterView::size_in_bytes`).
        ///
        #[doc = $setup]
        /// // 16-bit fingerprints: at least 2 bytes a slot.
        /// assert!(filter.memory_usage() >= filter.shape().slots * 2);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[must_use]
        pub fn memory_usage(&self) -> usize {
            <Self as ReadFilter>::memory_usage(self)
        }

        /// Bits of the bucket table per item at [`capacity`](Self::capacity),
        /// the paper's measure (an owned filter's stripes, at most 72 KiB, are
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
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert(b\"b\")?;"
    );
}

impl<B: AsRef<[u8]>> FilterView<B> {
    read_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert(b\"b\")?;\nlet bytes = filter.to_bytes();\nlet filter = cuckoo_nest::FilterView::new(&bytes)?;"
    );
}
