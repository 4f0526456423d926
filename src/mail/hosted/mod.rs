//! The hosted referee: games kept in the store, players known by the keys
//! that only the referee's mails to them carry, commands by mail. Each
//! mail is one transaction under its game's lock: decide, save the new
//! state with the replies it owes in one write, send each reply, record
//! each as sent. A mail delivered again finds its event in the ledger and
//! resends only what did not go, under the same Message-IDs.

mod acts;
mod invite;
mod keyless;
mod questions;
mod remind;

pub use remind::{Reminder, Reminders, Skip};

use std::fmt::Write as _;

use super::command::Command;
use super::compose::{self, game_line, key_block, note, sheet_body_drawn, signature};
use super::delivery::{send_owed, DeliveryError, Transaction};
use super::html_part::Drawn;
use super::incoming::Mailbox;
use super::letter::Letter;
use super::outgoing::{mailbox_of, Outgoing};
use super::play::{makes_move, quoted_request, Writer};
use super::refusal::Refusal;
use super::transport::Postman;
use super::wrap;
use super::Identity;
use super::Report;
use crate::address::same_mailbox;
use crate::engine::Side;
use crate::hosted::{player_of, sheet_of, summary};
use crate::hosted::{Event, HostedGame};
use crate::store::{self, GameId, GameRecord, Owed, Secrets};
use crate::store::{SenderRecord, Standing, Store, StoreError};

/// The referee of games kept in a store.
#[derive(Debug)]
pub struct HostedReferee {
    pub identity: Identity,
    pub store: Store,
}

/// Answers a day to an address that plays no game here, and to one that does.
const STRANGER_ANSWERS: usize = 3;
const PLAYER_ANSWERS: usize = 10;

impl super::Referee for HostedReferee {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Handles one mail from end to end.
    ///
    /// # Errors
    /// When the store or a send failed in a way a later try may mend
    /// (exit 75): what was done is kept, and the retry finishes it.
    fn deliver(&self, letter: &Letter, postman: &dyn Postman) -> Result<Report, DeliveryError> {
        let from = match letter.sender(&self.identity) {
            Ok(from) => from.clone(),
            Err(why) => return Ok(Report::ignored(why)),
        };
        let mut report = self.store.transact(|| self.decide(letter, &from))?;
        send_owed(
            &self.store,
            Owed::Caused(&letter.identity),
            postman,
            &mut report,
        )?;
        Ok(report)
    }
}

impl HostedReferee {
    /// One mail's whole decision, in the store's transaction: what it
    /// changes, and the replies it owes.
    fn decide(&self, letter: &Letter, from: &Mailbox) -> Result<Report, DeliveryError> {
        let secrets = self.store.secrets();
        if let Some(limit) = letter.too_large {
            // Told within the sender's daily answers, as a stranger is.
            let refusal = Refusal::TooLarge(limit);
            return self.refuse_keyless(secrets, letter, from, &refusal);
        }
        let (naming, listed) = letter.keys.split_at(letter.naming_keys);
        let verified = naming.iter().find_map(|token| secrets.check(token));
        let mut games: Vec<(GameId, Side)> = Vec::new();
        for game in listed.iter().filter_map(|token| secrets.check(token)) {
            if !games.iter().any(|(id, _)| *id == game.0) {
                games.push(game);
            }
        }
        let keyed = verified.or(match games.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        });
        // The game a key names, loaded once for all that follows.
        let Some((id, side)) = keyed else {
            return match games.as_slice() {
                // A `games` answer quoted, and a move: which game is not ours to pick.
                [_, _, ..] if about_one_game(letter) => {
                    let ids: Vec<&str> = games.iter().map(|(id, _)| id.as_str()).collect();
                    let refusal = Refusal::SeveralGames(ids.join(", "));
                    self.refuse_keyless(secrets, letter, from, &refusal)
                }
                _ => self.keyless(secrets, letter, from),
            };
        };
        let record = self.store.load_game(&id)?;
        // The owner's key is mailed to the owner alone: in another's mail
        // (a copy forwarded, quoted) it is the owner's to act on, not theirs.
        let owners = record.as_ref().is_some_and(|r| self.owner_invited(r, side));
        if owners && !self.identity.is_own(&from.address) {
            return Ok(Report::ignored("the owner's key, in another's mail"));
        }
        self.in_game(secrets, letter, from, (id, side), record)
    }
}

