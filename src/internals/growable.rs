//! [`GrowableFilter`]: the growth engine without the public face around it.

use crate::builder::Builder;
use crate::error::{BuildError, InsertError};
use crate::grow::with_growable;

/// The growth engine (src/grow/) on its own, as
/// [`Builder::growable`](crate::Builder::growable) puts it behind
/// [`CuckooFilter`], with hooks the loom models and stress tests need
/// (depth, stored width, aiming at buckets): hashes in, answers out.
/// Unstable.
pub struct GrowableFilter {
    inner: crate::grow::AnyGrowable,
}

impl GrowableFilter {
    /// A growable filter whose first generation is what `builder` would
    /// build (capacity, bucket size, fingerprint width or false-positive
    /// rate), growing by doubling, up to 128 times that capacity.
    pub fn new(builder: Builder) -> Result<Self, BuildError> {
        Ok(GrowableFilter {
            inner: crate::grow::AnyGrowable::new(&builder.growable(true).config()?)?,
        })
    }

    /// Inserts an item by its hash; grows the filter when it is full.
    pub fn insert_hash(&self, hash: u64) -> Result<(), InsertError> {
        with_growable!(&self.inner, g => g.insert(hash, crate::table::Copies::Any).map(|_| ()))
    }

    /// Inserts unless a copy is (probably) there; returns whether it did.
    pub fn insert_unique_hash(&self, hash: u64) -> Result<bool, InsertError> {
        with_growable!(&self.inner, g => g.insert(hash, crate::table::Copies::Unique))
    }

    /// True if the item is (probably) in.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        with_growable!(&self.inner, g => g.contains(hash))
    }

    /// Removes one copy; returns whether there was one.
    pub fn remove_hash(&self, hash: u64) -> bool {
        with_growable!(&self.inner, g => g.remove(hash))
    }

    /// Copies of the item's fingerprint in its buckets.
    pub fn count_hash(&self, hash: u64) -> usize {
        with_growable!(&self.inner, g => g.count(hash))
    }

    /// Items held (exact when no write is in flight).
    pub fn len(&self) -> usize {
        with_growable!(&self.inner, g => g.len())
    }

    /// True if no item is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The current capacity: the first generation's, doubled per step.
    pub fn capacity(&self) -> usize {
        with_growable!(&self.inner, g => g.capacity())
    }

    /// Growth steps taken.
    pub fn depth(&self) -> u32 {
        with_growable!(&self.inner, g => g.depth())
    }

    /// Fingerprint slots of the current generation.
    pub fn slots(&self) -> usize {
        with_growable!(&self.inner, g => g.slots())
    }

    /// Width of the fingerprints the current generation stores.
    pub fn stored_bits(&self) -> u32 {
        with_growable!(&self.inner, g => g.stored_bits())
    }

    /// Bytes of the bucket table(s) held now (two during a growth step).
    pub fn table_bytes(&self) -> usize {
        with_growable!(&self.inner, g => g.table_bytes())
    }

    /// Bytes of the tables with their stripes.
    pub fn memory_usage(&self) -> usize {
        with_growable!(&self.inner, g => g.memory_usage())
    }

    /// Removes every item.
    pub fn clear(&self) {
        with_growable!(&self.inner, g => g.clear())
    }

    /// Primary bucket, alternate bucket and stored fingerprint of a hash in
    /// the current generation (for models that aim items at buckets).
    pub fn debug_locate(&self, hash: u64) -> (usize, usize, u32) {
        with_growable!(&self.inner, g => g.locate(hash))
    }
}
