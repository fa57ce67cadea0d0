//! The write path: free-slot insert, displacement paths, remove.
//!
//! An insert locks the stripes of the item's two buckets and puts the
//! fingerprint in a free slot if either has one. If both are full it looks
//! for a *displacement path* (after MemC3 and libcuckoo): a breadth-first
//! search, without locks, from the two buckets through each resident's
//! alternate bucket, to the nearest bucket with a free slot. The path is then
//! carried out backwards from the free slot, one hop at a time: lock the
//! hop's two stripes, check the fingerprint is still where the search saw it
//! and the destination still has room, mark both stripes as moving, copy the
//! fingerprint into its new bucket, only then clear its old slot, unmark.
//! Every hop moves one fingerprint from a full slot into an empty one, so at
//! no moment is any item absent from both its buckets, and an insert that
//! gives up (no path within the search budget) has moved nothing. If a hop's
//! check fails, another writer changed the table: search again. While a
//! save runs, no hop moves a fingerprint from a bucket it has not copied
//! into one it has (save.rs): the search leaves such hops out, and an
//! insert whose every path needs one copies its buckets ahead of the save.

use crate::broken::{self, Section};
use crate::error::InsertError;
use crate::layout::{Layout, Mask};
use crate::table::Table;

/// One step of a displacement path: move `fp` from slot `slot` of bucket
/// `from` into any free slot of bucket `to` (its alternate).
#[derive(Clone, Copy, Debug)]
struct Hop {
    from: usize,
    slot: usize,
    fp: u32,
    to: usize,
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

/// How many copies of a fingerprint an insert may leave in its bucket pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Copies {
    /// One more: inserting an item twice stores two copies.
    Any,
    /// None if one is there already (`insert_unique`).
    Unique,
}

