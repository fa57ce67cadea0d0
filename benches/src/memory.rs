//! The hardware limit for out-of-cache lookups, and how close cuckoo-nest gets to it.
//!
//! A lookup on a filter much bigger than the last-level cache costs at least two random
//! cache-line loads, one per candidate bucket, so one core's rate of random independent 64-byte
//! loads over a large buffer, halved, bounds its lookups per second. The buffer is a filter
//! table's own memory (`cuckoo_nest_bench::pages`), on 2 MiB and on 4 KiB pages; a dependent
//! pointer chase over it gives the load latency for reference.

use std::hint::black_box;
use std::time::Instant;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::{absent_key, mix64, present_key, SplitMix64};
use cuckoo_nest_bench::pages::Buffer;
use cuckoo_nest_bench::stats::{median, mops, of_medians, Samples, Spread};

use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{
    chunk, fill_parallel, lookup_rate, nest_contains_batched, timed, timed_threads, Subject,
};
use crate::table::{Format, Table};

const LINE: usize = 64;

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

fn median_of(reps: usize, mut f: impl FnMut() -> f64) -> f64 {
    let v: Vec<f64> = (0..reps.max(1)).map(|_| f()).collect();
    median(&v)
}

/// The cache-line rates on 2 MiB and 4 KiB pages, then one large default cuckoo-nest filter (filled
/// with all threads: it is built for that) timed on one core against the bound, and on all threads.
pub fn part(r: &mut Report) -> Result<(), String> {
    let (o, mib, loads) = (r.o, r.sizes.memory_mib, r.sizes.loads);
    let (reps, threads) = (o.reps, o.threads);
    let phase = Phase::start("cache-line rate", 2);
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
    let (huge_rate, huge_latency, buffer) = measure(true, 0)?;
    let (small_rate, small_latency, _) = measure(false, 1)?;
    phase.finish(&format!(
        "{:.0} M random 64-B lines/s on one core (2 MiB pages), {:.0} M/s (4 KiB pages); \
         latency {huge_latency:.0} ns",
        huge_rate / 1e6,
        small_rate / 1e6,
    ));

    let phase = Phase::start("out-of-cache lookups", 3);
    // A default filter stores 16-bit fingerprints: about 2 bytes per item it is sized for.
    let capacity = (mib << 20) / 2;
    let filter = Nest::with_capacity(capacity);
    let seed = o.seed ^ 0x0005_EED0_FB16;
    let target = capacity / 2;
    phase.message(format!("fill {target} items with {threads} threads"));
    let ((), fill_secs) = timed(|| fill_parallel(&filter, seed, target, threads));
    phase.inc();
    let lookups = r.sizes.oc_lookups;
    let mut rng = SplitMix64::new(seed);
    let negative: Vec<u64> = (0..lookups as u64).map(|i| absent_key(seed, i)).collect();
    let positive: Vec<u64> = (0..lookups)
        .map(|_| present_key(seed, rng.below(target) as u64))
        .collect();
    phase.message("lookups, one core, beside the line rate");
    let one = |q: &[u64]| filter.count_hits(q);
    let batch = |q: &[u64]| nest_contains_batched(&filter, q);
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
    drop(buffer);
    phase.inc();
    phase.message(format!("lookups, {threads} threads"));
    // Negative lookups on all threads at once, M lookups/s in aggregate.
    let all = |k| one(chunk(&negative, threads, k));
    let all_rate = || {
        mops(
            negative.len() / threads * threads,
            timed_threads(threads, &all),
        )
    };
    let negative_all = median_of(reps, || all_rate().unwrap_or(f64::NAN));
    phase.inc();
    let median = |cell: &Samples| cell.spread().map_or(f64::NAN, |s| s.median);
    let share = |cell: &Samples| of_medians(&[cell, &bound], |v| v[0] / v[1] * 100.0);
    let filter_mib = filter.memory_usage() as f64 / (1 << 20) as f64;
    phase.finish(&format!(
        "{filter_mib:.0} MiB filter: {:.1} M negative lookups/s on one core = {:.0}% of the \
         {:.1} M/s bound ({:.0}% batched)",
        median(&neg),
        share(&neg).map_or(f64::NAN, |s| s.median),
        median(&bound),
        share(&bat).map_or(f64::NAN, |s| s.median)
    ));
    let mut t = Table::new(
        "cache_line_rate_and_out_of_cache",
        "Out-of-cache lookups against the hardware limit (one core)",
        "measurement",
    )
    .note(format!(
        "Random independent 64-byte loads over a {mib} MiB buffer, each prefetched ahead as the \
         batch lookups prefetch (the best of 16, 32 and 64 lines ahead: a batch keeps 32 in \
         flight); a cuckoo lookup needs two lines, so lines/s / 2 bounds lookups/s. cuckoo-nest \
         default filter of {filter_mib:.0} MiB, {} items ({:.0}% of slots), keys hashed by the \
         filter.",
        filter.len(),
        filter.load_factor() * 100.0
    ))
    .note(
        "The bound is re-measured right before and right after each round of lookups (the \
         round's bound is the better of the two), so both sides saw the same competition for the \
         machine. Values are medians over rounds; % of bound is the ratio of the row's value to \
         the bound's, then in brackets the smallest and largest share within a single round.",
    )
    .column("value", "value", Format::Fixed(1))
    .measured(
        "% of bound: ratio of medians (per-round min-max)",
        "pct_of_bound",
        Format::WithRange(0),
    );
    let fill_mops = filter.len() as f64 / fill_secs / 1e6;
    let mut row = |label: String, value: f64, pct: Option<Spread>| {
        t.row(label, vec![Some(Spread::exact(value)), pct]);
    };
    let pages = [
        ("2 MiB", huge_rate, huge_latency),
        ("4 KiB", small_rate, small_latency),
    ];
    for (size, rate, _) in pages {
        let label = format!("random line loads, {size} pages (M lines/s)");
        row(label, rate / 1e6, None);
    }
    for (size, _, latency) in pages {
        let label = format!("dependent load latency, {size} pages (ns)");
        row(label, latency, None);
    }
    let bound_label = "lookup bound = lines/s / 2, beside the lookups (M lookups/s)";
    row(bound_label.to_string(), median(&bound), None);
    let one_core = [
        ("negative lookups", &neg),
        ("positive lookups", &pos),
        ("negative lookups, contains_batch", &bat),
    ];
    for (what, cell) in one_core {
        let label = format!("cuckoo-nest {what}, 1 thread (M/s)");
        row(label, median(cell), share(cell));
    }
    let all = format!("cuckoo-nest negative lookups, {threads} threads (M/s)");
    row(all, negative_all, None);
    let fill = format!("cuckoo-nest fill with insert_batch, {threads} threads (M inserts/s)");
    row(fill, fill_mops, None);
    r.tables.push(t);
    Ok(())
}
