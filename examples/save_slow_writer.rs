//! Do writers wait for a save's I/O? A filter near full is saved through a
//! `Write` that sleeps 1 ms a call (a slow device or a throttled socket),
//! while another thread inserts and times every insert; then the same
//! number of inserts is timed with no save running. Rounds alternate the
//! modes, each on a fresh filter:
//!
//! - `fixed`: a fixed 4x16 filter filled to 95% of its slots, taking up to
//!   0.67% more during the save, then as many with no save, just after.
//! - `growable`: a growable 4x16 filter filled to 0.33% short of the load
//!   it grows at (95% of its design load: 90.25%), taking 0.67% more
//!   during the save, so the inserts past that load would start a growth
//!   step, which a save holds off (it holds the growth lock); inserts
//!   instead make room by displacement past that load. Without a save,
//!   the same keys go into a second filter filled the same way, which
//!   grows (the insert that starts the step included, as every user of
//!   such a filter sees). Not timed here: an insert that already wants a
//!   step when a save starts (it tries the growth lock and, finding a save
//!   counted, displaces; before, it could queue behind the whole save).
//!
//! Measured at c959179 (a shared 2-core VM; 3 rounds, alternating modes,
//! medians; us): fixed, the slowest insert during the save 62.5, without
//! 352 (0.18x), p99.9 4.5 and 7.0; growable, 74.1 during and 145.5 without
//! (0.44x), p99.9 2.5 and 4.0. The slowest inserts are scheduler
//! preemptions on this machine (4 to 8 ms in some rounds, either way), so
//! the ratio of the maxima is noisy; the target is 2x. What still waits
//! for the I/O is listed in `CuckooFilter::write_to_seekable`'s docs.
//!
//! `cargo run --release -p cuckoo-nest-examples --example save_slow_writer [-- CAPACITY [ROUNDS [MODE]]]`
//! (default 4,000,000 items: a 16 MiB table, about 1,000 writes of 16 KiB,
//! a save of about 1 s; 3 rounds; MODE `fixed`, `growable` or `both`, the
//! default)

#[path = "common/mod.rs"]
mod common;

use common::{keys, median};
use cuckoo_nest::{CuckooFilter, SaveOptions};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A writer that takes 1 ms a call and keeps nothing but its length.
struct Slow {
    calls: usize,
    at: u64,
    len: u64,
}

impl std::io::Seek for Slow {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.at = match to {
            std::io::SeekFrom::Start(n) => n,
            std::io::SeekFrom::End(d) => self.len.saturating_add_signed(d),
            std::io::SeekFrom::Current(d) => self.at.saturating_add_signed(d),
        };
        Ok(self.at)
    }
}

impl Write for Slow {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(1));
        self.calls += 1;
        self.at += buf.len() as u64;
        self.len = self.len.max(self.at);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Inserts `keys` one at a time until `stop` (or the keys run out);
/// returns the nanoseconds of each.
fn timed_inserts(filter: &CuckooFilter, keys: &[u64], stop: &AtomicBool) -> Vec<u64> {
    let mut ns = Vec::new();
    for k in keys {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t = Instant::now();
        filter.insert(k).expect("room left for the timed inserts");
        ns.push(t.elapsed().as_nanos() as u64);
    }
    ns
}

fn summary(ns: &mut [u64]) -> (f64, f64, usize) {
    ns.sort_unstable();
    let p999 = ns[(ns.len() - 1) * 999 / 1000] as f64 / 1e3;
    (p999, ns[ns.len() - 1] as f64 / 1e3, ns.len())
}

/// A 4x16 filter for `capacity` items, growable or not.
fn build(capacity: usize, growable: bool) -> CuckooFilter {
    CuckooFilter::builder()
        .capacity(capacity)
        .bucket_size(4)
        .fingerprint_bits(16)
        .growable(growable)
        .build()
        .expect("filter")
}

/// The slowest insert and the p99.9 (us) during a save and without, and
/// the ratios (during / without), of one round.
struct Round {
    during: (f64, f64),
    quiet: (f64, f64),
}

