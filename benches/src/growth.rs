//! What growth costs, as a filter grows from its first capacity C to 64C: a growable
//! cuckoo-nest filter started at C, a fixed cuckoo-nest filter built for each final count, and
//! `scalable_cuckoo_filter` (the Rust peer that grows) started at C, all at the builder's 1%
//! false-positive target, from the same keys.
//!
//! Every round fills fresh filters in lockstep: at each size (C, 2C, ... 64C) the growing filters
//! take the next keys and a fixed filter is built for the size and filled from empty, each timed
//! from empty (construction and growth included), in a rotated order; then the three answer the
//! same shuffled lookups (half hits, at 8C also through `contains_batch`), rotated again, and their
//! memory is counted. False positives: counted in the first round. After the rounds, one more
//! growable filter is filled from C to 64C, untimed, its memory compared with a fixed filter's at
//! every 5% more items, since the figure's columns all fall at a generation's end.

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::Keys;
use cuckoo_nest_bench::stats::{mops, of_medians, rotated, Samples, Spread};
use scalable_cuckoo_filter::{ScalableCuckooFilter, ScalableCuckooFilterBuilder};

use crate::cli::NestConfig;
use crate::figures::{Axis, Figure, GROWTH_BASE, GROWTH_BITS, GROWTH_INSERTS, GROWTH_LOOKUPS};
use crate::plot::Rgb;
use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{
    batch_rate, build_nest, lookup_rate, subject, timed, Filling, Subject, BATCH,
};
use crate::table::{Format, Table};

/// Sizes measured, as multiples of the first capacity C.
pub const MULTIPLES: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];
/// The false-positive target every filter is built for: the builder's 1% pick.
pub const RATE: f64 = 0.01;
const PCT: f64 = RATE * 100.0;
/// The growth issue's targets at 8C, as the time of the fixed filter's: single lookups, batched
/// lookups, inserts with growth.
const TARGET_MULTIPLE: usize = 8;
const TARGET_LOOKUPS: f64 = 1.4;
const TARGET_BATCHES: f64 = 1.3;
const TARGET_INSERTS: f64 = 1.8;

/// The subjects, in line order.
const GROWABLE: usize = 0;
const FIXED: usize = 1;
const SCALABLE: usize = 2;
const SUBJECTS: usize = 3;

const SCALABLE_COLOR: Rgb = Rgb(0x94, 0x67, 0xbd);

/// The growable cuckoo-nest filter (it doubles its table when full), started at `capacity` with
/// the shape the builder picks for `fpr`: the one place it is built.
fn growable_nest(capacity: usize, fpr: f64) -> Result<Box<dyn Subject>, String> {
    let filter = Nest::builder()
        .capacity(capacity)
        .false_positive_rate(fpr)
        .growable(true)
        .build()
        .map_err(|e| format!("growable cuckoo-nest: {e}"))?;
    Ok(Box::new(filter))
}

// The Rust peer that grows: a chain of cuckoo filters, each twice the size of the last at half
// its false-positive rate; a lookup asks every filter of the chain. Its memory: the crate's own
// count of its bit-packed buckets and its list of kicked-out items.
subject! {
    ScalableCuckooFilter<u64>: |f, k, n| { f.insert(k); true }, f.contains(k), None,
        f.bits().div_ceil(8) as usize, None, f.false_positive_probability();
}

/// A filter built with its construction timed, so that it counts in the filter's insert rates.
fn started(build: impl FnOnce() -> Result<Box<dyn Subject>, String>) -> Result<Filling, String> {
    let (filter, secs) = timed(build);
    Ok(Filling {
        secs,
        ..Filling::new(filter?)
    })
}

