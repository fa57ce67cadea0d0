//! The module against a Redis set of the same keys: `redis-benchmark`
//! throughput of `CF.EXISTS`/`CF.MEXISTS`/`CF.ADD` beside
//! `SISMEMBER`/`SMISMEMBER`/`SADD`, and `MEMORY USAGE` per item; a markdown
//! table on stdout (medians of alternating rounds, with min and max).
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-redis --example bench            # 1M items
//! cargo run --release -p cuckoo-nest-redis --example bench -- --items 10000000 --memory-only
//! ```
//!
//! Options: `--items N` (default 1,000,000), `--rounds R` (3),
//! `--requests Q` (1,000,000 single-item commands a round; a hundredth as
//! many 100-item ones), `--memory-only`. Needs `redis-server` and
//! `redis-benchmark` on the PATH. Each server is killed at the end, a panic
//! included.

#[path = "../tests/common/mod.rs"]
mod common;

use common::Server;
use redis::{cmd, Connection};
use std::process::Command;

struct Options {
    items: usize,
    rounds: usize,
    requests: usize,
    memory_only: bool,
}

fn options() -> Options {
    let mut o = Options {
        items: 1_000_000,
        rounds: 3,
        requests: 1_000_000,
        memory_only: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = || -> usize {
            args.get(i + 1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{} needs a number", args[i]))
        };
        match args[i].as_str() {
            "--items" => o.items = value(),
            "--rounds" => o.rounds = value(),
            "--requests" => o.requests = value(),
            "--memory-only" => {
                o.memory_only = true;
                i += 1;
                continue;
            }
            other => panic!("unknown option {other}: see the example's doc comment"),
        }
        i += 2;
    }
    o
}

/// `redis-benchmark`'s placeholder: a 12-digit random number below `-r`.
fn item(k: usize) -> String {
    format!("key:{k:012}")
}

fn fill(c: &mut Connection, items: usize) {
    cmd("CF.RESERVE")
        .arg("cf")
        .arg(items)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(c)
        .unwrap();
    cmd("CF.RESERVE")
        .arg("cf-growable")
        .arg(items)
        .query::<()>(c)
        .unwrap();
    let mut k = 0;
    while k < items {
        let batch: Vec<String> = (k..(k + 1000).min(items)).map(item).collect();
        let mut p = redis::pipe();
        p.cmd("CF.INSERT")
            .arg("cf")
            .arg("ITEMS")
            .arg(&batch)
            .ignore();
        p.cmd("CF.INSERT")
            .arg("cf-growable")
            .arg("ITEMS")
            .arg(&batch)
            .ignore();
        p.cmd("SADD").arg("set").arg(&batch).ignore();
        p.query::<()>(c).unwrap();
        k += batch.len();
    }
}

fn memory(c: &mut Connection, key: &str) -> i64 {
    cmd("MEMORY")
        .arg("USAGE")
        .arg(key)
        .arg("SAMPLES")
        .arg(0)
        .query(c)
        .unwrap()
}

/// Requests per second of one `redis-benchmark` run.
fn benchmark(port: u16, requests: usize, range: usize, command: &[String]) -> f64 {
    let out = Command::new("redis-benchmark")
        .args(["-p", &port.to_string(), "-c", "50", "-P", "16", "-q"])
        .args(["-n", &requests.to_string(), "-r", &range.to_string()])
        .args(command)
        .output()
        .expect("run redis-benchmark");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // "...: 123456.79 requests per second, p50=..." (after \r progress).
    text.rsplit('\r')
        .flat_map(|s| s.lines())
        .find_map(|l| {
            let (_, rest) = l.rsplit_once(": ")?;
            rest.split(" requests per second")
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no rate in redis-benchmark's output: {text}"))
}

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let o = options();
    assert!(common::redis_available(), "redis-server is needed");
    let server = Server::start(&[]);
    let mut c = server.conn();
    println!(
        "{} items; load average before: {}; {}",
        o.items,
        loadavg(),
        String::from_utf8_lossy(
            &Command::new("redis-server")
                .arg("--version")
                .output()
                .unwrap()
                .stdout
        )
        .trim()
    );
    let t = std::time::Instant::now();
    fill(&mut c, o.items);
    println!("filled in {:.1} s\n", t.elapsed().as_secs_f64());

    println!("| key | MEMORY USAGE (bytes) | bytes per item | bits per item |");
    println!("|---|---:|---:|---:|");
    for (key, what) in [
        ("cf", "CF.RESERVE cf N EXPANSION 0 (1% target)"),
        ("cf-growable", "CF.RESERVE cf N (growable, 1% target)"),
        ("set", "SADD set (a Redis set)"),
    ] {
        let m = memory(&mut c, key);
        println!(
            "| {what} | {m} | {:.2} | {:.2} |",
            m as f64 / o.items as f64,
            m as f64 * 8.0 / o.items as f64
        );
    }
    if o.memory_only {
        return;
    }

    // Lookups over twice the items' range: about half hit.
    let range = 2 * o.items;
    let hundred: Vec<String> = (0..100).map(|_| "key:__rand_int__".to_string()).collect();
    let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut mexists = words(&["CF.MEXISTS", "cf"]);
    mexists.extend(hundred.iter().cloned());
    let mut smismember = words(&["SMISMEMBER", "set"]);
    smismember.extend(hundred.iter().cloned());
    // (name, command, requests a round); ADD rounds write to fresh keys.
    type Case = (&'static str, Vec<String>, usize);
    let pairs: Vec<(Case, Case)> = vec![
        (
            (
                "CF.EXISTS",
                words(&["CF.EXISTS", "cf", "key:__rand_int__"]),
                o.requests,
            ),
            (
                "SISMEMBER",
                words(&["SISMEMBER", "set", "key:__rand_int__"]),
                o.requests,
            ),
        ),
        (
            ("CF.MEXISTS x100", mexists, o.requests / 100),
            ("SMISMEMBER x100", smismember, o.requests / 100),
        ),
        (
            (
                "CF.ADD",
                words(&["CF.ADD", "cf-add", "key:__rand_int__"]),
                o.requests,
            ),
            (
                "SADD",
                words(&["SADD", "set-add", "key:__rand_int__"]),
                o.requests,
            ),
        ),
    ];
    let mut results: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); pairs.len()];
    for round in 0..o.rounds {
        for (p, ((_, a, na), (_, b, nb))) in pairs.iter().enumerate() {
            cmd("DEL")
                .arg("cf-add")
                .arg("set-add")
                .query::<()>(&mut c)
                .unwrap();
            // Room for every add (duplicates are stored as copies).
            cmd("CF.RESERVE")
                .arg("cf-add")
                .arg(o.requests + o.requests / 4)
                .arg("EXPANSION")
                .arg(0)
                .query::<()>(&mut c)
                .unwrap();
            // Alternate which goes first.
            if round % 2 == 0 {
                results[p].0.push(benchmark(server.port, *na, range, a));
                results[p].1.push(benchmark(server.port, *nb, range, b));
            } else {
                results[p].1.push(benchmark(server.port, *nb, range, b));
                results[p].0.push(benchmark(server.port, *na, range, a));
            }
        }
    }
    println!(
        "\n`redis-benchmark -c 50 -P 16 -n {} -r {range}`, {} alternating rounds, requests/s: median (min-max)\n",
        o.requests, o.rounds
    );
    println!("| module | requests/s | set | requests/s | module / set (medians) |");
    println!("|---|---:|---|---:|---:|");
    for (((a, _, _), (b, _, _)), (ra, rb)) in pairs.iter().zip(results) {
        let (ma, la, ha) = stats(ra);
        let (mb, lb, hb) = stats(rb);
        println!(
            "| {a} | {ma:.0} ({la:.0}-{ha:.0}) | {b} | {mb:.0} ({lb:.0}-{hb:.0}) | {:.2}x |",
            ma / mb
        );
    }
    println!("\nload average after: {}", loadavg());
}
