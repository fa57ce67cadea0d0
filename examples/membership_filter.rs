//! A membership filter in front of an embedded store, wired as a storage engine would: copy
//! this. A [redb](https://docs.rs/redb) store holds keys; one `CuckooFilter`, shared by every
//! reader, answers "certainly not stored", so a lookup of an absent key costs no store read.
//!
//! - **One filter copy per stored key.** The store decides, inside its write transaction,
//!   whether a put adds the key (then the filter gets a copy) and whether a delete removes it
//!   (then the filter loses one): overwrites add nothing, and colliding keys each keep a copy
//!   of their own (`Store::put` says why the filter, `insert_unique`, must not decide).
//! - **Order around the commit.** Into the filter *before* the store commits a key, out of it
//!   *after* the store commits its delete: the filter always holds every key the store holds
//!   (a reader that finds a key in the store finds it in the filter); in between, a "maybe"
//!   for a key the store lacks costs one store read, never a wrong answer.
//! - **Saved with the store's commit id** (a counter kept in the same transaction as the data),
//!   read *before* the snapshot: every key of that commit went into the filter before it.
//!   `save_to_path` writes a temporary file, fsyncs, renames and fsyncs the directory.
//! - **Checked on restart.** The saved filter is used only if it loads (checksums and every
//!   bucket checked) and its commit id is the store's; a missing, torn or stale file is
//!   rebuilt by scanning the store.
//!
//! Each store read also sleeps for a modelled device read (the second argument, default 100 µs:
//! a fast SSD's random read), as the store sits in the page cache; the output says so.
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-examples --example membership_filter              # 200,000 keys
//! cargo run --release -p cuckoo-nest-examples --example membership_filter -- 1000000 50 100
//! #                                      keys, device µs, overwrite rounds
//! ```

use cuckoo_nest::{CuckooFilter, DecodeError, LoadOptions, SaveOptions};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;
use std::time::{Duration, Instant};

pub type Error = Box<dyn std::error::Error + Send + Sync>;

const DATA: TableDefinition<u64, &[u8]> = TableDefinition::new("data");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// How the filter was had at startup: loaded from its file, or rebuilt from the store because
/// the file was missing, torn, damaged or stale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Startup {
    Loaded,
    Rebuilt(&'static str),
}

/// What one run measured.
#[derive(Debug)]
pub struct Report {
    pub keys: u64,
    /// Puts of keys the store already held (each a store write, none a filter insert).
    pub overwrites: usize,
    pub startups: Vec<(String, Startup)>,
    pub device_latency: Duration,
    pub queries: usize,
    pub store_reads_without: usize,
    pub store_reads_with: usize,
    pub per_sec_without: f64,
    pub per_sec_with: f64,
}

/// The store and the filter in front of it.
pub struct Store {
    db: Database,
    pub filter: CuckooFilter,
    device_latency: Duration,
}

fn commit_id(db: &Database) -> Result<u64, Error> {
    let txn = db.begin_read()?;
    Ok(match txn.open_table(META) {
        Ok(t) => t.get("commit")?.map_or(0, |v| v.value()),
        Err(redb::TableError::TableDoesNotExist(_)) => 0,
        Err(e) => return Err(e.into()),
    })
}

fn bump_commit(txn: &redb::WriteTransaction) -> Result<(), Error> {
    let mut meta = txn.open_table(META)?;
    let next = meta.get("commit")?.map_or(0, |v| v.value()) + 1;
    meta.insert("commit", next)?;
    Ok(())
}

impl Store {
    /// Opens the store at `dir` and has its filter: loaded if its file is whole and current,
    /// else rebuilt from the store.
    pub fn open(
        dir: &Path,
        capacity: usize,
        device_latency: Duration,
    ) -> Result<(Store, Startup), Error> {
        let db = Database::create(dir.join("store.redb"))?;
        let commit = commit_id(&db)?;
        let loaded = match std::fs::File::open(dir.join("store.filter")) {
            Err(_) => Err("missing"),
            Ok(file) => {
                match CuckooFilter::load(std::io::BufReader::new(file), &LoadOptions::default()) {
                    Err(DecodeError::Io(_) | DecodeError::Truncated { .. }) => Err("torn"),
                    Err(_) => Err("damaged"),
                    Ok((_, meta)) if meta != commit.to_le_bytes() => Err("stale"),
                    Ok((filter, _)) => Ok(filter),
                }
            }
        };
        let (filter, how) = match loaded {
            Ok(filter) => (filter, Startup::Loaded),
            Err(why) => {
                let filter = CuckooFilter::builder()
                    .capacity(capacity)
                    .false_positive_rate(0.001)
                    .build()?;
                let txn = db.begin_read()?;
                if let Ok(t) = txn.open_table(DATA) {
                    for entry in t.iter()? {
                        filter.insert(&entry?.0.value().to_le_bytes())?;
                    }
                }
                (filter, Startup::Rebuilt(why))
            }
        };
        let store = Store {
            db,
            filter,
            device_latency,
        };
        Ok((store, how))
    }

