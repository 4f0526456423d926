//! What the referee answers to one mail: the move found and played, and
//! the replies to send, or the reason to stay silent.

use std::fmt::Write as _;

use super::incoming::{Incoming, Mailbox};
use super::text;
use crate::engine::{Pit, Side};
use crate::sheet::{self, Player, RawSheet, Sheet, SheetError};
use crate::store::Store;

/// Who the referee is.
#[derive(Clone, Debug)]
pub struct Referee {
    /// The referee's own address, e.g. `referee@referee.example`.
    pub address: String,
    /// The display name on its mail.
    pub name: String,
    /// Where games are kept; without one, a game lives only in its mails.
    pub store: Option<Store>,
}

impl Referee {
    pub fn new(address: &str) -> Referee {
        Referee {
            address: address.trim().to_string(),
            name: "Mancala referee".to_string(),
            store: None,
        }
    }

    /// A referee that keeps its games in `store`.
    pub fn with_store(address: &str, store: Store) -> Referee {
        Referee {
            store: Some(store),
            ..Referee::new(address)
        }
    }

    /// `referee+<extension>@domain`: the sub-address Postfix and most MTAs
    /// deliver to the referee itself.
    pub fn sub_address(&self, extension: &str) -> String {
        match self.address.split_once('@') {
            Some((local, domain)) => format!("{local}+{extension}@{domain}"),
            None => self.address.clone(),
        }
    }

    /// Is `address` the referee's own, sub-addresses (`referee+x@`) included?
    pub fn is_own(&self, address: &str) -> bool {
        let base = |a: &str| {
            let a = a.trim().to_ascii_lowercase();
            match a.split_once('@') {
                Some((local, domain)) => {
                    let local = local.split('+').next().unwrap_or(local);
                    format!("{local}@{domain}")
                }
                None => a,
            }
        };
        base(address) == base(&self.address)
    }
}

/// One mail to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub to: Vec<Mailbox>,
    /// Where replies should go, when not to the referee's plain address.
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    /// The Message-ID replied to, and the thread's references.
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
}

/// The referee's decision on one mail.
#[derive(Clone, Debug)]
pub enum Answer {
    /// Never answer this mail; the reason is for the log.
    Ignore(String),
    /// Nothing was done and nothing can be said now: the MTA should keep
    /// the mail and try again later (exit 75). The reason is for the log.
    Retry(String),
    /// Send these; the summary is for the log. Once they are sent,
    /// [`Referee::commit`] records that in the store.
    Reply {
        mail: Vec<Outgoing>,
        summary: String,
        commit: Option<Commit>,
    },
}

/// A stored game's answer to a mail, to mark as sent once it is. It holds
/// the game's lock until then, so a second delivery of the same mail waits
/// and finds it sent, rather than sending its replies twice.
#[derive(Clone, Debug)]
pub struct Commit {
    pub game: String,
    pub message_id: String,
    pub(super) lock: Option<std::sync::Arc<crate::store::GameLock>>,
}

impl Commit {
    /// A commit that holds no lock: [`Referee::commit`] takes the game's own.
    pub(super) fn unlocked(game: &str, message_id: String) -> Commit {
        Commit {
            game: game.to_string(),
            message_id,
            lock: None,
        }
    }
}

/// Why a mail's move was not played, said to the player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0}")]
    Sheet(#[from] SheetError),
    #[error("'{text}' is not a move: {error}")]
    BadMoveLine {
        text: String,
        error: crate::engine::ParsePitError,
    },
    #[error("the move line says {line} but the log says {log}: they disagree; send one move")]
    Disagree { line: String, log: String },
    #[error("the move lines say different things ({0}); send one move")]
    SeveralMoves(String),
    #[error("no move found: write a line 'move <pit>' above the quoted board")]
    NoMove,
    #[error("the game is over; it takes no more moves")]
    GameOver,
    #[error("it is {name}'s move ({side}), and this mail is from {from}, not {address}")]
    NotYourMove {
        name: String,
        side: Side,
        from: String,
        address: String,
    },
    #[error("{0}")]
    Illegal(String),
    #[error("the mail is larger than {0} bytes; send a plain-text reply without attachments")]
    TooLarge(usize),
    #[error("this mail carries no valid game key, so it can move nothing; reply to the referee's last mail to you, or start a game with a line: new super-wari with <address>")]
    NoKey,
    #[error("there is no game {0} here")]
    NoGame(String),
    #[error("it is {name}'s move ({side})")]
    NotYourTurn { name: String, side: Side },
    #[error("the board you quoted is out of date: answer the referee's latest mail")]
    OutOfDate,
    #[error("'{0}' cannot be read: write new RULESET [stones N] with ADDRESS [as south|north]")]
    BadCommand(String),
    #[error("no opponent: put their address in Cc, or write a line: new <game> with <address>")]
    NoOpponent,
}

