//! What every criterion bench of this folder shares: criterion's settings, the peer they compare
//! with, and a timer that builds a fresh filter untimed before each timed fill. Each bench file
//! includes it (`mod common;`) and uses what it needs.
#![allow(dead_code)]

use std::collections::hash_map::DefaultHasher;
use std::time::{Duration, Instant};

use criterion::{Bencher, Criterion};

/// The peer: the `cuckoofilter` crate (0.5), 4 x 8-bit buckets.
pub type Peer = cuckoofilter::CuckooFilter<DefaultHasher>;

/// One second of warm-up and three of measurement per bench, unless the command line says
/// otherwise (`cargo bench ... -- --measurement-time 10`).
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

/// Times `fill` on a fresh filter from `build` (built untimed), once per iteration.
pub fn fills<F>(b: &mut Bencher, build: impl Fn() -> F, fill: impl Fn(&mut F)) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let mut f = build();
            let t = Instant::now();
            fill(&mut f);
            total += t.elapsed();
        }
        total
    })
}

/// A whole number from the environment variable `name`, or `default` when it is not set; a
/// value that is not a number stops the bench with a message saying so.
pub fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => v.replace('_', "").parse().unwrap_or_else(|_| {
            eprintln!("{name}={v:?}: want a whole number");
            std::process::exit(2)
        }),
    }
}
