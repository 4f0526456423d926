//! What a keyed mail does to a game under way: answers to an offer, a draw
//! offer, a takeback, the move and its conditional moves, a resignation, or
//! (with none of these) words for the opponent. Done in the order written
//! by the game ([`HostedGame`](crate::hosted::HostedGame)), which tells what
//! happened as events; here they are put into words, once, in one reply to
//! each player.

use std::fmt::Write as _;

use super::{Decision, Did, Scene};
use crate::engine::{Game, Pit, Side};
use crate::hosted::{Answer, BoardSeen, Dropped, Event, GameRefusal, CONDITIONS};
use crate::mail::command::Command;
use crate::mail::letter::Letter;
use crate::mail::play::{begun, disagrees, line_move, line_turn, makes_move, turn_words, Quoted};
use crate::mail::refusal::{offered, Refusal};
use crate::mail::wrap;
use crate::sheet::written;
use crate::store::{Conditional, OfferKind, Standing, StoreError};

impl Scene<'_> {
    /// Does `acts` (the move, wherever its line stands) for `side`;
    /// `quoted` is the sheet the mail quotes, with the move written on it.
    ///
    /// # Errors
    /// As [`Scene::decide`].
    pub(super) fn act(
        &mut self,
        letter: &Letter,
        side: Side,
        mut acts: Vec<Command>,
        quoted: Option<&Quoted>,
        from_note: &str,
    ) -> Result<Decision, StoreError> {
        let now = crate::store::now();
        // A garbled move line or a move written on a quoted sheet, current
        // or not, is a move too (refused or played).
        if makes_move(letter, quoted) && !acts.iter().any(|a| matches!(a, Command::Move(_))) {
            acts.push(Command::Move(Vec::new()));
        }
        let mut conditions = Vec::new();
        let (mut events, mut refused) = (Vec::new(), Vec::new());
        let (mut moved, mut tried, mut offered) = (false, false, false);
        for act in acts {
            let invited = matches!(self.game.record().standing, Standing::Invited { .. });
            let done = match act {
                Command::Accept if invited => {
                    let accepted = self.game.accept_invitation(side, now);
                    self.told(accepted)
                }
                Command::Accept | Command::Decline => {
                    let answer = match act {
                        Command::Accept => Answer::Accept,
                        _ => Answer::Decline,
                    };
                    let seen = self.board_seen(quoted);
                    let done = self.game.answer(side, answer, &seen, now);
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
                Command::Withdraw => Err(Refusal::NothingToWithdraw),
                Command::If(read) => {
                    conditions.extend(read.into_iter().map(|c| (c.reply, c.answer)));
                    continue;
                }
                // The same move written twice is one move.
                Command::Move(_) if tried => continue,
                Command::Move(_) => {
                    let played = self.play_move(letter, quoted, side, now);
                    (moved, tried) = (played.is_ok(), true);
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
        self.settle(side, &conditions, follows, &mut events, &mut refused, now);
        self.note_events(&events);
        self.note_answers(side)?;
        Ok(self.reply_to_acts(letter, side, events, &refused, from_note))
    }

    /// After a mail's acts: its conditional moves kept, what follows the
    /// acts (when they did something), and an offer the mail made lapsed if
    /// the game ended in it (its own resignation, a move, a conditional
    /// answer), told as not done.
    fn settle(
        &mut self,
        side: Side,
        conditions: &[(Vec<Pit>, Vec<Pit>)],
        follows: bool,
        events: &mut Vec<Event>,
        refused: &mut Vec<Refusal>,
        now: u64,
    ) {
        if !conditions.is_empty() {
            match self.game.keep_conditions(side, conditions) {
                Ok(kept) => events.push(kept),
                Err(GameRefusal::ConditionsNeedMove) => {
                    // A turn begun (`c-?`) is not over: the conditions need
                    // it written whole, not a move of its own.
                    let begun = begun(self.game.game());
                    refused.push(if begun.is_empty() {
                        Refusal::ConditionsNeedMove
                    } else {
                        Refusal::ConditionsNeedWholeTurn(written(&begun))
                    });
                }
                Err(refusal) => refused.push(self.refusal(refusal)),
            }
        }
        if follows {
            events.extend(self.what_follows(now));
            // Conditions kept by this mail may be answered in it (the
            // opponent's own condition replied at once): told as played,
            // and no longer as kept.
            let standing = &self.game.record().conditions;
            for event in events.iter_mut() {
                if let Event::ConditionsKept { kept, .. } = event {
                    kept.retain(|c| standing.contains(c));
                }
            }
            events.retain(|e| {
                !matches!(e, Event::ConditionsKept { kept, dropped, cut: false, .. }
                    if kept.is_empty() && dropped.is_empty())
            });
        }
        if self.game.game().is_over() {
            let before = events.len();
            events.retain(|e| !matches!(e, Event::Offered { .. }));
            if events.len() < before {
                refused.push(Refusal::OfferLapsed);
            }
        }
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
                    let mail = self.board(side, "your conditional moves are kept.", None);
                    return Decision::new(mail, Did::ConditionsKept);
                }
                // Told "write a move" on the opponent's turn, they would
                // write one, to be refused: say whose move it is.
                let refusal = match self.game.game().to_move() {
                    Some(to_move) if to_move != side => Refusal::NotYourTurn {
                        name: self.game.name(to_move).to_string(),
                        side: to_move,
                    },
                    None if self.game.game().is_over() => Refusal::GameOver { stored: true },
                    _ => Refusal::NoMove,
                };
                return self.refuse(side, &refusal, from_note);
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
        let told = |reader| match chat {
            true => self.chat_news(side, reader),
            false => self.news_to(&events, Some(reader)),
        };
        let replies = self.both(told, Some((&mover, &letter.comment)));
        let did = if chat {
            Did::Chat(side)
        } else {
            Did::Acted(events)
        };
        Decision::new(replies, did)
    }

    /// A mail of words alone, as `reader` is told it: its writer, when the
    /// move is theirs, hears that no line of theirs read as one.
    fn chat_news(&self, writer: Side, reader: Side) -> String {
        if reader != writer {
            self.summary(&Did::Chat(writer))
        } else if self.game.game().to_move() == Some(writer) {
            "You wrote, without a move: no line of yours reads as one (a move is a \
             line  move <pit>)."
                .into()
        } else {
            "You wrote, without a move.".into()
        }
    }

    /// The event of this game whose mail the letter answers, read from its
    /// In-Reply-To (the referee's `id.event.side@domain`).
    fn answered_event(&self) -> Option<u32> {
        let replied = self.letter?.mail.in_reply_to.as_deref()?;
        let (local, domain) = replied.rsplit_once('@')?;
        let mut parts = local.split('.');
        let ours = parts.next()? == self.id.as_str()
            && domain.eq_ignore_ascii_case(self.referee.identity.domain());
        let event = parts.next()?.parse().ok()?;
        ours.then_some(event)
    }

    /// The board the mail was written on, as far as it shows it: the mail
    /// it answers, and the sheet it quotes.
    fn board_seen<'q>(&self, quoted: Option<&'q Quoted>) -> BoardSeen<'q> {
        let quoted_sheet = match quoted {
            Some(Ok(request)) => Some(&request.sheet),
            Some(Err((_, sheet))) => sheet.as_deref(),
            None => None,
        };
        BoardSeen {
            event: self.answered_event(),
            sowings: quoted_sheet.map(|sheet| sheet.game.sowings()),
        }
    }

    /// The events of an act done, or its refusal in the player's words.
    fn told(&self, done: Result<Event, GameRefusal>) -> Result<Vec<Event>, Refusal> {
        done.map(|event| vec![event])
            .map_err(|refusal| self.refusal(refusal))
    }

    /// The mail's move, played for `side`. The board the mail was written
    /// on is checked before the move is read: a move chosen on another
    /// board is out of date however it is written.
    fn play_move(
        &mut self,
        letter: &Letter,
        quoted: Option<&Quoted>,
        side: Side,
        now: u64,
    ) -> Result<Vec<Event>, Refusal> {
        let may = self.game.may_play(side, &self.board_seen(quoted));
        may.map_err(|refusal| self.refusal(refusal))?;
        let sowings = move_of(letter, quoted, self.game.game())?;
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

    /// The news of `events` in words, as the log has it.
    pub(super) fn news(&self, events: &[Event]) -> String {
        self.news_to(events, None)
    }

    /// The news of `events` as `reader` is told it: the reader is "you".
    pub(super) fn news_to(&self, events: &[Event], reader: Option<Side>) -> String {
        // An offer a conditional move declined in this very mail is not
        // the reader's to answer: told as asked, and as declined.
        let declined = events
            .iter()
            .filter_map(|e| match e {
                Event::OfferDeclinedByMove { by, kind } => Some((*by, *kind)),
                _ => None,
            })
            .collect();
        let names = Names {
            scene: self,
            reader,
            declined,
        };
        let mut news = String::new();
        for said in events.iter().filter_map(|e| names.said(e)) {
            // "By your conditional move (if e then d): you played d."
            let said = match said.strip_prefix("You ") {
                Some(rest) if news.ends_with(':') => format!("you {rest}"),
                _ => said,
            };
            if !news.is_empty() {
                news.push(' ');
            }
            news.push_str(&said);
        }
        news
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
            let only =
                format!("Only the first {CONDITIONS} if lines are read; the rest are dropped.");
            let _ = write!(said, "\n{}", wrap::item("  ", &only));
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
            let dropped = format!("{}: dropped, {why}.", if_line(condition));
            let _ = write!(said, "\n{}", wrap::item("  ", &dropped));
        }
        said
    }
}

