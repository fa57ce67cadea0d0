//! Keys: what `insert`, `contains`, `remove`, `count` and their batch forms
//! take ([`Key`]), and the one hash every way of passing a key reaches.
//!
//! A key is its bytes: `str`, `[u8]`, `String`, `Vec<u8>`, `[u8; N]` (and
//! references, boxes and `Cow`s of them) are hashed as their bytes, the
//! integer types as their little-endian bytes (`usize` and `isize` as 8
//! bytes), all with [`StableHasher::hash_key_bytes`] (format version 5;
//! a filter loaded from a version 4 file keeps that version's
//! [`StableHasher::hash_bytes`]). So `insert("k")`, `insert(b"k")`,
//! `insert(&b"k"[..])` and `insert(&String::from("k"))` store one
//! fingerprint in one bucket pair, and each finds what the others stored.
//! [`ByHash`] takes any other `T: Hash`; [`PreHashed`] a hash already made.
//!
//! Files saved before this trait (format versions 1 to 3) hashed the
//! generic methods' keys through `std::hash::Hash`: a filter loaded from
//! one keeps that encoding ([`KeyHash::StdHash`]) for its generic
//! methods, so its keys are found the way they were inserted
//! (docs/format.md, "Keys").

use crate::hash::StableHasher;
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

/// How a filter's generic methods (`insert(&key)`, `contains(&key)`, ...)
/// turn a [`Key`] into its 64-bit hash: recorded in the saved file
/// (docs/format.md, header byte 13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyHash {
    /// A key through its `std::hash::Hash` impl into [`StableHasher`]:
    /// files of format versions 1 to 3, loaded (their generic methods
    /// hashed this way when they were saved).
    StdHash = 0,
    /// A key's bytes, through [`StableHasher::hash_bytes`] (8 bytes per
    /// multiply, in a row): files of format version 4, loaded.
    Bytes = 1,
    /// A key's bytes, through [`StableHasher::hash_key_bytes`] (16 bytes
    /// per multiply, in independent lanes): every filter built by this
    /// version, and files of format version 5.
    Lanes = 2,
}

impl KeyHash {
    /// `key`'s hash under this encoding, from a hasher already seeded
    /// with the filter's seed (a batch seeds one and clones it per key).
    #[inline(always)]
    pub(crate) fn hash<K: Key + ?Sized>(self, seeded: &StableHasher, key: &K) -> u64 {
        match self {
            KeyHash::Lanes => key.hash_lanes(seeded),
            KeyHash::Bytes => key.hash_key(seeded),
            KeyHash::StdHash => key.hash_std(seeded),
        }
    }
}

pub(crate) mod sealed {
    use crate::hash::StableHasher;

    /// The two encodings of a key. Sealed: nameable inside the crate
    /// only, so every [`Key`](super::Key) is one of this module's types
    /// and no two of them disagree on a key's bytes.
    pub trait Encode {
        /// The key's hash as bytes, format version 5
        /// ([`KeyHash::Lanes`](super::KeyHash)).
        fn hash_lanes(&self, seeded: &StableHasher) -> u64;
        /// The key's hash as bytes, format version 4
        /// ([`KeyHash::Bytes`](super::KeyHash)).
        fn hash_key(&self, seeded: &StableHasher) -> u64;
        /// The key's hash through `std::hash::Hash`
        /// ([`KeyHash::StdHash`](super::KeyHash)).
        fn hash_std(&self, seeded: &StableHasher) -> u64;
    }
}

