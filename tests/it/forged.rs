//! Forged saved filters: headers and tables written by hand for every
//! layout (fixed, packed, semi-sorted) with both checksums right, as a
//! buggy writer in another language could produce them. The checksums
//! cannot tell such bytes from good ones, so loading must judge the table
//! itself (docs/format.md, "What loading refuses").
//!
//! An oracle written here from docs/format.md alone (not from the crate's
//! code) says what each table holds: the occupied slots, the first bucket
//! no writer would store, bits set after the last bucket. Every way in
//! (`from_bytes`, `read_from`, `FilterView::new` at an aligned and an odd
//! address) must refuse exactly what the oracle refuses, with the typed
//! error it names, and load everything else with `len` equal to the
//! table's true count. A loaded filter then takes inserts: no item
//! inserted after loading is ever missing (not after more inserts, not
//! after removes of other items, not after a save and a reload), and every
//! loaded filter saves to bytes that load again. `new_unverified` opens
//! everything and never panics.

use cuckoo_nest::{ByHash, CuckooFilter, DecodeError, FilterView, LoadOptions};

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One shape of the format: bucket size, fingerprint width, semi-sorted.
#[derive(Clone, Copy, Debug)]
struct Shape {
    b: usize,
    f: u32,
    semi: bool,
}

impl Shape {
    fn bucket_bits(&self) -> usize {
        if self.semi {
            4 * self.f as usize - 4
        } else {
            self.b * self.f as usize
        }
    }

    /// Table words: whole 64-byte lines, at least one (docs/format.md).
    fn table_words(&self, buckets: usize) -> usize {
        ((buckets * self.bucket_bits()).div_ceil(512) * 8).max(8)
    }
}

/// Every layout family, with widths that straddle words and ones that
/// do not; semi-sorted from no low bits (f = 4) to buckets over 64 bits.
const SHAPES: &[Shape] = &[
    Shape {
        b: 2,
        f: 8,
        semi: false,
    },
    Shape {
        b: 4,
        f: 16,
        semi: false,
    },
    Shape {
        b: 8,
        f: 32,
        semi: false,
    },
    Shape {
        b: 4,
        f: 8,
        semi: false,
    },
    Shape {
        b: 4,
        f: 12,
        semi: false,
    },
    Shape {
        b: 4,
        f: 13,
        semi: false,
    },
    Shape {
        b: 2,
        f: 7,
        semi: false,
    },
    Shape {
        b: 8,
        f: 5,
        semi: false,
    },
    Shape {
        b: 4,
        f: 4,
        semi: true,
    },
    Shape {
        b: 4,
        f: 9,
        semi: true,
    },
    Shape {
        b: 4,
        f: 13,
        semi: true,
    },
    Shape {
        b: 4,
        f: 17,
        semi: true,
    },
    Shape {
        b: 4,
        f: 24,
        semi: true,
    },
];

/// The table as bits, little-endian words (docs/format.md).
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, at: usize, len: usize) -> u64 {
        (0..len).fold(0, |v, k| {
            let bit = at + k;
            v | ((self.0[bit / 64] >> (bit % 64)) & 1) << k
        })
    }

    fn set(&mut self, at: usize, len: usize, value: u64) {
        for k in 0..len {
            let bit = at + k;
            let (w, o) = (bit / 64, bit % 64);
            self.0[w] = (self.0[w] & !(1 << o)) | ((value >> k) & 1) << o;
        }
    }
}

/// The format's list of non-decreasing nibble 4-tuples, in lexicographic
/// order.
fn tuples() -> Vec<[u64; 4]> {
    let mut out = Vec::new();
    for a in 0..16 {
        for b in a..16 {
            for c in b..16 {
                for d in c..16 {
                    out.push([a, b, c, d]);
                }
            }
        }
    }
    assert_eq!(out.len(), 3876);
    out
}

/// What the oracle says of a table.
#[derive(Debug, PartialEq)]
enum Verdict {
    Holds(usize),
    BadBucket(usize),
    Padding,
}

