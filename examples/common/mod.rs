//! Helpers shared by the examples, one copy: each example includes this file with
//! `#[path = "common/mod.rs"] mod common;`.

// Each example is its own crate and uses only some of these helpers; the ones it leaves unused
// would otherwise warn there.
#![allow(dead_code)]

/// A splitmix64 stream (Steele, Lea, Flood 2014): distinct, well-mixed keys, the same on every
/// run. The state starts at `seed` times an odd constant, so nearby seeds start far apart.
pub fn splitmix64(seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed.wrapping_mul(0xd1b5_4a32_d192_ed03);
    std::iter::repeat_with(move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// The first `n` values of the splitmix64 stream of `seed`.
pub fn keys(n: usize, seed: u64) -> Vec<u64> {
    splitmix64(seed).take(n).collect()
}

/// Shuffles `v` (Fisher-Yates) with the splitmix64 stream of `seed`.
pub fn shuffle<T>(v: &mut [T], seed: u64) {
    for (i, r) in (1..v.len()).rev().zip(splitmix64(seed)) {
        v.swap(i, (r % (i as u64 + 1)) as usize);
    }
}

/// The median of `v` (the upper one for an even length), which is left sorted.
///
/// # Panics
///
/// If `v` is empty, or holds a value that does not compare (a NaN).
pub fn median<T: PartialOrd + Copy>(v: &mut [T]) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).expect("values that compare"));
    v[v.len() / 2]
}

/// Nanoseconds per operation for `n` operations since `start`.
pub fn ns_per(start: std::time::Instant, n: usize) -> f64 {
    start.elapsed().as_secs_f64() * 1e9 / n as f64
}

/// The positional argument `i` (1 for the first) as a whole number of at least `min` (`_`
/// allowed between digits), or `default` when it is absent. A bad one prints `usage` and what
/// was wrong, and exits with status 2.
pub fn number(i: usize, name: &str, default: usize, min: usize, usage: &str) -> usize {
    let Some(s) = std::env::args().nth(i) else {
        return default;
    };
    let n = s.replace('_', "").parse().ok().filter(|&n| n >= min);
    n.unwrap_or_else(|| {
        eprintln!("usage: {usage}: {name}: a whole number of at least {min}, not {s:?}");
        std::process::exit(2)
    })
}

/// A shape `BxF`, or `ssBxF` for semi-sorted buckets: (semi-sorted, entries per bucket,
/// fingerprint bits).
pub fn parse_shape(shape: &str) -> Result<(bool, usize, u32), String> {
    let (semi, rest) = match shape.strip_prefix("ss") {
        Some(rest) => (true, rest),
        None => (false, shape),
    };
    rest.split_once('x')
        .and_then(|(b, f)| Some((semi, b.parse().ok()?, f.parse().ok()?)))
        .ok_or_else(|| format!("shape {shape}: want BxF or ssBxF, e.g. 4x12"))
}
