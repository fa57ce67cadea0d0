//! Runs examples/membership_filter.rs small: 5,000 keys in a redb store,
//! the filter updated around each commit, saved with the commit id, and
//! restarted fresh, stale, torn and missing. The example checks every
//! answer against the store, and how each start had its filter.

#[path = "../../examples/membership_filter.rs"]
mod example;

#[test]
fn the_membership_filter_example_runs_small() {
    let dir = std::env::temp_dir().join(format!("cuckoo-membership-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let done = example::run(&dir, 5_000);
    let _ = std::fs::remove_dir_all(&dir);
    done.unwrap();
}
