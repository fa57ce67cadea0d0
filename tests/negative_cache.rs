//! Runs examples/negative_cache.rs small: a redb store of 20,000 keys, the
//! filter in front of it on every core, deletes, save, restart through a
//! memory-mapped FilterView and read_from, and a rebuild to compare. The
//! example checks its own answers (every stored key found by the view, the
//! loaded and the rebuilt filter); this test checks what it reports.

#[path = "../examples/negative_cache.rs"]
mod negative_cache;

#[test]
fn the_negative_cache_example_runs_small() {
    let dir =
        std::env::temp_dir().join(format!("cuckoo-negative-cache-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = negative_cache::run(&dir, 20_000, true);
    let _ = std::fs::remove_dir_all(&dir);
    let report = report.unwrap();
    negative_cache::print(&report);
    assert_eq!(report.keys, 20_000);
    assert_eq!(report.deleted, 2_000);
    // Half the queries are absent; the filter (0.1% false positives)
    // answers nearly all of those without a store read.
    let absent = report.queries as f64 / 2.0;
    assert!(
        report.store_reads_avoided as f64 > 0.9 * absent,
        "{report:?}"
    );
    assert!(
        report.store_reads_avoided as f64 <= 1.1 * absent,
        "{report:?}"
    );
    assert!(report.saved_bytes > 64);
}
