//! The saved format (docs/format.md, byte by byte): a 64-byte header, then
//! the table's words exactly as the owned filter holds them, little-endian.
//!
//! Reading never trusts a size it has not checked: the header is checked
//! (magic, version, its own checksum, the configuration) before anything
//! else, the table's length is computed from the configuration with checked
//! arithmetic and compared with the bytes there are before any allocation
//! of that size, and [`CuckooFilter::read_from`] reads a stream into a
//! buffer that grows only as bytes arrive.

mod filter_view;
mod header;
#[cfg(feature = "serde")]
mod serde;

pub use filter_view::FilterView;

use crate::config::Config;
use crate::error::DecodeError;
use crate::filter::CuckooFilter;
use crate::shape::{with_table, Inner};
pub use header::MAX_METADATA;

use crate::error::MetadataTooLong;
use header::{checksum, Header, HEADER_LEN};
use std::convert::Infallible;
use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

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

impl CuckooFilter {
    /// Bytes of the table's words (a growable filter's current
    /// generation's: what a save writes).
    fn table_len(&self) -> usize {
        with_table!(&self.inner, t => t.table_bytes(), g => g.current_table_bytes())
    }

    /// Copies the table a chunk (about 16 KiB) at a time, each under its
    /// stripe's lock and handed to `out` with none held (table/save.rs);
    /// returns the item count of the copy and the configuration its header
    /// says (a growable filter's as of the generation saved, see
    /// `Growable::save_chunks`).
    fn save_chunks<E>(
        &self,
        out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(usize, Config), E> {
        with_table!(
            &self.inner,
            t => t.save_chunks(out).map(|items| (items, self.config)),
            g => g.save_chunks(&self.config, out)
        )
    }

    /// The table's saved bytes, copied as `to_bytes` copies them.
    pub(crate) fn table_snapshot(&self) -> Vec<u8> {
        self.table_snapshot_counted().0
    }

    /// The table's saved bytes, the item count they hold and their
    /// configuration.
    fn table_snapshot_counted(&self) -> (Vec<u8>, usize, Config) {
        let mut table = Vec::with_capacity(self.table_len());
        let Ok((items, config)) = self.save_chunks(|chunk| {
            table.extend_from_slice(chunk);
            Ok::<(), Infallible>(())
        });
        (table, items, config)
    }

    /// The filter in the saved format (docs/format.md): a 64-byte header
    /// (configuration, seed, item count, checksums), then the table. Load it
    /// back with [`from_bytes`](Self::from_bytes) or
    /// [`read_from`](Self::read_from), or query it in place with
    /// [`FilterView`].
    ///
    /// Safe to call while other threads write, and it does not stop them:
    /// the table is copied about 16 KiB at a time, under the lock of the
    /// stripe those bytes lie in only: a writer waits only if it writes to
    /// that stripe while they are copied (a microsecond or two); lookups
    /// never wait. The copy holds every item whose insert returned before
    /// `to_bytes` began and that was not removed before it returned; items
    /// inserted or removed meanwhile may or may not be in it, and an item
    /// whose fingerprint a displacement moved meanwhile may be in it twice
    /// (after its remove, a false positive in what loads from it; never a
    /// false negative). Its item count is what its table holds. (How:
    /// docs/design.md, "Saving while writers write".) One save runs at a
    /// time; a second waits for the first.
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
        self.to_bytes_with_metadata(&[])
            .expect("no metadata is never too long")
    }

