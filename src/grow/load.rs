//! When a generation is full: the load it grows at, checked on the count,
//! and the answer reused while it is clearly short of that load.

use super::*;

impl<const B: usize> Growable<B> {
    /// True if generation `g` holds the load it grows at, by its count.
    /// Past [`PREPARE_AT`] of that load it also takes its turn preparing
    /// the next generation.
    ///
    /// An insert that finds its pair full asks this every time (at 8x, one
    /// insert in seven). The count reads one counter per thread that has
    /// counted (`table/counts.rs`): a few loads with a few threads, but a
    /// line another core writes for each thread, so a thread that found
    /// the generation clearly short of that load (under [`SURE_SHORT`] of
    /// it) takes that answer again for its next [`ANSWER_REUSE`] asks
    /// ([`recent_short`]), except in a small table, where 31 asks could
    /// span the rest of the way. Such an answer, stale by a few inserts,
    /// only lets them make room by displacement instead of growing; near
    /// the load every ask counts anew, so the step comes when it should
    /// (tests/it/growable.rs, `a_generation_takes_its_capacity_before_it_grows`).
    ///
    /// History: the count once summed every stripe's counter (1,024 for a
    /// large table), so this asked a sample of 16 buckets around the pair
    /// first (about 1,240 instructions with packed slots); that sample,
    /// the count after it and the reuse took 122 of the 1,209 instructions
    /// of an insert at 8x (docs/benchmarks.md, "Growth").
    #[cold]
    pub(super) fn near_full(&self, g: &Generation<B>) -> bool {
        if recent_short(g) {
            return false;
        }
        let load = g.grow_load;
        let filled = g.table.len() as f64 / (g.buckets() * B) as f64;
        if filled >= PREPARE_AT * load {
            self.prepare_next(g);
        }
        if filled < SURE_SHORT * load && g.buckets() >= REUSE_FROM_BUCKETS {
            remember_short(g);
        }
        filled >= load
    }
}

/// The smallest table whose "short of its growth load" a thread reuses
/// ([`Growable::near_full`]).
const REUSE_FROM_BUCKETS: usize = 32;

/// How many more times a thread takes a generation's "short of its growth
/// load" without counting it again ([`Growable::near_full`]).
// Unread under loom, where every ask counts.
#[cfg_attr(cuckoo_nest_loom, allow(dead_code))]
const ANSWER_REUSE: u32 = 31;

/// A count under this share of the growth load is reused
/// ([`Growable::near_full`]).
const SURE_SHORT: f64 = 0.8;

#[cfg(not(cuckoo_nest_loom))]
std::thread_local! {
    /// The generation (by address) this thread last counted short of its
    /// growth load, and how many more asks may take that answer.
    static SHORT: std::cell::Cell<(usize, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// True if this thread counted `g` short of its growth load within its
/// last [`ANSWER_REUSE`] asks (counting this one). An address reused by a
/// later generation can only make a few of its inserts displace instead of
/// grow, never grow early.
#[inline]
fn recent_short<const B: usize>(g: &Generation<B>) -> bool {
    #[cfg(not(cuckoo_nest_loom))]
    {
        let at = std::ptr::from_ref(g) as usize;
        SHORT
            .try_with(|c| match c.get() {
                (seen, left) if seen == at && left > 0 => {
                    c.set((seen, left - 1));
                    true
                }
                _ => false,
            })
            .unwrap_or(false)
    }
    // Loom's model threads share one OS thread: every ask counts.
    #[cfg(cuckoo_nest_loom)]
    {
        let _ = g;
        false
    }
}

/// Notes that this thread just counted `g` short of its growth load.
#[inline]
fn remember_short<const B: usize>(g: &Generation<B>) {
    #[cfg(not(cuckoo_nest_loom))]
    {
        let at = std::ptr::from_ref(g) as usize;
        let _ = SHORT.try_with(|c| c.set((at, ANSWER_REUSE)));
    }
    #[cfg(cuckoo_nest_loom)]
    let _ = g;
}