/// The players as one reader is told of them: by name, the reader as "you".
struct Names<'a, 'b> {
    scene: &'a Scene<'b>,
    reader: Option<Side>,
    /// The offers the events decline by a move: not to be answered.
    declined: Vec<(Side, OfferKind)>,
}

impl Names<'_, '_> {
    /// `side` as the subject of a sentence: `Alice`, or `You`.
    fn who(&self, side: Side) -> String {
        match self.reader == Some(side) {
            true => "You".to_string(),
            false => self.scene.game.name(side).to_string(),
        }
    }

    /// `side` within a sentence: `Alice`, or `you`.
    fn whom(&self, side: Side) -> String {
        match self.reader == Some(side) {
            true => "you".to_string(),
            false => self.scene.game.name(side).to_string(),
        }
    }

    /// `Alice's`, or `your`.
    fn whose(&self, side: Side) -> String {
        match self.reader == Some(side) {
            true => "your".to_string(),
            false => format!("{}'s", self.scene.game.name(side)),
        }
    }

    /// The verb for `side`: `offers`, or (to its reader) `offer`.
    fn verb<'v>(&self, side: Side, third: &'v str, plain: &'v str) -> &'v str {
        match self.reader == Some(side) {
            true => plain,
            false => third,
        }
    }

    /// `by`'s answer to `offered_by`'s offer: `Bob accepted your draw offer`.
    fn answered(&self, by: Side, verb: &str, offered_by: Side, kind: OfferKind) -> String {
        format!(
            "{} {verb} {} {}",
            self.who(by),
            self.whose(offered_by),
            offered(kind)
        )
    }

