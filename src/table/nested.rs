//! A growable filter's addressing, [`Nested`], and the table operations
//! only a growth step's writers use. A generation (`grow/`)
//! holds the same pair of *local* buckets inside one of `2^depth` blocks,
//! so a table twice as large holds every pair of the smaller one, split in
//! two by one bit the fingerprint gives up (docs/design.md, "Growth"). The
//! [`Addressing`] trait and the fixed-size filters' [`Plain`](crate::hash::Plain) are in
//! `hash.rs`, on the lookup's path.

use super::{Addressing, Table};
use super::{Copies, CopiesHeld, Placed};
use crate::hash::{alt_index, fast_range, spread};
use crate::layout::{Bucket, Layout};

mod chain;

/// A growable filter's generation `depth`: `2^depth` blocks of `local`
/// buckets, bucket `block * local + l` being local bucket `l` of `block`.
///
/// A hash gives a local primary bucket `l1` (a fast range onto
/// `0..local`), a *key* of `key_bits` bits (never 0) and `spare` bits `x`.
/// The block is the low `depth` bits of `x`; the fingerprint stored is the
/// key, with the other `spare - depth` bits of `x` above it. The other
/// bucket stays in the block: local `alt_index(l, key, local)`. So a
/// fingerprint stored in bucket `i` of generation `depth` moves, one
/// generation up, to bucket `i + b * buckets` (block `block + b * 2^depth`,
/// the same local bucket), `b` being the lowest bit it still keeps of `x`,
/// which it then drops ([`Nested::split`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nested {
    pub(crate) depth: u32,
    pub(crate) local: usize,
    pub(crate) key_bits: u32,
    pub(crate) spare: u32,
    /// Block bits the chains before this one spent (docs/design.md, "Growth
    /// past the spare bits"): 0 for the first chain. Generation `depth` of
    /// this chain has `2^(base + depth)` blocks, named by bits `0..base +
    /// depth` of `x`.
    pub(crate) base: u32,
    /// `2^key_bits - 1`: the key's bits of a stored fingerprint.
    key_mask: u32,
    /// The first chain's key bits: the alternate bucket depends on them
    /// alone, so every chain pairs an item's two buckets alike.
    alt_mask: u32,
    /// `2^(base + depth) - 1`: the block's bits of `x`.
    block_mask: u32,
    /// `base + depth`: where the stored spare bits start in `x`.
    shift: u32,
    /// `2^first_spare - 1`: the first chain's bits of `x` from a spread
    /// hash (a field, not computed from `spare` on every lookup).
    spare_mask: u32,
    /// The first chain's key and spare bits (equal to this chain's in the
    /// first chain, which takes nothing from a second mix).
    first_key_bits: u32,
    first_spare: u32,
    /// `2^first_key_bits - 1`, as a factor of the key's fast range.
    first_key_mask: u32,
    /// True for a chain after the first: its keys and spare bits take
    /// more than the spread hash's first bits (a field: one test on the
    /// lookup's path).
    chained: bool,
    /// Chains before this one ([`Nested::chained`]).
    chain: u32,
    /// `floor(2^64 / local) + 1`, so `i / local` is the high word of `i *
    /// recip` for every bucket `i` (see [`Nested::block_of`]); 0 where that
    /// does not hold, and `alt` divides.
    recip: u64,
}

/// Where the spare bits start in a spread hash: bits 32 and up, which the
/// key (a fast range of the low 32 bits: their top bits decide it) does not
/// use, and which decide the local bucket (a fast range of all 64 bits:
/// their top bits decide it) only below its `64 - 32 = 32`nd bit, so for
/// any block of fewer than 2^25 buckets, not at all. A shift, not another
/// multiply: the block is on the path to the bucket's address.
const SPARE_SHIFT: u32 = 32;

/// What a later chain's second mix of the spread hash is salted with.
const CHAIN_MIX: u64 = 0x6a09_e667_f3bc_c908;

