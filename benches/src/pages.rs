//! A large, zeroed, 2 MiB-aligned buffer of u64s on the page size asked for: the memory the
//! cache-line load rates (the report's hardware limit, the criterion bench's baseline) are
//! measured on.
//!
//! The page size is chosen in the order cuckoo-nest's own table memory uses (`src/table/words.rs`),
//! because only that order works: in THP's `madvise` mode a page fault in a region not yet
//! advised gets a 4 KiB page, and once a region is on 4 KiB pages only khugepaged merges them,
//! slowly. `alloc_zeroed` of a block this large has already mapped (and for an aligned layout,
//! written) its pages, so advising afterwards measured "2 MiB pages" on 4 KiB pages. On Linux the
//! buffer is therefore its own anonymous `mmap`, over-sized by 2 MiB and trimmed to a 2 MiB-aligned
//! start, advised (`MADV_HUGEPAGE`, or `MADV_NOHUGEPAGE` for the 4 KiB-page measurement, which
//! THP's `always` mode would otherwise back with huge pages) before anything touches it, and only
//! then populated (`MADV_POPULATE_WRITE`, or one write per page on kernels before 5.14), so no page
//! fault lands in a measurement. Elsewhere it is `alloc_zeroed`, without advice.

#[cfg(not(target_os = "linux"))]
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// Transparent huge page size on x86_64 and (4 KiB-granule) aarch64 Linux.
pub const HUGE_PAGE: usize = 2 << 20;

/// A zeroed, 2 MiB-aligned buffer of u64s, a whole number of 2 MiB pages long, backed (page
/// faults taken) when `new` returns.
pub struct Buffer {
    ptr: NonNull<u64>,
    /// Length in bytes, a multiple of `HUGE_PAGE`.
    bytes: usize,
    /// The layout `alloc_zeroed` was given, for `dealloc`.
    #[cfg(not(target_os = "linux"))]
    layout: Layout,
}

