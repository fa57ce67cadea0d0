//! The growable filter's current state, swapped whole at each growth step,
//! and freed once no operation can still be using it.
//!
//! Every operation runs in a *read-side section* ([`pin`]): it marks its
//! thread's slot as inside (a word written by the thread alone: see
//! [`Slot`]), loads the state, uses it, and marks the slot outside again. A
//! state swapped out is *retired*, not freed; [`Current::reclaim`] frees
//! the retired states once every thread that was inside a section when
//! they were unlinked has left it. The two sides are ordered like Dekker's
//! algorithm: a section's mark, then its load of the state; the swap, then
//! the reclaimer's read of the marks; with a full barrier between each
//! pair, so either the reclaimer sees the mark (and waits for the section)
//! or the section loads the new state (and never touches the old one).
//!
//! The reader's barrier would be a `SeqCst` fence: a locked instruction on
//! every lookup, which stalls it behind its own cache misses. On Linux the
//! reclaimer instead asks the kernel to run a barrier on every thread of
//! the process (`membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, Linux 4.14;
//! the same asymmetric pairing as liburcu's "memb" flavour), so a reader
//! needs only a compiler fence: its mark and its load stay in program order,
//! and the kernel's barrier orders them against the reclaimer. Where that
//! is not available (other systems, an older kernel, a seccomp filter, Miri,
//! loom), the marks and the reclaimer's reads of them are read-modify-writes
//! instead ([`Mode`]). Reclaiming never blocks: it frees
//! what is safe and keeps the rest for the next try (a section may wait on
//! a lock the reclaiming thread holds).
//!
//! Under loom, which cannot hold thread-local slots across executions,
//! sections are no-ops and retired states are kept until the filter drops:
//! the growth models check the growth protocol, and the section protocol
//! has its own models on [`Slots`], in the portable mode.

use crate::sync::{AtomicU64, Ordering};
use crossbeam_utils::CachePadded;
use std::sync::Arc;

/// One thread's section mark: a word written by its thread alone (an
/// orphan slot's, by the one section that claimed it), except for the
/// reclaimer's read-modify-writes of zero in the portable mode (below). Its
/// low [`DEPTH_BITS`] bits count the sections the thread is inside (a
/// section nested in another counts too: only when the outermost one
/// leaves may the reclaimer free what it loaded); the bits above count the
/// outermost sections left. The thread is inside while the depth is not 0,
/// and a section the reclaimer saw inside has left once the count above
/// has moved on. One word, so entering is a load and a store, and leaving
/// a load, a compare and a store.
// Under loom only the section model (below) uses the slots.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) struct Slot {
    word: CachePadded<AtomicU64>,
}

/// Bits of a [`Slot`]'s word that count nested sections: a thread nests a
/// section only by calling back into the filter from inside one, a stack
/// frame a level. The 48 bits above count outermost sections left: at one
/// a nanosecond they wrap after three days, far past a reclaimer's wait.
const DEPTH_BITS: u32 = 16;
const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;
/// What leaving the outermost section adds: the depth back to 0, the
/// count of sections left one up.
const OUTERMOST_LEFT: u64 = (1 << DEPTH_BITS) - 1;

/// How sections and the reclaimer order their marks and loads.
///
/// `Light` (the reclaimer runs `membarrier`): the mark is a plain load and
/// store with a compiler fence; the kernel's barrier on every thread orders
/// it. `Portable` (everywhere else): entering is a read-modify-write, and
/// the reclaimer reads marks with read-modify-writes too, after its own
/// read-modify-write of the state pointer: whichever of the two writes to a
/// slot comes first in its modification order, the other reads from it, so
/// either the reclaimer sees the mark (and waits for the section) or the
/// section's acquire synchronizes with the reclaimer's release and its load
/// of the state sees the pointer the reclaimer rewrote, never a retired
/// one. Only acquire and release are needed: no `SeqCst` fence, whose
/// semantics Miri's emulation does not follow to the letter
/// (rust-lang/miri#2301).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(loom, allow(dead_code))]
pub(crate) enum Mode {
    Light,
    Portable,
}

