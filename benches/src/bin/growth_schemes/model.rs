//! The model the growth study runs (see `main.rs`): a growable filter's
//! table, single-threaded, grown by one of three schemes.
use std::collections::HashSet;

const B: usize = 4;
/// Key bits for 1% with 4-slot buckets (the builder's pick: 2 * 4 * 0.95 /
/// (2^10 - 1) = 0.74%).
pub(crate) const KEY_BITS: u32 = 10;
/// Spare bits a nested table starts with (the filter's `SPARE_BITS`).
pub(crate) const SPARE: u32 = 7;
/// Grow at 95% of the 0.95 design load, as the filter does.
const GROW_LOAD: f64 = 0.95 * 0.95;
/// Displacement hops before an insert gives up.
const MAX_HOPS: usize = 500;

pub(crate) fn mix(mut z: u64) -> u64 {
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
pub(crate) enum Mode {
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

    pub(crate) fn contains(&self, it: &Item) -> bool {
        let q = self.encode(it);
        self.pair_slots(it).any(|s| self.matches(self.slots[s], q))
    }

    /// Removes the matching entry with the most spare bits left.
    pub(crate) fn remove(&mut self, it: &Item) -> bool {
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

    pub(crate) fn insert(&mut self, it: &Item, rng: &mut u64) -> bool {
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
pub(crate) struct Scheme {
    pub(crate) name: &'static str,
    pub(crate) mode: Mode,
    /// Key bits a new chain adds; `None`: no chains.
    pub(crate) chain_step: Option<u32>,
    pub(crate) refined: bool,
    /// A refined chain's first table holds `2^k` times fewer blocks than
    /// the table it follows, its entries keeping the `k` block bits it
    /// lacks as `k` more spare bits.
    pub(crate) start_smaller: u32,
}

pub(crate) struct Filter {
    pub(crate) scheme: Scheme,
    tables: Vec<Table>,
    pub(crate) len: usize,
    pub(crate) refused: HashSet<u64>,
    pub(crate) lost: usize,
}

impl Filter {
    pub(crate) fn new(scheme: Scheme, capacity: usize) -> Self {
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

    pub(crate) fn insert(&mut self, k: u64, rng: &mut u64) {
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

    pub(crate) fn contains(&self, k: u64) -> bool {
        (0..self.tables.len()).any(|c| self.tables[c].contains(&self.item_in(k, c)))
    }

    /// Newest chain first: its matches are the finest.
    pub(crate) fn remove(&mut self, k: u64) -> bool {
        for c in (0..self.tables.len()).rev() {
            let it = self.item_in(k, c);
            if self.tables[c].remove(&it) {
                self.len -= 1;
                return true;
            }
        }
        false
    }

    /// Tables a lookup reads.
    pub(crate) fn tables(&self) -> usize {
        self.tables.len()
    }

    pub(crate) fn bits(&self) -> u64 {
        self.tables.iter().map(Table::bits).sum()
    }

    pub(crate) fn used(&self) -> usize {
        self.tables.iter().map(|t| t.used).sum()
    }
}
