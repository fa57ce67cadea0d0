//! What growing costs: a growable filter started at capacity C and filled
//! to 64C, against filters built for the final count, on the same keys.
//!
//! `cargo run --release -p cuckoo-nest-examples --example growth [-- C [ROUNDS [M]]]` (default C =
//! 125000, 5 rounds, M = 8)
//!
//! Prints, for the builder's pick at a 1% false-positive rate:
//! - the false-positive rate measured at 1x, 2x, ..., 64x C (1M keys never
//!   inserted), against the rate the fixed filter expects at capacity;
//! - at M times C (8x by default; past 128x a filter with no maximum
//!   capacity reads one table per chain), in alternating rounds (growable, then fixed, then growable...)
//!   with medians and ranges: ns per insert including growth, ns per
//!   lookup at 50% hits (shuffled), one at a time and in batches of 1024,
//!   bits per item, and the ratios;
//! - the longest lookups while one thread inserts through growth steps and
//!   another looks up: 99.9th percentile and maximum, in microseconds, and
//!   how many of the run's lookups took over 20 and over 100 us, per run
//!   (up to 3), beside the same for a fixed filter built for the count (no
//!   growth): the machine's own noise floor. The growable runs last longer
//!   (its inserts are slower), so compare the counts per lookup: a longer
//!   run catches more of the machine's interruptions and has the higher
//!   maximum for that alone.

#[path = "common/mod.rs"]
mod common;

use common::{keys, median, ns_per, number, shuffle};
use cuckoo_nest::{Builder, CuckooFilter, PreHashed};
use std::hint::black_box;
use std::time::Instant;

const RATE: f64 = 0.01;

fn builder(capacity: usize) -> Builder {
    CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(RATE)
}

/// Present keys then absent ones, shuffled: half hits.
fn half_hits(present: &[u64], absent: &[u64], seed: u64) -> Vec<u64> {
    let mut probe: Vec<u64> = present.iter().chain(absent).copied().collect();
    shuffle(&mut probe, seed);
    probe
}

struct Round {
    insert_ns: f64,
    lookup_ns: f64,
    batch_ns: f64,
    bits_per_item: f64,
}

fn growable(c: usize) -> CuckooFilter {
    builder(c).growable(true).build().expect("growable filter")
}

/// Table bits per item held (both tables while a growth step is under way).
fn bits_per_item(f: &CuckooFilter) -> f64 {
    f.bits_per_item() * f.capacity() as f64 / f.len() as f64
}

/// ns per lookup through `contains_batch_hash`, 1024 keys a call.
fn batch_ns(f: &CuckooFilter, probe: &[u64]) -> f64 {
    let mut out = [false; 1024];
    let start = Instant::now();
    let hits: usize = probe
        .chunks(1024)
        .map(|c| {
            f.contains_batch_into(c.iter().map(|&h| PreHashed(h)), &mut out[..c.len()])
                .unwrap()
        })
        .sum();
    black_box(hits);
    ns_per(start, probe.len())
}

/// Fills `f` (built, untimed) with `present`, then times lookups of `probe`.
fn round(f: CuckooFilter, present: &[u64], probe: &[u64]) -> Round {
    let start = Instant::now();
    for &k in present {
        f.insert(&PreHashed(k))
            .expect("sized for the final count, or growable");
    }
    let insert_ns = ns_per(start, present.len());
    let start = Instant::now();
    let hits = probe.iter().filter(|&&k| f.contains(&PreHashed(k))).count();
    let lookup_ns = ns_per(start, probe.len());
    black_box(hits);
    Round {
        insert_ns,
        lookup_ns,
        batch_ns: batch_ns(&f, probe),
        bits_per_item: bits_per_item(&f),
    }
}

fn summary(v: &mut [f64]) -> String {
    let m = median(v);
    format!("{m:8.2} ({:.2}-{:.2})", v[0], v[v.len() - 1])
}

