//! Batch operations agree with one-at-a-time operations.

use crate::common;

use cuckoo_nest::{CuckooFilter, InsertError, LengthMismatch, PreHashed};

/// `n` keys of the splitmix64 stream of `seed`.
fn keys(n: usize, seed: u64) -> Vec<u64> {
    common::splitmix64(seed).take(n).collect()
}

#[test]
fn batch_lookups_agree_with_single_lookups() {
    for b in [2usize, 4, 8] {
        for f in [8u32, 16, 32] {
            let filter = CuckooFilter::builder()
                .capacity(5000)
                .bucket_size(b)
                .fingerprint_bits(f)
                .build()
                .unwrap();
            let present = keys(4000, b as u64 * 100 + f as u64);
            filter.insert_batch(&present).unwrap();
            assert_eq!(filter.len(), 4000);
            // Mixed present and absent keys; lengths around the pipeline depth.
            let mut probe = keys(3000, 7);
            probe.extend_from_slice(&present[..3000]);
            for len in [0usize, 1, 3, 15, 16, 17, 63, 64, 65, 1000, 6000] {
                let batch = &probe[probe.len() - len..];
                let mut out = vec![false; len];
                let hits = filter.contains_batch_into(batch, &mut out).unwrap();
                let single: Vec<bool> = batch.iter().map(|k| filter.contains(k)).collect();
                assert_eq!(out, single, "b={b} f={f} len={len}");
                assert_eq!(hits, single.iter().filter(|x| **x).count());
                let hashes: Vec<u64> = batch.iter().map(|k| filter.hash_item(k)).collect();
                for d in [1, 2, 4, 8, 16, 32, 64, 100] {
                    let mut out2 = vec![false; len];
                    filter
                        .contains_batch_hash_with_distance(&hashes, &mut out2, d)
                        .unwrap();
                    assert_eq!(out2, single, "b={b} f={f} len={len} d={d}");
                }
            }
            // Every inserted key found by the batch path: no false negatives.
            let mut out = vec![false; present.len()];
            assert_eq!(
                filter.contains_batch_into(&present, &mut out),
                Ok(present.len())
            );
        }
    }
}

#[test]
fn batch_output_length_must_match() {
    let filter = CuckooFilter::with_capacity(100);
    let mut out = [true; 2];
    assert_eq!(
        filter.contains_batch_into([1u8, 2, 3], &mut out),
        Err(LengthMismatch {
            keys: 3,
            results: 2
        })
    );
    assert_eq!(out, [true, true], "nothing written on a length mismatch");
    assert_eq!(
        filter.contains_batch_into([1, 2].iter().map(|&h| PreHashed(h)), &mut [false; 3]),
        Err(LengthMismatch {
            keys: 2,
            results: 3
        })
    );
}

#[test]
fn failing_batch_insert_keeps_the_prefix_and_nothing_else() {
    let filter = CuckooFilter::builder().buckets(64).build().unwrap();
    let ks = keys(1000, 3);
    let err = filter.insert_batch(&ks).unwrap_err();
    assert!(matches!(err.error, InsertError::Full { .. }));
    let n = err.inserted;
    assert!(n > 200 && n < 256, "stopped after {n} of 256 slots");
    assert_eq!(filter.len(), n);
    assert!(ks[..n].iter().all(|k| filter.contains(k)));
    assert!(err.to_string().contains(&format!("after {n} keys")));
    // The batch of hashes behaves the same.
    let g = CuckooFilter::builder().buckets(64).build().unwrap();
    let hashes: Vec<u64> = ks.iter().map(|k| g.hash_item(k)).collect();
    let err2 = g
        .insert_batch(hashes.iter().map(|&h| PreHashed(h)))
        .unwrap_err();
    assert_eq!(err2.inserted, n);
}

