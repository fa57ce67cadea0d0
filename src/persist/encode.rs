//! Saving a table: its words copied a chunk (about 16 KiB) at a time, each
//! under its stripe's lock and handed on with none held (`table/snapshot.rs`),
//! behind a header that carries their checksum and item count.

use super::check_metadata;
use super::header::{self, checksum, Header, HEADER_LEN};
use crate::config::Config;
use crate::error::MetadataTooLong;
use crate::shape::{with_table, Inner};
use std::convert::Infallible;
use std::io::{self, Seek, SeekFrom, Write};

/// Bytes of the table's words (a growable filter's current generation's:
/// what a save writes).
fn table_len(inner: &Inner) -> usize {
    with_table!(inner, t => t.table_bytes(), g => g.current_table_bytes())
}

/// Copies the table a chunk at a time to `out`; returns the item count of
/// the copy and the configuration its header says (a growable filter's as
/// of the generation saved, see `Growable::save_chunks`).
fn save_chunks<E>(
    inner: &Inner,
    config: &Config,
    out: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(usize, Config), E> {
    with_table!(
        inner,
        t => t.save_chunks(out).map(|items| (items, *config)),
        g => g.save_chunks(config, out)
    )
}

/// The table's saved bytes, the item count they hold and their
/// configuration: the copy `clone`, `==` and `save` make.
pub(crate) fn snapshot(inner: &Inner, config: &Config) -> (Vec<u8>, usize, Config) {
    let mut table = Vec::with_capacity(table_len(inner));
    let Ok((items, config)) = save_chunks(inner, config, |chunk| {
        table.extend_from_slice(chunk);
        Ok::<(), Infallible>(())
    });
    (table, items, config)
}

/// The saved format's bytes, header (with `metadata`) and table.
pub(crate) fn to_bytes(
    inner: &Inner,
    config: &Config,
    metadata: &[u8],
) -> Result<Vec<u8>, MetadataTooLong> {
    check_metadata(metadata)?;
    let prefix = header::block_len(metadata.len()) + HEADER_LEN;
    let mut out = Vec::with_capacity(prefix + table_len(inner));
    out.resize(prefix, 0);
    let Ok((items, config)) = save_chunks(inner, config, |chunk| {
        out.extend_from_slice(chunk);
        Ok::<(), Infallible>(())
    });
    let head = Header::encode(&config, items, checksum(&out[prefix..]), metadata);
    out[..prefix].copy_from_slice(&head);
    Ok(out)
}

/// `to_bytes`'s bytes written to `w`: the table is copied into one buffer
/// first, since the header, which comes first, holds its checksum.
pub(crate) fn write_to<W: Write>(
    inner: &Inner,
    config: &Config,
    mut w: W,
    metadata: &[u8],
) -> io::Result<()> {
    check_metadata(metadata).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let (table, items, config) = snapshot(inner, config);
    w.write_all(&Header::encode(&config, items, checksum(&table), metadata))?;
    w.write_all(&table)?;
    w.flush()
}

/// `to_bytes`'s bytes streamed to `w` from its current position: a zero
/// header (which every reader refuses), the table chunk by chunk, then the
/// real header written over the zero one; `w` is left at the end.
pub(crate) fn write_to_seekable<W: Write + Seek>(
    inner: &Inner,
    config: &Config,
    mut w: W,
    metadata: &[u8],
) -> io::Result<()> {
    stream_to(inner, config, &mut w, metadata)
}

/// A writer that can seek, as one trait object.
trait Stream: Write + Seek {}
impl<S: Write + Seek + ?Sized> Stream for S {}

/// [`write_to_seekable`]'s body, compiled once here rather than once per
/// writer type in every crate that saves (it reaches every shape's chunk
/// copy), at the price of one indirect call per chunk of about 16 KiB.
fn stream_to(
    inner: &Inner,
    config: &Config,
    w: &mut dyn Stream,
    metadata: &[u8],
) -> io::Result<()> {
    check_metadata(metadata).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let start = w.stream_position()?;
    let prefix = header::block_len(metadata.len()) + HEADER_LEN;
    w.write_all(&vec![0u8; prefix])?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let (items, config) = save_chunks(inner, config, |chunk| {
        hasher.update(chunk);
        w.write_all(chunk)
    })?;
    let end = w.stream_position()?;
    w.seek(SeekFrom::Start(start))?;
    w.write_all(&Header::encode(&config, items, hasher.digest(), metadata))?;
    w.seek(SeekFrom::Start(end))?;
    w.flush()
}
