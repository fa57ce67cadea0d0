//! Thread scaling: one filter shared by 1..=N threads (`std::thread::scope`), aggregate ops/s.
//!
//! cuckoo-nest is shared by `&` (its methods take `&self`); the `cuckoofilter` crate needs
//! `&mut self` to insert, so it is measured inside a `Mutex` and inside an `RwLock`, the two ways
//! a user would share it; fastbloom's `AtomicBloomFilter` is shared by `&`.

use std::hint::black_box;
use std::sync::{Barrier, Mutex, RwLock};
use std::time::Instant;

use crate::cli::NestConfig;
use crate::keys::Keys;
use crate::progress::Phase;
use crate::subjects::{build_nest, Shared};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Lookups,
    Inserts,
    /// 90% lookups, 10% inserts.
    Mixed90,
    /// 50% lookups, 50% inserts.
    Mixed50,
}

impl Job {
    pub const ALL: [Job; 4] = [Job::Lookups, Job::Inserts, Job::Mixed90, Job::Mixed50];

    pub fn title(self) -> &'static str {
        match self {
            Job::Lookups => "lookups",
            Job::Inserts => "inserts",
            Job::Mixed90 => "mixed 90% lookups / 10% inserts",
            Job::Mixed50 => "mixed 50% lookups / 50% inserts",
        }
    }

    /// File-name part of the table and CSV.
    pub fn file(self) -> &'static str {
        match self {
            Job::Lookups => "lookups_fill90",
            Job::Inserts => "inserts_0_to_80",
            Job::Mixed90 => "mixed_90_10",
            Job::Mixed50 => "mixed_50_50",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    Nest,
    CuckooMutex,
    CuckooRwLock,
    AtomicBloom,
}

impl Contender {
    pub const ALL: [Contender; 4] = [
        Contender::Nest,
        Contender::CuckooMutex,
        Contender::CuckooRwLock,
        Contender::AtomicBloom,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Contender::Nest => "cuckoo-nest default (4x16), shared by &",
            Contender::CuckooMutex => "cuckoofilter in Mutex",
            Contender::CuckooRwLock => "cuckoofilter in RwLock",
            Contender::AtomicBloom => "fastbloom AtomicBloomFilter",
        }
    }

    fn build(self, n: usize, fpr: f64, seed: u64) -> Result<Box<dyn Shared>, String> {
        Ok(match self {
            Contender::Nest => Box::new(build_nest(NestConfig::Default, n)?),
            Contender::CuckooMutex => {
                Box::new(Mutex::new(cuckoofilter::CuckooFilter::with_capacity(n)))
            }
            Contender::CuckooRwLock => {
                Box::new(RwLock::new(cuckoofilter::CuckooFilter::with_capacity(n)))
            }
            Contender::AtomicBloom => Box::new(
                fastbloom::AtomicBloomFilter::with_false_pos(fpr)
                    .seed(&u128::from(seed))
                    .expected_items(n),
            ),
        })
    }
}

/// Fill levels of the scaling runs, as fractions of n.
pub const LOOKUP_FILL: f64 = 0.9;
pub const MIXED_FILL: f64 = 0.4;
pub const INSERT_FILL: f64 = 0.8;

/// Thread counts measured: every count up to 8, then powers of two, and always `max`.
pub fn thread_counts(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (1..=max.min(8)).collect();
    let mut t = 16;
    while t < max {
        v.push(t);
        t *= 2;
    }
    if !v.contains(&max) {
        v.push(max);
    }
    v
}

/// `results[job][contender][i]`: M ops/s at `counts[i]` threads.
pub struct Scaling {
    pub counts: Vec<usize>,
    pub results: Vec<Vec<Vec<Option<f64>>>>,
}

