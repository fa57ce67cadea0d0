//! Keys to hashes, hashes to (fingerprint, bucket), and the alternate bucket:
//! the arithmetic and the table's [`Addressing`] of it.
//!
//! The default hasher is part of the crate's stable contract: the same key
//! gives the same 64-bit hash on every run, process, platform and endianness,
//! so a filter built on one machine answers for keys hashed on another. It is
//! a small multiply-fold hash (the 128-bit product of state and an odd
//! constant, folded to 64 bits) with a murmur3 finalizer; integers are hashed
//! by value in little-endian order and `usize` as `u64`, which is what makes
//! it platform-independent. Changing its output is a breaking change, pinned
//! by the golden values in the tests below.
//!
//! Keys that are bytes (and integers, as their bytes) go through a second
//! stable hash since format version 5, [`StableHasher::hash_key_bytes`]:
//! 16 bytes per multiply in up to four independent lanes and one
//! multiply to finish, where [`StableHasher::hash_bytes`] (version 4's,
//! kept for files of that version) chains one multiply per 8 bytes and
//! two more in its finalizer.

use std::hash::{Hash, Hasher};

const K1: u64 = 0x9e37_79b9_7f4a_7c15;
const K2: u64 = 0xd6e8_feb8_6659_fd93;

#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Format version 5's key hash ([`StableHasher::hash_key_bytes`]): the
/// secrets are splitmix64's first ten outputs from state 0, each with its
/// low bit set (docs/format.md, "From a key to a 64-bit hash").
const LANE: [u64; 8] = [
    0xe220_a839_7b1d_cdaf,
    0x6e78_9e6a_a1b9_65f5,
    0x06c4_5d18_8009_454f,
    0xf88b_b8a8_724c_81ed,
    0x1b39_896a_51a8_749b,
    0x53cb_9f0c_747e_a2eb,
    0x2c82_9abe_1f45_32e1,
    0xc584_133a_c916_ab3d,
];
const FINAL_XOR: u64 = 0x3ee5_7890_41c9_8ac3;
const FINAL_MUL: u64 = 0xf3b8_488c_368c_b0a7;

/// Little-endian u64 at `at` (the caller checked `at + 8 <= bytes.len()`).
#[inline(always)]
fn le64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// One lane: 16 bytes (`x`, `y`) and lane `i`'s secrets, one multiply,
/// its 128-bit product kept whole (the final multiply takes its low and
/// high halves as its two factors).
#[inline(always)]
fn lane(s: u64, x: u64, y: u64, i: usize) -> u128 {
    ((x ^ s ^ LANE[2 * i]) as u128).wrapping_mul((y ^ LANE[2 * i + 1]) as u128)
}

/// Version 5's hash of `bytes` from the seeded state `s` (`fmix64(seed ^
/// K2)`): 16 bytes per multiply in up to four independent lanes, then one
/// more multiply. Keys of up to 16 bytes take two multiplies in a row, 17
/// to 64 bytes two as well (their lanes run side by side).
#[inline(always)]
pub(crate) fn lanes_hash(s: u64, bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let h = if n <= 16 {
        let (x, y) = if n >= 8 {
            (le64(bytes, 0), le64(bytes, n - 8))
        } else {
            let mut pad = [0u8; 8];
            pad[..n].copy_from_slice(bytes);
            // Both factors from the key: a constant one would leave a
            // short key's low bits poorly mixed.
            let x = u64::from_le_bytes(pad);
            (x, x)
        };
        lane(s, x, y ^ n as u64, 0)
    } else if n <= 32 {
        lane(s, le64(bytes, 0), le64(bytes, 8), 0)
            ^ lane(s, le64(bytes, n - 16), le64(bytes, n - 8) ^ n as u64, 1)
    } else if n <= 64 {
        lane(s, le64(bytes, 0), le64(bytes, 8), 0)
            ^ lane(s, le64(bytes, 16), le64(bytes, 24), 1)
            ^ lane(s, le64(bytes, n - 32), le64(bytes, n - 24), 2)
            ^ lane(s, le64(bytes, n - 16), le64(bytes, n - 8) ^ n as u64, 3)
    } else {
        long_lanes(s, bytes)
    };
    fold_mul(h as u64 ^ FINAL_XOR, (h >> 64) as u64 ^ FINAL_MUL)
}

