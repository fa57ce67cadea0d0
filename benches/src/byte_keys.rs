//! Byte keys (issue 42): single lookups and inserts of 8- to 64-byte keys beside u64 keys, in
//! cache and out of cache. cuckoo-nest's default filter (format version 5: keys hashed 16 bytes
//! per multiply in lanes) runs beside the same shape with version 4's byte hash (built through
//! the `internals` hook `debug_with_v4_key_hash`) and beside the peers that take `Hash` keys,
//! each through its own API (xorf takes u64 hashes, not keys). Byte keys are `&[u8]` slices of
//! a flat buffer (their length known at run time, as a caller's keys usually are). Every round
//! builds every filter afresh for each width, times its fill and then its lookups (half hits,
//! shuffled), subjects in a rotated order.

use std::hint::black_box;

use cuckoo_nest::CuckooFilter as Nest;
use cuckoo_nest_bench::keys::{mix64, present_key, SplitMix64};
use cuckoo_nest_bench::stats::{mops, of_medians, rotated, Samples};

use crate::progress::Phase;
use crate::report::Report;
use crate::subjects::{bloom, quotient, timed, Peer};
use crate::table::{Format, Table};

/// Key widths in bytes; 0 is the u64 key.
const WIDTHS: [usize; 5] = [0, 8, 16, 32, 64];
const SUBJECTS: [&str; 5] = [
    "cuckoo-nest default (4x16), v5 lanes hash",
    "cuckoo-nest default (4x16), v4 byte hash",
    "cuckoofilter 0.5 (4x8, SipHash)",
    "fastbloom 0.17 (Bloom)",
    "qfilter 0.3 (quotient)",
];

fn width_label(w: usize) -> String {
    if w == 0 {
        "u64".into()
    } else {
        format!("{w} B")
    }
}

/// Keys of one width in the order they are used, so the timed loops read them sequentially and
/// only the filter at random: u64 keys in `ints`, byte keys back to back in `bytes`.
struct Flat {
    width: usize,
    ints: Vec<u64>,
    bytes: Vec<u8>,
}

impl Flat {
    /// The keys numbered `ids` (key `i`: `present_key(seed, i)`, or `width / 8` mixes of it).
    fn new(width: usize, ids: &[u32], seed: u64) -> Flat {
        let ints: Vec<u64> = ids
            .iter()
            .map(|&i| present_key(seed, u64::from(i)))
            .collect();
        let bytes = ints
            .iter()
            .flat_map(|&k| (0..width as u64 / 8).flat_map(move |j| mix64(k ^ j).to_le_bytes()))
            .collect();
        let ints = if width == 0 { ints } else { Vec::new() };
        Flat { width, ints, bytes }
    }
}

/// Runs `$body` with `$k` bound to each key of `$keys` in turn (`&u64` or `&[u8]`): one
/// monomorphic loop per key type, so no subject pays a dispatch per key.
macro_rules! each_key {
    ($keys:expr, |$k:ident| $body:expr) => {{
        let (keys, mut hits): (&Flat, usize) = ($keys, 0);
        if keys.width == 0 {
            for $k in &keys.ints {
                hits += usize::from($body);
            }
        } else {
            for $k in keys.bytes.chunks_exact(keys.width) {
                hits += usize::from($body);
            }
        }
        hits
    }};
}

enum Subject {
    Nest(Nest),
    Cuckoo(Peer),
    Bloom(fastbloom::BloomFilter),
    Quotient(qfilter::Filter),
}

impl Subject {
    fn build(s: usize, n: usize, fpr: f64, seed: u64) -> Result<Subject, String> {
        Ok(match s {
            0 => Subject::Nest(Nest::with_capacity(n)),
            1 => Subject::Nest(Nest::with_capacity(n).debug_with_v4_key_hash()),
            // The peers as the single-thread figures build them.
            2 => Subject::Cuckoo(Peer::with_capacity(n)),
            3 => Subject::Bloom(bloom(n, fpr, seed)),
            _ => Subject::Quotient(quotient(n, fpr)?),
        })
    }

