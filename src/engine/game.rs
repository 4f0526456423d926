//! A game: a start, the sowings played, and the rules that need history
//! (repetition) or a player's word (resignation).

use super::errors::{PlayError, PlayErrorKind, TurnError};
use super::position::{Position, Sowing};
use super::{EndReason, Outcome, Pit, Rules, Side};

/// One sowing of the game's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedSowing {
    pub side: Side,
    pub pit: Pit,
}

#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    sowings: Vec<PlayedSowing>,
    /// The keys of the positions since the last capture, the first after
    /// sowing `keys_from`: captures cannot be undone, so no earlier
    /// position can come back.
    keys: Vec<u64>,
    keys_from: usize,
    /// One bit per key of `since_capture` (a Bloom filter): a position whose
    /// bit is clear was never seen, and needs no search.
    seen_bits: [u64; 4],
    outcome: Option<Outcome>,
}

fn seen_bit(key: u64) -> (usize, u64) {
    let bit = (key >> 56) as usize;
    (bit / 64, 1 << (bit % 64))
}

impl Game {
    pub fn new(rules: Rules, first: Side) -> Game {
        Game::from_position(Position::start(rules, first))
    }

    /// A game that starts from a set-up position.
    pub fn from_position(start: Position) -> Game {
        Game {
            start,
            position: start,
            // Room for a long game up front: growing these is a fair part
            // of a random playout's cost.
            sowings: Vec::with_capacity(256),
            keys: {
                let mut keys = Vec::with_capacity(128);
                keys.push(start.key());
                keys
            },
            keys_from: 0,
            seen_bits: {
                let mut bits = [0; 4];
                let (word, bit) = seen_bit(start.key());
                bits[word] = bit;
                bits
            },
            outcome: start.outcome(),
        }
    }

    pub fn rules(&self) -> &Rules {
        self.position.rules()
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    /// Who sowed first.
    pub fn first(&self) -> Side {
        self.start.to_move()
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn sowings(&self) -> &[PlayedSowing] {
        &self.sowings
    }

    /// The turns so far: each side's sowings in a row, bonus sowings
    /// included.
    pub fn turns(&self) -> impl Iterator<Item = &[PlayedSowing]> {
        self.sowings.chunk_by(|a, b| a.side == b.side)
    }

    /// Sowings played so far.
    pub fn ply(&self) -> usize {
        self.sowings.len()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The side to move, or `None` once the game is over.
    pub fn to_move(&self) -> Option<Side> {
        (!self.is_over()).then(|| self.position.to_move())
    }

    /// The pits the player to move may sow; empty once the game is over.
    #[inline]
    pub fn legal_moves(&self) -> super::PitSet {
        if self.is_over() {
            super::PitSet::EMPTY
        } else {
            self.position.legal_moves_while_playing()
        }
    }

    /// Plays one sowing for the side to move.
    ///
    /// # Errors
    /// When the move is not legal; the game is unchanged.
    pub fn play(&mut self, pit: Pit) -> Result<Sowing, PlayError> {
        if self.is_over() {
            return Err(PlayError {
                side: self.position.to_move(),
                pit,
                kind: PlayErrorKind::GameOver,
                legal: super::PitSet::EMPTY,
            });
        }
        let sowing = self.position.play(pit)?;
        self.record(sowing);
        Ok(sowing)
    }

    /// Plays `sowings` as one turn of `side`, a bonus sowing letting the
    /// turn go on: all of them, or none and why.
    ///
    /// # Errors
    /// A sowing the rules refuse, or one after the turn has passed; the
    /// game is then unchanged.
    pub fn play_turn(&mut self, side: Side, sowings: &[Pit]) -> Result<Vec<Sowing>, TurnError> {
        let before = self.clone();
        let mut sowed = Vec::new();
        for (i, &pit) in sowings.iter().enumerate() {
            let result = match self.to_move() == Some(side) {
                true => self.play(pit).map_err(TurnError::from),
                false => Err(TurnError::NoFreeTurn {
                    side,
                    played: sowings[..i].to_vec(),
                    rest: sowings[i..].to_vec(),
                }),
            };
            match result {
                Ok(sowing) => sowed.push(sowing),
                Err(error) => {
                    *self = before;
                    return Err(error);
                }
            }
        }
        Ok(sowed)
    }

    /// Plays a sowing already known to be legal (replays, search).
    #[inline]
    pub fn play_unchecked(&mut self, pit: Pit) -> Sowing {
        let sowing = self.position.play_unchecked(pit);
        self.record(sowing);
        sowing
    }

    #[inline]
    fn record(&mut self, sowing: Sowing) {
        self.sowings.push(PlayedSowing {
            side: sowing.side,
            pit: sowing.pit,
        });
        self.outcome = if self.position.is_over() {
            self.position.outcome()
        } else {
            None
        };
        if self.outcome.is_some() || !self.rules().repetition_ends {
            return;
        }
        if sowing.captured > 0 {
            self.keys.clear();
            self.keys_from = self.sowings.len();
            self.seen_bits = [0; 4];
        }
        let key = self.position.key();
        let (word, bit) = seen_bit(key);
        // Keys are hashes: a matching key is checked against the position
        // itself, replayed from the start (this happens about once a game).
        let seen = self.seen_bits[word] & bit != 0
            && self.keys.iter().enumerate().any(|(i, &k)| {
                k == key && self.position_after(self.keys_from + i) == self.position
            });
        if seen {
            // Rule 5 ("ko"): each wins the stones left on their own side.
            let score = Side::BOTH
                .map(|side| u16::from(self.position.store(side)) + self.position.row_total(side));
            self.outcome = Some(Outcome::by_score(EndReason::Repetition, score));
        } else {
            self.keys.push(key);
            self.seen_bits[word] |= bit;
        }
    }

    /// The position after the first `ply` sowings.
    fn position_after(&self, ply: usize) -> Position {
        let mut position = self.start;
        for sowing in &self.sowings[..ply] {
            position.play_unchecked(sowing.pit);
        }
        position
    }

    /// `side` gives up: the other side wins, whatever the board says.
    pub fn resign(&mut self, side: Side) {
        self.end_by(side, EndReason::Resignation);
    }

    /// `side` ran out of time.
    pub fn forfeit(&mut self, side: Side) {
        self.end_by(side, EndReason::Forfeit);
    }

    /// The players agree a draw, whatever the board says.
    pub fn agree_draw(&mut self) {
        if self.is_over() {
            return;
        }
        let score = Side::BOTH.map(|side| u16::from(self.position.store(side)));
        self.outcome = Some(Outcome {
            winner: None,
            reason: EndReason::Agreement,
            score,
        });
    }

    fn end_by(&mut self, loser: Side, reason: EndReason) {
        if self.is_over() {
            return;
        }
        let score = Side::BOTH.map(|side| u16::from(self.position.store(side)));
        self.outcome = Some(Outcome {
            winner: Some(loser.other()),
            reason,
            score,
        });
    }
}