/// The growable filter's memory through a whole fill from C to the last count, not only at
/// the figure's columns, each of which falls at a generation's end (where a small table is at
/// its fullest and a large one also holds the next, backed ahead): `memory_usage()` over that
/// of a fixed filter built for the count, every 5% more items. Untimed. Returns the mean, the
/// most and how many points.
fn memory_through_fill(first: usize, keys: &[u64]) -> Result<(f64, f64, usize), String> {
    let mut growable = growable_nest(first, RATE)?;
    let (mut sum, mut most, mut points, mut inserted) = (0.0, 0.0f64, 0, 0);
    let mut at = first as f64;
    while at as usize <= keys.len() {
        let end = at as usize;
        if growable.insert_all(&keys[inserted..end]) < end - inserted {
            return Err("the growable filter refused a key".to_string());
        }
        inserted = end;
        let fixed = build_nest(NestConfig::FalsePositiveRate(RATE), end)?;
        let ratio = growable.memory_bytes() as f64 / fixed.memory_bytes() as f64;
        (sum, most, points) = (sum + ratio, most.max(ratio), points + 1);
        at *= 1.05;
    }
    Ok((sum / points as f64, most, points))
}

/// A ratio as the tables print it: median of the rounds, their range in brackets.
fn show(ratio: Option<Spread>) -> String {
    ratio.map_or("-".to_string(), |s| {
        format!("{:.2}x ({:.2}-{:.2})", s.median, s.min, s.max)
    })
}

/// The x axis: k for 2^k C, labelled "1x" to "64x".
fn axis() -> Axis {
    let labels: Vec<String> = MULTIPLES.iter().map(|m| format!("{m}x")).collect();
    let xs = MULTIPLES.iter().map(|m| f64::from(m.trailing_zeros()));
    (xs.collect(), labels.clone(), labels)
}

