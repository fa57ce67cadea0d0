//! Deliberately broken variants of the protocol, one `const` each, for the
//! loom models to catch (docs/verification.md, section 3, lists which models
//! must fail under which). Each is `false` unless the build sets its
//! `--cfg cuckoo_broken_*` flag, which no normal build does; the protocol's
//! code tests the constant in one line at the site it breaks, so the real
//! check reads first.

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
/// A slot set with load + store instead of `fetch_or`.
pub(crate) const PLAIN_STORE: bool = cfg!(cuckoo_broken_plain_store);
/// The second word of a packed slot that straddles two words set with
/// load + store instead of `fetch_or`.
pub(crate) const PACKED_PLAIN_STORE: bool = cfg!(cuckoo_broken_packed_plain_store);
/// Semi-sorted inserts and removes re-encode a bucket outside a versioned
/// section.
pub(crate) const SEMI_UNVERSIONED: bool = cfg!(cuckoo_broken_semi_unversioned);
/// The lookup reads the versions after loading the buckets instead of
/// before, so they do not bracket the loads.
pub(crate) const PROBE_STAMP_AFTER_LOAD: bool = cfg!(cuckoo_broken_probe_stamp_after_load);
