//! The parts of the report, each run and summarised on its progress line: the single-thread
//! figures, space, shuffled lookups, thread scaling, growth, out-of-cache lookups and byte
//! keys; and the keys the single-thread, space and thread parts share.

use cuckoo_nest_bench::keys::Keys;

use crate::cli::{Options, Part};
use crate::figures::{self, Figure, SHUFFLED_IN_CACHE, SHUFFLED_OUT_OF_L3};
use crate::plot::Panel;
use crate::progress::Phase;
use crate::single::{self, Workload};
use crate::sizes::{Sizes, FILL_SETS};
use crate::table::Table;
use crate::{byte_keys, growth, lookups, memory, space, subjects, threads};

/// What the parts read, and the tables and figures they write.
pub struct Report<'a> {
    pub o: &'a Options,
    pub sizes: Sizes,
    /// Lookups per single-thread measurement.
    pub lookups: usize,
    /// The false-positive rate cuckoo-nest's default configuration expects at n: Bloom and
    /// quotient filters are sized for it, so the space columns compare like with like.
    pub fpr_target: f64,
    /// The single-thread, space and thread parts' keys, dropped after the last of them.
    keys: Option<Keys>,
    /// What the parts produce, in report order.
    pub tables: Vec<Table>,
    pub figures: Vec<Figure>,
    /// Plots drawn from data that is not a timed figure: (file, title, panel).
    pub extra_plots: Vec<(&'static str, &'static str, Panel)>,
}

/// Rounds of the out-of-cache byte-key measurement at most, whatever `--reps` says.
const BYTE_KEYS_OUT_OF_CACHE_ROUNDS: usize = 3;

