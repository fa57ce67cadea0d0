//! Saving while writers write: the table copied a chunk at a time.
//!
//! A save copies the table in memory order, a chunk of about 16 KiB at a
//! time, each chunk under the locks of the stripes it lies in: one stripe
//! (stripes are runs of consecutive buckets, stripes.rs), or in tiny tables
//! the few whole stripes that end on a word boundary. So no write is half
//! done in a chunk, only writers to that stripe wait, and only for a
//! chunk's copy (a microsecond or two), never for the whole table or for
//! the I/O; the save's memory is a chunk or a few.
//!
//! The copy is then no longer one instant's state, and one kind of write
//! could hide an item from it: a displacement hop that moves a fingerprint
//! from a chunk not yet copied into one already copied takes it out of both
//! copies (the old bucket is copied after the fingerprint left, the new one
//! was copied before it arrived): a false negative in the saved filter.
//!
//! So a save marks each chunk as copied (one bit per chunk, set while the
//! chunk's stripe locks are held) and a hop checks the marks of its two
//! buckets under its own two locks: it refuses to move a fingerprint from a
//! bucket not yet copied into one already copied. The verdict holds for the
//! whole hop: a chunk's mark changes only under the chunk's locks, so not
//! for the hop's buckets while the hop holds theirs. Its insert searches
//! again, and the search leaves such hops out (reading the marks without
//! locks, as hints; the hop's check decides).
//!
//! If every path the search finds is such a hop, typically because both of
//! the item's buckets are in chunks not yet copied and their residents'
//! other buckets all in copied ones, the inserting thread copies its own
//! two buckets' chunks ahead of the save (under their locks, marked as
//! copied, kept aside until the save reaches them): from a copied bucket
//! every hop is allowed, so the next search finds the path it found before,
//! and no insert waits for the save to get anywhere. At most an eighth of
//! the table (and at least [`MIN_AHEAD`] chunks) waits aside; past that an
//! insert waits for the save to take one. A save whose writes are slow
//! (a slow device, a throttled socket) falls behind the inserts that need
//! chunks copied; the allowance lets them go on without waiting for its
//! I/O, at the cost of the save's memory: its chunk, plus what waits aside.
//!
//! A hop the other way (from a copied bucket into one not yet copied) is
//! allowed: the fingerprint is then saved twice, which costs a false
//! positive after the item's remove in the loaded filter, never a false
//! negative. Inserts into a free slot move nothing between buckets. A
//! remove can: with copies of its fingerprint in both of its buckets,
//! taking one hands the answer (for an item colliding with it) to the copy
//! in the other bucket, as a hop would. So under its locks a remove checks
//! the same marks and takes the copy in the copied bucket rather than hand
//! the answer from a bucket not yet copied to one already copied (loom
//! model 13d; tests/it/save_while_writing.rs under load).
//!
//! What the saved table holds: every item inserted before the save began
//! and not removed before it ended; items inserted or removed during the
//! save may or may not be in it, and a fingerprint moved during the save
//! may be in it twice. The item count saved is the number of occupied
//! slots copied, so the saved header agrees with its table.
//! docs/verification.md gives the argument with colliding fingerprints.
//!
//! One save runs at a time: a second waits for the first to finish.

use super::stripes::Stripes;
use super::words::Words;
use super::{table_words, Plain, PADDING_WORDS};
use crate::broken;
use crate::error::BuildError;
use crate::layout::{Layout, LeBytes};
use crate::sync::{AtomicU64, Highest, Mutex, Ordering, Spin};
use crate::table::{Addressing, Table};
use crossbeam_utils::CachePadded;
use cuckoo_nest_simd::Native;

/// Table bytes a save copies per chunk, about: short enough that a writer
/// finding its stripe locked for a chunk's copy (a microsecond or two)
/// spins rather than yields its time slice, long enough that taking the
/// lock is a small part of the copy.
const CHUNK_BYTES: usize = 16 << 10;

/// Chunks that may wait aside, copied ahead of a save by inserts that
/// needed them copied, in any table: 256 KiB of 16 KiB chunks. Larger
/// tables allow an eighth of their chunks ([`SaveState::max_ahead`]).
const MIN_AHEAD: usize = 16;

