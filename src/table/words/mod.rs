//! The table's memory: a cache-line-aligned array of atomic words, zeroed
//! for a new table or copied from saved bytes for a loaded one.
//!
//! The allocation's unsafe code is kept to this module (the others are the
//! lookup's unchecked reads, `layout/fixed.rs` and `table/stripes.rs`, the
//! view's `align_to` and the SIMD kernels). Random bucket accesses over a large
//! table otherwise miss the TLB on nearly every lookup, so tables of 4 MiB or
//! more built with `huge_pages` (the default) are aligned to 2 MiB and, on
//! Linux, backed by transparent huge pages. The advice has to come before the
//! memory is first touched: in THP's `madvise` mode a page fault in a region
//! not yet advised gets a 4 KiB page, and once a region is on 4 KiB pages
//! only khugepaged merges them, by default about 16 MiB every 10 s.
//! `alloc_zeroed` of a 2 MiB-aligned block writes the zeros itself, so
//! advising afterwards left the table on 4 KiB pages. These tables therefore
//! come from their own anonymous `mmap` (already zero), trimmed to 2 MiB
//! alignment, advised with `MADV_HUGEPAGE`, and only then populated
//! (`MADV_POPULATE_WRITE`, or one write per page on kernels before 5.14), so
//! the table is backed when `build` returns, as it was with `alloc_zeroed`.
//! Only a tail shorter than 2 MiB stays on 4 KiB pages. A growth step's
//! table is the exception where the kernel collapses ranges on request
//! (`MADV_COLLAPSE`, Linux 6.1): kept off huge pages, filled on 4 KiB pages,
//! then collapsed ([`Words::zeroed_lazily`]). Smaller tables,
//! `huge_pages(false)`, other platforms, miri, and a failed `mmap` use
//! `alloc_zeroed`.
//!
//! Under loom, `words_loom.rs` takes this module's place (see `table/mod.rs`).

use crate::error::BuildError;
use crate::sync::AtomicU64;
use std::ops::Deref;

mod later;
pub(crate) use later::collapses;

pub(crate) struct Words {
    ptr: std::ptr::NonNull<AtomicU64>,
    len: usize,
    /// Where the memory came from, so `Drop` frees it the same way.
    source: Source,
}

enum Source {
    /// `std::alloc::alloc_zeroed` (or `alloc`) with this layout, at
    /// `offset` bytes before `Words::ptr`.
    Heap {
        layout: std::alloc::Layout,
        offset: usize,
    },
    /// An anonymous mapping of `len` bytes starting at `Words::ptr`, backed
    /// by huge pages if `huge`: advised for them before its first touch,
    /// or, if `later`, left on 4 KiB pages until [`Words::collapse_part`]
    /// collapses it.
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped { len: usize, huge: bool, later: bool },
}

// SAFETY: `Words` owns its allocation exclusively and only hands out shared
// references to `AtomicU64`s, which are themselves `Send + Sync`.
unsafe impl Send for Words {}
// SAFETY: as above; all access through `&Words` is through atomics.
unsafe impl Sync for Words {}

/// Tables at least this large get 2 MiB alignment and huge pages.
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// True if a table of `bytes` bytes is given huge pages when the filter
/// asks for them (`huge_pages`): one at least [`HUGE_PAGE_THRESHOLD`] long.
pub(crate) fn takes_huge_pages(bytes: usize, huge_pages: bool) -> bool {
    huge_pages && bytes >= HUGE_PAGE_THRESHOLD
}

const HUGE_PAGE: usize = 2 << 20;
/// The alignment up to which the global allocator's `alloc_zeroed` is
/// `calloc` (the standard library's `MIN_ALIGN` on 64-bit targets).
const HEAP_ALIGN: usize = 16;
/// Tables backed on first touch at least this large get a mapping of their
/// own.
#[cfg(all(target_os = "linux", not(miri)))]
const LAZY_MAPPING_THRESHOLD: usize = 64 << 10;

impl Words {
    /// `len` zeroed words; with `huge_pages`, large tables get 2 MiB
    /// alignment and, on Linux, transparent huge pages.
    pub(crate) fn zeroed(len: usize, huge_pages: bool) -> Result<Self, BuildError> {
        Self::allocate(len, huge_pages, true, true)
    }