/// A key the generic methods (`insert`, `contains`, `remove`, `count`,
/// `insert_unique`, their batch forms, `hash_item`) take. Every way of
/// passing one key gives one hash: byte strings (`str`, `[u8]`, `String`,
/// `Vec<u8>`, `[u8; N]`, `Box`, `Rc`, `Arc` and `Cow` of those, and
/// references to any key) are hashed as their bytes, integers as their
/// little-endian bytes (`usize`/`isize` as 8 bytes, so the same on every
/// platform; docs/format.md gives the hash byte by byte). A key is its bytes: `42u32` is the 4 bytes `2a 00 00
/// 00` and `42u64` the 8 bytes `2a 00 .. 00`, two different keys.
///
/// Sealed: for a type of your own, pass its bytes, or wrap it in
/// [`ByHash`] (hashed through its `std::hash::Hash` impl), or hash it
/// yourself and pass [`PreHashed`].
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::with_capacity(100);
/// filter.insert("user:1")?;
/// assert!(filter.contains(b"user:1"));
/// assert!(filter.contains(&b"user:1"[..]));
/// assert!(filter.contains(&String::from("user:1")));
/// assert!(filter.contains(&b"user:1".to_vec()));
/// filter.insert(&7u64)?;
/// assert!(filter.contains(&7u64.to_le_bytes()));
/// assert_eq!(filter.hash_item(&7u64), filter.hash_item(&7u64.to_le_bytes()));
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
pub trait Key: sealed::Encode {}

/// Hashes `bytes` with a seeded hasher: `StableHasher::hash_bytes`.
#[inline(always)]
fn bytes_from(seeded: &StableHasher, bytes: &[u8]) -> u64 {
    let mut h = seeded.clone();
    h.write(bytes);
    h.finish()
}

/// Hashes `bytes` with version 5's hash: `StableHasher::hash_key_bytes`.
#[inline(always)]
fn lanes_from(seeded: &StableHasher, bytes: &[u8]) -> u64 {
    crate::hash::lanes_hash(seeded.lanes_state(), bytes)
}

/// Hashes `item` through its `Hash` impl with a seeded hasher:
/// `StableHasher::hash_one`.
#[inline(always)]
fn std_from<T: Hash + ?Sized>(seeded: &StableHasher, item: &T) -> u64 {
    let mut h = seeded.clone();
    item.hash(&mut h);
    h.finish()
}

/// Byte strings: hashed as the bytes `as_ref` gives.
macro_rules! byte_keys {
    ($($t:ty),* $(,)?) => {$(
        impl sealed::Encode for $t {
            #[inline(always)]
            fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
                let bytes: &[u8] = self.as_ref();
                lanes_from(seeded, bytes)
            }
            #[inline(always)]
            fn hash_key(&self, seeded: &StableHasher) -> u64 {
                let bytes: &[u8] = self.as_ref();
                bytes_from(seeded, bytes)
            }
            #[inline(always)]
            fn hash_std(&self, seeded: &StableHasher) -> u64 {
                std_from(seeded, self)
            }
        }
        impl Key for $t {}
    )*};
}

byte_keys!(str, [u8], String, Vec<u8>);

impl<const N: usize> sealed::Encode for [u8; N] {
    #[inline(always)]
    fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
        lanes_from(seeded, self)
    }
    #[inline(always)]
    fn hash_key(&self, seeded: &StableHasher) -> u64 {
        bytes_from(seeded, self)
    }
    #[inline(always)]
    fn hash_std(&self, seeded: &StableHasher) -> u64 {
        std_from(seeded, self)
    }
}
impl<const N: usize> Key for [u8; N] {}

/// `usize` as a `u64`'s 8 bytes, on every platform.
fn usize_le_bytes(x: usize) -> [u8; 8] {
    (x as u64).to_le_bytes()
}

/// `isize` as an `i64`'s 8 bytes, on every platform.
fn isize_le_bytes(x: isize) -> [u8; 8] {
    (x as i64).to_le_bytes()
}

/// Integers: hashed as their little-endian bytes (`usize`
/// and `isize` as 64 bits, on every platform).
macro_rules! int_keys {
    ($($t:ty => $bytes:path),* $(,)?) => {$(
        impl sealed::Encode for $t {
            #[inline(always)]
            fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
                lanes_from(seeded, &$bytes(*self))
            }
            #[inline(always)]
            fn hash_key(&self, seeded: &StableHasher) -> u64 {
                bytes_from(seeded, &$bytes(*self))
            }
            #[inline(always)]
            fn hash_std(&self, seeded: &StableHasher) -> u64 {
                std_from(seeded, self)
            }
        }
        impl Key for $t {}
    )*};
}

