//! A filter per SST file, as an LSM-tree store keeps one: built when a table is flushed, saved
//! beside it with the SST's id as metadata, and queried on reads through a `FilterView` over
//! the saved bytes, without loading them into a filter. Here three SSTs of 10,000 keys; the
//! bytes are read into a `Vec<u8>` (a memory map, `memmap2::Mmap`, serves a view the same way,
//! so a filter of any size opens without being read into memory). A get reads only the SSTs
//! whose filter says "maybe"; a damaged file is refused, never trusted.
//!
//! `cargo run --release -p cuckoo-nest-examples --example sst_filter`

use cuckoo_nest::{CuckooFilter, DecodeError, FilterView, SaveOptions};
use std::path::Path;

const SSTS: u64 = 3;
const KEYS_PER_SST: u64 = 10_000;

/// The keys of SST `id`: `sst{id}:{i}`.
fn sst_keys(id: u64) -> impl Iterator<Item = String> {
    (0..KEYS_PER_SST).map(move |i| format!("sst{id}:{i}"))
}

/// At flush: a filter sized for the SST's keys, saved beside it with the SST's id.
fn flush(dir: &Path, id: u64) -> Result<(), Box<dyn std::error::Error>> {
    let filter = CuckooFilter::builder()
        .capacity(KEYS_PER_SST as usize)
        .false_positive_rate(0.001)
        .build()?;
    filter.insert_batch(sst_keys(id))?;
    let id_bytes = id.to_le_bytes();
    let options = SaveOptions::default().metadata(&id_bytes)?;
    filter.save_to_path(dir.join(format!("{id}.filter")), &options)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-sst-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for id in 0..SSTS {
        flush(&dir, id)?;
    }
    // At open: a view over each saved file, checked (checksums, every bucket) and matched to
    // its SST by the metadata.
    let mut views = Vec::new();
    for id in 0..SSTS {
        let view = FilterView::new(std::fs::read(dir.join(format!("{id}.filter")))?)?;
        assert_eq!(view.metadata(), id.to_le_bytes(), "another SST's filter");
        // Every key is found in its own SST's filter: a get never misses the SST holding it.
        assert!(sst_keys(id).all(|k| view.contains(&k)));
        views.push(view);
    }
    // A key no SST holds: almost every get reads no SST at all.
    let misses = 30_000;
    let absent = (0..misses).map(|i| format!("absent:{i}"));
    let reads: usize = absent
        .map(|k| views.iter().filter(|v| v.contains(&k)).count())
        .sum();
    assert!(
        reads < misses / 100,
        "{reads} SST reads for {misses} absent keys"
    );

    // A flipped bit in a saved table: the view refuses the file (rebuild it from the SST).
    let mut bytes = std::fs::read(dir.join("0.filter"))?;
    bytes[200] ^= 1;
    let refused = FilterView::new(bytes).unwrap_err();
    assert!(matches!(refused, DecodeError::ChecksumMismatch { .. }));

    println!(
        "{SSTS} SSTs of {KEYS_PER_SST} keys, {} bytes of filter each: every key found; \
         {reads} SST reads for {misses} absent keys; a damaged filter refused ({refused})",
        views[0].size_in_bytes()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
