//! What an owned filter and a view of saved bytes both answer, written
//! once, and the owned filter's lookup from its public method down to the
//! table: [`ReadFilter`]'s provided methods are the one implementation of
//! lookups, copy counts, batches and statistics; each type supplies the
//! few primitives of the sealed [`Reader`](sealed::Reader) (a probe, a
//! count, a batch loop, its configuration and sizes: the owned filter's
//! here, the shape's `match` in each, a view's in `persist/filter_view.rs`),
//! and its inherent methods of the same names call these: the lookups and
//! hashes (`lookup_methods!`) here, the rest in `read_methods.rs`.

use super::CuckooFilter;
use crate::config::Config;
use crate::error::LengthMismatch;
use crate::grow::with_growable;
use crate::hash::StableHasher;
use crate::key::Key;
use crate::persist::FilterView;
use crate::shape::{with_table, Inner};
use crate::table::{check_lengths, DEFAULT_DISTANCE};

pub(crate) mod sealed {
    use crate::config::Config;

    /// The primitives a readable filter supplies. Sealed: nameable inside
    /// the crate only, so [`ReadFilter`](super::ReadFilter) has exactly
    /// two implementations and can grow methods without breaking anyone.
    // `Config` is crate-private while this trait is reachable as the
    // supertrait of a public one; no user can name the trait, so none can
    // call these methods.
    #[allow(private_interfaces)]
    pub trait Reader {
        /// The configuration built or saved (bucket size, layout, seed).
        fn built(&self) -> &Config;
        /// The configuration as of now: a growable filter's current
        /// generation.
        fn now(&self) -> Config;
        /// Items held.
        fn items(&self) -> usize;
        /// True if `hash`'s fingerprint is in either of its buckets.
        fn probe(&self, hash: u64) -> bool;
        /// Copies of `hash`'s fingerprint in its two buckets.
        fn tally(&self, hash: u64) -> usize;
        /// The batch lookup of `n` keys, key `k` hashing to `hash_at(k)`,
        /// `out` as long as `n` (checked by the caller).
        fn probe_many(&self, n: usize, hash_at: impl Fn(usize) -> u64, out: &mut [bool]) -> usize;
        /// Bytes of memory the filter reads.
        fn held_bytes(&self) -> usize;
        /// Bytes of the bucket table(s).
        fn table_bytes(&self) -> usize;
    }
}

use sealed::Reader;

