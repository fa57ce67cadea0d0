//! The gate writers pass to write the current generation, which a growth
//! step closes to freeze it.
//!
//! A writer marks its pass, checks the gate is open, writes, and takes the
//! mark back. The growth step closes the gate, then waits until no pass is
//! marked: from then on no write to the generation is in flight and none
//! starts, so it can be copied while lookups go on. Both sides write one
//! location, then read the other's, with a full barrier between (the
//! store-load pattern of Dekker's algorithm): the barriers are ordered one
//! way or the other, so either the writer sees the gate closed and backs
//! out, or the closer sees the writer's mark and waits for it. The barrier
//! pair is the asymmetric one of the read-side sections (`barrier.rs`): a
//! compiler fence for the writer where the closer runs `membarrier`,
//! `SeqCst` fences on both sides elsewhere. (Fences, not `SeqCst` loads
//! and stores: loom models `SeqCst` fences but treats `SeqCst` accesses as
//! acquire/release, tokio-rs/loom#180, so only the fenced form can be
//! checked there.)
//!
//! The mark is the gate's address in the writer's own section slot
//! ([`Guard::pass_mark`]: the word beside its section mark, on the line
//! the section has just written), with a plain store: the slot is written
//! by its thread alone, so no read-modify-write. Counts in shards shared
//! by threads cost two locked instructions an insert (through growth at
//! 8x, with them inserts took 2.32-2.36x a fixed filter's time, with the
//! pass in the slot 2.18-2.26x: docs/benchmarks.md, "Growth"). A
//! thread whose slot marks a pass already (a pass inside a pass) counts
//! itself in a shard instead, spread over padded shards chosen per thread.
//! Every store of a mark is a release, and the closer's loads acquire: the
//! value it reads in place of its gate's address comes after that pass's
//! writes, so they are visible to the copy.

use super::barrier::{heavy_barrier, light_fence};
use super::reclaim::{Guard, PassMarks};
use crate::sync::{AtomicBool, AtomicU64, Ordering, Spin};
use crossbeam_utils::CachePadded;

/// Shards of the writer count (two under loom: fewer states to explore).
const SHARDS: usize = crate::sync::model_size(16, 2);

pub(crate) struct Gate {
    closed: AtomicBool,
    shards: Box<[CachePadded<AtomicU64>]>,
}

/// A writer inside the gate; leaves on drop.
pub(crate) enum Pass<'a> {
    /// Marked in the writer's slot: the mark goes back to 0.
    Marked(&'a AtomicU64),
    /// Counted in a shard: the count goes down by one.
    Counted(&'a AtomicU64),
}

impl Drop for Pass<'_> {
    #[inline]
    fn drop(&mut self) {
        // Release: the writes made inside are visible to the closer, which
        // reads the mark cleared or the count back to zero.
        match self {
            Pass::Marked(mark) => mark.store(0, Ordering::Release),
            Pass::Counted(shard) => {
                shard.fetch_sub(1, Ordering::Release);
            }
        }
    }
}

/// This thread's shard.
#[inline]
fn shard_index() -> usize {
    #[cfg(not(cuckoo_nest_loom))]
    {
        use crate::sync::process::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        crate::sync::thread_local! {
            static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
        }
        // A thread whose local is gone (in a thread-local destructor) uses
        // shard 0: correct, only less spread.
        SHARD.try_with(|s| *s).unwrap_or(0)
    }
    #[cfg(cuckoo_nest_loom)]
    0
}