    /// [`to_bytes`](Self::to_bytes) with up to [`MAX_METADATA`] bytes of the
    /// caller's own metadata stored after the header (format version 2),
    /// covered by a checksum of its own: a log sequence number or commit id
    /// binding the filter to the state of the store it summarises, say.
    /// [`read_metadata`](Self::read_metadata),
    /// [`read_metadata_from`](Self::read_metadata_from) (a stream),
    /// [`read_metadata_from_path`](Self::read_metadata_from_path) and
    /// [`FilterView::metadata`] read it back without reading the table;
    /// [`read_from_with_metadata`](Self::read_from_with_metadata) with it.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let bytes = filter.to_bytes_with_metadata(b"commit 1234")?;
    /// assert_eq!(CuckooFilter::read_metadata(&bytes)?, b"commit 1234");
    /// assert!(CuckooFilter::from_bytes(&bytes)?.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MetadataTooLong`] past [`MAX_METADATA`] bytes.
    pub fn to_bytes_with_metadata(&self, metadata: &[u8]) -> Result<Vec<u8>, MetadataTooLong> {
        check_metadata(metadata)?;
        let prefix = header::block_len(metadata.len()) + HEADER_LEN;
        let mut out = Vec::with_capacity(prefix + self.table_len());
        out.resize(prefix, 0);
        let Ok((items, config)) = self.save_chunks(|chunk| {
            out.extend_from_slice(chunk);
            Ok::<(), Infallible>(())
        });
        let head = Header::encode(&config, items, checksum(&out[prefix..]), metadata);
        out[..prefix].copy_from_slice(&head);
        Ok(out)
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
        Header::decode(bytes)?.metadata_in(bytes)
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
    pub fn read_metadata_from<R: Read>(mut r: R) -> Result<Vec<u8>, DecodeError> {
        let (header, block) = read_prefix(&mut r)?;
        Ok(header.metadata(&block)?.to_vec())
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
        let path = path.as_ref();
        let named = |e: io::Error| {
            DecodeError::Io(io::Error::new(
                e.kind(),
                format!("reading the metadata of {}: {e}", path.display()),
            ))
        };
        let file = fs::File::open(path).map_err(named)?;
        match Self::read_metadata_from(file) {
            Err(DecodeError::Io(e)) => Err(named(e)),
            other => other,
        }
    }

    /// Writes the same bytes as [`to_bytes`](Self::to_bytes) to `w`. The
    /// header, which comes first, holds the table's checksum, so this
    /// copies the table into one table-sized buffer before writing;
    /// [`write_to_seekable`](Self::write_to_seekable) (a file, a cursor)
    /// streams without it. Same copy as `to_bytes`; writers never wait for
    /// the I/O. Pass a buffered writer or a file: the header and the table
    /// are two `write_all` calls.
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let mut out = Vec::new(); // or a `BufWriter<File>`
    /// filter.write_to(&mut out)?;
    /// assert_eq!(out, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Whatever `w` returns.
    pub fn write_to<W: Write>(&self, w: W) -> io::Result<()> {
        self.write_to_with_metadata(w, &[])
    }

    /// [`write_to`](Self::write_to) with the caller's metadata, as
    /// [`to_bytes_with_metadata`](Self::to_bytes_with_metadata).
    ///
    /// ```
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let mut out = Vec::new();
    /// filter.write_to_with_metadata(&mut out, b"v7")?;
    /// assert_eq!(out, filter.to_bytes_with_metadata(b"v7")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Whatever `w` returns; [`MetadataTooLong`] (as an error of kind
    /// `InvalidInput`) past [`MAX_METADATA`] bytes, before anything is
    /// written.
    pub fn write_to_with_metadata<W: Write>(&self, mut w: W, metadata: &[u8]) -> io::Result<()> {
        check_metadata(metadata).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let (table, items, config) = self.table_snapshot_counted();
        w.write_all(&Header::encode(&config, items, checksum(&table), metadata))?;
        w.write_all(&table)?;
        w.flush()
    }

    /// Writes the same bytes as [`to_bytes`](Self::to_bytes) to `w` from
    /// its current position, streaming: the table goes out about 16 KiB
    /// at a time as it is copied, so the save needs memory for that, not
    /// for a copy of the table. Writers wait while a piece of their stripe
    /// is copied (a microsecond or two). They wait for the I/O in two cases
    /// only: an insert whose every displacement path would hide a
    /// fingerprint from the save copies its buckets' pieces ahead of it, up
    /// to an eighth of the table (kept in memory until the save reaches
    /// them), and past that allowance waits for the save to move on; and a
    /// growable filter's insert that needs a growth step waits for the
    /// whole save (a save holds the growth lock; before that, inserts make
    /// room by displacement past the load the filter grows at). It writes a zero header first (which
    /// every reader refuses), the table, then seeks back to write the real
    /// header, and leaves `w` at the end of what it wrote. Same copy as
    /// `to_bytes`. [`save_to_path`](Self::save_to_path) saves this way.
    /// `w` must not insert into this filter: such an insert could wait for
    /// this save, which waits for `w`.
    ///
    /// ```
    /// use std::io::Cursor;
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let mut out = Cursor::new(Vec::new()); // or a `BufWriter<File>`
    /// filter.write_to_seekable(&mut out)?;
    /// assert_eq!(out.into_inner(), filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Whatever `w` returns. The bytes written so far then start with a
    /// zero header, so they never load as a filter.
    pub fn write_to_seekable<W: Write + Seek>(&self, w: W) -> io::Result<()> {
        self.write_to_seekable_with_metadata(w, &[])
    }

    /// [`write_to_seekable`](Self::write_to_seekable) with the caller's
    /// metadata, as [`to_bytes_with_metadata`](Self::to_bytes_with_metadata).
    ///
    /// ```
    /// use std::io::Cursor;
    /// let filter = cuckoo_nest::CuckooFilter::with_capacity(1000);
    /// let mut out = Cursor::new(Vec::new());
    /// filter.write_to_seekable_with_metadata(&mut out, b"v7")?;
    /// assert_eq!(out.into_inner(), filter.to_bytes_with_metadata(b"v7")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`write_to_seekable`](Self::write_to_seekable), and
    /// [`MetadataTooLong`] (as an error of kind `InvalidInput`) past
    /// [`MAX_METADATA`] bytes, before anything is written.
    pub fn write_to_seekable_with_metadata<W: Write + Seek>(
        &self,
        mut w: W,
        metadata: &[u8],
    ) -> io::Result<()> {
        check_metadata(metadata).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let start = w.stream_position()?;
        let prefix = header::block_len(metadata.len()) + HEADER_LEN;
        w.write_all(&vec![0u8; prefix])?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let (items, config) = self.save_chunks(|chunk| {
            hasher.update(chunk);
            w.write_all(chunk)
        })?;
        let end = w.stream_position()?;
        w.seek(SeekFrom::Start(start))?;
        w.write_all(&Header::encode(&config, items, hasher.digest(), metadata))?;
        w.seek(SeekFrom::Start(end))?;
        w.flush()
    }

    /// Saves the filter to the file at `path` so that a crash at any moment
    /// leaves either the old file or the new one whole, never a torn mix:
    /// the way to save beside a store. It writes a temporary file in the
    /// same directory (so the rename cannot cross file systems), flushes it
    /// to the device (`fsync`), renames it over `path` (atomic on POSIX
    /// file systems), then flushes the directory so the rename itself is
    /// durable. It streams as [`write_to_seekable`](Self::write_to_seekable)
    /// does: 16 KiB of memory, not a table copy, and writers wait only
    /// while a piece of their stripe is copied. The copy is `to_bytes`'s.
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let dir = std::env::temp_dir().join(format!("cuckoo-nest-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("users.filter");
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("user:42")?;
    /// filter.save_to_path(&path)?;
    /// let loaded = CuckooFilter::read_from(std::fs::File::open(&path)?)?;
    /// assert!(loaded.contains("user:42"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Saves may run at once, from any threads or processes, to one path:
    /// each writes a temporary file of its own (named
    /// `.<file name>.tmp-<pid>-<random>`), never touches another's, and the
    /// path always holds one whole save (the last renamed). A temporary file
    /// left by a crash is never reused or removed by a later save; delete
    /// such leftovers by hand when no save is running.
    ///
    /// # Errors
    /// Any I/O error, after removing this call's temporary file: the file
    /// at `path` is then as it was (absent, or the previous save). The
    /// error keeps its kind and its message names `path` and the step that
    /// failed.
    pub fn save_to_path<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        self.save_to_path_with(path.as_ref(), &[], |from, to| fs::rename(from, to))
    }

    /// [`save_to_path`](Self::save_to_path) with the caller's metadata (a
    /// commit id, say), as
    /// [`to_bytes_with_metadata`](Self::to_bytes_with_metadata).
    ///
    /// ```
    /// use cuckoo_nest::CuckooFilter;
    /// let dir = std::env::temp_dir().join(format!("cuckoo-nest-meta-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("f.bin");
    /// CuckooFilter::with_capacity(100).save_to_path_with_metadata(&path, b"commit 9")?;
    /// let (_, meta) = CuckooFilter::read_from_with_metadata(std::fs::File::open(&path)?)?;
    /// assert_eq!(meta, b"commit 9");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`save_to_path`](Self::save_to_path), and [`MetadataTooLong`] (as
    /// an error of kind `InvalidInput`) before anything is written.
    pub fn save_to_path_with_metadata<P: AsRef<Path>>(
        &self,
        path: P,
        metadata: &[u8],
    ) -> io::Result<()> {
        self.save_to_path_with(path.as_ref(), metadata, |from, to| fs::rename(from, to))
    }

    /// [`save_to_path`](Self::save_to_path) with the rename step given, so
    /// the test hooks can make it fail (`internals`).
    pub(crate) fn save_to_path_with(
        &self,
        path: &Path,
        metadata: &[u8],
        rename: impl FnOnce(&Path, &Path) -> io::Result<()>,
    ) -> io::Result<()> {
        check_metadata(metadata).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let named = |step: &str, e: io::Error| {
            io::Error::new(
                e.kind(),
                format!("saving the filter to {}: {step}: {e}", path.display()),
            )
        };
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} names no file", path.display()),
            )
        })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let (tmp, file) =
            create_temporary(dir, name).map_err(|e| named("creating a temporary file", e))?;
        // From here on the temporary file is this call's own: it is removed
        // on failure, and no other call ever opens, writes or removes it.
        let written = (|| {
            let mut out = io::BufWriter::new(file);
            self.write_to_seekable_with_metadata(&mut out, metadata)
                .map_err(|e| named("writing", e))?;
            let file = out
                .into_inner()
                .map_err(|e| named("writing", e.into_error()))?;
            file.sync_all()
                .map_err(|e| named("flushing to the device", e))?;
            drop(file);
            rename(&tmp, path).map_err(|e| named("renaming the temporary file into place", e))
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        // The rename is durable once the directory is on the device. (Not
        // every platform can open a directory to sync it; there, the
        // rename alone is what the file system offers.)
        #[cfg(unix)]
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| named("flushing the directory", e))?;
        Ok(())
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
        let header = Header::decode(bytes)?;
        let table = header.table(bytes)?;
        header.verify(table)?;
        Self::from_table(&header, &[table])
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
        let mut header = Header::decode(bytes)?;
        header.config.huge_pages = huge_pages;
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
    pub fn read_from_with_metadata<R: Read>(
        mut r: R,
    ) -> Result<(CuckooFilter, Vec<u8>), DecodeError> {
        let (header, block) = read_prefix(&mut r)?;
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
        Ok((Self::from_table(&header, &parts)?, metadata))
    }

    /// The filter of a checked header whose table (checksum verified) is
    /// `parts`, one after another: copied into a fresh table, then audited
    /// (every bucket one a writer stores, the header's item count what the
    /// table holds) before anyone can write to it.
    fn from_table(header: &Header, parts: &[&[u8]]) -> Result<CuckooFilter, DecodeError> {
        let inner = Inner::from_le_bytes(&header.config, header.items, parts)?;
        header.check_items(inner.audit()?)?;
        Ok(CuckooFilter {
            inner,
            config: header.config,
        })
    }
}

