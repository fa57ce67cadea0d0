//! The insert without a lock: one compare-and-swap on the word that holds a
//! free slot.
//!
//! An insert whose item finds an empty slot in either of its buckets
//! claims it with [`Layout::claim`]: a compare-and-swap of the slot's word
//! from what was loaded to the same with the fingerprint in the slot,
//! taken again while other slots of the word change under it and given up
//! once the slot itself is seen filled (another insert claimed it: the
//! insert looks for the next free slot). No stripe lock is taken, no
//! version moves: the fingerprint appears in one atomic write, so a lookup
//! sees it or not and never has to retry for it (contract 3). The count
//! goes to the thread's own word (`counts.rs`). So a fixed filter's insert
//! into a free slot does one locked instruction, on the bucket's own line.
//!
//! What this asks of every other writer (docs/design.md, "Inserts without
//! a lock"): every write into a slot that lies in one word is such a
//! claim, with the stripe's lock or without (a displacement hop, a growth
//! step's chunk copy, an insert under the locks), so none overwrites what
//! a claim stored; and every other write to a word a claim may write is a
//! read-modify-write (`fetch_and` to clear, `fetch_or` for the two halves
//! of a slot across two words, which no claim takes). A claim only ever
//! fills an empty slot, so what a writer holding the locks saw in a full
//! slot stays there until it or another lock holder changes it: a hop's
//! re-check of its source and a remove's choice of copy stand as before.
//!
//! Semi-sorted buckets re-encode the whole bucket on every write, and a
//! slot across two words cannot be claimed in one instruction: those take
//! the stripes' locks ([`Claim::NeedsLock`]).

use crate::layout::{Claim, Layout};
use crate::table::{Addressing, Table};

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// True for a layout whose inserts claim slots without a lock: every
    /// layout but the semi-sorted one.
    pub(crate) const CLAIMS: bool = !L::WRITES_VERSIONED;

    /// Stores `fp` in a free slot of bucket `i1`, else of `i2` (its pair),
    /// without a lock, and counts it: true if stored. False, having written
    /// nothing, if both buckets are full, or the free slot found must be
    /// written under its lock ([`Claim::NeedsLock`]), or the layout claims
    /// nothing: the caller goes on to the locked path.
    #[inline(always)]
    pub(crate) fn claim_free(&self, i1: usize, i2: usize, fp: u32) -> bool {
        if !Self::CLAIMS {
            return false;
        }
        loop {
            let (bucket, slot) = match self.first_free(&self.load_bucket(i1)) {
                Some(j) => (i1, j),
                None => match self.first_free(&self.load_bucket(i2)) {
                    Some(j) => (i2, j),
                    None => return false,
                },
            };
            match self.layout.claim(&self.words, bucket, slot, fp) {
                Claim::Stored => {
                    self.stripes.count_add(1, bucket);
                    return true;
                }
                // Another insert filled the slot first: it made progress,
                // and this one looks for the next free slot.
                Claim::Taken => {}
                Claim::NeedsLock => return false,
            }
        }
    }
}
