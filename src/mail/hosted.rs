//! The hosted referee: games kept in the store, players known by the keys
//! only the referee's mails to them carry, commands by mail, each mail
//! applied once.

use std::fmt::Write as _;

use super::incoming::{Incoming, Mailbox};
use super::referee::{
    clean_name, comment, is_placeholder, mailbox_of, move_line, play_turn, reply_subject, Answer,
    Commit, Outgoing, Referee, Refusal, COMMENT_INDENT, SIGNATURE,
};
use super::text;
use crate::engine::{EndReason, Pit, Ruleset, Side, SplitMix64};
use crate::opponent::Opponent;
use crate::sheet::{Players, RawSheet, Sheet};
use crate::store::{self, GameLock, GameRecord, Secrets, Store, StoreError, StoredMail};
use std::sync::Arc;

/// A command a player writes on a line of their own (or in the subject).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `new RULESET [stones N] with ADDRESS [as south|north]`
    New {
        ruleset: Ruleset,
        stones: Option<u8>,
        opponent: String,
        side: Side,
    },
    Resign,
    Board,
    Help,
    Games,
}

/// The commands of a mail, in its own text and its subject; moves are read
/// apart (a move line, or the `?` of a quoted log).
///
/// # Errors
/// A `new` line that cannot be read.
pub fn commands(mail: &Incoming) -> Result<Vec<Command>, Refusal> {
    let subject = reply_subject(&mail.subject);
    let subject = subject.strip_prefix("Re: ").unwrap_or(&subject).to_string();
    let mut found = Vec::new();
    for line in text::own_lines(&mail.text)
        .into_iter()
        .map(|(_, l)| l)
        .chain([subject.as_str()])
    {
        if let Some(command) = command_line(line)? {
            if !found.contains(&command) {
                found.push(command);
            }
        }
    }
    Ok(found)
}

fn command_line(line: &str) -> Result<Option<Command>, Refusal> {
    let words: Vec<String> = line
        .trim()
        .trim_end_matches(['.', '!'])
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["resign"] => Some(Command::Resign),
        ["board"] => Some(Command::Board),
        ["help"] => Some(Command::Help),
        ["games"] => Some(Command::Games),
        ["new", ruleset, rest @ ..] => match ruleset.parse::<Ruleset>() {
            Ok(ruleset) => Some(new_command(ruleset, rest, line)?),
            Err(_) => None, // "new to this game": prose
        },
        _ => None,
    })
}

fn new_command(ruleset: Ruleset, rest: &[&str], line: &str) -> Result<Command, Refusal> {
    let bad = || Refusal::BadCommand(line.trim().to_string());
    let (mut stones, mut opponent, mut side) = (None, None, Side::South);
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        match *word {
            "stones" => stones = Some(words.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?),
            "with" => {
                opponent = Some(
                    words
                        .next()
                        .ok_or_else(bad)?
                        .trim_matches(['<', '>'])
                        .to_string(),
                )
            }
            "as" => side = words.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?,
            _ => return Err(bad()),
        }
    }
    match opponent {
        Some(opponent) if opponent.contains('@') => Ok(Command::New {
            ruleset,
            stones,
            opponent,
            side,
        }),
        Some(computer) if computer == "computer" => Ok(Command::New {
            ruleset,
            stones,
            opponent: computer,
            side,
        }),
        _ => Err(bad()),
    }
}