/// Keys over 64 bytes: each 64-byte block but the last feeds four lanes
/// that carry their state forward; the last 64 bytes (overlapping the
/// previous block when `n` is not a multiple of 64) close them.
#[inline(never)]
fn long_lanes(s: u64, bytes: &[u8]) -> u128 {
    let n = bytes.len();
    let mut acc = [0u64; 4];
    let mut at = 0;
    while n - at > 64 {
        for (i, a) in acc.iter_mut().enumerate() {
            let o = at + 16 * i;
            let p = lane(s, le64(bytes, o) ^ *a, le64(bytes, o + 8), i);
            *a = p as u64 ^ (p >> 64) as u64;
        }
        at += 64;
    }
    let last = n - 64;
    let mut h = 0;
    for (i, a) in acc.iter().enumerate() {
        let o = last + 16 * i;
        let len = if i == 3 { n as u64 } else { 0 };
        h ^= lane(s, le64(bytes, o) ^ a, le64(bytes, o + 8) ^ len, i);
    }
    h
}

/// The stable, optionally seeded hasher behind `insert`/`contains`/`remove`:
/// a [`Key`](crate::Key)'s bytes go through one [`Hasher::write`]
/// ([`hash_bytes`](Self::hash_bytes)); a [`ByHash`](crate::ByHash) key
/// through its `Hash` impl ([`hash_one`](Self::hash_one)).
///
/// ```
/// use std::hash::{Hash, Hasher};
/// use cuckoo_nest::StableHasher;
/// let mut h = StableHasher::with_seed(0);
/// 42u64.hash(&mut h);
/// assert_eq!(h.finish(), cuckoo_nest::StableHasher::hash_one(0, &42u64));
/// ```
#[derive(Clone, Debug)]
pub struct StableHasher {
    state: u64,
}

impl StableHasher {
    /// A hasher whose output depends on `seed`. Seed 0 is the default.
    ///
    /// ```
    /// use std::hash::Hasher;
    /// use cuckoo_nest::StableHasher;
    /// let mut h = StableHasher::with_seed(7);
    /// h.write(b"cuckoo");
    /// assert_eq!(h.finish(), StableHasher::hash_bytes(7, b"cuckoo"));
    /// ```
    #[inline]
    pub fn with_seed(seed: u64) -> Self {
        StableHasher {
            state: fmix64(seed ^ K2),
        }
    }

    /// Hashes one value with the given seed.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, StableHasher};
    /// // The same on every run and platform (`usize` hashes as `u64`).
    /// assert_eq!(StableHasher::hash_one(0, &42u64), 0x8247_0660_2e3e_3621);
    /// assert_eq!(StableHasher::hash_one(0, &42usize), 0x8247_0660_2e3e_3621);
    /// // What a filter with that seed hashes `ByHash` keys to.
    /// let filter = CuckooFilter::builder().capacity(100).seed(3).build()?;
    /// assert_eq!(StableHasher::hash_one(3, "k"), filter.hash_item(&cuckoo_nest::ByHash("k")));
    /// # Ok::<(), cuckoo_nest::BuildError>(())
    /// ```
    #[inline]
    pub fn hash_one<T: Hash + ?Sized>(seed: u64, item: &T) -> u64 {
        let mut h = StableHasher::with_seed(seed);
        item.hash(&mut h);
        h.finish()
    }

