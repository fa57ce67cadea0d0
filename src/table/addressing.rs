//! Where a hash's two buckets are: the table's addressing.
//!
//! [`Plain`] is every fixed-size filter's: the primary bucket is a fast
//! range of the hash onto `0..m`, the other `(H(fp) - i) mod m`
//! ([`crate::hash::split`], [`crate::hash::alt_index`]). [`Nested`] is a
//! growable filter's generation (`grow/`): the same pair of *local* buckets
//! inside one of `2^depth` interleaved blocks, so a table twice as large
//! holds every pair of the smaller one, split in two by one bit the
//! fingerprint gives up (docs/design.md, "Growth").

use crate::hash::{alt_index, fast_range, split, spread};

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
}

/// The fixed-size filters' addressing; no state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Plain;

// SAFETY: `split` returns a fast range onto `0..buckets` (`(x * m) >> 64 <
// m`) and a fingerprint in `1..=fp_max`; `alt_index` is `(h - i) mod m`
// with `h, i < m`, an involution (tested in hash.rs).
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

/// A growable filter's generation `depth`: `local << depth` buckets,
/// bucket `(l << depth) | block` being local bucket `l` of block `block`.
///
/// A hash gives a local primary bucket `l1` (a fast range onto
/// `0..local`), a *key* of `key_bits` bits (never 0) and `spare` bits `x`.
/// The block is the top `depth` bits of `x`; the fingerprint stored is the
/// key followed by the other `spare - depth` bits of `x`. The other bucket
/// stays in the block: local `alt_index(l, key, local)`. So a fingerprint
/// stored in bucket `i` of generation `depth` moves, one generation up, to
/// bucket `2i + b` (in the same block pair), `b` being the top bit it still
/// keeps of `x`, which it then drops ([`Nested::split`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nested {
    pub(crate) depth: u32,
    pub(crate) local: usize,
    pub(crate) key_bits: u32,
    pub(crate) spare: u32,
}

/// Mixes a spread hash into the spare bits, independently of the bits the
/// bucket and key come from.
const SPARE_MIX: u64 = 0xd6e8_feb8_6659_fd93;

impl Nested {
    /// Bits of `x` the stored fingerprints keep below the key.
    #[inline(always)]
    pub(crate) fn kept(&self) -> u32 {
        self.spare - self.depth
    }

    /// The stored fingerprint's width.
    pub(crate) fn width(&self) -> u32 {
        self.key_bits + self.kept()
    }

    /// Bucket `i`'s and stored fingerprint `fp`'s place one generation up:
    /// `(2i + b, fp without b)`, `b` being the top bit `fp` keeps of `x`.
    /// The caller checked `kept() > 0`.
    #[inline]
    pub(crate) fn split(&self, i: usize, fp: u32) -> (usize, u32) {
        let kept = self.kept();
        debug_assert!(kept > 0, "a generation with no spare bits left has no next");
        let b = (fp >> (kept - 1)) & 1;
        let low = fp & ((1 << (kept - 1)) - 1);
        let key = fp >> kept;
        let upper = (i >> self.depth) << (self.depth + 1);
        let block = i & ((1 << self.depth) - 1);
        (upper | (block << 1) | b as usize, (key << (kept - 1)) | low)
    }
}

// SAFETY: `locate`: `l1 < local` (a fast range onto `0..local`) and `block
// < 2^depth`, so `(l1 << depth) | block < local << depth == buckets` (the
// grow module builds every generation's table with that many buckets). `alt`
// keeps the block bits of `i` and replaces `i >> depth < local` by
// `alt_index(.., local) < local`: below `buckets` again, and an involution
// because `alt_index` is one and the key (`fp >> kept`) is the same both
// ways. The key is never 0: it is `1..=2^key_bits - 1`.
unsafe impl Addressing for Nested {
    #[inline(always)]
    fn locate(&self, hash: u64, _buckets: usize, _fp_max: u32) -> (usize, u32) {
        let h = spread(hash);
        let l1 = fast_range(h, self.local as u64) as usize;
        let key_max = (1u64 << self.key_bits) - 1;
        let key = (((h as u32 as u64) * key_max) >> 32) as u32 + 1;
        let x = (h.wrapping_mul(SPARE_MIX) >> (64 - self.spare)) as u32;
        let kept = self.kept();
        let block = (x >> kept) as usize;
        let low = x & ((1u32 << kept) - 1);
        ((l1 << self.depth) | block, (key << kept) | low)
    }

    #[inline(always)]
    fn alt(&self, i: usize, fp: u32, _buckets: usize) -> usize {
        let key = fp >> self.kept();
        let l = alt_index(i >> self.depth, key, self.local);
        (l << self.depth) | (i & ((1 << self.depth) - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(depth: u32) -> Nested {
        Nested {
            depth,
            local: 1000,
            key_bits: 12,
            spare: 7,
        }
    }

    #[test]
    fn nested_alt_is_an_involution_inside_the_table() {
        for depth in 0..=7 {
            let a = generation(depth);
            let buckets = a.local << depth;
            for hash in (0..2000u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) {
                let (i1, fp) = a.locate(hash, buckets, 0);
                assert!(i1 < buckets && fp != 0);
                assert!(fp >> a.kept() != 0, "the key is never 0");
                let i2 = a.alt(i1, fp, buckets);
                assert!(i2 < buckets);
                assert_eq!(a.alt(i2, fp, buckets), i1);
            }
        }
    }

    #[test]
    fn a_split_lands_where_the_next_generation_looks() {
        for depth in 0..7 {
            let (a, next) = (generation(depth), generation(depth + 1));
            let (m, m2) = (a.local << depth, a.local << (depth + 1));
            for hash in (0..5000u64).map(|k| k.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ k) {
                let (i1, fp) = a.locate(hash, m, 0);
                let i2 = a.alt(i1, fp, m);
                let (j1, fp2) = next.locate(hash, m2, 0);
                let j2 = next.alt(j1, fp2, m2);
                // From either bucket, the split lands in the next
                // generation's pair, with its fingerprint.
                for i in [i1, i2] {
                    let (j, f) = a.split(i, fp);
                    assert_eq!(f, fp2, "hash {hash:#x} depth {depth}");
                    assert!(j == j1 || j == j2, "hash {hash:#x} depth {depth}");
                }
            }
        }
    }
}
