//! What every criterion bench of this folder shares: criterion's settings, the peer they compare
//! with, the filled filters and their queries, and the lookup benches. Each bench file includes
//! it (`mod common;`) and uses what it needs.
#![allow(dead_code)]

use std::collections::hash_map::DefaultHasher;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup, Criterion};
use cuckoo_nest::{CuckooFilter, ReadFilter};
use cuckoo_nest_bench::keys::{mixed_queries, Keys};

/// The peer: the `cuckoofilter` crate (0.5), 4 x 8-bit buckets.
pub type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

/// Queries per measured iteration: enough that loop overhead is noise; a power of two.
pub const QUERIES: usize = 1 << 16;

/// One second of warm-up and three of measurement per bench, unless the command line says
/// otherwise (`cargo bench ... -- --measurement-time 10`).
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

/// The first `n` keys of `seed`, inserted into each of `filters` in one batch, and returned.
pub fn fill(seed: u64, n: usize, filters: &[&CuckooFilter]) -> Vec<u64> {
    let keys = Keys::generate(seed, n, 0).present;
    for f in filters {
        f.insert_batch(&keys).expect("sized for the keys");
    }
    keys
}

/// Times `fill` on a fresh filter from `build`, once per iteration; the build is timed too where
/// `timed_build` says so (as a filter's first table counts in its fill), untimed otherwise.
pub fn fills<F>(b: &mut Bencher, timed_build: bool, build: impl Fn() -> F, fill: impl Fn(&mut F)) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let t = Instant::now();
            let mut f = build();
            let t = if timed_build { t } else { Instant::now() };
            fill(&mut f);
            total += t.elapsed();
        }
        total
    })
}

/// `QUERIES` lookups, half of them the first `n` keys of `seed`, shuffled.
pub fn queries(seed: u64, n: usize) -> Vec<u64> {
    mixed_queries(seed, QUERIES, n, 0.5, seed)
}

/// Benches `contains`, one key at a time, as `single` and `contains_batch_into` as `batch`,
/// on `q`; the same for a filter and a view.
pub fn lookups(
    g: &mut BenchmarkGroup<WallTime>,
    [single, batch]: [String; 2],
    f: &impl ReadFilter,
    q: &[u64],
) {
    g.bench_function(single, |b| {
        b.iter(|| q.iter().filter(|k| f.contains(*k)).count())
    });
    let mut out = vec![false; q.len()];
    g.bench_function(batch, |b| {
        b.iter(|| f.contains_batch_into(q, &mut out).unwrap())
    });
}

/// `{name}_contains` and `{name}_contains_batch`, the names [`lookups`] takes.
pub fn named(name: &str) -> [String; 2] {
    [format!("{name}_contains"), format!("{name}_contains_batch")]
}

/// A whole number from the environment variable `name`, or `default` when it is not set; a
/// value that is not a number stops the bench with a message saying so.
pub fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => v.replace('_', "").parse().unwrap_or_else(|_| {
            eprintln!("{name}={v:?}: want a whole number");
            std::process::exit(2)
        }),
    }
}
