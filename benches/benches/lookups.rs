//! How fast are lookups, against the `cuckoofilter` crate (0.5) and the hardware? Criterion, on
//! the same random u64 keys for every filter, queries half hits, shuffled:
//!
//! - in cache (1M items): single-thread `contains`, `contains_batch` and the peer (the SIMD
//!   kernels alone, on the 16-bit compare of a bucket pair a default filter makes, are
//!   `kernels/eq16x8/*` in `cargo bench -p cuckoo-nest-bench --bench kernels`);
//! - out of cache (a table of >= 256 MiB): the same three, both of ours again on 4 KiB pages,
//!   and this core's random cache-line load rate (the hardware limit: a lookup needs two lines).
//!
//! The ratios between the benches and the goals they are read against are in
//! docs/benchmarks.md ("Criterion benchmarks"); the report computes them with per-round ranges.
//!
//! `cargo bench -p cuckoo-nest-bench --bench lookups`; `CUCKOO_BENCH_BIG_ITEMS` sets the
//! out-of-cache item count (default 125M, a 258 MiB table; 0 leaves those benches out).

mod common;

use common::Peer;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::{mixed_queries, stream, Keys};
use cuckoo_nest_bench::pages::Buffer;
use std::time::Instant;

/// Queries per measured iteration: enough that loop overhead is noise.
const QUERIES: usize = 1 << 16;

/// `contains` one key at a time and `contains_batch` (their names ending in `suffix`), then
/// the peer's `contains` if there is one.
fn lookups(
    g: &mut BenchmarkGroup<WallTime>,
    suffix: &str,
    ours: &CuckooFilter,
    peer: Option<&Peer>,
    q: &[u64],
) {
    g.bench_function(format!("contains_simd{suffix}"), |b| {
        b.iter(|| q.iter().filter(|k| ours.contains(*k)).count())
    });
    let mut out = vec![false; q.len()];
    g.bench_function(format!("contains_batch{suffix}"), |b| {
        b.iter(|| ours.contains_batch_into(q, &mut out).unwrap())
    });
    if let Some(peer) = peer {
        g.bench_function("peer_cuckoofilter", |b| {
            b.iter(|| q.iter().filter(|k| peer.contains(*k)).count())
        });
    }
}

fn in_cache(c: &mut Criterion) {
    let n = 1_000_000;
    let ours = CuckooFilter::with_capacity(n);
    let mut peer = Peer::with_capacity(n);
    for k in &Keys::generate(1, n, 0).present {
        ours.insert(k).unwrap();
        peer.add(k).unwrap();
    }
    let q = mixed_queries(1, QUERIES, n, 0.5, 1);
    let mut g = c.benchmark_group("in_cache_1M");
    g.throughput(Throughput::Elements(QUERIES as u64));
    lookups(&mut g, "", &ours, Some(&peer), &q);
    g.finish();
}

fn out_of_cache(c: &mut Criterion, n: usize) {
    let t = Instant::now();
    let present = Keys::generate(2, n, 0).present;
    let big = CuckooFilter::with_capacity(n);
    big.insert_batch(&present).expect("sized for n");
    eprintln!(
        "out_of_cache: ours {} MiB, {} items, filled in {:.1} s",
        big.memory_usage() >> 20,
        n,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let mut peer = Peer::with_capacity(n);
    let peer_failed = present.iter().filter(|k| peer.add(*k).is_err()).count();
    eprintln!(
        "out_of_cache: cuckoofilter {} MiB, filled in {:.1} s ({peer_failed} inserts failed)",
        peer.memory_usage() >> 20,
        t.elapsed().as_secs_f64()
    );
    let q = mixed_queries(2, QUERIES, n, 0.5, 2);
    let mut g = c.benchmark_group("out_of_cache");
    g.throughput(Throughput::Elements(QUERIES as u64));
    lookups(&mut g, "", &big, Some(&peer), &q);
    drop(peer);

    // The same table without the transparent-huge-page advice: what the 2 MiB pages change
    // for random lookups (TLB misses).
    let small_pages = CuckooFilter::builder()
        .capacity(n)
        .huge_pages(false)
        .build()
        .expect("build");
    small_pages.insert_batch(&present).expect("sized for n");
    lookups(&mut g, "_4k_pages", &small_pages, None, &q);
    drop(small_pages);

    // Independent random loads of one word per 64-byte line from a buffer far bigger than the
    // caches: this core's random cache-line load rate. On 2 MiB pages like the filter's own
    // table, so the baseline pays the same TLB costs.
    let lines = big.memory_usage().max(256 << 20) * 2 / 64;
    let buf = Buffer::new(lines * 64, true).expect("the line-load buffer");
    let buf = buf.words();
    let idx: Vec<u32> = stream(9, QUERIES)
        .iter()
        .map(|k| (k % lines as u64) as u32)
        .collect();
    g.bench_function("random_line_loads", |b| {
        b.iter(|| {
            idx.iter()
                .map(|&i| buf[i as usize * 8])
                .fold(0u64, u64::wrapping_add)
        })
    });
    g.finish();
}

fn main() {
    let mut c = common::criterion();
    in_cache(&mut c);
    let big = common::env_number("CUCKOO_BENCH_BIG_ITEMS", 125_000_000);
    if big > 0 {
        out_of_cache(&mut c, big);
    }
    c.final_summary();
}
