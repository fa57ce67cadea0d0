//! The table shapes, listed once, and the dispatch to them.
//!
//! A table is monomorphised per (bucket size, layout), so a hot path's
//! shifts and masks are constants where they can be; one well-predicted
//! `match` per call picks the variant. [`Inner`] holds an owned table of
//! any shape or a growable filter's tables, [`ViewShape`] the same shapes'
//! lookups over a saved filter's bytes; `with_table!` and `with_view!` run
//! a body on the concrete one.

use crate::config::Config;
use crate::error::{BuildError, DecodeError};
use crate::grow::AnyGrowable;
use crate::layout::{Fixed, Packed, SemiSorted};
use crate::table::{Nested, Table, ViewTable};

/// Every shape: name, bucket size, layout type, the (bucket size, width,
/// semi-sorted) it serves, and how its layout is made. The first matching
/// row wins, so the packed widths with a table type of their own come
/// before the catch-all run-time-width rows.
macro_rules! shapes {
    ($m:ident) => {
        $m! {
            B2F8: 2, Fixed<8>, (2, 8, false) => Fixed;
            B2F16: 2, Fixed<16>, (2, 16, false) => Fixed;
            B2F32: 2, Fixed<32>, (2, 32, false) => Fixed;
            B4F8: 4, Fixed<8>, (4, 8, false) => Fixed;
            B4F16: 4, Fixed<16>, (4, 16, false) => Fixed;
            B4F32: 4, Fixed<32>, (4, 32, false) => Fixed;
            B8F8: 8, Fixed<8>, (8, 8, false) => Fixed;
            B8F16: 8, Fixed<16>, (8, 16, false) => Fixed;
            B8F32: 8, Fixed<32>, (8, 32, false) => Fixed;
            B4P10: 4, Packed<10>, (4, 10, false) => Packed::new(4, 10);
            B4P12: 4, Packed<12>, (4, 12, false) => Packed::new(4, 12);
            B4P13: 4, Packed<13>, (4, 13, false) => Packed::new(4, 13);
            B4P17: 4, Packed<17>, (4, 17, false) => Packed::new(4, 17);
            B2Packed: 2, Packed, (2, f, false) => Packed::new(2, f);
            B4Packed: 4, Packed, (4, f, false) => Packed::new(4, f);
            B8Packed: 8, Packed, (8, f, false) => Packed::new(8, f);
            B4S13: 4, SemiSorted<13>, (4, 13, true) => SemiSorted::new(13);
            B4SemiSorted: 4, SemiSorted, (4, f, true) => SemiSorted::new(f);
        }
    };
}

macro_rules! declare_shapes {
    ($($name:ident: $b:literal, $layout:ty, $shape:pat => $make:expr;)*) => {
        /// An owned table of any shape, or a growable filter's tables.
        pub(crate) enum Inner {
            $($name(Table<$b, $layout>),)*
            /// Its tables boxed (inside `AnyGrowable`): inline, their size
            /// and layout lengthen every fixed filter's lookup
            /// (docs/benchmarks.md, "Decisions and the figures behind
            /// them").
            Growable(AnyGrowable),
        }

        /// Runs `$body` with `$t` bound to the concrete table of an
        /// [`Inner`], or `$grow` with `$g` bound to the concrete
        /// [`Growable`](crate::grow::Growable) (one `match` for a fixed
        /// table; a growable filter's bucket size is a second).
        macro_rules! with_table {
            ($inner:expr, $t:ident => $body:expr, $g:ident => $grow:expr) => {
                match $inner {
                    $($crate::shape::Inner::$name($t) => $body,)*
                    $crate::shape::Inner::Growable(any) => {
                        $crate::grow::with_growable!(any, $g => $grow)
                    }
                }
            };
        }
        pub(crate) use with_table;

        impl Inner {
            /// The table for a validated configuration.
            pub(crate) fn new(config: &Config) -> Result<Self, BuildError> {
                if config.growth.is_some() {
                    return Ok(Inner::Growable(AnyGrowable::new(config)?));
                }
                let (m, n, hp) = (config.buckets, config.capacity, config.huge_pages);
                Ok(match config.shape() {
                    $($shape => Inner::$name(Table::new($make, m, n, hp)?),)*
                    (b, f, semi) => unreachable!(
                        "the configuration was validated: bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                })
            }

            /// The table of a validated saved header, holding `len` items,
            /// whose words are `parts` one after another (exactly as long
            /// as the header says), not yet audited ([`Inner::audit`]).
            pub(crate) fn from_le_bytes(
                config: &Config,
                len: usize,
                parts: &[&[u8]],
            ) -> Result<Self, BuildError> {
                if config.growth.is_some() {
                    return Ok(Inner::Growable(AnyGrowable::from_le_bytes(config, len, parts)?));
                }
                let (m, hp) = (config.buckets, config.huge_pages);
                Ok(match config.shape() {
                    $($shape => Inner::$name(Table::from_le_bytes($make, m, len, hp, parts)?),)*
                    (b, f, semi) => unreachable!(
                        "the header was validated: bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                })
            }

            /// The occupied slots of a table loaded from saved bytes, or
            /// the first thing in it no writer stores.
            pub(crate) fn audit(&self) -> Result<usize, DecodeError> {
                with_table!(self, t => t.audit(), g => g.audit())
            }
        }

        /// The same shapes' lookups over a saved filter's bytes, and a
        /// growable filter's saved generation.
        #[derive(Clone)]
        pub(crate) enum ViewShape {
            $($name(ViewTable<$b, $layout>),)*
            NestedB2(ViewTable<2, Packed, Nested>),
            NestedB4(ViewTable<4, Packed, Nested>),
            NestedB8(ViewTable<8, Packed, Nested>),
        }

        impl ViewShape {
            /// The view table of a growable filter's generation `addr`
            /// with `b`-slot buckets (a validated header's).
            pub(crate) fn nested(b: usize, addr: Nested) -> Self {
                let (m, layout) = (addr.buckets(), |b| Packed::new(b, addr.width()));
                match b {
                    2 => ViewShape::NestedB2(ViewTable::with_addressing(layout(2), addr, m)),
                    4 => ViewShape::NestedB4(ViewTable::with_addressing(layout(4), addr, m)),
                    _ => ViewShape::NestedB8(ViewTable::with_addressing(layout(8), addr, m)),
                }
            }
        }

        /// Runs `$body` with `$t` bound to the concrete view table of a
        /// [`ViewShape`].
        macro_rules! with_view {
            ($view:expr, $t:ident => $body:expr) => {
                match $view {
                    $($crate::shape::ViewShape::$name($t) => $body,)*
                    $crate::shape::ViewShape::NestedB2($t) => $body,
                    $crate::shape::ViewShape::NestedB4($t) => $body,
                    $crate::shape::ViewShape::NestedB8($t) => $body,
                }
            };
        }
        pub(crate) use with_view;

        impl ViewShape {
            /// The view table of a validated saved header.
            pub(crate) fn new(config: &Config) -> Self {
                let m = config.buckets;
                if let Some(g) = config.growth {
                    return Self::nested(config.bucket_size, Nested::of(g, m));
                }
                match config.shape() {
                    $($shape => ViewShape::$name(ViewTable::new($make, m)),)*
                    (b, f, semi) => unreachable!(
                        "the header was validated: bucket size {b}, width {f}, semi-sorted {semi}"
                    ),
                }
            }
        }
    };
}
shapes!(declare_shapes);
