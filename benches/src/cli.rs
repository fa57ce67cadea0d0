//! Command-line options of the report: parsed by hand on top of `lexopt`, so `--help` lists
//! every option and a bad value ends with a clear message and exit code 2, never a panic.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::plot::Rgb;

/// A cuckoo-nest configuration to measure next to the peers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NestConfig {
    /// `CuckooFilter::with_capacity(n)`: the crate's default (4 entries per bucket, 16-bit fingerprints).
    Default,
    /// `builder().bucket_size(b).fingerprint_bits(f)`.
    Shape {
        bucket_size: usize,
        fingerprint_bits: u32,
    },
    /// `builder().bucket_size(4).fingerprint_bits(f).semi_sorted(true)`.
    SemiSorted { fingerprint_bits: u32 },
    /// `builder().false_positive_rate(p)`: the crate picks the shape.
    FalsePositiveRate(f64),
}

impl NestConfig {
    /// Short label used in table rows and plot legends.
    pub fn label(&self) -> String {
        match self {
            NestConfig::Default => "cuckoo-nest default (4x16)".to_string(),
            NestConfig::Shape {
                bucket_size,
                fingerprint_bits,
            } => format!("cuckoo-nest {bucket_size}x{fingerprint_bits}"),
            NestConfig::SemiSorted { fingerprint_bits } => {
                format!("cuckoo-nest semi-sorted 4x{fingerprint_bits}")
            }
            NestConfig::FalsePositiveRate(p) => format!("cuckoo-nest fpr={p}"),
        }
    }

    /// The configuration's colour in every plot: the default red (the line to find), the
    /// paper's shapes their own colours, anything else one derived from its shape. No two
    /// of the default figures' lines share a hue family, and each also has its own marker
    /// shape (plot.rs), so the pairs colour-blind readers confuse stay apart.
    pub fn color(&self) -> Rgb {
        match *self {
            NestConfig::Default => Rgb(0xd6, 0x27, 0x28),
            NestConfig::Shape {
                bucket_size: b,
                fingerprint_bits: f,
            } => match (b, f) {
                (4, 8) => Rgb(0x8c, 0x56, 0x4b),
                (2, 16) => Rgb(0xe6, 0x9f, 0x00),
                (8, 16) => Rgb(0x99, 0x99, 0x33),
                (4, 12) => Rgb(0x44, 0xaa, 0x99),
                _ => Rgb(40 + (b * 53 % 180) as u8, 60 + (f * 29 % 160) as u8, 170),
            },
            NestConfig::SemiSorted { .. } => Rgb(0x88, 0x22, 0x55),
            NestConfig::FalsePositiveRate(_) => Rgb(0x17, 0xbe, 0xcf),
        }
    }
}

/// A part of the report, as `--only` names it; the report runs them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Table 3 and Figures 5 to 8.
    Single,
    /// Bits per item against the false-positive rate.
    Space,
    /// Shuffled lookups in and out of L3, lookups beside a writer.
    Lookups,
    /// Thread scaling and the large fill.
    Threads,
    /// A growable filter from C to 64C against filters built for the count.
    Growth,
    /// The cache-line rate and out-of-cache lookups.
    Memory,
    /// Lookups and inserts of 8- to 64-byte keys beside u64 keys.
    ByteKeys,
}

