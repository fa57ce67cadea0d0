//! A filter's configuration, checked once: the shapes the table supports,
//! the bits a bucket takes, the load a shape is sized for and the
//! false-positive rate it gives. The builder chooses a configuration; a
//! saved header carries one; both check it here.

use crate::error::BuildError;
use crate::key::KeyHash;
use std::fmt;

/// Bucket sizes the table supports.
///
/// ```
/// use cuckoo_nest::{BuildError, CuckooFilter, BUCKET_SIZES};
/// for b in BUCKET_SIZES {
///     let filter = CuckooFilter::builder().capacity(100).bucket_size(b).build()?;
///     assert_eq!(filter.shape().bucket_size, b);
/// }
/// let err = CuckooFilter::builder().capacity(100).bucket_size(16).build().unwrap_err();
/// assert_eq!(err, BuildError::UnsupportedBucketSize { bucket_size: 16 });
/// # Ok::<(), BuildError>(())
/// ```
pub const BUCKET_SIZES: [usize; 3] = [2, 4, 8];
/// Fingerprint widths the table supports, in bits. 8, 16 and 32 use the
/// SIMD kernels; the others are packed back to back.
///
/// ```
/// use cuckoo_nest::{BuildError, CuckooFilter, FINGERPRINT_BITS};
/// for bits in FINGERPRINT_BITS {
///     let filter = CuckooFilter::builder().capacity(100).fingerprint_bits(bits).build()?;
///     assert_eq!(filter.shape().fingerprint_bits, bits);
/// }
/// let err = CuckooFilter::builder().capacity(100).fingerprint_bits(64).build().unwrap_err();
/// assert_eq!(err, BuildError::UnsupportedFingerprintBits { bits: 64 });
/// # Ok::<(), BuildError>(())
/// ```
pub const FINGERPRINT_BITS: std::ops::RangeInclusive<u32> = 4..=32;

/// The load a table of `b`-slot buckets with `f`-bit fingerprints is sized
/// for: a little under the load at which inserts start failing, measured
/// per shape (`tests/it/load.rs` prints and checks it; docs/design.md has the
/// table). Small fingerprints give each bucket fewer distinct alternates,
/// so their tables fill less.
pub(crate) fn design_load(b: usize, f: u32) -> f64 {
    DESIGN_LOADS
        .iter()
        .find(|&&(bb, from, _)| bb == b && f >= from)
        .map_or(0.5, |&(_, _, load)| load)
}

/// The load at which a growable filter's generation grows, and for which
/// its first generation is sized: 95% of the design load of its keys'
/// width. A generation fills from half this load to this load, so twice
/// the share of its inserts land near the top as when one table fills
/// from empty, and the last few points before the design load are where
/// displacement costs most (docs/design.md gives the instructions an
/// insert costs at each choice). The price is memory: 1/0.95, 5% more
/// bits per item.
pub(crate) fn growth_load(b: usize, key_bits: u32) -> f64 {
    design_load(b, key_bits) * 0.95
}

/// (bucket size, smallest width, design load), widest first per size.
/// Loads at the first failed insert, filling 2^16-bucket tables with random
/// keys (docs/design.md): b = 2: 0.567 at f = 4 (2^18 buckets; 0.664 on
/// 2^16: with 15 fingerprints a bucket has few alternates, and the load
/// falls as the table grows), 0.884-0.895 from f = 5;
/// b = 4: 0.955 at f = 4, 0.969-0.975 from f = 5; b = 8: 0.982 at f = 4,
/// 0.993-0.995 from f = 5. Each design load keeps at least 1.5 points below
/// the lowest of those, so `capacity` random inserts fit in small tables
/// too (`tests/it/load.rs` checks it for every shape).
const DESIGN_LOADS: &[(usize, u32, f64)] = &[
    (2, 8, 0.85),
    (2, 5, 0.80),
    (2, 4, 0.45),
    (4, 5, 0.95),
    (4, 4, 0.93),
    (8, 5, 0.98),
    (8, 4, 0.96),
];

/// The false-positive rate at load `alpha`: a lookup compares against
/// `2 * b * alpha` occupied slots on average, each matching with
/// probability `1 / (2^f - 1)` (fingerprints are never 0).
pub(crate) fn false_positive_rate(b: usize, f: u32, alpha: f64) -> f64 {
    let per_slot = 1.0 / ((1u64 << f) - 1) as f64;
    1.0 - (1.0 - per_slot).powf(2.0 * b as f64 * alpha)
}

/// Bucket counts above this are refused (2^48 buckets of 16 bits is
/// already 512 TiB, past any machine's address space).
pub(crate) const MAX_BUCKETS: usize = 1 << 48;

