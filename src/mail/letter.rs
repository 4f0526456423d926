//! A mail digested once into what the referees read: who sent it, its
//! identity, the sender's own lines (not quoted, not an attribution, not a
//! pasted copy of the referee's own text), the keys it carries, its
//! commands and move lines, and the comment to relay.

use super::command::{command_line, Command};
use super::compose::reply_subject;
use super::compose::{is_referee_text, COMMENT_WIDTH, SIGNATURE_LINE};
use super::incoming::{Incoming, Mailbox};
use super::play::move_line;
use super::refusal::Refusal;
use super::{text, Identity};
use crate::engine::Pit;
use crate::store::MailKey;

/// Most lines of comment relayed.
const COMMENT_LINES: usize = 40;
/// A Message-ID longer than this is not repeated in our headers.
const MESSAGE_ID_MAX: usize = 200;
/// References kept when threading a reply.
const REFERENCES_KEPT: usize = 10;

/// One incoming mail, read.
#[derive(Clone, Debug)]
pub struct Letter {
    /// What "this mail again" means: a digest of its Message-ID, else of its bytes.
    pub identity: MailKey,
    /// Its headers and text as parsed, less the Message-IDs unfit to
    /// thread a reply by (too long, not printable).
    pub mail: Incoming,
    /// The sender's own lines, each with its index in `text.lines()`.
    pub own: Vec<(usize, String)>,
    /// Keys in the addresses it was sent to (strongest), then in its text.
    pub keys: Vec<String>,
    /// How many of `keys` name the game the mail is about (its addresses'
    /// and its key lines'); the rest are listed (a `games` answer quoted).
    pub naming_keys: usize,
    pub commands: Result<Vec<Command>, Refusal>,
    /// The sender's own lines that are move lines, read, each with its
    /// index among the text's lines.
    pub move_lines: Vec<(usize, Result<Vec<Pit>, Refusal>)>,
    /// A move in the subject (as PBM servers took commands): the mail's
    /// move only when the body makes none, by a line or on the sheet, so a
    /// subject kept through a thread never outweighs what is written.
    pub subject_move: Option<Vec<Pit>>,
    /// The sender's words to relay to the opponent, cleaned and wrapped.
    pub comment: Vec<String>,
    /// Read only in part: the size limit it went over. Such a mail is
    /// refused whatever it says.
    pub too_large: Option<usize>,
}

impl Letter {
    /// Reads a mail of which at most `limit` bytes and one more were read:
    /// one longer than `limit` is marked [`Letter::too_large`].
    pub fn read_capped(raw: &[u8], limit: usize, referee: &Identity) -> Letter {
        Letter {
            too_large: (raw.len() > limit).then_some(limit),
            ..Letter::read(raw, referee)
        }
    }

    /// Reads a raw message (LF or CRLF, perhaps after an mbox `From ` line).
    pub fn read(raw: &[u8], referee: &Identity) -> Letter {
        let mail = Incoming::parse(raw);
        let identity = identity_of(&mail, raw);
        let own = own_lines(&mail.text, referee);
        let mut keys: Vec<String> = mail
            .recipients
            .iter()
            .map(|m| m.address.as_str())
            .chain(mail.delivered_to.iter().map(String::as_str))
            .flat_map(tokens)
            .collect();
        // A key line names the game the mail is about; other keys (a
        // `games` listing quoted) come after it.
        let (key_lines, others): (Vec<&str>, Vec<&str>) = mail.text.lines().partition(|l| {
            l.trim_start_matches(['>', ' '])
                .starts_with("Your key for game ")
        });
        keys.extend(key_lines.into_iter().flat_map(tokens));
        let mut seen = std::collections::HashSet::new();
        keys.retain(|k| seen.insert(k.clone()));
        let naming_keys = keys.len();
        keys.extend(
            others
                .into_iter()
                .flat_map(tokens)
                .filter(|k| seen.insert(k.clone())),
        );
        let subject = reply_subject(&mail.subject);
        let subject_line = subject.strip_prefix("Re: ").unwrap_or(&subject).to_string();
        let signed = signature(&own, mail.from.as_ref());
        let move_lines: Vec<_> = own
            .iter()
            .filter(|(i, _)| Some(*i) != signed)
            .filter_map(|(i, l)| move_line(l).map(|m| (*i, m)))
            .collect();
        let commands = read_commands(&own, &move_lines, &subject_line);
        // A subject that only looks like a move is none.
        let subject_move = move_line(&subject_line).and_then(Result::ok);
        // Neither a move line nor a signature that could be one is relayed.
        let not_comment = |i: usize| Some(i) == signed || move_lines.iter().any(|(m, _)| *m == i);
        let comment = comment_of(&own, not_comment, referee);
        let fit =
            |id: &String| id.len() <= MESSAGE_ID_MAX && id.bytes().all(|b| b.is_ascii_graphic());
        let mut references: Vec<String> =
            mail.references.iter().filter(|r| fit(r)).cloned().collect();
        if references.len() > REFERENCES_KEPT {
            references.drain(..references.len() - REFERENCES_KEPT);
        }
        let mail = Incoming {
            message_id: mail.message_id.clone().filter(fit),
            references,
            in_reply_to: mail.in_reply_to.clone().filter(fit),
            ..mail
        };
        Letter {
            identity,
            mail,
            own,
            keys,
            naming_keys,
            commands,
            move_lines,
            subject_move,
            comment,
            too_large: None,
        }
    }

