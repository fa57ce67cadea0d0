//! How fast does a filter save, load and open as a view, and how fast does a view answer?
//! Criterion, on one default (4 x 16) filter half full, its table `CUCKOO_BENCH_SAVE_MIB` MiB
//! (default 256, far past the caches), one core:
//!
//! - `saves/*`: `to_bytes`, `save` into `io::sink()`, `save_to_path` (a temporary file, fsync,
//!   rename, fsync of the folder), `from_bytes` and `load` from the bytes and from the file
//!   (every bucket audited, the checksum checked, the table copied), and `FilterView::new`
//!   (audit and checksum, no copy) and `new_unverified` (the header only) over the bytes, in
//!   bytes of the saved form a second (opens a second for `new_unverified`);
//! - `saved_lookups/*`: the same shuffled queries, half hits, through the owned filter (on
//!   huge pages, as built, and loaded again on 4 KiB pages) and through a view of its bytes,
//!   one key at a time and batched.
//!
//! `cargo bench -p cuckoo-nest-bench --bench saves` (about a minute at the default size, most
//! of it filling the filter; `CUCKOO_BENCH_SAVE_MIB=16` for a table that stays in a large L3).

mod common;

use common::{fill, lookups, named, queries};
use criterion::{Criterion, Throughput};
use cuckoo_nest::{CuckooFilter, FilterView, LoadOptions, SaveOptions};

fn saves(c: &mut Criterion, filter: &CuckooFilter, bytes: &[u8]) {
    let (save, load) = (SaveOptions::default(), LoadOptions::default());
    let path = std::env::temp_dir().join(format!("cuckoo-nest-bench-{}.cf", std::process::id()));
    let mut g = c.benchmark_group("saves");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.bench_function("to_bytes", |b| b.iter(|| filter.to_bytes()));
    g.bench_function("save_to_sink", |b| {
        b.iter(|| filter.save(std::io::sink(), &save).unwrap())
    });
    g.bench_function("save_to_path", |b| {
        b.iter(|| filter.save_to_path(&path, &save).unwrap())
    });
    g.bench_function("from_bytes", |b| {
        b.iter(|| CuckooFilter::from_bytes(bytes).unwrap())
    });
    g.bench_function("load_from_bytes", |b| {
        b.iter(|| CuckooFilter::load(bytes, &load).unwrap())
    });
    g.bench_function("load_from_file", |b| {
        b.iter(|| {
            let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            CuckooFilter::load(file, &load).unwrap()
        })
    });
    g.bench_function("view_new", |b| b.iter(|| FilterView::new(bytes).unwrap()));
    // The header alone: a time per open, whatever the table's size.
    g.throughput(Throughput::Elements(1));
    g.bench_function("view_new_unverified", |b| {
        b.iter(|| FilterView::new_unverified(bytes).unwrap())
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

fn saved_lookups(c: &mut Criterion, filter: &CuckooFilter, bytes: &[u8], q: &[u64]) {
    // The view reads `bytes`, a vector on the allocator's 4 KiB pages (as a mapped file's page
    // cache is), where the filter's own table has huge pages: the owned filter again on 4 KiB
    // pages tells the view's code from its pages.
    let small_pages = LoadOptions::default().huge_pages(false);
    let (owned_4k, _) = CuckooFilter::load(bytes, &small_pages).unwrap();
    let mut g = c.benchmark_group("saved_lookups");
    g.throughput(Throughput::Elements(q.len() as u64));
    lookups(&mut g, named("owned"), filter, q);
    lookups(&mut g, named("owned_4k_pages"), &owned_4k, q);
    lookups(&mut g, named("view"), &FilterView::new(bytes).unwrap(), q);
    g.finish();
}

fn main() {
    let mut c = common::criterion();
    let mib = common::env_number("CUCKOO_BENCH_SAVE_MIB", 256).max(1);
    // A 4 x 16 bucket is 8 bytes: `mib` MiB of buckets, filled to half their slots.
    let buckets = (mib << 20) / 8;
    let filter = CuckooFilter::builder().buckets(buckets).build().unwrap();
    let items = filter.shape().slots / 2;
    fill(8, items, &[&filter]);
    let bytes = filter.to_bytes();
    let (mib, len) = (filter.memory_usage() >> 20, bytes.len());
    eprintln!("saves: a {mib} MiB table, {items} items, {len} bytes saved");
    saves(&mut c, &filter, &bytes);
    saved_lookups(&mut c, &filter, &bytes, &queries(8, items));
    c.final_summary();
}