fn main() {
    const USAGE: &str = "growth [FIRST_CAPACITY [ROUNDS [MULTIPLE]]]";
    let c = number(1, "FIRST_CAPACITY", 125_000, 1, USAGE);
    let rounds = number(2, "ROUNDS", 5, 1, USAGE);
    let multiple = number(3, "MULTIPLE", 8, 1, USAGE);
    let fixed = builder(c).build().expect("fixed filter");
    println!(
        "builder at {RATE}: {}-slot buckets, {}-bit keys; a growable filter stores {} + 7 spare bits at first",
        fixed.shape().bucket_size,
        fixed.shape().fingerprint_bits,
        fixed.shape().fingerprint_bits
    );

    // The false-positive rate from 1x to 64x.
    let promised = builder(64 * c)
        .build()
        .expect("fixed filter")
        .shape()
        .false_positive_rate_at_capacity;
    let g = growable(c);
    let first = g.capacity();
    let all = keys(64.max(multiple) * first, 1);
    let never = keys(1_000_000, 2);
    let mut inserted = 0;
    println!("\nfalse-positive rate (1M keys never inserted; a fixed filter expects {promised:.4} at capacity)");
    println!("  size  items      capacity   stored bits  rate      bits/item");
    let sizes = [1usize, 2, 4, 8, 16, 32, 64];
    for size in sizes.into_iter().chain((multiple > 64).then_some(multiple)) {
        while inserted < first * size {
            g.insert(&PreHashed(all[inserted])).expect("growable");
            inserted += 1;
        }
        let fp = never.iter().filter(|&&k| g.contains(&PreHashed(k))).count();
        println!(
            "  {size:3}x  {inserted:9}  {:9}  {:11}  {:.5}   {:.2}",
            g.capacity(),
            g.shape().fingerprint_bits,
            fp as f64 / never.len() as f64,
            bits_per_item(&g)
        );
    }
    drop(g);

    // M x: growable from C against fixed for M C, alternating.
    let n = multiple * first;
    let present = &all[..n];
    let absent = keys(n, 3);
    let probe = half_hits(present, &absent, 4);
    let (mut gi, mut gl, mut gt, mut gb) = (vec![], vec![], vec![], vec![]);
    let (mut fi, mut fl, mut ft, mut fb) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let r = round(growable(c), present, &probe);
        gi.push(r.insert_ns);
        gl.push(r.lookup_ns);
        gt.push(r.batch_ns);
        gb.push(r.bits_per_item);
        let r = round(builder(n).build().expect("fixed filter"), present, &probe);
        fi.push(r.insert_ns);
        fl.push(r.lookup_ns);
        ft.push(r.batch_ns);
        fb.push(r.bits_per_item);
    }
    let ratio = |a: &mut Vec<f64>, b: &mut Vec<f64>| {
        let mut r: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| x / y).collect();
        summary(&mut r)
    };
    let (ri, rl, rt, rb) = (
        ratio(&mut gi, &mut fi),
        ratio(&mut gl, &mut fl),
        ratio(&mut gt, &mut ft),
        ratio(&mut gb, &mut fb),
    );
    println!("\nat {multiple}x ({n} items; {rounds} alternating rounds; median (min-max))");
    println!(
        "                     growable            fixed for {multiple}x{:pad$}growable / fixed",
        "",
        pad = 8usize.saturating_sub(multiple.to_string().len())
    );
    println!(
        "  ns per insert    {}  {}  {ri}",
        summary(&mut gi),
        summary(&mut fi)
    );
    println!(
        "  ns per lookup    {}  {}  {rl}",
        summary(&mut gl),
        summary(&mut fl)
    );
    println!(
        "  ns per batched   {}  {}  {rt}",
        summary(&mut gt),
        summary(&mut ft)
    );
    println!(
        "  bits per item    {}  {}  {rb}",
        summary(&mut gb),
        summary(&mut fb)
    );

    // Lookups while another thread grows the filter, and, as the
    // machine's own noise floor, while it fills a fixed filter built for
    // the final count (no growth step), alternating.
    let writes = &all[..16 * first];
    let (mut grown, mut floor) = (Vec::new(), Vec::new());
    let mut steps = 0;
    for _ in 0..rounds.min(3) {
        let g = growable(c);
        let (times, s) = lookups_beside_writer(&g, writes, &all[..first / 2]);
        steps = s;
        grown.push(times);
        let f = builder(writes.len()).build().expect("fixed filter");
        floor.push(lookups_beside_writer(&f, writes, &all[..first / 2]).0);
    }
    let line = |what: &str, runs: &mut [Vec<u64>]| {
        let cells: Vec<String> = runs
            .iter_mut()
            .map(|t| {
                t.sort_unstable();
                let p999 = t[t.len() * 999 / 1000];
                let over = |us: u64| t.len() - t.partition_point(|&ns| ns <= us * 1000);
                format!(
                    "p99.9 {:.2} us, max {:.1} us, {} of {:.1}M over 20 us, {} over 100 us",
                    p999 as f64 / 1e3,
                    t[t.len() - 1] as f64 / 1e3,
                    over(20),
                    t.len() as f64 / 1e6,
                    over(100)
                )
            })
            .collect();
        println!("  {what}: {}", cells.join("; "));
    };
    println!(
        "\nlongest lookups while another thread inserts {} keys (each run's p99.9, maximum, and lookups over 20 and 100 us):",
        writes.len()
    );
    line(
        &format!("growable, through {steps} growth steps"),
        &mut grown,
    );
    line("fixed, built for the count (no growth)", &mut floor);
}

/// Times each lookup of one thread while another inserts `writes` into
/// `filter` (the first `warm` of them before the timing starts): every
/// lookup's time in ns, and the growth steps taken meanwhile.
fn lookups_beside_writer(filter: &CuckooFilter, writes: &[u64], warm: &[u64]) -> (Vec<u64>, u32) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut times = Vec::with_capacity(1 << 22);
            let mut i = 0;
            // At least one lookup, even when the writer is done before this thread starts.
            loop {
                let k = warm[i % warm.len()];
                let t = Instant::now();
                black_box(filter.contains(&PreHashed(k)));
                times.push(t.elapsed().as_nanos() as u64);
                i += 1;
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
            }
            times
        });
        for &k in warm {
            filter.insert(&PreHashed(k)).expect("room for every key");
        }
        let before = filter.capacity();
        for &k in &writes[warm.len()..] {
            filter.insert(&PreHashed(k)).expect("room for every key");
        }
        let steps = (filter.capacity() / before).ilog2();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        (reader.join().unwrap(), steps)
    })
}
