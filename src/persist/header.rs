//! The saved format's header (docs/format.md, byte by byte): 64 bytes of
//! magic, version, configuration, item count and two checksums, then (in
//! version 2) the caller's metadata in a checksummed block. Decoding checks
//! everything it says before anyone allocates what it claims.

use crate::config::{bucket_bits, Config, Growth, FINGERPRINT_BITS, MAX_BUCKETS};
use crate::error::{BuildError, DecodeError};
use crate::grow::SPARE_BITS;
use crate::key::KeyHash;
use crate::table::table_words;
use crate::table::Nested;

/// The first 8 bytes of every saved filter.
pub(crate) const MAGIC: [u8; 8] = *b"CUCKNEST";
/// The newest format version this build reads and writes: 2 adds the
/// metadata block, 3 growable filters (hash algorithm [`HASH_NESTED_V1`],
/// key width and depth in bytes 30 and 31, metadata optional), 4 keys
/// hashed as their bytes ([`HASH_BYTES_V1`], [`HASH_BYTES_NESTED_V1`]).
/// A filter whose generic methods hash through `std::hash::Hash` (one
/// loaded from a file of version 1 to 3) is written as before: version 1
/// without metadata, 2 with, 3 if growable, byte for byte, so readers of
/// those versions still open it. Every filter built by this version hashes
/// its keys as bytes and is written as version 4, which older readers
/// refuse (they would hash `contains(&key)` the old way and miss keys).
/// 5 hashes keys' bytes 16 at a time in lanes ([`HASH_LANES_V1`],
/// [`HASH_LANES_NESTED_V1`]): every filter built by this version is
/// written as version 5; one loaded from a version 4 file keeps version
/// 4's byte hash and is written as version 4, byte for byte.
/// 6 is a growable filter whose growth versions 3 to 5 cannot describe: one
/// that has started a second chain (docs/design.md, "Growth past the spare
/// bits"), or one with [`SPARE_BITS`] spare bits that stops there (a
/// maximum capacity 65 to 128 times its first). Byte 12 holds its chain
/// count and whether it stops ([`CHAIN_COUNT`], [`FLAG_BOUNDED`]), and the
/// table is every chain's, oldest first; any of the three nested hash
/// algorithms. A growable filter of versions 3 to 5 grows past its spare
/// bits if it has [`SPARE_BITS`] of them (what those versions' builders
/// gave a filter with no maximum capacity), and is written as before,
/// byte for byte, until it does.
pub(crate) const FORMAT_VERSION: u16 = 6;
/// Bytes of caller metadata a saved filter can carry.
pub const MAX_METADATA: usize = 1024;
/// Bytes before the table (the table starts 64-byte aligned).
pub(crate) const HEADER_LEN: usize = 64;
/// Hash algorithm 1 (versions 1 and 2): [`StableHasher`](crate::StableHasher)
/// for keys, a generic method's key through its `std::hash::Hash` impl,
/// then `spread`/`split`/`alt_index` (src/hash.rs) from hash to buckets
/// and fingerprint.
pub(crate) const HASH_STABLE_V1: u8 = 1;
/// Hash algorithm 2 (version 3, growable filters): keys as in algorithm
/// 1, then `spread` and the nested addressing of a generation
/// (src/table/nested.rs, `Nested`): a local bucket, a key and spare
/// bits, the low `depth` of them picking the block.
pub(crate) const HASH_NESTED_V1: u8 = 2;
/// Hash algorithm 3 (version 4): a generic method's key hashed as its
/// bytes ([`Key`](crate::Key), `KeyHash::Bytes`), then the mapping of
/// algorithm 1.
pub(crate) const HASH_BYTES_V1: u8 = 3;
/// Hash algorithm 4 (version 4, growable filters): keys as in algorithm
/// 3, then the nested mapping of algorithm 2.
pub(crate) const HASH_BYTES_NESTED_V1: u8 = 4;
/// Hash algorithm 5 (version 5): a generic method's key hashed as its
/// bytes in lanes ([`StableHasher::hash_key_bytes`](crate::StableHasher::hash_key_bytes),
/// `KeyHash::Lanes`), then the mapping of algorithm 1.
pub(crate) const HASH_LANES_V1: u8 = 5;
/// Hash algorithm 6 (version 5, growable filters): keys as in algorithm
/// 5, then the nested mapping of algorithm 2.
pub(crate) const HASH_LANES_NESTED_V1: u8 = 6;
/// Flag bit 0: semi-sorted buckets.
const FLAG_SEMI_SORTED: u8 = 1;
/// Version 6, byte 12, bits 0 to 6: the chains before the current one.
const CHAIN_COUNT: u8 = 0x7f;
/// Version 6, byte 12, bit 7: the filter stops growing at its spare bits
/// (a maximum capacity was given); chain count 0 then.
const FLAG_BOUNDED: u8 = 0x80;

