//! A filter per SST file, as an LSM-tree store keeps one: built when a table is flushed, saved
//! beside it, and queried on reads through a `FilterView` over the saved bytes, without
//! loading them into a filter.
//!
//! Three "SSTs" of 10,000 keys each are flushed: each gets a filter built for its key count,
//! saved crash-safely with the SST's id as metadata. To read, each saved file's bytes are
//! opened as a view (here read into a `Vec<u8>`; a memory-mapped file, `memmap2::Mmap`, is a
//! view's bytes the same way, so a filter of any size opens without being read into memory);
//! a get asks the views and reads only the SSTs whose filter says "maybe". A damaged file is
//! refused, never trusted.
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

/// At open: a view over the saved bytes, checked (checksums, every bucket) and matched to
/// its SST by the metadata.
fn open(dir: &Path, id: u64) -> Result<FilterView<Vec<u8>>, Box<dyn std::error::Error>> {
    let view = FilterView::new(std::fs::read(dir.join(format!("{id}.filter")))?)?;
    assert_eq!(
        view.metadata(),
        id.to_le_bytes(),
        "the filter of another SST"
    );
    Ok(view)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-sst-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for id in 0..SSTS {
        flush(&dir, id)?;
    }
    let views = (0..SSTS)
        .map(|id| open(&dir, id))
        .collect::<Result<Vec<_>, _>>()?;

    // Every key is found in its own SST's filter: a get never misses the SST holding it.
    for (id, view) in (0..SSTS).zip(&views) {
        assert!(sst_keys(id).all(|k| view.contains(&k)));
    }
    // A key no SST holds: almost every get reads no SST at all.
    let misses = 30_000;
    let reads: usize = (0..misses)
        .map(|i| {
            views
                .iter()
                .filter(|v| v.contains(&format!("absent:{i}")))
                .count()
        })
        .sum();
    assert!(
        reads < misses / 100,
        "{reads} SST reads for {misses} absent keys"
    );

    // A flipped bit in a saved table: the view refuses the file (rebuild it from the SST).
    let path = dir.join("0.filter");
    let mut bytes = std::fs::read(&path)?;
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

#[test]
fn runs() {
    main().unwrap();
}