impl Nested {
    /// Generation `depth` of `local`-bucket blocks, keys of `key_bits`
    /// bits and `spare` spare bits (`depth <= spare`, `key_bits + spare <=
    /// 32`, `spare` from 1 to 31).
    pub(crate) fn new(depth: u32, local: usize, key_bits: u32, spare: u32) -> Self {
        debug_assert!(depth <= spare && (1..32).contains(&spare) && key_bits + spare <= 32);
        Self::build(depth, local, key_bits, spare, 0, key_bits, spare)
    }

    /// The chains before this generation's: 0 for the first.
    pub(crate) fn chain(&self) -> u32 {
        self.chain
    }

    /// `item`, as this chain sees it, as the earlier chain of `older` (one
    /// of its generations) sees it: a later chain's key and spare bits
    /// extend the first chain's (`key_and_spare`), so an earlier chain's
    /// are their low bits.
    pub(crate) fn narrow(&self, item: NestedItem, older: &Nested) -> NestedItem {
        debug_assert!(older.chain <= self.chain && older.local == self.local);
        let bits = older.base + older.spare;
        NestedItem {
            local: item.local,
            key: item.key & older.key_mask,
            x: item.x & 1u32.checked_shl(bits).map_or(u32::MAX, |b| b - 1),
        }
    }

    /// `base + depth`: the table has `2^level` blocks of `local` buckets.
    pub(crate) fn level(&self) -> u32 {
        self.base + self.depth
    }

    fn build(
        depth: u32,
        local: usize,
        key_bits: u32,
        spare: u32,
        base: u32,
        first_key_bits: u32,
        first_spare: u32,
    ) -> Self {
        let total = base + spare;
        // `floor(i * recip / 2^64)` is `floor(i / local)` when the error,
        // `i * (recip - 2^64 / local) / 2^64 < i / 2^64`, stays under the
        // least distance `1 / local` from a fraction `i / local` to the next
        // integer: when `i * local < 2^64`, so for every bucket `i < local <<
        // (base + spare)` once `local^2 << (base + spare) < 2^64`. (`local ==
        // 1`: `recip` would be 2^64; the division is cheap to skip.)
        let fits =
            local > 1 && total < 64 && (local as u128 * local as u128) << total < (1u128 << 64);
        let mask = |bits: u32| ((1u64 << bits) - 1) as u32;
        Nested {
            depth,
            local,
            key_bits,
            spare,
            base,
            key_mask: mask(key_bits),
            alt_mask: mask(first_key_bits),
            block_mask: mask(base + depth),
            shift: base + depth,
            spare_mask: mask(first_spare),
            first_key_bits,
            first_spare,
            first_key_mask: mask(first_key_bits),
            chained: key_bits != first_key_bits || base != 0,
            chain: 0,
            recip: if fits {
                (u64::MAX / local as u64) + 1
            } else {
                0
            },
        }
    }

    /// Buckets of this generation's table: `local << (base + depth)`.
    pub(crate) fn buckets(&self) -> usize {
        self.local << (self.base + self.depth)
    }

    /// `i / local`, by a multiply where [`Nested::recip`] allows: a
    /// displacement search takes an `alt` per bucket it visits.
    #[inline(always)]
    fn block_of(&self, i: usize) -> usize {
        if self.recip != 0 {
            ((i as u128 * self.recip as u128) >> 64) as usize
        } else {
            i / self.local
        }
    }

    /// The generation a configuration describes: `growth` over `buckets`
    /// buckets (`local << depth` of them: a validated header or a built
    /// configuration).
    ///
    /// For a later chain (`growth.chain > 0`), `growth` gives that chain's
    /// key and spare bits: the first chain's are [`CHAIN_KEY_BITS`](chain::CHAIN_KEY_BITS) fewer
    /// key bits per chain and [`CHAIN_SMALLER`](chain::CHAIN_SMALLER) fewer spare bits, each
    /// chain started from the last one's final generation. A header's
    /// growth is checked first ([`Nested::chain_fits`]).
    pub(crate) fn of(growth: crate::config::Growth, buckets: usize) -> Self {
        if growth.chain == 0 {
            return Nested::new(
                growth.depth,
                buckets >> growth.depth,
                growth.key_bits,
                growth.spare,
            );
        }
        let level = Self::chain_start(1, growth).base + growth.depth;
        Self::chain_start(buckets >> level, growth).at_depth(growth.depth)
    }

