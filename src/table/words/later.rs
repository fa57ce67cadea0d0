//! Backing a table's pages while it is in use, a piece at a time: ahead
//! of a growth step by a thread of its own ([`Words::populate_part`]), or,
//! where the kernel can, moving a step's table onto huge pages after it
//! ([`Words::collapse_part`]). Neither changes what the words hold.

use super::Words;
#[cfg(all(target_os = "linux", not(miri)))]
use super::{Source, HUGE_PAGE};

/// True if this kernel moves a range onto huge pages when asked
/// (`MADV_COLLAPSE`, Linux 6.1 and later), asked once per process: the
/// advice on an empty range, which a kernel that does not know it refuses
/// (`EINVAL`) before it looks at the range, and one that does accepts.
/// Elsewhere false: a growth step's huge table is then advised and backed
/// ahead of its step (`grow/pages.rs`, `prepare_next`).
pub(crate) fn collapses() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
    {
        static ANSWER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ANSWER.get_or_init(|| {
            // SAFETY: a length of 0 advises no memory at all; the address
            // (2 MiB) is page-aligned, as madvise requires even then.
            unsafe { libc::madvise(HUGE_PAGE as *mut libc::c_void, 0, libc::MADV_COLLAPSE) == 0 }
        })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
    false
}

/// Backs a huge page in a scratch mapping and frees it again, just before
/// [`Words::collapse_part`] asks the kernel for one: the kernel copies a
/// piece into its new huge page while every access to the piece waits, and
/// a page the host has not backed yet (this project's VM reclaims a guest's
/// free memory after some idle seconds) made that copy 5.5-6 ms, not 0.4;
/// the page just freed is the one the next huge-page allocation on this CPU
/// most likely takes (docs/benchmarks.md, "The next table collapsed after
/// its step"). Only the collapsing thread waits for this backing.
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
fn back_a_spare_huge_page() {
    let Some(page) = super::map_aligned(HUGE_PAGE) else {
        return;
    };
    let page = page.cast();
    // SAFETY: [page, page + 2 MiB) is exactly the fresh 2 MiB-aligned
    // mapping made above, which nothing refers to; the advice and the
    // populate change only how it is backed, and the unmap ends it. A
    // failure of any of them only makes this useless.
    unsafe {
        libc::madvise(page, HUGE_PAGE, libc::MADV_HUGEPAGE);
        libc::madvise(page, HUGE_PAGE, libc::MADV_POPULATE_WRITE);
        libc::munmap(page, HUGE_PAGE);
    }
}

/// Tries of a piece's collapse that the kernel refuses as transient
/// ([`Words::collapse_part`]).
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
const COLLAPSE_TRIES: u32 = 5;

