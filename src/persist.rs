//! The saved format (docs/format.md, byte by byte): a 64-byte header, then
//! the table's words exactly as the owned filter holds them, little-endian.
//!
//! Reading never trusts a size it has not checked: the header is checked
//! (magic, version, its own checksum, the configuration) before anything
//! else, the table's length is computed from the configuration with checked
//! arithmetic and compared with the bytes there are before any allocation
//! of that size, and [`CuckooFilter::read_from`] reads a stream into a
//! buffer that grows only as bytes arrive.

use crate::builder::{Config, BUCKET_SIZES, FINGERPRINT_BITS, MAX_BUCKETS};
use crate::error::{BuildError, DecodeError};
use crate::table::table_words;
use crate::{CuckooFilter, Inner};
use std::io::{self, Read, Write};

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

/// Bits of one bucket in the table.
pub(crate) fn bucket_bits(bucket_size: usize, f: u32, semi_sorted: bool) -> usize {
    if semi_sorted {
        4 * f as usize - 4
    } else {
        bucket_size * f as usize
    }
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
        if !BUCKET_SIZES.contains(&b) {
            return Err(invalid(format!("bucket size {b} (must be 2, 4 or 8)")));
        }
        if !FINGERPRINT_BITS.contains(&f) {
            return Err(invalid(format!("fingerprint width {f} (must be 4 to 32)")));
        }
        if semi_sorted && b != 4 {
            return Err(invalid(format!(
                "semi-sorted buckets of {b} slots (must be 4)"
            )));
        }
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
                reference_kernel: false,
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
    fn verify_checksum(&self, computed: u64) -> Result<(), DecodeError> {
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

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The first chunk of a table read from a stream. Later chunks are an
/// eighth of what has arrived so far, so a header claiming a huge table
/// costs at most the bytes the stream really held, plus an eighth, plus
/// this (tests/read_alloc.rs counts it).
const FIRST_CHUNK: usize = 64 << 10;

impl CuckooFilter {
    /// Bytes of the table's words.
    fn table_len(&self) -> usize {
        with_table!(&self.inner, t => t.table_bytes())
    }

    /// Copies the table into `out` (every stripe locked for the copy) and
    /// returns the item count at that moment.
    fn snapshot_into(&self, out: &mut [u8]) -> usize {
        with_table!(&self.inner, t => t.snapshot_into(out))
    }

    /// The filter in the saved format (docs/format.md): a 64-byte header
    /// (configuration, seed, item count, checksums), then the table. Load it
    /// back with [`from_bytes`](Self::from_bytes) or
    /// [`read_from`](Self::read_from), or query it in place with
    /// [`FilterView`](crate::FilterView).
    ///
    /// Safe to call while other threads write: the table is copied with
    /// every stripe locked (writers wait for the memory copy, lookups do
    /// not), so the copy holds every item whose insert returned before
    /// `to_bytes` began and that was not removed since.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("saved")?;
    /// let bytes = filter.to_bytes();
    /// let loaded = CuckooFilter::from_bytes(&bytes)?;
    /// assert!(loaded.contains("saved"));
    /// assert_eq!(loaded.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; HEADER_LEN + self.table_len()];
        let items = self.snapshot_into(&mut out[HEADER_LEN..]);
        let header = Header::encode(&self.config, items, checksum(&out[HEADER_LEN..]));
        out[..HEADER_LEN].copy_from_slice(&header);
        out
    }

    /// Writes the same bytes as [`to_bytes`](Self::to_bytes) to `w`,
    /// building only one table-sized buffer (the snapshot). Same snapshot
    /// guarantee as `to_bytes`; writers wait only for the memory copy, not
    /// for the I/O. Pass a buffered writer or a file: the header and the
    /// table are two `write_all` calls.
    ///
    /// # Errors
    /// Whatever `w` returns.
    pub fn write_to<W: Write>(&self, mut w: W) -> io::Result<()> {
        let mut table = vec![0u8; self.table_len()];
        let items = self.snapshot_into(&mut table);
        w.write_all(&Header::encode(&self.config, items, checksum(&table)))?;
        w.write_all(&table)?;
        w.flush()
    }

    /// A filter from bytes written by [`to_bytes`](Self::to_bytes) or
    /// [`write_to`](Self::write_to): owned and fully usable (inserts,
    /// removes, lookups from any thread), with the original's configuration
    /// and seed, so it hashes and answers exactly as the original did.
    /// Checks the header, that the bytes are exactly as long as it says and
    /// both checksums before allocating the table; then, in one pass over
    /// the loaded table, that every bucket is one a writer of the format
    /// stores and that the header's item count is what the table holds
    /// (docs/format.md, "What loading refuses"). The checksums catch damage;
    /// this catches a writer elsewhere that got the format wrong, whose
    /// buckets would otherwise lose items at the next write.
    ///
    /// # Errors
    /// A [`DecodeError`] saying what is wrong; never a panic, whatever the
    /// bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<CuckooFilter, DecodeError> {
        let header = Header::decode(bytes)?;
        let table = header.table(bytes)?;
        header.verify(table)?;
        Self::from_table(&header, &[table])
    }

    /// [`from_bytes`](Self::from_bytes) from a stream (a file, a socket).
    /// Reads exactly the filter's bytes, so whatever follows it in the
    /// stream is left unread. The table is read in chunks that grow with
    /// what has arrived (each an eighth of it, the first 64 KiB), so a
    /// damaged header claiming a huge table fails as
    /// [`DecodeError::Truncated`] having allocated little more than the
    /// stream held. Pass a buffered reader or a file.
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes); an end of stream before the
    /// filter's end is [`DecodeError::Truncated`], another read failure
    /// [`DecodeError::Io`].
    pub fn read_from<R: Read>(mut r: R) -> Result<CuckooFilter, DecodeError> {
        let mut head = [0u8; HEADER_LEN];
        let got = read_up_to(&mut r, &mut head).map_err(DecodeError::Io)?;
        let header = Header::decode(&head[..got])?;
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut read = 0;
        while read < header.table_len {
            let want = (header.table_len - read).min(FIRST_CHUNK.max(read / 8));
            let mut chunk = vec![0u8; want];
            let got = read_up_to(&mut r, &mut chunk).map_err(DecodeError::Io)?;
            read += got;
            if got < want {
                return Err(DecodeError::Truncated {
                    expected: (HEADER_LEN + header.table_len) as u64,
                    actual: (HEADER_LEN + read) as u64,
                });
            }
            hasher.update(&chunk);
            chunks.push(chunk);
        }
        header.verify_checksum(hasher.digest())?;
        let parts: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
        Self::from_table(&header, &parts)
    }

    /// The filter of a checked header whose table (checksum verified) is
    /// `parts`, one after another: copied into a fresh table, then audited
    /// (every bucket one a writer stores, the header's item count what the
    /// table holds) before anyone can write to it.
    fn from_table(header: &Header, parts: &[&[u8]]) -> Result<CuckooFilter, DecodeError> {
        let inner = Inner::from_le_bytes(&header.config, header.items, parts)?;
        header.check_items(with_table!(&inner, t => t.audit())?)?;
        Ok(CuckooFilter {
            inner,
            config: header.config,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Small enough for Miri (.ci/miri.sh runs the unit tests): the unsafe
    //! copy into a fresh table (`Words::from_le_bytes`) and the view's
    //! `align_to`, aligned and not.
    use crate::{CuckooFilter, FilterView};

    #[test]
    fn small_round_trip_through_every_path() {
        for (b, f, semi) in [(4usize, 16u32, false), (2, 7, false), (4, 13, true)] {
            let filter = CuckooFilter::builder()
                .buckets(20)
                .bucket_size(b)
                .fingerprint_bits(f)
                .semi_sorted(semi)
                .build()
                .unwrap();
            for k in 0..20u32 {
                filter.insert(&k).unwrap();
            }
            let bytes = filter.to_bytes();
            let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
            let mut streamed = Vec::new();
            filter.write_to(&mut streamed).unwrap();
            assert_eq!(streamed, bytes);
            let mut shifted = vec![0u8; bytes.len() + 1];
            shifted[1..].copy_from_slice(&bytes);
            let views = [
                FilterView::new(&bytes).unwrap(),
                FilterView::new(&shifted[1..]).unwrap(),
            ];
            assert!(!views[1].is_aligned());
            for k in 0..40u32 {
                let want = filter.contains(&k);
                assert_eq!(loaded.contains(&k), want);
                for v in &views {
                    assert_eq!(v.contains(&k), want);
                }
            }
            loaded.insert(&99u32).unwrap();
            assert!(loaded.contains(&99u32));
            assert_eq!(loaded.len(), 21);
        }
    }
}
