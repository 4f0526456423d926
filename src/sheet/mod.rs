//! The game sheet: the board grid and numbered move log of Bill Taylor's
//! broadcast, the text players cut and paste between mails. It reads and
//! writes text; legality is the engine's.
//!
//! ```
//! use mancala::engine::Ruleset;
//! use mancala::sheet::{Players, Sheet};
//!
//! let sheet = Sheet::new(Ruleset::SuperWari.rules(), Players::named("Yourname", "Bill"));
//! let text = sheet.to_string();
//! assert!(text.contains("|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Bill\n"));
//! let again = Sheet::parse(&text).unwrap();
//! assert_eq!(again.to_string(), text);
//! ```

mod error;
pub mod html;
mod json;
mod parse;
mod render;
mod setup;

pub use error::{Place, SheetError};
pub use json::PositionJson;
pub use parse::{RawSheet, NOT_THE_GAME, NOT_THE_GAME_KINDS};
pub use render::{describe_position, setup_text};
pub use setup::{parse_pair, parse_rows, SetUpLine, SetUpTextError};

use crate::engine::{Game, Pit, PlayError, Rules, Side};

/// A player as the sheet shows them.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Player {
    pub name: String,
    /// Where the referee mails them, once a game is played by mail.
    pub address: Option<String>,
}

/// Both players, South's first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Players {
    pub south: Player,
    pub north: Player,
}

impl Players {
    pub fn named(south: &str, north: &str) -> Players {
        Players {
            south: Player {
                name: south.to_string(),
                address: None,
            },
            north: Player {
                name: north.to_string(),
                address: None,
            },
        }
    }

    pub fn get(&self, side: Side) -> &Player {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }

    pub fn get_mut(&mut self, side: Side) -> &mut Player {
        match side {
            Side::South => &mut self.south,
            Side::North => &mut self.north,
        }
    }
}

impl Default for Players {
    fn default() -> Players {
        Players::named("South", "North")
    }
}

/// A verified game with its players: what a sheet says, and all it says.
#[derive(Clone, Debug)]
pub struct Sheet {
    pub game: Game,
    pub players: Players,
    /// The game's id in the referee's store, when it keeps the game.
    pub id: Option<String>,
}

impl Sheet {
    /// A new game, South to move first unless `with_first` says otherwise.
    pub fn new(rules: Rules, players: Players) -> Sheet {
        Sheet {
            game: Game::new(rules, rules.default_first()),
            players,
            id: None,
        }
    }

    pub fn with_first(rules: Rules, players: Players, first: Side) -> Sheet {
        Sheet {
            game: Game::new(rules, first),
            players,
            id: None,
        }
    }

    /// A game that starts from `start`, a position set up by hand (or any).
    pub fn from_position(start: crate::engine::Position, players: Players) -> Sheet {
        Sheet {
            game: Game::from_position(start),
            players,
            id: None,
        }
    }

    /// Finds a sheet in any text, replays its log and checks the drawn
    /// board against it.
    ///
    /// # Errors
    /// When no sheet is found, it cannot be read, its log holds an illegal
    /// move, or the board drawn differs from the board the log gives.
    pub fn parse(text: &str) -> Result<Sheet, SheetError> {
        let raw = RawSheet::find(text)?;
        let sheet = raw.replay(raw.sowing_count())?;
        raw.check_board(&sheet.game)?;
        Ok(sheet)
    }

    /// Plays a sequence of sowings for whoever is to move.
    ///
    /// # Errors
    /// The first illegal sowing; the sowings before it stay played.
    pub fn play(&mut self, pits: &[Pit]) -> Result<(), PlayError> {
        for &pit in pits {
            self.game.play(pit)?;
        }
        Ok(())
    }

    /// The number of the log line the move awaited goes on.
    pub fn log_line_awaited(&self) -> usize {
        render::log_turns(&self.game).len().saturating_sub(1) / 2 + 1
    }

    /// The name of the player on `side`.
    pub fn name(&self, side: Side) -> &str {
        &self.players.get(side).name
    }
}

/// Reads a move as players write it: pits separated by `-`, `,` or blanks
/// (`c`, `c-f`, `c f`, `3-6`). The invisible characters web mail leaves in
/// copied text (zero-width spaces and joiners, a byte-order mark) are blanks.
///
/// # Errors
/// When a part names no pit.
pub fn parse_sowings(text: &str) -> Result<Vec<Pit>, crate::engine::ParsePitError> {
    let invisible = |c: char| matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}');
    text.split(|c: char| c == '-' || c == ',' || c.is_whitespace() || invisible(c))
        .filter(|part| !part.is_empty())
        .map(str::parse)
        .collect()
}

/// A turn as the sheet writes it and [`parse_sowings`] reads it: `c-f`.
pub fn written(sowings: &[Pit]) -> String {
    let letters: Vec<String> = sowings.iter().map(Pit::to_string).collect();
    letters.join("-")
}

#[cfg(test)]
mod tests;