impl Part {
    pub const ALL: [Part; 7] = [
        Part::Single,
        Part::Space,
        Part::Lookups,
        Part::Threads,
        Part::Growth,
        Part::Memory,
        Part::ByteKeys,
    ];

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

/// How big the run is: sets the defaults that `--items` and `--memory-mib` override.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Share of lookups that hit, in the thread-scaling lookups and in the reads of mixed runs.
    pub positive_fraction: f64,
    pub configs: Vec<NestConfig>,
    pub out: PathBuf,
    /// Interleaved rounds of every measurement; the median is reported with min and max.
    pub reps: usize,
    /// Size of the random-load buffer and of the out-of-cache cuckoo-nest filter.
    pub memory_mib: usize,
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
    --positive-fraction F  share of lookups that hit, in thread-scaling lookups and mixed reads,
                           0..=1 [default: 0.5]
    --configs LIST         cuckoo-nest configurations, comma-separated: `default`, `BxF` with
                           B in 2,4,8 entries per bucket and F in 8,16,32 fingerprint bits (e.g.
                           4x8), `fpr=P` (false-positive target), or `all` (every BxF)
                           [default: {DEFAULT_CONFIGS}]
    --out DIR              folder for CSV files, SVG plots and report.md [default: report-out]
    --quick                a smaller run of about half a minute
    --tiny                 a run of a second or two, for tests (numbers are not meaningful)
    --reps N               interleaved rounds of every measurement (each round measures every
                           filter once), median reported with min and max; single-thread
                           fills and deletes use min(N, 3) sets of filters; shuffled lookups
                           and lookups beside a writer take 2N+1 rounds [default: 5; --tiny: 1]
    --memory-mib N         size of the random cache-line load buffer and of the out-of-cache
                           cuckoo-nest filter [default: 256; --quick: 128; --tiny: 4]
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

/// What the command line asks for.
pub enum Parsed {
    Run(Box<Options>),
    Help,
}

pub fn parse<I>(args: I) -> Result<Parsed, String>
where
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut mode = Mode::Default;
    let mut items = None;
    let mut threads = None;
    let mut positive_fraction = 0.5;
    let mut configs = None;
    let mut out = PathBuf::from("report-out");
    let mut reps = None;
    let mut memory_mib = None;
    let mut seed = 2014;
    let mut parts = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => return Ok(Parsed::Help),
            // --tiny wins over --quick, in either order.
            Long("quick") if mode != Mode::Tiny => mode = Mode::Quick,
            Long("quick") => {}
            Long("tiny") => mode = Mode::Tiny,
            Long("items") => items = Some(number(&mut parser, "--items", 1000, 1 << 32)?),
            Long("threads") => threads = Some(number(&mut parser, "--threads", 1, 1024)?),
            Long("positive-fraction") => {
                let v = text(&mut parser, "--positive-fraction")?;
                positive_fraction = v
                    .parse::<f64>()
                    .ok()
                    .filter(|f| (0.0..=1.0).contains(f))
                    .ok_or_else(|| {
                        format!("invalid value '{v}' for --positive-fraction: expected a number from 0 to 1")
                    })?;
            }
            Long("configs") => {
                let v = text(&mut parser, "--configs")?;
                configs = Some(parse_configs(&v)?);
            }
            Long("out") => {
                out = PathBuf::from(parser.value().map_err(|e| e.to_string())?);
            }
            Long("reps") => reps = Some(number(&mut parser, "--reps", 1, 101)?),
            Long("memory-mib") => memory_mib = Some(number(&mut parser, "--memory-mib", 1, 65536)?),
            Long("seed") => seed = number(&mut parser, "--seed", 0, usize::MAX)? as u64,
            Long("only") => {
                let v = text(&mut parser, "--only")?;
                parts = Some(parse_parts(&v)?);
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    let (d_items, d_reps, d_mib) = match mode {
        Mode::Default => (1 << 21, 5, 256),
        Mode::Quick => (1 << 19, 5, 128),
        Mode::Tiny => (20_000, 1, 4),
    };
    Ok(Parsed::Run(Box::new(Options {
        mode,
        items: items.unwrap_or(d_items),
        threads: threads.unwrap_or_else(available_cores),
        positive_fraction,
        configs: match configs {
            Some(c) => c,
            None => parse_configs(DEFAULT_CONFIGS)?,
        },
        out,
        reps: reps.unwrap_or(d_reps),
        memory_mib: memory_mib.unwrap_or(d_mib),
        seed,
        parts: parts.unwrap_or_else(|| Part::ALL.to_vec()),
    })))
}

fn text(parser: &mut lexopt::Parser, name: &str) -> Result<String, String> {
    let v = parser.value().map_err(|e| e.to_string())?;
    v.into_string()
        .map_err(|v| format!("invalid value {v:?} for {name}: not valid UTF-8"))
}

fn number(
    parser: &mut lexopt::Parser,
    name: &str,
    min: usize,
    max: usize,
) -> Result<usize, String> {
    let v = text(parser, name)?;
    let digits: String = v.chars().filter(|c| *c != '_').collect();
    match digits.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!(
            "invalid value '{v}' for {name}: expected a whole number from {min} to {max}"
        )),
        Err(_) => Err(format!(
            "invalid value '{v}' for {name}: expected a whole number"
        )),
    }
}

/// `--only`'s list, kept in report order whatever order it is given in.
fn parse_parts(list: &str) -> Result<Vec<Part>, String> {
    let mut asked = Vec::new();
    for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        match Part::ALL.into_iter().find(|p| p.name() == token) {
            Some(p) => asked.push(p),
            None => {
                return Err(format!(
                    "invalid part '{token}' in --only: expected {}",
                    Part::ALL.map(Part::name).join(", ")
                ))
            }
        }
    }
    if asked.is_empty() {
        return Err("--only needs at least one part".to_string());
    }
    Ok(Part::ALL
        .into_iter()
        .filter(|p| asked.contains(p))
        .collect())
}

