//! Loading: a checked header, then the table's words copied into a fresh
//! table and audited (every bucket one a writer stores, the header's item
//! count what the table holds) before anyone can write to it.

use super::header::Header;
use super::{read_prefix, read_up_to, FIRST_CHUNK};
use crate::config::Config;
use crate::error::DecodeError;
use crate::shape::Inner;
use std::io::Read;

/// The table and configuration of saved `bytes`, the header and both
/// checksums checked before the table is allocated; `huge_pages` overrides
/// the saved choice where given.
pub(crate) fn from_bytes(
    bytes: &[u8],
    huge_pages: Option<bool>,
) -> Result<(Inner, Config), DecodeError> {
    let mut header = Header::decode(bytes)?;
    if let Some(huge_pages) = huge_pages {
        header.config.huge_pages = huge_pages;
    }
    let table = header.table(bytes)?;
    header.verify(table)?;
    from_table(&header, &[table])
}

/// [`from_bytes`] from a stream, with the saved metadata (`huge_pages` as
/// there): reads exactly
/// the filter's bytes, the table in chunks that grow with what has arrived
/// (each an eighth of it, the first [`FIRST_CHUNK`]), so a header claiming
/// a huge table costs little more than the stream held.
pub(crate) fn read_from<R: Read>(
    mut r: R,
    huge_pages: Option<bool>,
) -> Result<(Inner, Config, Vec<u8>), DecodeError> {
    let (mut header, block) = read_prefix(&mut r)?;
    if let Some(huge_pages) = huge_pages {
        header.config.huge_pages = huge_pages;
    }
    let metadata = header.metadata(&block)?.to_vec();
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
                expected: (header.prefix_len() + header.table_len) as u64,
                actual: (header.prefix_len() + read) as u64,
            });
        }
        hasher.update(&chunk);
        chunks.push(chunk);
    }
    header.verify_checksum(hasher.digest())?;
    let parts: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let (inner, config) = from_table(&header, &parts)?;
    Ok((inner, config, metadata))
}

/// The table of a checked header whose table (checksum verified) is
/// `parts`, one after another: copied into a fresh table, then audited.
fn from_table(header: &Header, parts: &[&[u8]]) -> Result<(Inner, Config), DecodeError> {
    let inner = Inner::from_le_bytes(&header.config, header.items, parts)?;
    header.check_items(inner.audit()?)?;
    Ok((inner, header.config))
}

/// The metadata of saved bytes, both checksums of the header and the
/// metadata block checked, the table unread.
pub(crate) fn read_metadata(bytes: &[u8]) -> Result<&[u8], DecodeError> {
    Header::decode(bytes)?.metadata_in(bytes)
}

/// [`read_metadata`] from a stream, which is left where the table starts:
/// at most 64 + 1,088 bytes read.
pub(crate) fn read_metadata_from<R: Read>(mut r: R) -> Result<Vec<u8>, DecodeError> {
    let (header, block) = read_prefix(&mut r)?;
    Ok(header.metadata(&block)?.to_vec())
}