    /// As [`Words::zeroed`], but the memory is backed as it is first
    /// touched, not before this returns: a growth step's next table, which
    /// the writes after the step fill piecemeal (populating a 64 MiB table
    /// at once took the insert that started the step milliseconds). Where
    /// the kernel collapses ranges on request ([`collapses`]), a table that
    /// takes huge pages is kept off them (`MADV_NOHUGEPAGE`): its writes
    /// fault in 4 KiB pages, and [`Words::collapse_part`] gives it huge
    /// pages afterwards.
    /// Advised, the first write to each 2 MiB took the kernel's huge-page
    /// fault, which compacts memory when no huge page is free: inserts of
    /// 5 to 10 ms through a growth to 8M items (docs/benchmarks.md,
    /// "Preparing the next table later").
    pub(crate) fn zeroed_lazily(len: usize, huge_pages: bool) -> Result<Self, BuildError> {
        Self::allocate(len, huge_pages, true, false)
    }

    /// `len` words (at least 8), zeroed or not. Uninitialized words must be
    /// written through `ptr` before the `Words` is dereferenced.
    fn allocate(
        len: usize,
        huge_pages: bool,
        zeroed: bool,
        populate: bool,
    ) -> Result<Self, BuildError> {
        let len = len.max(8);
        let bytes = len * 8;
        let huge = takes_huge_pages(bytes, huge_pages);
        // A table backed on first touch comes from its own mapping at any
        // size past a few pages: `alloc_zeroed` may take it from the heap
        // and write every zero at once. Not with `huge_pages(false)`, which
        // asks for the global allocator (a host counting memory through it).
        #[cfg(all(target_os = "linux", not(miri)))]
        if (huge || (huge_pages && !populate && bytes >= LAZY_MAPPING_THRESHOLD))
            && let Some(words) = Self::mapped(len, huge, populate)
        {
            return Ok(words);
        }
        // Zeroed memory to be backed on first touch, from the heap: asked
        // for at the allocator's own alignment, so that `alloc_zeroed` is a
        // `calloc`, whose large blocks are fresh pages the kernel zeroes as
        // they are touched. At a cache line's alignment it allocates and
        // then writes every zero itself: the insert that started a growth
        // step with `huge_pages(false)` spent 44 ms doing so at 32M items
        // (`growth_latency -- 64000000 1000000 2 4k`, a binary of the bench crate). The
        // block is a line longer, and the table starts at its first line.
        let align = if huge {
            HUGE_PAGE
        } else if zeroed && !populate {
            HEAP_ALIGN
        } else {
            64
        };
        let slack = 64usize.saturating_sub(align);
        let layout = bytes
            .checked_add(slack)
            .and_then(|size| std::alloc::Layout::from_size_align(size, align).ok())
            .ok_or(BuildError::AllocationFailed { bytes })?;
        // SAFETY: `layout` has a non-zero size (len >= 8).
        let raw = unsafe {
            if zeroed {
                std::alloc::alloc_zeroed(layout)
            } else {
                std::alloc::alloc(layout)
            }
        };
        if raw.is_null() {
            return Err(BuildError::AllocationFailed { bytes });
        }
        let offset = raw.addr().wrapping_neg() % 64;
        debug_assert!(offset <= slack, "{offset} bytes to a line, {slack} spare");
        // SAFETY: `offset <= slack` (`raw` is aligned to `align`, and
        // `slack` is what a block of that alignment may lack of a line), so
        // `raw + offset .. raw + offset + bytes` lies in the block.
        let ptr = std::ptr::NonNull::new(unsafe { raw.add(offset) }.cast::<AtomicU64>())
            .ok_or(BuildError::AllocationFailed { bytes })?;
        #[cfg(all(target_os = "linux", not(miri)))]
        if huge {
            // Only reached if `mmap` failed. The zeros are written already,
            // so this merely lets khugepaged merge the pages later.
            // SAFETY: the range is exactly our own fresh allocation; madvise
            // only changes how the kernel backs it, never its contents. A
            // failure (THP disabled) is harmless and ignored.
            unsafe {
                libc::madvise(raw.cast(), bytes, libc::MADV_HUGEPAGE);
            }
        }
        Ok(Words {
            ptr,
            len,
            source: Source::Heap { layout, offset },
        })
    }

