//! What the run writes: the report's header, the tables and figures the parts produce (in
//! report order), and their markdown on stdout, CSV files, SVG plots and report.md.

use std::fmt::Write as _;
use std::path::Path;

use crate::cli::{Mode, Part};
use crate::env::{self, Busy};
use crate::figures;
use crate::parts::Report;
use crate::plot;
use crate::progress::Phase;
use crate::sizes::FILL_SETS;
use crate::table::{self, Format};

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
        let path = o.out.join(file);
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
