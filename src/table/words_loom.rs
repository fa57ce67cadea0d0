//! The table's memory under loom, in place of `words/`: loom atomics in a
//! plain `Box`, since loom's atomics cannot be conjured from zeroed memory.
//! No huge pages, no mappings, nothing backed in the background; the same
//! functions as `words/`, so the table's code is one code under both builds.

use crate::error::BuildError;
use crate::sync::AtomicU64;
use std::ops::Deref;

/// Never: loom's tables are heap memory.
pub(crate) fn takes_huge_pages(_bytes: usize, _huge_pages: bool) -> bool {
    false
}

/// Never: loom's tables are heap memory.
pub(crate) fn collapses() -> bool {
    false
}

pub(crate) struct Words(Box<[AtomicU64]>);

impl Words {
    pub(crate) fn zeroed(len: usize, _huge_pages: bool) -> Result<Self, BuildError> {
        Ok(Words((0..len.max(8)).map(|_| AtomicU64::new(0)).collect()))
    }

    pub(crate) fn zeroed_lazily(len: usize, huge_pages: bool) -> Result<Self, BuildError> {
        Self::zeroed(len, huge_pages)
    }

    pub(crate) fn populate_part(&self, _k: usize) -> bool {
        false
    }

    #[allow(dead_code)] // no background backing under loom
    pub(crate) fn populates(&self) -> bool {
        false
    }

    #[allow(dead_code)] // no background collapse under loom
    pub(crate) fn collapses_later(&self) -> bool {
        false
    }

    #[allow(dead_code)] // no background collapse under loom
    pub(crate) fn collapse_part(&self, _k: usize) -> bool {
        false
    }
}

impl Words {
    pub(crate) fn from_le_bytes(
        parts: &[&[u8]],
        padding: usize,
        _huge_pages: bool,
    ) -> Result<Self, BuildError> {
        let bytes: Vec<u8> = parts.concat();
        Ok(Words(
            bytes
                .chunks_exact(8)
                .map(|b| AtomicU64::new(u64::from_le_bytes(b.try_into().expect("8 bytes"))))
                .chain((0..padding).map(|_| AtomicU64::new(0)))
                .collect(),
        ))
    }
}

impl Deref for Words {
    type Target = [AtomicU64];
    fn deref(&self) -> &[AtomicU64] {
        &self.0
    }
}
