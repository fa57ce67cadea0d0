//! The filters under measurement, each behind a small adapter.
//!
//! Every adapter takes the keys through the filter's own `&T: Hash` API, so each filter does its
//! own hashing as a user's code would. The loops over a slice of keys live in the trait's
//! provided methods, which Rust compiles once per filter type: the timed loops call each filter
//! directly (inlined), and dynamic dispatch happens once per slice, not once per key.

use std::collections::hash_map::DefaultHasher;

use cuckoo_nest::CuckooFilter as Nest;
use xorf::Filter as _;

use crate::cli::NestConfig;
use crate::plot::Rgb;

/// Colours of the peers, kept with their definitions below.
pub const CUCKOOFILTER_COLOR: Rgb = Rgb(0x00, 0x72, 0xb2);
pub const BLOOM_COLOR: Rgb = Rgb(0x2c, 0xa0, 0x2c);
pub const QUOTIENT_COLOR: Rgb = Rgb(0x33, 0x22, 0x88);
pub const XOR_COLOR: Rgb = Rgb(0xcc, 0x79, 0xa7);
/// cuckoo-nest's `contains_batch`: near black, apart from the red default.
pub const BATCHED_COLOR: Rgb = Rgb(0x22, 0x22, 0x22);

/// Whether a filter is filled key by key or built once from all its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dynamic,
    Static,
}

type Build = Box<dyn Fn(&[u64]) -> Result<Box<dyn Subject>, String>>;

/// One filter of the single-thread figures, as data: its label, its colour, and how to build it.
pub struct Contender {
    pub label: String,
    pub color: Rgb,
    /// The colour of its batch-lookup line, when the filter has a batch lookup path measured.
    pub batched: Option<Rgb>,
    pub kind: Kind,
    /// Builds a fresh filter; a static filter is built from the keys, a dynamic one ignores them.
    build: Build,
}

impl Contender {
    pub fn build(&self, keys: &[u64]) -> Result<Box<dyn Subject>, String> {
        (self.build)(keys)
    }

    /// The label of the batch-lookup line.
    pub fn batched_label(&self) -> String {
        format!("{}, batched", self.label)
    }
}

/// Every filter of the single-thread figures: the cuckoo-nest configurations, then the peers.
/// A configuration that cannot be built is skipped with a warning.
pub fn single_contenders(configs: &[NestConfig], n: usize, fpr: f64, seed: u64) -> Vec<Contender> {
    let mut out = Vec::new();
    for &config in configs {
        if let Err(e) = build_nest(config, n) {
            eprintln!("warning: skipped {e}");
            continue;
        }
        // Batch lookups are timed for the default configuration only, to keep the run short.
        let batched = config == NestConfig::Default;
        out.push(Contender {
            label: config.label(),
            color: config.color(),
            batched: batched.then_some(BATCHED_COLOR),
            kind: Kind::Dynamic,
            build: Box::new(move |_| {
                let filter = build_nest(config, n)?;
                Ok(Box::new(NestSubject { filter, batched }) as Box<dyn Subject>)
            }),
        });
    }
    let dynamic = |label: &str, color, build: Build| Contender {
        label: label.to_string(),
        color,
        batched: None,
        kind: Kind::Dynamic,
        build,
    };
    out.push(dynamic(
        "cuckoofilter 0.5 (4x8)",
        CUCKOOFILTER_COLOR,
        Box::new(move |_| Ok(Box::new(CuckooFilterSubject::new(n)) as Box<dyn Subject>)),
    ));
    out.push(dynamic(
        "fastbloom 0.17 (Bloom)",
        BLOOM_COLOR,
        Box::new(move |_| Ok(Box::new(BloomSubject::new(n, fpr, seed)) as Box<dyn Subject>)),
    ));
    match QuotientSubject::new(n, fpr) {
        Ok(_) => out.push(dynamic(
            "qfilter 0.3 (quotient)",
            QUOTIENT_COLOR,
            Box::new(move |_| Ok(Box::new(QuotientSubject::new(n, fpr)?) as Box<dyn Subject>)),
        )),
        Err(e) => eprintln!("warning: skipped {e}"),
    }
    out.push(Contender {
        label: "xorf 0.13 (BinaryFuse16, static)".to_string(),
        color: XOR_COLOR,
        batched: None,
        kind: Kind::Static,
        build: Box::new(|keys| Ok(Box::new(XorSubject::build(keys)?) as Box<dyn Subject>)),
    });
    out
}