/// Every `id-key` in the text: game keys look like `k7q2mx-0123456789ab`.
fn tokens(text: &str) -> Vec<String> {
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

fn store_failure(error: &StoreError) -> Answer {
    // Nothing was sent and nothing changed: the MTA should try again.
    Answer::Retry(format!("the store failed: {error}"))
}

impl Referee {
    /// A mail for a referee that keeps its games.
    pub(super) fn answer_hosted(&self, store: &Store, mail: &Incoming, from: &Mailbox) -> Answer {
        let commands = match commands(mail) {
            Ok(commands) => commands,
            Err(refusal) => return self.refuse(mail, from, &refusal, None),
        };
        let secrets = match store.secrets() {
            Ok(secrets) => secrets,
            Err(e) => return store_failure(&e),
        };
        if commands.contains(&Command::Help) {
            return self.help(mail, from);
        }
        if commands.contains(&Command::Games) {
            return self.games(store, mail, from);
        }
        if let Some(Command::New {
            ruleset,
            stones,
            opponent,
            side,
        }) = commands
            .iter()
            .find(|c| matches!(c, Command::New { .. }))
            .cloned()
        {
            return self.challenge(
                store, &secrets, mail, from, ruleset, stones, &opponent, side,
            );
        }
        let mut places: Vec<&str> = mail.recipients.iter().map(|m| m.address.as_str()).collect();
        places.extend(mail.delivered_to.iter().map(String::as_str));
        places.push(&mail.text);
        let verified = places
            .iter()
            .flat_map(|p| tokens(p))
            .find_map(|token| secrets.check(&token));
        let Some((id, side)) = verified else {
            return self.without_key(store, &secrets, mail, from);
        };
        let lock = match store.lock(&id) {
            Ok(lock) => lock,
            Err(e) => return store_failure(&e),
        };
        let mut record = match store.load(&id) {
            Ok(Some(record)) => record,
            Ok(None) => return self.refuse(mail, from, &Refusal::NoGame(id), None),
            Err(e) => return store_failure(&e),
        };
        if let Some(message_id) = &mail.message_id {
            if let Some(handled) = record.handled(message_id) {
                if handled.sent {
                    return Answer::Ignore(format!("already handled: {message_id} (game {id})"));
                }
                return self.resend(&record, message_id, lock);
            }
        }
        let mut sheet = match record.sheet() {
            Ok(sheet) => sheet,
            Err(e) => {
                return store_failure(&StoreError::Format {
                    path: store.dir().join(&id),
                    error: e,
                })
            }
        };
        let now = store::now();
        let (news, mover_comment) = if commands.contains(&Command::Resign) {
            if sheet.game.is_over() {
                return self.refuse_in_game(mail, from, &secrets, &Refusal::GameOver, &sheet, side);
            }
            sheet.game.resign(side);
            record.concede(side, EndReason::Resignation, now);
            (format!("{} resigned.", sheet.name(side)), String::new())
        } else if commands.contains(&Command::Board)
            && !text::own_lines(&mail.text)
                .iter()
                .any(|(_, l)| move_line(l).is_some())
        {
            // Only the board was asked for: with a move line too, the move is played.
            let body = self.keyed_body(&secrets, &sheet, side, "The board, as you asked:", None);
            let mut reply = self.reply_to(mail, vec![from.clone()], body);
            reply.reply_to = Some(self.sub_address(&secrets.token(&id, side)));
            reply.subject = game_subject(&sheet);
            return Answer::Reply {
                mail: vec![reply],
                summary: format!("board of {id} to {}", from.address),
                commit: None,
            };
        } else {
            let sowings = match self.hosted_move(mail, &sheet) {
                Ok(sowings) => sowings,
                Err(refusal) => {
                    return self.refuse_in_game(mail, from, &secrets, &refusal, &sheet, side)
                }
            };
            let Some(to_move) = sheet.game.to_move() else {
                return self.refuse_in_game(mail, from, &secrets, &Refusal::GameOver, &sheet, side);
            };
            if to_move != side {
                let refusal = Refusal::NotYourTurn {
                    name: sheet.name(to_move).to_string(),
                    side: to_move,
                };
                return self.refuse_in_game(mail, from, &secrets, &refusal, &sheet, side);
            }
            let news = match play_turn(&mut sheet, side, &sowings) {
                Ok(news) => news,
                Err(refusal) => {
                    return self.refuse_in_game(mail, from, &secrets, &refusal, &sheet, side)
                }
            };
            let news = news + &computer_turns(&mut sheet, record.computer_side());
            record.set_turns(&sheet.game, mail.message_id.as_deref(), now);
            (news, comment(mail, false))
        };
        let mover = sheet.name(side).to_string();
        let replies = self.to_both(
            &secrets,
            mail,
            &sheet,
            &news,
            Some((&mover, &mover_comment)),
        );
        self.keep_and_answer(
            store,
            &mut record,
            mail,
            replies,
            format!("game {id}: {news}"),
            lock,
        )
    }

    /// The sowings a mail asks for: its move line, or the move it wrote in
    /// place of the `?` of a quoted log. A quoted board older than the
    /// stored game (an old mail answered) moves nothing.
    fn hosted_move(&self, mail: &Incoming, stored: &Sheet) -> Result<Vec<Pit>, Refusal> {
        let lines: Vec<Vec<Pit>> = text::own_lines(&mail.text)
            .into_iter()
            .filter_map(|(_, l)| move_line(l))
            .collect::<Result<Vec<_>, _>>()?;
        let quoted = RawSheet::find(&mail.text)
            .ok()
            .and_then(|raw| self.read_request(mail, &raw).ok());
        if let Some(request) = &quoted {
            if request.sheet.game.sowings() != stored.game.sowings() {
                return Err(Refusal::OutOfDate);
            }
        }
        match (lines.first(), quoted) {
            (Some(line), _) => Ok(line.clone()),
            (None, Some(request)) => Ok(request.sowings),
            (None, None) => Err(Refusal::NoMove),
        }
    }

    /// A refusal inside a known game: the current board and the sender's
    /// own key, so they can simply reply again.
    fn refuse_in_game(
        &self,
        mail: &Incoming,
        from: &Mailbox,
        secrets: &Secrets,
        refusal: &Refusal,
        sheet: &Sheet,
        side: Side,
    ) -> Answer {
        let mut heading = "Your mail was read, but no move was played:\n\n".to_string();
        for line in text::wrap(&refusal.to_string(), super::referee::COMMENT_WIDTH) {
            let _ = writeln!(heading, "{COMMENT_INDENT}{line}");
        }
        let _ = write!(heading, "\nThe board as it stands:");
        let body = self.keyed_body(secrets, sheet, side, &heading, None);
        let mut reply = self.reply_to(mail, vec![from.clone()], body);
        if let Some(id) = &sheet.id {
            reply.reply_to = Some(self.sub_address(&secrets.token(id, side)));
        }
        Answer::Reply {
            mail: vec![reply],
            summary: format!("refused {}: {refusal}", from.address),
            commit: None,
        }
    }

    /// A sheet mail for one player, ending with their key.
    fn keyed_body(
        &self,
        secrets: &Secrets,
        sheet: &Sheet,
        side: Side,
        news: &str,
        comment: Option<(&str, &str)>,
    ) -> String {
        let mut body = self.sheet_mail(news, comment, sheet);
        if let Some(id) = &sheet.id {
            if let Some(cut) = body.rfind(SIGNATURE) {
                body.truncate(cut);
            }
            let _ = write!(
                body,
                "\nYour key for game {id}: {}\nIt proves a move is yours: replies to this mail carry it. Keep it\nin the quoted text if your mail program drops the Reply-To address.\nCommands, one a line: move <pit>, board, resign, help, games.\n{SIGNATURE}",
                secrets.token(id, side)
            );
        }
        body
    }

    /// The same news to both players, each mail with its reader's key.
    fn to_both(
        &self,
        secrets: &Secrets,
        mail: &Incoming,
        sheet: &Sheet,
        news: &str,
        comment: Option<(&str, &str)>,
    ) -> Vec<Outgoing> {
        let id = sheet.id.clone().unwrap_or_default();
        Side::BOTH
            .iter()
            .filter_map(|&side| {
                let player = mailbox_of(sheet.players.get(side))?;
                let body = self.keyed_body(secrets, sheet, side, news, comment);
                let mut reply = self.reply_to(mail, vec![player], body);
                reply.reply_to = Some(self.sub_address(&secrets.token(&id, side)));
                reply.subject = game_subject(sheet);
                Some(reply)
            })
            .collect()
    }

    /// Saves the record with these replies in its outbox, then answers with
    /// them; [`Referee::commit`] marks them sent.
    fn keep_and_answer(
        &self,
        store: &Store,
        record: &mut GameRecord,
        mail: &Incoming,
        replies: Vec<Outgoing>,
        summary: String,
        lock: GameLock,
    ) -> Answer {
        let message_id = mail
            .message_id
            .clone()
            .unwrap_or_else(|| format!("no-id-{}", store::now()));
        let stored = replies.iter().map(|r| to_stored(&message_id, r)).collect();
        record.remember(&message_id, stored, store::now());
        if let Err(e) = store.save(record) {
            return store_failure(&e);
        }
        Answer::Reply {
            mail: replies,
            summary,
            commit: Some(Commit {
                game: record.id.clone(),
                message_id,
                lock: Some(Arc::new(lock)),
            }),
        }
    }

    /// A start mail delivered again: its game's replies, if not yet sent.
    fn again(&self, store: &Store, id: &str, message_id: &str) -> Answer {
        let lock = match store.lock(id) {
            Ok(lock) => lock,
            Err(e) => return store_failure(&e),
        };
        match store.load(id) {
            Ok(Some(record)) if record.handled(message_id).is_some_and(|m| !m.sent) => {
                self.resend(&record, message_id, lock)
            }
            Ok(_) => Answer::Ignore(format!("already handled: {message_id} (game {id})")),
            Err(e) => store_failure(&e),
        }
    }

    /// The replies already decided for a mail delivered again.
    fn resend(&self, record: &GameRecord, message_id: &str, lock: GameLock) -> Answer {
        Answer::Reply {
            mail: queued(record, message_id),
            summary: format!("game {}: resending the replies to {message_id}", record.id),
            commit: Some(Commit {
                game: record.id.clone(),
                message_id: message_id.to_string(),
                lock: Some(Arc::new(lock)),
            }),
        }
    }

    /// Records that the replies of `commit` were sent.
    ///
    /// # Errors
    /// When the store cannot be written.
    pub fn commit(&self, commit: &Commit) -> Result<(), StoreError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        // The answer may still hold the game's lock; a second lock from the
        // same process would wait for ever.
        let _lock = match commit.lock {
            Some(_) => None,
            None => Some(store.lock(&commit.game)?),
        };
        let Some(mut record) = store.load(&commit.game)? else {
            return Err(StoreError::NoGame(commit.game.clone()));
        };
        record.mark_sent(&commit.message_id);
        store.save(&record)
    }

    /// `new RULESET with ADDRESS`: a stored game, and the start sheet to both.
    #[allow(clippy::too_many_arguments)]
    fn challenge(
        &self,
        store: &Store,
        secrets: &Secrets,
        mail: &Incoming,
        from: &Mailbox,
        ruleset: Ruleset,
        stones: Option<u8>,
        opponent: &str,
        side: Side,
    ) -> Answer {
        let rules = match stones
            .map(|n| ruleset.with_stones(n))
            .unwrap_or(Ok(ruleset.rules()))
        {
            Ok(rules) => rules,
            Err(e) => return self.refuse(mail, from, &Refusal::BadCommand(e.to_string()), None),
        };
        if self.is_own(opponent) || opponent.eq_ignore_ascii_case(&from.address) {
            return self.refuse(
                mail,
                from,
                &Refusal::BadCommand(format!("you cannot play against {opponent}")),
                None,
            );
        }
        let mut players = Players::default();
        *players.get_mut(side) = crate::sheet::Player {
            name: clean_name(&from.short_name()),
            address: Some(from.address.clone()),
        };
        let computer = (opponent == "computer").then_some(side.other());
        let opponent_box = Mailbox {
            name: None,
            address: opponent.to_string(),
        };
        *players.get_mut(side.other()) = match computer {
            Some(_) => crate::sheet::Player {
                name: "Computer".to_string(),
                address: None,
            },
            None => crate::sheet::Player {
                name: clean_name(&opponent_box.short_name()),
                address: Some(opponent.to_string()),
            },
        };
        let sheet = Sheet::new(rules, players);
        let news = format!(
            "{} challenges {} to {}.",
            clean_name(&from.short_name()),
            if computer.is_some() {
                "the computer"
            } else {
                opponent
            },
            ruleset.title()
        );
        self.start_stored(store, secrets, mail, sheet, news, computer)
    }

    /// Keeps a new game and mails both players its sheet with their keys.
    fn start_stored(
        &self,
        store: &Store,
        secrets: &Secrets,
        mail: &Incoming,
        mut sheet: Sheet,
        news: String,
        computer: Option<Side>,
    ) -> Answer {
        // The same mail delivered twice starts one game: starts are noted
        // by Message-ID, under a lock of their own.
        let starting = match store.lock("starts") {
            Ok(lock) => lock,
            Err(e) => return store_failure(&e),
        };
        if let Some(message_id) = &mail.message_id {
            match store.started_by(message_id) {
                Ok(Some(id)) => return self.again(store, &id, message_id),
                Ok(None) => {}
                Err(e) => return store_failure(&e),
            }
        }
        let id = match store.new_id() {
            Ok(id) => id,
            Err(e) => return store_failure(&e),
        };
        sheet.id = Some(id.clone());
        let lock = match store.lock(&id) {
            Ok(lock) => lock,
            Err(e) => return store_failure(&e),
        };
        if let Some(message_id) = &mail.message_id {
            if let Err(e) = store.note_start(message_id, &id) {
                return store_failure(&e);
            }
        }
        drop(starting);
        // Against the computer, it moves at once when it is its turn.
        let news = news + &computer_turns(&mut sheet, computer);
        let mut record = GameRecord::new(&id, &sheet, store::now());
        record.computer = computer.map(|side| side.as_str().to_string());
        let replies = self.to_both(secrets, mail, &sheet, &news, None);
        self.keep_and_answer(
            store,
            &mut record,
            mail,
            replies,
            format!("game {id} started: {news}"),
            lock,
        )
    }

    /// A mail with no valid key: a start sheet with its first move (as the
    /// broadcast asks) starts a stored game; anything else is told how.
    fn without_key(
        &self,
        store: &Store,
        secrets: &Secrets,
        mail: &Incoming,
        from: &Mailbox,
    ) -> Answer {
        let start = RawSheet::find(&mail.text)
            .ok()
            .and_then(|raw| {
                self.read_request(mail, &raw)
                    .ok()
                    .map(|request| (raw, request))
            })
            // A start sheet of a stored game (it has an id) starts nothing new.
            .filter(|(raw, request)| raw.id.is_none() && request.sheet.game.ply() == 0);
        let Some((_, request)) = start else {
            return self.refuse(mail, from, &Refusal::NoKey, None);
        };
        let mut sheet = request.sheet;
        let Some(side) = sheet.game.to_move() else {
            return self.refuse(mail, from, &Refusal::GameOver, None);
        };
        let player = sheet.players.get_mut(side);
        player.address = Some(from.address.clone());
        if is_placeholder(&player.name) {
            player.name = clean_name(&from.short_name());
        }
        self.seat_opponent(mail, from, &mut sheet, side);
        if sheet.players.get(side.other()).address.is_none() {
            return self.refuse(mail, from, &Refusal::NoOpponent, None);
        }
        let news = match play_turn(&mut sheet, side, &request.sowings) {
            Ok(news) => news,
            Err(refusal) => return self.refuse(mail, from, &refusal, Some(&sheet)),
        };
        self.start_stored(store, secrets, mail, sheet, news, None)
    }

    fn help(&self, mail: &Incoming, from: &Mailbox) -> Answer {
        let mut body = String::from(HELP);
        body.push('\n');
        body.push_str(&crate::guide::rules_text(None));
        body.push_str(SIGNATURE);
        Answer::Reply {
            mail: vec![self.reply_to(mail, vec![from.clone()], body)],
            summary: format!("help to {}", from.address),
            commit: None,
        }
    }

    /// The sender's games, without their keys (From alone proves nothing).
    fn games(&self, store: &Store, mail: &Incoming, from: &Mailbox) -> Answer {
        let games = match store.list() {
            Ok(games) => games,
            Err(e) => return store_failure(&e),
        };
        let mut body = String::new();
        for record in games.iter().filter(|r| r.has_player(&from.address)) {
            let _ = writeln!(body, "{}", record.summary());
        }
        if body.is_empty() {
            body.push_str("You have no games here. Start one with a line:\n    new super-wari with <address>\n");
        } else {
            body.insert_str(0, "Your games (South v North):\n\n");
        }
        body.push_str(SIGNATURE);
        Answer::Reply {
            mail: vec![self.reply_to(mail, vec![from.clone()], body)],
            summary: format!("games to {}", from.address),
            commit: None,
        }
    }
}