/// Reads the table as docs/format.md describes it.
fn oracle(shape: Shape, buckets: usize, bits: &Bits, tuples: &[[u64; 4]]) -> Verdict {
    let width = shape.bucket_bits();
    let mut held = 0;
    for i in 0..buckets {
        let at = i * width;
        if shape.semi {
            let index = bits.get(at, 12) as usize;
            let Some(nibbles) = tuples.get(index) else {
                return Verdict::BadBucket(i);
            };
            let low = shape.f as usize - 4;
            let fps: Vec<u64> = (0..4)
                .map(|j| nibbles[j] << low | bits.get(at + 12 + j * low, low))
                .collect();
            if fps.windows(2).any(|p| p[0] > p[1]) {
                return Verdict::BadBucket(i);
            }
            held += fps.iter().filter(|&&fp| fp != 0).count();
        } else {
            let f = shape.f as usize;
            held += (0..shape.b)
                .filter(|&j| bits.get(at + j * f, f) != 0)
                .count();
        }
    }
    let end = buckets * width;
    if (end..bits.0.len() * 64).any(|bit| bits.get(bit, 1) != 0) {
        return Verdict::Padding;
    }
    Verdict::Holds(held)
}

/// A random fingerprint of `f` bits, empty (0) a quarter of the time.
fn fingerprint(rng: &mut Rng, f: u32) -> u64 {
    if rng.below(4) == 0 {
        0
    } else {
        rng.next() & ((1u64 << f) - 1)
    }
}

/// A table of `buckets` buckets: random bucket contents, most of them as a
/// writer stores them, some not (each kind of bad bucket, bits after the
/// last bucket), depending on `style`.
fn forge_table(
    rng: &mut Rng,
    shape: Shape,
    buckets: usize,
    style: u64,
    tuples: &[[u64; 4]],
) -> Bits {
    let mut bits = Bits(vec![0; shape.table_words(buckets)]);
    let width = shape.bucket_bits();
    for i in 0..buckets {
        let at = i * width;
        if style == 0 {
            // Noise: every bit random.
            for k in (0..width).step_by(32) {
                let len = (width - k).min(32);
                bits.set(at + k, len, rng.next());
            }
            continue;
        }
        if shape.semi {
            let low = shape.f as usize - 4;
            let mut fps: Vec<u64> = (0..4).map(|_| fingerprint(rng, shape.f)).collect();
            fps.sort_unstable();
            let odd = style == 2 && rng.below(buckets as u64) == 0;
            if odd && low > 0 && rng.below(2) == 0 {
                // Low bits out of order: one nibble in every slot, slot 2's
                // low bits above slot 3's.
                let n = rng.below(16) << low;
                fps = vec![n, n, n | (1 + rng.below((1 << low) - 1)), n];
            }
            let nibbles: Vec<u64> = fps.iter().map(|fp| fp >> low).collect();
            let mut index = tuples
                .iter()
                .position(|t| t[..] == nibbles[..])
                .expect("sorted nibbles are listed") as u64;
            if odd && (low == 0 || rng.below(2) == 1) {
                index = 3876 + rng.below(4096 - 3876);
            }
            bits.set(at, 12, index);
            for (j, fp) in fps.iter().enumerate() {
                bits.set(at + 12 + j * low, low, fp & ((1 << low) - 1));
            }
        } else {
            for j in 0..shape.b {
                let f = shape.f as usize;
                bits.set(at + j * f, f, fingerprint(rng, shape.f));
            }
        }
    }
    if style == 3 {
        // One bit after the last bucket.
        let end = buckets * width;
        let spare = bits.0.len() * 64 - end;
        if spare > 0 {
            let bit = end + rng.below(spare as u64) as usize;
            bits.set(bit, 1, 1);
        }
    }
    bits
}

