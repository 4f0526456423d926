//! Why a move or a hand-made position is refused: errors written for players.

use std::fmt;

use super::{EndReason, Pit, PitSet, Side};

/// Why a move cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayErrorKind {
    GameOver,
    NoSuchPit,
    Empty,
    StarvesOpponent,
}

/// A move the rules do not allow, with the moves they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub struct PlayError {
    pub side: Side,
    pub pit: Pit,
    pub kind: PlayErrorKind,
    pub legal: PitSet,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (side, pit) = (self.side, self.pit);
        match self.kind {
            PlayErrorKind::GameOver => return f.write_str("the game is over"),
            PlayErrorKind::NoSuchPit => write!(f, "{side} has no pit {pit} on this board")?,
            PlayErrorKind::Empty => write!(f, "{side}'s {pit} is empty")?,
            PlayErrorKind::StarvesOpponent => write!(
                f,
                "{side}'s {pit} would leave {} with no stones",
                side.other()
            )?,
        }
        write!(f, "; legal: {}", self.legal)
    }
}

/// Why a turn (a sowing and the bonus sowings it earns) cannot be played whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    /// A sowing the rules refuse.
    #[error(transparent)]
    Illegal(#[from] PlayError),
    /// Sowings written on past the turn's end: `played` earned no free turn
    /// for `rest` (`played` is empty when the turn was not the side's).
    #[error("{}", no_free_turn(*side, played, rest))]
    NoFreeTurn {
        side: Side,
        played: Vec<Pit>,
        rest: Vec<Pit>,
    },
}

fn no_free_turn(side: Side, played: &[Pit], rest: &[Pit]) -> String {
    match played.is_empty() {
        true => format!(
            "it is not {side}'s turn, so {} cannot be sown",
            joined(rest)
        ),
        false => format!(
            "{side}'s {} earns no free turn, so {} cannot follow",
            joined(played),
            joined(rest)
        ),
    }
}

/// Pits as a turn is written: `c-f`.
fn joined(pits: &[Pit]) -> String {
    let letters: Vec<String> = pits.iter().map(Pit::to_string).collect();
    letters.join("-")
}

/// One thing wrong with a position set up by hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetUpFault {
    /// A row lists the wrong number of pits.
    RowLength { side: Side, listed: usize, pits: u8 },
    /// One pit holds more stones than the whole game has.
    PitOverTotal {
        side: Side,
        pit: Pit,
        stones: u8,
        total: u16,
    },
    /// The pits hold more stones than the game has.
    TooManyStones { in_pits: u16, total: u16 },
    /// Pits and stores do not make up the game's stones.
    Total { total: u16, expected: u16 },
    /// The position is a finished game.
    Over(EndReason),
}

impl fmt::Display for SetUpFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SetUpFault::RowLength { side, listed, pits } => {
                write!(f, "{side}'s row lists {listed} pits, the board has {pits}")
            }
            SetUpFault::PitOverTotal {
                side,
                pit,
                stones,
                total,
            } => write!(
                f,
                "{side}'s {pit} holds {stones}, more than the {total} stones of the game"
            ),
            SetUpFault::TooManyStones { in_pits, total } => write!(
                f,
                "the pits hold {in_pits} stones, more than the {total} of the game"
            ),
            SetUpFault::Total { total, expected } => write!(
                f,
                "pits and stores hold {total} stones, the game has {expected}"
            ),
            SetUpFault::Over(reason) => {
                write!(f, "the game would already be over ({})", reason.describe())
            }
        }
    }
}

/// A position the ruleset cannot have, with every reason found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SetUpError {
    pub faults: Vec<SetUpFault>,
}

impl fmt::Display for SetUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, fault) in self.faults.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{fault}")?;
        }
        Ok(())
    }
}
