//! Helpers shared by the integration tests, one copy: tests/it/main.rs includes this file as
//! `mod common` (a test file of its own in tests/ would include it with `mod common;`).

/// A splitmix64 stream (Steele, Lea, Flood 2014): distinct, well-mixed keys, the same on every
/// run. The state starts at `seed` times an odd constant, so nearby seeds start far apart.
/// (The load figures docs/design.md and docs/benchmarks.md quote come from these keys.)
pub fn splitmix64(seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed.wrapping_mul(0xd1b5_4a32_d192_ed03);
    std::iter::repeat_with(move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// `filter` in the saved format with `metadata` after its header: what
/// `save` writes with `SaveOptions::metadata`, into a vector.
#[allow(dead_code)]
pub fn saved_with(filter: &cuckoo_nest::CuckooFilter, metadata: &[u8]) -> Vec<u8> {
    let options = cuckoo_nest::SaveOptions::default()
        .metadata(metadata)
        .expect("metadata fits");
    let mut out = Vec::new();
    filter
        .save(&mut out, &options)
        .expect("a Vec takes every write");
    out
}