/// Header then table, both checksums right (docs/format.md).
fn saved_bytes(shape: Shape, buckets: usize, items: u64, table: &Bits) -> Vec<u8> {
    let mut out = vec![0u8; 64];
    out[0..8].copy_from_slice(b"CUCKNEST");
    out[8..10].copy_from_slice(&1u16.to_le_bytes());
    out[10] = shape.b as u8;
    out[11] = shape.f as u8;
    out[12] = shape.semi as u8;
    out[13] = 1;
    out[16..24].copy_from_slice(&0x5eedu64.to_le_bytes());
    out[24..32].copy_from_slice(&(buckets as u64).to_le_bytes());
    out[32..40].copy_from_slice(&items.to_le_bytes());
    out[40..48].copy_from_slice(&((buckets * shape.b) as u64).to_le_bytes());
    for w in &table.0 {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let table_sum = xxhash_rust::xxh3::xxh3_64(&out[64..]);
    out[48..56].copy_from_slice(&table_sum.to_le_bytes());
    let header_sum = xxhash_rust::xxh3::xxh3_64(&out[..56]);
    out[56..64].copy_from_slice(&header_sum.to_le_bytes());
    out
}

/// The error every checked way in must give for `verdict` and a header
/// claiming `items`, or `None` if the bytes must load.
fn expected_error(verdict: &Verdict, items: u64) -> Option<String> {
    match *verdict {
        Verdict::Holds(n) if n as u64 == items => None,
        Verdict::Holds(n) => Some(
            DecodeError::ItemCountMismatch {
                stored: items,
                counted: n as u64,
            }
            .to_string(),
        ),
        Verdict::BadBucket(i) => Some(format!("bucket {i} ")),
        Verdict::Padding => Some("bits set after its last bucket".into()),
    }
}

/// Inserts keys into a loaded filter until it is full or has taken `n`;
/// checks none of them is ever missing, through removes of others and a
/// save and reload. Returns the re-saved bytes.
fn items_survive(filter: &CuckooFilter, held: usize, n: u32, tag: u32) -> Vec<u8> {
    assert_eq!(filter.len(), held);
    assert!(filter.load_factor() <= 1.0);
    let mut inserted = Vec::new();
    for k in 0..n {
        let key = ByHash((tag, k));
        match filter.insert(&key) {
            Ok(()) => {
                assert!(filter.contains(&key), "{key:?} missing right after insert");
                inserted.push(key);
            }
            Err(_) => break,
        }
    }
    for key in &inserted {
        assert!(filter.contains(key), "{key:?} missing after more inserts");
    }
    assert_eq!(filter.len(), held + inserted.len());
    assert!(filter.len() <= filter.shape().slots);
    // Remove every other one: the rest stay.
    for key in inserted.iter().step_by(2) {
        assert!(filter.remove(key), "{key:?} not removable");
    }
    let kept: Vec<_> = inserted.iter().skip(1).step_by(2).collect();
    for key in &kept {
        assert!(
            filter.contains(*key),
            "{key:?} missing after removes of others"
        );
    }
    let bytes = filter.to_bytes();
    let reloaded =
        CuckooFilter::from_bytes(&bytes).expect("a loaded filter re-saves to loadable bytes");
    let view = FilterView::new(&bytes).expect("and its view opens");
    assert_eq!(reloaded.len(), filter.len());
    assert_eq!(view.len(), filter.len());
    for key in &kept {
        assert!(
            reloaded.contains(*key) && view.contains(*key),
            "{key:?} lost by save and reload"
        );
    }
    bytes
}

#[test]
fn forged_tables_are_refused_or_lose_nothing() {
    let tuples = tuples();
    let mut rng = Rng(0xf0f0);
    let (mut loaded, mut refused) = (0, 0);
    let rounds = if cfg!(miri) { 2 } else { 24 };
    for &shape in SHAPES {
        for round in 0..rounds {
            let buckets = [1usize, 3, 37, 64, 129][round % 5];
            let style = rng.below(4);
            let table = forge_table(&mut rng, shape, buckets, style, &tuples);
            let verdict = oracle(shape, buckets, &table, &tuples);
            // The true count, or (a third of the time) a wrong one.
            let truth = match verdict {
                Verdict::Holds(n) => n as u64,
                _ => rng.below(buckets as u64 * shape.b as u64 + 1),
            };
            let slots = (buckets * shape.b) as u64;
            let items = if rng.below(3) == 0 {
                (truth + 1 + rng.below(3)) % (slots + 1)
            } else {
                truth
            };
            let bytes = saved_bytes(shape, buckets, items, &table);
            let mut shifted = vec![0u8; bytes.len() + 1];
            shifted[1..].copy_from_slice(&bytes);
            let context =
                format!("{shape:?}, {buckets} buckets, style {style}, {verdict:?}, header {items}");

            let results = [
                CuckooFilter::from_bytes(&bytes).map(Some),
                CuckooFilter::load(&bytes[..], &LoadOptions::default())
                    .map(|(f, _)| f)
                    .map(Some),
                FilterView::new(&bytes).map(|_| None),
                FilterView::new(&shifted[1..]).map(|_| None),
            ];
            match expected_error(&verdict, items) {
                Some(want) => {
                    refused += 1;
                    for r in results {
                        let e = r.err().unwrap_or_else(|| panic!("{context}: loaded"));
                        assert!(e.to_string().contains(&want), "{context}: {e}, want {want}");
                        assert!(matches!(
                            e,
                            DecodeError::InvalidBucket { .. }
                                | DecodeError::NonZeroPadding { .. }
                                | DecodeError::ItemCountMismatch { .. }
                        ));
                    }
                }
                None => {
                    loaded += 1;
                    let Verdict::Holds(held) = verdict else {
                        unreachable!()
                    };
                    for (k, r) in results.into_iter().enumerate() {
                        // The views were opened; the owned filters take writes.
                        if let Some(filter) = r.unwrap_or_else(|e| panic!("{context}: {e}")) {
                            let again = items_survive(&filter, held, 300, k as u32);
                            assert!(CuckooFilter::from_bytes(&again).is_ok());
                        }
                    }
                    let view = FilterView::new(&bytes).unwrap();
                    assert_eq!(view.len(), held);
                }
            }
            // Whatever the table, the unverified view opens and answers.
            for b in [&bytes[..], &shifted[1..]] {
                let view = FilterView::new_unverified(b).expect("the header is good");
                assert!(view.len() <= view.shape().slots);
                let keys: Vec<u32> = (0..64).collect();
                let mut out = vec![false; keys.len()];
                view.contains_batch_into(&keys, &mut out).unwrap();
                for (k, &o) in keys.iter().zip(&out) {
                    assert_eq!(view.contains(k), o);
                }
            }
        }
    }
    // The forging reaches both outcomes for the run to mean anything.
    assert!(
        loaded > SHAPES.len() && refused > SHAPES.len(),
        "loaded {loaded}, refused {refused}"
    );
}

/// A table nearly full of colliding copies (the same fingerprint in many
/// buckets, as a writer with a weak hash might leave it): loads with the
/// right count and keeps every item inserted after.
#[test]
fn forged_full_tables_of_one_fingerprint_load_and_keep_new_items() {
    let tuples = tuples();
    for &shape in SHAPES {
        let buckets = 37;
        let mut bits = Bits(vec![0; shape.table_words(buckets)]);
        let width = shape.bucket_bits();
        let fp = 1u64;
        let mut held = 0;
        for i in 0..buckets {
            // Three slots of four (of two, one; of eight, six) hold `fp`.
            let used = shape.b * 3 / 4;
            if shape.semi {
                // Sorted: the empty slot (0) first, then three copies.
                let low = shape.f as usize - 4;
                let nibble = fp >> low;
                let index = tuples
                    .iter()
                    .position(|t| *t == [0, nibble, nibble, nibble])
                    .unwrap();
                bits.set(i * width, 12, index as u64);
                for j in 1..4 {
                    bits.set(i * width + 12 + j * low, low, fp & ((1 << low) - 1));
                }
            } else {
                for j in 0..used {
                    bits.set(i * width + j * shape.f as usize, shape.f as usize, fp);
                }
            }
            held += used;
        }
        assert_eq!(oracle(shape, buckets, &bits, &tuples), Verdict::Holds(held));
        let bytes = saved_bytes(shape, buckets, held as u64, &bits);
        let filter = CuckooFilter::from_bytes(&bytes).unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        items_survive(&filter, held, 1000, 9);
    }
}
