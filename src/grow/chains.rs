//! Chains (docs/design.md, "Growth past the spare bits"): a filter with no
//! maximum capacity whose last generation is full keeps it, as it is, among
//! its earlier chains and starts the next chain's first generation. What
//! reads, inserts and steps of that need: the earlier chains' lookups, an
//! item the current chain refuses placed in an earlier one, and the step.

use super::*;
use crate::table::with_width;

impl<const B: usize> State<B> {
    /// The state after a growth step: `cur` and `migration`, the chains
    /// before kept.
    pub(super) fn then(&self, cur: Arc<Generation<B>>, migration: Option<Migration<B>>) -> Self {
        State::new(cur, migration, self.older.clone())
    }

    /// Marks in `out` the keys (key `k` hashing to `hashes[k]`) a chain
    /// before the current one holds, of those not marked yet; returns how
    /// many: chain by chain, each chain's table read at its width as a
    /// constant where it is one of [`with_width!`]'s. Not inlined, as
    /// [`Self::contains_in_chains`].
    #[inline(never)]
    pub(super) fn older_contain_many(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        let mut found = 0;
        for g in self.older_read() {
            with_width!(&g.table, t => {
                for (hit, &hash) in out.iter_mut().zip(hashes) {
                    if !*hit && t.contains_hash(hash) {
                        *hit = true;
                        found += 1;
                    }
                }
            });
        }
        found
    }

    /// `f` summed over the chains before the current one.
    pub(super) fn older_sum(&self, f: impl Fn(&Generation<B>) -> usize) -> usize {
        self.older.iter().map(|g| f(g)).sum()
    }

    /// True if any chain holds `hash`'s item: the lookup of a filter past
    /// its spare bits, and of every 4-slot state [`State::quick`] leaves
    /// out (a step under way, widths past the quick ones), whose older
    /// chains are none. Every chain is read, no early exit: the loads
    /// overlap, and the branch on "found?" (half mispredicted on a mixed
    /// stream) comes once. Not inlined, and cold: a filter past its spare
    /// bits pays a call, and every other lookup loop keeps its registers
    /// (inlined, the earlier chains' reads cost a fixed filter's lookup 3
    /// instructions and a growable one's 10; out of line but not cold, the
    /// call cost the fixed shapes 2 and a growable lookup in one chain 9:
    /// callgrind, `benches/src/bin/lookup_instructions.rs`). So out of the
    /// callers' loops, every chain's table, the current one's too, is read
    /// at its width as a constant where it is one of [`with_width!`]'s.
    #[cold]
    #[inline(never)]
    pub(super) fn contains_in_chains(&self, hash: u64) -> bool {
        let cur = with_width!(&self.cur.table, t => t.contains_hash(hash));
        let hit = match &self.migration {
            None => cur,
            Some(m) => cur || m.frozen_contains(hash),
        };
        // The oldest chain is the first, whose pair takes nothing from the
        // hash's second mix (`contains_in_first_chain`); a third chain and
        // later ones (a filter past 2^14 times its first capacity, with
        // the default 7 spare bits) are read out of line.
        let Some((first, later)) = self.older_read().split_first() else {
            return hit;
        };
        let hit = hit | with_width!(&first.table, t => t.contains_in_first_chain(hash));
        if later.is_empty() {
            hit
        } else {
            hit | Self::later_chains_contain(later, hash)
        }
    }

    /// [`Self::contains_in_chains`]'s read of the chains after the first
    /// and before the current one: every one of them, no early exit.
    #[cold]
    #[inline(never)]
    fn later_chains_contain(later: &[Arc<Generation<B>>], hash: u64) -> bool {
        later.iter().fold(false, |hit, g| {
            hit | with_width!(&g.table, t => t.contains_hash(hash))
        })
    }

    /// True for a unique insert ([`Copies::Unique`]) of `hash`'s item if a
    /// chain before the current one holds it: the insert then adds nothing.
    /// The current chain's own check sees the item's pair there only. The
    /// earlier chains are read out of line and cold, as in
    /// [`Self::contains_in_chains`]: only a filter past its spare bits has
    /// any. Two threads adding one absent item at once both pass this and
    /// meet at the current chain's pair, under its locks, or, refused
    /// there, at the same earlier chain's (newest first): one copy, unless
    /// a remove frees the current pair's slot between their tries. (The
    /// seam of the broken variant `UNIQUE_CURRENT_CHAIN_ONLY`, which asks
    /// none.)
    #[inline(always)]
    pub(super) fn unique_held_earlier(&self, hash: u64, copies: Copies) -> bool {
        #[cold]
        #[inline(never)]
        fn any<const B: usize>(older: &[Arc<Generation<B>>], hash: u64) -> bool {
            (older.iter()).any(|g| with_width!(&g.table, t => t.contains_hash(hash)))
        }
        let asks = copies == Copies::Unique && !broken::UNIQUE_CURRENT_CHAIN_ONLY;
        asks && !self.older.is_empty() && any(&self.older, hash)
    }

    /// The chains a lookup reads before the current one: all of them (the
    /// seam of the broken variant `CHAINS_LOOKUP_NEWEST_ONLY`, which reads
    /// none).
    #[inline(always)]
    fn older_read(&self) -> &[Arc<Generation<B>>] {
        if broken::CHAINS_LOOKUP_NEWEST_ONLY {
            &[]
        } else {
            &self.older
        }
    }
}