/// Does the mail ask anything of one game: a move (on a line, garbled or
/// not, or on a sheet it quotes), an offer or answer, its board? (`games`,
/// `history`, `ratings`, help and `new` are no game's.)
fn about_one_game(letter: &Letter) -> bool {
    let general = |c: &Command| {
        matches!(
            c,
            Command::Games
                | Command::History
                | Command::Ratings(_)
                | Command::Help
                | Command::HelpRules(_)
                | Command::New { .. }
        )
    };
    makes_move(letter, None)
        || crate::sheet::RawSheet::find(&letter.mail.text)
            .is_ok_and(|raw| !raw.awaits && !raw.result_shown)
        || letter
            .commands
            .as_ref()
            .is_ok_and(|commands| !commands.iter().all(general))
}

impl HostedReferee {
    pub fn new(address: &str, store: Store) -> HostedReferee {
        HostedReferee {
            identity: Identity::new(address),
            store,
        }
    }

    /// The referee on its owner's own mailbox (`mail --owner`): the owner
    /// holds a seat in every game, which a player starts by replying to
    /// the owner's broadcast with its board and their first move; mail
    /// about no game of theirs is left alone.
    pub fn for_owner(owner: &Mailbox, store: Store) -> HostedReferee {
        HostedReferee {
            identity: Identity::owner(owner),
            store,
        }
    }

    /// Is `side` of this game the owner, whose broadcast invited everyone?
    fn owner_invited(&self, record: &GameRecord, side: Side) -> bool {
        let address = record.player(side).address.as_deref();
        self.identity.owner && address.is_some_and(|a| self.identity.is_own(a))
    }

    /// On the owner's mailbox, what goes to the other player alone (a
    /// refusal, an answer) is copied to the owner, so the owner's inbox
    /// tells all that happened in their games.
    fn with_owner_copies(&self, replies: Vec<Outgoing>) -> Vec<Outgoing> {
        let Some(owner) = self.identity.owner_mailbox() else {
            return replies;
        };
        if replies.iter().any(|r| self.identity.is_own(&r.to.address)) {
            return replies;
        }
        let copies: Vec<Outgoing> = (replies.iter())
            .map(|r| Outgoing {
                message_id: format!("copy.{}", r.message_id),
                to: owner.clone(),
                reply_to: None,
                subject: format!("Copy: {}", r.subject),
                body: format!(
                    "Your referee answered {} <{}>:\n\n{}",
                    r.to.short_name(),
                    r.to.address,
                    r.body
                ),
                html: None,
                ..r.clone()
            })
            .collect();
        replies.into_iter().chain(copies).collect()
    }

    /// `id.event.recipient@domain`: what a reply answers and whom it is for.
    fn message_id(&self, scope: &str, event: u32, to: &str) -> String {
        format!("{scope}.{event}.{to}@{}", self.identity.domain())
    }

