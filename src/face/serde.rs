//! `Serialize`/`Deserialize` for [`CuckooFilter`] (feature `serde`):
//! through the saved format (docs/format.md), as one byte string, so a
//! filter in any serde format carries the same checked, versioned bytes as
//! [`CuckooFilter::to_bytes`]. Deserializing checks them as
//! [`CuckooFilter::from_bytes`] does; a [`DecodeError`](crate::DecodeError)
//! becomes the format's custom error, with the same message.

use super::CuckooFilter;
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use std::fmt;

impl Serialize for CuckooFilter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

struct BytesVisitor;

/// Elements reserved up front for a sequence of bytes (formats without a
/// byte-string type send one number per byte): a size hint is the input's
/// claim, so it is trusted only this far.
const MAX_RESERVE: usize = 1 << 20;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = CuckooFilter;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a saved cuckoo-nest filter (bytes)")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<CuckooFilter, E> {
        CuckooFilter::from_bytes(v).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CuckooFilter, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_RESERVE));
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        self.visit_bytes(&bytes)
    }
}

impl<'de> Deserialize<'de> for CuckooFilter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor)
    }
}
