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

/// Chunks of the step under way, if one is.
fn chunks_left_to_copy(g: &Growable<4>) -> Option<usize> {
    let guard = pin();
    let state = g.state.load(&guard);
    state.migration.as_ref().map(|m| m.chunks.len())
}

#[test]
fn a_step_ends_within_two_inserts_a_chunk() {
    // Each insert during a step copies its own item's chunks or, if it
    // copied neither, helps with the next: a step of `n` chunks ends
    // within `2n` inserts, long before the budget of new items that would
    // make one insert copy the rest (`finish`). Checked for every step of
    // a fill to depth 4 (depth 2 under miri) seen under way.
    let (local, first, depth) = if MIRI { (16, 60, 2) } else { (64, 240, 4) };
    let g = Growable::<4>::new(local, 12, SPARE_BITS, first, false, false).unwrap();
    let mut pool = keys(u64::MAX, 3);
    let mut inserted = Vec::new();
    let mut steps = 0;
    while g.depth() < depth {
        let h = pool.next().unwrap();
        g.insert(h, Copies::Any).unwrap();
        inserted.push(h);
        if let Some(chunks) = chunks_left_to_copy(&g) {
            steps += 1;
            let mut during = 0;
            while chunks_left_to_copy(&g).is_some() {
                let h = pool.next().unwrap();
                g.insert(h, Copies::Any).unwrap();
                inserted.push(h);
                during += 1;
            }
            assert!(during <= 2 * chunks, "{during} inserts for {chunks} chunks");
        }
    }
    // A step whose generation is two chunks (16 local buckets) can end
    // inside the insert that starts it, unseen here.
    assert!(steps + 1 >= depth as usize, "{steps} steps seen under way");
    assert!(inserted.iter().all(|&h| g.contains(h)));
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
/// that looks up in the same filter, recursing), nested 65,536 deep,
/// while another thread grows the filter: every level keeps reading the
/// state it loaded until it leaves, after the steps that unlinked it have
/// tried to free it. (A slot's mark once counted nesting in 16 bits,
/// which this depth wraps to 0; it is a parity now, written by the
/// outermost section only, and the test keeps the depth.)
#[test]
#[cfg_attr(miri, ignore = "70,000 nested sections take miri hours")]
fn deeply_nested_sections_outlive_growth_steps() {
    // Levels below the outermost: 65,536 in all.
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

/// A growable filter without a maximum, with 2 spare bits, of 2-slot
/// buckets and two chunks of a step's copy to a block (16 local buckets).
/// (Not under loom, whose chunks are one bucket.)
#[cfg(not(cuckoo_nest_loom))]
fn unbounded_two_spare_bits() -> Growable<2> {
    Growable::<2>::new(2 * CHUNK_BUCKETS, 8, 2, 5 * CHUNK_BUCKETS / 2, false, true).unwrap()
}

/// The current generation's addressing.
#[cfg(not(cuckoo_nest_loom))]
fn current_addr(g: &Growable<2>) -> Nested {
    let guard = pin();
    g.state.load(&guard).cur.addr
}

/// Keys (salt `salt`) of block 0 of the generation `addr` with two
/// distinct buckets, bound for the lower half of block 0 at the next
/// doubling.
#[cfg(not(cuckoo_nest_loom))]
fn lower_half_keys(addr: Nested, salt: u64) -> impl Iterator<Item = u64> {
    keys(1 << 22, salt).filter(move |&h| {
        let item = addr.item(h);
        let (i1, i2, _) = addr.place(item);
        i1 < addr.local && i1 != i2 && (item.x >> addr.level()) & 1 == 0
    })
}

/// Fills block 0 (two chunks' buckets) of `g`'s current generation, empty, with
/// two keys of `pool` in each bucket, its primary (so each goes straight
/// to a free slot, with no growth check). Returns the keys of the second
/// chunk's buckets.
#[cfg(not(cuckoo_nest_loom))]
fn fill_block_0(g: &Growable<2>, pool: &mut impl Iterator<Item = u64>) -> Vec<u64> {
    let addr = current_addr(g);
    let mut second = Vec::new();
    for b in 0..addr.local {
        for _ in 0..2 {
            let h = pool.find(|&h| addr.place(addr.item(h)).0 == b).unwrap();
            g.insert(h, Copies::Any).unwrap();
            if b >= CHUNK_BUCKETS {
                second.push(h);
            }
        }
    }
    second
}

/// With `g`'s block 0 full of keys bound for one half of the next
/// doubling (those of `pool`): an insert of a key bound for the other half,
/// with both buckets in the first chunk, grows the filter and copies that
/// chunk (its keys fill their buckets of the half); then one more key of
/// `pool` is stored, by hand, in a bucket of the second chunk's part of
/// the half, not yet copied (what a displacement did before displacements
/// waited for the copy: `place_ahead_of_copy`). The second chunk's keys
/// then have one slot too few: its copy is stuck, not yet tried.
#[cfg(not(cuckoo_nest_loom))]
fn grow_into_a_stuck_copy(g: &Growable<2>, pool: &mut impl Iterator<Item = u64>) {
    let addr = current_addr(g);
    let t = keys(1 << 22, 99)
        .find(|&h| {
            let item = addr.item(h);
            let (i1, i2, _) = addr.place(item);
            i1 < CHUNK_BUCKETS && i2 < CHUNK_BUCKETS && (item.x >> addr.level()) & 1 == 1
        })
        .unwrap();
    g.insert(t, Copies::Any).unwrap();
    let guard = pin();
    let state = g.state.load(&guard);
    let m = state.migration.as_ref().expect("t grew the filter");
    assert_eq!(m.chunks[0].state.load(Ordering::Relaxed), DONE);
    assert_eq!(m.chunks[1].state.load(Ordering::Relaxed), PENDING);
    let next = state.cur.addr;
    let (i, fp) = pool
        .find_map(|h| {
            let (i1, i2, fp) = next.place(next.item(h));
            [i1, i2]
                .into_iter()
                .find(|i| (CHUNK_BUCKETS..2 * CHUNK_BUCKETS).contains(i))
                .map(|i| (i, fp))
        })
        .unwrap();
    assert!(g.place_ahead_of_copy(i, fp));
}

/// [`unbounded_two_spare_bits`] taken into its second chain, the insert
/// that started the chain removed again (the chain's first table is
/// empty), then [`fill_block_0`] and [`grow_into_a_stuck_copy`] in that
/// chain. `twin`, if given, is inserted first, into the first chain.
/// Returns the second chunk's keys.
#[cfg(not(cuckoo_nest_loom))]
fn stuck_copy_in_the_second_chain(twin: Option<u64>) -> (Growable<2>, Vec<u64>) {
    let g = unbounded_two_spare_bits();
    if let Some(x) = twin {
        g.insert(x, Copies::Any).unwrap();
    }
    let trigger = keys(1 << 16, 11)
        .find(|&h| {
            g.insert(h, Copies::Any).unwrap();
            g.chains() == 2
        })
        .expect("the first chain fills");
    assert!(g.remove(trigger));
    assert_eq!(g.state.load(&pin()).cur.table.len(), 0);
    let mut pool = lower_half_keys(current_addr(&g), 12);
    let second = fill_block_0(&g, &mut pool);
    grow_into_a_stuck_copy(&g, &mut pool);
    (g, second)
}

/// A remove that meets a growth step's copy stuck (no room) in the
/// current chain, its item still only in the frozen generation, says it
/// found nothing, as with one chain, and takes nothing from the earlier
/// chains. It used to go on to them and take a match there: the entry of
/// another item, `x`, whose first-chain placement is the removed item's,
/// so `x` was lost (a false negative) while the removed item stayed (the
/// frozen generation, and later the rebuilt one, still held it). Once the
/// copy is mended (rebuilt one doubling up), the remove succeeds.
#[test]
#[cfg(not(cuckoo_nest_loom))]
#[cfg_attr(
    miri,
    ignore = "two filters driven through a chain: 30 minutes under Miri; its table code runs there in grows_through_every_generation_and_loses_nothing"
)]
fn a_remove_meeting_a_stuck_copy_takes_nothing_from_earlier_chains() {
    // A first run finds which key of the second chunk the copy leaves
    // over (the setup is deterministic).
    let (dry, second) = stuck_copy_in_the_second_chain(None);
    let guard = pin();
    let state = dry.state.load(&guard);
    let m = state.migration.as_ref().unwrap();
    assert!(
        dry.copy_chunk(state, m, 1, &guard).is_err(),
        "the copy is stuck"
    );
    let left = m.left_over.lock().unwrap()[0].1.clone();
    assert_eq!(left.len(), 1);
    let (to, fp) = left[0];
    let y = *second
        .iter()
        .find(|&&h| {
            let (i1, i2, f) = state.cur.addr.place(state.cur.addr.item(h));
            f == fp && (i1 == to || i2 == to)
        })
        .unwrap();
    drop(guard);
    // `x`: `y` with the lowest bit of its spread hash flipped, the same
    // item in the first chain (local bucket, key, spare bits), another in
    // the second (whose further bits come from a second mix of the hash).
    let x = crate::hash::unspread(crate::hash::spread(y) ^ 1);
    let (g, again) = stuck_copy_in_the_second_chain(Some(x));
    assert_eq!(again, second, "the same setup");
    assert_eq!(g.first.item(x), g.first.item(y));
    assert!(g.contains(x) && g.contains(y));
    let len = g.len();
    let removed = g.remove(y);
    assert!(
        g.contains(x),
        "y's remove (returned {removed}) took x's entry from the first chain"
    );
    assert!(!removed && g.contains(y) && g.len() == len);
    // Mended: the copy rebuilt into a larger generation, which holds y.
    assert!(g.finish_growth());
    assert!(g.remove(y), "y's remove once the copy is mended");
    assert!(g.contains(x));
    assert_eq!(g.len(), len - 1);
}