    /// The transaction on the keyless record of `address`.
    fn sender(
        &self,
        secrets: &Secrets,
        address: &str,
    ) -> Result<Transaction<'_, SenderRecord>, StoreError> {
        let record = self.store.load_sender(&secrets.address_digest(address))?;
        Ok(Transaction::new(&self.store, record))
    }

    /// A mail with a valid key for `side` of game `id`.
    fn in_game(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        from: &Mailbox,
        (id, side): (GameId, Side),
        record: Option<GameRecord>,
    ) -> Result<Report, DeliveryError> {
        if letter.new_game().is_some() && letter.move_lines.is_empty() {
            // A new game from a keyed mail: the key vouches for the sender.
            if let Some(inviter) = (record.as_ref()).and_then(|r| mailbox_of(&player_of(r, side))) {
                return self.propose_new(secrets, letter, &inviter, true);
            }
        }
        let Some(record) = record else {
            return self.refuse_keyless(secrets, letter, from, &Refusal::NoGame(id.to_string()));
        };
        let hosted = HostedGame::new(record).map_err(|e| corrupt(&self.store, &id, e))?;
        let mut game = Transaction::new(&self.store, hosted);
        let mut report = Report::about(&id, "");
        if game.handled_before(&letter.identity, &mut report)? {
            return Ok(report);
        }
        let invited = game.record.record().is_invited();
        let mut scene = Scene::new(self, secrets, &id, &mut game, Some(letter));
        scene.game.key_shown(side);
        let decision = scene.decide(letter, from, side)?;
        let summary = scene.summary(&decision.did);
        let answered = invited && !game.record.record().is_invited();
        let (replies, sender) =
            self.gate_unconfirmed(secrets, game.record.record(), decision.replies, answered)?;
        let replies = self.with_owner_copies(replies);
        game.commit(&letter.identity, replies)?;
        if let Some(sender) = &sender {
            sender.save()?;
        }
        report.summary = summary;
        Ok(report)
    }

    /// Mails to an inviter who has not shown their key count against that
    /// address's daily answers (anyone can invite in anyone's name), and
    /// those over the count are not sent. The news that the invitation was
    /// `answered` (accepted or declined) has a count twice as large:
    /// without it a game would wait on a player who does not know it
    /// began, and an address still gets at most that many a day, however
    /// many invitations were made in its name. Returns the mails to send,
    /// and the sender's transaction, to save once the game is saved.
    fn gate_unconfirmed(
        &self,
        secrets: &Secrets,
        record: &GameRecord,
        replies: Vec<Outgoing>,
        answered: bool,
    ) -> Result<(Vec<Outgoing>, Option<Transaction<'_, SenderRecord>>), StoreError> {
        let inviter = record.player(record.inviter).address.clone();
        let Some(inviter) = inviter.filter(|_| !record.inviter_confirmed) else {
            return Ok((replies, None));
        };
        if !replies
            .iter()
            .any(|r| same_mailbox(&r.to.address, &inviter))
        {
            return Ok((replies, None));
        }
        let mut sender = self.sender(secrets, &inviter)?;
        let now = store::now();
        let count = if answered {
            2 * STRANGER_ANSWERS
        } else {
            STRANGER_ANSWERS
        };
        let kept = replies
            .into_iter()
            .filter(|r| {
                if !same_mailbox(&r.to.address, &inviter) {
                    return true;
                }
                let room = sender.record.answers_today(now) < count;
                if room {
                    sender.record.count_answer(now);
                }
                room
            })
            .collect();
        Ok((kept, Some(sender)))
    }
}

/// A game's record whose turns the rules refuse: for the operator.
fn corrupt(store: &Store, id: &GameId, error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        store: store.location(),
        what: format!("game {id}"),
        error: error.to_string(),
    }
}

/// What a mail decided: the replies it owes, and what it did.
struct Decision {
    replies: Vec<Outgoing>,
    did: Did,
}

/// What a mail did, for the log (worded by [`Scene::summary`]).
enum Did {
    /// The game's events: the news to both players, notes to one.
    Acted(Vec<Event>),
    /// Words for the opponent from `side`, and no act.
    Chat(Side),
    /// Only conditional moves kept: their writer alone is told.
    ConditionsKept,
    /// Nothing done, for this reason.
    Refused(Refusal),
    /// The board, as asked.
    Board,
    /// This many questions answered, and nothing done.
    Answered(usize),
    /// A new game's invitation, sent by this address.
    Invited(String),
    /// `side` challenged the computer, which played these first turns.
    Challenged(Side, Vec<Event>),
}

impl Decision {
    /// `replies` for what a mail `did`.
    fn new(replies: impl IntoIterator<Item = Outgoing>, did: Did) -> Decision {
        Decision {
            replies: replies.into_iter().collect(),
            did,
        }
    }
}

