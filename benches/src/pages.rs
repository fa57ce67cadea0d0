//! The memory the cache-line load rates (the report's hardware limit, the criterion bench's
//! baseline) are measured on: a cuckoo-nest table's own memory, through the `internals` hook
//! [`debug_table_memory`], so the loads pay the same TLB costs as the lookups they bound.

use cuckoo_nest::{debug_table_memory, TableMemory};

/// A large, zeroed buffer of u64s, backed when `new` returns on huge pages, as it is first
/// written on the heap (so write every word before timing reads: untouched heap pages all read
/// the kernel's one zero page, which stays in cache).
pub struct Buffer(TableMemory);

impl Buffer {
    /// At least `bytes` bytes, allocated as a table built with `huge_pages(huge)` is: from 4 MiB
    /// up on 2 MiB transparent huge pages (which the kernel may refuse), or on the heap's pages.
    pub fn new(bytes: usize, huge: bool) -> Result<Buffer, String> {
        debug_table_memory(bytes.max(8), huge)
            .map(Buffer)
            .map_err(|e| format!("a buffer of {} MiB: {e}", bytes >> 20))
    }

    pub fn words(&self) -> &[u64] {
        let words = &*self.0;
        // SAFETY: `AtomicU64` has the size, alignment and bit validity of `u64`. The memory is
        // owned by `self` alone, and written only through `words_mut`, whose `&mut self` borrow
        // cannot coexist with this one, so no write races these plain reads.
        unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u64>(), words.len()) }
    }

    pub fn words_mut(&mut self) -> &mut [u64] {
        let words = &*self.0;
        // SAFETY: as in `words`; the `&mut self` borrow makes this slice the only access to the
        // memory while it lives.
        unsafe { std::slice::from_raw_parts_mut(words.as_ptr().cast_mut().cast(), words.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_and_writable() {
        for huge in [true, false] {
            let mut buf = Buffer::new(4 << 20, huge).unwrap();
            assert!(buf.words().len() >= (4 << 20) / 8);
            assert!(buf.words().iter().all(|&w| w == 0));
            buf.words_mut().iter_mut().for_each(|w| *w = 7);
            assert!(buf.words().iter().all(|&w| w == 7));
        }
    }
}
