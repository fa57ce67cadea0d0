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
