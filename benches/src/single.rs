//! One thread per filter: the paper's Table 3 and Figures 5 to 8, every filter side by side.
//!
//! All filters are filled together in steps (10%, 20%, ... 90%, 95% of the capacity n they were
//! sized for): at each step their inserts are timed (Figure 7) in a rotated order, then lookups
//! (Figure 6) run in rounds, every filter once a round, rotated; at 95% the query mixes of
//! Figure 5 too. Then each filter is filled to capacity (Table 3: a cuckoo filter until its first
//! failed insert, others up to n), and emptied in the same steps, timing deletes (Figure 8).
//! Inserts cannot be repeated on one filter, so fills and deletes run on `fills` fresh sets.

use cuckoo_nest_bench::keys::Keys;
use cuckoo_nest_bench::stats::{mops, rotated, Samples, Spread};

use crate::figures::{percent_axis, Figure, FIG5, FIG6_NEGATIVE, FIG6_POSITIVE, FIG7, FIG8};
use crate::progress::Phase;
use crate::report::Report;
use crate::sizes::FILL_SETS;
use crate::space::bloom_bits_at;
use crate::subjects::{
    batch_rate, lookup_rate, single_contenders, timed, Contender, Filling, Kind, Subject,
    BATCHED_COLOR,
};
use crate::table::{Format, Table};

/// The occupancy steps, as fractions of the capacity n.
pub const STEPS: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/// Figure 5: shares of lookups that hit.
pub const POSITIVE_SHARES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// Figure 5 is measured at this fill.
pub const FIG5_FILL: f64 = 0.95;

/// Query sets shared by every filter, generated once.
pub struct Workload<'a> {
    pub keys: &'a Keys,
    pub n: usize,
    /// Number of keys inserted when each step ends.
    pub step_goals: Vec<usize>,
    /// Positive lookups after each step: drawn from the keys inserted so far.
    pub step_positive: Vec<Vec<u64>>,
    pub negative: Vec<u64>,
    /// One query set per entry of `POSITIVE_SHARES`, positives from the first 95% of keys.
    pub fig5: Vec<Vec<u64>>,
    /// Rounds of every lookup measurement.
    pub rounds: usize,
}