impl<const B: usize> Growable<B> {
    /// True if the filter grows past generation `addr`: a doubling left in
    /// its chain, or a chain after it (a filter without a maximum
    /// capacity, while the hash has bits for one).
    pub(super) fn has_next(&self, addr: &Nested) -> bool {
        addr.depth < addr.spare || self.next_chain(addr).is_some()
    }

    /// Generation 0 of the chain after `addr`'s, if the filter starts one
    /// there ([`Nested::next_chain`]).
    pub(super) fn next_chain(&self, addr: &Nested) -> Option<Nested> {
        if !self.unbounded || addr.depth < addr.spare {
            return None;
        }
        // Each chain has the first one's spare bits (and the block bits
        // it keeps back: `Nested::next_chain`).
        addr.next_chain(self.first.spare, crate::config::MAX_BUCKETS)
    }

    /// The growth step past a chain's last generation (docs/design.md,
    /// "Growth past the spare bits"): the current generation, full, joins
    /// the earlier chains as it is (nothing is copied), and generation 0 of
    /// the next chain, `addr`, becomes current. Under the growth lock, with
    /// no migration under way (the caller checked).
    ///
    /// No false negatives: every item acknowledged before this step is in
    /// the generation that becomes the newest earlier chain, which every
    /// lookup after the step reads; one loaded before the step reads it as
    /// the current generation. The gate is closed across the publication so
    /// no insert takes the old chain for the current one after it: from then
    /// on its last generation grows no more, and takes only the items a
    /// later chain refuses ([`Growable::insert_earlier_chains`]) and a
    /// merge's items of that chain (`insert_older`), through its table's own
    /// claims and locks, as any table does.
    pub(super) fn start_chain(
        &self,
        state: &State<B>,
        addr: Nested,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let next = Arc::new(self.generation(addr)?);
        if !self.gate.close() {
            return Err(InsertError::GrowthBlocked);
        }
        self.longest_retired.raise(state.cur.table.longest_path());
        let mut older = state.older.clone();
        older.push(Arc::clone(&state.cur));
        self.state
            .replace(State::new(Arc::clone(&next), None, older), guard);
        self.gate.open();
        // Nothing to copy: onto huge pages at once, where it waits for that.
        super::pages::collapse_in_background(&next);
        Ok(())
    }
}

impl<const B: usize> Growable<B> {
    /// An item the current chain refused because its pair there is full of
    /// the pair's own items (`Generation::refusal`), into the newest
    /// earlier chain with room for it: `None` if none has (or there is no
    /// earlier chain). Short keys make such pairs without any key chosen
    /// to collide: the pairs of every chain follow the first chain's key
    /// alone (`Nested`'s `alt_mask`), so with 4-bit keys and 2-slot
    /// buckets an item's pair is one of 15 per bucket, and five random
    /// items of one pair come up within a few hundred thousand inserts.
    /// An earlier chain's final generation, below its own design load,
    /// almost always has room for the item, where its lookups and removes
    /// (which read every chain) find it; no memory is added. A merge puts
    /// items into earlier chains the same way (`insert_older`).
    ///
    /// Where no earlier chain has room, or there is none, and the refusing
    /// generation is the last of its chain, the insert starts the next
    /// chain (`Growable::grow`), whose two more key bits and fresh spare
    /// bits separate the pair's items from the new one, rather than refuse
    /// an item of an unbounded filter. What that can cost is bounded: the
    /// next chain's first table is a quarter of this one, and a chain can
    /// only be started from the last generation of the one before, which
    /// only the count reaches (keys chosen to crowd a pair still cannot
    /// make a generation double before its load does).
    #[cold]
    pub(super) fn insert_earlier_chains(
        state: &State<B>,
        item: NestedItem,
        copies: Copies,
    ) -> Option<Result<bool, InsertError>> {
        state.older.iter().rev().find_map(|g| {
            g.insert_last(state.cur.addr.narrow(item, &g.addr), copies)
                .ok()
                .map(Ok)
        })
    }
}

impl<const B: usize> Generation<B> {
    /// True if this generation, the last of its chain, refusing an item as
    /// `refused` with `len` items in its chain, starts the next chain for
    /// it: not below half the load it grows at, where a refusal is a hot
    /// key's (its copies fill its pair) far more often than short keys
    /// crowding one (200 hot keys among fresh ones started chain after
    /// chain for them, a current table of 80M slots for 24,000 items). But
    /// small blocks (under 1,024 slots), which grow on any failure, start
    /// one there too, unless the refusal is `TooManyCopies` where
    /// fingerprints tell copies from distinct items ([`Copies::Bounded`]):
    /// a hot key's for sure.
    pub(super) fn starts_chain_for(&self, refused: &InsertError, len: usize) -> bool {
        self.half_loaded(len)
            || (self.small_blocks()
                && !(self.copies == Copies::Bounded
                    && matches!(refused, InsertError::TooManyCopies { .. })))
    }

    /// Inserts `item` (as this generation's chain sees it) into this
    /// generation, the last of an earlier chain, which grows no more: into
    /// a free slot of its pair, else by displacement, else refused. What a
    /// merge's item of an earlier chain and an item the current chain
    /// refused both take.
    pub(super) fn insert_last(
        &self,
        item: NestedItem,
        copies: Copies,
    ) -> Result<bool, InsertError> {
        let (i1, i2, fp) = self.addr.place(item);
        let copies = self.copies(copies);
        match self.table.insert_if_room(i1, i2, fp, copies)? {
            Some(stored) => Ok(stored),
            None => self.table.insert_displacing(i1, i2, fp, copies, &|_| true),
        }
    }
}
