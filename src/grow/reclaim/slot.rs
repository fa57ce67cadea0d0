//! One thread's mark of its read-side sections ([`Slot`]), the list of
//! every thread's ([`Slots`]), and the reclaimer's check that the sections
//! it saw have left ([`all_left`]).

use crate::sync::{compiler_fence, Arc, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;

/// One thread's section mark: a word written by its thread alone (an
/// orphan slot's, by the one section that claimed it), except for the
/// reclaimer's read-modify-writes of zero in the portable mode (below). It
/// counts the thread's outermost sections entered and left, so it is odd
/// while the thread is inside one ([`INSIDE`]), and a section the
/// reclaimer saw inside has left once the word has moved on. A section
/// nested in another (a callback into the filter from inside a section)
/// finds the word odd and leaves it alone: the outer section's mark
/// covers it, and only the outer one's exit may let the reclaimer free
/// what both loaded. That needs the nested section to end first, which
/// holds because a guard never leaves the call that took it (`pin`'s
/// callers keep it in a local; none returns or stores one), so a section
/// nested in a call made from inside another ends before that call
/// returns. One word, so entering is a load, a test and a store,
/// and leaving a load and a store.
pub(crate) struct Slot {
    marks: CachePadded<Marks>,
}

/// A slot's two marks, on one cache line: a writer marks both.
struct Marks {
    /// The section mark above.
    word: AtomicU64,
    /// The address of the writers' gate its thread holds a pass of, or 0
    /// ([`Slot::pass_mark`]).
    pass: AtomicU64,
}

/// The bit of a [`Slot`]'s word that is set while its thread is inside a
/// section. (The word counts up by one at each outermost entry and exit:
/// at one a nanosecond it wraps after 584 years.)
pub(super) const INSIDE: u64 = 1;

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
pub(crate) enum Mode {
    Light,
    Portable,
}

impl Slot {
    pub(super) fn new() -> Self {
        Slot {
            marks: CachePadded::new(Marks {
                word: AtomicU64::new(0),
                pass: AtomicU64::new(0),
            }),
        }
    }

    /// A slot no section marks: its word reads inside a section for good,
    /// so [`Self::enter`] on it writes nothing and returns false. What a
    /// thread's fast-path pointer holds until the thread has a slot of its
    /// own (`local.rs`, `IDLE`).
    #[cfg(not(cuckoo_nest_loom))]
    pub(super) const fn idle() -> Self {
        Slot {
            marks: CachePadded::new(Marks {
                word: AtomicU64::new(INSIDE),
                pass: AtomicU64::new(0),
            }),
        }
    }

    /// The gate pass mark: the address of the writers' gate
    /// ([`Gate`](crate::grow::gate::Gate)) this slot's thread holds a pass
    /// of, or 0. Written by that thread alone (an orphan slot's, by the
    /// section that claimed it), with release stores; read by a closing
    /// gate, with acquire loads.
    #[inline(always)]
    pub(crate) fn pass_mark(&self) -> &AtomicU64 {
        &self.marks.pass
    }

    /// Enters a section: the mark, ordered before the loads that follow.
    /// False, with nothing written, if the thread is inside a section
    /// already: this one is nested in it, needs no mark of its own (the
    /// outer one keeps the slot inside until it leaves), and its guard
    /// must not leave ([`Guard`](super::Guard)'s `COVERED` tag).
    #[inline(always)]
    pub(crate) fn enter(&self, mode: Mode) -> bool {
        let word = &self.marks.word;
        // Only this thread changes the word (the reclaimer's
        // read-modify-writes add 0): its own last value.
        let w = word.load(Ordering::Relaxed);
        if w & INSIDE != 0 {
            return false;
        }
        if mode == Mode::Light || crate::broken::SECTION_NO_FENCE {
            word.store(w + 1, Ordering::Relaxed);
            compiler_fence(Ordering::SeqCst);
        } else {
            word.fetch_add(1, Ordering::AcqRel);
        }
        true
    }

    /// Leaves the section (one that [`Self::enter`] marked): release, so
    /// everything the section read is ordered before a reclaimer's acquire
    /// that sees the new mark.
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
        let word = &self.marks.word;
        if mode == Mode::Light || crate::broken::SECTION_LEAVE_STORE {
            // Only this section changes the word (the reclaimer's
            // read-modify-writes add 0): its own last value.
            let w = word.load(Ordering::Relaxed);
            word.store(w.wrapping_add(1), Ordering::Release);
        } else {
            word.fetch_add(1, Ordering::Release);
        }
    }

    /// Enters an outermost section on a slot no section is inside (its
    /// word even), with a read-modify-write: false if one is inside. The
    /// caller serializes claims (see `ORPHANS`).
    pub(super) fn claim(&self) -> bool {
        let word = &self.marks.word;
        let w = word.load(Ordering::Relaxed);
        w & INSIDE == 0
            && word
                .compare_exchange(w, w + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// The reclaimer's read of the mark.
    fn read(&self, mode: Mode) -> u64 {
        match mode {
            Mode::Light => self.marks.word.load(Ordering::Acquire),
            Mode::Portable => self.marks.word.fetch_add(0, Ordering::AcqRel),
        }
    }
}

/// The slots of every thread that has entered a section.
pub(crate) struct Slots {
    slots: crate::sync::Mutex<Vec<Arc<Slot>>>,
}

impl Slots {
    #[cfg(not(cuckoo_nest_loom))]
    pub(crate) const fn new() -> Self {
        Slots {
            slots: crate::sync::Mutex::new(Vec::new()),
        }
    }

    #[cfg(cuckoo_nest_loom)]
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

    /// Every registered slot (a closing gate reads their pass marks).
    pub(crate) fn all(&self) -> Vec<Arc<Slot>> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.clone()
    }

    /// After the state pointer was rewritten (and, in `Light` mode, the
    /// barrier taken): the marks of the slots inside a section now.
    pub(crate) fn inside(&self, mode: Mode) -> Vec<(Arc<Slot>, u64)> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .iter()
            .filter_map(|s| {
                let word = s.read(mode);
                (word & INSIDE != 0).then(|| (Arc::clone(s), word))
            })
            .collect()
    }
}

