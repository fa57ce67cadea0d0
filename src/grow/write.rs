//! Inserts: writers pass the gate into the current generation, copy their
//! share of a growth step under way, and start the next step when a
//! generation is full.

use super::*;
use crate::table::{with_width, CopiesHeld};

/// What came of one try at an insert ([`Growable::insert_item`]).
pub(super) enum Attempt {
    /// The answer of an insert that went in (or found its copy: `insert_unique`): a flag apart
    /// from a refusal, not a whole `Result` to copy back (callgrind, `g4x10`: 786.7, not 792.8).
    Done(bool),
    /// The insert's refusal.
    Refused(InsertError),
    /// The generation at this address is full: grow it, then try again.
    /// `displaced`: the insert looked for room by displacement and found
    /// none; else it stopped at the load the generation grows at, short of
    /// a displacement (no save was running then).
    Grow { at: usize, displaced: bool },
    /// The step under way was finished first: try again.
    Again,
}

/// What an insert places ([`Growable::insert_item`]).
#[derive(Clone, Copy)]
pub(super) enum Entry {
    /// A key's hash: placed by whichever chain is current when it goes in.
    Hash(u64),
    /// An item as chain `chain` sees it, read back from what one of its
    /// generations stores (a merge): only that chain can place it.
    Item(NestedItem, u32),
}

impl<const B: usize> Growable<B> {
    /// Inserts the keys whose hashes are `hashes`, in order; stops at the
    /// first that fails.
    pub(crate) fn insert_many(&self, hashes: &[u64]) -> Result<(), BatchInsertError> {
        for (k, &hash) in hashes.iter().enumerate() {
            self.insert(hash, Copies::Any)
                .map_err(|error| BatchInsertError { inserted: k, error })?;
        }
        Ok(())
    }

    /// Inserts the item whose fingerprint `fp` generation `from` (of a
    /// filter with the same local bucket count, key width and spare bits,
    /// in its first chain) stores in bucket `i`: how a merge moves a
    /// fingerprint between filters of different depths. If this filter
    /// has started a later chain meanwhile, the item goes into the first
    /// chain's final generation, by displacement (it grows no more), or
    /// is refused `Full`.
    pub(crate) fn insert_stored(
        &self,
        from: &Nested,
        i: usize,
        fp: u32,
    ) -> Result<(), InsertError> {
        self.insert_item(Entry::Item(from.item_at(i, fp), from.chain()), Copies::Any)
            .map(|_| ())
    }

    /// Inserts `hash`'s item; growing the filter when it is full. `Full`
    /// only once the last generation (one doubling per spare bit) is full.
    /// A key's copies stop at a bucket's worth in its pair
    /// ([`Copies::Bounded`]: `TooManyCopies` for the next): a pair its
    /// copies filled would keep every item out of both its buckets for
    /// good, and a fresh key whose two buckets were two hot keys' pairs
    /// had the filter double for it (docs/benchmarks.md, "Hot keys among
    /// fresh ones").
    pub(crate) fn insert(&self, hash: u64, copies: Copies) -> Result<bool, InsertError> {
        let copies = match copies {
            Copies::Any => Copies::Bounded,
            other => other,
        };
        // The common case in a function of its own: no step under way and a
        // free slot in the pair. Everything else (a step's copy, a
        // displacement, growth, a closed gate) is `insert_item`'s, whose
        // loop holds far more live values.
        let outcome = {
            let guard = pin();
            let Some(pass) = self.gate.enter(&guard) else {
                drop(guard);
                return self.insert_item(Entry::Hash(hash), copies);
            };
            let state = self.state.load(&guard);
            if state.migration.is_some() {
                drop(pass);
                drop(guard);
                return self.insert_item(Entry::Hash(hash), copies);
            }
            if state.unique_held_earlier(hash, copies) {
                return Ok(false);
            }
            let item = state.cur.addr.item_to_write(hash);
            let room = self.room::<true>(state, item, copies);
            if let Ok(Some(stored)) = room {
                return Ok(stored);
            }
            self.attempt_out_of_line(state, item, copies, room, &guard)
        };
        match outcome {
            Attempt::Done(stored) => Ok(stored),
            Attempt::Refused(e) => Err(e),
            Attempt::Grow { at, displaced } => {
                self.grow(at, displaced)?;
                self.insert_item(Entry::Hash(hash), copies)
            }
            Attempt::Again => self.insert_item(Entry::Hash(hash), copies),
        }
    }

