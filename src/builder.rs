//! [`Builder`]: from a capacity and a false-positive rate to a bucket size,
//! a fingerprint width and a bucket count, the fewest bits per item that
//! meet the rate.

use crate::config::{
    bucket_bits, design_load, false_positive_rate, growth_load, Config, Growth, BUCKET_SIZES,
    FINGERPRINT_BITS, MAX_BUCKETS,
};
use crate::error::BuildError;
use crate::filter::CuckooFilter;
use crate::grow::SPARE_BITS;

/// How many (bucket pair, fingerprint) classes are expected to receive more
/// than `2b` of `n` random items: each such class makes an insert fail
/// with [`InsertError::TooManyCopies`](crate::InsertError::TooManyCopies)
/// however empty the table. About `m (2^f - 1) / 2` classes share the items
/// (a class is a fingerprint and a primary bucket, two primaries per pair),
/// each receiving Poisson(`lambda`) of them. Matters only for small
/// fingerprints in 2-slot buckets: the builder skips shapes where it is not
/// negligible.
fn copies_overflow_expected(b: usize, f: u32, n: usize) -> f64 {
    let m = n as f64 / (b as f64 * design_load(b, f));
    let classes = m * ((1u64 << f) - 1) as f64 / 2.0;
    if classes <= 0.0 {
        return 0.0;
    }
    let lambda = n as f64 / classes;
    // P(Poisson(lambda) > 2b): the tail from 2b + 1, summed until it
    // vanishes.
    let (mut term, mut tail) = ((-lambda).exp(), 0.0);
    for k in 1..=(2 * b + 40) {
        term *= lambda / k as f64;
        if k > 2 * b {
            tail += term;
        }
    }
    classes * tail
}

