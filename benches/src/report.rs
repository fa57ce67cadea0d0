//! What the parts read (options, sizes, shared keys) and the tables and figures they produce,
//! in report order; the report's header, and its markdown on stdout, CSV files, SVG plots and
//! report.md. The parts take a [`Report`] and main.rs runs them, so no part is imported here.

use std::fmt::Write as _;
use std::path::Path;

use cuckoo_nest_bench::keys::Keys;

use crate::cli::{Mode, Options, Part};
use crate::env::{self, Busy};
use crate::figures::{self, Figure};
use crate::plot::{self, Panel};
use crate::progress::Phase;
use crate::sizes::{Sizes, FILL_SETS};
use crate::table::{self, Format, Table};

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
    pub tables: Vec<Table>,
    pub figures: Vec<Figure>,
    /// Plots drawn from data that is not a timed figure: (file without `.svg`, title, panel).
    pub extra_plots: Vec<(&'static str, &'static str, Panel)>,
}

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

    /// Adds a measured figure and its table.
    pub fn figure(&mut self, f: Figure) {
        self.tables.push(f.table());
        self.figures.push(f);
    }

    /// Makes the keys `part` shares with the other parts before it runs, or drops them once
    /// no part after it needs them.
    pub fn keys_for(&mut self, part: Part) {
        if part > Part::Threads {
            self.keys = None;
        } else if self.keys.is_none() {
            let phase = Phase::start("keys", 1);
            // Twice n inserted keys: enough to fill any cuckoo filter sized for n until it fails.
            let (seed, n) = (self.o.seed, self.o.items);
            let keys = Keys::generate(seed, 2 * n + 1024, n);
            let (present, absent) = (keys.present.len(), keys.absent.len());
            phase.finish(&format!("{present} keys to insert, {absent} absent keys"));
            self.keys = Some(keys);
        }
    }

    /// The keys the single-thread, space and thread parts share.
    pub fn keys(&self) -> &Keys {
        self.keys
            .as_ref()
            .expect("made for the parts that share them")
    }
}

pub fn header(r: &Report, before: &Busy) -> String {
    let o = r.o;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut command = "cargo run --release -p cuckoo-nest-bench".to_string();
    if !args.is_empty() {
        command = format!("{command} -- {}", args.join(" "));
    }
    let mut h = vec![
        "# cuckoo-nest throughput report\n".to_string(),
        format!("- command: `{command}`"),
        format!("- machine: {}", env::machine()),
        format!("- before the run: {}", before.describe()),
    ];
    if o.parts != Part::ALL {
        let parts: Vec<&str> = o.parts.iter().map(|p| p.name()).collect();
        h.push(format!("- parts run (`--only`): {}", parts.join(", ")));
    }
    // n, the peers' target and the single-thread rounds are those parts' settings; the growth
    // and memory figures give their own sizes.
    if o.parts.iter().any(|&p| p <= Part::Threads) {
        h.push(format!(
            "- n = {} items: every filter is sized for n; keys are u64 from splitmix64 (seed \
             {}), hashed by each filter through its own `&T: Hash` API",
            table::format_value(o.items as f64, Format::Count),
            o.seed
        ));
        h.push(format!(
            "- Bloom (fastbloom) and quotient (qfilter) filters sized for n at a {:.4}% \
             false-positive target, the rate cuckoo-nest's default (4x16) expects",
            r.fpr_target * 100.0
        ));
    }
    h.push(if o.runs(Part::Single) {
        format!(
            "- {} lookups per measurement, {} interleaved rounds ({} sets of filters filled \
             for Figures 7 and 8 and Table 3's construction rate); M ops/s = million \
             operations per second",
            table::format_value(r.lookups as f64, Format::Count),
            o.reps,
            o.reps.min(FILL_SETS),
        )
    } else {
        let reps = o.reps;
        format!("- {reps} interleaved rounds; M ops/s = million operations per second")
    });
    if o.mode == Mode::Tiny {
        h.push("- TINY MODE: a smoke test, the numbers mean nothing".to_string());
    }
    h.join("\n") + "\n"
}

pub fn write_outputs(out: &Report, header: &str, footer: &str) -> Result<(), String> {
    let o = out.o;
    let phase = Phase::start("tables and plots", 1);
    let mut report = format!("{header}\n");
    for t in &out.tables {
        let md = t.markdown();
        println!("{md}");
        report.push_str(&md);
        report.push('\n');
        write_file(&o.out.join(format!("{}.csv", t.name)), &t.csv())?;
    }
    println!("{footer}");
    let figures = figures::plots(&out.figures);
    let figures = figures.iter().map(|(f, t, p)| (*f, *t, p.as_slice()));
    let extra = (out.extra_plots.iter()).map(|(f, t, p)| (*f, *t, std::slice::from_ref(p)));
    let plots: Vec<_> = figures.chain(extra).collect();
    report.push_str("### Plots\n\nError bars: the slowest and the fastest round.\n\n");
    for &(file, title, panels) in &plots {
        let file = format!("{file}.svg");
        let path = o.out.join(&file);
        plot::draw(&path, title, panels).map_err(|e| format!("plot {}: {e}", path.display()))?;
        let _ = writeln!(report, "![{file}]({file})\n");
    }
    let _ = writeln!(report, "{footer}");
    write_file(&o.out.join("report.md"), &report)?;
    phase.finish(&format!(
        "{} CSV files, {} SVG plots and report.md in {}",
        out.tables.len(),
        plots.len(),
        o.out.display()
    ));
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