/// A sheet and the move the mail asks for.
pub(super) struct Request {
    pub sheet: Sheet,
    pub sowings: Vec<Pit>,
    /// The sheet was pasted unquoted, so the player's own text cannot be
    /// told from what they pasted.
    pub pasted: bool,
}

const PLACEHOLDER_NAMES: [&str; 4] = ["yourname", "south", "north", ""];

/// Line prefix of the mover's comment relayed to the opponent.
pub(super) const COMMENT_INDENT: &str = "    ";
pub(super) const SIGNATURE: &str =
    "\n-- \nmancala-referee: pits are letters from each player's own left\n";

/// Most lines of comment relayed.
const COMMENT_LINES: usize = 40;
/// Mail lines stay under 76 columns so they go out unencoded and unwrapped.
pub(super) const COMMENT_WIDTH: usize = 68;

impl Referee {
    /// Reads one mail and decides what to send.
    pub fn answer(&self, mail: &Incoming) -> Answer {
        if let Some(why) = mail.automatic {
            return Answer::Ignore(format!("not answered: {why}"));
        }
        let Some(from) = mail.from.clone() else {
            return Answer::Ignore("not answered: no From address".into());
        };
        if self.is_own(&from.address) {
            return Answer::Ignore("not answered: the referee's own mail".into());
        }
        if mail.loops.iter().any(|l| self.is_own(l)) {
            return Answer::Ignore("not answered: it carries the referee's X-Loop header".into());
        }
        if let Some(store) = &self.store {
            return self.answer_hosted(store, mail, &from);
        }
        let raw = match RawSheet::find(&mail.text) {
            Ok(raw) => raw,
            Err(error) => return self.refuse(mail, &from, &Refusal::Sheet(error), None),
        };
        let request = match self.read_request(mail, &raw) {
            Ok(request) => request,
            Err((refusal, sheet)) => return self.refuse(mail, &from, &refusal, sheet.as_deref()),
        };
        self.play(mail, &from, request)
    }

    /// The answer to a mail over the size limit, read only in part.
    pub fn too_large(&self, mail: &Incoming, limit: usize) -> Answer {
        match (&mail.automatic, &mail.from) {
            (Some(why), _) => Answer::Ignore(format!("not answered: {why}")),
            (None, None) => Answer::Ignore("not answered: too large, and no From address".into()),
            (None, Some(from)) => {
                let refusal = Refusal::TooLarge(limit);
                self.refuse(mail, from, &refusal, None)
            }
        }
    }

    /// The verified sheet and the move, from a move line or the log.
    pub(super) fn read_request(
        &self,
        mail: &Incoming,
        raw: &RawSheet,
    ) -> Result<Request, (Refusal, Option<Box<Sheet>>)> {
        let own = text::own_lines(&mail.text);
        let sheet_lines = raw.lines.clone();
        let mut line_moves: Vec<Vec<Pit>> = Vec::new();
        for (index, line) in &own {
            if sheet_lines.contains(index) {
                continue;
            }
            match move_line(line) {
                Some(Ok(sowings)) if !line_moves.contains(&sowings) => line_moves.push(sowings),
                Some(Err(refusal)) => {
                    return Err((refusal, raw.replay(raw.sowing_count()).ok().map(Box::new)))
                }
                _ => {}
            }
        }
        // The log is the authority: the board drawn is the log played out,
        // or the log without the move the player wrote in place of `?`.
        let total = raw.sowing_count();
        let full = raw.replay(total).map_err(|e| (Refusal::Sheet(e), None))?;
        let (sheet, log_move) = match raw.check_board(&full.game) {
            Ok(()) => (full, None),
            Err(mismatch) => {
                let last_turn = raw.turns.last().map_or(0, Vec::len);
                let earlier = (1..=last_turn).find_map(|k| {
                    let sheet = raw.replay(total - k).ok()?;
                    raw.check_board(&sheet.game).ok()?;
                    Some((sheet, raw.turns.last()?[last_turn - k..].to_vec()))
                });
                match earlier {
                    Some((sheet, sowings)) => (sheet, Some(sowings)),
                    None => return Err((Refusal::Sheet(mismatch), None)),
                }
            }
        };
        let sowings = match (line_moves.as_slice(), log_move) {
            ([], None) => return Err((Refusal::NoMove, Some(Box::new(sheet)))),
            ([], Some(log)) => log,
            ([line], None) => line.clone(),
            ([line], Some(log)) if *line == log => log,
            ([line], Some(log)) => {
                return Err((
                    Refusal::Disagree {
                        line: written(line),
                        log: written(&log),
                    },
                    Some(Box::new(sheet)),
                ))
            }
            (several, _) => {
                let list = several
                    .iter()
                    .map(|m| written(m))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err((Refusal::SeveralMoves(list), Some(Box::new(sheet))));
            }
        };
        let pasted = mail
            .text
            .lines()
            .nth(raw.lines.start)
            .is_some_and(|first| !text::is_quoted(first));
        Ok(Request {
            sheet,
            sowings,
            pasted,
        })
    }

