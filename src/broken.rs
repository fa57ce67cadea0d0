//! Deliberately broken variants of the protocol, one `const` each, for the
//! loom models to catch (docs/verification.md, section 3, lists which models
//! must fail under which). Each is `false` unless the build sets its
//! `--cfg cuckoo_broken_*` flag, which no normal build does, and then every
//! helper here folds to the real behaviour.
//!
//! Each switch is read in one place, a seam of the protocol, so the
//! protocol reads as the protocol. In the table: the guard that opens a
//! versioned section (`Section::kept`, table/stripes.rs), the version re-check
//! ([`validation`]) and the read fence (`Stripes`), the lock order
//! ([`lock_order`]), how slot writes change a word ([`packed_own`],
//! [`own_words`]), the order of a
//! move's two writes ([`copy_then_clear`]), a hop's re-check
//! ([`hop_holds`]) and its write into a slot taken since
//! ([`hop_overwrites`]), the
//! save's check of its marks (`SAVE_IGNORES_MARKS`, `Marks::hides` in
//! table/snapshot.rs). In growth: the gate's close and its wait for the marked passes
//! (`GROW_NO_GATE`, `GATE_SKIPS_MARKS`, `Gate::close`), the frozen
//! generation's lookup (`GROW_LOOKUP_SKIPS_FROZEN`,
//! `Migration::frozen_contains`), the moment a chunk counts as copied
//! (`GROW_PUBLISH_EARLY`, `Growable::count_done_when`), the save's growth
//! lock (`GROW_SAVE_UNLOCKED`, [`save_growth_lock`]), and a section's
//! mark and exit (`SECTION_NO_FENCE`, `SECTION_LEAVE_STORE`: `Slot::enter`,
//! `Slot::leave`), the reclaimer's wait (`RECLAIM_NO_WAIT`, `all_left`),
//! the earlier chains' lookup (`CHAINS_LOOKUP_NEWEST_ONLY`,
//! `State::older_read`) and a unique insert's question to them
//! (`UNIQUE_CURRENT_CHAIN_ONLY`, `State::unique_held_earlier`).
//! The switches that change the protocol's logic rather than a mechanism
//! have seams of their own here, at the end of this file, which take the
//! real step as a closure: the unique insert's check ([`unique_check`],
//! `UNIQUE_UNLOCKED`), the lookup's re-check ([`skips_recheck`],
//! [`stamps_to_check`]: `ONE_LOAD_UNVALIDATED`, `PROBE_STAMP_AFTER_LOAD`),
//! the remove's choice of copy ([`remove_heeds_save`],
//! `REMOVE_IGNORES_SAVE`), a remove during a growth step
//! ([`copy_before_remove`], `GROW_REMOVE_SKIPS_COPY`), a rebuilt step's
//! sources ([`left_over_put`], `REGROW_SKIPS_LEFT_OVER`), the order a
//! remove asks the chains in ([`chains_remove`],
//! `CHAINS_REMOVE_OLDEST_FIRST`) and a claim's write ([`claim_write`],
//! `PLAIN_STORE`).

use crate::sync::{AtomicU64, Ordering};