/// A growth step into the last generation of a chain whose copy finds no
/// room: the rebuild that mends a stuck copy (`Growable::regrow`) can go
/// no deeper in the chain, and refuses the insert with `MaxCapacity`
/// (marking the filter topped out), though a filter without a maximum
/// could go on in a new chain. The filter then stays mid-step: every later
/// step finds the same copy stuck. Known and not fixed: the test says what
/// an unbounded filter should do.
#[test]
#[cfg(not(cuckoo_nest_loom))]
#[ignore = "known issue: a stuck copy into a chain's last generation refuses an unbounded filter's insert with MaxCapacity"]
fn a_stuck_copy_into_a_chains_last_generation_does_not_stop_an_unbounded_filter() {
    let g = unbounded_two_spare_bits();
    // Depth 0 (one block of 32 buckets) full of keys bound for block 0
    // at depth 1 and for its lower half at depth 2.
    let at_0 = current_addr(&g);
    let lower_at_2 = |h: u64| {
        at_0.item(h).x & 3 == 0 && at_0.place(at_0.item(h)).0 != at_0.place(at_0.item(h)).1
    };
    let mut pool = keys(1 << 22, 13).filter(move |&h| lower_at_2(h));
    fill_block_0(&g, &mut pool);
    // Grown to depth 1 by a key bound for block 1, the copy finished.
    let other = keys(1 << 16, 14)
        .find(|&h| at_0.item(h).x & 1 == 1)
        .unwrap();
    g.insert(other, Copies::Any).unwrap();
    g.finish_growth();
    assert_eq!(g.depth(), 1);
    // Block 0 of depth 1 holds the 64 keys; the step to depth 2, the last
    // of the chain, gets stuck on its second chunk.
    let mut pool = lower_half_keys(current_addr(&g), 15);
    grow_into_a_stuck_copy(&g, &mut pool);
    assert_eq!(g.depth(), 2);
    // An insert that copies the second chunk meets it stuck.
    let addr = current_addr(&g);
    let z = pool
        .find(|&h| addr.place(addr.item(h)).0 % addr.local >= CHUNK_BUCKETS)
        .unwrap();
    assert!(g.max_capacity() > 40 << 10);
    assert_eq!(
        g.insert(z, Copies::Any),
        Ok(true),
        "an unbounded filter refused"
    );
}
