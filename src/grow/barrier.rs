//! The asymmetric barrier pair shared by the read-side sections
//! ([`super::reclaim`]) and the writers' gate ([`super::gate`]): each
//! side writes one location, then reads the other's, with a full barrier
//! between (Dekker's store-load pattern). On Linux the heavy side asks the
//! kernel to run a barrier on every thread of the process
//! (`membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, Linux 4.14), so the
//! light side, taken on every lookup, is a compiler fence; elsewhere (other
//! systems, an older kernel, a seccomp filter, Miri, cuckoo_nest_loom) both sides are
//! `SeqCst` fences.

#[cfg(not(cuckoo_nest_loom))]
mod imp {
    use crate::sync::process::{self, AtomicBool, OnceLock};
    use crate::sync::{compiler_fence, fence, Ordering};

    /// Whether the reclaimer runs `membarrier` (and readers need only a
    /// compiler fence). Decided once, before the first growable filter
    /// exists, so every section of every filter sees the final value.
    static MEMBARRIER: OnceLock<bool> = OnceLock::new();
    /// `MEMBARRIER`'s value, copied out once it is decided: what a section
    /// reads (one load; the `OnceLock` would be two and two branches).
    /// Relaxed is enough: the store happens before the filter is built, and
    /// every section on it happens after that.
    static LIGHT: AtomicBool = AtomicBool::new(false);

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
        LIGHT.store(light, process::Ordering::Relaxed);
    }

    /// True where [`heavy_barrier`] runs `membarrier`, so the light side
    /// is a compiler fence: the read-side sections then mark their slots
    /// with plain stores.
    #[inline(always)]
    pub(crate) fn is_light() -> bool {
        // `init` ran when the filter was built, before any section on it.
        LIGHT.load(process::Ordering::Relaxed)
    }

    /// The light side of an asymmetric pair (a section's entry, a writer
    /// entering the gate): a compiler fence where [`heavy_barrier`] runs
    /// `membarrier`, else a `SeqCst` fence.
    #[inline(always)]
    pub(crate) fn light_fence() {
        if is_light() {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The heavy side (a reclaim, a gate's close): a full barrier on every
    /// thread of the process where the light side is a compiler fence, else
    /// this thread's `SeqCst` fence. If `membarrier` fails after its
    /// registration succeeded (a seccomp filter that denies only the
    /// expedited command, or one installed since), every later heavy side
    /// takes [`page_barrier`] instead. False if that fails too: the light
    /// sides then ran with compiler fences only, and the caller must not
    /// rely on the ordering (a growth step does not start, and says why).
    pub(crate) fn heavy_barrier() -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if is_light() {
            if !MEMBARRIER_FAILED.load(process::Ordering::Relaxed) {
                const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
                // SAFETY: as in `membarrier_register`.
                let ok = !forced_to_fail(FAIL_MEMBARRIER)
                    && unsafe { libc::syscall(libc::SYS_membarrier, PRIVATE_EXPEDITED, 0) } == 0;
                if ok {
                    return true;
                }
                MEMBARRIER_FAILED.store(true, process::Ordering::Relaxed);
            }
            return page_barrier();
        }
        fence(Ordering::SeqCst);
        true
    }

    /// Set once `membarrier` has failed after its registration: from then
    /// on the heavy side is [`page_barrier`].
    #[cfg(all(target_os = "linux", not(miri)))]
    static MEMBARRIER_FAILED: AtomicBool = AtomicBool::new(false);

    /// A barrier on every thread of the process without `membarrier`:
    /// revoking write access to a page this process has written makes the
    /// kernel flush the page's translations on every CPU that may hold
    /// them, which on x86_64 it does with an interrupt to each CPU running
    /// a thread of the process; taking the interrupt orders that CPU's
    /// earlier stores before its later loads, and a thread not running was
    /// switched out, itself a full barrier. (The same process-wide barrier
    /// .NET's `FlushProcessWriteBuffers` and the `membarrier` crates fall
    /// back to.) Other architectures may flush without interrupting (arm64
    /// broadcasts its invalidations), so there it is not a barrier: false.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn page_barrier() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use process::Mutex;
            /// The page (its address and size), mapped once, never unmapped.
            static PAGE: OnceLock<Option<(usize, usize)>> = OnceLock::new();
            /// Serializes the changes of the page's protection.
            static LOCK: Mutex<()> = Mutex::new(());
            if forced_to_fail(FAIL_PAGE_BARRIER) {
                return false;
            }
            let page = PAGE.get_or_init(|| {
                // SAFETY: sysconf reads a constant of the system.
                let size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
                // SAFETY: a new anonymous private mapping at an address the
                // kernel picks: no memory of ours is touched.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        size,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                (p != libc::MAP_FAILED).then_some((p as usize, size))
            });
            let Some((addr, size)) = *page else {
                return false;
            };
            let _lock = LOCK.lock().unwrap_or_else(|e| e.into_inner());
            let p = addr as *mut libc::c_void;
            // SAFETY: `p` is the mapping made above, `size` bytes, never
            // unmapped; only this function, under `LOCK`, changes its
            // protection, and it is written only here, after it was made
            // writable (an atomic, aligned to the page).
            unsafe {
                if libc::mprotect(p, size, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                    return false;
                }
                (*(p as *const process::AtomicU64)).fetch_add(1, process::Ordering::SeqCst);
                libc::mprotect(p, size, libc::PROT_NONE) == 0
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Test hooks (feature `internals`): barriers made to fail, as a
    /// seccomp filter would.
    pub(crate) const FAIL_MEMBARRIER: u8 = 1;
    pub(crate) const FAIL_PAGE_BARRIER: u8 = 2;
    #[cfg(feature = "internals")]
    pub(crate) static FAIL: process::AtomicU8 = process::AtomicU8::new(0);

    // Its callers are the Linux barriers, which Miri leaves out.
    #[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
    #[inline]
    fn forced_to_fail(what: u8) -> bool {
        #[cfg(feature = "internals")]
        return FAIL.load(process::Ordering::Relaxed) & what != 0;
        #[cfg(not(feature = "internals"))]
        {
            let _ = what;
            false
        }
    }
}

#[cfg(cuckoo_nest_loom)]
mod imp {
    use crate::sync::{fence, Ordering};

    /// Loom has no `membarrier`: the portable pairing, which it models.
    pub(crate) fn init() {}

    pub(crate) fn is_light() -> bool {
        false
    }

    pub(crate) fn light_fence() {
        fence(Ordering::SeqCst);
    }

    pub(crate) fn heavy_barrier() -> bool {
        fence(Ordering::SeqCst);
        true
    }
}

pub(crate) use imp::{heavy_barrier, init, is_light, light_fence};
#[cfg(all(not(cuckoo_nest_loom), feature = "internals"))]
pub(crate) use imp::{FAIL, FAIL_MEMBARRIER, FAIL_PAGE_BARRIER};
