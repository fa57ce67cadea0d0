//! A model of the ways a growable cuckoo table can grow: the share of its slots in use through a
//! fill, its memory, and its walks' work; the figures behind docs/design.md's "Why no doubling,
//! whole or block by block, meets issue 40's worst checkpoint", reproducible.
//!
//! `cargo run --release -p cuckoo-nest-bench --bin growth_model [-- ITEMS [LOCAL [FIRST_BLOCKS [SEED [SPLIT_AT]]]]]`
//! (defaults 1,200,000 items, blocks of 256 buckets, 8 blocks to start, seed 1; SPLIT_AT 0 grows
//! only when an insert fails, a share of the slots such as 0.85 also at that load)
//!
//! No filter code runs: items are random hashes in 4-slot buckets. An item's spare value `x`
//! names its block by its low bits, as a nested filter's spare bits do. An insert takes a free
//! slot of its two buckets, else walks at random (up to 500 kicks); when that fails, the table
//! grows and the homeless item goes in again. Schemes:
//!
//! - `fixed`, the baseline: one table for every item at a load of 0.95, filled once.
//! - `doubling`: every block splits at once (today's step); both buckets in the item's block.
//! - `linear`: one block at a time, in order (Litwin 1980); both buckets in the item's block.
//! - `partners-4`, `partners-8`: one block at a time in bit-reversed order (block `j` splits when
//!   the split pointer reaches `j`'s bits reversed), the second bucket in the block of spare value
//!   `x ^ m`, `m` (1 to 3, or 1 to 7) chosen by the key: a block of the item's group of four
//!   (eight), which split a half or a quarter level apart. From either block the other is that
//!   value `^ m`, so a fingerprint moves without its key.
//!
//! Prints per scheme: the share of slots in use at every 1% more items from 10,000; memory at the
//! checkpoints every 1.5x from 10,000 against a fixed filter's `KEY_BITS / 0.95` bits an item,
//! with slots `KEY_BITS + SPARE - depth` bits wide per block, one width a level, or flat; items
//! moved per item inserted; growth steps (and those a failed insert forced); the walks' kicks per
//! item inserted; and whether every item lies in one of its two buckets at the end.

use cuckoo_nest_bench::keys::SplitMix64;
use cuckoo_nest_bench::tool::arg;

const USAGE: &str = "growth_model [ITEMS [LOCAL [FIRST_BLOCKS [SEED [SPLIT_AT]]]]]";
/// Slots a bucket.
const B: usize = 4;
/// Kicks of a random walk before an insert gives up and the table grows.
const MAX_KICKS: usize = 500;
/// The key bits of the 1% pick, and the spare bits a growable filter keeps by default.
const KEY_BITS: u32 = 10;
const SPARE: u32 = 7;
/// The first point measured, and the factor between checkpoints.
const FROM: usize = 10_000;
const CHECKPOINT_STEP: f64 = 1.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// No growth: one table (one block) of this many buckets, built for every item at a load of
    /// 0.95, both buckets anywhere in it as in a fixed filter (the baseline for the walks' work).
    Fixed(usize),
    Doubling,
    Linear,
    Partners(u32),
}

impl Scheme {
    fn name(self) -> String {
        match self {
            Scheme::Fixed(_) => "fixed, for all items at 0.95".into(),
            Scheme::Doubling => "doubling".into(),
            Scheme::Linear => "linear".into(),
            Scheme::Partners(g) => format!("partners-{g}"),
        }
    }
}

/// How wide a block's slots are, for its memory.
#[derive(Clone, Copy)]
enum Widths {
    /// `KEY_BITS + SPARE - depth`, at least `KEY_BITS`: a split block a bit narrower.
    PerBlock,
    /// A level's blocks as wide as its unsplit ones: one width a table, as probes are compiled.
    PerLevel,
    /// `KEY_BITS`, a fixed filter's: the share of slots in use alone.
    Flat,
}

/// An item: its spare value (its block), first bucket in a block, and key (never 0: the rest).
#[derive(Clone, Copy)]
struct Item {
    x: u32,
    l1: u32,
    key: u32,
}

