//! How inserts and a 50/50 mix of lookups and inserts scale with the
//! threads sharing one filter: the writers' side of the report's thread
//! tables, small enough to rerun in seconds when the stripe locks change.
//!
//! `cargo run --release -p cuckoo-nest-examples --example writer_scaling [-- ITEMS THREADS ROUNDS]`
//!
//! ITEMS (default 2097152) sizes the filter; THREADS is a comma-separated
//! list of thread counts (default `1,2` and the machine's core count);
//! ROUNDS (default 5) interleaved rounds, each measuring every count once in
//! a rotated order. Each measurement fills a fresh filter to 80% of ITEMS
//! with `insert`, the keys split between the threads; and runs ITEMS
//! operations of the mix (half lookups, of which half hit; half inserts of
//! new keys) on a fresh filter prefilled to 40%, which ends at 90%. Beside
//! them, in the same rounds, the machine's own reference: the fill's keys,
//! one relaxed `fetch_or` each at a random word of an array as large as the
//! filter (one random cache line written per key, as an insert into a free
//! slot writes its bucket's line). Prints the median rate with the smallest
//! and largest of the rounds, in million operations per second over all
//! threads, and, where 1 is among the thread counts, each count's speedup
//! over one thread as a fraction of the machine's own (medians of the
//! rounds' ratios: 1.0 scales as well as one atomic per key does). Last,
//! the fill *apart*: each thread fills a filter of its own, of the same
//! size, with all of the fill's keys (one thread's whole fill each, no
//! line shared), and the shared fill's rate over it, round by round: the
//! share of the unshared rate that sharing one table's lines keeps.

#[path = "common/mod.rs"]
mod common;

use common::{keys, median, number};
use cuckoo_nest::CuckooFilter;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::Instant;

/// THREADS: the thread counts, comma-separated (default 1, 2 and the machine's cores).
fn thread_counts(usage: &str) -> Vec<usize> {
    let Some(s) = std::env::args().nth(2) else {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut t = vec![1, 2, cores];
        t.sort_unstable();
        t.dedup();
        return t;
    };
    let counts = s.split(',').map(|t| {
        let n = t.trim().parse().ok();
        n.filter(|&n: &usize| (1..=1024).contains(&n))
    });
    counts.collect::<Option<Vec<usize>>>().unwrap_or_else(|| {
        eprintln!("usage: {usage}: THREADS: counts 1..=1024, comma-separated, not {s:?}");
        std::process::exit(2)
    })
}

/// Runs `work(thread, chunk)` on `threads` threads over `keys` split into
/// equal chunks, all released together; returns the seconds from the first
/// thread's start to the last thread's end. Each thread reads the clock
/// itself: on a machine with as many cores as workers the spawning thread
/// may be descheduled at the start line and read its clock after the
/// workers have finished (a zero time, an infinite rate).
fn timed<F>(keys: &[u64], threads: usize, work: F) -> f64
where
    F: Fn(usize, &[u64]) + Sync,
{
    let start = Barrier::new(threads);
    let per = keys.len().div_ceil(threads);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = keys
            .chunks(per)
            .enumerate()
            .map(|(t, chunk)| {
                let (start, work) = (&start, &work);
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    work(t, chunk);
                    (t0, Instant::now())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    });
    let first = spans.iter().map(|s| s.0).min();
    let last = spans.iter().map(|s| s.1).max();
    match (first, last) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    }
}

fn filter(items: usize) -> CuckooFilter {
    CuckooFilter::try_with_capacity(items).unwrap_or_else(|e| {
        eprintln!("cannot build a filter for {items} items: {e}");
        std::process::exit(1)
    })
}

/// Inserts into an empty filter up to 80% of `items`: M inserts/s.
fn fill(items: usize, present: &[u64], threads: usize) -> f64 {
    let f = filter(items);
    let keys = &present[..items * 4 / 5];
    let secs = timed(keys, threads, |_, chunk| {
        for k in chunk {
            // A refusal would be a fact about the filter, not the rate: the
            // check below counts what went in.
            let _ = f.insert(k);
        }
    });
    assert!(
        f.len() >= keys.len() * 99 / 100,
        "the fill lost inserts: {} of {}",
        f.len(),
        keys.len()
    );
    keys.len() as f64 / secs / 1e6
}

/// The fill without sharing: each thread fills a filter of its own with
/// every key of the fill, so each does one thread's whole fill, on a table
/// of the same size and load, with no line any other thread writes: M
/// inserts/s over all threads. What the shared fill loses against it is
/// the price of sharing the table's lines.
fn fill_apart(items: usize, present: &[u64], threads: usize) -> f64 {
    let filters: Vec<CuckooFilter> = (0..threads).map(|_| filter(items)).collect();
    let keys = &present[..items * 4 / 5];
    let one_each: Vec<u64> = (0..threads as u64).collect();
    let secs = timed(&one_each, threads, |t, _| {
        for k in keys {
            let _ = filters[t].insert(k);
        }
    });
    assert!(
        filters.iter().all(|f| f.len() >= keys.len() * 99 / 100),
        "a fill lost inserts"
    );
    (threads * keys.len()) as f64 / secs / 1e6
}

