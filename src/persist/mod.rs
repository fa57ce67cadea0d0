//! The saved format (docs/format.md, byte by byte): a 64-byte header, then
//! the table's words exactly as the owned filter holds them, little-endian.
//!
//! Reading never trusts a size it has not checked: the header is checked
//! (magic, version, its own checksum, the configuration) before anything
//! else, the table's length is computed from the configuration with checked
//! arithmetic and compared with the bytes there are before any allocation
//! of that size, and [`CuckooFilter::load`](crate::CuckooFilter::load) reads a stream into a
//! buffer that grows only as bytes arrive.

//!
//! Functions over a table ([`Inner`](crate::shape::Inner)) and its
//! configuration: the public face (`face/`) calls them. `encode.rs` writes,
//! `path.rs` saves to a file crash-safely, `load.rs` reads back into an
//! owned table, `filter_view.rs` reads in place.

mod encode;
mod filter_view;
pub(crate) mod header;
mod load;
mod options;
mod path;

pub(crate) use encode::{snapshot, to_bytes, write_to, write_to_seekable};
pub use filter_view::FilterView;
pub use header::MAX_METADATA;
pub(crate) use load::{from_bytes, read_from, read_metadata, read_metadata_from};
pub use options::{LoadOptions, SaveOptions};
pub(crate) use path::save_to_path;

use crate::error::{DecodeError, MetadataTooLong};
use header::{Header, HEADER_LEN};
use std::io::{self, Read};

/// Refuses metadata longer than the format carries.
fn check_metadata(metadata: &[u8]) -> Result<(), MetadataTooLong> {
    if metadata.len() > MAX_METADATA {
        return Err(MetadataTooLong {
            len: metadata.len(),
            max: MAX_METADATA,
        });
    }
    Ok(())
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

/// Reads the header (checked) and the metadata block (not yet checked)
/// from `r`, and nothing after them.
fn read_prefix<R: Read>(r: &mut R) -> Result<(Header, Vec<u8>), DecodeError> {
    let mut head = [0u8; HEADER_LEN];
    let got = read_up_to(r, &mut head).map_err(DecodeError::Io)?;
    let header = Header::decode(&head[..got])?;
    let mut block = vec![0u8; header.prefix_len() - HEADER_LEN];
    let got = read_up_to(r, &mut block).map_err(DecodeError::Io)?;
    if got < block.len() {
        return Err(DecodeError::Truncated {
            expected: header.prefix_len() as u64,
            actual: (HEADER_LEN + got) as u64,
        });
    }
    Ok((header, block))
}

/// The first chunk of a table read from a stream. Later chunks are an
/// eighth of what has arrived so far, so a header claiming a huge table
/// costs at most the bytes the stream really held, plus an eighth, plus
/// this (tests/alloc.rs counts it).
const FIRST_CHUNK: usize = 64 << 10;

#[cfg(test)]
mod tests {
    //! Small enough for Miri (.ci/miri.sh runs the unit tests): the unsafe
    //! copy into a fresh table (`Words::from_le_bytes`) and the view's
    //! `align_to`, aligned and not.
    use crate::{CuckooFilter, FilterView, SaveOptions};

    /// A copy of `bytes` starting `past` bytes after an 8-byte boundary:
    /// the vector and the offset of the copy in it.
    fn placed(bytes: &[u8], past: usize) -> (Vec<u8>, usize) {
        let mut v = vec![0u8; bytes.len() + 16];
        let at = (v.as_ptr() as usize).next_multiple_of(8) - v.as_ptr() as usize + past;
        v[at..at + bytes.len()].copy_from_slice(bytes);
        (v, at)
    }

    #[test]
    fn small_round_trip_through_every_path() {
        // The last is growable: 200 items take it to its third generation
        // (version 3, nested addressing).
        for (b, f, semi, growable) in [
            (4usize, 16u32, false, false),
            (2, 7, false, false),
            (4, 13, true, false),
            (4, 12, false, true),
        ] {
            let filter = CuckooFilter::builder()
                .buckets(20)
                .bucket_size(b)
                .fingerprint_bits(f)
                .semi_sorted(semi)
                .growable(growable)
                .build()
                .unwrap();
            let n = if growable { 200 } else { 20 };
            for k in 0..n {
                filter.insert(&k).unwrap();
            }
            assert_eq!(filter.capacity() > 200, growable, "grown past its 76 items");
            let bytes = filter.to_bytes();
            let loaded = CuckooFilter::from_bytes(&bytes).unwrap();
            let mut streamed = Vec::new();
            filter.save(&mut streamed, &SaveOptions::default()).unwrap();
            assert_eq!(streamed, bytes);
            // Placed by hand: Miri, unlike the system allocators, hands
            // out byte vectors at any address.
            let (aligned, at) = placed(&bytes, 0);
            let (shifted, by) = placed(&bytes, 1);
            let views = [
                FilterView::new(&aligned[at..at + bytes.len()]).unwrap(),
                FilterView::new(&shifted[by..by + bytes.len()]).unwrap(),
            ];
            assert!(views[0].is_aligned());
            assert!(!views[1].is_aligned());
            for k in 0..2 * n {
                let want = filter.contains(&k);
                assert_eq!(loaded.contains(&k), want);
                for v in &views {
                    assert_eq!(v.contains(&k), want);
                }
            }
            assert_eq!(loaded.len(), n as usize);
            assert_eq!(loaded.capacity(), filter.capacity());
            loaded.insert(&999u32).unwrap();
            assert!(loaded.contains(&999u32));
            assert_eq!(loaded.len(), n as usize + 1);
        }
    }
}
