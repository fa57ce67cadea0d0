//! One fingerprint's copies in its bucket pair, besides the insert: how
//! many there are ([`Table::count`], a lock-free read like a lookup),
//! whether a growable filter's insert may add one
//! ([`Table::copies_below_bound`]), whether a pair is full of other items
//! ([`Table::pair_seen_full`]), and taking one away ([`Table::remove`],
//! under both buckets' locks); and taking every copy of every fingerprint
//! away ([`Table::clear`], under every lock).

use super::stripes::{Section, Stripes};
use super::{Addressing, CopiesHeld, Table};
use crate::broken;
use crate::layout::{Bucket, Layout, Mask};
use crate::sync::{Ordering, Spin};

/// Tables of fewer buckets `clear` in one versioned section (at most 2 MiB
/// of words: about 100 µs); the loom models' tables among them.
const CLEAR_SPLIT_BUCKETS: usize = 1 << 16;

/// Buckets per section of a larger table's `clear`, at least: whole
/// stripes, so sections start on whole words (a larger table's stripes are
/// runs of at least 1024 buckets).
const CLEAR_SECTION_BUCKETS: usize = 1 << 12;

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// `Err(TooManyCopies)`, having written nothing, if bucket `i1` and
    /// its alternate hold `B` copies of `fp` or more
    /// ([`Copies::Bounded`](super::Copies::Bounded): half the pair, or a
    /// pair that is one bucket whole). One match on `a`, the caller's load
    /// of bucket `i1` (which its claim then starts from), for an item with
    /// no copy there, and a [`Self::count`] of the pair only where it holds
    /// one; a key's copies go to `i1` first, so one whose copies all lie in
    /// the other bucket may take one more (`B + 1`).
    #[inline(always)]
    pub(crate) fn copies_below_bound(
        &self,
        a: &Bucket,
        i1: usize,
        fp: u32,
    ) -> Result<(), CopiesHeld> {
        if self.layout.holds(self.kernel, a, fp) {
            self.below_bound_counted(i1, fp)?;
        }
        Ok(())
    }

    /// True if buckets `i1` and `i2`, loaded now without their locks, have
    /// no free slot and not every slot holds `fp`: what [`Self::place`]
    /// would find under the locks (`Placed::NoRoom`) but for a write
    /// between the two. An insert whose lock-free claim found no slot then
    /// goes straight on to displacement, whose search finds a slot freed
    /// meanwhile (`Search::RootHasRoom`) and places the item under the
    /// locks, instead of first taking both locks to look again (callgrind,
    /// `lookup_instructions`: 4x16 inserts 303.8 -> 295.5 instructions,
    /// 4x10 386.6 -> 381.5, `g4x10` 641.6 -> 637.4). A pair whose every
    /// slot holds `fp` is left to `place`, which refuses it under the
    /// locks ([`CopiesHeld`]). False where claims take no slot (semi-sorted
    /// buckets: every insert takes the locks) and for 8-slot buckets, whose
    /// wider loads and matches cost more than the locked look they spare
    /// (`g8x12` 1,143.6 -> 1,150.3 with them).
    #[inline(always)]
    pub(crate) fn pair_seen_full(&self, i1: usize, i2: usize, fp: u32) -> bool {
        if !(Self::CLAIMS && B <= 4) {
            return false;
        }
        let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
        if self.first_free(&a).is_some() || self.first_free(&b).is_some() {
            return false;
        }
        self.all_copies(&a, &b, i1, i2, fp).is_none()
    }

    /// The pair's slots (`B` where `i1 == i2`, else `2B`) if every one of
    /// them holds `fp` as loaded in `a` and `b`: a pair no displacement can
    /// make room in for another copy ([`CopiesHeld`]).
    #[inline(always)]
    pub(crate) fn all_copies(
        &self,
        a: &Bucket,
        b: &Bucket,
        i1: usize,
        i2: usize,
        fp: u32,
    ) -> Option<usize> {
        let (ma, mb) = self.match_pair(a, b, fp);
        let own = ma.count() + if i2 == i1 { 0 } else { mb.count() };
        let slots = if i2 == i1 { B } else { 2 * B };
        (own as usize == slots).then_some(slots)
    }

    /// [`Self::copies_below_bound`] once bucket `i1` holds a copy.
    #[cold]
    fn below_bound_counted(&self, i1: usize, fp: u32) -> Result<(), CopiesHeld> {
        match self.count(i1, fp) {
            held if held >= B => Err(CopiesHeld(held)),
            _ => Ok(()),
        }
    }

    /// How many copies of `fp` bucket `i1` and its alternate hold (once,
    /// if they are the same bucket): a consistent read of both buckets,
    /// lock-free like a lookup, taken again while a versioned write
    /// overlaps it.
    pub(crate) fn count(&self, i1: usize, fp: u32) -> usize {
        let i2 = self.alt(i1, fp);
        let (s1, s2) = (self.stripes.reader(i1), self.stripes.reader(i2));
        let spin = Spin::new();
        loop {
            let (t1, t2) = (self.stripes.read_begin(s1), self.stripes.read_begin(s2));
            let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
            Stripes::read_fence();
            if self.stripes.read_valid_pair(s1, t1, s2, t2) {
                let (in1, in2) = self.match_pair(&a, &b, fp);
                let in2 = if i2 == i1 { 0 } else { in2.count() };
                return (in1.count() + in2) as usize;
            }
            spin.wait();
        }
    }

    /// Removes one copy of `fp` from bucket `i1` or its alternate.
    ///
    /// The table knows copies of a fingerprint in a bucket pair, not items:
    /// items with the same fingerprint and pair share them. If another copy
    /// stays in the pair, clearing this one can change which bucket holds
    /// the copy that answers for some other item (it was in the bucket
    /// cleared here; the one left is in the other bucket, perhaps put there
    /// a moment ago). A lookup that read the other bucket before that copy
    /// arrived and this one after the clear would miss it, so such a remove
    /// is versioned like a move. A remove that leaves no copy in the pair
    /// answered for no one else, and stays unversioned: readers of other
    /// items in these buckets need not retry.
    pub(crate) fn remove(&self, i1: usize, fp: u32) -> bool {
        let i2 = self.alt(i1, fp);
        let guard = self.stripes.lock_pair(i1, i2);
        let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
        let (in1, in2) = self.match_pair(&a, &b, fp);
        // A single-bucket pair (i1 == i2) has its copies counted once.
        let in2 = if i2 == i1 { Mask(0) } else { in2 };
        let (bucket, slot, current) = match (in1.lowest_set_bit(), in2.lowest_set_bit()) {
            // Copies in both buckets: taking the one in `i1` hands the
            // answer (for an item colliding with this one) to the copy in
            // `i2`, as a hop from `i1` to `i2` would. While a save runs,
            // that hides the answer from it if `i1` is not copied yet and
            // `i2` is (the copy in `i2` arrived after `i2` was saved, the
            // one in `i1` is gone before `i1` is): take `i2`'s copy instead,
            // so the one left is saved with `i1`.
            (Some(_), Some(k)) if broken::remove_heeds_save(|| self.save.hides(i1, i2)) => {
                (i2, k, &b)
            }
            (Some(j), _) => (i1, j, &a),
            (None, Some(j)) => (i2, j, &b),
            (None, None) => return false,
        };
        let others_stay = in1.count() + in2.count() > 1;
        let _section = if others_stay {
            guard.versioned(Section::CollidingRemove)
        } else if L::WRITES_VERSIONED {
            guard.versioned(Section::SemiSortedRewrite)
        } else {
            None
        };
        self.layout
            .clear(&self.words, bucket, slot, current, self.own_words());
        self.stripes.count_add(-1, bucket);
        true
    }

    /// Empties the table. Holds every stripe lock throughout, so every
    /// write lands wholly before the clear or wholly after it.
    ///
    /// Lookups see each bucket before or after its clear, never half
    /// cleared: its words are zeroed inside a versioned section on its
    /// stripe. A table of fewer than [`CLEAR_SPLIT_BUCKETS`] buckets is
    /// cleared in one section, so lookups see all of it before or after.
    /// A larger one would keep every lookup waiting for the whole clear (10
    /// ms for 256 MiB, docs/benchmarks.md), so it is cleared in sections of
    /// whole stripes, [`CLEAR_SECTION_BUCKETS`] buckets or one stripe,
    /// whichever is more: a lookup waits for at most one section
    /// (microseconds), lookups on the other stripes go on meanwhile, and
    /// the version bumps (two per stripe) stay a small part of the work.
    /// Across sections, a lookup may see some items already gone while
    /// others are still there.
    pub(crate) fn clear(&self) {
        let guard = self.stripes.lock_all();
        let bits = self.layout.bucket_bits();
        // Empties buckets `first..end`, whose words no other bucket shares
        // (both ends are multiples of a stripe's run, below), and after the
        // last bucket, the rest of the words; returns the items it took
        // out. Inserts without a lock still claim slots meanwhile, so each
        // word is swapped for zero and what it held is counted: a claim
        // lands wholly before the swap (taken out and uncounted here) or
        // after it (kept, counted by its insert), and the count stays exact.
        let mut held = Vec::new();
        let mut empty = |first: usize, end: usize| -> usize {
            let last = if end == self.buckets {
                self.words.len()
            } else {
                end * bits / 64
            };
            held.clear();
            held.extend(
                self.words[first * bits / 64..last]
                    .iter()
                    .map(|w| w.swap(0, Ordering::Relaxed).to_le()),
            );
            // What the words held is what writers stored, so the audit
            // finds nothing amiss; if it did, the count would be 0 and
            // nothing else would change.
            self.layout
                .audit_buckets(self.kernel, &held[..], end - first)
                .unwrap_or(0)
        };
        let stripes = self.stripes.count();
        let mut taken = 0;
        if self.buckets < CLEAR_SPLIT_BUCKETS {
            let _section = guard.versioned_stripes(0, stripes);
            taken += empty(0, self.buckets);
        } else {
            let run = self.stripes.run();
            let per = (CLEAR_SECTION_BUCKETS / run).max(1);
            for lo in (0..stripes).step_by(per) {
                let hi = (lo + per).min(stripes);
                let _section = guard.versioned_stripes(lo, hi);
                taken += empty(lo * run, (hi * run).min(self.buckets));
            }
        }
        self.stripes.count_add(-(taken as i64), 0);
    }
}

