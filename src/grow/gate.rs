//! The gate writers pass to write the current generation, which a growth
//! step closes to freeze it.
//!
//! A writer enters (adds one to its shard's count), checks the gate is
//! open, writes, leaves. The growth step closes the gate, then waits until
//! every shard's count is zero: from then on no write to the generation is
//! in flight and none starts, so it can be copied while lookups go on. Both
//! sides write one location, then read the other's, with a full barrier
//! between (the store-load pattern of Dekker's algorithm): the barriers are
//! ordered one way or the other, so either the writer sees the gate closed
//! and backs out, or the closer sees the writer's count and waits for it.
//! The barrier pair is the asymmetric one of the read-side sections
//! (`barrier.rs`): a compiler fence for the writer where the closer runs
//! `membarrier`, `SeqCst` fences on both sides elsewhere. (Fences, not
//! `SeqCst` loads and stores: loom models `SeqCst` fences but treats
//! `SeqCst` accesses as acquire/release, tokio-rs/loom#180, so only the
//! fenced form can be checked there.) The counts are spread over padded shards,
//! chosen per thread, so writers on different cores do not share a line.

use super::barrier::{heavy_barrier, light_fence};
use crate::sync::{AtomicBool, AtomicU64, Ordering, Spin};
use crossbeam_utils::CachePadded;

/// Shards of the writer count (two under loom: fewer states to explore).
const SHARDS: usize = crate::sync::model_size(16, 2);

pub(crate) struct Gate {
    closed: AtomicBool,
    shards: Box<[CachePadded<AtomicU64>]>,
}

/// A writer inside the gate; leaves on drop.
pub(crate) struct Pass<'a> {
    shard: &'a AtomicU64,
}

impl Drop for Pass<'_> {
    #[inline]
    fn drop(&mut self) {
        // Release: the writes made inside are visible to the closer, which
        // reads the count back to zero.
        self.shard.fetch_sub(1, Ordering::Release);
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

    /// Enters the gate, or `None` if it is closed (the caller waits with
    /// [`Self::wait_open`] and tries again).
    #[inline]
    pub(crate) fn enter(&self) -> Option<Pass<'_>> {
        let shard = &*self.shards[shard_index()];
        shard.fetch_add(1, Ordering::Relaxed);
        light_fence();
        // Acquire: a gate opened again shows the state published while it
        // was closed.
        if self.closed.load(Ordering::Acquire) {
            shard.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(Pass { shard })
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
