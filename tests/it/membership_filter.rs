//! Runs examples/membership_filter.rs small: 5,000 keys in a redb store,
//! the filter updated around each commit, saved with the commit id, and
//! restarted fresh, stale, torn and missing. The example checks every
//! answer against the store itself; this test checks what it reports.

#[path = "../../examples/membership_filter.rs"]
mod example;

use example::Startup;

#[test]
fn the_membership_filter_example_runs_small() {
    let dir = std::env::temp_dir().join(format!("cuckoo-membership-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // 50,000 overwrites of 5,000 keys (the example's own default: 1M of
    // 10k).
    let report = example::run(&dir, 5_000, std::time::Duration::from_micros(20), 2_000, 10);
    let _ = std::fs::remove_dir_all(&dir);
    let report = report.unwrap();
    example::print(&report);
    assert_eq!(report.overwrites, 50_000);
    let how: Vec<&Startup> = report.startups.iter().map(|(_, h)| h).collect();
    assert_eq!(
        how,
        [
            &Startup::Rebuilt("missing"),
            &Startup::Loaded,
            &Startup::Rebuilt("stale"),
            &Startup::Rebuilt("torn"),
            &Startup::Rebuilt("missing"),
        ]
    );
    // Without the filter every lookup reads the store; with it, the absent
    // half (0.1% false positives) almost never does.
    assert_eq!(report.store_reads_without, 2_000);
    assert!(
        report.store_reads_with >= 1_000 && report.store_reads_with < 1_050,
        "{report:?}"
    );
}