impl Report<'_> {
    pub fn new(o: &Options) -> Report<'_> {
        let mut sizes = Sizes::of(o.mode);
        sizes.memory_mib = o.memory_mib.unwrap_or(sizes.memory_mib);
        let fpr_target = cuckoo_nest::CuckooFilter::with_capacity(o.items)
            .shape()
            .false_positive_rate_at_capacity
            .clamp(1e-9, 0.5);
        Report {
            o,
            sizes,
            lookups: (o.items / 4).max(1000),
            fpr_target,
            keys: None,
            tables: Vec::new(),
            figures: Vec::new(),
            extra_plots: Vec::new(),
        }
    }

    fn figure(&mut self, f: Figure) {
        self.tables.push(f.table());
        self.figures.push(f);
    }

    /// Runs `part`, making the shared keys first where it needs them.
    pub fn run(&mut self, part: Part) -> Result<(), String> {
        if part > Part::Threads {
            self.keys = None;
        } else if self.keys.is_none() {
            self.keys = Some(shared_keys(self.o));
        }
        match part {
            Part::Single => self.single_thread(),
            Part::Space => self.space(),
            Part::Lookups => self.user_lookups(),
            Part::Threads => self.thread_scaling(),
            Part::Growth => self.growth(),
            Part::Memory => self.out_of_cache(),
            Part::ByteKeys => self.byte_keys(),
        }
    }

    fn keys(&self) -> &Keys {
        self.keys
            .as_ref()
            .expect("made for the parts that share them")
    }

    fn single_thread(&mut self) -> Result<(), String> {
        let o = self.o;
        let contenders = subjects::single_contenders(&o.configs, o.items, self.fpr_target, o.seed);
        let fills = o.reps.min(FILL_SETS);
        let phase = Phase::start("single thread", fills as u64);
        let workload = Workload::new(self.keys(), o.items, self.lookups, o.reps);
        let run = single::run(&contenders, &workload, fills, &phase)?;
        let filters = contenders.len();
        phase.finish(&format!("{filters} filters measured side by side"));
        for l in &run.summary {
            eprintln!("          {l}");
        }
        self.tables.push(run.table3);
        run.figures.into_iter().for_each(|f| self.figure(f));
        Ok(())
    }

    /// Bits per item against the false-positive rate, for the first n keys.
    fn space(&mut self) -> Result<(), String> {
        let phase = Phase::start("bits per item against false-positive rate", 1);
        let keys = &self.keys().present[..self.o.items];
        let (table, panel) = space::bits_per_item(keys, self.o.seed);
        self.tables.push(table);
        let title = "Bits per item against the false-positive rate";
        let plot = ("space_bits_per_item.svg", title, panel);
        self.extra_plots.push(plot);
        phase.finish("sizes of every filter at six rates");
        Ok(())
    }

    /// Shuffled hit/miss lookups (in cache, out of L3) and lookups beside a writer.
    fn user_lookups(&mut self) -> Result<(), String> {
        let (o, s) = (self.o, &self.sizes);
        let phase = Phase::start("shuffled lookups", 3);
        let rounds = 2 * o.reps + 1;
        let seed = o.seed ^ 0x5111_FF1E;
        let (lookups, threads, out_of_l3) = (s.shuffled_lookups, o.threads, s.out_of_l3_items);
        let in_cache = &lookups::SHUFFLED_SHARES[..];
        let mut runs = vec![(&SHUFFLED_IN_CACHE, s.shuffled_items, in_cache, rounds, seed)];
        if let Some(items) = out_of_l3 {
            runs.push((&SHUFFLED_OUT_OF_L3, items, &[0.5], o.reps, seed ^ 1));
        }
        for (spec, items, shares, rounds, seed) in runs {
            let fig =
                lookups::shuffled(spec, items, shares, lookups, rounds, seed, threads, &phase)?;
            self.figure(fig);
        }
        if out_of_l3.is_none() {
            eprintln!("          shuffled lookups out of L3: skipped in this mode");
        }
        let fig = lookups::beside_writer(o.items, lookups, rounds, seed ^ 2, threads, &phase)?;
        let slowdown = fig.ratio(figures::BESIDE_WRITER.ratios[0], 0);
        self.figure(fig);
        let slowdown = slowdown.map_or(0.0, |s| s.median);
        phase.finish(&format!(
            "lookups beside a writer: {slowdown:.2}x slower than alone"
        ));
        Ok(())
    }

    fn thread_scaling(&mut self) -> Result<(), String> {
        let o = self.o;
        // Two-thread cells move most from run to run (the second vCPU of a shared host is the
        // one most often busy elsewhere): more rounds for the four scaling figures, whose
        // measurements are short. The large fill builds a fresh filter per measurement and
        // keeps `reps`.
        let rounds = 2 * o.reps + 1;
        let counts = threads::thread_counts(o.threads);
        let units = rounds * threads::Job::ALL.len() + o.reps;
        let phase = Phase::start("thread scaling", units as u64);
        let figs = threads::run(
            self.keys(),
            o.items,
            &counts,
            self.fpr_target,
            rounds,
            &phase,
        )?;
        figs.into_iter().for_each(|f| self.figure(f));
        let items = self.sizes.large_fill_items;
        let fill = threads::large_fill(items, o.threads, o.reps, o.seed, &phase)?;
        let vs_machine = fill.ratio(figures::Ratio::ScalingVs { line: "machine" }, 0);
        self.figure(fill);
        phase.finish(&format!(
            "threads {counts:?}; large fill at {} threads: {:.2} of the machine's scaling",
            o.threads,
            vs_machine.map_or(0.0, |s| s.median)
        ));
        Ok(())
    }

    /// What growth costs from C to 64C items: a growable filter against filters built for
    /// each count and against the peer that grows.
    fn growth(&mut self) -> Result<(), String> {
        let (o, s) = (self.o, &self.sizes);
        let phase = Phase::start("growth", o.reps as u64);
        let seed = o.seed ^ 0x6120_3717;
        let (first, lookups, absent) = (s.growth_first, s.growth_lookups, s.growth_absent);
        let run = growth::run(first, lookups, absent, o.reps, seed, &phase)?;
        phase.finish(&run.summary);
        run.figures.into_iter().for_each(|f| self.figure(f));
        self.tables.push(run.fpr);
        Ok(())
    }

    fn out_of_cache(&mut self) -> Result<(), String> {
        let (o, s) = (self.o, &self.sizes);
        let phase = Phase::start("cache-line rate", 2);
        let (mib, loads) = (s.memory_mib, s.loads);
        let (rates, mut buffer) = memory::line_rates(mib, loads, o.reps, &phase)?;
        phase.finish(&format!(
            "{:.0} M random 64-B lines/s on one core (2 MiB pages), {:.0} M/s (4 KiB pages); \
             latency {:.0} ns",
            rates.huge_pages / 1e6,
            rates.small_pages / 1e6,
            rates.latency_ns_huge
        ));
        let phase = Phase::start("out-of-cache lookups", 3);
        let (lookups, threads) = (s.oc_lookups, o.threads);
        let oc = memory::out_of_cache(
            mib,
            0.5,
            lookups,
            threads,
            o.reps,
            o.seed,
            &mut buffer,
            loads,
            &phase,
        )?;
        drop(buffer);
        phase.finish(&format!(
            "{:.0} MiB filter: {:.1} M negative lookups/s on one core = {:.0}% of the {:.1} M/s \
             bound ({:.0}% batched)",
            oc.filter_mib,
            oc.negative_1,
            oc.negative_pct.map_or(f64::NAN, |s| s.median),
            oc.lines_per_s / 2e6,
            oc.negative_batched_pct.map_or(f64::NAN, |s| s.median)
        ));
        self.tables.push(memory::table(&rates, &oc));
        Ok(())
    }

    /// Lookups and inserts of 8- to 64-byte keys beside u64 keys, in cache and out of cache.
    fn byte_keys(&mut self) -> Result<(), String> {
        let (o, s) = (self.o, &self.sizes);
        let (n, l) = s.byte_keys_in_cache;
        let mut at = vec![(n, l, 2 * o.reps + 1, "in cache")];
        // Out of cache every round refills 25 filters of 20M keys (about 90 s on a quiet
        // 2-vCPU host, where the rest of the report takes about 150 s): at most
        // `BYTE_KEYS_OUT_OF_CACHE_ROUNDS` rounds there, the fewest that give a median and a
        // range.
        if let Some((n, l)) = s.byte_keys_out_of_cache {
            let rounds = o.reps.clamp(1, BYTE_KEYS_OUT_OF_CACHE_ROUNDS);
            at.push((n, l, rounds, "out of cache"));
        }
        let tables = byte_keys::byte_keys(&at, self.fpr_target, o.seed ^ 0xB7E5)?;
        self.tables.extend(tables);
        Ok(())
    }
}

fn shared_keys(o: &Options) -> Keys {
    let phase = Phase::start("keys", 1);
    // Twice n inserted keys: enough to fill any cuckoo filter sized for n until it fails.
    let keys = Keys::generate(o.seed, 2 * o.items + 1024, o.items);
    let (present, absent) = (keys.present.len(), keys.absent.len());
    phase.finish(&format!("{present} keys to insert, {absent} absent keys"));
    keys
}
