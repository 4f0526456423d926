//! A game the referee hosts: its stored record and the game its turns
//! replay, held once. Each act changes both together and tells what
//! happened as [`Event`]s, or why it was refused as a [`GameRefusal`];
//! the mail layer puts them into words. The sheet mails show is drawn
//! from it, never written back.

use crate::engine::{
    Game, Pit, PlayError, PlayedSowing, Position, RulesError, SetUpError, Side, Sowing, SplitMix64,
    TurnError,
};
use crate::opponent::{Opponent, Reason};
use crate::sheet::{Player, Players, Sheet};
use crate::store::{Conceded, Concession, Conditional, GameRecord, Ledgered, OfferKind};
use crate::store::{Offer, Standing, Store, StoreError};
use crate::store::{SetUpRecord, Turn};

/// The most conditional moves a player keeps: one for each of the
/// opponent's likely replies, and the game file stays small.
pub const CONDITIONS: usize = 20;

/// A hosted game: the record, and the game it replays.
#[derive(Clone, Debug)]
pub struct HostedGame {
    record: GameRecord,
    game: Game,
}

/// What an act did to the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `side` played a turn of these sowings.
    Played { side: Side, sowings: Vec<Sowing> },
    /// A move answered the opponent's standing offer: it stands no more.
    OfferDeclinedByMove { by: Side, kind: OfferKind },
    /// `by` offers a draw, or asks to take back their `last_turn`; the
    /// opponent's offer of the kind `replaced`, standing till then, lapses.
    Offered {
        by: Side,
        kind: OfferKind,
        last_turn: Vec<Pit>,
        replaced: Option<OfferKind>,
    },
    /// `by` accepted `offered_by`'s draw offer: the game is drawn.
    DrawAgreed { by: Side, offered_by: Side },
    /// `by` accepted `offered_by`'s takeback: their turn `undone` is gone.
    TakenBack {
        by: Side,
        offered_by: Side,
        undone: Vec<Pit>,
    },
    /// `by` declined `offered_by`'s offer.
    OfferDeclined {
        by: Side,
        offered_by: Side,
        kind: OfferKind,
    },
    /// `side` gave the game up.
    Resigned { side: Side },
    /// The computer, playing `side`, played these pits, each for a reason.
    ComputerPlayed {
        side: Side,
        choices: Vec<(Pit, Reason)>,
    },
    /// `side`'s `if` lines: those `kept` (replacing their older ones) and
    /// those `dropped`, each with why; `cut` when more than [`CONDITIONS`]
    /// were written and the rest not read.
    ConditionsKept {
        side: Side,
        kept: Vec<Conditional>,
        dropped: Vec<(Conditional, Dropped)>,
        cut: bool,
    },
    /// `condition`'s reply came: its answer is played (the events after it).
    ConditionPlayed { condition: Conditional },
    /// `side`'s conditional moves `waiting` did not apply, the opponent
    /// having played `played`: they are dropped.
    ConditionsMissed {
        side: Side,
        waiting: Vec<Conditional>,
        played: Vec<Pit>,
    },
    /// `condition`'s reply came, but the rules refuse its answer now: dropped.
    ConditionRefused {
        condition: Conditional,
        why: GameRefusal,
    },
    /// The invitee `by` accepted the game: it is on.
    InvitationAccepted { by: Side },
    /// The invitee `by` declined the game.
    InvitationDeclined { by: Side },
    /// The inviter `by` took the invitation back before it was answered.
    InvitationWithdrawn { by: Side },
}

/// Why an `if` line was not kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// The opponent cannot play the reply after the writer's move.
    ReplyIllegal,
    /// The reply is not a whole turn of the opponent's, or it ends the game.
    NotAWholeTurn,
    /// An earlier line answers the same reply.
    Repeated,
    /// The rules refuse the answer after the reply.
    Answer(GameRefusal),
}

/// The board a player's mail was written on, as far as the mail shows it:
/// the referee's mail it answers (by that mail's event) and the sheet it
/// quotes (by its sowings, before any move written on it). What it does
/// not show is no reason to refuse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardSeen<'a> {
    pub event: Option<u32>,
    pub sowings: Option<&'a [PlayedSowing]>,
}

/// A player's answer to the opponent's standing offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
}

