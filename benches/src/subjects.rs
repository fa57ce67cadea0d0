//! The filters under measurement, each behind a small adapter that takes the keys through the
//! filter's own `&T: Hash` API; the timers of the timed loops, on one thread or many; and the
//! parallel fill that sets up the large filters. The loops over a slice of keys
//! are the trait's provided methods, compiled once per filter type: dynamic dispatch happens once
//! per slice, not once per key.

use std::collections::hash_map::DefaultHasher;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::Instant;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::present_key;
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

type Build = Box<dyn Fn(&[u64]) -> Result<Box<dyn Subject>, String>>;

/// One filter of the single-thread figures, as data: its label, its colour, and how to build it.
pub struct Contender {
    pub label: String,
    pub color: Rgb,
    /// Whether its batch lookups are measured too (a line of their own in Figure 5).
    pub batched: bool,
    /// Built once from all its keys (`build` takes them), not filled key by key.
    pub is_static: bool,
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
    let contender = |label: &str, color, batched, build| Contender {
        label: label.to_string(),
        color,
        batched,
        is_static: false,
        build,
    };
    // Batch lookups are timed for the default configuration only, to keep the run short.
    let nests = configs.iter().map(|&c| {
        let build: Build = Box::new(move |_| Ok(Box::new(build_nest(c, n)?)));
        contender(&c.label(), c.color(), c == NestConfig::Default, build)
    });
    let peers: [(&str, Rgb, Build); 3] = [
        ("cuckoofilter 0.5 (4x8)", CUCKOOFILTER_COLOR, {
            Box::new(move |_| Ok(Box::new(PeerSubject(Peer::with_capacity(n), n))))
        }),
        ("fastbloom 0.17 (Bloom)", BLOOM_COLOR, {
            Box::new(move |_| Ok(Box::new(bloom(n, fpr, seed))))
        }),
        ("qfilter 0.3 (quotient)", QUOTIENT_COLOR, {
            Box::new(move |_| Ok(Box::new(quotient(n, fpr)?)))
        }),
    ];
    let peers = peers.map(|(label, color, build)| contender(label, color, false, build));
    let xorf = Contender {
        is_static: true,
        ..contender("xorf 0.13 (BinaryFuse16, static)", XOR_COLOR, false, {
            Box::new(|keys| {
                let filter =
                    xorf::BinaryFuse16::try_from(keys).map_err(|e| format!("xorf: {e}"))?;
                Ok(Box::new(filter))
            })
        })
    };
    // Each dynamic filter is built once here, so that one that cannot be is left out.
    let buildable = |c: &Contender| {
        if c.is_static {
            Ok(())
        } else {
            (c.build)(&[]).map(drop)
        }
    };
    (nests.chain(peers).chain([xorf]))
        .filter(|c| {
            buildable(c)
                .map_err(|e| eprintln!("warning: skipped {e}"))
                .is_ok()
        })
        .collect()
}

