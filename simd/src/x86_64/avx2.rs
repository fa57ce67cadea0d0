//! AVX2: 256-bit groups in one register.
//!
//! `vpcmpeqb` + `vpmovmskb` gives all 32 lane bits of an 8-bit group at
//! once, and `vmovmskps` the 8 bits of a 32-bit group. For 16-bit lanes the
//! 256-bit packs work within each 128-bit half, so the halves are narrowed
//! together with one 128-bit pack instead. The 128-bit methods are the SSE2
//! ones compiled with AVX2 enabled (VEX encodings, `vpbroadcast` splats).

use core::arch::x86_64::{
    __m256i, _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_cmpeq_epi16, _mm256_cmpeq_epi32,
    _mm256_cmpeq_epi8, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_movemask_ps, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi8,
};

use super::sse2;
use crate::KernelFn;

/// AVX2 kernel. A value of this type proves the running CPU supports AVX2.
///
/// ```
/// use cuckoo_nest_simd::Kernel;
/// # #[cfg(target_arch = "x86_64")] {
/// if let Some(k) = cuckoo_nest_simd::Avx2::new() {
///     let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000, 0, 7 << 48];
///     assert_eq!(k.eq16x16(group, 7), 0b1000_0000_1000_0100);
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Avx2 {
    /// Private, so only the constructors below can make one.
    _proof: (),
}

impl Avx2 {
    /// The kernel, if the running CPU supports AVX2.
    ///
    /// The check is a cached CPUID lookup: cheap, but not free, so keep the
    /// token rather than calling `new` per lookup.
    #[inline]
    pub fn new() -> Option<Self> {
        if is_x86_feature_detected!("avx2") {
            Some(Avx2 { _proof: () })
        } else {
            None
        }
    }

    /// The kernel, without checking the CPU.
    ///
    /// # Safety
    ///
    /// The running CPU must support AVX2; every method executes AVX2
    /// instructions.
    ///
    /// ```
    /// # #[cfg(target_arch = "x86_64")] {
    /// if is_x86_feature_detected!("avx2") {
    ///     // SAFETY: checked just above.
    ///     let _k = unsafe { cuckoo_nest_simd::Avx2::new_unchecked() };
    /// }
    /// # }
    /// ```
    #[inline]
    pub const unsafe fn new_unchecked() -> Self {
        Avx2 { _proof: () }
    }
}

/// Only when AVX2 is enabled at compile time (`-C target-feature=+avx2`,
/// `-C target-cpu=...`): such a binary already assumes the CPU has it, so
/// no check is needed, and the methods inline into the caller.
///
/// ```
/// # #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))] {
/// let _k = cuckoo_nest_simd::Avx2::default();
/// # }
/// ```
#[cfg(target_feature = "avx2")]
impl Default for Avx2 {
    #[inline(always)]
    fn default() -> Self {
        Avx2 { _proof: () }
    }
}

#[inline(always)]
fn load(group: &[u64; 4]) -> __m256i {
    // SAFETY: `group` points to 32 readable bytes and `loadu` has no
    // alignment requirement. Only called from `avx2` functions.
    unsafe { _mm256_loadu_si256(group.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq8x16(group: [u64; 2], value: u8) -> u32 {
    sse2::eq8x16(group, value)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq16x8(group: [u64; 2], value: u16) -> u32 {
    sse2::eq16x8(group, value)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq32x4(group: [u64; 2], value: u32) -> u32 {
    sse2::eq32x4(group, value)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq8x32(group: [u64; 4], value: u8) -> u32 {
    let eq = _mm256_cmpeq_epi8(load(&group), _mm256_set1_epi8(value as i8));
    _mm256_movemask_epi8(eq) as u32
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq16x16(group: [u64; 4], value: u16) -> u32 {
    let eq = _mm256_cmpeq_epi16(load(&group), _mm256_set1_epi16(value as i16));
    sse2::mask16x2(
        _mm256_castsi256_si128(eq),
        _mm256_extracti128_si256::<1>(eq),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn eq32x8(group: [u64; 4], value: u32) -> u32 {
    let eq = _mm256_cmpeq_epi32(load(&group), _mm256_set1_epi32(value as i32));
    _mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u32
}

/// Calls `f` from a function compiled with AVX2, so that `f`, inlined
/// here, is compiled with it too and the kernel's methods inline into it.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn run<F: KernelFn>(k: Avx2, f: F) -> F::Output {
    f.call(k)
}
