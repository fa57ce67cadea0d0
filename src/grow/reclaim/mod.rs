//! The growable filter's current state, swapped whole at each growth step,
//! and freed once no operation can still be using it.
//!
//! Every operation runs in a *read-side section* ([`pin`]): it marks its
//! thread's slot as inside (a word written by the thread alone: see
//! [`Slot`](slot::Slot)), loads the state, uses it, and marks the slot outside again. A
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
//! instead ([`Mode`](slot::Mode)). Reclaiming never blocks: it frees
//! what is safe and keeps the rest for the next try (a section may wait on
//! a lock the reclaiming thread holds).
//!
//! Under loom, `local_loom.rs` gives each model thread its slot afresh in
//! each execution, sections run in the portable mode, and a freed state's
//! memory is kept until the filter drops (`sync::Grave`), its end marked
//! where loom checks it against every load (`sync::Lifetime`); the section
//! protocol has its own models on [`slot::Slots`].

// This thread's slot: loom's model threads share one OS thread and each
// execution starts afresh, so its build swaps in per-model-thread slots.
#[cfg(not(cuckoo_nest_loom))]
mod local;
#[cfg(cuckoo_nest_loom)]
#[path = "local_loom.rs"]
mod local;
mod slot;
#[cfg(all(feature = "internals", cuckoo_nest_loom))]
pub(crate) use slot::loom_model;

mod imp {
    use super::local::{fast, is_idle, SlotOwner, HAS_FAST, OWNER, SLOTS};
    use super::slot::{all_left, Mode, Slot};
    use crate::grow::barrier::{heavy_barrier, init, is_light};
    use crate::sync::{process, Arc, AtomicPtr, AtomicU64, Grave, Lifetime, Mutex, Ordering};

    /// How this process's sections order their marks ([`Mode`]).
    #[inline(always)]
    fn mode() -> Mode {
        if is_light() {
            Mode::Light
        } else {
            Mode::Portable
        }
    }

    /// Slots for the sections of threads whose own slot is gone (a
    /// thread-local destructor that runs after `OWNER`'s): each is claimed
    /// by one section at a time ([`Slot::claim`], under this lock) and
    /// never freed, so a guard needs no way to give one back. There are as
    /// many as such sections ever ran at once: a handful.
    static ORPHANS: process::Mutex<Vec<Arc<Slot>>> = process::Mutex::new(Vec::new());

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
    /// The tag of a [`Guard`] whose section left no mark (it is nested in
    /// another section of its thread, whose mark covers it:
    /// [`Slot::enter`]) and must not leave one.
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

    impl Guard {
        /// The gate pass mark ([`Slot::pass_mark`]) of the slot this
        /// section runs on: its thread's (or its claimed orphan's), also
        /// when the section is nested and left no mark of its own.
        #[inline(always)]
        pub(crate) fn pass_mark(&self) -> &AtomicU64 {
            let slot = self.slot.map_addr(|a| a & !(PORTABLE | COVERED));
            // SAFETY: untagged, this is the slot the guard was made with,
            // which outlives the guard (the `Guard::slot` field), and the
            // reference lives no longer than the guard's borrow.
            unsafe { &*slot }.pass_mark()
        }
    }

    /// Every registered slot, for a closing gate to read their pass marks
    /// ([`Slot::pass_mark`]): a snapshot, taken under the list's lock
    /// and read after it is released.
    pub(crate) struct PassMarks(Vec<Arc<Slot>>);

    impl PassMarks {
        /// Of every slot registered now (a slot registered later belongs to
        /// a thread whose next pass reads the gate closed: the list's lock
        /// orders the registration after this read, and the closing store
        /// before it).
        pub(crate) fn now() -> Self {
            PassMarks(SLOTS.all())
        }

        pub(crate) fn iter(&self) -> impl Iterator<Item = &AtomicU64> {
            self.0.iter().map(|s| s.pass_mark())
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
        if !HAS_FAST {
            return pin_slow();
        }
        let slot = fast();
        // SAFETY: `FAST` points to the slot `OWNER` holds, which it points
        // elsewhere before dropping it, or to the static `IDLE`.
        if unsafe { &*slot }.enter(Mode::Light) {
            Guard::light(slot)
        } else {
            pin_unmarked(slot)
        }
    }

