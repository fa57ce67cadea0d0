//! The module's global allocator: every allocation of this module (the
//! filters' tables included, as they are built with `huge_pages(false)`)
//! goes through Redis's allocator, so `INFO memory`, `used_memory` and
//! `maxmemory` see it.
//!
//! redis-module's `RedisAlloc` calls `RedisModule_Alloc`, which aborts the
//! server when the allocator refuses; this one calls `RedisModule_TryAlloc`
//! (Redis 7.0 and later), which returns null instead, so a filter too large
//! to allocate is `BuildError::AllocationFailed`, an error reply, not a
//! crash. Alignments above the 16 bytes Redis's allocators guarantee are
//! honoured by over-allocating and keeping the block's start just before
//! the aligned pointer.

use redis_module::raw;
use std::alloc::{GlobalAlloc, Layout};

/// What every allocator behind `RedisModule_Alloc` (jemalloc, libc malloc)
/// aligns blocks to on 64-bit platforms.
const NATURAL_ALIGN: usize = 16;

/// The Redis allocator, asked with `RedisModule_TryAlloc`.
#[derive(Debug, Default, Clone, Copy)]
pub struct TryRedisAlloc;

/// Writes `message` to stderr and aborts, without allocating: the
/// allocator is not there to allocate with.
fn abort_without_allocator() -> ! {
    const MESSAGE: &[u8] = b"cuckoo-nest-redis: the Redis allocator is not available\n";
    // SAFETY: writes a static buffer of the given length to fd 2.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
    }
    std::process::abort()
}

/// `bytes` from Redis's allocator, or null if it refuses.
///
/// # Safety
/// `bytes` is not zero.
unsafe fn try_alloc(bytes: usize) -> *mut u8 {
    // SAFETY: reads of module API pointers, set by RedisModule_Init before
    // the module allocates anything and never changed after.
    let api = unsafe { (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) };
    match api {
        // SAFETY: a Redis module API function, set by RedisModule_Init.
        (Some(try_alloc), _) => unsafe { try_alloc(bytes).cast() },
        // Before Redis 7.0: the aborting form is all there is.
        // SAFETY: as above.
        (None, Some(alloc)) => unsafe { alloc(bytes).cast() },
        (None, None) => abort_without_allocator(),
    }
}

/// Gives `ptr`, from `try_alloc`, back to Redis's allocator.
///
/// # Safety
/// `ptr` came from `try_alloc` and is not used afterwards.
unsafe fn free(ptr: *mut u8) {
    // SAFETY: as in `try_alloc`.
    let api = unsafe { raw::RedisModule_Free };
    match api {
        // SAFETY: `ptr` came from RedisModule_TryAlloc or RedisModule_Alloc.
        Some(free) => unsafe { free(ptr.cast()) },
        None => abort_without_allocator(),
    }
}

// SAFETY: blocks come from Redis's allocator, at least `layout.size()`
// bytes, aligned to `layout.align()` (natively up to 16; above that by
// over-allocating `align` more bytes and returning the first aligned
// address at least a pointer past the block's start, where the start is
// kept for `dealloc`); a refused allocation is null, as the trait asks.
unsafe impl GlobalAlloc for TryRedisAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= NATURAL_ALIGN {
            // SAFETY: GlobalAlloc callers never ask for zero bytes.
            return unsafe { try_alloc(layout.size()) };
        }
        let Some(total) = layout.size().checked_add(layout.align()) else {
            return std::ptr::null_mut();
        };
        // SAFETY: `total` is not zero.
        let start = unsafe { try_alloc(total) };
        if start.is_null() {
            return start;
        }
        // `align` is a power of two above 16, so there are at least 16
        // bytes between `start` and the aligned address, room for the
        // start pointer, which is itself 8-aligned there.
        let offset = layout.align() - (start as usize & (layout.align() - 1));
        // SAFETY: `offset` is in 16..=align, inside the `size + align`
        // bytes of the block.
        let aligned = unsafe { start.add(offset) };
        // SAFETY: `aligned - 8` lies in the block, after `start`, and is
        // 8-aligned (`aligned` is 32-aligned at least).
        unsafe { aligned.cast::<*mut u8>().sub(1).write(start) };
        aligned
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.align() <= NATURAL_ALIGN {
            // SAFETY: `ptr` came from `try_alloc` in `alloc`.
            unsafe { free(ptr) };
            return;
        }
        // SAFETY: `alloc` stored the block's start just before `ptr`.
        let start = unsafe { ptr.cast::<*mut u8>().sub(1).read() };
        // SAFETY: `start` came from `try_alloc` in `alloc`.
        unsafe { free(start) };
    }
}
