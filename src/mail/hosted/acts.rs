//! What a keyed mail does to a game under way: answers to an offer, a draw
//! offer, a takeback, the move and its conditional moves, a resignation, or
//! (with none of these) words for the opponent. Done in the order written
//! by the game ([`HostedGame`](crate::hosted::HostedGame)), which tells what
//! happened as events; here they are put into words, once, in one reply to
//! each player.

use std::fmt::Write as _;

use super::{Decision, Did, Scene};
use crate::engine::Side;
use crate::hosted::{Dropped, Event, GameRefusal, CONDITIONS};
use crate::mail::command::Command;
use crate::mail::letter::Letter;
use crate::mail::play::{turn_words, written};
use crate::mail::refusal::{offered, Refusal};
use crate::store::{Conditional, OfferKind, StoreError};

impl Scene<'_> {
    /// Does `acts` (the move, wherever its line stands) for `side`;
    /// `moves` says the mail has a move line or a quoted log's `?`.
    ///
    /// # Errors
    /// As [`Scene::decide`].
    pub(super) fn act(
        &mut self,
        letter: &Letter,
        side: Side,
        mut acts: Vec<Command>,
        moves: bool,
        from_note: &str,
    ) -> Result<Decision, StoreError> {
        let now = crate::store::now();
        // A garbled move line or a quoted log's `?` is a move too (refused or played).
        if moves && !acts.iter().any(|a| matches!(a, Command::Move(_))) {
            acts.push(Command::Move(Vec::new()));
        }
        let mut conditions = Vec::new();
        let (mut events, mut refused) = (Vec::new(), Vec::new());
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
                    offered = made.is_ok();
                    self.told(made)
                }
                Command::Resign => {
                    let resigned = self.game.resign(side, now);
                    self.told(resigned)
                }
                Command::If(read) => {
                    conditions.extend(read.into_iter().map(|c| (c.reply, c.answer)));
                    continue;
                }
                Command::Move(_) if moved => Err(Refusal::SeveralMoves(
                    "one move a mail: the first was played".into(),
                )),
                Command::Move(_) => {
                    let played = self.play_move(letter, side, now);
                    moved = played.is_ok();
                    played
                }
                _ => continue,
            };
            match done {
                Ok(done) => events.extend(done),
                Err(refusal) => refused.push(refusal),
            }
        }
        let follows = moved || !events.is_empty();
        if !conditions.is_empty() {
            match self.game.keep_conditions(side, &conditions) {
                Ok(kept) => events.push(kept),
                Err(refusal) => refused.push(self.refusal(refusal)),
            }
        }
        if follows {
            events.extend(self.what_follows(now));
        }
        self.note_events(&events);
        self.note_answers(side)?;
        Ok(self.reply_to_acts(letter, side, events, &refused, from_note))
    }

    /// What follows a mail's acts: a conditional move they trigger, then
    /// the computer's turns.
    fn what_follows(&mut self, now: u64) -> Vec<Event> {
        let mut events = self.game.answer_conditions(now);
        if !self.game.game().is_over() {
            events.extend(self.game.computer_replies(now));
        }
        events
    }

    /// The replies to a mail's acts: the news to both players (what was
    /// refused noted to the writer), or the refusal alone when nothing was done.
    fn reply_to_acts(
        &mut self,
        letter: &Letter,
        side: Side,
        events: Vec<Event>,
        refused: &[Refusal],
        from_note: &str,
    ) -> Decision {
        let mut news = self.news(&events);
        let chat = news.is_empty() && refused.is_empty() && !letter.comment.is_empty();
        if chat {
            news = self.summary(&Did::Chat(side));
        }
        if news.is_empty() {
            let Some(first) = refused.first() else {
                if !self.notes[side.index()].is_empty() {
                    // Only `if` lines kept: the writer alone hears of it.
                    let mail = self.board(side, "your conditional moves are kept.", None, None);
                    return Decision::new(mail, Did::ConditionsKept);
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
        let mover = self.game.name(side).to_string();
        let replies = self.both(&news, Some((&mover, &letter.comment)));
        let did = if chat {
            Did::Chat(side)
        } else {
            Did::Acted(events)
        };
        Decision::new(replies, did)
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

    /// The events of an act done, or its refusal in the player's words.
    fn told(&self, done: Result<Event, GameRefusal>) -> Result<Vec<Event>, Refusal> {
        done.map(|event| vec![event])
            .map_err(|refusal| self.refusal(refusal))
    }

    /// The mail's move, played for `side`.
    fn play_move(&mut self, letter: &Letter, side: Side, now: u64) -> Result<Vec<Event>, Refusal> {
        let sowings = self.hosted_move(letter)?;
        let played = self.game.play(side, &sowings, now);
        played.map_err(|refusal| self.refusal(refusal))
    }

    /// The game's refusal in the player's words.
    pub(super) fn refusal(&self, refusal: GameRefusal) -> Refusal {
        Refusal::of_game(refusal, |side| self.game.name(side).to_string())
    }

    /// What a mail did, in a line for the log.
    pub(super) fn summary(&self, did: &Did) -> String {
        match did {
            Did::Acted(events) => self.news(events),
            Did::Chat(side) => format!("{} wrote, without a move.", self.game.name(*side)),
            Did::ConditionsKept => "conditions kept".into(),
            Did::Refused(refusal) => format!("refused: {refusal}"),
            Did::Board => "board".into(),
            Did::Answered(questions) => format!("{questions} answered"),
            Did::Invited(by) => format!("invitation sent by {by}"),
            Did::Challenged(side, events) => {
                let challenge = format!("{} challenges the computer.", self.game.name(*side));
                match self.news(events) {
                    news if news.is_empty() => challenge,
                    news => challenge + " " + &news,
                }
            }
        }
    }

    /// The news both players are told of `events`, in words.
    pub(super) fn news(&self, events: &[Event]) -> String {
        let said: Vec<String> = events.iter().filter_map(|e| self.said(e)).collect();
        said.join(" ")
    }

    /// What `event` tells both players, if it is news (conditional moves
    /// are told to their writer alone, by [`Scene::note_events`]).
    fn said(&self, event: &Event) -> Option<String> {
        let name = |side: &Side| self.game.name(*side);
        let said = match event {
            Event::Played { side, sowings } => turn_words(name(side), sowings),
            Event::OfferDeclinedByMove { by, kind } => {
                format!("(The move declines {}'s {}.)", name(by), offered(*kind))
            }
            Event::Offered {
                by,
                kind: OfferKind::Draw,
                ..
            } => format!(
                "{} offers a draw: {} may answer accept (the game ends drawn) or decline; a move declines it too.",
                name(by),
                name(&by.other())
            ),
            Event::Offered {
                by,
                kind: OfferKind::Takeback,
                last_turn,
            } => {
                let (me, other) = (name(by), name(&by.other()));
                format!(
                    "{me} asks to take back their last turn ({}): {other} may answer accept (then {me} moves again) or decline; a move declines it too.",
                    written(last_turn)
                )
            }
            Event::DrawAgreed { by, offered_by } => format!(
                "{} accepted {}'s draw offer: the game is drawn.",
                name(by),
                name(offered_by)
            ),
            Event::TakenBack {
                by,
                offered_by,
                undone,
            } => {
                let them = name(offered_by);
                format!(
                    "{} accepted {them}'s takeback: {them}'s last turn ({}) is undone.",
                    name(by),
                    written(undone)
                )
            }
            Event::OfferDeclined {
                by,
                offered_by,
                kind,
            } => format!(
                "{} declined {}'s {}.",
                name(by),
                name(offered_by),
                offered(*kind)
            ),
            Event::Resigned { side } => format!("{} resigned.", name(side)),
            Event::ComputerPlayed { side, choices } => {
                let played: Vec<String> = choices
                    .iter()
                    .map(|(pit, reason)| format!("{pit} ({reason})"))
                    .collect();
                format!("{} ({side}) played {}.", name(side), played.join(", then "))
            }
            Event::ConditionPlayed { condition } => format!(
                "By {}'s conditional move ({}):",
                name(&condition.side),
                if_line(condition)
            ),
            Event::InvitationAccepted { by } => format!("{} accepted: the game is on.", name(by)),
            Event::InvitationDeclined { by } => format!(
                "{} declined the game. Nothing more will be mailed about it.",
                name(by)
            ),
            Event::ConditionsKept { .. }
            | Event::ConditionsMissed { .. }
            | Event::ConditionRefused { .. } => return None,
        };
        Some(said)
    }

    /// Notes to the writer of conditional moves: which were kept and which
    /// dropped, and those that did not apply when the reply came.
    fn note_events(&mut self, events: &[Event]) {
        for event in events {
            let (side, note) = match event {
                Event::ConditionsKept {
                    side,
                    kept,
                    dropped,
                    cut,
                } => (*side, self.conditions_kept(*side, kept, dropped, *cut)),
                Event::ConditionsMissed {
                    side,
                    waiting,
                    played,
                } => {
                    let list: Vec<String> = waiting.iter().map(if_line).collect();
                    let note = format!(
                        "Your conditional moves ({}) did not apply: {} played {}. They are dropped.",
                        list.join("; "),
                        self.game.name(side.other()),
                        written(played)
                    );
                    (*side, note)
                }
                Event::ConditionRefused { condition, why } => {
                    let refusal = self.refusal(why.clone());
                    let note = format!(
                        "Your conditional move {} is dropped: {refusal}",
                        if_line(condition)
                    );
                    (condition.side, note)
                }
                _ => continue,
            };
            self.notes[side.index()].push(note);
        }
    }

    /// The note on `side`'s `if` lines kept and dropped.
    fn conditions_kept(
        &self,
        side: Side,
        kept: &[Conditional],
        dropped: &[(Conditional, Dropped)],
        cut: bool,
    ) -> String {
        let other = self.game.name(side.other());
        let mut said = if kept.is_empty() {
            "No conditional move is kept:".to_string()
        } else {
            let lines: Vec<String> = kept.iter().map(if_line).collect();
            format!(
                "Your conditional moves, kept for {other}'s next turn ({other} does not see them): {}.",
                lines.join("; ")
            )
        };
        if cut {
            let _ = write!(
                said,
                "\n  Only the first {CONDITIONS} if lines are read; the rest are dropped."
            );
        }
        for (condition, why) in dropped {
            let reply = written(&condition.reply);
            let why = match why {
                Dropped::ReplyIllegal => format!("{other} cannot play {reply} after your move"),
                Dropped::NotAWholeTurn => format!(
                    "{reply} is not a whole turn of {other}'s (write a free turn's sowings too, as e-b), or it ends the game"
                ),
                Dropped::Repeated => "an earlier line answers the same turn".to_string(),
                Dropped::Answer(refusal) => self.refusal(refusal.clone()).to_string(),
            };
            let _ = write!(said, "\n  {}: dropped, {why}.", if_line(condition));
        }
        said
    }
}

/// A conditional move as written: `if e then d`.
fn if_line(condition: &Conditional) -> String {
    format!(
        "if {} then {}",
        written(&condition.reply),
        written(&condition.answer)
    )
}
