//! Growth without a ceiling: which scheme (issue 40, docs/design.md,
//! "Growth past the spare bits"). A single-threaded model of a growable
//! filter's table, 4-slot buckets, grown three ways from capacity C to
//! `GROWTH` times C, on the same keys:
//!
//! - **today**: one nested table whose fingerprints carry 7 spare bits,
//!   one spent per doubling; refuses once they are spent (128x).
//! - **chains**: when a table has spent its spare bits, new items go to a
//!   new nested table with 7 fresh spare bits and 2 more key bits per chain
//!   (so the rates of all chains sum to under the first one's 1.5 times);
//!   lookups read every chain. *Independent*: the new chain hashes on its
//!   own (as a chain of filters does). *Refined*: the new chain continues
//!   the old one's addressing (same local buckets and pair, more block
//!   bits, a key that extends the old key), so whatever matches an entry in
//!   a newer chain matches everything the same item would match in an older
//!   one, and a remove that takes the newest match first never takes the
//!   only copy another item is found by.
//! - **aged S**: one table whose slots all have `key + S + 1` bits: the key,
//!   the spare bits an entry has left (0 to S), and a terminating 1 below
//!   them (the unary age of InfiniFilter, SIGMOD 2023); new items get S
//!   fresh spare bits; an entry with none left is copied into both halves
//!   at a doubling (the Aleph filter's duplication, VLDB 2024). A remove
//!   takes the matching entry with the most spare bits.
//!
//! Printed per scheme: refusals, tables a lookup reads, the table's bits
//! per item against a fixed filter built for the same count at 1%
//! (`memory_usage()` of this crate's, at the end and at checkpoints every
//! 1.5x from 10,000 to 1,200,000: mean and worst), extra slots taken by
//! duplicates, the false-positive rate over absent keys, and the false
//! negatives after removing every other key. The model counts table bits
//! only and grows a whole table at once, as the filter does today. A last
//! row measures this crate's growable filter itself the same way (its
//! `memory_usage()`, everything it holds), up to its first refusal.
//!
//! `cargo run --release -p cuckoo-nest-bench --bin growth_schemes [-- C GROWTH ABSENT SEEDS [ONLY]]`
//! (defaults 1000, 2048, 1000000, 1; ONLY: run the schemes whose name
//! contains it)

use std::collections::HashSet;

const B: usize = 4;
/// Key bits for 1% with 4-slot buckets (the builder's pick: 2 * 4 * 0.95 /
/// (2^10 - 1) = 0.74%).
const KEY_BITS: u32 = 10;
/// Spare bits a nested table starts with (the filter's `SPARE_BITS`).
const SPARE: u32 = 7;
/// Grow at 95% of the 0.95 design load, as the filter does.
const GROW_LOAD: f64 = 0.95 * 0.95;
/// Displacement hops before an insert gives up.
const MAX_HOPS: usize = 500;

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn range(h: u64, n: usize) -> usize {
    ((h as u128 * n as u128) >> 64) as usize
}

/// What a table needs of an item: its local bucket's hash, its key (never
/// 0) and the bits `x` that pick blocks and fill spare bits.
#[derive(Clone, Copy)]
struct Item {
    local_hash: u64,
    key: u32,
    x: u64,
}

