//! # cuckoo-nest
//!
//! A concurrent cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher,
//! "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014) that many
//! threads share through `&self`: approximate set membership with deletion.
//!
//! ```
//! use std::sync::Arc;
//! use cuckoo_nest::CuckooFilter;
//!
//! let filter = Arc::new(CuckooFilter::with_capacity(100_000));
//! let writers: Vec<_> = (0..2u64)
//!     .map(|t| {
//!         let filter = Arc::clone(&filter);
//!         std::thread::spawn(move || {
//!             for k in (t * 1000)..(t * 1000 + 1000) {
//!                 filter.insert(&k).expect("sized for 100k items");
//!             }
//!         })
//!     })
//!     .collect();
//! for w in writers {
//!     w.join().unwrap();
//! }
//! assert!(filter.contains(&1234u64));
//! assert_eq!(filter.len(), 2000);
//! assert!(filter.remove(&1234u64));
//! ```
//!
//! ## The contract
//!
//! - **No false negatives.** If `insert(x)` returned `Ok` before
//!   `contains(x)` began and no `remove(x)` came in between, `contains(x)` is
//!   true, whatever other threads insert, remove or look up meanwhile.
//!   `contains` may say true for an item never inserted (a false positive,
//!   rate about `2b / 2^f` at full load; see
//!   [`CuckooFilter::expected_false_positive_rate`]).
//! - **A failed insert loses nothing.** When no free slot can be reached,
//!   `insert` returns [`InsertError::Full`] and every earlier item is still
//!   there (many cuckoo filters drop a victim at this point; this one does
//!   not, because it finds a whole displacement path before moving anything).
//! - **Lookups take no lock and write no shared memory**: no lookup makes
//!   another core's cache line dirty, and none is ever refused. (How that
//!   scales on a given machine is measured, not promised:
//!   docs/benchmarks.md.) Lookups are optimistic, seqlock-style: a lookup
//!   looks again while a *versioned section* is open on the stripe of one
//!   of its two buckets: a displacement moving a fingerprint, a remove
//!   that leaves a colliding copy, a semi-sorted bucket's re-encoding, or
//!   a chunk of a `clear`. Inserts into a free slot (of plain buckets) and
//!   removes that leave no other copy of their fingerprint do not disturb
//!   lookups at all. So a lookup is not wait-free: it waits out each
//!   section it meets, which lasts a few hundred nanoseconds (a `clear`'s
//!   chunk, microseconds), except that **a writer preempted inside a
//!   section delays lookups on those stripes until it runs again**.
//!   docs/benchmarks.md gives the longest waits measured.
//! - **Writers on unrelated buckets run in parallel**: they lock only the
//!   stripes of the buckets they touch, in a global order (no deadlock).
//! - **Removing an item never inserted** may remove another item that has
//!   the same fingerprint in the same buckets (as in the paper): only remove
//!   what you inserted.
//! - **A growable filter** ([`Builder::growable`]) keeps all of the above
//!   while it doubles its table: lookups never wait for the copy (they look
//!   in the old table too until it is done), no writer pays for the whole
//!   copy (each copies the 8-bucket chunks its item lies in, or one more,
//!   and waits at most for the moment of the switch and for those chunks),
//!   and the false-positive rate asked for holds at every size up to
//!   [`CuckooFilter::max_capacity`].
//! - **Bad input is a typed error** ([`BuildError`], [`InsertError`]), never
//!   a panic.
//!
//! ## Hashing
//!
//! **One key path.** `insert`, `contains`, `remove`, `count` and their
//! batch forms take any [`Key`]: a key is its bytes, however it is passed
//! (`"k"`, `b"k"`, `&b"k"[..]`, `String`, `Vec<u8>`; an integer as its
//! little-endian bytes), hashed with [`StableHasher::hash_key_bytes`]
//! (16 bytes per multiply, format version 5), so every way of passing one
//! key finds what any other stored. Its output is the same on every run, process and
//! platform (seed 0 by default; set one with [`Builder::seed`]) and part
//! of the saved format (docs/format.md, "Keys"). Other types go through
//! [`ByHash`] (their `std::hash::Hash` impl, which the standard library
//! does not promise to keep across Rust releases); callers who already
//! hash their keys pass [`PreHashed`] with any well-mixed 64-bit hash. A
//! filter loaded from a file saved before this (format versions 1 to 3)
//! keeps hashing its generic methods' keys through `std::hash::Hash`, as
//! when it was saved, so its keys are still found the way they were
//! inserted (docs/format.md, "Keys", says how to reach keys that file's
//! writer stored through its old `*_bytes` methods).
//!
//! ## Saving and loading
//!
//! [`CuckooFilter::to_bytes`] and [`CuckooFilter::save`] save a filter
//! (safely while other threads write) in a versioned, checksummed,
//! little-endian format, documented byte by byte in docs/format.md;
//! [`CuckooFilter::from_bytes`] and [`CuckooFilter::load`] load it back
//! as an owned filter; [`FilterView`] answers lookups straight from the
//! saved bytes (a memory-mapped file, say) without loading them, and owns
//! them or borrows them (`FilterView<Vec<u8>>`, `FilterView<&[u8]>`);
//! [`ReadFilter`] is what a filter and a view both answer (lookups, copy
//! counts, batches, sizes and shape), for code that takes either. Bad
//! bytes are a [`DecodeError`], never a panic; bytes whose checksums match
//! but that no writer of the format produces are refused too.
//!
//! Beside a store: [`CuckooFilter::save_to_path`] saves crash-safely
//! (temporary file, fsync, rename, fsync of the directory) with up to
//! [`MAX_METADATA`] bytes of the caller's own ([`SaveOptions::metadata`]:
//! a commit id), which [`CuckooFilter::read_metadata`] (and
//! `read_metadata_from`, a file or a stream) reads back without the table, so a stale
//! file can be told from a current one; the repository's
//! examples/membership_filter.rs (not part of this package) wires it up
//! in front of an embedded store. With the `serde` feature, the filter is
//! `Serialize`/`Deserialize` through the same format.
//!
//! ## Embedding
//!
//! Byte-string keys hash with the format's own hash, stable across
//! platforms and releases; the batch forms take any iterator of keys
//! ([`CuckooFilter::insert_batch`], [`CuckooFilter::contains_batch`]);
//! [`CuckooFilter::remove_batch`] removes many keys and says which were
//! found; [`CuckooFilter::count`] says how many copies of
//! an item's fingerprint are held; [`CuckooFilter::merge`] adds another
//! filter's fingerprints (a union); `Clone` copies while other threads
//! write, as `to_bytes` does.

