//! Loading saved bytes back as an owned filter, and reading a saved
//! filter's metadata without its table. The work is `persist/`'s.

use super::CuckooFilter;
use crate::error::DecodeError;
use crate::persist;
use std::io::Read;
use std::path::Path;

impl CuckooFilter {
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
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let original = CuckooFilter::with_capacity(1000);
    /// original.insert(&7u32)?;
    /// let bytes = original.to_bytes();
    ///
    /// let loaded = CuckooFilter::from_bytes(&bytes)?;
    /// assert!(loaded.contains(&7u32));
    /// loaded.insert(&8u32)?; // owned: writable like any other filter
    /// assert_eq!(loaded.len(), 2);
    /// assert!(CuckooFilter::from_bytes(&bytes[..10]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`DecodeError`] saying what is wrong; never a panic, whatever the
    /// bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<CuckooFilter, DecodeError> {
        let (inner, config) = persist::from_bytes(bytes, None)?;
        Ok(CuckooFilter {
            inner,
            config,
            counters: super::stats::Counters::new(),
        })
    }

    /// [`from_bytes`](Self::from_bytes), choosing whether a large table
    /// gets huge pages (as [`Builder::huge_pages`](crate::Builder::huge_pages);
    /// `from_bytes` says yes). With `false` the table comes from the global
    /// allocator whatever its size, as a host that accounts for memory
    /// through its allocator needs (a Redis module: otherwise a loaded
    /// table of 4 MiB or more is a mapping of its own that `INFO memory`
    /// and `maxmemory` do not see). Clones of the filter keep the choice.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let bytes = CuckooFilter::with_capacity(1000).to_bytes();
    /// let loaded = CuckooFilter::from_bytes_with_huge_pages(&bytes, false)?;
    /// assert_eq!(loaded.to_bytes(), bytes);
    /// # Ok::<(), cuckoo_nest::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes).
    pub fn from_bytes_with_huge_pages(
        bytes: &[u8],
        huge_pages: bool,
    ) -> Result<CuckooFilter, DecodeError> {
        let (inner, config) = persist::from_bytes(bytes, Some(huge_pages))?;
        Ok(CuckooFilter {
            inner,
            config,
            counters: super::stats::Counters::new(),
        })
    }

    /// [`from_bytes`](Self::from_bytes) from a stream (a file, a socket).
    /// Reads exactly the filter's bytes, so whatever follows it in the
    /// stream is left unread. The table is read in chunks that grow with
    /// what has arrived (each an eighth of it, the first 64 KiB), so a
    /// damaged header claiming a huge table fails as
    /// [`DecodeError::Truncated`] having allocated little more than the
    /// stream held. Pass a buffered reader or a file.
    ///
    /// ```
    /// use std::io::{Cursor, Read};
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let mut stream = Vec::new();
    /// filter.write_to(&mut stream)?;
    /// stream.extend_from_slice(b"what follows");
    ///
    /// let mut reader = Cursor::new(stream); // or a `BufReader<File>`
    /// let loaded = CuckooFilter::read_from(&mut reader)?;
    /// assert!(loaded.contains("k"));
    /// let mut rest = String::new();
    /// reader.read_to_string(&mut rest)?;
    /// assert_eq!(rest, "what follows");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_bytes`](Self::from_bytes); an end of stream before the
    /// filter's end is [`DecodeError::Truncated`], another read failure
    /// [`DecodeError::Io`].
    pub fn read_from<R: Read>(r: R) -> Result<CuckooFilter, DecodeError> {
        Self::read_from_with_metadata(r).map(|(filter, _)| filter)
    }

    /// [`read_from`](Self::read_from), returning the saved metadata too
    /// (empty for a filter saved without).
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(100);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes_with_metadata(b"epoch 3")?;
    /// let (loaded, meta) = CuckooFilter::read_from_with_metadata(&bytes[..])?;
    /// assert!(loaded.contains("k"));
    /// assert_eq!(meta, b"epoch 3");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`read_from`](Self::read_from).
    pub fn read_from_with_metadata<R: Read>(r: R) -> Result<(CuckooFilter, Vec<u8>), DecodeError> {
        let (inner, config, metadata) = persist::read_from(r)?;
        Ok((
            CuckooFilter {
                inner,
                config,
                counters: super::stats::Counters::new(),
            },
            metadata,
        ))
    }

    /// The metadata of saved bytes ([`to_bytes_with_metadata`](Self::to_bytes_with_metadata)),
    /// empty for a filter saved without. Reads the header and the metadata
    /// block only, checking both checksums, not the table: enough to tell
    /// whether a saved filter is stale before loading it.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(1000);
    /// let bytes = filter.to_bytes_with_metadata(b"lsn=42")?;
    /// assert_eq!(CuckooFilter::read_metadata(&bytes)?, b"lsn=42");
    /// assert!(CuckooFilter::read_metadata(&filter.to_bytes())?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`DecodeError`] for a bad header or metadata block.
    pub fn read_metadata(bytes: &[u8]) -> Result<&[u8], DecodeError> {
        persist::read_metadata(bytes)
    }

    /// [`read_metadata`](Self::read_metadata) from a stream (a file, a
    /// socket): reads the header and the metadata block, checking both
    /// checksums, and nothing after them: at most 64 + 1,088 bytes however
    /// large the table, which stays unread (the stream is left where the
    /// table starts). Empty for a filter saved without metadata.
    ///
    /// ```
    /// use std::io::Read;
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(100_000);
    /// let bytes = filter.to_bytes_with_metadata(b"lsn=42")?;
    /// let mut reader = &bytes[..];
    /// assert_eq!(CuckooFilter::read_metadata_from(&mut reader)?, b"lsn=42");
    /// assert_eq!(reader.len(), bytes.len() - 128); // the table is left unread
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`DecodeError`] for a bad header or metadata block; an end of
    /// stream inside them is [`DecodeError::Truncated`], another read
    /// failure [`DecodeError::Io`].
    pub fn read_metadata_from<R: Read>(r: R) -> Result<Vec<u8>, DecodeError> {
        persist::read_metadata_from(r)
    }

    /// [`read_metadata_from`](Self::read_metadata_from) the file at `path`
    /// (one [`save_to_path_with_metadata`](Self::save_to_path_with_metadata)
    /// wrote, say): reads its header and metadata block only, so telling a
    /// stale saved filter from a current one costs two small reads however
    /// large the filter.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let dir = std::env::temp_dir().join(format!("cuckoo-nest-meta-path-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("f.bin");
    /// CuckooFilter::with_capacity(100).save_to_path_with_metadata(&path, b"commit 9")?;
    /// assert_eq!(CuckooFilter::read_metadata_from_path(&path)?, b"commit 9");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`read_metadata_from`](Self::read_metadata_from); failing to
    /// open or read the file is [`DecodeError::Io`], its message naming
    /// the path.
    pub fn read_metadata_from_path<P: AsRef<Path>>(path: P) -> Result<Vec<u8>, DecodeError> {
        persist::read_metadata_from_path(path.as_ref())
    }
}