/// A lookup never re-checks the versions after loading the buckets.
pub(crate) const NO_RECHECK: bool = cfg!(cuckoo_broken_no_recheck);
/// A lookup starts while a versioned section is open (odd version).
pub(crate) const ACCEPT_ODD: bool = cfg!(cuckoo_broken_accept_odd);
/// No acquire fence between the bucket loads and the version re-check.
pub(crate) const NO_READ_FENCE: bool = cfg!(cuckoo_broken_no_read_fence);
/// Versions compared by size (`now <= seen`), which a wrapped counter fools.
pub(crate) const WRAP_COMPARE: bool = cfg!(cuckoo_broken_wrap_compare);
/// Stripe locks taken in argument order, not ascending: writers deadlock.
pub(crate) const LOCK_ORDER: bool = cfg!(cuckoo_broken_lock_order);
/// `insert_unique` checks for the fingerprint without the locks.
pub(crate) const UNIQUE_UNLOCKED: bool = cfg!(cuckoo_broken_unique_unlocked);
/// A hop trusts the lock-free search instead of re-checking its source.
pub(crate) const NO_HOP_CHECK: bool = cfg!(cuckoo_broken_no_hop_check);
/// A hop moves a fingerprint without a versioned section.
pub(crate) const NO_MOVE_VERSION: bool = cfg!(cuckoo_broken_no_move_version);
/// A hop clears the old slot before copying to the new one.
pub(crate) const CLEAR_FIRST: bool = cfg!(cuckoo_broken_clear_first);
/// Every remove unversioned, even one that leaves a colliding copy.
pub(crate) const REMOVE_UNVERSIONED: bool = cfg!(cuckoo_broken_remove_unversioned);
/// `clear` zeroes the words outside a versioned section.
pub(crate) const CLEAR_UNVERSIONED: bool = cfg!(cuckoo_broken_clear_unversioned);
/// A slot that lies in one word claimed with a load and a store instead of
/// a compare-and-swap (`layout/access.rs` `claim_word`), with its stripe's lock or
/// without: a racing insert's fingerprint in the same word is lost.
pub(crate) const PLAIN_STORE: bool = cfg!(cuckoo_broken_plain_store);
/// A displacement hop whose destination slot an insert without a lock
/// filled since the hop looked writes its fingerprint there anyway
/// (`Table::execute`), over the other.
pub(crate) const MOVER_OVERWRITES: bool = cfg!(cuckoo_broken_mover_overwrites);
/// The second word of a packed slot that straddles two words set with
/// load + store instead of `fetch_or`.
pub(crate) const PACKED_PLAIN_STORE: bool = cfg!(cuckoo_broken_packed_plain_store);
/// Every table taken to have words of one stripe each, so slot writes
/// load and store even where two stripes' buckets share a word.
pub(crate) const OWN_WORDS_ALWAYS: bool = cfg!(cuckoo_broken_own_words_always);
/// Semi-sorted inserts and removes re-encode a bucket outside a versioned
/// section.
pub(crate) const SEMI_UNVERSIONED: bool = cfg!(cuckoo_broken_semi_unversioned);
/// The lookup reads the versions after loading the buckets instead of
/// before, so they do not bracket the loads.
pub(crate) const PROBE_STAMP_AFTER_LOAD: bool = cfg!(cuckoo_broken_probe_stamp_after_load);
/// A lookup whose buckets each came in one load (`Layout::probes_in_one_load`)
/// takes its answer without the version re-check.
pub(crate) const ONE_LOAD_UNVALIDATED: bool = cfg!(cuckoo_broken_one_load_unvalidated);

/// A hop moves a fingerprint from a chunk a running save has not copied
/// into one it has (which hides it from the save).
pub(crate) const SAVE_IGNORES_MARKS: bool = cfg!(cuckoo_broken_save_ignores_marks);

/// A remove that leaves a colliding copy in the other bucket takes the
/// copy in the item's first bucket even when that hands the answer from a
/// bucket a running save has not copied to one it has.
pub(crate) const REMOVE_IGNORES_SAVE: bool = cfg!(cuckoo_broken_remove_ignores_save);

/// A growable filter's lookup reads the current generation only, not the
/// frozen one still being copied into it.
pub(crate) const GROW_LOOKUP_SKIPS_FROZEN: bool = cfg!(cuckoo_broken_grow_lookup_skips_frozen);
/// A growth step freezes the current generation without closing the
/// writers' gate (so a write in flight lands in a table already copied).
pub(crate) const GROW_NO_GATE: bool = cfg!(cuckoo_broken_grow_no_gate);
/// A growth step's gate waits for the passes counted in its shards only,
/// not for those marked in the writers' slots.
pub(crate) const GATE_SKIPS_MARKS: bool = cfg!(cuckoo_broken_gate_skips_marks);
/// A growth step publishes "nothing migrating" when the last chunk is
/// claimed, before it is copied.
pub(crate) const GROW_PUBLISH_EARLY: bool = cfg!(cuckoo_broken_grow_publish_early);
/// A remove during a growth step skips copying its item's chunks first.
pub(crate) const GROW_REMOVE_SKIPS_COPY: bool = cfg!(cuckoo_broken_grow_remove_skips_copy);
/// A growth step rebuilt for a copy with no room leaves out what the copy
/// left over (only the frozen generation held it).
pub(crate) const REGROW_SKIPS_LEFT_OVER: bool = cfg!(cuckoo_broken_regrow_skips_left_over);
/// A growable filter's remove takes a match from the oldest chain that
/// has one, not the newest (docs/design.md, "Growth past the spare bits":
/// it can take the only entry another item is found by).
pub(crate) const CHAINS_REMOVE_OLDEST_FIRST: bool = cfg!(cuckoo_broken_chains_remove_oldest_first);
/// A growable filter's lookup reads the current chain only, not the
/// chains before it.
pub(crate) const CHAINS_LOOKUP_NEWEST_ONLY: bool = cfg!(cuckoo_broken_chains_lookup_newest_only);
/// A unique insert into a growable filter past its spare bits asks the
/// current chain alone whether the item is there, not the chains before.
pub(crate) const UNIQUE_CURRENT_CHAIN_ONLY: bool = cfg!(cuckoo_broken_unique_current_chain_only);
/// A growable filter's save neither takes the growth lock nor finishes a
/// step under way: it saves the new generation while the frozen one still
/// holds items not yet copied (tests/it/growable.rs catches it).
pub(crate) const GROW_SAVE_UNLOCKED: bool = cfg!(cuckoo_broken_grow_save_unlocked);

