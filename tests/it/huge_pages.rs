//! Transparent huge pages actually back a large table right after `build`
//! (Linux only: the test reads /proc/self/smaps).
//!
//! The kernel gives a 2 MiB page only to a region advised before its first
//! touch (in `madvise` mode); these tests check that `huge_pages(true)` gets
//! them and that `huge_pages(false)` still builds a working filter.

#![cfg(target_os = "linux")]

use cuckoo_nest::CuckooFilter;

const MIB: usize = 1 << 20;

/// The bracketed THP mode, or why huge pages cannot be expected here.
fn thp_mode() -> Result<String, String> {
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mode = text
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .ok_or_else(|| format!("{path}: no mode selected in {text:?}"))?;
    match mode.as_str() {
        "madvise" | "always" => Ok(mode),
        other => Err(format!("transparent huge pages are `{other}`")),
    }
}

/// [`thp_mode`], or `None` after saying why the test is skipped.
fn thp_mode_or_skip() -> Option<String> {
    thp_mode()
        .map_err(|why| eprintln!("skipped: {why}"))
        .ok()
}

/// The address range of a mapping's header line in /proc/self/smaps
/// ("lo-hi perms offset dev inode path"); `None` for any other line.
fn mapping_range(line: &str) -> Option<(usize, usize)> {
    let (lo, hi) = line.split_whitespace().next()?.split_once('-')?;
    Some((usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?))
}

/// Bytes of AnonHugePages in the mappings of /proc/self/smaps that overlap
/// `[start, start + len)`, each counted at most up to its overlap with that
/// range (so huge pages elsewhere in a larger mapping cannot pass the test).
fn anon_huge_bytes(start: usize, len: usize) -> usize {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
    let end = start + len;
    let mut total = 0;
    let mut overlap = None;
    for line in smaps.lines() {
        if let Some((lo, hi)) = mapping_range(line) {
            overlap = (lo < end && hi > start).then(|| hi.min(end) - lo.max(start));
            continue;
        }
        if let (Some(ov), Some(rest)) = (overlap, line.strip_prefix("AnonHugePages:")) {
            let kib: usize = rest
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .expect("AnonHugePages in kB");
            total += (kib * 1024).min(ov);
        }
    }
    total
}

/// Asserts that the current table of `filter` (a growable filter's
/// `what`), 4 MiB or more, is on huge pages within 3 s, but for a tail
/// shorter than 2 MiB, which stays on 4 KiB pages. Moved by the filter's
/// thread, its pieces take milliseconds; khugepaged alone (what a table
/// advised but never collapsed would wait for) scans 16 MiB every 10 s by
/// default, so 3 s catches most runs of a collapse that does nothing.
fn assert_current_table_on_huge_pages(filter: &CuckooFilter, what: &str, mode: &str) {
    let (start, len) = filter.debug_table_ptr();
    assert!(len >= 4 * MIB, "the {what} is {len} bytes, meant to be 4 MiB or more");
    let whole = len / (2 * MIB) * (2 * MIB);
    let waited = std::time::Instant::now();
    let mut huge = anon_huge_bytes(start, len);
    while huge < whole && waited.elapsed() < std::time::Duration::from_secs(3) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        huge = anon_huge_bytes(start, len);
    }
    eprintln!(
        "THP {mode}: {what} {:.1} MiB, AnonHugePages {:.1} MiB after {:?}",
        len as f64 / MIB as f64,
        huge as f64 / MIB as f64,
        waited.elapsed()
    );
    assert!(
        huge * 10 >= whole * 9,
        "only {} of the {what}'s {} MiB are on huge pages",
        huge / MIB,
        len / MIB
    );
}

/// A default (4 x 16-bit) filter whose table is about 256 MiB: the table is
/// 2 bytes per slot, with slots for a little more than the capacity.
fn filter_256_mib(huge_pages: bool) -> CuckooFilter {
    let filter = CuckooFilter::builder()
        .capacity(128_000_000)
        .huge_pages(huge_pages)
        .build()
        .expect("a 256 MiB table");
    let (_, len) = filter.debug_table_ptr();
    assert!(
        (256 * MIB..=272 * MIB).contains(&len),
        "table is {} MiB, meant to be about 256",
        len / MIB
    );
    filter
}

#[test]
fn huge_pages_back_the_table_right_after_build() {
    let Some(mode) = thp_mode_or_skip() else {
        return;
    };
    let filter = filter_256_mib(true);
    let (start, len) = filter.debug_table_ptr();
    let huge = anon_huge_bytes(start, len);
    eprintln!(
        "THP {mode}: table {:.1} MiB, AnonHugePages {:.1} MiB ({:.1}%)",
        len as f64 / MIB as f64,
        huge as f64 / MIB as f64,
        100.0 * huge as f64 / len as f64
    );
    assert!(
        huge * 10 >= len * 9,
        "only {} of the table's {} MiB are on huge pages",
        huge / MIB,
        len / MIB
    );
    // The table is still an ordinary, zeroed, working table.
    assert!(filter.is_empty());
    for k in 0..10_000u64 {
        filter.insert(&k).unwrap();
    }
    assert!((0..10_000u64).all(|k| filter.contains(&k)));
}

