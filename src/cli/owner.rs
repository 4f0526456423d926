//! `mail --owner ADDR --filter`: the referee as a procmail filter on a
//! person's own mailbox (see docs/operating.md, "Your own mailbox").

use std::path::Path;

use mancala::mail::delivery::Report;
use mancala::mail::letter::Letter;
use mancala::mail::sheet_referee::SheetReferee;
use mancala::mail::transport::{Postbox, Transport};
use mancala::mail::Identity;

use super::commands::{log, log_report, read_up_to, tempfail, write_atomically};
use super::{CliResult, Failure};

/// `mail --owner ... --filter`: a procmail filter on a person's mailbox.
/// Standard output is always the mail as it came, whole and byte for byte,
/// however large: the filter only adds mail (the answer to the player, the
/// owner's copy, both through `--send`). On any failure that a retry may
/// mend, exit 75 before a byte is written (procmail keeps the mail).
pub fn owners_mailbox(
    owner: &str,
    args: super::args::RefereeArgs,
    sub_addresses: bool,
) -> CliResult {
    let owner = parse_mailbox(owner).ok_or_else(|| {
        Failure::usage(format!(
            "'{owner}' is not an address: write 'Name <name@example.org>'"
        ))
    })?;
    let referee = SheetReferee {
        identity: Identity::owner(&owner),
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let raw = read_up_to(&mut input, args.max_size)?;
    if raw.len() <= args.max_size {
        let letter = Letter::read(&raw, &referee.identity);
        if referee.may_referee(&letter) {
            answer_for_owner(&referee, &letter, args.send, sub_addresses)?;
        }
    } // else far too big to be a move: the owner reads it, all of it
    pass_through(&raw, &mut input)
}

/// Referees one mail on the owner's mailbox and sends what it asks. Keeps
/// in the owner's folder the secret, a mark that keys were handed out,
/// and the answers of the day to addresses that hold no seat.
fn answer_for_owner(
    referee: &SheetReferee,
    letter: &Letter,
    send: Transport,
    sub_addresses: bool,
) -> CliResult {
    use mancala::mail::sheet_referee::OwnerKeys;
    let folder = owner_folder()?;
    let keyed = folder.join("keyed");
    // A key in a mail while none was handed out from here (no secret, no
    // mark) is forged, or from a folder wiped whole: not refereed, never
    // deferred; the owner reads the mail. A lost secret is told by the mark.
    let mut forged = false;
    let secrets = owner_secret(&folder, || {
        forged = !keyed.exists() && !letter.keys.is_empty();
        keyed.exists() || forged
    });
    let secrets = match secrets {
        Err(_) if forged => {
            log("- not refereed: the mail shows a key, and no key was handed out from here");
            return Ok(());
        }
        secrets => secrets.map_err(|e| {
            Failure::tempfail(format!(
                "{e}; the mail is kept: restore the key from its backup"
            ))
        })?,
    };
    let keys = OwnerKeys {
        secrets,
        sub_addresses,
    };
    let answer = match referee.referee_for_owner(letter, &keys) {
        Ok(answer) => answer,
        Err(why) => {
            log(&format!("- {why}"));
            return Ok(());
        }
    };
    if let Some(stranger) = &answer.stranger {
        let digest = keys.secrets.address_digest(stranger);
        if !count_answer(&folder.join("answers"), &digest).map_err(kept)? {
            log(&format!(
                "- not answered: {stranger} has had {STRANGER_ANSWERS} answers today"
            ));
            return Ok(());
        }
    }
    if !keyed.exists() {
        write_atomically(
            &keyed,
            "keys were handed out from the key beside this file\n",
        )
        .map_err(kept)?;
    }
    let postbox = Postbox {
        transport: send,
        identity: referee.identity.clone(),
    };
    let mut report = Report {
        summary: answer.summary,
        ..Report::default()
    };
    mancala::mail::delivery::send_all(&answer.mail, &postbox, &mut report)
        .map_err(|e| tempfail(&e))?;
    log_report(&report);
    Ok(())
}

/// A file of the owner's folder that cannot be read or written now (a
/// full disk, a folder made read-only) may be mended: the mail is kept.
fn kept(failure: Failure) -> Failure {
    Failure::tempfail(format!(
        "{}; the mail is kept: try again later",
        failure.message
    ))
}

/// Answers a day to an address that holds no seat in the owner's games.
const STRANGER_ANSWERS: usize = 3;

/// Counts one answer to the address filed as `digest` in `file` (lines
/// `DAY DIGEST`, today's kept); false, and nothing counted, when it has
/// had [`STRANGER_ANSWERS`] today.
fn count_answer(file: &Path, digest: &str) -> Result<bool, Failure> {
    let today = (mancala::store::now() / 86_400).to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Failure::io(file.display(), &e)),
    };
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| l.split(' ').next() == Some(today.as_str()))
        .collect();
    let line = format!("{today} {digest}");
    if lines.iter().filter(|l| **l == line).count() >= STRANGER_ANSWERS {
        return Ok(false);
    }
    lines.push(&line);
    write_atomically(file, &(lines.join("\n") + "\n"))?;
    Ok(true)
}

