//! The filters under measurement, each behind a small adapter that takes the keys through the
//! filter's own `&T: Hash` API, and the timers of the timed loops. The loops over a slice of keys
//! are the trait's provided methods, compiled once per filter type: dynamic dispatch happens once
//! per slice, not once per key.

use std::collections::hash_map::DefaultHasher;
use std::hint::black_box;
use std::time::Instant;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::stats::mops;

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
    /// Whether its batch lookups are measured too (a line of their own in Figure 5).
    pub batched: bool,
    pub kind: Kind,
    /// Builds a fresh filter; a static filter is built from the keys, a dynamic one ignores them.
    pub build: Build,
}

impl Contender {
    pub fn batched_label(&self) -> String {
        format!("{}, batched", self.label)
    }
}

/// Every filter of the single-thread figures: the cuckoo-nest configurations, then the peers.
/// A filter that cannot be built is skipped with a warning.
pub fn single_contenders(configs: &[NestConfig], n: usize, fpr: f64, seed: u64) -> Vec<Contender> {
    let nests = configs.iter().map(|&config| Contender {
        label: config.label(),
        color: config.color(),
        // Batch lookups are timed for the default configuration only, to keep the run short.
        batched: config == NestConfig::Default,
        kind: Kind::Dynamic,
        build: Box::new(move |_| Ok(Box::new(build_nest(config, n)?))),
    });
    let peer = |label: &str, color, build: Build| Contender {
        label: label.to_string(),
        color,
        batched: false,
        kind: Kind::Dynamic,
        build,
    };
    let xorf = |keys: &[u64]| -> Result<Box<dyn Subject>, String> {
        Ok(Box::new(
            xorf::BinaryFuse16::try_from(keys).map_err(|e| format!("xorf: {e}"))?,
        ))
    };
    let peers = [
        peer("cuckoofilter 0.5 (4x8)", CUCKOOFILTER_COLOR, {
            Box::new(move |_| Ok(Box::new(CuckooFilterSubject::new(n))))
        }),
        peer("fastbloom 0.17 (Bloom)", BLOOM_COLOR, {
            Box::new(move |_| Ok(Box::new(bloom(n, fpr, seed))))
        }),
        peer("qfilter 0.3 (quotient)", QUOTIENT_COLOR, {
            Box::new(move |_| Ok(Box::new(quotient(n, fpr)?)))
        }),
        Contender {
            kind: Kind::Static,
            ..peer(
                "xorf 0.13 (BinaryFuse16, static)",
                XOR_COLOR,
                Box::new(xorf),
            )
        },
    ];
    // Each dynamic filter is built once here, so that one that cannot be is left out.
    let buildable = |c: &Contender| match c.kind {
        Kind::Static => Ok(()),
        Kind::Dynamic => (c.build)(&[]).map(drop),
    };
    let warn = |e| eprintln!("warning: skipped {e}");
    (nests.chain(peers))
        .filter(|c| buildable(c).map_err(warn).is_ok())
        .collect()
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
    /// Table slots, for filters that have them (cuckoo filters).
    fn slots(&self) -> Option<usize> {
        None
    }
    fn expected_fpr(&self, items: usize) -> f64;
    /// Inserts `keys` in order; returns how many went in before the first failure.
    fn insert_all(&mut self, keys: &[u64]) -> usize {
        keys.iter()
            .position(|k| !self.insert_key(k))
            .unwrap_or(keys.len())
    }

    fn count_hits(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.contains_key(k)).count()
    }

    /// Removes `keys`; returns how many were found, or `None` when the filter cannot remove.
    fn remove_all(&mut self, keys: &[u64]) -> Option<usize> {
        keys.iter()
            .map(|k| self.remove_key(k).map(usize::from))
            .sum()
    }

    /// Lookups through the filter's batch API, where it has one.
    fn count_hits_batched(&self, _keys: &[u64]) -> Option<usize> {
        None
    }
}

/// Runs `f` once: its result and the seconds it took.
#[inline]
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

/// One timed pass of `lookups` over `queries`, in M lookups/s.
pub fn lookup_rate(queries: &[u64], lookups: impl Fn(&[u64]) -> usize) -> Option<f64> {
    let ((), secs) = timed(|| {
        black_box(lookups(black_box(queries)));
    });
    mops(queries.len(), secs)
}

/// One timed pass of lookups over `queries` through `f`'s batch API, in M lookups/s; `None`
/// where it has none (nothing is timed then).
pub fn batch_rate(f: &dyn Subject, queries: &[u64]) -> Option<f64> {
    f.count_hits_batched(&[])?;
    lookup_rate(queries, |q| f.count_hits_batched(q).unwrap_or(0))
}

