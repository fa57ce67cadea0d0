//! The parts of the report, each run and summarised on its progress line: the single-thread
//! figures, space, shuffled lookups, thread scaling, growth, out-of-cache lookups and byte
//! keys; and the keys the single-thread, space and thread parts share.

use cuckoo_nest_bench::keys;

use crate::cli::Options;
use crate::figures::{self, SHUFFLED_IN_CACHE, SHUFFLED_OUT_OF_L3};
use crate::progress::Phase;
use crate::report::Output;
use crate::single::{self, Workload};
use crate::sizes::{Sizes, FILL_SETS};
use crate::{byte_keys, growth, lookups, memory, space, subjects, threads};

pub fn shared_keys(o: &Options) -> keys::Keys {
    let phase = Phase::start("keys", 1);
    // Twice n inserted keys: enough to fill any cuckoo filter sized for n until it fails.
    let keys = keys::Keys::generate(o.seed, 2 * o.items + 1024, o.items);
    phase.inc();
    phase.finish(&format!(
        "{} keys to insert, {} absent keys",
        keys.present.len(),
        keys.absent.len()
    ));
    keys
}

pub fn single_thread(
    o: &Options,
    keys: &keys::Keys,
    lookups: usize,
    fpr_target: f64,
    out: &mut Output,
) -> Result<(), String> {
    let contenders = subjects::single_contenders(&o.configs, o.items, fpr_target, o.seed);
    let fills = o.reps.min(FILL_SETS);
    let phase = Phase::start("single thread", fills as u64);
    let workload = Workload::new(keys, o.items, lookups, o.reps);
    let run = single::run(&contenders, &workload, fills, &phase)?;
    phase.finish(&format!(
        "{} filters measured side by side",
        contenders.len()
    ));
    for l in &run.summary {
        eprintln!("          {l}");
    }
    out.tables.push(run.table3);
    for f in run.figures {
        out.figure(f);
    }
    Ok(())
}

/// Bits per item against the false-positive rate, for the first n keys.
pub fn space(o: &Options, keys: &keys::Keys, out: &mut Output) {
    let phase = Phase::start("bits per item against false-positive rate", 1);
    let (table, panel) = space::bits_per_item(&keys.present[..o.items], o.seed);
    out.tables.push(table);
    out.extra_plots.push((
        "space_bits_per_item.svg",
        "Bits per item against the false-positive rate",
        panel,
    ));
    phase.inc();
    phase.finish("sizes of every filter at six rates");
}

/// Shuffled hit/miss lookups (in cache, out of L3) and lookups beside a writer.
pub fn user_lookups(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("shuffled lookups", 3);
    let rounds = 2 * o.reps + 1;
    let seed = o.seed ^ 0x5111_FF1E;
    let fig = lookups::shuffled(
        &SHUFFLED_IN_CACHE,
        sizes.shuffled_items,
        &lookups::SHUFFLED_SHARES,
        sizes.shuffled_lookups,
        rounds,
        seed,
        o.threads,
        &phase,
    )?;
    out.figure(fig);
    match sizes.out_of_l3_items {
        Some(items) => {
            let fig = lookups::shuffled(
                &SHUFFLED_OUT_OF_L3,
                items,
                &[0.5],
                sizes.shuffled_lookups,
                o.reps,
                seed ^ 1,
                o.threads,
                &phase,
            )?;
            out.figure(fig);
        }
        None => eprintln!("          shuffled lookups out of L3: skipped in this mode"),
    }
    let fig = lookups::beside_writer(
        o.items,
        sizes.shuffled_lookups,
        rounds,
        seed ^ 2,
        o.threads,
        &phase,
    )?;
    let slowdown = fig
        .ratio(BESIDE_WRITER_SLOWDOWN, 0)
        .map_or(0.0, |s| s.median);
    out.figure(fig);
    phase.finish(&format!(
        "lookups beside a writer: {slowdown:.2}x slower than alone"
    ));
    Ok(())
}

const BESIDE_WRITER_SLOWDOWN: figures::Ratio = figures::BESIDE_WRITER.ratios[0];

/// Share of the thread-scaling lookups, and of the mixed runs' reads, that hit.
const POSITIVE_FRACTION: f64 = 0.5;