    /// Why the referee must stay silent, if it must: automatic mail, no
    /// sender, its own mail, a loop.
    pub fn never_answer(&self, referee: &Identity) -> Option<String> {
        if let Some(why) = self.mail.automatic {
            return Some(format!("not answered: {why}"));
        }
        let Some(from) = &self.mail.from else {
            return Some("not answered: no From address".into());
        };
        if !referee.owner && referee.is_own(&from.address) {
            return Some("not answered: the referee's own mail".into());
        }
        if self.mail.loops.iter().any(|l| referee.is_own(l)) {
            return Some("not answered: it carries the referee's X-Loop header".into());
        }
        None
    }

    /// The sender to answer, or why the referee must stay silent.
    ///
    /// # Errors
    /// The reason for the log, when the mail must not be answered.
    pub fn sender(&self, referee: &Identity) -> Result<&Mailbox, String> {
        if let Some(why) = self.never_answer(referee) {
            return Err(why);
        }
        self.mail
            .from
            .as_ref()
            .ok_or_else(|| "not answered: no From address".to_string())
    }

    /// Does a move line of the body, or the subject, read as a move (a
    /// garbled line does not)?
    pub fn writes_a_move(&self) -> bool {
        self.move_lines.iter().any(|(_, m)| m.is_ok()) || self.subject_move.is_some()
    }

    pub fn has(&self, command: &Command) -> bool {
        self.commands.as_ref().is_ok_and(|c| c.contains(command))
    }

    /// The game whose full rules the mail asks for, if it does.
    pub fn rules_asked(&self) -> Option<crate::engine::Ruleset> {
        self.commands.as_ref().ok()?.iter().find_map(|c| match c {
            Command::HelpRules(r) => Some(*r),
            _ => None,
        })
    }

    /// The `new` command, if the mail has one.
    pub fn new_game(&self) -> Option<&Command> {
        self.commands
            .as_ref()
            .ok()?
            .iter()
            .find(|c| matches!(c, Command::New { .. }))
    }
}

/// A digest of the Message-ID, else of the bytes after the mbox line (the
/// MTA writes the same bytes on every retry of one delivery).
fn identity_of(mail: &Incoming, raw: &[u8]) -> MailKey {
    match &mail.message_id {
        Some(id) => MailKey::of_message_id(id),
        None => {
            let body = if raw.starts_with(b"From ") {
                raw.iter()
                    .position(|&b| b == b'\n')
                    .map_or(&raw[raw.len()..], |i| &raw[i + 1..])
            } else {
                raw
            };
            MailKey::of_bytes(body)
        }
    }
}

/// The sender's own lines: not quoted, not an attribution, above any
/// pasted copy of the referee's own text.
fn own_lines(text: &str, referee: &Identity) -> Vec<(usize, String)> {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut own = Vec::new();
    // The referee's mail pasted unquoted is its, not the sender's: to its
    // signature line, or, pasted indented, to a line indented less after a
    // blank one (not a long line's end wrapped by a mail program).
    let mut pasted: Option<usize> = None;
    let mut blank_before = false;
    for (i, line) in text::own_lines(text, SIGNATURE_LINE) {
        let blank = std::mem::replace(&mut blank_before, line.trim().is_empty());
        if line.trim() == SIGNATURE_LINE {
            pasted = None;
            continue;
        }
        if let Some(depth) = pasted {
            if line.trim().is_empty() || indent(line) >= depth || !blank {
                continue;
            }
            pasted = None;
        }
        if is_referee_text(line) {
            pasted = Some(indent(line));
            continue;
        }
        if referee.is_named_in(line) && !tokens(line).is_empty() {
            continue;
        }
        own.push((i, line.to_string()));
    }
    own
}

