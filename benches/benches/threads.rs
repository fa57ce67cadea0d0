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

use criterion::{BenchmarkId, Criterion, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::{mixed_queries, stream, Keys};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Queries per measured iteration, a power of two (indexed with a mask).
const QUERIES: usize = 1 << 16;

/// Runs `f(thread, iters)` on `threads` threads, started at once; returns the time per lookup
/// in aggregate: the slowest thread's time / (threads * iters).
fn parallel(threads: usize, iters: u64, f: impl Fn(usize, u64) + Sync) -> Duration {
    let (f, start) = (&f, &std::sync::Barrier::new(threads));
    let slowest = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                s.spawn(move || {
                    start.wait();
                    let t = Instant::now();
                    f(i, iters);
                    t.elapsed()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).max()
    });
    slowest.unwrap() / threads as u32
}

fn scaling(c: &mut Criterion) {
    let n = 4_000_000;
    let f = CuckooFilter::with_capacity(n);
    f.insert_batch(&Keys::generate(3, n, 0).present).unwrap();
    let q = mixed_queries(3, QUERIES, n, 0.5, 3);
    let mut g = c.benchmark_group("threads");
    g.throughput(Throughput::Elements(1));
    for t in [1usize, 2] {
        g.bench_with_input(BenchmarkId::new("lookups", t), &t, |b, &t| {
            b.iter_custom(|iters| {
                parallel(t, iters, |i, iters| {
                    let mut hits = 0usize;
                    let mask = q.len() - 1;
                    for j in 0..iters as usize {
                        hits += f.contains(&q[(j + i * 7919) & mask]) as usize;
                    }
                    black_box(hits);
                })
            })
        });
    }
    g.finish();
}

fn beside_a_writer(c: &mut Criterion) {
    let f = CuckooFilter::with_capacity(4_000_000);
    let target = f.shape().slots * 9 / 10;
    let fill = Keys::generate(4, target, 0).present;
    f.insert_batch(&fill).unwrap();
    let q = mixed_queries(4, QUERIES, target, 0.5, 4);
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
                    // Remove the key inserted 1000 steps ago (or a fill key).
                    let old = if j >= 1000 {
                        fresh[(j - 1000) % fresh.len()]
                    } else {
                        fill[j]
                    };
                    let _ = f.remove(&old); // a key inserted earlier; a miss is harmless
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