    /// Stores `keys` in one commit. A key goes into the filter only when the store does not
    /// hold it yet, decided inside the write transaction (redb runs one at a time). Inserting
    /// on every put would add a copy per overwrite (the ninth put of a key fails with
    /// `TooManyCopies`, and a delete leaves copies behind). Asking the filter instead
    /// (`insert_unique`) is wrong too: a colliding key already in it makes a new key look
    /// present, so the new key never gets a copy of its own, and deleting the other loses it.
    pub fn put(&self, keys: &[u64]) -> Result<(), Error> {
        let txn = self.db.begin_write()?;
        let mut added: Vec<u64> = Vec::new();
        let stored = (|| -> Result<(), Error> {
            let mut data = txn.open_table(DATA)?;
            for &k in keys {
                if data.get(k)?.is_none() && !added.contains(&k) {
                    // Before the commit: once a reader can see the key, the filter has it.
                    self.filter.insert(&k.to_le_bytes())?;
                    added.push(k);
                }
                data.insert(k, &b"value"[..])?;
            }
            bump_commit(&txn)
        })();
        let committed = stored.and_then(|()| Ok(txn.commit()?));
        if committed.is_err() {
            // Not committed (a dropped transaction aborts): take back this put's copies.
            for k in added {
                let taken = self.filter.remove(&k.to_le_bytes());
                assert!(taken, "the copy this put added is there");
            }
        }
        committed
    }

    /// Deletes `keys` in one commit: the store first, then the filter, one copy per key the
    /// store really held.
    pub fn delete(&self, keys: &[u64]) -> Result<(), Error> {
        let txn = self.db.begin_write()?;
        let mut removed = Vec::new();
        {
            let mut data = txn.open_table(DATA)?;
            for &k in keys {
                if data.remove(k)?.is_some() {
                    removed.push(k);
                }
            }
            bump_commit(&txn)?;
        }
        txn.commit()?;
        for k in removed {
            // After the commit: until then readers may still find the key in the store. A put
            // of the same key racing in between added a copy of its own, which this leaves.
            let taken = self.filter.remove(&k.to_le_bytes());
            assert!(taken, "key {k} was stored, so its copy is in the filter");
        }
        Ok(())
    }

    /// Saves the filter beside the store, crash-safely, tagged with the commit id read before
    /// the snapshot.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let commit = commit_id(&self.db)?.to_le_bytes();
        let options = SaveOptions::default().metadata(&commit)?;
        self.filter
            .save_to_path(dir.join("store.filter"), &options)?;
        Ok(())
    }

    /// Looks `key` up: the filter first (if `use_filter`), then the store, whose read costs the
    /// modelled device latency. Returns (found, store read).
    pub fn get(&self, key: u64, use_filter: bool) -> Result<(bool, bool), Error> {
        if use_filter && !self.filter.contains(&key.to_le_bytes()) {
            return Ok((false, false));
        }
        std::thread::sleep(self.device_latency);
        let txn = self.db.begin_read()?;
        let found = txn.open_table(DATA)?.get(key)?.is_some();
        Ok((found, true))
    }
}

/// Queries half stored, half absent keys on 8 threads (sleeping reads overlap well beyond the
/// core count); returns (store reads, lookups per second).
fn measure(store: &Store, keys: &[u64], use_filter: bool) -> Result<(usize, f64), Error> {
    let lookup = |&k: &u64| {
        let (found, read) = store.get(k, use_filter)?;
        // Even keys are stored, odd ones never: a wrong answer is a wiring bug.
        assert_eq!(found, k % 2 == 0, "key {k}");
        Ok::<usize, Error>(read as usize)
    };
    let start = Instant::now();
    let reads = std::thread::scope(|s| {
        let workers: Vec<_> = keys
            .chunks(keys.len().div_ceil(8))
            .map(|chunk| s.spawn(move || chunk.iter().map(lookup).sum::<Result<usize, Error>>()))
            .collect();
        let reads = workers.into_iter().map(|w| w.join().expect("worker"));
        reads.sum::<Result<usize, Error>>()
    })?;
    Ok((reads, keys.len() as f64 / start.elapsed().as_secs_f64()))
}

/// Keys the overwrite phase puts again and again.
pub const OVERWRITTEN_KEYS: usize = 10_000;