struct Model {
    scheme: Scheme,
    local: usize,
    /// Blocks at level 0: `1 << first_bits`.
    first_bits: u32,
    /// Levels every block has split through.
    level: u32,
    /// Blocks of the current level split so far (in the scheme's order).
    pointer: usize,
    /// Slot contents: an item's index + 1, or 0.
    slots: Vec<[u32; B]>,
    items: Vec<Item>,
    /// Which of its two buckets each item lies in.
    side: Vec<u8>,
    moved: u64,
    /// Growth steps an insert's failed walk forced (with a load to split at, the rest come from
    /// the load).
    forced: u64,
    /// Growth steps taken: doublings, or blocks split.
    steps: u64,
    /// Kicks of every random walk: an insert's displacement work.
    kicks: u64,
    rng: SplitMix64,
}

/// `j`'s low `bits` bits, reversed.
fn reversed(j: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        j.reverse_bits() >> (usize::BITS - bits)
    }
}

impl Model {
    fn new(scheme: Scheme, local: usize, first_blocks: usize, seed: u64) -> Self {
        if let Scheme::Fixed(buckets) = scheme {
            let mut fixed = Self::new(Scheme::Doubling, buckets, 1, seed);
            fixed.scheme = scheme;
            return fixed;
        }
        assert!(
            first_blocks.is_power_of_two(),
            "FIRST_BLOCKS must be a power of two"
        );
        let first_bits = first_blocks.trailing_zeros();
        if let Scheme::Partners(g) = scheme {
            assert!(
                first_blocks >= g as usize,
                "a group of {g} needs {g} blocks to start"
            );
        }
        Model {
            scheme,
            local,
            first_bits,
            level: 0,
            pointer: 0,
            slots: vec![[0; B]; first_blocks * local],
            items: Vec::new(),
            side: Vec::new(),
            moved: 0,
            forced: 0,
            steps: 0,
            kicks: 0,
            rng: SplitMix64::new(seed),
        }
    }

    /// Blocks at the start of the current level.
    fn level_blocks(&self) -> usize {
        1 << (self.first_bits + self.level)
    }

    fn blocks(&self) -> usize {
        self.level_blocks() + self.pointer
    }

    /// True if block `j` of the current level has split.
    fn has_split(&self, j: usize) -> bool {
        match self.scheme {
            Scheme::Fixed(_) | Scheme::Doubling => false,
            Scheme::Linear => j < self.pointer,
            Scheme::Partners(_) => reversed(j, self.first_bits + self.level) < self.pointer,
        }
    }

    /// The block of spare value `v`.
    fn block_of(&self, v: u32) -> usize {
        let n = self.level_blocks();
        let j = v as usize & (n - 1);
        if self.has_split(j) {
            v as usize & (2 * n - 1)
        } else {
            j
        }
    }