/// How a filter reaches its "items at capacity" (the paper's Table 3 column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// A cuckoo filter: filled until its first failed insert.
    UntilFailure,
    /// Bloom and quotient filters: the capacity they were configured for.
    Configured,
}

/// One filter driven by one thread.
pub trait Subject {
    fn insert_key(&mut self, key: &u64) -> bool;
    fn contains_key(&self, key: &u64) -> bool;
    /// `None`: the filter cannot delete (a Bloom filter), the default.
    fn remove_key(&mut self, _key: &u64) -> Option<bool> {
        None
    }
    fn memory_bytes(&self) -> usize;
    /// Table slots, for filters that have them (cuckoo filters); `None` by default.
    fn slots(&self) -> Option<usize> {
        None
    }
    fn expected_fpr(&self, items: usize) -> f64;
    /// `Configured` by default: filled to the capacity it was built for.
    fn growth(&self) -> Growth {
        Growth::Configured
    }
    /// Whether Figure 8 deletes from it: true by default.
    fn can_remove(&self) -> bool {
        true
    }

    /// Inserts `keys` in order; returns how many went in before the first failure.
    fn insert_all(&mut self, keys: &[u64]) -> usize {
        for (i, k) in keys.iter().enumerate() {
            if !self.insert_key(k) {
                return i;
            }
        }
        keys.len()
    }

    /// How many of `keys` the filter says it holds.
    fn count_hits(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.contains_key(k)).count()
    }

    /// Removes `keys`; returns how many were found, or `None` when the filter cannot remove.
    fn remove_all(&mut self, keys: &[u64]) -> Option<usize> {
        let mut found = 0;
        for k in keys {
            found += usize::from(self.remove_key(k)?);
        }
        Some(found)
    }

    // BATCHED LOOKUPS: the nest adapter overrides this with `contains_batch` (see
    // `NestSubject`); the other filters have no batch API and keep the default.
    /// Lookups through the filter's batch API, where it has one (`None` otherwise).
    fn count_hits_batched(&self, _keys: &[u64]) -> Option<usize> {
        None
    }
}

// --- cuckoo-nest ---------------------------------------------------------------------------

pub struct NestSubject {
    pub filter: Nest,
    /// Also time lookups through `contains_batch` (done for the default configuration only, to
    /// keep the run short).
    pub batched: bool,
}

pub fn build_nest(config: NestConfig, capacity: usize) -> Result<Nest, String> {
    let built = match config {
        NestConfig::Default => return Ok(Nest::with_capacity(capacity)),
        NestConfig::Shape {
            bucket_size,
            fingerprint_bits,
        } => Nest::builder()
            .capacity(capacity)
            .bucket_size(bucket_size)
            .fingerprint_bits(fingerprint_bits)
            .build(),
        NestConfig::SemiSorted { fingerprint_bits } => Nest::builder()
            .capacity(capacity)
            .bucket_size(4)
            .fingerprint_bits(fingerprint_bits)
            .semi_sorted(true)
            .build(),
        NestConfig::FalsePositiveRate(p) => Nest::builder()
            .capacity(capacity)
            .false_positive_rate(p)
            .build(),
    };
    built.map_err(|e| format!("{}: {e}", config.label()))
}

impl Subject for NestSubject {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.filter.insert(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.filter.remove(key))
    }
    fn memory_bytes(&self) -> usize {
        self.filter.memory_usage()
    }
    fn slots(&self) -> Option<usize> {
        Some(self.filter.shape().slots)
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        self.filter.expected_false_positive_rate()
    }
    fn growth(&self) -> Growth {
        // A growable filter never refuses an insert: filled to the count asked for.
        if self.filter.max_capacity().is_some() {
            Growth::Configured
        } else {
            Growth::UntilFailure
        }
    }

    // BATCHED LOOKUPS: cuckoo-nest's `contains_batch`, fed in chunks of `BATCH` keys the way a
    // caller with a stream of keys would use it.
    fn count_hits_batched(&self, keys: &[u64]) -> Option<usize> {
        self.batched
            .then(|| nest_contains_batched(&self.filter, keys))
    }
}

