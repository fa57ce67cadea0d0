//! One thread, one filter at a time: the paper's Table 3 and Figures 5 to 8 in one pass.
//!
//! A filter is filled in steps (10%, 20%, ... 90%, 95% of the capacity n it was sized for);
//! each step's inserts are timed (Figure 7) and after each step positive and negative lookups
//! are timed (Figure 6). At 95% the five query mixes of Figure 5 run. Then a cuckoo filter is
//! filled until its first failed insert (Table 3: items at capacity, construction rate), a Bloom
//! or quotient filter up to n; the false-positive rate is measured on absent keys, lost items are
//! counted, and the filter is emptied again in the same steps, timing deletes (Figure 8).

use std::hint::black_box;
use std::time::Instant;

use crate::keys::Keys;
use crate::progress::Phase;
use crate::subjects::{Growth, Subject};

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
    /// Absent keys looked up at capacity for the false-positive rate.
    pub fpr_probes: usize,
    pub reps: usize,
}

impl<'a> Workload<'a> {
    pub fn new(keys: &'a Keys, n: usize, lookups: usize, reps: usize) -> Workload<'a> {
        let step_goals: Vec<usize> = STEPS
            .iter()
            .map(|s| (s * n as f64).round() as usize)
            .collect();
        let step_positive = step_goals
            .iter()
            .enumerate()
            .map(|(i, &goal)| keys.queries(lookups, goal, 1.0, 100 + i as u64))
            .collect();
        let negative = keys.queries(lookups, 0, 0.0, 99);
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
            negative,
            fig5,
            fpr_probes: keys.absent.len(),
            reps,
        }
    }
}

/// Everything measured for one filter. `None` is an empty cell: not supported or not reached.
#[derive(Clone, Debug, Default)]
pub struct SingleResult {
    pub name: String,
    pub color: usize,
    pub items_at_capacity: Option<usize>,
    /// Items at capacity over table slots (cuckoo filters).
    pub load_at_capacity: Option<f64>,
    pub bits_per_item: Option<f64>,
    pub fpr_measured: Option<f64>,
    pub fpr_expected: Option<f64>,
    /// Million items per second, inserting from empty to capacity (or building a static filter).
    pub construction_mops: Option<f64>,
    /// Inserted keys the filter no longer finds after the fill to capacity (false negatives).
    pub lost: Option<usize>,
    /// M lookups/s per entry of `POSITIVE_SHARES`.
    pub fig5: Vec<Option<f64>>,
    /// Figure 5 again through the filter's batch lookup API, when it has one.
    pub fig5_batched: Option<Vec<Option<f64>>>,
    pub fig6_positive: Vec<Option<f64>>,
    pub fig6_negative: Vec<Option<f64>>,
    pub fig7_insert: Vec<Option<f64>>,
    pub fig8_delete: Vec<Option<f64>>,
    /// Set when the fill stopped early (a cuckoo filter full before 95% of n).
    pub remark: Option<String>,
}

impl SingleResult {
    fn empty(name: &str, color: usize) -> SingleResult {
        SingleResult {
            name: name.to_string(),
            color,
            fig5: vec![None; POSITIVE_SHARES.len()],
            fig6_positive: vec![None; STEPS.len()],
            fig6_negative: vec![None; STEPS.len()],
            fig7_insert: vec![None; STEPS.len()],
            fig8_delete: vec![None; STEPS.len()],
            ..SingleResult::default()
        }
    }
}