/// The computer's turns, when it is to move: the news of what it played.
fn computer_turns(sheet: &mut Sheet, computer: Option<Side>) -> String {
    let Some(side) = computer else {
        return String::new();
    };
    let opponent = Opponent::default_for(sheet.game.rules().ruleset);
    let mut rng = SplitMix64::new(store::now());
    let mut played = Vec::new();
    while sheet.game.to_move() == Some(side) {
        let Some(choice) = opponent.choose(&sheet.game, &mut rng) else {
            break;
        };
        sheet.game.play_unchecked(choice.pit);
        played.push(format!("{} ({})", choice.pit, choice.reason));
    }
    if played.is_empty() {
        String::new()
    } else {
        format!(
            " {} ({side}) played {}.",
            sheet.name(side),
            played.join(", then ")
        )
    }
}

/// `Super-Wari game k7q2mx: Alice v Bob`: the same for every mail of a game.
fn game_subject(sheet: &Sheet) -> String {
    format!(
        "{} game {}: {} v {}",
        sheet.game.rules().ruleset.title(),
        sheet.id.as_deref().unwrap_or("?"),
        sheet.name(Side::South),
        sheet.name(Side::North)
    )
}

fn to_stored(answers: &str, out: &Outgoing) -> StoredMail {
    StoredMail {
        answers: answers.to_string(),
        to: out
            .to
            .iter()
            .map(|m| store::PlayerRecord {
                name: m.name.clone().unwrap_or_default(),
                address: Some(m.address.clone()),
            })
            .collect(),
        reply_to: out.reply_to.clone(),
        subject: out.subject.clone(),
        body: out.body.clone(),
        in_reply_to: out.in_reply_to.clone(),
        references: out.references.clone(),
    }
}