#![warn(missing_docs)]
// README's example runs as a doctest, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

// The layers, top down: the public face (`face/`: one file per family of
// operations), the shapes, the table, the bucket layouts (and the `simd`
// crate's kernels under them). Beside them: the configuration, the hash,
// the saved format (`persist/`, functions over a table that the face calls).
mod face;
// Growable filters (`Builder::growable`): an `Inner` arm beside the shapes.
mod grow;
mod layout;
mod shape;
mod table;

mod broken;
mod builder;
mod config;
mod error;
mod hash;
#[cfg(feature = "internals")]
mod internals;
#[cfg(all(feature = "internals", cuckoo_nest_loom))]
pub use internals::section_models;
mod key;
mod persist;
mod sync;

pub use builder::Builder;
pub use config::{BUCKET_SIZES, FINGERPRINT_BITS};
pub use error::{
    BatchInsertError, BuildError, DecodeError, InsertError, LengthMismatch, MergeError,
    MetadataTooLong,
};
pub use face::{CuckooFilter, ReadFilter, Shape, Statistics};
pub use hash::StableHasher;
#[cfg(all(feature = "internals", not(cuckoo_nest_loom)))]
pub use internals::debug_fail_barriers;
#[cfg(feature = "internals")]
pub use internals::{debug_refuse_thread_starts, debug_table_memory, TableMemory};
pub use key::{ByHash, Key, PreHashed};
pub use persist::{FilterView, LoadOptions, SaveOptions, MAX_METADATA};

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn filter_is_send_and_sync() {
        assert_send_sync::<CuckooFilter>();
        assert_send_sync::<FilterView<&'static [u8]>>();
        assert_send_sync::<FilterView<Vec<u8>>>();
        assert_send_sync::<FilterView<std::sync::Arc<[u8]>>>();
        assert_send_sync::<DecodeError>();
    }
}