    /// Inserts `keys`; how many went in.
    fn insert(&mut self, keys: &Flat) -> usize {
        match self {
            Subject::Nest(f) => each_key!(keys, |k| f.insert(k).is_ok()),
            Subject::Cuckoo(f) => each_key!(keys, |k| f.add(k).is_ok()),
            Subject::Bloom(f) => each_key!(keys, |k| {
                f.insert(k);
                true
            }),
            Subject::Quotient(f) => each_key!(keys, |k| f.insert_duplicated(k).is_ok()),
        }
    }

    /// Counts the `keys` the filter says are present.
    fn hits(&self, keys: &Flat) -> usize {
        match self {
            Subject::Nest(f) => each_key!(keys, |k| f.contains(k)),
            Subject::Cuckoo(f) => each_key!(keys, |k| f.contains(k)),
            Subject::Bloom(f) => each_key!(keys, |k| f.contains(k)),
            Subject::Quotient(f) => each_key!(keys, |k| f.contains(k)),
        }
    }
}

/// Samples of one size: `[subject][width]` lookups and inserts.
struct Measured {
    lookups: Vec<Vec<Samples>>,
    inserts: Vec<Vec<Samples>>,
}

fn measure(
    n: usize,
    lookups: usize,
    rounds: usize,
    fpr: f64,
    seed: u64,
    phase: &Phase,
) -> Result<Measured, String> {
    let blank = || vec![vec![Samples::default(); WIDTHS.len()]; SUBJECTS.len()];
    let mut m = Measured {
        lookups: blank(),
        inserts: blank(),
    };
    // Keys 0..n go in (random keys: their order is already shuffled), keys n..2n never do;
    // the queries: half drawn from each, shuffled together.
    let mut rng = SplitMix64::new(seed ^ 0xB17E);
    let fill: Vec<u32> = (0..n as u32).collect();
    let mut queries: Vec<u32> = (0..lookups)
        .map(|j| (rng.below(n) + if j % 2 == 0 { 0 } else { n }) as u32)
        .collect();
    rng.shuffle(&mut queries);
    // Every width's keys first, so that one round measures every width and subject close
    // together in time (the "/ u64" ratios are per round).
    let keys: Vec<(Flat, Flat)> = WIDTHS
        .iter()
        .map(|&w| (Flat::new(w, &fill, seed), Flat::new(w, &queries, seed)))
        .collect();
    for r in 0..rounds {
        for (wi, &width) in WIDTHS.iter().enumerate() {
            phase.message(format!(
                "{n} items, round {}, keys {}",
                r + 1,
                width_label(width)
            ));
            let (fill, queries) = &keys[wi];
            let mut filters = Vec::new();
            for s in rotated(r + wi, SUBJECTS.len()) {
                let mut f = Subject::build(s, n, fpr, seed)?;
                let (_, secs) = timed(|| black_box(f.insert(fill)));
                m.inserts[s][wi].push(r, mops(n, secs));
                filters.push((s, f));
            }
            filters.sort_by_key(|(s, _)| *s);
            for s in rotated(r + wi, SUBJECTS.len()) {
                let (_, secs) = timed(|| black_box(filters[s].1.hits(black_box(queries))));
                m.lookups[s][wi].push(r, mops(lookups, secs));
            }
        }
        phase.inc();
    }
    Ok(m)
}

const RATE: Format = Format::Fixed(1);
const RATIO: Format = Format::WithRange(2);

/// One measured column `OP WHERE` (CSV `OP_WHERE`) for each of the `sizes`.
fn columns(table: Table, sizes: &[(usize, usize, usize, &str)], op: &str, f: Format) -> Table {
    sizes.iter().fold(table, |t, &(_, _, _, where_)| {
        let csv = format!("{op}_{}", where_.replace(' ', "_"));
        t.measured(&format!("{op} {where_}"), &csv, f)
    })
}

/// Rounds of the out-of-cache byte-key measurement at most, whatever `--reps` says.
const OUT_OF_CACHE_ROUNDS: usize = 3;