// SAFETY: `Buffer` owns its memory exclusively (no other pointer to it exists) and hands it out
// only through `&self`/`&mut self` borrows, like a `Vec<u64>`.
unsafe impl Send for Buffer {}
// SAFETY: as above; through `&Buffer` the memory is only read.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// At least `bytes` bytes (rounded up to whole 2 MiB pages), on 2 MiB pages if `huge`, else
    /// on 4 KiB pages; the page size is a request to the kernel (THP may be off).
    pub fn new(bytes: usize, huge: bool) -> Result<Buffer, String> {
        let bytes = bytes
            .max(1)
            .checked_next_multiple_of(HUGE_PAGE)
            .ok_or_else(|| format!("a buffer of {bytes} bytes is too large"))?;
        Self::allocate(bytes, huge)
    }

    #[cfg(target_os = "linux")]
    fn allocate(bytes: usize, huge: bool) -> Result<Buffer, String> {
        let failed = |what: &str| {
            format!(
                "could not {what} {} MiB: {}",
                bytes >> 20,
                std::io::Error::last_os_error()
            )
        };
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        // A power of two of at least 8 that divides `HUGE_PAGE`: then 2 MiB boundaries are page
        // boundaries, and page-aligned addresses are u64-aligned.
        let page = usize::try_from(page)
            .ok()
            .filter(|&p| p.is_power_of_two() && p >= 8 && HUGE_PAGE.is_multiple_of(p))
            .ok_or_else(|| format!("unexpected page size {page}"))?;
        // Over-map by one huge page so that a 2 MiB-aligned start lies inside.
        let over = bytes
            .checked_add(HUGE_PAGE)
            .ok_or_else(|| format!("a buffer of {bytes} bytes is too large"))?;
        // SAFETY: a fresh private anonymous mapping at an address of the kernel's choosing (no
        // MAP_FIXED), so it cannot alias any existing memory; the result is checked against
        // MAP_FAILED below.
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
            return Err(failed("map"));
        }
        // `raw` is page-aligned (mmap's contract), and `HUGE_PAGE` and `bytes` are multiples of
        // `page`, so `head`, `base` and `base + bytes` are all page-aligned, as munmap and
        // madvise require.
        let head = (raw as usize).next_multiple_of(HUGE_PAGE) - raw as usize;
        let tail = over - head - bytes;
        let base = raw.cast::<u8>().wrapping_add(head);
        if head > 0 {
            // SAFETY: [raw, base) is the start of the mapping made above, before the buffer;
            // nothing refers to it. A failure would only leak it.
            unsafe { libc::munmap(raw, head) };
        }
        if tail > 0 {
            // SAFETY: [base + bytes, raw + over) is the rest of that mapping, after the buffer;
            // nothing refers to it. A failure would only leak it.
            unsafe { libc::munmap(base.wrapping_add(bytes).cast(), tail) };
        }
        let advice = if huge {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        // SAFETY: [base, base + bytes) is our own mapping and nothing has touched it yet, which
        // is what lets the advice decide the page size; madvise changes only how the kernel
        // backs the range, never its contents. A failure (THP not built in) is harmless: the
        // buffer then has 4 KiB pages, which `thp_mode` in the report's notes shows.
        unsafe { libc::madvise(base.cast(), bytes, advice) };
        // Take every page fault now, not inside a measurement.
        // SAFETY: as above; populating leaves the contents (zero) unchanged.
        if unsafe { libc::madvise(base.cast(), bytes, libc::MADV_POPULATE_WRITE) } != 0 {
            // Kernels before 5.14 lack MADV_POPULATE_WRITE (EINVAL). On that or any other
            // failure, fault each page in by writing the zero it already holds.
            for offset in (0..bytes).step_by(page) {
                // SAFETY: `offset < bytes`, so the u64 at `base + offset` (page-aligned, hence
                // u64-aligned) lies inside our writable mapping, which nothing else refers to.
                unsafe { std::ptr::write_volatile(base.add(offset).cast::<u64>(), 0) };
            }
        }
        let ptr = NonNull::new(base.cast::<u64>()).ok_or_else(|| failed("map"))?;
        Ok(Buffer { ptr, bytes })
    }

    #[cfg(not(target_os = "linux"))]
    fn allocate(bytes: usize, huge: bool) -> Result<Buffer, String> {
        // No page-size advice here: the buffer gets whatever pages the platform gives.
        let _ = huge;
        let layout = Layout::from_size_align(bytes, HUGE_PAGE).map_err(|e| e.to_string())?;
        // SAFETY: `layout` has a non-zero size (at least one 2 MiB page).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw.cast::<u64>())
            .ok_or_else(|| format!("could not allocate {} MiB", bytes >> 20))?;
        Ok(Buffer { ptr, bytes, layout })
    }

    /// The buffer's words, to read.
    pub fn words(&self) -> &[u64] {
        // SAFETY: `ptr` points to `bytes` bytes owned by `self` until `drop`, u64-aligned (2 MiB
        // aligned) and initialised (zeroed by the mapping or `alloc_zeroed`, written since only
        // as u64s); the `&self` borrow keeps any `&mut` slice from coexisting with this one.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.bytes / 8) }
    }

    /// The buffer's words, to write.
    pub fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`; the `&mut self` borrow makes this slice the only access to the
        // memory while it lives.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes / 8) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: [ptr, ptr + bytes) is exactly the part of the mapping `allocate` kept (the rest
        // was unmapped there), unmapped once, here; no borrow of it outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.bytes);
        }
        #[cfg(not(target_os = "linux"))]
        // SAFETY: `ptr` came from `alloc_zeroed` with exactly `self.layout`; freed once, here.
        unsafe {
            dealloc(self.ptr.as_ptr().cast(), self.layout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_aligned_and_writable() {
        for huge in [true, false] {
            let mut buf = Buffer::new(HUGE_PAGE + 1, huge).unwrap();
            assert_eq!(buf.words().len(), 2 * HUGE_PAGE / 8);
            assert_eq!(buf.words().as_ptr() as usize % HUGE_PAGE, 0);
            assert!(buf.words().iter().all(|&w| w == 0));
            buf.words_mut().iter_mut().for_each(|w| *w = 7);
            assert!(buf.words().iter().all(|&w| w == 7));
        }
    }

    /// With THP in `madvise` or `always` mode, a buffer asked for huge pages gets them (as
    /// `/proc/self/smaps` counts them), and one asked for 4 KiB pages gets none.
    #[cfg(target_os = "linux")]
    #[test]
    fn pages_are_the_size_asked_for() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let thp_on = mode.contains("[madvise]") || mode.contains("[always]");
        let huge = Buffer::new(16 * HUGE_PAGE, true).unwrap();
        let small = Buffer::new(16 * HUGE_PAGE, false).unwrap();
        let (huge_kib, small_kib) = (
            anon_huge_kib(huge.words().as_ptr() as usize),
            anon_huge_kib(small.words().as_ptr() as usize),
        );
        assert_eq!(small_kib, Some(0), "4 KiB-page buffer");
        if thp_on {
            // How many huge pages the kernel finds free varies with the machine's load; with
            // the advice given after the first touch (the old order) there were none.
            let kib = huge_kib.expect("the mapping is in smaps");
            assert!(kib > 0, "no huge pages in a buffer advised for them");
        }
    }

    /// `AnonHugePages` of the mapping holding address `at`, in KiB.
    #[cfg(target_os = "linux")]
    fn anon_huge_kib(at: usize) -> Option<usize> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut in_it = false;
        for line in smaps.lines() {
            // A mapping's header starts with its range, `from-to` in hex; its fields with `Name:`.
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((from, to)) = first.split_once('-').filter(|_| !first.ends_with(':')) {
                let hex = |h: &str| usize::from_str_radix(h, 16).ok();
                in_it = matches!((hex(from), hex(to)), (Some(f), Some(t)) if f <= at && at < t);
                continue;
            }
            if in_it && let Some(v) = line.strip_prefix("AnonHugePages:") {
                return v.trim().trim_end_matches("kB").trim().parse().ok();
            }
        }
        None
    }
}
