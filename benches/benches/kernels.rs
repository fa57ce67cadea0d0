//! How many groups per second can each kernel match?
//!
//! For every method and every kernel this CPU supports, one iteration
//! matches a value against each group of a pre-generated array (so nothing
//! is constant-folded) and folds the masks together (so nothing is dead).
//! The array is small enough to stay in L1/L2, so this measures the kernel,
//! not memory: divide the reported time by `GROUPS` for nanoseconds per
//! group. Each kernel runs its sweep through `Kernel::run`, one dispatch per
//! sweep, as a table's batch lookup would. `dynamic` instead calls the
//! run-time choice once per group, showing what per-call dispatch costs
//! (for AVX2/AVX-512 a real call per group, as `#[target_feature]` code
//! cannot inline into a baseline loop).
//!
//! Run: `cargo bench -p cuckoo-nest-bench --bench kernels -- --warm-up-time 1 --measurement-time 2`
//! Names: `kernels/<method>/<kernel>`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cuckoo_nest_simd::{available, Dynamic, Kernel, KernelFn};

/// Groups per iteration: 32 KiB of 256-bit groups, 16 KiB of 128-bit ones.
const GROUPS: usize = 1024;

/// Pre-generated groups, a quarter of their lanes holding the searched value.
struct Data {
    narrow: Vec<[u64; 2]>,
    wide: Vec<[u64; 4]>,
}

/// The value searched for in every lane width; planted in the data.
const VALUE: u32 = 0x5a5a_5a5a;

impl Data {
    fn new(width: u32) -> Data {
        let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(width);
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let lane_max = (1u64 << width) - 1;
        let mut wide = Vec::with_capacity(GROUPS);
        for _ in 0..GROUPS {
            let mut group = [next(), next(), next(), next()];
            for lane in 0..256 / width {
                if next() % 4 == 0 {
                    let (word, shift) = ((lane * width / 64) as usize, lane * width % 64);
                    group[word] &= !(lane_max << shift);
                    group[word] |= (u64::from(VALUE) & lane_max) << shift;
                }
            }
            wide.push(group);
        }
        let narrow = wide.iter().map(|g| [g[0], g[1]]).collect();
        Data { narrow, wide }
    }
}

#[derive(Clone, Copy)]
enum Method {
    Eq8x16,
    Eq16x8,
    Eq32x4,
    Eq8x32,
    Eq16x16,
    Eq32x8,
}

impl Method {
    const ALL: [Method; 6] = [
        Method::Eq8x16,
        Method::Eq16x8,
        Method::Eq32x4,
        Method::Eq8x32,
        Method::Eq16x16,
        Method::Eq32x8,
    ];

    fn name(self) -> &'static str {
        match self {
            Method::Eq8x16 => "eq8x16",
            Method::Eq16x8 => "eq16x8",
            Method::Eq32x4 => "eq32x4",
            Method::Eq8x32 => "eq8x32",
            Method::Eq16x16 => "eq16x16",
            Method::Eq32x8 => "eq32x8",
        }
    }

    fn width(self) -> u32 {
        match self {
            Method::Eq8x16 | Method::Eq8x32 => 8,
            Method::Eq16x8 | Method::Eq16x16 => 16,
            Method::Eq32x4 | Method::Eq32x8 => 32,
        }
    }

    /// Matches every group once; the method is chosen outside the loop so
    /// each loop body is the bare kernel call.
    #[inline(always)]
    fn sweep<K: Kernel>(self, k: K, data: &Data, value: u32) -> u32 {
        // An add is the cheapest fold that keeps every mask alive: its one-cycle
        // dependency chain is shorter than any kernel's work per group.
        let fold = |acc: u32, mask: u32| acc.wrapping_add(mask);
        match self {
            Method::Eq8x16 => data
                .narrow
                .iter()
                .fold(0, |a, &g| fold(a, k.eq8x16(g, value as u8))),
            Method::Eq16x8 => data
                .narrow
                .iter()
                .fold(0, |a, &g| fold(a, k.eq16x8(g, value as u16))),
            Method::Eq32x4 => data
                .narrow
                .iter()
                .fold(0, |a, &g| fold(a, k.eq32x4(g, value))),
            Method::Eq8x32 => data
                .wide
                .iter()
                .fold(0, |a, &g| fold(a, k.eq8x32(g, value as u8))),
            Method::Eq16x16 => data
                .wide
                .iter()
                .fold(0, |a, &g| fold(a, k.eq16x16(g, value as u16))),
            Method::Eq32x8 => data
                .wide
                .iter()
                .fold(0, |a, &g| fold(a, k.eq32x8(g, value))),
        }
    }
}

/// One sweep, compiled for the concrete kernel handed over by `run` (inside
/// the kernel's target features, so its methods inline into the loop).
struct Sweep<'d> {
    method: Method,
    data: &'d Data,
    value: u32,
}

impl KernelFn for Sweep<'_> {
    type Output = u32;
    #[inline]
    fn call<K: Kernel>(self, k: K) -> u32 {
        self.method.sweep(k, self.data, self.value)
    }
}

fn kernels(c: &mut Criterion) {
    let best = Dynamic::detect();
    eprintln!(
        "kernels on this CPU: {:?}; dynamic picks {}",
        available().iter().map(|k| k.name()).collect::<Vec<_>>(),
        best.name()
    );
    for method in Method::ALL {
        let data = Data::new(method.width());
        let mut group = c.benchmark_group(format!("kernels/{}", method.name()));
        group.throughput(Throughput::Elements(GROUPS as u64));
        for k in available() {
            group.bench_function(k.name(), |b| {
                b.iter(|| {
                    let (data, value) = (black_box(&data), black_box(VALUE));
                    k.run(Sweep {
                        method,
                        data,
                        value,
                    })
                })
            });
        }
        // Through the enum, one dispatch per group.
        group.bench_function("dynamic", |b| {
            b.iter(|| method.sweep(best, black_box(&data), black_box(VALUE)))
        });
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