/// Runs `work(t)` on `threads` threads released together; returns the seconds from the first
/// thread's start to the last thread's end. Each thread reads the clock itself: the spawning
/// thread may be descheduled at the start line on a busy machine.
fn timed_threads(threads: usize, work: &(dyn Fn(usize) -> usize + Sync)) -> f64 {
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
    match (start, end) {
        (Some(a), Some(b)) => (b - a).as_secs_f64().max(1e-9),
        _ => 1e-9,
    }
}

fn chunk(v: &[u64], parts: usize, i: usize) -> &[u64] {
    let len = v.len() / parts;
    &v[i * len..(i + 1) * len]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Every run is repeated `reps` times (on a fresh filter where the run writes); the median
/// M ops/s is kept.
pub fn run(
    keys: &Keys,
    n: usize,
    max_threads: usize,
    positive_fraction: f64,
    fpr: f64,
    reps: usize,
    phase: &Phase,
) -> Result<Scaling, String> {
    let reps = reps.max(1);
    let counts = thread_counts(max_threads);
    let lookup_fill = (n as f64 * LOOKUP_FILL) as usize;
    let mixed_fill = (n as f64 * MIXED_FILL) as usize;
    let insert_total = (n as f64 * INSERT_FILL) as usize;
    // Same query stream for every contender and thread count; each thread takes a slice.
    let lookups = keys.queries(n, lookup_fill, positive_fraction, 300);
    let mixed_reads = keys.queries(n, mixed_fill, positive_fraction, 301);
    let mut results = vec![vec![vec![None; counts.len()]; Contender::ALL.len()]; Job::ALL.len()];

    for (c, contender) in Contender::ALL.iter().enumerate() {
        let name = contender.name();
        // Lookups: one filter filled to 90%, reused for every thread count.
        phase.message(format!("{name}: fill for lookups"));
        let filter = contender.build(n, fpr, keys.seed)?;
        filter.insert_all(&keys.present[..lookup_fill]);
        for (i, &t) in counts.iter().enumerate() {
            phase.message(format!("{name}: lookups, {t} threads"));
            let ops = lookups.len() / t * t;
            let rates = (0..reps)
                .map(|_| {
                    let secs = timed_threads(t, &|k| filter.count_hits(chunk(&lookups, t, k)));
                    ops as f64 / secs / 1e6
                })
                .collect();
            results[0][c][i] = Some(median(rates));
            phase.inc();
        }
        drop(filter);

        for (i, &t) in counts.iter().enumerate() {
            // Inserts: empty filter to 80%, keys split between the threads.
            phase.message(format!("{name}: inserts, {t} threads"));
            let batch = &keys.present[..insert_total];
            let mut rates = Vec::new();
            for _ in 0..reps {
                let filter = contender.build(n, fpr, keys.seed)?;
                let secs = timed_threads(t, &|k| filter.insert_all(chunk(batch, t, k)));
                rates.push((batch.len() / t * t) as f64 / secs / 1e6);
            }
            results[1][c][i] = Some(median(rates));
            phase.inc();

            // Mixed: from 40% full; writes insert fresh keys, so the fill ends at most at 90%.
            for (j, period) in [(2usize, 10usize), (3, 2)] {
                phase.message(format!("{name}: {}, {t} threads", Job::ALL[j].title()));
                let ops_per_thread = n / t;
                let writes = &keys.present[mixed_fill..mixed_fill + n / period];
                let mut rates = Vec::new();
                for _ in 0..reps {
                    let filter = contender.build(n, fpr, keys.seed)?;
                    filter.insert_all(&keys.present[..mixed_fill]);
                    let secs = timed_threads(t, &|k| {
                        filter.mixed(
                            ops_per_thread,
                            period,
                            chunk(&mixed_reads, t, k),
                            chunk(writes, t, k),
                        )
                    });
                    rates.push((ops_per_thread * t) as f64 / secs / 1e6);
                }
                results[j][c][i] = Some(median(rates));
                phase.inc();
            }
        }
    }
    Ok(Scaling { counts, results })
}
