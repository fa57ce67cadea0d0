//! A negative cache in front of a real embedded database.
//!
//! A [redb](https://docs.rs/redb) store holds N keys on disk. One shared
//! `CuckooFilter` answers "definitely not there" for worker threads on
//! every core, which query a mix of present and absent keys: a "no" costs
//! no store read. Deletes from the store also remove from the filter (what
//! a Bloom filter cannot do). On shutdown the filter is saved beside the
//! database file; on restart it is opened at once with `FilterView` over a
//! memory map for lookups, and loaded with `read_from` where it must take
//! writes again, instead of being rebuilt by scanning the store.
//!
//! ```sh
//! cargo run --release --example negative_cache             # 2,000,000 keys
//! cargo run --release --example negative_cache -- 100000   # fewer
//! ```
//!
//! Keys are u64s (redb `u64` keys); the filter hashes their little-endian
//! bytes with `hash_bytes`, which depends on the saved format alone, so the
//! saved filter stays valid across Rust and crate releases.
//!
//! Why redb: a pure-Rust embedded key-value store (no C toolchain to
//! build), ACID, one file on disk, a stable file format since 1.0, and
//! actively maintained; the shape of store a filter like this one sits in
//! front of.

use cuckoo_nest::{CuckooFilter, FilterView};
use indicatif::{ProgressBar, ProgressStyle};
use redb::{Database, ReadableTable, TableDefinition};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error + Send + Sync>;

const TABLE: TableDefinition<u64, &[u8]> = TableDefinition::new("kv");
const VALUE: [u8; 32] = [7; 32];

/// What one run measured.
#[derive(Debug, Default)]
pub struct Report {
    pub keys: u64,
    pub threads: usize,
    pub queries: u64,
    pub store_reads_avoided: u64,
    pub lookups_per_sec_without: f64,
    pub lookups_per_sec_with: f64,
    pub deleted: u64,
    pub saved_bytes: u64,
    pub save: Duration,
    pub open_store: Duration,
    pub open_view: Duration,
    pub load_read_from: Duration,
    pub rebuild_scan: Duration,
}

/// Key `i` of the store: even numbers, so odd numbers are absent.
fn key(i: u64) -> u64 {
    2 * i
}

fn hash(filter_hash: impl Fn(&[u8]) -> u64, k: u64) -> u64 {
    filter_hash(&k.to_le_bytes())
}

fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template("{msg:>28} [{bar:40}] {pos}/{len} ({eta})")
            .expect("template")
            .progress_chars("=> "),
    );
    b.set_message(what.to_string());
    b
}