    /// The saved format's hash of a byte-string key with `seed` (what
    /// `insert`/`contains` use for every byte-string and integer
    /// [`Key`](crate::Key)):
    /// one [`Hasher::write`] of the bytes, then [`Hasher::finish`]. Unlike
    /// `hash_one(seed, bytes)`, it does not go through `<[u8] as Hash>`
    /// (which adds a length prefix), so it depends on docs/format.md alone.
    ///
    /// ```
    /// assert_eq!(cuckoo_nest::StableHasher::hash_bytes(0, b"cuckoo"), 0xbd6a_6945_5d53_3dde);
    /// ```
    #[inline]
    pub fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
        let mut h = StableHasher::with_seed(seed);
        h.write(bytes);
        h.finish()
    }

    /// Format version 5's hash of a byte-string key with `seed`: what
    /// `insert`/`contains` use for every byte-string and integer
    /// [`Key`](crate::Key) in a filter built by this version (a filter
    /// loaded from a version 4 file keeps [`hash_bytes`](Self::hash_bytes)).
    /// It reads 16 bytes per multiply in independent lanes, so a 32-byte
    /// key costs two multiplies in a row, as an 8-byte one does; its
    /// steps and constants are in docs/format.md.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, PreHashed, StableHasher};
    /// assert_eq!(StableHasher::hash_key_bytes(0, b"cuckoo"), 0x6155_89dd_0db2_8f6a);
    /// let filter = CuckooFilter::builder().capacity(100).seed(3).build()?;
    /// filter.insert(&PreHashed(StableHasher::hash_key_bytes(3, b"k")))?;
    /// assert!(filter.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn hash_key_bytes(seed: u64, bytes: &[u8]) -> u64 {
        lanes_hash(StableHasher::with_seed(seed).state, bytes)
    }

    /// The seeded state version 5's hash starts from.
    #[inline(always)]
    pub(crate) fn lanes_state(&self) -> u64 {
        self.state
    }

    #[inline(always)]
    fn absorb(&mut self, word: u64) {
        self.state = fold_mul(self.state ^ word, K1);
    }
}

