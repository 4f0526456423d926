//! A game the referee hosts: its stored record and the game its turns
//! replay, held once. Each act changes both together and tells what
//! happened as [`Event`]s, or why it was refused as a [`GameRefusal`];
//! the mail layer puts them into words. The sheet mails show is drawn
//! from it, never written back.

use crate::engine::{Game, Pit, PlayError, Side, Sowing, SplitMix64};
use crate::opponent::{Opponent, Reason};
use crate::sheet::Sheet;
use crate::store::{
    sheet_of, Concession, GameRecord, Ledger, Ledgered, Memory, OfferKind, ReplayError,
};
use crate::store::{Offer, Standing, Store, StoreError};

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
    /// `by` offers a draw, or asks to take back their `last_turn`.
    Offered {
        by: Side,
        kind: OfferKind,
        last_turn: Vec<Pit>,
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
}

/// Why the game refused an act.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameRefusal {
    GameOver,
    NotYourTurn {
        to_move: Side,
    },
    /// A sowing the rules refuse.
    Illegal(PlayError),
    /// A turn written on past its end: `played`, then `rest` with no free turn.
    NoFreeTurn {
        played: Vec<Pit>,
        rest: Vec<Pit>,
    },
    /// No offer of the opponent's stands to be answered.
    NoOffer,
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
}

/// Plays `sowings` as one turn of `side` (a bonus sowing lets the turn go
/// on): all of them, or none and why.
pub fn sow_turn(game: &mut Game, side: Side, sowings: &[Pit]) -> Result<Vec<Sowing>, GameRefusal> {
    let before = game.clone();
    let mut sowed = Vec::new();
    for (i, &pit) in sowings.iter().enumerate() {
        if game.to_move() != Some(side) {
            *game = before;
            return Err(GameRefusal::NoFreeTurn {
                played: sowings[..i].to_vec(),
                rest: sowings[i..].to_vec(),
            });
        }
        match game.play(pit) {
            Ok(sowing) => sowed.push(sowing),
            Err(error) => {
                *game = before;
                return Err(GameRefusal::Illegal(error));
            }
        }
    }
    Ok(sowed)
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

    /// The record, for the acts not yet the game's own.
    pub fn record_mut(&mut self) -> &mut GameRecord {
        &mut self.record
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
        let to_move = self.game.to_move().ok_or(GameRefusal::GameOver)?;
        if to_move != side {
            return Err(GameRefusal::NotYourTurn { to_move });
        }
        let sowed = sow_turn(&mut self.game, side, sowings)?;
        self.record.standing = Standing::Playing;
        let mut events = vec![Event::Played {
            side,
            sowings: sowed,
        }];
        events.extend(self.turn_recorded(side, now));
        Ok(events)
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
    /// `side` offers `kind`, in the mail of `event`.
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
        })
    }

    /// The opponent's offer `side` may answer now, if the mail answers
    /// the mail of `answering` (an event), sent while it stood, or says
    /// not which.
    fn open_offer(&self, side: Side, answering: Option<u32>) -> Result<Offer, GameRefusal> {
        let offer = self
            .record
            .offer
            .clone()
            .filter(|o| o.by != side && o.turns == self.record.turns.len())
            .filter(|_| !self.game.is_over())
            .ok_or(GameRefusal::NoOffer)?;
        match answering {
            Some(event) if event < offer.event => Err(GameRefusal::OfferSince {
                by: offer.by,
                kind: offer.kind,
            }),
            _ => Ok(offer),
        }
    }

    /// `side` accepts the opponent's offer: a draw, or their last turn undone.
    ///
    /// # Errors
    /// When no offer stands to be answered (or a newer one stands).
    pub fn accept(
        &mut self,
        side: Side,
        answering: Option<u32>,
        now: u64,
    ) -> Result<Event, GameRefusal> {
        let offer = self.open_offer(side, answering)?;
        let event = match offer.kind {
            OfferKind::Draw => {
                self.game.agree_draw();
                self.record.concede(offer.by, Concession::Draw, now);
                Event::DrawAgreed {
                    by: side,
                    offered_by: offer.by,
                }
            }
            OfferKind::Takeback => {
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
                self.record.conditions.clear();
                Event::TakenBack {
                    by: side,
                    offered_by: offer.by,
                    undone: undone.sowings,
                }
            }
        };
        self.record.offer = None;
        Ok(event)
    }

    /// `side` declines the opponent's offer.
    ///
    /// # Errors
    /// As [`HostedGame::accept`].
    pub fn decline(
        &mut self,
        side: Side,
        answering: Option<u32>,
        now: u64,
    ) -> Result<Event, GameRefusal> {
        let offer = self.open_offer(side, answering)?;
        self.record.offer = None;
        self.record.last_activity = now;
        Ok(Event::OfferDeclined {
            by: side,
            offered_by: offer.by,
            kind: offer.kind,
        })
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

impl Ledgered for HostedGame {
    const MEMORY: Memory = GameRecord::MEMORY;
    fn ledger(&self) -> &Ledger {
        self.record.ledger()
    }
    fn ledger_mut(&mut self) -> &mut Ledger {
        self.record.ledger_mut()
    }
    fn save(&self, store: &Store, durable: bool) -> Result<(), StoreError> {
        self.record.save(store, durable)
    }
}