/// The checksum of both header and table: XXH3-64, seed 0.
#[inline]
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// What the header says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Header {
    pub(crate) config: Config,
    pub(crate) items: usize,
    pub(crate) table_checksum: u64,
    /// Bytes of the table (derived from the configuration).
    pub(crate) table_len: usize,
    /// Bytes of caller metadata (0 in version 1).
    pub(crate) metadata_len: usize,
}

/// Bytes of the metadata block that carries `n` bytes of metadata: its
/// checksum, the metadata, zeros to the next 64-byte boundary (so the table
/// stays 64-byte aligned); none for no metadata.
pub(crate) fn block_len(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (8 + n).next_multiple_of(HEADER_LEN)
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

fn invalid(reason: String) -> DecodeError {
    DecodeError::InvalidConfiguration { reason }
}

impl Header {
    /// The header, then the metadata block, of a filter in `config`
    /// holding `items`, whose table bytes have checksum `table_checksum`:
    /// version 1 without metadata, version 2 with, 3 growable (keys through
    /// `std::hash::Hash`); version 4 for keys hashed as bytes 8 at a time,
    /// 5 for keys hashed as bytes in lanes. The caller checked
    /// `metadata.len() <= MAX_METADATA`.
    pub(crate) fn encode(
        config: &Config,
        items: usize,
        table_checksum: u64,
        metadata: &[u8],
    ) -> Vec<u8> {
        debug_assert!(metadata.len() <= MAX_METADATA);
        let mut h = vec![0u8; HEADER_LEN + block_len(metadata.len())];
        h[0..8].copy_from_slice(&MAGIC);
        let (version, hash): (u16, u8) = match (config.keys, config.growth, metadata.is_empty()) {
            (keys, Some(g), _) if needs_version_6(g) => (6, nested_hash(keys)),
            (KeyHash::Lanes, None, _) => (5, HASH_LANES_V1),
            (KeyHash::Lanes, Some(_), _) => (5, HASH_LANES_NESTED_V1),
            (KeyHash::Bytes, None, _) => (4, HASH_BYTES_V1),
            (KeyHash::Bytes, Some(_), _) => (4, HASH_BYTES_NESTED_V1),
            (KeyHash::StdHash, Some(_), _) => (3, HASH_NESTED_V1),
            (KeyHash::StdHash, None, true) => (1, HASH_STABLE_V1),
            (KeyHash::StdHash, None, false) => (2, HASH_STABLE_V1),
        };
        h[8..10].copy_from_slice(&version.to_le_bytes());
        h[10] = config.bucket_size as u8;
        h[11] = config.fingerprint_bits as u8;
        h[12] = match config.growth {
            Some(g) if version == 6 => g.chain as u8 | if g.unbounded { 0 } else { FLAG_BOUNDED },
            _ if config.semi_sorted => FLAG_SEMI_SORTED,
            _ => 0,
        };
        h[13] = hash;
        // 14..16: the metadata's length (versions 2 to 5), zero in version 1.
        h[14..16].copy_from_slice(&(metadata.len() as u16).to_le_bytes());
        h[16..24].copy_from_slice(&config.seed.to_le_bytes());
        h[24..32].copy_from_slice(&(config.buckets as u64).to_le_bytes());
        if let Some(g) = config.growth {
            // Versions 3 to 5: the bucket count in 48 bits (at most 2^48 - 1),
            // then the key width and the depth.
            h[30] = g.key_bits as u8;
            h[31] = g.depth as u8;
        }
        h[32..40].copy_from_slice(&(items as u64).to_le_bytes());
        h[40..48].copy_from_slice(&(config.capacity as u64).to_le_bytes());
        h[48..56].copy_from_slice(&table_checksum.to_le_bytes());
        let header_checksum = checksum(&h[..56]);
        h[56..64].copy_from_slice(&header_checksum.to_le_bytes());
        if !metadata.is_empty() {
            h[64..72].copy_from_slice(&checksum(metadata).to_le_bytes());
            h[72..72 + metadata.len()].copy_from_slice(metadata);
        }
        h
    }

    /// Reads and checks the header at the start of `bytes` (which may be
    /// just the header, or the whole filter): magic, version, header
    /// checksum, then the configuration. Does not look at the table.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Header, DecodeError> {
        let n = bytes.len().min(MAGIC.len());
        if bytes[..n] != MAGIC[..n] {
            return Err(DecodeError::NotAFilter);
        }
        let version = if bytes.len() >= 10 {
            let version = u16_at(bytes, 8);
            if !(1..=FORMAT_VERSION).contains(&version) {
                return Err(DecodeError::UnsupportedVersion {
                    version,
                    supported: FORMAT_VERSION,
                });
            }
            version
        } else {
            1
        };
        if bytes.len() < HEADER_LEN {
            return Err(DecodeError::Truncated {
                expected: HEADER_LEN as u64,
                actual: bytes.len() as u64,
            });
        }
        let h = &bytes[..HEADER_LEN];
        let (stored, computed) = (u64_at(h, 56), checksum(&h[..56]));
        if stored != computed {
            return Err(DecodeError::ChecksumMismatch {
                part: "header",
                stored,
                computed,
            });
        }
        let (b, f, flags, hash) = (h[10] as usize, h[11] as u32, h[12], h[13]);
        let (keys, nested) = match (version, hash) {
            (6, HASH_NESTED_V1) => (KeyHash::StdHash, true),
            (6, HASH_BYTES_NESTED_V1) => (KeyHash::Bytes, true),
            (6, HASH_LANES_NESTED_V1) => (KeyHash::Lanes, true),
            (1 | 2, HASH_STABLE_V1) => (KeyHash::StdHash, false),
            (3, HASH_NESTED_V1) => (KeyHash::StdHash, true),
            (4, HASH_BYTES_V1) => (KeyHash::Bytes, false),
            (4, HASH_BYTES_NESTED_V1) => (KeyHash::Bytes, true),
            (5, HASH_LANES_V1) => (KeyHash::Lanes, false),
            (5, HASH_LANES_NESTED_V1) => (KeyHash::Lanes, true),
            _ => {
                let want = match version {
                    1 | 2 => format!("{HASH_STABLE_V1}"),
                    3 => format!("{HASH_NESTED_V1}"),
                    4 => format!("{HASH_BYTES_V1} or {HASH_BYTES_NESTED_V1}"),
                    5 => format!("{HASH_LANES_V1} or {HASH_LANES_NESTED_V1}"),
                    _ => format!(
                        "{HASH_NESTED_V1}, {HASH_BYTES_NESTED_V1} or {HASH_LANES_NESTED_V1}"
                    ),
                };
                return Err(invalid(format!(
                    "hash algorithm {hash} in a version {version} header (which has {want})"
                )));
            }
        };
        // Version 6's byte 12 is its chains (below); the flags before.
        let flags = if version == 6 { 0 } else { flags };
        if flags & !FLAG_SEMI_SORTED != 0 {
            return Err(invalid(format!("unknown flags {flags:#04x}")));
        }
        let metadata_len = u16_at(h, 14) as usize;
        match version {
            1 if metadata_len != 0 => {
                return Err(invalid("reserved bytes 14..16 are not zero".into()));
            }
            2 if metadata_len == 0 || metadata_len > MAX_METADATA => {
                return Err(invalid(format!(
                    "{metadata_len} bytes of metadata (version 2 carries 1 to {MAX_METADATA})"
                )));
            }
            3..=6 if metadata_len > MAX_METADATA => {
                return Err(invalid(format!(
                    "{metadata_len} bytes of metadata (at most {MAX_METADATA})"
                )));
            }
            _ => {}
        }
        let semi_sorted = flags & FLAG_SEMI_SORTED != 0;
        Config::check_shape(b, f, semi_sorted)?;
        let (seed, mut buckets, items, capacity) =
            (u64_at(h, 16), u64_at(h, 24), u64_at(h, 32), u64_at(h, 40));
        let growth = if nested {
            buckets &= (1 << 48) - 1;
            Some(decode_growth(h, version, f, semi_sorted, buckets)?)
        } else {
            None
        };
        if buckets == 0 || buckets > MAX_BUCKETS as u64 {
            return Err(invalid(format!(
                "{buckets} buckets (must be 1 to {MAX_BUCKETS})"
            )));
        }
        let buckets = buckets as usize;
        // Every chain's table, the current one's last (version 6).
        let earlier = growth.map_or(Vec::new(), |g| Nested::of(g, buckets).earlier_chains());
        let slots = earlier
            .iter()
            .fold(buckets as u64, |sum, a| {
                sum.saturating_add(a.buckets() as u64)
            })
            .saturating_mul(b as u64);
        if items > slots {
            return Err(invalid(format!("{items} items in {slots} slots")));
        }
        let capacity = usize::try_from(capacity)
            .map_err(|_| invalid(format!("capacity {capacity} exceeds this address space")))?;
        let table_len = earlier
            .iter()
            .map(|a| (a.buckets(), a.width()))
            .chain([(buckets, f)])
            .try_fold(0usize, |sum, (buckets, f)| {
                table_words(buckets, bucket_bits(b, f, semi_sorted))
                    .and_then(|w| w.checked_mul(8))
                    .and_then(|len| sum.checked_add(len))
            })
            .filter(|&len| len <= isize::MAX as usize - HEADER_LEN - block_len(metadata_len))
            .ok_or_else(|| {
                invalid(format!(
                    "a table of {buckets} buckets exceeds this address space"
                ))
            })?;
        Ok(Header {
            config: Config {
                bucket_size: b,
                fingerprint_bits: f,
                buckets,
                capacity,
                seed,
                huge_pages: true,
                semi_sorted,
                growth,
                keys,
            },
            items: items as usize,
            table_checksum: u64_at(h, 48),
            table_len,
            metadata_len,
        })
    }

    /// Bytes from the start of the file to the table: the header and the
    /// metadata block.
    pub(crate) fn prefix_len(&self) -> usize {
        HEADER_LEN + block_len(self.metadata_len)
    }

    /// The metadata in `block` (the metadata block, [`block_len`] bytes
    /// after the header), checked: its checksum, and zeros after it.
    pub(crate) fn metadata<'a>(&self, block: &'a [u8]) -> Result<&'a [u8], DecodeError> {
        let n = self.metadata_len;
        if n == 0 {
            return Ok(&[]);
        }
        let metadata = &block[8..8 + n];
        let (stored, computed) = (u64_at(block, 0), checksum(metadata));
        if stored != computed {
            return Err(DecodeError::ChecksumMismatch {
                part: "metadata",
                stored,
                computed,
            });
        }
        if block[8 + n..].iter().any(|&b| b != 0) {
            return Err(invalid("the metadata block's padding is not zero".into()));
        }
        Ok(metadata)
    }

    /// Checks that `bytes` holds the header and the metadata block, and
    /// returns the metadata (checked).
    pub(crate) fn metadata_in<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], DecodeError> {
        let (expected, actual) = (self.prefix_len() as u64, bytes.len() as u64);
        if actual < expected {
            return Err(DecodeError::Truncated { expected, actual });
        }
        self.metadata(&bytes[HEADER_LEN..self.prefix_len()])
    }

    /// Checks that `bytes` is exactly the whole filter this header
    /// describes, metadata included, and returns its table.
    pub(crate) fn table<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], DecodeError> {
        let expected = (self.prefix_len() + self.table_len) as u64;
        let actual = bytes.len() as u64;
        if actual < expected {
            return Err(DecodeError::Truncated { expected, actual });
        }
        if actual > expected {
            return Err(DecodeError::SizeMismatch { expected, actual });
        }
        self.metadata_in(bytes)?;
        Ok(&bytes[self.prefix_len()..])
    }

    /// Checks the table's checksum.
    pub(crate) fn verify(&self, table: &[u8]) -> Result<(), DecodeError> {
        self.verify_checksum(checksum(table))
    }

    /// Checks the table's checksum, computed by the caller.
    pub(crate) fn verify_checksum(&self, computed: u64) -> Result<(), DecodeError> {
        if computed != self.table_checksum {
            return Err(DecodeError::ChecksumMismatch {
                part: "table",
                stored: self.table_checksum,
                computed,
            });
        }
        Ok(())
    }

    /// Checks the header's item count against the fingerprints the table
    /// holds (counted by its audit).
    pub(crate) fn check_items(&self, counted: usize) -> Result<(), DecodeError> {
        if counted != self.items {
            return Err(DecodeError::ItemCountMismatch {
                stored: self.items as u64,
                counted: counted as u64,
            });
        }
        Ok(())
    }
}