/// The index of the sender's last line when it is a lone letter under
/// other words that is an initial of theirs (`B` from Bob): a signature,
/// or a move; which, only they know, so it is neither played nor relayed.
fn signature(own: &[(usize, String)], from: Option<&Mailbox>) -> Option<usize> {
    let written: Vec<&(usize, String)> = own.iter().filter(|(_, l)| !l.trim().is_empty()).collect();
    let [.., _, (at, last)] = written.as_slice() else {
        return None;
    };
    let mut letter = last.trim().trim_end_matches(['.', '!']).chars();
    let (Some(initial), None) = (letter.next(), letter.next()) else {
        return None;
    };
    let from = from?;
    let local = from.address.split('@').next().unwrap_or("");
    let names = from
        .name
        .iter()
        .flat_map(|n| n.split_whitespace())
        .chain([local]);
    let initials: Vec<char> = names.filter_map(|w| w.chars().next()).collect();
    initials
        .iter()
        .any(|c| c.eq_ignore_ascii_case(&initial))
        .then_some(*at)
}

/// The commands of the sender's own lines in the order written (a move
/// line among them), then the subject's; each once.
fn read_commands(
    own: &[(usize, String)],
    move_lines: &[(usize, Result<Vec<Pit>, Refusal>)],
    subject: &str,
) -> Result<Vec<Command>, Refusal> {
    let mut found = Vec::new();
    for (index, line) in own {
        let command = match move_lines.iter().find(|(i, _)| i == index) {
            Some((_, Ok(sowings))) => Some(Command::Move(sowings.clone())),
            Some((_, Err(_))) => None, // refused with the move lines
            None => command_line(line)?,
        };
        if let Some(command) = command.filter(|c| !found.contains(c)) {
            if found.len() == super::command::MOST_COMMANDS {
                return Err(Refusal::TooManyCommands);
            }
            found.push(command);
        }
    }
    if let Some(command) = command_line(subject)?.filter(|c| !found.contains(c)) {
        found.push(command);
    }
    Ok(found)
}

/// The mover's own words, less move lines (and a signature that may be
/// one), command lines, board lines and
/// any line naming a key or the referee's address, each line at most
/// [`COMMENT_WIDTH`] wide.
fn comment_of(
    own: &[(usize, String)],
    not_comment: impl Fn(usize) -> bool,
    referee: &Identity,
) -> Vec<String> {
    let lines: Vec<&str> = own
        .iter()
        .filter(|(i, _)| !not_comment(*i))
        .map(|(_, l)| l.trim_end())
        .filter(|l| !matches!(command_line(l), Ok(Some(_)) | Err(_)))
        .filter(|l| !looks_like_sheet(l))
        // Only the referee marks a sheet as not the game's.
        .filter(|l| !l.contains(crate::sheet::NOT_THE_GAME))
        .filter(|l| tokens(l).is_empty() && !referee.is_named_in(l))
        .collect();
    let start = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(start, |i| i + 1);
    lines[start..end.max(start)]
        .iter()
        .flat_map(|l| text::wrap(&text::clean_text(l), COMMENT_WIDTH))
        .take(COMMENT_LINES)
        .collect()
}

