//! Loading saved bytes back as an owned filter, and reading a saved
//! filter's metadata without its table. The work is `persist/`'s.

use super::CuckooFilter;
use crate::error::DecodeError;
use crate::persist::{self, LoadOptions};
use std::io::Read;

impl CuckooFilter {
    /// A filter from bytes written by [`to_bytes`](Self::to_bytes) or
    /// [`save`](Self::save): owned and fully usable (inserts,
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

    /// [`from_bytes`](Self::from_bytes) from a stream (a file, a socket),
    /// with the saved metadata (empty for a filter saved without) and the
    /// [`LoadOptions`]' choice of pages. Reads exactly the filter's bytes, so whatever follows it in the
    /// stream is left unread. The table is read in chunks that grow with
    /// what has arrived (each an eighth of it, the first 64 KiB), so a
    /// damaged header claiming a huge table fails as
    /// [`DecodeError::Truncated`] having allocated little more than the
    /// stream held. Pass a buffered reader or a file.
    ///
    /// ```
    /// use std::io::{Cursor, Read};
    /// use cuckoo_nest::{CuckooFilter, LoadOptions, SaveOptions};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let mut stream = Vec::new();
    /// filter.save(&mut stream, &SaveOptions::default().metadata(b"epoch 3")?)?;
    /// stream.extend_from_slice(b"what follows");
    ///
    /// let mut reader = Cursor::new(stream); // or a `BufReader<File>`
    /// let (loaded, metadata) = CuckooFilter::load(&mut reader, &LoadOptions::default())?;
    /// assert!(loaded.contains("k"));
    /// assert_eq!(metadata, b"epoch 3");
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
    pub fn load<R: Read>(
        r: R,
        options: &LoadOptions,
    ) -> Result<(CuckooFilter, Vec<u8>), DecodeError> {
        let (inner, config, metadata) = persist::read_from(r, options.huge_pages)?;
        Ok((
            CuckooFilter {
                inner,
                config,
                counters: super::stats::Counters::new(),
            },
            metadata,
        ))
    }

    /// The metadata of saved bytes ([`SaveOptions::metadata`](crate::SaveOptions::metadata)),
    /// empty for a filter saved without. Reads the header and the metadata
    /// block only, checking both checksums, not the table: enough to tell
    /// whether a saved filter is stale before loading it.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, SaveOptions};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// let mut bytes = Vec::new();
    /// filter.save(&mut bytes, &SaveOptions::default().metadata(b"lsn=42")?)?;
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
    /// use cuckoo_nest::{CuckooFilter, SaveOptions};
    /// let dir = std::env::temp_dir().join(format!("cuckoo-nest-meta-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("f.bin");
    /// let filter = CuckooFilter::with_capacity(100_000);
    /// filter.save_to_path(&path, &SaveOptions::default().metadata(b"lsn=42")?)?;
    /// // Two small reads however large the filter: a stale one is told apart cheaply.
    /// assert_eq!(CuckooFilter::read_metadata_from(std::fs::File::open(&path)?)?, b"lsn=42");
    /// let bytes = std::fs::read(&path)?;
    /// let mut reader = &bytes[..];
    /// assert_eq!(CuckooFilter::read_metadata_from(&mut reader)?, b"lsn=42");
    /// assert_eq!(reader.len(), bytes.len() - 128); // the table is left unread
    /// # std::fs::remove_dir_all(&dir)?;
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
}
