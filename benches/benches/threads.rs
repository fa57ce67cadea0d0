//! Do lookups scale with threads, and what does a writer beside them cost? Criterion, on one
//! default filter shared by `&`, queries half hits, shuffled:
//!
//! - 2 threads of lookups against 1 (time per lookup over all threads);
//! - lookups on a 90%-full table, alone and beside a writer that inserts fresh keys and
//!   removes old ones, holding the load at 90%.
//!
//! Goals and the ratios to read are in docs/benchmarks.md ("Criterion benchmarks"); the
//! report's `threads_lookups` and `lookups_beside_writer` tables give the same with per-round
//! ranges. `cargo bench -p cuckoo-nest-bench --bench threads`

mod common;

use common::{fill, queries};
use criterion::{BenchmarkId, Criterion, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::stream;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// `iters` lookups from `q` on each of `threads` threads, started at once, each from its own
/// place: the time per lookup in aggregate, the slowest thread's time / (threads * iters).
fn parallel(f: &CuckooFilter, q: &[u64], threads: usize, iters: u64) -> Duration {
    let start = Barrier::new(threads);
    let lookups = |i: usize| {
        start.wait();
        let t = Instant::now();
        let mask = q.len() - 1;
        let hits = (0..iters as usize).filter(|j| f.contains(&q[(j + i * 7919) & mask]));
        black_box(hits.count());
        t.elapsed()
    };
    let slowest = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|i| s.spawn(move || lookups(i))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).max()
    });
    slowest.unwrap() / threads as u32
}

fn scaling(c: &mut Criterion) {
    let n = 4_000_000;
    let f = CuckooFilter::with_capacity(n);
    fill(3, n, &[&f]);
    let q = queries(3, n);
    let mut g = c.benchmark_group("threads");
    g.throughput(Throughput::Elements(1));
    for t in [1usize, 2] {
        g.bench_with_input(BenchmarkId::new("lookups", t), &t, |b, &t| {
            b.iter_custom(|iters| parallel(&f, &q, t, iters))
        });
    }
    g.finish();
}

fn beside_a_writer(c: &mut Criterion) {
    let f = CuckooFilter::with_capacity(4_000_000);
    let target = f.shape().slots * 9 / 10;
    let first = fill(4, target, &[&f]);
    let q = queries(4, target);
    let mut g = c.benchmark_group("threads_90pct");
    g.throughput(Throughput::Elements(q.len() as u64));
    g.bench_function("lookups_alone", |b| {
        b.iter(|| q.iter().filter(|k| f.contains(*k)).count())
    });
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let fresh = stream(5, 1 << 22);
            let mut j = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let k = fresh[j % fresh.len()];
                if f.insert(&k).is_ok() {
                    // Out goes the key inserted 1000 steps ago (or a fill key); a miss is harmless.
                    let old = j
                        .checked_sub(1000)
                        .map_or(first[j], |o| fresh[o % fresh.len()]);
                    let _ = f.remove(&old);
                }
                j += 1;
            }
        });
        g.bench_function("lookups_with_writer", |b| {
            b.iter(|| q.iter().filter(|k| f.contains(*k)).count())
        });
        stop.store(true, Ordering::Relaxed);
    });
    g.finish();
}

fn main() {
    let mut c = common::criterion();
    scaling(&mut c);
    beside_a_writer(&mut c);
    c.final_summary();
}