    /// `len` zeroed words in an anonymous mapping aligned to 2 MiB, with
    /// `huge` advised for huge pages before the first touch, and with
    /// `populate` backed before this returns; `None` if the kernel will not
    /// map it (the caller falls back to the heap).
    #[cfg(all(target_os = "linux", not(miri)))]
    fn mapped(len: usize, huge: bool, populate: bool) -> Option<Self> {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        // A power of two from 8 bytes up to `HUGE_PAGE`: page-aligned is then
        // 8-aligned, and 2 MiB boundaries are page boundaries.
        let page = usize::try_from(page)
            .ok()
            .filter(|&p| p.is_power_of_two() && p >= 8 && HUGE_PAGE.is_multiple_of(p))?;
        let bytes = len.checked_mul(8)?.checked_next_multiple_of(page)?;
        let base = map_aligned(bytes)?;
        let later = huge && !populate && collapses();
        if huge {
            // A table to collapse later is kept off huge pages until then:
            // in THP's `always` mode its writes would otherwise each zero a
            // whole huge page on first touch (and with `defrag` set to
            // `always`, compact memory for it).
            let advice = if later {
                libc::MADV_NOHUGEPAGE
            } else {
                libc::MADV_HUGEPAGE
            };
            // SAFETY: [base, base + bytes) is our own mapping, not yet
            // touched; madvise changes only how the kernel backs it, never
            // its contents. A failure (THP disabled or absent) is harmless:
            // the table then gets 4 KiB pages (or, not kept off them, huge
            // pages in `always` mode).
            unsafe { libc::madvise(base.cast(), bytes, advice) };
        }
        // Back the table now, as `alloc_zeroed` would have, so the first
        // lookups do not pay the page faults.
        // SAFETY: as above; populating leaves the contents (zero) unchanged.
        if populate && unsafe { libc::madvise(base.cast(), bytes, libc::MADV_POPULATE_WRITE) } != 0
        {
            // Kernels before 5.14 lack MADV_POPULATE_WRITE (EINVAL). On that
            // or any other failure, fault every page in by writing the zero
            // it already holds, as `alloc_zeroed` would have.
            for offset in (0..bytes).step_by(page) {
                // SAFETY: `offset < bytes`, so the 8-byte word at
                // `base + offset` (page-aligned, hence 8-aligned) lies in our
                // writable mapping, which nothing else references yet.
                unsafe { std::ptr::write_volatile(base.add(offset).cast::<u64>(), 0) };
            }
        }
        Some(Words {
            ptr: std::ptr::NonNull::new(base.cast::<AtomicU64>())?,
            len,
            source: Source::Mapped {
                len: bytes,
                huge,
                later,
            },
        })
    }

    /// Words holding `parts` one after another (little-endian, a multiple
    /// of 8 bytes in all, at least 64) then `padding` zero words, allocated
    /// as [`Words::zeroed`] allocates them: a saved table loaded back, from
    /// one slice or from the chunks a stream arrived in. The caller has
    /// checked the parts are as long as the table they claim to be, so
    /// nothing larger than the input (and the padding) is allocated.
    pub(crate) fn from_le_bytes(
        parts: &[&[u8]],
        padding: usize,
        huge_pages: bool,
    ) -> Result<Self, BuildError> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        debug_assert!(total.is_multiple_of(8) && total >= 64);
        #[cfg(target_endian = "little")]
        {
            // Not zeroed first: the copies initialize every byte but the
            // padding's, and zeroing 2 MiB-aligned memory is a whole extra
            // pass over it.
            let words = Words::allocate(total / 8 + padding, huge_pages, false, true)?;
            debug_assert_eq!(words.len * 8, total + padding * 8);
            // SAFETY: `words` is our fresh allocation of exactly
            // `total + 8 * padding` bytes (len >= 8 words), not yet shared
            // or dereferenced, and no part can overlap it; the parts fill
            // bytes `0..total` one after another and the zeroing the rest,
            // so all of it is initialized before anyone reads it. AtomicU64
            // has the size and bit validity of u64, and on a little-endian
            // target the stored bytes are the words' in-memory
            // representation.
            unsafe {
                let mut dst = words.ptr.as_ptr().cast::<u8>();
                for part in parts {
                    std::ptr::copy_nonoverlapping(part.as_ptr(), dst, part.len());
                    dst = dst.add(part.len());
                }
                std::ptr::write_bytes(dst, 0, padding * 8);
            }
            Ok(words)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let words = Words::zeroed(total / 8 + padding, huge_pages)?;
            let mut bytes = parts.iter().flat_map(|p| p.iter().copied());
            for w in words.iter().take(total / 8) {
                let mut b = [0u8; 8];
                b.iter_mut()
                    .for_each(|x| *x = bytes.next().expect("8 bytes a word"));
                w.store(u64::from_le_bytes(b), crate::sync::Ordering::Relaxed);
            }
            Ok(words)
        }
    }
}

