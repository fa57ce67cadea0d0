//! Growth steps: preparing the next generation, freezing the current one,
//! copying it a chunk at a time, and finishing.

use super::*;
use crate::sync::TryLockError;

impl<const B: usize> Growable<B> {
    /// A writer's share of a growth step under way: copies up to
    /// [`HELP_CHUNKS`] chunks no one has claimed yet. So no one insert
    /// copies the whole generation: the step is spread over the writers
    /// that come after it, a bounded amount each (an idle filter finishes
    /// it with its next writes). Returns true once every chunk is copied.
    /// A chunk left for lack of room (crafted hashes only) waits for
    /// [`Self::finish`].
    pub(super) fn help(&self, state: &State<B>, m: &Migration<B>, guard: &Guard) -> bool {
        let n = m.chunks.len() as u64;
        for _ in 0..HELP_CHUNKS {
            let c = m.cursor.fetch_add(1, Ordering::Relaxed);
            if c >= n {
                break;
            }
            if self.copy_chunk(state, m, c as usize, guard).is_err() {
                break;
            }
        }
        m.left.load(Ordering::Acquire) == 0
    }

    /// One insert's turn at preparing the generation after `g`: allocates
    /// it (its memory not yet backed) and hands the backing to a thread of
    /// its own; or, where no such thread could start, backs one more piece
    /// of it (one huge page, or 256 KiB); or, if another thread is at it or
    /// it is ready, nothing. An allocation that fails is left to the step,
    /// which reports it.
    ///
    /// Only where the next table will be a mapping of its own (Linux, huge
    /// pages on): heap memory (`huge_pages(false)`, other systems) is not
    /// backed ahead, so preparing it would only hold its memory longer.
    #[cold]
    pub(super) fn prepare_next(&self, g: &Generation<B>) {
        let depth = u64::from(g.addr.depth + 1);
        if !PREPARES
            || !self.huge_pages
            || g.addr.depth == g.addr.spare
            || self.next_done.load(Ordering::Relaxed) == depth
        {
            return;
        }
        let Ok(mut next) = self.next.try_lock() else {
            return;
        };
        let done = match &mut *next {
            Some((n, backed)) if u64::from(n.addr.depth) == depth => {
                if !n.table.populate_part(*backed) {
                    *backed = BACKED;
                } else {
                    *backed += 1;
                }
                *backed == BACKED
            }
            _ => {
                let addr = g.addr.next();
                *next = Generation::new(addr, self.capacity << addr.depth, self.huge_pages)
                    .ok()
                    .map(|n| {
                        let n = Arc::new(n);
                        let backed = if back_in_background(&n) { BACKED } else { 0 };
                        (n, backed)
                    });
                // A refused allocation is left to the step to report.
                next.as_ref().is_none_or(|(_, backed)| *backed == BACKED)
            }
        };
        if done {
            self.next_done.store(depth, Ordering::Relaxed);
        }
    }

    /// Copies what a growth step under way has left to copy (growing
    /// again if the copy finds no room: [`Self::regrow`]), then frees the
    /// old table: the step is over when this returns (unless keys crafted
    /// to share a bucket pair left a chunk no room to go, which the next
    /// writes retry). Returns true if a step was under way.
    pub(crate) fn finish_growth(&self) -> bool {
        let was_under_way = {
            let guard = pin();
            let _lock = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
            let state = self.state.load(&guard);
            match &state.migration {
                Some(m) => {
                    let _ = self.finish_or_regrow(state, m, &guard);
                    true
                }
                None => false,
            }
        };
        if was_under_way {
            self.state.reclaim(RECLAIM_ROUNDS);
        }
        was_under_way
    }

    /// Copies the chunks of the frozen generation that hold `hash`'s
    /// buckets, so every copy of its fingerprint is in the current one.
    pub(super) fn copy_chunks_of(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        item: NestedItem,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let (j1, j2, _) = m.from.addr.place(item);
        self.copy_chunk(state, m, j1 / CHUNK_BUCKETS, guard)?;
        self.copy_chunk(state, m, j2 / CHUNK_BUCKETS, guard)
    }