fn mops(ops: usize, secs: f64) -> Option<f64> {
    (ops > 0 && secs > 0.0).then(|| ops as f64 / secs / 1e6)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median over `reps` runs of `lookups`, in M lookups/s.
fn lookup_rate(reps: usize, queries: &[u64], lookups: impl Fn(&[u64]) -> usize) -> Option<f64> {
    let rates = (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            black_box(lookups(black_box(queries)));
            queries.len() as f64 / t.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    Some(median(rates)).filter(|r| r.is_finite() && *r > 0.0)
}

/// Per-step samples over the fill passes; the report shows their medians.
struct Samples(Vec<Vec<f64>>);

impl Samples {
    fn new() -> Samples {
        Samples(vec![Vec::new(); STEPS.len()])
    }

    fn push(&mut self, step: usize, v: Option<f64>) {
        if let Some(v) = v {
            self.0[step].push(v);
        }
    }

    fn medians(self) -> Vec<Option<f64>> {
        self.0
            .into_iter()
            .map(|v| (!v.is_empty()).then(|| median(v)))
            .collect()
    }
}

/// Runs the single-thread measurements on a dynamic filter (cuckoo, Bloom, quotient).
///
/// `make` builds a fresh, empty filter. The fill and the deletes run `fills` times on fresh
/// filters (inserts cannot be repeated on the same filter), and each step reports the median;
/// lookups and the Table 3 columns other than the construction rate come from the first pass.
pub fn run_dynamic(
    name: &str,
    color: usize,
    make: &mut dyn FnMut() -> Box<dyn Subject>,
    w: &Workload<'_>,
    fills: usize,
    phase: &Phase,
) -> SingleResult {
    let mut r = SingleResult::empty(name, color);
    let mut fig7 = Samples::new();
    let mut fig8 = Samples::new();
    let mut construction = Vec::new();
    for pass in 0..fills.max(1) {
        let mut filter = make();
        let first = pass == 0;
        let (rate, inserted) = fill_pass(name, &mut *filter, w, first, &mut r, &mut fig7, phase);
        construction.extend(rate);
        if first {
            at_capacity(name, &*filter, w, inserted, &mut r, phase);
        }
        delete_pass(name, &mut *filter, w, inserted, &mut fig8, phase);
    }
    r.fig7_insert = fig7.medians();
    r.fig8_delete = fig8.medians();
    r.construction_mops = (!construction.is_empty()).then(|| median(construction));
    r
}

/// Fills one filter in the steps, then to capacity. Returns the construction rate and the
/// number of items at capacity. Lookups are timed only when `lookups` is set.
fn fill_pass(
    name: &str,
    filter: &mut dyn Subject,
    w: &Workload<'_>,
    lookups: bool,
    r: &mut SingleResult,
    fig7: &mut Samples,
    phase: &Phase,
) -> (Option<f64>, usize) {
    let keys = &w.keys.present;
    let mut inserted = 0usize;
    let mut insert_secs = 0.0;
    let mut full = false;

    for (i, &goal) in w.step_goals.iter().enumerate() {
        phase.message(format!("{name}: fill to {:.0}%", STEPS[i] * 100.0));
        let batch = &keys[inserted..goal];
        let t = Instant::now();
        let got = filter.insert_all(batch);
        let secs = t.elapsed().as_secs_f64();
        insert_secs += secs;
        inserted += got;
        if got < batch.len() {
            full = true;
            r.remark = Some(format!(
                "full at {:.1}% of n, before the {:.0}% step",
                inserted as f64 * 100.0 / w.n as f64,
                STEPS[i] * 100.0
            ));
            break;
        }
        fig7.push(i, mops(got, secs));
        if !lookups {
            continue;
        }
        r.fig6_positive[i] = lookup_rate(w.reps, &w.step_positive[i], |q| filter.count_hits(q));
        r.fig6_negative[i] = lookup_rate(w.reps, &w.negative, |q| filter.count_hits(q));
        if STEPS[i] == FIG5_FILL {
            phase.message(format!("{name}: lookups at 95%"));
            for (j, q) in w.fig5.iter().enumerate() {
                r.fig5[j] = lookup_rate(w.reps, q, |q| filter.count_hits(q));
            }
            // BATCHED LOOKUPS: filled only for filters whose adapter has a batch path.
            if filter.count_hits_batched(&w.fig5[0][..1]).is_some() {
                r.fig5_batched = Some(
                    w.fig5
                        .iter()
                        .map(|q| {
                            lookup_rate(w.reps, q, |q| filter.count_hits_batched(q).unwrap_or(0))
                        })
                        .collect(),
                );
            }
        }
    }

    // Table 3: fill to capacity.
    phase.message(format!("{name}: fill to capacity"));
    if !full {
        let rest = match filter.growth() {
            Growth::UntilFailure => &keys[inserted..],
            Growth::Configured => &keys[inserted..w.n.min(keys.len())],
        };
        let t = Instant::now();
        let got = filter.insert_all(rest);
        insert_secs += t.elapsed().as_secs_f64();
        inserted += got;
        if filter.growth() == Growth::UntilFailure && got == rest.len() {
            r.remark = Some(format!(
                "never failed: ran out of the {} generated keys",
                keys.len()
            ));
        }
    }
    (mops(inserted, insert_secs), inserted)
}

/// Table 3 at capacity: space, false positives, lost items.
fn at_capacity(
    name: &str,
    filter: &dyn Subject,
    w: &Workload<'_>,
    inserted: usize,
    r: &mut SingleResult,
    phase: &Phase,
) {
    let keys = &w.keys.present;
    r.items_at_capacity = Some(inserted);
    r.load_at_capacity = filter.slots().map(|s| inserted as f64 / s as f64);
    r.bits_per_item = Some(filter.memory_bytes() as f64 * 8.0 / inserted.max(1) as f64);
    r.fpr_expected = Some(filter.expected_fpr(inserted));
    phase.message(format!("{name}: false positives and lost items"));
    let probes = &w.keys.absent[..w.fpr_probes];
    r.fpr_measured = Some(filter.count_hits(probes) as f64 / probes.len() as f64);
    r.lost = Some(inserted - filter.count_hits(&keys[..inserted]));
}

/// Figure 8: deletes until empty, in the fill steps downwards.
fn delete_pass(
    name: &str,
    filter: &mut dyn Subject,
    w: &Workload<'_>,
    inserted: usize,
    fig8: &mut Samples,
    phase: &Phase,
) {
    if !filter.can_remove() {
        return;
    }
    let keys = &w.keys.present;
    phase.message(format!("{name}: delete until empty"));
    let mut level = inserted;
    let top = w.step_goals[STEPS.len() - 1].min(level);
    // Down to 95% first, untimed: the steps below are the same for every filter.
    let _ = filter.remove_all(&keys[top..level]);
    level = top;
    for i in (0..STEPS.len()).rev() {
        if w.step_goals[i] > level {
            continue; // never filled this far
        }
        let to = if i == 0 { 0 } else { w.step_goals[i - 1] };
        let t = Instant::now();
        let found = filter.remove_all(&keys[to..level]);
        let secs = t.elapsed().as_secs_f64();
        if found.is_some() {
            fig8.push(i, mops(level - to, secs));
        }
        level = to;
    }
}

/// A static filter (xorf): built once from the first n keys; lookups only.
pub fn run_static(
    name: &str,
    color: usize,
    build: impl FnOnce(&[u64]) -> Result<Box<dyn Subject>, String>,
    w: &Workload<'_>,
    phase: &Phase,
) -> Result<SingleResult, String> {
    let mut r = SingleResult::empty(name, color);
    let keys = &w.keys.present[..w.n];
    phase.message(format!("{name}: build"));
    let t = Instant::now();
    let filter = build(keys)?;
    r.construction_mops = mops(keys.len(), t.elapsed().as_secs_f64());
    r.items_at_capacity = Some(keys.len());
    r.bits_per_item = Some(filter.memory_bytes() as f64 * 8.0 / keys.len() as f64);
    r.fpr_expected = Some(filter.expected_fpr(keys.len()));
    let probes = &w.keys.absent[..w.fpr_probes];
    r.fpr_measured = Some(filter.count_hits(probes) as f64 / probes.len() as f64);
    r.lost = Some(keys.len() - filter.count_hits(keys));
    phase.message(format!("{name}: lookups"));
    for (j, q) in w.fig5.iter().enumerate() {
        r.fig5[j] = lookup_rate(w.reps, q, |q| filter.count_hits(q));
    }
    Ok(r)
}
