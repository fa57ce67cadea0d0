//! A growable filter when the system refuses the process-wide barrier its
//! growth steps take (a seccomp filter denying `membarrier`): it falls back
//! to the page-protection barrier and goes on growing, losing nothing; if
//! that is refused too, the insert that needs a step says so
//! (`InsertError::GrowthBlocked`), keeps every item, and a later insert
//! grows once a barrier works again.
//!
//! A binary of its own: the hook that makes barriers fail changes
//! process-wide state that the other tests' filters would share.

use cuckoo_nest::{debug_fail_barriers, CuckooFilter, InsertError, PreHashed};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};

fn key(i: u64) -> u64 {
    cuckoo_nest::StableHasher::hash_one(7, &i)
}

#[test]
fn growth_falls_back_when_membarrier_fails_and_says_when_no_barrier_works() {
    let light = debug_fail_barriers(true, false);
    if !light {
        eprintln!("this system's growth steps take no membarrier: only the fence path runs");
    }
    let filter = CuckooFilter::builder()
        .capacity(1_000)
        .false_positive_rate(0.01)
        .growable(true)
        .build()
        .unwrap();
    let first = filter.capacity();
    let published = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let false_negatives = AtomicU64::new(0);
    // Growth steps on the fallback barrier while another thread looks up.
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u64;
            while !done.load(SeqCst) {
                let n = published.load(SeqCst);
                if n > 0 && !filter.contains(&PreHashed(key(i % n))) {
                    false_negatives.fetch_add(1, SeqCst);
                }
                i = i.wrapping_add(7919);
            }
        });
        for i in 0..16 * first as u64 {
            filter
                .insert(&PreHashed(key(i)))
                .unwrap_or_else(|e| panic!("insert {i} on the fallback barrier: {e}"));
            published.store(i + 1, SeqCst);
        }
        done.store(true, SeqCst);
    });
    assert_eq!(false_negatives.load(SeqCst), 0);
    assert!(
        filter.capacity() >= 16 * first,
        "grew to {}",
        filter.capacity()
    );
    let mut n = 16 * first as u64;

    // No barrier at all: the insert that needs a growth step is refused
    // with the reason, and nothing is lost.
    debug_fail_barriers(true, true);
    let refused = (n..64 * first as u64).find_map(|i| match filter.insert(&PreHashed(key(i))) {
        Ok(()) => {
            n = i + 1;
            None
        }
        Err(e) => Some((i, e)),
    });
    if light {
        let (i, e) = refused.expect("a growth step with no barrier refused");
        assert_eq!(e, InsertError::GrowthBlocked);
        assert_eq!(filter.len(), i as usize);
        assert!((0..i).all(|k| filter.contains(&PreHashed(key(k)))));
        // A barrier works again: the same insert grows the filter.
        debug_fail_barriers(true, false);
        let before = filter.capacity();
        filter.insert(&PreHashed(key(i))).unwrap();
        filter.finish_growth();
        assert!(filter.capacity() > before);
        assert!((0..=i).all(|k| filter.contains(&PreHashed(key(k)))));
    } else {
        assert_eq!(refused, None, "fences need no system call");
        assert!((0..n).all(|k| filter.contains(&PreHashed(key(k)))));
    }
}
