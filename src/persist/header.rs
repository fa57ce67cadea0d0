//! The saved format's header (docs/format.md, byte by byte): 64 bytes of
//! magic, version, configuration, item count and two checksums. Decoding
//! checks everything it says before anyone allocates what it claims.

use crate::config::{bucket_bits, Config, MAX_BUCKETS};
use crate::error::{BuildError, DecodeError};
use crate::table::table_words;

/// The first 8 bytes of every saved filter.
pub(crate) const MAGIC: [u8; 8] = *b"CUCKNEST";
/// The format version this build reads and writes.
pub(crate) const FORMAT_VERSION: u16 = 1;
/// Bytes before the table (the table starts 64-byte aligned).
pub(crate) const HEADER_LEN: usize = 64;
/// Hash algorithm 1: [`StableHasher`](crate::StableHasher) for keys, then
/// `spread`/`split`/`alt_index` (src/hash.rs) from hash to buckets and
/// fingerprint.
pub(crate) const HASH_STABLE_V1: u8 = 1;
/// Flag bit 0: semi-sorted buckets.
const FLAG_SEMI_SORTED: u8 = 1;

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
    /// The header of a filter in `config` holding `items`, whose table
    /// bytes have checksum `table_checksum`.
    pub(crate) fn encode(config: &Config, items: usize, table_checksum: u64) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        h[10] = config.bucket_size as u8;
        h[11] = config.fingerprint_bits as u8;
        h[12] = if config.semi_sorted {
            FLAG_SEMI_SORTED
        } else {
            0
        };
        h[13] = HASH_STABLE_V1;
        // 14..16 reserved, zero.
        h[16..24].copy_from_slice(&config.seed.to_le_bytes());
        h[24..32].copy_from_slice(&(config.buckets as u64).to_le_bytes());
        h[32..40].copy_from_slice(&(items as u64).to_le_bytes());
        h[40..48].copy_from_slice(&(config.capacity as u64).to_le_bytes());
        h[48..56].copy_from_slice(&table_checksum.to_le_bytes());
        let header_checksum = checksum(&h[..56]);
        h[56..64].copy_from_slice(&header_checksum.to_le_bytes());
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
        if bytes.len() >= 10 {
            let version = u16_at(bytes, 8);
            if version != FORMAT_VERSION {
                return Err(DecodeError::UnsupportedVersion {
                    version,
                    supported: FORMAT_VERSION,
                });
            }
        }
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
        if hash != HASH_STABLE_V1 {
            return Err(invalid(format!(
                "unknown hash algorithm {hash} (this build knows {HASH_STABLE_V1})"
            )));
        }
        if flags & !FLAG_SEMI_SORTED != 0 {
            return Err(invalid(format!("unknown flags {flags:#04x}")));
        }
        if u16_at(h, 14) != 0 {
            return Err(invalid("reserved bytes 14..16 are not zero".into()));
        }
        let semi_sorted = flags & FLAG_SEMI_SORTED != 0;
        Config::check_shape(b, f, semi_sorted)?;
        let (seed, buckets, items, capacity) =
            (u64_at(h, 16), u64_at(h, 24), u64_at(h, 32), u64_at(h, 40));
        if buckets == 0 || buckets > MAX_BUCKETS as u64 {
            return Err(invalid(format!(
                "{buckets} buckets (must be 1 to {MAX_BUCKETS})"
            )));
        }
        let buckets = buckets as usize;
        let slots = buckets as u64 * b as u64;
        if items > slots {
            return Err(invalid(format!("{items} items in {slots} slots")));
        }
        let capacity = usize::try_from(capacity)
            .map_err(|_| invalid(format!("capacity {capacity} exceeds this address space")))?;
        let table_len = table_words(buckets, bucket_bits(b, f, semi_sorted))
            .and_then(|w| w.checked_mul(8))
            .filter(|&len| len <= isize::MAX as usize - HEADER_LEN)
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
            },
            items: items as usize,
            table_checksum: u64_at(h, 48),
            table_len,
        })
    }

    /// Checks that `bytes` is exactly the whole filter this header
    /// describes, and returns its table.
    pub(crate) fn table<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], DecodeError> {
        let expected = (HEADER_LEN + self.table_len) as u64;
        let actual = bytes.len() as u64;
        if actual < expected {
            return Err(DecodeError::Truncated { expected, actual });
        }
        if actual > expected {
            return Err(DecodeError::SizeMismatch { expected, actual });
        }
        Ok(&bytes[HEADER_LEN..])
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

impl From<BuildError> for DecodeError {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::AllocationFailed { bytes } => DecodeError::AllocationFailed { bytes },
            other => invalid(other.to_string()),
        }
    }
}
