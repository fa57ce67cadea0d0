//! Model 7: a version counter wrapping around during a racing lookup.
//!
//! **Invariant: the lookup is never false, also when the move it races
//! takes the version counter from its largest value back to zero.** Built
//! with `--cfg cuckoo_small_stamp` the version is two bits wide: a `clear`
//! in the setup advances every stripe by one move (version 2), and the
//! displacement the lookup races advances P and R through 3 to 0. A
//! re-check that compared versions by size rather than equality would
//! accept the wrapped stamp and answer a false "no".
//!
//! (A lookup overtaken by two whole moves on both its stripes would see the
//! same 2-bit version again and can be fooled: that is what the width is
//! for. With the real 64-bit version a lookup would have to be overtaken by
//! 2^63 moves on one stripe.)
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, one_hop_to_primary, tiny, OneHop};
use loom::sync::Arc;
use loom::thread;

#[test]
#[cfg_attr(
    not(cuckoo_small_stamp),
    ignore = "needs RUSTFLAGS=\"--cfg cuckoo_nest_loom --cfg cuckoo_small_stamp\" (.ci/loom.sh runs it)"
)]
fn lookup_never_misses_across_a_version_wrap() {
    check("7 lookup vs move wrapping the version", 3, || {
        let filter = tiny(2);
        // One move on every stripe: version 0 -> 2 (of 0..=3).
        filter.clear();
        let OneHop { x, y, others, .. } = one_hop_to_primary(&filter);
        let filter = Arc::new(filter);
        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || filter.contains(&PreHashed(x.hash)))
        };
        // The move of x: versions of P and R go 2 -> 3 -> 0.
        filter
            .insert(&PreHashed(y.hash))
            .expect("room one hop away");
        assert!(
            reader.join().unwrap(),
            "false negative: lookup missed {x:?} across a version wrap"
        );
        for it in others.iter().chain([&x, &y]) {
            assert!(filter.contains(&PreHashed(it.hash)), "{it:?} lost");
        }
    });
}
