//! Saving and loading a growable filter: its chunks in order, with a
//! growth step finished first.

use super::*;

impl<const B: usize> Growable<B> {
    /// Saves the current generation a chunk at a time, as a fixed table
    /// saves (`table/snapshot.rs`: writers keep writing), and returns its item
    /// count and `config` as of that generation. Under the growth lock, so
    /// no growth step starts meanwhile; one under way is finished first.
    /// While the save runs, an insert that finds the generation at the
    /// load it grows at makes room by displacement instead of growing it (a
    /// table takes a few points more than its design load), and waits for
    /// the save only when that fails. The save is counted in `saving`
    /// before it asks for the lock, so an insert that wants a step and
    /// finds the lock taken retries by displacement rather than queue
    /// behind the save ([`Self::grow`]). If a growth step's copy could not be
    /// finished (only with crafted keys: a pair asked for more than `2b`
    /// copies of one fingerprint, see [`Self::copy_chunk`]), the save holds
    /// the current generation without the copies that did not fit.
    pub(crate) fn save_chunks<E>(
        &self,
        config: &crate::config::Config,
        mut out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(usize, crate::config::Config), E> {
        // Counted before the lock is asked for, so that no insert starts
        // waiting for a lock this save is about to hold (`Self::grow`);
        // uncounted on any exit, after the lock is released.
        struct Saving<'a>(&'a AtomicU64);
        impl Drop for Saving<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        self.saving.fetch_add(1, Ordering::Relaxed);
        let _saving = Saving(&self.saving);
        // Under the growth lock, a step under way finished: the save then
        // sees one generation, which no step replaces until it is done.
        let lock =
            broken::save_growth_lock(|| self.grow_lock.lock().unwrap_or_else(|e| e.into_inner()));
        if lock.is_some() {
            let guard = pin();
            let state = self.state.load(&guard);
            if let Some(m) = &state.migration {
                let _ = self.finish_or_regrow(state, m, &guard);
            }
        }
        // The frozen generation, retired by the finish, is let go before
        // the save (a large table to the thread that frees it) rather than
        // held through it.
        self.state.reclaim(RECLAIM_ROUNDS);
        let guard = pin();
        let state = self.state.load(&guard);
        // The earlier chains' tables, oldest first, then the current one
        // (docs/format.md, version 6).
        let mut items = 0;
        for g in &state.older {
            items += g.table.save_chunks(&mut out)?;
        }
        items += state.cur.table.save_chunks(out)?;
        Ok((items, self.config_at(config, &state.cur.addr)))
    }

    /// A filter whose current generation is the saved table in `parts`
    /// (exactly as long as `config`'s header says), holding `len` items,
    /// not yet audited ([`Self::audit`]).
    pub(crate) fn from_le_bytes(
        config: &crate::config::Config,
        growth: crate::config::Growth,
        len: usize,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        let addr = Nested::of(growth, config.buckets);
        let earlier = addr.earlier_chains();
        let mut parts = Parts {
            parts,
            part: 0,
            offset: 0,
        };
        let mut older = Vec::with_capacity(earlier.len());
        let mut earlier_len = 0;
        for a in earlier {
            let table = Table::from_le_bytes_addressed(
                Packed::new(B, a.width()),
                a,
                a.buckets(),
                0,
                config.huge_pages,
                &parts.take(saved_bytes::<B>(&a)),
            )?;
            // Each earlier chain's count is what it holds (the header's is
            // their sum with the current one's: the audit checks it).
            earlier_len += table.recount();
            older.push(Arc::new(Generation::of(table, a)));
        }
        let rest = parts.take(usize::MAX);
        let table = Table::from_le_bytes_addressed(
            Packed::new(B, addr.width()),
            addr,
            config.buckets,
            len.saturating_sub(earlier_len),
            config.huge_pages,
            &rest,
        )?;
        let first_capacity = config.capacity / Self::capacity_factor(&addr);
        Ok(Self::with_generation(
            Generation::of(table, addr),
            older,
            first_capacity,
            config.huge_pages,
            growth.unbounded,
        ))
    }

    /// The occupied slots of the current generation, or the first thing in
    /// it no writer stores (for a filter just loaded).
    pub(crate) fn audit(&self) -> Result<usize, crate::error::DecodeError> {
        let guard = pin();
        let state = self.state.load(&guard);
        let mut occupied = 0;
        for g in state.older.iter().chain([&state.cur]) {
            occupied += g.table.audit()?;
            for i in 0..g.buckets() {
                let bucket = g.table.load_bucket(i);
                if (0..B).any(|j| {
                    let fp = g.table.lane(&bucket, j);
                    fp != 0 && !g.addr.is_written(fp)
                }) {
                    return Err(crate::error::DecodeError::InvalidBucket {
                        bucket: i,
                        reason: "a growable filter's fingerprint with a zero key",
                    });
                }
            }
        }
        Ok(occupied)
    }

    /// Address and length of the current generation's words (for tests).
    #[cfg(feature = "internals")]
    pub(crate) fn words_range(&self) -> (usize, usize) {
        let guard = pin();
        self.state.load(&guard).cur.table.words_range()
    }

    /// The fingerprints in bucket `i` of the current generation (for
    /// tests).
    #[cfg(feature = "internals")]
    pub(crate) fn bucket_fingerprints(&self, i: usize) -> Vec<u32> {
        let guard = pin();
        self.state.load(&guard).cur.table.bucket_fingerprints(i)
    }

    /// Stores `fp` in a free slot of bucket `i` of the current generation,
    /// whether or not a growth step has copied that bucket's share yet:
    /// what displacements did before they waited for the copy, so tests
    /// can still reach a copy that finds no room. False if the bucket is
    /// full.
    #[cfg(feature = "internals")]
    pub(crate) fn place_ahead_of_copy(&self, i: usize, fp: u32) -> bool {
        let guard = pin();
        let table = &self.state.load(&guard).cur.table;
        // Both buckets of the placement are `i`: a free slot there or none.
        matches!(
            table.place(i, i, fp, Copies::Any),
            Ok(crate::table::Placed::Stored)
        )
    }
}

/// Slices read one after another: a saved growable filter's tables
/// (oldest chain first), in whatever pieces a stream arrived.
struct Parts<'a, 'p> {
    parts: &'p [&'a [u8]],
    part: usize,
    offset: usize,
}

impl<'a> Parts<'a, '_> {
    /// The next `n` bytes (fewer if the parts end first), as pieces of the
    /// parts.
    fn take(&mut self, mut n: usize) -> Vec<&'a [u8]> {
        let mut pieces = Vec::new();
        while n > 0 && self.part < self.parts.len() {
            let rest = &self.parts[self.part][self.offset..];
            let k = n.min(rest.len());
            if k > 0 {
                pieces.push(&rest[..k]);
            }
            n -= k;
            if k == rest.len() {
                self.part += 1;
                self.offset = 0;
            } else {
                self.offset += k;
            }
        }
        pieces
    }
}

/// Bytes of a saved table of generation `addr` (its words, no padding).
fn saved_bytes<const B: usize>(addr: &Nested) -> usize {
    let bits = <Packed as crate::layout::Layout<B>>::bucket_bits(&Packed::new(B, addr.width()));
    crate::table::table_words(addr.buckets(), bits).map_or(usize::MAX, |w| w.saturating_mul(8))
}