/// Runs the growth measurements: first capacity C `growth_first`, `growth_lookups` per
/// measurement, the false-positive rate on `growth_absent` keys never inserted.
pub fn part(r: &mut Report) -> Result<(), String> {
    let (s, rounds) = (&r.sizes, r.o.reps.max(1));
    let (first, lookups) = (s.growth_first, s.growth_lookups);
    let phase = Phase::start("growth", rounds as u64);
    let seed = r.o.seed ^ 0x6120_3717;
    let last = first * MULTIPLES[MULTIPLES.len() - 1];
    phase.message(format!("{last} keys"));
    let keys = Keys::generate(seed, last, s.growth_absent);
    let queries: Vec<Vec<u64>> = MULTIPLES
        .iter()
        .enumerate()
        .map(|(i, m)| keys.queries(lookups, m * first, 0.5, 700 + i as u64))
        .collect();
    let labels = [
        format!("cuckoo-nest growable from C, {PCT}%"),
        format!("{GROWTH_BASE}, built for the count, {PCT}%"),
        format!("scalable_cuckoo_filter 0.5 from C, {PCT}%"),
    ];
    // The growable cuckoo-nest in the red every figure gives the cuckoo-nest line to find.
    let colors = [NestConfig::Default, NestConfig::FalsePositiveRate(RATE)].map(|c| c.color());
    let colors = [colors[0], colors[1], SCALABLE_COLOR];
    let mut figs: Vec<Figure> = [&GROWTH_LOOKUPS, &GROWTH_BITS, &GROWTH_INSERTS]
        .into_iter()
        .map(|spec| {
            let mut f = Figure::new(spec, axis());
            labels.iter().zip(colors).for_each(|(l, c)| f.line(l, c));
            f
        })
        .collect();
    // The first growable filter of a process registers the process for `membarrier` (its
    // lookups' read-side sections rely on it), once per process, not per filter: paid here,
    // untimed, so each round's inserts cost what a filter's own inserts cost.
    let (built, first_build) = timed(|| growable_nest(first, RATE).map(drop));
    built?;
    // False positives at each size, counted in the first round.
    let mut fpr: Vec<Vec<Option<f64>>> = vec![vec![None; MULTIPLES.len()]; SUBJECTS];
    // Batched lookups at the target size, growable and fixed.
    let mut batched = [Samples::default(), Samples::default()];
    for r in 0..rounds {
        let mut filling = [
            Some(started(|| growable_nest(first, RATE))?),
            None,
            Some(started(|| {
                let filter = ScalableCuckooFilterBuilder::new()
                    .initial_capacity(first)
                    .false_positive_probability(RATE)
                    .finish::<u64>();
                Ok(Box::new(filter))
            })?),
        ];
        for (i, &m) in MULTIPLES.iter().enumerate() {
            let goal = m * first;
            phase.message(format!("round {}: {m}x C = {goal} items", r + 1));
            // The fixed filter is built for each size, its time from empty a fresh filter's.
            filling[FIXED] = None;
            for s in rotated(r + i, SUBJECTS) {
                if s == FIXED {
                    let config = NestConfig::FalsePositiveRate(RATE);
                    filling[s] = Some(started(|| Ok(Box::new(build_nest(config, goal)?)))?);
                }
                let f = filling[s].as_mut().expect("every subject is started");
                let rate = f
                    .insert_to(&keys.present, goal)
                    .and_then(|_| mops(goal, f.secs));
                figs[2].lines[s].cells[i].push(r, rate);
            }
            for s in rotated(r + i, SUBJECTS) {
                let Some(f) = filling[s].as_ref().filter(|f| !f.full) else {
                    continue;
                };
                let (f, q) = (&*f.filter, &queries[i]);
                figs[0].lines[s].cells[i].push(r, lookup_rate(q, |q| f.count_hits(q)));
                if m == TARGET_MULTIPLE && s != SCALABLE {
                    let rate = batch_rate(f, q);
                    batched[s].push(r, rate);
                }
                let bits = f.memory_bytes() as f64 * 8.0 / goal as f64;
                figs[1].lines[s].cells[i].push(r, Some(bits));
                if r == 0 {
                    let hits = f.count_hits(&keys.absent);
                    fpr[s][i] = Some(hits as f64 / keys.absent.len() as f64);
                }
            }
        }
        phase.inc();
    }
    phase.message("memory through a whole fill".to_string());
    let (mean_memory, most_memory, memory_points) = memory_through_fill(first, &keys.present)?;
    let batch_ratio = of_medians(&[&batched[FIXED], &batched[GROWABLE]], |v| v[0] / v[1]);
    let notes = [
        format!(
            "C = {first} items, the first capacity of both growing filters; the fixed filter \
             is built for each count with `capacity(count).false_positive_rate({RATE})`. \
             Columns: items inserted, from C to {last}. {rounds} rounds, each filling fresh \
             filters and measuring the three at every size in a rotated order. Keys hashed as \
             each filter's `&T: Hash` API hashes them (the growable filter is a \
             `CuckooFilter` built with `Builder::growable(true)`)."
        ),
        format!(
            "The growth issue's targets at {TARGET_MULTIPLE}x, each as the fixed filter's time: \
             single lookups at most {TARGET_LOOKUPS} times, batched lookups \
             {TARGET_BATCHES} times, inserts with growth {TARGET_INSERTS} times (its memory \
             targets are at other sizes: docs/benchmarks.md, \"Growth\")."
        ),
    ];
    let middles = [
        [
            format!(
                "{lookups} lookups per measurement: hits drawn uniformly from the keys inserted \
                 so far, misses never inserted, shuffled together. `time vs`: the fixed \
                 filter's rate / the row's (1.5 = each lookup takes 1.5 times as long)."
            ),
            format!(
                "Batched at {TARGET_MULTIPLE}x (`contains_batch`, {BATCH} keys a call, the same \
                 queries): growable {:.1} M lookups/s, fixed {:.1}; time vs the fixed filter {}.",
                batched[GROWABLE].spread().map_or(f64::NAN, |s| s.median),
                batched[FIXED].spread().map_or(f64::NAN, |s| s.median),
                show(batch_ratio)
            ),
        ],
        [
            "Bits per item = all the filter's memory x 8 / items inserted: cuckoo-nest's tables \
             (two during a growth step) and their lock stripes; scalable_cuckoo_filter's own \
             count of its bits."
                .to_string(),
            format!(
                "Through a whole fill from C to {last} items, every 5% more items \
                 ({memory_points} points, one filter, untimed): the growable filter's memory \
                 {mean_memory:.2} times the fixed filter's on average, {most_memory:.2} at most. \
                 Each column above falls at a generation's end, where its table is at its \
                 fullest (and where the kernel cannot collapse a table onto huge pages after \
                 its step, before Linux 6.1, a table on huge pages also holds the next one from \
                 80% of its growth load)."
            ),
        ],
        [
            "Column kx: M inserts/s filling from empty to kx C, construction included: the \
             growing filters grow on the way, the fixed one is built for kx C. `time vs`: the \
             fixed filter's rate / the row's."
                .to_string(),
            format!(
                "Built before the rounds, untimed: the process's first growable filter, which \
                 registers the process for `membarrier` once for all its growable filters \
                 ({:.1} ms here).",
                first_build * 1e3
            ),
        ],
    ];
    // Each figure's notes: the shared first, its own two, the targets last.
    for (f, middle) in figs.iter_mut().zip(middles) {
        f.notes = [&notes[..1], &middle, &notes[1..]].concat();
    }
    let worst = fpr[GROWABLE].iter().flatten().copied().reduce(f64::max);
    // The growable filter against the fixed one at the size: each figure's first ratio
    // column, and the batches' ratio.
    let ratio = |f: &Figure| show(f.ratio(f.spec.ratios[0], GROWABLE));
    let summary = format!(
        "growable at {TARGET_MULTIPLE}x C against the fixed filter: lookups {} its time \
         (target {TARGET_LOOKUPS}), batches {} its time (target {TARGET_BATCHES}), {} its bits \
         per item ({mean_memory:.2}x on average through the fill, {most_memory:.2}x at most), \
         inserts {} its time (target {TARGET_INSERTS}); false positives at most {:.3}% \
         (target {PCT}%)",
        ratio(&figs[0]),
        show(batch_ratio),
        ratio(&figs[1]),
        ratio(&figs[2]),
        worst.unwrap_or(f64::NAN) * 100.0,
    );
    phase.finish(&summary);
    figs.into_iter().for_each(|f| r.figure(f));
    r.tables
        .push(fpr_table(&labels, &fpr, worst, first, keys.absent.len()));
    Ok(())
}

