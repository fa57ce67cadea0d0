//! Saving while writers write: the table copied a chunk at a time.
//!
//! A save copies the table in memory order, a chunk at a time: one stripe
//! (stripes are runs of consecutive buckets, stripes.rs), or a few where a
//! stripe ends inside a word, under the chunk's stripe locks only, so no
//! write is half done in it. Only writers to that stripe wait, and only for
//! its copy (256 KiB at most in a 256 MiB table), never for the whole table
//! or for the I/O; the save's memory is one chunk.
//!
//! The copy is then no longer one instant's state, and one kind of write
//! could hide an item from it: a displacement hop that moves a fingerprint
//! from a bucket not yet copied into one already copied would take it out
//! of both copied states (the old bucket is copied after the fingerprint
//! left, the new one was copied before it arrived): a false negative in the
//! saved filter. A hop the other way would save the fingerprint twice.
//!
//! So a save keeps a *cursor*: the first bucket not yet copied, advanced
//! over a chunk while that chunk's stripe locks are held. A hop checks it
//! under its own two locks and refuses to move a fingerprint across it:
//! from below the cursor to at or above it, or back. The verdict holds for
//! the whole hop: the cursor moves over a chunk only with the chunk's locks,
//! so not over the hop's buckets while the hop holds theirs, and moving it
//! over other buckets does not change which side of it the hop's buckets
//! are on. Its insert searches again, and the search leaves such hops out
//! (reading the cursor without locks, as a hint; the hop's check decides).
//! If every path it finds crosses the cursor, the insert waits for the
//! cursor to move and searches again: only inserts into a nearly full
//! table wait, and for at most the rest of the save. Inserts into a free
//! slot and removes never cross: they do not move fingerprints between
//! buckets.
//!
//! What the saved table then holds: every fingerprint copy that stays in
//! one bucket from the save's start to its end is saved once (its bucket is
//! copied at some point in between), and a copy that moves does so between
//! two buckets on the same side of the cursor, so it is saved once too.
//! Hence every item inserted before the save began and not removed before
//! it ended is in the saved filter, each copy once; items inserted or
//! removed during the save may or may not be. The item count saved is the
//! number of occupied slots copied, so the saved header agrees with its
//! table. docs/verification.md gives the argument with colliding
//! fingerprints.
//!
//! One save runs at a time: a second waits for the first to finish.

use crate::broken;
use crate::layout::{Layout, LeBytes};
use crate::sync::{AtomicU64, Ordering, Spin};
use crate::table::Table;

/// The cursor's value when no save runs: every bucket is below it, so no
/// hop crosses it.
const NO_SAVE: u64 = u64::MAX;

/// The first bucket a running save has not copied yet, or [`NO_SAVE`].
/// Moves forward over a chunk only while that chunk's stripe locks are
/// held (see the module docs), from 0 at a save's start to the bucket
/// count at its end.
pub(crate) struct SaveCursor(AtomicU64);

/// A value of the cursor, read once (by a search) or under a hop's locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Seen(u64);

impl Seen {
    /// True if a fingerprint moving from bucket `from` to bucket `to` would
    /// cross the cursor: one of the two buckets is already copied and the
    /// other is not.
    #[inline]
    pub(crate) fn splits(self, from: usize, to: usize) -> bool {
        !broken::SAVE_IGNORES_CURSOR && ((from as u64) < self.0) != ((to as u64) < self.0)
    }
}

impl SaveCursor {
    pub(crate) fn new() -> Self {
        SaveCursor(AtomicU64::new(NO_SAVE))
    }

    /// The cursor now. Under a hop's locks, which side of it the hop's
    /// buckets are on cannot change; elsewhere it is a hint.
    #[inline]
    pub(crate) fn get(&self) -> Seen {
        Seen(self.0.load(Ordering::Relaxed))
    }

    /// Waits until the cursor is no longer `seen`: a chunk copied, or the
    /// save over.
    pub(crate) fn wait_past(&self, seen: Seen) {
        let spin = Spin::new();
        while self.0.load(Ordering::Acquire) == seen.0 {
            spin.wait();
        }
    }

    /// Starts a save (waiting for one already running to finish): the
    /// cursor goes from [`NO_SAVE`] to 0, which no hop crosses either.
    fn begin(&self) -> Saving<'_> {
        let spin = Spin::new();
        while self
            .0
            .compare_exchange_weak(NO_SAVE, 0, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spin.wait();
        }
        Saving(self)
    }
}

/// A running save; ends it (cursor back to [`NO_SAVE`]) when dropped, on
/// success, error or unwinding alike.
struct Saving<'a>(&'a SaveCursor);

impl Saving<'_> {
    /// Buckets below `end` are copied. The caller holds the locks of the
    /// stripes the cursor moves over.
    fn advance(&self, end: usize) {
        self.0 .0.store(end as u64, Ordering::Relaxed);
    }
}

impl Drop for Saving<'_> {
    fn drop(&mut self) {
        // Every bucket is copied (or the save was abandoned): no hop
        // can hide from it any more, so this needs no lock.
        self.0 .0.store(NO_SAVE, Ordering::Release);
    }
}

impl<const B: usize, L: Layout<B>> Table<B, L> {
    /// Buckets per chunk of a save: whole stripes and whole words, as few
    /// as that allows. A stripe's run and `unit` (buckets that end on a
    /// word boundary) are powers of two, so the larger is a multiple of
    /// both. (The loom models' four-bucket tables: a chunk per bucket with
    /// four 16-bit slots, per two buckets with two.)
    fn save_chunk_buckets(&self) -> usize {
        let unit = 64 >> self.layout.bucket_bits().trailing_zeros().min(6);
        self.stripes.run().max(unit)
    }

    /// Copies the table (little-endian, [`Self::table_bytes`] in all) a
    /// chunk at a time into `scratch`, handing each chunk to `out` with no
    /// lock held, so writers go on while `out` runs (see the module docs
    /// for what the copy holds). Returns the occupied slots copied: the
    /// item count of the saved table. `out` must not write to this table:
    /// an insert there could wait for this save's cursor, which waits for
    /// `out`.
    pub(crate) fn save_chunks<E>(
        &self,
        mut out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let bits = self.layout.bucket_bits();
        let per = self.save_chunk_buckets();
        // The last chunk also takes the words after the last bucket.
        let mut scratch = vec![0u8; (per * bits / 64 + 8).min(self.saved_words) * 8];
        let saving = self.cursor.begin();
        let mut items = 0;
        let mut first = 0;
        while first < self.buckets {
            let end = (first + per).min(self.buckets);
            let words = if end == self.buckets {
                first * bits / 64..self.saved_words
            } else {
                first * bits / 64..end * bits / 64
            };
            let chunk = &mut scratch[..words.len() * 8];
            {
                let _chunk = self.stripes.lock_buckets(first, end);
                for (dst, w) in chunk.chunks_exact_mut(8).zip(&self.words[words]) {
                    dst.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
                }
                saving.advance(end);
            }
            items += self
                .layout
                .audit_buckets(self.kernel, &LeBytes(chunk), end - first)
                .unwrap_or_else(|(bucket, why)| {
                    unreachable!("bucket {} as no writer leaves it: {why}", first + bucket)
                });
            out(chunk)?;
            first = end;
        }
        Ok(items)
    }
}
