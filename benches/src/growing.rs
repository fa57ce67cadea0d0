//! The filters of the growth figure: the growable cuckoo-nest and the Rust peer that grows,
//! behind the same [`Subject`] adapter as the single-thread filters (the fixed cuckoo-nest it
//! is compared with is a plain [`NestSubject`](crate::subjects::NestSubject)).

use cuckoo_nest::CuckooFilter as Nest;

use crate::plot::Rgb;
use crate::subjects::{NestSubject, Subject};

/// The growable cuckoo-nest: the red every figure gives the cuckoo-nest line to find.
pub const GROWABLE_COLOR: Rgb = Rgb(0xd6, 0x27, 0x28);
pub const SCALABLE_COLOR: Rgb = Rgb(0x94, 0x67, 0xbd);

// --- cuckoo-nest growable: doubles its table when full, while other threads use it ----------

/// The growable cuckoo-nest filter, started at `capacity` with the shape the builder picks for
/// `fpr`: the one place it is built. It is a `CuckooFilter` like the fixed one, measured through
/// the same [`NestSubject`].
pub fn growable_nest(capacity: usize, fpr: f64) -> Result<Box<dyn Subject>, String> {
    let filter = Nest::builder()
        .capacity(capacity)
        .false_positive_rate(fpr)
        .growable(true)
        .build()
        .map_err(|e| format!("growable cuckoo-nest: {e}"))?;
    Ok(Box::new(NestSubject {
        filter,
        batched: true,
    }))
}

// --- scalable_cuckoo_filter: a chain of cuckoo filters, each twice the last, SipHash-1-3 -----

/// Adds a filter twice the size of the last, at half its false-positive rate, when an insert
/// runs out of kicks; a lookup asks every filter of the chain. Inserts take `&mut self`.
pub struct ScalableSubject {
    filter: scalable_cuckoo_filter::ScalableCuckooFilter<u64>,
}

impl ScalableSubject {
    pub fn new(capacity: usize, fpr: f64) -> Self {
        ScalableSubject {
            filter: scalable_cuckoo_filter::ScalableCuckooFilterBuilder::new()
                .initial_capacity(capacity)
                .false_positive_probability(fpr)
                .finish(),
        }
    }
}

impl Subject for ScalableSubject {
    #[inline]
    fn insert_key(&mut self, key: &u64) -> bool {
        self.filter.insert(key);
        true
    }
    #[inline]
    fn contains_key(&self, key: &u64) -> bool {
        self.filter.contains(key)
    }
    #[inline]
    fn remove_key(&mut self, key: &u64) -> Option<bool> {
        Some(self.filter.remove(key))
    }
    fn memory_bytes(&self) -> usize {
        // The crate's own count: its bit-packed buckets and its list of kicked-out items.
        self.filter.bits().div_ceil(8) as usize
    }
    fn expected_fpr(&self, _items: usize) -> f64 {
        self.filter.false_positive_probability()
    }
}
