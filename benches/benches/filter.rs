//! Criterion benchmarks for the questions a user asks before adopting the
//! filter, each against the `cuckoofilter` crate (0.5) and our own baseline
//! in the same run, on the same pre-generated random u64 keys:
//!
//! - in cache (~1M items): single-thread `contains`, `contains_batch` and the
//!   peer (the SIMD kernels against the scalar reference, on the 16-bit
//!   compare of a bucket pair a default filter makes, are
//!   `kernels/eq16x8/*` in `cargo bench -p cuckoo-nest-bench --bench kernels`);
//! - out of cache (a table of >= 256 MiB): `contains`, `contains_batch`, the
//!   peer, and this core's random cache-line load rate (the hardware limit:
//!   a lookup needs two lines);
//! - threads: 2 threads of lookups vs 1; lookups with a writer inserting and
//!   removing at 90% load vs lookups alone;
//! - inserts from empty to 95% load.
//!
//! Criterion prints each bench's time and throughput; the ratios between
//! them, and the goals they are read against, are in docs/benchmarks.md
//! ("Criterion benchmarks"), and the report computes the same ratios with
//! their per-round ranges.
//!
//! `CUCKOO_BENCH_ONLY=in_cache,threads,inserts,out_of_cache` (any subset)
//! runs only those groups. `CUCKOO_BENCH_BIG_ITEMS` sets the out-of-cache item count (default
//! 125M, a 258 MiB table; smaller values are for trying the bench quickly).

use criterion::{BenchmarkId, Criterion, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::pages::Buffer;
use std::collections::hash_map::DefaultHasher;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

/// Queries per measured iteration: enough that loop overhead is noise.
const QUERIES: usize = 1 << 16;

/// `n` keys of one splitmix64 stream: the key generator shared with the report.
fn keys(n: usize, seed: u64) -> Vec<u64> {
    cuckoo_nest_bench::keys::stream(seed, n)
}

/// Half present, half absent, shuffled by construction.
fn queries(present: &[u64], n: usize) -> Vec<u64> {
    let absent = keys(n / 2, 0xabad_cafe);
    let stride = (present.len() / (n / 2)).max(1);
    let mut q = Vec::with_capacity(n);
    for (i, a) in absent.iter().enumerate() {
        q.push(present[(i * stride) % present.len()]);
        q.push(*a);
    }
    q
}

fn ours(n: usize) -> CuckooFilter {
    CuckooFilter::builder().capacity(n).build().expect("build")
}

fn lookups(c: &mut Criterion, group: &str, ours_f: &CuckooFilter, peer: &Peer, q: &[u64]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(q.len() as u64));
    g.bench_function("contains_simd", |b| {
        b.iter(|| q.iter().filter(|k| ours_f.contains(*k)).count())
    });
    let mut out = vec![false; q.len()];
    g.bench_function("contains_batch", |b| {
        b.iter(|| ours_f.contains_batch_into(q, &mut out).unwrap())
    });
    g.bench_function("peer_cuckoofilter", |b| {
        b.iter(|| q.iter().filter(|k| peer.contains(*k)).count())
    });
    g.finish();
}

fn in_cache(c: &mut Criterion) {
    let n = 1_000_000;
    let present = keys(n, 1);
    let simd = ours(n);
    let mut peer = Peer::with_capacity(n);
    for k in &present {
        simd.insert(k).unwrap();
        peer.add(k).unwrap();
    }
    let q = queries(&present, QUERIES);
    lookups(c, "in_cache_1M", &simd, &peer, &q);
}

/// Independent random loads of one word per 64-byte line from a buffer far
/// bigger than the caches: this core's random cache-line load rate.
fn cache_line_rate(c: &mut Criterion, bytes: usize) {
    let lines = bytes / 64;
    // On 2 MiB pages like the filter's own table, so the baseline pays the same TLB costs.
    let buf = Buffer::new(lines * 64, true).expect("the line-load buffer");
    let buf = buf.words();
    let idx: Vec<u32> = keys(QUERIES, 9)
        .iter()
        .map(|k| (k % lines as u64) as u32)
        .collect();
    let mut g = c.benchmark_group("out_of_cache");
    g.throughput(Throughput::Elements(idx.len() as u64));
    g.bench_function("random_line_loads", |b| {
        b.iter(|| {
            idx.iter()
                .map(|&i| buf[i as usize * 8])
                .fold(0u64, u64::wrapping_add)
        })
    });
    g.finish();
}