/// One game's answer being made: the replies of one event.
struct Scene<'a> {
    referee: &'a HostedReferee,
    secrets: &'a Secrets,
    /// The game, from which each mail's sheet is drawn.
    game: &'a mut HostedGame,
    id: GameId,
    event: u32,
    letter: Option<&'a Letter>,
    /// What each side's mail says besides the news (South's first): the
    /// answers to the writer's questions, notes on their conditional moves.
    notes: [Vec<String>; 2],
    /// The writer's questions, answered once the mail's acts are done.
    questions: Vec<Command>,
}

impl<'a> Scene<'a> {
    /// The scene of the mail (or the clock, when `letter` is `None`) at
    /// `game`'s next event.
    fn new(
        referee: &'a HostedReferee,
        secrets: &'a Secrets,
        id: &GameId,
        game: &'a mut Transaction<'_, HostedGame>,
        letter: Option<&'a Letter>,
    ) -> Scene<'a> {
        let event = game.event();
        Scene {
            referee,
            secrets,
            game: &mut game.record,
            id: id.clone(),
            event,
            letter,
            notes: Default::default(),
            questions: Vec::new(),
        }
    }
}

impl Scene<'_> {
    /// A mail to `side` with `body` above its key: to their registered
    /// address, whoever wrote.
    fn mail(&self, side: Side, body: String) -> Option<Outgoing> {
        self.mail_drawn(side, body, &Drawn::new(&self.game.sheet()))
    }

    /// As [`Scene::mail`], with the scene's sheet already drawn.
    fn mail_drawn(&self, side: Side, body: String, drawn: &Drawn) -> Option<Outgoing> {
        let to = mailbox_of(&player_of(self.game.record(), side))?;
        let token = self.secrets.token(&self.id, side);
        // The subject is the first line: what happened, what is awaited.
        let subject = compose::subject_of(&body);
        let mut body = body;
        // An offer told in an earlier mail is recalled in each one after.
        if let Some(offer) = self.game.offer_to(side).filter(|o| o.event != self.event) {
            let stands = format!(
                "{}'s {} stands: answer it with a line  accept  or  decline.",
                self.game.name(offer.by),
                super::refusal::offered(offer.kind)
            );
            let _ = writeln!(body, "\n{}", wrap::fill(&stands));
        }
        for note in &self.notes[side.index()] {
            body.push('\n');
            body.push_str(&wrap::fill(note.trim_end()));
            body.push('\n');
        }
        // A finished game's mail says no more about keys and moves.
        let body = if self.game.game().is_over() {
            body + "\nThe game turn by turn, under perfect play: reply with a line  analysis\n"
                + &signature()
        } else {
            body + &key_block(self.id.as_str(), &token, self.commands_for(side)) + &signature()
        };
        let message_id = self
            .referee
            .message_id(self.id.as_str(), self.event, side.as_str());
        let out = match self.letter {
            Some(letter) => Outgoing::reply(letter, message_id, to, body),
            None => Outgoing::notice(message_id, to, subject.clone(), body),
        };
        Some(
            out.with_reply_to(Some(self.referee.identity.sub_address(&token)))
                .with_subject(subject)
                .with_html_drawn(Some(drawn)),
        )
    }

    /// The commands that work for `side` in this game as it stands, for
    /// the footer of their mail.
    fn commands_for(&self, side: Side) -> &'static str {
        let record = self.game.record();
        match record.standing {
            Standing::Invited { invitee } if invitee == side => "accept, decline, board",
            Standing::Invited { .. } => "withdraw, board, games",
            Standing::Declined | Standing::Withdrawn => "games",
            Standing::Playing if record.computer.is_some() => "move <pit>, board, resign",
            Standing::Playing => "move <pit>, board, offer draw, resign",
        }
    }

    /// The board to `side`, under `first` (and `said`, the referee's words).
    fn board(&self, side: Side, first: &str, said: Option<&str>) -> Option<Outgoing> {
        let sheet = self.game.sheet();
        self.board_drawn(side, first, said, None, &Drawn::new(&sheet))
    }

    /// As [`Scene::board`], with the scene's sheet already drawn.
    fn board_drawn(
        &self,
        side: Side,
        first: &str,
        said: Option<&str>,
        comment: Option<(&str, &[String])>,
        drawn: &Drawn,
    ) -> Option<Outgoing> {
        let sheet = drawn.sheet;
        let mut top = game_line(sheet, first);
        if let Some(said) = said {
            top.push_str("\n\n");
            top.push_str(note(said).trim_end());
        }
        // Before the invitee accepts, the inviter has no move to make; in
        // a game never started, nobody has.
        let waiting = match self.game.record().standing {
            Standing::Invited { invitee } if invitee != side => Some(format!(
                "The game starts when {} accepts; you will get the board then.",
                self.game.name(invitee)
            )),
            Standing::Declined | Standing::Withdrawn => Some(
                "This game will not be played; a line  new GAME with ADDRESS  starts another."
                    .to_string(),
            ),
            _ => None,
        };
        let next = match &waiting {
            Some(waiting) => compose::Next::Say(waiting),
            None => compose::next_for(sheet, side),
        };
        self.mail_drawn(side, sheet_body_drawn(&top, comment, drawn, next), drawn)
    }

    /// The news to both players (`news` as each reader is told it), each
    /// with their own key, each headed with what is awaited of them ("your
    /// move", "Alice to move") or, at the end, the result.
    fn both(
        &self,
        news: impl Fn(Side) -> String,
        comment: Option<(&str, &[String])>,
    ) -> Vec<Outgoing> {
        // One drawing of the sheet for both mails.
        let sheet = self.game.sheet();
        let drawn = Drawn::new(&sheet);
        Side::BOTH
            .iter()
            .filter_map(|&side| {
                let news = news(side);
                // At the end the result leads, and the news follows it.
                let said = self.game.game().is_over().then(|| news.trim().to_string());
                let first = compose::headline(&sheet, &news, side);
                self.board_drawn(side, &first, said.as_deref(), comment, &drawn)
            })
            .collect()
    }

    /// A refusal to `side`: what is wrong, and the board as it stands.
    fn refuse(&self, side: Side, refusal: &Refusal, from_note: &str) -> Decision {
        let said = format!("{from_note}{refusal}");
        let headline = match refusal.refuses_a_move() {
            true => "your mail was read, but no move was played:",
            false => "your mail was read, but nothing in it was done:",
        };
        let mail = self.board(side, headline, Some(&said));
        Decision::new(mail, Did::Refused(refusal.clone()))
    }

    /// Decides what a keyed mail does to its game. Its questions are
    /// answered in the order asked, its acts (offers and their answers, a
    /// takeback, the move and its `if` lines, a resignation) done in the
    /// order written; all in one reply to each player.
    ///
    /// # Errors
    /// When the store cannot answer a question: the operator's to mend,
    /// never answered as if the writer had no games.
    fn decide(
        &mut self,
        letter: &Letter,
        from: &Mailbox,
        side: Side,
    ) -> Result<Decision, StoreError> {
        // The answer goes to the key's owner; if someone else wrote, say so.
        let from_note = match &self.game.record().player(side).address {
            Some(registered) if !same_mailbox(registered, &from.address) => format!(
                "(This mail came from {}, not from your address here; the answer goes to {registered}.) ",
                from.address
            ),
            _ => String::new(),
        };
        let commands = match &letter.commands {
            Ok(commands) => commands.clone(),
            Err(refusal) => return Ok(self.refuse(side, refusal, &from_note)),
        };
        let has = |c: &Command| commands.contains(c);
        if commands.iter().any(|c| matches!(c, Command::New { .. })) {
            return Ok(self.refuse(side, &Refusal::NewAndMove, &from_note));
        }
        let questions: Vec<Command> = commands
            .iter()
            .filter(|c| c.asks_for_an_answer())
            .cloned()
            .collect();
        let acts: Vec<Command> = commands
            .iter()
            .filter(|c| !c.is_question())
            .cloned()
            .collect();
        let wants_board = has(&Command::Board(None)) && letter.move_lines.is_empty();
        // The quoted sheet read once: it replays the pasted game.
        let played = self.game.game().sowings();
        let quoted = quoted_request(letter, Writer { side, played });
        // A move written on another game's sheet is that game's, though the
        // key is this one's (a move line is the key's game's, whatever is quoted).
        if let (Some(Ok(request)), true) = (&quoted, letter.move_lines.is_empty()) {
            let this = self.game.record().id.as_str();
            if let Some(other) = request.sheet.id.as_deref().filter(|id| *id != this) {
                let refusal = Refusal::OtherGame {
                    quoted: other.to_string(),
                    this: this.to_string(),
                };
                return Ok(self.refuse(side, &refusal, &from_note));
            }
        }
        let moves = makes_move(letter, quoted.as_ref());
        if !questions.is_empty()
            && acts.is_empty()
            && !wants_board
            && !moves
            && letter.comment.is_empty()
        {
            return self.questions_only(side, &questions, &commands);
        }
        // Answered after the acts, on the game as they leave it.
        self.questions = questions;
        let (standing, inviter) = (self.game.record().standing, self.game.record().inviter);
        match standing {
            Standing::Declined => {
                self.note_answers(side)?;
                let name = self.game.name(inviter.other()).to_string();
                return Ok(self.refuse(side, &Refusal::Declined { name }, &from_note));
            }
            Standing::Withdrawn => {
                self.note_answers(side)?;
                let name = self.game.name(inviter).to_string();
                return Ok(self.refuse(side, &Refusal::Withdrawn { name }, &from_note));
            }
            Standing::Invited { invitee }
                if side != invitee && acts.contains(&Command::Withdraw) =>
            {
                let withdrawn = self.game.withdraw_invitation(side, crate::store::now());
                self.note_answers(side)?;
                return Ok(match withdrawn {
                    Ok(event) => self.declined(event),
                    Err(refusal) => self.refuse(side, &self.refusal(refusal), &from_note),
                });
            }
            Standing::Invited { invitee } if side != invitee => {
                self.note_answers(side)?;
                let name = self.game.name(invitee).to_string();
                let refusal = Refusal::NotAccepted { name };
                if wants_board {
                    return Ok(self.board_asked(side, Some(&refusal.to_string())));
                }
                return Ok(self.refuse(side, &refusal, &from_note));
            }
            Standing::Invited { .. } => {
                return self.invitee_answers(letter, from, side, acts, quoted.as_ref(), &from_note);
            }
            Standing::Playing => {}
        }
        if wants_board && acts.is_empty() {
            self.note_answers(side)?;
            return Ok(self.board_asked(side, (!from_note.is_empty()).then_some(from_note.trim())));
        }
        self.act(letter, side, acts, quoted.as_ref(), &from_note)
    }

    /// The board to `side` alone, as they asked, with what `said`.
    fn board_asked(&self, side: Side, said: Option<&str>) -> Decision {
        let mail = self.board(side, &self.awaited(side, "the board, as you asked."), said);
        Decision::new(mail, Did::Board)
    }

    /// An answer's `title` after whose move it is while the game is played
    /// (`your move — help, as you asked.`): what every mail of the game
    /// says first, so a subject shows it too.
    fn awaited(&self, side: Side, title: &str) -> String {
        let sheet = self.game.sheet();
        match (self.game.record().standing, sheet.game.to_move()) {
            (Standing::Playing, Some(_)) => compose::headline(&sheet, title, side),
            _ => title.to_string(),
        }
    }

    /// Questions alone: one mail to the asker, the game untouched.
    fn questions_only(
        &self,
        side: Side,
        questions: &[Command],
        commands: &[Command],
    ) -> Result<Decision, StoreError> {
        let answers = self.answers(side, questions)?;
        // Questions alone: one mail to the asker, the game untouched.
        let title = match answers.as_slice() {
            [(title, _)] => title.clone(),
            _ => "your questions answered, in the order asked.".to_string(),
        };
        let mut body = game_line(&self.game.sheet(), &self.awaited(side, &title));
        for (i, (title, text)) in answers.iter().enumerate() {
            if answers.len() > 1 {
                let heading = format!("{}. {}", i + 1, compose::heading(title));
                let _ = write!(body, "\n\n{}", wrap::fill(&heading));
            }
            let _ = write!(body, "\n\n{}", wrap::fill(text.trim_end()));
        }
        body.push('\n');
        let drawn = |c: &Command| matches!(c, Command::Board(_) | Command::Preview(_));
        if commands.iter().any(drawn) {
            // Beside an old or imagined board, the real one, to reply to.
            let _ = write!(body, "\nThe game as it stands:\n\n{}", self.game.sheet());
        }
        let did = Did::Answered(answers.len());
        Ok(Decision::new(self.mail(side, body), did))
    }
}

