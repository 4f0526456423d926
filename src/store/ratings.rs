//! The players' Glicko-2 ratings, per ruleset, kept as games end: each
//! game counted once, by its id, in the order the games ended (see the
//! index's module for how a count survives a crash). The table is the
//! same as a replay of every rated game in that order would draw.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::{mailbox_key, GameId, GameRecord, Standing};
use crate::engine::{Game, Ruleset, Side};

/// One player's standing in one ruleset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub ruleset: Ruleset,
    /// The name of their latest rated game.
    pub name: String,
    pub rating: f64,
    pub deviation: f64,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Their mailbox, as the limits count it (lowercase, no `+tag`).
    #[serde(skip)]
    pub mailbox: String,
}

/// When a game that counts ended: finished, between two people who both
/// agreed to play.
pub fn rated(record: &GameRecord, game: &Game) -> Option<u64> {
    if record.computer.is_some() || record.standing != Standing::Playing {
        return None;
    }
    if Side::BOTH
        .iter()
        .any(|&s| record.player(s).address.is_none())
    {
        return None;
    }
    game.outcome()?;
    record.ended()
}

/// The ratings table: every player's Glicko-2 state in each ruleset they
/// played, and the last game counted (see the index's module).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Table {
    pub last: Option<GameId>,
    players: Vec<Kept>,
    #[serde(skip)]
    index: HashMap<(Ruleset, String), usize>,
}

/// A player's row as the table file keeps it: the Glicko-2 numbers as
/// their bits, so that a round trip through the file changes nothing.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Kept {
    ruleset: Ruleset,
    mailbox: String,
    name: String,
    /// rating, deviation, volatility
    glicko: [u64; 3],
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
}

impl Kept {
    fn glicko(&self) -> Glicko2Rating {
        let [rating, deviation, volatility] = self.glicko.map(f64::from_bits);
        Glicko2Rating {
            rating,
            deviation,
            volatility,
        }
    }
}

impl Table {
    /// Counts an ended game (a game that does not count changes nothing
    /// but `last`). The caller sees that each game comes once.
    pub fn count(&mut self, record: &GameRecord) {
        self.last = Some(record.id.clone());
        let game = record.game().ok().filter(|g| rated(record, g).is_some());
        let Some(winner) = game.and_then(|g| g.outcome()).map(|o| o.winner) else {
            return;
        };
        let mailboxes = Side::BOTH
            .map(|side| mailbox_key(record.player(side).address.as_deref().unwrap_or_default()));
        if mailboxes[0] == mailboxes[1] {
            return; // one person on both sides is no contest
        }
        let rows = Side::BOTH.map(|side| self.row(record.ruleset, &mailboxes[side.index()]));
        let outcome = match winner {
            Some(Side::South) => Outcomes::WIN,
            Some(Side::North) => Outcomes::LOSS,
            None => Outcomes::DRAW,
        };
        let [south, north] = rows.map(|row| self.players[row].glicko());
        let (south, north) = glicko2(&south, &north, &outcome, &Glicko2Config::new());
        for (side, new) in [(Side::South, south), (Side::North, north)] {
            let row = &mut self.players[rows[side.index()]];
            row.name = record.player(side).name.clone();
            row.games += 1;
            match winner {
                None => row.draws += 1,
                Some(w) if w == side => row.wins += 1,
                Some(_) => row.losses += 1,
            }
            row.glicko = [new.rating, new.deviation, new.volatility].map(f64::to_bits);
        }
    }

    /// The row of `mailbox` in `ruleset`, made if new.
    fn row(&mut self, ruleset: Ruleset, mailbox: &str) -> usize {
        if self.index.len() != self.players.len() {
            self.index = (self.players.iter().enumerate())
                .map(|(i, k)| ((k.ruleset, k.mailbox.clone()), i))
                .collect();
        }
        let players = &mut self.players;
        *self
            .index
            .entry((ruleset, mailbox.to_string()))
            .or_insert_with(|| {
                let fresh = Glicko2Rating::new();
                players.push(Kept {
                    ruleset,
                    mailbox: mailbox.to_string(),
                    name: String::new(),
                    glicko: [fresh.rating, fresh.deviation, fresh.volatility].map(f64::to_bits),
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                });
                players.len() - 1
            })
    }

    /// Everyone's ratings in `ruleset` (or every ruleset), best first.
    pub fn list(&self, ruleset: Option<Ruleset>) -> Vec<Rating> {
        let mut list: Vec<Rating> = (self.players.iter())
            .filter(|k| ruleset.is_none_or(|want| k.ruleset == want))
            .map(|k| {
                let glicko = k.glicko();
                Rating {
                    ruleset: k.ruleset,
                    name: k.name.clone(),
                    rating: glicko.rating,
                    deviation: glicko.deviation,
                    games: k.games,
                    wins: k.wins,
                    draws: k.draws,
                    losses: k.losses,
                    mailbox: k.mailbox.clone(),
                }
            })
            .collect();
        list.sort_by(|a, b| {
            (a.ruleset.as_str(), -a.rating, &a.mailbox)
                .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        list
    }
}

/// The first `most` of each ruleset in `list`, and every row of `mailbox`
/// (a player's mail shows them where they stand, not the whole club).
pub fn leaders(list: &[Rating], most: usize, mailbox: &str) -> Vec<Rating> {
    let mut kept = Vec::new();
    let mut place = 0;
    for (i, rating) in list.iter().enumerate() {
        place = match i.checked_sub(1).map(|p| list[p].ruleset) {
            Some(before) if before == rating.ruleset => place + 1,
            _ => 0,
        };
        if place < most || rating.mailbox == mailbox {
            kept.push(rating.clone());
        }
    }
    kept
}

/// The ratings as a table for a mail or a terminal, a block per ruleset.
pub fn table(list: &[Rating]) -> String {
    use std::fmt::Write as _;
    if list.is_empty() {
        return "No rated games yet: a game counts when two people finish it.\n".to_string();
    }
    let mut out = String::new();
    let mut current = None;
    for r in list {
        if current != Some(r.ruleset) {
            if current.is_some() {
                out.push('\n');
            }
            current = Some(r.ruleset);
            let _ = writeln!(out, "{}", r.ruleset.title());
            let _ = writeln!(
                out,
                "  {:<20} {:>6} {:>5} {:>5} {:>4} {:>5} {:>6}",
                "player", "rating", "+/-", "games", "won", "drawn", "lost"
            );
        }
        // A name from a damaged store must not draw on the terminal.
        let name: String = r
            .name
            .chars()
            .filter(|c| !c.is_control())
            .take(20)
            .collect();
        let _ = writeln!(
            out,
            "  {name:<20} {:>6.0} {:>5.0} {:>5} {:>4} {:>5} {:>6}",
            r.rating, r.deviation, r.games, r.wins, r.draws, r.losses
        );
    }
    out
}