/// Buckets per chunk of a save: about [`CHUNK_BYTES`], whole words, and
/// within one stripe or whole stripes. `unit` (the fewest buckets that end
/// on a word boundary), a stripe's `run` and the chunk are powers of two,
/// so a chunk no longer than a run lies in one stripe, and one of `unit`
/// buckets, longer than a run, covers whole stripes. (The loom models'
/// four-bucket tables: a chunk per bucket with four 16-bit slots, per two
/// buckets with two.)
fn chunk_buckets(bucket_bits: usize, run: usize) -> usize {
    let unit = 64 >> bucket_bits.trailing_zeros().min(6);
    let target =
        crate::sync::model_size((CHUNK_BYTES * 8 / bucket_bits).next_power_of_two() / 2, 1);
    target.min(run).max(unit)
}

/// What writers need to know of a running save (the questions they ask
/// of it, and the marks' reading, are below).
pub(crate) struct SaveState {
    /// 1 while a save runs, 0 otherwise. On a cache line of its own, away
    /// from the table's fields every lookup reads.
    pub(super) running: CachePadded<AtomicU64>,
    /// One bit per chunk: copied by the running save. All zero between
    /// saves. Set only while the chunk's stripe locks are held.
    copied: Box<[AtomicU64]>,
    /// Chunks copied ahead of the save, by index, until it reaches them.
    ahead: Mutex<Vec<(usize, Vec<u8>)>>,
    /// Buckets per chunk ([`chunk_buckets`]).
    chunk: usize,
    /// Chunks that may wait aside: an eighth of the table's, at least
    /// [`MIN_AHEAD`].
    max_ahead: usize,
    /// Not a save's: the longest displacement path the table's inserts
    /// carried out whole, in hops (`SaveState::record_path`). In this box for
    /// the reason the save's state is: only the displacing path writes it,
    /// and the free-slot insert's code then needs no field of the table
    /// struct it works on.
    pub(super) longest: Highest,
}

// What an insert asks of a running save (snapshot.rs copies and marks the
// chunks): whether one runs, and whether a hop would hide its fingerprint
// from it; and where it records the longest path it carried out.
impl SaveState {
    /// Records a displacement path of `hops` carried out whole, on the
    /// displacing path only.
    pub(super) fn record_path(&self, hops: u8) {
        self.longest.raise(u64::from(hops));
    }

    /// True while a save runs (a hint, outside the locks).
    #[inline]
    pub(crate) fn running(&self) -> bool {
        self.running.load(Ordering::Relaxed) != 0
    }

    /// True if a hop moving a fingerprint from bucket `from` to bucket
    /// `to` would hide it from the running save: `to`'s chunk is copied,
    /// `from`'s is not. Exact under the hop's two locks.
    #[inline]
    pub(crate) fn hides(&self, from: usize, to: usize) -> bool {
        self.running() && Marks::Live(self).hides(from, to)
    }
}

impl SaveState {
    /// The state of a table of `buckets` buckets of `bucket_bits` bits in
    /// stripes of `run` buckets. Boxed: lookups never read it, and inline
    /// its cache-line alignment would grow the table struct and cost every
    /// lookup instructions.
    pub(crate) fn new(buckets: usize, bucket_bits: usize, run: usize) -> Box<Self> {
        let chunk = chunk_buckets(bucket_bits, run);
        let chunks = buckets.div_ceil(chunk);
        Box::new(SaveState {
            running: CachePadded::new(AtomicU64::new(0)),
            copied: (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            ahead: Mutex::new(Vec::new()),
            chunk,
            max_ahead: (chunks / 8).max(MIN_AHEAD),
            longest: Highest::new(),
        })
    }

    /// True if the running save has copied the chunk of `bucket`.
    #[inline]
    pub(super) fn is_copied(&self, bucket: usize) -> bool {
        let k = bucket / self.chunk;
        self.copied[k / 64].load(Ordering::Relaxed) >> (k % 64) & 1 != 0
    }

    /// Marks chunk `k` copied. The caller holds the chunk's stripe locks.
    fn mark(&self, k: usize) {
        self.copied[k / 64].fetch_or(1 << (k % 64), Ordering::Relaxed);
    }

    /// The marks as a search sees them, for [`Marks::hides`]: read once
    /// where they fit one word (small tables, the loom models'), bit by
    /// bit otherwise. A hint: the hop's own check decides.
    pub(crate) fn marks(&self) -> Marks<'_> {
        if self.copied.len() == 1 {
            Marks::Word(self.copied[0].load(Ordering::Relaxed), self.chunk)
        } else {
            Marks::Live(self)
        }
    }
}

