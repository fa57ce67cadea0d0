//! The one place the crate's protocol gets its atomics, fences, `Mutex`
//! and yields from.
//!
//! Under `cfg(cuckoo_nest_loom)` these are loom's model-checked types, so
//! the loom models in `loom-tests/` run the real table and growth code, not
//! a copy of it. The cfg is this crate's own: a program that loom-tests its
//! own code with `--cfg loom` still gets the real cuckoo-nest. Named
//! directly elsewhere, each with a loom arm of its own beside it: the
//! read-side sections' thread-locals and slot list (`grow/reclaim/`: loom's
//! `thread_local!` and `lazy_static!`), the barrier pair (`grow/barrier.rs`:
//! `membarrier` and a compiler fence, a `SeqCst` fence under loom), the
//! gate's per-thread shard (`grow/gate.rs`: one shard under loom). `Arc`
//! only owns generations and slots; it orders nothing the protocol needs.

#[cfg(cuckoo_nest_loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicU8, Ordering,
};
#[cfg(cuckoo_nest_loom)]
pub(crate) use loom::sync::Mutex;
#[cfg(not(cuckoo_nest_loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicU8, Ordering,
};
#[cfg(not(cuckoo_nest_loom))]
pub(crate) use std::sync::Mutex;

/// Waits a little before a retry: spins, then yields to the OS scheduler.
/// Under loom a spin must be a yield, or the model checker explores the same
/// spin forever.
pub(crate) struct Spin {
    #[cfg(not(cuckoo_nest_loom))]
    backoff: crossbeam_utils::Backoff,
}

impl Spin {
    #[inline]
    pub(crate) fn new() -> Self {
        Spin {
            #[cfg(not(cuckoo_nest_loom))]
            backoff: crossbeam_utils::Backoff::new(),
        }
    }

    #[inline]
    pub(crate) fn wait(&self) {
        #[cfg(cuckoo_nest_loom)]
        loom::thread::yield_now();
        #[cfg(not(cuckoo_nest_loom))]
        self.backoff.snooze();
    }
}

/// Lets other threads run (a reclaimer between its looks at the marks).
/// Under loom, a model's yield.
#[inline]
pub(crate) fn yield_now() {
    #[cfg(cuckoo_nest_loom)]
    loom::thread::yield_now();
    #[cfg(not(cuckoo_nest_loom))]
    std::thread::yield_now();
}
