//! Merging another filter's fingerprints in (a union): its saved copy read
//! as a view, each fingerprint inserted into the bucket pair it held.

use super::CuckooFilter;
use crate::config::Config;
use crate::error::MergeError;
use crate::face::Reader;
use crate::persist::FilterView;
use crate::shape::with_table;
use crate::table::{Copies, Nested};

impl CuckooFilter {
    /// Adds every fingerprint of `other` to this filter: afterwards it
    /// answers `true` for everything either answered `true` for (a union,
    /// as when compaction merges the filters of the files it merges, or
    /// shards built apart are combined). Both may be in use by other
    /// threads meanwhile: `other` is copied as
    /// [`to_bytes`](Self::to_bytes) copies it (every item inserted before
    /// the merge began and not removed is in the copy), then its fingerprints are
    /// inserted here one by one, each an ordinary insert into the same
    /// bucket pair it occupied there, in an order scattered over the table
    /// so no region fills before the rest.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let a = CuckooFilter::with_capacity(1000);
    /// let b = CuckooFilter::with_capacity(1000);
    /// a.insert("in a")?;
    /// b.insert("in b")?;
    /// a.merge(&b)?;
    /// assert!(a.contains("in a") && a.contains("in b"));
    /// assert_eq!(a.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MergeError::Mismatch`] if the filters differ in bucket count,
    /// bucket size, fingerprint width, layout, seed or key hash (one
    /// loaded from a file of format version 1 to 3, the other not: their
    /// generic methods hash one key to different fingerprints; nothing is
    /// merged); growable filters, in their first generation's bucket
    /// count, key width and spare bits (the depths may differ), or if
    /// either has grown past its spare bits into a second chain of tables
    /// (`"chains"`: an item of the first chain is placed by that chain's
    /// table alone, and that table, full, grows no more).
    /// [`MergeError::Full`] if this filter has no room for the next
    /// fingerprint: the first `merged` fingerprints are in, the rest are
    /// not, and nothing this filter held before is lost or hidden (a
    /// failed insert drops nothing). Merging `other` again after making
    /// room would add the prefix twice: on `Full`, rebuild or merge into a
    /// larger filter. This can happen well below full load: every copy
    /// `other` holds goes into the same two buckets as the copies already
    /// here, and an item's two buckets hold `2 * bucket_size` copies at
    /// most (with 2-slot buckets, a filter whose items are all held twice
    /// fails to merge into itself at about a fifth of its slots); the
    /// wrapped [`InsertError`](crate::InsertError) says which way the insert failed.
    pub fn merge(&self, other: &CuckooFilter) -> Result<(), MergeError> {
        // Growable filters as they are now (the chains each has started),
        // before the save, then as saved.
        if let Some((what, ours, theirs)) = merge_mismatch(&self.now(), &other.now()) {
            return Err(MergeError::Mismatch { what, ours, theirs });
        }
        let saved = other.to_bytes();
        let snapshot = FilterView::new_unverified(&saved[..]).expect("a filter's own bytes decode");
        if let Some((what, ours, theirs)) = merge_mismatch(&self.now(), snapshot.config()) {
            return Err(MergeError::Mismatch { what, ours, theirs });
        }
        let total = snapshot.len();
        let mut merged = 0;
        // A growable filter's fingerprints are placed by their item, which
        // the saved generation's addressing reads back (both filters may
        // have grown to different depths); each earlier chain's go to the
        // same chain here.
        for (k, (buckets, saved_generation)) in snapshot.tables().into_iter().enumerate() {
            // Buckets a pass: the (bucket, fingerprint) buffer stays small.
            // The buckets are visited in a scattered order (a stride coprime
            // with their count: every bucket once), so each pass spreads its
            // inserts over the whole table. In bucket order, every item of a
            // pass would have a bucket in one small range (and a growable
            // filter's in one block), crowding it long before the table fills.
            const PASS: usize = 4096;
            let stride = scatter_stride(buckets);
            let mut pending = Vec::with_capacity(PASS * self.config.bucket_size);
            let mut i = 0;
            for first in (0..buckets).step_by(PASS) {
                pending.clear();
                for _ in first..(first + PASS).min(buckets) {
                    snapshot.fingerprints_of(k, i, i + 1, &mut pending);
                    i = (i + stride) % buckets;
                }
                for &(i, fp) in &pending {
                    with_table!(&self.inner, t => t.insert(i, fp, Copies::Any).map(|_| ()), g => {
                        let from = saved_generation.as_ref().expect("merge_mismatch: both growable");
                        g.insert_stored(from, i, fp)
                    })
                    .map_err(|error| MergeError::Full {
                        merged,
                        total,
                        error,
                    })?;
                    merged += 1;
                }
            }
        }
        Ok(())
    }
}

/// A step near `0.618 * n` with no factor in common with `n`: `k * step mod
/// n` for `k` in `0..n` visits every bucket once, consecutive ones far apart.
fn scatter_stride(n: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let start = (n as f64 * 0.618_033_988_7) as usize;
    (start.max(1)..)
        .find(|&s| gcd(s, n) == 1)
        .expect("n + 1 is coprime with n")
}

/// The first configuration two filters differ in that a merge cannot
/// bridge, as (what, ours, theirs): fixed filters must match in every
/// table setting; growable ones in all but their depth within their
/// chain (the generation each has grown to), which the merge translates.
fn merge_mismatch(a: &Config, b: &Config) -> Option<(&'static str, u64, u64)> {
    let mut checks = vec![
        (
            "growable",
            a.growth.is_some() as u64,
            b.growth.is_some() as u64,
        ),
        ("bucket size", a.bucket_size as u64, b.bucket_size as u64),
        ("layout", a.semi_sorted as u64, b.semi_sorted as u64),
        ("hash seed", a.seed, b.seed),
        // The same key's fingerprints in the two differ when they hash
        // generic keys differently: through `std::hash::Hash` (0, loaded
        // from a file of format version 1 to 3), as bytes 8 at a time (1,
        // version 4) or in lanes (2, version 5).
        ("key hash", a.keys as u64, b.keys as u64),
    ];
    match (a.growth, b.growth) {
        (Some(ga), Some(gb)) => checks.extend([
            (
                "first generation's bucket count",
                Nested::of(ga, a.buckets).local as u64,
                Nested::of(gb, b.buckets).local as u64,
            ),
            ("key width", ga.key_bits as u64, gb.key_bits as u64),
            ("spare bits", ga.spare as u64, gb.spare as u64),
        ]),
        _ => checks.extend([
            ("bucket count", a.buckets as u64, b.buckets as u64),
            (
                "fingerprint width",
                a.fingerprint_bits as u64,
                b.fingerprint_bits as u64,
            ),
        ]),
    }
    if let (Some(ga), Some(gb)) = (a.growth, b.growth)
        && (ga.chain > 0 || gb.chain > 0)
    {
        // An item of a chain is placed by that chain alone (its later
        // chains' key bits come from the hash, which a merge does not
        // have), and a chain past its spare bits is a table that no longer
        // grows: `other`'s first chain has nowhere to go but this one's
        // first table, which is already full (docs/design.md, "Growth past
        // the spare bits").
        return Some(("chains", u64::from(ga.chain), u64::from(gb.chain)));
    }
    checks.into_iter().find(|(_, x, y)| x != y)
}