/// Runs `f` with an empty node buffer: one per thread, reused, so a search
/// allocates only the first time a thread displaces. Where the thread's
/// buffer cannot be had (an insert from a thread-local destructor that runs
/// after the buffer's own, or a re-entrant call), a fresh local buffer
/// serves: slower, never an abort. (Under loom, model threads share one OS
/// thread, so each search gets its own buffer.)
fn with_node_buffer<R>(f: impl FnOnce(&mut Vec<Node>) -> R) -> R {
    #[cfg(not(loom))]
    {
        thread_local! {
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
    #[cfg(loom)]
    f(&mut Vec::new())
}

enum Search {
    /// A path; carry it out, then try the insert again.
    Path(Vec<Hop>),
    /// One of the item's own buckets has room now: try again.
    RootHasRoom,
    /// No free slot within the budget.
    Full,
    /// No free slot within the budget but through hops that would hide
    /// a fingerprint from a running save.
    HiddenFromSave,
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

impl<const B: usize, L: Layout<B>> Table<B, L> {
    /// How many buckets the search may visit, and how long a path may be.
    /// Two-slot buckets branch little, so they get deeper paths.
    const SEARCH_NODES: usize = if B == 2 { 8192 } else { 2048 };
    const MAX_DEPTH: u8 = match B {
        2 => 20,
        4 => 6,
        _ => 4,
    };

    /// Inserts `fp` with primary bucket `i1`; returns whether it stored a
    /// copy. With [`Copies::Unique`], does nothing and returns `Ok(false)`
    /// if the fingerprint is already in either bucket, checked under the
    /// same locks as the placement, so racing unique inserts of one item
    /// store one copy.
    pub(crate) fn insert(&self, i1: usize, fp: u32, copies: Copies) -> Result<bool, InsertError> {
        let unique = copies == Copies::Unique;
        let i2 = self.alt(i1, fp);
        // The loads fly while we take the locks.
        self.prefetch(i1);
        self.prefetch(i2);
        if unique && broken::UNIQUE_UNLOCKED {
            let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
            let (ma, mb) = self.match_pair(&a, &b, fp);
            if ma.any() || mb.any() {
                return Ok(false);
            }
        }
        let mut attempts = 0;
        while attempts < MAX_ATTEMPTS {
            {
                let guard = self.stripes.lock_pair(i1, i2);
                let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
                if unique && !broken::UNIQUE_UNLOCKED {
                    let (ma, mb) = self.match_pair(&a, &b, fp);
                    if ma.any() || mb.any() {
                        return Ok(false);
                    }
                }
                let (ea, eb) = self.match_pair(&a, &b, 0);
                let spot = match (ea.lowest_set_bit(), eb.lowest_set_bit()) {
                    (Some(j), _) => Some((i1, j, &a)),
                    (None, Some(j)) => Some((i2, j, &b)),
                    (None, None) => None,
                };
                if let Some((bucket, slot, current)) = spot {
                    // Semi-sorted buckets re-encode on every write.
                    let _section =
                        L::WRITES_VERSIONED.then(|| guard.versioned(Section::SemiSortedRewrite));
                    self.layout.set(&self.words, bucket, slot, fp, current);
                    guard.count_add(1);
                    return Ok(true);
                }
                let (ma, mb) = self.match_pair(&a, &b, fp);
                let own = ma.count() + if i2 == i1 { 0 } else { mb.count() };
                let slots = if i2 == i1 { B } else { 2 * B };
                if own as usize == slots {
                    return Err(InsertError::TooManyCopies { copies: slots });
                }
            }
            match self.search(i1, i2) {
                Search::Path(path) => {
                    // Whether or not every hop went through, try placing
                    // again: a failed hop means the table changed under us.
                    // One stopped by a running save means the save went
                    // on, not that writers compete: it costs no attempt.
                    if let Err(Stopped::HiddenFromSave) = self.execute(&path) {
                        continue;
                    }
                }
                Search::RootHasRoom => {}
                Search::Full => break,
                Search::HiddenFromSave => {
                    if !self.copy_ahead(i1, i2) {
                        self.wait_for_save();
                    }
                    continue;
                }
            }
            attempts += 1;
        }
        Err(InsertError::Full {
            len: self.len(),
            slots: self.buckets() * B,
        })
    }

    /// Breadth-first search from buckets `i1` and `i2` for the nearest free
    /// slot. Reads without locks: what it sees is checked again, hop by hop,
    /// under the locks in [`Self::execute`].
    fn search(&self, i1: usize, i2: usize) -> Search {
        with_node_buffer(|nodes| self.search_in(nodes, i1, i2))
    }

    fn search_in(&self, nodes: &mut Vec<Node>, i1: usize, i2: usize) -> Search {
        let saving = self.save.running().then(|| self.save.marks());
        let mut hidden = false;
        for root in [i1, i2] {
            if root == i1 && !nodes.is_empty() {
                continue; // i2 == i1: the item has a single bucket
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
            let bucket = self.load_bucket(node.bucket);
            let empty = self.match_one(&bucket, 0);
            if empty.any() {
                if node.parent == ROOT {
                    return Search::RootHasRoom;
                }
                return Search::Path(Self::path_to(nodes, head));
            }
            if node.depth < Self::MAX_DEPTH {
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
                    // Breadth-first: this bucket is read only after the
                    // rest of this level, so its miss overlaps theirs.
                    self.prefetch(child);
                    nodes.push(Node {
                        bucket: child,
                        parent: head as u32,
                        slot: j as u8,
                        depth: node.depth + 1,
                        fp,
                    });
                }
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

    /// The hops from a root to node `end`, in path order (root first).
    fn path_to(nodes: &[Node], mut end: usize) -> Vec<Hop> {
        let mut hops = Vec::with_capacity(nodes[end].depth as usize);
        while nodes[end].parent != ROOT {
            let node = nodes[end];
            let parent = nodes[node.parent as usize];
            hops.push(Hop {
                from: parent.bucket,
                slot: node.slot as usize,
                fp: node.fp,
                to: node.bucket,
            });
            end = node.parent as usize;
        }
        hops.reverse();
        hops
    }

    /// Carries out a path backwards, from the hop into the free slot to the
    /// hop out of the item's own bucket. Stops at the first hop whose
    /// premises no longer hold, or that would hide its fingerprint from a
    /// running save (nothing is lost: hops already done each moved a fingerprint into a
    /// free slot of its alternate bucket; the caller tries its placement
    /// again either way).
    fn execute(&self, path: &[Hop]) -> Result<(), Stopped> {
        for hop in path.iter().rev() {
            let guard = self.stripes.lock_pair(hop.from, hop.to);
            let from = self.load_bucket(hop.from);
            if !broken::hop_holds(self.lane(&from, hop.slot) == hop.fp) {
                return Err(Stopped::Changed);
            }
            let to = self.load_bucket(hop.to);
            let Some(dest) = self.match_one(&to, 0).lowest_set_bit() else {
                return Err(Stopped::Changed);
            };
            // Under the hop's locks neither bucket's chunk can be copied,
            // so this verdict holds until the move ends.
            if self.save.hides(hop.from, hop.to) {
                return Err(Stopped::HiddenFromSave);
            }
            let _moving = guard.versioned(Section::Move);
            broken::copy_then_clear(
                || self.layout.set(&self.words, hop.to, dest, hop.fp, &to),
                || self.layout.clear(&self.words, hop.from, hop.slot, &from),
            );
        }
        Ok(())
    }

    /// Removes one copy of `fp` from bucket `i1` or its alternate.
    ///
    /// The table knows copies of a fingerprint in a bucket pair, not items:
    /// items with the same fingerprint and pair share them. If another copy
    /// stays in the pair, clearing this one can change which bucket holds
    /// the copy that answers for some other item (it was in the bucket
    /// cleared here; the one left is in the other bucket, perhaps put there
    /// a moment ago). A lookup that read the other bucket before that copy
    /// arrived and this one after the clear would miss it, so such a remove
    /// is versioned like a move. A remove that leaves no copy in the pair
    /// answered for no one else, and stays unversioned: readers of other
    /// items in these buckets need not retry.
    pub(crate) fn remove(&self, i1: usize, fp: u32) -> bool {
        let i2 = self.alt(i1, fp);
        let guard = self.stripes.lock_pair(i1, i2);
        let (a, b) = (self.load_bucket(i1), self.load_bucket(i2));
        let (in1, in2) = self.match_pair(&a, &b, fp);
        // A single-bucket pair (i1 == i2) has its copies counted once.
        let in2 = if i2 == i1 { Mask(0) } else { in2 };
        let (bucket, slot, current) = match (in1.lowest_set_bit(), in2.lowest_set_bit()) {
            (Some(j), _) => (i1, j, &a),
            (None, Some(j)) => (i2, j, &b),
            (None, None) => return false,
        };
        let others_stay = in1.count() + in2.count() > 1;
        let _section = if others_stay {
            guard.versioned(Section::CollidingRemove)
        } else if L::WRITES_VERSIONED {
            guard.versioned(Section::SemiSortedRewrite)
        } else {
            None
        };
        self.layout.clear(&self.words, bucket, slot, current);
        guard.count_add(-1);
        true
    }
}
