//! Mail without a valid key: a new game proposed, or an answer to the
//! sender kept in their own ledger: their boards and keys if they play
//! here, else a few lines at most a few times a day (From is forgeable,
//! so the referee must not be a way to flood a stranger).

use std::fmt::Write as _;

use super::{HostedReferee, PLAYER_ANSWERS, STRANGER_ANSWERS};
use crate::mail::command::Command;
use crate::mail::compose::{self, note, signature};
use crate::mail::delivery::{DeliveryError, Transaction};
use crate::mail::incoming::Mailbox;
use crate::mail::letter::Letter;
use crate::mail::outgoing::Outgoing;
use crate::mail::play::{makes_move, play_turn, read_request};
use crate::mail::refusal::Refusal;
use crate::mail::sheet_referee::seat_players;
use crate::mail::Report;
use crate::sheet::RawSheet;
use crate::store::{self, GameRecord, Ledgered, Secrets, SenderRecord, StoreError};

/// The answer to a keyless mail that asks for a game's rules or help,
/// else (its sender plays no game here) why nothing was done: the game
/// it invites to that is not here (`unknown`), or the key it lacks.
fn keyless_answer(letter: &Letter, unknown: Option<crate::engine::RulesError>) -> String {
    if let Some(ruleset) = letter.rules_asked() {
        return format!(
            "{} the rules of {}, as you asked.\n\n{}",
            compose::REFEREE_LINE,
            ruleset.title(),
            crate::guide::ruleset_text(ruleset)
        );
    }
    if letter.has(&Command::Help) {
        return format!(
            "{} help, as you asked.\n\n{}",
            compose::REFEREE_LINE,
            super::help_text(None)
        );
    }
    format!(
        "{} your mail was read, but nothing was done:\n\n{}",
        compose::REFEREE_LINE,
        note(&unknown.map_or_else(|| Refusal::NoKey.to_string(), |e| e.to_string()))
    )
}

/// An invitation in the mail to a game the referee does not have.
fn unknown_game(letter: &Letter) -> Option<crate::engine::RulesError> {
    letter
        .own
        .iter()
        .find_map(|(_, line)| crate::mail::command::unknown_game(line))
}

impl HostedReferee {
    pub(super) fn keyless(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        from: &Mailbox,
    ) -> Result<Report, DeliveryError> {
        // On the owner's mailbox only a reply to the broadcast (its board
        // with a first move) is refereed without a key, and not the owner's
        // own: the rest is the owner's mail.
        if self.identity.owner {
            return match self.start_sheet(letter, from) {
                _ if self.identity.is_own(&from.address) => {
                    Ok(Report::ignored("the owner's own mail, about no game"))
                }
                Some(Ok((sheet, news))) => self.propose_sheet(secrets, letter, from, sheet, news),
                Some(Err(refusal)) => self.refuse_keyless(secrets, letter, from, &refusal),
                None => Ok(Report::ignored("no game of the owner's")),
            };
        }
        if letter.new_game().is_some() {
            return self.propose_new(secrets, letter, from, false);
        }
        if let Err(refusal) = &letter.commands {
            return self.refuse_keyless(secrets, letter, from, refusal);
        }
        if let Some(start) = self.start_sheet(letter, from) {
            return match start {
                Ok((sheet, news)) => self.propose_sheet(secrets, letter, from, sheet, news),
                Err(refusal) => self.refuse_keyless(secrets, letter, from, &refusal),
            };
        }
        // The sender's daily answers before any game is read: a flood of
        // mails in a stranger's name costs their sender file, not the store.
        if let Some(report) = self.spent_sender(secrets, letter, from)? {
            return Ok(report);
        }
        // Their games read once for all this answer needs (an error is the
        // operator's, never read as "a stranger").
        let games = self.store.games_of(&from.address)?.whole()?;
        let games: &[GameRecord] = &games;
        // A player is answered at their address as registered, however the
        // From spelt it.
        let registered = registered_in(games, &from.address);
        let from = registered.as_ref().unwrap_or(from);
        let help = letter.has(&Command::Help);
        let only_game = self.only_game_key(secrets, games, &from.address);
        // Their boards and keys go to their own address, so a forger gains
        // nothing; how many a day depends on whether they have shown a key.
        let plays_here = registered.is_some();
        let unknown = unknown_game(letter);
        let reply_to = only_game.filter(|_| plays_here && !help);
        let body = if plays_here && !help && letter.rules_asked().is_none() && unknown.is_none() {
            self.player_answer(secrets, letter, games, &from.address)?
        } else {
            keyless_answer(letter, unknown)
        };
        let answer = (body, reply_to);
        let counted_as_player = plays_in(games, &from.address);
        self.answer_sender(secrets, letter, from, Some(counted_as_player), answer)
    }