/// The whole story: fill, overwrite, save, restart (fresh, stale, torn, missing), then lookups
/// with and without the filter.
pub fn run(
    dir: &Path,
    n: u64,
    device_latency: Duration,
    queries: usize,
    overwrite_rounds: usize,
) -> Result<Report, Error> {
    let capacity = n as usize + n as usize / 4;
    let mut startups = Vec::new();
    // Closes the store (redb holds its file open) and opens it again.
    let mut reopen = |store: Option<Store>, when: &str| {
        drop(store);
        let (store, how) = Store::open(dir, capacity, device_latency)?;
        startups.push((when.to_string(), how));
        Ok::<Store, Error>(store)
    };
    let filter_file = dir.join("store.filter");

    let store = reopen(None, "first start")?;
    let stored: Vec<u64> = (0..n).map(|i| 2 * i).collect();
    for batch in stored.chunks(10_000) {
        store.put(batch)?;
    }
    let tenth = &stored[..n as usize / 10];
    store.delete(tenth)?;
    store.put(tenth)?; // and back
                       // The first keys put again and again, in commits of 1,000: the filter must still hold one
                       // copy per stored key, as overwrites add none.
    let overwritten = &stored[..(n as usize).min(OVERWRITTEN_KEYS)];
    let before = store.filter.len();
    for _ in 0..overwrite_rounds {
        for batch in overwritten.chunks(1_000) {
            store.put(batch)?;
        }
    }
    assert_eq!(store.filter.len(), before, "overwrites added filter copies");
    let in_store = store.db.begin_read()?.open_table(DATA)?.len()?;
    assert_eq!(store.filter.len() as u64, in_store);
    // (A count can exceed 1 where another stored key collides: it counts fingerprint copies,
    // which the length checks above account for.)
    for &k in overwritten {
        assert!(store.filter.count(&k.to_le_bytes()) >= 1, "key {k}");
    }
    store.save(dir)?;
    let store = reopen(Some(store), "restart after a save")?;
    store.put(&[2 * n])?; // one more commit: the saved file is now stale
    let store = reopen(Some(store), "restart after an unsaved commit")?;
    store.save(dir)?;
    // A torn write, as a crash mid-copy leaves.
    let torn = std::fs::OpenOptions::new().write(true).open(&filter_file)?;
    torn.set_len(torn.metadata()?.len() / 2)?;
    drop(torn); // closed before the file is removed below (Windows refuses an open one)
    let store = reopen(Some(store), "restart after a torn save")?;
    std::fs::remove_file(&filter_file)?;
    let store = reopen(Some(store), "restart with no saved filter")?;

    // Even keys stored, odd ones absent, alternating.
    let probe: Vec<u64> = (0..queries as u64)
        .map(|i| (((i * 7919) % (2 * n)) & !1) | (i & 1))
        .collect();
    let (store_reads_without, per_sec_without) = measure(&store, &probe, false)?;
    let (store_reads_with, per_sec_with) = measure(&store, &probe, true)?;
    Ok(Report {
        keys: n,
        overwrites: overwritten.len() * overwrite_rounds,
        startups,
        device_latency,
        queries,
        store_reads_without,
        store_reads_with,
        per_sec_without,
        per_sec_with,
    })
}

pub fn print(r: &Report) {
    println!(
        "membership filter in front of a redb store of {} keys",
        r.keys
    );
    for (when, how) in &r.startups {
        println!("  {when:<32} filter {how:?}");
    }
    println!(
        "  {} overwrites of stored keys: no error, still one filter copy per stored key",
        r.overwrites
    );
    println!(
        "store reads modelled as a device read: each sleeps {} µs (the store itself is in the page cache)",
        r.device_latency.as_micros()
    );
    let (queries, without, with) = (r.queries, r.store_reads_without, r.store_reads_with);
    println!("{queries} lookups, half of stored keys, half of absent ones, 8 threads:");
    let per_sec = r.per_sec_without;
    println!("  without the filter: {per_sec:>9.0} lookups/s, {without} store reads");
    let per_sec = r.per_sec_with;
    println!("  with the filter:    {per_sec:>9.0} lookups/s, {with} store reads");
}

#[allow(dead_code)] // the test includes this file and calls `run` itself
fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: u64| args.next().map_or(Ok(default), |a| a.parse());
    // 100 rounds: 1,000,000 overwrites of 10,000 keys (fewer keys if the store holds fewer).
    let (n, latency_us, rounds) = (arg(200_000)?, arg(100)?, arg(100)? as usize);
    let dir = std::env::temp_dir().join(format!("cuckoo-membership-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let report = run(&dir, n, Duration::from_micros(latency_us), 20_000, rounds);
    let _ = std::fs::remove_dir_all(&dir);
    print(&report?);
    Ok(())
}
