//! The players' Glicko-2 ratings, per ruleset, kept as games end: each
//! game counted once, by its id. A player's rows (one per ruleset) are
//! kept together, so that a count touches its two players alone and a
//! question reads only the rows it shows (see the index's module for the
//! files and how a count survives a crash). The rows are those a replay
//! of every rated game in the order they ended would draw.

use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::{GameId, GameRecord, Standing};
use crate::address::mailbox_key;
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

/// Ratings as a question gets them: the best of each ruleset asked (and
/// the asker's own rows), and whether there were more than were shown.
#[derive(Debug, Default, PartialEq)]
pub struct Leaders {
    pub list: Vec<Rating>,
    pub cut: bool,
}

/// The width of a band of the ladder, in rating points: the best of a
/// ruleset are found by reading its highest bands only.
const BAND: f64 = 10.0;

/// The band of the ladder a rating is filed in.
pub(super) fn band(rating: f64) -> i64 {
    // `as` saturates (and makes NaN 0): a damaged file files somewhere.
    (rating / BAND).floor() as i64
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

/// What a rated game changes: its ruleset, its players' mailboxes and
/// names (South's first) and who won.
#[derive(Clone, Debug)]
pub(super) struct Count {
    pub id: GameId,
    pub ruleset: Ruleset,
    pub mailboxes: [String; 2],
    names: [String; 2],
    winner: Option<Side>,
}

impl Count {
    /// The count of `record`, if it is a rated game between two mailboxes
    /// (one person on both sides is no contest).
    pub fn of(record: &GameRecord) -> Option<Count> {
        let game = record.game().ok()?;
        rated(record, &game)?;
        let winner = game.outcome()?.winner;
        let mailboxes = Side::BOTH
            .map(|side| mailbox_key(record.player(side).address.as_deref().unwrap_or_default()));
        if mailboxes[0] == mailboxes[1] {
            return None;
        }
        Some(Count {
            id: record.id.clone(),
            ruleset: record.ruleset,
            mailboxes,
            names: Side::BOTH.map(|side| record.player(side).name.clone()),
            winner,
        })
    }

    /// Counts the game in its players' files (South's first). A row whose
    /// last game is this one has it already (a count a crash cut short):
    /// it is left as it is, and the other is counted from its state before.
    pub fn apply(&self, players: &mut [Player; 2]) {
        let rows = players.each_mut().map(|p| p.row(self.ruleset));
        let counted = rows
            .each_ref()
            .map(|row| row.last.as_ref() == Some(&self.id));
        let before = [0, 1].map(|i| {
            let row = &rows[i];
            glicko_of(if counted[i] { row.before } else { row.glicko })
        });
        let outcome = match self.winner {
            Some(Side::South) => Outcomes::WIN,
            Some(Side::North) => Outcomes::LOSS,
            None => Outcomes::DRAW,
        };
        let (south, north) = glicko2(&before[0], &before[1], &outcome, &Glicko2Config::new());
        for (i, (row, new)) in rows.into_iter().zip([south, north]).enumerate() {
            if counted[i] {
                continue;
            }
            let side = Side::BOTH[i];
            row.name = self.names[i].clone();
            row.games += 1;
            match self.winner {
                None => row.draws += 1,
                Some(w) if w == side => row.wins += 1,
                Some(_) => row.losses += 1,
            }
            row.before = row.glicko;
            row.glicko = bits_of(&new);
            row.last = Some(self.id.clone());
        }
    }
}

/// A player's rows, one per ruleset played: their file in the index.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Player {
    pub mailbox: String,
    rows: Vec<Row>,
}

/// A player's row in one ruleset: the Glicko-2 numbers as their bits, so
/// that a round trip through the file changes nothing.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Row {
    ruleset: Ruleset,
    name: String,
    /// rating, deviation, volatility
    glicko: [u64; 3],
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    /// The last game counted, and the numbers before it: what finishes
    /// a count that a crash cut short between the players' files.
    last: Option<GameId>,
    before: [u64; 3],
}

fn glicko_of(bits: [u64; 3]) -> Glicko2Rating {
    let [rating, deviation, volatility] = bits.map(f64::from_bits);
    Glicko2Rating {
        rating,
        deviation,
        volatility,
    }
}

fn bits_of(glicko: &Glicko2Rating) -> [u64; 3] {
    [glicko.rating, glicko.deviation, glicko.volatility].map(f64::to_bits)
}

impl Player {
    pub fn new(mailbox: &str) -> Player {
        Player {
            mailbox: mailbox.to_string(),
            rows: Vec::new(),
        }
    }

    /// The row of `ruleset`, made if new.
    fn row(&mut self, ruleset: Ruleset) -> &mut Row {
        let at = match self.rows.iter().position(|r| r.ruleset == ruleset) {
            Some(at) => at,
            None => {
                let fresh = bits_of(&Glicko2Rating::new());
                self.rows.push(Row {
                    ruleset,
                    name: String::new(),
                    glicko: fresh,
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    last: None,
                    before: fresh,
                });
                self.rows.len() - 1
            }
        };
        &mut self.rows[at]
    }

    /// The player's standing in `ruleset`, if they played it.
    pub fn rating(&self, ruleset: Ruleset) -> Option<Rating> {
        let row = self.rows.iter().find(|r| r.ruleset == ruleset)?;
        let glicko = glicko_of(row.glicko);
        Some(Rating {
            ruleset,
            name: row.name.clone(),
            rating: glicko.rating,
            deviation: glicko.deviation,
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            mailbox: self.mailbox.clone(),
        })
    }

    /// Every row's standing.
    pub fn ratings(&self) -> impl Iterator<Item = Rating> + '_ {
        self.rows.iter().filter_map(|r| self.rating(r.ruleset))
    }

    /// The bands `ruleset`'s row is filed in now, and was before its
    /// last count (where an entry may be left to take away).
    pub fn bands(&self, ruleset: Ruleset) -> Option<(i64, i64)> {
        let row = self.rows.iter().find(|r| r.ruleset == ruleset)?;
        let [now, before] = [row.glicko, row.before].map(|g| band(glicko_of(g).rating));
        Some((now, before))
    }
}

/// Ratings in the order every table shows them: by ruleset, best first.
pub fn sort(list: &mut [Rating]) {
    list.sort_by(|a, b| {
        (a.ruleset.as_str(), -a.rating, &a.mailbox)
            .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
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
