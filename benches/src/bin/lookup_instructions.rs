//! Instructions per lookup and per insert, counted by callgrind: repeatable where wall-clock
//! timings on a shared machine are not, and in cache a lookup's speed follows its instruction
//! count.
//!
//! Fills a filter of one shape with 1,000,000 pre-hashed items (`insert(&PreHashed(h))`), one
//! at a time (in `measured_insert`), then looks up 200,000 pre-hashed keys (half present,
//! shuffled) once with `contains` and once with `contains_batch_into`, each in a function of
//! its own that callgrind can count alone:
//!
//! ```sh
//! cargo build --release -p cuckoo-nest-bench --bin lookup_instructions
//! for shape in 4x16 4x12 ss4x13; do
//!   for f in single batch; do
//!     valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!       --toggle-collect="*measured_$f*" \
//!       target/release/lookup_instructions $shape 2>&1 |
//!       awk -v s=$shape -v f=$f '/Collected/ {print s, f, $4 / 200000}'
//!   done
//! done
//! ```
//!
//! For inserts, `--toggle-collect="*measured_insert*"` and divide by 1,000,000: the whole fill,
//! displacements included. A second argument `roomy` builds the filter for twice the items, so
//! the fill stops at half its capacity: the free-slot insert alone (no insert displaces), e.g.
//! `lookup_instructions 4x16 roomy`. A second argument `held=LOAD` (a fixed shape) fills the
//! filter to that share of its slots instead, then removes a random held item and inserts a fresh
//! one 1,000,000 times, each insert in `measured_insert_one` (divide by 1,000,000): an insert's
//! work in a table that stays at one load, as a table that grows a block at a time stays near
//! the load it splits at (`held=0.85`; docs/design.md, "The price is displacement work").
//!
//! Shapes: `4x16` (the default), `4x12`, `4x13`, `ss4x13` (semi-sorted), `2x16`, `8x16`, `4x8`;
//! a `g` in front (`g4x10`) makes it growable, with keys of that width, started at an eighth of
//! the items so it grows three times (compare it with the fixed shape of its stored width,
//! `4x14`); `@M` after it starts it at `1/M` of the items instead (`g4x10@1024`: past 128x a
//! filter with no maximum capacity reads a table per chain).

use cuckoo_nest::{CuckooFilter, PreHashed};
use cuckoo_nest_bench::keys::{stream, SplitMix64};
use cuckoo_nest_bench::tool::shape as builder;

const ITEMS: usize = 1_000_000;
const LOOKUPS: usize = 200_000;

#[inline(never)]
fn measured_insert(filter: &CuckooFilter, items: &[u64]) -> Result<(), cuckoo_nest::InsertError> {
    for &h in items {
        filter.insert(&PreHashed(h))?;
    }
    Ok(())
}

#[inline(never)]
fn measured_insert_one(filter: &CuckooFilter, h: u64) -> Result<(), cuckoo_nest::InsertError> {
    filter.insert(&PreHashed(h))
}

/// Fills `filter` to `load` of its slots, then replaces a random held item by a fresh one
/// `ITEMS` times, only the inserts measured.
fn hold(filter: &CuckooFilter, load: f64) -> Result<(), Box<dyn std::error::Error>> {
    let mut fresh = SplitMix64::new(1);
    let mut held = Vec::new();
    while filter.load_factor() < load {
        let h = fresh.next_u64();
        filter.insert(&PreHashed(h))?;
        held.push(h);
    }
    let mut rng = SplitMix64::new(4);
    for _ in 0..ITEMS {
        let i = (rng.next_u64() % held.len() as u64) as usize;
        if !filter.remove(&PreHashed(held[i])) {
            return Err(format!("a held item was not found at load {load}").into());
        }
        held[i] = fresh.next_u64();
        measured_insert_one(filter, held[i])?;
    }
    println!(
        "held at {:.3} of the slots ({} items) through {ITEMS} replacements",
        filter.load_factor(),
        held.len()
    );
    Ok(())
}

#[inline(never)]
fn measured_single(filter: &CuckooFilter, queries: &[u64]) -> usize {
    queries
        .iter()
        .filter(|&&h| filter.contains(&PreHashed(h)))
        .count()
}

#[inline(never)]
fn measured_batch(filter: &CuckooFilter, queries: &[u64], out: &mut [bool]) -> usize {
    filter
        .contains_batch_into(queries.iter().map(|&h| PreHashed(h)), out)
        .expect("as many results as keys")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "4x16".into());
    let (shape, multiple) = arg.split_once('@').unwrap_or((&arg, "8"));
    let multiple = multiple.parse().ok().filter(|&m: &usize| m > 0);
    let multiple = multiple.ok_or_else(|| format!("{arg}: want @M with M > 0"))?;
    let rest = shape.strip_prefix('g');
    let (growable, rest) = (rest.is_some(), rest.unwrap_or(shape));
    let second = std::env::args().nth(2);
    let held = second.as_deref().and_then(|a| a.strip_prefix("held="));
    let roomy = match second.as_deref() {
        None => false,
        Some("roomy") => true,
        Some(_) if held.is_some() => false,
        Some(other) => return Err(format!("{other}: want roomy, held=LOAD or nothing").into()),
    };
    if let Some(load) = held {
        let load: f64 = load
            .parse()
            .map_err(|_| format!("{load}: want a load, e.g. 0.85"))?;
        if growable || !(0.0..0.95).contains(&load) {
            return Err("held=LOAD takes a fixed shape and a load under 0.95".into());
        }
        return hold(&builder(rest, ITEMS)?.build()?, load);
    }
    // A growable filter starts at an eighth (or `1/M`) and grows.
    let capacity = if growable { ITEMS / multiple } else { ITEMS };
    let filter = builder(rest, if roomy { 2 * capacity } else { capacity })?
        .growable(growable)
        .build()?;
    let items = stream(1, ITEMS);
    measured_insert(&filter, &items)?;
    // Half present, half absent, shuffled (a sorted stream of hits then misses would flatter a
    // branchy path).
    let step = ITEMS / (LOOKUPS / 2);
    let mut queries: Vec<u64> = items.iter().step_by(step).copied().collect();
    queries.truncate(LOOKUPS / 2);
    queries.extend(stream(2, LOOKUPS - queries.len()));
    SplitMix64::new(3).shuffle(&mut queries);
    let single = measured_single(&filter, &queries);
    let mut out = vec![false; queries.len()];
    let batch = measured_batch(&filter, &queries, &mut out);
    assert_eq!(single, batch);
    println!(
        "{arg}: {LOOKUPS} lookups, {single} found; longest displacement {}; {} table(s)",
        filter.statistics().longest_displacement,
        filter.statistics().tables
    );
    Ok(())
}
