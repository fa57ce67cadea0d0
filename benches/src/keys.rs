//! The keys every filter sees: generated once from a fixed seed, so each filter answers the
//! same questions, and a re-run on another machine asks the same ones.
//!
//! Keys are `u64`s out of the splitmix64 finaliser, which is a bijection on `u64`: feeding it
//! distinct inputs gives distinct keys. Inserted keys come from even inputs and absent keys
//! from odd ones, so the two sets are disjoint by construction, not by luck.

/// The splitmix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
#[inline]
pub fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The i-th key that gets inserted.
#[inline]
pub fn present_key(seed: u64, i: u64) -> u64 {
    key(seed, 2 * i)
}

/// The i-th key that is never inserted.
#[inline]
pub fn absent_key(seed: u64, i: u64) -> u64 {
    key(seed, 2 * i + 1)
}

#[inline]
fn key(seed: u64, input: u64) -> u64 {
    mix64(
        seed.wrapping_mul(0x1000_0000_0000_0000 | 1)
            .wrapping_add(input),
    )
}

/// A small deterministic generator for sampling and shuffling (splitmix64).
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0.wrapping_sub(0x9E37_79B9_7F4A_7C15))
    }

    /// Uniform in `0..bound` (bound > 0), by 128-bit multiply (Lemire); the bias is below 2^-40
    /// for the bounds used here.
    #[inline]
    pub fn below(&mut self, bound: usize) -> usize {
        ((self.next_u64() as u128 * bound as u128) >> 64) as usize
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// The pre-generated key sets of one run.
pub struct Keys {
    pub seed: u64,
    /// Keys to insert, in insertion order. Longer than the capacity, so cuckoo filters can be
    /// filled until their first failed insert.
    pub present: Vec<u64>,
    /// Keys never inserted, for the false-positive rate.
    pub absent: Vec<u64>,
}

impl Keys {
    pub fn generate(seed: u64, present: usize, absent: usize) -> Keys {
        Keys {
            seed,
            present: (0..present as u64).map(|i| present_key(seed, i)).collect(),
            absent: (0..absent as u64).map(|i| absent_key(seed, i)).collect(),
        }
    }

    /// `len` lookups of which `positive_fraction` hit: [`mixed_queries`] of this key set.
    pub fn queries(
        &self,
        len: usize,
        inserted: usize,
        positive_fraction: f64,
        tag: u64,
    ) -> Vec<u64> {
        debug_assert!(inserted <= self.present.len());
        mixed_queries(self.seed, len, inserted, positive_fraction, tag)
    }
}

/// `len` lookups of which `positive_fraction` hit, in random order: positives drawn uniformly
/// from the first `inserted` keys of [`present_key`]`(seed, _)`, negatives a run of
/// [`absent_key`]s from a random start. Computed, not read from a key set, so that it serves
/// filters too big to keep their keys in a vector.
pub fn mixed_queries(
    seed: u64,
    len: usize,
    inserted: usize,
    positive_fraction: f64,
    tag: u64,
) -> Vec<u64> {
    let mut rng = SplitMix64::new(mix64(seed ^ tag.wrapping_mul(0xA24B_AED4_963E_E407)));
    let positives = ((len as f64) * positive_fraction).round() as usize;
    let positives = if inserted == 0 { 0 } else { positives.min(len) };
    let mut q: Vec<u64> = (0..positives)
        .map(|_| present_key(seed, rng.below(inserted) as u64))
        .collect();
    let start = rng.below(usize::MAX / 2) as u64;
    q.extend((start..).take(len - positives).map(|i| absent_key(seed, i)));
    rng.shuffle(&mut q);
    q
}

/// `n` keys of one splitmix64 stream (the criterion benches' key sets).
pub fn stream(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn present_and_absent_are_disjoint() {
        let k = Keys::generate(7, 5000, 5000);
        let p: HashSet<u64> = k.present.iter().copied().collect();
        assert_eq!(p.len(), 5000);
        assert!(k.absent.iter().all(|a| !p.contains(a)));
    }

    #[test]
    fn query_mix_has_the_asked_share() {
        let k = Keys::generate(1, 1000, 1000);
        let p: HashSet<u64> = k.present[..500].iter().copied().collect();
        let q = k.queries(400, 500, 0.25, 3);
        assert_eq!(q.len(), 400);
        assert_eq!(q.iter().filter(|x| p.contains(x)).count(), 100);
    }
}