pub fn thread_scaling(
    o: &Options,
    keys: &keys::Keys,
    fpr_target: f64,
    sizes: &Sizes,
    out: &mut Output,
) -> Result<(), String> {
    // Two-thread cells move most from run to run (the second vCPU of a
    // shared host is the one most often busy elsewhere): more rounds for
    // the four scaling figures, whose measurements are short. The large
    // fill builds a fresh filter per measurement and keeps `reps`.
    let rounds = 2 * o.reps + 1;
    let counts = threads::thread_counts(o.threads);
    let phase = Phase::start(
        "thread scaling",
        (rounds * threads::Job::ALL.len() + o.reps) as u64,
    );
    let figs = threads::run(
        keys,
        o.items,
        &counts,
        POSITIVE_FRACTION,
        fpr_target,
        rounds,
        &phase,
    )?;
    for f in figs {
        out.figure(f);
    }
    let fill = threads::large_fill(sizes.large_fill_items, o.threads, o.reps, o.seed, &phase)?;
    let vs_machine = fill.ratio(figures::Ratio::ScalingVs { line: "machine" }, 0);
    out.figure(fill);
    phase.finish(&format!(
        "threads {counts:?}; large fill at {} threads: {:.2} of the machine's scaling",
        o.threads,
        vs_machine.map_or(0.0, |s| s.median)
    ));
    Ok(())
}

/// What growth costs from C to 64C items: a growable filter against filters built for each
/// count and against the peer that grows.
pub fn growth(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("growth", o.reps as u64);
    let run = growth::run(
        sizes.growth_first,
        sizes.growth_lookups,
        sizes.growth_absent,
        o.reps,
        o.seed ^ 0x6120_3717,
        &phase,
    )?;
    phase.finish(&run.summary);
    for f in run.figures {
        out.figure(f);
    }
    out.tables.push(run.fpr);
    Ok(())
}

pub fn out_of_cache(o: &Options, sizes: &Sizes, out: &mut Output) -> Result<(), String> {
    let phase = Phase::start("cache-line rate", 2);
    let (rates, mut buffer) = memory::line_rates(sizes.memory_mib, sizes.loads, o.reps, &phase)?;
    phase.finish(&format!(
        "{:.0} M random 64-B lines/s on one core (2 MiB pages), {:.0} M/s (4 KiB pages); \
         latency {:.0} ns",
        rates.huge_pages / 1e6,
        rates.small_pages / 1e6,
        rates.latency_ns_huge
    ));
    let phase = Phase::start("out-of-cache lookups", 3);
    let oc = memory::out_of_cache(
        sizes.memory_mib,
        0.5,
        sizes.oc_lookups,
        o.threads,
        o.reps,
        o.seed,
        &mut buffer,
        sizes.loads,
        &phase,
    )?;
    drop(buffer);
    phase.finish(&format!(
        "{:.0} MiB filter: {:.1} M negative lookups/s on one core = {:.0}% of the {:.1} M/s bound \
         ({:.0}% batched)",
        oc.filter_mib,
        oc.negative_1,
        oc.negative_pct.map_or(f64::NAN, |s| s.median),
        oc.lines_per_s / 2e6,
        oc.negative_batched_pct.map_or(f64::NAN, |s| s.median)
    ));
    out.tables.push(memory::table(&rates, &oc));
    Ok(())
}

/// Lookups and inserts of 8- to 64-byte keys beside u64 keys, in cache and out of cache.
pub fn byte_keys(
    o: &Options,
    sizes: &Sizes,
    fpr_target: f64,
    out: &mut Output,
) -> Result<(), String> {
    // Out of cache every round refills 25 filters of 20M keys: --reps rounds there.
    let (n, l) = sizes.byte_keys_in_cache;
    let mut at = vec![(n, l, 2 * o.reps + 1, "in cache")];
    if let Some((n, l)) = sizes.byte_keys_out_of_cache {
        at.push((n, l, o.reps.max(1), "out of cache"));
    }
    let tables = byte_keys::byte_keys(&at, fpr_target, o.seed ^ 0xB7E5)?;
    out.tables.extend(tables);
    Ok(())
}
