//! What an owned filter and a view of saved bytes both answer, written
//! once, and the owned filter's lookup from its public method down to the
//! table: [`ReadFilter`]'s provided methods are the one implementation of
//! lookups, copy counts, batches and statistics; each type supplies the
//! few primitives of the sealed [`Reader`] (a probe, a
//! count, a batch loop, its configuration and sizes: the owned filter's
//! here, the shape's `match` in each, a view's in `persist/filter_view/tables.rs`),
//! and its inherent methods of the same names call these: the lookups and
//! hashes (`lookup_methods!`) here, the rest in `read_methods.rs`.

use super::{CuckooFilter, Shape};
use crate::config::Config;
use crate::error::LengthMismatch;
use crate::grow::with_growable;
use crate::hash::StableHasher;
use crate::key::{Key, KeyHash};
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
        /// The batch lookup of the keys whose hashes are `hashes`, `out`
        /// at least as long (checked by the caller). Not generic: the
        /// batch loop of every shape is compiled once, in this crate, not
        /// again for each caller's key and iterator types.
        fn probe_many(&self, hashes: &[u64], out: &mut [bool]) -> usize;
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
        self.probe(self.hash_item(item))
    }

    /// As [`CuckooFilter::contains_batch`].
    fn contains_batch<I>(&self, items: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut items = items.into_iter();
        let mut out = Vec::with_capacity(items.size_hint().0);
        let hasher = BatchHasher::new(self.built());
        let mut chunk = [0u64; BATCH_CHUNK];
        loop {
            let n = hasher.fill(&mut items, &mut chunk);
            let start = out.len();
            out.resize(start + n, false);
            self.probe_many(&chunk[..n], &mut out[start..]);
            if n < BATCH_CHUNK {
                return out;
            }
        }
    }

    /// As [`CuckooFilter::contains_batch_into`].
    ///
    /// # Errors
    /// [`LengthMismatch`] if `out` is not as long as `items`.
    fn contains_batch_into<I>(&self, items: I, out: &mut [bool]) -> Result<usize, LengthMismatch>
    where
        I: IntoIterator,
        I::Item: Key,
        I::IntoIter: ExactSizeIterator,
    {
        let mut items = items.into_iter();
        check_lengths(items.len(), out.len())?;
        let hasher = BatchHasher::new(self.built());
        let mut chunk = [0u64; BATCH_CHUNK];
        let (mut done, mut hits) = (0, 0);
        // An iterator whose `len` was wrong stops at `out`'s end or its own.
        while done < out.len() {
            let room = (out.len() - done).min(BATCH_CHUNK);
            let n = hasher.fill(&mut items, &mut chunk[..room]);
            hits += self.probe_many(&chunk[..n], &mut out[done..done + n]);
            done += n;
            if n < room {
                break;
            }
        }
        Ok(hits)
    }

    /// As [`CuckooFilter::count`].
    fn count<K: Key + ?Sized>(&self, item: &K) -> usize {
        self.tally(self.hash_item(item))
    }

    /// As [`CuckooFilter::hash_item`].
    #[inline]
    fn hash_item<K: Key + ?Sized>(&self, item: &K) -> u64 {
        let config = self.built();
        config
            .keys
            .hash(&StableHasher::with_seed(config.seed), item)
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

    /// As [`CuckooFilter::shape`].
    fn shape(&self) -> Shape {
        let (built, now) = (self.built(), self.now());
        Shape {
            buckets: now.buckets,
            bucket_size: built.bucket_size,
            slots: now.slots(),
            fingerprint_bits: now.fingerprint_bits,
            semi_sorted: built.semi_sorted,
            seed: built.seed,
            false_positive_rate_at_capacity: now.false_positive_rate(now.design_load()),
        }
    }

    /// As [`CuckooFilter::load_factor`].
    fn load_factor(&self) -> f64 {
        self.len() as f64 / self.now().slots() as f64
    }

    /// As [`CuckooFilter::expected_false_positive_rate`].
    fn expected_false_positive_rate(&self) -> f64 {
        self.now().false_positive_rate(self.load_factor())
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

/// Keys a batch hashes ahead of its lookups or inserts: a batch takes any
/// iterator, so it hashes up to this many into a buffer on the stack, then
/// runs the pipelined loop over them (`table/batch.rs`), which needs each
/// key's hash by its index. 512 hashes are 4 KiB of stack; the loop's
/// prefetching restarts once per chunk, which out of cache exposes about
/// one memory latency per 512 keys (docs/benchmarks.md, "Batches from
/// iterators").
pub(crate) const BATCH_CHUNK: usize = 512;

/// A batch's key hash, seeded once: cloned per key, not derived from the
/// seed each time (a dozen instructions a key not hoisted out of the loop).
pub(crate) struct BatchHasher {
    seeded: StableHasher,
    keys: KeyHash,
}

impl BatchHasher {
    #[inline]
    pub(crate) fn new(config: &Config) -> Self {
        BatchHasher {
            seeded: StableHasher::with_seed(config.seed),
            keys: config.keys,
        }
    }

    /// Hashes the next keys of `items` into `chunk`, as many as fit or
    /// are left; returns how many.
    #[inline]
    pub(crate) fn fill<I>(&self, items: &mut I, chunk: &mut [u64]) -> usize
    where
        I: Iterator,
        I::Item: Key,
    {
        let mut n = 0;
        // Asks `items` for a key only while there is room for its hash.
        while n < chunk.len() {
            let Some(item) = items.next() else { break };
            chunk[n] = self.keys.hash(&self.seeded, &item);
            n += 1;
        }
        n
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
        /// assert!(filter.contains(&[b'b'])); // inserted as b"b"
        /// assert!(!filter.contains("absent"));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn contains<K: Key + ?Sized>(&self, item: &K) -> bool {
            <Self as ReadFilter>::contains(self, item)
        }

        /// The hash `insert`/`contains` use for `item`: for a byte string or an
        /// integer, the hash of its bytes (docs/format.md, "Keys"); for
        /// [`ByHash`](crate::ByHash), through its `Hash` impl; for
        /// [`PreHashed`](crate::PreHashed), its hash. A filter loaded from a file
        /// of format version 1 to 3 hashes every key through its `Hash` impl, as
        /// the file's filter did (docs/format.md, "Keys").
        ///
        #[doc = $setup]
        /// use cuckoo_nest::StableHasher;
        /// assert_eq!(filter.hash_item("k"), StableHasher::hash_key_bytes(filter.shape().seed, b"k"));
        /// assert_eq!(filter.hash_item(&7u32), filter.hash_item(&7u32.to_le_bytes()));
        /// // A pre-hashed key is its hash.
        /// let h = filter.hash_item("k");
        /// assert_eq!(filter.hash_item(&cuckoo_nest::PreHashed(h)), h);
        /// assert!(filter.contains(&cuckoo_nest::PreHashed(h)));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[inline]
        #[must_use]
        pub fn hash_item<K: Key + ?Sized>(&self, item: &K) -> u64 {
            <Self as ReadFilter>::hash_item(self, item)
        }
    };
}

impl CuckooFilter {
    lookup_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert(b\"b\")?;"
    );
}

impl<B: AsRef<[u8]>> FilterView<B> {
    lookup_methods!(
        "```\nlet filter = cuckoo_nest::CuckooFilter::with_capacity(1000);\nfilter.insert(\"k\")?;\nfilter.insert(b\"b\")?;\nlet bytes = filter.to_bytes();\nlet filter = cuckoo_nest::FilterView::new(&bytes)?;"
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
            Inner::Growable(any) => with_growable!(any, g => g.config_now(&self.config)),
            _ => self.config,
        }
    }

    fn items(&self) -> usize {
        with_table!(&self.inner, t => t.len(), g => g.len())
    }

    /// Inlined into the caller's loop, so the shape's `match` can be
    /// hoisted out of it, in a build without debug assertions; out of line
    /// in one with them (`cargo test`), so the tests' crate does not compile
    /// every shape's lookup again for each key type it looks up (the test
    /// profile in Cargo.toml has the figures).
    #[cfg_attr(not(debug_assertions), inline(always))]
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
    fn probe_many(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        if with_table!(&self.inner, t => t.wide_batches(), _g => false) {
            return self.probe_many_wide(hashes, out);
        }
        with_table!(
            &self.inner,
            t => t.contains_many::<DEFAULT_DISTANCE>(hashes, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(hashes, out)
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
    fn probe_many_wide(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        with_table!(
            &self.inner,
            t => t.contains_many_wide::<DEFAULT_DISTANCE>(hashes, out),
            g => g.contains_many::<DEFAULT_DISTANCE>(hashes, out)
        )
    }
}
