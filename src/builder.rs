//! Configuration: from a capacity and a false-positive rate to a bucket size,
//! a fingerprint width and a bucket count.

use crate::error::BuildError;
use crate::CuckooFilter;

/// Bucket sizes the table supports.
pub const BUCKET_SIZES: [usize; 3] = [2, 4, 8];
/// Fingerprint widths the table supports, in bits.
pub const FINGERPRINT_BITS: [u32; 3] = [8, 16, 32];

/// The load a table of bucket size `b` is sized for: a little under the
/// load at which inserts start failing (about 84%, 95% and 98% for 2, 4 and
/// 8 slots; paper section 5.1), so `capacity` items fit with headroom.
pub(crate) fn design_load(b: usize) -> f64 {
    match b {
        2 => 0.80,
        4 => 0.92,
        _ => 0.95,
    }
}

/// The false-positive rate at load `alpha`: a lookup compares against
/// `2 * b * alpha` occupied slots on average, each matching with
/// probability `1 / (2^f - 1)` (fingerprints are never 0).
pub(crate) fn false_positive_rate(b: usize, f: u32, alpha: f64) -> f64 {
    let per_slot = 1.0 / ((1u64 << f) - 1) as f64;
    1.0 - (1.0 - per_slot).powf(2.0 * b as f64 * alpha)
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
    reference_kernel: bool,
}

/// A chosen configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Config {
    pub(crate) bucket_size: usize,
    pub(crate) fingerprint_bits: u32,
    pub(crate) buckets: usize,
    pub(crate) capacity: usize,
    pub(crate) seed: u64,
    pub(crate) huge_pages: bool,
    pub(crate) reference_kernel: bool,
}

/// Bucket counts above this are refused (2^48 buckets of 16 bits is
/// already 512 TiB, past any machine's address space).
const MAX_BUCKETS: usize = 1 << 48;

impl Builder {
    /// The number of items the filter must hold. Required, at least 1.
    pub fn capacity(mut self, items: usize) -> Self {
        self.capacity = Some(items);
        self
    }

    /// The false-positive rate wanted at full capacity, strictly between 0
    /// and 1.
    pub fn false_positive_rate(mut self, rate: f64) -> Self {
        self.false_positive_rate = Some(rate);
        self
    }

    /// Fingerprints per bucket: 2, 4 or 8.
    pub fn bucket_size(mut self, slots: usize) -> Self {
        self.bucket_size = Some(slots);
        self
    }

    /// Fingerprint width: 8, 16 or 32 bits.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// Seeds the hasher used by `insert`/`contains`/`remove` (default 0).
    /// For keys an adversary chooses, use a random seed kept secret, so the
    /// adversary cannot aim many keys at the same buckets. (The hash is
    /// fast, not cryptographic; for stronger guarantees hash keys with a
    /// keyed hash yourself and use the `*_hash` methods.)
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Whether tables of 4 MiB or more are 2 MiB-aligned and advised for
    /// transparent huge pages on Linux (default: yes). Random lookups over
    /// a large table miss the TLB less with huge pages; turning this off is
    /// for measuring that, or for systems where huge pages are unwelcome.
    pub fn huge_pages(mut self, enabled: bool) -> Self {
        self.no_huge_pages = !enabled;
        self
    }

    /// Compares fingerprints with the scalar reference kernel instead of
    /// the SIMD one, so benchmarks can measure both in one run. Only for
    /// 4 x 16-bit buckets; ignored otherwise.
    #[doc(hidden)]
    pub fn reference_kernel(mut self, enabled: bool) -> Self {
        self.reference_kernel = enabled;
        self
    }

    /// Sets the exact bucket count instead of deriving it from the capacity
    /// (for tests and models that need a tiny table).
    #[doc(hidden)]
    pub fn buckets(mut self, buckets: usize) -> Self {
        self.buckets = Some(buckets);
        self
    }

    pub(crate) fn config(&self) -> Result<Config, BuildError> {
        let capacity = match self.capacity {
            Some(0) | None if self.buckets.is_none() => return Err(BuildError::ZeroCapacity),
            c => c.unwrap_or(0),
        };
        if let Some(rate) = self.false_positive_rate {
            if !(rate > 0.0 && rate < 1.0) {
                return Err(BuildError::InvalidFalsePositiveRate { rate });
            }
        }
        if let Some(b) = self.bucket_size {
            if !BUCKET_SIZES.contains(&b) {
                return Err(BuildError::UnsupportedBucketSize { bucket_size: b });
            }
        }
        if let Some(f) = self.fingerprint_bits {
            if !FINGERPRINT_BITS.contains(&f) {
                return Err(BuildError::UnsupportedFingerprintBits { bits: f });
            }
        }
        let (b, f) = self.choose()?;
        let alpha = design_load(b);
        let buckets = match self.buckets {
            Some(m) => m.max(1),
            None => {
                let per_bucket = b as f64 * alpha;
                let m = (capacity as f64 / per_bucket).ceil();
                // One spare bucket keeps tiny tables from failing early.
                if m >= MAX_BUCKETS as f64 {
                    return Err(BuildError::CapacityTooLarge { capacity });
                }
                m as usize + 1
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
        let sized_for = ((buckets * b) as f64 * alpha) as usize;
        Ok(Config {
            bucket_size: b,
            fingerprint_bits: f,
            buckets,
            capacity: sized_for,
            seed: self.seed,
            huge_pages: !self.no_huge_pages,
            reference_kernel: self.reference_kernel,
        })
    }

    /// Picks (bucket size, fingerprint bits): the ones given, else the
    /// cheapest in bits per item that meets the rate at full load.
    fn choose(&self) -> Result<(usize, u32), BuildError> {
        let Some(rate) = self.false_positive_rate else {
            return Ok((
                self.bucket_size.unwrap_or(4),
                self.fingerprint_bits.unwrap_or(16),
            ));
        };
        let mut best: Option<(f64, usize, u32)> = None;
        let mut lowest_rate = f64::INFINITY;
        for &b in &BUCKET_SIZES {
            for &f in &FINGERPRINT_BITS {
                if self.bucket_size.is_some_and(|x| x != b)
                    || self.fingerprint_bits.is_some_and(|x| x != f)
                {
                    continue;
                }
                let p = false_positive_rate(b, f, design_load(b));
                lowest_rate = lowest_rate.min(p);
                if p > rate {
                    continue;
                }
                let bits = f as f64 / design_load(b);
                // Ties (none today) go to the smaller bucket: fewer compares.
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
    pub fn build(self) -> Result<CuckooFilter, BuildError> {
        CuckooFilter::from_config(self.config()?)
    }
}