/// One `fpr=P`, `ss4xF` or `BxF` token of `--configs`.
fn parse_config(token: &str) -> Result<NestConfig, String> {
    let bad = |why: &str| format!("invalid configuration '{token}' in --configs: {why}");
    if let Some(p) = token.strip_prefix("fpr=") {
        let p = p.parse::<f64>().ok().filter(|p| *p > 0.0 && *p < 1.0);
        return p
            .map(NestConfig::FalsePositiveRate)
            .ok_or_else(|| bad("the rate must be a number between 0 and 1"));
    }
    if let Some(f) = token.strip_prefix("ss4x") {
        let f = f.parse::<u32>().ok().filter(|f| (4..=32).contains(f));
        return f
            .map(|fingerprint_bits| NestConfig::SemiSorted { fingerprint_bits })
            .ok_or_else(|| bad("semi-sorted is ss4xF with F in 4..=32"));
    }
    let shape = token.split_once('x').and_then(|(b, f)| {
        let b: usize = b.parse().ok()?;
        let f: u32 = f.parse().ok()?;
        ([2, 4, 8].contains(&b) && (4..=32).contains(&f)).then_some(NestConfig::Shape {
            bucket_size: b,
            fingerprint_bits: f,
        })
    });
    shape.ok_or_else(|| {
        bad(
            "expected `default`, `all`, `fpr=P`, `BxF` with B in 2,4,8 and F in 4..=32 \
             (e.g. 4x12), or `ss4xF` (semi-sorted)",
        )
    })
}

pub fn parse_configs(list: &str) -> Result<Vec<NestConfig>, String> {
    let mut out: Vec<NestConfig> = Vec::new();
    for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let parsed: Vec<NestConfig> = if token == "default" {
            vec![NestConfig::Default]
        } else if token == "all" {
            let mut all = vec![NestConfig::Default];
            for bucket_size in [2, 4, 8] {
                for fingerprint_bits in [8, 16, 32] {
                    all.push(NestConfig::Shape {
                        bucket_size,
                        fingerprint_bits,
                    });
                }
            }
            all
        } else {
            vec![parse_config(token)?]
        };
        for c in parsed {
            // The default is 4x16; measuring it twice would only cost time.
            let same_as_default = matches!(
                c,
                NestConfig::Shape {
                    bucket_size: 4,
                    fingerprint_bits: 16
                }
            ) && out.contains(&NestConfig::Default);
            if !out.contains(&c) && !same_as_default {
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        return Err("--configs needs at least one configuration".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Options, String> {
        match parse(args.iter().copied())? {
            Parsed::Run(o) => Ok(*o),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn defaults_and_modes() {
        let o = run(&[]).unwrap();
        assert_eq!(o.items, 1 << 21);
        assert_eq!(o.configs.len(), 6);
        assert!(o.configs.contains(&NestConfig::SemiSorted {
            fingerprint_bits: 13
        }));
        let o = run(&["--quick"]).unwrap();
        assert_eq!(o.mode, Mode::Quick);
        let o = run(&["--tiny", "--items", "30_000", "--threads=3"]).unwrap();
        assert_eq!((o.mode, o.items, o.threads), (Mode::Tiny, 30_000, 3));
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(run(&["--items", "ten"]).is_err());
        assert!(run(&["--items", "10"]).is_err());
        assert!(run(&["--positive-fraction", "1.5"]).is_err());
        assert!(run(&["--configs", "3x16"]).is_err());
        assert!(run(&["--configs", "4x33"]).is_err());
        assert!(run(&["--configs", "ss4x3"]).is_err());
        assert!(run(&["--configs", "fpr=2"]).is_err());
        assert!(run(&["--bogus"]).is_err());
        assert!(run(&["--threads"]).is_err());
    }

    #[test]
    fn only_keeps_report_order() {
        assert_eq!(run(&[]).unwrap().parts, Part::ALL.to_vec());
        let o = run(&["--only", "growth,single"]).unwrap();
        assert_eq!(o.parts, vec![Part::Single, Part::Growth]);
        assert!(o.runs(Part::Growth) && !o.runs(Part::Memory));
        assert!(run(&["--only", "growht"]).is_err());
        assert!(run(&["--only", ","]).is_err());
    }

    #[test]
    fn configs_dedupe_default() {
        let c = parse_configs("default,4x16,all").unwrap();
        assert_eq!(c.len(), 9);
        assert_eq!(c[0], NestConfig::Default);
    }
}