/// Board and log lines pasted unquoted are not comment.
fn looks_like_sheet(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|')
        || t.starts_with('+')
        || t.starts_with("Game:")
        || t.starts_with("Captured:")
        || t.split_once('.')
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every `id-key` in the text: game keys look like `k7q2mx-0123456789ab`.
pub fn tokens(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (dash, _) in text.match_indices('-') {
        let (Some(id_start), Some(end)) = (dash.checked_sub(6), dash.checked_add(13)) else {
            continue;
        };
        if end > bytes.len() {
            continue;
        }
        let id = &bytes[id_start..dash];
        let key = &bytes[dash + 1..end];
        let bounded = |i: Option<&u8>| !i.is_some_and(|b| b.is_ascii_alphanumeric());
        if id
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && key
                .iter()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            && bounded(id_start.checked_sub(1).and_then(|i| bytes.get(i)))
            && bounded(bytes.get(end))
        {
            found.push(String::from_utf8_lossy(&bytes[id_start..end]).into_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFEREE: &str = "referee@referee.example";

    fn read(raw: &str) -> Letter {
        Letter::read(raw.as_bytes(), &Identity::new(REFEREE))
    }

    #[test]
    fn tokens_are_found_where_they_stand_alone() {
        assert_eq!(
            tokens("referee+k7q2mx-0123456789ab@x.example"),
            ["k7q2mx-0123456789ab"]
        );
        assert_eq!(
            tokens("> Your key for game k7q2mx: k7q2mx-0123456789ab\n"),
            ["k7q2mx-0123456789ab"]
        );
        assert!(tokens("k7q2mx-0123456789abc").is_empty());
        assert!(tokens("xk7q2mx-0123456789ab").is_empty());
        assert!(tokens("k7q2mx-0123456789AB").is_empty());
        assert!(tokens("-").is_empty());
    }

    #[test]
    fn a_mail_without_message_id_is_the_same_mail_on_every_retry() {
        let mail = "From: a@x.example\nSubject: hi\n\nnew wari with b@y.example\n";
        let first = read(&format!(
            "From a@x.example  Mon Nov 30 09:05:00 2026\n{mail}"
        ));
        let again = read(&format!(
            "From a@x.example  Tue Dec  1 10:00:00 2026\n{}",
            mail.replace('\n', "\r\n")
        ));
        assert_eq!(first.identity, again.identity);
        assert_ne!(first.identity, read(&mail.replace("hi", "ho")).identity);
    }

    #[test]
    fn a_huge_message_id_is_digested_and_not_repeated() {
        let id = format!("<{}@x.example>", "a".repeat(900_000));
        let letter = read(&format!(
            "From: a@x.example\nMessage-ID: {id}\nReferences: {id}\n\nhelp\n"
        ));
        assert_eq!(letter.identity.0.len(), 32);
        assert_eq!(letter.mail.message_id, None);
        assert!(letter.mail.references.is_empty());
    }

    #[test]
    fn a_pasted_copy_of_the_referees_mail_is_not_the_senders() {
        let letter = read(
            "From: b@x.example\n\nmove d\nGood luck!\n\n\
             Super-Wari game k7q2mx: Alice played c.\n\nAlice writes:\n> resign\n\n\
             Your key for game k7q2mx: k7q2mx-0123456789ab\nresign\n",
        );
        let own: Vec<&str> = letter.own.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(own, ["move d", "Good luck!", ""]);
        assert_eq!(letter.comment, ["Good luck!"]);
        let d = crate::sheet::parse_sowings("d").unwrap();
        assert_eq!(letter.commands, Ok(vec![Command::Move(d)]), "no resign");
        assert_eq!(
            letter.keys,
            ["k7q2mx-0123456789ab"],
            "the key is still read"
        );
    }

    /// A copy pasted indented ends at the first line indented less, one
    /// pasted whole at its signature: the move below either is the
    /// sender's; a line indented as the copy is still the referee's.
    #[test]
    fn a_pasted_copy_ends_at_its_signature_or_its_indent() {
        let copy = "Wari k7q2mx: your move — Bob played a.\n\nresign\n\n\
                    Your key for game k7q2mx: k7q2mx-0123456789ab\n";
        let signed = format!("{copy}\n-- \n{SIGNATURE_LINE}\n");
        let indented =
            |text: &str| -> String { text.lines().map(|l| format!("    {l}\n")).collect() };
        for (n, pasted) in [signed.clone(), indented(copy), indented(&signed)]
            .into_iter()
            .enumerate()
        {
            let letter = read(&format!(
                "From: b@x.example\n\nHere it is:\n\n{pasted}\nmove c\n"
            ));
            let own: Vec<&str> = letter
                .own
                .iter()
                .map(|(_, l)| l.trim())
                .filter(|l| !l.is_empty())
                .collect();
            assert_eq!(own, ["Here it is:", "move c"], "paste {n}");
            let c = crate::sheet::parse_sowings("c").unwrap();
            assert_eq!(
                letter.commands,
                Ok(vec![Command::Move(c)]),
                "paste {n}: no resign"
            );
        }
        // Pasted indented, a long line wrapped back to the margin: still the copy.
        let wrapped = indented(copy).replacen("your move — ", "your move —\n", 1);
        let letter = read(&format!("From: b@x.example\n\n{wrapped}\nmove c\n"));
        let c = crate::sheet::parse_sowings("c").unwrap();
        assert_eq!(letter.commands, Ok(vec![Command::Move(c)]), "no resign");
        // Pasted whole but unsigned: all below is the copy's.
        let letter = read(&format!("From: b@x.example\n\n{copy}\nmove c\n"));
        assert_eq!(letter.commands, Ok(vec![]));
    }

    #[test]
    fn no_key_or_referee_address_is_relayed() {
        let letter = read(
            "From: b@x.example\n\nmove d\nmy key is k7q2mx-0123456789ab, ha\n\
             write to referee+k7q2mx-0123456789ab@referee.example\nnice game\n",
        );
        assert_eq!(letter.comment, ["nice game"]);
    }
}
