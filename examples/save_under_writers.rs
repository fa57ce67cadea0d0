//! How much writers keep of their throughput while a large filter is saved.
//!
//! One writer thread inserts a fresh key and removes an old one, over and
//! over, so the load stays where the fill left it (85% by default, where
//! many inserts displace others). The main thread alternates, each round:
//! a window with no save (main thread asleep), a control (main thread
//! busy copying a buffer as large as the table into a fresh allocation, as
//! `to_bytes` does, but not touching the filter), then each way of saving
//! (`to_bytes`, `write_to` a buffered file, `save_to_path`), and reports
//! the writer's operations per second during each save against both. The
//! control separates what the save's locks cost writers from what a second
//! busy thread costs them on this machine (on a shared 2-core machine the
//! writer and the saver share the CPU time the scheduler gives the
//! process). Medians over the rounds, with min-max.
//!
//! ```text
//! cargo run --release -p cuckoo-nest-examples --example save_under_writers            # 256 MiB, 85%, 5 rounds
//! cargo run --release -p cuckoo-nest-examples --example save_under_writers -- 64 0.5 3 # MiB, load, rounds
//! ```
//!
//! Files go to the system's temporary directory (the page cache: the
//! figure is the copy's cost to writers, not the device's).

use cuckoo_nest::{CuckooFilter, PreHashed, SaveOptions};
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn key(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn median_range(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let mib = arg(0, 256.0) as usize;
    let load = arg(1, 0.85);
    let rounds = arg(2, 5.0) as usize;

    // 4 x 16 bits: 8 bytes a bucket.
    let buckets = (mib << 20) / 8;
    let filter = CuckooFilter::builder()
        .buckets(buckets)
        .bucket_size(4)
        .fingerprint_bits(16)
        .build()
        .expect("a valid shape");
    let fill = (filter.shape().slots as f64 * load) as u64;
    let t = Instant::now();
    for n in 0..fill {
        if n % (fill / 10).max(1) == 0 {
            eprint!(
                "\rfilling {mib} MiB to {:.0}%: {}%",
                load * 100.0,
                n * 100 / fill
            );
        }
        filter
            .insert(&PreHashed(key(n)))
            .expect("room below the load asked for");
    }
    eprintln!(
        "\rfilled {fill} items in {:.1} s{:20}",
        t.elapsed().as_secs_f64(),
        ""
    );

    let dir = std::env::temp_dir().join(format!("cuckoo-nest-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let ops = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let methods = ["to_bytes", "write_to (BufWriter<File>)", "save_to_path"];
    let mut ratios = vec![Vec::new(); methods.len()];
    let mut vs_control = vec![Vec::new(); methods.len()];
    let mut control_ratios = Vec::new();
    let table = filter.to_bytes();
    let mut save_ms = vec![Vec::new(); methods.len()];
    let mut base_rates = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| {
            let (mut next, mut oldest) = (fill, 0u64);
            while !stop.load(Ordering::Relaxed) {
                // A failed insert (none expected at this load) still counts
                // as work done; only its remove is skipped.
                if filter.insert(&PreHashed(key(next))).is_ok() {
                    let _ = filter.remove(&PreHashed(key(oldest)));
                    oldest += 1;
                }
                next += 1;
                ops.fetch_add(2, Ordering::Relaxed);
            }
        });
        let rate_during = |f: &mut dyn FnMut()| {
            let (c0, t0) = (ops.load(Ordering::Relaxed), Instant::now());
            f();
            let dt = t0.elapsed();
            (
                (ops.load(Ordering::Relaxed) - c0) as f64 / dt.as_secs_f64(),
                dt,
            )
        };
        std::thread::sleep(Duration::from_millis(300));
        for round in 0..rounds {
            let (base, _) = rate_during(&mut || std::thread::sleep(Duration::from_millis(400)));
            base_rates.push(base);
            let (control, _) = rate_during(&mut || drop(std::hint::black_box(table.clone())));
            control_ratios.push(control / base);
            for (m, name) in methods.iter().enumerate() {
                let path = dir.join(format!("f{m}.bin"));
                let (rate, dt) = rate_during(&mut || match m {
                    0 => drop(std::hint::black_box(filter.to_bytes())),
                    1 => {
                        let mut w = BufWriter::new(std::fs::File::create(&path).unwrap());
                        filter.save(&mut w, &SaveOptions::default()).unwrap();
                        w.flush().unwrap();
                    }
                    _ => filter.save_to_path(&path, &SaveOptions::default()).unwrap(),
                });
                ratios[m].push(rate / base);
                vs_control[m].push(rate / control);
                save_ms[m].push(dt.as_secs_f64() * 1e3);
                eprintln!(
                    "round {round}: {name}: {:.0} ms, writer {:.2} M ops/s ({:.0}% of {:.2} before)",
                    dt.as_secs_f64() * 1e3,
                    rate / 1e6,
                    rate / base * 100.0,
                    base / 1e6
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    let _ = std::fs::remove_dir_all(&dir);

    let (b, bl, bh) = median_range(&base_rates);
    println!(
        "\n{mib} MiB filter (4 x 16 bits) at {:.0}% load, one writer (insert + remove), {rounds} rounds",
        load * 100.0
    );
    println!(
        "writer without a save: {:.2} M ops/s (min-max {bl_:.2}-{bh_:.2})",
        b / 1e6,
        bl_ = bl / 1e6,
        bh_ = bh / 1e6
    );
    let pct = |v: &[f64]| {
        let (r, rl, rh) = median_range(v);
        format!("{:.0}% ({:.0}-{:.0})", r * 100.0, rl * 100.0, rh * 100.0)
    };
    println!("| main thread | time, ms | writer throughput, % of idle | % of the control |");
    println!("|---|---:|---:|---:|");
    println!(
        "| control: copies a table-sized buffer | | {} | |",
        pct(&control_ratios)
    );
    for (m, name) in methods.iter().enumerate() {
        let (t, tl, th) = median_range(&save_ms[m]);
        println!(
            "| {name} | {t:.0} ({tl:.0}-{th:.0}) | {} | {} |",
            pct(&ratios[m]),
            pct(&vs_control[m])
        );
    }
}