/// What [`CuckooFilter`] and [`FilterView`] both answer: lookups, copy
/// counts, batches and statistics, under one name, for code that takes
/// either (a restart check, say). Each type has the same methods inherent
/// too, so calling them needs no import; this trait is for being generic.
/// Sealed: implemented by those two types only.
///
/// ```
/// use cuckoo_nest::{CuckooFilter, FilterView, ReadFilter};
///
/// /// Every key present, in whatever the filter was loaded as.
/// fn all_present(filter: &impl ReadFilter, keys: &[&str]) -> bool {
///     keys.iter().all(|k| filter.contains(k)) && filter.len() >= keys.len()
/// }
///
/// let filter = CuckooFilter::with_capacity(1000);
/// filter.insert_batch(&["a", "b"])?;
/// let bytes = filter.to_bytes();
/// assert!(all_present(&filter, &["a", "b"]));
/// assert!(all_present(&FilterView::new(&bytes)?, &["a", "b"]));
/// assert!(all_present(&CuckooFilter::from_bytes(&bytes)?, &["a", "b"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ReadFilter: Reader {
    /// As [`CuckooFilter::contains`].
    #[inline]
    fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
        self.contains_hash(self.hash_item(item))
    }

    /// As [`CuckooFilter::contains_hash`].
    #[inline(always)]
    fn contains_hash(&self, hash: u64) -> bool {
        self.probe(hash)
    }

    /// As [`CuckooFilter::contains_bytes`].
    #[inline]
    fn contains_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_bytes(key))
    }

    /// As [`CuckooFilter::contains_batch`].
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `items`.
    fn contains_batch<K: Key>(
        &self,
        items: &[K],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(items.len(), out.len())?;
        // Seeded once per batch: cloned per key, not derived from the seed
        // each time (a dozen instructions a key not hoisted out of the loop).
        let (seeded, keys) = (
            StableHasher::with_seed(self.built().seed),
            self.built().keys,
        );
        Ok(self.probe_many(items.len(), |k| keys.hash(&seeded, &items[k]), out))
    }

    /// As [`CuckooFilter::contains_batch_hash`].
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `hashes`.
    fn contains_batch_hash(
        &self,
        hashes: &[u64],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(hashes.len(), out.len())?;
        Ok(self.probe_many(hashes.len(), |k| hashes[k], out))
    }

    /// As [`CuckooFilter::contains_batch_bytes`].
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `keys`.
    fn contains_batch_bytes<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        out: &mut [bool],
    ) -> Result<usize, LengthMismatch> {
        check_lengths(keys.len(), out.len())?;
        let (seed, hash) = (self.built().seed, self.built().keys);
        Ok(self.probe_many(keys.len(), |k| hash.hash_bytes(seed, keys[k].as_ref()), out))
    }

    /// As [`CuckooFilter::count`].
    fn count<K: Key + ?Sized>(&self, item: &K) -> usize {
        self.count_hash(self.hash_item(item))
    }

    /// As [`CuckooFilter::count_hash`].
    fn count_hash(&self, hash: u64) -> usize {
        self.tally(hash)
    }

    /// As [`CuckooFilter::count_bytes`].
    fn count_bytes(&self, key: &[u8]) -> usize {
        self.count_hash(self.hash_bytes(key))
    }

    /// As [`CuckooFilter::hash_item`].
    #[inline]
    fn hash_item<K: Key + ?Sized>(&self, item: &K) -> u64 {
        let config = self.built();
        config
            .keys
            .hash(&StableHasher::with_seed(config.seed), item)
    }

    /// As [`CuckooFilter::hash_bytes`].
    #[inline]
    fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        self.built().keys.hash_bytes(self.built().seed, bytes)
    }

    /// As [`CuckooFilter::len`].
    fn len(&self) -> usize {
        self.items()
    }

    /// As [`CuckooFilter::is_empty`].
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// As [`CuckooFilter::capacity`].
    fn capacity(&self) -> usize {
        self.now().capacity.max(1)
    }

    /// As [`CuckooFilter::slots`].
    fn slots(&self) -> usize {
        self.now().slots()
    }

    /// As [`CuckooFilter::buckets`].
    fn buckets(&self) -> usize {
        self.now().buckets
    }

    /// As [`CuckooFilter::bucket_size`].
    fn bucket_size(&self) -> usize {
        self.built().bucket_size
    }

    /// As [`CuckooFilter::fingerprint_bits`].
    fn fingerprint_bits(&self) -> u32 {
        self.now().fingerprint_bits
    }

    /// As [`CuckooFilter::is_semi_sorted`].
    fn is_semi_sorted(&self) -> bool {
        self.built().semi_sorted
    }

    /// As [`CuckooFilter::seed`].
    fn seed(&self) -> u64 {
        self.built().seed
    }

    /// As [`CuckooFilter::load_factor`].
    fn load_factor(&self) -> f64 {
        self.len() as f64 / self.slots() as f64
    }

    /// As [`CuckooFilter::expected_false_positive_rate`].
    fn expected_false_positive_rate(&self) -> f64 {
        self.now().false_positive_rate(self.load_factor())
    }

    /// As [`CuckooFilter::expected_false_positive_rate_at_capacity`].
    fn expected_false_positive_rate_at_capacity(&self) -> f64 {
        let config = self.now();
        config.false_positive_rate(config.design_load())
    }

    /// As [`CuckooFilter::memory_usage`].
    fn memory_usage(&self) -> usize {
        self.held_bytes()
    }

    /// As [`CuckooFilter::bits_per_item`].
    fn bits_per_item(&self) -> f64 {
        self.table_bytes() as f64 * 8.0 / self.capacity() as f64
    }
}

