//! Lookups the way users feel them: hits and misses shuffled together on one thread (in cache
//! and out of L3, against the `cuckoofilter` crate), and lookups while another thread writes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::{mixed_queries, present_key};
use cuckoo_nest_bench::stats::rotated;

use crate::cli::NestConfig;
use crate::figures::{percent_axis, Figure, FigureSpec, BESIDE_WRITER};
use crate::figures::{SHUFFLED_IN_CACHE, SHUFFLED_OUT_OF_L3};
use crate::plot::Rgb;
use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{fill_parallel, lookup_rate, nest_contains_batched, Peer, Subject};
use crate::subjects::{BATCHED_COLOR, CUCKOOFILTER_COLOR};

/// Shares of hits of the shuffled-lookup figures.
const SHUFFLED_SHARES: [f64; 3] = [0.0, 0.5, 1.0];
/// Load of the filter the writer keeps writing to (share of its slots).
const WRITER_LOAD: f64 = 0.9;
/// The writer removes the key it inserted this many inserts earlier, holding the load steady.
const WRITER_LAG: usize = 1000;

type CountHits<'a> = dyn Fn(&[u64]) -> usize + 'a;

/// Shuffled hit/miss lookups (in cache, out of L3) and lookups beside a writer.
pub fn part(r: &mut Report) -> Result<(), String> {
    let (o, s) = (r.o, &r.sizes);
    let phase = Phase::start("shuffled lookups", 3);
    let (rounds, seed) = (2 * o.reps + 1, o.seed ^ 0x5111_FF1E);
    let mut runs = vec![(
        &SHUFFLED_IN_CACHE,
        s.shuffled_items,
        &SHUFFLED_SHARES[..],
        rounds,
    )];
    match s.out_of_l3_items {
        Some(items) => runs.push((&SHUFFLED_OUT_OF_L3, items, &[0.5], o.reps)),
        None => eprintln!("          shuffled lookups out of L3: skipped in this mode"),
    }
    let mut figs: Vec<Figure> = (runs.into_iter().enumerate())
        .map(|(i, run)| shuffled(r, run, seed ^ i as u64, &phase))
        .collect();
    let fig = beside_writer(r, rounds, seed ^ 2, &phase);
    let slowdown = fig
        .ratio(BESIDE_WRITER.ratios[0], 0)
        .map_or(0.0, |s| s.median);
    figs.push(fig);
    figs.into_iter().for_each(|f| r.figure(f));
    phase.finish(&format!(
        "lookups beside a writer: {slowdown:.2}x slower than alone"
    ));
    Ok(())
}

