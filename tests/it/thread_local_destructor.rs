//! An insert from inside a thread-local destructor, after the filter's own
//! per-thread search buffer has been destroyed, must still work: it used to
//! abort the process ("cannot access a Thread Local Storage value during or
//! after destruction").

use cuckoo_nest::CuckooFilter;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Fills its filter past the point where inserts displace when dropped, and
/// reports what happened.
struct FillOnDrop {
    filter: Arc<CuckooFilter>,
    keys: std::ops::Range<u64>,
    report: Arc<Mutex<Option<Result<(), String>>>>,
}

impl Drop for FillOnDrop {
    fn drop(&mut self) {
        let result = self
            .keys
            .clone()
            .try_for_each(|k| self.filter.insert(&k).map_err(|e| format!("key {k}: {e}")));
        *self.report.lock().unwrap() = Some(result);
    }
}

thread_local! {
    static FILL: RefCell<Option<FillOnDrop>> = const { RefCell::new(None) };
}

#[test]
fn insert_that_displaces_from_a_thread_local_destructor() {
    // 128 buckets of 4: 512 slots; 400 keys (78% load) make many inserts
    // displace.
    let filter = Arc::new(
        CuckooFilter::builder()
            .buckets(128)
            .bucket_size(4)
            .build()
            .unwrap(),
    );
    let report = Arc::new(Mutex::new(None));
    let (f, r) = (Arc::clone(&filter), Arc::clone(&report));
    std::thread::spawn(move || {
        // Registered first, so destroyed after the search buffer, which
        // the displacing inserts below register.
        FILL.with(|cell| {
            *cell.borrow_mut() = Some(FillOnDrop {
                filter: Arc::clone(&f),
                keys: 1000..1200,
                report: r,
            })
        });
        for k in 0..200u64 {
            f.insert(&k).expect("512 slots hold 400 keys");
        }
    })
    .join()
    .expect("the thread and its destructors ran without panicking");
    let result = report.lock().unwrap().take();
    assert_eq!(result, Some(Ok(())), "the destructor's inserts");
    assert_eq!(filter.len(), 400);
    for k in (0..200u64).chain(1000..1200) {
        assert!(filter.contains(&k), "key {k} lost");
    }
}

thread_local! {
    static GROW: RefCell<Option<FillOnDrop>> = const { RefCell::new(None) };
}

/// A growable filter used from a thread-local destructor that runs after
/// the thread's read-side slot was destroyed: its sections run on spare
/// slots they claim one at a time, and it still grows and keeps every key.
#[test]
fn growth_from_a_thread_local_destructor() {
    let filter = Arc::new(
        CuckooFilter::builder()
            .capacity(100)
            .false_positive_rate(0.01)
            .growable(true)
            .build()
            .unwrap(),
    );
    // Under miri (.ci/miri.sh), two growth steps, not four.
    let late = 1000..if cfg!(miri) { 1300 } else { 2000 };
    let report = Arc::new(Mutex::new(None));
    let (f, r) = (Arc::clone(&filter), Arc::clone(&report));
    let keys = late.clone();
    std::thread::spawn(move || {
        // Registered before the thread's first section registers its
        // slot, so destroyed after it.
        GROW.with(|cell| {
            *cell.borrow_mut() = Some(FillOnDrop {
                filter: Arc::clone(&f),
                keys,
                report: r,
            })
        });
        for k in 0..50u64 {
            f.insert(&k).expect("a growable filter takes every key");
            assert!(f.contains(&k));
        }
    })
    .join()
    .expect("the thread and its destructors ran without panicking");
    let result = report.lock().unwrap().take();
    assert_eq!(result, Some(Ok(())), "the destructor's inserts");
    let n = 50 + (late.end - late.start) as usize;
    assert_eq!(filter.len(), n);
    assert!(filter.capacity() >= n, "grew: {}", filter.capacity());
    for k in (0..50u64).chain(late) {
        assert!(filter.contains(&k), "key {k} lost");
    }
}
