//! The concurrent bucket table: the type, its accessors, the lookup and
//! clear (count and remove are in `copies.rs`, inserts in `insert.rs`).
//!
//! `m` buckets of `B` fingerprints, laid out in `AtomicU64` words by a
//! [`Layout`] (`layout/`: 8/16/32-bit slots for the SIMD kernels, packed
//! slots of any width from 4 to 32 bits, or semi-sorted 4-slot buckets).
//! Every access is atomic: readers load whole words with `Relaxed` loads
//! (ordered by the stripe versions, `stripes.rs`), writers change words
//! with read-modify-writes (`insert.rs`, `copies.rs`; `clear` here), so two writers holding different
//! stripes may share a word without losing each other's bits.
//!
//! A lookup: read both stripes' versions (a few KiB that stay in cache),
//! load both buckets, compare, re-check the versions. A match is final
//! (that fingerprint really was there); a miss is final if the versions
//! were even and are unchanged. Hits and misses take the same path, so a
//! stream that mixes them costs no mispredicted branch; only a miss that
//! raced a versioned write looks again.

mod at_width;
mod batch;
mod copies;
mod counts;
mod fill;
pub(crate) mod insert;
mod nested;
mod snapshot;
mod stripes;
mod view;
#[cfg(not(cuckoo_nest_loom))]
mod words;
// Loom's atomics cannot be conjured from zeroed memory: its build swaps in a
// boxed table with the same functions.
#[cfg(cuckoo_nest_loom)]
#[path = "words_loom.rs"]
mod words;

pub(crate) use at_width::with_width;
pub(crate) use batch::{check_lengths, DEFAULT_DISTANCE};
pub(crate) use nested::{Nested, NestedItem};
pub(crate) use view::ViewTable;
pub(crate) use words::{collapses, takes_huge_pages};

use crate::broken;
use crate::error::{BuildError, DecodeError, InsertError};
pub(crate) use crate::hash::{Addressing, Plain};
use crate::layout::{audit_table, prefetch_bucket, Bucket, InBounds, Layout, Mask};
use crate::sync::Spin;
use cuckoo_nest_simd::Native;
use snapshot::SaveState;
use stripes::Stripes;
pub(crate) use words::Words;

/// How many copies of a fingerprint an insert may leave in its bucket pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Copies {
    /// One more: inserting an item twice stores two copies.
    Any,
    /// None if one is there already (`insert_unique`).
    Unique,
    /// One more while the pair holds fewer than a bucket's worth (`B`, or
    /// `B + 1` where all lie in the second bucket:
    /// `Table::copies_below_bound`): a growable filter's inserts of keys. A
    /// pair full of one key's copies is a pair no displacement can take
    /// anything out of, and a key whose two buckets are both such pairs
    /// would have the filter grow for it (grow/write.rs,
    /// `Growable::insert_into`).
    Bounded,
}

/// A placement's refusal: the pair holds this many copies of the
/// fingerprint already, `B` or more ([`InsertError::TooManyCopies`], which
/// `?` makes of it). One word, so the placements that can refuse return
/// their answer in registers: as an `InsertError`, returned through
/// memory, a growable filter's insert took 3 instructions more (callgrind,
/// `g4x10`: 786.7 against 783.5) and a fixed 4x16 one 1 more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CopiesHeld(pub(crate) usize);

impl From<CopiesHeld> for InsertError {
    #[inline]
    fn from(held: CopiesHeld) -> Self {
        InsertError::TooManyCopies { copies: held.0 }
    }
}

/// What a placement under the locks found.
pub(crate) enum Placed {
    /// The fingerprint is stored.
    Stored,
    /// A copy was there already ([`Copies::Unique`]): nothing stored.
    Duplicate,
    /// Both buckets are full.
    NoRoom,
}

/// Words of a table of `buckets` buckets of `bucket_bits` bits: whole cache
/// lines (8 words), so prefetches and loads of the last bucket stay inside
/// it. `None` if that is more than an address space holds. Part of the
/// saved format (docs/format.md): the table's length in a saved filter.
pub(crate) fn table_words(buckets: usize, bucket_bits: usize) -> Option<usize> {
    let words = buckets
        .checked_mul(bucket_bits)?
        .div_ceil(512)
        .checked_mul(8)?
        .max(8);
    (words <= isize::MAX as usize / 8).then_some(words)
}

/// [`table_words`] for `buckets` buckets of `bucket_bits` bits, and the
/// words a table allocates for them, [`PADDING_WORDS`] more.
pub(crate) fn allocated_words(buckets: usize, bucket_bits: usize) -> Option<(usize, usize)> {
    let words = table_words(buckets, bucket_bits)?;
    Some((words, words + PADDING_WORDS))
}

