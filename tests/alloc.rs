//! A test binary of its own, not a module of tests/it: its counting global
//! allocator would count every test's allocations in a shared process.
//!
//! What reading and saving allocate. `read_from` allocates as bytes
//! arrive: a stream whose header claims a huge table costs about what the
//! stream held, not what it claimed. `save_to_path` and
//! `write_to_seekable` stream the table a stripe at a time: a save costs
//! one stripe's bytes, not a copy of the table. A counting allocator (this test
//! binary's global allocator) measures the peak of live heap bytes during
//! each call.
//!
//! One `#[test]` only, so no other test thread allocates while it counts.

use cuckoo_nest::{CuckooFilter, DecodeError, LoadOptions, SaveOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the same arguments; the
// counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak live heap bytes above what was live before, during `f`.
fn peak_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed) - before, out)
}

/// A saved filter whose header claims `buckets` buckets of 4 x 16 bits
/// (checksums right), followed by `table_bytes` zero bytes.
fn claiming(buckets: u64, table_bytes: usize) -> Vec<u8> {
    let mut b = CuckooFilter::builder()
        .bucket_size(4)
        .fingerprint_bits(16)
        .capacity(100)
        .build()
        .unwrap()
        .to_bytes();
    b.truncate(64);
    b[24..32].copy_from_slice(&buckets.to_le_bytes());
    b[40..48].copy_from_slice(&(buckets * 4).to_le_bytes());
    b.resize(64 + table_bytes, 0);
    let table = xxhash_rust::xxh3::xxh3_64(&b[64..]);
    b[48..56].copy_from_slice(&table.to_le_bytes());
    let header = xxhash_rust::xxh3::xxh3_64(&b[..56]);
    b[56..64].copy_from_slice(&header.to_le_bytes());
    b
}

#[test]
fn reads_and_saves_allocate_what_they_need() {
    read_from_allocates_what_arrives();
    saves_stream_a_chunk_at_a_time();
}

fn read_from_allocates_what_arrives() {
    // The first chunk, and slack for the error and the reader's bookkeeping.
    const FIXED: usize = (64 << 10) + 4096;

    // A 64-byte stream whose header claims 2^40 buckets (8 TiB).
    let stream = claiming(1 << 40, 0);
    let (peak, r) =
        peak_during(|| CuckooFilter::load(&stream[..], &LoadOptions::default()).map(|(f, _)| f));
    assert!(matches!(r, Err(DecodeError::Truncated { .. })), "{r:?}");
    assert!(peak <= FIXED, "{peak} bytes for a 64-byte stream");

    // Streams holding part of a claimed 2^30-bucket (8 GiB) table: at most
    // the bytes held, an eighth more (the next chunk), and the first chunk.
    for held in [100 << 10, 1 << 20, 16 << 20] {
        let stream = claiming(1 << 30, held);
        let (peak, r) = peak_during(|| {
            CuckooFilter::load(&stream[..], &LoadOptions::default()).map(|(f, _)| f)
        });
        assert!(matches!(r, Err(DecodeError::Truncated { .. })), "{r:?}");
        let bound = held + held / 8 + FIXED;
        assert!(
            peak <= bound,
            "{peak} bytes for a stream holding {held} bytes (bound {bound})"
        );
        println!("stream of {held} table bytes claiming 8 GiB: peak {peak} bytes");
    }

    // A whole 16 MiB filter: the chunks, then the table they are copied
    // into (with its padding and stripes): about twice the table.
    let filter = CuckooFilter::builder().buckets(2 << 20).build().unwrap();
    for k in 0..1000u32 {
        filter.insert(&k).unwrap();
    }
    let mut saved = Vec::new();
    filter.save(&mut saved, &SaveOptions::default()).unwrap();
    drop(filter);
    let table = saved.len() - 64;
    let (peak, r) =
        peak_during(|| CuckooFilter::load(&saved[..], &LoadOptions::default()).map(|(f, _)| f));
    let loaded = r.unwrap();
    assert!(loaded.contains(&999u32));
    println!("whole {table}-byte table: peak {peak} bytes");
    assert!(
        peak <= 2 * table + table / 8 + FIXED,
        "{peak} bytes for a {table}-byte table"
    );
}

fn saves_stream_a_chunk_at_a_time() {
    let filter = CuckooFilter::builder().buckets(4 << 20).build().unwrap();
    for k in 0..100_000u32 {
        filter.insert(&k).unwrap();
    }
    let table = filter.to_bytes().len() - 64;
    // At most one stripe (a 1024th of the table; the save copies 16 KiB
    // at a time), the file's buffer, path names.
    let stripe = table / 1024;
    const FIXED: usize = 64 << 10;
    const BOUND_NOTE: &str = "one stripe and 64 KiB";
    let bound = stripe + FIXED;
    let dir = std::env::temp_dir().join(format!("cuckoo-nest-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bin");

    let (peak, r) = peak_during(|| {
        filter.save_to_path(
            &path,
            &SaveOptions::default()
                .metadata(b"lsn 7")
                .expect("metadata fits"),
        )
    });
    r.unwrap();
    println!("save_to_path of a {table}-byte table: peak {peak} bytes");
    assert!(
        peak <= bound,
        "{peak} bytes to save a {table}-byte table ({BOUND_NOTE})"
    );

    let file = std::fs::File::create(dir.join("g.bin")).unwrap();
    let (peak, r) = peak_during(|| {
        filter.save_seekable(std::io::BufWriter::new(file), &SaveOptions::default())
    });
    r.unwrap();
    println!("write_to_seekable: peak {peak} bytes");
    assert!(
        peak <= bound,
        "{peak} bytes to stream a {table}-byte table ({BOUND_NOTE})"
    );

    // What was written loads, and is what `to_bytes` gives.
    let saved = std::fs::read(&path).unwrap();
    let mut expected = Vec::new();
    let options = SaveOptions::default().metadata(b"lsn 7").unwrap();
    filter.save(&mut expected, &options).unwrap();
    assert_eq!(saved, expected);
    assert_eq!(std::fs::read(dir.join("g.bin")).unwrap(), filter.to_bytes());
    let loaded = CuckooFilter::from_bytes(&saved).unwrap();
    assert!((0..100_000u32).all(|k| loaded.contains(&k)));
    std::fs::remove_dir_all(&dir).unwrap();
}
