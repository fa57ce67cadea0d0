//! The item count, kept where no two writers take the same line.
//!
//! An insert that claims a free slot without a lock (`insert.rs`) must not
//! then add to a counter every writer shares: that line would move between
//! cores on every insert, as the stripe locks' did. So each thread counts
//! in a word of its own. Every thread that counts gets a small *index*, the
//! lowest one no live thread holds (process-wide, handed back when the
//! thread exits); a table keeps one [`Counter`] per stripe, on the stripe
//! lock's line, and the thread of index `t` owns the `own` word of counter
//! `t`. Only that thread writes it, so a relaxed load and a store add to it
//! (no locked instruction), and the line stays in that core's cache: other
//! cores take it only when a displacement, remove or save locks that
//! stripe. A thread without a word of its own in a table (its index is
//! past the table's stripes, or it has none: past [`INDICES`] threads,
//! during its thread-local destructors, or under loom) adds to a `shared`
//! word with a read-modify-write: counter `t` modulo the stripes, or
//! without an index the first counter.
//!
//! So only the first [`in_use`] counters ever hold counts: one per index
//! ever handed out (the most threads alive at once that counted), at most
//! the table's stripes. `len()` sums their two words: exact when no write
//! is in flight, as before, and a few loads with a few threads where it
//! summed every stripe's (1,024 for a large table); a growable filter asks
//! it whenever a full pair may mean a full generation (`grow/load.rs`). A
//! thread raises the process's index mark before its first count, so a
//! sum that happens after a count (a quiescent one: the writer joined, or
//! its work handed over by a release and acquire) sees the mark that
//! covers it. A word passes to a new owner
//! only through the index bitmap's release (when its thread exits) and
//! acquire (when the next one takes it), so the new owner's first load
//! sees the last owner's store.
//!
//! Under loom every count goes to the `shared` word of the stripe written,
//! and the sum reads every counter: the model threads share one OS thread
//! (and its thread-locals), and the count is no step of the protocol that
//! keeps items found.

use crate::sync::{AtomicU64, Ordering};

/// The most threads that count in words of their own at once (no thread
/// holds an index under loom).
#[cfg_attr(cuckoo_nest_loom, allow(dead_code))]
pub(crate) const INDICES: usize = 1024;

/// One stripe's share of the item count (on the stripe lock's line).
pub(crate) struct Counter {
    /// Written by the thread whose index is this counter's stripe, alone.
    own: AtomicU64,
    /// Written by any thread, with read-modify-writes.
    shared: AtomicU64,
}

impl Counter {
    pub(crate) fn new() -> Self {
        Counter {
            own: AtomicU64::new(0),
            shared: AtomicU64::new(0),
        }
    }

    /// Both words, wrapping: only the sum over all counters means anything.
    fn value(&self) -> u64 {
        let relaxed = Ordering::Relaxed;
        // Under loom no thread has an index, so `own` stays 0: not read,
        // one model step fewer per counter.
        let own = if cfg!(cuckoo_nest_loom) {
            0
        } else {
            self.own.load(relaxed)
        };
        own.wrapping_add(self.shared.load(relaxed))
    }
}

/// Adds `delta` (wrapping) to a table's count, kept in `n` counters (one
/// per stripe, at least one), counter `k` being `counter(k)`. `near` is
/// the stripe of a bucket the caller wrote: under loom, model threads add
/// to that stripe's shared word, so threads writing apart count apart.
#[inline(always)]
pub(crate) fn add<'a>(n: usize, counter: impl Fn(usize) -> &'a Counter, delta: i64, near: usize) {
    let delta = delta as u64;
    match index::current() {
        Some(t) if t < n => {
            // Only this thread writes `own` (see the module's comment).
            let own = &counter(t).own;
            let now = own.load(Ordering::Relaxed);
            own.store(now.wrapping_add(delta), Ordering::Relaxed);
        }
        t => {
            let at = t.map_or(index::without(near), |t| t % n);
            counter(at).shared.fetch_add(delta, Ordering::Relaxed);
        }
    }
}

/// Sets the count of counters no other thread sees yet (a table being
/// loaded or built): every word zero but the first counter's shared one.
pub(crate) fn set<'a>(counters: impl IntoIterator<Item = &'a Counter>, len: usize) {
    for (k, c) in counters.into_iter().enumerate() {
        c.own.store(0, Ordering::Relaxed);
        let first = if k == 0 { len as u64 } else { 0 };
        c.shared.store(first, Ordering::Relaxed);
    }
}

/// How many of a table's `n` counters may hold counts: the first, and one
/// for each index handed out so far (every counter under loom).
#[inline]
fn in_use(n: usize) -> usize {
    index::mark().clamp(1, n)
}

/// The count: the sum of the counters in use, of `n`, counter `k` being
/// `counter(k)`. A transiently negative sum (a remove counted before the
/// insert it removed) reads as 0.
pub(crate) fn sum<'a>(n: usize, counter: impl Fn(usize) -> &'a Counter) -> usize {
    let sum = (0..in_use(n)).fold(0u64, |acc, k| acc.wrapping_add(counter(k).value()));
    if (sum as i64) < 0 {
        0
    } else {
        sum as usize
    }
}