    /// What `event` tells its reader, if it is news (conditional moves
    /// are told to their writer alone, by [`Scene::note_events`]).
    fn said(&self, event: &Event) -> Option<String> {
        let said = match event {
            Event::Played { side, sowings } => {
                let goes_on = !self.scene.game.game().is_over();
                let again = format!(
                    "{} {} again",
                    self.whom(*side),
                    self.verb(*side, "sows", "sow")
                );
                turn_words(&self.who(*side), sowings, goes_on.then_some(again.as_str()))
            }
            Event::OfferDeclinedByMove { by, kind } => {
                format!(
                    "(The move declines {} {}.)",
                    self.whose(*by),
                    offered(*kind)
                )
            }
            Event::Offered {
                by,
                kind,
                last_turn,
                replaced,
            } => {
                let offer = match self.declined.contains(&(*by, *kind)) {
                    true => self.offer_made(*by, *kind, last_turn),
                    false => self.offer(*by, *kind, last_turn),
                };
                match replaced {
                    Some(replaced) => format!(
                        "{offer} (It replaces {} {}, which stands no more.)",
                        self.whose(by.other()),
                        offered(*replaced)
                    ),
                    None => offer,
                }
            }
            Event::DrawAgreed { by, offered_by } => format!(
                "{}: the game is drawn.",
                self.answered(*by, "accepted", *offered_by, OfferKind::Draw)
            ),
            Event::TakenBack {
                by,
                offered_by,
                undone,
            } => format!(
                "{}: {} last turn ({}) is undone.",
                self.answered(*by, "accepted", *offered_by, OfferKind::Takeback),
                self.whose(*offered_by),
                written(undone)
            ),
            Event::OfferDeclined {
                by,
                offered_by,
                kind,
            } => format!("{}.", self.answered(*by, "declined", *offered_by, *kind)),
            Event::Resigned { side } => format!("{} resigned.", self.who(*side)),
            Event::ComputerPlayed { side, choices } => self.computer(*side, choices),
            Event::ConditionPlayed { condition } => format!(
                "By {} conditional move ({}):",
                self.whose(condition.side),
                if_line(condition)
            ),
            Event::InvitationAccepted { by } => {
                format!("{} accepted: the game is on.", self.who(*by))
            }
            Event::InvitationDeclined { by } => format!(
                "{} declined the game. Nothing more will be mailed about it.",
                self.who(*by)
            ),
            Event::InvitationWithdrawn { by } => format!(
                "{} withdrew the invitation; {} is not told. Nothing more will be mailed about it.",
                self.who(*by),
                self.whom(by.other())
            ),
            Event::ConditionsKept { .. }
            | Event::ConditionsMissed { .. }
            | Event::ConditionRefused { .. } => return None,
        };
        Some(said)
    }

