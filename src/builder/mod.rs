//! [`Builder`]: from a capacity and a false-positive rate to a bucket size,
//! a fingerprint width and a bucket count, the fewest bits per item that
//! meet the rate.

//!
//! The settings are here; `choose.rs` turns them into a configuration;
//! the face (`face/mod.rs`) builds the filter from it.

mod choose;

/// Builds a [`CuckooFilter`](crate::CuckooFilter) from a capacity and, optionally, a target
/// false-positive rate, a bucket size, a fingerprint width and a hash seed.
///
/// Without a bucket size or fingerprint width, the builder picks the
/// configuration that meets the false-positive rate with the least memory
/// (default: 4 slots of 16 bits, about 1.2e-4 at full load).
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::builder()
///     .capacity(1_000_000)
///     .false_positive_rate(0.01)
///     .build()?;
/// assert!(filter.shape().false_positive_rate_at_capacity <= 0.01);
/// assert!(filter.capacity() >= 1_000_000);
/// # Ok::<(), cuckoo_nest::BuildError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Builder {
    capacity: Option<usize>,
    false_positive_rate: Option<f64>,
    bucket_size: Option<usize>,
    fingerprint_bits: Option<u32>,
    seed: u64,
    buckets: Option<usize>,
    no_huge_pages: bool,
    semi_sorted: bool,
    growable: bool,
    max_capacity: Option<usize>,
    /// A growable filter's spare bits without a maximum capacity, if not
    /// the default (`spare_bits`, behind `internals`).
    spare_bits: Option<u32>,
}