#[cfg(test)]
mod tests {
    use crate::layout::{Layout, Packed};
    use crate::table::Table;

    /// Writes `fps` into bucket `i`'s slots in order (0 leaves a slot free).
    fn fill<const B: usize>(t: &Table<B, Packed>, i: usize, fps: [u32; B])
    where
        Packed: Layout<B>,
    {
        for (j, &fp) in fps.iter().enumerate() {
            let current = t.load_bucket(i);
            Layout::<B>::clear(&t.layout, &t.words, i, j, &current, false);
            if fp != 0 {
                let current = t.load_bucket(i);
                assert!(Layout::<B>::set(
                    &t.layout, &t.words, i, j, fp, &current, false
                ));
            }
        }
    }

    /// Full of other fingerprints: seen full. A free slot in either
    /// bucket, or every slot a copy of the item's own: not (the insert
    /// then takes the locks, which place it or refuse it). A pair that is
    /// one bucket alike; 2-slot buckets too; never for 8-slot buckets or
    /// where a slot lies across two words but is free.
    #[test]
    fn a_pair_is_seen_full_only_when_full_of_other_items() {
        // 12-bit slots: a 4-slot bucket is 48 bits, so some slots lie
        // across two words.
        let t: Table<4, Packed> =
            Table::new(Packed::new(4, 12), 64, 0, false).expect("a small table");
        for (i1, i2) in [(3, 40), (7, 8), (21, 21), (5, 62)] {
            let fp = 0x5a5;
            fill(&t, i1, [1, 2, 3, 4]);
            fill(&t, i2, [5, 6, 7, 8]);
            assert!(t.pair_seen_full(i1, i2, fp), "{i1} {i2}: full of others");
            for j in 0..4 {
                let mut with_a_hole = [9, 10, 11, 12];
                with_a_hole[j] = 0;
                fill(&t, i2, with_a_hole);
                assert!(!t.pair_seen_full(i1, i2, fp), "{i1} {i2}: slot {j} free");
                fill(&t, i2, [9, 10, 11, 12]);
            }
            fill(&t, i1, [fp; 4]);
            fill(&t, i2, [fp; 4]);
            assert!(!t.pair_seen_full(i1, i2, fp), "{i1} {i2}: all copies");
            fill(&t, i2, [fp, fp, fp, 1]);
            assert!(
                t.pair_seen_full(i1, i2, fp),
                "{i1} {i2}: all but one copies"
            );
            fill(&t, i1, [0; 4]);
            fill(&t, i2, [0; 4]);
        }
        let two: Table<2, Packed> =
            Table::new(Packed::new(2, 16), 64, 0, false).expect("a small table");
        fill(&two, 4, [1, 2]);
        fill(&two, 9, [3, 4]);
        assert!(two.pair_seen_full(4, 9, 77));
        let eight: Table<8, Packed> =
            Table::new(Packed::new(8, 12), 64, 0, false).expect("a small table");
        fill(&eight, 4, [1, 2, 3, 4, 5, 6, 7, 8]);
        fill(&eight, 9, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(
            !eight.pair_seen_full(4, 9, 77),
            "8-slot buckets take the locks"
        );
    }
}
