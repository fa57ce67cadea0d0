//! Bits per item against the false-positive rate, 10% to 10^-6: cuckoo-nest (the builder's
//! choice, plain and semi-sorted) beside fastbloom, qfilter and xorf, with the Bloom-filter
//! optimum 1.44 log2(1/e) and the lower bound log2(1/e). Sizes only: every filter is built for
//! n items at the rate (xorf, which has three fixed rates, from n keys with the smallest of its
//! rates at or under the target), and its memory divided by n.

use cuckoo_nest::CuckooFilter;
use cuckoo_nest_bench::stats::Spread;

use crate::plot::{Panel, Rgb, Series};
use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{self, BLOOM_COLOR, QUOTIENT_COLOR, XOR_COLOR};
use crate::table::{Format, Table};

/// The rates measured: 10^-k for k in 1..=6.
const EXPONENTS: [u32; 6] = [1, 2, 3, 4, 5, 6];

const PLAIN_COLOR: Rgb = Rgb(0xd6, 0x27, 0x28);
const SEMI_COLOR: Rgb = Rgb(0x88, 0x22, 0x55);
const OPTIMUM_COLOR: Rgb = Rgb(0x7f, 0x7f, 0x7f);
const BOUND_COLOR: Rgb = Rgb(0x00, 0x00, 0x00);

fn nest(n: usize, rate: f64, semi: bool) -> Option<f64> {
    let f = CuckooFilter::builder()
        .capacity(n)
        .false_positive_rate(rate)
        .semi_sorted(semi)
        .huge_pages(false)
        .build()
        .ok()?;
    Some(f.memory_usage() as f64 * 8.0 / n as f64)
}

fn bloom(n: usize, rate: f64, seed: u64) -> f64 {
    subjects::bloom(n, rate, seed).num_bits() as f64 / n as f64
}

fn quotient(n: usize, rate: f64) -> Option<f64> {
    let f = subjects::quotient(n, rate).ok()?;
    Some(f.memory_usage() as f64 * 8.0 / n as f64)
}

/// xorf's smallest binary fuse filter whose rate (2^-8, 2^-16, 2^-32) meets `rate`.
fn xor(keys: &[u64], rate: f64) -> Option<f64> {
    let n = keys.len() as f64;
    let bytes = if rate >= 1.0 / 256.0 {
        size_of_val(&*xorf::BinaryFuse8::try_from(keys).ok()?.fingerprints)
    } else if rate >= 1.0 / 65536.0 {
        size_of_val(&*xorf::BinaryFuse16::try_from(keys).ok()?.fingerprints)
    } else {
        size_of_val(&*xorf::BinaryFuse32::try_from(keys).ok()?.fingerprints)
    };
    Some(bytes as f64 * 8.0 / n)
}

/// Bits per item against the false-positive rate, for the first n keys: a table and a plot.
pub fn part(r: &mut Report) -> Result<(), String> {
    let phase = Phase::start("bits per item against false-positive rate", 1);
    let (table, panel) = bits_per_item(&r.keys().present[..r.o.items], r.o.seed);
    r.tables.push(table);
    let title = "Bits per item against the false-positive rate";
    r.extra_plots.push(("space_bits_per_item", title, panel));
    phase.finish("sizes of every filter at six rates");
    Ok(())
}

fn bits_per_item(keys: &[u64], seed: u64) -> (Table, Panel) {
    let n = keys.len();
    let rates: Vec<f64> = EXPONENTS.iter().map(|&k| 10f64.powi(-(k as i32))).collect();
    let each = |f: &dyn Fn(f64) -> Option<f64>| rates.iter().map(|&r| f(r)).collect::<Vec<_>>();
    // (name, colour, bits per item at each rate: None where the filter cannot be built).
    let rows = [
        (
            "cuckoo-nest (builder's choice)",
            PLAIN_COLOR,
            each(&|r| nest(n, r, false)),
        ),
        (
            "cuckoo-nest semi-sorted (builder's choice)",
            SEMI_COLOR,
            each(&|r| nest(n, r, true)),
        ),
        (
            "fastbloom 0.17 (Bloom)",
            BLOOM_COLOR,
            each(&|r| Some(bloom(n, r, seed))),
        ),
        (
            "qfilter 0.3 (quotient)",
            QUOTIENT_COLOR,
            each(&|r| quotient(n, r)),
        ),
        (
            "xorf 0.13 (binary fuse, static)",
            XOR_COLOR,
            each(&|r| xor(keys, r)),
        ),
        (
            "Bloom optimum 1.44 log2(1/e)",
            OPTIMUM_COLOR,
            each(&|r| Some(1.44 * (1.0 / r).log2())),
        ),
        (
            "lower bound log2(1/e)",
            BOUND_COLOR,
            each(&|r| Some((1.0 / r).log2())),
        ),
    ];
    let mut t = Table::new(
        "space_bits_per_item",
        "Bits per item against the false-positive rate",
        "filter",
    )
    .note(format!(
        "Every filter built for n = {n} items at the rate; bits per item = all its memory / n. \
         cuckoo-nest: the configuration the builder picks for the rate (among every bucket size \
         and width, or among semi-sorted ones); xorf: its smallest filter whose fixed rate \
         (2^-8, 2^-16, 2^-32) meets the target."
    ));
    for &k in &EXPONENTS {
        t = t.column(
            &format!("1e-{k}"),
            &format!("bits_at_1e_{k}"),
            Format::Fixed(2),
        );
    }
    for (name, _, bits) in &rows {
        t.row_exact(*name, bits.clone());
    }
    // The two reference lines first in the legend; the plot draws them dashed over the filters'
    // lines (fastbloom sits almost exactly on the Bloom optimum, and neither may hide the other).
    let is_ref = |color: Rgb| color == OPTIMUM_COLOR || color == BOUND_COLOR;
    let (refs, filters): (Vec<_>, Vec<_>) = rows.iter().partition(|row| is_ref(row.1));
    let series = refs
        .into_iter()
        .chain(filters)
        .map(|(name, color, bits)| Series {
            name: name.to_string(),
            color: *color,
            reference: is_ref(*color),
            points: EXPONENTS
                .iter()
                .zip(bits)
                .filter_map(|(&k, b)| b.map(|b| (k as f64, Spread::exact(b))))
                .collect(),
        })
        .collect();
    let panel = Panel {
        title: "bits per item at false-positive rate 10^-k".to_string(),
        x_label: "k (rate = 10^-k)".to_string(),
        y_label: "bits per item".to_string(),
        series,
        x_ticks: EXPONENTS.iter().map(|&k| k as f64).collect(),
    };
    (t, panel)
}

/// fastbloom's bits per item for n items at `rate`: the Bloom filter sized for a cuckoo row's
/// rate, for Table 3.
pub fn bloom_bits_at(n: usize, rate: f64, seed: u64) -> f64 {
    bloom(n, rate.clamp(1e-12, 0.5), seed)
}
