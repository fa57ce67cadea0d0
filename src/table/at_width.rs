//! A table of run-time fingerprint width used as the table type of that
//! width as a constant.
//!
//! A growable filter's generations store fingerprints whose width is known
//! only at run time (one bit narrower at each step), so they are
//! `Table<B, Packed, Nested>`: every shift, mask and span of a probe or a
//! claim is computed from the layout's fields. `Packed<F>` is the same
//! layout with `F` as a constant. Both `Table` and `Packed` are
//! `#[repr(C)]`, and `Packed<F>`'s fields are `Packed<0>`'s whatever `F`
//! (the parameter names no field), so a `Table<B, Packed<F>, A>` is laid out
//! exactly as a `Table<B, Packed, A>`; when the table's width is `F`, its
//! fields hold what `Packed<F>` would compute, and the one can be read and
//! written as the other. [`with_width!`] asks the width once and runs its
//! body on the table as the type of that width, for the widths a 1% filter
//! of 4-slot buckets passes through in its first two chains (10 to 21 bits,
//! the builder's default growth); other widths and bucket sizes run as the
//! table is.

use super::{Addressing, Table};
use crate::layout::{Layout, Packed};

impl<const B: usize, A: Addressing> Table<B, Packed, A> {
    /// This table as the table type of width `F`, which must be its width
    /// (checked: a wider `F` would read past its words).
    #[inline(always)]
    pub(crate) fn at_width<const F: u32>(&self) -> &Table<B, Packed<F>, A> {
        assert_eq!(
            <Packed as Layout<B>>::fingerprint_bits(&self.layout),
            F,
            "a table read at another width"
        );
        // SAFETY: `Table` and `Packed` are `#[repr(C)]` and `Packed<F>`'s
        // fields are those of `Packed<0>` for every `F`, so the two table
        // types have one layout and one alignment, and the reference keeps
        // the lifetime and the (shared) access it had. The layout's fields
        // were built for width `F` (`Packed::new(B, F)`, asserted above),
        // which is what `Packed<F>` computes from its constant: every span
        // and mask it reads is the table's own, inside its words.
        unsafe { &*(self as *const Self).cast::<Table<B, Packed<F>, A>>() }
    }

    /// [`Self::at_width`] without its check, for a caller that read the
    /// width before and kept it.
    ///
    /// # Safety
    ///
    /// `F` must be the table's width ([`Self::width`]).
    #[inline(always)]
    pub(crate) unsafe fn at_width_unchecked<const F: u32>(&self) -> &Table<B, Packed<F>, A> {
        debug_assert_eq!(self.width(), F, "a table read at another width");
        // SAFETY: as in `at_width`, whose check the caller's contract
        // stands for: the layout's fields were built for width `F`.
        unsafe { &*(self as *const Self).cast::<Table<B, Packed<F>, A>>() }
    }

    /// The table's fingerprint width.
    #[inline(always)]
    pub(crate) fn width(&self) -> u32 {
        <Packed as Layout<B>>::fingerprint_bits(&self.layout)
    }
}

/// Runs `$body` with `$t` bound to `$table` (a `&Table<B, Packed, A>`) as
/// the table type of its width as a constant ([`Table::at_width`]) for
/// 4-slot buckets of 10 to 21 bits (or of the widths listed after a `;`),
/// else to `$table` itself. `B` must name the bucket size where it is
/// expanded. The body is compiled once per width: keep it to the hot
/// operation.
macro_rules! with_width {
    ($table:expr, $t:ident => $body:expr) => {{
        let table = $table;
        $crate::table::with_width!(@widths table, $t, $body, 10 11 12 13 14 15 16 17 18 19 20 21)
    }};
    // Only the widths listed (a subset of the above): fewer copies of the
    // body where it is inlined into a caller's loop.
    ($table:expr, $t:ident => $body:expr; $($f:literal)*) => {{
        let table = $table;
        $crate::table::with_width!(@widths table, $t, $body, $($f)*)
    }};
    (@widths $table:ident, $t:ident, $body:expr, $($f:literal)*) => {
        match if B == 4 { $table.width() } else { 0 } {
            $($f => {
                let $t = $table.at_width::<$f>();
                $body
            })*
            _ => {
                let $t = $table;
                $body
            }
        }
    };
}
pub(crate) use with_width;

#[cfg(test)]
mod tests {
    use super::super::Copies;
    use super::*;

    fn table(width: u32) -> Table<4, Packed> {
        Table::new(Packed::new(4, width), 1 << 10, 3_000, false).expect("a small table")
    }

    fn hashes() -> impl Iterator<Item = u64> {
        // Under Miri 150 keys: each width's reads and writes through both
        // types still run on every key (.ci/miri.sh: 300 made this the
        // second longest test of CI's longest lane).
        (0..if cfg!(miri) { 150 } else { 3_000u64 }).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Writes through either type land where the other reads them: every
    /// other key inserted at the constant width, the rest as the table is,
    /// then each found, counted and removed through the other.
    #[test]
    fn a_table_at_its_width_reads_and_writes_as_the_table() {
        for width in [10, 13, 17, 21] {
            let plain = table(width);
            macro_rules! check {
                ($f:literal) => {{
                    let wide = plain.at_width::<$f>();
                    for (k, h) in hashes().enumerate() {
                        let (i1, fp) = plain.locate(h);
                        assert_eq!(wide.locate(h), (i1, fp));
                        let stored = if k % 2 == 0 {
                            wide.insert(i1, fp, Copies::Any)
                        } else {
                            plain.insert(i1, fp, Copies::Any)
                        };
                        assert_eq!(stored, Ok(true));
                    }
                    for (k, h) in hashes().enumerate() {
                        let (i1, fp) = plain.locate(h);
                        assert!(plain.contains_hash(h) && wide.contains_hash(h));
                        assert!(plain.count(i1, fp) >= 1);
                        assert_eq!(wide.count(i1, fp), plain.count(i1, fp));
                        let before = plain.count(i1, fp);
                        if k % 2 == 0 {
                            assert!(wide.remove(i1, fp));
                            assert_eq!(plain.count(i1, fp), before - 1);
                        } else {
                            assert!(plain.remove(i1, fp));
                            assert_eq!(wide.count(i1, fp), before - 1);
                        }
                    }
                    assert_eq!(plain.len(), 0);
                }};
            }
            match width {
                10 => check!(10),
                13 => check!(13),
                17 => check!(17),
                _ => check!(21),
            }
        }
    }

    /// The width `t`'s type fixes, 0 for a run-time one.
    fn constant<const F: u32, A>(_: &Table<4, Packed<F>, A>) -> u32 {
        F
    }

    /// `with_width!` runs its body at the table's width as a constant
    /// exactly for 4-slot buckets of 10 to 21 bits.
    #[test]
    fn with_width_picks_the_constant_widths_only() {
        const B: usize = 4;
        for width in 4..=32 {
            let expected = if (10..=21).contains(&width) { width } else { 0 };
            assert_eq!(with_width!(&table(width), t => constant(t)), expected);
        }
    }

    /// Reading a table at a width not its own would read past its words:
    /// refused.
    #[test]
    #[should_panic(expected = "a table read at another width")]
    fn a_table_is_never_read_at_another_width() {
        let _ = table(13).at_width::<14>();
    }
}