/// The owner's folder: $XDG_CONFIG_HOME/mancala-referee, else
/// ~/.config/mancala-referee; made (mode 700) on first use.
fn owner_folder() -> Result<std::path::PathBuf, Failure> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        .ok_or_else(|| Failure::usage("neither XDG_CONFIG_HOME nor HOME is set"))?;
    let folder = base.join("mancala-referee");
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(&folder)
        .map_err(|e| Failure::tempfail(format!("{}: {e}", folder.display())))?;
    Ok(folder)
}

/// `Name <address>` or a bare address.
fn parse_mailbox(text: &str) -> Option<mancala::mail::incoming::Mailbox> {
    let text = text.trim();
    let (name, address) = match text.rsplit_once('<') {
        Some((name, rest)) => (
            name.trim().trim_matches('"').trim(),
            rest.trim_end_matches('>').trim(),
        ),
        None => ("", text),
    };
    let (local, domain) = address.split_once('@')?;
    (!local.is_empty() && !domain.is_empty() && !address.contains(char::is_whitespace)).then(|| {
        mancala::mail::incoming::Mailbox {
            name: (!name.is_empty()).then(|| name.to_string()),
            address: address.to_string(),
        }
    })
}

/// Writes `read` and then the rest of `input` to standard output.
fn pass_through(read: &[u8], input: &mut impl std::io::Read) -> CliResult {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(read)
        .and_then(|()| std::io::copy(input, &mut out).map(drop))
        .and_then(|()| out.flush())
        .map_err(|e| Failure::tempfail(format!("passing the mail through: {e}")))
}

/// The owner's secret, in `folder/key`: made on first use, unless `used`
/// says keys were handed out (a new one would void them all).
fn owner_secret(
    folder: &std::path::Path,
    used: impl FnOnce() -> bool,
) -> Result<mancala::store::Secrets, String> {
    use std::io::Write;
    let path = folder.join("key");
    let shown = path.display();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if used() {
                return Err(format!(
                    "{shown} is missing, and keys were handed out from it"
                ));
            }
            let fresh = mancala::store::fresh_secret().map_err(|e| e.to_string())?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(mut file) => {
                    (file
                        .write_all(fresh.as_bytes())
                        .and_then(|()| file.sync_all()))
                    .map_err(|e| format!("{shown}: {e}"))?;
                }
                // Another mail made it first: theirs it is.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{shown}: {e}")),
            }
            std::fs::read_to_string(&path).map_err(|e| format!("{shown}: {e}"))?
        }
        Err(e) => return Err(format!("{shown}: {e}")),
    };
    mancala::store::Secrets::new(&text).ok_or_else(|| format!("{shown}: too short to be a key"))
}