    /// [`pin`] where the fast path's slot took no mark: this thread's own
    /// slot, already inside a section (this one is nested), or the idle
    /// slot (the thread has no slot the fast path may use: [`pin_slow`]).
    #[cold]
    #[inline(never)]
    fn pin_unmarked(slot: *const Slot) -> Guard {
        if is_idle(slot) {
            pin_slow()
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
        ptr: AtomicPtr<Boxed<T>>,
        /// Owns the `T`s behind `ptr` and `retired` (the auto traits of
        /// `AtomicPtr` would make it `Sync` for any `T`): see the `Send`
        /// and `Sync` impls below.
        _owns: std::marker::PhantomData<*mut T>,
        /// States unlinked and not yet freed: raw, not boxed, because a
        /// `Box` asserts unique access and sections (this thread's among
        /// them, when it is the one that unlinks) may still hold references.
        retired: Mutex<Vec<Retired<T>>>,
        /// Where the states freed go: freed there and then, or under loom
        /// kept until the drop ([`Grave`]).
        grave: Grave<Boxed<T>>,
    }

    /// A published state, with its [`Lifetime`] read by every load and
    /// ended by the free: under loom, a free not ordered after every load
    /// of the state (a section still using what the reclaimer frees) is a
    /// causality violation, so the growth models check the reclamation too.
    struct Boxed<T> {
        value: T,
        alive: Lifetime,
    }

    impl<T> Boxed<T> {
        /// A new state, boxed, as the raw pointer `Current` holds.
        fn into_raw(value: T) -> *mut Self {
            Box::into_raw(Box::new(Boxed {
                value,
                alive: Lifetime::new(),
            }))
        }

        /// Frees it.
        ///
        /// # Safety
        /// `p` came from [`Boxed::into_raw`] and is freed once; no
        /// reference to the state is alive, now or later.
        unsafe fn free(p: *mut Self) {
            // SAFETY: `p` is live until the drop below (the caller's word).
            unsafe { &*p }.alive.ended();
            // SAFETY: from `Box::into_raw`, freed once (the caller's word).
            drop(unsafe { Box::from_raw(p) });
        }
    }

    /// A pointer from [`Boxed::into_raw`], unlinked, freed once by its
    /// owner.
    struct Retired<T>(*mut Boxed<T>);

    // SAFETY: a retired state is a `T` owned by the list: sent between
    // threads as the `Box<T>` it was (`T: Send`).
    unsafe impl<T: Send> Send for Retired<T> {}

    impl<T> Retired<T> {
        /// Frees it.
        ///
        /// # Safety
        /// No reference to the state may be alive, now or later.
        unsafe fn free(self) {
            // SAFETY: from `Boxed::into_raw`, freed once (`self` is
            // consumed); the caller vouches no reference is left.
            unsafe { Boxed::free(self.0) }
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
                ptr: AtomicPtr::new(Boxed::into_raw(value)),
                _owns: std::marker::PhantomData,
                retired: Mutex::new(Vec::new()),
                grave: Grave::new(),
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
            let state = unsafe { &*self.ptr.load(Ordering::Acquire) };
            state.alive.used();
            &state.value
        }

        /// Publishes `value` (release) and retires the state it replaces.
        pub(crate) fn replace(&self, value: T, _guard: &Guard) {
            let old = self.ptr.swap(Boxed::into_raw(value), Ordering::AcqRel);
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
                        unsafe { self.free(state) };
                    }
                    return;
                }
                if round + 1 < rounds {
                    crate::sync::yield_now();
                }
            }
            self.retired
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(batch);
        }
    }

    impl<T> Current<T> {
        /// Frees a retired state: its lifetime ends now, its memory goes
        /// to the grave (under loom, kept until the drop).
        ///
        /// # Safety
        /// As [`Retired::free`].
        unsafe fn free(&self, state: Retired<T>) {
            // SAFETY: live until the grave frees it (the caller's word: no
            // reference is alive).
            unsafe { &*state.0 }.alive.ended();
            // SAFETY: from `Boxed::into_raw`, retired once, so buried once;
            // the caller vouches no reference is left.
            unsafe { self.grave.bury(state.0, Boxed::free) };
        }
    }

    impl<T> Drop for Current<T> {
        fn drop(&mut self) {
            // `&mut self`: no operation is running on the filter, so no
            // section uses any state.
            let now = self.ptr.load(Ordering::Relaxed);
            // SAFETY: as above; each came from `Boxed::into_raw` and is
            // freed once, here.
            unsafe { Boxed::free(now) };
            let mut retired = self.retired.lock().unwrap_or_else(|e| e.into_inner());
            for state in retired.drain(..) {
                // SAFETY: as above.
                unsafe { state.free() };
            }
        }
    }

    #[cfg(all(test, not(cuckoo_nest_loom)))]
    mod tests {
        use super::*;

        /// Nested sections through [`pin`]'s guards on this thread's own
        /// slot (`slot.rs` tests the slot alone): the nested guards are
        /// `COVERED` and leave no mark behind, in whatever order they drop.
        #[test]
        fn nested_guards_keep_the_thread_inside_until_the_outermost_drops() {
            let mine = |slots: &[(Arc<Slot>, u64)]| {
                OWNER.with(|o| slots.iter().any(|(s, _)| Arc::ptr_eq(s, &o.0)))
            };
            let mut guards: Vec<Guard> = (0..100).map(|_| pin()).collect();
            assert!(mine(&SLOTS.inside(mode())));
            let outermost = guards.remove(0);
            assert!(guards.iter().all(|g| g.slot.addr() & COVERED != 0));
            // Out of order: every other one first.
            let (odd, even): (Vec<_>, Vec<_>) = guards
                .into_iter()
                .enumerate()
                .partition(|(k, _)| k % 2 == 1);
            drop(odd);
            assert!(mine(&SLOTS.inside(mode())));
            drop(even);
            assert!(mine(&SLOTS.inside(mode())));
            drop(outermost);
            assert!(!mine(&SLOTS.inside(mode())));
        }

        /// A thread's first section finds the idle slot on the fast path
        /// (the thread has no slot yet) and marks the slot it registers, as
        /// every later section marks it: none is taken for a nested one.
        #[test]
        fn a_threads_first_section_marks_its_own_slot() {
            std::thread::spawn(|| {
                assert!(is_idle(fast()), "a new thread starts on the idle slot");
                for _ in 0..3 {
                    let guard = pin();
                    assert_eq!(guard.slot.addr() & COVERED, 0, "a section left unmarked");
                    let inside = SLOTS.inside(mode());
                    assert!(OWNER.with(|o| inside.iter().any(|(s, _)| Arc::ptr_eq(s, &o.0))));
                }
            })
            .join()
            .expect("the sections ran");
        }
    }
}

pub(crate) use imp::{pin, Current, Guard, PassMarks};
