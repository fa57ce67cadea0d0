//! The insert path: free-slot insert, displacement paths.
//!
//! An insert first claims a free slot of either bucket without a lock
//! ([`Table::claim_free`], below). Where it cannot (both buckets full, `insert_unique`, a
//! semi-sorted bucket or a slot across two words) it locks the stripes of
//! the item's two buckets and puts the fingerprint in a free slot if either
//! has one, with the same compare-and-swap, since lock-free claims still
//! race with it. If both are full it looks
//! for a *displacement path* (after MemC3 and libcuckoo): a breadth-first
//! search, without locks, from the two buckets through each resident's
//! alternate bucket, to the nearest bucket with a free slot. The path is then
//! carried out backwards from the free slot, one hop at a time: lock the
//! hop's two stripes, check the fingerprint is still where the search saw it
//! and the destination still has room, mark both stripes as moving, copy the
//! fingerprint into its new bucket (a compare-and-swap: if a lock-free
//! claim took the slot since, the hop stops and the search runs again),
//! only then clear its old slot, unmark.
//! Every hop moves one fingerprint from a full slot into an empty one, so at
//! no moment is any item absent from both its buckets, and an insert that
//! gives up (no path within the search budget) has moved nothing. If a hop's
//! check fails, another writer changed the table: search again. While a
//! save runs, no hop moves a fingerprint from a bucket it has not copied
//! into one it has (snapshot.rs): the search leaves such hops out, and an
//! insert whose every path needs one copies its buckets ahead of the save.
//!
//! **The claim.** An insert whose item finds an empty slot in either of
//! its buckets claims it with [`Layout::claim`]: a compare-and-swap of the
//! slot's word, taken again while other slots of the word change under it
//! and given up once the slot itself is seen filled (another insert claimed
//! it: the insert looks for the next free slot). No stripe lock, no
//! version: the fingerprint appears in one atomic write, which a lookup sees
//! or not (contract 3); the count goes to the thread's own word
//! (`counts.rs`). So a fixed filter's insert into a free slot does one
//! locked instruction, on the bucket's own line. Every other write into a
//! slot in one word is such a claim too (a hop, a growth step's copy, an
//! insert under the locks), and every other write to a word a claim may
//! write a read-modify-write (docs/design.md, "Inserts without a lock",
//! says why that keeps a locked writer's view of a full slot). Semi-sorted
//! buckets and slots across two words take the stripes' locks
//! ([`Claim::NeedsLock`]).

use crate::broken;
use crate::error::InsertError;
use crate::layout::{Bucket, Claim, Layout};
use crate::table::stripes::Section;
use crate::table::{Addressing, Copies, CopiesHeld, Placed, Table};

/// The most hops a displacement path of `b`-slot buckets may have: two-slot
/// buckets branch little, so they get deeper paths.
pub(crate) const fn max_path_depth(b: usize) -> u8 {
    match b {
        2 => 20,
        4 => 6,
        _ => 4,
    }
}

/// A node of the breadth-first search: a bucket reached by moving `fp` out
/// of slot `slot` of the parent node's bucket.
#[derive(Clone, Copy)]
struct Node {
    bucket: usize,
    parent: u32,
    slot: u8,
    depth: u8,
    fp: u32,
}

const ROOT: u32 = u32::MAX;

