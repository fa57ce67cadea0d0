//! Fingerprint-match kernels for cuckoo-nest.
//!
//! A *group* is 128 or 256 bits of packed fingerprints: the words of one or
//! two candidate buckets, as little-endian `u64`s (word `j` holds bits
//! `64j..64j+63`). Lane `k` of a group of `F`-bit lanes is bits
//! `k*F..(k+1)*F`. Every kernel answers one question: which lanes equal a
//! value? The answer is a lane mask, bit `k` set when lane `k` matches.
//! Asking for value 0 gives the empty-slot mask the insert path needs.
//!
//! Every instruction set offers the same face, the [`Kernel`] trait, so the
//! table never sees an intrinsic:
//!
//! - [`Scalar`]: SWAR on plain `u64`s, the reference every other kernel is
//!   tested against; works everywhere.
//! - [`Portable`]: the `wide` crate's portable vectors; works everywhere and
//!   is the SIMD kernel for non-x86_64 targets.
//! - `Sse2`, `Avx2`, `Avx512` (x86_64 only): `std::arch` intrinsics. SSE2 is
//!   part of the x86_64 baseline, so `Sse2` is a plain unit type. `Avx2` and
//!   `Avx512` (AVX-512 F/BW/VL/DQ on 128/256-bit registers) are tokens: a value
//!   proves the CPU has the feature, and `new()` checks at run time.
//! - [`Native`]: the kernel the table is compiled with, chosen by `cfg` from
//!   the features enabled at compile time, so its calls inline into the
//!   lookup loop. Build with `-C target-cpu=native` to get AVX2 or AVX-512.
//! - [`Dynamic`]: the best kernel for the running CPU, detected once;
//!   [`available`] lists every kernel the CPU supports.
//!
//! Lanes of other widths (1 to 32 bits, packed back to back in one `u64`)
//! have an exact SWAR compare of their own, [`PackedLanes`], checked against
//! its lane-by-lane reference.
//!
//! ```
//! use cuckoo_nest_simd::{Kernel, Scalar};
//! // Two 4 x 16-bit buckets side by side: lanes 0..4 and 4..8.
//! let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
//! assert_eq!(Scalar.eq16x8(group, 7), 0b1000_0100);
//! // Empty slots are lanes equal to zero.
//! assert_eq!(Scalar.eq16x8(group, 0), 0b0111_1010);
//! ```

#![warn(missing_docs)]

mod dynamic;
mod packed;
mod portable;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub use dynamic::{available, Dynamic};
pub use packed::PackedLanes;
pub use portable::Portable;
pub use scalar::Scalar;
#[cfg(target_arch = "x86_64")]
pub use x86_64::{Avx2, Avx512, Sse2};

/// A set of fingerprint-comparison kernels for one instruction set.
///
/// Each method compares every lane of a group with `value` and returns the
/// mask of equal lanes (bit `k` = lane `k`). Methods are named by lane width
/// and lane count: `eq16x8` is eight 16-bit lanes, a 128-bit group.
pub trait Kernel: Copy + Send + Sync + core::fmt::Debug + 'static {
    /// Short name for reports ("scalar", "sse2", "avx2", ...).
    fn name(self) -> &'static str;
    /// Sixteen 8-bit lanes (128-bit group).
    fn eq8x16(self, group: [u64; 2], value: u8) -> u32;
    /// Eight 16-bit lanes (128-bit group).
    fn eq16x8(self, group: [u64; 2], value: u16) -> u32;
    /// Four 32-bit lanes (128-bit group).
    fn eq32x4(self, group: [u64; 2], value: u32) -> u32;
    /// Thirty-two 8-bit lanes (256-bit group).
    fn eq8x32(self, group: [u64; 4], value: u8) -> u32;
    /// Sixteen 16-bit lanes (256-bit group).
    fn eq16x16(self, group: [u64; 4], value: u16) -> u32;
    /// Eight 32-bit lanes (256-bit group).
    fn eq32x8(self, group: [u64; 4], value: u32) -> u32;

    /// Runs `f` with this kernel, compiled so the kernel's methods inline
    /// into it.
    ///
    /// This matters for a loop over many groups. `Avx2` and `Avx512` are
    /// chosen at run time, so their methods are `#[target_feature]`
    /// functions, which cannot inline into code compiled without the
    /// feature: called from an ordinary loop, every group pays a function
    /// call. Their `run` enters the feature first and calls `f` there, so
    /// `f` (when it inlines, which `#[inline]` on [`KernelFn::call`] helps)
    /// is compiled with the feature and the kernel inlines into it.
    /// [`Dynamic`] dispatches once here instead of once per group. For the
    /// other kernels `run` is just `f.call(self)`.
    ///
    /// See [`KernelFn`] for an example.
    #[inline]
    fn run<F: KernelFn>(self, f: F) -> F::Output {
        f.call(self)
    }
}

/// A computation generic over the kernel, for [`Kernel::run`].
///
/// Rust closures cannot be generic, so a loop that should be compiled once
/// per kernel, with that kernel inlined, is written as an implementation of
/// this trait.
///
/// ```
/// use cuckoo_nest_simd::{Dynamic, Kernel, KernelFn};
///
/// /// Counts the groups holding `value` in any 16-bit lane.
/// struct CountHits<'a>(&'a [[u64; 2]], u16);
///
/// impl KernelFn for CountHits<'_> {
///     type Output = usize;
///     #[inline]
///     fn call<K: Kernel>(self, k: K) -> usize {
///         self.0.iter().filter(|&&g| k.eq16x8(g, self.1) != 0).count()
///     }
/// }
///
/// let groups = [[0x0009_0000, 0], [0, 0], [0, 9]];
/// assert_eq!(Dynamic::detect().run(CountHits(&groups, 9)), 2);
/// ```
pub trait KernelFn {
    /// What the computation returns.
    type Output;
    /// Runs the computation with a concrete kernel.
    fn call<K: Kernel>(self, kernel: K) -> Self::Output;
}

/// Declares [`Native`] once, so every `cfg` choice carries the same docs.
macro_rules! native {
    ($kernel:ident) => {
        /// The kernel the filter table is compiled against, chosen at compile
        /// time from the enabled target features:
        ///
        /// | target, features                      | `Native`     |
        /// |---------------------------------------|--------------|
        /// | x86_64 with `avx512{f,bw,vl,dq}`      | `Avx512`     |
        /// | x86_64 with `avx2`                    | `Avx2`       |
        /// | other x86_64 (SSE2 baseline)          | `Sse2`       |
        /// | anything else                         | [`Portable`] |
        ///
        #[doc = concat!("In this build it is `", stringify!($kernel), "`.")]
        ///
        /// It always implements [`Default`] (the token kernels do only when
        /// their features are enabled at compile time, which is exactly when
        /// this alias names them), and its methods inline into ordinary code.
        /// [`Dynamic`] is the run-time alternative.
        ///
        /// ```
        /// use cuckoo_nest_simd::{Kernel, Native, Scalar};
        /// let k = Native::default();
        /// let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
        /// assert_eq!(k.eq16x8(group, 7), Scalar.eq16x8(group, 7));
        /// ```
        pub type Native = $kernel;
    };
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vl",
    target_feature = "avx512dq"
))]
native!(Avx512);

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vl",
        target_feature = "avx512dq"
    ))
))]
native!(Avx2);

#[cfg(all(
    target_arch = "x86_64",
    not(target_feature = "avx2"),
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vl",
        target_feature = "avx512dq"
    ))
))]
native!(Sse2);

#[cfg(not(target_arch = "x86_64"))]
native!(Portable);
