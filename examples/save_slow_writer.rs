//! Do writers wait for a save's I/O? A filter near full (4x16, filled to
//! 93% of its slots, taking 1% more meanwhile) is saved through a `Write` that sleeps 1 ms a call
//! (a slow device or a throttled socket), while another thread inserts and
//! times every insert; then the same number of inserts is timed with no
//! save running. Alternating rounds, each on a fresh filter.
//!
//! `cargo run --release -p cuckoo-nest-examples --example save_slow_writer [-- CAPACITY [ROUNDS]]`
//! (default 4,000,000 items: a 16 MiB table, about 1,000 writes of 16 KiB,
//! a save of about 1 s; 3 rounds)

#[path = "common/mod.rs"]
mod common;

use common::{keys, median};
use cuckoo_nest::CuckooFilter;
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

fn main() {
    let mut args = std::env::args().skip(1);
    let capacity: usize = args
        .next()
        .map_or(4_000_000, |a| a.parse().expect("a count"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("a count"));
    println!(
        "inserts while a 4x16 filter of capacity {capacity}, 93-95% full, is saved through a Write taking 1 ms a call, and with no save; us"
    );
    let (mut worst_ratio, mut p_ratio) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let filter = CuckooFilter::builder()
            .capacity(capacity)
            .bucket_size(4)
            .fingerprint_bits(16)
            .build()
            .expect("filter");
        // 93% full, then up to 1% more during the save and as many after.
        let fill = filter.slots() * 95 / 100;
        let budget = filter.slots() / 150;
        let all = keys(fill + 2 * budget, round as u64);
        filter
            .insert_batch(&all[..fill])
            .expect("95% of the slots fit");
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
            filter.write_to_seekable(&mut out).expect("save");
            stop.store(true, Ordering::Relaxed);
            (inserter.join().expect("inserter"), out.calls, t.elapsed())
        });
        // No save: as many inserts, just after, at the same load.
        let quiet_stop = AtomicBool::new(false);
        let n = during.len();
        let mut quiet = timed_inserts(&filter, &all[fill + budget..fill + budget + n], &quiet_stop);
        let (dp, dmax, dn) = summary(&mut during);
        let (qp, qmax, _) = summary(&mut quiet);
        println!(
            "round {round}: save {:.2} s in {calls} writes; {dn} inserts each way at {:.1}% load:\n  during the save: p99.9 {dp:>7.1}  max {dmax:>8.1}\n  no save:         p99.9 {qp:>7.1}  max {qmax:>8.1}   (max during / max without: {:.2})",
            save_s.as_secs_f64(),
            100.0 * filter.len() as f64 / filter.slots() as f64,
            dmax / qmax
        );
        worst_ratio.push(dmax / qmax);
        p_ratio.push(dp / qp);
    }
    println!(
        "median over {rounds} rounds: slowest insert during a save / without: {:.2}; p99.9 during / without: {:.2}",
        median(&mut worst_ratio),
        median(&mut p_ratio)
    );
}