/// The calling thread's index, if it has one.
#[cfg(not(cuckoo_nest_loom))]
mod index {
    use super::INDICES;
    use crate::sync::process::{AtomicU64, AtomicUsize, Ordering};

    /// Bit `t` set: some live thread holds index `t`.
    static TAKEN: [AtomicU64; INDICES / 64] = [const { AtomicU64::new(0) }; INDICES / 64];

    /// One past the highest index ever taken: no thread has counted in a
    /// counter at or past it (other than the first, see [`without`]).
    static MARK: AtomicUsize = AtomicUsize::new(0);

    /// An index held by this thread, handed back when the thread exits.
    struct Held(usize);

    impl Drop for Held {
        fn drop(&mut self) {
            // Release: this thread's last counts happen before the next
            // holder's first (it takes the bit with an acquire).
            TAKEN[self.0 / 64].fetch_and(!(1 << (self.0 % 64)), Ordering::Release);
        }
    }

    std::thread_local! {
        static INDEX: Option<Held> = take();
    }

    /// The lowest free index, if any is free.
    fn take() -> Option<Held> {
        for (w, word) in TAKEN.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != u64::MAX {
                let bit = (!bits).trailing_zeros() as usize;
                match word.compare_exchange_weak(
                    bits,
                    bits | 1 << bit,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        let t = w * 64 + bit;
                        // Before the thread's first count (relaxed: a sum
                        // that happens after that count happens after
                        // this too, which came first, so reads this mark
                        // or a later one).
                        MARK.fetch_max(t + 1, Ordering::Relaxed);
                        return Some(Held(t));
                    }
                    Err(now) => bits = now,
                }
            }
        }
        None
    }

    /// This thread's index; `None` past [`INDICES`] live threads or once
    /// the thread's locals are being destroyed.
    #[inline(always)]
    pub(super) fn current() -> Option<usize> {
        INDEX
            .try_with(|held| held.as_ref().map(|h| h.0))
            .ok()
            .flatten()
    }

    /// One past the highest index ever taken.
    #[inline]
    pub(super) fn mark() -> usize {
        MARK.load(Ordering::Relaxed)
    }

    /// The counter a thread without an index adds to: the first, which
    /// every sum reads.
    #[inline(always)]
    pub(super) fn without(_near: usize) -> usize {
        0
    }
}

#[cfg(cuckoo_nest_loom)]
mod index {
    /// Under loom, no thread has an index (see the module's comment).
    #[inline(always)]
    pub(super) fn current() -> Option<usize> {
        None
    }

    /// Every counter may hold counts: the sum reads them all.
    #[inline]
    pub(super) fn mark() -> usize {
        usize::MAX
    }

    /// The stripe written: model threads writing apart count apart.
    #[inline(always)]
    pub(super) fn without(near: usize) -> usize {
        near
    }
}

#[cfg(all(test, not(cuckoo_nest_loom)))]
mod tests {
    use super::*;

    #[test]
    fn threads_count_apart_and_the_sum_is_exact() {
        let counters: Vec<Counter> = (0..4).map(|_| Counter::new()).collect();
        set(&counters, 10);
        // More threads than counters: some count in words of their own,
        // the rest in the shared words, and the sum is exact either way.
        std::thread::scope(|s| {
            for _ in 0..12 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        add(4, |k| &counters[k], 1, 0);
                    }
                    add(4, |k| &counters[k], -500, 3);
                });
            }
        });
        assert_eq!(sum(4, |k| &counters[k]), 10 + 12 * 500);
        add(4, |k| &counters[k], -(10 + 12 * 500 + 3), 1);
        assert_eq!(sum(4, |k| &counters[k]), 0, "a negative sum reads as 0");
    }

    #[test]
    fn no_thread_counts_past_the_counters_a_sum_reads() {
        // Eight threads alive at once, each counting in a table of as many
        // counters as there are indices: each adds to the word of its own
        // index, and the sum, which reads only the first `in_use`
        // counters, must still see every count. The counters it skips
        // hold nothing.
        let n = INDICES;
        let counters: Vec<Counter> = (0..n).map(|_| Counter::new()).collect();
        let barrier = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    barrier.wait();
                    add(n, |k| &counters[k], 3, 0);
                    barrier.wait();
                });
            }
        });
        assert_eq!(sum(n, |k| &counters[k]), 24);
        let read = in_use(n);
        assert!(counters[read..].iter().all(|c| c.value() == 0));
        assert!(read >= 8, "eight threads held indices at once: {read}");
    }

    #[test]
    fn live_threads_hold_distinct_indices() {
        // Eight threads alive at once (the barrier): no two share an index,
        // so no two write one `own` word.
        let barrier = std::sync::Barrier::new(8);
        let mut held: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        let t = index::current();
                        barrier.wait();
                        t.expect("fewer than INDICES threads")
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        held.sort_unstable();
        held.dedup();
        assert_eq!(held.len(), 8);
    }
}
