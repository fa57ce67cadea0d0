//! AVX-512 (F, BW, VL, DQ): compares that write a mask register.
//!
//! With BW and VL the 128- and 256-bit forms of `vpcmpeq{b,w,d}` write a `k`
//! register holding exactly one bit per lane, which is the lane mask: no
//! packing or sign-bit gathering. No 512-bit register is touched, so there
//! is no frequency or power-state cost on CPUs that have one for wide ops.
//!
//! DQ is asked for only for `kmovb`: the 8-lane masks are `u8`s, and moved
//! out with `kmovd` LLVM adds a `movzx` it cannot prove redundant, which
//! measured 15-20% slower on eq16x8/eq32x4/eq32x8 (AMD EPYC, Zen 4 class);
//! `kmovb` zero-extends by itself. Every CPU with BW and VL has DQ.

use core::arch::x86_64::{
    __m256i, _cvtmask8_u32, _mm256_cmpeq_epi16_mask, _mm256_cmpeq_epi32_mask,
    _mm256_cmpeq_epi8_mask, _mm256_loadu_si256, _mm256_set1_epi16, _mm256_set1_epi32,
    _mm256_set1_epi8, _mm_cmpeq_epi16_mask, _mm_cmpeq_epi32_mask, _mm_cmpeq_epi8_mask,
    _mm_set1_epi16, _mm_set1_epi32, _mm_set1_epi8,
};

use super::sse2;
use crate::KernelFn;

/// AVX-512 kernel. A value of this type proves the running CPU supports
/// AVX-512F, AVX-512BW, AVX-512VL and AVX-512DQ.
///
/// ```
/// use cuckoo_nest_simd::Kernel;
/// # #[cfg(target_arch = "x86_64")] {
/// if let Some(k) = cuckoo_nest_simd::Avx512::new() {
///     let group = [0x0000_0007_0000_0003u64, 0x0007_0000_0000_0000];
///     assert_eq!(k.eq16x8(group, 7), 0b1000_0100);
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Avx512 {
    /// Private, so only the constructors below can make one.
    _proof: (),
}

impl Avx512 {
    /// The kernel, if the running CPU supports AVX-512F, BW, VL and DQ.
    ///
    /// The check is a cached CPUID lookup: cheap, but not free, so keep the
    /// token rather than calling `new` per lookup.
    #[inline]
    pub fn new() -> Option<Self> {
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512dq")
        {
            Some(Avx512 { _proof: () })
        } else {
            None
        }
    }

    /// The kernel, without checking the CPU.
    ///
    /// # Safety
    ///
    /// The running CPU must support AVX-512F, AVX-512BW, AVX-512VL and
    /// AVX-512DQ; every
    /// method executes their instructions.
    ///
    /// ```
    /// # #[cfg(target_arch = "x86_64")] {
    /// if is_x86_feature_detected!("avx512bw")
    ///     && is_x86_feature_detected!("avx512vl")
    ///     && is_x86_feature_detected!("avx512dq")
    /// {
    ///     // SAFETY: checked just above (BW implies F).
    ///     let _k = unsafe { cuckoo_nest_simd::Avx512::new_unchecked() };
    /// }
    /// # }
    /// ```
    #[inline]
    pub const unsafe fn new_unchecked() -> Self {
        Avx512 { _proof: () }
    }
}

/// Only when AVX-512F/BW/VL/DQ are enabled at compile time: such a binary
/// already assumes the CPU has them, so no check is needed, and the methods
/// inline into the caller.
///
/// ```
/// # #[cfg(all(
/// #     target_arch = "x86_64",
/// #     target_feature = "avx512bw",
/// #     target_feature = "avx512vl",
/// #     target_feature = "avx512dq"
/// # ))] {
/// let _k = cuckoo_nest_simd::Avx512::default();
/// # }
/// ```
#[cfg(all(
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vl",
    target_feature = "avx512dq"
))]
impl Default for Avx512 {
    #[inline(always)]
    fn default() -> Self {
        Avx512 { _proof: () }
    }
}

#[inline(always)]
fn load(group: &[u64; 4]) -> __m256i {
    // SAFETY: `group` points to 32 readable bytes and `loadu` has no
    // alignment requirement. Only called from AVX-512 (hence AVX) functions.
    unsafe { _mm256_loadu_si256(group.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq8x16(group: [u64; 2], value: u8) -> u32 {
    _mm_cmpeq_epi8_mask(sse2::load(&group), _mm_set1_epi8(value as i8)) as u32
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq16x8(group: [u64; 2], value: u16) -> u32 {
    _cvtmask8_u32(_mm_cmpeq_epi16_mask(
        sse2::load(&group),
        _mm_set1_epi16(value as i16),
    ))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq32x4(group: [u64; 2], value: u32) -> u32 {
    // The compare zeroes the mask bits above the 4 lanes.
    _cvtmask8_u32(_mm_cmpeq_epi32_mask(
        sse2::load(&group),
        _mm_set1_epi32(value as i32),
    ))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq8x32(group: [u64; 4], value: u8) -> u32 {
    _mm256_cmpeq_epi8_mask(load(&group), _mm256_set1_epi8(value as i8))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq16x16(group: [u64; 4], value: u16) -> u32 {
    _mm256_cmpeq_epi16_mask(load(&group), _mm256_set1_epi16(value as i16)) as u32
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn eq32x8(group: [u64; 4], value: u32) -> u32 {
    _cvtmask8_u32(_mm256_cmpeq_epi32_mask(
        load(&group),
        _mm256_set1_epi32(value as i32),
    ))
}

/// Calls `f` from a function compiled with AVX-512F/BW/VL/DQ, so that `f`, inlined
/// here, is compiled with it too and the kernel's methods inline into it.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline]
pub(super) fn run<F: KernelFn>(k: Avx512, f: F) -> F::Output {
    f.call(k)
}
