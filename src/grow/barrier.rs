//! The asymmetric barrier pair shared by the read-side sections
//! ([`super::reclaim`]) and the writers' gate ([`super::gate`]): each
//! side writes one location, then reads the other's, with a full barrier
//! between (Dekker's store-load pattern). On Linux the heavy side asks the
//! kernel to run a barrier on every thread of the process
//! (`membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, Linux 4.14), so the
//! light side, taken on every lookup, is a compiler fence; elsewhere (other
//! systems, an older kernel, a seccomp filter, Miri, loom) both sides are
//! `SeqCst` fences.

#[cfg(not(loom))]
mod imp {
    use crate::sync::{fence, Ordering};
    use std::sync::OnceLock;

    /// Whether the reclaimer runs `membarrier` (and readers need only a
    /// compiler fence). Decided once, before the first growable filter
    /// exists, so every section of every filter sees the final value.
    static MEMBARRIER: OnceLock<bool> = OnceLock::new();
    /// `MEMBARRIER`'s value, copied out once it is decided: what a section
    /// reads (one load; the `OnceLock` would be two and two branches).
    /// Relaxed is enough: the store happens before the filter is built, and
    /// every section on it happens after that.
    static LIGHT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    /// Registers this process for expedited private barriers; true if the
    /// kernel accepted (so later barriers cannot fail).
    fn membarrier_register() -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        {
            const QUERY: libc::c_long = 0;
            const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
            const REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;
            // SAFETY: membarrier takes two integers and touches no memory of
            // ours; an unknown command fails with an error code.
            let supported = unsafe { libc::syscall(libc::SYS_membarrier, QUERY, 0) };
            if supported < 0 || supported & PRIVATE_EXPEDITED == 0 {
                return false;
            }
            // SAFETY: as above.
            unsafe { libc::syscall(libc::SYS_membarrier, REGISTER_PRIVATE_EXPEDITED, 0) == 0 }
        }
        #[cfg(not(all(target_os = "linux", not(miri))))]
        false
    }

    /// Decides, once, how sections are ordered: call before a growable
    /// filter is shared.
    pub(crate) fn init() {
        let light = *MEMBARRIER.get_or_init(membarrier_register);
        LIGHT.store(light, std::sync::atomic::Ordering::Relaxed);
    }

    /// True where [`heavy_barrier`] runs `membarrier`, so the light side
    /// is a compiler fence: the read-side sections then mark their slots
    /// with plain stores.
    #[inline(always)]
    pub(crate) fn is_light() -> bool {
        // `init` ran when the filter was built, before any section on it.
        LIGHT.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The light side of an asymmetric pair (a section's entry, a writer
    /// entering the gate): a compiler fence where [`heavy_barrier`] runs
    /// `membarrier`, else a `SeqCst` fence.
    #[inline(always)]
    pub(crate) fn light_fence() {
        if is_light() {
            std::sync::atomic::compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The heavy side (a reclaim, a gate's close): a full barrier on every
    /// thread of the process with `membarrier`, else this thread's `SeqCst`
    /// fence. False if `membarrier` failed after its registration
    /// succeeded (never seen; the light sides then ran with compiler fences
    /// only, and the caller must not rely on the ordering).
    pub(crate) fn heavy_barrier() -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if is_light() {
            const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
            // SAFETY: as in `membarrier_register`.
            return unsafe { libc::syscall(libc::SYS_membarrier, PRIVATE_EXPEDITED, 0) } == 0;
        }
        fence(Ordering::SeqCst);
        true
    }
}

#[cfg(loom)]
mod imp {
    use crate::sync::{fence, Ordering};

    /// Loom has no `membarrier`: the portable pairing, which it models.
    pub(crate) fn light_fence() {
        fence(Ordering::SeqCst);
    }

    pub(crate) fn heavy_barrier() -> bool {
        fence(Ordering::SeqCst);
        true
    }
}

pub(crate) use imp::{heavy_barrier, light_fence};
#[cfg(not(loom))]
pub(crate) use imp::{init, is_light};