    /// [`Self::attempt`] for [`Self::insert`]'s pair with no free slot:
    /// a displacement's search, out of the common insert's way.
    #[inline(never)]
    fn attempt_out_of_line(
        &self,
        state: &State<B>,
        item: NestedItem,
        copies: Copies,
        room: Result<Option<bool>, CopiesHeld>,
        guard: &Guard,
    ) -> Attempt {
        self.attempt(state, item, copies, room, guard)
    }

    /// [`Self::insert`] of a hash or an item already placed.
    pub(super) fn insert_item(&self, entry: Entry, copies: Copies) -> Result<bool, InsertError> {
        loop {
            // Set if this insert saw the last chunk of a growth step copied:
            // it then frees the retired states once its section is over.
            let mut copied_all = false;
            // The generation found full, by address: the section that saw
            // it ends before the growth step, which frees retired states.
            let outcome = {
                let guard = pin();
                let Some(pass) = self.gate.enter(&guard) else {
                    drop(guard);
                    self.gate.wait_open();
                    continue;
                };
                let state = self.state.load(&guard);
                let item = match entry {
                    // The current chain's own check (below) sees its tables only.
                    Entry::Hash(h) if state.unique_held_earlier(h, copies) => return Ok(false),
                    Entry::Hash(hash) => state.cur.addr.item_to_write(hash),
                    Entry::Item(item, chain) if chain == state.cur.addr.chain() => item,
                    Entry::Item(item, chain) => {
                        return Self::insert_older(state, item, chain, copies)
                    }
                };
                // A copy that finds no room is the growth step's to mend
                // (`Growable::regrow`): the insert asks for it.
                let stuck = Attempt::Grow {
                    at: Arc::as_ptr(&state.cur) as usize,
                    displaced: true,
                };
                if let Some(m) = &state.migration {
                    // Every insert sees every copy of its fingerprint in the current
                    // generation: a unique one needs them all, and a plain one must not add
                    // a copy here while the frozen generation holds the pair's share, or the
                    // two could hold more copies than the pair has slots, and the copy would
                    // never fit (a hot key's inserts did that). It also keeps new inserts
                    // from taking the pair's slots before its copies arrive.
                    let copied_own = self.copy_chunks_of(state, m, item, &guard);
                    if copied_own.is_err() {
                        stuck
                    } else {
                        // An insert that copied its own item's chunks has done its share
                        // of the step; one that also helped copied three chunks (with that,
                        // the slowest 0.1% of inserts through growth to 8M took 6.5 us, not
                        // 2.4: growth_latency). Each insert either copies a chunk of its own
                        // or moves the help cursor on by one, so the copy still ends within
                        // twice as many inserts as it has chunks, far inside `budget`.
                        copied_all = if copied_own == Ok(true) {
                            m.left.load(Ordering::Acquire) == 0
                        } else {
                            self.help(state, m, &guard)
                        };
                        if m.budget.fetch_sub(1, Ordering::Relaxed) <= 0 {
                            // The copy must finish before more new items go in.
                            m.budget.fetch_add(1, Ordering::Relaxed);
                            drop(pass);
                            match self.finish(state, m, &guard) {
                                Ok(()) => {
                                    copied_all = true;
                                    Attempt::Again
                                }
                                Err(_) => stuck,
                            }
                        } else {
                            let room = self.room::<false>(state, item, copies);
                            self.attempt(state, item, copies, room, &guard)
                        }
                    }
                } else {
                    // No step under way: a free slot in the pair ends the insert here, its
                    // answer returned as it is, not through `Attempt` and the loop's match.
                    let room = self.room::<false>(state, item, copies);
                    if let Ok(Some(stored)) = room {
                        return Ok(stored);
                    }
                    self.attempt(state, item, copies, room, &guard)
                }
            };
            if copied_all {
                self.state.reclaim(RECLAIM_ROUNDS);
            }
            match outcome {
                Attempt::Done(stored) => return Ok(stored),
                Attempt::Refused(e) => return Err(e),
                Attempt::Grow { at, displaced } => self.grow(at, displaced)?,
                Attempt::Again => {}
            }
        }
    }