/// The single lookups and the hashes, inherent on both types (each calls [`ReadFilter`]'s
/// one implementation, so it needs no import); `$setup` opens every
/// example, making `filter`. The other inherent methods: `read_methods.rs`.
macro_rules! lookup_methods {
    ($setup:literal) => {
        /// True if `item` is probably in the filter; false if it certainly is not.
        /// Any [`Key`](crate::Key): hashed as its bytes with the filter's seed, as
        /// [`CuckooFilter::insert`](crate::CuckooFilter::insert) says, so every
        /// way of passing one key finds it.
        ///
        #[doc = $setup]
        /// assert!(filter.contains("k"));
        /// assert!(filter.contains(b"k") && filter.contains(&String::from("k")));
        /// assert!(filter.contains("b")); // inserted with insert_bytes
        /// assert!(!filter.contains("absent"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
            <Self as ReadFilter>::contains(self, item)
        }

        /// [`contains`](Self::contains) for a key already hashed to 64 well-mixed
        /// bits.
        ///
        #[doc = $setup]
        /// let hash = filter.hash_item("k"); // the hash `insert("k")` used
        /// assert!(filter.contains_hash(hash));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline(always)]
        #[must_use]
        pub fn contains_hash(&self, hash: u64) -> bool {
            <Self as ReadFilter>::contains_hash(self, hash)
        }

        /// True if the byte-string `key` is probably in the filter: hashed with
        /// the format's own hash ([`hash_bytes`](Self::hash_bytes)), stable across
        /// platforms and releases; the same as [`contains(key)`](Self::contains),
        /// except in a filter loaded from a file of format version 1 to 3
        /// (docs/format.md, "Keys").
        ///
        #[doc = $setup]
        /// assert!(filter.contains_bytes(b"b"));
        /// assert!(filter.contains_bytes(b"k")); // inserted as "k"
        /// assert!(!filter.contains_bytes(b"absent"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn contains_bytes(&self, key: &[u8]) -> bool {
            <Self as ReadFilter>::contains_bytes(self, key)
        }

        /// The hash `insert`/`contains` use for `item`: for a byte string or an
        /// integer, the hash of its bytes ([`hash_bytes`](Self::hash_bytes)); for
        /// [`ByHash`](crate::ByHash), through its `Hash` impl; for
        /// [`PreHashed`](crate::PreHashed), its hash. A filter loaded from a file
        /// of format version 1 to 3 hashes every key through its `Hash` impl, as
        /// the file's filter did (docs/format.md, "Keys").
        ///
        #[doc = $setup]
        /// use cuckoo_nest::StableHasher;
        /// assert_eq!(filter.hash_item("k"), StableHasher::hash_key_bytes(filter.seed(), b"k"));
        /// assert_eq!(filter.hash_item(&7u32), filter.hash_bytes(&7u32.to_le_bytes()));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn hash_item<K: Key + ?Sized>(&self, item: &K) -> u64 {
            <Self as ReadFilter>::hash_item(self, item)
        }

        /// The format's hash of a key that is bytes, with this filter's seed:
        /// the hash to pass to the `*_hash` methods for keys that must answer the
        /// same in every later version of this crate and of Rust. It depends on
        /// the saved format alone (docs/format.md gives it byte by byte):
        /// [`StableHasher::hash_key_bytes`](crate::StableHasher::hash_key_bytes),
        /// or [`StableHasher::hash_bytes`](crate::StableHasher::hash_bytes) in a
        /// filter loaded from a file of format version 1 to 4.
        ///
        /// `insert(&key)` and friends hash a byte-string or integer key the same
        /// way ([`hash_item`](Self::hash_item) gives the same hash), except in a
        /// filter loaded from a file of format version 1 to 3, whose generic
        /// methods keep hashing through `std::hash::Hash` as when it was saved.
        ///
        #[doc = $setup]
        /// assert!(filter.contains_hash(filter.hash_bytes(b"b")));
        /// assert_eq!(filter.hash_bytes(b"k"), filter.hash_item("k"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
            <Self as ReadFilter>::hash_bytes(self, bytes)
        }
    };
}

impl CuckooFilter {
    lookup_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert_bytes(b\"b\")?;"
    );
}

impl<B: AsRef<[u8]>> FilterView<B> {
    lookup_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert_bytes(b\"b\")?;\nlet bytes = filter.to_bytes();\nlet filter = cuckoo_nest::FilterView::new(&bytes)?;"
    );
}

impl ReadFilter for CuckooFilter {}
impl<B: AsRef<[u8]>> ReadFilter for FilterView<B> {}

#[allow(private_interfaces)]
impl Reader for CuckooFilter {
    #[inline(always)]
    fn built(&self) -> &Config {
        &self.config
    }

    fn now(&self) -> Config {
        match &self.inner {
            Inner::Growable(any) => with_growable!(&**any, g => g.config_now(&self.config)),
            _ => self.config,
        }
    }

    fn items(&self) -> usize {
        with_table!(&self.inner, t => t.len(), g => g.len())
    }

    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        with_table!(&self.inner, t => t.contains_hash(hash), g => g.contains(hash))
    }

    fn tally(&self, hash: u64) -> usize {
        with_table!(&self.inner, t => {
            let (i1, fp) = t.locate(hash);
            t.count(i1, fp)
        }, g => g.count(hash))
    }

    /// Compiled for AVX-512 where the CPU has it and the shape gains
    /// (`table/batch.rs`), in a function apart, else as the crate was
    /// compiled.
    #[inline(always)]
    fn probe_many(&self, n: usize, hash_at: impl Fn(usize) -> u64, out: &mut [bool]) -> usize {
        if with_table!(&self.inner, t => t.wide_batches(), _g => false) {
            return self.probe_many_wide(n, hash_at, out);
        }
        with_table!(
            &self.inner,
            t => t.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out)
        )
    }

    fn held_bytes(&self) -> usize {
        with_table!(&self.inner, t => t.memory_usage(), g => g.memory_usage())
    }

    fn table_bytes(&self) -> usize {
        with_table!(&self.inner, t => t.table_bytes(), g => g.table_bytes())
    }
}

impl CuckooFilter {
    /// [`Reader::probe_many`]'s AVX-512 form, in a function apart.
    #[inline(never)]
    fn probe_many_wide(&self, n: usize, hash_at: impl Fn(usize) -> u64, out: &mut [bool]) -> usize {
        with_table!(
            &self.inner,
            t => t.contains_many_wide::<DEFAULT_DISTANCE>(n, hash_at, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(n, hash_at, out)
        )
    }
}
