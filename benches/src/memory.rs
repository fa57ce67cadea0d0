//! The hardware limit for out-of-cache lookups, and how close cuckoo-nest gets to it.
//!
//! A lookup on a filter much bigger than the last-level cache costs at least two random
//! cache-line loads, one per candidate bucket, so one core's rate of random independent 64-byte
//! loads over a large buffer, halved, bounds its lookups per second. The buffer is a filter
//! table's own memory (`cuckoo_nest_bench::pages`), on 2 MiB and on 4 KiB pages; a dependent
//! pointer chase over it gives the load latency for reference.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::progress::Phase;
use crate::shared::{lookup_rate, timed};
use crate::table::{Format, Table};
use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::{absent_key, mix64, present_key, SplitMix64};
use cuckoo_nest_bench::pages::Buffer;
use cuckoo_nest_bench::stats::{median, of_medians, Samples, Spread};

const LINE: usize = 64;
/// Keys a filling thread claims and inserts with one `insert_batch` call.
const FILL_CHUNK: usize = 1 << 12;

/// Writes a single random cycle through all lines (Sattolo's algorithm) into the first word of
/// each line of a zeroed buffer.
fn fill_chase(words: &mut [u64], seed: u64) {
    let lines = words.len() * 8 / LINE;
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..lines).rev() {
        order.swap(i, rng.below(i));
    }
    for (i, &from) in order.iter().enumerate() {
        words[from as usize * (LINE / 8)] = u64::from(order[(i + 1) % lines]);
    }
}

/// Random independent line loads per second on this core: the best of prefetching 16, 32 and
/// 64 lines ahead. A batch of lookups keeps 32 lines in flight; with 16 ahead, `contains_batch`
/// read at up to 110% of that "bound" in single rounds, so the bound takes the best depth.
fn random_loads(words: &[u64], loads: usize, seed: u64) -> f64 {
    random_loads_ahead::<16>(words, loads, seed)
        .max(random_loads_ahead::<32>(words, loads, seed ^ 1))
        .max(random_loads_ahead::<64>(words, loads, seed ^ 2))
}

/// Random independent line loads per second, each prefetched `AHEAD` loads before it is read,
/// as a batch of lookups prefetches its buckets (a plain loop of loads keeps far fewer in
/// flight: batched lookups ran at twice that "bound").
fn random_loads_ahead<const AHEAD: usize>(words: &[u64], loads: usize, seed: u64) -> f64 {
    let lines = words.len() * 8 / LINE;
    let mut ring = [0usize; AHEAD];
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        ((mix64(x) as u128 * lines as u128) >> 64) as usize * (LINE / 8)
    };
    for slot in ring.iter_mut() {
        *slot = next();
        prefetch(&words[*slot]);
    }
    let mut acc = 0u64;
    let t = Instant::now();
    for k in 0..loads {
        let i = ring[k % AHEAD];
        let ahead = next();
        prefetch(&words[ahead]);
        ring[k % AHEAD] = ahead;
        acc = acc.wrapping_add(words[i]);
    }
    black_box(acc);
    loads as f64 / t.elapsed().as_secs_f64()
}

/// Asks for the cache line holding `word` (a hint: never faults).
#[inline(always)]
fn prefetch(word: &u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and `word` is a valid reference; SSE is baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (word as *const u64).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    black_box(word);
}

/// Nanoseconds per load when each load's address comes from the previous load.
fn chase_latency(words: &[u64], loads: usize) -> f64 {
    let mut i = 0u64;
    let t = Instant::now();
    for _ in 0..loads {
        i = words[i as usize * (LINE / 8)];
    }
    black_box(i);
    t.elapsed().as_secs_f64() * 1e9 / loads as f64
}

pub struct LineRates {
    pub buffer_mib: usize,
    /// Lines per second on 2 MiB pages (as requested) and on 4 KiB pages.
    pub huge_pages: f64,
    pub small_pages: f64,
    pub latency_ns_huge: f64,
    pub latency_ns_small: f64,
}

fn median_of(reps: usize, mut f: impl FnMut() -> f64) -> f64 {
    let v: Vec<f64> = (0..reps.max(1)).map(|_| f()).collect();
    median(&v)
}