/// A read-side section of a growable filter enters without its fence (on
/// the reader's side of the asymmetric pair: `grow/reclaim/slot.rs`).
pub(crate) const SECTION_NO_FENCE: bool = cfg!(cuckoo_broken_section_no_fence);

/// A read-side section in the portable mode leaves with a plain store, not
/// a read-modify-write (`grow/reclaim/slot.rs`, `Slot::leave`).
pub(crate) const SECTION_LEAVE_STORE: bool = cfg!(cuckoo_broken_section_leave_store);
/// The reclaimer frees retired states without waiting for the sections it
/// saw inside to leave.
pub(crate) const RECLAIM_NO_WAIT: bool = cfg!(cuckoo_broken_reclaim_no_wait);

/// A broken variant's verdict on a lookup's version re-check (stamps `t`
/// read before the loads, versions `now` after), or `None`: the real check
/// decides.
#[inline(always)]
pub(crate) fn validation(t1: u64, now1: u64, t2: u64, now2: u64) -> Option<bool> {
    if NO_RECHECK {
        Some(true)
    } else if ACCEPT_ODD {
        Some(now1 == t1 && now2 == t2)
    } else if WRAP_COMPARE {
        Some((t1 | t2) & 1 == 0 && now1 <= t1 && now2 <= t2)
    } else {
        None
    }
}

/// The order two stripes `x` and `y` are locked in: ascending.
#[inline(always)]
pub(crate) fn lock_order(x: usize, y: usize) -> (usize, usize) {
    if LOCK_ORDER {
        (x, y)
    } else {
        (x.min(y), x.max(y))
    }
}

/// Whether a packed slot's set may load and store its `k`-th word: where
/// the word is one stripe's (`own`), and, under `packed_plain_store`, the
/// second word of a straddling slot where it is not.
#[inline(always)]
pub(crate) fn packed_own(own: bool, k: usize) -> bool {
    own || (PACKED_PLAIN_STORE && k > 0)
}

/// Whether a table's words each hold one stripe's buckets only
/// (`Stripes::runs_end_on_words` computed `own`).
#[inline(always)]
pub(crate) fn own_words(own: bool) -> bool {
    own || OWN_WORDS_ALWAYS
}

/// A move's two writes: the copy into the new bucket, then the clear of
/// the old slot, so the fingerprint is always in one bucket or both. The
/// copy says whether it wrote (its slot may have been taken since the hop
/// looked); if not, nothing is cleared and the hop stops (false).
#[inline(always)]
pub(crate) fn copy_then_clear(copy: impl FnOnce() -> bool, clear: impl FnOnce()) -> bool {
    if CLEAR_FIRST {
        clear();
        copy();
        true
    } else if copy() {
        clear();
        true
    } else {
        false
    }
}

/// A hop's write into its destination slot, which `set` (a
/// compare-and-swap) found filled since the hop looked (`claimed` false):
/// the real hop stops there; under `mover_overwrites` it writes its
/// fingerprint over the other with `overwrite` and goes on.
#[inline(always)]
pub(crate) fn hop_overwrites(claimed: bool, overwrite: impl FnOnce()) -> bool {
    if !claimed && MOVER_OVERWRITES {
        overwrite();
        return true;
    }
    claimed
}

