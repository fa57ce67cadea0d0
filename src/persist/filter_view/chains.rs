//! A view of a growable filter past its spare bits (format version 6):
//! its earlier chains' tables, each a view table over its slice of the
//! saved table, read after the current chain's.

use super::tables::{words_in, TableBytes, Tables};
use crate::shape::{with_view, ViewShape};
use crate::table::Nested;

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