impl Hasher for StableHasher {
    #[inline]
    fn finish(&self) -> u64 {
        fmix64(self.state)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.absorb(u64::from_le_bytes(c.try_into().expect("8-byte chunk")));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        // The length goes in too, so "ab" and "ab\0" differ.
        self.absorb(u64::from_le_bytes(tail) ^ ((bytes.len() as u64) << 56));
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.absorb(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.absorb(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.absorb(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.absorb(i);
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.absorb(i as u64);
        self.absorb((i >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.absorb(i as u64);
    }
}

/// Maps `x` uniformly onto `0..n` with a multiply instead of a division
/// (Lemire's "fast range"); uses the high bits of `x`.
#[inline(always)]
pub(crate) fn fast_range(x: u64, n: u64) -> u64 {
    (((x as u128) * (n as u128)) >> 64) as u64
}

/// An odd constant and its inverse modulo 2^64, for [`spread`].
const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;
// Only the test hooks (feature `internals`) and unit tests invert the hash.
#[cfg(any(test, feature = "internals"))]
const SPREAD_INV: u64 = {
    // Newton's iteration doubles the correct low bits each step.
    let mut inv = SPREAD;
    let mut k = 0;
    while k < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(SPREAD.wrapping_mul(inv)));
        k += 1;
    }
    inv
};

/// A cheap bijection of the caller's 64 bits (xor-shift, multiply,
/// xor-shift), applied to every hash before it is split, so that weak
/// hashes (sequential ids passed as `PreHashed`, say) still spread
/// over every bucket and fingerprint: high bits reach the fingerprint, low
/// bits reach the bucket index. A bijection, so distinct hashes stay
/// distinct and `unsplit` can invert it.
#[inline(always)]
pub(crate) fn spread(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(SPREAD);
    x ^ (x >> 32)
}

// Only the test hooks (feature `internals`) and unit tests invert the hash.
#[cfg(any(test, feature = "internals"))]
/// The inverse of [`spread`] (`x ^= x >> 32` is its own inverse).
pub(crate) fn unspread(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(SPREAD_INV);
    x ^ (x >> 32)
}

/// Splits a 64-bit hash into a fingerprint in `1..=fp_max` (0 marks an empty
/// slot) and the primary bucket in `0..buckets`. The bucket comes from the
/// high bits, the fingerprint from the low 32, so the two are independent.
#[inline(always)]
pub(crate) fn split(hash: u64, buckets: usize, fp_max: u32) -> (usize, u32) {
    let hash = spread(hash);
    let i1 = fast_range(hash, buckets as u64) as usize;
    let low = hash as u32 as u64;
    let fp = ((low * fp_max as u64) >> 32) as u32 + 1;
    (i1, fp)
}

// Only the test hooks (feature `internals`) and unit tests invert the hash.
#[cfg(any(test, feature = "internals"))]
/// A hash that [`split`] maps to primary bucket `i1` and fingerprint `fp`
/// (the `k`-th of several such hashes), or `None` if `k` runs past the
/// hashes of that bucket. Its inverse, kept beside it, so tests and models
/// can aim several items at one bucket pair with one fingerprint.
pub(crate) fn unsplit(i1: usize, fp: u32, buckets: usize, fp_max: u32, k: u32) -> Option<u64> {
    if i1 >= buckets || fp == 0 || fp > fp_max {
        return None;
    }
    // The low 32 bits: the smallest value whose scaled fingerprint is fp.
    let low = ((fp as u128 - 1) << 32).div_ceil(fp_max as u128) as u64;
    // The high bits: inside the range fast_range maps to i1.
    let start = ((i1 as u128) << 64).div_ceil(buckets as u128);
    let hi = (start >> 32) as u64 + 1 + k as u64;
    let hash = unspread(hi.checked_mul(1 << 32)? | low);
    (split(hash, buckets, fp_max) == (i1, fp)).then_some(hash)
}

/// The other bucket of a fingerprint: `alt(i) = (H(fp) - i) mod m`.
///
/// An involution for every bucket count `m` (`alt(alt(i)) = i`), computed
/// from the bucket index and fingerprint alone, so the table needs no
/// power-of-two size (paper section 3.1 uses XOR, which does). No division:
/// `H(fp)` is already in `0..m`, so one conditional add wraps it.
#[inline(always)]
pub(crate) fn alt_index(i: usize, fp: u32, buckets: usize) -> usize {
    let h = fast_range((fp as u64).wrapping_mul(K1) ^ K2, buckets as u64) as usize;
    if h >= i {
        h - i
    } else {
        h + buckets - i
    }
}

// Where a hash's two buckets are, for a table: [`Plain`] is every
// fixed-size filter's addressing, the primary bucket a fast range of the
// hash onto `0..m`, the other `(H(fp) - i) mod m` ([`split`],
// [`alt_index`]); a growable filter's generation is addressed by `Nested`
// (`table/nested.rs`). Here, beside the arithmetic, because every lookup
// and insert passes through it.

/// How a table finds a hash's buckets and a fingerprint's other bucket.
///
/// # Safety
/// The table's lookup path reads buckets without bounds checks: for a
/// table of `buckets` buckets, [`Self::locate`] must return a bucket below
/// `buckets`, and [`Self::alt`] must map every bucket below `buckets` to
/// one below `buckets`, and be an involution (`alt(alt(i, fp), fp) == i`)
/// for every fingerprint [`Self::locate`] returns.
pub(crate) unsafe trait Addressing: Send + Sync + 'static {
    /// The primary bucket and the fingerprint (never 0) of `hash`.
    fn locate(&self, hash: u64, buckets: usize, fp_max: u32) -> (usize, u32);

    /// The other bucket of a fingerprint `fp` stored in bucket `i`.
    fn alt(&self, i: usize, fp: u32, buckets: usize) -> usize;

    /// Both buckets and the fingerprint of `hash`: [`Self::locate`], then
    /// [`Self::alt`], unless an addressing has a shorter way (a lookup's
    /// path).
    #[inline(always)]
    fn locate_pair(&self, hash: u64, buckets: usize, fp_max: u32) -> (usize, usize, u32) {
        let (i1, fp) = self.locate(hash, buckets, fp_max);
        (i1, self.alt(i1, fp, buckets), fp)
    }
}

/// The fixed-size filters' addressing; no state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Plain;

// SAFETY: `split` returns a fast range onto `0..buckets` (`(x * m) >> 64 <
// m`) and a fingerprint in `1..=fp_max`; `alt_index` is `(h - i) mod m`
// with `h, i < m`, an involution (tested below).
unsafe impl Addressing for Plain {
    #[inline(always)]
    fn locate(&self, hash: u64, buckets: usize, fp_max: u32) -> (usize, u32) {
        split(hash, buckets, fp_max)
    }

    #[inline(always)]
    fn alt(&self, i: usize, fp: u32, buckets: usize) -> usize {
        alt_index(i, fp, buckets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_values_are_stable() {
        // If one of these changes, saved filters stop matching: a breaking change.
        let got = [
            StableHasher::hash_one(0, &0u64),
            StableHasher::hash_one(0, &42u64),
            StableHasher::hash_one(7, &42u64),
            StableHasher::hash_one(0, "cuckoo"),
            StableHasher::hash_one(0, &[1u8, 2, 3][..]),
            StableHasher::hash_one(0, &42usize),
        ];
        let pinned = golden();
        assert_eq!(got, pinned, "stable hash output changed");
    }

    fn golden() -> [u64; 6] {
        [
            0x2651_f96d_b940_9ea1,
            0x8247_0660_2e3e_3621,
            0x333d_c113_e93f_c164,
            0x26ba_5f89_ec3a_bd77,
            0x7a09_8350_cc4a_21cb,
            0x8247_0660_2e3e_3621,
        ]
    }

    #[test]
    fn hash_bytes_is_one_write_and_pinned() {
        let mut h = StableHasher::with_seed(5);
        h.write(b"abc");
        assert_eq!(StableHasher::hash_bytes(5, b"abc"), h.finish());
        // Pinned like the others: docs/format.md quotes the first.
        assert_eq!(
            StableHasher::hash_bytes(0, b"cuckoo"),
            0xbd6a_6945_5d53_3dde
        );
        assert_ne!(
            StableHasher::hash_bytes(0, b"ab"),
            StableHasher::hash_bytes(0, b"ab\0")
        );
    }

    #[test]
    fn lanes_hash_is_pinned() {
        // Format version 5's key hash: if one of these changes, files of
        // version 5 stop finding their keys. docs/format.md quotes them.
        let got: Vec<u64> = [
            &b""[..],
            b"cuckoo",
            &42u64.to_le_bytes(),
            b"0123456789abcdef",
            b"0123456789abcdef0123456789abcdef",
            &[7u8; 64],
            &[7u8; 100],
            &(0..200u8).collect::<Vec<u8>>(),
        ]
        .iter()
        .map(|k| StableHasher::hash_key_bytes(0, k))
        .collect();
        assert_eq!(got, LANES_GOLDEN, "version 5 key hash output changed");
        assert_ne!(
            StableHasher::hash_key_bytes(1, b"cuckoo"),
            StableHasher::hash_key_bytes(0, b"cuckoo")
        );
    }

    /// Also computed by an independent implementation of docs/format.md's
    /// steps (Python, while writing them).
    const LANES_GOLDEN: [u64; 8] = [
        0x2d50_311c_99d6_9c14,
        0x6155_89dd_0db2_8f6a,
        0x1774_9b0f_5d70_28dd,
        0x7938_7584_e844_60cb,
        0x6f92_f5c8_8534_b8ad,
        0x1ad2_ba3a_4f45_d462,
        0xb236_fcda_51ea_cbe3,
        0x11c2_b33a_2fe7_2c8b,
    ];

    // Not under Miri: 20,000 hashes of up to 200 bytes took 730 s there,
    // and lanes_hash is safe code (slice reads, multiplies) with nothing
    // for Miri to find that a native run does not; lanes_hash_is_pinned
    // runs every branch of it under Miri (under 8 bytes, 8 to 16, 17 to
    // 32 in two lanes, 33 to 64 in four, the loop over longer keys).
    #[test]
    #[cfg_attr(
        miri,
        ignore = "20,000 hashes: minutes under Miri; safe code, every branch in lanes_hash_is_pinned"
    )]
    fn lanes_hash_tells_every_length_and_byte_apart() {
        // Zero padding, overlapping reads and lanes: every prefix of one
        // buffer (lengths 0 to 200), and every one-byte change of each,
        // hashes differently.
        let buf: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        let mut seen = std::collections::HashSet::new();
        for n in 0..=buf.len() {
            assert!(
                seen.insert(StableHasher::hash_key_bytes(0, &buf[..n])),
                "{n}"
            );
            let mut k = buf[..n].to_vec();
            for i in 0..n {
                k[i] ^= 0x80;
                assert!(seen.insert(StableHasher::hash_key_bytes(0, &k)), "{n} {i}");
                k[i] ^= 0x80;
            }
        }
        // Trailing zeros are part of the key.
        assert_ne!(
            StableHasher::hash_key_bytes(0, b"ab"),
            StableHasher::hash_key_bytes(0, b"ab\0")
        );
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 10^5 to 10^6 hashes: too slow under Miri"
    )]
    fn quality_avalanche_of_lanes_hash() {
        // Every path: zero-padded, overlapping reads, two and four lanes,
        // and the long loop. Not 1 or 2 bytes: 256 or 65536 keys are too
        // few for the bound (an ideal hash fails it at 8 bits too).
        for len in [3usize, 4, 7, 8, 12, 16, 20, 32, 48, 64, 65, 100] {
            assert_avalanche(len * 8, 4000, |k| StableHasher::hash_key_bytes(0, k));
        }
        assert_avalanche(64, 4000, |k| StableHasher::hash_key_bytes(9, k));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 10^5 to 10^6 hashes: too slow under Miri"
    )]
    fn quality_bucket_distribution_of_lanes_hash() {
        let n = 1024 * 64u64;
        let h = |seed, k: &[u8]| StableHasher::hash_key_bytes(seed, k);
        assert_uniform(
            (0..n).map(|k| h(0, &k.to_le_bytes())),
            "sequential u64 keys",
        );
        assert_uniform(
            (0..n).map(|k| h(0, &(k << 32).to_le_bytes())),
            "u64 keys differing in their high bits",
        );
        assert_uniform(
            (0..n).map(|k| h(0, &(k as u32).to_le_bytes())),
            "sequential u32 keys",
        );
        for len in [16usize, 32, 64] {
            assert_uniform(
                (0..n).map(|k| h(3, format!("{k:0>len$}").as_bytes())),
                "zero-padded decimal keys",
            );
            assert_uniform(
                (0..n).map(|k| {
                    let mut key = vec![0u8; len];
                    key[len - 8..].copy_from_slice(&k.to_be_bytes());
                    h(0, &key)
                }),
                "counters in a key's last bytes",
            );
        }
        assert_uniform(
            (0..n).map(|k| h(3, format!("user:{k}").as_bytes())),
            "string keys",
        );
    }

