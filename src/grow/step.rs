//! Growth steps: preparing the next generation, freezing the current one,
//! copying it a chunk at a time, and finishing.

use super::*;
use crate::sync::TryLockError;
use crate::table::{collapses, takes_huge_pages, with_width};
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

    /// One insert's turn at preparing the generation after `g`: allocates
    /// it (its memory not yet backed) and hands the backing to a thread of
    /// its own; or, where no such thread could start, backs one more piece
    /// of it (one huge page, or 256 KiB); or, if another thread is at it or
    /// it is ready, nothing. An allocation that fails is left to the step,
    /// which reports it.
    ///
    /// Only where the next table will be on huge pages (Linux, huge pages
    /// on, 4 MiB or more: [`takes_huge_pages`]), whose first touch may
    /// stall on the kernel's compaction. A smaller one is allocated by the
    /// step and backed 4 KiB at a time by the writes that first touch it, a
    /// page fault of about 3 us each on this project's 2-core host;
    /// prepared ahead, it would double what a small filter holds (and
    /// `memory_usage` reports) for the last fifth of each generation: 4.5
    /// to 6.2 times a fixed filter's memory at the checkpoints where it was
    /// held, from 10,000 to 1.2M items. Heap memory (`huge_pages(false)`,
    /// other systems) is not backed ahead either, nor is any table where
    /// the kernel collapses ranges on request ([`collapses`]): there a
    /// huge table too is allocated by the step, filled on 4 KiB pages and
    /// moved onto huge ones after it ([`collapse_in_background`]).
    #[cold]
    pub(super) fn prepare_next(&self, g: &Generation<B>) {
        // A new chain's first table is a quarter of the last one's: the
        // step allocates it, and the writes back it.
        // Where the kernel collapses ranges on request, the next table
        // waits on 4 KiB pages and is moved to huge ones after its step
        // ([`collapse_in_background`]): nothing is held ahead.
        if !PREPARES || !self.huge_pages || g.addr.depth == g.addr.spare || collapses() {
            return;
        }
        // `next_done`'s mark for the next generation: its order, plus 1
        // (0 means none). One deeper in the same chain, its order is this
        // one's plus 1: asked on most inserts near the load, so not by
        // building it (`Nested::next` divides by the block's buckets).
        let depth = g.addr.order() + 2;
        debug_assert_eq!(depth, g.addr.next().order() + 1);
        if self.next_done.load(Ordering::Relaxed) == depth {
            return;
        }
        if !takes_huge_pages(Generation::<B>::table_bytes_at(g.addr.next()), true) {
            // Nothing to back ahead: the step allocates it.
            self.next_done.store(depth, Ordering::Relaxed);
            return;
        }
        let Ok(mut next) = self.next.try_lock() else {
            return;
        };
        let done = match &mut *next {
            Some((n, backed)) if n.addr.order() + 1 == depth => {
                if !n.table.populate_part(*backed) {
                    *backed = BACKED;
                } else {
                    *backed += 1;
                }
                *backed == BACKED
            }
            _ => {
                let addr = g.addr.next();
                *next = Generation::new(addr, self.capacity << addr.level(), self.huge_pages)
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
            collapse_in_background(&state.cur);
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

/// Starts a thread that backs `next`'s memory, every piece in turn, so that
/// no insert pays for it: backing a huge page can take the kernel
/// milliseconds when it must first compact memory to find one, and
/// measured so inside inserts (`benches/src/bin/growth_latency.rs`). The thread
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

/// Starts a thread that moves `g`'s table onto huge pages a piece at a
/// time, if it waits on 4 KiB pages for that (`Table::collapses_later`: a
/// huge table of a growth step, where the kernel collapses ranges on
/// request): called once nothing more is copied into it, so every piece
/// holds what the step moved there. Its writes faulted in 4 KiB pages,
/// never the kernel's huge-page fault, and nothing was held ahead of the
/// step; the lookups read it on huge pages again once the thread is
/// through. The thread stops early once the generation is retired or the
/// filter dropped (its reference is then the last). One that cannot start
/// leaves the table on 4 KiB pages: slower lookups, nothing lost.
pub(super) fn collapse_in_background<const B: usize>(g: &Arc<Generation<B>>) {
    #[cfg(not(any(cuckoo_nest_loom, miri)))]
    if g.table.collapses_later() {
        let g = Arc::clone(g);
        let _ = std::thread::Builder::new()
            .name("cuckoo-nest-huge".into())
            .spawn(move || {
                let mut k = 0;
                while Arc::strong_count(&g) > 1
                    && !g.retired.load(crate::sync::process::Ordering::Relaxed)
                    && g.table.collapse_part(k)
                {
                    k += 1;
                }
            });
    }
    #[cfg(any(cuckoo_nest_loom, miri))]
    let _ = g;
}

/// Where a chunk's copy is counted done ([`Growable::count_done_when`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Publish {
    BeforeCopy,
    AfterCopy,
}
