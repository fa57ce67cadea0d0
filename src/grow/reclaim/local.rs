//! This thread's slot ([`Slot`]): registered on the thread's first
//! section, owned by a thread-local, and reachable on the light mode's fast
//! path through one constant-initialized thread-local pointer. Under loom,
//! `local_loom.rs` takes this module's place.

use super::slot::{Slot, Slots};
use crate::grow::barrier::is_light;
use crate::sync::Arc;

/// Every slot ever registered in the process.
pub(super) static SLOTS: Slots = Slots::new();

/// Sections may take the light mode's fast path, through `FAST`.
pub(super) const HAS_FAST: bool = true;

/// The slot `FAST` points to while its thread has none the fast path may
/// use: never marked ([`Slot::idle`]), so a section that finds it takes the
/// slow path as a nested one would, with no test of its own.
static IDLE: Slot = Slot::idle();

std::thread_local! {
    /// This thread's slot in the light mode once registered, else
    /// [`IDLE`]: what a section reads. Constant-initialized with no
    /// destructor, so reading it is one thread-relative load, with no check
    /// of a lazy state. Left at `IDLE` in the portable mode, whose sections
    /// take the slow path (a read-modify-write costs far more than the lazy
    /// check), so the fast path needs no test of the mode, nor of null.
    static FAST: std::cell::Cell<*const Slot> = const { std::cell::Cell::new(&IDLE) };
    /// Owns this thread's slot (registered on the thread's first section)
    /// and clears `FAST` before letting it go.
    pub(super) static OWNER: SlotOwner = {
        let slot = SLOTS.register();
        if is_light() {
            FAST.with(|f| f.set(Arc::as_ptr(&slot)));
        }
        SlotOwner(slot)
    };
}

/// This thread's slot if the light mode's fast path may use it, else
/// [`IDLE`].
#[inline(always)]
pub(super) fn fast() -> *const Slot {
    FAST.with(std::cell::Cell::get)
}

/// True if `slot` is [`IDLE`]: `FAST` named no slot of the thread's.
#[inline(always)]
pub(super) fn is_idle(slot: *const Slot) -> bool {
    std::ptr::eq(slot, &IDLE)
}

/// This thread's registered slot.
pub(super) struct SlotOwner(pub(super) Arc<Slot>);

impl Drop for SlotOwner {
    fn drop(&mut self) {
        FAST.with(|f| f.set(&IDLE));
    }
}
