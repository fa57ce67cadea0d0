//! A membership filter in front of an embedded store, wired as a storage
//! engine would: copy this.
//!
//! A [redb](https://docs.rs/redb) store holds keys; one shared
//! `CuckooFilter` answers "certainly not stored" so a lookup of an absent
//! key costs no store read. What matters, and why:
//!
//! - **One filter copy per stored key.** A put inserts into the filter
//!   only if the store did not hold the key; a delete removes from the
//!   filter only if the store held it (both decided by the store, inside
//!   its write transaction). Overwrites then add nothing, and colliding
//!   keys each keep a copy of their own (`Store::put` says why the filter
//!   itself, `insert_unique`, must not decide).
//! - **Order around the commit.** A key goes into the filter *before* the
//!   store commits it, and comes out of the filter *after* the store
//!   commits its delete. So at every moment the filter holds every key the
//!   store holds (a reader on another thread that finds a key in the store
//!   also finds it in the filter); in between, the filter says "maybe" for
//!   a key the store does not hold yet or any more, which costs one store
//!   read, never a wrong answer.
//! - **Saved with the store's commit id.** The store keeps a commit counter
//!   in the same transaction as the data. The filter is saved crash-safely
//!   (`save_to_path_with_metadata`: temporary file, fsync, rename, fsync of
//!   the directory) with the commit id it was read *before* the snapshot:
//!   every key of that commit went into the filter before the commit, so
//!   before the snapshot.
//! - **Checked on restart.** The saved filter is used only if it loads
//!   (checksums and every bucket checked) and its commit id is the store's;
//!   a missing, torn or stale file is rebuilt by scanning the store.
//!
//! The store sits in the page cache here, so its reads are modelled as a
//! device read: each store read also sleeps for `--device-latency-us`
//! (default 100 µs, a fast SSD's random read), said plainly in the output.
//!
//! ```sh
//! cargo run --release -p cuckoo-nest-examples --example membership_filter              # 200,000 keys
//! cargo run --release -p cuckoo-nest-examples --example membership_filter -- 1000000 50 100
//! #                                      keys, device µs, overwrite rounds
//! ```

use cuckoo_nest::{CuckooFilter, DecodeError, LoadOptions, SaveOptions};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type Error = Box<dyn std::error::Error + Send + Sync>;

const DATA: TableDefinition<u64, &[u8]> = TableDefinition::new("data");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// How the filter was had at startup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Startup {
    /// Loaded from its file: checksums and buckets checked, commit id the
    /// store's.
    Loaded,
    /// Rebuilt by scanning the store, because the file was...
    Rebuilt(&'static str),
}

/// What one run measured.
#[derive(Debug)]
pub struct Report {
    pub keys: u64,
    /// Puts of keys the store already held (each a store write, none a
    /// filter insert).
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
    pub filter: Arc<CuckooFilter>,
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

impl Store {
    /// Opens the store at `dir` and has its filter: loaded if its file is
    /// whole and current, else rebuilt from the store.
    pub fn open(
        dir: &Path,
        capacity: usize,
        device_latency: Duration,
    ) -> Result<(Store, Startup), Error> {
        let db = Database::create(dir.join("store.redb"))?;
        let commit = commit_id(&db)?;
        let startup = match std::fs::File::open(dir.join("store.filter")) {
            Err(_) => Err("missing"),
            Ok(file) => {
                match CuckooFilter::load(std::io::BufReader::new(file), &LoadOptions::default()) {
                    Err(DecodeError::Io(_)) | Err(DecodeError::Truncated { .. }) => Err("torn"),
                    Err(_) => Err("damaged"),
                    Ok((_, meta)) if meta != commit.to_le_bytes() => Err("stale"),
                    Ok((filter, _)) => Ok(filter),
                }
            }
        };
        let (filter, how) = match startup {
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
            filter: Arc::new(filter),
            device_latency,
        };
        Ok((store, how))
    }