/// The item of `k` for a table of `key_bits`-bit keys. With `shared`, every
/// table sees the same hash, the wider key extending the narrower (the
/// refined chains); without it, table `salt` hashes on its own.
fn item(k: u64, key_bits: u32, salt: u64, shared: bool) -> Item {
    let h = mix(if shared {
        k
    } else {
        k ^ salt.wrapping_mul(0x1234_5678_9ABC)
    });
    let base = ((h as u32 as u64 * ((1u64 << KEY_BITS) - 1)) >> 32) as u32 + 1;
    let extra = (mix(h ^ 0x77) as u32) & ((1u32 << (key_bits - KEY_BITS)) - 1);
    Item {
        local_hash: mix(h ^ 0x55),
        key: base | extra << KEY_BITS,
        x: mix(h),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Width `key + spare - depth`; every entry has the same spare bits left.
    Nested,
    /// Width `key + S + 1`; each entry's spare bits left in unary age.
    Aged(u32),
}

/// One table: `2^(base + depth)` blocks of `local` buckets; an item's two
/// buckets lie in the block its `x` bits `0..base + depth` name.
struct Table {
    mode: Mode,
    key_bits: u32,
    /// Block bits older chains spent (refined chains), 0 otherwise.
    base: u32,
    /// Spare bits the table started with (nested mode).
    spare: u32,
    depth: u32,
    local: usize,
    slots: Vec<u32>,
    used: usize,
}

impl Table {
    fn new(mode: Mode, key_bits: u32, base: u32, spare: u32, local: usize) -> Self {
        Table {
            mode,
            key_bits,
            base,
            spare,
            depth: 0,
            local,
            slots: vec![0; (local << base) * B],
            used: 0,
        }
    }

    fn width(&self) -> u32 {
        match self.mode {
            Mode::Nested => self.key_bits + self.spare - self.depth,
            Mode::Aged(s) => self.key_bits + s + 1,
        }
    }

    fn bits(&self) -> u64 {
        self.slots.len() as u64 * u64::from(self.width())
    }

    fn can_grow(&self) -> bool {
        self.mode != Mode::Nested || self.depth < self.spare
    }

    fn key_of(&self, v: u32) -> u32 {
        match self.mode {
            Mode::Nested => v & ((1 << self.key_bits) - 1),
            Mode::Aged(s) => v >> (s + 1),
        }
    }

    /// The other bucket of an entry of key `key` in bucket `i`: same block;
    /// the pair is decided by the first chain's key bits alone.
    fn alt(&self, i: usize, key: u32) -> usize {
        let (block, l) = (i / self.local, i % self.local);
        let h = range(mix(u64::from(key & ((1 << KEY_BITS) - 1))), self.local);
        block * self.local + (h + self.local - l) % self.local
    }

    fn first_bucket(&self, it: &Item) -> usize {
        let block = it.x & ((1u64 << (self.base + self.depth)) - 1);
        block as usize * self.local + range(it.local_hash, self.local)
    }

    /// What an insert stores now; also the pattern a lookup compares.
    fn encode(&self, it: &Item) -> u32 {
        let at = self.base + self.depth;
        match self.mode {
            Mode::Nested => {
                let left = self.spare - self.depth;
                let spare = ((it.x >> at) & ((1u64 << left) - 1)) as u32;
                it.key | spare << self.key_bits
            }
            Mode::Aged(s) => {
                // Bit `at` (the next one a doubling spends) right under the key.
                let spare = (0..s).fold(0u32, |acc, j| acc << 1 | ((it.x >> (at + j)) & 1) as u32);
                it.key << (s + 1) | spare << 1 | 1
            }
        }
    }

    fn matches(&self, v: u32, query: u32) -> bool {
        match self.mode {
            Mode::Nested => v != 0 && v == query,
            // Equal above the entry's terminating 1 (its lowest set bit).
            Mode::Aged(_) => {
                v != 0 && (v ^ query) & !((v & v.wrapping_neg()) << 1).wrapping_sub(1) == 0
            }
        }
    }

    fn spare_left(&self, v: u32) -> u32 {
        match self.mode {
            Mode::Nested => self.spare - self.depth,
            Mode::Aged(s) => s - v.trailing_zeros(),
        }
    }

    fn pair_slots(&self, it: &Item) -> impl Iterator<Item = usize> {
        let i1 = self.first_bucket(it);
        let i2 = self.alt(i1, it.key);
        (0..2 * B).map(move |s| if s < B { i1 * B + s } else { i2 * B + s - B })
    }

    fn contains(&self, it: &Item) -> bool {
        let q = self.encode(it);
        self.pair_slots(it).any(|s| self.matches(self.slots[s], q))
    }

    /// Removes the matching entry with the most spare bits left.
    fn remove(&mut self, it: &Item) -> bool {
        let q = self.encode(it);
        let best = self
            .pair_slots(it)
            .filter(|&s| self.matches(self.slots[s], q))
            .max_by_key(|&s| self.spare_left(self.slots[s]));
        best.map(|s| {
            self.slots[s] = 0;
            self.used -= 1;
        })
        .is_some()
    }

    /// Stores `v` in bucket `i` or its pair, displacing at random; undoes
    /// every hop and returns false when it finds no room.
    fn place(&mut self, i: usize, v: u32, rng: &mut u64) -> bool {
        let (mut i, mut v) = (i, v);
        let mut path = Vec::new();
        for hop in 0..MAX_HOPS {
            let mut buckets = vec![i];
            if hop == 0 {
                buckets.push(self.alt(i, self.key_of(v)));
            }
            for &b in &buckets {
                if let Some(s) = (b * B..b * B + B).find(|&s| self.slots[s] == 0) {
                    self.slots[s] = v;
                    self.used += 1;
                    return true;
                }
            }
            i = *buckets.last().expect("one bucket at least");
            *rng = mix(*rng);
            let s = i * B + (*rng % B as u64) as usize;
            std::mem::swap(&mut v, &mut self.slots[s]);
            path.push(s);
            i = self.alt(i, self.key_of(v));
        }
        for &s in path.iter().rev() {
            std::mem::swap(&mut v, &mut self.slots[s]);
        }
        false
    }

    fn insert(&mut self, it: &Item, rng: &mut u64) -> bool {
        let (i, v) = (self.first_bucket(it), self.encode(it));
        self.place(i, v, rng)
    }

    /// Doubles the table; false if an entry found no room (never seen).
    fn grow(&mut self, rng: &mut u64) -> bool {
        let n = self.slots.len() / B;
        let old = std::mem::replace(&mut self.slots, vec![0; 2 * n * B]);
        self.depth += 1;
        self.used = 0;
        let mut ok = true;
        for (s, &v) in old.iter().enumerate().filter(|(_, v)| **v != 0) {
            let i = s / B;
            match self.mode {
                Mode::Nested => {
                    let (key, rest) = (v & ((1 << self.key_bits) - 1), v >> self.key_bits);
                    let half = (rest & 1) as usize;
                    ok &= self.place(i + half * n, key | (rest >> 1) << self.key_bits, rng);
                }
                Mode::Aged(sp) => {
                    let low_mask = (1u32 << (sp + 1)) - 1;
                    let (key, low) = (v >> (sp + 1), v & low_mask);
                    if low == 1 << sp {
                        // Spent: a copy in each half.
                        ok &= self.place(i, v, rng);
                        ok &= self.place(i + n, v, rng);
                    } else {
                        let half = ((low >> sp) & 1) as usize;
                        ok &=
                            self.place(i + half * n, key << (sp + 1) | (low << 1) & low_mask, rng);
                    }
                }
            }
        }
        ok
    }
}

#[derive(Clone, Copy)]
struct Scheme {
    name: &'static str,
    mode: Mode,
    /// Key bits a new chain adds; `None`: no chains.
    chain_step: Option<u32>,
    refined: bool,
    /// A refined chain's first table holds `2^k` times fewer blocks than
    /// the table it follows, its entries keeping the `k` block bits it
    /// lacks as `k` more spare bits.
    start_smaller: u32,
}

struct Filter {
    scheme: Scheme,
    tables: Vec<Table>,
    len: usize,
    refused: HashSet<u64>,
    lost: usize,
}

impl Filter {
    fn new(scheme: Scheme, capacity: usize) -> Self {
        // Sized as the builder sizes a first generation: the design load,
        // plus about sqrt(n) spare slots.
        let c = capacity as f64;
        let local =
            ((c / (B as f64 * 0.95)).ceil() + 1.0 + (c.sqrt().ceil() / B as f64).ceil()) as usize;
        Filter {
            scheme,
            tables: vec![Table::new(scheme.mode, KEY_BITS, 0, SPARE, local)],
            len: 0,
            refused: HashSet::new(),
            lost: 0,
        }
    }

    fn item_in(&self, k: u64, chain: usize) -> Item {
        item(
            k,
            self.tables[chain].key_bits,
            chain as u64,
            self.scheme.refined,
        )
    }

    fn insert(&mut self, k: u64, rng: &mut u64) {
        loop {
            let last = self.tables.len() - 1;
            let it = self.item_in(k, last);
            let t = &mut self.tables[last];
            let loaded = t.used as f64 >= GROW_LOAD * t.slots.len() as f64;
            if !loaded && t.insert(&it, rng) {
                self.len += 1;
                return;
            }
            if t.can_grow() {
                self.lost += usize::from(!t.grow(rng));
                continue;
            }
            if loaded && t.insert(&it, rng) {
                self.len += 1;
                return;
            }
            let Some(step) = self.scheme.chain_step else {
                self.refused.insert(k);
                return;
            };
            let key_bits = t.key_bits + step;
            let next = if self.scheme.refined {
                let k = self.scheme.start_smaller.min(t.base + t.depth);
                Table::new(t.mode, key_bits, t.base + t.depth - k, SPARE + k, t.local)
            } else {
                Table::new(t.mode, key_bits, 0, SPARE, t.local << t.depth)
            };
            self.tables.push(next);
        }
    }

    fn contains(&self, k: u64) -> bool {
        (0..self.tables.len()).any(|c| self.tables[c].contains(&self.item_in(k, c)))
    }

    /// Newest chain first: its matches are the finest.
    fn remove(&mut self, k: u64) -> bool {
        for c in (0..self.tables.len()).rev() {
            let it = self.item_in(k, c);
            if self.tables[c].remove(&it) {
                self.len -= 1;
                return true;
            }
        }
        false
    }

    fn bits(&self) -> u64 {
        self.tables.iter().map(Table::bits).sum()
    }

    fn used(&self) -> usize {
        self.tables.iter().map(|t| t.used).sum()
    }
}

/// Bits a fixed filter built for `n` items at 1% holds (`memory_usage()`).
fn fixed_bits(n: usize) -> f64 {
    let f = cuckoo_nest::CuckooFilter::builder()
        .capacity(n)
        .false_positive_rate(0.01)
        .build()
        .expect("a fixed filter for the count");
    f.memory_usage() as f64 * 8.0
}

fn arg(n: usize, default: usize) -> usize {
    std::env::args().nth(n).map_or(default, |s| {
        s.parse().unwrap_or_else(|_| {
            eprintln!("argument {n}: a whole number, not {s:?}");
            std::process::exit(2)
        })
    })
}

fn main() {
    let (capacity, growth, absent, seeds) =
        (arg(1, 1000), arg(2, 2048), arg(3, 1_000_000), arg(4, 1));
    let n = capacity * growth;
    let scheme = |name, mode, chain_step, refined, start_smaller| Scheme {
        name,
        mode,
        chain_step,
        refined,
        start_smaller,
    };
    let nested = Mode::Nested;
    let schemes = [
        scheme("today (7 spare bits)", nested, None, false, 0),
        scheme("chains, independent, +2 bits", nested, Some(2), false, 0),
        scheme("chains, refined, +1 bit", nested, Some(1), true, 0),
        scheme("chains, refined, +2 bits", nested, Some(2), true, 0),
        scheme(
            "chains, refined, +2 bits, first table 4x smaller",
            nested,
            Some(2),
            true,
            2,
        ),
        scheme(
            "chains, refined, +2 bits, first table 8x smaller",
            nested,
            Some(2),
            true,
            3,
        ),
        scheme("aged S=3", Mode::Aged(3), None, false, 0),
        scheme("aged S=4", Mode::Aged(4), None, false, 0),
        scheme("aged S=5", Mode::Aged(5), None, false, 0),
        scheme("aged S=7", Mode::Aged(7), None, false, 0),
    ];
    let fixed_end = fixed_bits(n);
    println!(
        "from {capacity} to {n} items ({growth}x), 4-slot buckets, {KEY_BITS}-bit keys (1%); \
         a fixed filter for {n} at 1%: {:.2} bits/item; {seeds} seed(s), {absent} absent keys each",
        fixed_end / n as f64
    );
    println!(
        "| scheme | refused | tables read | bits/item | x fixed at end | x fixed, checkpoints: mean | worst | duplicates | false positives | false negatives after removing half |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let only = std::env::args().nth(5).unwrap_or_default();
    for scheme in schemes
        .into_iter()
        .filter(|s| s.name.contains(only.as_str()))
    {
        for seed in 0..seeds as u64 {
            let key = |i: u64| mix(i ^ seed << 48);
            let mut f = Filter::new(scheme, capacity);
            let mut rng = seed + 1;
            let (mut ratios, mut checkpoint) = (Vec::new(), 10_000usize);
            for i in 0..n as u64 {
                f.insert(key(i), &mut rng);
                if i as usize + 1 == checkpoint && checkpoint <= 1_200_000 {
                    ratios.push(f.bits() as f64 / fixed_bits(checkpoint));
                    checkpoint = checkpoint * 3 / 2;
                }
            }
            let tables = f.tables.len();
            let bits_per_item = f.bits() as f64 / f.len as f64;
            let duplicates = f.used() as f64 / f.len as f64 - 1.0;
            let fp = (0..absent as u64)
                .filter(|&i| f.contains(key(i | 1 << 40)))
                .count();
            let inserted = |i: &u64| !f.refused.contains(&key(*i));
            let kept: Vec<u64> = (0..n as u64).filter(inserted).collect();
            for &i in kept.iter().filter(|&&i| i % 2 == 0) {
                f.remove(key(i));
            }
            let false_negatives = kept
                .iter()
                .filter(|&&i| i % 2 == 1 && !f.contains(key(i)))
                .count();
            let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
            let worst = ratios.iter().copied().fold(0.0, f64::max);
            println!(
                "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}% | {:.3}% | {} |{}",
                scheme.name,
                f.refused.len(),
                tables,
                bits_per_item,
                f.bits() as f64 / fixed_end,
                mean,
                worst,
                duplicates * 100.0,
                fp as f64 * 100.0 / absent as f64,
                false_negatives,
                if f.lost > 0 {
                    format!(" ({} entries lost in steps)", f.lost)
                } else {
                    String::new()
                },
            );
        }
    }
    if "the filter".contains(only.as_str()) {
        for seed in 0..seeds as u64 {
            the_filter(capacity, n, absent, seed, fixed_end);
        }
    }
}

/// The same measurements of this crate's growable filter itself (1%, from
/// `capacity`, default spare bits), its `memory_usage()` against a fixed
/// filter's: what the model's "today" row stands for.
fn the_filter(capacity: usize, n: usize, absent: usize, seed: u64, fixed_end: f64) {
    let key = |i: u64| mix(i ^ seed << 48);
    let f = cuckoo_nest::CuckooFilter::builder()
        .capacity(capacity)
        .false_positive_rate(0.01)
        .growable(true)
        .build()
        .expect("a growable filter");
    let (mut ratios, mut checkpoint) = (Vec::new(), 10_000usize);
    let mut inserted = 0u64;
    for i in 0..n as u64 {
        if f.insert(&key(i)).is_err() {
            break;
        }
        inserted += 1;
        if i as usize + 1 == checkpoint && checkpoint <= 1_200_000 {
            ratios.push(f.memory_usage() as f64 * 8.0 / fixed_bits(checkpoint));
            checkpoint = checkpoint * 3 / 2;
        }
    }
    let bits = f.memory_usage() as f64 * 8.0;
    let fp = (0..absent as u64)
        .filter(|&i| f.contains(&key(i | 1 << 40)))
        .count();
    for i in (0..inserted).step_by(2) {
        assert!(f.remove(&key(i)), "an inserted key was not found to remove");
    }
    let false_negatives = (1..inserted)
        .step_by(2)
        .filter(|&i| !f.contains(&key(i)))
        .count();
    let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    let worst = ratios.iter().copied().fold(0.0, f64::max);
    println!(
        "| the filter (growable, memory_usage) | {} | 1 | {:.2} | {:.2} | {:.2} | {:.2} | | {:.3}% | {} |",
        n as u64 - inserted,
        bits / inserted as f64,
        bits / fixed_end,
        mean,
        worst,
        fp as f64 * 100.0 / absent as f64,
        false_negatives,
    );
}
