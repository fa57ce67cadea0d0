//! One thread's mark of its read-side sections ([`Slot`]), the list of
//! every thread's ([`Slots`]), and the reclaimer's check that the sections
//! it saw have left ([`all_left`]).

use crate::sync::{compiler_fence, Arc, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;

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
pub(crate) struct Slot {
    word: CachePadded<AtomicU64>,
}

/// Bits of a [`Slot`]'s word that count nested sections: a thread nests a
/// section only by calling back into the filter from inside one, a stack
/// frame a level. The 48 bits above count outermost sections left: at one
/// a nanosecond they wrap after three days, far past a reclaimer's wait.
const DEPTH_BITS: u32 = 16;
pub(super) const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;
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
pub(crate) enum Mode {
    Light,
    Portable,
}

impl Slot {
    pub(super) fn new() -> Self {
        Slot {
            word: CachePadded::new(AtomicU64::new(0)),
        }
    }

    /// Enters a section (outermost or nested): the mark, ordered before
    /// the loads that follow. False, with nothing written, if the slot's
    /// depth is at its most ([`DEPTH_MASK`]): the section is nested in
    /// others that keep the slot inside until they leave, so it needs no
    /// mark of its own, and its guard must not leave ([`Guard`](super::Guard)'s
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
            compiler_fence(Ordering::SeqCst);
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
    pub(super) fn claim(&self) -> bool {
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
pub(crate) fn all_left(inside: &[(Arc<Slot>, u64)]) -> bool {
    crate::broken::RECLAIM_NO_WAIT
        || inside.iter().all(|(slot, word)| {
            slot.word.load(Ordering::Acquire) >> DEPTH_BITS != word >> DEPTH_BITS
        })
}

#[cfg(all(test, not(cuckoo_nest_loom)))]
mod tests {
    use super::*;

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
    #[cfg_attr(
        miri,
        ignore = "140,000 sections, each checked: minutes under Miri; no unsafe code"
    )]
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
    /// from inside a section): the nested section's entry and exit change
    /// the slot's word, and the reclaimer must still wait for the outer
    /// one, which uses its state after the nested one has left.
    pub fn a_nested_section_does_not_end_the_outer_one() {
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
