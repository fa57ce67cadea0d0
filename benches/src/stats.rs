//! Medians, spreads and interleaved rounds: the one place the report's statistics live.
//!
//! Every figure is measured in rounds. Each round measures every subject once, starting at a
//! rotated position, so a change in the machine's load during the run lands on all subjects
//! alike instead of on whichever one was being measured at the time. A cell is the median over
//! the rounds, with the min and max kept as its spread. A ratio between cells is the ratio of
//! their medians (what a reader can check against the cells), printed with the range of the
//! per-round ratios, where both sides of the ratio saw the same moment of the machine.

/// The median of `v` (the mean of the middle two for an even count); NaN for an empty slice.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let mid = s.len() / 2;
    if s.len() % 2 == 1 {
        s[mid]
    } else {
        (s[mid - 1] + s[mid]) / 2.0
    }
}

/// A measured cell: the median over rounds, with the smallest and largest round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of the finite, positive samples; `None` when there is none.
    pub fn of(samples: &[f64]) -> Option<Spread> {
        let v: Vec<f64> = samples
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .collect();
        if v.is_empty() {
            return None;
        }
        Some(Spread {
            median: median(&v),
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// A value that was counted or computed once, not sampled.
    pub fn exact(v: f64) -> Spread {
        Spread {
            median: v,
            min: v,
            max: v,
        }
    }
}

/// One cell's samples, indexed by round; `None` where the round could not measure it (a filter
/// full before the step).
#[derive(Clone, Debug, Default)]
pub struct Samples(pub Vec<Option<f64>>);

impl Samples {
    pub fn push(&mut self, round: usize, v: Option<f64>) {
        if self.0.len() <= round {
            self.0.resize(round + 1, None);
        }
        self.0[round] = v.filter(|x| x.is_finite() && *x > 0.0);
    }

    pub fn get(&self, round: usize) -> Option<f64> {
        self.0.get(round).copied().flatten()
    }

    pub fn rounds(&self) -> usize {
        self.0.len()
    }

    pub fn spread(&self) -> Option<Spread> {
        let v: Vec<f64> = self.0.iter().flatten().copied().collect();
        Spread::of(&v)
    }
}

/// Combines cells round by round (`f` gets each round's values, in the order given) and
/// summarises the per-round results; rounds where any cell is missing are skipped.
pub fn per_round(cells: &[&Samples], f: impl Fn(&[f64]) -> f64) -> Option<Spread> {
    let rounds = cells.iter().map(|c| c.rounds()).max().unwrap_or(0);
    let v: Vec<f64> = (0..rounds)
        .filter_map(|r| {
            let vals: Option<Vec<f64>> = cells.iter().map(|c| c.get(r)).collect();
            vals.map(|vals| f(&vals))
        })
        .collect();
    Spread::of(&v)
}

/// A ratio between cells: `median` is `f` of the cells' medians (the figures a table shows, so
/// a reader can check it), `min` and `max` the smallest and largest per-round result (rounds
/// where any cell is missing are skipped). `None` when a cell has no sample or no round has
/// them all.
pub fn of_medians(cells: &[&Samples], f: impl Fn(&[f64]) -> f64) -> Option<Spread> {
    let medians: Option<Vec<f64>> = cells.iter().map(|c| c.spread().map(|s| s.median)).collect();
    let value = f(&medians?);
    let rounds = per_round(cells, &f)?;
    value.is_finite().then_some(Spread {
        median: value,
        min: rounds.min,
        max: rounds.max,
    })
}

/// Million operations per second: `ops` in `secs`; `None` when either is zero.
pub fn mops(ops: usize, secs: f64) -> Option<f64> {
    (ops > 0 && secs > 0.0).then(|| ops as f64 / secs / 1e6)
}

/// The order in which round `round` measures `len` subjects: every subject once, starting one
/// further along each round, so no subject is always first (or always right after a given one).
pub fn rotated(round: usize, len: usize) -> impl Iterator<Item = usize> {
    (0..len).map(move |i| (i + round) % len.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn ratios_are_per_round() {
        let mut a = Samples::default();
        let mut b = Samples::default();
        for (r, (x, y)) in [(10.0, 5.0), (4.0, 4.0), (9.0, 3.0)]
            .into_iter()
            .enumerate()
        {
            a.push(r, Some(x));
            b.push(r, Some(y));
        }
        let s = per_round(&[&a, &b], |v| v[0] / v[1]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        // The ratio of the medians, with the per-round range beside it.
        let s = of_medians(&[&a, &b], |v| v[0] / v[1]).unwrap();
        assert_eq!((s.median, s.min, s.max), (9.0 / 4.0, 1.0, 3.0));
    }

    #[test]
    fn rotation_visits_everyone_once() {
        let mut v: Vec<usize> = rotated(5, 4).collect();
        assert_eq!(v[0], 1);
        v.sort();
        assert_eq!(v, vec![0, 1, 2, 3]);
    }
}