    fn play(&self, mail: &Incoming, from: &Mailbox, request: Request) -> Answer {
        let Request {
            mut sheet,
            sowings,
            pasted,
        } = request;
        let Some(side) = sheet.game.to_move() else {
            return self.refuse(mail, from, &Refusal::GameOver, Some(&sheet));
        };
        // The seat to move is the sender's: by its address, or, while it has
        // none yet (a new game), by taking it.
        let seat = sheet.players.get(side).clone();
        match &seat.address {
            Some(address) if !address.eq_ignore_ascii_case(&from.address) => {
                let refusal = Refusal::NotYourMove {
                    name: seat.name.clone(),
                    side,
                    from: from.address.clone(),
                    address: address.clone(),
                };
                return self.refuse(mail, from, &refusal, Some(&sheet));
            }
            Some(_) => {}
            None => {
                let player = sheet.players.get_mut(side);
                player.address = Some(from.address.clone());
                if is_placeholder(&player.name) {
                    player.name = clean_name(&from.short_name());
                }
                self.seat_opponent(mail, from, &mut sheet, side);
            }
        }
        let news = match play_turn(&mut sheet, side, &sowings) {
            Ok(news) => news,
            Err(refusal) => return self.refuse(mail, from, &refusal, Some(&sheet)),
        };
        let mover = sheet.name(side).to_string();
        let comment = comment(mail, pasted);
        let body = self.sheet_mail(&news, Some((&mover, &comment)), &sheet);
        let to: Vec<Mailbox> = Side::BOTH
            .iter()
            .filter_map(|&s| mailbox_of(sheet.players.get(s)))
            .fold(Vec::new(), |mut all, m| {
                if !all
                    .iter()
                    .any(|a: &Mailbox| a.address.eq_ignore_ascii_case(&m.address))
                {
                    all.push(m);
                }
                all
            });
        let summary = format!("{} {news}", sheet.game.rules().ruleset);
        Answer::Reply {
            mail: vec![self.reply_to(mail, to, body)],
            summary,
            commit: None,
        }
    }

    /// A new game's other seat: the other address in To/Cc, not the
    /// referee's own nor the sender's.
    pub(super) fn seat_opponent(
        &self,
        mail: &Incoming,
        from: &Mailbox,
        sheet: &mut Sheet,
        side: Side,
    ) {
        let other = sheet.players.get_mut(side.other());
        if other.address.is_some() {
            return;
        }
        let opponent = mail
            .recipients
            .iter()
            .find(|m| !self.is_own(&m.address) && !m.address.eq_ignore_ascii_case(&from.address));
        if let Some(opponent) = opponent {
            other.address = Some(opponent.address.clone());
            if is_placeholder(&other.name) {
                other.name = clean_name(&opponent.short_name());
            }
        }
    }

    /// The reply to a refused mail: to the sender alone, with what is wrong,
    /// what is legal, and the unchanged sheet.
    pub(super) fn refuse(
        &self,
        mail: &Incoming,
        from: &Mailbox,
        refusal: &Refusal,
        sheet: Option<&Sheet>,
    ) -> Answer {
        let mut body = "Your mail was read, but no move was played:\n\n".to_string();
        for line in text::wrap(&refusal.to_string(), COMMENT_WIDTH) {
            let _ = writeln!(body, "{COMMENT_INDENT}{line}");
        }
        match sheet {
            Some(sheet) => {
                body.push('\n');
                body.push_str(&self.sheet_mail("The board is unchanged:", None, sheet));
            }
            None => body.push_str(
                "\nReply to the referee's last mail, keeping its board and move log in the\n\
                 quoted text, and write your move on a line of its own:  move <pit>\n",
            ),
        }
        Answer::Reply {
            mail: vec![self.reply_to(mail, vec![from.clone()], body)],
            summary: format!("refused {}: {refusal}", from.address),
            commit: None,
        }
    }