int_keys!(
    u8 => u8::to_le_bytes,
    u16 => u16::to_le_bytes,
    u32 => u32::to_le_bytes,
    u64 => u64::to_le_bytes,
    u128 => u128::to_le_bytes,
    usize => usize_le_bytes,
    i8 => i8::to_le_bytes,
    i16 => i16::to_le_bytes,
    i32 => i32::to_le_bytes,
    i64 => i64::to_le_bytes,
    i128 => i128::to_le_bytes,
    isize => isize_le_bytes,
);

/// Pointers to a key: the key they point to (their `Hash` impls delegate
/// too, so both encodings agree with the pointee's).
macro_rules! pointer_keys {
    ($($p:ident),* $(,)?) => {$(
        impl<K: Key + ?Sized> sealed::Encode for $p<K> {
            #[inline(always)]
            fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
                (**self).hash_lanes(seeded)
            }
            #[inline(always)]
            fn hash_key(&self, seeded: &StableHasher) -> u64 {
                (**self).hash_key(seeded)
            }
            #[inline(always)]
            fn hash_std(&self, seeded: &StableHasher) -> u64 {
                (**self).hash_std(seeded)
            }
        }
        impl<K: Key + ?Sized> Key for $p<K> {}
    )*};
}

pointer_keys!(Box, Rc, Arc);

impl<K: Key + ?Sized> sealed::Encode for &K {
    #[inline(always)]
    fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_lanes(seeded)
    }
    #[inline(always)]
    fn hash_key(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_key(seeded)
    }
    #[inline(always)]
    fn hash_std(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_std(seeded)
    }
}
impl<K: Key + ?Sized> Key for &K {}

impl<K: Key + ToOwned + ?Sized> sealed::Encode for Cow<'_, K> {
    #[inline(always)]
    fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_lanes(seeded)
    }
    #[inline(always)]
    fn hash_key(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_key(seeded)
    }
    #[inline(always)]
    fn hash_std(&self, seeded: &StableHasher) -> u64 {
        (**self).hash_std(seeded)
    }
}
impl<K: Key + ToOwned + ?Sized> Key for Cow<'_, K> {}

/// A key of any other `T: Hash` (a tuple, a struct of your own), hashed
/// through its `std::hash::Hash` impl into [`StableHasher`] with the
/// filter's seed, as `insert(&t)` hashed every key before [`Key`].
///
/// Its hash depends on `T`'s `Hash` impl, which the standard library does
/// not promise to keep across Rust releases, and it is not the hash of
/// the key's bytes: `ByHash("k")` and `"k"` are different keys. Pass a
/// key through `ByHash` every time or never.
///
/// ```
/// use cuckoo_nest::{ByHash, CuckooFilter, StableHasher};
/// let filter = CuckooFilter::with_capacity(100);
/// filter.insert(&ByHash((7u32, "seven")))?;
/// assert!(filter.contains(&ByHash((7u32, "seven"))));
/// assert!(filter.contains(&ByHash(&(7u32, "seven")))); // through a reference
/// assert_eq!(
///     filter.hash_item(&ByHash((7u32, "seven"))),
///     StableHasher::hash_one(filter.shape().seed, &(7u32, "seven")),
/// );
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByHash<T>(pub T);

impl<T: Hash> sealed::Encode for ByHash<T> {
    #[inline(always)]
    fn hash_lanes(&self, seeded: &StableHasher) -> u64 {
        std_from(seeded, &self.0)
    }
    #[inline(always)]
    fn hash_key(&self, seeded: &StableHasher) -> u64 {
        std_from(seeded, &self.0)
    }
    #[inline(always)]
    fn hash_std(&self, seeded: &StableHasher) -> u64 {
        std_from(seeded, &self.0)
    }
}
impl<T: Hash> Key for ByHash<T> {}