/// `b`, as a value the optimizer cannot see through (no instruction: the
/// value stays in its register). Where inline assembly is not available
/// (Miri), `black_box`, which costs a store and a load.
#[inline(always)]
fn opaque(b: bool) -> bool {
    // A byte register on x86_64, so the test after it is `test r8, r8`
    // without first widening the flag (one instruction per lookup).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let mut x = b as u8;
        // SAFETY: the template is only a comment: no instruction runs, no
        // memory, stack or flag is touched; `x` stays in its register.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(reg_byte) x,
                options(pure, nomem, nostack, preserves_flags)
            )
        };
        x != 0
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    {
        let mut x = b as u64;
        // SAFETY: the template is only a comment: no instruction runs, no
        // memory, stack or flag is touched; `x` stays in its register.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(reg) x,
                options(pure, nomem, nostack, preserves_flags)
            )
        };
        x != 0
    }
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    {
        core::hint::black_box(b)
    }
}

/// Zero words after a table's last line, in memory only (never saved):
/// one line, so a bucket of up to 64 bits can always be loaded as its first
/// word and the next one, without computing which word its last bit is in
/// (see [`WordSource::SLACK`](crate::layout::WordSource::SLACK)).
pub(crate) const PADDING_WORDS: usize = 8;

/// When a new table's memory is backed: before the constructor returns (a
/// table built for use: its first writes pay no page faults), or as it is
/// first touched (a growth step's next table, filled piecemeal by the
/// writes after the step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backing {
    Now,
    OnFirstTouch,
}

/// A table of `B`-slot buckets in layout `L`, addressed by `A`. `repr(C)`:
/// a table of run-time width is also the table type of that width as a
/// constant (`at_width.rs`). The fields stand in the order the compiler
/// chose for them before `repr(C)` (read with `offset_of!`): in the order
/// they were declared in, the lookup loop of a 4x16 filter took 76
/// instructions a lookup instead of 72.
#[repr(C)]
pub(crate) struct Table<const B: usize, L, A = Plain> {
    layout: L,
    /// [`table_words`] words, then [`PADDING_WORDS`] zero words.
    words: Words,
    addressing: A,
    stripes: Stripes,
    /// What a running save has copied (snapshot.rs): hops must not hide a
    /// fingerprint from it. Boxed (see [`SaveState::new`]).
    save: Box<SaveState>,
    /// [`table_words`]: the words a saved table holds.
    saved_words: usize,
    buckets: usize,
    /// The fingerprint-match kernel: the widest the target was built for.
    kernel: Native,
}