/// A search's view of a running save's marks ([`SaveState::marks`]).
pub(super) enum Marks<'a> {
    /// All the marks, as read once, and buckets per chunk.
    Word(u64, usize),
    /// Read as needed.
    Live(&'a SaveState),
}

impl Marks<'_> {
    /// [`SaveState::hides`], on these marks.
    #[inline]
    pub(crate) fn hides(&self, from: usize, to: usize) -> bool {
        match *self {
            Marks::Word(w, chunk) => {
                !broken::SAVE_IGNORES_MARKS
                    && w >> (to / chunk) & 1 != 0
                    && w >> (from / chunk) & 1 == 0
            }
            Marks::Live(s) => !broken::SAVE_IGNORES_MARKS && s.is_copied(to) && !s.is_copied(from),
        }
    }
}

impl SaveState {
    /// Starts a save, waiting for one already running to finish.
    fn begin(&self) -> Saving<'_> {
        let spin = Spin::new();
        while self
            .running
            .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spin.wait();
        }
        Saving(self)
    }
}

/// A running save; ends it when dropped, on success, error or unwinding
/// alike: under the mutex of the chunks aside (which an insert holds while
/// it copies one ahead and marks it, so none marks a chunk of a save that
/// is over), the marks cleared, the chunks aside dropped, `running` back
/// to 0. (A hop that reads a mark as it is cleared may refuse a move it
/// need not have, and search again; the save's copy is complete or
/// abandoned by then, so none can hide anything from it.)
struct Saving<'a>(&'a SaveState);

impl Drop for Saving<'_> {
    fn drop(&mut self) {
        let mut ahead = self.0.ahead.lock().unwrap_or_else(|e| e.into_inner());
        for w in self.0.copied.iter() {
            w.store(0, Ordering::Relaxed);
        }
        ahead.clear();
        self.0.running.store(0, Ordering::Release);
    }
}

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// The longest displacement path this table's inserts carried out
    /// whole, in hops ([`SaveState::record_path`]).
    pub(crate) fn longest_path(&self) -> u64 {
        self.save.longest.get()
    }

    /// Words `[start, end)` of chunk `k`: the last chunk also takes the
    /// words after the last bucket.
    fn chunk_words(&self, k: usize) -> (usize, usize, std::ops::Range<usize>) {
        let bits = self.layout.bucket_bits();
        let first = k * self.save.chunk;
        let end = (first + self.save.chunk).min(self.buckets);
        let words = if end == self.buckets {
            first * bits / 64..self.saved_words
        } else {
            first * bits / 64..end * bits / 64
        };
        (first, end, words)
    }

    /// Copies the words of buckets `words` into `out` (little-endian). The
    /// caller holds their stripes' locks.
    fn copy_words(&self, words: std::ops::Range<usize>, out: &mut [u8]) {
        for (dst, w) in out.chunks_exact_mut(8).zip(&self.words[words]) {
            dst.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
    }

    /// For an insert whose every path would hide a fingerprint from the
    /// running save: copies the chunks of its buckets `i1` and `i2` ahead
    /// of the save, so hops out of them are allowed. Returns false if it
    /// could copy neither (both already copied, the save over, or
    /// [`SaveState::max_ahead`] chunks already waiting aside): the caller
    /// then waits.
    pub(crate) fn copy_ahead(&self, i1: usize, i2: usize) -> bool {
        let mut copied_any = false;
        for bucket in [i1, i2] {
            let k = bucket / self.save.chunk;
            if !self.save.running() || self.save.is_copied(bucket) {
                continue;
            }
            let (first, end, words) = self.chunk_words(k);
            let mut buf = vec![0u8; words.len() * 8];
            let _locks = self.stripes.lock_buckets(first, end);
            // Under the chunk's locks the save cannot copy it, and under
            // the mutex it cannot end.
            let mut ahead = self.save.ahead.lock().unwrap_or_else(|e| e.into_inner());
            if !self.save.running()
                || self.save.is_copied(bucket)
                || ahead.len() >= self.save.max_ahead
            {
                continue;
            }
            self.copy_words(words, &mut buf);
            ahead.push((k, buf));
            self.save.mark(k);
            copied_any = true;
        }
        copied_any
    }

    /// Waits a little for the running save to move on (an insert that
    /// found no path it may carry out and could copy nothing ahead).
    pub(crate) fn wait_for_save(&self) {
        // Under loom each wait is a yield the model checker explores: one.
        const ROUNDS: usize = crate::sync::model_size(64, 1);
        let spin = Spin::new();
        for _ in 0..ROUNDS {
            if !self.save.running() {
                return;
            }
            spin.wait();
        }
    }

    /// Copies the table (little-endian, [`Self::table_bytes`] in all) a
    /// chunk at a time, handing each chunk to `out` with no lock held, so
    /// writers go on while `out` runs (see the module docs for what the
    /// copy holds). Returns the occupied slots copied: the item count of
    /// the saved table. `out` must not write to this table: an insert there
    /// could wait for this save, which waits for `out`.
    pub(crate) fn save_chunks<E>(
        &self,
        mut out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let chunks = self.buckets.div_ceil(self.save.chunk);
        let mut scratch = vec![
            0u8;
            self.chunk_words(0)
                .2
                .len()
                .max(self.chunk_words(chunks - 1).2.len())
                * 8
        ];
        let _saving = self.save.begin();
        let mut items = 0;
        for k in 0..chunks {
            let (first, end, words) = self.chunk_words(k);
            let mut taken = None;
            if !self.save.is_copied(first) {
                let _locks = self.stripes.lock_buckets(first, end);
                if !self.save.is_copied(first) {
                    self.copy_words(words.clone(), &mut scratch[..words.len() * 8]);
                    self.save.mark(k);
                    taken = Some(&scratch[..words.len() * 8]);
                }
            }
            let aside: Vec<u8>;
            let chunk: &[u8] = match taken {
                Some(c) => c,
                None => {
                    // Copied ahead by an insert: it is waiting aside.
                    let mut ahead = self.save.ahead.lock().unwrap_or_else(|e| e.into_inner());
                    let at = ahead
                        .iter()
                        .position(|(j, _)| *j == k)
                        .expect("a chunk marked copied ahead is kept aside");
                    aside = ahead.swap_remove(at).1;
                    &aside
                }
            };
            items += self
                .layout
                .audit_buckets(self.kernel, &LeBytes(chunk), end - first)
                .unwrap_or_else(|(bucket, why)| {
                    unreachable!("bucket {} as no writer leaves it: {why}", first + bucket)
                });
            out(chunk)?;
        }
        Ok(items)
    }
}

