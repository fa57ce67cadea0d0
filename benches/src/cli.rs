//! Command-line options of the report, parsed on `lexopt`: `--help` lists every option, and a
//! bad value ends with a clear message and exit code 2, never a panic.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::Parser;

use crate::plot::Rgb;

/// A cuckoo-nest configuration to measure next to the peers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NestConfig {
    /// `CuckooFilter::with_capacity(n)`: the crate's default (4 entries per bucket, 16-bit fingerprints).
    Default,
    /// `Shape(b, f)`: `builder().bucket_size(b).fingerprint_bits(f)`.
    Shape(usize, u32),
    /// `SemiSorted(f)`: `builder().bucket_size(4).fingerprint_bits(f).semi_sorted(true)`.
    SemiSorted(u32),
    /// `builder().false_positive_rate(p)`: the crate picks the shape.
    FalsePositiveRate(f64),
}

impl NestConfig {
    /// Short label used in table rows and plot legends.
    pub fn label(&self) -> String {
        match self {
            Self::Default => "cuckoo-nest default (4x16)".to_string(),
            Self::Shape(b, f) => format!("cuckoo-nest {b}x{f}"),
            Self::SemiSorted(f) => format!("cuckoo-nest semi-sorted 4x{f}"),
            Self::FalsePositiveRate(p) => format!("cuckoo-nest fpr={p}"),
        }
    }

    /// The configuration's colour in every plot: the default red (the line to find), the
    /// paper's shapes their own colours, anything else one derived from its shape. No two
    /// of the default figures' lines share a hue family, and each also has its own marker
    /// shape (plot.rs), so the pairs colour-blind readers confuse stay apart.
    pub fn color(&self) -> Rgb {
        match *self {
            Self::Default => Rgb(0xd6, 0x27, 0x28),
            Self::Shape(4, 8) => Rgb(0x8c, 0x56, 0x4b),
            Self::Shape(2, 16) => Rgb(0xe6, 0x9f, 0x00),
            Self::Shape(8, 16) => Rgb(0x99, 0x99, 0x33),
            Self::Shape(4, 12) => Rgb(0x44, 0xaa, 0x99),
            Self::Shape(b, f) => Rgb(40 + (b * 53 % 180) as u8, 60 + (f * 29 % 160) as u8, 170),
            Self::SemiSorted(_) => Rgb(0x88, 0x22, 0x55),
            Self::FalsePositiveRate(_) => Rgb(0x17, 0xbe, 0xcf),
        }
    }
}

/// A part of the report, as `--only` names it; the report runs them in this order: Table 3 and
/// Figures 5 to 8; bits per item against the false-positive rate; shuffled lookups in and out of
/// L3, lookups beside a writer; thread scaling and the large fill; a growable filter from C to 64C
/// against filters built for the count; the cache-line rate and out-of-cache lookups; lookups and
/// inserts of 8- to 64-byte keys beside u64 keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Single,
    Space,
    Lookups,
    Threads,
    Growth,
    Memory,
    ByteKeys,
}

impl Part {
    pub const ALL: [Part; 7] = {
        use Part::*;
        [Single, Space, Lookups, Threads, Growth, Memory, ByteKeys]
    };

    /// The name `--only` takes.
    pub fn name(self) -> &'static str {
        match self {
            Part::Single => "single",
            Part::Space => "space",
            Part::Lookups => "lookups",
            Part::Threads => "threads",
            Part::Growth => "growth",
            Part::Memory => "memory",
            Part::ByteKeys => "byte-keys",
        }
    }
}

/// How big the run is: sets `--items`' default and the other sizes (sizes.rs), which index
/// their `[default, quick, tiny]` values by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    Default,
    Quick,
    Tiny,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    /// Capacity every filter is sized for (the paper's n).
    pub items: usize,
    /// Highest thread count of the scaling runs.
    pub threads: usize,
    pub configs: Vec<NestConfig>,
    pub out: PathBuf,
    /// Interleaved rounds of every measurement; the median is reported with min and max.
    pub reps: usize,
    /// Size of the random-load buffer and of the out-of-cache cuckoo-nest filter, if set.
    pub memory_mib: Option<usize>,
    pub seed: u64,
    /// The parts to run (`--only`), in report order.
    pub parts: Vec<Part>,
}