    /// Stores `keys` in one commit (a put: the key's value is set whether
    /// or not it was there). The filter holds one copy per key the store
    /// holds, so a key goes into the filter only when the store does not
    /// hold it yet, decided inside the write transaction (redb runs one at
    /// a time, so no other put or delete decides the same key meanwhile).
    /// Inserting on every put instead would add a copy per overwrite: the
    /// ninth put of a key would fail (`TooManyCopies`), and a delete would
    /// leave copies behind. Asking the filter instead of the store
    /// (`insert_unique`) is wrong too: a colliding key already in the
    /// filter makes it answer "present" for a new key, which then never
    /// gets a copy of its own, so deleting the other key loses it.
    pub fn put(&self, keys: &[u64]) -> Result<(), Error> {
        let txn = self.db.begin_write()?;
        let mut added: Vec<u64> = Vec::new();
        let stored = (|| -> Result<(), Error> {
            let mut data = txn.open_table(DATA)?;
            for &k in keys {
                if data.get(k)?.is_none() && !added.contains(&k) {
                    // Before the commit: once a reader can see the key in
                    // the store, the filter already has it.
                    self.filter.insert(&k.to_le_bytes())?;
                    added.push(k);
                }
                data.insert(k, &b"value"[..])?;
            }
            bump_commit(&txn)?;
            Ok(())
        })();
        match stored.and_then(|()| Ok(txn.commit()?)) {
            Ok(()) => Ok(()),
            Err(e) => {
                // Not committed (a dropped transaction aborts): take back
                // the copies this put added, and the filter is as before.
                for k in added {
                    let taken = self.filter.remove(&k.to_le_bytes());
                    assert!(taken, "the copy this put added is there");
                }
                Err(e)
            }
        }
    }

    /// Deletes `keys` in one commit: the store first, then the filter, one
    /// copy per key the store really held.
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
            // After the commit: until the delete is visible, readers may
            // still find the key in the store, so the filter must too. A
            // put of the same key racing in between added a copy of its
            // own, so this takes one copy and leaves that one.
            let taken = self.filter.remove(&k.to_le_bytes());
            assert!(taken, "key {k} was stored, so its copy is in the filter");
        }
        Ok(())
    }

    /// Keys in the store.
    pub fn stored(&self) -> Result<u64, Error> {
        let txn = self.db.begin_read()?;
        Ok(txn.open_table(DATA)?.len()?)
    }

    /// Saves the filter beside the store, crash-safely, tagged with the
    /// commit id read before the snapshot.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let commit = commit_id(&self.db)?;
        self.filter.save_to_path(
            dir.join("store.filter"),
            &SaveOptions::default()
                .metadata(&commit.to_le_bytes())
                .expect("metadata fits"),
        )?;
        Ok(())
    }

    /// Looks `key` up: the filter first (if `use_filter`), then the store,
    /// whose read costs the modelled device latency. Returns (found, store
    /// read).
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

fn bump_commit(txn: &redb::WriteTransaction) -> Result<(), Error> {
    let mut meta = txn.open_table(META)?;
    let next = meta.get("commit")?.map_or(0, |v| v.value()) + 1;
    meta.insert("commit", next)?;
    Ok(())
}

/// Queries half stored, half absent keys, on 8 threads (sleeping reads
/// overlap well beyond the core count); returns (store reads, lookups per
/// second).
fn measure(store: &Store, keys: &[u64], use_filter: bool) -> Result<(usize, f64), Error> {
    let start = Instant::now();
    let reads = std::thread::scope(|s| {
        let workers: Vec<_> = keys
            .chunks(keys.len().div_ceil(8))
            .map(|chunk| {
                s.spawn(move || {
                    let mut reads = 0;
                    for &k in chunk {
                        let (found, read) = store.get(k, use_filter)?;
                        // Even keys are stored, odd ones never: a wrong
                        // answer here is a bug in the wiring.
                        assert_eq!(found, k % 2 == 0, "key {k}");
                        reads += read as usize;
                    }
                    Ok::<usize, Error>(reads)
                })
            })
            .collect();
        let reads = workers.into_iter().map(|w| w.join().expect("worker"));
        reads.sum::<Result<usize, Error>>()
    })?;
    Ok((reads, keys.len() as f64 / start.elapsed().as_secs_f64()))
}

/// Keys the overwrite phase puts again and again.
pub const OVERWRITTEN_KEYS: usize = 10_000;

