//! Typed errors: every input a user can get wrong has a variant here, one
//! file per family: building (`build.rs`), inserting and batch calls
//! (`insert.rs`), merging (`merge.rs`), saved bytes (`decode.rs`); and the
//! human units their messages print numbers in.

mod build;
mod decode;
mod insert;
mod merge;

pub use build::BuildError;
pub use decode::{DecodeError, MetadataTooLong};
pub use insert::{BatchInsertError, InsertError, LengthMismatch};
pub use merge::MergeError;

use std::fmt;

/// A byte count as a person reads it: `135 TiB`, `64 KiB`, `12 bytes`.
pub(crate) struct Bytes(pub(crate) u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let (mut value, mut unit) = (self.0 as f64 / 1024.0, 0);
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        let digits = if value < 10.0 { 1 } else { 0 };
        write!(f, "{value:.digits$} {}", UNITS[unit])
    }
}

/// A rate as a person reads it: `0.01`, `1e-15` (scientific below 1e-4).
pub(crate) struct Rate(pub(crate) f64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        if r != 0.0 && r.is_finite() && r.abs() < 1e-4 {
            write!(f, "{r:.3e}")
        } else {
            write!(f, "{r}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_in_human_units() {
        assert_eq!(Bytes(12).to_string(), "12 bytes");
        assert_eq!(Bytes(64 << 10).to_string(), "64 KiB");
        assert_eq!(Bytes(148_144_741_361_856).to_string(), "135 TiB");
        assert_eq!(Bytes(3 << 29).to_string(), "1.5 GiB");
        assert_eq!(Rate(0.01).to_string(), "0.01");
        assert_eq!(Rate(0.000000000000001).to_string(), "1.000e-15");
        let e = BuildError::AllocationFailed {
            bytes: 148_144_741_361_856,
        };
        assert_eq!(
            e.to_string(),
            "could not allocate the table's 135 TiB (148144741361856 bytes)"
        );
    }
}
