//! Saving in the saved format (docs/format.md): to bytes, to a stream, to a
//! path crash-safely. The work is `persist/`'s, over this filter's table.

use super::CuckooFilter;
use crate::error::MetadataTooLong;
use crate::persist;
use std::fs;
use std::io::{self, Seek, Write};
use std::path::Path;

impl CuckooFilter {
    /// The filter in the saved format (docs/format.md): a 64-byte header
    /// (configuration, seed, item count, checksums), then the table. Load it
    /// back with [`from_bytes`](Self::from_bytes) or
    /// [`read_from`](Self::read_from), or query it in place with
    /// [`FilterView`](crate::FilterView).
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

    /// [`to_bytes`](Self::to_bytes) with up to [`MAX_METADATA`](crate::MAX_METADATA) bytes of the
    /// caller's own metadata stored after the header (format version 2),
    /// covered by a checksum of its own: a log sequence number or commit id
    /// binding the filter to the state of the store it summarises, say.
    /// [`read_metadata`](Self::read_metadata),
    /// [`read_metadata_from`](Self::read_metadata_from) (a stream),
    /// [`read_metadata_from_path`](Self::read_metadata_from_path) and
    /// [`FilterView::metadata`](crate::FilterView::metadata) read it back without reading the table;
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
    /// [`MetadataTooLong`] past [`MAX_METADATA`](crate::MAX_METADATA) bytes.
    pub fn to_bytes_with_metadata(&self, metadata: &[u8]) -> Result<Vec<u8>, MetadataTooLong> {
        persist::to_bytes(&self.inner, &self.config, metadata)
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
    /// `InvalidInput`) past [`MAX_METADATA`](crate::MAX_METADATA) bytes, before anything is
    /// written.
    pub fn write_to_with_metadata<W: Write>(&self, w: W, metadata: &[u8]) -> io::Result<()> {
        persist::write_to(&self.inner, &self.config, w, metadata)
    }

    /// Writes the same bytes as [`to_bytes`](Self::to_bytes) to `w` from
    /// its current position, streaming: the table goes out about 16 KiB
    /// at a time as it is copied, so the save needs memory for that, not
    /// for a copy of the table. Writers wait while a piece of their stripe
    /// is copied (a microsecond or two). Inserts into a free slot and
    /// removes never wait for the I/O; an insert that must make room waits
    /// for it in two cases only, both near full load:
    ///
    /// - A displacement hop may not move a fingerprint from a bucket the
    ///   save has not copied yet into one it has (the save would miss it).
    ///   An insert whose every path needs such a hop out of one of its own
    ///   two buckets copies those buckets' pieces ahead of the save (up to
    ///   an eighth of the table, kept in memory until the save reaches
    ///   them) and goes on. One whose every path needs such a hop further
    ///   along (out of a bucket that is not its own), or that finds the
    ///   allowance used up, waits until the save has written more pieces
    ///   (one `write` of `w` each) or ended: in the worst case, until the
    ///   save reaches that bucket.
    /// - A growable filter grows by steps, and a save holds off every step
    ///   until it ends (it holds the growth lock). Meanwhile an insert that
    ///   would start a step makes room by displacement instead, past the
    ///   load the filter grows at (a table takes several points more), and
    ///   waits only when no path within the search has room: it then waits
    ///   for the rest of the save, its I/O included, and starts the step.
    ///
    /// (The repository's `save_slow_writer` example measures both with a
    /// `Write` taking 1 ms a call.) It writes a zero header first (which
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
    /// [`MAX_METADATA`](crate::MAX_METADATA) bytes, before anything is written.
    pub fn write_to_seekable_with_metadata<W: Write + Seek>(
        &self,
        w: W,
        metadata: &[u8],
    ) -> io::Result<()> {
        persist::write_to_seekable(&self.inner, &self.config, w, metadata)
    }

    /// Saves the filter to the file at `path` so that a crash at any moment
    /// leaves either the old file or the new one whole, never a torn mix:
    /// the way to save beside a store. It writes a temporary file in the
    /// same directory (so the rename cannot cross file systems), flushes it
    /// to the device (`fsync`), renames it over `path` (atomic on POSIX
    /// file systems), then flushes the directory so the rename itself is
    /// durable. It streams as [`write_to_seekable`](Self::write_to_seekable)
    /// does: 16 KiB of memory, not a table copy, and writers wait while a
    /// piece of their stripe is copied; an insert that must make room near
    /// full load may wait for the file's I/O in the two cases that method
    /// lists (a hop that would hide a fingerprint from the save; a growable
    /// filter's insert that finds no room while the save holds off its
    /// growth step). The copy is `to_bytes`'s.
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
        self.save_to_path_with_metadata(path, &[])
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
        persist::save_to_path(
            &self.inner,
            &self.config,
            path.as_ref(),
            metadata,
            |from, to| fs::rename(from, to),
        )
    }
}