impl Gate {
    pub(crate) fn new() -> Self {
        Gate {
            closed: AtomicBool::new(false),
            shards: (0..SHARDS)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    /// Enters the gate in the section `guard` (its slot carries the
    /// pass), or `None` if it is closed (the caller waits with
    /// [`Self::wait_open`] and tries again).
    #[inline]
    pub(crate) fn enter<'a>(&'a self, guard: &'a Guard) -> Option<Pass<'a>> {
        let mark = guard.pass_mark();
        // Only this thread writes the mark: its own last value.
        let pass = if mark.load(Ordering::Relaxed) == 0 {
            mark.store(self.id(), Ordering::Release);
            Pass::Marked(mark)
        } else {
            let shard = &*self.shards[shard_index()];
            shard.fetch_add(1, Ordering::Relaxed);
            Pass::Counted(shard)
        };
        light_fence();
        // Acquire: a gate opened again shows the state published while it
        // was closed.
        if self.closed.load(Ordering::Acquire) {
            drop(pass);
            return None;
        }
        Some(pass)
    }

    /// What a pass of this gate writes in its slot: the gate's address
    /// (it does not move while any pass borrows it).
    #[inline(always)]
    fn id(&self) -> u64 {
        self as *const Self as usize as u64
    }

    /// Waits until the gate looks open.
    #[cold]
    pub(crate) fn wait_open(&self) {
        let spin = Spin::new();
        while self.closed.load(Ordering::Acquire) {
            spin.wait();
        }
    }

    /// Closes the gate and waits until no writer is inside; false (the gate
    /// open again) if the barrier could not be had (see
    /// [`heavy_barrier`]). The caller (the one growth step running) opens
    /// it again.
    #[must_use]
    pub(crate) fn close(&self) -> bool {
        if crate::broken::GROW_NO_GATE {
            // Left open: writers go on writing the generation being frozen.
            return true;
        }
        self.closed.store(true, Ordering::Relaxed);
        if !heavy_barrier() {
            self.open();
            return false;
        }
        let spin = Spin::new();
        if !crate::broken::GATE_SKIPS_MARKS {
            let marks = PassMarks::now();
            for mark in marks.iter() {
                // Acquire: pairs with the release that changed the mark.
                while mark.load(Ordering::Acquire) == self.id() {
                    spin.wait();
                }
            }
        }
        for shard in self.shards.iter() {
            // Acquire: pairs with a pass's release on leaving, so every
            // write made inside is visible to the copy.
            while shard.load(Ordering::Acquire) != 0 {
                spin.wait();
            }
        }
        true
    }

    /// Opens the gate (release: what the closer published before is
    /// visible to writers that then enter).
    pub(crate) fn open(&self) {
        self.closed.store(false, Ordering::Release);
    }
}

#[cfg(all(test, not(cuckoo_nest_loom)))]
mod tests {
    use super::super::barrier::init;
    use super::super::reclaim::pin;
    use super::*;
    use std::sync::atomic::AtomicBool as StdBool;
    use std::sync::mpsc;
    use std::time::Duration;

    fn counted(gate: &Gate) -> u64 {
        gate.shards.iter().map(|s| s.load(Ordering::Relaxed)).sum()
    }

    /// A pass marks its writer's slot with the gate; a pass taken inside
    /// it (the slot already marked) counts in a shard; each takes its own
    /// back.
    #[test]
    fn a_pass_inside_a_pass_counts_in_a_shard() {
        init();
        let gate = Gate::new();
        let guard = pin();
        let outer = gate.enter(&guard).expect("the gate is open");
        assert!(matches!(outer, Pass::Marked(_)));
        assert_eq!(guard.pass_mark().load(Ordering::Relaxed), gate.id());
        let inner = gate.enter(&guard).expect("the gate is open");
        assert!(matches!(inner, Pass::Counted(_)));
        assert_eq!(counted(&gate), 1);
        drop(inner);
        assert_eq!(counted(&gate), 0);
        assert_eq!(guard.pass_mark().load(Ordering::Relaxed), gate.id());
        drop(outer);
        assert_eq!(guard.pass_mark().load(Ordering::Relaxed), 0);
    }

    /// A closed gate refuses a pass and leaves no mark behind.
    #[test]
    fn a_closed_gate_refuses_and_leaves_no_mark() {
        init();
        let gate = Gate::new();
        assert!(gate.close());
        let guard = pin();
        assert!(gate.enter(&guard).is_none());
        assert_eq!(guard.pass_mark().load(Ordering::Relaxed), 0);
        assert_eq!(counted(&gate), 0);
        gate.open();
        assert!(gate.enter(&guard).is_some());
    }

    /// `close` returns only once a pass marked in another thread's slot
    /// has been given back (with `cuckoo_broken_gate_skips_marks` it
    /// returns while the writer is still inside), and does not wait for a
    /// pass of another gate (a third thread holds one until `close` has
    /// returned, or gives up after 10 s and the test fails).
    #[test]
    fn close_waits_for_a_pass_marked_in_another_thread() {
        init();
        let (gate, other) = (Gate::new(), Gate::new());
        let left = StdBool::new(false);
        let (gate, other, left) = (&gate, &other, &left);
        std::thread::scope(|s| {
            let (entered, inside) = mpsc::channel();
            let (held, holding) = mpsc::channel();
            let (closed, done) = mpsc::channel::<()>();
            s.spawn(move || {
                let guard = pin();
                let pass = gate.enter(&guard).expect("the gate is open");
                entered.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(100));
                left.store(true, Ordering::Relaxed);
                drop(pass);
            });
            let waited_for_other = s.spawn(move || {
                let guard = pin();
                let _pass = other.enter(&guard).expect("the gate is open");
                held.send(()).unwrap();
                done.recv_timeout(Duration::from_secs(10)).is_err()
            });
            inside.recv().unwrap();
            holding.recv().unwrap();
            assert!(gate.close());
            assert!(
                left.load(Ordering::Relaxed),
                "closed while a writer was inside"
            );
            closed.send(()).unwrap();
            assert!(
                !waited_for_other.join().unwrap(),
                "the close waited for another gate's pass"
            );
        });
    }
}