    /// Copies chunk `c` of the frozen generation into the current one,
    /// unless it is copied already (or waits while another thread copies
    /// it). If the current generation has no room for a fingerprint (only
    /// possible with crafted hashes: it is held under [`migration_load`]),
    /// the chunk is left to be resumed from that fingerprint and the error
    /// returned; the frozen generation still answers for every item.
    pub(super) fn copy_chunk(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        c: usize,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let chunk = &m.chunks[c];
        let spin = Spin::new();
        // Claimed from `LEFT_OVER`: a copy that stopped, to resume.
        let resumed = 'claim: loop {
            for from in [PENDING, LEFT_OVER] {
                if chunk
                    .state
                    .compare_exchange(from, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    break 'claim from == LEFT_OVER;
                }
            }
            match chunk.state.load(Ordering::Acquire) {
                DONE => return Ok(()),
                BUSY => spin.wait(),
                _ => {}
            }
        };
        self.count_done_when(Publish::BeforeCopy, state, m, guard);
        let (rest, mut moved) = if resumed {
            let mut left = m.left_over.lock().unwrap_or_else(|e| e.into_inner());
            let at = left
                .iter()
                .position(|(k, _)| *k == c)
                .expect("a chunk left over has its rest waiting");
            (left.swap_remove(at).1, 0)
        } else {
            self.fill_chunk(state, m, c)
        };
        // What did not fit its bucket: the table's own inserts, which make
        // room by displacement.
        for (k, &(to, fp)) in rest.iter().enumerate() {
            if let Err(e) = state.cur.table.insert(to, fp, Copies::Any) {
                m.moved.fetch_add(moved, Ordering::Relaxed);
                m.left_over
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((c, rest[k..].to_vec()));
                chunk.state.store(LEFT_OVER, Ordering::Release);
                return Err(e);
            }
            moved += 1;
        }
        m.moved.fetch_add(moved, Ordering::Relaxed);
        chunk.state.store(DONE, Ordering::Release);
        self.count_done_when(Publish::AfterCopy, state, m, guard);
        Ok(())
    }

    /// The first pass over chunk `c`: reads its buckets (the frozen
    /// generation is never written again: plain relaxed loads see its final
    /// contents), and stores each fingerprint, one bit narrower, in a free
    /// slot of its bucket one generation up, under the locks of each of the
    /// two target ranges taken once. Returns what did not fit, and how many
    /// went in.
    pub(super) fn fill_chunk(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        c: usize,
    ) -> (Vec<(usize, u32)>, u64) {
        let from = &m.from;
        let n = from.buckets();
        let first = c * CHUNK_BUCKETS;
        let end = (first + CHUNK_BUCKETS).min(n);
        // On the stack: a writer's share of a step allocates nothing (8:
        // the largest bucket size, as `B` cannot size an array here).
        let mut low = [(0usize, 0u32); CHUNK_BUCKETS * 8];
        let mut high = [(0usize, 0u32); CHUNK_BUCKETS * 8];
        let (mut lows, mut highs) = (0, 0);
        for i in first..end {
            let bucket = from.table.load_bucket(i);
            for j in 0..B {
                let fp = from.table.lane(&bucket, j);
                if fp != 0 {
                    let (to, fp2) = from.addr.split(i, fp);
                    if to < n {
                        low[lows] = (to, fp2);
                        lows += 1;
                    } else {
                        high[highs] = (to, fp2);
                        highs += 1;
                    }
                }
            }
        }
        let mut rest = Vec::new();
        let table = &state.cur.table;
        table.fill_range(first, end, &low[..lows], &mut rest);
        table.fill_range(first + n, end + n, &high[..highs], &mut rest);
        let stored = (lows + highs - rest.len()) as u64;
        (rest, stored)
    }

    /// Counts chunk `m`'s copy done at the moment `when` names: once its
    /// fingerprints are in the new generation (`AfterCopy`), never before.
    #[inline]
    fn count_done_when(&self, when: Publish, state: &State<B>, m: &Migration<B>, guard: &Guard) {
        let early = broken::GROW_PUBLISH_EARLY;
        if (when == Publish::BeforeCopy) == early {
            self.count_done(state, m, guard);
        }
    }

    /// Counts a chunk copied; after the last, publishes the state with
    /// nothing migrating: the frozen generation answers for nothing the
    /// current one does not hold. Only one thread takes `left` to zero.
    pub(super) fn count_done(&self, state: &State<B>, m: &Migration<B>, guard: &Guard) {
        if m.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            m.from.retire();
            self.state.replace(
                State {
                    cur: Arc::clone(&state.cur),
                    migration: None,
                },
                guard,
            );
        }
    }

    /// Copies every chunk not yet copied (claiming them from a shared
    /// cursor, so helpers split the work), then waits for those others
    /// hold; returns once the migration is over.
    pub(super) fn finish(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let n = m.chunks.len() as u64;
        loop {
            let c = m.cursor.fetch_add(1, Ordering::Relaxed);
            if c >= n {
                break;
            }
            self.copy_chunk(state, m, c as usize, guard)?;
        }
        // Chunks another thread holds, or left to resume.
        for c in 0..m.chunks.len() {
            self.copy_chunk(state, m, c, guard)?;
        }
        Ok(())
    }

    /// [`Self::finish`], and if the copy finds no room, [`Self::regrow`].
    /// The caller holds the growth lock.
    pub(super) fn finish_or_regrow(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        match self.finish(state, m, guard) {
            Ok(()) => Ok(()),
            Err(e) => self.regrow(state, m, guard, e),
        }
    }

    /// A growth step whose copy found no room in the new generation: the
    /// frozen generation's share of a block landed in one half of its
    /// split, more than that half holds. Blocks of a few dozen slots split
    /// that unevenly by chance, and so do blocks of any size holding many
    /// copies of few keys (copies never split). Left so, the step could
    /// never end and no later step start: every insert that found its
    /// buckets full would fail below the ceiling.
    ///
    /// With the writers stopped at the gate and every chunk of the copy
    /// held, rebuilds both generations into a table one doubling larger
    /// than the current one (failing that, two; with small blocks, as many
    /// as are left), which splits every block again, and publishes it with
    /// nothing migrating. Lookups go on
    /// meanwhile in the two generations as they are (nothing writes them);
    /// the rebuilt table is not published until it holds every item. A
    /// stop for the writers as long as the copy, but only on this rare
    /// path: a step's ordinary copy stays spread over the writes after it.
    ///
    /// If no rebuilt table takes every item (keys crafted to share a bucket
    /// pair and its spare bits), or the current generation is the last,
    /// everything is left as it was and `err` (or `MaxCapacity`) returned.
    /// The caller holds the growth lock.
    #[cold]
    fn regrow(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        guard: &Guard,
        err: InsertError,
    ) -> Result<(), InsertError> {
        let cur = &state.cur;
        if cur.addr.depth == cur.addr.spare {
            self.topped_out.store(true, Ordering::Relaxed);
            return Err(self.at_max_capacity());
        }
        if !self.gate.close() {
            return Err(InsertError::GrowthBlocked);
        }
        // Hold every chunk: no copier (`finish` runs outside the gate) then
        // writes the current generation, and none publishes the end of
        // this migration, which counts a chunk done only after holding it.
        let spin = Spin::new();
        let held: Vec<u8> = m
            .chunks
            .iter()
            .map(|chunk| loop {
                match chunk.state.load(Ordering::Acquire) {
                    DONE => break DONE,
                    BUSY => spin.wait(),
                    s => {
                        if chunk
                            .state
                            .compare_exchange(s, BUSY, Ordering::Acquire, Ordering::Relaxed)
                            .is_ok()
                        {
                            break s;
                        }
                    }
                }
            })
            .collect();
        if held.iter().all(|&s| s == DONE) {
            // Others finished the copy meanwhile (removes made room): the
            // last of them publishes its end; the insert tries again.
            self.gate.open();
            return Ok(());
        }
        let left_over = m.left_over.lock().unwrap_or_else(|e| e.into_inner());
        // Small blocks split unevenly, and keep two items whose two buckets
        // are one and the same together until a spare bit tells them
        // apart: they may take every doubling left (their tables stay
        // small: under 1,024 slots a block). Larger blocks try two.
        let tries = if cur.addr.local * B < SMALL_BLOCK_SLOTS {
            usize::MAX
        } else {
            2
        };
        let mut outcome = Err(err);
        for depth in (cur.addr.depth + 1..=cur.addr.spare).take(tries) {
            let addr = Nested::new(depth, cur.addr.local, cur.addr.key_bits, cur.addr.spare);
            let next = match Generation::new(addr, self.capacity << depth, self.huge_pages) {
                Ok(next) => next,
                Err(BuildError::AllocationFailed { bytes }) => {
                    outcome = Err(InsertError::GrowthFailed { bytes });
                    break;
                }
                Err(_) => {
                    outcome = Err(InsertError::GrowthFailed { bytes: usize::MAX });
                    break;
                }
            };
            if Self::rebuild_into(&next, state, m, &held, &left_over) {
                outcome = Ok(next);
                break;
            }
        }
        drop(left_over);
        let result = match outcome {
            Ok(next) => {
                if !cfg!(cuckoo_nest_loom) {
                    // A statistic, not a protocol step: kept out of the models.
                    let longest = cur.table.longest_path().max(m.from.table.longest_path());
                    self.longest_retired.fetch_max(longest, Ordering::Relaxed);
                }
                m.from.retire();
                cur.retire();
                let depth = next.addr.depth;
                self.state.replace(
                    State {
                        cur: Arc::new(next),
                        migration: None,
                    },
                    guard,
                );
                // A generation prepared for a depth passed is no use.
                let mut prepared = self.next.lock().unwrap_or_else(|e| e.into_inner());
                if prepared
                    .as_ref()
                    .is_some_and(|(n, _)| n.addr.depth <= depth)
                {
                    *prepared = None;
                    self.next_done.store(0, Ordering::Relaxed);
                }
                // Copiers waiting on a chunk of the old migration see it
                // done (none is counted, so none publishes its end).
                for chunk in m.chunks.iter() {
                    chunk.state.store(DONE, Ordering::Release);
                }
                Ok(())
            }
            Err(e) => {
                for (chunk, &s) in m.chunks.iter().zip(&held) {
                    chunk.state.store(s, Ordering::Release);
                }
                Err(e)
            }
        };
        self.gate.open();
        result
    }

    /// Inserts into `next` every item the migration `m` answers for: the
    /// current generation's, the frozen generation's chunks not yet read
    /// (`held` as `PENDING`), and what copies that stopped left over. True
    /// if every one went in.
    fn rebuild_into(
        next: &Generation<B>,
        state: &State<B>,
        m: &Migration<B>,
        held: &[u8],
        left_over: &[(usize, Placements)],
    ) -> bool {
        let put = |from: &Nested, i: usize, fp: u32| {
            let (j1, _, fp) = next.addr.place(from.item_at(i, fp));
            next.table.insert(j1, fp, Copies::Any).is_ok()
        };
        let every = |g: &Generation<B>, buckets: std::ops::Range<usize>| {
            buckets.into_iter().all(|i| {
                let bucket = g.table.load_bucket(i);
                (0..B).all(|j| match g.table.lane(&bucket, j) {
                    0 => true,
                    fp => put(&g.addr, i, fp),
                })
            })
        };
        let frozen = m.from.buckets();
        every(&state.cur, 0..state.cur.buckets())
            && held.iter().enumerate().all(|(c, &s)| {
                s != PENDING
                    || every(
                        &m.from,
                        c * CHUNK_BUCKETS..((c + 1) * CHUNK_BUCKETS).min(frozen),
                    )
            })
            && (broken::REGROW_SKIPS_LEFT_OVER
                || left_over
                    .iter()
                    .all(|(_, rest)| rest.iter().all(|&(i, fp)| put(&state.cur.addr, i, fp))))
    }

    /// A growth step (module docs), after an insert found generation `seen`
    /// full. Returns `Ok` when the insert should try again: another thread
    /// grew the filter meanwhile, a migration under way was finished, this
    /// step grew it, or a save holds the growth lock (or waits for it)
    /// and the insert has not yet tried displacement (`displaced` false):
    /// it then makes room by displacement past the load it grows at, and
    /// waits for the save's I/O only if that finds no room.
    #[cold]
    pub(super) fn grow(&self, seen: usize, displaced: bool) -> Result<(), InsertError> {
        let result = {
            let guard = pin();
            let Some(_lock) = self.lock_for_step(displaced) else {
                return Ok(());
            };
            self.grow_step(seen, &guard)
        };
        // Outside any section of this thread (a section of its own would
        // keep every retired state alive): the retired states, and with the
        // last of them the frozen generation, whose unmapping takes
        // milliseconds, are freed here, on the thread that grew the filter,
        // never on a lookup's.
        self.state.reclaim(RECLAIM_ROUNDS);
        result
    }

    /// The growth lock for a step; `None` if a save holds it or waits for
    /// it while `displaced` is false (see [`Self::grow`]). The lock is
    /// tried, not waited on, until it is had or a save is counted, so an
    /// insert that started waiting for a step never ends up waiting behind
    /// a save that came later; the wait is a step's (spinning, then
    /// yielding). An insert that displaced and found no room waits for the
    /// lock, the save's included.
    fn lock_for_step(&self, displaced: bool) -> Option<impl Sized + '_> {
        if displaced {
            return Some(self.grow_lock.lock().unwrap_or_else(|e| e.into_inner()));
        }
        let spin = Spin::new();
        loop {
            match self.grow_lock.try_lock() {
                Ok(lock) => return Some(lock),
                Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
            if self.saving.load(Ordering::Relaxed) != 0 {
                return None;
            }
            spin.wait();
        }
    }

    /// [`Self::grow`] under the growth lock and a section.
    pub(super) fn grow_step(&self, seen: usize, guard: &Guard) -> Result<(), InsertError> {
        let state = self.state.load(guard);
        if Arc::as_ptr(&state.cur) as usize != seen {
            return Ok(());
        }
        if let Some(m) = &state.migration {
            // The current generation filled while it was still being
            // copied into: finish the copy; the insert tries again, and
            // grows the filter if it is still full.
            return self.finish_or_regrow(state, m, guard);
        }
        let cur = &state.cur;
        if cur.addr.depth == cur.addr.spare {
            self.topped_out.store(true, Ordering::Relaxed);
            return Err(self.at_max_capacity());
        }
        let addr = cur.addr.next();
        let prepared = self.next.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.next_done.store(0, Ordering::Relaxed);
        let next = match prepared {
            Some((next, _)) if next.addr.depth == addr.depth => next,
            _ => Arc::new(
                Generation::new(addr, self.capacity << addr.depth, self.huge_pages).map_err(
                    |e| match e {
                        BuildError::AllocationFailed { bytes } => {
                            InsertError::GrowthFailed { bytes }
                        }
                        _ => InsertError::GrowthFailed { bytes: usize::MAX },
                    },
                )?,
            ),
        };
        let slots = next.buckets() * B;
        if !self.gate.close() {
            return Err(InsertError::GrowthBlocked);
        }
        // Frozen: no write to `cur` is in flight, none starts. Its count
        // is final.
        let frozen_len = cur.table.len();
        if !cfg!(cuckoo_nest_loom) {
            // A statistic, not a protocol step: kept out of the models.
            let longest = cur.table.longest_path();
            self.longest_retired.fetch_max(longest, Ordering::Relaxed);
        }
        let chunks = cur.buckets().div_ceil(CHUNK_BUCKETS);
        let block_slots = next.addr.local * B;
        let budget = (slots as f64 * migration_load(B, block_slots)) as i64 - frozen_len as i64;
        self.state.replace(
            State {
                cur: next,
                migration: Some(Migration {
                    from: Arc::clone(cur),
                    chunks: (0..chunks)
                        .map(|_| Chunk {
                            state: AtomicU8::new(PENDING),
                        })
                        .collect(),
                    left_over: crate::sync::Mutex::new(Vec::new()),
                    left: AtomicU64::new(chunks as u64),
                    cursor: AtomicU64::new(0),
                    moved: AtomicU64::new(0),
                    frozen_len,
                    budget: AtomicI64::new(budget),
                }),
            },
            guard,
        );
        self.gate.open();
        // The insert that grew the filter now tries again, and copies its
        // share of the step as every writer after it does.
        Ok(())
    }
}

