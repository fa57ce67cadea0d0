//! How fast are lookups, against the `cuckoofilter` crate (0.5) and the hardware? Criterion, on
//! the same random u64 keys for every filter, queries half hits, shuffled:
//!
//! - in cache (1M items): single-thread `contains`, `contains_batch` and the peer (the SIMD
//!   kernels alone are `--bench kernels`);
//! - out of cache (a table of >= 256 MiB): the same three, both of ours again on 4 KiB pages,
//!   and this core's random cache-line load rate (the hardware limit: a lookup needs two lines).
//!
//! The ratios to read and their goals are in docs/benchmarks.md ("Criterion benchmarks").
//! `cargo bench -p cuckoo-nest-bench --bench lookups`; `CUCKOO_BENCH_BIG_ITEMS` sets the
//! out-of-cache item count (default 125M, a 258 MiB table; 0 leaves those benches out).

mod common;

use common::{fill, lookups, queries, Peer, QUERIES};
use criterion::{Criterion, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::stream;
use cuckoo_nest_bench::pages::Buffer;

/// Ours (`contains_simd` and `contains_batch`), then the peer's `contains`, on `n` items; out of
/// cache, ours again on 4 KiB pages and the line loads.
fn bench(c: &mut Criterion, group: &str, seed: u64, n: usize, out_of_cache: bool) {
    let ours = CuckooFilter::with_capacity(n);
    let keys = fill(seed, n, &[&ours]);
    let mut peer = Peer::with_capacity(n);
    let failed = keys.iter().filter(|k| peer.add(*k).is_err()).count();
    let mib = [ours.memory_usage() >> 20, peer.memory_usage() >> 20];
    eprintln!("{group}: {n} items; MiB ours, cuckoofilter's: {mib:?}; {failed} adds failed");
    let q = queries(seed, n);
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(QUERIES as u64));
    let names = ["contains_simd", "contains_batch"];
    lookups(&mut g, names.map(String::from), &ours, &q);
    g.bench_function("peer_cuckoofilter", |b| {
        b.iter(|| q.iter().filter(|k| peer.contains(*k)).count())
    });
    drop(peer);
    if out_of_cache {
        // The same table without the transparent-huge-page advice: what the 2 MiB pages change
        // for random lookups (TLB misses).
        let builder = CuckooFilter::builder().capacity(n).huge_pages(false);
        let small_pages = builder.build().unwrap();
        small_pages.insert_batch(&keys).expect("sized for n");
        let names = names.map(|s| format!("{s}_4k_pages"));
        lookups(&mut g, names, &small_pages, &q);
        drop(small_pages);

        // Independent random loads of one word per 64-byte line from a buffer far bigger than
        // the caches: this core's random cache-line load rate. On 2 MiB pages like the filter's
        // own table, so the baseline pays the same TLB costs.
        let lines = ours.memory_usage().max(256 << 20) * 2 / 64;
        let buf = Buffer::new(lines * 64, true).expect("the line-load buffer");
        let buf = buf.words();
        let idx = stream(9, QUERIES)
            .into_iter()
            .map(|k| (k % lines as u64) as u32);
        let idx: Vec<u32> = idx.collect();
        g.bench_function("random_line_loads", |b| {
            b.iter(|| {
                idx.iter()
                    .map(|&i| buf[i as usize * 8])
                    .fold(0u64, u64::wrapping_add)
            })
        });
    }
    g.finish();
}

fn main() {
    let mut c = common::criterion();
    bench(&mut c, "in_cache_1M", 1, 1_000_000, false);
    let big = common::env_number("CUCKOO_BENCH_BIG_ITEMS", 125_000_000);
    if big > 0 {
        bench(&mut c, "out_of_cache", 2, big, true);
    }
    c.final_summary();
}