/// The byte-key tables: rates by subject and key width in cache and out of cache, and the new
/// hash against the old one.
pub fn part(r: &mut Report) -> Result<(), String> {
    let (o, s) = (r.o, &r.sizes);
    let (fpr, seed) = (r.fpr_target, o.seed ^ 0xB7E5);
    let (n, l) = s.byte_keys_in_cache;
    let mut sizes = vec![(n, l, 2 * o.reps + 1, "in cache")];
    // Out of cache every round refills 25 filters of 20M keys (about 90 s on a quiet 2-vCPU
    // host, where the rest of the report takes about 150 s): at most `OUT_OF_CACHE_ROUNDS`
    // rounds there, the fewest that give a median and a range.
    if let Some((n, l)) = s.byte_keys_out_of_cache {
        sizes.push((n, l, o.reps.clamp(1, OUT_OF_CACHE_ROUNDS), "out of cache"));
    }
    let phase = Phase::start("byte keys", sizes.iter().map(|s| s.2 as u64).sum());
    let runs: Vec<Measured> = sizes
        .iter()
        .map(|&(n, lookups, rounds, _)| measure(n, lookups, rounds, fpr, seed, &phase))
        .collect::<Result<_, _>>()?;
    phase.finish("byte keys beside u64 keys");
    let mut rates = Table::new(
        "byte_keys",
        "Byte keys: single lookups and inserts by key width (M ops/s)",
        "filter, key",
    )
    .note(format!(
        "One thread. Sizes: {}. Every filter sized for its n (Bloom and quotient for a \
         false-positive rate of {fpr:.2e}; cuckoofilter's table is a power of two) and filled \
         with n keys; byte keys passed as `&[u8]` slices, u64 keys as `&u64`, read in order \
         from a buffer of the keys as used (only the filter is read at random); lookups half \
         hits, half misses, shuffled. Every round builds and fills every filter afresh, then \
         times its lookups, subjects in a rotated order. \"/ u64\": the rate over the same \
         filter's u64 rate, per round (range). Inserts: n attempted per second, into an empty \
         filter.",
        sizes
            .iter()
            .map(|(n, l, r, w)| format!("{w}: n = {n}, {l} lookups per measurement, {r} rounds"))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    for size in sizes.chunks(1) {
        let csv = size[0].3.replace(' ', "_");
        let t = columns(rates, size, "lookups", RATE);
        rates = t.measured("/ u64", &format!("lookups_{csv}_vs_u64"), RATIO);
    }
    rates = columns(rates, &sizes, "inserts", RATE);
    let ratio = |a: &Samples, b: &Samples| of_medians(&[a, b], |v| v[0] / v[1]);
    for (s, name) in SUBJECTS.iter().enumerate() {
        for (wi, &w) in WIDTHS.iter().enumerate() {
            let mut row = Vec::new();
            for m in &runs {
                row.push(m.lookups[s][wi].spread());
                row.push(ratio(&m.lookups[s][wi], &m.lookups[s][0]));
            }
            row.extend(runs.iter().map(|m| m.inserts[s][wi].spread()));
            rates.row(format!("{name}, {}", width_label(w)), row);
        }
    }
    let mut speedup = Table::new(
        "byte_keys_v5_vs_v4",
        "Byte keys: format version 5's lanes hash over version 4's byte hash (same filter shape)",
        "key",
    )
    .note(
        "The v5 row's rate over the v4 row's, per round (range), from the table above: 1.20 = \
         20% more operations per second with the new hash.",
    );
    speedup = columns(speedup, &sizes, "lookups", RATIO);
    speedup = columns(speedup, &sizes, "inserts", RATIO);
    for (wi, &w) in WIDTHS.iter().enumerate() {
        // Subject 0 (the v5 hash) over subject 1 (the v4 hash).
        let v5_over_v4 = |s: &[Vec<Samples>]| ratio(&s[0][wi], &s[1][wi]);
        let lookups = runs.iter().map(|m| v5_over_v4(&m.lookups));
        let row = lookups.chain(runs.iter().map(|m| v5_over_v4(&m.inserts)));
        speedup.row(width_label(w), row.collect());
    }
    r.tables.extend([rates, speedup]);
    Ok(())
}