impl Options {
    pub fn runs(&self, part: Part) -> bool {
        self.parts.contains(&part)
    }
}

/// The default, the paper's shapes (4x8; Table 3's 4x12 and semi-sorted 4x13) and the other
/// bucket sizes.
pub const DEFAULT_CONFIGS: &str = "default,4x8,4x12,ss4x13,2x16,8x16";

pub fn help_text() -> String {
    format!(
        "\
report: the cuckoo-nest throughput report (Fan et al., CoNEXT 2014, Table 3 and Figures 5-8),
for cuckoo-nest and the crates.io filters a user would otherwise pick, measured on this machine.

USAGE:
    cargo run --release -p cuckoo-nest-bench -- [OPTIONS]

OPTIONS:
    --items N              capacity every filter is sized for [default: 2097152; --quick: 524288;
                           --tiny: 20000]
    --threads N            highest thread count of the scaling runs [default: all cores ({cores})]
    --configs LIST         cuckoo-nest configurations, comma-separated: `default`, `BxF` with
                           B in 2,4,8 entries per bucket and F in 4..=32 fingerprint bits (e.g.
                           4x8), `ss4xF` (semi-sorted) or `fpr=P` (false-positive target)
                           [default: {DEFAULT_CONFIGS}]
    --out DIR              folder for CSV files, SVG plots and report.md [default: report-out]
    --quick                a smaller run of about half a minute
    --tiny                 a run of a second or two, for tests (numbers are not meaningful)
    --reps N               interleaved rounds of every measurement (each round measures every
                           filter once), median reported with min and max; single-thread
                           fills and deletes use min(N, 3) sets of filters, byte keys out of
                           cache min(N, 3) rounds; shuffled lookups, lookups beside a writer
                           and byte keys in cache take 2N+1 rounds [default: 5; --tiny: 1]
    --memory-mib N         size of the random cache-line load buffer and of the out-of-cache
                           cuckoo-nest filter: set it above the last-level cache of a large
                           server [default: 256; --quick: 128; --tiny: 4]
    --seed N               seed of the key generator [default: 2014]
    --only LIST            run only these parts, comma-separated: {parts}
                           [default: all of them]
    -h, --help             print this help
",
        cores = available_cores(),
        parts = Part::ALL.map(Part::name).join(", ")
    )
}

pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The options the command line asks for; `None` for `--help`.
pub fn parse<I>(args: I) -> Result<Option<Options>, String>
where
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    use lexopt::prelude::*;
    let mut parser = Parser::from_args(args);
    let mut mode = Mode::Default;
    let (mut items, mut threads, mut reps) = (None, None, None);
    let mut configs = DEFAULT_CONFIGS.to_string();
    let mut out = PathBuf::from("report-out");
    let mut memory_mib = None;
    let mut seed = 2014;
    let mut parts = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => return Ok(None),
            // --tiny wins over --quick, in either order.
            Long("quick") => mode = mode.max(Mode::Quick),
            Long("tiny") => mode = Mode::Tiny,
            Long("items") => items = Some(number(&mut parser, "--items", 1000, 1 << 32)?),
            Long("threads") => threads = Some(number(&mut parser, "--threads", 1, 1024)?),
            Long("configs") => configs = text(&mut parser, "--configs")?,
            Long("out") => out = PathBuf::from(parser.value().map_err(|e| e.to_string())?),
            Long("reps") => reps = Some(number(&mut parser, "--reps", 1, 101)?),
            Long("memory-mib") => memory_mib = Some(number(&mut parser, "--memory-mib", 1, 65536)?),
            Long("seed") => seed = number(&mut parser, "--seed", 0, usize::MAX)? as u64,
            Long("only") => parts = Some(parse_parts(&text(&mut parser, "--only")?)?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(Options {
        mode,
        items: items.unwrap_or([1 << 21, 1 << 19, 20_000][mode as usize]),
        threads: threads.unwrap_or_else(available_cores),
        configs: parse_configs(&configs)?,
        out,
        reps: reps.unwrap_or([5, 5, 1][mode as usize]),
        memory_mib,
        seed,
        parts: parts.unwrap_or_else(|| Part::ALL.to_vec()),
    }))
}

