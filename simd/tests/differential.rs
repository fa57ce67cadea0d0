//! Every kernel against the scalar reference: random groups with planted
//! matches and near misses, then the edge cases spelled out with their
//! expected masks. Kernels this CPU lacks are skipped, saying so.

use std::io::Write;

use cuckoo_nest_simd::{available, Dynamic, Kernel, KernelFn, Native, Portable, Scalar};

/// Random cases per kernel; Miri interprets every instruction, so it gets a
/// token amount (it is there to find undefined behaviour, not to sample).
const RANDOM_CASES: usize = if cfg!(miri) { 50 } else { 100_000 };

const WIDTHS: [u32; 3] = [8, 16, 32];

/// xorshift64*: small, fast, good enough to spread bits over lanes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn lane_max(width: u32) -> u64 {
    (1u64 << width) - 1
}

fn lanes(words: usize, width: u32) -> u32 {
    words as u32 * 64 / width
}

/// The mask with every lane of the group set.
fn full(words: usize, width: u32) -> u32 {
    (((1u64 << lanes(words, width)) - 1) & u64::from(u32::MAX)) as u32
}

fn set_lane(group: &mut [u64], width: u32, lane: u32, value: u64) {
    let bit = lane * width;
    let (word, shift) = ((bit / 64) as usize, bit % 64);
    group[word] &= !(lane_max(width) << shift);
    group[word] |= value << shift;
}

/// A group with every lane set to `value`.
fn filled(words: usize, width: u32, value: u64) -> Vec<u64> {
    let mut group = vec![0; words];
    for lane in 0..lanes(words, width) {
        set_lane(&mut group, width, lane, value);
    }
    group
}

/// Calls the method for this lane width and group size.
fn eq<K: Kernel>(k: K, width: u32, group: &[u64], value: u64) -> u32 {
    assert!(
        value <= lane_max(width),
        "test bug: value wider than a lane"
    );
    match (group.len(), width) {
        (2, 8) => k.eq8x16(group.try_into().unwrap(), value as u8),
        (2, 16) => k.eq16x8(group.try_into().unwrap(), value as u16),
        (2, 32) => k.eq32x4(group.try_into().unwrap(), value as u32),
        (4, 8) => k.eq8x32(group.try_into().unwrap(), value as u8),
        (4, 16) => k.eq16x16(group.try_into().unwrap(), value as u16),
        (4, 32) => k.eq32x8(group.try_into().unwrap(), value as u32),
        _ => unreachable!("no method for {} words of {width}-bit lanes", group.len()),
    }
}

/// Asserts `k` answers `expected`, with a message that pins the case down.
fn expect<K: Kernel>(k: K, width: u32, group: &[u64], value: u64, expected: u32, case: &str) {
    let got = eq(k, width, group, value);
    assert_eq!(
        got,
        expected,
        "{}: eq{width}x{} ({case}) on {group:#018x?} for {value:#x}: got {got:#b}, want {expected:#b}",
        k.name(),
        lanes(group.len(), width),
    );
}

/// Asserts `k` agrees with the reference on this case.
fn agrees<K: Kernel>(k: K, width: u32, group: &[u64], value: u64, case: &str) {
    expect(
        k,
        width,
        group,
        value,
        eq(Scalar, width, group, value),
        case,
    );
}

/// Random groups whose lanes are drawn from the value, zero (empty slot),
/// the value with one bit flipped, the maximum lane value, or noise; asked
/// for the value and for zero.
fn random_cases<K: Kernel>(k: K) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..RANDOM_CASES {
        for width in WIDTHS {
            let max = lane_max(width);
            let value = match rng.below(8) {
                0 => 0,
                1 => max,
                _ => rng.next() & max,
            };
            let mut group = [0u64; 4];
            for lane in 0..lanes(4, width) {
                let lane_value = match rng.below(6) {
                    0 | 1 => value,
                    2 => 0,
                    3 => value ^ (1 << rng.below(u64::from(width))),
                    4 => max,
                    _ => rng.next() & max,
                };
                set_lane(&mut group, width, lane, lane_value);
            }
            for words in [2, 4] {
                agrees(k, width, &group[..words], value, "random");
                agrees(k, width, &group[..words], 0, "random, empty slots");
            }
        }
    }
}