impl Words {
    /// True if [`Words::populate_part`] has pieces to back: memory of its
    /// own mapping, not the heap's.
    #[cfg_attr(miri, allow(dead_code))]
    pub(crate) fn populates(&self) -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if let Source::Mapped { .. } = self.source {
            return true;
        }
        false
    }

    /// Backs piece `k` of a table allocated [`Words::zeroed_lazily`]: 2 MiB
    /// (one huge page) or 256 KiB, so whoever prepares the table ahead of
    /// use pays one short page-fault burst at a time. False once `k` is past
    /// the end, or for memory that has no pieces to back (heap memory, other
    /// platforms).
    pub(crate) fn populate_part(&self, k: usize) -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if let Source::Mapped { len, huge, .. } = self.source {
            let piece = if huge { HUGE_PAGE } else { 256 << 10 };
            let Some(start) = k.checked_mul(piece).filter(|&s| s < len) else {
                return false;
            };
            let bytes = piece.min(len - start);
            // SAFETY: [ptr + start, ptr + start + bytes) lies in our own
            // mapping (`start < len`, `bytes <= len - start`), and `start` is
            // a multiple of the page size (`piece` is). Populating backs the
            // pages without changing their contents (zero, or words written
            // through atomics), whoever else reads or writes them meanwhile.
            // A failure (kernels before 5.14) leaves them to be backed on
            // first touch, as without this call.
            unsafe {
                libc::madvise(
                    self.ptr.as_ptr().cast::<u8>().add(start).cast(),
                    bytes,
                    libc::MADV_POPULATE_WRITE,
                )
            };
            return true;
        }
        let _ = k;
        false
    }

    /// True if this table waits on 4 KiB pages for
    /// [`Words::collapse_part`] to give it huge pages (see
    /// [`Words::zeroed_lazily`]).
    // Only the growth step's thread asks, which Miri leaves out.
    #[cfg_attr(miri, allow(dead_code))]
    pub(crate) fn collapses_later(&self) -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        if let Source::Mapped { later, .. } = self.source {
            return later;
        }
        false
    }

    /// Moves piece `k` (2 MiB) of a table that [`Words::collapses_later`]
    /// onto a huge page (`MADV_COLLAPSE`); once past the last piece, advises
    /// the whole table for huge pages (it was kept off them till then), so
    /// that khugepaged merges any piece the kernel could not collapse then
    /// (no free huge page). The kernel
    /// copies the piece's 4 KiB pages into the huge page while every access
    /// to that piece waits in a page fault: 0.4-1.0 ms on this project's
    /// host (docs/benchmarks.md, "The next table collapsed after its step").
    /// False once `k` is past the end, or for any other table. A tail
    /// shorter than 2 MiB stays on 4 KiB pages.
    #[cfg_attr(miri, allow(dead_code))]
    pub(crate) fn collapse_part(&self, k: usize) -> bool {
        #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
        if let Source::Mapped {
            len, later: true, ..
        } = self.source
        {
            let base = self.ptr.as_ptr().cast::<u8>();
            let Some(start) = k.checked_mul(HUGE_PAGE).filter(|&s| s < len) else {
                if k.checked_mul(HUGE_PAGE) == Some(len.next_multiple_of(HUGE_PAGE)) {
                    self.advise_huge_pages();
                }
                return false;
            };
            if len - start >= HUGE_PAGE {
                // A piece no write has reached has no page table, which the
                // collapse needs: hence the populate of one page (a length
                // of 1 is rounded up to a page). And the kernel collapses
                // no range kept off huge pages: hence the advice first,
                // once the piece has a page table (so a later first touch
                // in it takes a 4 KiB page, not a huge one). A failure of
                // any leaves the piece on 4 KiB pages, as it was.
                let piece = base.wrapping_add(start).cast();
                // SAFETY: [piece, piece + 2 MiB) lies in our own mapping
                // (`len - start >= 2 MiB`), 2 MiB-aligned (a multiple of 2
                // MiB from a 2 MiB-aligned base). Populating backs a page
                // without changing its contents, and the advice changes
                // only how the kernel backs the range, whoever reads or
                // writes it meanwhile.
                unsafe {
                    libc::madvise(piece, 1, libc::MADV_POPULATE_WRITE);
                    libc::madvise(piece, HUGE_PAGE, libc::MADV_HUGEPAGE);
                }
                // The kernel refuses with EAGAIN what it calls transient
                // (pages just faulted in, not yet on its LRU lists; a page
                // another thread holds): a table its writes are filling
                // met it (a new chain's, while the tests ran beside it), so
                // a few more tries, a millisecond apart.
                for attempt in 0..COLLAPSE_TRIES {
                    if attempt > 0 {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    back_a_spare_huge_page();
                    // SAFETY: the same range. Collapsing moves its contents
                    // to a huge page unchanged, whoever reads or writes them
                    // meanwhile (the kernel holds their accesses in a page
                    // fault while it copies).
                    let done = unsafe { libc::madvise(piece, HUGE_PAGE, libc::MADV_COLLAPSE) } == 0;
                    let transient = !done
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN);
                    if !transient {
                        break;
                    }
                }
            }
            return true;
        }
        let _ = k;
        false
    }

    /// Advises the whole of a table that [`Words::collapses_later`] for
    /// huge pages (it was kept off them), so that khugepaged merges it in
    /// its own time: where [`Words::collapse_part`] has been through every
    /// piece, for those the kernel could not collapse then, and where no
    /// thread could start to collapse any. Nothing for any other table.
    #[cfg_attr(miri, allow(dead_code))]
    pub(crate) fn advise_huge_pages(&self) {
        #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
        if let Source::Mapped {
            len, later: true, ..
        } = self.source
        {
            // SAFETY: [ptr, ptr + len) is exactly our own mapping; the
            // advice changes how the kernel backs it, never its contents,
            // whoever reads or writes it meanwhile. A failure leaves it as
            // it is.
            unsafe { libc::madvise(self.ptr.as_ptr().cast(), len, libc::MADV_HUGEPAGE) };
        }
    }
}