fn text(parser: &mut Parser, name: &str) -> Result<String, String> {
    let v = parser.value().map_err(|e| e.to_string())?;
    v.into_string()
        .map_err(|v| format!("invalid value {v:?} for {name}: not valid UTF-8"))
}

/// `name`'s value: a whole number from `min` to `max`, `_` separators allowed.
fn number(parser: &mut Parser, name: &str, min: usize, max: usize) -> Result<usize, String> {
    let v = text(parser, name)?;
    let n = v.replace('_', "").parse().ok();
    let n = n.filter(|n| (min..=max).contains(n));
    n.ok_or_else(|| {
        format!("invalid value '{v}' for {name}: expected a whole number from {min} to {max}")
    })
}

/// The distinct items of `flag`'s comma-separated list, in the order given; at least one.
fn list<T: PartialEq>(
    text: &str,
    flag: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let item = parse(item)?;
        if !out.contains(&item) {
            out.push(item);
        }
    }
    (!out.is_empty())
        .then_some(out)
        .ok_or_else(|| format!("{flag} needs at least one item"))
}

/// `--only`'s list, kept in report order whatever order it is given in.
fn parse_parts(text: &str) -> Result<Vec<Part>, String> {
    let mut parts = list(text, "--only", |token| {
        let part = Part::ALL.into_iter().find(|p| p.name() == token);
        let names = Part::ALL.map(Part::name).join(", ");
        part.ok_or_else(|| format!("invalid part '{token}' in --only: expected {names}"))
    })?;
    // Part's order is the report's.
    parts.sort();
    Ok(parts)
}

/// `--configs`' list, each configuration measured once.
fn parse_configs(text: &str) -> Result<Vec<NestConfig>, String> {
    list(text, "--configs", |token| {
        parse_config(token).ok_or_else(|| {
            format!(
                "invalid configuration '{token}' in --configs: expected `default`, `BxF` with B \
                 in 2,4,8 and F in 4..=32 (e.g. 4x12), `ss4xF` (semi-sorted) or `fpr=P` with P \
                 between 0 and 1"
            )
        })
    })
}

/// One `default`, `fpr=P`, `ss4xF` or `BxF` token of `--configs`.
fn parse_config(token: &str) -> Option<NestConfig> {
    let bits = |f: &str| f.parse::<u32>().ok().filter(|f| (4..=32).contains(f));
    if token == "default" {
        Some(NestConfig::Default)
    } else if let Some(p) = token.strip_prefix("fpr=") {
        let p = p.parse().ok().filter(|p| *p > 0.0 && *p < 1.0);
        p.map(NestConfig::FalsePositiveRate)
    } else if let Some(f) = token.strip_prefix("ss4x") {
        Some(NestConfig::SemiSorted(bits(f)?))
    } else {
        let (b, f) = token.split_once('x')?;
        let b = b.parse().ok().filter(|b| [2, 4, 8].contains(b))?;
        Some(NestConfig::Shape(b, bits(f)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Options, String> {
        parse(args.iter().copied())?.ok_or_else(|| "help".into())
    }

    #[test]
    fn defaults_and_modes() {
        let o = run(&[]).unwrap();
        assert_eq!(
            (o.mode, o.items, o.configs.len()),
            (Mode::Default, 1 << 21, 6)
        );
        assert!(o.configs.contains(&NestConfig::SemiSorted(13)));
        let o = run(&["--tiny", "--items", "30_000", "--threads=3", "--quick"]).unwrap();
        assert_eq!((o.mode, o.items, o.threads), (Mode::Tiny, 30_000, 3));
        let o = run(&["--configs", "default,fpr=0.01,4x8,default"]).unwrap();
        assert_eq!(o.configs.len(), 3);
    }

    #[test]
    fn only_keeps_report_order() {
        assert_eq!(run(&[]).unwrap().parts, Part::ALL.to_vec());
        let o = run(&["--only", "growth,single"]).unwrap();
        assert_eq!(o.parts, vec![Part::Single, Part::Growth]);
        assert!(o.runs(Part::Growth) && !o.runs(Part::Memory));
    }
}
