//! A Maildir as the referee's inbox (filled by `mbsync`, `fetchmail`, an
//! MTA): every message in `new/` is handled once and then moved to `cur/`
//! marked seen; one that met a failure worth retrying stays in `new/` for
//! the next run. Runs are one at a time (a lock in the folder), and each
//! mail is its own transaction besides, so nothing is handled twice.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use super::delivery::DeliveryError;
use super::letter::Letter;
use super::transport::Postman;
use super::Referee;
use super::Report;

/// What one run did, message by message (by file name in `new/`, shown
/// lossily where it is not UTF-8).
#[derive(Debug, Default)]
pub struct MaildirRun {
    pub handled: Vec<(String, Report)>,
    /// Left in `new/` for the next run, and why.
    pub kept: Vec<(String, DeliveryError)>,
    /// Left in `new/` unread, and why: not a file (a folder, a FIFO), or a
    /// file that cannot be read now (a later run tries it again).
    pub skipped: Vec<(String, Skipped)>,
}

/// Why an entry of `new/` was not read.
#[derive(Debug, thiserror::Error)]
pub enum Skipped {
    /// A folder, FIFO, socket or device: no message, and opening a FIFO
    /// would wait for a writer for ever.
    #[error("not a message file (a folder, FIFO or device): left alone")]
    NotAFile,
    /// Unreadable now (permissions, an I/O error): perhaps not next run.
    #[error("cannot be read ({0}): left in new/ for the next run")]
    Unreadable(io::Error),
}

impl Skipped {
    /// Is it a message still to be handled (so the run is not complete)?
    pub fn is_a_message(&self) -> bool {
        matches!(self, Skipped::Unreadable(_))
    }
}

/// Handles every message in `dir/new`, oldest name first.
///
/// # Errors
/// When `dir` has no `new/` (not a Maildir: nothing is made in it), the
/// folder cannot be read or locked, or a handled message cannot be moved
/// to `cur/` (it is then handled again next run: harmless, as every mail is
/// one transaction).
pub fn handle(
    dir: &Path,
    referee: &dyn Referee,
    postman: &dyn Postman,
    max_size: usize,
) -> io::Result<MaildirRun> {
    let (new, cur) = (dir.join("new"), dir.join("cur"));
    if !new.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "not a Maildir: it has no new/ folder (a Maildir holds new/, cur/ and tmp/)",
        ));
    }
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".mancala.lock"))?;
    lock.lock()?;
    fs::create_dir_all(&cur)?;
    let mut names: Vec<OsString> = fs::read_dir(&new)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| !n.as_encoded_bytes().starts_with(b"."))
        .collect();
    names.sort_by_key(|n| natural(&n.to_string_lossy()));
    let mut run = MaildirRun::default();
    for name in names {
        let path = new.join(&name);
        let shown = name.to_string_lossy().into_owned();
        let raw = match read_message(&path, max_size) {
            Ok(Some(raw)) => raw,
            Ok(None) => continue, // moved meanwhile (by a run before the lock)
            Err(why) => {
                run.skipped.push((shown, why));
                continue;
            }
        };
        let letter = Letter::read_capped(&raw, max_size, referee.identity());
        match referee.deliver(&letter, postman) {
            Ok(report) => {
                fs::rename(&path, cur.join(seen(&name)))?;
                run.handled.push((shown, report));
            }
            Err(e) => run.kept.push((shown, e)),
        }
    }
    Ok(run)
}

/// Up to `max_size + 1` bytes of the message at `path`; `None` when it is
/// gone. Only a regular file (or a link to one) is opened.
fn read_message(path: &Path, max_size: usize) -> Result<Option<Vec<u8>>, Skipped> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Err(Skipped::NotAFile),
        // A link to nothing is not a message moved meanwhile: say so.
        Err(e) if e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(path).is_err() => {
            return Ok(None)
        }
        Err(e) => return Err(Skipped::Unreadable(e)),
    }
    let mut raw = Vec::new();
    match File::open(path) {
        Ok(file) => match file.take(max_size as u64 + 1).read_to_end(&mut raw) {
            Ok(_) => Ok(Some(raw)),
            Err(e) => Err(Skipped::Unreadable(e)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Skipped::Unreadable(e)),
    }
}

/// A name as runs of text and numbers, so that `m_2` sorts before `m_10`
/// (mbsync and most deliverers number their files).
fn natural(name: &str) -> Vec<(String, u128)> {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let text_end = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (text, after) = rest.split_at(text_end);
        let digits_end = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        let (digits, after) = after.split_at(digits_end);
        // (no digits: 0; more than a u128 holds: last)
        let number = if digits.is_empty() {
            0
        } else {
            digits.parse().unwrap_or(u128::MAX)
        };
        key.push((text.to_string(), number));
        rest = after;
    }
    key
}

/// The name a message takes in `cur/`: its info part with the S (seen)
/// flag. Bytes, so that a name that is not UTF-8 keeps its own.
fn seen(name: &OsStr) -> OsString {
    let name = name.as_encoded_bytes();
    let mut out = name.to_vec();
    match name.windows(3).rposition(|w| w == b":2,") {
        Some(at) if name[at + 3..].contains(&b'S') => {}
        Some(at) => {
            let mut flags = name[at + 3..].to_vec();
            flags.push(b'S');
            flags.sort_unstable();
            out.truncate(at + 3);
            out.extend(flags);
        }
        None => out.extend(b":2,S"),
    }
    os_string(out)
}

/// Bytes made from an `OsStr`'s with ASCII changed only, back as one.
#[cfg(unix)]
fn os_string(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

#[cfg(not(unix))]
fn os_string(bytes: Vec<u8>) -> OsString {
    String::from_utf8_lossy(&bytes).into_owned().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names_sort_as_numbers() {
        let mut names = vec![
            "1796.R1.h,U=10",
            "1796.R1.h,U=2",
            "1796.R1.h,U=1",
            "1795.R9.h,U=11",
        ];
        names.sort_by_key(|n| natural(n));
        assert_eq!(
            names,
            [
                "1795.R9.h,U=11",
                "1796.R1.h,U=1",
                "1796.R1.h,U=2",
                "1796.R1.h,U=10"
            ]
        );
    }

    #[test]
    fn a_message_in_cur_is_marked_seen() {
        for (name, in_cur) in [
            ("1796.M1P2.host", "1796.M1P2.host:2,S"),
            ("1796.M1P2.host:2,F", "1796.M1P2.host:2,FS"),
            ("1796.M1P2.host:2,RS", "1796.M1P2.host:2,RS"),
        ] {
            assert_eq!(seen(OsStr::new(name)), OsStr::new(in_cur));
        }
    }
}