/// Puts `keys` (all stored already) `rounds` times over, in commits of
/// 1,000, then checks that the filter still holds one copy per stored key
/// (its length is the store's): overwrites add none. Returns the puts done.
fn overwrite(store: &Store, keys: &[u64], rounds: usize) -> Result<usize, Error> {
    let before = store.filter.len();
    let mut puts = 0;
    for _ in 0..rounds {
        for batch in keys.chunks(1_000) {
            store.put(batch)?;
            puts += batch.len();
        }
    }
    assert_eq!(store.filter.len(), before, "overwrites added filter copies");
    assert_eq!(store.filter.len() as u64, store.stored()?);
    // (A count can exceed 1 where another stored key collides: it counts
    // fingerprint copies, which the length check above accounts for.)
    for &k in keys {
        assert!(store.filter.count(&k.to_le_bytes()) >= 1, "key {k}");
    }
    Ok(puts)
}

/// The whole story: fill, overwrite, save, restart (fresh, stale, torn, missing),
/// then lookups with and without the filter.
pub fn run(
    dir: &Path,
    n: u64,
    device_latency: Duration,
    queries: usize,
    overwrite_rounds: usize,
) -> Result<Report, Error> {
    let mut startups = Vec::new();
    let capacity = n as usize + n as usize / 4;
    let (store, how) = Store::open(dir, capacity, device_latency)?;
    startups.push(("first start".to_string(), how));
    let stored: Vec<u64> = (0..n).map(|i| 2 * i).collect();
    for batch in stored.chunks(10_000) {
        store.put(batch)?;
    }
    store.delete(&stored[..n as usize / 10])?;
    store.put(&stored[..n as usize / 10])?; // and back
    let overwrites = overwrite(
        &store,
        &stored[..(n as usize).min(OVERWRITTEN_KEYS)],
        overwrite_rounds,
    )?;
    store.save(dir)?;
    drop(store);

    let (store, how) = Store::open(dir, capacity, device_latency)?;
    startups.push(("restart after a save".to_string(), how));
    store.put(&[2 * n])?; // one more commit: the saved file is now stale
    drop(store);
    let (store, how) = Store::open(dir, capacity, device_latency)?;
    startups.push(("restart after an unsaved commit".to_string(), how));
    store.save(dir)?;
    let len = std::fs::metadata(dir.join("store.filter"))?.len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("store.filter"))?
        .set_len(len / 2)?; // a torn write, as a crash mid-copy leaves
    drop(store);
    let (store, how) = Store::open(dir, capacity, device_latency)?;
    startups.push(("restart after a torn save".to_string(), how));
    std::fs::remove_file(dir.join("store.filter"))?;
    drop(store);
    let (store, how) = Store::open(dir, capacity, device_latency)?;
    startups.push(("restart with no saved filter".to_string(), how));

    let mut probe: Vec<u64> = (0..queries as u64).map(|i| (i * 7919) % (2 * n)).collect();
    probe
        .iter_mut()
        .enumerate()
        .for_each(|(i, k)| *k = (*k & !1) | (i as u64 & 1));
    let (store_reads_without, per_sec_without) = measure(&store, &probe, false)?;
    let (store_reads_with, per_sec_with) = measure(&store, &probe, true)?;
    Ok(Report {
        keys: n,
        overwrites,
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
    println!(
        "{} lookups, half of stored keys, half of absent ones, 8 threads:",
        r.queries
    );
    println!(
        "  without the filter: {:>9.0} lookups/s, {} store reads",
        r.per_sec_without, r.store_reads_without
    );
    println!(
        "  with the filter:    {:>9.0} lookups/s, {} store reads",
        r.per_sec_with, r.store_reads_with
    );
}

#[allow(dead_code)] // the test includes this file and calls `run` itself
fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: u64| args.next().map_or(Ok(default), |a| a.parse());
    // 100 rounds: 1,000,000 overwrites of 10,000 keys (fewer keys if the
    // store holds fewer).
    let (n, latency_us, rounds) = (arg(200_000)?, arg(100)?, arg(100)? as usize);
    let dir = std::env::temp_dir().join(format!("cuckoo-membership-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let report = run(&dir, n, Duration::from_micros(latency_us), 20_000, rounds);
    let _ = std::fs::remove_dir_all(&dir);
    print(&report?);
    Ok(())
}