/// True if growth `g` needs version 6 ([`FORMAT_VERSION`]): versions 3 to
/// 5 say neither a later chain nor, for [`SPARE_BITS`] spare bits, that the
/// filter stops there.
fn needs_version_6(g: Growth) -> bool {
    g.chain > 0 || (g.spare == SPARE_BITS) != g.unbounded
}

/// The nested hash algorithm of keys hashed as `keys` (version 6 takes
/// each).
fn nested_hash(keys: KeyHash) -> u8 {
    match keys {
        KeyHash::StdHash => HASH_NESTED_V1,
        KeyHash::Bytes => HASH_BYTES_NESTED_V1,
        KeyHash::Lanes => HASH_LANES_NESTED_V1,
    }
}

/// A version 3 to 6 growable header's growth: key width (byte 30) and depth (byte 31),
/// and in version 6 the chains and bound (byte 12),
/// checked against the stored width `f` and the bucket count as a writer
/// makes them (docs/format.md).
fn decode_growth(
    h: &[u8],
    version: u16,
    f: u32,
    semi_sorted: bool,
    buckets: u64,
) -> Result<Growth, DecodeError> {
    let (key_bits, depth) = (h[30] as u32, h[31] as u32);
    if semi_sorted {
        return Err(invalid("a growable filter with semi-sorted buckets".into()));
    }
    // Stored width = key + spare - depth, with 1 <= spare <= 31, depth <=
    // spare and key + spare <= 32.
    // Keys are a width a builder makes (4 to 32 bits): a generation's
    // fingerprints narrow to the key as it grows, and must stay a width
    // this format stores.
    let spare = (f + depth).saturating_sub(key_bits);
    if !FINGERPRINT_BITS.contains(&key_bits) || spare == 0 || depth > spare || key_bits + spare > 32
    {
        return Err(invalid(format!(
            "a growable filter's key of {key_bits} bits at depth {depth} in {f}-bit fingerprints"
        )));
    }
    if buckets == 0 || !buckets.is_multiple_of(1 << depth) {
        return Err(invalid(format!(
            "{buckets} buckets are not 2^{depth} blocks of equal size"
        )));
    }
    let (chain, unbounded) = if version == 6 {
        (u32::from(h[12] & CHAIN_COUNT), h[12] & FLAG_BOUNDED == 0)
    } else {
        (0, spare == SPARE_BITS)
    };
    let growth = Growth {
        key_bits,
        spare,
        depth,
        chain,
        unbounded,
    };
    if chain > 0 && !(unbounded && Nested::chain_fits(growth, buckets)) {
        return Err(invalid(format!(
            "chain {chain} of a growable filter (key of {key_bits} bits, {spare} spare, depth {depth}, {buckets} buckets{})",
            if unbounded { "" } else { ", bounded" }
        )));
    }
    Ok(growth)
}

impl From<BuildError> for DecodeError {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::AllocationFailed { bytes } => DecodeError::AllocationFailed { bytes },
            other => invalid(other.to_string()),
        }
    }
}
