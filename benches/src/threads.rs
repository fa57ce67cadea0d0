//! Thread scaling: one filter shared by 1..=N threads (`std::thread::scope`), aggregate ops/s,
//! through the [`Shared`] adapter.
//!
//! cuckoo-nest and fastbloom's `AtomicBloomFilter` are shared by `&`; the `cuckoofilter` crate
//! inserts through `&mut self`, so it is shared in a `Mutex` and in an `RwLock`. Beside them, the
//! machine: one random atomic `fetch_or` per key into a `u64` array the size of the default
//! cuckoo-nest table, the same random memory traffic with no filter around it, so a filter's
//! speedup can be read against the machine's. Each round runs every job once for every
//! contender (rotated), at every thread count back to back (ascending, then descending).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LockResult, Mutex, PoisonError, RwLock};

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::{mix64, present_key};
use cuckoo_nest_bench::stats::{mops, rotated};

use crate::cli::NestConfig;
use crate::figures::{
    thread_axis, Figure, FigureSpec, Ratio, THREADS_FILL, THREADS_INSERTS, THREADS_LOOKUPS,
    THREADS_MIXED_50, THREADS_MIXED_90,
};
use crate::plot::Rgb;
use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{chunk, timed_threads, Peer, BLOOM_COLOR, CUCKOOFILTER_COLOR};

/// Fill levels of the scaling runs, as fractions of n.
pub const LOOKUP_FILL: f64 = 0.9;
pub const MIXED_FILL: f64 = 0.4;
pub const INSERT_FILL: f64 = 0.8;
/// The large fill (writers' scaling): share of its capacity inserted.
pub const LARGE_FILL: f64 = 0.9;
/// Share of the scaling lookups, and of the mixed runs' reads, that hit.
const POSITIVE_FRACTION: f64 = 0.5;

/// What a scaling figure measures; `Mixed(p)`: lookups, and one insert every `p` operations.
#[derive(Clone, Copy)]
enum Job {
    Lookups,
    Inserts,
    Mixed(usize),
}

/// The four scaling figures: each job and its figure.
static JOBS: [(Job, &FigureSpec); 4] = [
    (Job::Lookups, &THREADS_LOOKUPS),
    (Job::Inserts, &THREADS_INSERTS),
    (Job::Mixed(10), &THREADS_MIXED_90),
    (Job::Mixed(2), &THREADS_MIXED_50),
];

impl Job {
    fn note(self) -> String {
        let pct = |f: f64| f * 100.0;
        match self {
            Job::Lookups => format!(
                "Filter at {:.0}% of n; {:.0}% of lookups hit; aggregate over all threads.",
                pct(LOOKUP_FILL),
                pct(POSITIVE_FRACTION)
            ),
            Job::Inserts => format!(
                "Empty filter filled to {:.0}% of n, keys split between threads.",
                pct(INSERT_FILL)
            ),
            Job::Mixed(write_period) => format!(
                "Filter at {:.0}% of n; one operation in {write_period} inserts a new key; {:.0}% of lookups hit.",
                pct(MIXED_FILL),
                pct(POSITIVE_FRACTION)
            ),
        }
    }
}

/// One filter shared by all threads of a scaling run.
pub trait Shared: Sync {
    fn insert_key(&self, key: &u64) -> bool;
    fn contains_key(&self, key: &u64) -> bool;

    fn count_hits(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.contains_key(k)).count()
    }

    fn insert_all(&self, keys: &[u64]) -> usize {
        keys.iter().filter(|k| self.insert_key(k)).count()
    }

    /// `ops` operations: every `write_period`-th one inserts the next key of `writes`, the others
    /// look up the next key of `reads` (cycling). Returns hits plus successful inserts, so the
    /// work cannot be optimised away.
    fn mixed(&self, ops: usize, write_period: usize, reads: &[u64], writes: &[u64]) -> usize {
        let (mut r, mut w, mut acc) = (0, 0, 0);
        for i in 0..ops {
            if i % write_period == write_period - 1 && w < writes.len() {
                acc += usize::from(self.insert_key(&writes[w]));
                w += 1;
            } else {
                acc += usize::from(self.contains_key(&reads[r]));
                r += 1;
                if r == reads.len() {
                    r = 0;
                }
            }
        }
        acc
    }
}

