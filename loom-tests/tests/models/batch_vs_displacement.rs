//! Model 9: batch lookups racing a displacement.
//!
//! **Invariant: a batch never reports false for an item inserted before it
//! began**, including the item being moved while the batch runs, and
//! returns the number of hits. The batch hashes and prefetches ahead and
//! probes with the same stamped lookup as `contains`; this checks the
//! pipelining did not reorder a probe outside its version check.
#![cfg(cuckoo_nest_loom)]

use cuckoo_nest::PreHashed;
use cuckoo_nest_loom_tests::{check, one_hop_to_primary, tiny, OneHop};
use loom::sync::Arc;
use loom::thread;

#[test]
fn batch_never_misses_a_moving_item() {
    check("9 batch lookup vs move", 3, || {
        let filter = tiny(2);
        let OneHop { x, y, others, .. } = one_hop_to_primary(&filter);
        // The moving item first and last, a bystander between: the batch
        // probes x while the move may be anywhere.
        let batch = [x.hash, others[1].hash, x.hash];
        let filter = Arc::new(filter);
        let reader = {
            let filter = Arc::clone(&filter);
            thread::spawn(move || {
                let mut out = vec![false; batch.len()];
                let hits = filter
                    .contains_batch_into(batch.iter().map(|&h| PreHashed(h)), &mut out)
                    .expect("out as long as the batch");
                (hits, out)
            })
        };
        filter
            .insert(&PreHashed(y.hash))
            .expect("room one hop away");
        let (hits, out) = reader.join().unwrap();
        assert_eq!(
            out,
            [true, true, true],
            "false negative in a batch while {x:?} moved"
        );
        assert_eq!(hits, 3);
    });
}
