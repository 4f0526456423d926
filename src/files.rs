//! Files written whole: a sheet moved in place (`move -i`), a reply
//! written by the file transport, the endgame tables. A crash leaves the
//! old file or the new one, never half of one.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` durably: a temporary file beside it, synced,
/// renamed over the old one, and the folder synced. The temporary file is
/// made afresh (`O_EXCL`, a random name, the owner's alone): a file or
/// symlink planted in the folder is never opened, so never written through.
///
/// # Errors
/// When any step fails; the old file is then untouched.
pub fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(dir, path, |mut file| file.write_all(bytes))?
}

/// As [`write_atomically`], the contents written to the file by `write`
/// (for a file too large to be held whole, or read back while written).
/// When `write` fails, nothing is renamed: its error is the inner one.
///
/// # Errors
/// The outer error, when a step of the write fails.
pub fn write_atomically_with<T, E>(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(&File) -> Result<T, E>,
) -> io::Result<Result<T, E>> {
    let temp = tempfile::Builder::new()
        .prefix(".")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    let written = match write(temp.as_file()) {
        Ok(written) => written,
        Err(e) => return Ok(Err(e)), // the temporary file goes with `temp`
    };
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_folder(dir)?;
    Ok(Ok(written))
}

/// Makes a folder's entries durable: Unix only (elsewhere a rename is as
/// durable as the system makes it).
fn sync_folder(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