/// A saved table loaded back (`persist/load.rs`, `grow/persist.rs`).
impl<const B: usize, L: Layout<B>> Table<B, L> {
    /// A table of `buckets` buckets whose words are `parts`, one after
    /// another (little-endian, exactly [`table_words`] words in all: the
    /// caller checked) holding `len` items: a saved table loaded back. The
    /// caller audits it ([`Self::audit`]) before anyone uses it.
    pub(crate) fn from_le_bytes(
        layout: L,
        buckets: usize,
        len: usize,
        huge_pages: bool,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        Self::from_le_bytes_addressed(layout, Plain, buckets, len, huge_pages, parts)
    }
}

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// Sets the item count to the occupied slots, and returns it: for a
    /// table just loaded whose count the saved header does not give apart
    /// (an earlier chain of a growable filter). No writer may be at work.
    pub(crate) fn recount(&self) -> usize {
        let occupied = (0..self.buckets)
            .map(|i| {
                let bucket = self.load_bucket(i);
                (0..B).filter(|&j| self.lane(&bucket, j) != 0).count()
            })
            .sum();
        self.stripes.set_len(occupied);
        occupied
    }

    /// [`Table::from_le_bytes`] addressed by `addressing` (a growable
    /// filter's generation).
    pub(crate) fn from_le_bytes_addressed(
        layout: L,
        addressing: A,
        buckets: usize,
        len: usize,
        huge_pages: bool,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        // The lookup path reads without bounds checks on this length.
        assert_eq!(
            table_words(buckets, layout.bucket_bits()).map(|w| w * 8),
            Some(total),
            "the caller checked the table's length"
        );
        let stripes = Stripes::new(buckets);
        stripes.set_len(len);
        let save = SaveState::new(buckets, layout.bucket_bits(), stripes.run());
        Ok(Table {
            kernel: Native::default(),
            layout,
            addressing,
            words: Words::from_le_bytes(parts, PADDING_WORDS, huge_pages)?,
            saved_words: total / 8,
            buckets,
            stripes,
            save,
        })
    }
}