/// The edge cases, each with the mask it must give.
fn edge_cases<K: Kernel>(k: K) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for width in WIDTHS {
        let max = lane_max(width);
        let mut values = vec![max, rng.next() & max];
        if !cfg!(miri) {
            // Under Miri the extremes only, to keep the run to minutes.
            values.extend([0, 1, max - 1, 1 << (width - 1)]);
        }
        for words in [2, 4] {
            let all = full(words, width);
            let zero = vec![0; words];
            expect(k, width, &zero, 0, all, "all empty, asked for 0");
            expect(k, width, &zero, max, 0, "all empty, asked for max");
            expect(k, width, &zero, 1, 0, "all empty, asked for 1");

            for &value in &values {
                let same = filled(words, width, value);
                expect(k, width, &same, value, all, "all lanes equal");

                // The value alone in each lane, against two backgrounds:
                // one bit off, and everything else set.
                for background in [value ^ 1, value ^ max] {
                    for lane in 0..lanes(words, width) {
                        let mut group = filled(words, width, background);
                        set_lane(&mut group, width, lane, value);
                        expect(k, width, &group, value, 1 << lane, "value in one lane");
                        // ...and the converse: every lane but one holds it.
                        let mut group = filled(words, width, value);
                        set_lane(&mut group, width, lane, background);
                        let want = all & !(1 << lane);
                        expect(k, width, &group, value, want, "one lane differs");
                    }
                }

                // Each single-bit difference in each lane is a miss.
                for lane in 0..lanes(words, width) {
                    for bit in 0..width {
                        let mut group = filled(words, width, value);
                        set_lane(&mut group, width, lane, value ^ (1 << bit));
                        let want = all & !(1 << lane);
                        expect(k, width, &group, value, want, "one bit flipped");
                    }
                }
            }

            // Maximum lane value: all ones matches only max.
            let ones = vec![u64::MAX; words];
            expect(k, width, &ones, max, all, "all ones, asked for max");
            expect(k, width, &ones, max - 1, 0, "all ones, asked for max - 1");
            expect(k, width, &ones, 0, 0, "all ones, asked for 0");

            // Value 0 is the empty-slot query: only the zero lanes answer.
            for _ in 0..64 {
                let mut group = vec![0u64; words];
                let mut want = 0;
                for lane in 0..lanes(words, width) {
                    if rng.below(2) == 0 {
                        let occupied = 1 + rng.below(max);
                        set_lane(&mut group, width, lane, occupied);
                    } else {
                        want |= 1 << lane;
                    }
                }
                expect(k, width, &group, 0, want, "empty slots");
            }
        }
    }
}

fn check<K: Kernel>(k: K) {
    edge_cases(k);
    random_cases(k);
}

/// Skips the kernel when it needs instructions Miri cannot run, or when
/// the CPU lacks them, saying which and why.
fn check_if_present<K: Kernel>(name: &str, make: impl FnOnce() -> Option<K>) {
    if cfg!(miri) {
        note(&format!(
            "skipping {name}: Miri does not emulate its intrinsics"
        ));
        return;
    }
    match make() {
        Some(k) => check(k),
        None => note(&format!("skipping {name}: this CPU does not support it")),
    }
}

/// Prints past the test harness's output capture (which only catches the
/// print macros), so a skipped kernel shows in every run, not just failures.
fn note(message: &str) {
    let _ = writeln!(std::io::stderr(), "note: {message}");
}

#[test]
fn scalar_meets_edge_cases() {
    // The reference itself, against the spelled-out masks.
    edge_cases(Scalar);
}

#[test]
fn portable_agrees() {
    check(Portable);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn sse2_agrees() {
    check(cuckoo_nest_simd::Sse2);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_agrees() {
    check_if_present("avx2", cuckoo_nest_simd::Avx2::new);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx512_agrees() {
    check_if_present("avx512", cuckoo_nest_simd::Avx512::new);
}

/// Under Miri, `Native` and `Dynamic` resolve to a kernel tested above, so
/// only the wrapping is exercised; a token kernel (from compile-time
/// features) is skipped like the token tests.
fn check_wrapper<K: Kernel>(what: &str, k: K) {
    if !cfg!(miri) {
        check(k);
    } else if matches!(k.name(), "sse2" | "portable") {
        random_cases(k);
    } else {
        note(&format!(
            "skipping {what} ({}): Miri does not emulate its intrinsics",
            k.name()
        ));
    }
}

#[test]
fn native_agrees() {
    check_wrapper("native", Native::default());
}

/// `Native` follows the features enabled at compile time.
#[test]
fn native_follows_compile_time_features() {
    let expected = if cfg!(not(target_arch = "x86_64")) {
        "portable"
    } else if cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vl",
        target_feature = "avx512dq"
    )) {
        "avx512"
    } else if cfg!(target_feature = "avx2") {
        "avx2"
    } else {
        "sse2"
    };
    assert_eq!(Native::default().name(), expected);
}

#[test]
fn dynamic_agrees() {
    check_wrapper("dynamic", Dynamic::detect());
}

#[test]
fn detect_is_the_best_available_and_stable() {
    let all = available();
    let names: Vec<_> = all.iter().map(|k| k.name()).collect();
    assert_eq!(names[..2], ["scalar", "portable"]);
    assert_eq!(Dynamic::detect().name(), *names.last().unwrap());
    assert_eq!(Dynamic::detect().name(), Dynamic::default().name());
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(names[2], "sse2");
        let avx2 = cuckoo_nest_simd::Avx2::new().is_some();
        let avx512 = cuckoo_nest_simd::Avx512::new().is_some();
        assert_eq!(names.contains(&"avx2"), avx2);
        assert_eq!(names.contains(&"avx512"), avx512);
    }
}

/// `run` hands over the kernel the `Dynamic` wraps, not some other one.
#[test]
fn run_hands_over_the_wrapped_kernel() {
    struct Name;
    impl KernelFn for Name {
        type Output = &'static str;
        fn call<K: Kernel>(self, k: K) -> &'static str {
            k.name()
        }
    }
    for k in available() {
        if cfg!(miri) && !matches!(k.name(), "scalar" | "sse2" | "portable") {
            continue;
        }
        assert_eq!(k.run(Name), k.name());
    }
}