/// A filter being filled key by key, over several timed steps.
pub struct Filling {
    pub filter: Box<dyn Subject>,
    pub inserted: usize,
    /// Seconds spent inserting so far.
    pub secs: f64,
    /// An insert failed: the filter is measured no further.
    pub full: bool,
}

impl Filling {
    pub fn new(filter: Box<dyn Subject>) -> Filling {
        Filling {
            filter,
            inserted: 0,
            secs: 0.0,
            full: false,
        }
    }

    /// Inserts `keys[inserted..end]`, timed: the seconds, or `None` once an insert has failed.
    pub fn insert_to(&mut self, keys: &[u64], end: usize) -> Option<f64> {
        if self.full {
            return None;
        }
        let batch = &keys[self.inserted..end];
        let (got, secs) = timed(|| self.filter.insert_all(batch));
        self.secs += secs;
        self.inserted += got;
        self.full = got < batch.len();
        (!self.full).then_some(secs)
    }
}

// --- cuckoo-nest ---------------------------------------------------------------------------

pub fn build_nest(config: NestConfig, capacity: usize) -> Result<Nest, String> {
    let builder = Nest::builder().capacity(capacity);
    let builder = match config {
        NestConfig::Default => return Ok(Nest::with_capacity(capacity)),
        NestConfig::Shape(b, f) => builder.bucket_size(b).fingerprint_bits(f),
        NestConfig::SemiSorted(f) => builder.bucket_size(4).fingerprint_bits(f).semi_sorted(true),
        NestConfig::FalsePositiveRate(p) => builder.false_positive_rate(p),
    };
    builder
        .build()
        .map_err(|e| format!("{}: {e}", config.label()))
}

impl Subject for Nest {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.insert(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.remove(key))
    }
    fn memory_bytes(&self) -> usize {
        self.memory_usage()
    }
    fn slots(&self) -> Option<usize> {
        Some(self.shape().slots)
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        self.expected_false_positive_rate()
    }
    fn count_hits_batched(&self, keys: &[u64]) -> Option<usize> {
        Some(nest_contains_batched(self, keys))
    }
}

/// Keys per `contains_batch` call: enough to amortise the call, few enough to stay in L1.
pub const BATCH: usize = 1024;

/// Counts hits through `contains_batch`, [`BATCH`] keys a call, as a caller with a stream would.
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

/// The `cuckoofilter` crate's filter, as every part builds it.
pub type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

pub struct CuckooFilterSubject {
    filter: Peer,
    capacity: usize,
}

impl CuckooFilterSubject {
    pub fn new(capacity: usize) -> Self {
        CuckooFilterSubject {
            filter: Peer::with_capacity(capacity),
            capacity,
        }
    }
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
        // The crate rounds the slot count up to a power of two (`with_capacity`).
        Some(self.capacity.next_power_of_two().max(4))
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        // 2b / 2^f with b = 4 entries per bucket and f = 8 fingerprint bits.
        8.0 / 256.0
    }
}

// --- fastbloom: a classic Bloom filter (k probes over one bit array) sized for a target rate -

/// A Bloom filter sized for `capacity` items at false-positive rate `fpr`.
pub fn bloom(capacity: usize, fpr: f64, seed: u64) -> fastbloom::BloomFilter {
    fastbloom::BloomFilter::with_false_pos(fpr)
        .seed(&u128::from(seed))
        .expected_items(capacity)
}

impl Subject for fastbloom::BloomFilter {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.insert(key);
        true
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.contains(key)
    }
    fn memory_bytes(&self) -> usize {
        self.num_bits() / 8
    }
    fn expected_fpr(&self, items: usize) -> f64 {
        self.expected_false_pos(items)
    }
}

// --- qfilter: rank-select quotient filter ----------------------------------------------------

/// A quotient filter sized for `capacity` items at false-positive rate `fpr`.
pub fn quotient(capacity: usize, fpr: f64) -> Result<qfilter::Filter, String> {
    qfilter::Filter::new(capacity as u64, fpr).map_err(|e| format!("qfilter: {e}"))
}

impl Subject for qfilter::Filter {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        // Duplicates allowed, as in a cuckoo filter's plain insert.
        self.insert_duplicated(key).is_ok()
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.remove(key))
    }
    fn memory_bytes(&self) -> usize {
        self.memory_usage()
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        self.max_error_ratio()
    }
}

// --- xorf: a static binary fuse filter, built once from all keys -----------------------------

/// Built from a key slice; lookups only. Its native key type is `u64`, which it mixes itself.
impl Subject for xorf::BinaryFuse16 {
    fn insert_key(&mut self, _key: &u64) -> bool {
        false
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        xorf::Filter::contains(self, key)
    }
    fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.fingerprints) + std::mem::size_of::<xorf::BinaryFuse16>()
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        1.0 / 65536.0
    }
}
