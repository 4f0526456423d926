//! The players' Glicko-2 ratings, per ruleset, kept as games end: each
//! game counted once, by its id, in the transaction that ends it. The rows
//! are those a replay of every rated game in the order they ended would
//! draw.

use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::db::params;
use super::{GameRecord, Standing, Store, StoreError};
use crate::address::mailbox_key;
use crate::engine::{Game, Ruleset, Side};

/// One player's standing in one ruleset (read from a row of
/// [`RATING_COLUMNS`], in order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(skip_serializing)]
    pub mailbox: String,
}

/// Ratings as a question gets them: the best of each ruleset asked (and
/// the asker's own rows), and whether there were more than were shown.
#[derive(Debug, Default, PartialEq)]
pub struct Leaders {
    pub list: Vec<Rating>,
    pub cut: bool,
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

/// Counts `record` in its players' rows if it has ended, is rated, and
/// was not counted before (each game once, by its id), in the transaction
/// that saves it. One person on both sides is no contest.
pub(super) fn count_if_ended(
    store: &Store,
    record: &GameRecord,
    game: &Game,
) -> Result<(), StoreError> {
    if rated(record, game).is_none() {
        return Ok(());
    }
    let Some(outcome) = game.outcome() else {
        return Ok(());
    };
    let mailboxes = Side::BOTH
        .map(|side| mailbox_key(record.player(side).address.as_deref().unwrap_or_default()));
    if mailboxes[0] == mailboxes[1] {
        return Ok(());
    }
    let id = record.id.as_str();
    if store.execute(
        "INSERT INTO rated (game) VALUES ($1) ON CONFLICT (game) DO NOTHING",
        params![id],
    )? == 0
    {
        return Ok(()); // counted before
    }
    let ruleset = record.ruleset.as_str();
    let mut rows = Vec::new();
    for mailbox in &mailboxes {
        let found: Vec<(f64, f64, f64, u64, u64, u64, u64)> = store.query(
            "SELECT rating, deviation, volatility, games, wins, draws, losses FROM ratings
             WHERE mailbox = $1 AND ruleset = $2",
            params![mailbox.as_str(), ruleset],
        )?;
        rows.push(match found.into_iter().next() {
            Some((rating, deviation, volatility, games, wins, draws, losses)) => {
                let glicko = Glicko2Rating {
                    rating,
                    deviation,
                    volatility,
                };
                (glicko, [games, wins, draws, losses])
            }
            None => (Glicko2Rating::new(), [0; 4]),
        });
    }
    let outcome_for_south = match outcome.winner {
        Some(Side::South) => Outcomes::WIN,
        Some(Side::North) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (south, north) = glicko2(
        &rows[0].0,
        &rows[1].0,
        &outcome_for_south,
        &Glicko2Config::new(),
    );
    for (i, new) in [south, north].into_iter().enumerate() {
        let side = Side::BOTH[i];
        let [games, mut wins, mut draws, mut losses] = rows[i].1;
        match outcome.winner {
            None => draws += 1,
            Some(w) if w == side => wins += 1,
            Some(_) => losses += 1,
        }
        store.execute(
            "INSERT INTO ratings (mailbox, ruleset, name, rating, deviation, volatility, games,
              wins, draws, losses) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (mailbox, ruleset) DO UPDATE SET name = excluded.name,
              rating = excluded.rating, deviation = excluded.deviation,
              volatility = excluded.volatility, games = excluded.games, wins = excluded.wins,
              draws = excluded.draws, losses = excluded.losses",
            params![
                mailboxes[i].as_str(),
                ruleset,
                record.player(side).name.as_str(),
                new.rating,
                new.deviation,
                new.volatility,
                games + 1,
                wins,
                draws,
                losses
            ],
        )?;
    }
    Ok(())
}

const RATING_COLUMNS: &str =
    "ruleset, name, rating, deviation, games, wins, draws, losses, mailbox";

impl Store {
    fn ratings_where(
        &self,
        condition: &str,
        params: &[super::db::Value],
    ) -> Result<Vec<Rating>, StoreError> {
        self.query(
            &format!("SELECT {RATING_COLUMNS} FROM ratings {condition}"),
            params,
        )
    }

    /// Every rated player's rows in `ruleset` (or every ruleset), best
    /// first (`mancala ratings --all`).
    pub fn ratings(&self, ruleset: Option<Ruleset>) -> Result<Vec<Rating>, StoreError> {
        let order = "ORDER BY ruleset, rating DESC, mailbox";
        match ruleset {
            Some(r) => {
                self.ratings_where(&format!("WHERE ruleset = $1 {order}"), params![r.as_str()])
            }
            None => self.ratings_where(order, params![]),
        }
    }

    /// The best `most` of `ruleset` (or of each ruleset), and every row of
    /// `asker`'s mailbox, with `after` (a game a mail's acts have just
    /// ended) counted first, in the transaction under way.
    pub fn leaders(
        &self,
        ruleset: Option<Ruleset>,
        most: usize,
        asker: Option<&str>,
        after: Option<&GameRecord>,
    ) -> Result<Leaders, StoreError> {
        if let Some(game) = after {
            self.save_game(game)?;
        }
        let mut leaders = Leaders::default();
        let rulesets = ruleset.map_or(Ruleset::ALL.to_vec(), |r| vec![r]);
        for r in &rulesets {
            let mut rows = self.ratings_where(
                "WHERE ruleset = $1 ORDER BY rating DESC, mailbox LIMIT $2",
                params![r.as_str(), most + 1],
            )?;
            leaders.cut |= rows.len() > most;
            rows.truncate(most);
            leaders.list.extend(rows);
        }
        if let Some(address) = asker {
            let mailbox = mailbox_key(address);
            for rating in self.ratings_where("WHERE mailbox = $1", params![mailbox.as_str()])? {
                let same = |s: &Rating| s.ruleset == rating.ruleset && s.mailbox == rating.mailbox;
                if rulesets.contains(&rating.ruleset) && !leaders.list.iter().any(same) {
                    leaders.list.push(rating);
                }
            }
        }
        sort(&mut leaders.list);
        Ok(leaders)
    }
}

/// Ratings in the order every table shows them: by ruleset, best first.
fn sort(list: &mut [Rating]) {
    list.sort_by(|a, b| {
        (a.ruleset.as_str(), -a.rating, &a.mailbox)
            .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}
