//! The one place the crate gets its atomics from.
//!
//! Under `cfg(loom)` these are loom's model-checked types, so the loom models
//! in `loom-tests/` run the real table code, not a copy of it. Nothing else in
//! the crate names `std::sync::atomic` directly. (The one `Mutex`, a save's
//! list of chunks copied ahead, comes from here for the same reason.)

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicU8, Ordering,
};
#[cfg(loom)]
pub(crate) use loom::sync::Mutex;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicU8, Ordering,
};
#[cfg(not(loom))]
pub(crate) use std::sync::Mutex;

/// Waits a little before a retry: spins, then yields to the OS scheduler.
/// Under loom a spin must be a yield, or the model checker explores the same
/// spin forever.
pub(crate) struct Spin {
    #[cfg(not(loom))]
    backoff: crossbeam_utils::Backoff,
}

impl Spin {
    #[inline]
    pub(crate) fn new() -> Self {
        Spin {
            #[cfg(not(loom))]
            backoff: crossbeam_utils::Backoff::new(),
        }
    }

    #[inline]
    pub(crate) fn wait(&self) {
        #[cfg(loom)]
        loom::thread::yield_now();
        #[cfg(not(loom))]
        self.backoff.snooze();
    }
}

/// Lets other threads run (a reclaimer between its looks at the marks).
/// Under loom, a model's yield.
#[inline]
pub(crate) fn yield_now() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::thread::yield_now();
}
