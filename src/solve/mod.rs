//! Perfect play: endgame tables, an exact solver and game analysis.
//!
//! Values are for the side to move. In Mankala a value is the final score
//! margin under perfect play (the mover's pits plus home at the end, less
//! the opponent's); in Waurie it is +1 for a win and -1 for a loss. Wari
//! games have a repetition rule, so a position's value there depends on
//! the game's history: the solver searches them but never calls the
//! result exact.

pub mod analyze;
mod below;
mod built_in;
mod capture;
mod check;
pub mod dfpn;
mod history;
pub mod memo;
pub mod rank;
pub mod search;
pub mod tables;

pub use analyze::{analyze, Analysis, TurnAnalysis};
pub use check::Disagreement;
pub use search::{BoundTest, Proved, Solution, Solver};
pub use tables::{Budget, TableError, Tables, Written};

use crate::engine::Position;

/// How a game is valued by its position alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// The final margin, pits plus home (Mankala).
    Margin,
    /// +1 win, -1 loss (Waurie).
    WinLoss,
}

impl Scoring {
    /// The value of a finished position for its side to move.
    pub fn final_value(self, position: &Position) -> i32 {
        let Some(outcome) = position.outcome() else {
            return 0;
        };
        let mover = position.to_move();
        match self {
            Scoring::Margin => {
                i32::from(outcome.score_of(mover)) - i32::from(outcome.score_of(mover.other()))
            }
            Scoring::WinLoss => match outcome.winner {
                Some(w) if w == mover => 1,
                Some(_) => -1,
                None => 0,
            },
        }
    }

    /// What the homes add to a position's value: the pits decide the rest.
    pub fn home_term(self, position: &Position) -> i32 {
        match self {
            Scoring::Margin => {
                let mover = position.to_move();
                i32::from(position.store(mover)) - i32::from(position.store(mover.other()))
            }
            Scoring::WinLoss => 0,
        }
    }
}

#[cfg(test)]
mod capture_tests;
#[cfg(test)]
mod tests;