/// Packed and semi-sorted shapes, whose batches run compiled for AVX-512
/// where the CPU has it (4x12, 4x13, semi-sorted 4x13: widths fixed at
/// compile time) or as the crate was compiled (run-time widths): every
/// batch entry point, owned and over saved bytes, answers as the single
/// lookups do, and finds every inserted key.
#[test]
fn packed_and_semi_sorted_batches_agree_with_single_lookups() {
    use cuckoo_nest::FilterView;
    for (b, f, semi) in [
        (4usize, 12u32, false),
        (4, 13, false),
        (4, 13, true),
        (4, 10, false),
        (2, 12, false),
        (4, 9, true),
    ] {
        let filter = CuckooFilter::builder()
            .capacity(5000)
            .bucket_size(b)
            .fingerprint_bits(f)
            .semi_sorted(semi)
            .build()
            .unwrap();
        let shape = format!("{}{b}x{f}", if semi { "ss" } else { "" });
        let present = keys(4700, f as u64 * 10 + b as u64);
        filter.insert_batch(&present).unwrap();
        // Absent and present keys, interleaved.
        let probe: Vec<u64> = keys(3000, 9)
            .into_iter()
            .zip(&present[..3000])
            .flat_map(|(absent, &here)| [absent, here])
            .collect();
        let saved = filter.to_bytes();
        let view = FilterView::new(&saved).unwrap();
        for len in [0usize, 1, 17, 1000, 6000] {
            let batch = &probe[..len];
            let single: Vec<bool> = batch.iter().map(|k| filter.contains(k)).collect();
            let hits = single.iter().filter(|x| **x).count();
            let hashes: Vec<u64> = batch.iter().map(|k| filter.hash_item(k)).collect();
            let bytes: Vec<[u8; 8]> = batch.iter().map(|k| k.to_le_bytes()).collect();
            let single_bytes: Vec<bool> = bytes.iter().map(|k| filter.contains(k)).collect();
            let mut out = vec![false; len];
            assert_eq!(
                filter.contains_batch_into(batch, &mut out),
                Ok(hits),
                "{shape}"
            );
            assert_eq!(out, single, "{shape} contains_batch, {len} keys");
            assert_eq!(
                filter.contains_batch_into(hashes.iter().map(|&h| PreHashed(h)), &mut out),
                Ok(hits)
            );
            assert_eq!(out, single, "{shape} contains_batch_hash, {len} keys");
            filter.contains_batch_into(&bytes, &mut out).unwrap();
            assert_eq!(
                out, single_bytes,
                "{shape} contains_batch_bytes, {len} keys"
            );
            assert_eq!(view.contains_batch_into(batch, &mut out), Ok(hits));
            assert_eq!(out, single, "{shape} view contains_batch, {len} keys");
            assert_eq!(
                view.contains_batch_into(hashes.iter().map(|&h| PreHashed(h)), &mut out),
                Ok(hits)
            );
            assert_eq!(out, single, "{shape} view contains_batch_hash, {len} keys");
            view.contains_batch_into(&bytes, &mut out).unwrap();
            assert_eq!(
                out, single_bytes,
                "{shape} view contains_batch_bytes, {len} keys"
            );
        }
        let mut out = vec![false; present.len()];
        assert_eq!(
            filter.contains_batch_into(&present, &mut out),
            Ok(present.len()),
            "{shape}"
        );
        assert_eq!(
            view.contains_batch_into(&present, &mut out),
            Ok(present.len()),
            "{shape}"
        );
    }
}

/// `remove_batch` and its hashed and byte forms remove one copy per entry,
/// exactly as one `remove` after another, and say which entries found one;
/// fixed and growable filters alike.
#[test]
fn batch_removes_agree_with_single_removes() {
    for growable in [false, true] {
        let build = || {
            CuckooFilter::builder()
                .capacity(if growable { 500 } else { 20_000 })
                .growable(growable)
                .build()
                .unwrap()
        };
        let (batched, single) = (build(), build());
        let present = keys(8000, 11);
        for f in [&batched, &single] {
            f.insert_batch(&present).unwrap();
            f.insert_batch(&present[..100]).unwrap(); // second copies
        }
        if growable {
            assert!(batched.capacity() > 500, "grown");
        }
        // Present keys (some twice in the batch), absent ones, repeats.
        let mut batch = present[..3000].to_vec();
        batch.extend_from_slice(&present[..200]);
        batch.extend(keys(500, 99));
        let out = batched.remove_batch(&batch);
        let removed = out.iter().filter(|x| **x).count();
        let want: Vec<bool> = batch.iter().map(|k| single.remove(k)).collect();
        assert_eq!(out, want, "growable {growable}");
        assert_eq!(batched.len(), single.len());
        assert_eq!(batched.len(), 8000 + 100 - removed);
        assert!(present[3000..].iter().all(|k| batched.contains(k)));

        let hashes: Vec<u64> = present[3000..4000]
            .iter()
            .map(|k| batched.hash_item(k))
            .collect();
        let out = batched.remove_batch(hashes.iter().map(|&h| PreHashed(h)));
        assert_eq!(out.len(), 1000);
        assert!(out.iter().all(|x| *x));
        assert_eq!(batched.len(), 8000 + 100 - removed - 1000);
        // A removed key may still answer true: a false positive against
        // the thousands of keys left (which keys do depends on the hash).
        let left = present[3000..4000]
            .iter()
            .filter(|k| batched.contains(*k))
            .count();
        let rate = batched.expected_false_positive_rate();
        assert!(
            left as f64 <= 3.0 * 1000.0 * rate + 5.0,
            "growable {growable}: {left} of 1000 removed keys still found (rate {rate})"
        );

        let byte_keys: Vec<String> = (0..300).map(|i| format!("key:{i}")).collect();
        batched.insert_batch(&byte_keys[..200]).unwrap();
        let out = batched.remove_batch(&byte_keys);
        assert!(out[..200].iter().all(|x| *x) && out[200..].iter().all(|x| !*x));
    }
}