#[cfg_attr(loom, allow(dead_code))]
impl Slot {
    fn new() -> Self {
        Slot {
            word: CachePadded::new(AtomicU64::new(0)),
        }
    }

    /// Enters a section (outermost or nested): the mark, ordered before
    /// the loads that follow. False, with nothing written, if the slot's
    /// depth is at its most ([`DEPTH_MASK`]): the section is nested in
    /// others that keep the slot inside until they leave, so it needs no
    /// mark of its own, and its guard must not leave ([`Guard`]'s
    /// `COVERED` tag). A count that wrapped instead would read as outside
    /// while the outer sections still use what they loaded.
    #[inline(always)]
    pub(crate) fn enter(&self, mode: Mode) -> bool {
        let word = &self.word;
        // Only this thread changes the depth (the reclaimer's
        // read-modify-writes add 0): its own last value.
        let w = word.load(Ordering::Relaxed);
        if w & DEPTH_MASK == DEPTH_MASK {
            return false;
        }
        if mode == Mode::Light || crate::broken::SECTION_NO_FENCE {
            word.store(w + 1, Ordering::Relaxed);
            std::sync::atomic::compiler_fence(Ordering::SeqCst);
        } else {
            word.fetch_add(1, Ordering::AcqRel);
        }
        true
    }

    /// Leaves the section: release, so everything the section read is
    /// ordered before a reclaimer's acquire that sees the new mark.
    ///
    /// In the portable mode, a read-modify-write: the section entered next
    /// on the slot (a read-modify-write) must read a value in the release
    /// sequence of the reclaimer's read-modify-write of the mark, so that it
    /// synchronizes with the reclaimer and loads the state pointer it
    /// rewrote, never the state it frees once this section has left. A
    /// plain store here would end that sequence, and the language's memory
    /// model would then let the next section load the unlinked state (loom
    /// finds it: `a_second_section_sees_the_state_unlinked` with
    /// `--cfg cuckoo_broken_section_leave_store`). The light mode's barrier
    /// orders each section on its own: a plain store.
    #[inline(always)]
    pub(crate) fn leave(&self, mode: Mode) {
        let word = &self.word;
        // Only this section changes the word (the reclaimer's
        // read-modify-writes add 0): its own last value.
        let w = word.load(Ordering::Relaxed);
        let step = if w & DEPTH_MASK == 1 {
            OUTERMOST_LEFT
        } else {
            u64::MAX // -1: a nested section left
        };
        if mode == Mode::Light || crate::broken::SECTION_LEAVE_STORE {
            word.store(w.wrapping_add(step), Ordering::Release);
        } else {
            word.fetch_add(step, Ordering::Release);
        }
    }

    /// Enters an outermost section on a slot no section is inside (its
    /// depth 0), with a read-modify-write: false if one is inside. The
    /// caller serializes claims (see `ORPHANS`).
    #[cfg(not(loom))]
    fn claim(&self) -> bool {
        let word = &self.word;
        let w = word.load(Ordering::Relaxed);
        w & DEPTH_MASK == 0
            && word
                .compare_exchange(w, w + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// The reclaimer's read of the mark.
    fn read(&self, mode: Mode) -> u64 {
        match mode {
            Mode::Light => self.word.load(Ordering::Acquire),
            Mode::Portable => self.word.fetch_add(0, Ordering::AcqRel),
        }
    }
}

/// The slots of every thread that has entered a section.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) struct Slots {
    slots: crate::sync::Mutex<Vec<Arc<Slot>>>,
}

#[cfg_attr(loom, allow(dead_code))]
impl Slots {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Slots {
            slots: crate::sync::Mutex::new(Vec::new()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Slots {
            slots: crate::sync::Mutex::new(Vec::new()),
        }
    }

    /// A new slot, registered.
    pub(crate) fn register(&self) -> Arc<Slot> {
        let slot = Arc::new(Slot::new());
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        // Slots of threads that have exited (only the list holds them).
        slots.retain(|s| Arc::strong_count(s) > 1);
        slots.push(Arc::clone(&slot));
        slot
    }

