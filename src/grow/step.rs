//! Growth steps: freezing the current generation, copying it a chunk at a
//! time, and finishing (the next generation's memory: `pages.rs`).

use super::*;
use crate::sync::TryLockError;
use crate::table::with_width;
use std::mem::MaybeUninit;

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
    /// True if this call copied either.
    pub(super) fn copy_chunks_of(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        item: NestedItem,
        guard: &Guard,
    ) -> Result<bool, InsertError> {
        let (j1, j2, _) = m.from.addr.place(item);
        let first = self.copy_chunk(state, m, j1 / CHUNK_BUCKETS, guard)?;
        Ok(self.copy_chunk(state, m, j2 / CHUNK_BUCKETS, guard)? | first)
    }

    /// Copies chunk `c` of the frozen generation into the current one,
    /// unless it is copied already (or waits while another thread copies
    /// it). If the current generation has no room for a fingerprint (only
    /// possible with crafted hashes: it is held under [`migration_load`]),
    /// the chunk is left to be resumed from that fingerprint and the error
    /// returned; the frozen generation still answers for every item. True
    /// if this call copied it.
    pub(super) fn copy_chunk(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        c: usize,
        guard: &Guard,
    ) -> Result<bool, InsertError> {
        let chunk = &m.chunks[c];
        // Most asks find the chunk copied: one load, no locked instruction.
        if chunk.state.load(Ordering::Acquire) == DONE {
            return Ok(false);
        }
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
                DONE => return Ok(false),
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
        // room by displacement, only into buckets whose share is copied (or
        // is this chunk's): what another chunk's copy will fill stays free.
        let ready = |b: usize| {
            let k = m.chunk_of(b);
            k == c || m.chunks[k].state.load(Ordering::Acquire) == DONE
        };
        for (k, &(to, fp)) in rest.iter().enumerate() {
            if let Err(e) = state.cur.table.insert_where(to, fp, Copies::Any, &ready) {
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
        Ok(true)
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
        // A copy of the addressing: read through `m`, which holds atomics,
        // its fields were loaded again for every fingerprint.
        let addr = from.addr;
        let n = from.buckets();
        let first = c * CHUNK_BUCKETS;
        let end = (first + CHUNK_BUCKETS).min(n);
        // On the stack: a writer's share of a step allocates nothing (8:
        // the largest bucket size, as `B` cannot size an array here). Not
        // zeroed first: that took 11 of the 767 instructions of an insert
        // at 8x (callgrind, `lookup_instructions g4x10`).
        let mut low = [MaybeUninit::<(usize, u32)>::uninit(); CHUNK_BUCKETS * 8];
        let mut high = [MaybeUninit::<(usize, u32)>::uninit(); CHUNK_BUCKETS * 8];
        let (mut lows, mut highs) = (0, 0);
        // The target ranges' lines asked for while the source's are read.
        let table = &state.cur.table;
        for i in [first, end - 1, first + n, end - 1 + n] {
            table.prefetch(i);
        }
        with_width!(&from.table, t => {
            for i in first..end {
                let bucket = t.load_bucket(i);
                for j in 0..B {
                    let fp = t.lane(&bucket, j);
                    if fp != 0 {
                        let (to, fp2) = addr.split(i, fp);
                        if to < n {
                            low[lows].write((to, fp2));
                            lows += 1;
                        } else {
                            high[highs].write((to, fp2));
                            highs += 1;
                        }
                    }
                }
            }
        });
        // SAFETY: the first `lows` entries of `low` and `highs` of `high`
        // were written just above, and `MaybeUninit<T>` is laid out as `T`.
        let (low, high) = unsafe {
            (
                std::slice::from_raw_parts(low.as_ptr().cast::<(usize, u32)>(), lows),
                std::slice::from_raw_parts(high.as_ptr().cast::<(usize, u32)>(), highs),
            )
        };
        let mut rest = Vec::new();
        with_width!(table, t => {
            t.fill_range(first, end, low, &mut rest);
            t.fill_range(first + n, end + n, high, &mut rest);
        });
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
            self.state
                .replace(state.then(Arc::clone(&state.cur), None), guard);
            super::pages::collapse_in_background(&state.cur);
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
            return match self.next_chain(&cur.addr) {
                Some(addr) => self.start_chain(state, addr, guard),
                None => {
                    self.topped_out.store(true, Ordering::Relaxed);
                    Err(self.at_max_capacity())
                }
            };
        }
        let addr = cur.addr.next();
        let prepared = self.next.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.next_done.store(0, Ordering::Relaxed);
        let next = match prepared {
            Some((next, _)) if next.addr.order() == addr.order() => next,
            _ => Arc::new(self.generation(addr)?),
        };
        let slots = next.buckets() * B;
        if !self.gate.close() {
            return Err(InsertError::GrowthBlocked);
        }
        // Frozen: no write to `cur` is in flight, none starts. Its count
        // is final.
        let frozen_len = cur.table.len();
        self.longest_retired.raise(cur.table.longest_path());
        let chunks = cur.buckets().div_ceil(CHUNK_BUCKETS);
        let block_slots = next.addr.local * B;
        let budget = (slots as f64 * migration_load(B, block_slots)) as i64 - frozen_len as i64;
        self.state.replace(
            state.then(
                next,
                Some(Migration {
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
            ),
            guard,
        );
        self.gate.open();
        // The insert that grew the filter now tries again, and copies its
        // share of the step as every writer after it does.
        Ok(())
    }

    /// A new, empty generation addressed by `addr`, or why growth failed.
    pub(super) fn generation(&self, addr: Nested) -> Result<Generation<B>, InsertError> {
        Generation::new(addr, self.capacity << addr.level(), self.huge_pages).map_err(|e| match e {
            BuildError::AllocationFailed { bytes } => InsertError::GrowthFailed { bytes },
            _ => InsertError::GrowthFailed { bytes: usize::MAX },
        })
    }
}

/// Where a chunk's copy is counted done ([`Growable::count_done_when`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Publish {
    BeforeCopy,
    AfterCopy,
}