impl<'a> Workload<'a> {
    pub fn new(keys: &'a Keys, n: usize, lookups: usize, rounds: usize) -> Workload<'a> {
        let step_goals: Vec<usize> = STEPS
            .iter()
            .map(|s| (s * n as f64).round() as usize)
            .collect();
        let step_positive = step_goals
            .iter()
            .enumerate()
            .map(|(i, &goal)| keys.queries(lookups, goal, 1.0, 100 + i as u64))
            .collect();
        let fill = (FIG5_FILL * n as f64).round() as usize;
        let fig5 = POSITIVE_SHARES
            .iter()
            .enumerate()
            .map(|(i, &p)| keys.queries(lookups, fill, p, 200 + i as u64))
            .collect();
        Workload {
            keys,
            n,
            step_goals,
            step_positive,
            negative: keys.queries(lookups, 0, 0.0, 99),
            fig5,
            rounds: rounds.max(1),
        }
    }
}

/// Table 3 for one filter: counted on the first set of filters, the construction rate on each.
#[derive(Default)]
struct Capacity {
    items: usize,
    /// Share of its slots, for filters that have them.
    load: Option<f64>,
    bits_per_item: f64,
    fpr_measured: f64,
    fpr_expected: f64,
    lost: usize,
    construction: Samples,
    remark: Option<String>,
}

/// Table 3: fills a cuckoo filter until its first failed insert, others up to n. Returns the
/// construction rate from empty, and a remark when the filter filled up early or never did.
fn fill_to_capacity(l: &mut Filling, w: &Workload<'_>) -> (Option<f64>, Option<String>) {
    let keys = &w.keys.present;
    // Only a filter that failed during the steps holds fewer keys than the last step's goal.
    let remark = if let Some(i) = w.step_goals.iter().position(|&g| g > l.inserted) {
        Some(format!(
            "full at {:.1}% of n, before the {:.0}% step",
            l.inserted as f64 * 100.0 / w.n as f64,
            STEPS[i] * 100.0
        ))
    } else if l.filter.slots().is_some() {
        // Cuckoo filters, the ones with slots.
        let end = keys.len();
        let never_failed = l.insert_to(keys, end).is_some();
        never_failed.then(|| format!("never failed: ran out of the {end} generated keys"))
    } else {
        l.insert_to(keys, w.n.min(keys.len()));
        None
    };
    (mops(l.inserted, l.secs), remark)
}

/// Space, false positives and lost items of a filter holding `keys`.
fn at_capacity(filter: &dyn Subject, w: &Workload<'_>, keys: &[u64], cap: &mut Capacity) {
    let inserted = keys.len();
    cap.items = inserted;
    cap.load = filter.slots().map(|s| inserted as f64 / s as f64);
    cap.bits_per_item = filter.memory_bytes() as f64 * 8.0 / inserted.max(1) as f64;
    cap.fpr_expected = filter.expected_fpr(inserted);
    let probes = &w.keys.absent;
    cap.fpr_measured = filter.count_hits(probes) as f64 / probes.len() as f64;
    cap.lost = inserted - filter.count_hits(keys);
}

/// The empty figures: Figure 5 with every filter (and batch path), the others with the
/// filters that can be filled.
fn figures(contenders: &[Contender]) -> Vec<Figure> {
    let shares = Figure::new(
        &FIG5,
        POSITIVE_SHARES.to_vec(),
        percent_axis(&POSITIVE_SHARES),
    );
    let mut figs = vec![shares.note(format!(
        "Filters at {:.0}% of n (xorf holds all n keys); columns: share of positive lookups, \
         hits and misses shuffled together.",
        FIG5_FILL * 100.0
    ))];
    let by_step = [&FIG6_POSITIVE, &FIG6_NEGATIVE, &FIG7, &FIG8];
    let notes = [
        "Occupancy = items inserted / n; every query hits.",
        "Occupancy = items inserted / n; every query misses.",
        "Column x%: inserts that fill the filter from the previous step to x% of n.",
        "Column x%: deletes that empty the filter from x% of n to the next step down. \
         Empty: the filter cannot delete.",
    ];
    for (spec, note) in by_step.into_iter().zip(notes) {
        figs.push(Figure::new(spec, STEPS.to_vec(), percent_axis(&STEPS)).note(note));
    }
    for c in contenders {
        figs[0].line(&c.label, c.color);
        if c.batched {
            figs[0].line(c.batched_label(), BATCHED_COLOR);
        }
        if c.kind == Kind::Dynamic {
            figs[1..].iter_mut().for_each(|f| f.line(&c.label, c.color));
        }
    }
    figs
}

/// Table 3 and Figures 5 to 8 for every configuration and peer, side by side, with one summary
/// line each.
pub fn part(r: &mut Report) -> Result<(), String> {
    let o = r.o;
    let contenders = single_contenders(&o.configs, o.items, r.fpr_target, o.seed);
    let fills = o.reps.min(FILL_SETS);
    let phase = Phase::start("single thread", fills as u64);
    let w = Workload::new(r.keys(), o.items, r.lookups, o.reps);
    let mut figs = figures(&contenders);
    let mut caps: Vec<Capacity> = contenders.iter().map(|_| Capacity::default()).collect();
    let of_kind = |kind| (contenders.iter().enumerate()).filter(move |(_, c)| c.kind == kind);
    // Static filters are built once, from the first n keys.
    let mut statics = Vec::new();
    for (k, c) in of_kind(Kind::Static) {
        phase.message(format!("{}: build", c.label));
        let keys = &w.keys.present[..w.n];
        let (filter, secs) = timed(|| (c.build)(keys));
        let filter = filter?;
        caps[k].construction.push(0, mops(keys.len(), secs));
        at_capacity(&*filter, &w, keys, &mut caps[k]);
        statics.push((k, filter));
    }
    // Inserts cannot be repeated on one filter: every set fills fresh filters.
    for pass in 0..fills.max(1) {
        let mut live = Vec::new();
        for (k, c) in of_kind(Kind::Dynamic) {
            live.push((k, Filling::new((c.build)(&[])?)));
        }
        fill_pass(
            pass,
            &mut live,
            &statics,
            &contenders,
            &w,
            &mut figs,
            &phase,
        );
        for (k, l) in &mut live {
            let (rate, remark) = fill_to_capacity(l, &w);
            caps[*k].construction.push(pass, rate);
            if pass == 0 {
                let label = &contenders[*k].label;
                phase.message(format!("{label}: false positives and lost items"));
                at_capacity(&*l.filter, &w, &w.keys.present[..l.inserted], &mut caps[*k]);
                caps[*k].remark = remark;
            }
        }
        phase.message(format!("set {}: delete until empty", pass + 1));
        delete_pass(pass, &mut live, &w, &mut figs[4]);
        phase.inc();
    }
    let filters = contenders.len();
    phase.finish(&format!("{filters} filters measured side by side"));
    for line in summary(&contenders, &caps, &figs[0]) {
        eprintln!("          {line}");
    }
    r.tables.push(table3(&contenders, &caps, &w));
    figs.into_iter().for_each(|f| r.figure(f));
    Ok(())
}

/// Fills set `pass` step by step, timing inserts, and on the first set Figures 5 and 6.
fn fill_pass(
    pass: usize,
    live: &mut [(usize, Filling)],
    statics: &[(usize, Box<dyn Subject>)],
    contenders: &[Contender],
    w: &Workload<'_>,
    figs: &mut [Figure],
    phase: &Phase,
) {
    for (i, &goal) in w.step_goals.iter().enumerate() {
        phase.message(format!(
            "set {}: fill to {:.0}%",
            pass + 1,
            STEPS[i] * 100.0
        ));
        for d in rotated(pass + i, live.len()) {
            let l = &mut live[d].1;
            let from = l.inserted;
            let rate = l.insert_to(&w.keys.present, goal);
            figs[3].lines[d].cells[i].push(pass, rate.and_then(|s| mops(goal - from, s)));
        }
        if pass > 0 {
            continue;
        }
        for r in 0..w.rounds {
            for d in rotated(r, live.len()) {
                let l = &live[d].1;
                if l.full {
                    continue;
                }
                let f = &*l.filter;
                let pos = lookup_rate(&w.step_positive[i], |q| f.count_hits(q));
                figs[1].lines[d].cells[i].push(r, pos);
                let neg = lookup_rate(&w.negative, |q| f.count_hits(q));
                figs[2].lines[d].cells[i].push(r, neg);
            }
        }
        if STEPS[i] == FIG5_FILL {
            phase.message("lookups by share of hits");
            let filling = live.iter().filter(|(_, l)| !l.full);
            let mut subjects: Vec<(usize, &dyn Subject)> = filling
                .map(|(k, l)| (*k, &*l.filter))
                .chain(statics.iter().map(|(k, f)| (*k, &**f)))
                .collect();
            subjects.sort_by_key(|s| s.0);
            share_lookups(&subjects, contenders, w, &mut figs[0]);
        }
    }
}

/// Figure 5: every filter (and batch path) once per round, rotated, at every share of hits.
fn share_lookups(
    subjects: &[(usize, &dyn Subject)],
    contenders: &[Contender],
    w: &Workload<'_>,
    fig: &mut Figure,
) {
    // (line, filter, batched) for every line of the figure whose filter is present.
    let mut rows: Vec<(usize, &dyn Subject, bool)> = Vec::new();
    for (k, f) in subjects {
        let c = &contenders[*k];
        if let Some(line) = fig.line_index(&c.label) {
            rows.push((line, *f, false));
        }
        if c.batched
            && let Some(line) = fig.line_index(&c.batched_label())
        {
            rows.push((line, *f, true));
        }
    }
    for r in 0..w.rounds {
        for i in rotated(r, rows.len()) {
            let (line, f, batched) = rows[i];
            for (j, q) in w.fig5.iter().enumerate() {
                let rate = if batched {
                    batch_rate(f, q)
                } else {
                    lookup_rate(q, |q| f.count_hits(q))
                };
                fig.lines[line].cells[j].push(r, rate);
            }
        }
    }
}

/// Figure 8: deletes until empty, in the fill steps downwards, filters rotated at each step.
fn delete_pass(pass: usize, live: &mut [(usize, Filling)], w: &Workload<'_>, fig: &mut Figure) {
    let keys = &w.keys.present;
    let top = w.step_goals[STEPS.len() - 1];
    // Down to 95% first, untimed: the steps below are the same for every filter.
    for (_, l) in live.iter_mut().filter(|(_, l)| l.inserted > top) {
        let _ = l.filter.remove_all(&keys[top..l.inserted]);
        l.inserted = top;
    }
    for i in (0..STEPS.len()).rev() {
        let to = if i == 0 { 0 } else { w.step_goals[i - 1] };
        for d in rotated(pass + i, live.len()) {
            let l = &mut live[d].1;
            if w.step_goals[i] > l.inserted {
                continue; // never filled this far
            }
            let (found, secs) = timed(|| l.filter.remove_all(&keys[to..l.inserted]));
            // `None`: the filter cannot delete (it returns at once), its cells stay empty.
            if found.is_some() {
                fig.lines[d].cells[i].push(pass, mops(l.inserted - to, secs));
            }
            l.inserted = to;
        }
    }
}

fn table3(contenders: &[Contender], caps: &[Capacity], w: &Workload<'_>) -> Table {
    let fpr_target = w.keys.absent.len();
    let mut t = Table::new(
        "table3_space_and_construction",
        "Table 3: space, false positives, construction",
        "filter",
    )
    .note(format!(
        "Cuckoo filters: items inserted until the first failed insert (sized for n = {}); \
         Bloom, quotient: the configured capacity n; xorf: built from n keys. Bloom at this \
         rate: a fastbloom filter sized for n at the row's expected rate.",
        w.n
    ))
    .note(format!(
        "False-positive rate measured with {fpr_target} absent keys at capacity; lost = inserted \
         keys no longer found (false negatives); construction: median over the filled sets."
    ))
    .column("items at capacity", "items_at_capacity", Format::Count)
    .column("load (% of slots)", "load_pct_of_slots", Format::Fixed(1))
    .column("bits/item", "bits_per_item", Format::Fixed(2))
    .column("FPR measured (%)", "fpr_measured_pct", Format::Significant)
    .column("FPR expected (%)", "fpr_expected_pct", Format::Significant)
    .column(
        "Bloom at this rate (bits/item)",
        "bloom_bits_at_rate",
        Format::Fixed(2),
    )
    .measured(
        "construction (M items/s)",
        "construction_mops",
        Format::Fixed(2),
    )
    .column("lost items", "lost_items", Format::Count);
    let exact = |v: Option<f64>| v.map(Spread::exact);
    for (c, cap) in contenders.iter().zip(caps) {
        // Cuckoo filters (the rows with slots): fastbloom sized for n at the filter's rate.
        let bloom = cap
            .load
            .map(|_| bloom_bits_at(w.n, cap.fpr_expected, w.keys.seed));
        t.row(
            c.label.clone(),
            vec![
                exact(Some(cap.items as f64)),
                exact(cap.load.map(|v| v * 100.0)),
                exact(Some(cap.bits_per_item)),
                exact(Some(cap.fpr_measured * 100.0)),
                exact(Some(cap.fpr_expected * 100.0)),
                exact(bloom),
                cap.construction.spread(),
                exact(Some(cap.lost as f64)),
            ],
        );
    }
    let remarks: Vec<String> = contenders
        .iter()
        .zip(caps)
        .filter_map(|(c, cap)| cap.remark.as_ref().map(|m| format!("{}: {m}", c.label)))
        .collect();
    if !remarks.is_empty() {
        t = t.note(format!("Remarks: {}.", remarks.join("; ")));
    }
    t
}

fn summary(contenders: &[Contender], caps: &[Capacity], fig5: &Figure) -> Vec<String> {
    let half = POSITIVE_SHARES.iter().position(|&p| p == 0.5);
    contenders
        .iter()
        .zip(caps)
        .map(|(c, cap)| {
            let at_half = fig5
                .line_index(&c.label)
                .zip(half)
                .and_then(|(l, h)| fig5.lines[l].cells[h].spread())
                .map_or(0.0, |s| s.median);
            format!(
                "{}: {} items at capacity, {:.1} bits/item, construction {:.1} M/s, lookups \
                 {at_half:.1} M/s (50% hits)",
                c.label,
                cap.items,
                cap.bits_per_item,
                cap.construction.spread().map_or(0.0, |s| s.median),
            )
        })
        .collect()
}