/// True once every section in `inside` has been left (its slot's word
/// moved on: acquire, pairing with the section's release on leaving).
pub(crate) fn all_left(inside: &[(Arc<Slot>, u64)]) -> bool {
    crate::broken::RECLAIM_NO_WAIT
        || inside
            .iter()
            .all(|(slot, word)| slot.marks.word.load(Ordering::Acquire) != *word)
}

#[cfg(all(test, not(cuckoo_nest_loom)))]
mod tests {
    use super::*;

    /// Sections nested in one another (a callback into the filter from
    /// inside a section, recursing).
    const DEEP: usize = 1_000;

    fn inside(slots: &Slots, slot: &Arc<Slot>, mode: Mode) -> bool {
        slots.inside(mode).iter().any(|(s, _)| Arc::ptr_eq(s, slot))
    }

    /// Only the outermost of nested sections writes a mark, and the slot
    /// reads as inside until that one leaves, in either mode; the
    /// reclaimer sees the word move on only then.
    #[test]
    fn only_the_outermost_of_nested_sections_marks_the_slot() {
        for mode in [Mode::Light, Mode::Portable] {
            let slots = Slots::new();
            let slot = slots.register();
            let entered: Vec<bool> = (0..DEEP).map(|_| slot.enter(mode)).collect();
            assert!(entered[0], "{mode:?}: the outermost section marks");
            assert!(
                !entered[1..].iter().any(|e| *e),
                "{mode:?}: nested ones do not"
            );
            let seen = slots.inside(mode);
            assert!(inside(&slots, &slot, mode), "{mode:?}");
            // The nested sections leave no mark to take back: their guards
            // are `COVERED`.
            assert!(!all_left(&seen), "{mode:?}");
            slot.leave(mode);
            assert!(!inside(&slots, &slot, mode), "{mode:?}");
            assert!(all_left(&seen), "{mode:?}");
            // The next section marks again, and the reclaimer's earlier
            // view still reads it as left.
            assert!(slot.enter(mode), "{mode:?}");
            assert!(inside(&slots, &slot, mode) && all_left(&seen), "{mode:?}");
            slot.leave(mode);
        }
    }
}

/// The section protocol on its own, under loom (`.ci/loom.sh` runs it):
/// a reader enters a section, loads the current version and checks it was
/// not freed; the reclaimer swaps the version, takes the barrier, reads the
/// marks and frees the old version once every section it saw has left.
/// With `--cfg cuckoo_broken_section_no_fence` (the reader's mark a plain
/// store, as in the light mode but without the kernel's barrier), loom
/// finds the reader using a freed version in every model; with
/// `--cfg cuckoo_broken_section_leave_store` (the exit a plain store), in
/// the model of two sections in turn. Run from the models' test binary
/// (`loom-tests/tests/models/sections.rs`, through
/// `cuckoo_nest::section_models`, an `internals` hook), which builds with the
/// table's models, rather than as unit tests: a build of the crate's unit
/// tests for them cost each loom pass three minutes.
#[cfg(all(feature = "internals", cuckoo_nest_loom))]
pub(crate) mod loom_model {
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

    /// One section: it loads the current version and uses it; the
    /// reclaimer must not free that version while the section is inside.
    pub fn a_section_never_sees_its_state_freed() {
        reader_against_reclaimer(|slot, current, freed| {
            slot.enter(Mode::Portable);
            let v = current.load(Ordering::Acquire) as usize;
            let ok = !freed[v].load(Ordering::Relaxed);
            slot.leave(Mode::Portable);
            ok
        });
    }

    /// A section with another nested in it (a callback into the filter
    /// from inside a section): the nested section enters and leaves as a
    /// guard does (no mark, so nothing to take back), and the reclaimer
    /// must still wait for the outer one, which uses its state after the
    /// nested one has left.
    pub fn a_nested_section_does_not_end_the_outer_one() {
        reader_against_reclaimer(|slot, current, freed| {
            slot.enter(Mode::Portable);
            let v = current.load(Ordering::Acquire) as usize;
            if slot.enter(Mode::Portable) {
                slot.leave(Mode::Portable);
            }
            let ok = !freed[v].load(Ordering::Relaxed);
            slot.leave(Mode::Portable);
            ok
        });
    }

    /// Two sections in turn on one slot (a thread's lookups, or orphan
    /// sections of two threads): the reclaimer may see the first inside,
    /// see it leave and free version 0; the second must then load
    /// version 1. `section_no_fence` fails it, and so does
    /// `section_leave_store` (the first section leaving with a plain
    /// store: [`Slot::leave`]).
    pub fn a_second_section_sees_the_state_unlinked() {
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
