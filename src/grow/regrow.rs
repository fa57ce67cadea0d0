//! Mending a growth step whose copy found no room: the generations are
//! rebuilt into a larger one with the writers stopped (docs/design.md, "A
//! copy that finds no room"). A rare path beside the step's own.

use super::*;

impl<const B: usize> Growable<B> {
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
            let addr = cur.addr.at_depth(depth);
            let next = match Generation::new(addr, self.capacity << addr.level(), self.huge_pages) {
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
                let longest = cur.table.longest_path().max(m.from.table.longest_path());
                self.longest_retired.raise(longest);
                m.from.retire();
                cur.retire();
                let at = next.addr.order();
                let next = Arc::new(next);
                self.state
                    .replace(state.then(Arc::clone(&next), None), guard);
                super::pages::collapse_in_background(&next);
                // A generation prepared for a depth passed is no use.
                let mut prepared = self.next.lock().unwrap_or_else(|e| e.into_inner());
                if prepared.as_ref().is_some_and(|(n, _)| n.addr.order() <= at) {
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
            && broken::left_over_put(|| {
                left_over
                    .iter()
                    .all(|(_, rest)| rest.iter().all(|&(i, fp)| put(&state.cur.addr, i, fp)))
            })
    }
}
