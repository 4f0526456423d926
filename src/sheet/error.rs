//! What is wrong with a sheet, and where on the board.

use std::fmt;

use super::setup::SetUpTextError;
use crate::engine::{Pit, PlayError, RulesError, Ruleset, SetUpError, Side};

/// What is wrong with a sheet, said so that a player can fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SheetError {
    #[error("no game sheet found: expected a board grid (lines like '+----+----+') with a move log under it")]
    NoSheet,
    #[error("two sheets of this game in your mail log different moves ({one} and {other}), so neither was played: send one")]
    SheetsDisagree { one: String, other: String },
    #[error("the board's {row} row cannot be read: {problem}")]
    BadRow { row: &'static str, problem: String },
    #[error("no move log found under the board (a line '1.' under the players' names)")]
    NoLog,
    #[error("a {pits}-pit sheet must say which game it is, with a line like 'Game: {example}' above the board")]
    UnnamedGame { pits: u8, example: &'static str },
    #[error("the 'Game:' line cannot be read: {0}")]
    GameLine(String),
    #[error("the 'Set up:' line cannot be read: {0}")]
    SetUpLine(#[from] SetUpTextError),
    #[error("the position set up cannot start a game: {0}")]
    SetUp(#[from] SetUpError),
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("the sheet says {ruleset}, which has {expected} pits a row{stores}, but the board draws {pits}")]
    Layout {
        ruleset: Ruleset,
        expected: u8,
        stores: &'static str,
        pits: u8,
    },
    #[error("log line {line}: '{text}' is not a move (moves are pits such as c, or c-f for a bonus sowing)")]
    BadLogMove { line: usize, text: String },
    #[error("log line {line}: {problem}")]
    BadLogLine { line: usize, problem: String },
    #[error("move {line}: {error}")]
    Move { line: usize, error: PlayError },
    #[error("move {line}: {side}'s {turn} ends in the store and earns another sowing; write it as {turn}-<pit>")]
    MissingBonus {
        line: usize,
        side: Side,
        turn: String,
    },
    #[error("move {line}: {side}'s {turn} sows again after a sowing that earned no bonus")]
    NoBonus {
        line: usize,
        side: Side,
        turn: String,
    },
    #[error("move {line}: the game was already over")]
    AfterEnd { line: usize },
    #[error("the board does not match the log: {what} shows {drawn}, the log gives {expected}")]
    Mismatch {
        what: Place,
        drawn: u8,
        expected: u8,
    },
}

/// A place on the board, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Pit(Side, Pit),
    Store(Side),
    Captured(Side),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Pit(side, pit) => write!(f, "{side}'s {pit}"),
            Place::Store(side) => write!(f, "{side}'s store"),
            Place::Captured(side) => write!(f, "{side}'s captured total"),
        }
    }
}