    /// The body of a mail carrying a sheet: the news, the mover's comment,
    /// the sheet, and what to do next.
    pub(super) fn sheet_mail(
        &self,
        news: &str,
        comment: Option<(&str, &str)>,
        sheet: &Sheet,
    ) -> String {
        let mut body = String::new();
        let _ = writeln!(body, "{news}");
        if let Some((mover, comment)) = comment.filter(|(_, c)| !c.is_empty()) {
            let _ = writeln!(body, "\n{mover} writes:");
            for line in comment.lines() {
                let _ = writeln!(body, "{COMMENT_INDENT}{line}");
            }
        }
        let _ = writeln!(body, "\n{sheet}");
        let game = &sheet.game;
        match game.to_move() {
            Some(side) => {
                let _ = writeln!(
                    body,
                    "It is {}'s move ({side}). Legal moves: {}.\n\
                     To move, reply to this mail with a line:  move <pit>",
                    sheet.name(side),
                    game.legal_moves()
                );
            }
            None => {
                let _ = writeln!(body, "The game is over. Thank you for playing.");
            }
        }
        body.push_str(SIGNATURE);
        body
    }

    pub(super) fn reply_to(&self, mail: &Incoming, to: Vec<Mailbox>, body: String) -> Outgoing {
        let mut references = mail.references.clone();
        if let Some(id) = &mail.message_id {
            references.push(id.clone());
        }
        Outgoing {
            to,
            reply_to: None,
            subject: reply_subject(&mail.subject),
            body,
            in_reply_to: mail.message_id.clone(),
            references,
        }
    }
}

/// Plays `side`'s turn: its sowings, bonus sowings included. Returns the
/// news for the players ("Alice played c-f, capturing 2.").
///
/// # Errors
/// An illegal sowing, or a sowing after the turn has passed; the sheet is
/// then as it was.
pub(super) fn play_turn(sheet: &mut Sheet, side: Side, sowings: &[Pit]) -> Result<String, Refusal> {
    let before = sheet.clone();
    let line = sheet.log_line_awaited();
    let mut captured = 0u32;
    for (i, &pit) in sowings.iter().enumerate() {
        if sheet.game.to_move() != Some(side) {
            *sheet = before;
            return Err(Refusal::Illegal(format!(
                "move {line}: {side}'s {} earns no bonus sowing, so {} cannot follow",
                written(&sowings[..i]),
                written(&sowings[i..])
            )));
        }
        match sheet.game.play(pit) {
            Ok(sowing) => captured += u32::from(sowing.captured),
            Err(error) => {
                *sheet = before;
                return Err(Refusal::Illegal(format!("move {line}: {error}")));
            }
        }
    }
    let mut news = format!("{} played {}", sheet.name(side), written(sowings));
    if captured > 0 {
        let _ = write!(news, ", capturing {captured}");
    }
    news.push('.');
    Ok(news)
}

/// `Re: ` once, whatever the thread did to the subject before.
pub(super) fn reply_subject(subject: &str) -> String {
    let mut rest = text::clean_text(subject);
    loop {
        let lower = rest.to_ascii_lowercase();
        let cut = ["re:", "aw:", "sv:", "fwd:", "fw:"]
            .iter()
            .find(|p| lower.starts_with(*p));
        match cut {
            Some(prefix) => rest = rest[prefix.len()..].trim_start().to_string(),
            None => break,
        }
    }
    if rest.is_empty() {
        "Re: your mancala game".to_string()
    } else {
        format!("Re: {rest}")
    }
}