    /// A player's mail without a key: the answers to its questions about
    /// them (`games`, `history`, `ratings`); anything else in it moved
    /// nothing, and they are told so, with their games and keys.
    fn player_answer(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        games: &[GameRecord],
        address: &str,
    ) -> Result<String, StoreError> {
        let commands = letter.commands.as_deref().unwrap_or_default();
        let mut answers = Vec::new();
        for question in commands {
            answers.extend(self.about_player(secrets, question, games, address, None)?);
        }
        let asked_only = answers.len() == commands.len()
            && !makes_move(letter, None)
            && letter.comment.is_empty();
        let mut body = compose::REFEREE_LINE.to_string();
        if answers.is_empty() || !asked_only {
            body.push_str(" this mail carries no game key, so it moved nothing.");
        }
        if answers.is_empty() {
            let games_text = self.games_text(secrets, games, address);
            let _ = write!(body, "\n\n{}", games_text.trim_end());
        }
        for (title, text) in answers {
            let _ = write!(
                body,
                "\n\n{}\n\n{}",
                compose::heading(&title),
                text.trim_end()
            );
        }
        body.push('\n');
        Ok(body)
    }

    /// The Reply-To of a player's one game still going, if they have one only.
    fn only_game_key(
        &self,
        secrets: &Secrets,
        games: &[GameRecord],
        address: &str,
    ) -> Option<String> {
        let mut going = games.iter().filter_map(|g| {
            let side = g.side_of(address)?;
            let over = g.game().map_or(true, |game| game.is_over());
            (g.is_playing() && !over).then(|| secrets.token(&g.id, side))
        });
        let first = going.next()?;
        going
            .next()
            .is_none()
            .then(|| self.identity.sub_address(&first))
    }

    /// A start sheet (no id, no move yet) with its first move written: the
    /// broadcast's way to begin. `None` if the mail holds no start sheet.
    fn start_sheet(
        &self,
        letter: &Letter,
        from: &Mailbox,
    ) -> Option<Result<(crate::sheet::Sheet, String), Refusal>> {
        let raw = RawSheet::find(&letter.mail.text).ok()?;
        if raw.id.is_some() {
            return None; // a stored game's sheet starts nothing new
        }
        let request = read_request(letter, &raw, None).ok()?;
        if request.sheet.game.ply() != 0 {
            // (A later board without a key moves nothing; on the owner's
            // mailbox its writer is told how a game starts.)
            let owners = self.identity.owner && letter.writes_a_move();
            return owners.then_some(Err(Refusal::NotFromTheStart));
        }
        let mut sheet = request.sheet;
        let side = sheet.game.to_move()?;
        if let Some(owner) = self.identity.owner_mailbox() {
            // On the owner's mailbox a game is the sender's against the
            // owner, from the broadcast's board: never a seat the sheet
            // gives some other address, never a position set up by hand.
            if !sheet.game.start().is_start() {
                return Some(Err(Refusal::NotFromTheStart));
            }
            sheet.players.get_mut(side.other()).address = Some(owner.address);
        }
        seat_players(&self.identity, letter, from, &mut sheet, side);
        if sheet.players.get(side.other()).address.is_none() {
            return Some(Err(Refusal::NoOpponent));
        }
        Some(play_turn(&mut sheet, side, &request.sowings).map(|news| (sheet, news)))
    }

    /// A refusal to a sender without a key, within their daily answers.
    pub(super) fn refuse_keyless(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        from: &Mailbox,
        refusal: &Refusal,
    ) -> Result<Report, DeliveryError> {
        let body = format!(
            "{} your mail was read, but nothing was done:\n\n{}",
            compose::REFEREE_LINE,
            note(&refusal.to_string())
        );
        self.answer_sender(secrets, letter, from, None, (body, None))
    }

    /// One answer (body, Reply-To) to `to`, kept in their ledger until
    /// sent, if they have answers left today (more if `plays_here`; read
    /// from their games if `None`).
    fn answer_sender(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        to: &Mailbox,
        plays_here: Option<bool>,
        (body, reply_to): (String, Option<String>),
    ) -> Result<Report, DeliveryError> {
        let mut sender = self.sender(secrets, &to.address)?;
        let plays_here = match plays_here {
            Some(plays_here) => plays_here,
            None => self.counts_as_player(&sender.record, &to.address)?,
        };
        match self.sender_gate(&mut sender, letter, plays_here, true)? {
            Some(report) => Ok(report),
            None => {
                let body = noting_last_answer(body, &sender.record, plays_here);
                self.reply_to_sender(sender, letter, to, body, reply_to)
            }
        }
    }

