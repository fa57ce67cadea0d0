//! What does growth cost at 8x? Criterion, on the same u64 keys: a growable filter started at C =
//! `CUCKOO_BENCH_GROWTH_FIRST` items (default 125,000) and grown to 8C, against the builder's pick
//! for 8C, both at a 1% false-positive target (issue 40's comparison; the report's growth part,
//! `--only growth`, measures the same from C to 64C with per-round ranges and the peer that grows):
//!
//! - `growth_inserts/*`: from empty to 8C items, construction included (each iteration builds
//!   a fresh filter: the growable one grows three times on the way);
//! - `growth_lookups/*`: shuffled queries, half hits, on the two filters at 8C, one key at a
//!   time and batched.
//!
//! `cargo bench -p cuckoo-nest-bench --bench growth`

mod common;

use common::{fill, fills, lookups, named, queries};

use criterion::{Bencher, Throughput};
use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::keys::Keys;

const RATE: f64 = 0.01;

fn filter(capacity: usize, growable: bool) -> CuckooFilter {
    let b = CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(RATE);
    b.growable(growable).build().unwrap()
}

fn main() {
    let mut c = common::criterion();
    let first = common::env_number("CUCKOO_BENCH_GROWTH_FIRST", 125_000).max(1000);
    let last = 8 * first;
    let keys = Keys::generate(10, last, 0).present;
    // The process's first growable filter registers it for `membarrier`, once: not timed.
    drop(filter(first, true));
    // Each iteration times a fresh filter from its construction to its last insert: the first
    // table counts, as a fixed filter's does.
    let from_empty = |b: &mut Bencher, build: &dyn Fn() -> CuckooFilter| {
        fills(b, true, build, |f| {
            keys.iter().for_each(|k| f.insert(k).unwrap())
        })
    };
    let mut g = c.benchmark_group("growth_inserts");
    g.throughput(Throughput::Elements(last as u64));
    g.sample_size(10);
    g.bench_function("growable_from_c", |b| {
        from_empty(b, &|| filter(first, true))
    });
    g.bench_function("fixed_for_8c", |b| from_empty(b, &|| filter(last, false)));
    g.finish();

    let (grown, built) = (filter(first, true), filter(last, false));
    fill(10, last, &[&grown, &built]);
    let q = queries(10, last);
    let mut g = c.benchmark_group("growth_lookups");
    g.throughput(Throughput::Elements(q.len() as u64));
    lookups(&mut g, named("growable"), &grown, &q);
    lookups(&mut g, named("fixed"), &built, &q);
    g.finish();
    c.final_summary();
}
