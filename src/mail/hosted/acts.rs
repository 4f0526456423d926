//! What a keyed mail does to a game under way: answers to an offer, a draw
//! offer, a takeback, the move and its conditional moves, a resignation, or
//! (with none of these) words for the opponent. Done in the order written;
//! one reply to each player tells all of it.

use super::{computer_turns, Scene};
use crate::engine::{Pit, Side};
use crate::mail::command::Command;
use crate::mail::compose::Outgoing;
use crate::mail::letter::Letter;
use crate::mail::play::{play_turn, written};
use crate::mail::refusal::Refusal;
use crate::store::{Concession, Conditional, GameRecord, Offer, OfferKind};

/// The most conditional moves a player keeps: one for each of the
/// opponent's likely replies, and the game file stays small.
const CONDITIONS: usize = 20;

impl Scene<'_> {
    /// Does `acts` (the move, wherever its line stands) for `side`;
    /// `moves` says the mail has a move line or a quoted log's `?`.
    pub(super) fn act(
        &mut self,
        record: &mut GameRecord,
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
                Command::Accept => self.accept(record, side, now),
                Command::Decline => self.decline(record, side, now),
                // A second offer would replace the first in the same mails,
                // and the opponent could not tell which they answer.
                Command::OfferDraw | Command::Takeback if offered => Err(Refusal::OneOfferAMail),
                Command::OfferDraw | Command::Takeback => {
                    let kind = match act {
                        Command::OfferDraw => OfferKind::Draw,
                        _ => OfferKind::Takeback,
                    };
                    let made = self.offer(record, side, kind, now);
                    offered = made.is_ok();
                    made
                }
                Command::Resign => self.resign(record, side, now),
                Command::If(read) => {
                    conditions.extend(read.into_iter().map(|c| (c.reply, c.answer)));
                    Ok(String::new())
                }
                Command::Move(_) if moved => Err(Refusal::SeveralMoves(
                    "one move a mail: the first was played".into(),
                )),
                Command::Move(_) => {
                    let played = self.play_move(record, letter, side, now);
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
            match self.keep_conditions(record, side, &conditions) {
                Ok(()) => {}
                Err(refusal) => refused.push(refusal),
            }
        }
        if moved || news.iter().any(|n| !n.is_empty()) {
            if let Some(said) = self.apply_conditions(record, now) {
                news.push(said);
            }
            if let Some(computer) = record.computer.filter(|_| !self.sheet.game.is_over()) {
                news.push(computer_turns(&mut self.sheet, computer).trim().to_string());
                record.set_turns(&self.sheet.game, now);
            }
        }
        self.note_answers(record, side);
        let chat = news.is_empty() && refused.is_empty() && !letter.comment.is_empty();
        if chat {
            news.push(format!("{} wrote, without a move.", self.sheet.name(side)));
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
        let mover = self.sheet.name(side).to_string();
        (self.both(&news, Some((&mover, &letter.comment))), news)
    }

    /// The offer `side`'s opponent made that `side` may answer now, if
    /// the mail answers a mail sent while it stood (or says not which).
    fn open_offer(&self, record: &GameRecord, side: Side) -> Result<Offer, Refusal> {
        let offer = record
            .offer
            .clone()
            .filter(|o| o.by != side && o.turns == record.turns.len())
            .filter(|_| !self.sheet.game.is_over())
            .ok_or(Refusal::NoOffer)?;
        match self.answered_event() {
            Some(event) if event < offer.event => Err(Refusal::OfferSince {
                name: self.sheet.name(offer.by).to_string(),
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

    fn accept(&mut self, record: &mut GameRecord, side: Side, now: u64) -> Result<String, Refusal> {
        let offer = self.open_offer(record, side)?;
        let (me, them) = (self.sheet.name(side), self.sheet.name(offer.by));
        let said = match offer.kind {
            OfferKind::Draw => {
                let said = format!("{me} accepted {them}'s draw offer: the game is drawn.");
                self.sheet.game.agree_draw();
                record.concede(offer.by, Concession::Draw, now);
                said
            }
            OfferKind::Takeback => {
                let undone = record.turns.pop().map(|t| written(&t.sowings));
                let said = format!(
                    "{me} accepted {them}'s takeback: {them}'s last turn ({}) is undone.",
                    undone.unwrap_or_default()
                );
                match record.game() {
                    Ok(game) => self.sheet.game = game,
                    Err(_) => {
                        return Err(Refusal::NoTakeback("the game cannot be replayed".into()))
                    }
                }
                record.last_activity = now;
                record.reminded = None;
                record.conditions.clear();
                said
            }
        };
        record.offer = None;
        Ok(said)
    }

    fn decline(
        &mut self,
        record: &mut GameRecord,
        side: Side,
        now: u64,
    ) -> Result<String, Refusal> {
        let offer = self.open_offer(record, side)?;
        record.offer = None;
        record.last_activity = now;
        let what = offered(offer.kind);
        Ok(format!(
            "{} declined {}'s {what}.",
            self.sheet.name(side),
            self.sheet.name(offer.by)
        ))
    }

    fn offer(
        &mut self,
        record: &mut GameRecord,
        side: Side,
        kind: OfferKind,
        now: u64,
    ) -> Result<String, Refusal> {
        if self.sheet.game.is_over() {
            return Err(Refusal::GameOver);
        }
        if record.computer.is_some() {
            return Err(Refusal::ComputerTakesNoOffers);
        }
        let name = self.sheet.name(side);
        let other = self.sheet.name(side.other());
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
        record.offer = Some(Offer {
            kind,
            by: side,
            turns: record.turns.len(),
            event: self.event,
        });
        record.last_activity = now;
        Ok(said)
    }

    fn resign(&mut self, record: &mut GameRecord, side: Side, now: u64) -> Result<String, Refusal> {
        if self.sheet.game.is_over() {
            return Err(Refusal::GameOver);
        }
        self.sheet.game.resign(side);
        record.concede(side, Concession::Resignation, now);
        record.offer = None;
        record.conditions.clear();
        Ok(format!("{} resigned.", self.sheet.name(side)))
    }

    /// The mail's move, played for `side`; a move answers (declines) the
    /// opponent's offer, and keeps the mover's own standing.
    fn play_move(
        &mut self,
        record: &mut GameRecord,
        letter: &Letter,
        side: Side,
        now: u64,
    ) -> Result<String, Refusal> {
        let sowings = self.hosted_move(letter)?;
        let to_move = self.sheet.game.to_move().ok_or(Refusal::GameOver)?;
        if to_move != side {
            return Err(Refusal::NotYourTurn {
                name: self.sheet.name(to_move).to_string(),
                side: to_move,
            });
        }
        let mut said = play_turn(&mut self.sheet, side, &sowings)?;
        // A first move played accepts an invitation (a refused one does not).
        record.standing = crate::store::Standing::Playing;
        let before = record.turns.len();
        said.push_str(&self.turn_played(record, side, before, now));
        Ok(said)
    }

    /// After `side`'s turn (the game's turns were `before`): the turn
    /// declines the opponent's open offer; `side`'s own offer, made before
    /// the turn in this mail, now stands for the opponent's answer. What
    /// to say of it.
    fn turn_played(
        &mut self,
        record: &mut GameRecord,
        side: Side,
        before: usize,
        now: u64,
    ) -> String {
        let declined = record
            .offer
            .clone()
            .filter(|o| o.by != side && o.turns == before);
        record.set_turns(&self.sheet.game, now);
        match &mut record.offer {
            Some(own) if own.by == side && own.turns == before => {
                own.turns = record.turns.len();
                String::new()
            }
            Some(_) => {
                record.offer = None;
                match declined {
                    Some(offer) => format!(
                        " (The move declines {}'s {}.)",
                        self.sheet.name(offer.by),
                        offered(offer.kind)
                    ),
                    None => String::new(), // stale: gone quietly
                }
            }
            None => String::new(),
        }
    }

    /// Checks `side`'s `if` lines against the position the opponent will
    /// answer, and keeps those that can be played (replacing older ones).
    /// The writer alone is told which were kept and which dropped.
    fn keep_conditions(
        &mut self,
        record: &mut GameRecord,
        side: Side,
        written_lines: &[(Vec<Pit>, Vec<Pit>)],
    ) -> Result<(), Refusal> {
        if record.computer.is_some() {
            return Err(Refusal::NoConditionsAgainstComputer);
        }
        if self.sheet.game.to_move() != Some(side.other()) {
            return Err(Refusal::ConditionsNeedMove);
        }
        let other = self.sheet.name(side.other()).to_string();
        let (mut kept, mut lines, mut notes) = (Vec::new(), Vec::new(), Vec::new());
        if written_lines.len() > CONDITIONS {
            notes.push(format!(
                "  Only the first {CONDITIONS} if lines are read; the rest are dropped."
            ));
        }
        for (reply, answer) in written_lines.iter().take(CONDITIONS) {
            let line = format!("if {} then {}", written(reply), written(answer));
            let mut trial = self.sheet.clone();
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
    fn apply_conditions(&mut self, record: &mut GameRecord, now: u64) -> Option<String> {
        let mut said = Vec::new();
        loop {
            let Some(to_move) = self.sheet.game.to_move() else {
                record.conditions.clear();
                break;
            };
            let (waiting, others): (Vec<Conditional>, Vec<Conditional>) =
                std::mem::take(&mut record.conditions)
                    .into_iter()
                    .partition(|c| c.side == to_move);
            record.conditions = others;
            if waiting.is_empty() {
                break;
            }
            let last = record.turns.last().filter(|t| t.side == to_move.other());
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
                    self.sheet.name(to_move.other())
                ));
                break;
            };
            match play_turn(&mut self.sheet, to_move, &condition.answer) {
                Ok(played) => {
                    let before = record.turns.len();
                    let declined = self.turn_played(record, to_move, before, now);
                    said.push(format!(
                        "By {}'s conditional move (if {} then {}): {played}{declined}",
                        self.sheet.name(to_move),
                        written(&condition.reply),
                        written(&condition.answer)
                    ));
                }
                Err(refusal) => {
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