/// Why the game refused an act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameRefusal {
    GameOver,
    NotYourTurn {
        to_move: Side,
    },
    /// A move written on a board other than the game's (an older mail's,
    /// or a sheet quoted from before the last turn): chosen on another
    /// board.
    OutOfDate,
    /// A sowing the rules refuse.
    Illegal(PlayError),
    /// A turn written on past its end: `played`, then `rest` with no free turn.
    NoFreeTurn {
        played: Vec<Pit>,
        rest: Vec<Pit>,
    },
    /// No offer of the opponent's stands to be answered.
    NoOffer,
    /// The only offer standing is the answerer's own, for `to` to answer.
    OwnOffer {
        kind: OfferKind,
        to: Side,
    },
    /// The mail answered is older than `by`'s offer, which stands now.
    OfferSince {
        by: Side,
        kind: OfferKind,
    },
    ComputerTakesNoOffers,
    /// A takeback asked when the last turn is the opponent's.
    NotYourLastTurn,
    /// The turns left by a takeback do not replay.
    Unreplayable,
    /// `if` lines while the writer is not the one who just moved.
    ConditionsNeedMove,
    /// `if` lines against the computer, which answers at once.
    NoConditionsAgainstComputer,
    /// An invitation answered by someone it does not wait for.
    NotInvited,
}

impl From<TurnError> for GameRefusal {
    fn from(error: TurnError) -> GameRefusal {
        match error {
            TurnError::Illegal(error) => GameRefusal::Illegal(error),
            TurnError::NoFreeTurn { played, rest, .. } => GameRefusal::NoFreeTurn { played, rest },
        }
    }
}

impl HostedGame {
    /// The game of `record`, replayed.
    ///
    /// # Errors
    /// When the rules refuse a stored turn.
    pub fn new(record: GameRecord) -> Result<HostedGame, ReplayError> {
        let game = record.game()?;
        Ok(HostedGame { record, game })
    }

    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The name `side` plays under.
    pub fn name(&self, side: Side) -> &str {
        &self.record.player(side).name
    }

    /// The sheet mails show: the board, the log and the players.
    pub fn sheet(&self) -> Sheet {
        sheet_of(&self.record, self.game.clone())
    }

    /// `side` plays the turn `sowings`. A move declines the opponent's
    /// standing offer, keeps the mover's own, and accepts an invitation.
    ///
    /// # Errors
    /// When it is not `side`'s turn, or the rules refuse the turn.
    pub fn play(
        &mut self,
        side: Side,
        sowings: &[Pit],
        now: u64,
    ) -> Result<Vec<Event>, GameRefusal> {
        self.may_play(side, &BoardSeen::default())?;
        let sowed = self.game.play_turn(side, sowings)?;
        self.record.standing = Standing::Playing;
        let mut events = vec![Event::Played {
            side,
            sowings: sowed,
        }];
        events.extend(self.turn_recorded(side, now));
        Ok(events)
    }

    /// May `side` play now, on the board its mail `seen`? Whose turn it is
    /// comes first; then a mail that answers the referee's mail from before
    /// the board last changed, or quotes a sheet other than the game's, chose
    /// its move on another board.
    ///
    /// # Errors
    /// The game is over, it is the opponent's turn, or the board seen is
    /// not the game's.
    pub fn may_play(&self, side: Side, seen: &BoardSeen) -> Result<(), GameRefusal> {
        let to_move = self.game.to_move().ok_or(GameRefusal::GameOver)?;
        if to_move != side {
            return Err(GameRefusal::NotYourTurn { to_move });
        }
        let old_mail = seen
            .event
            .is_some_and(|event| event < self.record.board_event);
        let other_sheet = seen
            .sowings
            .is_some_and(|sowings| sowings != self.game.sowings());
        if old_mail || other_sheet {
            return Err(GameRefusal::OutOfDate);
        }
        Ok(())
    }

    /// After `side`'s turn: recorded; it declines the opponent's open
    /// offer, and `side`'s own offer, made before it, now stands for the
    /// opponent's answer.
    fn turn_recorded(&mut self, side: Side, now: u64) -> Option<Event> {
        let before = self.record.turns.len();
        let declined = self
            .record
            .offer
            .clone()
            .filter(|o| o.by != side && o.turns == before);
        self.record.set_turns(&self.game, now);
        let turns = self.record.turns.len();
        match &mut self.record.offer {
            Some(own) if own.by == side && own.turns == before => {
                own.turns = turns;
                None
            }
            Some(_) => {
                self.record.offer = None;
                // A stale offer goes quietly.
                declined.map(|o| Event::OfferDeclinedByMove {
                    by: o.by,
                    kind: o.kind,
                })
            }
            None => None,
        }
    }

