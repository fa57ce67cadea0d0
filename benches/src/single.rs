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
    batch_rate, lookup_rate, single_contenders, timed, Contender, Filling, Subject, BATCHED_COLOR,
};
use crate::table::{Format, Table};

/// The occupancy steps, as fractions of the capacity n.
const STEPS: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/// Figure 5: shares of lookups that hit.
const POSITIVE_SHARES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// Figure 5 is measured at this fill.
const FIG5_FILL: f64 = 0.95;

/// The part's filters, the query sets they all answer (generated once) and the figures they fill.
struct Single<'a> {
    keys: &'a Keys,
    n: usize,
    /// Number of keys inserted when each step ends.
    step_goals: Vec<usize>,
    /// Positive lookups after each step: drawn from the keys inserted so far.
    step_positive: Vec<Vec<u64>>,
    negative: Vec<u64>,
    /// One query set per entry of `POSITIVE_SHARES`, positives from the first 95% of keys.
    fig5: Vec<Vec<u64>>,
    /// Rounds of every lookup measurement.
    rounds: usize,
    contenders: Vec<Contender>,
    /// Figures 5, 6a, 6b, 7 and 8.
    figs: Vec<Figure>,
    phase: Phase,
}

/// Table 3 for one filter: counted on the first set of filters, the construction rate on each.
#[derive(Default)]
struct Capacity {
    /// Items, load (% of its slots, for filters that have them), bits per item, false-positive
    /// rate measured and expected (%), lost items.
    counted: Vec<Option<f64>>,
    fpr_expected: f64,
    construction: Samples,
    remark: Option<String>,
}