/// A key already hashed to 64 well-mixed bits: every method uses the hash
/// as it is, so a caller that hashes its own keys passes them like any
/// other key, one at a time or in batches (an iterator of `PreHashed`).
///
/// ```
/// use cuckoo_nest::{CuckooFilter, PreHashed};
/// let filter = CuckooFilter::with_capacity(100);
/// let h = filter.hash_item("k");
/// filter.insert(&PreHashed(h))?;
/// assert!(filter.contains("k"));
/// assert!(filter.contains(&PreHashed(h)));
/// filter.insert_batch(&[PreHashed(1), PreHashed(2)])?;
/// assert!(filter.contains(&PreHashed(2)));
/// let hashes: Vec<u64> = vec![3, 4];
/// filter.insert_batch(hashes.iter().map(|&h| PreHashed(h)))?;
/// assert_eq!(filter.contains_batch(hashes.iter().map(|&h| PreHashed(h))), [true, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PreHashed(pub u64);

impl sealed::Encode for PreHashed {
    #[inline(always)]
    fn hash_lanes(&self, _seeded: &StableHasher) -> u64 {
        self.0
    }
    #[inline(always)]
    fn hash_key(&self, _seeded: &StableHasher) -> u64 {
        self.0
    }
    #[inline(always)]
    fn hash_std(&self, _seeded: &StableHasher) -> u64 {
        self.0
    }
}
impl Key for PreHashed {}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(seed: u64, k: &(impl Key + ?Sized)) -> u64 {
        KeyHash::Bytes.hash(&StableHasher::with_seed(seed), k)
    }

    fn std(seed: u64, k: &(impl Key + ?Sized)) -> u64 {
        KeyHash::StdHash.hash(&StableHasher::with_seed(seed), k)
    }

    #[test]
    fn every_byte_string_form_is_its_bytes() {
        let want = StableHasher::hash_bytes(3, b"user:1");
        let forms = [
            bytes(3, "user:1"),
            bytes(3, &b"user:1"[..]),
            bytes(3, b"user:1"),
            bytes(3, &String::from("user:1")),
            bytes(3, &b"user:1".to_vec()),
            bytes(3, &&"user:1"),
            bytes(3, &Box::<str>::from("user:1")),
            bytes(3, &Arc::<[u8]>::from(&b"user:1"[..])),
            bytes(3, &Rc::<str>::from("user:1")),
            bytes(3, &Cow::<str>::Borrowed("user:1")),
            bytes(3, &Cow::<[u8]>::Owned(b"user:1".to_vec())),
        ];
        assert!(forms.iter().all(|&h| h == want), "{forms:x?} vs {want:x}");
    }

    #[test]
    fn integers_are_their_little_endian_bytes() {
        assert_eq!(
            bytes(0, &42u64),
            StableHasher::hash_bytes(0, &42u64.to_le_bytes())
        );
        assert_eq!(bytes(0, &42usize), bytes(0, &42u64));
        assert_eq!(bytes(0, &-1isize), bytes(0, &-1i64));
        assert_eq!(bytes(0, &-1i64), StableHasher::hash_bytes(0, &[0xff; 8]));
        assert_eq!(bytes(5, &7u8), StableHasher::hash_bytes(5, &[7]));
        assert_eq!(bytes(5, &7u16), StableHasher::hash_bytes(5, &[7, 0]));
        assert_eq!(bytes(5, &7u32), StableHasher::hash_bytes(5, &[7, 0, 0, 0]));
        assert_eq!(
            bytes(5, &u128::MAX),
            StableHasher::hash_bytes(5, &u128::MAX.to_le_bytes())
        );
        assert_eq!(bytes(5, &-2i8), StableHasher::hash_bytes(5, &[0xfe]));
        assert_eq!(bytes(5, &-2i16), StableHasher::hash_bytes(5, &[0xfe, 0xff]));
        assert_eq!(
            bytes(5, &-2i32),
            StableHasher::hash_bytes(5, &[0xfe, 0xff, 0xff, 0xff])
        );
        assert_eq!(
            bytes(5, &-2i128),
            StableHasher::hash_bytes(5, &(-2i128).to_le_bytes())
        );
        // Widths are part of the key: 4 bytes are not 8.
        assert_ne!(bytes(0, &42u32), bytes(0, &42u64));
    }

    #[test]
    fn pinned_values() {
        // If one of these changes, files of format version 4 stop finding
        // their keys: a breaking change. docs/format.md quotes the first.
        assert_eq!(bytes(0, "cuckoo"), 0xbd6a_6945_5d53_3dde);
        assert_eq!(
            bytes(0, &42u64),
            StableHasher::hash_bytes(0, &42u64.to_le_bytes())
        );
        assert_eq!(bytes(9, &PreHashed(0x1234)), 0x1234);
    }

    fn lanes(seed: u64, k: &(impl Key + ?Sized)) -> u64 {
        KeyHash::Lanes.hash(&StableHasher::with_seed(seed), k)
    }

    #[test]
    fn every_key_form_is_its_bytes_in_version_5() {
        let want = StableHasher::hash_key_bytes(3, b"user:1");
        let forms = [
            lanes(3, "user:1"),
            lanes(3, &b"user:1"[..]),
            lanes(3, b"user:1"),
            lanes(3, &String::from("user:1")),
            lanes(3, &b"user:1".to_vec()),
            lanes(3, &&"user:1"),
            lanes(3, &Box::<str>::from("user:1")),
            lanes(3, &Arc::<[u8]>::from(&b"user:1"[..])),
            lanes(3, &Rc::<str>::from("user:1")),
            lanes(3, &Cow::<str>::Borrowed("user:1")),
        ];
        assert!(forms.iter().all(|&h| h == want), "{forms:x?} vs {want:x}");
        let le = |seed, b: &[u8]| StableHasher::hash_key_bytes(seed, b);
        assert_eq!(lanes(0, &42u64), le(0, &42u64.to_le_bytes()));
        assert_eq!(lanes(0, &42usize), lanes(0, &42u64));
        assert_eq!(lanes(0, &-1isize), le(0, &[0xff; 8]));
        assert_eq!(lanes(5, &7u8), le(5, &[7]));
        assert_eq!(lanes(5, &7u32), le(5, &[7, 0, 0, 0]));
        assert_eq!(lanes(5, &-2i128), le(5, &(-2i128).to_le_bytes()));
        assert_eq!(lanes(5, &[9u8; 32]), le(5, &[9; 32]));
        assert_ne!(lanes(0, &42u32), lanes(0, &42u64));
        // Pinned (src/hash.rs pins more); docs/format.md quotes it.
        assert_eq!(lanes(0, "cuckoo"), 0x6155_89dd_0db2_8f6a);
        assert_eq!(lanes(9, &PreHashed(0x1234)), 0x1234);
        let by = ByHash(("a", 1u64));
        assert_eq!(lanes(1, &by), StableHasher::hash_one(1, &("a", 1u64)));
    }

    #[test]
    fn the_std_encoding_is_what_hash_one_gave() {
        // Files of format versions 1 to 3 hashed every generic key so.
        assert_eq!(std(0, "cuckoo"), StableHasher::hash_one(0, "cuckoo"));
        assert_eq!(std(0, "cuckoo"), 0x26ba_5f89_ec3a_bd77);
        assert_eq!(std(0, &42u64), 0x8247_0660_2e3e_3621);
        assert_eq!(std(0, &42usize), 0x8247_0660_2e3e_3621);
        assert_eq!(std(0, &[1u8, 2, 3]), 0x7a09_8350_cc4a_21cb);
        assert_eq!(std(0, &[1u8, 2, 3][..]), 0x7a09_8350_cc4a_21cb);
        assert_eq!(std(0, &vec![1u8, 2, 3]), 0x7a09_8350_cc4a_21cb);
        assert_eq!(std(0, &String::from("cuckoo")), std(0, "cuckoo"));
        assert_eq!(std(0, &&"cuckoo"), std(0, "cuckoo"));
        assert_eq!(
            std(7, &ByHash((1u8, 2u8))),
            StableHasher::hash_one(7, &(1u8, 2u8))
        );
        assert_eq!(std(7, &PreHashed(5)), 5);
    }

    #[test]
    fn by_hash_is_the_same_in_both_encodings() {
        let k = ByHash(("a", 1u64));
        assert_eq!(bytes(1, &k), std(1, &k));
        assert_eq!(bytes(1, &k), StableHasher::hash_one(1, &("a", 1u64)));
        assert_eq!(bytes(1, &ByHash(&("a", 1u64))), bytes(1, &k));
    }
}