    /// True if a stored fingerprint could come from a writer: its key is
    /// never 0 ([`Nested::item`]). Loading refuses a table where it is not.
    pub(crate) fn is_written(&self, fp: u32) -> bool {
        fp & self.key_mask != 0
    }

    /// The key of a stored fingerprint: what items whose fingerprints
    /// differ only in spare bits share, and with it their bucket pair
    /// until the spare bits that tell them apart are spent.
    pub(crate) fn key(&self, fp: u32) -> u32 {
        fp & self.key_mask
    }

    /// The next generation: one doubling more.
    pub(crate) fn next(&self) -> Self {
        self.at_depth(self.depth + 1)
    }

    /// The stored fingerprint's width.
    pub(crate) fn width(&self) -> u32 {
        self.key_bits + self.spare - self.depth
    }

    /// Bucket `i`'s and stored fingerprint `fp`'s place one generation up:
    /// `(i + b * buckets, fp without b)`, `b` being the lowest bit of `x`
    /// that `fp` keeps. The caller checked `depth < spare`.
    #[inline]
    pub(crate) fn split(&self, i: usize, fp: u32) -> (usize, u32) {
        debug_assert!(
            self.depth < self.spare,
            "a generation with no spare bits left has no next"
        );
        let key = fp & self.key_mask;
        let rest = fp >> self.key_bits;
        let b = (rest & 1) as usize;
        let buckets = self.buckets();
        (i + b * buckets, key | ((rest >> 1) << self.key_bits))
    }

    /// The key and the spare bits `x` of a spread hash. A later chain
    /// extends the first chain's key and `x` with bits of a second mix of
    /// the hash, so its item agrees with the first chain's on every bit
    /// that one uses.
    #[inline(always)]
    fn key_and_spare(&self, h: u64) -> (u32, u32) {
        let (key, x) = self.first_key_and_spare(h);
        if !self.chained {
            return (key, x);
        }
        let more = spread(h ^ CHAIN_MIX);
        let extra = self.key_bits - self.first_key_bits;
        let key = key | ((more as u32) & ((1u64 << extra) - 1) as u32) << self.first_key_bits;
        let bits = self.base + self.spare - self.first_spare;
        let x = x | (((more >> 32) as u32) & ((1u64 << bits) - 1) as u32) << self.first_spare;
        (key, x)
    }

    /// The first chain's key and spare bits of a spread hash: all of them
    /// in the first chain, the low bits of a later chain's.
    #[inline(always)]
    fn first_key_and_spare(&self, h: u64) -> (u32, u32) {
        let key = (((h as u32 as u64) * self.first_key_mask as u64) >> 32) as u32 + 1;
        let x = ((h >> SPARE_SHIFT) as u32) & self.spare_mask;
        (key, x)
    }
}

// SAFETY: `locate` and `locate_pair`: `block <= 2^(base + depth) - 1` and
// `l1, l2 < local` (a fast range onto `0..local`, and `alt_index` onto
// `0..local`), so `block * local + l < local << (base + depth) == buckets`
// (the grow module builds every generation's table, and loads every saved
// one, with `Nested::buckets` buckets: a header's bucket count is checked to
// be a multiple of `2^(base + depth)`, `Nested::of` and `chain_fits`).
// `first_chain_pair` (a first chain's lookup, `contains_in_first_chain`)
// is `place(item(hash))` less two steps that change nothing there: no
// second mix (`chained` is false) and no mask on the key (`alt_mask` is
// the key's own mask), so it returns `locate_pair`'s buckets (a test below
// compares the two). `alt`: `i < buckets` gives `block = i
// / local < 2^(base + depth)` and `l = i % local < local`, and the
// result is `block * local + alt_index(l, ..) < buckets` again; an
// involution because `alt_index` is one and the key (`fp & key_mask`) is the
// same both ways. The key is never 0: it is `1..=2^key_bits - 1`.
unsafe impl Addressing for Nested {
    #[inline(always)]
    fn locate(&self, hash: u64, buckets: usize, fp_max: u32) -> (usize, u32) {
        let (i1, _, fp) = self.locate_pair(hash, buckets, fp_max);
        (i1, fp)
    }

