//! The one place the crate names its atomics, fences, `Mutex`, `Arc`,
//! thread-locals and yields: every other file takes them from here.
//!
//! Under `cfg(cuckoo_nest_loom)` the protocol's atomics, fences, `Mutex`
//! and thread-locals are loom's model-checked ones, so the loom models in
//! `loom-tests/` run the real table and growth code, not a copy of it. The
//! cfg is this crate's own: a program that loom-tests its own code with
//! `--cfg loom` still gets the real cuckoo-nest.
//!
//! Three things stay std's under loom, each named here with its reason:
//! `Arc` (it only owns generations and slots and orders nothing the
//! protocol needs), `compiler_fence` (it orders nothing between threads),
//! and the process-wide statics in [`process`] (loom makes its atomics per
//! model execution, so none can sit in a `static`).

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

#[cfg(cuckoo_nest_loom)]
pub(crate) use loom::{lazy_static, thread_local};
#[cfg(not(cuckoo_nest_loom))]
pub(crate) use std::thread_local;

pub(crate) use std::sync::atomic::compiler_fence;
pub(crate) use std::sync::Arc;
/// What `Mutex::try_lock` fails with, loom's `Mutex` included.
pub(crate) use std::sync::TryLockError;

/// Process-wide state outside the models, in statics: whether the
/// `membarrier` barrier is in use and its fallback page
/// (`grow/barrier.rs`), the gate's shard numbering (`grow/gate.rs`), the
/// sections' spare slots (`grow/reclaim/`), and the `internals` test hooks.
/// Under loom these are read once per process or are hints, and the loom
/// arms beside them keep the models off the paths they choose. One more
/// user that is no step of the protocol: a retired growth generation's
/// mark that its table may be freed on a thread of its own (`grow/mod.rs`),
/// which exists only outside loom and Miri.
// Which of these a build uses depends on its target, features and cfgs
// (the page barrier is x86_64 Linux's, the hooks the `internals` feature's).
#[allow(unused_imports)]
pub(crate) mod process {
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
    pub(crate) use std::sync::{Mutex, OnceLock};
}

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
