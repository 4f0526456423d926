//! Endgame tables by retrograde analysis, for the games whose value
//! depends on the pits and the side to move alone (Mankala, Waurie: no
//! repetition rule, and the homes or endpits only add a constant). Stones
//! in pits never increase, so the tables are built layer by layer of
//! stones in pits, each layer from the ones below it and from itself.
//!
//! A layer holds one small value per spread of its stones over the pits,
//! the mover's row first (a position with North to move is the mirror of
//! one with South to move), indexed by [`rank`](super::rank::rank).

use std::io::{Read, Write};

use super::rank::{rank, spreads, unrank};
use super::Scoring;
use crate::engine::{EmptyRow, Position, Rules, Side};

/// A value not yet known, and one being worked out (a cycle if met again).
const UNKNOWN: i8 = i8::MIN;
const WORKING: i8 = i8::MIN + 1;

/// What went wrong building or reading tables.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{0} has a repetition rule: a position's value depends on the game's history, so it has no tables")]
    HistoryMatters(String),
    #[error("play can cycle in {ruleset}: the layer of {stones} stones in pits has a cycle through {counts:?}")]
    Cycle {
        ruleset: String,
        stones: usize,
        counts: Vec<u8>,
    },
    #[error("at most 100 stones in pits, not {0}")]
    TooBig(usize),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a table file for {expected}: {found}")]
    Header { expected: String, found: String },
}

/// The values of every position with up to `max` stones in pits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tables {
    /// The rules, with stones enough for any layer.
    rules: Rules,
    scoring: Scoring,
    layers: Vec<Vec<i8>>,
}

/// `rules` with room for every layer: the total decides nothing but the
/// homes' constant, so any total at least the layer's will do.
fn roomy(rules: &Rules) -> Rules {
    Rules {
        stones: 240 / (2 * rules.pits),
        ..*rules
    }
}

impl Tables {
    /// The game the tables are for, as their file is named (without
    /// `.tables`) and their header says: the ruleset, and its variant if
    /// one is played (a variant's values are its own).
    pub fn game_name(rules: &Rules) -> String {
        match rules.variant_name() {
            Some(variant) => format!("{}-{variant}", rules.ruleset),
            None => rules.ruleset.to_string(),
        }
    }

    /// The most stones in pits these tables answer for.
    pub fn max_stones(&self) -> usize {
        self.layers.len().saturating_sub(1)
    }

    pub fn positions(&self) -> usize {
        self.layers.iter().map(Vec::len).sum()
    }

