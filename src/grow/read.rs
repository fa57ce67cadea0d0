//! Lookups and what a growable filter reports about itself: each a
//! read-side section over the current state, never waiting on a writer or
//! a growth step.

use super::*;

impl<const B: usize> Growable<B> {
    /// True if `hash`'s item is (probably) in the filter. Lock-free: loads
    /// the state, looks in the current generation, and on a miss in the
    /// frozen one of a growth step under way.
    #[inline]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        let guard = pin();
        let state = self.state.load(&guard);
        // One `match` on what the state says a lookup reads
        // ([`State::quick`]): for a first chain of the 1% pick's widths
        // with no step under way, the current table at its width as a
        // constant (with the run-time width's probe a lookup at 8x took
        // 1.07-1.10 times as long: docs/benchmarks.md, "Revisited
        // (2026-12-01)"). Any other 4-slot state (a step under way, a
        // full chain, other widths) is read out of line; the other bucket
        // sizes as the table is, in line. The branch is on "growing?" and
        // "chained?", almost never taken, not on "found?": a shuffled
        // stream of hits and misses mispredicts that half the time, and
        // each misprediction throws away the next lookups' loads in flight
        // (with it, 23.4 ns a lookup at 8x on a 1.85 MB table; without,
        // 16.1 ns: docs/benchmarks.md, "Growth").
        macro_rules! quick {
            ($($f:literal)*) => {
                match if B == 4 { state.quick } else { 0 } {
                    $($f => {
                        // SAFETY: a nonzero `quick` is the width of the
                        // state's current table (`State::new`), which
                        // never changes.
                        let t = unsafe { state.cur.table.at_width_unchecked::<$f>() };
                        t.contains_in_first_chain(hash)
                    })*
                    _ if B == 4 => state.contains_in_chains(hash),
                    _ => state.contains_in_line(hash),
                }
            };
        }
        quick!(10 11 12 13 14 15 16 17)
    }

    /// Looks up the keys whose hashes are `hashes` in one section:
    /// the current generation's pipelined batch loop, then, while a growth
    /// step is under way, the frozen generation for the keys it missed.
    /// Returns how many were found.
    pub(crate) fn contains_many<const D: usize>(&self, hashes: &[u64], out: &mut [bool]) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        let mut found = state.cur.table.contains_many_nested::<D>(hashes, out);
        if let Some(m) = &state.migration {
            for (hit, &hash) in out.iter_mut().zip(hashes) {
                if !*hit && m.frozen_contains(hash) {
                    *hit = true;
                    found += 1;
                }
            }
        }
        if !state.older.is_empty() {
            found += state.older_contain_many(hashes, out);
        }
        found
    }

    /// `config` (the filter's configuration as built or loaded) as of the
    /// current generation: its depth, buckets, capacity and width.
    pub(crate) fn config_now(&self, config: &crate::config::Config) -> crate::config::Config {
        let guard = pin();
        let addr = self.state.load(&guard).cur.addr;
        self.config_at(config, &addr)
    }

    /// `config` as of generation `addr`: its width and buckets, and the
    /// capacity of every chain up to it ([`Self::capacity_factor`]).
    pub(super) fn config_at(
        &self,
        config: &crate::config::Config,
        addr: &Nested,
    ) -> crate::config::Config {
        crate::config::Config {
            fingerprint_bits: addr.width(),
            buckets: addr.buckets(),
            capacity: self.capacity.saturating_mul(Self::capacity_factor(addr)),
            growth: Some(crate::config::Growth {
                key_bits: addr.key_bits,
                spare: addr.spare,
                depth: addr.depth,
                chain: addr.chain(),
                unbounded: self.unbounded,
            }),
            ..*config
        }
    }

    /// The filter's capacity at generation `addr`, in first capacities:
    /// `2^level` for its table, plus each earlier chain's final table's.
    pub(super) fn capacity_factor(addr: &Nested) -> usize {
        addr.earlier_chains()
            .iter()
            .fold(1usize << addr.level(), |factor, a| {
                factor.saturating_add(1usize << a.level())
            })
    }

    /// Bytes of the current generation's table and the earlier chains':
    /// what a save writes.
    pub(crate) fn current_table_bytes(&self) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        state.cur.table.table_bytes() + state.older_sum(|g| g.table.table_bytes())
    }

    /// How many copies of `hash`'s fingerprint its buckets hold, in every
    /// chain.
    pub(crate) fn count(&self, hash: u64) -> usize {
        let guard = pin();
        let (_pass, state) = self.enter(&guard);
        let item = state.cur.addr.item(hash);
        let (i1, _, fp) = state.cur.addr.place(item);
        let older = state.older_sum(|g| {
            let (i1, _, fp) = g.addr.place(g.addr.item(hash));
            g.table.count(i1, fp)
        });
        older
            + match &state.migration {
                Some(m) if self.copy_chunks_of(state, m, item, &guard).is_err() => {
                    // A chunk could not be copied: its items are still in the
                    // frozen generation, those copied since in the current one.
                    let (j1, _, fq) = m.from.addr.place(item);
                    let in_frozen = m.from.table.count(j1, fq);
                    state.cur.table.count(i1, fp).max(in_frozen)
                }
                _ => state.cur.table.count(i1, fp),
            }
    }

    /// Items held: inserts minus removes, exact when no write is in flight.
    pub(crate) fn len(&self) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        state.older_sum(|g| g.table.len()) + self.chain_len_in(state)
    }

    /// Items in the current chain: [`Self::len`] less the earlier chains'.
    pub(super) fn chain_len(&self) -> usize {
        let guard = pin();
        self.chain_len_in(self.state.load(&guard))
    }

    /// [`Self::chain_len`] of `state`.
    fn chain_len_in(&self, state: &State<B>) -> usize {
        let cur = state.cur.table.len();
        match &state.migration {
            Some(m) => cur + m.frozen_len - m.moved.load(Ordering::Relaxed) as usize,
            None => cur,
        }
    }

    /// Where growth stops: the first generation's capacity times `2^spare`;
    /// without a maximum capacity, the capacity of every chain the hash has
    /// bits for, saturated at `usize::MAX` (on a 64-bit system, about
    /// `2^26` times the first capacity: memory runs out first).
    pub(crate) fn max_capacity(&self) -> usize {
        let mut last = self.first.at_depth(self.first.spare);
        while let Some(next) = self.next_chain(&last) {
            last = next.at_depth(next.spare);
        }
        self.capacity.saturating_mul(Self::capacity_factor(&last))
    }

    /// True unless the current generation is the last one.
    pub(crate) fn can_grow(&self) -> bool {
        let guard = pin();
        let addr = self.state.load(&guard).cur.addr;
        self.has_next(&addr)
    }

    /// The current generation's two buckets and stored fingerprint for
    /// `hash` (for tests).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn locate(&self, hash: u64) -> (usize, usize, u32) {
        let guard = pin();
        let table = &self.state.load(&guard).cur.table;
        let (i1, fp) = table.locate(hash);
        (i1, table.alt(i1, fp), fp)
    }

    /// Growth steps taken: the current generation's depth, plus each
    /// earlier chain's doublings and the step that started the next.
    pub(crate) fn depth(&self) -> u32 {
        let guard = pin();
        let addr = self.state.load(&guard).cur.addr;
        // Each earlier chain's final generation is as deep as it doubled.
        (addr.earlier_chains().iter()).fold(addr.depth, |steps, a| steps + a.depth + 1)
    }

    /// Chains, the current one included: the tables a lookup reads.
    pub(crate) fn chains(&self) -> u32 {
        let guard = pin();
        self.state.load(&guard).cur.addr.chain() + 1
    }

    /// Width of the fingerprints the current generation stores.
    #[cfg(test)]
    pub(crate) fn stored_bits(&self) -> u32 {
        let guard = pin();
        self.state.load(&guard).cur.addr.width()
    }

    /// Bytes of the bucket table(s) held now: the current generation's, and
    /// the frozen one's while a growth step is under way.
    pub(crate) fn table_bytes(&self) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        state.cur.table.table_bytes()
            + state.older_sum(|g| g.table.table_bytes())
            + state
                .migration
                .as_ref()
                .map_or(0, |m| m.from.table.table_bytes())
    }

    /// Bytes of the table(s) with their stripes and padding: the current
    /// generation's, the frozen one's and its chunks' marks while a step is
    /// under way, and the next one's once inserts have begun to prepare it.
    pub(crate) fn memory_usage(&self) -> usize {
        let next = self
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or(0, |(n, _)| n.table.memory_usage());
        let guard = pin();
        let state = self.state.load(&guard);
        next + state.cur.table.memory_usage()
            + state.older_sum(|g| g.table.memory_usage())
            + state.migration.as_ref().map_or(0, |m| {
                m.from.table.memory_usage() + std::mem::size_of_val::<[Chunk]>(&m.chunks)
            })
    }
}

impl<const B: usize> Migration<B> {
    /// The frozen generation's answer to a lookup the current one missed.
    #[inline]
    pub(super) fn frozen_contains(&self, hash: u64) -> bool {
        !broken::GROW_LOOKUP_SKIPS_FROZEN && self.from.table.contains_hash(hash)
    }
}

impl<const B: usize> State<B> {
    /// [`Growable::contains`] of 2- and 8-slot buckets: the current table
    /// as it is, and the frozen generation of a step under way, in line;
    /// every chain, out of line and cold, once a chain is full.
    #[inline(always)]
    fn contains_in_line(&self, hash: u64) -> bool {
        if !self.older.is_empty() {
            return self.contains_in_chains(hash);
        }
        match &self.migration {
            None => self.cur.table.contains_in_first_chain(hash),
            Some(m) => self.cur.table.contains_hash(hash) || m.frozen_contains(hash),
        }
    }
}