/// The false-positive rates counted in the first round, in %, with the target beside them;
/// `worst`: the growable filter's highest.
fn fpr_table(
    labels: &[String; SUBJECTS],
    fpr: &[Vec<Option<f64>>],
    worst: Option<f64>,
    first: usize,
    probes: usize,
) -> Table {
    let verdict = match worst.map(|w| (w <= RATE, w * 100.0)) {
        Some((true, w)) => format!("at or under the {PCT}% target at every size (highest {w:.4}%)"),
        Some((false, w)) => format!("OVER the {PCT}% target (highest {w:.4}%)"),
        None => "not measured".to_string(),
    };
    let mut t = Table::new(
        "growth_false_positive_rate",
        "Growth: false-positive rate (%) by items inserted",
        "filter",
    )
    .note(format!(
        "Counted once, in the first round, on {probes} keys never inserted; C = {first}. The \
         growth issue asks the growable filter to stay at or under its {PCT}% target at every \
         size from 1x to 64x: measured {verdict}."
    ));
    for m in MULTIPLES {
        t = t.column(
            &format!("{m}x"),
            &format!("fpr_measured_{m}x_pct"),
            Format::Significant,
        );
    }
    t = t.column("target", "fpr_target_pct", Format::Significant);
    for (label, row) in labels.iter().zip(fpr) {
        let mut v: Vec<Option<f64>> = row.iter().map(|r| r.map(|r| r * 100.0)).collect();
        v.push(Some(PCT));
        t.row_exact(label.clone(), v);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{At, Ratio};

    /// The notes and the summary name `TARGET_MULTIPLE`; the figures' first ratio columns read
    /// the x value k of 2^k C, which must be the same size.
    #[test]
    fn first_ratio_columns_sit_at_the_target_size() {
        for spec in [&GROWTH_LOOKUPS, &GROWTH_BITS, &GROWTH_INSERTS] {
            let k = match spec.ratios[0] {
                Ratio::VsLine(_, At::Value(k)) | Ratio::TimeVsLine(_, At::Value(k)) => k,
                other => panic!("{}: {other:?}", spec.name),
            };
            assert_eq!(1usize << k as u32, TARGET_MULTIPLE, "{}", spec.name);
            assert!(axis().0.contains(&k));
        }
    }
}