/// The commands, and the rules of `ruleset` in short (or a line about
/// each game): a mail that fits a window. `help rules RULESET` has the rest.
/// The games and their variants are listed from the rulesets' table.
pub fn help_text(ruleset: Option<crate::engine::Ruleset>) -> String {
    let games: Vec<String> = crate::engine::Ruleset::ALL
        .iter()
        .map(|r| match r.spec().variants {
            [] => r.as_str().to_string(),
            _ => format!("{r} (variants {})", r.variant_names()),
        })
        .collect();
    let games = wrap::fill(&format!("The games: {}.", games.join(", ")));
    match ruleset {
        Some(r) => format!(
            "{HELP}\n{games}\n\n{} in short:\n{}\nThe full rules, clarifications and all: a line  help rules {}\n",
            r.title(),
            crate::guide::summary(r),
            r.as_str()
        ),
        None => format!("{HELP}\n{games}\nTheir rules: a line  help rules GAME\n"),
    }
}

/// The help for one game's mail: as [`help_text`], and the variant the
/// game is played as, if any.
pub fn game_help_text(rules: &crate::engine::Rules) -> String {
    let mut text = help_text(Some(rules.ruleset));
    if let Some(variant) = rules.variant() {
        let line = format!(
            "This game is played as the variant {}: {}.",
            variant.name, variant.summary
        );
        text.push_str(&wrap::fill(&line));
        text.push('\n');
    }
    text
}

