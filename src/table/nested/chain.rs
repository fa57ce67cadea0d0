//! Chains (docs/design.md, "Growth past the spare bits"): once a growable
//! filter has spent its spare bits, its last generation stays as it is and
//! the next chain starts on the same addressing, with longer keys. How one
//! chain's addressing follows from the last, and how a saved header's
//! chain is checked and rebuilt.

use super::Nested;

/// Key bits each chain after the first adds to the one before: the
/// chains' false-positive rates then sum to at most 4/3 of the first's
/// (docs/design.md, "Growth past the spare bits").
pub(crate) const CHAIN_KEY_BITS: u32 = 2;

/// Block bits of the last chain's final table a new chain's first table
/// keeps as spare bits instead: it starts `2^CHAIN_SMALLER` times smaller
/// (docs/design.md: with 2, the memory just after a chain begins falls from
/// 2.23x a fixed filter's to 1.54x in the model).
pub(crate) const CHAIN_SMALLER: u32 = 2;

impl Nested {
    /// Generation 0 of the chain that follows `last`, the final generation
    /// of its chain (every spare bit spent): the same local buckets and
    /// pairs, keys of `extra` more bits, `spare` spare bits, and
    /// `2^(last.base + last.depth - smaller)` blocks: `smaller` of the
    /// block bits `last` names are kept as spare bits instead, so the new
    /// chain's first table is `2^smaller` times smaller than `last`'s.
    /// Whatever matches an item here agrees with it on everything `last`
    /// stores, and so matches it there too.
    pub(crate) fn chained(last: &Nested, extra: u32, spare: u32, smaller: u32) -> Self {
        debug_assert!(last.depth == last.spare && smaller <= last.base + last.depth);
        let base = last.base + last.depth - smaller;
        let spare = spare + smaller;
        debug_assert!(last.key_bits + extra + spare <= 32 && base + spare <= 32);
        let mut next = Self::build(
            0,
            last.local,
            last.key_bits + extra,
            spare,
            base,
            last.first_key_bits,
            last.first_spare,
        );
        next.chain = last.chain + 1;
        next
    }

    /// Generation 0 of the chain a growable filter starts once this
    /// generation, the last of its chain, is full: [`CHAIN_KEY_BITS`] more
    /// key bits, `spare` spare bits besides the [`CHAIN_SMALLER`] block
    /// bits it keeps as spare bits (docs/design.md, "Growth past the spare
    /// bits"). `None` where the hash has no bits left for one (its key and
    /// spare bits past 32, its block bits past 32) or its last generation's
    /// bucket count would pass `max_buckets`.
    pub(crate) fn next_chain(&self, spare: u32, max_buckets: usize) -> Option<Self> {
        let smaller = CHAIN_SMALLER;
        let base = (self.base + self.depth).checked_sub(smaller)?;
        let fits = self.depth == self.spare
            && self.key_bits + CHAIN_KEY_BITS + spare + smaller <= 32
            && base + spare + smaller <= 32
            && self
                .local
                .checked_mul(1usize.checked_shl(base + spare + smaller)?)
                .is_some_and(|b| b <= max_buckets);
        fits.then(|| Self::chained(self, CHAIN_KEY_BITS, spare, smaller))
    }

    /// This chain's generation `depth` (at most its spare bits).
    pub(crate) fn at_depth(&self, depth: u32) -> Self {
        debug_assert!(depth <= self.spare);
        let mut at = Self::build(
            depth,
            self.local,
            self.key_bits,
            self.spare,
            self.base,
            self.first_key_bits,
            self.first_spare,
        );
        at.chain = self.chain;
        at
    }

    /// Where this generation comes in the filter's growth: later
    /// generations (a deeper one of the chain, or one of a later chain)
    /// have larger orders.
    pub(crate) fn order(&self) -> u64 {
        (u64::from(self.chain) << 32) | u64::from(self.depth)
    }

    /// The final generations of the chains before this one, oldest first
    /// (what the earlier chains of a saved filter hold): each chain after
    /// the first has this one's spare bits, the first [`CHAIN_SMALLER`]
    /// fewer, as [`Nested::next_chain`] makes them.
    pub(crate) fn earlier_chains(&self) -> Vec<Nested> {
        if self.chain == 0 {
            return Vec::new();
        }
        let spare = self.spare - CHAIN_SMALLER;
        let first_key = self.key_bits - CHAIN_KEY_BITS * self.chain;
        let mut last = Nested::new(spare, self.local, first_key, spare);
        let mut chains = Vec::with_capacity(self.chain as usize);
        for _ in 0..self.chain {
            chains.push(last);
            let next = Nested::chained(&last, CHAIN_KEY_BITS, spare, CHAIN_SMALLER);
            last = next.at_depth(next.spare);
        }
        chains
    }

    /// Generation 0 of the chain `growth` describes, over `local`-bucket
    /// blocks.
    pub(super) fn chain_start(local: usize, growth: crate::config::Growth) -> Self {
        let spare = growth.spare - CHAIN_SMALLER;
        let mut a = Nested::new(
            0,
            local,
            growth.key_bits - CHAIN_KEY_BITS * growth.chain,
            spare,
        );
        for _ in 0..growth.chain {
            a = Nested::chained(&a.at_depth(a.spare), CHAIN_KEY_BITS, spare, CHAIN_SMALLER);
        }
        a
    }

    /// True if `growth` (a later chain's, from a saved header) is one
    /// [`Nested::next_chain`] makes: a first chain of at least 4 key bits
    /// and at least [`CHAIN_SMALLER`] spare bits of its own, every chain's key and
    /// spare bits within 32, and its blocks named by at most 32 bits; with
    /// the block count of its generation (`2^level`) dividing `buckets`.
    pub(crate) fn chain_fits(growth: crate::config::Growth, buckets: u64) -> bool {
        let (c, spare) = (growth.chain, growth.spare);
        let Some(first_key) = growth.key_bits.checked_sub(CHAIN_KEY_BITS * c) else {
            return false;
        };
        if c == 0 || first_key < 4 || spare < 2 * CHAIN_SMALLER || growth.key_bits + spare > 32 {
            return false;
        }
        // Every chain's blocks: base + spare <= 32, the newest's the most.
        let base = (spare - CHAIN_SMALLER) * c - CHAIN_SMALLER;
        base + spare <= 32
            && growth.depth <= spare
            && buckets.is_multiple_of(1u64 << (base + growth.depth))
            && buckets >> (base + growth.depth) > 0
    }
}