    /// The computer's turns, while it is to move.
    pub fn computer_replies(&mut self, now: u64) -> Option<Event> {
        let side = self.record.computer?;
        let opponent = Opponent::default_for(self.game.rules().ruleset);
        let mut rng = SplitMix64::new(self.game.ply() as u64 + 1);
        let mut choices = Vec::new();
        while self.game.to_move() == Some(side) {
            let Some(choice) = opponent.choose(&self.game, &mut rng) else {
                break;
            };
            self.game.play_unchecked(choice.pit);
            choices.push((choice.pit, choice.reason));
        }
        self.record.set_turns(&self.game, now);
        (!choices.is_empty()).then_some(Event::ComputerPlayed { side, choices })
    }
}

impl HostedGame {
    /// `side` forfeits the game, its time run out.
    pub fn forfeit(&mut self, side: Side, now: u64) {
        self.game.forfeit(side);
        self.record.concede(side, Concession::Forfeit, now);
    }

    /// The player to move has been reminded, at `now`.
    pub fn reminded(&mut self, now: u64) {
        self.record.reminded = Some(now);
    }
}

/// Offers, their answers, and resigning.
impl HostedGame {
    /// `side` offers `kind`, in the mail of `event`: it replaces the
    /// opponent's standing offer, but a draw offered while theirs stands
    /// agrees the draw.
    ///
    /// # Errors
    /// When the game is over, the computer plays, or (a takeback) the
    /// last turn is not `side`'s.
    pub fn offer(
        &mut self,
        side: Side,
        kind: OfferKind,
        event: u32,
        now: u64,
    ) -> Result<Event, GameRefusal> {
        if self.game.is_over() {
            return Err(GameRefusal::GameOver);
        }
        if self.record.computer.is_some() {
            return Err(GameRefusal::ComputerTakesNoOffers);
        }
        let replaced = self.offer_to(side).map(|offer| offer.kind);
        // A draw offered while the opponent's stands: both want it.
        if (kind, replaced) == (OfferKind::Draw, Some(OfferKind::Draw)) {
            return self.answer(side, Answer::Accept, &BoardSeen::default(), now);
        }
        let last = self.record.turns.last().filter(|t| t.side == side);
        let last_turn = match (kind, last) {
            (OfferKind::Takeback, None) => return Err(GameRefusal::NotYourLastTurn),
            (_, last) => last.map(|t| t.sowings.clone()).unwrap_or_default(),
        };
        self.record.offer = Some(Offer {
            kind,
            by: side,
            turns: self.record.turns.len(),
            event,
        });
        self.record.last_activity = now;
        Ok(Event::Offered {
            by: side,
            kind,
            last_turn,
            replaced,
        })
    }

    /// The opponent's offer `side` may answer now, if the mail answers
    /// the mail of `answering` (an event), sent while it stood, or says
    /// not which. A takeback is accepted on the board as it stands: the
    /// turn it undoes may have gone on since (a bonus sowing played).
    fn open_offer(&self, side: Side, seen: &BoardSeen) -> Result<Offer, GameRefusal> {
        let Some(offer) = self.offer_to(side).cloned() else {
            return Err(match self.offer_to(side.other()) {
                Some(own) => GameRefusal::OwnOffer {
                    kind: own.kind,
                    to: side.other(),
                },
                None => GameRefusal::NoOffer,
            });
        };
        // An answer is checked as a move is: written on the board the
        // offer stands on, by the mail it answers and the sheet it quotes.
        let other_sheet = seen
            .sowings
            .is_some_and(|sowings| sowings != self.game.sowings());
        let since = GameRefusal::OfferSince {
            by: offer.by,
            kind: offer.kind,
        };
        let old_board = other_sheet || seen.event.is_some_and(|e| e < self.record.board_event);
        match seen.event {
            Some(event) if event < offer.event => Err(since),
            // A takeback undoes the board it was asked on, no other.
            _ if offer.kind == OfferKind::Takeback && old_board => Err(GameRefusal::OutOfDate),
            _ if other_sheet => Err(since),
            _ => Ok(offer),
        }
    }

    /// The opponent's offer standing for `side` to answer, if one does.
    pub fn offer_to(&self, side: Side) -> Option<&Offer> {
        self.record
            .offer
            .as_ref()
            .filter(|o| o.by != side && o.turns == self.record.turns.len())
            .filter(|_| !self.game.is_over())
    }

