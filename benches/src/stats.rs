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
    let mut s = v.to_vec();
    s.retain(|x| !x.is_nan());
    s.sort_by(f64::total_cmp);
    let mid = s.len() / 2;
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[mid],
        _ => (s[mid - 1] + s[mid]) / 2.0,
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
        let mut v = samples.to_vec();
        v.retain(|x| x.is_finite() && *x >= 0.0);
        let min = v.iter().copied().reduce(f64::min)?;
        let max = v.iter().copied().reduce(f64::max)?;
        Some(Spread {
            median: median(&v),
            min,
            max,
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

    pub fn spread(&self) -> Option<Spread> {
        let v: Vec<f64> = self.0.iter().flatten().copied().collect();
        Spread::of(&v)
    }
}

/// A ratio between cells: `median` is `f` of the cells' medians (the figures a table shows, so
/// a reader can check it), `min` and `max` the smallest and largest result of `f` on one
/// round's values (rounds where any cell is missing are skipped). `None` when a cell has no
/// sample or no round has them all.
pub fn of_medians(cells: &[&Samples], f: impl Fn(&[f64]) -> f64) -> Option<Spread> {
    let medians: Option<Vec<f64>> = cells.iter().map(|c| c.spread().map(|s| s.median)).collect();
    let value = f(&medians?);
    let rounds = cells.iter().map(|c| c.0.len()).max().unwrap_or(0);
    let round = |r| cells.iter().map(move |c| c.0.get(r).copied().flatten());
    let per_round: Vec<f64> = (0..rounds)
        .filter_map(|r| round(r).collect::<Option<Vec<f64>>>().map(|v| f(&v)))
        .collect();
    let rounds = Spread::of(&per_round)?;
    value.is_finite().then_some(Spread {
        median: value,
        ..rounds
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
    fn rotation_visits_everyone_once() {
        let mut v: Vec<usize> = rotated(5, 4).collect();
        assert_eq!(v[0], 1);
        v.sort();
        assert_eq!(v, vec![0, 1, 2, 3]);
    }
}
