//! From the builder's settings to a checked configuration: the shape with
//! the fewest bits per item that meets the false-positive rate, the bucket
//! count, and a growable filter's spare bits.

use super::Builder;
use crate::config::{
    bucket_bits, design_load, false_positive_rate, growth_load, Config, Growth, BUCKET_SIZES,
    FINGERPRINT_BITS, MAX_BUCKETS,
};
use crate::error::BuildError;
use crate::grow::SPARE_BITS;
use crate::key::KeyHash;

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

impl Builder {
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
        let spare = self.growth_spare_bits(capacity)?;
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
            chain: 0,
            unbounded: self.max_capacity.is_none(),
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
            // Every filter built now hashes its keys as bytes, format version 5.
            keys: KeyHash::Lanes,
        })
    }

    /// The spare fingerprint bits of a growable filter (`None` for a fixed
    /// one): one per doubling until the capacity reaches the maximum.
    fn growth_spare_bits(&self, capacity: usize) -> Result<Option<u32>, BuildError> {
        let invalid = |max_capacity, reason| BuildError::InvalidMaxCapacity {
            max_capacity,
            reason,
        };
        if let (Some(_), Some(m)) = (self.spare_bits, self.max_capacity) {
            return Err(invalid(
                m,
                "a maximum capacity sets the spare bits: not with Builder::spare_bits",
            ));
        }
        match (self.growable, self.max_capacity) {
            (false, None) => Ok(None),
            (false, Some(m)) => Err(invalid(
                m,
                "only a growable filter has a maximum capacity: call Builder::growable(true)",
            )),
            (true, None) => Ok(Some(self.spare_bits.unwrap_or(SPARE_BITS))),
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
