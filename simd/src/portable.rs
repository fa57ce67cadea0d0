//! The portable kernel: the `wide` crate's fixed-width vectors.
//!
//! `wide` lowers each operation to SSE/AVX, NEON or WASM SIMD when the target
//! enables them at compile time and to plain arrays otherwise, so this kernel
//! is the one non-x86 targets use. Lanes are read from the little-endian
//! byte image of the group; on a big-endian target each multi-byte lane then
//! holds its bytes swapped, which is harmless for an equality test as long
//! as the value is swapped the same way (`to_le`).

use wide::{u16x16, u16x8, u32x4, u32x8, u8x16, u8x32};

use crate::Kernel;

/// Kernel on the `wide` crate's portable vectors. Available on every target.
///
/// ```
/// use cuckoo_nest_simd::{Kernel, Portable};
/// let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
/// assert_eq!(Portable.eq16x8(group, 7), 0b1000_0100);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

/// The bytes of a group in lane order (little-endian words, word 0 first).
#[inline(always)]
fn le_bytes<const N: usize, const B: usize>(group: [u64; N]) -> [u8; B] {
    let mut bytes = [0u8; B];
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(group) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    bytes
}

impl Kernel for Portable {
    fn name(self) -> &'static str {
        "portable"
    }
    #[inline(always)]
    fn eq8x16(self, group: [u64; 2], value: u8) -> u32 {
        u8x16::from_ne_bytes(le_bytes(group))
            .simd_eq(u8x16::splat(value))
            .to_bitmask()
    }
    #[inline(always)]
    fn eq16x8(self, group: [u64; 2], value: u16) -> u32 {
        u16x8::from_ne_bytes(le_bytes(group))
            .simd_eq(u16x8::splat(value.to_le()))
            .to_bitmask()
    }
    #[inline(always)]
    fn eq32x4(self, group: [u64; 2], value: u32) -> u32 {
        u32x4::from_ne_bytes(le_bytes(group))
            .simd_eq(u32x4::splat(value.to_le()))
            .to_bitmask()
    }
    #[inline(always)]
    fn eq8x32(self, group: [u64; 4], value: u8) -> u32 {
        u8x32::from_ne_bytes(le_bytes(group))
            .simd_eq(u8x32::splat(value))
            .to_bitmask()
    }
    #[inline(always)]
    fn eq16x16(self, group: [u64; 4], value: u16) -> u32 {
        u16x16::from_ne_bytes(le_bytes(group))
            .simd_eq(u16x16::splat(value.to_le()))
            .to_bitmask()
    }
    #[inline(always)]
    fn eq32x8(self, group: [u64; 4], value: u32) -> u32 {
        u32x8::from_ne_bytes(le_bytes(group))
            .simd_eq(u32x8::splat(value.to_le()))
            .to_bitmask()
    }
}
