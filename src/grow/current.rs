//! The growable filter's current state, swapped whole at each growth step,
//! and freed once no operation can still be using it.
//!
//! Outside loom this is epoch-based reclamation (crossbeam-epoch): every
//! operation pins the thread's epoch, loads the state and uses it through
//! the pin; a state swapped out is destroyed after every thread pinned at
//! the swap has unpinned. Under loom (which cannot model crossbeam-epoch's
//! global collector), swapped-out states are kept until the filter drops:
//! the models check the growth protocol, not the reclamation.

#[cfg(not(loom))]
mod imp {
    use crossbeam_epoch::{Atomic, Owned};
    use std::sync::atomic::Ordering;

    pub(crate) use crossbeam_epoch::Guard;

    /// Pins this thread: states loaded through the guard stay alive until
    /// it drops.
    #[inline]
    pub(crate) fn pin() -> Guard {
        crossbeam_epoch::pin()
    }

    /// Nudges the collector: destroys what retired states it can.
    pub(crate) fn collect() {
        crossbeam_epoch::pin().flush();
    }

    /// A state that operations load and growth steps replace.
    pub(crate) struct Current<T> {
        ptr: Atomic<T>,
    }

    impl<T: Send + Sync> Current<T> {
        pub(crate) fn new(value: T) -> Self {
            Current {
                ptr: Atomic::new(value),
            }
        }

        /// The state now (acquire: what was written before it was
        /// published is visible).
        #[inline]
        pub(crate) fn load<'g>(&self, guard: &'g Guard) -> &'g T {
            let shared = self.ptr.load(Ordering::Acquire, guard);
            // SAFETY: the pointer is never null (set in `new`, replaced only
            // by `replace` with another owned value), and the value it
            // points to is destroyed only through `defer_destroy` after it
            // was unlinked, which waits for every guard pinned before the
            // unlinking, `guard` among them; or in `drop`, which has the
            // only reference left.
            unsafe { shared.deref() }
        }

        /// Publishes `value` (release) and retires the state it replaces.
        pub(crate) fn replace(&self, value: T, guard: &Guard) {
            let old = self.ptr.swap(Owned::new(value), Ordering::AcqRel, guard);
            // SAFETY: `old` is unlinked: no later `load` returns it, and
            // the collector destroys it only after every guard that could
            // have loaded it has dropped.
            unsafe { guard.defer_destroy(old) };
            // Hands it to the collector now, so the memory of a large
            // table is not held by this thread's local bag.
            guard.flush();
        }
    }

    impl<T> Drop for Current<T> {
        fn drop(&mut self) {
            // SAFETY: `&mut self`: no operation is running on the filter, so
            // no guard holds the current state; it was allocated by
            // `Owned`/`Atomic::new` and is destroyed once, here.
            unsafe {
                let guard = crossbeam_epoch::unprotected();
                drop(self.ptr.load(Ordering::Relaxed, guard).into_owned());
            }
        }
    }
}

#[cfg(loom)]
mod imp {
    use crate::sync::{AtomicPtr, Ordering};

    /// Nothing to pin under loom: nothing is freed before the filter drops.
    pub(crate) struct Guard;

    pub(crate) fn pin() -> Guard {
        Guard
    }

    pub(crate) fn collect() {}

    pub(crate) struct Current<T> {
        ptr: AtomicPtr<T>,
        /// Every state ever published, freed on drop.
        all: std::sync::Mutex<Vec<*mut T>>,
    }

    // SAFETY: `Current` owns `T` values (through raw pointers it frees
    // once, on drop) and shares `&T` across threads.
    unsafe impl<T: Send + Sync> Send for Current<T> {}
    // SAFETY: as above.
    unsafe impl<T: Send + Sync> Sync for Current<T> {}

    impl<T: Send + Sync> Current<T> {
        pub(crate) fn new(value: T) -> Self {
            let p = Box::into_raw(Box::new(value));
            Current {
                ptr: AtomicPtr::new(p),
                all: std::sync::Mutex::new(vec![p]),
            }
        }

        pub(crate) fn load<'g>(&self, _guard: &'g Guard) -> &'g T {
            // SAFETY: every pointer published stays allocated until drop.
            unsafe { &*self.ptr.load(Ordering::Acquire) }
        }

        pub(crate) fn replace(&self, value: T, _guard: &Guard) {
            let p = Box::into_raw(Box::new(value));
            self.all.lock().unwrap().push(p);
            self.ptr.swap(p, Ordering::AcqRel);
        }
    }

    impl<T> Drop for Current<T> {
        fn drop(&mut self) {
            for p in self.all.get_mut().unwrap().drain(..) {
                // SAFETY: each was made by `Box::into_raw` once and is
                // freed once; no reference outlives `&mut self`.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

pub(crate) use imp::{collect, pin, Current, Guard};