    /// `side` answers the opponent's offer: accepted, a draw is agreed or
    /// their last turn undone; declined, play goes on.
    ///
    /// # Errors
    /// When no offer stands to be answered (or a newer one stands).
    pub fn answer(
        &mut self,
        side: Side,
        answer: Answer,
        seen: &BoardSeen,
        now: u64,
    ) -> Result<Event, GameRefusal> {
        if self.game.is_over() {
            return Err(GameRefusal::GameOver);
        }
        let offer = self.open_offer(side, seen)?;
        let (by, offered_by) = (side, offer.by);
        let event = match (answer, offer.kind) {
            (Answer::Decline, kind) => {
                self.record.last_activity = now;
                Event::OfferDeclined {
                    by,
                    offered_by,
                    kind,
                }
            }
            (Answer::Accept, OfferKind::Draw) => {
                self.game.agree_draw();
                self.record.concede(offer.by, Concession::Draw, now);
                Event::DrawAgreed { by, offered_by }
            }
            (Answer::Accept, OfferKind::Takeback) => {
                let Some(undone) = self.record.turns.pop() else {
                    return Err(GameRefusal::NoOffer);
                };
                match self.record.game() {
                    Ok(game) => self.game = game,
                    Err(_) => {
                        self.record.turns.push(undone);
                        return Err(GameRefusal::Unreplayable);
                    }
                }
                self.record.last_activity = now;
                self.record.reminded = None;
                self.record.board_event = self.record.next_event();
                self.record.conditions.clear();
                Event::TakenBack {
                    by,
                    offered_by,
                    undone: undone.sowings,
                }
            }
        };
        self.record.offer = None;
        Ok(event)
    }

    /// `side` resigns.
    ///
    /// # Errors
    /// When the game is over.
    pub fn resign(&mut self, side: Side, now: u64) -> Result<Event, GameRefusal> {
        if self.game.is_over() {
            return Err(GameRefusal::GameOver);
        }
        self.game.resign(side);
        self.record.concede(side, Concession::Resignation, now);
        self.record.offer = None;
        self.record.conditions.clear();
        Ok(Event::Resigned { side })
    }
}

/// Conditional moves: `if REPLY then ANSWER`, kept with a move and
/// played when the reply comes.
impl HostedGame {
    /// Keeps `side`'s `if` lines, `(reply, answer)`, that can be played
    /// against the position the opponent will answer (replacing `side`'s
    /// older ones), and tells which were dropped and why.
    ///
    /// # Errors
    /// Against the computer, or when the opponent is not to move.
    pub fn keep_conditions(
        &mut self,
        side: Side,
        lines: &[(Vec<Pit>, Vec<Pit>)],
    ) -> Result<Event, GameRefusal> {
        if self.record.computer.is_some() {
            return Err(GameRefusal::NoConditionsAgainstComputer);
        }
        if self.game.to_move() != Some(side.other()) {
            return Err(GameRefusal::ConditionsNeedMove);
        }
        let (mut kept, mut dropped) = (Vec::new(), Vec::new());
        for (reply, answer) in lines.iter().take(CONDITIONS) {
            let condition = Conditional {
                side,
                reply: reply.clone(),
                answer: answer.clone(),
            };
            match self.why_not(&condition, &kept) {
                Some(why) => dropped.push((condition, why)),
                None => kept.push(condition),
            }
        }
        self.record.conditions.retain(|c| c.side != side);
        self.record.conditions.extend(kept.iter().cloned());
        Ok(Event::ConditionsKept {
            side,
            kept,
            dropped,
            cut: lines.len() > CONDITIONS,
        })
    }

    /// Why `condition` cannot be kept beside `kept`, if it cannot.
    fn why_not(&self, condition: &Conditional, kept: &[Conditional]) -> Option<Dropped> {
        let mut trial = self.game.clone();
        if trial
            .play_turn(condition.side.other(), &condition.reply)
            .is_err()
        {
            return Some(Dropped::ReplyIllegal);
        }
        if trial.to_move() != Some(condition.side) {
            return Some(Dropped::NotAWholeTurn);
        }
        if kept.iter().any(|c| c.reply == condition.reply) {
            return Some(Dropped::Repeated);
        }
        trial
            .play_turn(condition.side, &condition.answer)
            .err()
            .map(|error| Dropped::Answer(error.into()))
    }

