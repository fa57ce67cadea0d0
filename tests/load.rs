//! Load factor at first failure, lossless failure, and the false-positive
//! rate, on tables of about 2^20 buckets.

use cuckoo_nest::CuckooFilter;

/// A splitmix64 stream: distinct, well-mixed keys, the same on every run.
fn keys(seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed;
    std::iter::repeat_with(move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

// Under miri, a few buckets: every insert near full searches hundreds of
// buckets, each step interpreted.
const BUCKETS: usize = if cfg!(miri) { 32 } else { 1 << 20 };

/// Fills a table of `BUCKETS` buckets with random keys until the first
/// failed insert; returns the filter and the keys that went in.
fn fill(b: usize, f: u32, seed: u64) -> (CuckooFilter, Vec<u64>) {
    let filter = CuckooFilter::builder()
        .buckets(BUCKETS)
        .bucket_size(b)
        .fingerprint_bits(f)
        .build()
        .unwrap();
    let mut inserted = Vec::with_capacity(filter.slots());
    for k in keys(seed) {
        let before = filter.len();
        match filter.insert(&k) {
            Ok(()) => inserted.push(k),
            Err(e) => {
                // A failed insert changes nothing.
                assert_eq!(filter.len(), before, "{e}");
                break;
            }
        }
    }
    (filter, inserted)
}

fn check_load(b: usize, min_load: f64) {
    let (filter, inserted) = fill(b, 16, b as u64);
    let load = filter.load_factor();
    eprintln!(
        "b={b} f=16: first failure at load {:.4} ({} of {} slots), {:.2} bits/item",
        load,
        inserted.len(),
        filter.slots(),
        filter.memory_usage() as f64 * 8.0 / inserted.len() as f64
    );
    assert_eq!(filter.len(), inserted.len());
    if !cfg!(miri) {
        assert!(load >= min_load, "b={b}: load {load} < {min_load}");
    }
    // After the failure, every key that went in is still found.
    let lost = inserted.iter().filter(|k| !filter.contains(*k)).count();
    assert_eq!(lost, 0, "b={b}: {lost} keys lost after the failed insert");
}

#[test]
fn four_slot_buckets_reach_95_percent() {
    check_load(4, 0.95);
}

#[test]
fn eight_slot_buckets_reach_98_percent() {
    check_load(8, 0.98);
}

#[test]
fn two_slot_buckets_reach_84_percent() {
    check_load(2, 0.84);
}

/// Measured false-positive rate of a full filter on `probes` absent keys,
/// against 2b/2^f and against `expected_false_positive_rate`.
fn check_fpr(b: usize, f: u32) {
    let (filter, _) = fill(b, f, 1000 + b as u64 + f as u64);
    let probes = if cfg!(miri) { 300 } else { 1_000_000 };
    // Keys from another stream: absent (a 64-bit collision aside).
    let hits = keys(u64::MAX / 3)
        .take(probes)
        .filter(|k| filter.contains(k))
        .count();
    let measured = hits as f64 / probes as f64;
    let bound = 2.0 * b as f64 / (1u64 << f) as f64;
    let expected = filter.expected_false_positive_rate();
    eprintln!(
        "b={b} f={f} load {:.3}: measured fpr {measured:.3e}, 2b/2^f {bound:.3e}, expected {expected:.3e}",
        filter.load_factor()
    );
    if cfg!(miri) {
        return;
    }
    assert!(
        measured <= 1.5 * bound && measured >= bound / 1.5,
        "b={b} f={f}: measured {measured} vs 2b/2^f {bound}"
    );
    assert!(
        measured <= 1.5 * expected && measured >= expected / 1.5,
        "b={b} f={f}: measured {measured} vs expected {expected}"
    );
}

#[test]
fn false_positive_rate_default_config() {
    check_fpr(4, 16);
}

#[test]
fn false_positive_rate_8_bit_fingerprints() {
    check_fpr(4, 8);
    check_fpr(2, 8);
    check_fpr(8, 8);
}
