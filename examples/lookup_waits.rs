//! How long one lookup can take while a writer works on the same filter
//! (docs/benchmarks.md, "How long a lookup waits"). A lookup takes no lock,
//! but it looks again while a versioned write (a displacement, a remove that
//! leaves a colliding copy, a clear) is open on one of its two stripes, so
//! its worst case is set by the longest such section.
//!
//! Two phases, each with one thread writing and one thread timing every
//! lookup it makes (shuffled keys, half of them present):
//!
//! - `clear`: `clear()` of a filter of `MIB` MiB (default 256), 4 x 16-bit
//!   buckets, filled to half, repeated `ROUNDS` times;
//! - `fill`: a 32 MiB filter filled from empty to 95% of its slots (most
//!   late inserts displace).
//!
//! A third phase is the floor: the same lookups beside a thread that only
//! spins, so nothing makes them retry and their slowest are this machine's
//! own noise (the reader preempted, an interrupt).
//!
//! Prints, per phase, how many lookups ran while the writer worked and
//! their p50, p99, p99.9 and maximum in microseconds.
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-examples --example lookup_waits            # 256 MiB clears
//! cargo run --release -p cuckoo-nest-examples --example lookup_waits -- 64 3    # 64 MiB, 3 clears
//! ```

#[path = "common/mod.rs"]
mod common;

use common::{keys, shuffle};
use cuckoo_nest::{CuckooFilter, PreHashed};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Times single lookups of `probe` (cycled) on another thread while `work`
/// runs; returns every lookup's duration in nanoseconds.
fn lookups_during(filter: &Arc<CuckooFilter>, probe: Vec<u64>, work: impl FnOnce()) -> Vec<u32> {
    let running = Arc::new(AtomicBool::new(true));
    let started = Arc::new(AtomicBool::new(false));
    let reader = {
        let (filter, running, started) = (filter.clone(), running.clone(), started.clone());
        std::thread::spawn(move || {
            let mut times = Vec::with_capacity(1 << 24);
            let mut hits = 0usize;
            started.store(true, Ordering::Release);
            for &h in probe.iter().cycle() {
                if !running.load(Ordering::Relaxed) {
                    break;
                }
                let t = Instant::now();
                hits += filter.contains(&PreHashed(h)) as usize;
                times.push(t.elapsed().as_nanos().min(u32::MAX as u128) as u32);
            }
            std::hint::black_box(hits);
            times
        })
    };
    while !started.load(Ordering::Acquire) {
        std::hint::spin_loop();
    }
    work();
    running.store(false, Ordering::Relaxed);
    reader.join().expect("reader thread")
}

fn report(phase: &str, mut ns: Vec<u32>, took: Duration) {
    ns.sort_unstable();
    let at = |q: f64| ns[((ns.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    println!(
        "| {phase} | {:.0} ms | {} | {:.2} | {:.2} | {:.1} | {:.1} |",
        took.as_secs_f64() * 1e3,
        ns.len(),
        at(0.5),
        at(0.99),
        at(0.999),
        *ns.last().unwrap_or(&0) as f64 / 1000.0,
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mib: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(256);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(5);

    println!("| phase | writer's time | lookups timed | p50 µs | p99 µs | p99.9 µs | max µs |");
    println!("|---|---:|---:|---:|---:|---:|---:|");

    // Clear: a big table, half full, cleared while lookups run.
    let filter = Arc::new(CuckooFilter::builder().buckets((mib << 20) / 8).build()?);
    let items = keys(filter.shape().slots / 2, 1);
    let mut probe: Vec<u64> = items.iter().step_by(2).copied().take(1 << 20).collect();
    probe.extend(keys(probe.len(), 2));
    shuffle(&mut probe, 3);
    for r in 0..rounds {
        filter.insert_batch(items.iter().map(|&h| PreHashed(h)))?;
        let mut took = Duration::ZERO;
        let ns = lookups_during(&filter, probe.clone(), || {
            let t = Instant::now();
            filter.clear();
            took = t.elapsed();
        });
        report(&format!("clear {mib} MiB, round {}", r + 1), ns, took);
    }
    drop(filter);

    // Baseline: the same lookups beside a thread that spins without
    // touching the filter. Nothing makes a lookup retry here, so its
    // slowest lookups are the machine's own noise (this thread preempted,
    // an interrupt): the floor under every maximum above and below.
    for r in 0..rounds.min(3) {
        let filter = Arc::new(CuckooFilter::builder().capacity(1 << 22).build()?);
        let items = keys(filter.capacity(), 30 + r as u64);
        filter.insert_batch(items.iter().map(|&h| PreHashed(h)))?;
        let mut probe: Vec<u64> = items.iter().step_by(2).copied().collect();
        probe.extend(keys(probe.len(), 40 + r as u64));
        shuffle(&mut probe, 5);
        let took = Duration::from_secs(3);
        let ns = lookups_during(&filter, probe, || {
            let t = Instant::now();
            while t.elapsed() < took {
                std::hint::spin_loop();
            }
        });
        report(
            &format!("baseline: no writer, a thread spinning, round {}", r + 1),
            ns,
            took,
        );
    }

    // Fill: 32 MiB from empty to 95%, one insert at a time.
    for r in 0..rounds.min(3) {
        let filter = Arc::new(CuckooFilter::builder().buckets((32 << 20) / 8).build()?);
        let items = keys(filter.shape().slots * 95 / 100, 10 + r as u64);
        let mut probe: Vec<u64> = items.iter().step_by(2).copied().take(1 << 20).collect();
        probe.extend(keys(probe.len(), 20 + r as u64));
        shuffle(&mut probe, 4);
        let mut took = Duration::ZERO;
        let ns = lookups_during(&filter, probe, || {
            let t = Instant::now();
            for &h in &items {
                filter
                    .insert(&PreHashed(h))
                    .expect("95% fits a 4-slot table");
            }
            took = t.elapsed();
        });
        report(&format!("fill 32 MiB to 95%, round {}", r + 1), ns, took);
    }
    Ok(())
}
