//! A Maildir as the referee's inbox (filled by `mbsync`, `fetchmail`, an
//! MTA): every message in `new/` is handled once and then moved to `cur/`
//! marked seen; one that met a failure worth retrying stays in `new/` for
//! the next run. Runs are one at a time (a lock in the folder), and each
//! mail is its own transaction besides, so nothing is handled twice.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use super::delivery::{DeliveryError, Postman, Report};
use super::letter::Letter;
use super::Referee;

/// What one run did, message by message (by file name in `new/`).
#[derive(Debug, Default)]
pub struct MaildirRun {
    pub handled: Vec<(String, Report)>,
    /// Left in `new/` for the next run, and why.
    pub kept: Vec<(String, DeliveryError)>,
}

/// Handles every message in `dir/new`, oldest name first.
///
/// # Errors
/// When the folder cannot be read or locked, or a handled message cannot
/// be moved to `cur/` (it is then handled again next run: harmless, as
/// every mail is one transaction).
pub fn handle(
    dir: &Path,
    referee: &dyn Referee,
    postman: &dyn Postman,
    max_size: usize,
) -> io::Result<MaildirRun> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".mancala.lock"))?;
    lock.lock()?;
    let (new, cur) = (dir.join("new"), dir.join("cur"));
    fs::create_dir_all(&cur)?;
    let mut names: Vec<String> = fs::read_dir(&new)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort_by_key(|n| natural(n));
    let mut run = MaildirRun::default();
    for name in names {
        let path = new.join(&name);
        let mut raw = Vec::new();
        match File::open(&path) {
            Ok(file) => file.take(max_size as u64 + 1).read_to_end(&mut raw)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // moved meanwhile
            Err(e) => return Err(e),
        };
        let letter = Letter::read_capped(&raw, max_size, referee.identity());
        match referee.deliver(&letter, postman) {
            Ok(report) => {
                fs::rename(&path, cur.join(seen(&name)))?;
                run.handled.push((name, report));
            }
            Err(e) => run.kept.push((name, e)),
        }
    }
    Ok(run)
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

/// The name a message takes in `cur/`: its info part with the S (seen) flag.
fn seen(name: &str) -> String {
    match name.split_once(":2,") {
        Some((base, flags)) if flags.contains('S') => format!("{base}:2,{flags}"),
        Some((base, flags)) => {
            let mut flags: Vec<char> = flags.chars().chain(['S']).collect();
            flags.sort_unstable();
            format!("{base}:2,{}", flags.into_iter().collect::<String>())
        }
        None => format!("{name}:2,S"),
    }
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
        assert_eq!(seen("1796.M1P2.host"), "1796.M1P2.host:2,S");
        assert_eq!(seen("1796.M1P2.host:2,F"), "1796.M1P2.host:2,FS");
        assert_eq!(seen("1796.M1P2.host:2,RS"), "1796.M1P2.host:2,RS");
    }
}
