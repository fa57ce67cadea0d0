//! Saving in the saved format (docs/format.md): to bytes, to a stream, to a
//! path crash-safely. The work is `persist/`'s, over this filter's table.

use super::CuckooFilter;
use crate::persist::{self, SaveOptions};
use std::fs;
use std::io::{self, Seek, Write};
use std::path::Path;

impl CuckooFilter {
    /// The filter in the saved format (docs/format.md): a 64-byte header
    /// (configuration, seed, item count, checksums), then the table. Load it
    /// back with [`from_bytes`](Self::from_bytes) or
    /// [`load`](Self::load), or query it in place with
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
        persist::to_bytes(&self.inner, &self.config, &[]).expect("no metadata is never too long")
    }

    /// Writes the filter in the saved format to `w`, with the
    /// [`SaveOptions`]' metadata if any: with none, the same bytes as
    /// [`to_bytes`](Self::to_bytes). The header, which comes first, holds
    /// the table's checksum, so this copies the table into one table-sized
    /// buffer before writing; [`save_seekable`](Self::save_seekable) (a
    /// file, a cursor) streams without it, and
    /// [`save_to_path`](Self::save_to_path) replaces a file crash-safely.
    /// Same copy as `to_bytes`; writers never wait for the I/O. Pass a buffered writer or a file: the header and the table
    /// are two `write_all` calls.
    ///
    /// ```
    /// use cuckoo_nest::{CuckooFilter, SaveOptions};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// let mut out = Vec::new(); // or a `BufWriter<File>`
    /// filter.save(&mut out, &SaveOptions::default())?;
    /// assert_eq!(out, filter.to_bytes());
    /// let mut with_lsn = Vec::new();
    /// filter.save(&mut with_lsn, &SaveOptions::default().metadata(b"lsn=7")?)?;
    /// assert_eq!(CuckooFilter::read_metadata(&with_lsn)?, b"lsn=7");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Whatever `w` returns.
    pub fn save<W: Write>(&self, w: W, options: &SaveOptions) -> io::Result<()> {
        persist::write_to(&self.inner, &self.config, w, options.metadata)
    }

    /// Writes what [`save`](Self::save) writes to `w` from its current
    /// position, streaming: the table goes out about 16 KiB
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
    /// (The repository's docs/benchmarks.md, "Removed examples", gives
    /// both as measured with a `Write` taking 1 ms a call.) It writes a zero header first (which
    /// every reader refuses), the table, then seeks back to write the real
    /// header, and leaves `w` at the end of what it wrote. Same copy as
    /// `to_bytes`. [`save_to_path`](Self::save_to_path) saves this way.
    /// `w` must not insert into this filter: such an insert could wait for
    /// this save, which waits for `w`.
    ///
    /// ```
    /// use std::io::Cursor;
    /// use cuckoo_nest::{CuckooFilter, SaveOptions};
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("k")?;
    /// // Or a `BufWriter<File>`: an SST file's filter block, say.
    /// let mut out = Cursor::new(b"block before".to_vec());
    /// out.set_position(12);
    /// filter.save_seekable(&mut out, &SaveOptions::default())?;
    /// assert_eq!(&out.into_inner()[12..], &filter.to_bytes()[..]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// Whatever `w` returns. The bytes written so far then start with a
    /// zero header, so they never load as a filter.
    pub fn save_seekable<W: Write + Seek>(&self, w: W, options: &SaveOptions) -> io::Result<()> {
        persist::write_to_seekable(&self.inner, &self.config, w, options.metadata)
    }

    /// Saves the filter to the file at `path` so that a crash at any moment
    /// leaves either the old file or the new one whole, never a torn mix:
    /// the way to save beside a store. It writes a temporary file in the
    /// same directory (so the rename cannot cross file systems), flushes it
    /// to the device (`fsync`), renames it over `path` (atomic on POSIX
    /// file systems), then flushes the directory so the rename itself is
    /// durable. It streams as [`save_seekable`](Self::save_seekable)
    /// does: 16 KiB of memory, not a table copy, and writers wait while a
    /// piece of their stripe is copied; an insert that must make room near
    /// full load may wait for the file's I/O in the two cases that method
    /// lists (a hop that would hide a fingerprint from the save; a growable
    /// filter's insert that finds no room while the save holds off its
    /// growth step). The copy is `to_bytes`'s.
    ///
    /// ```
    /// use std::fs::File;
    /// use cuckoo_nest::{CuckooFilter, LoadOptions, SaveOptions};
    /// let dir = std::env::temp_dir().join(format!("cuckoo-nest-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("users.filter");
    /// let filter = CuckooFilter::with_capacity(1000);
    /// filter.insert("user:42")?;
    /// filter.save_to_path(&path, &SaveOptions::default().metadata(b"commit 9")?)?;
    /// let (loaded, metadata) = CuckooFilter::load(File::open(&path)?, &LoadOptions::default())?;
    /// assert!(loaded.contains("user:42"));
    /// assert_eq!(metadata, b"commit 9");
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
    pub fn save_to_path<P: AsRef<Path>>(&self, path: P, options: &SaveOptions) -> io::Result<()> {
        persist::save_to_path(
            &self.inner,
            &self.config,
            path.as_ref(),
            options.metadata,
            |from, to| fs::rename(from, to),
        )
    }
}
