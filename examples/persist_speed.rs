//! Save, load and open speed on a 256 MiB filter (docs/benchmarks.md,
//! "Saving, loading and viewing"):
//!
//! - `to_bytes`, `write_to` (a file), `from_bytes`, `read_from` (a file in
//!   the page cache), checksum included, in GiB/s on one core;
//! - `FilterView::new_unverified` and `FilterView::new` on a memory-mapped
//!   file (memmap2), in microseconds;
//! - lookups through the view against the owned filter (alternating rounds,
//!   medians).
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-examples --example persist_speed            # 256 MiB
//! cargo run --release -p cuckoo-nest-examples --example persist_speed -- 16      # 16 MiB
//! ```

#[path = "common/mod.rs"]
mod common;

use common::{keys, median, shuffle};
use cuckoo_nest::{CuckooFilter, FilterView, LoadOptions, PreHashed, SaveOptions};
use std::time::{Duration, Instant};

const GIB: f64 = (1u64 << 30) as f64;

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed(), out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mib: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(256);
    let rounds = 5;
    // 4 x 16-bit buckets: 8 bytes each.
    let buckets = (mib << 20) / 8;
    let filter = CuckooFilter::builder().buckets(buckets).build()?;
    let fill = filter.shape().slots / 2;
    println!(
        "filter: {} MiB table, {} buckets of 4 x 16 bits; filling to 50% ({} items)",
        mib, buckets, fill
    );
    let items = keys(fill, 1);
    let (t, r) = time(|| {
        std::thread::scope(|s| {
            let (a, b) = items.split_at(fill / 2);
            let h = s.spawn(|| filter.insert_batch(a.iter().map(|&h| PreHashed(h))));
            let r = filter.insert_batch(b.iter().map(|&h| PreHashed(h)));
            h.join().unwrap().and(r)
        })
    });
    r?;
    println!("filled in {:.1} s", t.as_secs_f64());

    let bytes_len = filter.to_bytes().len();
    let gib = bytes_len as f64 / GIB;
    println!(
        "saved size: {} bytes = table {} + {} bytes of format",
        bytes_len,
        bytes_len - 64,
        64
    );

    let mut save = Vec::new();
    let mut bytes = Vec::new();
    for _ in 0..rounds {
        drop(std::mem::take(&mut bytes));
        let (t, b) = time(|| filter.to_bytes());
        save.push(t);
        bytes = b;
    }
    let checksum = median(
        &mut (0..rounds)
            .map(|_| time(|| xxhash_rust::xxh3::xxh3_64(&bytes)).0)
            .collect::<Vec<_>>(),
    );
    let mut load = Vec::new();
    for _ in 0..rounds {
        let (t, f) = time(|| CuckooFilter::from_bytes(&bytes));
        load.push(t);
        drop(f?);
    }
    let path = std::env::temp_dir().join(format!("cuckoo-nest-speed-{}.cnf", std::process::id()));
    let mut write = Vec::new();
    for _ in 0..rounds {
        let (t, r) = time(|| -> std::io::Result<()> {
            let file = std::fs::File::create(&path)?;
            filter.save(std::io::BufWriter::new(file), &SaveOptions::default())
        });
        r?;
        write.push(t);
    }
    let mut read = Vec::new();
    for _ in 0..rounds {
        let (t, f) = time(|| -> Result<CuckooFilter, Box<dyn std::error::Error>> {
            let file = std::fs::File::open(&path)?;
            Ok(
                CuckooFilter::load(std::io::BufReader::new(file), &LoadOptions::default())
                    .map(|(f, _)| f)?,
            )
        });
        read.push(t);
        drop(f?);
    }
    // The file system's own speed on this machine, for scale.
    let raw_write = median(
        &mut (0..rounds)
            .map(|_| time(|| std::fs::write(&path, &bytes).unwrap()).0)
            .collect::<Vec<_>>(),
    );
    let raw_read = median(
        &mut (0..rounds)
            .map(|_| time(|| std::fs::read(&path).unwrap().len()).0)
            .collect::<Vec<_>>(),
    );
    let rate = |d: Duration| gib / d.as_secs_f64();
    println!();
    println!("| operation (one core, checksum included) | median of {rounds} | GiB/s |");
    println!("|---|---:|---:|");
    for (name, d) in [
        ("`to_bytes` (snapshot + checksum)", median(&mut save)),
        ("`from_bytes` (checks + checksum + copy)", median(&mut load)),
        ("`write_to` a file (page cache)", median(&mut write)),
        ("`read_from` a file (page cache)", median(&mut read)),
        ("XXH3-64 alone over the bytes", checksum),
        ("for scale: `std::fs::write` of the bytes", raw_write),
        ("for scale: `std::fs::read` of the file", raw_read),
    ] {
        println!(
            "| {name} | {:.1} ms | {:.2} |",
            d.as_secs_f64() * 1e3,
            rate(d)
        );
    }

    // Opening a mapped file.
    let file = std::fs::File::open(&path)?;
    // SAFETY: the file is ours, written above, and not changed while mapped.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let opens = 1000;
    let unverified = median(
        &mut (0..opens)
            .map(|_| time(|| FilterView::new_unverified(&map).map(|v| v.len())).0)
            .collect::<Vec<_>>(),
    );
    let map_and_open = median(
        &mut (0..100)
            .map(|_| {
                time(|| {
                    // SAFETY: as above.
                    let m = unsafe { memmap2::Mmap::map(&file) }.unwrap();
                    FilterView::new_unverified(&m).map(|v| v.len()).unwrap()
                })
                .0
            })
            .collect::<Vec<_>>(),
    );
    let verified = median(
        &mut (0..rounds)
            .map(|_| time(|| FilterView::new(&map).map(|v| v.len())).0)
            .collect::<Vec<_>>(),
    );
    println!();
    println!("| opening the mapped {mib} MiB file | median |");
    println!("|---|---:|");
    println!(
        "| `FilterView::new_unverified` | {:.2} µs |",
        unverified.as_secs_f64() * 1e6
    );
    println!(
        "| `mmap` + `FilterView::new_unverified` | {:.2} µs |",
        map_and_open.as_secs_f64() * 1e6
    );
    println!(
        "| `FilterView::new` (table checksum: a pass over the file) | {:.1} ms ({:.2} GiB/s) |",
        verified.as_secs_f64() * 1e3,
        rate(verified)
    );

    // Lookups: owned against the view over the mapped file, alternating.
    let view = FilterView::new_unverified(&map)?;
    assert!(view.is_aligned());
    let probes = {
        let mut p = keys(2_000_000, 99); // absent, mostly
        p.extend_from_slice(&items[..2_000_000.min(items.len())]); // present
        shuffle(&mut p, 7); // hits and misses interleaved
        p
    };
    let mut out = vec![false; probes.len()];
    let (mut own1, mut view1, mut own_b, mut view_b) = (vec![], vec![], vec![], vec![]);
    let mut agree = 0usize;
    for _ in 0..rounds {
        let (t, n) = time(|| {
            probes
                .iter()
                .filter(|&&h| filter.contains(&PreHashed(h)))
                .count()
        });
        own1.push(t);
        let (t, m) = time(|| {
            probes
                .iter()
                .filter(|&&h| view.contains(&PreHashed(h)))
                .count()
        });
        view1.push(t);
        assert_eq!(n, m);
        agree = n;
        own_b.push(
            time(|| filter.contains_batch_into(probes.iter().map(|&h| PreHashed(h)), &mut out)).0,
        );
        view_b.push(
            time(|| view.contains_batch_into(probes.iter().map(|&h| PreHashed(h)), &mut out)).0,
        );
    }
    let mops = |d: Duration| probes.len() as f64 / d.as_secs_f64() / 1e6;
    println!();
    println!(
        "| lookups, {} keys (half present), one thread | owned M/s | view M/s | view / owned |",
        probes.len()
    );
    println!("|---|---:|---:|---:|");
    for (name, o, v) in [
        ("`contains_hash`", median(&mut own1), median(&mut view1)),
        (
            "`contains_batch_hash`",
            median(&mut own_b),
            median(&mut view_b),
        ),
    ] {
        println!(
            "| {name} | {:.1} | {:.1} | {:.2} |",
            mops(o),
            mops(v),
            mops(v) / mops(o)
        );
    }
    println!("({agree} found by both)");
    drop(map);
    std::fs::remove_file(&path)?;
    Ok(())
}
