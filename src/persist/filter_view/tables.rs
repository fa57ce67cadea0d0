//! What a view reads its tables with, apart from what holds the bytes.
//!
//! [`Tables`] is everything the header told the view about its tables
//! (the configuration, the current chain's lookups, the earlier chains')
//! and reads them from a `&[u8]` of the table's bytes. It does not know the
//! view's `B`, so its code is compiled once in this crate, whatever holds a
//! user's bytes, instead of once per `B` in every crate that makes a view.
//! A release build inlines the single lookup into the caller's loop as
//! before; a build with debug assertions (`cargo test`) keeps it out of
//! line, so every test that looks up in a view does not compile the
//! lookup of every shape again (Cargo.toml's test profile has the figures).
//!
//! A view of a growable filter past its spare bits (format version 6)
//! also reads its earlier chains' tables ([`Earlier`]), each a view table
//! over its slice of the saved table, after the current chain's.

use crate::config::Config;
use crate::error::DecodeError;
use crate::layout::LeBytes;
use crate::shape::{with_view, ViewShape};
use crate::table::Nested;

/// Where the view reads words: aligned words or bytes at any address.
#[derive(Clone, Copy)]
pub(super) enum TableBytes<'a> {
    Aligned(&'a [u64]),
    Unaligned(LeBytes<'a>),
}

/// `table` as words: aligned `u64`s where its address allows, else read
/// byte-wise.
#[inline(always)]
pub(super) fn words_in(table: &[u8]) -> TableBytes<'_> {
    if (table.as_ptr() as usize).is_multiple_of(std::mem::align_of::<u64>()) {
        // SAFETY: the pointer is aligned for u64 (just checked), the
        // `len / 8` words start at it and lie inside `table`, every bit
        // pattern is a valid u64, and the slice borrows `table`'s bytes,
        // which outlive it and are not written while it lives.
        let words =
            unsafe { std::slice::from_raw_parts(table.as_ptr().cast::<u64>(), table.len() / 8) };
        TableBytes::Aligned(words)
    } else {
        TableBytes::Unaligned(LeBytes(table))
    }
}

/// A view's tables as its header describes them. Every method that reads
/// takes `table`, the saved table's bytes (every chain's).
#[derive(Clone)]
pub(super) struct Tables {
    /// The current generation's lookups: the table's, or a growable
    /// filter's current chain's.
    pub(super) shape: ViewShape,
    /// A growable filter's earlier chains (format version 6), oldest
    /// first, their tables one after another at the table's start.
    pub(super) earlier: Vec<Earlier>,
    /// Where the current generation's table starts in the table's bytes:
    /// after the earlier chains'.
    pub(super) current_at: usize,
    pub(super) config: Config,
}

impl Tables {
    /// The tables of a saved filter of `config` (its header checked that
    /// the table holds every chain's).
    pub(super) fn new(config: Config) -> Tables {
        let mut earlier = Vec::new();
        let mut current_at = 0;
        if let Some(g) = config.growth {
            for addr in Nested::of(g, config.buckets).earlier_chains() {
                let bits = crate::config::bucket_bits(config.bucket_size, addr.width(), false);
                let len = crate::table::table_words(addr.buckets(), bits).map_or(0, |w| w * 8);
                earlier.push(Earlier {
                    shape: ViewShape::nested(config.bucket_size, addr),
                    addr,
                    at: current_at,
                    len,
                });
                current_at += len;
            }
        }
        Tables {
            shape: ViewShape::new(&config),
            earlier,
            current_at,
            config,
        }
    }