/// Runs `f` with an empty node buffer: one per thread, reused, so a search
/// allocates only the first time a thread displaces. Where the thread's
/// buffer cannot be had (an insert from a thread-local destructor that runs
/// after the buffer's own, or a re-entrant call), a fresh local buffer
/// serves: slower, never an abort. (Under loom, model threads share one OS
/// thread, so each search gets its own buffer.)
fn with_node_buffer<R>(f: impl FnOnce(&mut Vec<Node>) -> R) -> R {
    #[cfg(not(cuckoo_nest_loom))]
    {
        crate::sync::thread_local! {
            static NODES: std::cell::RefCell<Vec<Node>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let mut f = Some(f);
        let reused = NODES.try_with(|cell| {
            let mut nodes = cell.try_borrow_mut().ok()?;
            nodes.clear();
            let f = f.take().expect("called once");
            Some(f(&mut nodes))
        });
        match (reused, f) {
            (Ok(Some(result)), _) => result,
            // The closure was not called: the buffer was destroyed or busy.
            (_, Some(f)) => f(&mut Vec::new()),
            (_, None) => unreachable!("the search ran but returned nothing"),
        }
    }
    #[cfg(cuckoo_nest_loom)]
    f(&mut Vec::new())
}

enum Search {
    /// A path, ending at this node (its bucket has a free slot); carry it
    /// out, then try the insert again.
    Path(usize),
    /// One of the item's own buckets has room now: try again.
    RootHasRoom,
    /// No free slot within the budget.
    Full,
    /// No free slot within the budget but through hops that would hide
    /// a fingerprint from a running save.
    HiddenFromSave,
    /// A path was found, and one of its hops would have hidden its
    /// fingerprint from a running save: search again.
    StoppedBySave,
}

/// Why a path stopped before its last hop.
enum Stopped {
    /// A hop's source or destination changed since the search.
    Changed,
    /// A hop would hide its fingerprint from a running save, which copied
    /// the destination since the search.
    HiddenFromSave,
}

/// Attempts (search + moves + placement) before an insert gives up under
/// concurrent writers that keep taking the slots it frees. Each failed
/// attempt means another writer made progress.
const MAX_ATTEMPTS: usize = 128;

impl<const B: usize, L: Layout<B>, A: Addressing> Table<B, L, A> {
    /// How many buckets the search may visit, and how long a path may be.
    /// Two-slot buckets branch little, so they get deeper paths.
    const SEARCH_NODES: usize = if B == 2 { 8192 } else { 2048 };
    const MAX_DEPTH: u8 = max_path_depth(B);

    /// True for a layout whose inserts claim slots without a lock: every
    /// layout but the semi-sorted one.
    pub(crate) const CLAIMS: bool = !L::WRITES_VERSIONED;

    /// Stores `fp` in a free slot of bucket `i1`, else of `i2` (its pair),
    /// without a lock, and counts it: true if stored. False, having written
    /// nothing, if both buckets are full, or the free slot found must be
    /// written under its lock ([`Claim::NeedsLock`]), or the layout claims
    /// nothing: the caller goes on to the locked path.
    #[inline(always)]
    pub(crate) fn claim_free(&self, i1: usize, i2: usize, fp: u32) -> bool {
        if !Self::CLAIMS {
            return false;
        }
        loop {
            if let Some(stored) = self.claim_once(&self.load_bucket(i1), i1, i2, fp) {
                return stored;
            }
        }
    }

    /// One claim of the first free slot in one word of bucket `i1` (as
    /// loaded: `a`), else of `i2`: `Some(true)` if stored (and counted),
    /// `Some(false)` if there is none or the slot must be written under its
    /// lock ([`Claim::NeedsLock`]), `None` if another insert filled the slot
    /// first (it made progress; the caller looks again).
    #[inline(always)]
    pub(crate) fn claim_once(&self, a: &Bucket, i1: usize, i2: usize, fp: u32) -> Option<bool> {
        let (bucket, slot) = match self.first_claimable(a, i1) {
            Some(j) => (i1, j),
            None => match self.first_claimable(&self.load_bucket(i2), i2) {
                Some(j) => (i2, j),
                None => return Some(false),
            },
        };
        match self.layout.claim(&self.words, bucket, slot, fp) {
            Claim::Stored => {
                self.stripes.count_add(1, bucket);
                Some(true)
            }
            Claim::Taken => None,
            Claim::NeedsLock => Some(false),
        }
    }

    /// Inserts `fp` with primary bucket `i1`; returns whether it stored a
    /// copy. With [`Copies::Unique`], does nothing and returns `Ok(false)`
    /// if the fingerprint is already in either bucket, checked under the
    /// same locks as the placement: racing unique inserts store one copy.
    ///
    /// The common case, a free slot in either bucket, is [`Self::claim_free`]
    /// (one compare-and-swap, no lock); else [`Self::place`] under both
    /// buckets' locks, but for a pair seen full ([`Self::pair_seen_full`]).
    /// Making room ([`Self::insert_displacing`]) is out of line, so the
    /// common path keeps its registers and stays short.
    #[inline]
    pub(crate) fn insert(&self, i1: usize, fp: u32, copies: Copies) -> Result<bool, InsertError> {
        self.insert_where(i1, fp, copies, &|_| true)
    }

    /// [`Self::insert`], making room by displacement only into buckets
    /// `ready` allows (a growth step's copy, whose targets not yet copied
    /// must stay free for it: grow/step.rs).
    #[inline]
    pub(crate) fn insert_where(
        &self,
        i1: usize,
        fp: u32,
        copies: Copies,
        ready: &impl Fn(usize) -> bool,
    ) -> Result<bool, InsertError> {
        let i2 = self.alt(i1, fp);
        self.prefetch(i1);
        self.prefetch(i2);
        if copies == Copies::Any && self.claim_free(i1, i2, fp) {
            return Ok(true);
        }
        if copies == Copies::Any && self.pair_seen_full(i1, i2, fp) {
            return self.insert_displacing(i1, i2, fp, copies, ready);
        }
        if copies == Copies::Unique
            && broken::unique_check(false, || {
                let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
                let (ma, mb) = self.match_pair(&a, &b, fp);
                ma.any() || mb.any()
            })
        {
            return Ok(false);
        }
        match self.place(i1, i2, fp, copies)? {
            Placed::Stored => Ok(true),
            Placed::Duplicate => Ok(false),
            Placed::NoRoom => self.insert_displacing(i1, i2, fp, copies, ready),
        }
    }

    /// Under both buckets' locks, stores `fp` in the first free slot of
    /// bucket `i1`, else of `i2`; or finds a copy already there (with
    /// [`Copies::Unique`]), or no room. Refuses a pair already full of
    /// copies of `fp` (no displacement can make room for another).
    #[inline(always)]
    pub(crate) fn place(
        &self,
        i1: usize,
        i2: usize,
        fp: u32,
        copies: Copies,
    ) -> Result<Placed, CopiesHeld> {
        let guard = self.stripes.lock_pair(i1, i2);
        let (a, b) = loop {
            let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
            if copies == Copies::Unique
                && broken::unique_check(true, || {
                    let (ma, mb) = self.match_pair(&a, &b, fp);
                    ma.any() || mb.any()
                })
            {
                return Ok(Placed::Duplicate);
            }
            let spot = match self.first_free(&a) {
                Some(j) => Some((i1, j, &a)),
                None => self.first_free(&b).map(|j| (i2, j, &b)),
            };
            let Some((bucket, slot, current)) = spot else {
                break (a, b);
            };
            // Semi-sorted buckets re-encode on every write.
            let _section = L::WRITES_VERSIONED.then(|| guard.versioned(Section::SemiSortedRewrite));
            if self
                .layout
                .set(&self.words, bucket, slot, fp, current, self.own_words())
            {
                self.stripes.count_add(1, bucket);
                return Ok(Placed::Stored);
            }
            // A lock-free claim took the slot: look again.
        };
        if let Some(slots) = self.all_copies(&a, &b, i1, i2, fp) {
            return Err(CopiesHeld(slots));
        }
        Ok(Placed::NoRoom)
    }

    /// [`Self::insert`] once both buckets were found full (by `place`, or
    /// by a growable filter's `insert_if_room`, nested.rs): make room by
    /// displacement, place again, until a placement succeeds, the search
    /// finds no free slot, or [`MAX_ATTEMPTS`] rounds lost to other writers.
    /// A search takes no hop into a bucket `ready` refuses (a growable
    /// filter's caller makes one ready by copying its share of a growth
    /// step; every other passes `|_| true`).
    #[cold]
    #[inline(never)]
    pub(crate) fn insert_displacing(
        &self,
        i1: usize,
        i2: usize,
        fp: u32,
        copies: Copies,
        ready: &impl Fn(usize) -> bool,
    ) -> Result<bool, InsertError> {
        let mut attempts = 0;
        loop {
            match self.displace(i1, i2, ready) {
                // Whether or not every hop went through, try placing
                // again: a failed hop means the table changed under us.
                Search::Path(_) | Search::RootHasRoom => attempts += 1,
                // A hop stopped by a running save means the save went on,
                // not that writers compete: it costs no attempt.
                Search::StoppedBySave => {}
                Search::Full => break,
                Search::HiddenFromSave => {
                    if !self.copy_ahead(i1, i2) {
                        self.wait_for_save();
                    }
                }
            }
            if attempts >= MAX_ATTEMPTS {
                break;
            }
            match self.place(i1, i2, fp, copies)? {
                Placed::Stored => return Ok(true),
                Placed::Duplicate => return Ok(false),
                Placed::NoRoom => {}
            }
        }
        Err(InsertError::Full {
            len: self.len(),
            slots: self.buckets() * B,
        })
    }

    /// Searches for a displacement path from buckets `i1` and `i2` and, if
    /// it finds one, carries it out: what came of it, as [`Search`] says
    /// ([`Search::Path`] once every hop ran or one found its premises
    /// changed, [`Search::StoppedBySave`] if a hop would have hidden its
    /// fingerprint from a running save).
    fn displace(&self, i1: usize, i2: usize, ready: &impl Fn(usize) -> bool) -> Search {
        with_node_buffer(|nodes| match self.search_in(nodes, i1, i2, ready) {
            Search::Path(end) => match self.execute(nodes, end) {
                Err(Stopped::HiddenFromSave) => Search::StoppedBySave,
                Ok(()) => {
                    self.save.record_path(nodes[end].depth);
                    Search::Path(end)
                }
                Err(Stopped::Changed) => Search::Path(end),
            },
            other => other,
        })
    }

    /// Breadth-first search from buckets `i1` and `i2` for the nearest free
    /// slot. Reads without locks: what it sees is checked again, hop by hop,
    /// under the locks in [`Self::execute`].
    ///
    /// A bucket is checked for room when it is reached, before any bucket
    /// is expanded further: a node's children are all computed and
    /// prefetched first (their misses overlap), then read in order, and the
    /// first with room ends the search. So the path found is a shortest one,
    /// and no full bucket of the last level is expanded for nothing (checked
    /// only when taken from the queue, each full bucket of that level
    /// before the free one pushed its `B` children: most of a search's
    /// work near full load).
    fn search_in(
        &self,
        nodes: &mut Vec<Node>,
        i1: usize,
        i2: usize,
        ready: &impl Fn(usize) -> bool,
    ) -> Search {
        let saving = self.save.running().then(|| self.save.marks());
        let mut hidden = false;
        for root in [i1, i2] {
            if root == i1 && !nodes.is_empty() {
                continue; // i2 == i1: the item has a single bucket
            }
            if self.first_free(&self.load_bucket(root)).is_some() {
                return Search::RootHasRoom;
            }
            nodes.push(Node {
                bucket: root,
                parent: ROOT,
                slot: 0,
                depth: 0,
                fp: 0,
            });
        }
        let mut head = 0;
        while head < nodes.len() {
            let node = nodes[head];
            if node.depth == Self::MAX_DEPTH {
                // Breadth-first: every node after this one is as deep.
                break;
            }
            let bucket = self.load_bucket(node.bucket);
            let first_child = nodes.len();
            for j in 0..B {
                if nodes.len() >= Self::SEARCH_NODES {
                    break;
                }
                let fp = self.lane(&bucket, j);
                let child = self.alt(node.bucket, fp);
                if Self::on_path(nodes, head, child) {
                    continue;
                }
                if saving.as_ref().is_some_and(|m| m.hides(node.bucket, child)) {
                    hidden = true;
                    continue;
                }
                if !ready(child) {
                    continue;
                }
                self.prefetch(child);
                nodes.push(Node {
                    bucket: child,
                    parent: head as u32,
                    slot: j as u8,
                    depth: node.depth + 1,
                    fp,
                });
            }
            let has_room = |n: &Node| self.first_free(&self.load_bucket(n.bucket)).is_some();
            if let Some(k) = nodes[first_child..].iter().position(has_room) {
                return Search::Path(first_child + k);
            }
            head += 1;
        }
        if hidden {
            Search::HiddenFromSave
        } else {
            Search::Full
        }
    }

    /// True if `bucket` is node `at`'s bucket or one of its ancestors': a
    /// path must not visit a bucket twice.
    fn on_path(nodes: &[Node], mut at: usize, bucket: usize) -> bool {
        loop {
            if nodes[at].bucket == bucket {
                return true;
            }
            if nodes[at].parent == ROOT {
                return false;
            }
            at = nodes[at].parent as usize;
        }
    }

    /// Carries out the path from a root to node `end` backwards, from the
    /// hop into the free slot (into `end`'s bucket) to the hop out of the
    /// item's own bucket: each hop moves node `at`'s fingerprint from slot
    /// `nodes[at].slot` of its parent's bucket into `at`'s bucket. Stops at
    /// the first hop whose premises no longer hold, or that would hide its
    /// fingerprint from a running save (nothing is lost: hops already done
    /// each moved a fingerprint into a free slot of its alternate bucket;
    /// the caller tries its placement again either way).
    fn execute(&self, nodes: &[Node], end: usize) -> Result<(), Stopped> {
        let mut at = end;
        let own = self.own_words();
        while nodes[at].parent != ROOT {
            let Node {
                bucket: to,
                parent,
                slot,
                fp,
                ..
            } = nodes[at];
            let (from, slot) = (nodes[parent as usize].bucket, slot as usize);
            let guard = self.stripes.lock_pair(from, to);
            let source = self.load_bucket(from);
            if !broken::hop_holds(self.lane(&source, slot) == fp) {
                return Err(Stopped::Changed);
            }
            let target = self.load_bucket(to);
            let Some(dest) = self.first_free(&target) else {
                return Err(Stopped::Changed);
            };
            // Under the hop's locks neither bucket's chunk can be copied,
            // so this verdict holds until the move ends.
            if self.save.hides(from, to) {
                return Err(Stopped::HiddenFromSave);
            }
            let _moving = guard.versioned(Section::Move);
            let moved = broken::copy_then_clear(
                || {
                    let stored = self.layout.set(&self.words, to, dest, fp, &target, own);
                    broken::hop_overwrites(stored, || {
                        self.layout.clear(&self.words, to, dest, &target, own);
                        self.layout.set(&self.words, to, dest, fp, &target, own);
                    })
                },
                || self.layout.clear(&self.words, from, slot, &source, own),
            );
            if !moved {
                // A lock-free claim took the destination since the search.
                return Err(Stopped::Changed);
            }
            at = parent as usize;
        }
        Ok(())
    }
}