    /// After the state pointer was rewritten (and, in `Light` mode, the
    /// barrier taken): the marks of the slots inside a section now.
    pub(crate) fn inside(&self, mode: Mode) -> Vec<(Arc<Slot>, u64)> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .iter()
            .filter_map(|s| {
                let word = s.read(mode);
                (word & DEPTH_MASK != 0).then(|| (Arc::clone(s), word))
            })
            .collect()
    }
}

/// True once every section in `inside` has been left (its slot's count of
/// outermost sections left moved on: acquire, pairing with the section's
/// release on leaving).
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn all_left(inside: &[(Arc<Slot>, u64)]) -> bool {
    inside
        .iter()
        .all(|(slot, word)| slot.word.load(Ordering::Acquire) >> DEPTH_BITS != word >> DEPTH_BITS)
}

#[cfg(not(loom))]
mod imp {
    use super::{all_left, Mode, Slot, Slots};
    use crate::sync::{fence, AtomicPtr, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};

    static SLOTS: Slots = Slots::new();

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

    #[inline(always)]
    fn membarrier() -> bool {
        // `init` ran when the filter was built, before any section on it.
        LIGHT.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[inline(always)]
    fn mode() -> Mode {
        if membarrier() {
            Mode::Light
        } else {
            Mode::Portable
        }
    }

    /// The light side of an asymmetric pair (a section's entry, a writer
    /// entering the gate): a compiler fence where [`heavy_barrier`] runs
    /// `membarrier`, else a `SeqCst` fence.
    #[inline(always)]
    pub(crate) fn light_fence() {
        if membarrier() {
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
        if membarrier() {
            const PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
            // SAFETY: as in `membarrier_register`.
            return unsafe { libc::syscall(libc::SYS_membarrier, PRIVATE_EXPEDITED, 0) } == 0;
        }
        fence(Ordering::SeqCst);
        true
    }

    thread_local! {
        /// This thread's slot in the light mode once registered, else null:
        /// what a section reads. Constant-initialized with no destructor,
        /// so reading it is one thread-relative load, with no check of a
        /// lazy state. Left null in the portable mode, whose sections take
        /// [`pin_slow`] (a read-modify-write costs far more than the lazy
        /// check), so the fast path needs no test of the mode.
        static FAST: std::cell::Cell<*const Slot> = const { std::cell::Cell::new(std::ptr::null()) };
        /// Owns this thread's slot (registered on the thread's first
        /// section) and clears `FAST` before letting it go.
        static OWNER: SlotOwner = {
            let slot = SLOTS.register();
            if membarrier() {
                FAST.with(|f| f.set(Arc::as_ptr(&slot)));
            }
            SlotOwner(slot)
        };
    }

    struct SlotOwner(Arc<Slot>);

    impl Drop for SlotOwner {
        fn drop(&mut self) {
            FAST.with(|f| f.set(std::ptr::null()));
        }
    }

    /// Slots for the sections of threads whose own slot is gone (a
    /// thread-local destructor that runs after `OWNER`'s): each is claimed
    /// by one section at a time ([`Slot::claim`], under this lock) and
    /// never freed, so a guard needs no way to give one back. There are as
    /// many as such sections ever ran at once: a handful.
    static ORPHANS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

    /// A read-side section: the state loaded through it stays alive until
    /// it drops. Neither `Send` nor `Sync` (its raw pointer): it marks its
    /// own thread's slot.
    pub(crate) struct Guard {
        /// The section's slot, its address's low bits a tag ([`PORTABLE`],
        /// [`COVERED`]; slots are aligned to a cache line, so the bits are
        /// free): this thread's slot, kept alive by the thread-local
        /// `OWNER` for as long as `FAST` points to it (and by the list in
        /// `SLOTS` until then too), or one of `ORPHANS`, never freed.
        slot: *const Slot,
    }

    /// The tag of a [`Guard`] whose section leaves with a read-modify-write
    /// ([`Slot::leave`]): the portable mode's sections and every orphan
    /// slot's. Register bits, where a field of the guard or of the slot
    /// would cost a load on every section's exit.
    const PORTABLE: usize = 1;
    /// The tag of a [`Guard`] whose section left no mark (its slot's depth
    /// was at its most: [`Slot::enter`]) and must not leave one.
    const COVERED: usize = 2;

    impl Guard {
        /// The guard of a section that entered on `slot` in the light mode
        /// and wrote its mark.
        #[inline(always)]
        fn light(slot: *const Slot) -> Self {
            debug_assert_eq!(slot.addr() & (PORTABLE | COVERED), 0, "slots are aligned");
            Guard { slot }
        }

        /// The guard of a section that entered on `slot` (`entered`: its
        /// mark was written) in `mode`.
        #[cold]
        #[inline(never)]
        fn new(slot: *const Slot, mode: Mode, entered: bool) -> Self {
            debug_assert_eq!(slot.addr() & (PORTABLE | COVERED), 0, "slots are aligned");
            let tag = if !entered {
                COVERED
            } else if mode == Mode::Portable {
                PORTABLE
            } else {
                0
            };
            Guard {
                slot: slot.map_addr(|a| a | tag),
            }
        }
    }

    impl Drop for Guard {
        #[inline(always)]
        fn drop(&mut self) {
            if self.slot.addr() & (PORTABLE | COVERED) == 0 {
                // SAFETY: see the field: the slot outlives the guard (a
                // guard never outlives the call that made it, and `OWNER`
                // is destroyed only when its thread exits, after every such
                // call).
                unsafe { &*self.slot }.leave(Mode::Light);
            } else {
                leave_tagged(self.slot);
            }
        }
    }

    /// A tagged [`Guard`]'s exit: a read-modify-write if [`PORTABLE`],
    /// nothing if [`COVERED`].
    #[cold]
    #[inline(never)]
    fn leave_tagged(tagged: *const Slot) {
        if tagged.addr() & COVERED != 0 {
            return;
        }
        let slot = tagged.map_addr(|a| a & !PORTABLE);
        // SAFETY: untagged, this is the slot `Guard::new` was given, which
        // outlives the guard (the `Guard::slot` field: `OWNER`'s slot, or
        // one of `ORPHANS`, never freed).
        unsafe { &*slot }.leave(Mode::Portable);
    }

    /// Enters a read-side section on this thread's slot: in the light mode
    /// a load and a store (no atomic read-modify-write, no reference
    /// count, no test of the mode). The portable mode, and a thread
    /// entering its first section, take [`pin_slow`].
    #[inline(always)]
    pub(crate) fn pin() -> Guard {
        let slot = FAST.with(std::cell::Cell::get);
        if slot.is_null() {
            return pin_slow();
        }
        // SAFETY: non-null, `FAST` points to the slot `OWNER` holds, which
        // it clears before dropping it.
        if unsafe { &*slot }.enter(Mode::Light) {
            Guard::light(slot)
        } else {
            Guard::new(slot, Mode::Light, false)
        }
    }

    /// [`pin`] in the portable mode, on a thread whose slot is not
    /// registered yet, or on one whose slot is gone (a section on a claimed
    /// orphan slot, portable: slower, still correct).
    #[cold]
    #[inline(never)]
    fn pin_slow() -> Guard {
        let mode = mode();
        let enter = |s: &SlotOwner| (Arc::as_ptr(&s.0), s.0.enter(mode));
        if let Ok((slot, entered)) = OWNER.try_with(enter) {
            return Guard::new(slot, mode, entered);
        }
        let mut orphans = ORPHANS.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match orphans.iter().find(|s| s.claim()) {
            Some(s) => Arc::as_ptr(s),
            None => {
                let s = SLOTS.register();
                let claimed = s.claim();
                debug_assert!(claimed, "a slot no one has seen is free");
                let slot = Arc::as_ptr(&s);
                orphans.push(s);
                slot
            }
        };
        Guard::new(slot, Mode::Portable, true)
    }

    /// A state that operations load and growth steps replace.
    pub(crate) struct Current<T> {
        ptr: AtomicPtr<T>,
        /// Owns the `T`s behind `ptr` and `retired` (the auto traits of
        /// `AtomicPtr` would make it `Sync` for any `T`): see the `Send`
        /// and `Sync` impls below.
        _owns: std::marker::PhantomData<*mut T>,
        /// States unlinked and not yet freed: raw, not boxed, because a
        /// `Box` asserts unique access and sections (this thread's among
        /// them, when it is the one that unlinks) may still hold references.
        retired: Mutex<Vec<Retired<T>>>,
    }

    /// A pointer from `Box::into_raw`, unlinked, freed once by its owner.
    struct Retired<T>(*mut T);

    // SAFETY: a retired state is a `T` owned by the list: sent between
    // threads as the `Box<T>` it was (`T: Send`).
    unsafe impl<T: Send> Send for Retired<T> {}

    impl<T> Retired<T> {
        /// Frees it.
        ///
        /// # Safety
        /// No reference to the state may be alive, now or later.
        unsafe fn free(self) {
            // SAFETY: from `Box::into_raw`, freed once (`self` is consumed);
            // the caller vouches no reference is left.
            drop(unsafe { Box::from_raw(self.0) });
        }
    }

    // SAFETY: a `Current` owns its `T`s (boxed, freed once by `reclaim`
    // or `drop`, on whichever thread runs them: `T: Send`) and hands out
    // `&T` to every thread that loads it (`T: Sync`).
    unsafe impl<T: Send + Sync> Send for Current<T> {}
    // SAFETY: as above.
    unsafe impl<T: Send + Sync> Sync for Current<T> {}

    impl<T: Send + Sync> Current<T> {
        pub(crate) fn new(value: T) -> Self {
            init();
            Current {
                ptr: AtomicPtr::new(Box::into_raw(Box::new(value))),
                _owns: std::marker::PhantomData,
                retired: Mutex::new(Vec::new()),
            }
        }

        /// The state now (acquire: what was written before it was
        /// published is visible), borrowed for as long as both the guard's
        /// section and `self` live.
        #[inline(always)]
        pub(crate) fn load<'g>(&'g self, _guard: &'g Guard) -> &'g T {
            // SAFETY: the pointer is never null (set in `new`, replaced only
            // by `replace` with another boxed value), and a state it pointed
            // to is freed only by `reclaim`, after every section that was
            // inside when it was unlinked has left: the guard's section
            // entered before this load, so it either is one of those (and
            // `reclaim` waits for it) or it loads a state not yet unlinked.
            unsafe { &*self.ptr.load(Ordering::Acquire) }
        }

        /// Publishes `value` (release) and retires the state it replaces.
        pub(crate) fn replace(&self, value: T, _guard: &Guard) {
            let old = self
                .ptr
                .swap(Box::into_raw(Box::new(value)), Ordering::AcqRel);
            // Unlinked here, once: no later load returns it.
            self.retired
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Retired(old));
        }

        /// Frees the retired states once no section can still use them,
        /// trying `rounds` times (yielding between); keeps them for a later
        /// call if some section is still inside. Never blocks on a section.
        pub(crate) fn reclaim(&self, rounds: usize) {
            let batch =
                std::mem::take(&mut *self.retired.lock().unwrap_or_else(|e| e.into_inner()));
            if batch.is_empty() {
                return;
            }
            // Rewrite the current pointer (an RMW, so it is the latest
            // value) on this thread before the barrier: the states were
            // unlinked by whichever thread swapped them, and the fence rule
            // that makes a section's load see the unlinking needs the store
            // sequenced before this thread's barrier. (Miri found the race
            // without it: a section loading a state this thread then freed.)
            let mut now = self.ptr.load(Ordering::Relaxed);
            while let Err(seen) =
                self.ptr
                    .compare_exchange_weak(now, now, Ordering::AcqRel, Ordering::Relaxed)
            {
                now = seen;
            }
            if !heavy_barrier() {
                // Kept until the filter drops.
                self.retired
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(batch);
                return;
            }
            let inside = SLOTS.inside(mode());
            for round in 0..rounds {
                if all_left(&inside) {
                    // Freed here, on the reclaiming thread: dropping a
                    // state may free a frozen generation's table.
                    for state in batch {
                        // SAFETY: unlinked before the barrier; every section
                        // inside then has left (the marks moved on: their
                        // release pairs with the acquire in `all_left`), and
                        // any section entered since loads a later state
                        // (module docs). The caller holds no reference
                        // (reclaim runs outside its sections).
                        unsafe { state.free() };
                    }
                    return;
                }
                if round + 1 < rounds {
                    std::thread::yield_now();
                }
            }
            self.retired
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(batch);
        }
    }

    impl<T> Drop for Current<T> {
        fn drop(&mut self) {
            // SAFETY: `&mut self`: no operation is running on the filter, so
            // no section uses any state; each came from `Box::into_raw` and
            // is freed once, here.
            drop(unsafe { Box::from_raw(*self.ptr.get_mut()) });
            let retired = self.retired.get_mut().unwrap_or_else(|e| e.into_inner());
            for state in retired.drain(..) {
                // SAFETY: as above.
                unsafe { state.free() };
            }
        }
    }
    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::grow::current::{Slot, DEPTH_MASK};

        /// More nested sections than a slot's depth counts (a callback into
        /// the filter from inside a section, recursing).
        const DEEP: usize = 70_000;

        fn inside(slots: &Slots, slot: &Arc<Slot>, mode: Mode) -> bool {
            slots.inside(mode).iter().any(|(s, _)| Arc::ptr_eq(s, slot))
        }

        /// Past the depth the slot counts, a section writes no mark, and
        /// the slot reads as inside until the outermost section leaves, in
        /// either mode.
        #[test]
        fn sections_nested_past_the_depth_count_keep_the_slot_inside() {
            for mode in [Mode::Light, Mode::Portable] {
                let slots = Slots::new();
                let slot = slots.register();
                let entered: Vec<bool> = (0..DEEP).map(|_| slot.enter(mode)).collect();
                assert_eq!(
                    entered.iter().filter(|e| **e).count(),
                    DEPTH_MASK as usize,
                    "{mode:?}"
                );
                assert!(inside(&slots, &slot, mode), "{mode:?}");
                // Innermost first, all but the outermost.
                for &e in entered[1..].iter().rev() {
                    if e {
                        slot.leave(mode);
                    }
                    assert!(inside(&slots, &slot, mode), "{mode:?}");
                }
                slot.leave(mode);
                assert!(!inside(&slots, &slot, mode), "{mode:?}");
            }
        }

        /// The same through [`pin`]'s guards on this thread's own slot.
        #[test]
        fn guards_nested_past_the_depth_count_keep_the_thread_inside() {
            let mine = |slots: &[(Arc<Slot>, u64)]| {
                OWNER.with(|o| slots.iter().any(|(s, _)| Arc::ptr_eq(s, &o.0)))
            };
            // Exactly as many as wrap a 16-bit count to 0.
            let mut guards: Vec<Guard> = (0..=DEPTH_MASK).map(|_| pin()).collect();
            assert!(mine(&SLOTS.inside(mode())));
            let outermost = guards.remove(0);
            while let Some(g) = guards.pop() {
                drop(g);
            }
            assert!(mine(&SLOTS.inside(mode())));
            drop(outermost);
            assert!(!mine(&SLOTS.inside(mode())));
        }
    }
}

#[cfg(loom)]
mod imp {
    use crate::sync::{AtomicPtr, Ordering};