fn main() {
    let mut args = std::env::args().skip(1);
    let capacity: usize = args
        .next()
        .map_or(4_000_000, |a| a.parse().expect("a count"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("a count"));
    let modes: &[bool] = match args.next().as_deref() {
        None | Some("both") => &[false, true],
        Some("fixed") => &[false],
        Some("growable") => &[true],
        Some(other) => panic!("mode {other}: want fixed, growable or both"),
    };
    println!(
        "inserts while a 4x16 filter of capacity {capacity} near full is saved through a Write taking 1 ms a call, and with no save; us"
    );
    let mut results: Vec<(bool, Vec<Round>)> = modes.iter().map(|&g| (g, Vec::new())).collect();
    for round in 1..=rounds {
        for (growable, out) in &mut results {
            out.push(one_round(capacity, round, *growable));
        }
    }
    for (growable, rounds) in &mut results {
        let name = if *growable { "growable" } else { "fixed" };
        let pick = |rounds: &[Round], f: &dyn Fn(&Round) -> f64| {
            let mut v: Vec<f64> = rounds.iter().map(f).collect();
            median(&mut v)
        };
        println!(
            "{name}, medians over {} rounds: during a save: max {:.1} p99.9 {:.1}; without: max {:.1} p99.9 {:.1}; slowest during / without: {:.2}; p99.9 during / without: {:.2}",
            rounds.len(),
            pick(rounds, &|r| r.during.1),
            pick(rounds, &|r| r.during.0),
            pick(rounds, &|r| r.quiet.1),
            pick(rounds, &|r| r.quiet.0),
            pick(rounds, &|r| r.during.1 / r.quiet.1),
            pick(rounds, &|r| r.during.0 / r.quiet.0),
        );
    }
}

/// One round of one mode on fresh filters.
fn one_round(capacity: usize, round: usize, growable: bool) -> Round {
    {
        let filter = build(capacity, growable);
        // Fixed: 95% full, then up to 0.67% more during the save and as
        // many after. Growable: 0.33% short of the load it grows at (95% of
        // the 4x16 design load of 95%), so the inserts during the save
        // (from a thread started just before it) cross that load once the
        // save holds the growth lock; the same number without a save.
        let budget = filter.shape().slots / 150;
        let fill = if growable {
            (filter.shape().slots as f64 * 0.95 * 0.95) as usize - budget / 2
        } else {
            filter.shape().slots * 95 / 100
        };
        let all = keys(fill + 2 * budget, round as u64);
        filter.insert_batch(&all[..fill]).expect("the fill fits");
        assert_eq!(
            filter.statistics().growth_steps,
            0,
            "filled short of a step"
        );
        // During a save: insert until it ends.
        let stop = AtomicBool::new(false);
        let (mut during, calls, save_s) = std::thread::scope(|s| {
            let inserter = s.spawn(|| timed_inserts(&filter, &all[fill..fill + budget], &stop));
            let t = Instant::now();
            // Streamed a chunk at a time, as `save_to_path` does.
            let mut out = Slow {
                calls: 0,
                at: 0,
                len: 0,
            };
            filter
                .save_seekable(&mut out, &SaveOptions::default())
                .expect("save");
            stop.store(true, Ordering::Relaxed);
            (inserter.join().expect("inserter"), out.calls, t.elapsed())
        });
        let n = during.len();
        let load = 100.0 * filter.len() as f64 / filter.shape().slots as f64;
        let quiet_stop = AtomicBool::new(false);
        let mut quiet = if growable {
            // No save: the same keys into a second filter filled the same
            // way, which grows.
            let twin = build(capacity, true);
            twin.insert_batch(&all[..fill]).expect("the fill fits");
            timed_inserts(&twin, &all[fill..fill + n], &quiet_stop)
        } else {
            // No save: as many inserts, just after, at the same load.
            timed_inserts(&filter, &all[fill + budget..fill + budget + n], &quiet_stop)
        };
        let (dp, dmax, dn) = summary(&mut during);
        let (qp, qmax, _) = summary(&mut quiet);
        println!(
            "round {round} {}: save {:.2} s in {calls} writes; {dn} inserts each way, {load:.1}% load after the save:\n  during the save: p99.9 {dp:>7.1}  max {dmax:>8.1}\n  no save:         p99.9 {qp:>7.1}  max {qmax:>8.1}   (max during / max without: {:.2})",
            if growable { "growable" } else { "fixed" },
            save_s.as_secs_f64(),
            dmax / qmax
        );
        Round {
            during: (dp, dmax),
            quiet: (qp, qmax),
        }
    }
}