/// A hop's re-check under its locks: `holds`, the fingerprint still where
/// the search saw it.
#[inline(always)]
pub(crate) fn hop_holds(holds: bool) -> bool {
    holds || NO_HOP_CHECK
}

// The seams of the switches that change the protocol's logic: each takes
// the real step as a closure (or its inputs) and runs it, moved or left
// out where its switch is on. The callers read as the protocol.

/// The unique insert's duplicate check, run at `under_locks` (true: the
/// placement under both stripes' locks, where the protocol puts it;
/// false: before them, where `UNIQUE_UNLOCKED` moves it): `check()`'s
/// answer there, false at the other place, which runs nothing.
#[inline(always)]
pub(crate) fn unique_check(under_locks: bool, check: impl FnOnce() -> bool) -> bool {
    under_locks != UNIQUE_UNLOCKED && check()
}

/// Whether a lookup takes its answer without the version re-check: never,
/// but under `ONE_LOAD_UNVALIDATED` where both buckets came in one load.
#[inline(always)]
pub(crate) fn skips_recheck(one_load: bool) -> bool {
    ONE_LOAD_UNVALIDATED && one_load
}

/// The versions a lookup re-checks: those it read before its loads, or
/// under `PROBE_STAMP_AFTER_LOAD` the ones `read_again()` reads after them.
#[inline(always)]
pub(crate) fn stamps_to_check<T>(before: T, read_again: impl FnOnce() -> T) -> T {
    if PROBE_STAMP_AFTER_LOAD {
        read_again()
    } else {
        before
    }
}

/// Whether a remove with copies in both buckets heeds the running save
/// (`hides()`: taking the first bucket's copy would hide the other item's
/// answer from it); `REMOVE_IGNORES_SAVE` never asks.
#[inline(always)]
pub(crate) fn remove_heeds_save(hides: impl FnOnce() -> bool) -> bool {
    !REMOVE_IGNORES_SAVE && hides()
}

/// Runs `copy` (a remove during a growth step copying its item's chunks
/// first), unless `GROW_REMOVE_SKIPS_COPY` leaves it out.
#[inline(always)]
pub(crate) fn copy_before_remove(copy: impl FnOnce()) {
    if !GROW_REMOVE_SKIPS_COPY {
        copy()
    }
}

/// Whether a rebuilt growth step holds what the failed copy left over:
/// `put_all()` puts it back; `REGROW_SKIPS_LEFT_OVER` skips it and says yes.
#[inline(always)]
pub(crate) fn left_over_put(put_all: impl FnOnce() -> bool) -> bool {
    REGROW_SKIPS_LEFT_OVER || put_all()
}

/// A growable filter's save takes the growth lock (`lock()`), unless
/// `GROW_SAVE_UNLOCKED` leaves it out: `None`.
#[inline(always)]
pub(crate) fn save_growth_lock<G>(lock: impl FnOnce() -> G) -> Option<G> {
    (!GROW_SAVE_UNLOCKED).then(lock)
}

/// A growable filter's remove over its chains' tables, stopping at the
/// first that takes: `take(None)` asks the current chain's, `take(Some(k))`
/// earlier chain `k`'s (of `earlier`, 0 the oldest). The current chain
/// first, then the earlier ones newest first; under
/// `CHAINS_REMOVE_OLDEST_FIRST` the earlier ones oldest first, then the
/// current one.
#[inline(always)]
pub(crate) fn chains_remove(earlier: usize, mut take: impl FnMut(Option<usize>) -> bool) -> bool {
    if CHAINS_REMOVE_OLDEST_FIRST {
        (0..earlier).any(|k| take(Some(k))) || take(None)
    } else {
        take(None) || (0..earlier).rev().any(|k| take(Some(k)))
    }
}

/// A claim's write into `word`: a compare-and-swap from `now` to `new`,
/// or under `PLAIN_STORE` a store (which loses a racing claim's bits).
#[inline(always)]
pub(crate) fn claim_write(word: &AtomicU64, now: u64, new: u64) -> Result<u64, u64> {
    if PLAIN_STORE {
        word.store(new, Ordering::Relaxed);
        Ok(now)
    } else {
        word.compare_exchange_weak(now, new, Ordering::Relaxed, Ordering::Relaxed)
    }
}