    /// Builds the tables of `rules` up to `max` stones in pits, calling
    /// `progress(done, total)` now and then.
    ///
    /// # Errors
    /// Games with a repetition rule; a cycle of play within a layer.
    pub fn build(
        rules: &Rules,
        max: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Tables, TableError> {
        let scoring = Scoring::of(rules)
            .ok_or_else(|| TableError::HistoryMatters(rules.ruleset.to_string()))?;
        let mut tables = Tables {
            rules: roomy(rules),
            scoring,
            layers: Vec::new(),
        };
        tables.extend(max, progress)?;
        Ok(tables)
    }

    /// Adds the layers up to `max` stones in pits (each from those below),
    /// calling `progress(done, total)` over the new layers' positions.
    ///
    /// # Errors
    /// A cycle of play within a layer; more than 100 stones.
    pub fn extend(
        &mut self,
        max: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), TableError> {
        if max > 100 {
            return Err(TableError::TooBig(max));
        }
        let cells = 2 * usize::from(self.rules.pits);
        let first = self.layers.len();
        let total: u64 = (first..=max).map(|k| spreads(k, cells)).sum();
        let mut done = 0;
        for stones in first..=max {
            let size = spreads(stones, cells) as usize;
            let mut layer = vec![UNKNOWN; size];
            for index in 0..size {
                if layer[index] == UNKNOWN {
                    self.value_in_layer(stones, index, &mut layer)?;
                }
                done += 1;
                if done % (1 << 16) == 0 {
                    progress(done, total);
                }
            }
            self.layers.push(layer);
        }
        progress(total, total);
        Ok(())
    }

    /// The value of one position of the layer being built, working out the
    /// same-layer positions it leads to first.
    fn value_in_layer(
        &self,
        stones: usize,
        index: usize,
        layer: &mut Vec<i8>,
    ) -> Result<i8, TableError> {
        let cells = 2 * usize::from(self.rules.pits);
        let mut counts = [0u8; 32];
        unrank(index as u64, stones, &mut counts[..cells]);
        let position = self.position(&counts[..cells]);
        layer[index] = WORKING;
        let mut best = i32::MIN;
        if position.is_over() {
            best = self.scoring.final_value(&position);
        } else {
            for pit in position.legal_moves() {
                let mut child = position;
                child.play_unchecked(pit);
                let value = if child.is_over() {
                    self.scoring.final_value(&child)
                } else {
                    let (k, i) = key_of(&child);
                    let w = if k < stones {
                        i32::from(self.layers[k][i as usize])
                    } else {
                        match layer[i as usize] {
                            WORKING => {
                                return Err(TableError::Cycle {
                                    ruleset: self.rules.ruleset.to_string(),
                                    stones,
                                    counts: counts[..cells].to_vec(),
                                })
                            }
                            UNKNOWN => i32::from(self.value_in_layer(k, i as usize, layer)?),
                            w => i32::from(w),
                        }
                    };
                    w + self.scoring.home_term(&child)
                };
                let value = if child.to_move() == position.to_move() {
                    value
                } else {
                    -value
                };
                best = best.max(value);
            }
        }
        // The value less the homes' constant: what the pits are worth.
        let w = (best - self.scoring.home_term(&position)) as i8;
        layer[index] = w;
        Ok(w)
    }

    /// The position of `counts` (the mover's row first), South to move.
    fn position(&self, counts: &[u8]) -> Position {
        let n = usize::from(self.rules.pits);
        let in_pits: u16 = counts.iter().map(|&c| u16::from(c)).sum();
        let rest = self.rules.total_stones() - in_pits;
        let stores = [(rest / 2) as u8, (rest - rest / 2) as u8];
        Position::from_counts(self.rules, &counts[..n], &counts[n..], stores, Side::South)
            .unwrap_or_else(|_| Position::start(self.rules, Side::South))
    }

    /// The exact value of `position` for its side to move, if its pits hold
    /// few enough stones (and the rules are these tables').
    pub fn value(&self, position: &Position) -> Option<i32> {
        if !same_game(position.rules(), &self.rules) {
            return None;
        }
        if position.is_over() {
            return Some(self.scoring.final_value(position));
        }
        // Most positions a search asks about lie beyond the tables: count
        // their stones before ranking them.
        if usize::from(position.stones_in_pits()) > self.max_stones() {
            return None;
        }
        let (k, i) = key_of(position);
        let w = *self.layers.get(k)?.get(i as usize)?;
        Some(i32::from(w) + self.scoring.home_term(position))
    }

    /// Writes the tables: a header line, then each layer's values.
    ///
    /// # Errors
    /// I/O.
    pub fn write(&self, out: &mut dyn Write) -> Result<(), TableError> {
        writeln!(out, "{}", header(&self.rules, self.max_stones()))?;
        for layer in &self.layers {
            let bytes: Vec<u8> = layer.iter().map(|&v| v as u8).collect();
            out.write_all(&bytes)?;
        }
        Ok(())
    }

    /// Reads tables for `rules` written by [`Tables::write`].
    ///
    /// # Errors
    /// I/O, or a file for other rules, or one cut short.
    pub fn read(rules: &Rules, input: &mut dyn Read) -> Result<Tables, TableError> {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(bytes.len());
        let found = String::from_utf8_lossy(&bytes[..end]).to_string();
        let max: Option<usize> = found.rsplit(' ').next().and_then(|m| m.parse().ok());
        let expected = header(rules, max.unwrap_or(0));
        let scoring = Scoring::of(rules)
            .ok_or_else(|| TableError::HistoryMatters(rules.ruleset.to_string()))?;
        let (Some(max), true) = (max, found == expected) else {
            return Err(TableError::Header { expected, found });
        };
        let cells = 2 * usize::from(rules.pits);
        let mut layers = Vec::new();
        let mut at = end + 1;
        for stones in 0..=max {
            let size = spreads(stones, cells) as usize;
            let Some(layer) = bytes.get(at..at + size) else {
                return Err(TableError::Header {
                    expected: format!("{expected} and its values"),
                    found: format!("{} bytes", bytes.len()),
                });
            };
            layers.push(layer.iter().map(|&b| b as i8).collect());
            at += size;
        }
        Ok(Tables {
            rules: roomy(rules),
            scoring,
            layers,
        })
    }
}

fn header(rules: &Rules, max: usize) -> String {
    format!(
        "mancala-tables 1 {} pits {} stones-in-pits {max}",
        Tables::game_name(rules),
        rules.pits
    )
}

/// The same game, whatever the stones it started with.
fn same_game(a: &Rules, b: &Rules) -> bool {
    Rules { stones: 0, ..*a } == Rules { stones: 0, ..*b }
}

/// The layer and index of a position: its stones in pits, the mover's row first.
fn key_of(position: &Position) -> (usize, u64) {
    let mover = position.to_move();
    let n = usize::from(position.rules().pits);
    let mut counts = [0u8; 32];
    counts[..n].copy_from_slice(position.pits(mover));
    counts[n..2 * n].copy_from_slice(position.pits(mover.other()));
    let k = counts[..2 * n].iter().map(|&c| usize::from(c)).sum();
    (k, rank(&counts[..2 * n]))
}

impl Scoring {
    /// How a ruleset's games are valued by position alone, if they are.
    pub fn of(rules: &Rules) -> Option<Scoring> {
        match rules.empty_row {
            _ if rules.repetition_ends => None,
            EmptyRow::CannotMoveWins | EmptyRow::EmptiedRowWins => Some(Scoring::WinLoss),
            EmptyRow::EndsGame => Some(Scoring::Margin),
            EmptyRow::MustFeed => None,
        }
    }
}
