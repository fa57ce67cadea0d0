//! Saving to a path crash-safely: a temporary file of this call's own in
//! the same directory, written, flushed to the device, renamed over the
//! path, and the directory flushed.

use super::check_metadata;
use super::encode::write_to_seekable;
use crate::config::Config;
use crate::shape::Inner;
use std::fs;
use std::io;
use std::path::Path;

/// Saves the table to `path` as `save_seekable` streams it, through a
/// temporary file renamed into place by `rename` (`fs::rename`; the test
/// hooks pass one that fails). Any error names `path` and the step.
pub(crate) fn save_to_path(
    inner: &Inner,
    config: &Config,
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
        write_to_seekable(inner, config, &mut out, metadata).map_err(|e| named("writing", e))?;
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