/// Starts a thread that backs `next`'s memory, every piece in turn, so that
/// no insert pays for it: backing a huge page can take the kernel
/// milliseconds when it must first compact memory to find one, and
/// measured so inside inserts (`examples/growth_latency.rs`). The thread
/// holds the generation until it is done, so it outlives neither the
/// memory nor, if the filter drops first, more than that. False if no
/// thread could start (the inserts then back it a piece at a time), and
/// always under loom and Miri, where there is no memory to back; true,
/// with no thread, for heap memory, which has no pieces to back.
pub(super) fn back_in_background<const B: usize>(next: &Arc<Generation<B>>) -> bool {
    #[cfg(not(any(cuckoo_nest_loom, miri)))]
    {
        if !next.table.populates() {
            // Heap memory (`huge_pages(false)`): nothing to back ahead.
            return true;
        }
        let next = Arc::clone(next);
        std::thread::Builder::new()
            .name("cuckoo-nest-back".into())
            .spawn(move || {
                let mut k = 0;
                while next.table.populate_part(k) {
                    k += 1;
                }
            })
            .is_ok()
    }
    #[cfg(any(cuckoo_nest_loom, miri))]
    {
        let _ = next;
        false
    }
}

/// Where a chunk's copy is counted done ([`Growable::count_done_when`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Publish {
    BeforeCopy,
    AfterCopy,
}