impl<const B: usize, L: Layout<B>> Table<B, L> {
    /// A zeroed table of `buckets` buckets, or the reason it cannot be had.
    pub(crate) fn new(
        layout: L,
        buckets: usize,
        capacity: usize,
        huge_pages: bool,
    ) -> Result<Self, BuildError> {
        Self::with_addressing(layout, Plain, buckets, capacity, huge_pages, Backing::Now)
    }
}

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// A zeroed table of `buckets` buckets addressed by `addressing`, or
    /// the reason it cannot be had.
    pub(crate) fn with_addressing(
        layout: L,
        addressing: A,
        buckets: usize,
        capacity: usize,
        huge_pages: bool,
        backing: Backing,
    ) -> Result<Self, BuildError> {
        let (words, len) = allocated_words(buckets, layout.bucket_bits())
            .ok_or(BuildError::CapacityTooLarge { capacity })?;
        let stripes = Stripes::new(buckets);
        let save = SaveState::new(buckets, layout.bucket_bits(), stripes.run());
        Ok(Table {
            kernel: Native::default(),
            layout,
            addressing,
            words: match backing {
                Backing::Now => Words::zeroed(len, huge_pages)?,
                Backing::OnFirstTouch => Words::zeroed_lazily(len, huge_pages)?,
            },
            saved_words: words,
            buckets,
            stripes,
            save,
        })
    }

    /// The table's words, for the threads that back or move their pages
    /// while the table is in use (a growth step's, `grow/pages.rs`).
    pub(crate) fn words(&self) -> &Words {
        &self.words
    }

    /// The occupied slots of a table loaded from saved bytes, or the first
    /// thing in it no writer stores (see [`audit_table`]).
    pub(crate) fn audit(&self) -> Result<usize, DecodeError> {
        let words = &self.words[..self.saved_words];
        audit_table(&self.layout, self.kernel, words, self.buckets, words.len())
    }

    #[inline(always)]
    pub(crate) fn buckets(&self) -> usize {
        self.buckets
    }

    /// Bytes of the bucket words, as saved (without the padding).
    pub(crate) fn table_bytes(&self) -> usize {
        self.saved_words * 8
    }

    /// Frees the table's words on a thread of its own, for a table that
    /// is being dropped: freeing a retired growth generation of tens of
    /// MiB on 4 KiB pages took the writer that dropped it 1 to 2 ms at
    /// 16M to 32M items (`benches/src/bin/growth_latency.rs`). The table keeps the smallest words
    /// in their place, and must not be read again: only dropped. Where no
    /// thread can start, or the placeholder cannot be had, the words are
    /// left to the table's own drop.
    #[cfg(not(any(cuckoo_nest_loom, miri)))]
    pub(crate) fn free_words_apart(&mut self) {
        let Ok(placeholder) = Words::zeroed(8, false) else {
            return;
        };
        let words = std::mem::replace(&mut self.words, placeholder);
        // A failed spawn drops the closure, and the words with it, here.
        let _ = std::thread::Builder::new()
            .name("cuckoo-nest-free".into())
            .spawn(move || drop(words));
    }

    /// Bytes of the bucket words (with the padding), versions and locks.
    pub(crate) fn memory_usage(&self) -> usize {
        self.words.len() * 8 + self.stripes.memory_usage()
    }

    /// Items in the table: the sum of the stripes' counters.
    pub(crate) fn len(&self) -> usize {
        self.stripes.len()
    }

    /// Address and byte length of the words (for the huge-page test).
    #[cfg(feature = "internals")]
    pub(crate) fn words_range(&self) -> (usize, usize) {
        (self.words.as_ptr() as usize, self.words.len() * 8)
    }

    /// The inverse of [`Self::locate`] (see [`crate::hash::unsplit`]).
    #[cfg(feature = "internals")]
    pub(crate) fn unlocate(&self, i1: usize, fp: u32, k: u32) -> Option<u64> {
        crate::hash::unsplit(i1, fp, self.buckets, self.layout.fp_max(), k)
    }

    // A bucket's address and contents as writers (and the table's scans)
    // ask for them: the addressing (`hash.rs`) and the layout (`layout/`)
    // over this table's words.

    /// The primary bucket and the fingerprint of `hash`.
    #[inline(always)]
    pub(crate) fn locate(&self, hash: u64) -> (usize, u32) {
        self.addressing
            .locate(hash, self.buckets, self.layout.fp_max())
    }

    /// The other bucket of fingerprint `fp` stored in bucket `i`.
    #[inline(always)]
    pub(crate) fn alt(&self, i: usize, fp: u32) -> usize {
        self.addressing.alt(i, fp, self.buckets)
    }

    /// Hints the CPU to fetch the line(s) a load of bucket `i` reads
    /// ([`prefetch_bucket`]; the table's words have slack).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        prefetch_bucket(&self.layout, self.words.as_ptr().cast(), i, true);
    }

    /// True if each table word is written under one stripe's lock only:
    /// a slot write under that lock then loads and stores its words
    /// instead of a locked read-modify-write ([`Layout::set`]). Only in a
    /// table that claims no slot without a lock (semi-sorted), and there
    /// where no word holds buckets of two stripes.
    #[inline(always)]
    pub(crate) fn own_words(&self) -> bool {
        broken::own_words(
            !Self::CLAIMS && self.stripes.runs_end_on_words(self.layout.bucket_bits()),
        )
    }

    /// Loads bucket `i` (relaxed: the caller orders it with the stripes).
    #[inline(always)]
    pub(crate) fn load_bucket(&self, i: usize) -> Bucket {
        self.layout.load(&self.words[..], i)
    }

    /// Slot `j` of a loaded bucket.
    #[inline(always)]
    pub(crate) fn lane(&self, bucket: &Bucket, j: usize) -> u32 {
        self.layout.lane(bucket, j)
    }

    /// Which slots of buckets `a` and `b` equal `value` (0 asks for empty
    /// slots).
    #[inline(always)]
    pub(crate) fn match_pair(&self, a: &Bucket, b: &Bucket, value: u32) -> (Mask, Mask) {
        self.layout.matches(self.kernel, a, b, value)
    }

    /// The first empty slot of bucket `a`, if any.
    #[inline(always)]
    pub(crate) fn first_free(&self, a: &Bucket) -> Option<usize> {
        self.layout.first_match(self.kernel, a, 0)
    }

    /// The first empty slot of bucket `i` (loaded: `a`) that a claim
    /// without a lock can write ([`Layout::first_claimable`]), if any.
    #[inline(always)]
    pub(crate) fn first_claimable(&self, a: &Bucket, i: usize) -> Option<usize> {
        self.layout.first_claimable(self.kernel, a, i)
    }

    /// A whole lookup of a hash: what each table shape compiles for
    /// [`CuckooFilter::contains`](crate::CuckooFilter::contains).
    /// Lock-free, writes no shared memory. Inlined into the caller, whose
    /// call, prologue and epilogue would otherwise be a large share of a
    /// lookup. No prefetch: the loads follow at once and request the same
    /// lines, so a prefetch's address arithmetic is pure cost; the batch
    /// path, which prefetches well ahead of its loads, keeps them (both
    /// measured: docs/benchmarks.md, "Decisions and the figures behind
    /// them").
    #[inline(always)]
    pub(crate) fn contains_hash(&self, hash: u64) -> bool {
        let (i1, i2, fp) = self.locate_pair(hash);
        self.contains_at(i1, i2, fp)
    }

    /// Both buckets and the fingerprint of `hash`.
    #[inline(always)]
    pub(crate) fn locate_pair(&self, hash: u64) -> (usize, usize, u32) {
        self.addressing
            .locate_pair(hash, self.buckets, self.layout.fp_max())
    }

    /// The probe of [`Self::contains_hash`] once both buckets are known (and
    /// prefetched): the batch path calls it directly.
    ///
    /// Seqlock-style, with the versions read up front whatever the outcome:
    /// a match is final (a fingerprint seen in a word was stored there); a
    /// miss is final if both versions were even and are unchanged, i.e. no
    /// write that can hide a copy ran on either stripe during the loads. The
    /// one branch, "final?", is almost always taken, hit or miss; the rare
    /// retry is out of line, so the common path is straight code with
    /// nothing kept alive for a second round.
    #[inline(always)]
    fn contains_at(&self, i1: usize, i2: usize, fp: u32) -> bool {
        match self.try_contains_at(i1, i2, fp) {
            Some(found) => found,
            None => self.contains_at_retry(i1, i2, fp),
        }
    }

    /// One optimistic probe: `Some(answer)` if it is final, `None` if a
    /// versioned section overlapped it and it must be repeated.
    #[inline(always)]
    fn try_contains_at(&self, i1: usize, i2: usize, fp: u32) -> Option<bool> {
        let (s1, s2) = (self.stripes.reader(i1), self.stripes.reader(i2));
        let (t1, t2) = (self.stripes.read_begin(s1), self.stripes.read_begin(s2));
        debug_assert!(
            i1 < self.buckets && i2 < self.buckets,
            "bucket out of range"
        );
        // SAFETY: both buckets are below `buckets`, by how they are made
        // (no check here: it was four instructions of every lookup): the
        // callers, `contains_hash` and `contains_at` (a fixed table's and a
        // growable generation's lookups), pass a primary bucket from `locate` and its `alt`
        // (or, in a growable filter's first chain, `Nested::first_chain_pair`'s,
        // which are `locate_pair`'s: `table/nested.rs`),
        // both below `buckets` by the `Addressing` contract (an unsafe
        // trait: `Plain` maps with a fast range and `(h - i) mod m`), or
        // bucket 0 (a zeroed `Located`; a table has at least one bucket); a
        // `Located`'s fields are only set inside `table`. A layout reads
        // only the words of `span(i)` for the buckets it is given, and with
        // a `SLACK` source at most the word after `span(i).1` (the `Layout`
        // contract); and `words` holds `table_words(buckets, bucket_bits)`
        // words (checked in `new` and `from_le_bytes`), which cover the
        // span of every bucket, then `PADDING_WORDS` more.
        let words = unsafe { InBounds::new(&self.words) };
        let found = self.layout.probe(self.kernel, &words, i1, i2, fp);
        if broken::skips_recheck(self.layout.probes_in_one_load()) {
            return Some(found);
        }
        let (t1, t2) = broken::stamps_to_check((t1, t2), || {
            (self.stripes.read_begin(s1), self.stripes.read_begin(s2))
        });
        Stripes::read_fence();
        let valid = self.stripes.read_valid_pair(s1, t1, s2, t2);
        // Hidden from the optimizer, or it splits this one test back into
        // "found?" then "valid?": a branch on hit or miss, which a shuffled
        // stream mispredicts half the time. Where hits wait for the versions
        // too (semi-sorted), `valid` alone decides and there is nothing to
        // split: the branch tests the flags it is computed in (two
        // instructions fewer).
        let settled = if L::HITS_NEED_VALIDATION {
            valid
        } else {
            opaque(valid | found)
        };
        settled.then_some(found)
    }

    /// The probe repeated, with backoff, until a round is final.
    #[cold]
    #[inline(never)]
    fn contains_at_retry(&self, i1: usize, i2: usize, fp: u32) -> bool {
        let spin = Spin::new();
        loop {
            spin.wait();
            if let Some(found) = self.try_contains_at(i1, i2, fp) {
                return found;
            }
        }
    }

    /// The fingerprints of bucket `i`, 0 for empty slots (for tests and
    /// debugging; not a consistent snapshot under concurrent writes).
    #[cfg(feature = "internals")]
    pub(crate) fn bucket_fingerprints(&self, i: usize) -> Vec<u32> {
        let b = self.load_bucket(i);
        (0..B).map(|j| self.lane(&b, j)).collect()
    }
}
