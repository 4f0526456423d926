//! What a keyed mail does to a game under way: answers to an offer, a draw
//! offer, a takeback, the move and its conditional moves, a resignation, or
//! (with none of these) words for the opponent. Done in the order written;
//! one reply to each player tells all of it.

use std::fmt::Write as _;

use super::Scene;
use crate::engine::{Pit, Side};
use crate::hosted::{Event, GameRefusal};
use crate::mail::command::Command;
use crate::mail::letter::Letter;
use crate::mail::outgoing::Outgoing;
use crate::mail::play::{play_turn, turn_words, written};
use crate::mail::refusal::{offered, Refusal};
use crate::store::{Conditional, OfferKind};

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
                Command::Accept => {
                    let answering = self.answered_event();
                    let done = self.game.accept(side, answering, now);
                    self.told(done)
                }
                Command::Decline => {
                    let answering = self.answered_event();
                    let done = self.game.decline(side, answering, now);
                    self.told(done)
                }
                // A second offer would replace the first in the same mails,
                // and the opponent could not tell which they answer.
                Command::OfferDraw | Command::Takeback if offered => Err(Refusal::OneOfferAMail),
                Command::OfferDraw | Command::Takeback => {
                    let kind = match act {
                        Command::OfferDraw => OfferKind::Draw,
                        _ => OfferKind::Takeback,
                    };
                    let made = self.game.offer(side, kind, self.event, now);
                    let made = self.told(made);
                    offered = made.is_ok();
                    made
                }
                Command::Resign => {
                    let resigned = self.game.resign(side, now);
                    self.told(resigned)
                }
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
            if let Err(refusal) = self.keep_conditions(side, &conditions) {
                refused.push(refusal);
            }
        }
        if moved || news.iter().any(|n| !n.is_empty()) {
            news.extend(self.what_follows(now));
        }
        self.note_answers(side);
        self.reply_to_acts(letter, side, news, &refused, from_note)
    }

    /// What follows a mail's acts: a conditional move they trigger, then
    /// the computer's turns.
    fn what_follows(&mut self, now: u64) -> Vec<String> {
        let mut news = Vec::new();
        if let Some(said) = self.apply_conditions(now) {
            news.push(said);
        }
        if !self.game.game().is_over() {
            if let Some(replies) = self.game.computer_replies(now) {
                news.push(self.said(&[replies]));
            }
        }
        news
    }

    /// The replies to a mail's acts: the news to both players (what was
    /// refused noted to the writer), or the refusal alone when nothing was done.
    fn reply_to_acts(
        &mut self,
        letter: &Letter,
        side: Side,
        mut news: Vec<String>,
        refused: &[Refusal],
        from_note: &str,
    ) -> (Vec<Outgoing>, String) {
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
        for refusal in refused {
            self.notes[side.index()].push(format!("Not done: {refusal}."));
        }
        if !from_note.is_empty() {
            self.notes[side.index()].push(from_note.trim().to_string());
        }
        let news = news.join(" ");
        let mover = self.game.name(side).to_string();
        (self.both(&news, Some((&mover, &letter.comment))), news)
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

    /// The words of an act done, or the refusal in the player's words.
    fn told(&self, done: Result<Event, GameRefusal>) -> Result<String, Refusal> {
        match done {
            Ok(event) => Ok(self.said(&[event])),
            Err(refusal) => Err(self.refusal(refusal)),
        }
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
                Event::Offered {
                    by,
                    kind: OfferKind::Draw,
                    ..
                } => {
                    let (name, other) = (self.game.name(*by), self.game.name(by.other()));
                    let _ = write!(
                        said,
                        "{name} offers a draw: {other} may answer accept (the game ends drawn) or decline; a move declines it too."
                    );
                }
                Event::Offered {
                    by,
                    kind: OfferKind::Takeback,
                    last_turn,
                } => {
                    let (name, other) = (self.game.name(*by), self.game.name(by.other()));
                    let _ = write!(
                        said,
                        "{name} asks to take back their last turn ({}): {other} may answer accept (then {name} moves again) or decline; a move declines it too.",
                        written(last_turn)
                    );
                }
                Event::DrawAgreed { by, offered_by } => {
                    let (me, them) = (self.game.name(*by), self.game.name(*offered_by));
                    let _ = write!(
                        said,
                        "{me} accepted {them}'s draw offer: the game is drawn."
                    );
                }
                Event::TakenBack {
                    by,
                    offered_by,
                    undone,
                } => {
                    let (me, them) = (self.game.name(*by), self.game.name(*offered_by));
                    let _ = write!(
                        said,
                        "{me} accepted {them}'s takeback: {them}'s last turn ({}) is undone.",
                        written(undone)
                    );
                }
                Event::OfferDeclined {
                    by,
                    offered_by,
                    kind,
                } => {
                    let (me, them) = (self.game.name(*by), self.game.name(*offered_by));
                    let _ = write!(said, "{me} declined {them}'s {}.", offered(*kind));
                }
                Event::Resigned { side } => {
                    let _ = write!(said, "{} resigned.", self.game.name(*side));
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