/// A growable filter's table after a growth step ends on huge pages too:
/// prepared ahead of the step on them, or (where the kernel collapses ranges
/// on request, Linux 6.1 on) filled by the step on 4 KiB pages and moved
/// onto huge ones by a thread of the filter's once the copy is done.
#[test]
fn a_grown_table_ends_on_huge_pages() {
    let Some(mode) = thp_mode_or_skip() else {
        return;
    };
    let (filter, k) = grown_once();
    assert_current_table_on_huge_pages(&filter, "grown table", &mode);
    assert!((0..k).all(|k| filter.contains(&k)), "a false negative");
}

/// A growable filter built for 1M items on huge pages, its keys `0..k` taking
/// it through one growth step, the step finished (on this thread: with no
/// other writes, the step's every chunk is copied here).
fn grown_once() -> (CuckooFilter, u64) {
    let filter = CuckooFilter::builder()
        .capacity(1_000_000)
        .false_positive_rate(0.01)
        .growable(true)
        .huge_pages(true)
        .build()
        .expect("a growable filter");
    let first = filter.capacity();
    let mut k = 0u64;
    while filter.capacity() == first {
        filter.insert(&k).expect("insert");
        k += 1;
    }
    filter.finish_growth();
    (filter, k)
}

/// The same for the first table of a new chain (a growable filter past its
/// spare bits), which no step copies into: moved onto huge pages as soon as
/// it is published.
#[test]
fn a_new_chains_table_ends_on_huge_pages() {
    let Some(mode) = thp_mode_or_skip() else {
        return;
    };
    // Three spare bits: the second chain starts after three doublings, its
    // first table one level up from the first chain's first (with two, it
    // is at level 0, which is built backed, as a filter's first table is).
    let filter = CuckooFilter::builder()
        .capacity(1_000_000)
        .false_positive_rate(0.01)
        .growable(true)
        .spare_bits(3)
        .huge_pages(true)
        .build()
        .expect("a growable filter");
    let mut k = 0u64;
    while filter.statistics().tables == 1 {
        for _ in 0..1024 {
            filter.insert(&k).expect("insert");
            k += 1;
        }
    }
    assert_current_table_on_huge_pages(&filter, "new chain's table", &mode);
    assert!((0..k).all(|k| filter.contains(&k)), "a false negative");
}

/// The flags of the mapping of /proc/self/smaps that holds `addr` (its
/// `VmFlags:` line: `hg` for a range advised for huge pages, `nh` for one
/// kept off them).
fn vm_flags(addr: usize) -> Vec<String> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((lo, hi)) = mapping_range(line) {
            inside = (lo..hi).contains(&addr);
        } else if let (true, Some(flags)) = (inside, line.strip_prefix("VmFlags:")) {
            return flags.split_whitespace().map(str::to_string).collect();
        }
    }
    panic!("no mapping holds {addr:#x}")
}

/// A grown table whose thread cannot start to move it onto huge pages is
/// advised for them at once, for khugepaged to merge: it is not left kept
/// off them for good (where the kernel collapses ranges on request, a
/// step's table is kept off huge pages until then). Where it cannot, the
/// table was advised from the start and the check passes as well.
#[test]
fn a_grown_table_no_thread_can_collapse_is_left_to_khugepaged() {
    if thp_mode_or_skip().is_none() {
        return;
    }
    // This thread copies the step's last chunk, so it is the one that
    // would start the thread.
    cuckoo_nest::debug_refuse_thread_starts(true);
    let (filter, k) = grown_once();
    cuckoo_nest::debug_refuse_thread_starts(false);
    let (start, len) = filter.debug_table_ptr();
    assert!(len >= 4 * MIB, "the grown table is {len} bytes, meant to be 4 MiB or more");
    let flags = vm_flags(start);
    let advised = flags.iter().any(|f| f == "hg") && !flags.iter().any(|f| f == "nh");
    assert!(advised, "the grown table's mapping: VmFlags {flags:?}");
    assert!((0..k).all(|k| filter.contains(&k)), "a false negative");
}

#[test]
fn small_pages_still_work() {
    let filter = filter_256_mib(false);
    let (start, len) = filter.debug_table_ptr();
    eprintln!(
        "huge_pages(false): AnonHugePages {:.1} MiB of {:.1} MiB",
        anon_huge_bytes(start, len) as f64 / MIB as f64,
        len as f64 / MIB as f64
    );
    assert!(filter.is_empty());
    for k in 0..10_000u64 {
        filter.insert(&k).unwrap();
    }
    assert!((0..10_000u64).all(|k| filter.contains(&k)));
    assert_eq!(filter.len(), 10_000);
}