/// A panicking measurement thread ends the run anyway; the filter inside is still usable.
#[inline]
fn unpoisoned<G>(guard: LockResult<G>) -> G {
    guard.unwrap_or_else(PoisonError::into_inner)
}

/// Builds a contender's filter for n items (at a false-positive rate, with a seed, where asked).
type Build = fn(usize, f64, u64) -> Box<dyn Shared>;

/// Every contender, in line order: its line's label and colour, its filter's type, how the filter
/// is built (from `n`, the false-positive rate and the seed), and `Shared` for the type: its
/// insert, then its lookup, of the key `k` into the filter `f`. The last, the reference, is the
/// machine's own scaling for the same random memory traffic.
macro_rules! contenders {
    ($($label:literal, $color:expr, $t:ty: |$($arg:pat_param),*| $build:expr,
        |$f:ident, $k:ident| $insert:expr, $contains:expr;)*) => {
        $(impl Shared for $t {
            #[inline]
            fn insert_key(&self, $k: &u64) -> bool {
                let $f = self;
                $insert
            }
            #[inline]
            fn contains_key(&self, $k: &u64) -> bool {
                let $f = self;
                $contains
            }
        })*

        fn contenders() -> [(&'static str, Rgb, Build); 5] {
            [$(($label, $color, |$($arg),*| Box::new($build))),*]
        }
    };
}

contenders! {
    "cuckoo-nest default (4x16), shared by &", NestConfig::Default.color(), Nest:
        |n, _, _| Nest::with_capacity(n), |f, k| f.insert(k).is_ok(), f.contains(k);
    "cuckoofilter in Mutex", CUCKOOFILTER_COLOR, Mutex<Peer>:
        |n, _, _| Mutex::new(Peer::with_capacity(n)),
        |f, k| unpoisoned(f.lock()).add(k).is_ok(), unpoisoned(f.lock()).contains(k);
    "cuckoofilter in RwLock", Rgb(0x39, 0x3b, 0x79), RwLock<Peer>:
        |n, _, _| RwLock::new(Peer::with_capacity(n)),
        |f, k| unpoisoned(f.write()).add(k).is_ok(), unpoisoned(f.read()).contains(k);
    "fastbloom AtomicBloomFilter", BLOOM_COLOR, fastbloom::AtomicBloomFilter:
        |n, fpr, seed| fastbloom::AtomicBloomFilter::with_false_pos(fpr)
            .seed(&u128::from(seed))
            .expected_items(n),
        |f, k| { f.insert(k); true }, f.contains(k);
    "machine: random atomic fetch_or per key (reference)", Rgb(0x7f, 0x7f, 0x7f), MachineTraffic:
        |n, _, _| MachineTraffic::new(n), |f, k| f.touch(*k), f.touch(*k);
}

/// The indices of cuckoo-nest and of the machine in [`contenders`].
const NEST: usize = 0;
const MACHINE: usize = 4;

/// One random atomic `fetch_or` per key into an array of the default filter table's size.
struct MachineTraffic {
    words: Vec<AtomicU64>,
}

impl MachineTraffic {
    /// An array as large as a default cuckoo-nest filter sized for `n` items.
    fn new(n: usize) -> MachineTraffic {
        let bytes = Nest::with_capacity(n).memory_usage();
        let words = (0..(bytes / 8).max(1)).map(|_| AtomicU64::new(0)).collect();
        MachineTraffic { words }
    }

    #[inline]
    fn touch(&self, key: u64) -> bool {
        let h = mix64(key);
        let i = ((h as u128 * self.words.len() as u128) >> 64) as usize;
        let bit = 1u64 << (h & 63);
        self.words[i].fetch_or(bit, Ordering::Relaxed) & bit != 0
    }
}

/// Thread counts measured: every count up to 8, then powers of two, and always `max`.
fn thread_counts(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (1..=max.min(8)).collect();
    v.extend(std::iter::successors(Some(16), |t| Some(t * 2)).take_while(|&t| t < max));
    if !v.contains(&max) {
        v.push(max);
    }
    v
}

/// The thread counts of round `round`: ascending on even rounds, descending on odd ones.
fn alternating(round: usize, counts: usize) -> impl Iterator<Item = usize> {
    (0..counts).map(move |i| [i, counts - 1 - i][round % 2])
}

/// `keys` inserted `passes` times over into `filter`, split between `t` threads: M inserts/s.
fn fill_rate(filter: &dyn Shared, keys: &[u64], t: usize, passes: usize) -> Option<f64> {
    let secs = timed_threads(t, &|k| {
        (0..passes)
            .map(|_| filter.insert_all(chunk(keys, t, k)))
            .sum()
    });
    mops(passes * (keys.len() / t * t), secs)
}

/// An empty scaling figure: a line for each of the contenders `lines`, a column for each thread
/// count.
fn scaling_figure(
    spec: &'static FigureSpec,
    counts: &[usize],
    lines: &[usize],
    note: String,
    n: usize,
) -> Figure {
    let machine_mib = (MachineTraffic::new(n).words.len() * 8) as f64 / (1 << 20) as f64;
    let mut fig = Figure::new(spec, thread_axis(counts))
        .note(note)
        .note(format!(
            "machine: one random atomic fetch_or per key (per operation) into a u64 array of \
             {machine_mib:.1} MiB, the default cuckoo-nest table's size; `speedup / machine's` = \
             the filter's speedup over the machine's in the same round."
        ));
    let all = contenders();
    lines.iter().for_each(|&c| fig.line(all[c].0, all[c].1));
    fig
}

/// The thread-scaling figures and the large fill.
pub fn part(r: &mut Report) -> Result<(), String> {
    let o = r.o;
    // Two-thread cells move most from run to run (the second vCPU of a shared host is the one most
    // often busy elsewhere): more rounds for the four scaling figures, whose measurements are
    // short. The large fill builds a fresh filter per measurement and keeps `reps`.
    let rounds = 2 * o.reps + 1;
    let counts = thread_counts(o.threads);
    let units = rounds * JOBS.len() + o.reps;
    let phase = Phase::start("thread scaling", units as u64);
    let mut figs = run(r, &counts, rounds, &phase);
    let fill = large_fill(r, &phase);
    let vs_machine = fill.ratio(Ratio::ScalingVs("machine"), 0);
    figs.push(fill);
    figs.into_iter().for_each(|f| r.figure(f));
    phase.finish(&format!(
        "threads {counts:?}; large fill at {} threads: {:.2} of the machine's scaling",
        o.threads,
        vs_machine.map_or(0.0, |s| s.median)
    ));
    Ok(())
}

/// The four thread-scaling figures, every contender and the machine side by side.
fn run(r: &Report, counts: &[usize], rounds: usize, phase: &Phase) -> Vec<Figure> {
    let (keys, n, fpr) = (r.keys(), r.o.items, r.fpr_target);
    let lookup_fill = (n as f64 * LOOKUP_FILL) as usize;
    let mixed_fill = (n as f64 * MIXED_FILL) as usize;
    let lookups = keys.queries(n, lookup_fill, POSITIVE_FRACTION, 300);
    let mixed_reads = keys.queries(n, mixed_fill, POSITIVE_FRACTION, 301);
    // One measurement of `job` on `t` threads, in M ops/s. `prefilled` is the contender's
    // filter at `LOOKUP_FILL`, reused by the lookup job; the other jobs build fresh filters.
    let measure = |job, build: Build, t, prefilled: &dyn Shared| match job {
        Job::Lookups => {
            let secs = timed_threads(t, &|k| prefilled.count_hits(chunk(&lookups, t, k)));
            mops(lookups.len() / t * t, secs)
        }
        Job::Inserts => {
            let insert_total = (n as f64 * INSERT_FILL) as usize;
            let filter = build(n, fpr, keys.seed);
            fill_rate(&*filter, &keys.present[..insert_total], t, 1)
        }
        Job::Mixed(write_period) => {
            let filter = build(n, fpr, keys.seed);
            filter.insert_all(&keys.present[..mixed_fill]);
            let per_thread = n / t;
            let writes = &keys.present[mixed_fill..mixed_fill + n / write_period];
            let secs = timed_threads(t, &|k| {
                let (reads, writes) = (chunk(&mixed_reads, t, k), chunk(writes, t, k));
                filter.mixed(per_thread, write_period, reads, writes)
            });
            mops(per_thread * t, secs)
        }
    };
    let all = contenders();
    let lines: Vec<usize> = (0..all.len()).collect();
    let mut figs: Vec<Figure> = (JOBS.iter())
        .map(|(job, spec)| scaling_figure(spec, counts, &lines, job.note(), n))
        .collect();
    phase.message("fill the lookup filters");
    let mut prefilled = Vec::new();
    for (_, _, build) in all {
        let f = build(n, fpr, keys.seed);
        f.insert_all(&keys.present[..lookup_fill]);
        prefilled.push(f);
    }
    for r in 0..rounds.max(1) {
        for (j, (job, spec)) in JOBS.iter().enumerate() {
            phase.message(format!("round {}: {}", r + 1, spec.title));
            for c in rotated(r, all.len()) {
                for i in alternating(r, counts.len()) {
                    let rate = measure(*job, all[c].2, counts[i], &*prefilled[c]);
                    figs[j].lines[c].cells[i].push(r, rate);
                }
            }
            phase.inc();
        }
    }
    figs
}

/// Passes of the machine's reference over the large fill's keys: one pass takes a fifth of a
/// fill's time, and (less exposed to the host's interference) made 2-thread speedups above 2.
const MACHINE_PASSES: usize = 5;

/// Writers' scaling: a default cuckoo-nest filter sized for `items` filled to `LARGE_FILL` on
/// 1 and on `threads` threads, against the machine's scaling for the same keys.
fn large_fill(r: &Report, phase: &Phase) -> Figure {
    let (items, seed, rounds) = (r.sizes.large_fill_items, r.o.seed, r.o.reps);
    let counts = [1, r.o.threads.max(1)];
    let total = (items as f64 * LARGE_FILL) as usize;
    let keys: Vec<u64> = (0..total as u64).map(|i| present_key(seed, i)).collect();
    // (contender, passes over the keys per measurement)
    let lines = [(NEST, 1), (MACHINE, MACHINE_PASSES)];
    let note = format!(
        "An empty default cuckoo-nest filter sized for {items} items filled to {:.0}% with \
         `insert`, keys split between the threads; a fresh filter for every measurement. \
         The machine's reference makes {MACHINE_PASSES} passes over the same keys per \
         measurement, so that it lasts about as long as a fill.",
        LARGE_FILL * 100.0
    );
    let mut fig = scaling_figure(&THREADS_FILL, &counts, &lines.map(|l| l.0), note, items);
    let all = contenders();
    for r in 0..rounds.max(1) {
        phase.message(format!("round {}: fill {total} items", r + 1));
        for c in rotated(r, lines.len()) {
            let (contender, passes) = lines[c];
            for i in alternating(r, counts.len()) {
                let filter = all[contender].2(items, 0.01, seed);
                let rate = fill_rate(&*filter, &keys, counts[i], passes);
                fig.lines[c].cells[i].push(r, rate);
            }
        }
        phase.inc();
    }
    fig
}
