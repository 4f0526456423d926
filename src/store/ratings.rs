//! The players' Glicko-2 ratings, per ruleset, drawn from the finished
//! games in the store. They are never stored: each listing replays every
//! rated game in the order the games ended, so a game counts exactly once
//! however often its last mail is delivered, and a damaged or lost ratings
//! file cannot exist.

use std::collections::HashMap;

use serde::Serialize;
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::{mailbox_key, GameRecord, Standing};
use crate::engine::{Ruleset, Side};

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

/// A game that counts: finished, between two people who both agreed to play.
fn rated(record: &GameRecord) -> Option<(u64, Option<Side>)> {
    if record.computer.is_some() || record.standing != Standing::Playing {
        return None;
    }
    let addresses = Side::BOTH.map(|s| record.player(s).address.clone());
    if addresses.iter().any(Option::is_none) {
        return None;
    }
    let outcome = record.game().ok()?.outcome()?;
    let ended = record.ended()?;
    Some((ended, outcome.winner))
}

/// Everyone's ratings in `ruleset` (or every ruleset), best first.
pub fn ratings(games: &[GameRecord], ruleset: Option<Ruleset>) -> Vec<Rating> {
    let mut finished: Vec<(u64, &GameRecord, Option<Side>)> = games
        .iter()
        .filter(|r| ruleset.is_none_or(|want| r.ruleset == want))
        .filter_map(|r| rated(r).map(|(ended, winner)| (ended, r, winner)))
        .collect();
    // In the order they ended; the id breaks ties, so every listing agrees.
    finished.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    let config = Glicko2Config::new();
    let mut table: HashMap<(Ruleset, String), (Glicko2Rating, Rating)> = HashMap::new();
    for (_, record, winner) in finished {
        let keys = Side::BOTH.map(|side| {
            let address = record.player(side).address.as_deref().unwrap_or_default();
            (record.ruleset, mailbox_key(address))
        });
        if keys[0].1 == keys[1].1 {
            continue; // one person on both sides is no contest
        }
        let entry = |table: &mut HashMap<_, _>, side: Side| {
            let key: &(Ruleset, String) = &keys[side.index()];
            table
                .entry(key.clone())
                .or_insert_with(|| {
                    (
                        Glicko2Rating::new(),
                        Rating {
                            ruleset: record.ruleset,
                            name: String::new(),
                            rating: 0.0,
                            deviation: 0.0,
                            games: 0,
                            wins: 0,
                            draws: 0,
                            losses: 0,
                            mailbox: key.1.clone(),
                        },
                    )
                })
                .clone()
        };
        let (south, north) = (
            entry(&mut table, Side::South),
            entry(&mut table, Side::North),
        );
        let outcome = match winner {
            Some(Side::South) => Outcomes::WIN,
            Some(Side::North) => Outcomes::LOSS,
            None => Outcomes::DRAW,
        };
        let (south_new, north_new) = glicko2(&south.0, &north.0, &outcome, &config);
        for (side, (_, mut tally), new) in [
            (Side::South, south, south_new),
            (Side::North, north, north_new),
        ] {
            tally.name = record.player(side).name.clone();
            tally.games += 1;
            match winner {
                None => tally.draws += 1,
                Some(w) if w == side => tally.wins += 1,
                Some(_) => tally.losses += 1,
            }
            tally.rating = new.rating;
            tally.deviation = new.deviation;
            table.insert(keys[side.index()].clone(), (new, tally));
        }
    }
    let mut list: Vec<Rating> = table.into_values().map(|(_, r)| r).collect();
    list.sort_by(|a, b| {
        (a.ruleset.as_str(), -a.rating, &a.mailbox)
            .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    list
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