    /// `by`'s offer, and how its reader may answer it.
    /// An offer made and declined in one mail: no answer asked for.
    fn offer_made(&self, by: Side, kind: OfferKind, last_turn: &[crate::engine::Pit]) -> String {
        let me = self.who(by);
        match kind {
            OfferKind::Draw => format!("{me} {} a draw.", self.verb(by, "offers", "offer")),
            OfferKind::Takeback => format!(
                "{me} {} to take back {} last turn ({}).",
                self.verb(by, "asks", "ask"),
                self.verb(by, "their", "your"),
                written(last_turn),
            ),
        }
    }

    fn offer(&self, by: Side, kind: OfferKind, last_turn: &[crate::engine::Pit]) -> String {
        let (me, other) = (self.who(by), self.whom(by.other()));
        match kind {
            OfferKind::Draw => format!(
                "{me} {} a draw: {other} may answer accept (the game ends drawn) or decline; a move declines it too.",
                self.verb(by, "offers", "offer")
            ),
            OfferKind::Takeback => format!(
                "{me} {} to take back {} last turn ({}): {other} may answer accept (then {} {} again) or decline; a move declines it too.",
                self.verb(by, "asks", "ask"),
                self.verb(by, "their", "your"),
                written(last_turn),
                self.whom(by),
                self.verb(by, "moves", "move")
            ),
        }
    }

    /// The computer's turn: each sowing but the last earned it a free turn.
    fn computer(
        &self,
        side: Side,
        choices: &[(crate::engine::Pit, crate::opponent::Reason)],
    ) -> String {
        let name = self.scene.game.name(side);
        let reasons: Vec<String> = choices.iter().map(|(_, r)| r.to_string()).collect();
        let same = reasons.windows(2).all(|w| w[0] == w[1]);
        let pits: Vec<String> = choices
            .iter()
            .zip(&reasons)
            .enumerate()
            .map(|(i, ((pit, why), reason))| {
                // A free turn is said once: by the words that join the sowings.
                let joined = i + 1 < choices.len() && *why == crate::opponent::Reason::FreeTurn;
                match same || joined {
                    true => pit.to_string(),
                    false => format!("{pit} ({reason})"),
                }
            })
            .collect();
        let mut said = format!(
            "{name} ({side}) played {}",
            pits.join(", a free turn, then ")
        );
        match (same, reasons.first()) {
            (true, Some(reason)) if choices.len() > 1 => {
                let _ = write!(said, " ({reason}, each time)");
            }
            (true, Some(reason)) => {
                let _ = write!(said, " ({reason})");
            }
            _ => {}
        }
        said + "."
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

/// The move a mail makes: its move line (none garbled, no other move
/// beside it, none other made on the sheet it quotes), else the move made
/// on that sheet, else the one in its subject.
fn move_of(letter: &Letter, quoted: Option<&Quoted>, game: &Game) -> Result<Vec<Pit>, Refusal> {
    match (line_move(letter, |_| false)?, quoted) {
        (_, Some(Err((refusal, _)))) if disagrees(refusal) => Err(refusal.clone()),
        (Some(line), _) => Ok(line_turn(game, line)),
        (None, Some(Ok(request))) => Ok(request.sowings.clone()),
        (None, _) => letter
            .subject_move
            .clone()
            .map(|subject| line_turn(game, subject))
            .ok_or(Refusal::NoMove),
    }
}