    /// Does `address` (whose record is `sender`) count as a player here
    /// for its daily answers? Its games are read only when that decides:
    /// under a stranger's answers or over a player's, it does not.
    ///
    /// # Errors
    /// When its games cannot be read: the operator's to mend.
    pub(super) fn counts_as_player(
        &self,
        sender: &SenderRecord,
        address: &str,
    ) -> Result<bool, StoreError> {
        let today = sender.answers_today(store::now());
        if !(STRANGER_ANSWERS..PLAYER_ANSWERS).contains(&today) {
            return Ok(false);
        }
        let games = self.store.games_of(address)?.whole()?;
        Ok(plays_in(&games, address))
    }

    /// A mail from a sender who had even a player's answers today, or
    /// handled before: settled from their record alone. `None`: go on.
    fn spent_sender(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        from: &Mailbox,
    ) -> Result<Option<Report>, DeliveryError> {
        let mut sender = self.sender(secrets, &from.address)?;
        let spent = sender.record.answers_today(store::now()) >= PLAYER_ANSWERS;
        if !spent
            && !self
                .store
                .has_handled(&sender.record.scope(), &letter.identity)?
        {
            return Ok(None);
        }
        self.sender_gate(&mut sender, letter, true, true)
    }

    /// Before answering a sender: a mail handled before is finished (its
    /// answer resent if it did not go); one over the day's answers is
    /// noted and left unanswered. `None`: go on and answer.
    pub(super) fn sender_gate(
        &self,
        sender: &mut Transaction<'_, SenderRecord>,
        letter: &Letter,
        plays_here: bool,
        limited: bool,
    ) -> Result<Option<Report>, DeliveryError> {
        let mut report = Report::default();
        if sender.handled_before(&letter.identity, &mut report)? {
            return Ok(Some(report));
        }
        let now = store::now();
        let cap = answers_a_day(plays_here);
        if limited && sender.record.answers_today(now) >= cap {
            sender.commit(&letter.identity, Vec::new())?;
            return Ok(Some(Report::ignored(format!(
                "not answered: this address had its {cap} answers today"
            ))));
        }
        Ok(None)
    }

    /// The one answer to a sender, counted, committed and sent.
    pub(super) fn reply_to_sender(
        &self,
        mut sender: Transaction<'_, SenderRecord>,
        letter: &Letter,
        to: &Mailbox,
        body: String,
        reply_to: Option<String>,
    ) -> Result<Report, DeliveryError> {
        // Named by the mail it answers, not by a count the sender file keeps:
        // a lost `senders/` never gives a new answer an old one's Message-ID.
        let scope = format!("s{}", &sender.record.digest[..12]);
        let message_id = self.message_id(&scope, 0, &letter.identity.0[..16]);
        let out = Outgoing::reply(letter, message_id, to.clone(), body + &signature())
            .with_reply_to(reply_to)
            .with_html(None);
        sender.record.count_answer(store::now());
        let report = Report::ignored(format!("answered {}", to.address));
        sender.commit(&letter.identity, vec![out])?;
        Ok(report)
    }
}

/// How many answers a day an address gets while it has not shown a key.
fn answers_a_day(plays_here: bool) -> usize {
    match plays_here {
        true => PLAYER_ANSWERS,
        false => STRANGER_ANSWERS,
    }
}

/// `body`, and if it is the last answer the address gets for a day (the
/// answer about to be counted), a word saying so, so that silence after
/// it is no mystery: when its mail is answered again.
pub(super) fn noting_last_answer(body: String, sender: &SenderRecord, plays_here: bool) -> String {
    let now = store::now();
    let cap = answers_a_day(plays_here);
    if sender.answers_today(now) + 1 != cap {
        return body;
    }
    let oldest = sender.answered.iter().filter(|&&t| t + 86_400 > now).min();
    let again = oldest.map_or(now, |&t| t) + 86_400;
    let again = std::time::UNIX_EPOCH + std::time::Duration::from_secs(again);
    let note = format!(
        "(This is the last of the {cap} answers a day this address gets while it has \
         shown no game key: mail sent before {} is not answered. A reply to a mail of \
         one of your games carries your key and is not counted here.)",
        crate::mail::transport::timestamp(again)
    );
    format!(
        "{}\n\n{}\n",
        body.trim_end(),
        crate::mail::wrap::fill(&note)
    )
}

/// The mailbox `address` plays under in `games`, as registered.
fn registered_in(games: &[GameRecord], address: &str) -> Option<Mailbox> {
    games.iter().find_map(|g| {
        let p = g.player(g.side_of(address)?);
        Some(Mailbox {
            name: Some(p.name.clone()),
            address: p.address.clone()?,
        })
    })
}

/// Does `address` play one of `games` that both players accepted? (An
/// invitation proves nothing: anyone can send one in anyone's name; nor
/// does a game against the computer: anyone can start one.)
fn plays_in(games: &[GameRecord], address: &str) -> bool {
    games.iter().any(|g| {
        g.is_playing()
            && g.computer.is_none()
            && g.side_of(address).is_some_and(|side| g.confirmed(side))
    })
}