    /// Plays the conditional move of the side to move, if the turn just
    /// played is the one it waits for (and again, while that goes on). A
    /// side's conditions that do not apply, or whose answer the rules
    /// refuse now, are dropped; all go when the game ends.
    pub fn answer_conditions(&mut self, now: u64) -> Vec<Event> {
        let mut events = Vec::new();
        loop {
            let Some(to_move) = self.game.to_move() else {
                self.record.conditions.clear();
                break;
            };
            let (waiting, others): (Vec<Conditional>, Vec<Conditional>) =
                std::mem::take(&mut self.record.conditions)
                    .into_iter()
                    .partition(|c| c.side == to_move);
            self.record.conditions = others;
            if waiting.is_empty() {
                break;
            }
            let last = self.record.turns.last().filter(|t| t.side != to_move);
            let played = last.map(|t| t.sowings.clone());
            let Some(condition) = waiting
                .iter()
                .find(|c| played.as_ref() == Some(&c.reply))
                .cloned()
            else {
                events.push(Event::ConditionsMissed {
                    side: to_move,
                    waiting,
                    played: played.unwrap_or_default(),
                });
                break;
            };
            match self.play(to_move, &condition.answer, now) {
                Ok(played) => {
                    events.push(Event::ConditionPlayed { condition });
                    events.extend(played);
                }
                Err(why) => {
                    events.push(Event::ConditionRefused { condition, why });
                    break;
                }
            }
        }
        events
    }
}

/// The invitation and who vouches for the seats.
impl HostedGame {
    /// `side` wrote with their key: an inviter's proves the invitation theirs.
    pub fn key_shown(&mut self, side: Side) {
        if side == self.record.inviter {
            self.record.inviter_confirmed = true;
        }
    }

    /// The invitee plays under `name` (as they give it, not as the inviter
    /// wrote it), while the invitation is open.
    pub fn name_invitee(&mut self, side: Side, name: String) {
        if self.invited(side).is_ok() {
            match side {
                Side::South => self.record.south.name = name,
                Side::North => self.record.north.name = name,
            }
        }
    }

    /// Is the game's invitation open, and for `side`?
    fn invited(&self, side: Side) -> Result<(), GameRefusal> {
        match self.record.standing {
            Standing::Invited { invitee } if invitee == side => Ok(()),
            _ => Err(GameRefusal::NotInvited),
        }
    }

    /// The invitee `side` accepts: the game is on. (Their first move
    /// accepts too: see [`HostedGame::play`].)
    ///
    /// # Errors
    /// When no invitation waits for `side`.
    pub fn accept_invitation(&mut self, side: Side, now: u64) -> Result<Event, GameRefusal> {
        self.invited(side)?;
        self.record.standing = Standing::Playing;
        self.record.last_activity = now;
        Ok(Event::InvitationAccepted { by: side })
    }

    /// The invitee `side` declines: the game will never start.
    ///
    /// # Errors
    /// As [`HostedGame::accept_invitation`].
    pub fn decline_invitation(&mut self, side: Side, now: u64) -> Result<Event, GameRefusal> {
        self.invited(side)?;
        self.record.standing = Standing::Declined;
        self.record.last_activity = now;
        Ok(Event::InvitationDeclined { by: side })
    }

    /// The inviter `side` takes back the invitation before it is answered.
    ///
    /// # Errors
    /// When no invitation of `side`'s is open.
    pub fn withdraw_invitation(&mut self, side: Side, now: u64) -> Result<Event, GameRefusal> {
        match self.record.standing {
            Standing::Invited { invitee } if invitee != side => {
                self.record.standing = Standing::Withdrawn;
                self.record.last_activity = now;
                Ok(Event::InvitationWithdrawn { by: side })
            }
            _ => Err(GameRefusal::NotInvited),
        }
    }
}

impl Ledgered for HostedGame {
    const MAILS_KEPT: Option<u32> = GameRecord::MAILS_KEPT;
    fn scope(&self) -> String {
        self.record.scope()
    }
    fn events(&self) -> u32 {
        self.record.events
    }
    fn set_events(&mut self, events: u32) {
        self.record.events = events;
    }
    fn save(&self, store: &Store) -> Result<(), StoreError> {
        self.record.save(store)
    }
}

// A stored game as the sheet shows it, and its state in a few words: for
// the mail referee's answers and the command line's listings alike.

/// The sheet of a stored game, replayed.
///
/// # Errors
/// When the record's turns are not a legal game.
pub fn record_sheet(record: &GameRecord) -> Result<Sheet, ReplayError> {
    Ok(sheet_of(record, record.game()?))
}

/// The sheet of a stored game: its game, players and id.
pub fn sheet_of(record: &GameRecord, game: Game) -> Sheet {
    Sheet {
        game,
        players: Players {
            south: player_of(record, Side::South),
            north: player_of(record, Side::North),
        },
        id: Some(record.id.to_string()),
    }
}

