//! A growable filter of any bucket size: the one type the shapes' `Inner`
//! holds for all three, built or loaded from a validated configuration.

use super::Growable;
use crate::error::BuildError;

/// A growable table of any bucket size. Each boxed on its own, not the
/// enum: the filter then holds which one it is and where, so a caller's
/// loop of lookups does not load the box's address on every lookup
/// (callgrind, `g4x10`: 135 instructions a lookup, not 136).
pub(crate) enum AnyGrowable {
    B2(Box<Growable<2>>),
    B4(Box<Growable<4>>),
    B8(Box<Growable<8>>),
}

/// Runs `$body` with `$g` bound to the concrete [`Growable`] (`$any`: an
/// `&AnyGrowable`).
macro_rules! with_growable {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::grow::AnyGrowable::B2(b) => {
                let $g = &**b;
                $body
            }
            $crate::grow::AnyGrowable::B4(b) => {
                let $g = &**b;
                $body
            }
            $crate::grow::AnyGrowable::B8(b) => {
                let $g = &**b;
                $body
            }
        }
    };
}
pub(crate) use with_growable;

impl AnyGrowable {
    /// The growable table for a validated configuration with
    /// [`Config::growth`](crate::config::Config::growth) at depth 0 (the
    /// builder checked the width and the layout).
    pub(crate) fn new(config: &crate::config::Config) -> Result<Self, BuildError> {
        let growth = config.growth.expect("a growable configuration");
        let (m, n, hp) = (config.buckets, config.capacity, config.huge_pages);
        let (f, spare, u) = (growth.key_bits, growth.spare, growth.unbounded);
        Ok(match config.bucket_size {
            2 => AnyGrowable::B2(Box::new(Growable::new(m, f, spare, n, hp, u)?)),
            4 => AnyGrowable::B4(Box::new(Growable::new(m, f, spare, n, hp, u)?)),
            _ => AnyGrowable::B8(Box::new(Growable::new(m, f, spare, n, hp, u)?)),
        })
    }

    /// A growable filter loaded from a saved table (see
    /// [`Growable::from_le_bytes`]).
    pub(crate) fn from_le_bytes(
        config: &crate::config::Config,
        len: usize,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        let growth = config.growth.expect("a growable header");
        Ok(match config.bucket_size {
            2 => AnyGrowable::B2(Box::new(Growable::from_le_bytes(
                config, growth, len, parts,
            )?)),
            4 => AnyGrowable::B4(Box::new(Growable::from_le_bytes(
                config, growth, len, parts,
            )?)),
            _ => AnyGrowable::B8(Box::new(Growable::from_le_bytes(
                config, growth, len, parts,
            )?)),
        })
    }
}
