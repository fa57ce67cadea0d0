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
//!
//! Below them, the few places where the loom build differs by more than a
//! type, so that no other file needs the cfg for them: [`Lifetime`] and
//! [`Grave`] (the growth states' frees, checked by loom), [`Highest`] (a
//! statistic kept out of the models) and [`model_size`] (the sizes the
//! models shrink). docs/verification.md lists what cfg is left elsewhere.

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
/// arms beside them keep the models off the paths they choose. Two more
/// users that are no step of the protocol: a retired growth generation's
/// mark that its table may be freed on a thread of its own (`grow/mod.rs`),
/// which exists only outside loom and Miri, and the longest-path statistic
/// ([`Highest`]), which is std's in both builds.
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

/// A shared value's lifetime as loom sees it: every use of the value reads
/// the cell ([`Lifetime::used`]) and its free writes it ([`Lifetime::ended`]),
/// so loom reports a free not ordered after every use (a reader still
/// holding what a reclaimer frees) as a causality violation. Outside loom it
/// is nothing: zero bytes, each call a no-op.
pub(crate) struct Lifetime {
    #[cfg(cuckoo_nest_loom)]
    cell: loom::cell::UnsafeCell<()>,
}

impl Lifetime {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Lifetime {
            #[cfg(cuckoo_nest_loom)]
            cell: loom::cell::UnsafeCell::new(()),
        }
    }

    /// A use of the value.
    #[inline(always)]
    pub(crate) fn used(&self) {
        #[cfg(cuckoo_nest_loom)]
        self.cell.with(|_| ());
    }

    /// The value's free.
    #[inline(always)]
    pub(crate) fn ended(&self) {
        #[cfg(cuckoo_nest_loom)]
        self.cell.with_mut(|_| ());
    }
}

/// Where memory goes when its [`Lifetime`] ends. Outside loom, freed there
/// and then. Under loom, kept until the grave drops: a use after the free
/// then reads loom's cell, which loom reports, where freed memory would
/// crash the model instead.
pub(crate) struct Grave<T> {
    #[cfg(cuckoo_nest_loom)]
    #[allow(clippy::type_complexity)]
    kept: Mutex<Vec<(*mut T, unsafe fn(*mut T))>>,
    _holds: std::marker::PhantomData<*mut T>,
}

impl<T> Grave<T> {
    pub(crate) fn new() -> Self {
        Grave {
            #[cfg(cuckoo_nest_loom)]
            kept: Mutex::new(Vec::new()),
            _holds: std::marker::PhantomData,
        }
    }

    /// Frees `p` with `free`, now or (under loom) when the grave drops.
    ///
    /// # Safety
    /// `free(p)` is safe to call once, now or later, and nothing else frees
    /// `p`.
    pub(crate) unsafe fn bury(&self, p: *mut T, free: unsafe fn(*mut T)) {
        #[cfg(cuckoo_nest_loom)]
        self.kept.lock().unwrap().push((p, free));
        #[cfg(not(cuckoo_nest_loom))]
        // SAFETY: the caller's word.
        unsafe {
            free(p)
        };
    }
}

impl<T> Drop for Grave<T> {
    fn drop(&mut self) {
        #[cfg(cuckoo_nest_loom)]
        for (p, free) in self.kept.lock().unwrap().drain(..) {
            // SAFETY: buried once, and `free(p)` safe to call once
            // (`bury`'s caller's word): called here, once.
            unsafe { free(p) };
        }
    }
}

/// A statistic that only grows (a longest displacement path, in hops):
/// relaxed, and no step of any protocol, so it is std's atomic under loom
/// too and adds nothing to the models' state.
pub(crate) struct Highest(process::AtomicU64);

impl Highest {
    pub(crate) const fn new() -> Self {
        Highest(process::AtomicU64::new(0))
    }

    pub(crate) fn get(&self) -> u64 {
        self.0.load(process::Ordering::Relaxed)
    }

    /// Raises it to `v`. Read first: once the highest value is known, most
    /// callers only read the line, so writers on other cores do not take it
    /// from each other.
    pub(crate) fn raise(&self, v: u64) {
        if v > self.get() {
            self.0.fetch_max(v, process::Ordering::Relaxed);
        }
    }
}

/// A size the loom models shrink: `real` in every other build, `in_models`
/// under loom, where each retry, shard or chunk is more state to explore
/// and the models' tables are a few buckets. The sizes that differ (each
/// documented where it is defined): a growth step's looks for sections
/// to end (`grow/mod.rs`), its chunk of copied buckets (`grow/mod.rs`),
/// the gate's shards (`grow/gate.rs`), a save's chunk and its waits for
/// a flush (`table/snapshot.rs`).
pub(crate) const fn model_size(real: usize, in_models: usize) -> usize {
    if cfg!(cuckoo_nest_loom) {
        in_models
    } else {
        real
    }
}