/// Measures both page sizes; returns the rates and the 2 MiB-page buffer for `out_of_cache`.
pub fn line_rates(
    mib: usize,
    loads: usize,
    reps: usize,
    phase: &Phase,
) -> Result<(LineRates, Buffer), String> {
    // Lines/s, latency and the buffer, on one page size.
    let measure = |huge: bool, k: u64| -> Result<(f64, f64, Buffer), String> {
        phase.message(if huge { "2 MiB pages" } else { "4 KiB pages" });
        let mut buf = Buffer::new(mib << 20, huge)?;
        fill_chase(buf.words_mut(), 17 + k);
        let rate = median_of(reps, || random_loads(buf.words(), loads, 5 + k));
        let latency = chase_latency(buf.words(), (loads / 16).max(1000));
        phase.inc();
        Ok((rate, latency, buf))
    };
    let (huge_pages, latency_ns_huge, kept) = measure(true, 0)?;
    let (small_pages, latency_ns_small, _) = measure(false, 1)?;
    let rates = LineRates {
        buffer_mib: mib,
        huge_pages,
        small_pages,
        latency_ns_huge,
        latency_ns_small,
    };
    Ok((rates, kept))
}

pub struct OutOfCache {
    pub filter_mib: f64,
    pub items: usize,
    pub load_factor: f64,
    /// Lines per second measured beside the lookups (2 MiB pages), median of the rounds'.
    pub lines_per_s: f64,
    /// M lookups/s on one core (median of the rounds), and as % of the bound (ratio of medians).
    pub negative_1: f64,
    pub negative_pct: Option<Spread>,
    pub positive_1: f64,
    pub positive_pct: Option<Spread>,
    /// One-core negative lookups through `contains_batch`.
    pub negative_batched_1: f64,
    pub negative_batched_pct: Option<Spread>,
    /// M lookups/s, all threads together.
    pub negative_all: f64,
    pub threads: usize,
    pub fill_mops: f64,
}

/// Fills one large default cuckoo-nest filter (with all threads: it is built for that) and
/// times lookups on it, on one core against the bound, then on all threads.
#[allow(clippy::too_many_arguments)] // One call site; a struct would only rename the list.
pub fn out_of_cache(
    mib: usize,
    fill: f64,
    lookups: usize,
    threads: usize,
    reps: usize,
    seed: u64,
    buffer: &mut Buffer,
    loads: usize,
    phase: &Phase,
) -> Result<OutOfCache, String> {
    // A default filter stores 16-bit fingerprints: about 2 bytes per item it is sized for.
    let capacity = (mib << 20) / 2;
    let filter = crate::subjects::build_nest(crate::cli::NestConfig::Default, capacity)?;
    let seed = seed ^ 0x0005_EED0_FB16;
    let target = (capacity as f64 * fill) as usize;
    phase.message(format!("fill {target} items with {threads} threads"));
    let ((), fill_secs) = timed(|| fill_parallel(&filter, seed, target, threads));
    phase.inc();
    let mut rng = SplitMix64::new(seed);
    let negative: Vec<u64> = (0..lookups as u64).map(|i| absent_key(seed, i)).collect();
    let positive: Vec<u64> = (0..lookups)
        .map(|_| present_key(seed, rng.below(target) as u64))
        .collect();
    phase.message("lookups, one core, beside the line rate");
    let one = |q: &[u64]| q.iter().filter(|k| filter.contains(*k)).count();
    let batch = |q: &[u64]| crate::subjects::nest_contains_batched(&filter, q);
    // The line rate is measured right before and right after each round's lookups, so both
    // see the same competition on a shared machine; the round's bound (two lines a lookup) is
    // the better of the two, so a burst of the neighbours' work does not sink it.
    let mut bound = Samples::default();
    let (mut neg, mut pos, mut bat) = (Samples::default(), Samples::default(), Samples::default());
    for round in 0..reps.max(1) {
        let before = random_loads(buffer.words(), loads, 100 + round as u64);
        neg.push(round, lookup_rate(&negative, one));
        pos.push(round, lookup_rate(&positive, one));
        bat.push(round, lookup_rate(&negative, batch));
        let after = random_loads(buffer.words(), loads, 200 + round as u64);
        bound.push(round, Some(before.max(after) / 2.0 / 1e6));
    }
    phase.inc();
    phase.message(format!("lookups, {threads} threads"));
    let negative_all = median_of(reps, || all_threads(&filter, &negative, threads));
    phase.inc();
    let median = |cell: &Samples| cell.spread().map_or(f64::NAN, |s| s.median);
    let share = |cell: &Samples| of_medians(&[cell, &bound], |v| v[0] / v[1] * 100.0);
    Ok(OutOfCache {
        filter_mib: filter.memory_usage() as f64 / (1 << 20) as f64,
        items: filter.len(),
        load_factor: filter.load_factor(),
        lines_per_s: median(&bound) * 2.0 * 1e6,
        negative_1: median(&neg),
        negative_pct: share(&neg),
        positive_1: median(&pos),
        positive_pct: share(&pos),
        negative_batched_1: median(&bat),
        negative_batched_pct: share(&bat),
        negative_all,
        threads,
        fill_mops: filter.len() as f64 / fill_secs / 1e6,
    })
}

