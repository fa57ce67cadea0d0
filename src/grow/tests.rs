//! Growth on one thread and against a nest of sections: every generation,
//! the ceiling, copies across a step, clear.

use super::*;

fn keys(n: u64, salt: u64) -> impl Iterator<Item = u64> {
    (0..n).map(move |k| crate::hash::StableHasher::hash_one(salt, &k))
}

/// Under miri, which interprets every step (an insert into a small
/// table near its growth load takes it about 0.2 s), the unit tests
/// below fill a few hundred items, not thousands.
const MIRI: bool = cfg!(miri);

#[test]
fn grows_through_every_generation_and_loses_nothing() {
    // 64 buckets of 4 at first (16 under miri): 128x that is 32k slots.
    let (local, first) = if MIRI { (16, 60) } else { (64, 240) };
    let g = Growable::<4>::new(local, 12, SPARE_BITS, first, false, false).unwrap();
    // Under miri, to depth 3 only.
    let n = if MIRI { 60 * 8 } else { 240 * 100 };
    for (k, h) in keys(n, 1).enumerate() {
        g.insert(h, Copies::Any)
            .unwrap_or_else(|e| panic!("insert {k}: {e}"));
    }
    assert_eq!(g.len(), n as usize);
    assert!(g.depth() >= if MIRI { 2 } else { 6 }, "depth {}", g.depth());
    assert!(keys(n, 1).all(|h| g.contains(h)));
    // The fingerprints kept the key's 12 bits and the spare bits left.
    assert_eq!(g.stored_bits(), 12 + SPARE_BITS - g.depth());
    for h in keys(n / 2, 1) {
        assert!(g.remove(h));
    }
    assert_eq!(g.len(), (n - n / 2) as usize);
    assert!(keys(n, 1).skip((n / 2) as usize).all(|h| g.contains(h)));
}

#[test]
fn the_last_generation_full_is_full() {
    let g = Growable::<2>::new(4, 8, SPARE_BITS, 6, false, false).unwrap();
    assert!(g.can_grow());
    let (stored, err) = keys(1 << 20, 2)
        .enumerate()
        .find_map(|(k, h)| g.insert(h, Copies::Any).err().map(|e| (k, e)))
        .expect("a bounded filter fills");
    assert_eq!(
        err,
        InsertError::MaxCapacity {
            max_capacity: 6 << SPARE_BITS,
            len: stored
        }
    );
    assert_eq!(g.depth(), SPARE_BITS);
    assert!(!g.can_grow());
    // Refused at once from then on (no displacement search), while a
    // remove makes room again.
    let refused = keys(1 << 20, 3)
        .filter(|&h| g.insert(h, Copies::Any).is_err())
        .take(100)
        .count();
    assert_eq!(refused, 100);
    let first = keys(1, 2).next().unwrap();
    assert!(g.remove(first));
    assert_eq!(g.insert(first, Copies::Any), Ok(true));
    assert!(keys(stored as u64, 2).all(|h| g.contains(h)));
}

#[test]
fn unique_inserts_and_counts_see_copies_across_a_growth_step() {
    let g = Growable::<4>::new(16, 12, SPARE_BITS, 60, false, false).unwrap();
    let hs: Vec<u64> = keys(if MIRI { 300 } else { 2000 }, 3).collect();
    for &h in &hs {
        g.insert(h, Copies::Any).unwrap();
    }
    let before = g.len();
    // Every item is present: a unique insert adds nothing.
    for &h in &hs {
        assert!(!g.insert(h, Copies::Unique).unwrap());
        assert!(g.count(h) >= 1);
    }
    assert_eq!(g.len(), before);
}

/// A callback into the filter from inside a section (a `Hash` impl
/// that looks up in the same filter, recursing), nested deeper than a
/// slot's depth count, while another thread grows the filter: every
/// level keeps reading the state it loaded until it leaves, after the
/// steps that unlinked it have tried to free it.
#[test]
#[cfg_attr(miri, ignore = "70,000 nested sections take miri hours")]
fn sections_nested_past_the_depth_count_outlive_growth_steps() {
    // Levels below the outermost: 65,536 in all, as many as wrap a
    // 16-bit count to 0.
    const DEEP: usize = 65_535;
    let g = Growable::<4>::new(16, 12, SPARE_BITS, 60, false, false).unwrap();
    let first: Vec<u64> = keys(50, 5).collect();
    for &h in &first {
        g.insert(h, Copies::Any).unwrap();
    }
    let depth_at_first = g.depth();
    let bottom = std::sync::Barrier::new(2);
    let grown = std::sync::Barrier::new(2);
    // Each level loads the state, recurses, then looks its first keys
    // up in the generation it loaded.
    fn nest(g: &Growable<4>, levels: usize, first: &[u64], at_bottom: &dyn Fn()) -> bool {
        let guard = pin();
        let state = g.state.load(&guard);
        let below = levels == 0 || nest(g, levels - 1, first, at_bottom);
        if levels == 0 {
            at_bottom();
        }
        below
            && first.iter().all(|&h| {
                state.cur.table.contains_hash(h)
                    || state
                        .migration
                        .as_ref()
                        .is_some_and(|m| m.from.table.contains_hash(h))
            })
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            bottom.wait();
            // Several growth steps, each finished, and its unlinked
            // states offered for freeing, while the nest is inside.
            for h in keys(4_000, 6) {
                g.insert(h, Copies::Any).unwrap();
            }
            g.finish_growth();
            assert!(g.depth() >= depth_at_first + 3, "depth {}", g.depth());
            grown.wait();
        });
        let nester = std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn_scoped(s, || {
                nest(&g, DEEP, &first, &|| {
                    bottom.wait();
                    grown.wait();
                })
            })
            .unwrap();
        assert!(nester.join().unwrap(), "a nested level lost its first keys");
    });
}

#[test]
fn clear_empties_every_generation() {
    let g = Growable::<4>::new(16, 12, SPARE_BITS, 60, false, false).unwrap();
    let n = if MIRI { 250 } else { 1000 };
    for h in keys(n, 4) {
        g.insert(h, Copies::Any).unwrap();
    }
    assert!(g.depth() >= 2);
    g.clear();
    assert_eq!(g.len(), 0);
    assert!(keys(n, 4).all(|h| !g.contains(h)));
}