/// An independent filter with the same configuration and the same items,
/// copied as [`to_bytes`](CuckooFilter::to_bytes) copies them, while other
/// threads write (it holds every item whose insert returned before `clone`
/// began and that was not removed before it returned). A writer waits only
/// while a piece of its stripe is copied; lookups never do.
///
/// # Panics
/// If the copy's table cannot be allocated (as `Vec::clone` would).
///
/// ```
/// use cuckoo_nest::CuckooFilter;
/// let filter = CuckooFilter::with_capacity(1000);
/// filter.insert("kept")?;
/// let snapshot = filter.clone();
/// filter.insert("later")?;
/// assert!(snapshot.contains("kept") && !snapshot.contains("later"));
/// assert_eq!(snapshot.len(), 1);
/// # Ok::<(), cuckoo_nest::InsertError>(())
/// ```
impl Clone for CuckooFilter {
    fn clone(&self) -> Self {
        let (table, items, config) = self.table_snapshot_counted();
        let inner = Inner::from_le_bytes(&config, items, &[&table])
            .unwrap_or_else(|e| panic!("CuckooFilter::clone: {e}"));
        CuckooFilter { inner, config }
    }
}

/// Creates `dir/.<name>.tmp-<pid>-<nonce>`, a name no other save uses: the
/// nonce comes from a fresh `RandomState` (random keys per thread, a new one
/// per call), so it tells apart calls in this process on any thread, and
/// this process from a dead one that had the same id, as happens across
/// container restarts. Created with `create_new`, so a name that is taken
/// after all (a leftover of a crashed save) is never opened: the next name
/// is tried, and the leftover stays as it was for an operator to delete.
fn create_temporary(
    dir: &Path,
    name: &std::ffi::OsStr,
) -> io::Result<(std::path::PathBuf, fs::File)> {
    use std::hash::BuildHasher;
    const TRIES: u32 = 16;
    let pid = std::process::id();
    let mut taken = None;
    for _ in 0..TRIES {
        let clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let nonce = std::collections::hash_map::RandomState::new().hash_one((pid, clock));
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp-{pid}-{nonce:016x}"));
        let tmp = dir.join(tmp_name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => taken = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(taken.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

#[cfg(test)]
mod tests {
    //! Small enough for Miri (.ci/miri.sh runs the unit tests): the unsafe
    //! copy into a fresh table (`Words::from_le_bytes`) and the view's
    //! `align_to`, aligned and not.
    use crate::{CuckooFilter, FilterView};

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
            filter.write_to(&mut streamed).unwrap();
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