/// Bits one bucket takes in the table (docs/format.md): `b * f`, or `4f - 4`
/// for a semi-sorted bucket (four slots whose high nibbles share a 12-bit
/// index).
pub(crate) const fn bucket_bits(b: usize, f: u32, semi_sorted: bool) -> usize {
    if semi_sorted {
        // Saturating: a layout of run-time width asks with `f = 0` and
        // throws the answer away (`layout::bits::fixed_or`).
        (4 * f as usize).saturating_sub(4)
    } else {
        b * f as usize
    }
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
    pub(crate) semi_sorted: bool,
    /// A growable filter's generation (`grow/`); `None` for a fixed one.
    /// Then `buckets`, `capacity` and `fingerprint_bits` are the current
    /// generation's: `local << depth` buckets, the first capacity doubled
    /// `depth` times, fingerprints of `key_bits + spare - depth` bits.
    pub(crate) growth: Option<Growth>,
    /// How the generic methods hash a key: as bytes, or (a filter loaded
    /// from a file of format version 1 to 3) through `std::hash::Hash`.
    pub(crate) keys: KeyHash,
}

/// How a growable filter's generation stores its items
/// ([`Nested`](crate::table::Nested) addressing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Growth {
    /// Bits of each item's key: what the false-positive rate needs.
    pub(crate) key_bits: u32,
    /// Spare bits the first generation stores beyond the key: the
    /// doublings the filter can take.
    pub(crate) spare: u32,
    /// Doublings taken.
    pub(crate) depth: u32,
    /// Chains before the current one (docs/design.md, "Growth past the
    /// spare bits"): 0 until the first chain's spare bits are spent. For a
    /// later chain, `key_bits` and `spare` are that chain's.
    pub(crate) chain: u32,
    /// True if the filter starts a new chain when its spare bits are spent
    /// (no [`max_capacity`](crate::Builder::max_capacity) was given); else
    /// it refuses with `MaxCapacity` there.
    pub(crate) unbounded: bool,
}

impl Growth {
    /// The stored fingerprint's width at this depth.
    pub(crate) fn width(&self) -> u32 {
        self.key_bits + self.spare - self.depth
    }
}

impl Config {
    /// Checks a shape: bucket size, fingerprint width, semi-sorted (which
    /// needs 4-slot buckets). What the builder and a saved header both ask.
    pub(crate) fn check_shape(b: usize, f: u32, semi_sorted: bool) -> Result<(), BuildError> {
        if !BUCKET_SIZES.contains(&b) {
            return Err(BuildError::UnsupportedBucketSize { bucket_size: b });
        }
        if !FINGERPRINT_BITS.contains(&f) {
            return Err(BuildError::UnsupportedFingerprintBits { bits: f });
        }
        if semi_sorted && b != 4 {
            return Err(BuildError::SemiSortedNeedsFourSlots { bucket_size: b });
        }
        Ok(())
    }

    /// (bucket size, width, semi-sorted): what picks the table's shape.
    pub(crate) fn shape(&self) -> (usize, u32, bool) {
        (self.bucket_size, self.fingerprint_bits, self.semi_sorted)
    }

    /// Slots in the table; for a growable filter past its spare bits, in
    /// every chain's table (the earlier chains' and the current one's).
    pub(crate) fn slots(&self) -> usize {
        self.earlier_chains()
            .iter()
            .fold(self.buckets, |sum, a| sum.saturating_add(a.buckets()))
            .saturating_mul(self.bucket_size)
    }

    /// The false-positive rate expected at load `alpha`: for a growable
    /// filter past its spare bits, the sum of every chain's at that load
    /// (a lookup reads each).
    pub(crate) fn false_positive_rate(&self, alpha: f64) -> f64 {
        self.earlier_chains()
            .iter()
            .fold(
                false_positive_rate(self.bucket_size, self.fingerprint_bits, alpha),
                |p, a| p + false_positive_rate(self.bucket_size, a.width(), alpha),
            )
            .min(1.0)
    }

    /// A growable filter's earlier chains' final generations
    /// ([`Nested::earlier_chains`](crate::table::Nested::earlier_chains)): none
    /// for one in its first chain and for a fixed filter.
    fn earlier_chains(&self) -> Vec<crate::table::Nested> {
        match self.growth {
            Some(g) if g.chain > 0 => crate::table::Nested::of(g, self.buckets).earlier_chains(),
            _ => Vec::new(),
        }
    }

    /// The load this shape is sized for.
    pub(crate) fn design_load(&self) -> f64 {
        design_load(self.bucket_size, self.fingerprint_bits)
    }
}

/// The fields the Debug output of a filter and of a view open with: shape,
/// len, slots, load, capacity (never below len: see `CuckooFilter`'s `Debug`).
pub(crate) fn debug_shape<'d, 'a, 'b>(
    d: &'d mut fmt::DebugStruct<'a, 'b>,
    config: &Config,
    len: usize,
) -> &'d mut fmt::DebugStruct<'a, 'b> {
    let load = len as f64 / config.slots() as f64;
    d.field("shape", &format_args!("{}", ShapeName(config)))
        .field("len", &len)
        .field("slots", &config.slots())
        .field("load", &format_args!("{:.1}%", 100.0 * load))
        .field("capacity", &config.capacity.max(1).max(len))
}

/// `4 x 16 bits`, `4 x 13 bits, semi-sorted`.
pub(crate) struct ShapeName<'a>(pub(crate) &'a Config);

impl fmt::Display for ShapeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(f, "{} x {} bits", c.bucket_size, c.fingerprint_bits)?;
        if c.semi_sorted {
            f.write_str(", semi-sorted")?;
        }
        Ok(())
    }
}
