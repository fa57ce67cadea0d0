//! This thread's slot under loom, in place of `local.rs`: one slot per
//! model thread and execution (loom's thread-locals and statics start
//! afresh with each execution, where std's would carry over, shared by
//! every model thread on the one OS thread). The light mode is never on
//! under loom, so there is no fast-path pointer: every section takes the
//! portable path.

use super::slot::{Slot, Slots};

crate::sync::lazy_static! {
    /// Every slot registered in this execution.
    pub(super) static ref SLOTS: Slots = Slots::new();
}

crate::sync::thread_local! {
    /// This model thread's slot.
    pub(super) static OWNER: SlotOwner = SlotOwner(SLOTS.register());
}

/// No fast path under loom: every section takes the portable path.
pub(super) const HAS_FAST: bool = false;

/// Never called under loom ([`HAS_FAST`]).
#[inline(always)]
pub(super) fn fast() -> *const Slot {
    unreachable!("no fast path under loom")
}

/// Never called under loom ([`HAS_FAST`]).
pub(super) fn is_idle(_: *const Slot) -> bool {
    unreachable!("no fast path under loom")
}

/// This model thread's registered slot.
pub(super) struct SlotOwner(pub(super) crate::sync::Arc<Slot>);