/// Single-thread `contains` with hits and misses shuffled together, on a default cuckoo-nest filter
/// and a `cuckoofilter` filter each holding `items` keys, at `shares` of hits, in `rounds` rounds.
fn shuffled(
    r: &Report,
    (spec, items, shares, rounds): (&'static FigureSpec, usize, &[f64], usize),
    seed: u64,
    phase: &Phase,
) -> Figure {
    let (lookups, threads) = (r.sizes.shuffled_lookups, r.o.threads);
    phase.message(format!("{}: fill {items} items", spec.name));
    let nest = Nest::with_capacity(items);
    fill_parallel(&nest, seed, items, threads);
    let mut peer = Peer::with_capacity(items);
    // A failed add evicts some other item (the crate's documented behaviour): counted.
    let peer_failed = (0..items as u64)
        .filter(|&i| peer.add(&present_key(seed, i)).is_err())
        .count();
    let queries: Vec<Vec<u64>> = shares
        .iter()
        .enumerate()
        .map(|(j, &p)| mixed_queries(seed, lookups, items, p, 500 + j as u64))
        .collect();
    let (nest, peer) = (&nest, &peer);
    // The lookup paths compared: (line, color, the loop that counts hits).
    let paths: [(&str, Rgb, &CountHits); 3] = [
        (
            "cuckoo-nest default (4x16), contains",
            NestConfig::Default.color(),
            &|q| nest.count_hits(q),
        ),
        (
            "cuckoo-nest default (4x16), contains_batch",
            BATCHED_COLOR,
            &|q| nest_contains_batched(nest, q),
        ),
        (
            "cuckoofilter 0.5 (4x8), contains",
            CUCKOOFILTER_COLOR,
            &|q| q.iter().filter(|k| peer.contains(*k)).count(),
        ),
    ];
    let mut fig = Figure::new(spec, percent_axis(shares)).note(format!(
        "Both filters sized for and holding {items} items (cuckoo-nest {:.0}% of its {:.0} MiB \
         table, cuckoofilter {:.0} MiB, {peer_failed} failed inserts); {lookups} lookups per \
         measurement: hits drawn uniformly from the inserted keys, misses never inserted, \
         shuffled together; {rounds} rounds, each measuring every path once in a rotated order.",
        nest.load_factor() * 100.0,
        nest.memory_usage() as f64 / (1 << 20) as f64,
        peer.memory_usage() as f64 / (1 << 20) as f64,
    ));
    paths
        .iter()
        .for_each(|&(label, color, _)| fig.line(label, color));
    for r in 0..rounds.max(1) {
        phase.message(format!("{}: round {}", spec.name, r + 1));
        for s in rotated(r, paths.len()) {
            for (j, q) in queries.iter().enumerate() {
                fig.lines[s].cells[j].push(r, lookup_rate(q, paths[s].2));
            }
        }
    }
    phase.inc();
    fig
}

/// Lookups on one thread, alone and while a second thread inserts fresh keys and removes
/// older ones into the same default filter at `WRITER_LOAD`; the two alternate round by round.
fn beside_writer(r: &Report, rounds: usize, seed: u64, phase: &Phase) -> Figure {
    let (n, lookups, threads) = (r.o.items, r.sizes.shuffled_lookups, r.o.threads);
    let filter = Nest::with_capacity(n);
    let target = (filter.shape().slots as f64 * WRITER_LOAD) as usize;
    phase.message(format!("fill {target} items"));
    fill_parallel(&filter, seed, target, threads);
    let queries = mixed_queries(seed, lookups, target, 0.5, 600);
    let mut fig = Figure::new(
        &BESIDE_WRITER,
        (
            vec![0.0, 1.0],
            vec!["alone".into(), "beside a writer".into()],
            vec!["alone".into(), "beside_writer".into()],
        ),
    );
    let label = "cuckoo-nest default (4x16), contains, 50% hits";
    fig.line(label, NestConfig::Default.color());
    let mut next = 0usize;
    let mut writer_rates = Vec::new();
    for r in 0..rounds.max(1) {
        phase.message(format!("round {}", r + 1));
        // Alone first on even rounds, beside the writer first on odd ones.
        for with_writer in [r % 2 == 1, r % 2 == 0] {
            let rate = if with_writer {
                let (rate, pairs, secs) =
                    lookups_with_writer(&filter, &queries, seed, target, &mut next);
                writer_rates.push(pairs as f64 / secs / 1e6);
                rate
            } else {
                lookup_rate(&queries, |q| filter.count_hits(q))
            };
            fig.lines[0].cells[usize::from(with_writer)].push(r, rate);
        }
    }
    phase.inc();
    fig.note(format!(
        "One default filter sized for n = {n} at {:.0}% of its slots; {lookups} lookups per \
         measurement, 50% hits shuffled with misses. The writer inserts fresh keys and removes \
         the key it inserted {WRITER_LAG} inserts earlier (load stays at {:.0}%), at a median \
         {:.1} M insert+remove pairs/s. slowdown = alone / beside a writer, per round (1.25 = \
         20% fewer lookups/s).",
        WRITER_LOAD * 100.0,
        WRITER_LOAD * 100.0,
        cuckoo_nest_bench::stats::median(&writer_rates),
    ))
}

/// Times the lookups while a writer thread runs: the lookup rate, the writer's pairs and
/// seconds. `next` carries the writer's position from round to round.
fn lookups_with_writer(
    filter: &Nest,
    queries: &[u64],
    seed: u64,
    base: usize,
    next: &mut usize,
) -> (Option<f64>, usize, f64) {
    let stop = AtomicBool::new(false);
    let started = AtomicBool::new(false);
    let start_at = *next;
    std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let t = Instant::now();
            let mut j = start_at;
            started.store(true, Ordering::Release);
            while !stop.load(Ordering::Relaxed) {
                let key = present_key(seed, (base + j) as u64);
                if filter.insert(&key).is_ok() && j >= WRITER_LAG {
                    // The key inserted WRITER_LAG steps ago (a miss: that insert failed).
                    let _ = filter.remove(&present_key(seed, (base + j - WRITER_LAG) as u64));
                }
                j += 1;
            }
            (j, t.elapsed().as_secs_f64())
        });
        while !started.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        let rate = lookup_rate(queries, |q| filter.count_hits(q));
        stop.store(true, Ordering::Relaxed);
        let (end, secs) = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        *next = end;
        (rate, end - start_at, secs)
    })
}
