//! The table's memory: a zeroed, cache-line-aligned array of atomic words.
//!
//! Unsafe code is kept to this module. Tables of 4 MiB or more are aligned
//! to 2 MiB and, on Linux, advised for transparent huge pages: random bucket
//! accesses over a large table otherwise miss the TLB on nearly every lookup.
//! Under loom the words are loom atomics in a plain `Box` (loom's atomics
//! cannot be conjured from zeroed memory).

use crate::error::BuildError;
use crate::sync::AtomicU64;
use std::ops::Deref;

#[cfg(not(loom))]
pub(crate) struct Words {
    ptr: std::ptr::NonNull<AtomicU64>,
    len: usize,
    layout: std::alloc::Layout,
}

// SAFETY: `Words` owns its allocation exclusively and only hands out shared
// references to `AtomicU64`s, which are themselves `Send + Sync`.
#[cfg(not(loom))]
unsafe impl Send for Words {}
// SAFETY: as above; all access through `&Words` is through atomics.
#[cfg(not(loom))]
unsafe impl Sync for Words {}

/// Tables at least this large get 2 MiB alignment and a huge-page hint.
#[cfg(not(loom))]
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;
#[cfg(not(loom))]
const HUGE_PAGE: usize = 2 << 20;

#[cfg(not(loom))]
impl Words {
    /// `len` zeroed words; with `huge_pages`, large tables get 2 MiB
    /// alignment and the transparent-huge-page hint.
    pub(crate) fn zeroed(len: usize, huge_pages: bool) -> Result<Self, BuildError> {
        Self::allocate(len, huge_pages, true)
    }

    /// `len` words (at least 8), zeroed or not. Uninitialized words must be
    /// written through `ptr` before the `Words` is dereferenced.
    fn allocate(len: usize, huge_pages: bool, zeroed: bool) -> Result<Self, BuildError> {
        let len = len.max(8);
        let bytes = len * 8;
        let align = if huge_pages && bytes >= HUGE_PAGE_THRESHOLD {
            HUGE_PAGE
        } else {
            64
        };
        let layout = std::alloc::Layout::from_size_align(bytes, align)
            .map_err(|_| BuildError::AllocationFailed { bytes })?;
        // SAFETY: `layout` has a non-zero size (len >= 8).
        let raw = unsafe {
            if zeroed {
                std::alloc::alloc_zeroed(layout)
            } else {
                std::alloc::alloc(layout)
            }
        };
        let ptr = std::ptr::NonNull::new(raw.cast::<AtomicU64>())
            .ok_or(BuildError::AllocationFailed { bytes })?;
        #[cfg(all(target_os = "linux", not(miri)))]
        if align == HUGE_PAGE {
            // SAFETY: the range is exactly our own fresh allocation; madvise
            // only changes how the kernel backs it, never its contents. A
            // failure (THP disabled) is harmless and ignored.
            unsafe {
                libc::madvise(raw.cast(), bytes, libc::MADV_HUGEPAGE);
            }
        }
        Ok(Words { ptr, len, layout })
    }

    /// Words holding `bytes` (little-endian, a multiple of 8 bytes, at
    /// least 64), allocated as [`Words::zeroed`] allocates them: a saved
    /// table loaded back. The caller has checked `bytes` is as long as the
    /// table it claims to be, so nothing larger than the input is allocated.
    pub(crate) fn from_le_bytes(bytes: &[u8], huge_pages: bool) -> Result<Self, BuildError> {
        debug_assert!(bytes.len().is_multiple_of(8) && bytes.len() >= 64);
        #[cfg(target_endian = "little")]
        {
            // Not zeroed first: the copy initializes every byte, and
            // zeroing 2 MiB-aligned memory is a whole extra pass over it.
            let words = Words::allocate(bytes.len() / 8, huge_pages, false)?;
            debug_assert_eq!(words.len * 8, bytes.len());
            // SAFETY: `words` is our fresh allocation of exactly
            // `bytes.len()` bytes (len >= 8 words), not yet shared or
            // dereferenced, and `bytes` cannot overlap it; the copy
            // initializes all of it before anyone reads it. AtomicU64 has
            // the size and bit validity of u64, and on a little-endian
            // target the stored bytes are the words' in-memory
            // representation.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    words.ptr.as_ptr().cast::<u8>(),
                    bytes.len(),
                );
            }
            Ok(words)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let words = Words::zeroed(bytes.len() / 8, huge_pages)?;
            for (w, b) in words.iter().zip(bytes.chunks_exact(8)) {
                w.store(
                    u64::from_le_bytes(b.try_into().expect("8-byte chunk")),
                    crate::sync::Ordering::Relaxed,
                );
            }
            Ok(words)
        }
    }

    /// Prefetches the cache line holding word `w` (a hint; never faults).
    #[inline(always)]
    pub(crate) fn prefetch(&self, w: usize) {
        prefetch_addr(self.ptr.as_ptr().wrapping_add(w).cast());
    }
}

/// Prefetches the cache line holding address `p` (a hint; never faults,
/// whatever `p` is).
#[inline(always)]
pub(crate) fn prefetch_addr(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetch is only a hint: it never faults or reads into
        // the program, whatever the address (SSE is baseline on x86_64).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(loom))))]
    let _ = p;
}

#[cfg(not(loom))]
impl Deref for Words {
    type Target = [AtomicU64];
    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `len` words we allocated zeroed with the
        // alignment of AtomicU64 or more; all-zero bytes are a valid
        // AtomicU64, and the memory lives until `self` is dropped.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(not(loom))]
impl Drop for Words {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with exactly this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

#[cfg(loom)]
pub(crate) struct Words(Box<[AtomicU64]>);

#[cfg(loom)]
impl Words {
    pub(crate) fn zeroed(len: usize, _huge_pages: bool) -> Result<Self, BuildError> {
        Ok(Words((0..len.max(8)).map(|_| AtomicU64::new(0)).collect()))
    }

    #[inline(always)]
    pub(crate) fn prefetch(&self, _w: usize) {}
}

#[cfg(loom)]
impl Words {
    pub(crate) fn from_le_bytes(bytes: &[u8], _huge_pages: bool) -> Result<Self, BuildError> {
        Ok(Words(
            bytes
                .chunks_exact(8)
                .map(|b| AtomicU64::new(u64::from_le_bytes(b.try_into().expect("8 bytes"))))
                .collect(),
        ))
    }
}

#[cfg(loom)]
impl Deref for Words {
    type Target = [AtomicU64];
    fn deref(&self) -> &[AtomicU64] {
        &self.0
    }
}