    /// xorshift64*: test inputs, reproducible.
    fn rng(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Strict avalanche: flipping input bit `i` flips output bit `j` with
    /// probability 1/2, for every (i, j). `inputs` samples, each cell's
    /// rate within 0.04 of 0.5 (five standard deviations at 4000 samples).
    fn assert_avalanche(input_bits: usize, samples: usize, hash: impl Fn(&[u8]) -> u64) {
        let bytes = input_bits / 8;
        let mut flips = vec![[0u32; 64]; input_bits];
        let mut s = 0x1234_5678_9abc_def1u64;
        let mut key = vec![0u8; bytes];
        for _ in 0..samples {
            for b in key.iter_mut() {
                *b = rng(&mut s) as u8;
            }
            let base = hash(&key);
            for (i, row) in flips.iter_mut().enumerate() {
                key[i / 8] ^= 1 << (i % 8);
                let d = base ^ hash(&key);
                key[i / 8] ^= 1 << (i % 8);
                for (j, c) in row.iter_mut().enumerate() {
                    *c += (d >> j) as u32 & 1;
                }
            }
        }
        for (i, row) in flips.iter().enumerate() {
            for (j, &c) in row.iter().enumerate() {
                let p = c as f64 / samples as f64;
                assert!(
                    (p - 0.5).abs() < 0.04,
                    "input bit {i} flips output bit {j} with p = {p:.3} ({input_bits}-bit input)"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 10^5 to 10^6 hashes: too slow under Miri"
    )]
    fn quality_avalanche_of_integer_keys() {
        assert_avalanche(64, 4000, |k| {
            StableHasher::hash_one(0, &u64::from_le_bytes(k.try_into().unwrap()))
        });
        assert_avalanche(32, 4000, |k| {
            StableHasher::hash_one(7, &u32::from_le_bytes(k.try_into().unwrap()))
        });
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 10^5 to 10^6 hashes: too slow under Miri"
    )]
    fn quality_avalanche_of_byte_keys() {
        for len in [3usize, 8, 13, 32] {
            assert_avalanche(len * 8, 4000, |k| StableHasher::hash_bytes(0, k));
        }
    }

    /// Chi-square of how `n` hashes fill `m` buckets (primary and
    /// alternate) and `2^8 - 1` fingerprint values, against the 99.9%
    /// bound (normal approximation of the chi-square quantile).
    fn assert_uniform(hashes: impl Iterator<Item = u64>, what: &str) {
        let (m, fp_max) = (1024usize, 255u32);
        let (mut primary, mut alternate, mut fps) =
            (vec![0f64; m], vec![0f64; m], vec![0f64; fp_max as usize]);
        let mut n = 0.0;
        for h in hashes {
            let (i1, fp) = split(h, m, fp_max);
            primary[i1] += 1.0;
            alternate[alt_index(i1, fp, m)] += 1.0;
            fps[fp as usize - 1] += 1.0;
            n += 1.0;
        }
        for (name, counts) in [
            ("primary", primary),
            ("alternate", alternate),
            ("fingerprint", fps),
        ] {
            let e = n / counts.len() as f64;
            let chi2: f64 = counts.iter().map(|&o| (o - e) * (o - e) / e).sum();
            let df = counts.len() as f64 - 1.0;
            let bound = df + 3.09 * (2.0 * df).sqrt();
            assert!(
                chi2 < bound,
                "{what}: {name} chi-square {chi2:.0} over bound {bound:.0}"
            );
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "statistics over 10^5 to 10^6 hashes: too slow under Miri"
    )]
    fn quality_bucket_distribution_chi_square() {
        let n = 1024 * 64u64;
        assert_uniform(
            (0..n).map(|k| StableHasher::hash_one(0, &k)),
            "sequential u64",
        );
        assert_uniform(
            (0..n).map(|k| StableHasher::hash_one(0, &(k << 32))),
            "u64 keys differing in their high bits",
        );
        // What `insert(&k)` hashes a u64 to since keys are their bytes.
        assert_uniform(
            (0..n).map(|k| StableHasher::hash_bytes(0, &k.to_le_bytes())),
            "sequential u64 as little-endian bytes",
        );
        assert_uniform(
            (0..n).map(|k| StableHasher::hash_bytes(0, &(k << 32).to_le_bytes())),
            "u64 bytes differing in their high bits",
        );
        assert_uniform(
            (0..n).map(|k| StableHasher::hash_bytes(3, format!("user:{k}").as_bytes())),
            "string keys",
        );
        let mut s = 99u64;
        assert_uniform(
            (0..n).map(|_| StableHasher::hash_one(0, &rng(&mut s))),
            "random u64",
        );
    }

    #[test]
    fn usize_and_u64_hash_alike() {
        // What makes the hash platform-independent for usize keys.
        assert_eq!(
            StableHasher::hash_one(0, &42usize),
            StableHasher::hash_one(0, &42u64)
        );
    }

    #[test]
    fn alt_index_is_an_involution_for_any_bucket_count() {
        for m in [1usize, 2, 3, 5, 7, 100, 1023, 1 << 20, (1 << 20) + 7] {
            for fp in [1u32, 2, 255, 65535, u32::MAX] {
                for i in [0, m / 3, m / 2, m - 1] {
                    let j = alt_index(i, fp, m);
                    assert!(j < m);
                    assert_eq!(alt_index(j, fp, m), i, "m={m} fp={fp} i={i}");
                }
            }
        }
    }

    #[test]
    fn spread_is_a_bijection() {
        assert_eq!(SPREAD.wrapping_mul(SPREAD_INV), 1);
        for x in [0u64, 1, 2, 42, u64::MAX, 1 << 63, 0xdead_beef_0000_0001] {
            assert_eq!(unspread(spread(x)), x);
        }
    }

    // Not under Miri (40 s there): a statistic over 4096 calls of split,
    // safe arithmetic; under Miri split_ranges checks what the unsafe
    // Addressing contract needs of it (a bucket below the count, a
    // fingerprint in 1..=fp_max) and unsplit_inverts_split runs it too.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "a statistic over safe arithmetic; split runs in split_ranges"
    )]
    fn sequential_hashes_spread_over_buckets_and_fingerprints() {
        // What a user passing ids as "hashes" gets: 64 buckets all used,
        // fingerprints all distinct.
        let (m, fp_max) = (64usize, 4095u32);
        let mut seen_buckets = vec![0u32; m];
        let mut fps = std::collections::HashSet::new();
        for id in 0..4096u64 {
            let (i, fp) = split(id, m, fp_max);
            seen_buckets[i] += 1;
            fps.insert(fp);
        }
        assert!(
            seen_buckets.iter().all(|&c| (32..=96).contains(&c)),
            "{seen_buckets:?}"
        );
        assert!(fps.len() > 2500, "{} distinct fingerprints", fps.len());
    }

    #[test]
    fn unsplit_inverts_split() {
        for (m, fp_max) in [(1usize, 255u32), (4, 65535), (32, 255), (1000, u32::MAX)] {
            for i in [0, m / 2, m - 1] {
                for fp in [1, 2, fp_max / 3, fp_max] {
                    for k in 0..3 {
                        let h = unsplit(i, fp, m, fp_max, k).expect("small tables");
                        assert_eq!(split(h, m, fp_max), (i, fp), "m={m} i={i} fp={fp}");
                    }
                }
            }
        }
        assert_eq!(unsplit(4, 1, 4, 255, 0), None);
        assert_eq!(unsplit(0, 0, 4, 255, 0), None);
    }

    #[test]
    fn split_ranges() {
        for h in [0u64, 1, u64::MAX, 0x8000_0000_0000_0000, 0xffff_ffff] {
            for (m, fp_max) in [(1usize, 255u32), (10, 65535), (1 << 30, u32::MAX)] {
                let (i, fp) = split(h, m, fp_max);
                assert!(i < m);
                assert!(fp >= 1 && fp <= fp_max);
            }
        }
    }
}