    /// The current generation's table as words. Decided at each call,
    /// from the bytes the view's holder gives now.
    #[inline(always)]
    pub(super) fn words<'a>(&self, table: &'a [u8]) -> TableBytes<'a> {
        words_in(&table[self.current_at..])
    }

    /// True if `hash`'s fingerprint is in either of its buckets.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn lookup(&self, table: &[u8], hash: u64) -> bool {
        let hit = match self.words(table) {
            TableBytes::Aligned(w) => with_view!(&self.shape, t => t.contains(w, hash)),
            TableBytes::Unaligned(b) => with_view!(&self.shape, t => t.contains(&b, hash)),
        };
        if self.earlier.is_empty() {
            hit
        } else {
            hit | self.earlier_contain(table, hash)
        }
    }

    /// Copies of `hash`'s fingerprint in its two buckets (of every chain).
    pub(super) fn copies(&self, table: &[u8], hash: u64) -> usize {
        let current = match self.words(table) {
            TableBytes::Aligned(w) => with_view!(&self.shape, t => t.count(w, hash)),
            TableBytes::Unaligned(b) => with_view!(&self.shape, t => t.count(&b, hash)),
        };
        self.earlier.iter().fold(current, |n, e| {
            n + match Self::earlier_words(table, e) {
                TableBytes::Aligned(w) => with_view!(&e.shape, t => t.count(w, hash)),
                TableBytes::Unaligned(b) => with_view!(&e.shape, t => t.count(&b, hash)),
            }
        })
    }

    /// The batch lookup of the keys whose hashes are `hashes`.
    pub(super) fn lookup_many(&self, table: &[u8], hashes: &[u64], out: &mut [bool]) -> usize {
        let mut found = if with_view!(&self.shape, t => t.wide_batches()) {
            self.many_wide(table, hashes, out)
        } else {
            self.many_in::<false>(table, hashes, out)
        };
        if !self.earlier.is_empty() {
            for (hit, &hash) in out.iter_mut().zip(hashes) {
                if !*hit && self.earlier_contain(table, hash) {
                    *hit = true;
                    found += 1;
                }
            }
        }
        found
    }

    /// [`Self::lookup_many`] compiled for AVX-512 (`table/batch.rs`), in a
    /// function apart.
    #[inline(never)]
    fn many_wide(&self, table: &[u8], hashes: &[u64], out: &mut [bool]) -> usize {
        self.many_in::<true>(table, hashes, out)
    }

    #[inline(always)]
    fn many_in<const WIDE: bool>(&self, table: &[u8], hashes: &[u64], out: &mut [bool]) -> usize {
        match self.words(table) {
            TableBytes::Aligned(w) => {
                let base = w.as_ptr().cast();
                with_view!(&self.shape, t => t.contains_many::<WIDE, _>(w, base, hashes, out))
            }
            TableBytes::Unaligned(b) => {
                let base = b.0.as_ptr();
                with_view!(&self.shape, t => t.contains_many::<WIDE, _>(&b, base, hashes, out))
            }
        }
    }

    /// Table `k` of [`Self::list`]: its lookups and its words.
    fn table_k<'a>(&'a self, table: &'a [u8], k: usize) -> (&'a ViewShape, TableBytes<'a>) {
        match self.earlier.get(k) {
            Some(e) => (&e.shape, Self::earlier_words(table, e)),
            None => (&self.shape, self.words(table)),
        }
    }

    /// The occupied slots of every table, or the first thing in one no
    /// writer stores.
    pub(super) fn audit(&self, table: &[u8]) -> Result<usize, DecodeError> {
        let mut occupied = 0;
        for (k, (buckets, generation)) in self.list().into_iter().enumerate() {
            occupied += match self.table_k(table, k) {
                (shape, TableBytes::Aligned(w)) => with_view!(shape, t => t.audit(w, w.len())),
                (shape, TableBytes::Unaligned(b)) => {
                    with_view!(shape, t => t.audit(&b, b.0.len() / 8))
                }
            }?;
            let Some(generation) = generation else {
                continue;
            };
            // What `Growable::audit` checks on load: no zero key.
            const PASS: usize = 4096;
            let mut slots = Vec::with_capacity(PASS * self.config.bucket_size);
            for first in (0..buckets).step_by(PASS) {
                slots.clear();
                self.fingerprints_of(table, k, first, first + PASS, &mut slots);
                if let Some(&(bucket, _)) =
                    slots.iter().find(|&&(_, fp)| !generation.is_written(fp))
                {
                    return Err(DecodeError::InvalidBucket {
                        bucket,
                        reason: "a growable filter's fingerprint with a zero key",
                    });
                }
            }
        }
        Ok(occupied)
    }

    /// Appends `(bucket, fingerprint)` for every occupied slot of buckets
    /// `first..end` of table `k` of [`Self::list`] to `out`.
    pub(super) fn fingerprints_of(
        &self,
        table: &[u8],
        k: usize,
        first: usize,
        end: usize,
        out: &mut Vec<(usize, u32)>,
    ) {
        match self.table_k(table, k) {
            (shape, TableBytes::Aligned(w)) => {
                with_view!(shape, t => t.fingerprints(w, first, end, out))
            }
            (shape, TableBytes::Unaligned(b)) => {
                with_view!(shape, t => t.fingerprints(&b, first, end, out))
            }
        }
    }
}

/// An earlier chain of a saved growable filter: its final generation's
/// lookups, and where its table lies in the saved table's bytes.
#[derive(Clone)]
pub(super) struct Earlier {
    pub(super) shape: ViewShape,
    pub(super) addr: Nested,
    pub(super) at: usize,
    pub(super) len: usize,
}

impl Tables {
    /// An earlier chain's table's bytes as words.
    pub(super) fn earlier_words<'a>(table: &'a [u8], e: &Earlier) -> TableBytes<'a> {
        words_in(&table[e.at..e.at + e.len])
    }

    /// True if an earlier chain holds `hash`'s item (each is read, as an
    /// owned filter reads its chains: `grow/mod.rs`).
    pub(super) fn earlier_contain(&self, table: &[u8], hash: u64) -> bool {
        self.earlier.iter().fold(false, |hit, e| {
            hit | match Self::earlier_words(table, e) {
                TableBytes::Aligned(w) => with_view!(&e.shape, t => t.contains(w, hash)),
                TableBytes::Unaligned(b) => with_view!(&e.shape, t => t.contains(&b, hash)),
            }
        })
    }

    /// The saved tables a merge reads: every earlier chain's, oldest first,
    /// then the current one's; each as its bucket count and, for a
    /// growable filter, its generation.
    pub(super) fn list(&self) -> Vec<(usize, Option<Nested>)> {
        let current = self
            .config
            .growth
            .map(|g| Nested::of(g, self.config.buckets));
        self.earlier
            .iter()
            .map(|e| (e.addr.buckets(), Some(e.addr)))
            .chain([(self.config.buckets, current)])
            .collect()
    }
}
