//! What the measurement binaries of `src/bin/` share: their positional arguments and the
//! `BxF` / `ssBxF` shapes they build filters of.

use cuckoo_nest::{Builder, CuckooFilter};

/// The positional argument `i` (1 for the first), parsed, or `default` when it is absent (`_`
/// allowed between digits). A bad one prints `usage` and what was wrong, and exits with status 2.
pub fn arg<T: std::str::FromStr>(i: usize, default: T, usage: &str) -> T {
    let Some(s) = std::env::args().nth(i) else {
        return default;
    };
    s.replace('_', "").parse().unwrap_or_else(|_| {
        eprintln!("usage: {usage}: argument {i}: cannot read {s:?}");
        std::process::exit(2)
    })
}

/// A builder for the shape `BxF`, or `ssBxF` for semi-sorted buckets.
pub fn shape(shape: &str, capacity: usize) -> Result<Builder, String> {
    let (semi, rest) = shape
        .strip_prefix("ss")
        .map_or((false, shape), |rest| (true, rest));
    let (b, f) = rest
        .split_once('x')
        .and_then(|(b, f)| Some((b.parse().ok()?, f.parse().ok()?)))
        .ok_or_else(|| format!("shape {shape}: want BxF or ssBxF, e.g. 4x12"))?;
    Ok(CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(b)
        .fingerprint_bits(f)
        .semi_sorted(semi))
}

/// Nanoseconds per operation for `n` operations since `start`.
pub fn ns_per(start: std::time::Instant, n: usize) -> f64 {
    start.elapsed().as_secs_f64() * 1e9 / n as f64
}