/// The sheet's player of `side`.
pub fn player_of(record: &GameRecord, side: Side) -> Player {
    let p = record.player(side);
    Player {
        name: p.name.clone(),
        address: p.address.clone(),
    }
}

/// `Alice to move`, `over: Bob won`, `waiting for Bob to accept`.
pub fn summary(record: &GameRecord, game: &Game) -> String {
    let name = |side: Side| record.player(side).name.clone();
    match record.standing {
        Standing::Invited { invitee } => format!("waiting for {} to accept", name(invitee)),
        Standing::Declined => format!("declined by {}", name(record.inviter.other())),
        Standing::Withdrawn => format!("withdrawn by {}", name(record.inviter)),
        Standing::Playing => match (game.to_move(), game.outcome()) {
            (Some(side), _) => format!("{} to move", name(side)),
            (None, Some(outcome)) => match outcome.winner {
                Some(side) => format!("over: {} won", name(side)),
                None => "over: a draw".to_string(),
            },
            (None, None) => "over".to_string(),
        },
    }
}

// The stored record's rules: its turns replayed, its ends and seats.

/// A record whose turns the rules refuse: the file was edited or damaged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Rules(#[from] RulesError),
    #[error("the set-up position: {0}")]
    SetUp(#[from] SetUpError),
    #[error("turn {turn}: {error}")]
    Turn { turn: usize, error: PlayError },
    #[error("turn {turn} is {side}'s, but it was not their move")]
    WrongSide { turn: usize, side: Side },
}

impl SetUpRecord {
    /// The set-up of a game that did not start from the usual start.
    pub fn of(game: &Game) -> Option<SetUpRecord> {
        let start = game.start();
        (!start.is_start()).then(|| SetUpRecord {
            south: start.pits(Side::South).to_vec(),
            north: start.pits(Side::North).to_vec(),
            stores: [start.store(Side::South), start.store(Side::North)],
        })
    }
}

impl GameRecord {
    /// The game, replayed from its turns, with any concession applied.
    ///
    /// # Errors
    /// When the turns are not a legal game of the record's rules.
    pub fn game(&self) -> Result<Game, ReplayError> {
        let rules = self
            .ruleset
            .configure(Some(self.stones), self.variant.as_deref())?;
        let mut game = match &self.setup {
            Some(s) => Game::from_position(Position::set_up(
                rules,
                &s.south,
                &s.north,
                Some(s.stores),
                self.first,
            )?),
            None => Game::new(rules, self.first),
        };
        for (i, turn) in self.turns.iter().enumerate() {
            for &pit in &turn.sowings {
                if game.to_move() != Some(turn.side) {
                    return Err(ReplayError::WrongSide {
                        turn: i + 1,
                        side: turn.side,
                    });
                }
                game.play(pit)
                    .map_err(|error| ReplayError::Turn { turn: i + 1, error })?;
            }
        }
        if let Some(conceded) = &self.conceded {
            match conceded.reason {
                Concession::Resignation => game.resign(conceded.side),
                Concession::Forfeit => game.forfeit(conceded.side),
                Concession::Draw => game.agree_draw(),
            }
        }
        Ok(game)
    }

    /// Records the turns of `game` beyond those already stored (and a
    /// turn grown by bonus sowings).
    pub fn set_turns(&mut self, game: &Game, now: u64) {
        // Each turn compared where it stands, a new list made only for a
        // turn that changed: a long game's every move would otherwise
        // rebuild all of its turns.
        for (i, sowings) in game.turns().enumerate() {
            let pits = sowings.iter().map(|s| s.pit);
            match self.turns.get_mut(i) {
                Some(turn) if turn.sowings.iter().copied().eq(pits.clone()) => continue,
                Some(turn) => turn.sowings = pits.collect(),
                None => self.turns.push(Turn {
                    side: sowings[0].side,
                    sowings: pits.collect(),
                    time: now,
                }),
            }
            self.last_activity = now;
            self.reminded = None;
            self.board_event = self.next_event();
        }
    }

    /// The number the next event will have.
    pub fn next_event(&self) -> u32 {
        self.events + 1
    }

    /// When the game ended by a player's word or clock, else when its last
    /// turn was played (for a game that is over).
    pub fn ended(&self) -> Option<u64> {
        self.conceded
            .as_ref()
            .map(|c| c.time)
            .or_else(|| self.turns.last().map(|t| t.time))
    }

    /// `side` gave up or ran out of time.
    pub fn concede(&mut self, side: Side, reason: Concession, now: u64) {
        self.conceded = Some(Conceded {
            side,
            reason,
            time: now,
        });
        self.last_activity = now;
    }

