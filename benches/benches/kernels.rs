//! How many groups per second can each kernel match?
//!
//! For every method and every kernel this CPU supports, one iteration matches a value against each
//! group of a pre-generated array (so nothing is constant-folded) and folds the masks together (so
//! nothing is dead). The array stays in L1/L2, so this measures the kernel, not memory: divide the
//! reported time by `GROUPS` for nanoseconds per group. Each kernel runs its sweep through
//! `Kernel::run`, one dispatch per sweep, as a table's batch lookup would. `dynamic` instead calls
//! the run-time choice once per group: what per-call dispatch costs (for AVX2/AVX-512 a real call
//! per group, as `#[target_feature]` code cannot inline into a baseline loop).
//!
//! Run: `cargo bench -p cuckoo-nest-bench --bench kernels -- --warm-up-time 1 --measurement-time 2`
//! Names: `kernels/<method>/<kernel>`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cuckoo_nest_bench::keys::SplitMix64;
use cuckoo_nest_simd::{available, Dynamic, Kernel, KernelFn};

/// Groups per iteration: 32 KiB of 256-bit groups, 16 KiB of 128-bit ones.
const GROUPS: usize = 1024;

/// The value searched for in every lane width; planted in the data.
const VALUE: u32 = 0x5a5a_5a5a;

/// Pre-generated groups, a quarter of their lanes holding the searched value.
struct Data {
    narrow: Vec<[u64; 2]>,
    wide: Vec<[u64; 4]>,
}

impl Data {
    fn new(width: u32) -> Data {
        let mut rng = SplitMix64::new(width.into());
        let (lane, value) = ((1u64 << width) - 1, u64::from(VALUE));
        let wide: Vec<[u64; 4]> = (0..GROUPS)
            .map(|_| {
                let mut group = [0; 4].map(|_| rng.next_u64());
                for i in (0..256 / width).filter(|_| rng.below(4) == 0) {
                    let (word, shift) = ((i * width / 64) as usize, i * width % 64);
                    group[word] = (group[word] & !(lane << shift)) | ((value & lane) << shift);
                }
                group
            })
            .collect();
        let narrow = wide.iter().map(|g| [g[0], g[1]]).collect();
        Data { narrow, wide }
    }
}

/// Benches one method: `sweep(data, value)` matches every group once, through `Kernel::run`
/// for each kernel and called with `Dynamic` for `dynamic`.
fn bench<'d, S: KernelFn<Output = u32>>(
    c: &mut Criterion,
    method: &str,
    data: &'d Data,
    best: Dynamic,
    sweep: impl Fn(&'d Data, u32) -> S,
) {
    let mut group = c.benchmark_group(format!("kernels/{method}"));
    group.throughput(Throughput::Elements(GROUPS as u64));
    for k in available() {
        group.bench_function(k.name(), |b| {
            b.iter(|| k.run(sweep(black_box(data), black_box(VALUE))))
        });
    }
    // Through the enum, one dispatch per group.
    group.bench_function("dynamic", |b| {
        b.iter(|| sweep(black_box(data), black_box(VALUE)).call(best))
    });
    group.finish();
}

/// For each method, a sweep compiled for the concrete kernel `run` hands over (inside the
/// kernel's target features, so its method inlines into the loop), and its bench.
macro_rules! methods {
    ($($sweep:ident: $method:ident($groups:ident, $lane:ty), $width:literal;)*) => {
        $(
            struct $sweep<'d>(&'d Data, u32);

            impl KernelFn for $sweep<'_> {
                type Output = u32;
                #[inline]
                fn call<K: Kernel>(self, k: K) -> u32 {
                    // An add is the cheapest fold that keeps every mask alive: its one-cycle
                    // dependency chain is shorter than any kernel's work per group.
                    let value = self.1 as $lane;
                    self.0.$groups.iter().fold(0, |a, &g| a.wrapping_add(k.$method(g, value)))
                }
            }
        )*

        fn kernels(c: &mut Criterion) {
            let best = Dynamic::detect();
            let names: Vec<_> = available().iter().map(|k| k.name()).collect();
            eprintln!("kernels on this CPU: {names:?}; dynamic picks {}", best.name());
            $(bench(c, stringify!($method), &Data::new($width), best, $sweep);)*
        }
    };
}

methods! {
    Eq8x16: eq8x16(narrow, u8), 8;
    Eq16x8: eq16x8(narrow, u16), 16;
    Eq32x4: eq32x4(narrow, u32), 32;
    Eq8x32: eq8x32(wide, u8), 8;
    Eq16x16: eq16x16(wide, u16), 16;
    Eq32x8: eq32x8(wide, u32), 32;
}

criterion_group!(benches, kernels);
criterion_main!(benches);
