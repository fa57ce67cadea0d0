//! How fast does a filter fill, against the `cuckoofilter` crate (0.5)? Criterion: from empty
//! to 95% of 2^20 slots (ours and the peer's alike), with `insert` one key at a time, with
//! `insert_batch`, and the peer's `add`, on the same random u64 keys; each iteration fills a
//! fresh filter, built untimed.
//!
//! `cargo bench -p cuckoo-nest-bench --bench inserts`

mod common;

use common::{fills, Peer};
use criterion::Throughput;
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::stream;

/// Buckets of the tables: 2^20 slots; each iteration inserts until 95% of them are full.
const BUCKETS: usize = 1 << 18;
const INSERTS: usize = BUCKETS * 4 * 95 / 100;

fn main() {
    let mut c = common::criterion();
    let ks = stream(6, INSERTS);
    let mut g = c.benchmark_group("insert_to_95pct");
    g.throughput(Throughput::Elements(INSERTS as u64));
    g.sample_size(10);
    let ours = || CuckooFilter::builder().buckets(BUCKETS).build().unwrap();
    g.bench_function("ours_insert", |b| {
        fills(b, false, ours, |f| {
            ks.iter().for_each(|k| f.insert(k).unwrap())
        })
    });
    g.bench_function("ours_insert_batch", |b| {
        fills(b, false, ours, |f| f.insert_batch(&ks).unwrap())
    });
    // A failed add evicts a victim (the peer's behaviour): timed, not checked.
    let peer = || Peer::with_capacity(BUCKETS * 4);
    g.bench_function("peer_cuckoofilter", |b| {
        fills(b, false, peer, |f| {
            ks.iter().for_each(|k| f.add(k).unwrap_or(()))
        })
    });
    g.finish();
    c.final_summary();
}
