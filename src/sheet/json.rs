//! The position as JSON, for scripts and other programs.

use serde::Serialize;

use crate::engine::{Game, Side};

/// One position of a game, with the field names other tools rely on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionJson {
    pub ruleset: &'static str,
    pub stones: u8,
    /// The variant played, when not the ruleset's default rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'static str>,
    /// Sowings played.
    pub ply: usize,
    /// `null` once the game is over.
    pub to_move: Option<&'static str>,
    /// Each player's pits from their own `a`.
    pub south: Vec<u8>,
    pub north: Vec<u8>,
    /// Endpit or home, or the stones captured so far in Wari games.
    pub south_store: u8,
    pub north_store: u8,
    pub legal: Vec<String>,
    pub over: bool,
    /// `south`, `north` or `draw` once over.
    pub winner: Option<&'static str>,
    /// Why the game ended, once over.
    pub reason: Option<&'static str>,
    /// Final score, South's first, once over.
    pub score: Option<[u16; 2]>,
}

impl PositionJson {
    pub fn of(game: &Game) -> PositionJson {
        let position = game.position();
        let outcome = game.outcome();
        PositionJson {
            ruleset: game.rules().ruleset.as_str(),
            stones: game.rules().stones,
            variant: game.rules().variant_name(),
            ply: game.ply(),
            to_move: game.to_move().map(Side::as_str),
            south: position.pits(Side::South).to_vec(),
            north: position.pits(Side::North).to_vec(),
            south_store: position.store(Side::South),
            north_store: position.store(Side::North),
            legal: game
                .legal_moves()
                .into_iter()
                .map(|p| p.to_string())
                .collect(),
            over: outcome.is_some(),
            winner: outcome.map(|o| o.winner.map_or("draw", Side::as_str)),
            reason: outcome.map(|o| o.reason.as_str()),
            score: outcome.map(|o| o.score),
        }
    }
}