    /// A merge's insert of an item of chain `chain`, before the current
    /// one: into that chain's final generation, which grows no more.
    #[cold]
    fn insert_older(
        state: &State<B>,
        item: NestedItem,
        chain: u32,
        copies: Copies,
    ) -> Result<bool, InsertError> {
        let Some(g) = state.older.get(chain as usize) else {
            // A merge checks that both filters have as many chains first;
            // a chain this filter lacks has no room.
            return Err(InsertError::Full {
                len: state.cur.table.len(),
                slots: state.cur.buckets() * B,
            });
        };
        g.insert_last(item, copies)
    }

    /// One try at inserting `item` into `state`'s current generation,
    /// inside the caller's section and gate pass. Inlined, with
    /// [`Self::insert_into`], into both of `insert_item`'s calls: as two
    /// calls a step deep they took an insert at 8x 2.39x a fixed filter's
    /// time, inlined 2.11x (docs/benchmarks.md, "Growth"). `room` is what
    /// [`Self::room`] answered for `item`, so no pair is asked twice.
    #[inline(always)]
    pub(super) fn attempt(
        &self,
        state: &State<B>,
        item: NestedItem,
        copies: Copies,
        room: Result<Option<bool>, CopiesHeld>,
        guard: &Guard,
    ) -> Attempt {
        let mut short = false;
        let result = match self.insert_into(state, item, copies, room, &mut short, guard) {
            Err(refused @ (InsertError::Crowded { .. } | InsertError::TooManyCopies { .. })) => {
                match Self::insert_earlier_chains(state, item, copies) {
                    Some(placed) => placed,
                    // The last generation of its chain, and a next chain to
                    // start: start it (see `insert_earlier_chains`; `Full`
                    // becomes `Attempt::Grow` below, its fields unread).
                    // Not for a hot key (`Generation::starts_chain_for`).
                    None if state.cur.addr.depth == state.cur.addr.spare
                        && self.next_chain(&state.cur.addr).is_some()
                        && state.cur.starts_chain_for(&refused, self.chain_len()) =>
                    {
                        Err(InsertError::Full {
                            len: 0,
                            slots: state.cur.buckets() * B,
                        })
                    }
                    None => Err(refused),
                }
            }
            other => other,
        };
        if let Some(m) = &state.migration
            && result != Ok(true)
        {
            // Nothing new went in: give the budget back.
            m.budget.fetch_add(1, Ordering::Relaxed);
        }
        match result {
            Err(InsertError::Full { .. }) => Attempt::Grow {
                at: Arc::as_ptr(&state.cur) as usize,
                displaced: !short,
            },
            Ok(stored) => Attempt::Done(stored),
            Err(e) => Attempt::Refused(e),
        }
    }