/// xorshift64*.
fn next(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

/// Runs the whole scenario in `dir` with `n` keys.
pub fn run(dir: &Path, n: u64, quiet: bool) -> Result<Report, Error> {
    let db_path = dir.join("store.redb");
    let filter_path = dir.join("store.redb.cuckoo");
    let _ = std::fs::remove_file(&db_path);
    let _ = std::fs::remove_file(&filter_path);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut report = Report {
        keys: n,
        threads,
        ..Report::default()
    };

    // Load the store and the filter.
    let db = Database::create(&db_path)?;
    let filter = CuckooFilter::builder()
        .capacity(n as usize)
        .false_positive_rate(0.001)
        .build()?;
    let pb = bar(n, "loading the store", quiet);
    let chunk = 50_000;
    for start in (0..n).step_by(chunk) {
        let txn = db.begin_write()?;
        {
            let mut t = txn.open_table(TABLE)?;
            for i in start..(start + chunk as u64).min(n) {
                t.insert(key(i), &VALUE[..])?;
            }
        }
        txn.commit()?;
        for i in start..(start + chunk as u64).min(n) {
            filter.insert_hash(hash(|b| filter.hash_bytes(b), key(i)))?;
        }
        pb.inc((chunk as u64).min(n - start));
    }
    pb.finish_and_clear();

    // Workers on every core: half the queries present, half absent. Each
    // worker reads the store in one read transaction per 1,000 queries.
    let queries_per_thread = n.clamp(10_000, 1_000_000);
    report.queries = queries_per_thread * threads as u64;
    let query_phase = |use_filter: bool, what: &str| -> Result<(f64, u64), Error> {
        let avoided = AtomicU64::new(0);
        let pb = bar(report.queries, what, quiet);
        let t = Instant::now();
        std::thread::scope(|s| -> Result<(), Error> {
            let workers: Vec<_> = (0..threads)
                .map(|w| {
                    let (db, filter, avoided, pb) = (&db, &filter, &avoided, &pb);
                    s.spawn(move || -> Result<(), Error> {
                        let mut rng = 0x9e37_79b9_7f4a_7c15 ^ (w as u64 + 1);
                        let mut done = 0;
                        while done < queries_per_thread {
                            let txn = db.begin_read()?;
                            let table = txn.open_table(TABLE)?;
                            let batch = 1000.min(queries_per_thread - done);
                            for _ in 0..batch {
                                let r = next(&mut rng);
                                // Even: a stored key; odd: absent.
                                let k = (r >> 1) % (2 * n);
                                if use_filter
                                    && !filter.contains_hash(hash(|b| filter.hash_bytes(b), k))
                                {
                                    avoided.fetch_add(1, Ordering::Relaxed);
                                    continue;
                                }
                                let found = table.get(k)?.is_some();
                                // Deleted keys are odd multiples of 10 in
                                // the later phase; here all even keys exist.
                                debug_assert_eq!(found, k.is_multiple_of(2));
                            }
                            done += batch;
                            pb.inc(batch);
                        }
                        Ok(())
                    })
                })
                .collect();
            for w in workers {
                w.join().expect("worker panicked")?;
            }
            Ok(())
        })?;
        pb.finish_and_clear();
        Ok((
            report.queries as f64 / t.elapsed().as_secs_f64(),
            avoided.into_inner(),
        ))
    };
    let (without, _) = query_phase(false, "queries, store only")?;
    let (with, avoided) = query_phase(true, "queries, filter first")?;
    report.lookups_per_sec_without = without;
    report.lookups_per_sec_with = with;
    report.store_reads_avoided = avoided;

    // Deletes: every 10th key leaves the store and the filter (after the
    // store's commit, so the filter never says "no" for a stored key).
    let doomed: Vec<u64> = (0..n).step_by(10).map(key).collect();
    let pb = bar(doomed.len() as u64, "deleting", quiet);
    for part in doomed.chunks(chunk) {
        let txn = db.begin_write()?;
        {
            let mut t = txn.open_table(TABLE)?;
            for &k in part {
                t.remove(k)?;
            }
        }
        txn.commit()?;
        for &k in part {
            assert!(filter.remove_hash(hash(|b| filter.hash_bytes(b), k)));
        }
        pb.inc(part.len() as u64);
    }
    pb.finish_and_clear();
    report.deleted = doomed.len() as u64;

    // Shutdown: the filter saved beside the database file.
    let t = Instant::now();
    {
        let file = std::fs::File::create(&filter_path)?;
        filter.write_to(std::io::BufWriter::new(file))?;
    }
    report.save = t.elapsed();
    report.saved_bytes = std::fs::metadata(&filter_path)?.len();
    let answers: Vec<bool> = (0..2 * n.min(100_000))
        .map(|k| filter.contains_hash(hash(|b| filter.hash_bytes(b), k)))
        .collect();
    drop(filter);
    drop(db);

    // Restart.
    let t = Instant::now();
    let db = Database::open(&db_path)?;
    report.open_store = t.elapsed();
    let t = Instant::now();
    let file = std::fs::File::open(&filter_path)?;
    // SAFETY: the filter file is this program's own and nothing writes it
    // while it is mapped.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let view = FilterView::new_unverified(&map)?;
    report.open_view = t.elapsed();
    for (k, &a) in answers.iter().enumerate() {
        assert_eq!(
            view.contains_hash(view.hash_bytes(&(k as u64).to_le_bytes())),
            a
        );
    }
    // Writers need an owned filter: load it.
    let t = Instant::now();
    let loaded =
        CuckooFilter::read_from(std::io::BufReader::new(std::fs::File::open(&filter_path)?))?;
    report.load_read_from = t.elapsed();
    // The alternative: scan the store.
    let t = Instant::now();
    let rebuilt = CuckooFilter::builder()
        .capacity(n as usize)
        .false_positive_rate(0.001)
        .build()?;
    {
        let pb = bar(n - report.deleted, "rebuilding by a scan", quiet);
        let txn = db.begin_read()?;
        let table = txn.open_table(TABLE)?;
        for entry in table.iter()? {
            let (k, _) = entry?;
            rebuilt.insert_hash(rebuilt.hash_bytes(&k.value().to_le_bytes()))?;
            pb.inc(1);
        }
        pb.finish_and_clear();
    }
    report.rebuild_scan = t.elapsed();
    // Every stored key is in all three; deleted ones are (nearly) gone.
    let txn = db.begin_read()?;
    let table = txn.open_table(TABLE)?;
    for i in (0..n).step_by((n / 10_000).max(1) as usize) {
        let k = key(i);
        let stored = table.get(k)?.is_some();
        assert_eq!(stored, !i.is_multiple_of(10));
        if stored {
            let h = loaded.hash_bytes(&k.to_le_bytes());
            assert!(loaded.contains_hash(h) && view.contains_hash(h) && rebuilt.contains_hash(h));
        }
    }
    assert_eq!(loaded.len() as u64, n - report.deleted);
    loaded.insert_hash(loaded.hash_bytes(&key(0).to_le_bytes()))?;
    Ok(report)
}

pub fn print(r: &Report) {
    println!(
        "negative cache: redb store of {} keys, {} worker threads",
        r.keys, r.threads
    );
    println!(
        "  queries: {} (half absent); store reads avoided by the filter: {} ({:.1}% of the absent ones)",
        r.queries,
        r.store_reads_avoided,
        100.0 * r.store_reads_avoided as f64 / (r.queries as f64 / 2.0)
    );
    println!(
        "  lookups/s: {:.2} M without the filter, {:.2} M with it ({:.2}x)",
        r.lookups_per_sec_without / 1e6,
        r.lookups_per_sec_with / 1e6,
        r.lookups_per_sec_with / r.lookups_per_sec_without
    );
    println!("  deleted from store and filter: {} keys", r.deleted);
    println!(
        "  shutdown: filter saved beside the store, {} bytes, in {:.1} ms",
        r.saved_bytes,
        r.save.as_secs_f64() * 1e3
    );
    println!(
        "  restart: store opened in {:.1} ms; filter mapped and viewed in {:.1} µs; loaded with read_from in {:.1} ms; rebuild by scanning the store {:.1} ms ({:.0}x the load, {:.0}x the view)",
        r.open_store.as_secs_f64() * 1e3,
        r.open_view.as_secs_f64() * 1e6,
        r.load_read_from.as_secs_f64() * 1e3,
        r.rebuild_scan.as_secs_f64() * 1e3,
        r.rebuild_scan.as_secs_f64() / r.load_read_from.as_secs_f64(),
        r.rebuild_scan.as_secs_f64() / r.open_view.as_secs_f64(),
    );
}

#[allow(dead_code)] // run by `cargo run --example`; the test calls `run`.
fn main() -> Result<(), Error> {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(2_000_000);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("cuckoo-negative-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let report = run(&dir, n, false);
    let _ = std::fs::remove_dir_all(&dir);
    print(&report?);
    Ok(())
}