/// Builds a [`CuckooFilter`] from a capacity and, optionally, a target
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
/// assert!(filter.expected_false_positive_rate_at_capacity() <= 0.01);
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
    /// assert!(filter.expected_false_positive_rate_at_capacity() <= 0.001);
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
    /// assert_eq!(filter.bucket_size(), 8);
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
    /// assert_eq!(filter.fingerprint_bits(), 12);
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
    /// any other bucket size is [`BuildError::SemiSortedNeedsFourSlots`]).
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
    /// assert!(filter.is_semi_sorted());
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
    /// keyed hash yourself and use the `*_hash` methods.)
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let a = CuckooFilter::builder().capacity(1000).seed(1).build()?;
    /// let b = CuckooFilter::builder().capacity(1000).seed(2).build()?;
    /// assert_eq!(a.seed(), 1);
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
    /// No insert pays for the copy: the larger table is allocated before
    /// the step and backed by a short-lived thread (`cuckoo-nest-back`),
    /// and after
    /// it each write copies one 16-bucket chunk of the old table (a
    /// remove or unique insert first copies the one or two chunks its
    /// item lies in), until the writes have copied it all. Below
    /// [`max_capacity`](Self::max_capacity) an insert is refused only for
    /// keys crafted to collide
    /// ([`InsertError::Crowded`](crate::InsertError::Crowded),
    /// [`InsertError::TooManyCopies`](crate::InsertError::TooManyCopies):
    /// the filter grows for load, not for them) or when the allocator
    /// refuses the larger table
    /// ([`InsertError::GrowthFailed`](crate::InsertError::GrowthFailed)),
    /// with nothing lost; at it, with
    /// [`InsertError::MaxCapacity`](crate::InsertError::MaxCapacity). [`capacity`](crate::CuckooFilter::capacity)
    /// reports the current capacity, doubled at each step.
    ///
    /// The false-positive rate given holds at every size: fingerprints
    /// start with spare bits (7 by default: 128 times the first capacity),
    /// and each doubling spends one on telling the two halves of the larger
    /// table apart, so a fingerprint never has fewer bits than the rate
    /// needs. The cost, against a filter built for the final count
    /// (docs/design.md, "Growth"): at 8 times the first capacity, about 1.5
    /// times its bits per item, batch lookups about 1.3 times as long and
    /// single ones about 1.5 times, inserts (growth included) about 2
    /// times. Not
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
    #[must_use = "a builder method returns the changed builder"]
    pub fn growable(mut self, enabled: bool) -> Self {
        self.growable = enabled;
        self
    }

    /// The capacity past which a growable filter stops growing: it grows
    /// while its capacity is below `items` (so it ends at `items` or up to
    /// twice that, as [`CuckooFilter::max_capacity`](crate::CuckooFilter::max_capacity)
    /// says), then inserts may return
    /// [`InsertError::MaxCapacity`](crate::InsertError::MaxCapacity). Default: 128 times
    /// the capacity. Each doubling needs one spare fingerprint bit, so a
    /// lower maximum saves memory (a filter allowed to grow 4 times stores
    /// 2 spare bits, not 7) and a higher one costs it.
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
    /// [`BuildError::InvalidMaxCapacity`], a maximum without
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
    /// 1; 0 buckets is [`BuildError::ZeroBuckets`].
    ///
    /// ```
    /// # #[cfg(feature = "internals")] {
    /// use cuckoo_nest::{BuildError, CuckooFilter};
    /// let filter = CuckooFilter::builder().buckets(4).build().unwrap();
    /// assert_eq!(filter.buckets(), 4);
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

    pub(crate) fn config(&self) -> Result<Config, BuildError> {
        let capacity = match (self.capacity, self.buckets) {
            (None, None) => return Err(BuildError::NoCapacity),
            (Some(0), None) => return Err(BuildError::ZeroCapacity),
            (c, _) => c.unwrap_or(0),
        };
        if let Some(rate) = self.false_positive_rate
            && !(rate > 0.0 && rate < 1.0)
        {
            return Err(BuildError::InvalidFalsePositiveRate { rate });
        }
        Config::check_shape(
            self.bucket_size.unwrap_or(4),
            self.fingerprint_bits.unwrap_or(16),
            self.semi_sorted,
        )?;
        let spare = self.spare_bits(capacity)?;
        if let Some(spare) = spare {
            // The width given, or the narrowest a rate could pick.
            let f = self.fingerprint_bits.unwrap_or(*FINGERPRINT_BITS.start());
            self.check_room_for_spare(f, spare)?;
        }
        if spare.is_some() && self.semi_sorted {
            return Err(BuildError::GrowableSemiSorted);
        }
        let (b, f) = self.choose(32 - spare.unwrap_or(0))?;
        if let Some(spare) = spare {
            self.check_room_for_spare(f, spare)?;
        }
        // A growable filter is sized for the load it grows at.
        let alpha = if spare.is_some() {
            growth_load(b, f)
        } else {
            design_load(b, f)
        };
        let buckets = match self.buckets {
            Some(0) => return Err(BuildError::ZeroBuckets),
            Some(m) => m,
            None => {
                let per_bucket = b as f64 * alpha;
                // Spare buckets: the load at the first failure varies more
                // the smaller the table (a 120-slot table of 2-slot
                // buckets fails anywhere from 77% on), so about sqrt(n)
                // extra slots; under 0.1% of the table past 10^6 items.
                let spare = 1.0 + (capacity as f64).sqrt().ceil() / b as f64;
                let m = (capacity as f64 / per_bucket).ceil() + spare.ceil();
                if m >= MAX_BUCKETS as f64 {
                    return Err(BuildError::CapacityTooLarge { capacity });
                }
                m as usize
            }
        };
        if buckets > MAX_BUCKETS {
            return Err(match self.buckets {
                Some(_) => BuildError::TooManyBuckets {
                    buckets,
                    max: MAX_BUCKETS,
                },
                None => BuildError::CapacityTooLarge { capacity },
            });
        }
        // What the table was sized for: the capacity asked for, or, for an
        // exact bucket count, what that many buckets hold at the design load,
        // rounded down but at least 1: any table (two slots or more) holds
        // one item, and a capacity of 0 would stay 0 through every doubling
        // of a growable filter.
        let sized_for = match self.buckets {
            Some(_) => (((buckets * b) as f64 * alpha) as usize).max(1),
            None => capacity,
        };
        let growth = spare.map(|spare| Growth {
            key_bits: f,
            spare,
            depth: 0,
        });
        Ok(Config {
            bucket_size: b,
            // A growable filter's first generation stores the key and
            // every spare bit.
            fingerprint_bits: growth.map_or(f, |g| g.width()),
            buckets,
            capacity: sized_for,
            seed: self.seed,
            huge_pages: !self.no_huge_pages,
            semi_sorted: self.semi_sorted,
            growth,
        })
    }

    /// The spare fingerprint bits of a growable filter (`None` for a fixed
    /// one): one per doubling until the capacity reaches the maximum.
    fn spare_bits(&self, capacity: usize) -> Result<Option<u32>, BuildError> {
        let invalid = |max_capacity, reason| BuildError::InvalidMaxCapacity {
            max_capacity,
            reason,
        };
        match (self.growable, self.max_capacity) {
            (false, None) => Ok(None),
            (false, Some(m)) => Err(invalid(
                m,
                "only a growable filter has a maximum capacity: call Builder::growable(true)",
            )),
            (true, None) => Ok(Some(SPARE_BITS)),
            (true, Some(m)) if m < capacity => Err(invalid(m, "below the capacity")),
            (true, Some(m)) => {
                // Doublings until the capacity reaches `m` (at least one:
                // a generation needs a spare bit to have a next).
                let doublings = (1..32)
                    .find(|&d| (capacity.max(1) as u128) << d >= m as u128)
                    .unwrap_or(32);
                Ok(Some(doublings))
            }
        }
    }

    /// Refuses a growable filter whose keys of `key_bits` bits leave no
    /// room for `spare` bits in a 32-bit fingerprint.
    fn check_room_for_spare(&self, key_bits: u32, spare: u32) -> Result<(), BuildError> {
        if key_bits + spare <= 32 {
            return Ok(());
        }
        Err(match self.max_capacity {
            Some(max_capacity) => BuildError::InvalidMaxCapacity {
                max_capacity,
                reason: "more doublings than the fingerprints have spare bits for",
            },
            None => BuildError::GrowableFingerprintTooWide {
                bits: key_bits,
                max: 32 - spare,
            },
        })
    }

    /// Picks (bucket size, fingerprint bits): the ones given, else, among
    /// every bucket size and width (semi-sorted ones only, with
    /// `semi_sorted(true)`), the fewest bits per item at the design load
    /// that meets the rate at capacity, of at most `max_bits` bits (a
    /// growable filter's keys leave room for its spare bits).
    fn choose(&self, max_bits: u32) -> Result<(usize, u32), BuildError> {
        let Some(rate) = self.false_positive_rate else {
            let b = self.bucket_size.unwrap_or(4);
            return Ok((b, self.fingerprint_bits.unwrap_or(16)));
        };
        let mut best: Option<(f64, usize, u32)> = None;
        let mut lowest_rate = f64::INFINITY;
        for b in BUCKET_SIZES {
            for f in FINGERPRINT_BITS {
                if self.bucket_size.is_some_and(|x| x != b)
                    || self.fingerprint_bits.is_some_and(|x| x != f)
                    || (self.semi_sorted && b != 4)
                    || f > max_bits
                {
                    continue;
                }
                if copies_overflow_expected(b, f, self.capacity.unwrap_or(0)) > 1e-4 {
                    // Too few fingerprints for this many items: some pair
                    // of buckets would be asked for more than 2b copies.
                    continue;
                }
                let load = design_load(b, f);
                let p = false_positive_rate(b, f, load);
                lowest_rate = lowest_rate.min(p);
                if p > rate {
                    continue;
                }
                let bits = bucket_bits(b, f, self.semi_sorted) as f64 / b as f64 / load;
                // Ties go to the first found: the smaller bucket.
                if best.is_none_or(|(c, _, _)| bits < c) {
                    best = Some((bits, b, f));
                }
            }
        }
        best.map(|(_, b, f)| (b, f))
            .ok_or(BuildError::FalsePositiveRateUnreachable {
                requested: rate,
                best: lowest_rate,
            })
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_overflow_risk_is_small_fingerprints_in_small_buckets() {
        // 2-slot buckets with 5-bit fingerprints: about one overfull class
        // in a million items; 4-slot buckets need nine items in one class.
        assert!(copies_overflow_expected(2, 5, 1_000_000) > 0.1);
        assert!(copies_overflow_expected(2, 12, 1_000_000) < 1e-6);
        assert!(copies_overflow_expected(4, 5, 1_000_000) < 1e-4);
        assert!(copies_overflow_expected(4, 8, 1 << 40) < 1e-4);
    }
}