/// The replies kept for the mail `message_id`, not yet sent.
fn queued(record: &GameRecord, message_id: &str) -> Vec<Outgoing> {
    record
        .outbox
        .iter()
        .filter(|m| m.answers == message_id)
        .map(from_stored)
        .collect()
}

fn from_stored(stored: &StoredMail) -> Outgoing {
    Outgoing {
        to: stored
            .to
            .iter()
            .filter_map(|p| {
                Some(Mailbox {
                    name: Some(p.name.clone()).filter(|n| !n.is_empty()),
                    address: p.address.clone()?,
                })
            })
            .collect(),
        reply_to: stored.reply_to.clone(),
        subject: stored.subject.clone(),
        body: stored.body.clone(),
        in_reply_to: stored.in_reply_to.clone(),
        references: stored.references.clone(),
    }
}

const HELP: &str = "\
The mancala referee keeps your games and mails both players the board
after every move. Write one command a line, in your own text:

    new RULESET [stones N] with ADDRESS [as south|north]
                  start a game (super-wari, wari, waurie or mankala);
                  with computer: play the referee itself
    move c        sow your pit c; a bonus sowing is written c-f
    board         the board of the game this mail is about, again
    resign        give the game up
    games         the games you play here
    help          this text

Moves are pit letters from your own left in sowing order. Reply to the
referee's last mail to you: its Reply-To address (and the key line in its
text) proves the move is yours.
";