/// A fresh anonymous mapping of `bytes` bytes (a multiple of the page
/// size, which divides 2 MiB) starting at a 2 MiB boundary, zero and not
/// yet touched; `None` if the kernel will not map it. The caller owns it:
/// nothing else refers to it, and it is freed with `munmap(base, bytes)`.
#[cfg(all(target_os = "linux", not(miri)))]
fn map_aligned(bytes: usize) -> Option<*mut u8> {
    // Over-map by one huge page so a 2 MiB-aligned start lies inside.
    let over = bytes.checked_add(HUGE_PAGE)?;
    // SAFETY: a fresh private anonymous mapping at an address of the
    // kernel's choosing (no MAP_FIXED): it cannot alias any existing
    // memory. The result is checked against MAP_FAILED below.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED || raw.is_null() {
        return None;
    }
    let head = (raw as usize).next_multiple_of(HUGE_PAGE) - raw as usize;
    let tail = over - head - bytes;
    let base = raw.cast::<u8>().wrapping_add(head);
    // `raw`, `base` and `base + bytes` are all multiples of the page size
    // (mmap returns page-aligned memory; `HUGE_PAGE` and `bytes` are
    // multiples of it), as munmap requires.
    if head > 0 {
        // SAFETY: [raw, base) is the head of the mapping made above and
        // nothing refers to it. A failure would only leak it.
        unsafe { libc::munmap(raw, head) };
    }
    if tail > 0 {
        // SAFETY: [base + bytes, raw + over) is the rest of that mapping,
        // past what is kept; nothing refers to it.
        unsafe { libc::munmap(base.wrapping_add(bytes).cast(), tail) };
    }
    Some(base)
}

impl Deref for Words {
    type Target = [AtomicU64];
    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `len` initialized words aligned for
        // AtomicU64 or more: zeroed (`alloc_zeroed` or a fresh anonymous
        // mapping) or, for a loaded table, written in full by
        // `from_le_bytes` before the `Words` is returned. Every bit pattern
        // is a valid AtomicU64, and the memory lives until `self` is
        // dropped.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        match self.source {
            // SAFETY: allocated in `allocate` with exactly this layout,
            // `offset` bytes before `ptr`; freed once.
            Source::Heap { layout, offset } => unsafe {
                std::alloc::dealloc(self.ptr.as_ptr().cast::<u8>().sub(offset), layout)
            },
            // SAFETY: `ptr..ptr + len` is exactly the mapping `mapped` kept,
            // unmapped once; no reference into it outlives `self`.
            #[cfg(all(target_os = "linux", not(miri)))]
            Source::Mapped { len, .. } => unsafe {
                libc::munmap(self.ptr.as_ptr().cast(), len);
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Ordering;

    /// Every way `allocate` takes memory gives cache-line-aligned zero
    /// words that take writes and are freed as they were allocated (Miri
    /// checks the pairing of each `dealloc` with its allocation).
    #[test]
    fn every_allocation_is_line_aligned_zeroed_and_writable() {
        let sizes: &[usize] = if cfg!(miri) {
            &[8, 9, 1000]
        } else {
            &[8, 9, 1000, 1 << 20]
        };
        for &len in sizes {
            for huge in [false, true] {
                let made = [
                    ("zeroed", Words::zeroed(len, huge)),
                    ("zeroed lazily", Words::zeroed_lazily(len, huge)),
                ];
                for (how, words) in made {
                    let words = words.expect("allocated");
                    assert_eq!(words.len(), len.max(8), "{how}, {len} words");
                    assert_eq!(
                        words.as_ptr().addr() % 64,
                        0,
                        "{how}, {len} words, huge {huge}"
                    );
                    assert!(
                        words.iter().all(|w| w.load(Ordering::Relaxed) == 0),
                        "{how}"
                    );
                    for (k, w) in words.iter().enumerate() {
                        w.store(k as u64 + 1, Ordering::Relaxed);
                    }
                    let last = words.len() - 1;
                    assert_eq!(words[last].load(Ordering::Relaxed), last as u64 + 1);
                }
            }
        }
    }

    /// A table moved onto huge pages piece by piece keeps every word, and
    /// the moving ends past its last piece (a tail shorter than 2 MiB
    /// included). Whether the pages are huge afterwards is the kernel's
    /// answer: tests/it/huge_pages.rs reads it.
    #[test]
    #[cfg_attr(miri, ignore = "no mappings under Miri")]
    fn collapsing_keeps_every_word() {
        let len = (5 << 20) / 8 + 3;
        let words = Words::zeroed_lazily(len, true).expect("allocated");
        assert_eq!(words.collapses_later(), collapses());
        for (k, w) in words.iter().enumerate().step_by(97) {
            w.store(k as u64 ^ 0x5a5a, Ordering::Relaxed);
        }
        let mut pieces = 0;
        while words.collapse_part(pieces) {
            pieces += 1;
        }
        assert_eq!(pieces, if collapses() { 3 } else { 0 });
        for (k, w) in words.iter().enumerate() {
            let want = if k % 97 == 0 { k as u64 ^ 0x5a5a } else { 0 };
            assert_eq!(w.load(Ordering::Relaxed), want, "word {k}");
        }
        assert!(!Words::zeroed(len, true)
            .expect("allocated")
            .collapses_later());
    }
}
