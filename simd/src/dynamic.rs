//! Run-time kernel choice: detect the CPU once, dispatch on every call.
//! The one place the CPU is inspected: the filter asks
//! [`Dynamic::detect`] whether to run its AVX-512 batch loop.
//!
//! [`Dynamic`] wraps one concrete kernel in a small enum. Each method is a
//! `match` on a value that never changes after start-up, which the branch
//! predictor learns at once, but the AVX2 and AVX-512 methods are calls that
//! cannot inline into ordinary code. Callers with a hot loop should dispatch
//! once around the whole loop with [`Kernel::run`], which hands the loop the
//! concrete kernel, compiled with its features, so it inlines.

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
use crate::{Avx2, Avx512, Sse2};
use crate::{Kernel, KernelFn, Portable, Scalar};

/// A kernel chosen at run time: the best one for the running CPU
/// ([`Dynamic::detect`]), or any one from [`available`].
///
/// ```
/// use cuckoo_nest_simd::{Dynamic, Kernel};
/// let k = Dynamic::detect();
/// println!("matching with {}", k.name());
/// assert_eq!(k.eq8x16([0x0500, 0], 5), 0b10);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dynamic(Choice);

#[derive(Clone, Copy, Debug)]
enum Choice {
    Scalar(Scalar),
    Portable(Portable),
    #[cfg(target_arch = "x86_64")]
    Sse2(Sse2),
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
}

/// Binds the concrete kernel inside a `Dynamic` to `$k` and evaluates `$body`
/// with it, once per variant.
macro_rules! dispatch {
    ($dynamic:expr, $k:ident => $body:expr) => {
        match $dynamic.0 {
            Choice::Scalar($k) => $body,
            Choice::Portable($k) => $body,
            #[cfg(target_arch = "x86_64")]
            Choice::Sse2($k) => $body,
            #[cfg(target_arch = "x86_64")]
            Choice::Avx2($k) => $body,
            #[cfg(target_arch = "x86_64")]
            Choice::Avx512($k) => $body,
        }
    };
}

impl Dynamic {
    /// The best kernel for the running CPU: AVX-512, else AVX2, else
    /// SSE2 on x86_64; [`Portable`] elsewhere.
    ///
    /// The CPU is inspected on the first call only; later calls return the
    /// cached choice.
    ///
    /// ```
    /// use cuckoo_nest_simd::{Dynamic, Kernel};
    /// assert_eq!(Dynamic::detect().name(), Dynamic::detect().name());
    /// ```
    pub fn detect() -> Dynamic {
        static BEST: OnceLock<Dynamic> = OnceLock::new();
        *BEST.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if let Some(k) = Avx512::new() {
                    return k.into();
                }
                if let Some(k) = Avx2::new() {
                    return k.into();
                }
                Sse2.into()
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                Portable.into()
            }
        })
    }
}

impl Dynamic {
    /// True if this is the AVX-512 kernel (F, BW, VL and DQ all present).
    /// The filter asks it of [`Dynamic::detect`] before running its batch
    /// loop compiled for AVX-512, so the CPU is inspected in one place.
    ///
    /// ```
    /// use cuckoo_nest_simd::{Dynamic, Kernel};
    /// let best = Dynamic::detect();
    /// assert_eq!(best.is_avx512(), best.name() == "avx512");
    /// ```
    #[inline]
    pub fn is_avx512(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            matches!(self.0, Choice::Avx512(_))
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    }
}

/// The same as [`Dynamic::detect`].
impl Default for Dynamic {
    fn default() -> Self {
        Dynamic::detect()
    }
}

impl From<Scalar> for Dynamic {
    fn from(k: Scalar) -> Self {
        Dynamic(Choice::Scalar(k))
    }
}

impl From<Portable> for Dynamic {
    fn from(k: Portable) -> Self {
        Dynamic(Choice::Portable(k))
    }
}

#[cfg(target_arch = "x86_64")]
impl From<Sse2> for Dynamic {
    fn from(k: Sse2) -> Self {
        Dynamic(Choice::Sse2(k))
    }
}

#[cfg(target_arch = "x86_64")]
impl From<Avx2> for Dynamic {
    fn from(k: Avx2) -> Self {
        Dynamic(Choice::Avx2(k))
    }
}

#[cfg(target_arch = "x86_64")]
impl From<Avx512> for Dynamic {
    fn from(k: Avx512) -> Self {
        Dynamic(Choice::Avx512(k))
    }
}

/// Every kernel the running CPU supports, the scalar reference first and
/// [`Dynamic::detect`]'s choice last. For benchmarks and tests that should
/// cover each one.
///
/// ```
/// use cuckoo_nest_simd::{available, Dynamic, Kernel};
/// let names: Vec<&str> = available().iter().map(|k| k.name()).collect();
/// assert_eq!(names[0], "scalar");
/// assert_eq!(*names.last().unwrap(), Dynamic::detect().name());
/// ```
pub fn available() -> Vec<Dynamic> {
    let mut kernels = vec![Dynamic::from(Scalar), Dynamic::from(Portable)];
    #[cfg(target_arch = "x86_64")]
    {
        kernels.push(Sse2.into());
        kernels.extend(Avx2::new().map(Dynamic::from));
        kernels.extend(Avx512::new().map(Dynamic::from));
    }
    kernels
}

impl Kernel for Dynamic {
    fn name(self) -> &'static str {
        dispatch!(self, k => k.name())
    }
    #[inline]
    fn eq8x16(self, group: [u64; 2], value: u8) -> u32 {
        dispatch!(self, k => k.eq8x16(group, value))
    }
    #[inline]
    fn eq16x8(self, group: [u64; 2], value: u16) -> u32 {
        dispatch!(self, k => k.eq16x8(group, value))
    }
    #[inline]
    fn eq32x4(self, group: [u64; 2], value: u32) -> u32 {
        dispatch!(self, k => k.eq32x4(group, value))
    }
    #[inline]
    fn eq8x32(self, group: [u64; 4], value: u8) -> u32 {
        dispatch!(self, k => k.eq8x32(group, value))
    }
    #[inline]
    fn eq16x16(self, group: [u64; 4], value: u16) -> u32 {
        dispatch!(self, k => k.eq16x16(group, value))
    }
    #[inline]
    fn eq32x8(self, group: [u64; 4], value: u32) -> u32 {
        dispatch!(self, k => k.eq32x8(group, value))
    }
    /// Dispatches once, then runs `f` as the chosen kernel's `run` does.
    #[inline]
    fn run<F: KernelFn>(self, f: F) -> F::Output {
        dispatch!(self, k => k.run(f))
    }
}