#[cfg(test)]
mod tests {
    use super::*;

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
    fn commands_are_whole_lines() {
        let line = |l: &str| command_line(l).unwrap();
        assert_eq!(line("resign"), Some(Command::Resign));
        assert_eq!(line("  Board."), Some(Command::Board));
        assert_eq!(line("board looks great"), None);
        assert_eq!(line("new to this"), None);
        assert_eq!(
            line("new Wari stones 5 with <bob@players.example> as north"),
            Some(Command::New {
                ruleset: Ruleset::Wari,
                stones: Some(5),
                opponent: "bob@players.example".into(),
                side: Side::North
            })
        );
        assert!(command_line("new wari with").is_err());
        assert!(command_line("new wari with bob").is_err());
        assert!(matches!(
            command_line("new wari with computer"),
            Ok(Some(Command::New { .. }))
        ));
    }
}

/// What `remind` did to one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reminder {
    Nudged {
        game: String,
        player: String,
    },
    Forfeited {
        game: String,
        player: String,
    },
    /// A notice whose sending failed before, sent again.
    Resent {
        game: String,
    },
}

/// What the store notes a reminder's mails under, in place of a Message-ID.
const REMINDER: &str = "reminder-";

impl Referee {
    /// Nudges the player to move in every game idle for `nudge` seconds
    /// (once until they move), and forfeits those idle for `forfeit`. The
    /// store is updated before the mails are returned for sending.
    ///
    /// # Errors
    /// When the store cannot be read or written.
    pub fn remind(
        &self,
        now: u64,
        nudge: u64,
        forfeit: u64,
    ) -> Result<Vec<(Reminder, Vec<Outgoing>, Commit)>, StoreError> {
        let Some(store) = &self.store else {
            return Ok(Vec::new());
        };
        let secrets = store.secrets()?;
        let mut done = Vec::new();
        for listed in store.list()? {
            let _lock = store.lock(&listed.id)?;
            let Some(mut record) = store.load(&listed.id)? else {
                continue;
            };
            // A reminder or forfeit notice whose sending failed last time goes again.
            let unsent: Vec<String> = record
                .mails
                .iter()
                .filter(|m| !m.sent && m.message_id.starts_with(REMINDER))
                .map(|m| m.message_id.clone())
                .collect();
            for id in unsent {
                let mails = queued(&record, &id);
                let what = Reminder::Resent {
                    game: record.id.clone(),
                };
                done.push((what, mails, Commit::unlocked(&record.id, id)));
            }
            let Ok(mut sheet) = record.sheet() else {
                continue;
            };
            let Some(side) = sheet.game.to_move() else {
                continue;
            };
            let idle = now.saturating_sub(record.last_activity);
            let name = sheet.name(side).to_string();
            let days = idle / 86_400;
            let (what, mails) = if idle >= forfeit {
                sheet.game.forfeit(side);
                record.concede(side, EndReason::Forfeit, now);
                let news =
                    format!("{name} has not moved for {days} days, and so forfeits the game.");
                let what = Reminder::Forfeited {
                    game: record.id.clone(),
                    player: name,
                };
                (what, self.game_mails(&secrets, &sheet, &news, &Side::BOTH))
            } else if idle >= nudge && record.reminded.is_none() {
                record.reminded = Some(now);
                let news = format!("A reminder: it has been your move for {days} days.");
                let what = Reminder::Nudged {
                    game: record.id.clone(),
                    player: name,
                };
                (what, self.game_mails(&secrets, &sheet, &news, &[side]))
            } else {
                continue;
            };
            // Kept in the outbox until sent, as the answers to mails are.
            let id = format!("{REMINDER}{now}");
            let stored = mails.iter().map(|m| to_stored(&id, m)).collect();
            record.remember(&id, stored, now);
            store.save(&record)?;
            done.push((what, mails, Commit::unlocked(&record.id, id)));
        }
        Ok(done)
    }

    /// Mails about a game, not answering any mail: one to each of `sides`.
    fn game_mails(
        &self,
        secrets: &Secrets,
        sheet: &Sheet,
        news: &str,
        sides: &[Side],
    ) -> Vec<Outgoing> {
        let id = sheet.id.clone().unwrap_or_default();
        sides
            .iter()
            .filter_map(|&side| {
                Some(Outgoing {
                    to: vec![mailbox_of(sheet.players.get(side))?],
                    reply_to: Some(self.sub_address(&secrets.token(&id, side))),
                    subject: game_subject(sheet),
                    body: self.keyed_body(secrets, sheet, side, news, None),
                    in_reply_to: None,
                    references: Vec::new(),
                })
            })
            .collect()
    }
}