/// A move line: `move c`, `Move: c-f`, `MOVE c f`. `None` for prose that
/// merely starts with the word.
pub(super) fn move_line(line: &str) -> Option<Result<Vec<Pit>, Refusal>> {
    let trimmed = line.trim();
    let keyword = trimmed.get(..4)?;
    if !keyword.eq_ignore_ascii_case("move") {
        return None;
    }
    let rest = &trimmed[4..];
    let (colon, rest) = match rest.trim_start().strip_prefix(':') {
        Some(after) => (true, after.trim()),
        None if rest.starts_with(char::is_whitespace) => (false, rest.trim()),
        None => return None, // "moved", "movement"
    };
    let rest = rest.trim_end_matches(['.', '!']);
    match sheet::parse_sowings(rest) {
        Ok(sowings) if !sowings.is_empty() => Some(Ok(sowings)),
        Ok(_) if colon => Some(Err(Refusal::NoMove)),
        Err(error) if colon || rest.split_whitespace().count() == 1 => {
            Some(Err(Refusal::BadMoveLine {
                text: rest.to_string(),
                error,
            }))
        }
        _ => None,
    }
}

/// The mover's own words, less the move line and the blanks around them,
/// each line at most [`COMMENT_WIDTH`] wide. None from a pasted sheet.
pub(super) fn comment(mail: &Incoming, pasted: bool) -> String {
    if pasted {
        return String::new();
    }
    let lines: Vec<&str> = text::own_lines(&mail.text)
        .into_iter()
        .map(|(_, l)| l.trim_end())
        .filter(|l| move_line(l).is_none())
        .filter(|l| !looks_like_sheet(l))
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
        .collect::<Vec<_>>()
        .join("\n")
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

pub(super) fn written(sowings: &[Pit]) -> String {
    sowings
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

pub(super) fn is_placeholder(name: &str) -> bool {
    PLACEHOLDER_NAMES.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// A player's name: clean, without the characters the sheet uses for its
/// own structure, and short enough for the grid.
pub(super) fn clean_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|c| !matches!(c, '|' | '<' | '>' | '"'))
        .collect();
    let name: String = text::clean_text(&kept).chars().take(30).collect();
    if name.trim().is_empty() {
        "Player".to_string()
    } else {
        name.trim().to_string()
    }
}

pub(super) fn mailbox_of(player: &Player) -> Option<Mailbox> {
    player.address.as_ref().map(|address| Mailbox {
        name: Some(player.name.clone()),
        address: address.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines_as_players_write_them() {
        let ok = |l: &str| {
            move_line(l)
                .unwrap()
                .unwrap()
                .iter()
                .map(|p| p.to_string())
                .collect::<String>()
        };
        assert_eq!(ok("move c"), "c");
        assert_eq!(ok("Move: c"), "c");
        assert_eq!(ok("  MOVE c-f"), "cf");
        assert_eq!(ok("move c f."), "cf");
        assert_eq!(ok("move:3"), "c");
        assert!(move_line("Move fast and break things").is_none());
        assert!(move_line("moved to Paris").is_none());
        assert!(move_line("a move").is_none());
        assert!(matches!(
            move_line("move: z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
        assert!(matches!(
            move_line("move z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
    }

    #[test]
    fn a_turn_plays_its_bonus_sowings_and_nothing_after_the_turn_passes() {
        use crate::engine::Ruleset;
        use crate::sheet::Players;
        let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Ann", "Bo"));
        let pits = |s: &str| sheet::parse_sowings(s).unwrap();
        assert_eq!(
            play_turn(&mut sheet, Side::South, &pits("c-f")),
            Ok("Ann played c-f.".to_string())
        );
        let before = sheet.game.ply();
        let err = play_turn(&mut sheet, Side::North, &pits("a b")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 1: North's a earns no bonus sowing, so b cannot follow"
        );
        assert_eq!(sheet.game.ply(), before, "the sheet is as it was");
    }

    #[test]
    fn subjects_get_one_re() {
        assert_eq!(reply_subject("Re: RE: Fwd: Super-Wari"), "Re: Super-Wari");
        assert_eq!(
            reply_subject("Wari\r\nBcc: evil@example.org"),
            "Re: Wari Bcc: evil@example.org"
        );
        assert_eq!(reply_subject(""), "Re: your mancala game");
    }

    #[test]
    fn own_addresses_include_sub_addresses() {
        let referee = Referee::new("referee@referee.example");
        assert!(referee.is_own("Referee+g1-abc@Referee.Example"));
        assert!(!referee.is_own("alice@players.example"));
    }

    #[test]
    fn names_cannot_carry_structure_or_control_characters() {
        assert_eq!(clean_name("Bob\r\nBcc: x | <y>"), "Bob Bcc: x y");
        assert_eq!(clean_name("  "), "Player");
    }
}