impl Single<'_> {
    /// Table 3: fills a cuckoo filter until its first failed insert, others up to n. Returns the
    /// construction rate from empty, and a remark when the filter filled up early or never did.
    fn fill_to_capacity(&self, l: &mut Filling) -> (Option<f64>, Option<String>) {
        let keys = &self.keys.present;
        // Only a filter that failed during the steps holds fewer keys than the last step's goal.
        let remark = if let Some(i) = self.step_goals.iter().position(|&g| g > l.inserted) {
            Some(format!(
                "full at {:.1}% of n, before the {:.0}% step",
                l.inserted as f64 * 100.0 / self.n as f64,
                STEPS[i] * 100.0
            ))
        } else if l.filter.slots().is_some() {
            // Cuckoo filters, the ones with slots.
            let end = keys.len();
            let never_failed = l.insert_to(keys, end).is_some();
            never_failed.then(|| format!("never failed: ran out of the {end} generated keys"))
        } else {
            l.insert_to(keys, self.n.min(keys.len()));
            None
        };
        (mops(l.inserted, l.secs), remark)
    }

    /// Space, false positives and lost items of a filter holding `keys`.
    fn at_capacity(&self, filter: &dyn Subject, keys: &[u64], cap: &mut Capacity) {
        let (items, probes) = (keys.len() as f64, &self.keys.absent);
        cap.fpr_expected = filter.expected_fpr(keys.len());
        cap.counted = vec![
            Some(items),
            filter.slots().map(|s| items / s as f64 * 100.0),
            Some(filter.memory_bytes() as f64 * 8.0 / items.max(1.0)),
            Some(filter.count_hits(probes) as f64 / probes.len() as f64 * 100.0),
            Some(cap.fpr_expected * 100.0),
            Some(items - filter.count_hits(keys) as f64),
        ];
    }

    /// Fills set `pass` step by step, timing inserts, and on the first set Figures 5 and 6.
    fn fill_pass(
        &mut self,
        pass: usize,
        live: &mut [(usize, Filling)],
        statics: &[(usize, Box<dyn Subject>)],
    ) {
        for (i, step) in STEPS.iter().enumerate() {
            let (goal, step) = (self.step_goals[i], step * 100.0);
            self.phase
                .message(format!("set {}: fill to {step:.0}%", pass + 1));
            for d in rotated(pass + i, live.len()) {
                let l = &mut live[d].1;
                let from = l.inserted;
                let rate = l.insert_to(&self.keys.present, goal);
                self.figs[3].lines[d].cells[i].push(pass, rate.and_then(|s| mops(goal - from, s)));
            }
            if pass > 0 {
                continue;
            }
            for r in 0..self.rounds {
                for d in rotated(r, live.len()) {
                    let l = &live[d].1;
                    if l.full {
                        continue;
                    }
                    let f = &*l.filter;
                    let pos = lookup_rate(&self.step_positive[i], |q| f.count_hits(q));
                    self.figs[1].lines[d].cells[i].push(r, pos);
                    let neg = lookup_rate(&self.negative, |q| f.count_hits(q));
                    self.figs[2].lines[d].cells[i].push(r, neg);
                }
            }
            if STEPS[i] == FIG5_FILL {
                self.phase.message("lookups by share of hits");
                let filling = live.iter().filter(|(_, l)| !l.full);
                let mut subjects: Vec<(usize, &dyn Subject)> = filling
                    .map(|(k, l)| (*k, &*l.filter))
                    .chain(statics.iter().map(|(k, f)| (*k, &**f)))
                    .collect();
                subjects.sort_by_key(|s| s.0);
                self.share_lookups(&subjects);
            }
        }
    }

    /// Figure 5: every filter (and batch path) once per round, rotated, at every share of hits.
    fn share_lookups(&mut self, subjects: &[(usize, &dyn Subject)]) {
        let fig = &mut self.figs[0];
        // (line, filter, batched) for every line of the figure whose filter is present.
        let mut rows: Vec<(usize, &dyn Subject, bool)> = Vec::new();
        for (k, f) in subjects {
            let c = &self.contenders[*k];
            if let Some(line) = fig.line_index(&c.label) {
                rows.push((line, *f, false));
            }
            if c.batched
                && let Some(line) = fig.line_index(&c.batched_label())
            {
                rows.push((line, *f, true));
            }
        }
        for r in 0..self.rounds {
            for i in rotated(r, rows.len()) {
                let (line, f, batched) = rows[i];
                for (j, q) in self.fig5.iter().enumerate() {
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
    fn delete_pass(&mut self, pass: usize, live: &mut [(usize, Filling)]) {
        let (keys, goals) = (&self.keys.present, &self.step_goals);
        let top = goals[STEPS.len() - 1];
        // Down to 95% first, untimed: the steps below are the same for every filter.
        for (_, l) in live.iter_mut().filter(|(_, l)| l.inserted > top) {
            let _ = l.filter.remove_all(&keys[top..l.inserted]);
            l.inserted = top;
        }
        for i in (0..STEPS.len()).rev() {
            let to = if i == 0 { 0 } else { goals[i - 1] };
            for d in rotated(pass + i, live.len()) {
                let l = &mut live[d].1;
                if goals[i] > l.inserted {
                    continue; // never filled this far
                }
                let (found, secs) = timed(|| l.filter.remove_all(&keys[to..l.inserted]));
                // `None`: the filter cannot delete (it returns at once), its cells stay empty.
                if found.is_some() {
                    self.figs[4].lines[d].cells[i].push(pass, mops(l.inserted - to, secs));
                }
                l.inserted = to;
            }
        }
    }
}

/// The empty figures: Figure 5 with every filter (and batch path), the others with the
/// filters that can be filled.
fn figures(contenders: &[Contender]) -> Vec<Figure> {
    let shares = Figure::new(&FIG5, percent_axis(&POSITIVE_SHARES));
    let mut figs = vec![shares.note(format!(
        "Filters at {:.0}% of n (xorf holds all n keys); columns: share of positive lookups, \
         hits and misses shuffled together.",
        FIG5_FILL * 100.0
    ))];
    let by_step = [
        (
            &FIG6_POSITIVE,
            "Occupancy = items inserted / n; every query hits.",
        ),
        (
            &FIG6_NEGATIVE,
            "Occupancy = items inserted / n; every query misses.",
        ),
        (
            &FIG7,
            "Column x%: inserts that fill the filter from the previous step to x% of n.",
        ),
        (
            &FIG8,
            "Column x%: deletes that empty the filter from x% of n to the next step down. \
             Empty: the filter cannot delete.",
        ),
    ];
    for (spec, note) in by_step {
        figs.push(Figure::new(spec, percent_axis(&STEPS)).note(note));
    }
    for c in contenders {
        figs[0].line(&c.label, c.color);
        if c.batched {
            figs[0].line(c.batched_label(), BATCHED_COLOR);
        }
        if !c.is_static {
            figs[1..].iter_mut().for_each(|f| f.line(&c.label, c.color));
        }
    }
    figs
}

/// Table 3 and Figures 5 to 8 for every configuration and peer, side by side, with one summary
/// line each.
pub fn part(r: &mut Report) -> Result<(), String> {
    let (o, keys, lookups) = (r.o, r.keys(), r.lookups);
    let contenders = single_contenders(&o.configs, o.items, r.fpr_target, o.seed);
    let fills = o.reps.min(FILL_SETS);
    let phase = Phase::start("single thread", fills as u64);
    let n = o.items;
    let step_goals: Vec<usize> = STEPS
        .iter()
        .map(|s| (s * n as f64).round() as usize)
        .collect();
    let fill = (FIG5_FILL * n as f64).round() as usize;
    let mut s = Single {
        keys,
        n,
        step_positive: (step_goals.iter().enumerate())
            .map(|(i, &goal)| keys.queries(lookups, goal, 1.0, 100 + i as u64))
            .collect(),
        step_goals,
        negative: keys.queries(lookups, 0, 0.0, 99),
        fig5: (POSITIVE_SHARES.iter().enumerate())
            .map(|(i, &p)| keys.queries(lookups, fill, p, 200 + i as u64))
            .collect(),
        rounds: o.reps.max(1),
        figs: figures(&contenders),
        contenders,
        phase,
    };
    let mut caps: Vec<Capacity> = s.contenders.iter().map(|_| Capacity::default()).collect();
    let (of_static, of_dynamic): (Vec<usize>, Vec<usize>) =
        (0..caps.len()).partition(|&k| s.contenders[k].is_static);
    // Static filters are built once, from the first n keys.
    let mut statics = Vec::new();
    for k in of_static {
        let c = &s.contenders[k];
        s.phase.message(format!("{}: build", c.label));
        let keys = &keys.present[..n];
        let (filter, secs) = timed(|| (c.build)(keys));
        let filter = filter?;
        caps[k].construction.push(0, mops(keys.len(), secs));
        s.at_capacity(&*filter, keys, &mut caps[k]);
        statics.push((k, filter));
    }
    // Inserts cannot be repeated on one filter: every set fills fresh filters.
    for pass in 0..fills.max(1) {
        let mut live = Vec::new();
        for &k in &of_dynamic {
            live.push((k, Filling::new((s.contenders[k].build)(&[])?)));
        }
        s.fill_pass(pass, &mut live, &statics);
        for (k, l) in &mut live {
            let (rate, remark) = s.fill_to_capacity(l);
            caps[*k].construction.push(pass, rate);
            if pass == 0 {
                let label = &s.contenders[*k].label;
                s.phase
                    .message(format!("{label}: false positives and lost items"));
                s.at_capacity(&*l.filter, &keys.present[..l.inserted], &mut caps[*k]);
                caps[*k].remark = remark;
            }
        }
        s.phase
            .message(format!("set {}: delete until empty", pass + 1));
        s.delete_pass(pass, &mut live);
        s.phase.inc();
    }
    let Single {
        contenders,
        figs,
        phase,
        ..
    } = s;
    phase.finish(&format!(
        "{} filters measured side by side",
        contenders.len()
    ));
    for line in summary(&contenders, &caps, &figs[0]) {
        eprintln!("          {line}");
    }
    r.tables.push(table3(&contenders, &caps, n, keys));
    figs.into_iter().for_each(|f| r.figure(f));
    Ok(())
}

fn table3(contenders: &[Contender], caps: &[Capacity], n: usize, keys: &Keys) -> Table {
    let fpr_target = keys.absent.len();
    let mut t = Table::new(
        "table3_space_and_construction",
        "Table 3: space, false positives, construction",
        "filter",
    )
    .note(format!(
        "Cuckoo filters: items inserted until the first failed insert (sized for n = {n}); \
         Bloom, quotient: the configured capacity n; xorf: built from n keys. Bloom at this \
         rate: a fastbloom filter sized for n at the row's expected rate."
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
    for (c, cap) in contenders.iter().zip(caps) {
        let mut row: Vec<Option<Spread>> =
            cap.counted.iter().map(|v| v.map(Spread::exact)).collect();
        // Cuckoo filters (the rows with slots): fastbloom sized for n at the filter's rate.
        let bloom = row[1].map(|_| Spread::exact(bloom_bits_at(n, cap.fpr_expected, keys.seed)));
        row.splice(5..5, [bloom, cap.construction.spread()]);
        t.row(c.label.clone(), row);
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
    let median = |s: Option<Spread>| s.map_or(0.0, |s| s.median);
    contenders
        .iter()
        .zip(caps)
        .map(|(c, cap)| {
            let at_half = fig5.line_index(&c.label).zip(half);
            let at_half = median(at_half.and_then(|(l, h)| fig5.lines[l].cells[h].spread()));
            format!(
                "{}: {} items at capacity, {:.1} bits/item, construction {:.1} M/s, lookups \
                 {at_half:.1} M/s (50% hits)",
                c.label,
                cap.counted[0].unwrap_or(0.0),
                cap.counted[2].unwrap_or(0.0),
                median(cap.construction.spread()),
            )
        })
        .collect()
}