/// Negative lookups on all threads at once, M lookups/s in aggregate.
fn all_threads(filter: &Nest, negative: &[u64], threads: usize) -> f64 {
    let per = negative.len() / threads.max(1);
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 0..threads {
            let q = &negative[k * per..(k + 1) * per];
            s.spawn(move || black_box(q.iter().filter(|x| filter.contains(*x)).count()));
        }
    });
    (per * threads) as f64 / t.elapsed().as_secs_f64() / 1e6
}

/// Inserts `present_key(seed, 0..target)` into `filter` from `threads` threads, chunk by chunk
/// with `insert_batch` (which overlaps the inserts' cache misses): sets up large filters.
pub fn fill_parallel(filter: &Nest, seed: u64, target: usize, threads: usize) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut chunk = Vec::with_capacity(FILL_CHUNK);
                loop {
                    let start = next.fetch_add(FILL_CHUNK, Ordering::Relaxed);
                    if start >= target {
                        break;
                    }
                    chunk.clear();
                    let end = (start + FILL_CHUNK).min(target);
                    chunk.extend((start..end).map(|i| present_key(seed, i as u64)));
                    // At these fills nothing fails; a failure would leave it a little emptier.
                    let _ = filter.insert_batch(&chunk);
                }
            });
        }
    });
}

/// The kernel's transparent-huge-page mode, e.g. "madvise", for the report's notes.
pub fn thp_mode() -> String {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(['[', ']']).to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The out-of-cache table: the line rates, the bound, and the lookups against it.
pub fn table(rates: &LineRates, oc: &OutOfCache) -> Table {
    let mut t = Table::new(
        "cache_line_rate_and_out_of_cache",
        "Out-of-cache lookups against the hardware limit (one core)",
        "measurement",
    )
    .note(format!(
        "Random independent 64-byte loads over a {} MiB buffer, each prefetched ahead as the \
         batch lookups prefetch (the best of 16, 32 and 64 lines ahead: a batch keeps 32 in \
         flight); a cuckoo lookup needs two lines, \
         so lines/s / 2 bounds lookups/s. cuckoo-nest default filter of {:.0} MiB, {} items \
         ({:.0}% of slots), keys hashed by the filter.",
        rates.buffer_mib,
        oc.filter_mib,
        oc.items,
        oc.load_factor * 100.0
    ))
    .note(
        "The bound is re-measured right before and right after each round of lookups (the \
         round's bound is the better of the two), so both sides saw the same competition for the \
         machine. Values are medians over rounds; % of bound is the ratio of \
         the row's value to the bound's, then in brackets the smallest and largest share within \
         a single round.",
    )
    .column("value", "value", Format::Fixed(1))
    .measured(
        "% of bound: ratio of medians (per-round min-max)",
        "pct_of_bound",
        Format::WithRange(0),
    );
    let threads = oc.threads;
    let mut row = |label: &str, value: f64, pct: Option<Spread>| {
        t.row(label.to_string(), vec![Some(Spread::exact(value)), pct]);
    };
    row(
        "random line loads, 2 MiB pages (M lines/s)",
        rates.huge_pages / 1e6,
        None,
    );
    row(
        "random line loads, 4 KiB pages (M lines/s)",
        rates.small_pages / 1e6,
        None,
    );
    row(
        "dependent load latency, 2 MiB pages (ns)",
        rates.latency_ns_huge,
        None,
    );
    row(
        "dependent load latency, 4 KiB pages (ns)",
        rates.latency_ns_small,
        None,
    );
    let bound = oc.lines_per_s / 2.0 / 1e6;
    row(
        "lookup bound = lines/s / 2, beside the lookups (M lookups/s)",
        bound,
        None,
    );
    let (neg, pos) = (oc.negative_pct, oc.positive_pct);
    row(
        "cuckoo-nest negative lookups, 1 thread (M/s)",
        oc.negative_1,
        neg,
    );
    row(
        "cuckoo-nest positive lookups, 1 thread (M/s)",
        oc.positive_1,
        pos,
    );
    row(
        "cuckoo-nest negative lookups, contains_batch, 1 thread (M/s)",
        oc.negative_batched_1,
        oc.negative_batched_pct,
    );
    let all = format!("cuckoo-nest negative lookups, {threads} threads (M/s)");
    row(&all, oc.negative_all, None);
    let fill = format!("cuckoo-nest fill with insert_batch, {threads} threads (M inserts/s)");
    row(&fill, oc.fill_mops, None);
    t
}