const HELP: &str = "\
The mancala referee keeps your games and mails both players the board
after every move. Write one command a line, in your own text:

  new GAME [stones N] [variant V] with ADDRESS [as south|north]
                        invite someone (with computer: play the referee)
  accept / decline      answer an invitation, a draw offer or a takeback
  withdraw              take back your invitation before it is answered
  move c                sow your pit c; a bonus sowing is written c-f
  if e then d           with your move: if the reply is e, play d
  offer draw            propose a draw (your opponent's move declines)
  takeback              ask to undo your last turn, before the reply
  resign                give the game up
  board / board 12      the board now, or after line 12 of the log
  preview c e-b d       the board after these turns; nothing is played
  games / history       your games under way, with keys; your results
  ratings [GAME]        the players' ratings, best first
  analysis              the game under perfect play, once it is over
  help / help rules GAME   this text; a game's full rules
  (words with no command go to your opponent)

Commands run in order, answered in one reply; pits are letters from
your own left. Reply to a game's mail: its Reply-To proves it is yours.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_fits_a_mail_window() {
        for ruleset in crate::engine::Ruleset::ALL
            .map(Some)
            .into_iter()
            .chain([None])
        {
            let text = help_text(ruleset);
            assert!(
                text.lines().count() <= 40,
                "{ruleset:?}: {} lines",
                text.lines().count()
            );
            assert!(text.lines().all(|l| l.chars().count() < 78), "{ruleset:?}");
            for command in [
                "new ",
                "accept",
                "decline",
                "move ",
                "if ",
                "offer draw",
                "takeback",
                "resign",
                "board",
                "preview",
                "games",
                "history",
                "ratings",
                "analysis",
                "help",
                "help rules",
            ] {
                assert!(text.contains(command), "{ruleset:?}: {command}");
            }
        }
    }
}
