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
//! `cargo run --release -p cuckoo-nest-examples --example membership_filter [-- KEYS]` (default
//! 200,000 keys) prints how each start had its filter and how many lookups read the store.

use cuckoo_nest::{CuckooFilter, DecodeError, LoadOptions, SaveOptions};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::Path;

pub type Error = Box<dyn std::error::Error + Send + Sync>;

const DATA: TableDefinition<u64, &[u8]> = TableDefinition::new("data");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// How the filter was had at startup: loaded from its file, or rebuilt from the store because
/// the file was missing, torn, damaged or stale.
#[derive(Debug, PartialEq, Eq)]
pub enum Startup {
    Loaded,
    Rebuilt(&'static str),
}

/// The store and the filter in front of it.
pub struct Store {
    db: Database,
    pub filter: CuckooFilter,
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
    pub fn open(dir: &Path, capacity: usize) -> Result<(Store, Startup), Error> {
        let db = Database::create(dir.join("store.redb"))?;
        let commit = commit_id(&db)?;
        let file = std::fs::File::open(dir.join("store.filter")).map(std::io::BufReader::new);
        let why = match file.map(|file| CuckooFilter::load(file, &LoadOptions::default())) {
            Err(_) => "missing",
            Ok(Err(DecodeError::Io(_) | DecodeError::Truncated { .. })) => "torn",
            Ok(Err(_)) => "damaged",
            Ok(Ok((_, meta))) if meta != commit.to_le_bytes() => "stale",
            Ok(Ok((filter, _))) => return Ok((Store { db, filter }, Startup::Loaded)),
        };
        let filter = CuckooFilter::builder()
            .capacity(capacity)
            .false_positive_rate(0.001)
            .build()?;
        if let Ok(t) = db.begin_read()?.open_table(DATA) {
            for entry in t.iter()? {
                filter.insert(&entry?.0.value().to_le_bytes())?;
            }
        }
        Ok((Store { db, filter }, Startup::Rebuilt(why)))
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

    /// Looks `key` up: the filter first, then the store. Returns (found, store read).
    pub fn get(&self, key: u64) -> Result<(bool, bool), Error> {
        if !self.filter.contains(&key.to_le_bytes()) {
            return Ok((false, false));
        }
        let txn = self.db.begin_read()?;
        let found = txn.open_table(DATA)?.get(key)?.is_some();
        Ok((found, true))
    }
}

/// Keys the overwrite phase puts again and again, and how many times: more than the 8 copies
/// a key's two buckets hold, so an insert per put would fail.
const OVERWRITTEN_KEYS: usize = 10_000;
const OVERWRITE_ROUNDS: usize = 10;

/// The whole story, `n` keys in a store at `dir`: fill, overwrite, save, restart (fresh, stale,
/// torn, missing), then lookups of stored and absent keys. Panics where the filter is wired wrong.
pub fn run(dir: &Path, n: u64) -> Result<(), Error> {
    let capacity = n as usize + n as usize / 4;
    // Closes the store (redb holds its file open) and opens it again, its filter had as `expected`.
    let reopen = |store: Option<Store>, expected: Startup| {
        drop(store);
        let (store, how) = Store::open(dir, capacity)?;
        println!("start: filter {how:?}");
        assert_eq!(how, expected);
        Ok::<Store, Error>(store)
    };
    let filter_file = dir.join("store.filter");

    let store = reopen(None, Startup::Rebuilt("missing"))?;
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
    for _ in 0..OVERWRITE_ROUNDS {
        for batch in overwritten.chunks(1_000) {
            store.put(batch)?;
        }
    }
    assert_eq!(store.filter.len(), before, "overwrites added filter copies");
    let in_store = store.db.begin_read()?.open_table(DATA)?.len()?;
    assert_eq!(store.filter.len() as u64, in_store);
    let overwrites = overwritten.len() * OVERWRITE_ROUNDS;
    println!("{overwrites} overwrites: still one filter copy per stored key");

    store.save(dir)?;
    let store = reopen(Some(store), Startup::Loaded)?;
    store.put(&[2 * n])?; // one more commit: the saved file is now stale
    let store = reopen(Some(store), Startup::Rebuilt("stale"))?;
    store.save(dir)?;
    // A torn write, as a crash mid-copy leaves.
    let torn = std::fs::OpenOptions::new().write(true).open(&filter_file)?;
    torn.set_len(torn.metadata()?.len() / 2)?;
    drop(torn); // closed before the file is removed below (Windows refuses an open one)
    let store = reopen(Some(store), Startup::Rebuilt("torn"))?;
    std::fs::remove_file(&filter_file)?;
    let store = reopen(Some(store), Startup::Rebuilt("missing"))?;

    // Even keys stored, odd ones absent: a wrong answer is a wiring bug. Every stored key reads
    // the store; an absent one only on a false positive (0.1%).
    let mut store_reads = 0;
    for k in 0..2 * n {
        let (found, read) = store.get(k)?;
        assert_eq!(found, k % 2 == 0, "key {k}");
        store_reads += read as usize;
    }
    println!(
        "{} lookups, half of stored keys: {store_reads} store reads",
        2 * n
    );
    assert!(
        store_reads < (n + n / 100) as usize,
        "{store_reads} store reads"
    );
    Ok(())
}

#[allow(dead_code)] // the test includes this file and calls `run` itself
fn main() -> Result<(), Error> {
    let n = std::env::args().nth(1).map_or(Ok(200_000), |a| a.parse())?;
    let dir = std::env::temp_dir().join(format!("cuckoo-membership-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let done = run(&dir, n);
    let _ = std::fs::remove_dir_all(&dir);
    done
}
