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
//! - [`Portable`]: the `wide` crate's portable vectors, for non-x86 targets.
//! - `Sse2`, `Avx2`, `Avx512` (x86_64 only): `std::arch` intrinsics. A value of
//!   these types is a proof that the CPU has the feature: build one with
//!   `new()`, which checks at run time.
//! - [`Native`]: the kernel the table is compiled with (chosen by `cfg`, so its
//!   calls inline into the lookup loop).
//! - [`Dynamic`]: the best kernel for the running CPU, detected once.
//!
//! ```
//! use cuckoo_nest_simd::{Kernel, Scalar};
//! // Two 4 x 16-bit buckets side by side: lanes 0..4 and 4..8.
//! let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
//! assert_eq!(Scalar.eq16x8(group, 7), 0b1000_0010);
//! // Empty slots are lanes equal to zero.
//! assert_eq!(Scalar.eq16x8(group, 0), 0b0111_0101);
//! ```

#![warn(missing_docs)]

mod scalar;
pub use scalar::Scalar;

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
}

/// The kernel the filter table is compiled against: chosen at compile time.
pub type Native = Scalar;