/// One filter driven by one thread.
pub trait Subject {
    fn insert_key(&mut self, key: &u64) -> bool;
    fn contains_key(&self, key: &u64) -> bool;
    /// `None`: the filter cannot delete (a Bloom filter).
    fn remove_key(&mut self, key: &u64) -> Option<bool>;
    fn memory_bytes(&self) -> usize;
    /// Table slots, for filters that have them (cuckoo filters).
    fn slots(&self) -> Option<usize>;
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

/// `Subject` for each type, with `f` the filter, `k` the key (or keys) and `n` the items it
/// holds: its insert, lookup and remove (`None`: it cannot remove), its memory in bytes, its
/// table slots (`None`: it has none), its expected false-positive rate, and where it has a batch
/// API its batch lookups of the keys `k`.
macro_rules! subject {
    ($($t:ty: |$f:ident, $k:ident, $n:ident| $insert:expr, $contains:expr, $remove:expr,
        $bytes:expr, $slots:expr, $fpr:expr $(, $batched:expr)?;)*) => {$(
        #[allow(unused_variables)]
        impl Subject for $t {
            #[inline]
            fn insert_key(&mut self, $k: &u64) -> bool {
                let $f = self;
                $insert
            }
            #[inline]
            fn contains_key(&self, $k: &u64) -> bool {
                let $f = self;
                $contains
            }
            #[inline]
            fn remove_key(&mut self, $k: &u64) -> Option<bool> {
                let $f = self;
                $remove
            }
            fn memory_bytes(&self) -> usize {
                let $f = self;
                $bytes
            }
            fn slots(&self) -> Option<usize> {
                let $f = self;
                $slots
            }
            fn expected_fpr(&self, $n: usize) -> f64 {
                let $f = self;
                $fpr
            }
            $(fn count_hits_batched(&self, $k: &[u64]) -> Option<usize> {
                let $f = self;
                $batched
            })?
        }
    )*};
}
pub(crate) use subject;

/// The `cuckoofilter` crate's filter, as every part builds it.
pub type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

/// The `cuckoofilter` filter (axiomhq: 4 entries x 8-bit fingerprints, SipHash) and the capacity
/// it was built for.
pub struct PeerSubject(Peer, usize);

/// A Bloom filter (fastbloom: k probes over one bit array) sized for `capacity` items at
/// false-positive rate `fpr`.
pub fn bloom(capacity: usize, fpr: f64, seed: u64) -> fastbloom::BloomFilter {
    fastbloom::BloomFilter::with_false_pos(fpr)
        .seed(&u128::from(seed))
        .expected_items(capacity)
}

/// A rank-select quotient filter (qfilter) sized for `capacity` items at false-positive rate `fpr`.
pub fn quotient(capacity: usize, fpr: f64) -> Result<qfilter::Filter, String> {
    qfilter::Filter::new(capacity as u64, fpr).map_err(|e| format!("qfilter: {e}"))
}

// cuckoofilter: the crate rounds the slot count up to a power of two (`with_capacity`); its
// rate is 2b / 2^f with b = 4 entries per bucket and f = 8 fingerprint bits. fastbloom cannot
// remove. qfilter: duplicates allowed, as in a cuckoo filter's plain insert. xorf: a static binary
// fuse filter, built from a key slice (its native key type is `u64`, which it mixes itself):
// lookups only.
subject! {
    Nest: |f, k, n| f.insert(k).is_ok(), f.contains(k), Some(f.remove(k)), f.memory_usage(),
        Some(f.shape().slots), f.expected_false_positive_rate(), Some(nest_contains_batched(f, k));
    PeerSubject: |f, k, n| f.0.add(k).is_ok(), f.0.contains(k), Some(f.0.delete(k)),
        f.0.memory_usage(), Some(f.1.next_power_of_two().max(4)), 8.0 / 256.0;
    fastbloom::BloomFilter: |f, k, n| { f.insert(k); true }, f.contains(k), None,
        f.num_bits() / 8, None, f.expected_false_pos(n);
    qfilter::Filter: |f, k, n| f.insert_duplicated(k).is_ok(), f.contains(k), Some(f.remove(k)),
        f.memory_usage(), None, f.max_error_ratio();
    xorf::BinaryFuse16: |f, k, n| false, xorf::Filter::contains(f, k), None,
        size_of_val(&*f.fingerprints) + size_of::<xorf::BinaryFuse16>(), None, 1.0 / 65536.0;
}

/// Runs `work(t)` on `threads` threads released together: the seconds from the first thread's
/// start to the last one's end, each read by its thread (the spawner may be descheduled).
pub fn timed_threads(threads: usize, work: &(dyn Fn(usize) -> usize + Sync)) -> f64 {
    let barrier = Barrier::new(threads);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let start = Instant::now();
                    black_box(work(t));
                    (start, Instant::now())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let start = spans.iter().map(|s| s.0).min();
    let end = spans.iter().map(|s| s.1).max();
    start
        .zip(end)
        .map_or(1e-9, |(a, b)| (b - a).as_secs_f64().max(1e-9))
}

/// Part `i` of `v` cut into `parts` equal parts (the rest left out).
pub fn chunk(v: &[u64], parts: usize, i: usize) -> &[u64] {
    let len = v.len() / parts;
    &v[i * len..(i + 1) * len]
}

/// Keys a filling thread claims and inserts with one `insert_batch` call.
const FILL_CHUNK: usize = 1 << 12;

/// Inserts `present_key(seed, 0..target)` into `filter` from `threads` threads, chunk by chunk
/// with `insert_batch` (which overlaps the inserts' cache misses): sets up large filters.
pub fn fill_parallel(filter: &Nest, seed: u64, target: usize, threads: usize) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut chunk = Vec::with_capacity(FILL_CHUNK);
                loop {
                    let start = next.fetch_add(FILL_CHUNK, Ordering::Relaxed);
                    if start >= target {
                        break;
                    }
                    chunk.clear();
                    let end = (start + FILL_CHUNK).min(target);
                    chunk.extend((start..end).map(|i| present_key(seed, i as u64)));
                    // At these fills nothing fails; a failure would leave it a little emptier.
                    let _ = filter.insert_batch(&chunk);
                }
            });
        }
    });
}