    /// The first part of an insert into `state`'s current generation: `item`
    /// into a free slot of its pair if there is one (`Ok(None)`: none).
    /// `INLINE`: the table's free-slot try inlined here, as [`Self::insert`]'s
    /// common case has it, or called, as the other inserts do.
    #[inline(always)]
    fn room<const INLINE: bool>(
        &self,
        state: &State<B>,
        item: NestedItem,
        copies: Copies,
    ) -> Result<Option<bool>, CopiesHeld> {
        let g = &*state.cur;
        let (i1, i2, fp) = g.addr.place(item);
        let copies = g.copies(copies);
        with_width!(&g.table, t => if INLINE {
            t.insert_if_room_inlined(i1, i2, fp, copies)
        } else {
            t.insert_if_room(i1, i2, fp, copies)
        })
    }

    /// An insert into generation `g`, given what [`Self::room`] answered
    /// (`room`): into a free slot of the pair if there
    /// is one; else, in a table short of the load it grows at, by
    /// displacement; else `Full` (the caller grows the filter). Growing
    /// below the design load, not at the first failed insert, spares the
    /// long displacement searches of a table near its maximum load: the
    /// table after the step is half as full. While a save runs, by
    /// displacement at any load: a step would wait for the save. Sets
    /// `short` if it returns `Full` at the load the generation grows at,
    /// without looking for room by displacement.
    #[inline(always)]
    pub(super) fn insert_into(
        &self,
        state: &State<B>,
        item: NestedItem,
        copies: Copies,
        room: Result<Option<bool>, CopiesHeld>,
        short: &mut bool,
        guard: &Guard,
    ) -> Result<bool, InsertError> {
        let g = &*state.cur;
        let copies = g.copies(copies);
        let (i1, i2, fp) = g.addr.place(item);
        if let Some(stored) = room? {
            return Ok(stored);
        }
        if g.addr.depth == g.addr.spare && self.topped_out.load(Ordering::Relaxed) {
            return Err(self.at_max_capacity());
        }
        if self.has_next(&g.addr) && self.saving.load(Ordering::Relaxed) == 0 && self.near_full(g) {
            *short = true;
            return Err(InsertError::Full {
                len: g.table.len(),
                slots: g.buckets() * B,
            });
        }
        // During a growth step a displacement moves items only into buckets
        // whose share of the frozen generation is copied, copying it first
        // where it is not: a bucket the copy has yet to fill must keep its
        // slots for it. (Taking them, displacements left a copy no room,
        // which hot keys' full pairs around it then kept from ever finding
        // any: the step stuck, and every insert after it was refused.)
        let displaced = match &state.migration {
            None => with_width!(&g.table, t => t.insert_displacing(i1, i2, fp, copies, &|_| true)),
            Some(m) => {
                let ready = |b: usize| self.copy_chunk(state, m, m.chunk_of(b), guard).is_ok();
                with_width!(&g.table, t => t.insert_displacing(i1, i2, fp, copies, &ready))
            }
        };
        match displaced {
            // The current chain's count, not the generation's: while a step
            // is under way, the items not yet copied count too. Not the
            // earlier chains' (the current one may have just begun: it
            // would grow for any full pair, hot keys' included).
            // Below half the load the pair decides (`refusal`), but for
            // small blocks, which grow on any failure (random keys fill one
            // by chance) unless the item's own copies fill half its pair:
            // a step never parts them.
            Err(InsertError::Full { slots, .. }) => {
                let len = self.chain_len();
                let refusal = (!g.half_loaded(len))
                    .then(|| match g.refusal(i1, i2, fp, len, slots) {
                        why @ Some(InsertError::TooManyCopies { .. }) => why,
                        _ if g.small_blocks() => None,
                        why => why,
                    })
                    .flatten();
                Err(refusal.unwrap_or(InsertError::Full { len, slots }))
            }
            other => other,
        }
    }

    /// Enters the gate and loads the state it guards.
    pub(super) fn enter<'g>(&'g self, guard: &'g Guard) -> (gate::Pass<'g>, &'g State<B>) {
        loop {
            if let Some(pass) = self.gate.enter(guard) {
                return (pass, self.state.load(guard));
            }
            self.gate.wait_open();
        }
    }

    /// The refusal of an insert into a full last generation.
    #[cold]
    pub(super) fn at_max_capacity(&self) -> InsertError {
        InsertError::MaxCapacity {
            max_capacity: self.max_capacity(),
            len: self.len(),
        }
    }
}