impl Builder {
    /// The number of items the filter must hold. Required, at least 1.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder().capacity(5000).build()?;
    /// assert_eq!(filter.capacity(), 5000);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn capacity(mut self, items: usize) -> Self {
        self.capacity = Some(items);
        self
    }

    /// The false-positive rate wanted at full capacity, strictly between 0
    /// and 1.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(10_000)
    ///     .false_positive_rate(0.001)
    ///     .build()?;
    /// assert!(filter.shape().false_positive_rate_at_capacity <= 0.001);
    /// // Fewer bits an item than the default's 16-bit fingerprints.
    /// assert!(filter.bits_per_item() < 16.0);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn false_positive_rate(mut self, rate: f64) -> Self {
        self.false_positive_rate = Some(rate);
        self
    }

    /// Fingerprints per bucket: 2, 4 or 8.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(1000)
    ///     .bucket_size(8)
    ///     .build()?;
    /// assert_eq!(filter.shape().bucket_size, 8);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn bucket_size(mut self, slots: usize) -> Self {
        self.bucket_size = Some(slots);
        self
    }

    /// Fingerprint width: 4 to 32 bits. 8, 16 and 32 use the SIMD kernels;
    /// other widths are packed back to back (a 12-bit fingerprint costs 12
    /// bits) and compared with a SWAR kernel.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(1000)
    ///     .fingerprint_bits(12)
    ///     .build()?;
    /// assert_eq!(filter.shape().fingerprint_bits, 12);
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// Semi-sorted buckets (paper section 5.2): the four fingerprints of a
    /// bucket ordered by their high 4 bits, which are stored as one 12-bit
    /// index, saving one bit per item. Needs 4-slot buckets (the default;
    /// any other bucket size is [`BuildError::SemiSortedNeedsFourSlots`](crate::BuildError::SemiSortedNeedsFourSlots)).
    /// Lookups decode the index (a table of 3,876 entries); every insert
    /// and remove re-encodes its bucket and makes concurrent lookups of that
    /// bucket retry.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder()
    ///     .capacity(100_000)
    ///     .false_positive_rate(0.001)
    ///     .semi_sorted(true)
    ///     .build()?;
    /// assert!(filter.shape().semi_sorted);
    /// filter.insert("k")?;
    /// assert!(filter.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn semi_sorted(mut self, enabled: bool) -> Self {
        self.semi_sorted = enabled;
        self
    }

    /// Seeds the hasher used by `insert`/`contains`/`remove` (default 0).
    /// For keys an adversary chooses, use a random seed kept secret, so the
    /// adversary cannot aim many keys at the same buckets. (The hash is
    /// fast, not cryptographic; for stronger guarantees hash keys with a
    /// keyed hash yourself and pass the hashes as
    /// [`PreHashed`](crate::PreHashed).)
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let a = CuckooFilter::builder().capacity(1000).seed(1).build()?;
    /// let b = CuckooFilter::builder().capacity(1000).seed(2).build()?;
    /// assert_eq!(a.shape().seed, 1);
    /// assert_ne!(a.hash_item("k"), b.hash_item("k"));
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Whether tables of 4 MiB or more are 2 MiB-aligned and advised for
    /// transparent huge pages on Linux (default: yes). Random lookups over
    /// a large table miss the TLB less with huge pages; turning this off is
    /// for measuring that, or for systems where huge pages are unwelcome.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::builder()
    ///     .capacity(1_000_000)
    ///     .huge_pages(false)
    ///     .build()?;
    /// filter.insert("k")?;
    /// assert!(filter.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use = "a builder method returns the changed builder"]
    pub fn huge_pages(mut self, enabled: bool) -> Self {
        self.no_huge_pages = !enabled;
        self
    }

    /// A filter that grows instead of filling up (default: no). When its
    /// table reaches 95% of its design load (the first table is sized for
    /// that load), an insert allocates a table twice as
    /// large and the filter moves into it while every other thread keeps
    /// using it: lookups never wait (they look in both tables meanwhile).
    /// No insert pays for the copy: the writes back the larger table's
    /// pages as they touch them, 4 KiB at a time, and a table of 4 MiB or
    /// more on huge pages is moved onto them by a short-lived thread once
    /// the copy is done (`cuckoo-nest-huge`; on Linux before 6.1 and other
    /// systems, where the kernel cannot collapse it, it is allocated before
    /// the step and backed by a short-lived thread, `cuckoo-nest-back`),
    /// and after the step each write copies the 8-bucket
    /// chunks of the old table its item lies in, or one more if those are
    /// copied already, until the writes have copied it all. Below
    /// [`max_capacity`](Self::max_capacity) an insert is refused only for
    /// an item whose two buckets hold nothing but copies of it
    /// ([`InsertError::TooManyCopies`](crate::InsertError::TooManyCopies):
    /// keys with up to `bucket_size` copies each grow the filter as
    /// distinct keys do), for distinct keys crafted to share a bucket pair
    /// ([`InsertError::Crowded`](crate::InsertError::Crowded): the filter
    /// grows for load, not for them), when the allocator refuses the
    /// larger table
    /// ([`InsertError::GrowthFailed`](crate::InsertError::GrowthFailed)),
    /// or when the system refuses the memory barrier a step needs (a
    /// seccomp filter that denies both `membarrier` and the `mprotect`
    /// fallback: [`InsertError::GrowthBlocked`](crate::InsertError::GrowthBlocked)),
    /// with nothing lost; at a [`max_capacity`](Self::max_capacity) if one
    /// was given, with
    /// [`InsertError::MaxCapacity`](crate::InsertError::MaxCapacity). [`capacity`](crate::CuckooFilter::capacity)
    /// reports the current capacity, doubled at each step.
    ///
    /// The false-positive rate given holds at every size: fingerprints
    /// start with spare bits (7 by default: 128 times the first capacity),
    /// and each doubling spends one on telling the two halves of the larger
    /// table apart, so a fingerprint never has fewer bits than the rate
    /// needs. With no maximum capacity, a filter whose spare bits are spent
    /// keeps its table as it is and starts a new *chain* with a table a
    /// quarter that size, keys two bits longer and spare bits of its own;
    /// lookups then read both chains' tables (4 buckets, all known from one
    /// hash), and the chains' rates sum to at most 4/3 of the first's,
    /// within the rate given: a second chain from 128 times the first
    /// capacity, a third from 16,384 times (docs/design.md, "Growth past
    /// the spare bits"). The cost, against a filter built for the final count
    /// (docs/benchmarks.md, "Growth"; 2-core hosts): at 8 times the first
    /// capacity, about 1.5 times its memory (2.6 times on average and 4.9
    /// at most through a fill from 100,000 to 6.4M items at 1%: a table is
    /// half to fully loaded, and one on huge pages also holds the next from
    /// 80% of its load), batch lookups about 1.2 times as long, single ones
    /// about 1.5 times, inserts (growth included) 2.0 to 2.3 times. Not
    /// with semi-sorted buckets, nor with fingerprints wider than 32 bits
    /// less the spare bits.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder()
    ///     .capacity(1000)
    ///     .false_positive_rate(0.01)
    ///     .growable(true)
    ///     .build()?;
    /// for k in 0..20_000u64 {
    ///     filter.insert(&k)?; // never Full: the filter doubles as it fills
    /// }
    /// assert!(filter.capacity() >= 20_000);
    /// assert!((0..20_000u64).all(|k| filter.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// While a save runs ([`save_to_path`](crate::CuckooFilter::save_to_path),
    /// [`save_seekable`](crate::CuckooFilter::save_seekable),
    /// `to_bytes`, `clone`, `merge`), the filter does not grow: the save
    /// holds the growth lock. Inserts then make room by displacement past
    /// the load the filter grows at, and an insert waits for the save, its
    /// I/O included, only if no displacement path has room (a table filled
    /// several points past that load during the save); it then grows the
    /// filter once the save ends.
    #[must_use = "a builder method returns the changed builder"]
    pub fn growable(mut self, enabled: bool) -> Self {
        self.growable = enabled;
        self
    }

    /// The capacity past which a growable filter stops growing: it grows
    /// while its capacity is below `items` (so it ends at `items` or up to
    /// twice that, as [`CuckooFilter::max_capacity`](crate::CuckooFilter::max_capacity)
    /// says), then inserts may return
    /// [`InsertError::MaxCapacity`](crate::InsertError::MaxCapacity). Default: none (the
    /// filter grows until memory runs out: past 128 times its capacity in
    /// chains of tables, see [`growable`](Self::growable)). Each doubling
    /// needs one spare fingerprint bit, so a maximum of up to 64 times the
    /// capacity saves memory (a filter allowed to grow 4 times stores 2
    /// spare bits, not 7), one from 65 to 128 times costs what none does
    /// (7), and one past 128 times costs more bits in every slot but keeps
    /// a single table a lookup reads, where chains read one table each.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, InsertError};
    /// let filter = CuckooFilter::builder()
    ///     .capacity(1000)
    ///     .growable(true)
    ///     .max_capacity(4000)
    ///     .build()?;
    /// let refused = (0..100_000u64).find_map(|k| filter.insert(&k).err());
    /// assert!(matches!(
    ///     refused,
    ///     Some(InsertError::MaxCapacity { max_capacity: 4000, .. })
    /// ));
    /// assert_eq!(filter.capacity(), 4000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`build`](Self::build) refuses, with
    /// [`BuildError::InvalidMaxCapacity`](crate::BuildError::InvalidMaxCapacity), a maximum without
    /// `growable(true)`, one below the capacity, and one that needs more
    /// spare bits than the fingerprint has room for.
    #[must_use = "a builder method returns the changed builder"]
    pub fn max_capacity(mut self, items: usize) -> Self {
        self.max_capacity = Some(items);
        self
    }

    /// Sets the exact bucket count instead of deriving it from the capacity
    /// (for tests and models that need a tiny table). Unstable: only with
    /// the `internals` feature. The filter's
    /// [`capacity`](crate::CuckooFilter::capacity) is then what that many
    /// buckets hold at the shape's design load, rounded down, and at least
    /// 1; 0 buckets is [`BuildError::ZeroBuckets`](crate::BuildError::ZeroBuckets).
    ///
    /// ```
    /// # #[cfg(feature = "internals")] {
    /// use cuckoo_nest::{BuildError, CuckooFilter};
    /// let filter = CuckooFilter::builder().buckets(4).build().unwrap();
    /// assert_eq!(filter.shape().buckets, 4);
    /// let err = CuckooFilter::builder().buckets(0).build().unwrap_err();
    /// assert_eq!(err, BuildError::ZeroBuckets);
    /// # }
    /// ```
    #[cfg(feature = "internals")]
    #[must_use = "a builder method returns the changed builder"]
    pub fn buckets(mut self, buckets: usize) -> Self {
        self.buckets = Some(buckets);
        self
    }

    /// The spare fingerprint bits a growable filter without a maximum
    /// capacity starts with, and each of its chains has (7 by default: see
    /// [`growable`](Self::growable)), so a model can reach a chain's start
    /// in a few doublings (for tests and models: loom replays a setup in
    /// every execution, and 7 growth steps are too many). Unstable: only
    /// with the `internals` feature. A filter with 1 spare bit has no bits
    /// to start a chain with (each chain's first table keeps 2 of the last
    /// one's block bits as spare bits): it stops after one doubling. A
    /// fixed filter ignores it. [`build`](Self::build) refuses it with
    /// [`max_capacity`](Self::max_capacity) (which sets the spare bits
    /// itself), and a filter whose keys leave no room for it.
    ///
    /// ```
    /// # #[cfg(feature = "internals")] {
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::builder()
    ///     .capacity(10)
    ///     .growable(true)
    ///     .spare_bits(2)
    ///     .build()
    ///     .unwrap();
    /// for k in 0..1000u64 {
    ///     filter.insert(&k).unwrap();
    /// }
    /// // Two doublings, then a second chain (and more).
    /// assert!(filter.statistics().tables >= 2);
    /// assert!((0..1000u64).all(|k| filter.contains(&k)));
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// If `bits` is not from 1 to 31.
    #[cfg(feature = "internals")]
    #[must_use = "a builder method returns the changed builder"]
    pub fn spare_bits(mut self, bits: u32) -> Self {
        assert!(
            (1..32).contains(&bits),
            "spare bits from 1 to 31, not {bits}"
        );
        self.spare_bits = Some(bits);
        self
    }
}
