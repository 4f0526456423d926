//! What a keyed mail does to a game under way: answers to an offer, a draw
//! offer, a takeback, the move and its conditional moves, a resignation, or
//! (with none of these) words for the opponent. Done in the order written;
//! one reply to each player tells all of it.

use std::fmt::Write as _;

use super::Scene;
use crate::engine::{Pit, Side};
use crate::hosted::{Event, GameRefusal};
use crate::mail::command::Command;
use crate::mail::compose::Outgoing;
use crate::mail::letter::Letter;
use crate::mail::play::{play_turn, turn_words, written};
use crate::mail::refusal::Refusal;
use crate::store::{Concession, Conditional, Offer, OfferKind};

/// The most conditional moves a player keeps: one for each of the
/// opponent's likely replies, and the game file stays small.
const CONDITIONS: usize = 20;

impl Scene<'_> {
    /// Does `acts` (the move, wherever its line stands) for `side`;
    /// `moves` says the mail has a move line or a quoted log's `?`.
    pub(super) fn act(
        &mut self,
        letter: &Letter,
        side: Side,
        mut acts: Vec<Command>,
        moves: bool,
        from_note: &str,
    ) -> (Vec<Outgoing>, String) {
        let now = crate::store::now();
        // A garbled move line or a quoted log's `?` is a move too (refused or played).
        if moves && !acts.iter().any(|a| matches!(a, Command::Move(_))) {
            acts.push(Command::Move(Vec::new()));
        }
        let mut conditions = Vec::new();
        let (mut news, mut refused) = (Vec::new(), Vec::new());
        let (mut moved, mut offered) = (false, false);
        for act in acts {
            let done = match act {
                Command::Accept => self.accept(side, now),
                Command::Decline => self.decline(side, now),
                // A second offer would replace the first in the same mails,
                // and the opponent could not tell which they answer.
                Command::OfferDraw | Command::Takeback if offered => Err(Refusal::OneOfferAMail),
                Command::OfferDraw | Command::Takeback => {
                    let kind = match act {
                        Command::OfferDraw => OfferKind::Draw,
                        _ => OfferKind::Takeback,
                    };
                    let made = self.offer(side, kind, now);
                    offered = made.is_ok();
                    made
                }
                Command::Resign => self.resign(side, now),
                Command::If(read) => {
                    conditions.extend(read.into_iter().map(|c| (c.reply, c.answer)));
                    Ok(String::new())
                }
                Command::Move(_) if moved => Err(Refusal::SeveralMoves(
                    "one move a mail: the first was played".into(),
                )),
                Command::Move(_) => {
                    let played = self.play_move(letter, side, now);
                    moved = played.is_ok();
                    played
                }
                _ => Ok(String::new()),
            };
            match done {
                Ok(said) if !said.is_empty() => news.push(said),
                Ok(_) => {}
                Err(refusal) => refused.push(refusal),
            }
        }
        if !conditions.is_empty() {
            match self.keep_conditions(side, &conditions) {
                Ok(()) => {}
                Err(refusal) => refused.push(refusal),
            }
        }
        if moved || news.iter().any(|n| !n.is_empty()) {
            if let Some(said) = self.apply_conditions(now) {
                news.push(said);
            }
            if !self.game.game().is_over() {
                if let Some(replies) = self.game.computer_replies(now) {
                    news.push(self.said(&[replies]));
                }
            }
        }
        self.note_answers(side);
        let chat = news.is_empty() && refused.is_empty() && !letter.comment.is_empty();
        if chat {
            news.push(format!("{} wrote, without a move.", self.game.name(side)));
        }
        let news: Vec<String> = news.into_iter().filter(|n| !n.is_empty()).collect();
        if news.is_empty() {
            let Some(first) = refused.first() else {
                if !self.notes[side.index()].is_empty() {
                    // Only `if` lines kept: the writer alone hears of it.
                    let mail = self.board(side, "your conditional moves are kept.", None, None);
                    return (mail.into_iter().collect(), "conditions kept".into());
                }
                return self.refuse(side, &Refusal::NoMove, from_note);
            };
            let rest: Vec<String> = refused[1..].iter().map(|r| format!("Also: {r}.")).collect();
            self.notes[side.index()].extend(rest);
            return self.refuse(side, first, from_note);
        }
        for refusal in &refused {
            self.notes[side.index()].push(format!("Not done: {refusal}."));
        }
        if !from_note.is_empty() {
            self.notes[side.index()].push(from_note.trim().to_string());
        }
        let news = news.join(" ");
        let mover = self.game.name(side).to_string();
        (self.both(&news, Some((&mover, &letter.comment))), news)
    }

    /// The offer `side`'s opponent made that `side` may answer now, if
    /// the mail answers a mail sent while it stood (or says not which).
    fn open_offer(&self, side: Side) -> Result<Offer, Refusal> {
        let record = self.game.record();
        let offer = record
            .offer
            .clone()
            .filter(|o| o.by != side && o.turns == record.turns.len())
            .filter(|_| !self.game.game().is_over())
            .ok_or(Refusal::NoOffer)?;
        match self.answered_event() {
            Some(event) if event < offer.event => Err(Refusal::OfferSince {
                name: self.game.name(offer.by).to_string(),
                what: offered(offer.kind),
            }),
            _ => Ok(offer),
        }
    }

    /// The event of this game whose mail the letter answers, read from its
    /// In-Reply-To (the referee's `id.event.side@domain`).
    fn answered_event(&self) -> Option<u32> {
        let replied = self.letter?.in_reply_to.as_deref()?;
        let (local, domain) = replied.rsplit_once('@')?;
        let mut parts = local.split('.');
        let ours = parts.next()? == self.id.as_str()
            && domain.eq_ignore_ascii_case(self.referee.identity.domain());
        let event = parts.next()?.parse().ok()?;
        ours.then_some(event)
    }

    fn accept(&mut self, side: Side, now: u64) -> Result<String, Refusal> {
        let offer = self.open_offer(side)?;
        let (me, them) = (
            self.game.name(side).to_string(),
            self.game.name(offer.by).to_string(),
        );
        let said = match offer.kind {
            OfferKind::Draw => {
                let said = format!("{me} accepted {them}'s draw offer: the game is drawn.");
                self.game.game_mut().agree_draw();
                self.game
                    .record_mut()
                    .concede(offer.by, Concession::Draw, now);
                said
            }
            OfferKind::Takeback => {
                let record = self.game.record_mut();
                let undone = record.turns.pop().map(|t| written(&t.sowings));
                let said = format!(
                    "{me} accepted {them}'s takeback: {them}'s last turn ({}) is undone.",
                    undone.unwrap_or_default()
                );
                match record.game() {
                    Ok(game) => *self.game.game_mut() = game,
                    Err(_) => {
                        return Err(Refusal::NoTakeback("the game cannot be replayed".into()))
                    }
                }
                let record = self.game.record_mut();
                record.last_activity = now;
                record.reminded = None;
                record.conditions.clear();
                said
            }
        };
        self.game.record_mut().offer = None;
        Ok(said)
    }

    fn decline(&mut self, side: Side, now: u64) -> Result<String, Refusal> {
        let offer = self.open_offer(side)?;
        let record = self.game.record_mut();
        record.offer = None;
        record.last_activity = now;
        let what = offered(offer.kind);
        Ok(format!(
            "{} declined {}'s {what}.",
            self.game.name(side),
            self.game.name(offer.by)
        ))
    }

    fn offer(&mut self, side: Side, kind: OfferKind, now: u64) -> Result<String, Refusal> {
        let record = self.game.record();
        if self.game.game().is_over() {
            return Err(Refusal::GameOver);
        }
        if record.computer.is_some() {
            return Err(Refusal::ComputerTakesNoOffers);
        }
        let name = self.game.name(side);
        let other = self.game.name(side.other());
        let said = match kind {
            OfferKind::Draw => format!(
                "{name} offers a draw: {other} may answer accept (the game ends drawn) or decline; a move declines it too."
            ),
            OfferKind::Takeback => {
                let last = record.turns.last().filter(|t| t.side == side);
                let why = if record.computer.is_some() {
                    Some("the computer takes nothing back")
                } else if last.is_none() {
                    Some("the last turn is not yours")
                } else {
                    None
                };
                if let Some(why) = why {
                    return Err(Refusal::NoTakeback(why.into()));
                }
                format!(
                    "{name} asks to take back their last turn ({}): {other} may answer accept (then {name} moves again) or decline; a move declines it too.",
                    last.map(|t| written(&t.sowings)).unwrap_or_default()
                )
            }
        };
        let event = self.event;
        let record = self.game.record_mut();
        record.offer = Some(Offer {
            kind,
            by: side,
            turns: record.turns.len(),
            event,
        });
        record.last_activity = now;
        Ok(said)
    }

    fn resign(&mut self, side: Side, now: u64) -> Result<String, Refusal> {
        if self.game.game().is_over() {
            return Err(Refusal::GameOver);
        }
        self.game.game_mut().resign(side);
        let record = self.game.record_mut();
        record.concede(side, Concession::Resignation, now);
        record.offer = None;
        record.conditions.clear();
        Ok(format!("{} resigned.", self.game.name(side)))
    }

    /// The mail's move, played for `side`.
    fn play_move(&mut self, letter: &Letter, side: Side, now: u64) -> Result<String, Refusal> {
        let sowings = self.hosted_move(letter)?;
        match self.game.play(side, &sowings, now) {
            Ok(events) => Ok(self.said(&events)),
            Err(refusal) => Err(self.refusal(refusal)),
        }
    }

    /// The game's refusal in the player's words.
    pub(super) fn refusal(&self, refusal: GameRefusal) -> Refusal {
        Refusal::of_game(refusal, |side| self.game.name(side).to_string())
    }

    /// What `events` did, in words.
    pub(super) fn said(&self, events: &[Event]) -> String {
        let mut said = String::new();
        for event in events {
            match event {
                Event::Played { side, sowings } => {
                    said.push_str(&turn_words(self.game.name(*side), sowings));
                }
                Event::OfferDeclinedByMove { by, kind } => {
                    let _ = write!(
                        said,
                        " (The move declines {}'s {}.)",
                        self.game.name(*by),
                        offered(*kind)
                    );
                }
                Event::ComputerPlayed { side, choices } => {
                    let played: Vec<String> = choices
                        .iter()
                        .map(|(pit, reason)| format!("{pit} ({reason})"))
                        .collect();
                    let _ = write!(
                        said,
                        "{} ({side}) played {}.",
                        self.game.name(*side),
                        played.join(", then ")
                    );
                }
            }
        }
        said
    }

    /// Checks `side`'s `if` lines against the position the opponent will
    /// answer, and keeps those that can be played (replacing older ones).
    /// The writer alone is told which were kept and which dropped.
    fn keep_conditions(
        &mut self,
        side: Side,
        written_lines: &[(Vec<Pit>, Vec<Pit>)],
    ) -> Result<(), Refusal> {
        if self.game.record().computer.is_some() {
            return Err(Refusal::NoConditionsAgainstComputer);
        }
        if self.game.game().to_move() != Some(side.other()) {
            return Err(Refusal::ConditionsNeedMove);
        }
        let other = self.game.name(side.other()).to_string();
        let (mut kept, mut lines, mut notes) = (Vec::new(), Vec::new(), Vec::new());
        if written_lines.len() > CONDITIONS {
            notes.push(format!(
                "  Only the first {CONDITIONS} if lines are read; the rest are dropped."
            ));
        }
        for (reply, answer) in written_lines.iter().take(CONDITIONS) {
            let line = format!("if {} then {}", written(reply), written(answer));
            let mut trial = self.game.sheet();
            let problem = if play_turn(&mut trial, side.other(), reply).is_err() {
                Some(format!(
                    "{other} cannot play {} after your move",
                    written(reply)
                ))
            } else if trial.game.to_move() != Some(side) {
                Some(format!(
                    "{} is not a whole turn of {other}'s (write a free turn's sowings too, as e-b), or it ends the game",
                    written(reply)
                ))
            } else if kept.iter().any(|c: &Conditional| c.reply == *reply) {
                Some("an earlier line answers the same turn".to_string())
            } else {
                play_turn(&mut trial, side, answer)
                    .err()
                    .map(|r| r.to_string())
            };
            match problem {
                Some(why) => notes.push(format!("  {line}: dropped, {why}.")),
                None => {
                    lines.push(line);
                    kept.push(Conditional {
                        side,
                        reply: reply.clone(),
                        answer: answer.clone(),
                    });
                }
            }
        }
        // A mail's `if` lines replace the writer's older ones.
        let record = self.game.record_mut();
        record.conditions.retain(|c| c.side != side);
        record.conditions.extend(kept);
        let kept = lines;
        let mut said = if kept.is_empty() {
            "No conditional move is kept:".to_string()
        } else {
            format!(
                "Your conditional moves, kept for {other}'s next turn ({other} does not see them): {}.",
                kept.join("; ")
            )
        };
        for note in notes {
            said.push('\n');
            said.push_str(&note);
        }
        self.notes[side.index()].push(said);
        Ok(())
    }

    /// Plays the conditional move of the side to move, if the turn just
    /// played is the one it waits for (and again, while that goes on); a
    /// condition that does not apply, or whose answer is illegal now, is
    /// dropped with a note to its writer. The news of what was played.
    fn apply_conditions(&mut self, now: u64) -> Option<String> {
        let mut said = Vec::new();
        loop {
            let Some(to_move) = self.game.game().to_move() else {
                self.game.record_mut().conditions.clear();
                break;
            };
            let record = self.game.record_mut();
            let (waiting, others): (Vec<Conditional>, Vec<Conditional>) =
                std::mem::take(&mut record.conditions)
                    .into_iter()
                    .partition(|c| c.side == to_move);
            record.conditions = others;
            if waiting.is_empty() {
                break;
            }
            let last = self
                .game
                .record()
                .turns
                .last()
                .filter(|t| t.side == to_move.other());
            let list = waiting
                .iter()
                .map(|c| format!("if {} then {}", written(&c.reply), written(&c.answer)))
                .collect::<Vec<_>>()
                .join("; ");
            let Some(condition) = waiting
                .iter()
                .find(|c| last.is_some_and(|t| t.sowings == c.reply))
            else {
                let played = last.map(|t| written(&t.sowings)).unwrap_or_default();
                self.notes[to_move.index()].push(format!(
                    "Your conditional moves ({list}) did not apply: {} played {played}. They are dropped.",
                    self.game.name(to_move.other())
                ));
                break;
            };
            let condition = condition.clone();
            match self.game.play(to_move, &condition.answer, now) {
                Ok(events) => {
                    said.push(format!(
                        "By {}'s conditional move (if {} then {}): {}",
                        self.game.name(to_move),
                        written(&condition.reply),
                        written(&condition.answer),
                        self.said(&events)
                    ));
                }
                Err(refusal) => {
                    let refusal = self.refusal(refusal);
                    self.notes[to_move.index()].push(format!(
                        "Your conditional move if {} then {} is dropped: {refusal}",
                        written(&condition.reply),
                        written(&condition.answer)
                    ));
                    break;
                }
            }
        }
        (!said.is_empty()).then(|| said.join(" "))
    }
}

/// What an offer is called in the referee's words.
fn offered(kind: OfferKind) -> &'static str {
    match kind {
        OfferKind::Draw => "draw offer",
        OfferKind::Takeback => "takeback",
    }
}