fn out_of_cache(c: &mut Criterion) {
    let n: usize = std::env::var("CUCKOO_BENCH_BIG_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(125_000_000);
    let t = Instant::now();
    let present = keys(n, 2);
    let big = ours(n);
    big.insert_batch(&present).expect("sized for n");
    eprintln!(
        "out_of_cache: ours {} MiB, {} items, filled in {:.1} s",
        big.memory_usage() >> 20,
        n,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let mut peer = Peer::with_capacity(n);
    let mut peer_failed = 0;
    for k in &present {
        peer_failed += peer.add(k).is_err() as usize;
    }
    eprintln!(
        "out_of_cache: cuckoofilter {} MiB, filled in {:.1} s ({peer_failed} inserts failed)",
        peer.memory_usage() >> 20,
        t.elapsed().as_secs_f64()
    );
    let q = queries(&present, QUERIES);
    lookups(c, "out_of_cache", &big, &peer, &q);
    drop(peer);

    // The same table without the transparent-huge-page advice: what the
    // 2 MiB pages change for random lookups (TLB misses).
    let small_pages = CuckooFilter::builder()
        .capacity(n)
        .huge_pages(false)
        .build()
        .expect("build");
    small_pages.insert_batch(&present).expect("sized for n");
    let mut g = c.benchmark_group("out_of_cache");
    g.throughput(Throughput::Elements(q.len() as u64));
    g.bench_function("contains_simd_4k_pages", |b| {
        b.iter(|| q.iter().filter(|k| small_pages.contains(*k)).count())
    });
    let mut out = vec![false; q.len()];
    g.bench_function("contains_batch_4k_pages", |b| {
        b.iter(|| small_pages.contains_batch_into(&q, &mut out).unwrap())
    });
    g.finish();
    drop(small_pages);
    cache_line_rate(c, big.memory_usage().max(256 << 20) * 2);
}

/// Runs `f(thread, iters)` on `threads` threads at once; returns the time
/// per lookup in aggregate (wall time / (threads * iters)).
fn parallel(threads: usize, iters: u64, f: impl Fn(usize, u64) + Sync) -> Duration {
    let start = std::sync::Barrier::new(threads);
    let t = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (f, start) = (&f, &start);
                s.spawn(move || {
                    start.wait();
                    let t = Instant::now();
                    f(i, iters);
                    t.elapsed()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .max()
            .unwrap()
    });
    t / threads as u32
}

fn threads(c: &mut Criterion) {
    let n = 4_000_000;
    let present = keys(n, 3);
    let f = ours(n);
    f.insert_batch(&present).unwrap();
    let q = queries(&present, QUERIES);
    let mut g = c.benchmark_group("threads");
    g.throughput(Throughput::Elements(1));
    for t in [1usize, 2] {
        g.bench_with_input(BenchmarkId::new("lookups", t), &t, |b, &t| {
            b.iter_custom(|iters| {
                parallel(t, iters, |i, iters| {
                    let mut hits = 0usize;
                    // QUERIES is a power of two: a mask, not a division.
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

    // Lookups on a 90%-full table, alone and beside a writer that inserts
    // fresh keys and removes old ones, holding the load at 90%.
    let slots_f = CuckooFilter::builder().capacity(n).build().unwrap();
    let target = slots_f.shape().slots * 9 / 10;
    let fill = keys(target, 4);
    slots_f.insert_batch(&fill).unwrap();
    let q = queries(&fill, QUERIES);
    let mut g = c.benchmark_group("threads_90pct");
    g.throughput(Throughput::Elements(q.len() as u64));
    g.bench_function("lookups_alone", |b| {
        b.iter(|| q.iter().filter(|k| slots_f.contains(*k)).count())
    });
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let fresh = keys(1 << 22, 5);
            let mut j = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let k = fresh[j % fresh.len()];
                if slots_f.insert(&k).is_ok() {
                    // Remove the key inserted 1000 steps ago (or a fill key).
                    let old = if j >= 1000 {
                        fresh[(j - 1000) % fresh.len()]
                    } else {
                        fill[j]
                    };
                    let _ = slots_f.remove(&old); // a key inserted earlier; a miss is harmless
                }
                j += 1;
            }
        });
        g.bench_function("lookups_with_writer", |b| {
            b.iter(|| q.iter().filter(|k| slots_f.contains(*k)).count())
        });
        stop.store(true, Ordering::Relaxed);
    });
    g.finish();
}

/// Buckets of the insert benchmark's tables: 2^20 slots, ours and the
/// peer's alike; each iteration inserts until 95% of them are full.
const INSERT_BUCKETS: usize = 1 << 18;
const INSERTS: usize = INSERT_BUCKETS * 4 * 95 / 100;

fn inserts(c: &mut Criterion) {
    let buckets = INSERT_BUCKETS;
    let n = INSERTS;
    let ks = keys(n, 6);
    let mut g = c.benchmark_group("insert_to_95pct");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    let ours = || CuckooFilter::builder().buckets(buckets).build().unwrap();
    g.bench_function("ours_insert", |b| {
        fills(b, ours, |f| {
            for k in &ks {
                f.insert(k).unwrap();
            }
        })
    });
    g.bench_function("ours_insert_batch", |b| {
        fills(b, ours, |f| f.insert_batch(&ks).unwrap())
    });
    g.bench_function("peer_cuckoofilter", |b| {
        fills(
            b,
            || Peer::with_capacity(buckets * 4),
            |f| {
                for k in &ks {
                    // A failure here evicts a victim (the peer's behaviour);
                    // counted in the time, not checked.
                    let _ = f.add(k);
                }
            },
        )
    });
    g.finish();
}

/// Times `fill` on a fresh filter from `build` (built untimed), once per iteration.
fn fills<F>(b: &mut criterion::Bencher, build: impl Fn() -> F, fill: impl Fn(&mut F)) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let mut f = build();
            let t = Instant::now();
            fill(&mut f);
            total += t.elapsed();
        }
        total
    })
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    // CUCKOO_BENCH_ONLY=threads,in_cache runs only those groups (criterion's
    // own filter skips benchmarks but not the setup that fills big tables).
    let only = std::env::var("CUCKOO_BENCH_ONLY").unwrap_or_default();
    let wanted = |g: &str| only.is_empty() || only.split(',').any(|o| o.trim() == g);
    if wanted("in_cache") {
        in_cache(&mut c);
    }
    if wanted("threads") {
        threads(&mut c);
    }
    if wanted("inserts") {
        inserts(&mut c);
    }
    if wanted("out_of_cache") {
        out_of_cache(&mut c);
    }
    c.final_summary();
}