impl<const B: usize> Generation<B> {
    /// `copies` as this generation takes them: [`Copies::Bounded`] only
    /// where its fingerprints are wide enough ([`bounded_from_width`]).
    #[inline(always)]
    pub(super) fn copies(&self, copies: Copies) -> Copies {
        match copies {
            Copies::Bounded => self.copies,
            other => other,
        }
    }

    /// Why an item whose displacement search failed far below the load
    /// the generation grows at is refused, if growing would not make room
    /// for it; `None` if it would (the filter then grows).
    ///
    /// What a search cannot get out of the item's bucket pair, growth
    /// cannot either when every slot of the pair holds a fingerprint whose
    /// own pair is this one: fingerprints of the item's key (copies of it,
    /// or of items colliding with it: [`InsertError::TooManyCopies`]), or
    /// of distinct keys aimed at this one pair ([`InsertError::Crowded`]);
    /// they may agree on every spare bit, and growing for them would double
    /// the memory without separating them. Random keys of 6 bits or more
    /// practically never fill a pair with items of that pair alone, so
    /// this is the mark of keys chosen to collide; shorter keys do it by
    /// chance, and `attempt` then places the item in an earlier chain or
    /// starts the next one where it can (`insert_earlier_chains`,
    /// chains.rs). Where any slot holds an item of another pair, the search
    /// failed because the buckets around are full: keys with a
    /// few copies each (copies of a key go to one pair, so they fill
    /// buckets as a fraction as many larger items would) do that at a third
    /// of the load distinct keys reach, and growing, which splits every
    /// block, makes room as it does for distinct keys. Unless the item's
    /// key already fills half its pair or more (`B` fingerprints of it, or
    /// `B / 2` of a pair that is one bucket): a
    /// step never parts copies, and at most frees the other items' slots
    /// beside them for a doubling of the memory, so such a key is refused
    /// `TooManyCopies` whatever else its pair holds.
    #[cold]
    fn refusal(
        &self,
        i1: usize,
        i2: usize,
        fp: u32,
        len: usize,
        slots: usize,
    ) -> Option<InsertError> {
        let key = self.addr.key(fp);
        let pair: &[usize] = if i2 == i1 { &[i1] } else { &[i1, i2] };
        let (mut copies, mut others) = (0, false);
        for &i in pair {
            let bucket = self.table.load_bucket(i);
            for j in 0..B {
                match self.table.lane(&bucket, j) {
                    // A free slot: a remove raced the search.
                    0 => return None,
                    other if self.addr.key(other) == key => copies += 1,
                    // An item of another pair: not a pair crowded by its
                    // own items.
                    other => others |= !pair.contains(&self.table.alt(i, other)),
                }
            }
        }
        // Half the pair: `b` slots of two buckets, half of one.
        if copies * 2 >= pair.len() * B {
            Some(InsertError::TooManyCopies { copies })
        } else if others {
            None
        } else {
            Some(InsertError::Crowded { len, slots })
        }
    }
}

/// The narrowest stored fingerprint at which a generation keeps at most a
/// bucket's worth of one key's copies in its pair ([`Copies::Bounded`]):
/// where `b + 1` distinct items of a pair share one fingerprint no more
/// often than once in 2^32 inserts into full pairs (`C(2b, b) / 2^(w b)`).
/// Narrower fingerprints (short keys, 2-slot buckets) cannot tell copies
/// of one key from distinct items, and take copies as a fixed table does.
pub(super) const fn bounded_from_width(b: usize) -> u32 {
    match b {
        2 => 18,
        4 => 10,
        _ => 6,
    }
}