    /// The item's second bucket within a block: an involution on `0..local`.
    fn alt(&self, l: u32, key: u32) -> u32 {
        let h = (u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % self.local;
        ((h + self.local - l as usize) % self.local) as u32
    }

    /// The spare value of the item's bucket on side `side`.
    fn value(&self, item: Item, side: u8) -> u32 {
        match (self.scheme, side) {
            (Scheme::Partners(g), 1) => item.x ^ (1 + item.key % (g - 1)),
            _ => item.x,
        }
    }

    /// The bucket of the item on side `side`.
    fn bucket(&self, item: Item, side: u8) -> usize {
        let l = if side == 0 {
            item.l1
        } else {
            self.alt(item.l1, item.key)
        };
        self.block_of(self.value(item, side)) * self.local + l as usize
    }

    fn free_slot(&self, bucket: usize) -> Option<usize> {
        self.slots[bucket].iter().position(|&s| s == 0)
    }

    /// Places item `id` in a free slot of its buckets, or by a random walk; returns the item left
    /// homeless when the walk gives up (the table stays consistent: every other item lies in one
    /// of its buckets).
    fn try_place(&mut self, id: u32) -> Result<(), u32> {
        let item = self.items[id as usize];
        for side in 0..2 {
            let b = self.bucket(item, side);
            if let Some(s) = self.free_slot(b) {
                self.slots[b][s] = id + 1;
                self.side[id as usize] = side;
                return Ok(());
            }
        }
        let (mut cur, mut side) = (id, self.rng.below(2) as u8);
        for _ in 0..MAX_KICKS {
            self.kicks += 1;
            let b = self.bucket(self.items[cur as usize], side);
            let s = self.rng.below(B);
            let victim = self.slots[b][s] - 1;
            self.slots[b][s] = cur + 1;
            self.side[cur as usize] = side;
            cur = victim;
            side = 1 - self.side[cur as usize];
            let to = self.bucket(self.items[cur as usize], side);
            if let Some(s) = self.free_slot(to) {
                self.slots[to][s] = cur + 1;
                self.side[cur as usize] = side;
                return Ok(());
            }
        }
        Err(cur)
    }

    fn insert(&mut self, item: Item) {
        let id = self.items.len() as u32;
        self.items.push(item);
        self.side.push(0);
        let mut homeless = id;
        while let Err(left) = self.try_place(homeless) {
            homeless = left;
            self.forced += 1;
            self.grow();
        }
    }

    /// Moves the items of block `j` whose spare value's bit `bit` is set into block `j + (1 <<
    /// bit)`, same bucket.
    fn split_block(&mut self, j: usize, bit: u32) {
        let to = j + (1 << bit);
        for l in 0..self.local {
            let (from_b, to_b) = (j * self.local + l, to * self.local + l);
            let mut kept = [0; B];
            let (mut k, mut t) = (0, 0);
            for s in 0..B {
                let e = self.slots[from_b][s];
                if e == 0 {
                    continue;
                }
                let id = (e - 1) as usize;
                if (self.value(self.items[id], self.side[id]) >> bit) & 1 == 1 {
                    self.slots[to_b][t] = e;
                    t += 1;
                    self.moved += 1;
                } else {
                    kept[k] = e;
                    k += 1;
                }
            }
            self.slots[from_b] = kept;
        }
    }

    fn grow(&mut self) {
        self.steps += 1;
        let bit = self.first_bits + self.level;
        let n = self.level_blocks();
        match self.scheme {
            Scheme::Fixed(buckets) => panic!(
                "the fixed table of {buckets} buckets is full at {} items: an insert's walk of \
                 {MAX_KICKS} kicks failed",
                self.items.len()
            ),
            Scheme::Doubling => {
                self.slots.resize(2 * n * self.local, [0; B]);
                for j in 0..n {
                    self.split_block(j, bit);
                }
                self.level += 1;
            }
            Scheme::Linear | Scheme::Partners(_) => {
                let j = match self.scheme {
                    Scheme::Linear => self.pointer,
                    _ => reversed(self.pointer, bit),
                };
                // The new block is `j + n`: in bit-reversed order blocks appear anywhere in
                // the level's upper half (reserved address space, in a filter; here the vector
                // takes the whole half at once, and `bits` counts only the blocks made).
                if self.slots.len() < 2 * n * self.local {
                    self.slots.resize(2 * n * self.local, [0; B]);
                }
                self.split_block(j, bit);
                self.pointer += 1;
                if self.pointer == n {
                    self.level += 1;
                    self.pointer = 0;
                }
            }
        }
    }

    /// Slots in blocks that exist (a block not yet made holds none).
    fn slots_made(&self) -> usize {
        self.blocks() * self.local * B
    }

    /// The bits the blocks hold, their slots as wide as `widths` says.
    fn bits(&self, widths: Widths) -> f64 {
        let width = |depth: u32| (KEY_BITS + SPARE).saturating_sub(depth).max(KEY_BITS);
        let n = self.level_blocks();
        // Split blocks and the blocks they made are one level deeper.
        let (deep, shallow) = (2 * self.pointer, n - self.pointer);
        let slots = (self.local * B) as f64;
        let (deep_bits, shallow_bits) = match widths {
            Widths::PerBlock => (width(self.level + 1), width(self.level)),
            Widths::PerLevel => (width(self.level), width(self.level)),
            Widths::Flat => (KEY_BITS, KEY_BITS),
        };
        slots * (deep as f64 * f64::from(deep_bits) + shallow as f64 * f64::from(shallow_bits))
    }

    /// True if every item lies in one of its two buckets, once.
    fn consistent(&self) -> bool {
        let mut seen = vec![false; self.items.len()];
        for (b, bucket) in self.slots.iter().enumerate() {
            for &e in bucket {
                if e == 0 {
                    continue;
                }
                let id = (e - 1) as usize;
                if seen[id] || self.bucket(self.items[id], self.side[id]) != b {
                    return false;
                }
                seen[id] = true;
            }
        }
        seen.iter().all(|&s| s)
    }
}

/// What one scheme's fill measured.
struct Outcome {
    scheme: Scheme,
    mean_load: f64,
    least_load: f64,
    /// Memory against a fixed filter's at each checkpoint: slots per block, per level, flat.
    checkpoints: Vec<(usize, [f64; 3])>,
    moves_per_item: f64,
    /// Growth steps forced by a failed insert, and all of them.
    forced: u64,
    steps: u64,
    /// Kicks per item inserted.
    kicks_per_item: f64,
    consistent: bool,
}

/// Fills a model of `scheme` with `items` items; with `split_at` above 0 it also grows whenever
/// the share of slots in use passes `split_at` (as a filter grows at a load, not only when an
/// insert fails).
fn run(
    scheme: Scheme,
    items: usize,
    local: usize,
    first_blocks: usize,
    seed: u64,
    split_at: f64,
) -> Outcome {
    let mut model = Model::new(scheme, local, first_blocks, seed);
    let mut keys = SplitMix64::new(seed ^ 0x5EED);
    let fixed_bits_per_item = f64::from(KEY_BITS) / 0.95;
    let (mut next_point, mut next_checkpoint) = (FROM as f64, FROM as f64);
    let (mut loads, mut checkpoints) = (Vec::new(), Vec::new());
    for n in 1..=items {
        let h = keys.next_u64();
        model.insert(Item {
            x: (h >> 32) as u32,
            l1: (((h & 0xFFFF_FFFF) * model.local as u64) >> 32) as u32,
            key: (keys.next_u64() as u32 % ((1 << KEY_BITS) - 1)) + 1,
        });
        let grows = !matches!(scheme, Scheme::Fixed(_));
        while grows && split_at > 0.0 && n as f64 > split_at * model.slots_made() as f64 {
            model.grow();
        }
        if n as f64 >= next_point {
            loads.push(n as f64 / model.slots_made() as f64);
            next_point *= 1.01;
        }
        if n as f64 >= next_checkpoint {
            let fixed = n as f64 * fixed_bits_per_item;
            let ratio = |w| model.bits(w) / fixed;
            checkpoints.push((
                n,
                [Widths::PerBlock, Widths::PerLevel, Widths::Flat].map(ratio),
            ));
            next_checkpoint *= CHECKPOINT_STEP;
        }
    }
    Outcome {
        scheme,
        mean_load: loads.iter().sum::<f64>() / loads.len().max(1) as f64,
        least_load: loads.iter().copied().fold(f64::INFINITY, f64::min),
        checkpoints,
        moves_per_item: model.moved as f64 / items as f64,
        forced: model.forced,
        steps: model.steps,
        kicks_per_item: model.kicks as f64 / items as f64,
        consistent: model.consistent(),
    }
}

fn mean_and_worst(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = v.clone().count().max(1) as f64;
    (v.clone().sum::<f64>() / n, v.fold(0.0, f64::max))
}

fn main() {
    let items: usize = arg(1, 1_200_000, USAGE);
    let local: usize = arg(2, 256, USAGE);
    let first_blocks: usize = arg(3, 8, USAGE);
    let seed: u64 = arg(4, 1, USAGE);
    let split_at: f64 = arg(5, 0.0, USAGE);
    let trigger = if split_at > 0.0 {
        format!("a step when an insert fails or the share of slots in use passes {split_at}")
    } else {
        "a step when an insert fails".into()
    };
    println!(
        "{items} items, blocks of {local} {B}-slot buckets, {first_blocks} blocks to start, seed \
         {seed}, {trigger}; a fixed filter at {:.2} bits an item ({KEY_BITS}-bit keys at a load of 0.95); \
         slots {} bits wide at the first table, one fewer per split",
        f64::from(KEY_BITS) / 0.95,
        KEY_BITS + SPARE
    );
    println!();
    println!(
        "| scheme | slots in use, mean / least | memory vs fixed at the checkpoints, mean / worst: \
         slots per block | one width a level | {KEY_BITS}-bit slots | items moved per item inserted \
         | steps forced by a failed insert, of all | kicks per item inserted | every item in one of \
         its buckets |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut all_consistent = true;
    let fixed_buckets = (items as f64 / (0.95 * B as f64)).ceil() as usize;
    for scheme in [
        Scheme::Fixed(fixed_buckets),
        Scheme::Doubling,
        Scheme::Linear,
        Scheme::Partners(4),
        Scheme::Partners(8),
    ] {
        let o = run(scheme, items, local, first_blocks, seed, split_at);
        let cells: Vec<String> = (0..3)
            .map(|w| {
                if let Scheme::Fixed(_) = scheme {
                    return "-".into();
                }
                let (mean, worst) = mean_and_worst(o.checkpoints.iter().map(|c| c.1[w]));
                format!("{mean:.2} / {worst:.2}")
            })
            .collect();
        println!(
            "| {} | {:.3} / {:.3} | {} | {:.2} | {} of {} | {:.2} | {} |",
            o.scheme.name(),
            o.mean_load,
            o.least_load,
            cells.join(" | "),
            o.moves_per_item,
            o.forced,
            o.steps,
            o.kicks_per_item,
            if o.consistent { "yes" } else { "NO" }
        );
        all_consistent &= o.consistent;
    }
    if !all_consistent {
        eprintln!("growth_model: an item lies outside its two buckets: the model is wrong");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_keeps_each_item_in_one_of_its_buckets_through_its_splits() {
        for scheme in [
            Scheme::Doubling,
            Scheme::Linear,
            Scheme::Partners(4),
            Scheme::Partners(8),
        ] {
            // Small blocks, many splits: past two levels from 8 blocks.
            let o = run(scheme, 20_000, 16, 8, 7, 0.0);
            assert!(o.consistent, "{}", scheme.name());
            // Split at a load too: steps from the load and from failed inserts.
            let o = run(scheme, 20_000, 16, 8, 7, 0.8);
            assert!(o.consistent, "{}", scheme.name());
            assert!(o.moves_per_item > 0.0, "{} never split", scheme.name());
        }
        // The baseline: filled once, never split, every item in place, some walks taken.
        let o = run(
            Scheme::Fixed(20_000 * 100 / 95 / B + 1),
            20_000,
            16,
            8,
            7,
            0.8,
        );
        assert!(o.consistent && o.steps == 0 && o.moves_per_item == 0.0);
        assert!(o.kicks_per_item > 0.0);
    }

    #[test]
    fn a_split_moves_exactly_the_items_whose_new_bit_is_set() {
        // 4 blocks of 4 buckets, 40 items: a few splits in, then one more, watched.
        let mut m = Model::new(Scheme::Partners(4), 4, 4, 3);
        for _ in 0..40 {
            let h = m.rng.next_u64();
            m.insert(Item {
                x: (h >> 32) as u32,
                l1: (h & 3) as u32,
                key: (h as u32 >> 8) % 1023 + 1,
            });
        }
        let (n, bit) = (m.level_blocks(), m.first_bits + m.level);
        let j = reversed(m.pointer, bit);
        let block_items = |m: &Model, block: usize| -> Vec<(usize, u32)> {
            let mut v: Vec<(usize, u32)> = (0..m.local)
                .flat_map(|l| m.slots[block * m.local + l].iter().map(move |&e| (l, e)))
                .filter(|&(_, e)| e != 0)
                .collect();
            v.sort_unstable();
            v
        };
        let before = block_items(&m, j);
        let blocks = m.blocks();
        m.grow();
        assert_eq!(m.blocks(), blocks + 1);
        let high = |&(_, e): &(usize, u32)| {
            let id = (e - 1) as usize;
            (m.value(m.items[id], m.side[id]) >> bit) & 1 == 1
        };
        let (moved, kept): (Vec<_>, Vec<_>) = before.iter().partition(|e| high(e));
        assert!(!before.is_empty());
        assert_eq!(
            block_items(&m, j + n),
            moved,
            "same buckets, the set bit's items"
        );
        assert_eq!(block_items(&m, j), kept);
        assert!(m.consistent());
    }

    #[test]
    fn bit_reversed_order_splits_every_block_once_per_level() {
        let bits = 4;
        let mut order: Vec<usize> = (0..1 << bits).map(|p| reversed(p, bits)).collect();
        order.sort_unstable();
        assert_eq!(order, (0..1 << bits).collect::<Vec<_>>());
        assert_eq!(reversed(1, bits), 8);
        assert_eq!(reversed(0, 0), 0);
    }
}