    /// No section under loom: nothing is freed before the filter drops.
    pub(crate) struct Guard;

    pub(crate) fn pin() -> Guard {
        Guard
    }

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

        pub(crate) fn load<'g>(&'g self, _guard: &'g Guard) -> &'g T {
            // SAFETY: every pointer published stays allocated until drop.
            unsafe { &*self.ptr.load(Ordering::Acquire) }
        }

        pub(crate) fn replace(&self, value: T, _guard: &Guard) {
            let p = Box::into_raw(Box::new(value));
            self.all.lock().unwrap().push(p);
            self.ptr.swap(p, Ordering::AcqRel);
        }

        pub(crate) fn reclaim(&self, _rounds: usize) {}
    }

    /// Loom models the `SeqCst` fence pairing (the fallback everywhere).
    pub(crate) fn light_fence() {
        crate::sync::fence(Ordering::SeqCst);
    }

    pub(crate) fn heavy_barrier() -> bool {
        crate::sync::fence(Ordering::SeqCst);
        true
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

pub(crate) use imp::{heavy_barrier, light_fence, pin, Current, Guard};

/// The section protocol on its own, under loom (`.ci/loom.sh` runs it):
/// a reader enters a section, loads the current version and checks it was
/// not freed; the reclaimer swaps the version, takes the barrier, reads the
/// marks and frees the old version once every section it saw has left.
/// With `--cfg cuckoo_broken_section_no_fence` (the reader's mark a plain
/// store, as in the light mode but without the kernel's barrier), loom
/// finds the reader using a freed version in every model; with
/// `--cfg cuckoo_broken_section_leave_store` (the exit a plain store), in
/// the model of two sections in turn.
#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use crate::sync::AtomicBool;
    use loom::thread;

    /// One reader thread running `read` on its registered slot (given the
    /// current version and which versions are freed; false if it used a
    /// freed one) against the reclaimer: unlink version 0 (a
    /// read-modify-write, as the reclaimer's rewrite of the pointer), read
    /// the marks, and free it if the sections it saw have left.
    fn reader_against_reclaimer(read: fn(&Slot, &AtomicU64, &[AtomicBool; 2]) -> bool) {
        const RECLAIM_LOOKS: usize = 3;
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(move || {
            let slots = Slots::new();
            let current = Arc::new(AtomicU64::new(0));
            let freed = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
            let reader = {
                let (current, freed) = (Arc::clone(&current), Arc::clone(&freed));
                let slot = slots.register();
                thread::spawn(move || read(&slot, &current, &freed))
            };
            current.swap(1, Ordering::AcqRel);
            // A few looks, yielding between, as a reclaim's rounds: free
            // once every section seen inside has left, else keep (an
            // unbounded wait lets loom read the same stale mark forever).
            let inside = slots.inside(Mode::Portable);
            for _ in 0..RECLAIM_LOOKS {
                if all_left(&inside) {
                    freed[0].store(true, Ordering::Relaxed);
                    break;
                }
                thread::yield_now();
            }
            assert!(reader.join().unwrap(), "a section used a freed state");
        });
    }

    #[test]
    fn a_section_never_sees_its_state_freed() {
        reader_against_reclaimer(|slot, current, freed| {
            slot.enter(Mode::Portable);
            let v = current.load(Ordering::Acquire) as usize;
            let ok = !freed[v].load(Ordering::Relaxed);
            slot.leave(Mode::Portable);
            ok
        });
    }

    /// A section with another nested in it (a callback into the filter
    /// from inside a section): the nested section's entry and exit change
    /// the slot's word, and the reclaimer must still wait for the outer
    /// one, which uses its state after the nested one has left.
    #[test]
    fn a_nested_section_does_not_end_the_outer_one() {
        reader_against_reclaimer(|slot, current, freed| {
            slot.enter(Mode::Portable);
            let v = current.load(Ordering::Acquire) as usize;
            slot.enter(Mode::Portable);
            slot.leave(Mode::Portable);
            let ok = !freed[v].load(Ordering::Relaxed);
            slot.leave(Mode::Portable);
            ok
        });
    }

    /// Two sections in turn on one slot (a thread's lookups, or orphan
    /// sections of two threads): the reclaimer may see the first inside,
    /// see it leave and free version 0; the second must then load version
    /// 1. `section_no_fence` fails it, and so does `section_leave_store`
    /// (the first section leaving with a plain store: [`Slot::leave`]).
    #[test]
    fn a_second_section_sees_the_state_unlinked() {
        reader_against_reclaimer(|slot, current, freed| {
            let mut ok = true;
            for _ in 0..2 {
                slot.enter(Mode::Portable);
                let v = current.load(Ordering::Acquire) as usize;
                ok &= !freed[v].load(Ordering::Relaxed);
                slot.leave(Mode::Portable);
            }
            ok
        });
    }
}
