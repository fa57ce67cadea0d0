//! When a generation is full: the load it grows at, checked on a sample
//! of buckets around an insert's pair before the whole count, and the
//! sample's answer reused while it is clearly short of that load.

use super::*;

impl<const B: usize> Growable<B> {
    /// True if generation `g` holds the load it grows at: checked on a
    /// sample of buckets around `i1` and `i2` first (the count is summed
    /// over every stripe, so it is read only when the sample says so),
    /// then on the whole count.
    ///
    /// Past [`PREPARE_AT`] of that load (by the same sample), it also
    /// takes its turn preparing the next generation.
    ///
    /// An insert that finds its pair full asks this every time (at 8x, one
    /// insert in seven), and a sample costs about 1,240 instructions with
    /// packed slots (16 buckets; 4,540 with the 64 read before). So a
    /// thread that sampled the generation clearly short of that load (under
    /// [`SURE_SHORT`] of it) takes that answer again for its next
    /// [`SAMPLE_REUSE`] asks without sampling ([`recent_short`]). Such an
    /// answer, stale by a few inserts, only lets them make room by
    /// displacement instead of growing; near the load every ask samples
    /// anew, so the step comes when it did (tests/it/growable.rs,
    /// `a_generation_takes_its_capacity_before_it_grows`). At 8x
    /// (`examples/growth.rs -- 125000 3 8`, removed after 510b72b, alternating): 166-173 ns an
    /// insert with growth before, 100 after, against 31 for a fixed filter
    /// built for the count; reusing answers near the load too (up to 31
    /// asks) gave 87 but put the step off past its design load. The
    /// lock-free claims (e1f7a86), which replaced the stripes' counts with
    /// this sample, had taken it from 78 ns to 166.
    #[cold]
    pub(super) fn near_full(&self, g: &Generation<B>, i1: usize, i2: usize) -> bool {
        if recent_short(g) {
            return false;
        }
        let load = g.grow_load;
        let whole = || g.table.len() as f64 / (g.buckets() * B) as f64;
        let (sampled, exact) = match (g.table.sample_load(i1), g.table.sample_load(i2)) {
            (Some((n1, s1)), Some((n2, s2))) => ((n1 + n2) as f64 / (s1 + s2) as f64, false),
            // A small table: its count is as cheap as a sample.
            _ => (whole(), true),
        };
        if sampled >= PREPARE_AT * load {
            self.prepare_next(g);
        }
        let full = sampled >= load && (exact || whole() >= load);
        // Only an answer clearly short of the load is reused: near it, the
        // sample's noise would put the step off (each ask is a new draw);
        // and a small table's whole count is as cheap as a sample.
        if !exact && sampled < SURE_SHORT * load {
            remember_short(g);
        }
        full
    }
}

/// How many more times a thread takes a generation's "short of its growth
/// load" without sampling it again ([`Growable::near_full`]).
// Unread under loom, where every ask samples.
#[cfg_attr(cuckoo_nest_loom, allow(dead_code))]
const SAMPLE_REUSE: u32 = 31;

/// A sample under this share of the growth load is reused
/// ([`Growable::near_full`]).
const SURE_SHORT: f64 = 0.8;

#[cfg(not(cuckoo_nest_loom))]
std::thread_local! {
    /// The generation (by address) this thread last sampled short of its
    /// growth load, and how many more asks may take that answer.
    static SHORT: std::cell::Cell<(usize, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// True if this thread sampled `g` short of its growth load within its
/// last [`SAMPLE_REUSE`] asks (counting this one). An address reused by a
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
    // Loom's model threads share one OS thread: every ask samples.
    #[cfg(cuckoo_nest_loom)]
    {
        let _ = g;
        false
    }
}

/// Notes that this thread just sampled `g` short of its growth load.
#[inline]
fn remember_short<const B: usize>(g: &Generation<B>) {
    #[cfg(not(cuckoo_nest_loom))]
    {
        let at = std::ptr::from_ref(g) as usize;
        let _ = SHORT.try_with(|c| c.set((at, SAMPLE_REUSE)));
    }
    #[cfg(cuckoo_nest_loom)]
    let _ = g;
}