    /// The side whose registered mailbox `address` reaches, if either.
    pub fn side_of(&self, address: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|&side| {
            self.player(side)
                .address
                .as_deref()
                .is_some_and(|a| crate::address::same_mailbox(a, address))
        })
    }

    /// Both players have agreed to play.
    pub fn is_playing(&self) -> bool {
        self.standing == Standing::Playing
    }

    /// The invitation awaits its answer.
    pub fn is_invited(&self) -> bool {
        matches!(self.standing, Standing::Invited { .. })
    }

    /// Has `side` shown its key in this game (the invitee by answering the
    /// invitation, the inviter by any keyed mail)?
    pub fn confirmed(&self, side: Side) -> bool {
        if side == self.inviter {
            self.inviter_confirmed
        } else {
            self.standing != (Standing::Invited { invitee: side })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Ruleset;

    /// A Wari game between Alice (South, to move first) and Bob, standing so.
    fn game(standing: Standing, computer: Option<Side>) -> HostedGame {
        HostedGame::new(GameRecord {
            computer,
            standing,
            inviter_confirmed: false,
            ..GameRecord::between_alice_and_bob("abcdef", Ruleset::Wari)
        })
        .unwrap()
    }

    fn pits(text: &str) -> Vec<Pit> {
        crate::sheet::parse_sowings(text).unwrap()
    }

    fn condition(side: Side, reply: &str, answer: &str) -> Conditional {
        Conditional {
            side,
            reply: pits(reply),
            answer: pits(answer),
        }
    }

    fn answering(event: u32) -> BoardSeen<'static> {
        BoardSeen {
            event: Some(event),
            sowings: None,
        }
    }

    fn quoting(sowings: &[PlayedSowing]) -> BoardSeen<'_> {
        BoardSeen {
            event: None,
            sowings: Some(sowings),
        }
    }

    #[test]
    fn a_move_answering_a_mail_older_than_the_board_is_refused_after_the_turn() {
        let mut hosted = game(Standing::Playing, None);
        hosted.record.board_event = 3;
        assert_eq!(
            hosted.may_play(Side::North, &answering(2)),
            Err(GameRefusal::NotYourTurn {
                to_move: Side::South
            })
        );
        assert_eq!(
            hosted.may_play(Side::South, &answering(2)),
            Err(GameRefusal::OutOfDate)
        );
        assert_eq!(hosted.may_play(Side::South, &answering(3)), Ok(()));
        // Not knowing which mail a move answers is no reason to refuse it.
        assert_eq!(hosted.may_play(Side::South, &BoardSeen::default()), Ok(()));
        hosted.play(Side::South, &pits("c"), 200).unwrap();
        assert_eq!(
            hosted.play(Side::South, &pits("d"), 300),
            Err(GameRefusal::NotYourTurn {
                to_move: Side::North
            })
        );
    }

    #[test]
    fn a_move_on_a_quoted_sheet_other_than_the_games_is_out_of_date_after_the_turn() {
        let mut hosted = game(Standing::Playing, None);
        let at_start = hosted.game().sowings().to_vec();
        let start = quoting(&at_start);
        assert_eq!(hosted.may_play(Side::South, &start), Ok(()));
        hosted.play(Side::South, &pits("c"), 200).unwrap();
        assert_eq!(
            hosted.may_play(Side::South, &start),
            Err(GameRefusal::NotYourTurn {
                to_move: Side::North
            })
        );
        assert_eq!(
            hosted.may_play(Side::North, &start),
            Err(GameRefusal::OutOfDate)
        );
        let now = hosted.game().sowings().to_vec();
        assert_eq!(hosted.may_play(Side::North, &quoting(&now)), Ok(()));
    }

    #[test]
    fn a_kept_condition_plays_its_answer_when_its_reply_comes() {
        let mut hosted = game(Standing::Playing, None);
        hosted.play(Side::South, &pits("c"), 200).unwrap();
        let kept = hosted.keep_conditions(Side::South, &[(pits("c"), pits("d"))]);
        assert_eq!(
            kept,
            Ok(Event::ConditionsKept {
                side: Side::South,
                kept: vec![condition(Side::South, "c", "d")],
                dropped: Vec::new(),
                cut: false,
            })
        );
        hosted.play(Side::North, &pits("c"), 300).unwrap();
        let events = hosted.answer_conditions(400);
        assert!(
            matches!(events.as_slice(), [Event::ConditionPlayed { condition: c }, Event::Played { side: Side::South, .. }] if *c == condition(Side::South, "c", "d")),
            "{events:?}"
        );
        assert_eq!(
            hosted.record().turns.len(),
            3,
            "the answer is a turn of the record"
        );
        assert_eq!(hosted.game().ply(), 3, "and of the game");
        assert!(hosted.record().conditions.is_empty(), "played once");
    }

    #[test]
    fn a_condition_whose_reply_does_not_come_is_dropped_with_what_came() {
        let mut hosted = game(Standing::Playing, None);
        hosted.play(Side::South, &pits("c"), 200).unwrap();
        hosted
            .keep_conditions(Side::South, &[(pits("c"), pits("d"))])
            .unwrap();
        hosted.play(Side::North, &pits("e"), 300).unwrap();
        assert_eq!(
            hosted.answer_conditions(400),
            vec![Event::ConditionsMissed {
                side: Side::South,
                waiting: vec![condition(Side::South, "c", "d")],
                played: pits("e"),
            }]
        );
        assert!(hosted.record().conditions.is_empty());
        assert_eq!(hosted.game().to_move(), Some(Side::South), "nothing played");
    }

    #[test]
    fn if_lines_are_checked_against_the_position_the_opponent_answers() {
        let mut hosted = game(Standing::Playing, None);
        assert_eq!(
            hosted.keep_conditions(Side::South, &[(pits("c"), pits("d"))]),
            Err(GameRefusal::ConditionsNeedMove),
            "before the writer's move"
        );
        hosted.play(Side::South, &pits("c"), 200).unwrap();
        let no_such = pits("h"); // Wari has six pits a side
        let lines = [
            (no_such.clone(), pits("d")),
            (pits("a"), pits("d")),
            (pits("a"), pits("e")),
            (pits("b"), no_such),
        ];
        let Ok(Event::ConditionsKept { kept, dropped, .. }) =
            hosted.keep_conditions(Side::South, &lines)
        else {
            panic!("kept");
        };
        assert_eq!(kept, vec![condition(Side::South, "a", "d")]);
        let why: Vec<&Dropped> = dropped.iter().map(|(_, why)| why).collect();
        assert!(
            matches!(
                why.as_slice(),
                [
                    Dropped::ReplyIllegal,
                    Dropped::Repeated,
                    Dropped::Answer(GameRefusal::Illegal(_))
                ]
            ),
            "{why:?}"
        );
        assert_eq!(hosted.record().conditions, kept, "the kept line stored");
        let many = vec![(pits("a"), pits("d")); CONDITIONS + 1];
        let cut = hosted.keep_conditions(Side::South, &many);
        assert!(matches!(cut, Ok(Event::ConditionsKept { cut: true, .. })));
        let mut computer = game(Standing::Playing, Some(Side::North));
        computer.play(Side::South, &pits("c"), 200).unwrap();
        assert_eq!(
            computer.keep_conditions(Side::South, &[(pits("c"), pits("d"))]),
            Err(GameRefusal::NoConditionsAgainstComputer)
        );
    }

    #[test]
    fn an_invitation_is_answered_by_its_invitee_alone_and_once() {
        let invited = Standing::Invited {
            invitee: Side::North,
        };
        let mut hosted = game(invited, None);
        assert_eq!(
            hosted.accept_invitation(Side::South, 200),
            Err(GameRefusal::NotInvited)
        );
        hosted.name_invitee(Side::South, "Mallory".into());
        assert_eq!(hosted.name(Side::South), "Alice", "only the invitee's name");
        hosted.name_invitee(Side::North, "Robert".into());
        assert_eq!(hosted.name(Side::North), "Robert");
        assert_eq!(
            hosted.decline_invitation(Side::North, 300),
            Ok(Event::InvitationDeclined { by: Side::North })
        );
        assert_eq!(hosted.record().standing, Standing::Declined);
        assert_eq!(hosted.record().last_activity, 300);
        assert_eq!(
            hosted.accept_invitation(Side::North, 400),
            Err(GameRefusal::NotInvited),
            "a declined game stays declined"
        );
        let mut hosted = game(invited, None);
        assert_eq!(
            hosted.accept_invitation(Side::North, 200),
            Ok(Event::InvitationAccepted { by: Side::North })
        );
        assert_eq!(hosted.record().standing, Standing::Playing);
        hosted.key_shown(Side::North);
        assert!(!hosted.record().inviter_confirmed, "the invitee's key");
        hosted.key_shown(Side::South);
        assert!(hosted.record().inviter_confirmed, "the inviter's own key");
    }
}
