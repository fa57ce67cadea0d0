//! SSE2: the x86_64 baseline, 128 bits at a time.
//!
//! 8-bit lanes map straight onto `pmovmskb`. Wider lanes first narrow the
//! all-ones/all-zeros compare result with signed saturating packs (`-1`
//! stays `-1`, `0` stays `0`), so one `pmovmskb` again yields one bit per
//! lane. 256-bit groups are two 128-bit halves.
//!
//! The helpers are `#[target_feature(enable = "sse2")]` functions: safe to
//! call from any function with SSE2 or more enabled (the AVX2 and AVX-512
//! kernels reuse them, and inlined there they get VEX encodings and
//! `vpbroadcast*` splats), and from the baseline `Sse2` methods (written by
//! `impl_kernel!` in `mod.rs`) behind an `unsafe` block that names the
//! baseline.

use core::arch::x86_64::{
    __m128i, _mm_castsi128_ps, _mm_cmpeq_epi16, _mm_cmpeq_epi32, _mm_cmpeq_epi8, _mm_loadu_si128,
    _mm_movemask_epi8, _mm_movemask_ps, _mm_packs_epi16, _mm_packs_epi32, _mm_set1_epi16,
    _mm_set1_epi32, _mm_set1_epi8, _mm_setzero_si128,
};

/// SSE2 kernel. SSE2 is part of the x86_64 baseline, so this is always
/// available there and can be built freely.
///
/// ```
/// # #[cfg(target_arch = "x86_64")] {
/// use cuckoo_nest_simd::{Kernel, Sse2};
/// let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
/// assert_eq!(Sse2.eq16x8(group, 7), 0b1000_0100);
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Sse2;

/// Loads a 128-bit group.
#[inline(always)]
pub(super) fn load(group: &[u64; 2]) -> __m128i {
    // SAFETY: `group` points to 16 readable bytes and `loadu` has no
    // alignment requirement; SSE2 is enabled on every x86_64 target.
    unsafe { _mm_loadu_si128(group.as_ptr().cast()) }
}

/// One bit per 8-bit lane of a compare result.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn mask8(eq: __m128i) -> u32 {
    _mm_movemask_epi8(eq) as u32
}

/// One bit per 16-bit lane of a compare result: narrow to bytes (the upper
/// half of the pack is zero), then take the byte signs.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn mask16(eq: __m128i) -> u32 {
    _mm_movemask_epi8(_mm_packs_epi16(eq, _mm_setzero_si128())) as u32
}

/// One bit per 16-bit lane of two compare results, `lo` in bits 0..8.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn mask16x2(lo: __m128i, hi: __m128i) -> u32 {
    _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u32
}

/// One bit per 32-bit lane of a compare result: the float sign mask reads
/// the top bit of each 32-bit lane.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn mask32(eq: __m128i) -> u32 {
    _mm_movemask_ps(_mm_castsi128_ps(eq)) as u32
}

/// One bit per 32-bit lane of two compare results, `lo` in bits 0..4: two
/// packs narrow 32 -> 16 -> 8 bits, one `pmovmskb` collects.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn mask32x2(lo: __m128i, hi: __m128i) -> u32 {
    mask16(_mm_packs_epi32(lo, hi))
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq8x16(group: [u64; 2], value: u8) -> u32 {
    mask8(_mm_cmpeq_epi8(load(&group), _mm_set1_epi8(value as i8)))
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq16x8(group: [u64; 2], value: u16) -> u32 {
    mask16(_mm_cmpeq_epi16(load(&group), _mm_set1_epi16(value as i16)))
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq32x4(group: [u64; 2], value: u32) -> u32 {
    mask32(_mm_cmpeq_epi32(load(&group), _mm_set1_epi32(value as i32)))
}

/// Splits a 256-bit group into its low and high 128-bit halves.
#[inline(always)]
fn halves(group: [u64; 4]) -> (__m128i, __m128i) {
    (load(&[group[0], group[1]]), load(&[group[2], group[3]]))
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq8x32(group: [u64; 4], value: u8) -> u32 {
    let (lo, hi) = halves(group);
    let v = _mm_set1_epi8(value as i8);
    mask8(_mm_cmpeq_epi8(lo, v)) | mask8(_mm_cmpeq_epi8(hi, v)) << 16
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq16x16(group: [u64; 4], value: u16) -> u32 {
    let (lo, hi) = halves(group);
    let v = _mm_set1_epi16(value as i16);
    mask16x2(_mm_cmpeq_epi16(lo, v), _mm_cmpeq_epi16(hi, v))
}

#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn eq32x8(group: [u64; 4], value: u32) -> u32 {
    let (lo, hi) = halves(group);
    let v = _mm_set1_epi32(value as i32);
    mask32x2(_mm_cmpeq_epi32(lo, v), _mm_cmpeq_epi32(hi, v))
}
