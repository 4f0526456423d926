//! `mail --owner ADDR --filter`: the hosted referee as a procmail filter
//! on a person's own mailbox, seated as its owner (see docs/operating.md,
//! "Your own mailbox"): the same referee and store as a referee's own
//! address, through another door.

use mancala::mail::hosted::HostedReferee;
use mancala::mail::incoming::Mailbox;
use mancala::mail::letter::Letter;
use mancala::mail::transport::Postbox;
use mancala::mail::Referee;

use super::commands::{log_report, open_store_or_default, read_up_to, tempfail};
use super::{CliResult, Failure};

/// `mail --owner ... --filter`: a procmail filter on a person's mailbox.
/// Standard output is always the mail as it came, whole and byte for byte,
/// however large: the filter only adds mail (through `--send`). On any
/// failure that a retry may mend, exit 75 before a byte is written
/// (procmail keeps the mail).
pub fn owners_mailbox(
    owner: &str,
    args: super::args::RefereeArgs,
    sub_addresses: bool,
) -> CliResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let raw = read_up_to(&mut input, args.max_size)?;
    if raw.len() <= args.max_size {
        let referee = owners_referee(owner, args.store, sub_addresses)?;
        let letter = Letter::read(&raw, &referee.identity);
        let postbox = Postbox {
            transport: args.send,
            identity: referee.identity.clone(),
        };
        let report = referee
            .deliver(&letter, &postbox)
            .map_err(|e| tempfail(&e))?;
        log_report(&report);
    } // else far too big to be a move: the owner reads it, all of it
    pass_through(&raw, &mut input)
}

/// `mancala move --game ID TURN --owner ...`: the owner's turn played at
/// the terminal, as their reply to their copy would play it (a mail from
/// them, with their key, through the same referee): the opponent is
/// mailed through `send`, and the owner's own copy printed.
pub fn owners_move(
    owner: &str,
    id: &str,
    turns: &[String],
    store: Option<String>,
    send: mancala::mail::transport::Transport,
) -> CliResult {
    let referee = owners_referee(owner, store, false)?;
    let no_game = || {
        Failure::data(format!(
            "no game '{id}' of yours in {}",
            referee.store.location()
        ))
    };
    let id = mancala::store::GameId::parse(id).ok_or_else(no_game)?;
    let record = (referee.store.load_game(&id))
        .map_err(|e| Failure::tempfail(e.to_string()))?
        .ok_or_else(no_game)?;
    let side = record
        .side_of(&referee.identity.address)
        .ok_or_else(no_game)?;
    let [turn] = turns else {
        return Err(Failure::usage(
            "one turn: your opponent moves next (write c, or c-f with the sowing it earns)",
        ));
    };
    let key = referee.store.secrets().token(&id, side);
    let now = std::time::SystemTime::now();
    let stamp = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mail = format!(
        "From: {owner}\nTo: {}\nSubject: move\nMessage-ID: <terminal.{id}.{stamp}.{}@{}>\n\n\
         move {turn}\n\nYour key for game {id}: {key}\n",
        referee.identity.address,
        std::process::id(),
        referee.identity.domain()
    );
    let letter = Letter::read(mail.as_bytes(), &referee.identity);
    let postman = OwnersTerminal {
        postbox: Postbox {
            transport: send,
            identity: referee.identity.clone(),
        },
        owner: &referee.identity.address,
    };
    let report = referee
        .deliver(&letter, &postman)
        .map_err(|e| tempfail(&e))?;
    log_report(&report);
    Ok(())
}

/// The owner's mail printed at their terminal; the rest sent.
struct OwnersTerminal<'a> {
    postbox: Postbox,
    owner: &'a str,
}

impl mancala::mail::transport::Postman for OwnersTerminal<'_> {
    fn send(
        &self,
        mail: &mancala::store::Outgoing,
    ) -> Result<(), mancala::mail::transport::SendError> {
        use std::io::Write;
        if !mancala::address::same_mailbox(&mail.to.address, self.owner) {
            return self.postbox.send(mail);
        }
        let text = format!("Subject: {}\n\n{}", mail.subject, mail.body);
        std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(mancala::mail::transport::SendError::transient)
    }
}

/// The hosted referee seated as `owner` (`Name <address>`), on the store
/// named or the default one.
pub(super) fn owners_referee(
    owner: &str,
    store: Option<String>,
    sub_addresses: bool,
) -> Result<HostedReferee, Failure> {
    let owner: Mailbox = parse_mailbox(owner).ok_or_else(|| {
        Failure::usage(format!(
            "'{owner}' is not an address: write 'Name <name@example.org>'"
        ))
    })?;
    let mut referee = HostedReferee::for_owner(&owner, open_store_or_default(store)?);
    referee.identity.sub_addresses = sub_addresses;
    Ok(referee)
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