/// Keys per `contains_batch` call: large enough to amortise the call, small enough for the
/// answers to stay in L1.
pub const BATCH: usize = 1024;

/// Counts hits through `CuckooFilter::contains_batch`, one chunk of [`BATCH`] keys at a time.
pub fn nest_contains_batched(filter: &Nest, keys: &[u64]) -> usize {
    let mut out = [false; BATCH];
    keys.chunks(BATCH)
        .map(|chunk| {
            let out = &mut out[..chunk.len()];
            // The lengths match by construction, so the error case cannot happen.
            filter.contains_batch_into(chunk, out).unwrap_or(0)
        })
        .sum()
}

// --- cuckoofilter (axiomhq), 4 entries x 8-bit fingerprints, SipHash ------------------------

pub struct CuckooFilterSubject {
    pub filter: cuckoofilter::CuckooFilter<DefaultHasher>,
    capacity: usize,
}

impl CuckooFilterSubject {
    pub fn new(capacity: usize) -> Self {
        CuckooFilterSubject {
            filter: cuckoofilter::CuckooFilter::with_capacity(capacity),
            capacity,
        }
    }
}

/// The crate rounds the slot count up to a power of two (`with_capacity`).
pub fn cuckoofilter_slots(capacity: usize) -> usize {
    capacity.next_power_of_two().max(4)
}

impl Subject for CuckooFilterSubject {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.filter.add(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.filter.delete(key))
    }
    fn memory_bytes(&self) -> usize {
        self.filter.memory_usage()
    }
    fn slots(&self) -> Option<usize> {
        Some(cuckoofilter_slots(self.capacity))
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        // 2b / 2^f with b = 4 entries per bucket and f = 8 fingerprint bits.
        8.0 / 256.0
    }
    fn growth(&self) -> Growth {
        Growth::UntilFailure
    }
}

// --- fastbloom: a classic Bloom filter (k probes over one bit array) sized for a target rate -

pub struct BloomSubject {
    pub filter: fastbloom::BloomFilter,
}

impl BloomSubject {
    pub fn new(capacity: usize, fpr: f64, seed: u64) -> Self {
        BloomSubject {
            filter: fastbloom::BloomFilter::with_false_pos(fpr)
                .seed(&u128::from(seed))
                .expected_items(capacity),
        }
    }
}

impl Subject for BloomSubject {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.filter.insert(key);
        true
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    fn memory_bytes(&self) -> usize {
        self.filter.num_bits() / 8
    }
    fn expected_fpr(&self, items: usize) -> f64 {
        self.filter.expected_false_pos(items)
    }
    fn can_remove(&self) -> bool {
        false
    }
}

// --- qfilter: rank-select quotient filter ----------------------------------------------------

pub struct QuotientSubject {
    pub filter: qfilter::Filter,
}

impl QuotientSubject {
    pub fn new(capacity: usize, fpr: f64) -> Result<Self, String> {
        qfilter::Filter::new(capacity as u64, fpr)
            .map(|filter| QuotientSubject { filter })
            .map_err(|e| format!("qfilter: {e}"))
    }
}

impl Subject for QuotientSubject {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        // Duplicates allowed, as in a cuckoo filter's plain insert.
        self.filter.insert_duplicated(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.filter.remove(key))
    }
    fn memory_bytes(&self) -> usize {
        self.filter.memory_usage()
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        self.filter.max_error_ratio()
    }
}

// --- xorf: a static binary fuse filter, built once from all keys -----------------------------

/// Built from a key slice; lookups only. Its native key type is `u64`, which it mixes itself.
pub struct XorSubject {
    pub filter: xorf::BinaryFuse16,
}

impl XorSubject {
    pub fn build(keys: &[u64]) -> Result<Self, String> {
        xorf::BinaryFuse16::try_from(keys)
            .map(|filter| XorSubject { filter })
            .map_err(|e| format!("xorf: {e}"))
    }
}

impl Subject for XorSubject {
    fn insert_key(&mut self, _key: &u64) -> bool {
        false
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.filter.fingerprints)
            + std::mem::size_of::<xorf::BinaryFuse16>()
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        1.0 / 65536.0
    }
    fn can_remove(&self) -> bool {
        false
    }
}