    /// Out of a lookup's path (displacements, copies): the block by a
    /// multiply ([`Nested::block_of`]).
    #[inline]
    fn alt(&self, i: usize, fp: u32, _buckets: usize) -> usize {
        let block = self.block_of(i);
        let base = block * self.local;
        base + alt_index(i - base, fp & self.alt_mask, self.local)
    }

    #[inline(always)]
    fn locate_pair(&self, hash: u64, _buckets: usize, _fp_max: u32) -> (usize, usize, u32) {
        self.place(self.item(hash))
    }
}

/// An item as every generation of a growable filter sees it: a local
/// bucket, its key and its spare bits. [`Nested::place`] puts it in one
/// generation; [`Nested::item_at`] reads it back from what a generation
/// stores, so an item moves between generations of different depths (a
/// merge) without its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NestedItem {
    /// One of the item's two local buckets (either: `alt_index` maps each
    /// to the other).
    pub(crate) local: usize,
    pub(crate) key: u32,
    /// The spare bits, `spare` of them.
    pub(crate) x: u32,
}

impl Nested {
    /// `hash`'s item: the same in every generation.
    #[inline(always)]
    pub(crate) fn item(&self, hash: u64) -> NestedItem {
        let h = spread(hash);
        let local = fast_range(h, self.local as u64) as usize;
        let (key, x) = self.key_and_spare(h);
        NestedItem { local, key, x }
    }

    /// [`Self::item`] for a write: a later chain's second mix out of line.
    /// Inlined, the compiler computed that mix ahead of every growable
    /// insert, chained or not (12 of the 752 instructions of `g4x10`);
    /// lookups and batches keep `item`, whose loops need it inline.
    #[inline(always)]
    pub(crate) fn item_to_write(&self, hash: u64) -> NestedItem {
        if self.chained {
            return self.item_of_a_later_chain(hash);
        }
        let h = spread(hash);
        let (key, x) = self.first_key_and_spare(h);
        let local = fast_range(h, self.local as u64) as usize;
        NestedItem { local, key, x }
    }

    #[inline(never)]
    fn item_of_a_later_chain(&self, hash: u64) -> NestedItem {
        self.item(hash)
    }

    /// [`Self::place`] of [`Self::item`] in a generation of the first
    /// chain (the caller knows: no chain came before), which takes nothing
    /// from a second mix and whose key is all the alternate bucket needs.
    /// Its own copy of `place`'s arithmetic, without the key's mask: through
    /// `place` the lookup took one instruction more and read slower at 8x
    /// (docs/benchmarks.md, "Revisited (2026-12-01)").
    #[inline(always)]
    fn first_chain_pair(&self, hash: u64) -> (usize, usize, u32) {
        debug_assert!(!self.chained, "a later chain's item needs its second mix");
        let h = spread(hash);
        let l1 = fast_range(h, self.local as u64) as usize;
        let (key, x) = self.first_key_and_spare(h);
        debug_assert_eq!(key & self.alt_mask, key);
        let l2 = alt_index(l1, key, self.local);
        let base = (x & self.block_mask) as usize * self.local;
        let fp = key | ((x >> self.shift) << self.key_bits);
        (base + l1, base + l2, fp)
    }

    /// Both buckets and the stored fingerprint of `item` in this
    /// generation: the block is the low `depth` bits of `x`, the stored
    /// fingerprint the key with the rest of `x` above it.
    #[inline(always)]
    pub(crate) fn place(&self, item: NestedItem) -> (usize, usize, u32) {
        let NestedItem { local: l1, key, x } = item;
        let l2 = alt_index(l1, key & self.alt_mask, self.local);
        let base = (x & self.block_mask) as usize * self.local;
        let fp = key | ((x >> self.shift) << self.key_bits);
        (base + l1, base + l2, fp)
    }

    /// The item whose fingerprint `fp` this generation stores in bucket
    /// `i` (`i` below its bucket count): the inverse of [`Nested::place`].
    pub(crate) fn item_at(&self, i: usize, fp: u32) -> NestedItem {
        let block = self.block_of(i);
        let rest = fp >> self.key_bits;
        NestedItem {
            local: i - block * self.local,
            key: fp & self.key_mask,
            x: (block as u32) | (rest << self.shift),
        }
    }
}

