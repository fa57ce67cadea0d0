//! x86_64 kernels on `std::arch` intrinsics, one module per instruction set.
//!
//! [`Sse2`] is part of the x86_64 baseline, so it is a plain unit type. The
//! wider sets are optional: [`Avx2`] and [`Avx512`] are *tokens* whose only
//! safe constructors check the CPU first, so a value in hand proves the
//! instructions exist and the safe [`Kernel`](crate::Kernel) methods may call
//! the `#[target_feature]` functions behind them.
//!
//! Groups arrive as `[u64; N]` by value. Loading them with an unaligned load
//! from the local array lets LLVM pick the cheapest way in (a plain `movdqu`
//! when the words come from memory, `movq`/`punpcklqdq` when they are
//! already in registers).

mod avx2;
mod avx512;
mod sse2;

pub use avx2::Avx2;
pub use avx512::Avx512;
pub use sse2::Sse2;

/// Implements [`Kernel`](crate::Kernel) for an x86_64 kernel type by
/// calling, from each method, the `#[target_feature]` function of the same
/// name in the type's module.
///
/// `impl_kernel!(<kind> <type>, "<name>", <module>)`. The kind says why
/// those calls are sound, and so which `SAFETY` argument the generated
/// `unsafe` blocks carry:
///
/// - `baseline`: the module's features are part of the x86_64 baseline
///   (SSE2), so every CPU this code runs on has them. The trait's default
///   `run` is kept: the methods inline anywhere.
/// - `token`: the type is a token whose only constructors check the CPU
///   (`new`), make the caller promise the features (`new_unchecked`), or
///   exist only when the features are enabled at compile time (`default`).
///   The module's `run` is used too, so a whole sweep runs inside the
///   features and the methods inline into it.
macro_rules! impl_kernel {
    (baseline $ty:ident, $name:literal, $module:ident) => {
        impl_kernel!(@impl baseline $ty, $name, $module, {});
    };
    (token $ty:ident, $name:literal, $module:ident) => {
        impl_kernel!(@impl token $ty, $name, $module, {
            #[inline]
            fn run<F: crate::KernelFn>(self, f: F) -> F::Output {
                // SAFETY: `self` is a token, which exists only if the CPU
                // has the features `run` is compiled with: `new()` detected
                // them, the caller of `new_unchecked` guaranteed them, or
                // (`default`) the build enables them.
                unsafe { $module::run(self, f) }
            }
        });
    };
    (@impl $kind:ident $ty:ident, $name:literal, $module:ident, { $($run:tt)* }) => {
        impl crate::Kernel for $ty {
            fn name(self) -> &'static str {
                $name
            }
            impl_kernel!(@method $kind $module::eq8x16([u64; 2], u8));
            impl_kernel!(@method $kind $module::eq16x8([u64; 2], u16));
            impl_kernel!(@method $kind $module::eq32x4([u64; 2], u32));
            impl_kernel!(@method $kind $module::eq8x32([u64; 4], u8));
            impl_kernel!(@method $kind $module::eq16x16([u64; 4], u16));
            impl_kernel!(@method $kind $module::eq32x8([u64; 4], u32));
            $($run)*
        }
    };
    (@method baseline $module:ident::$method:ident($group:ty, $value:ty)) => {
        #[inline(always)]
        fn $method(self, group: $group, value: $value) -> u32 {
            // SAFETY: the function needs only SSE2, which is part of the
            // x86_64 baseline: every x86_64 CPU has it.
            unsafe { $module::$method(group, value) }
        }
    };
    (@method token $module:ident::$method:ident($group:ty, $value:ty)) => {
        #[inline(always)]
        fn $method(self, group: $group, value: $value) -> u32 {
            // SAFETY: `self` is a token, which exists only if the CPU has
            // the features the function is compiled with: `new()` detected
            // them, the caller of `new_unchecked` guaranteed them, or
            // (`default`) the build enables them.
            unsafe { $module::$method(group, value) }
        }
    };
}

impl_kernel!(baseline Sse2, "sse2", sse2);
impl_kernel!(token Avx2, "avx2", avx2);
impl_kernel!(token Avx512, "avx512", avx512);