/// The machine's reference for the fill: one relaxed `fetch_or` per key of
/// the fill at a random word of an array of the filter's size: M ops/s.
fn machine(items: usize, present: &[u64], threads: usize) -> f64 {
    let words = (filter(items).memory_usage() / 8).max(1);
    let array: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    let keys = &present[..items * 4 / 5];
    let secs = timed(keys, threads, |_, chunk| {
        for &k in chunk {
            // The key's high bits pick the word (a multiply-shift range
            // reduction), its low bits the bit.
            let at =
                ((k.wrapping_mul(0x9e37_79b9_7f4a_7c15) as u128 * words as u128) >> 64) as usize;
            array[at].fetch_or(1 << (k & 63), Ordering::Relaxed);
        }
    });
    std::hint::black_box(&array);
    keys.len() as f64 / secs / 1e6
}

/// Half lookups (half of them hits), half inserts of new keys, on a filter
/// prefilled to 40%: M operations/s.
fn mixed(items: usize, present: &[u64], absent: &[u64], threads: usize) -> f64 {
    let f = filter(items);
    let pre = items * 2 / 5;
    for k in &present[..pre] {
        let _ = f.insert(k);
    }
    // Operation i: even i inserts present[pre + i / 2]; odd i looks up a
    // prefilled key or an absent one, alternately.
    let ops: Vec<u64> = (0..items).map(|i| i as u64).collect();
    let secs = timed(&ops, threads, |_, chunk| {
        let mut hits = 0usize;
        for &i in chunk {
            let i = i as usize;
            if i.is_multiple_of(2) {
                let _ = f.insert(&present[pre + i / 2]);
            } else if i % 4 == 1 {
                hits += usize::from(f.contains(&present[(i / 4) % pre]));
            } else {
                hits += usize::from(f.contains(&absent[i / 4]));
            }
        }
        std::hint::black_box(hits);
    });
    ops.len() as f64 / secs / 1e6
}

fn main() {
    const USAGE: &str = "writer_scaling [ITEMS THREADS ROUNDS]";
    let items = number(1, "ITEMS", 2_097_152, 1024, USAGE);
    let threads = thread_counts(USAGE);
    let rounds = number(3, "ROUNDS", 5, 1, USAGE);
    let present = keys(items, 1);
    let absent = keys(items, 2);
    println!(
        "{} items, threads {threads:?}, {rounds} interleaved rounds, M ops/s over all threads: median (min-max)",
        items
    );
    // Per thread count: fill, mix, machine, fill apart, one entry per round.
    let mut rates = vec![[Vec::new(), Vec::new(), Vec::new(), Vec::new()]; threads.len()];
    for r in 0..rounds {
        for j in 0..threads.len() {
            let i = (j + r) % threads.len();
            rates[i][0].push(fill(items, &present, threads[i]));
            rates[i][1].push(mixed(items, &present, &absent, threads[i]));
            rates[i][2].push(machine(items, &present, threads[i]));
            rates[i][3].push(fill_apart(items, &present, threads[i]));
        }
    }
    let one = threads.iter().position(|&t| t == 1);
    println!(
        "threads  fill to 80%              mixed 50/50              machine: fetch_or        fill / machine's scaling  mix / machine's         fill apart               shared fill / apart"
    );
    for (k, t) in threads.iter().enumerate() {
        let show = |v: &[f64]| {
            let mut v = v.to_vec();
            let m = median(&mut v);
            format!("{m:7.1} ({:.1}-{:.1})", v[0], v[v.len() - 1])
        };
        // Round by round: (rate / one thread's) / (machine / one thread's).
        let scaled = |what: usize| match one {
            Some(o) => {
                let mut v: Vec<f64> = (0..rounds)
                    .map(|r| {
                        (rates[k][what][r] / rates[o][what][r]) / (rates[k][2][r] / rates[o][2][r])
                    })
                    .collect();
                let m = median(&mut v);
                format!("{m:5.2} ({:.2}-{:.2})", v[0], v[v.len() - 1])
            }
            None => "-".to_string(),
        };
        // Round by round: the shared fill's rate over the unshared one's.
        let mut kept: Vec<f64> = (0..rounds)
            .map(|r| rates[k][0][r] / rates[k][3][r])
            .collect();
        let m = median(&mut kept);
        println!(
            "{t:7}  {:22}  {:22}  {:22}  {:24}  {:22}  {:22}  {m:5.2} ({:.2}-{:.2})",
            show(&rates[k][0]),
            show(&rates[k][1]),
            show(&rates[k][2]),
            scaled(0),
            scaled(1),
            show(&rates[k][3]),
            kept[0],
            kept[kept.len() - 1]
        );
    }
}