impl<const B: usize, L: Layout<B>> Table<B, L, Nested> {
    /// [`Self::contains_hash`] in a generation of the first chain: its
    /// item without the test for a later chain's second mix, which a
    /// growable filter's lookup makes once, as "any chain before this
    /// one?", for the state.
    #[inline(always)]
    pub(crate) fn contains_in_first_chain(&self, hash: u64) -> bool {
        let (i1, i2, fp) = self.addressing.first_chain_pair(hash);
        self.contains_at(i1, i2, fp)
    }
}

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// [`Self::claim_free`](Table::claim_free) with its first look at bucket `i1` the
    /// caller's load of it, `a` (a growable filter's insert loads it once,
    /// for its bound on copies and for the claim): a slot chosen from an
    /// earlier load is one the compare-and-swap finds taken, if it is, as
    /// from any other; then, if it was, `claim_free` from fresh loads.
    /// When it came (callgrind): a growable filter's insert at 8x took 23
    /// instructions fewer (792.8 against 815.6), at 1x (17-bit slots) 64
    /// fewer (498.6 against 562.8); `claim_free`'s loop, through
    /// [`Self::claim_once`], the same logic with a fixed filter's insert 2
    /// more (4x16 half full 127.7 against 125.6: a loop-alignment `nop` and
    /// one reload from the stack; 126.6 since `CopiesHeld`).
    #[inline(always)]
    pub(crate) fn claim_free_from(&self, a: &Bucket, i1: usize, i2: usize, fp: u32) -> bool {
        Self::CLAIMS
            && match self.claim_once(a, i1, i2, fp) {
                Some(stored) => stored,
                None => self.claim_free(i1, i2, fp),
            }
    }

    /// [`Self::insert`] of a fingerprint whose pair is known, without
    /// making room: `Ok(Some(stored))` as `insert` would return, `Ok(None)`
    /// if both buckets are full (nothing changed). A growable filter asks
    /// this first, and grows rather than displace in a table near full.
    #[inline]
    pub(crate) fn insert_if_room(
        &self,
        i1: usize,
        i2: usize,
        fp: u32,
        copies: Copies,
    ) -> Result<Option<bool>, CopiesHeld> {
        self.insert_if_room_inlined(i1, i2, fp, copies)
    }

    /// [`Self::insert_if_room`], inlined into its caller: a growable
    /// insert's common case (`Growable::insert`), which otherwise paid this
    /// function's entry and exit, and the spills around its call, on every
    /// insert (callgrind, `g4x10`: 637.4 instructions an insert against
    /// 621.0 inlined, `g8x12` 1,143.6 against 1,125.1; the price is code:
    /// one copy of this body in each of `with_width!`'s arms there).
    #[inline(always)]
    pub(crate) fn insert_if_room_inlined(
        &self,
        i1: usize,
        i2: usize,
        fp: u32,
        copies: Copies,
    ) -> Result<Option<bool>, CopiesHeld> {
        self.prefetch(i1);
        self.prefetch(i2);
        if copies != Copies::Unique {
            let a = self.load_bucket(i1);
            if copies == Copies::Bounded {
                self.copies_below_bound(&a, i1, fp)?;
            }
            if self.claim_free_from(&a, i1, i2, fp) {
                return Ok(Some(true));
            }
            if self.pair_seen_full(i1, i2, fp) {
                return Ok(None);
            }
        }
        Ok(match self.place(i1, i2, fp, copies)? {
            Placed::Stored => Some(true),
            Placed::Duplicate => Some(false),
            Placed::NoRoom => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(depth: u32) -> Nested {
        Nested::new(depth, 1000, 12, 7)
    }

    #[test]
    fn nested_alt_is_an_involution_inside_the_table() {
        for depth in 0..=7 {
            let a = generation(depth);
            let buckets = a.local << depth;
            for hash in (0..if cfg!(miri) { 200 } else { 2000u64 })
                .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            {
                let (i1, fp) = a.locate(hash, buckets, 0);
                assert!(i1 < buckets && fp != 0);
                assert!(fp & ((1 << 12) - 1) != 0, "the key is never 0");
                let i2 = a.alt(i1, fp, buckets);
                assert!(i2 < buckets);
                assert_eq!(a.alt(i2, fp, buckets), i1);
                assert_eq!(a.locate_pair(hash, buckets, 0), (i1, i2, fp));
            }
        }
    }

    /// A first chain's lookup path (`first_chain_pair`) lands where every
    /// writer does (`locate_pair`), at every depth, for keys of every width
    /// `with_width!` gives it a constant for and others, spare bits few or
    /// many, and blocks of one bucket to many.
    #[test]
    fn a_first_chain_lookup_finds_the_pair_writers_use() {
        for (key_bits, spare) in [(10, 7), (4, 2), (16, 7), (12, 3), (20, 12)] {
            for local in [1usize, 2, 7, 1000, (1 << 20) + 3] {
                for depth in 0..=spare {
                    let a = Nested::new(depth, local, key_bits, spare);
                    let buckets = a.buckets();
                    for hash in (0..if cfg!(miri) { 10 } else { 500u64 })
                        .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 40))
                    {
                        let (i1, i2, fp) = a.first_chain_pair(hash);
                        assert!(i1 < buckets && i2 < buckets);
                        assert_eq!(a.item_to_write(hash), a.item(hash));
                        assert_eq!(
                            (i1, i2, fp),
                            a.locate_pair(hash, buckets, 0),
                            "{key_bits}-bit keys, {spare} spare bits, {local} buckets a block, depth {depth}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn an_item_read_back_from_any_generation_places_alike() {
        for hash in (0..if cfg!(miri) { 300 } else { 3000u64 })
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 7))
        {
            let item = generation(0).item(hash);
            for depth in 0..=7 {
                let a = generation(depth);
                let (i1, i2, fp) = a.place(item);
                for i in [i1, i2] {
                    let back = a.item_at(i, fp);
                    assert_eq!((back.key, back.x), (item.key, item.x), "depth {depth}");
                    assert_eq!(a.place(back).2, fp);
                    let (j1, j2, _) = a.place(back);
                    assert!((j1, j2) == (i1, i2) || (j1, j2) == (i2, i1));
                }
            }
        }
    }

    #[test]
    fn block_of_divides_exactly() {
        for local in [
            2usize,
            3,
            7,
            1000,
            4093,
            (1 << 20) + 7,
            (1 << 28) - 1,
            1 << 29,
        ] {
            let a = Nested::new(7, local, 12, 7);
            let buckets = local << 7;
            for i in [
                0,
                1,
                local - 1,
                local,
                local + 1,
                buckets / 3,
                buckets - local,
                buckets - 1,
            ] {
                assert_eq!(a.block_of(i), i / local, "local {local} i {i}");
            }
            for k in 1..128 {
                let i = k * local;
                assert_eq!(a.block_of(i - 1), k - 1, "local {local} i {}", i - 1);
                assert_eq!(a.block_of(i), k, "local {local} i {i}");
            }
        }
    }

    #[test]
    fn a_split_lands_where_the_next_generation_looks() {
        for depth in 0..7 {
            let (a, next) = (generation(depth), generation(depth + 1));
            let (m, m2) = (a.local << depth, a.local << (depth + 1));
            for hash in (0..if cfg!(miri) { 500 } else { 5000u64 })
                .map(|k| k.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ k)
            {
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
    /// The chain after the first (7 spare bits spent, 12-bit keys) with
    /// 2 more key bits, 7 spare bits and a first table `2^smaller` times
    /// smaller, at `depth`.
    fn second_chain(smaller: u32, depth: u32) -> (Nested, Nested) {
        let last = generation(7);
        let mut c = Nested::chained(&last, 2, 7, smaller);
        for _ in 0..depth {
            c = c.next();
        }
        (last, c)
    }

    #[test]
    fn a_second_chain_refines_the_first() {
        for smaller in [0, 2, 3] {
            for depth in [0, 1, smaller + 3] {
                let (last, c) = second_chain(smaller, depth);
                let buckets = c.buckets();
                assert_eq!(buckets, last.buckets() << depth >> smaller);
                assert_eq!(c.width(), 12 + 2 + 7 + smaller - depth);
                for hash in (0..if cfg!(miri) { 300 } else { 5000u64 })
                    .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 11))
                {
                    let (i1, i2, fp) = c.locate_pair(hash, buckets, 0);
                    assert!(i1 < buckets && i2 < buckets && fp >> c.width() == 0);
                    assert_eq!(c.alt(i1, fp, buckets), i2);
                    assert_eq!(c.alt(i2, fp, buckets), i1);
                    // What the new chain stores (a bucket and a
                    // fingerprint) gives back the whole item, and with it
                    // where the last chain stores the same hash: so two
                    // hashes the new chain cannot tell apart, the last
                    // one cannot either.
                    let (l1, l2, lfp) = last.locate_pair(hash, last.buckets(), 0);
                    for i in [i1, i2] {
                        let item = c.item_at(i, fp);
                        let coarse = NestedItem {
                            local: item.local,
                            key: item.key & ((1 << 12) - 1),
                            x: item.x & ((1 << 7) - 1),
                        };
                        let (j1, j2, jfp) = last.place(coarse);
                        assert_eq!(jfp, lfp, "hash {hash:#x}");
                        assert!(
                            (j1, j2) == (l1, l2) || (j1, j2) == (l2, l1),
                            "hash {hash:#x}"
                        );
                    }
                    // And it places as the item of the hash, which a
                    // write computes as a lookup does.
                    assert_eq!(c.place(c.item(hash)), (i1, i2, fp));
                    assert_eq!(c.item_to_write(hash), c.item(hash));
                }
            }
        }
    }

    #[test]
    fn a_second_chain_splits_as_the_first_does() {
        for smaller in [0, 2] {
            for depth in 0..(7 + smaller) {
                let (_, c) = second_chain(smaller, depth);
                let next = c.next();
                let (m, m2) = (c.buckets(), next.buckets());
                for hash in (0..if cfg!(miri) { 200 } else { 2000u64 })
                    .map(|k| k.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ k)
                {
                    let (i1, i2, fp) = c.locate_pair(hash, m, 0);
                    let (j1, j2, fp2) = next.locate_pair(hash, m2, 0);
                    for i in [i1, i2] {
                        let (j, f) = c.split(i, fp);
                        assert_eq!(f, fp2, "hash {hash:#x} depth {depth}");
                        assert!(j == j1 || j == j2, "hash {hash:#x} depth {depth}");
                    }
                }
            }
        }
    }

    #[test]
    fn an_item_narrowed_to_an_earlier_chain_is_that_chains_item() {
        // Three chains: each later one's item, narrowed, is what the
        // earlier one computes from the hash (an insert an earlier chain
        // takes is found there by the hash's lookup and remove).
        let first = generation(7);
        let second = Nested::chained(&first, 2, 7, 2);
        let second_last = second.at_depth(second.spare);
        let third = Nested::chained(&second_last, 2, 7, 2).next();
        for hash in (0..if cfg!(miri) { 200 } else { 5000u64 })
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 13))
        {
            for (later, earlier) in [
                (&second, &first),
                (&third, &first),
                (&third, &second_last),
                (&second, &second),
            ] {
                let narrowed = later.narrow(later.item(hash), earlier);
                assert_eq!(narrowed, earlier.item(hash), "hash {hash:#x}");
            }
        }
    }

    #[test]
    fn the_first_chain_hashes_as_before() {
        // The chains' fields leave the first chain's items as they were
        // (a saved filter's fingerprints must keep their meaning).
        let a = generation(3);
        let hash = 0x0123_4567_89ab_cdefu64;
        let h = spread(hash);
        let key = (((h as u32 as u64) * ((1 << 12) - 1)) >> 32) as u32 + 1;
        let x = ((h >> 32) as u32) & 0x7f;
        assert_eq!((a.item(hash).key, a.item(hash).x), (key, x));
        let (_, _, fp) = a.place(a.item(hash));
        assert_eq!(fp, key | (x >> 3) << 12);
    }
}
