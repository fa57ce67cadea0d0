//! The next generation's memory: where a growth step's table will be on
//! huge pages, backed ahead of the step by a thread of its own (on kernels
//! that cannot collapse a range onto huge pages) or moved onto them after
//! its step (on those that can): either way, never by an insert.

use super::*;
use crate::table::{collapses, takes_huge_pages};

impl<const B: usize> Growable<B> {
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
        // Nothing is held ahead of a new chain's first table (a quarter of
        // the last one's: the step allocates it, and the writes back it),
        // nor where the kernel collapses ranges on request (the next table
        // is moved onto huge pages after its step).
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
                if !n.table.words().populate_part(*backed) {
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
        if !next.table.words().populates() {
            // Heap memory (`huge_pages(false)`): nothing to back ahead.
            return true;
        }
        let next = Arc::clone(next);
        start_thread("cuckoo-nest-back", move || {
            let mut k = 0;
            while next.table.words().populate_part(k) {
                k += 1;
            }
        })
    }
    #[cfg(any(cuckoo_nest_loom, miri))]
    {
        let _ = next;
        false
    }
}

/// Starts a thread that moves `g`'s table onto huge pages a piece at a
/// time, if it waits on 4 KiB pages for that (`Words::collapses_later`: a
/// huge table of a growth step, where the kernel collapses ranges on
/// request): called once nothing more is copied into it, so every piece
/// holds what the step moved there. Its writes faulted in 4 KiB pages,
/// never the kernel's huge-page fault, and nothing was held ahead of the
/// step; the lookups read it on huge pages again once the thread is
/// through. The thread stops early once the generation is retired or the
/// filter dropped (its reference is then the last). Where no thread can
/// start, the whole table is advised for huge pages at once, and
/// khugepaged merges it in its own time (until then, slower lookups;
/// nothing lost).
pub(super) fn collapse_in_background<const B: usize>(g: &Arc<Generation<B>>) {
    #[cfg(not(any(cuckoo_nest_loom, miri)))]
    if g.table.words().collapses_later() {
        let held = Arc::clone(g);
        let started = start_thread("cuckoo-nest-huge", move || {
            let mut k = 0;
            while Arc::strong_count(&held) > 1
                && !held.retired.load(crate::sync::process::Ordering::Relaxed)
                && held.table.words().collapse_part(k)
            {
                k += 1;
            }
        });
        if !started {
            g.table.words().advise_huge_pages();
        }
    }
    #[cfg(any(cuckoo_nest_loom, miri))]
    let _ = g;
}

/// Starts `work` on a thread of its own named `name`; false if none could
/// start (the closure is then dropped here), or, in a build with the
/// `internals` feature, if this thread was told to refuse
/// (`debug_refuse_thread_starts`, `internals/mod.rs`).
#[cfg(not(any(cuckoo_nest_loom, miri)))]
fn start_thread(name: &str, work: impl FnOnce() + Send + 'static) -> bool {
    #[cfg(feature = "internals")]
    if crate::internals::thread_starts_refused() {
        return false;
    }
    std::thread::Builder::new()
        .name(name.into())
        .spawn(work)
        .is_ok()
}
