//! Removes and `clear`: writers that take items out, through the same gate
//! and section as inserts (write.rs).

use super::*;

impl<const B: usize> Growable<B> {
    /// Removes one copy of `hash`'s fingerprint, if there is one: from
    /// the newest chain that holds one (docs/design.md, "Growth past the
    /// spare bits": an entry that matches the item in a newer chain
    /// agrees with it on everything an older chain stores, so the one
    /// taken is never the only entry another item is found by).
    pub(crate) fn remove(&self, hash: u64) -> bool {
        let guard = pin();
        let (pass, state) = self.enter(&guard);
        let item = state.cur.addr.item(hash);
        // Set if the item's chunks could not be copied and the frozen
        // generation holds a match: the current chain has one, which no
        // write may take from there.
        let mut frozen_only = false;
        if let Some(m) = &state.migration {
            // If the copy stopped for lack of room (see `copy_chunk`), the
            // item may still be only in the frozen generation: the remove
            // then finds nothing here and says so; nothing is lost. Nor
            // does it go on to the earlier chains: the newest chain with a
            // match is this one, and a match an earlier chain holds may be
            // the only entry of another item (tests.rs,
            // `a_remove_meeting_a_stuck_copy_takes_nothing_from_earlier_chains`).
            broken::copy_before_remove(|| {
                if self.copy_chunks_of(state, m, item, &guard).is_err() {
                    let (j1, _, fq) = m.from.addr.place(item);
                    frozen_only = m.from.table.count(j1, fq) > 0;
                }
            });
        }
        let (i1, _, fp) = state.cur.addr.place(item);
        let removed = broken::chains_remove(state.older.len(), |chain| match chain {
            None => state.cur.table.remove(i1, fp),
            Some(_) if frozen_only => false,
            Some(k) => {
                let g = &state.older[k];
                let (j1, _, fq) = g.addr.place(g.addr.item(hash));
                g.table.remove(j1, fq)
            }
        });
        if removed && self.topped_out.load(Ordering::Relaxed) {
            self.topped_out.store(false, Ordering::Relaxed);
        }
        let copied_all = match &state.migration {
            Some(m) => self.help(state, m, &guard),
            None => false,
        };
        drop(pass);
        drop(guard);
        if copied_all {
            self.state.reclaim(RECLAIM_ROUNDS);
        }
        removed
    }

    /// Empties the filter, keeping its current size. A growth step under
    /// way is finished first (so no chunk copied later brings items back).
    pub(crate) fn clear(&self) {
        {
            let guard = pin();
            let _lock = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
            let state = self.state.load(&guard);
            if let Some(m) = &state.migration
                && self.finish(state, m, &guard).is_err()
            {
                // The copy has no room (crafted hashes): drop the
                // frozen generation's items instead of copying them;
                // writers wait at the gate meanwhile. (If the gate's
                // barrier fails, the frozen generation stays; clearing
                // the current one below is still right.)
                if self.gate.close() {
                    m.from.retire();
                    self.state
                        .replace(state.then(Arc::clone(&state.cur), None), &guard);
                }
            }
            // Every chain's table, kept (a save of the filter names its
            // chains: `persist.rs`).
            let state = self.state.load(&guard);
            for g in state.older.iter().chain([&state.cur]) {
                g.table.clear();
            }
            self.topped_out.store(false, Ordering::Relaxed);
            // Empty, the filter is far from its next step: give back the
            // next generation inserts may have prepared.
            *self.next.lock().unwrap_or_else(|e| e.into_inner()) = None;
            self.next_done.store(0, Ordering::Relaxed);
            self.gate.open();
        }
        self.state.reclaim(RECLAIM_ROUNDS);
    }
}
