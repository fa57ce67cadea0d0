//! The growing filters of the growth figures, behind the single-thread filters' [`Subject`]
//! adapter: the growable cuckoo-nest and the Rust peer that grows.

use cuckoo_nest::CuckooFilter as Nest;

use crate::plot::Rgb;
use crate::subjects::Subject;

/// The growable cuckoo-nest: the red every figure gives the cuckoo-nest line to find.
pub const GROWABLE_COLOR: Rgb = Rgb(0xd6, 0x27, 0x28);
pub const SCALABLE_COLOR: Rgb = Rgb(0x94, 0x67, 0xbd);

/// The growable cuckoo-nest filter (it doubles its table when full), started at `capacity` with
/// the shape the builder picks for `fpr`: the one place it is built.
pub fn growable_nest(capacity: usize, fpr: f64) -> Result<Box<dyn Subject>, String> {
    let filter = Nest::builder()
        .capacity(capacity)
        .false_positive_rate(fpr)
        .growable(true)
        .build()
        .map_err(|e| format!("growable cuckoo-nest: {e}"))?;
    Ok(Box::new(filter))
}

/// A chain of cuckoo filters, each twice the size of the last at half its false-positive rate;
/// a lookup asks every filter of the chain.
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
