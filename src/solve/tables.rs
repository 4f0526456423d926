//! Endgame tables by retrograde analysis. In Mankala, Kalah and Waurie a
//! position's value depends on the pits and the side to move alone (the
//! homes or endpits only add a constant); in Wari and Super-Wari the
//! tables hold the stones still to be won from the board (see
//! [`capture`](super::capture) for how they treat the repetition rule).
//! Stones in pits never increase, so the tables are built layer by layer
//! of stones in pits, each layer from the ones below it and from itself,
//! its work split among threads.
//!
//! A layer holds one small value per spread of its stones over the pits,
//! the mover's row first (a position with North to move is the mirror of
//! one with South to move), indexed by [`rank`](super::rank::rank).

use std::io::{Read, Write};
use std::sync::atomic::{AtomicI8, AtomicU64, Ordering::Relaxed};

use super::below::{Below, Reader};
use super::capture::{self, Layer};
use super::rank::{rank, spreads, unrank};
use super::Scoring;
use crate::engine::{Capture, EmptyRow, Position, Rules, Side};

mod file;
pub use file::Written;

/// A value not yet known; below it, one being worked out by thread `t` is
/// `WORKING - t` (a cycle if that thread meets it again). Values lie
/// within ±100, so the marks of up to [`MOST_THREADS`] threads fit.
const UNKNOWN: i8 = i8::MIN;
const WORKING: i8 = i8::MIN + 1 + MOST_THREADS as i8;
const MOST_THREADS: usize = 16;

/// How deep a thread may work out positions that another thread has
/// marked (it does not mark them itself): only a cycle goes deeper.
const MOST_DEPTH: u32 = 1 << 16;

/// What went wrong building or reading tables.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{0} has no tables: a position's value there depends on the game's history")]
    HistoryMatters(String),
    #[error("play can cycle in {ruleset}: the layer of {stones} stones in pits has a cycle through {counts:?}")]
    Cycle {
        ruleset: String,
        stones: usize,
        counts: Vec<u8>,
    },
    #[error("at most {most} stones in pits, not {max}")]
    TooBig { most: usize, max: usize },
    #[error(
        "the layer of {stones} stones in pits needs {needs} MB of memory while it is built, \
         more than the {memory} MB allowed"
    )]
    Memory {
        stones: usize,
        needs: u64,
        memory: u64,
    },
    #[error("a thread building the tables stopped")]
    Thread,
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
    kind: Kind,
    layers: Vec<Vec<i8>>,
}

/// What a table's byte holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The value less the homes' constant (the games valued by their pits).
    Pits(Scoring),
    /// The stones the mover wins from the board less the opponent's, and
    /// whether that is exact (Wari, Super-Wari: see [`capture`]).
    Captures,
}

impl Kind {
    fn of(rules: &Rules) -> Result<Kind, TableError> {
        if rules.capture == Capture::TwoOrThreeBackwards && rules.empty_row == EmptyRow::MustFeed {
            return Ok(Kind::Captures);
        }
        Scoring::of(rules)
            .map(Kind::Pits)
            .ok_or_else(|| TableError::HistoryMatters(rules.ruleset.to_string()))
    }
}

/// The threads a build uses: every core (at most [`MOST_THREADS`]).
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MOST_THREADS)
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

    /// The rules the tables are built for (with stones enough for any layer).
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The most stones in pits these tables answer for.
    pub fn max_stones(&self) -> usize {
        self.layers.len().saturating_sub(1)
    }

    pub fn positions(&self) -> usize {
        self.layers.iter().map(Vec::len).sum()
    }

    /// Builds the tables of `rules` up to `max` stones in pits on every
    /// core, calling `progress(done, total)` now and then.
    ///
    /// # Errors
    /// Games without tables; a cycle of play within a layer (Mankala).
    pub fn build(
        rules: &Rules,
        max: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Tables, TableError> {
        Tables::build_on(rules, max, default_threads(), progress)
    }

    /// [`Tables::build`] on `threads` threads: the same tables, byte for
    /// byte, however many.
    ///
    /// # Errors
    /// As [`Tables::build`].
    pub fn build_on(
        rules: &Rules,
        max: usize,
        threads: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Tables, TableError> {
        let mut tables = Tables::new(rules)?;
        tables.extend_on(max, threads, progress)?;
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
        self.extend_on(max, default_threads(), progress)
    }

    /// [`Tables::extend`] on `threads` threads.
    ///
    /// # Errors
    /// As [`Tables::extend`].
    pub fn extend_on(
        &mut self,
        max: usize,
        threads: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), TableError> {
        self.check(max)?;
        let threads = threads.clamp(1, MOST_THREADS);
        let total: u64 = (self.layers.len()..=max).map(|k| self.size(k)).sum();
        let mut before = 0;
        for stones in self.layers.len()..=max {
            let below = Below::Memory(&self.layers);
            let layer = self.layer((stones, &below), threads, usize::MAX, &mut |done| {
                progress(before + done, total)
            })?;
            before += self.size(stones);
            self.layers.push(layer);
        }
        progress(total, total);
        Ok(())
    }

    /// Empty tables of `rules`, to be built.
    ///
    /// # Errors
    /// Games without tables.
    pub fn new(rules: &Rules) -> Result<Tables, TableError> {
        Ok(Tables {
            rules: roomy(rules),
            kind: Kind::of(rules)?,
            layers: Vec::new(),
        })
    }

    /// The layers the tables may have.
    fn check(&self, max: usize) -> Result<(), TableError> {
        let most = match self.kind {
            Kind::Captures => capture::MOST_STONES,
            Kind::Pits(_) => 100,
        };
        match max > most {
            true => Err(TableError::TooBig { most, max }),
            false => Ok(()),
        }
    }

    /// The positions of layer `stones`.
    fn size(&self, stones: usize) -> u64 {
        spreads(stones, 2 * usize::from(self.rules.pits))
    }

    /// The bytes of memory building layer `stones` takes (the capture
    /// games' two bounds a position and the layer's bytes beside them).
    fn working(&self, stones: usize) -> u64 {
        match self.kind {
            Kind::Captures => 3 * self.size(stones),
            Kind::Pits(_) => self.size(stones),
        }
    }

    /// Layer `stones` built from `below` on `threads` threads, with `room`
    /// bytes for the capture games' cache of moves.
    fn layer(
        &self,
        (stones, below): (usize, &Below),
        threads: usize,
        room: usize,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<i8>, TableError> {
        match self.kind {
            Kind::Captures => {
                let layer = Layer {
                    rules: &self.rules,
                    stones,
                    below,
                };
                Ok(layer.build(threads, room).0)
            }
            Kind::Pits(scoring) => self.pits_layer(scoring, (stones, below), threads, progress),
        }
    }

    /// A layer of a game valued by its pits, worked out depth first from
    /// each position in turn, the positions shared out among `threads`.
    fn pits_layer(
        &self,
        scoring: Scoring,
        (stones, below): (usize, &Below),
        threads: usize,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<i8>, TableError> {
        let size = spreads(stones, 2 * usize::from(self.rules.pits)) as usize;
        let layer: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(UNKNOWN)).collect();
        let (next, done) = (AtomicU64::new(0), AtomicU64::new(0));
        let work = |thread: usize| -> Result<(), TableError> {
            let mark = WORKING - thread as i8;
            let mut below = below.reader();
            loop {
                let from = next.fetch_add(4096, Relaxed) as usize;
                if from >= size {
                    return Ok(());
                }
                let to = (from + 4096).min(size);
                for index in from..to {
                    if layer[index].load(Relaxed) == UNKNOWN {
                        self.value_in_layer(
                            scoring,
                            (stones, index),
                            (&layer, &mut below),
                            mark,
                            0,
                        )?;
                    }
                }
                done.fetch_add((to - from) as u64, Relaxed);
            }
        };
        let results: Vec<Result<(), TableError>> = std::thread::scope(|scope| {
            // Threads of their own, with room for deep chains of play.
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let work = &work;
                    std::thread::Builder::new()
                        .stack_size(256 << 20)
                        .spawn_scoped(scope, move || work(t))
                })
                .collect();
            while handles
                .iter()
                .any(|h| h.as_ref().is_ok_and(|h| !h.is_finished()))
            {
                progress(done.load(Relaxed));
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h.join().unwrap_or(Err(TableError::Thread)),
                    Err(e) => Err(TableError::Io(e)),
                })
                .collect()
        });
        results.into_iter().collect::<Result<(), _>>()?;
        Ok(layer.into_iter().map(AtomicI8::into_inner).collect())
    }

    /// The value of one position of the layer being built, working out the
    /// same-layer positions it leads to first. A position another thread
    /// is working out is worked out here too (the same value), unmarked.
    fn value_in_layer(
        &self,
        scoring: Scoring,
        (stones, index): (usize, usize),
        (layer, below): (&[AtomicI8], &mut Reader),
        mark: i8,
        depth: u32,
    ) -> Result<i8, TableError> {
        let cells = 2 * usize::from(self.rules.pits);
        let mut counts = [0u8; 32];
        unrank(index as u64, stones, &mut counts[..cells]);
        let cycle = || TableError::Cycle {
            ruleset: self.rules.ruleset.to_string(),
            stones,
            counts: counts[..cells].to_vec(),
        };
        if depth > MOST_DEPTH {
            return Err(cycle());
        }
        let position = position_of(&self.rules, &counts[..cells]);
        let own = layer[index]
            .compare_exchange(UNKNOWN, mark, Relaxed, Relaxed)
            .is_ok();
        let mut best = i32::MIN;
        if position.is_over() {
            best = scoring.final_value(&position);
        } else {
            for pit in position.legal_moves() {
                let mut child = position;
                child.play_unchecked(pit);
                let value = if child.is_over() {
                    scoring.final_value(&child)
                } else {
                    let (k, i) = key_of(&child);
                    let w = if k < stones {
                        below.get(k, i)
                    } else {
                        match layer[i as usize].load(Relaxed) {
                            w if w == mark => return Err(cycle()),
                            w if w <= WORKING => self.value_in_layer(
                                scoring,
                                (k, i as usize),
                                (layer, below),
                                mark,
                                depth + 1,
                            )?,
                            w => w,
                        }
                    };
                    i32::from(w) + scoring.home_term(&child)
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
        let w = (best - scoring.home_term(&position)) as i8;
        if own {
            layer[index].store(w, Relaxed);
        }
        Ok(w)
    }

    /// The value of `position` for its side to move, if its pits hold few
    /// enough stones (and the rules are these tables'): exact in the games
    /// valued by their pits; in Wari games see [`Tables::exact`].
    pub fn value(&self, position: &Position) -> Option<i32> {
        self.lookup(position).map(|(v, _)| v)
    }

    /// Whether the tables' value of `position` is the game's own (always,
    /// but in Wari games where play may cycle: see [`capture`]).
    pub fn exact(&self, position: &Position) -> Option<bool> {
        self.lookup(position).map(|(_, exact)| exact)
    }

    fn lookup(&self, position: &Position) -> Option<(i32, bool)> {
        if !same_game(position.rules(), &self.rules) {
            return None;
        }
        let scoring = match self.kind {
            Kind::Pits(scoring) => scoring,
            Kind::Captures => return self.captures(position),
        };
        if position.is_over() {
            return Some((scoring.final_value(position), true));
        }
        // Most positions a search asks about lie beyond the tables: count
        // their stones before ranking them.
        if usize::from(position.stones_in_pits()) > self.max_stones() {
            return None;
        }
        let (k, i) = key_of(position);
        let w = *self.layers.get(k)?.get(i as usize)?;
        Some((i32::from(w) + scoring.home_term(position), true))
    }

    /// Bounds on the value of a Wari position the tables hold: the game's
    /// value, on a history that starts there, lies within them (they are
    /// one value where [`Tables::exact`] says so). Other games' values
    /// are exact: both bounds are the value.
    pub fn bounds(&self, position: &Position) -> Option<(i32, i32)> {
        if self.kind != Kind::Captures {
            return self.value(position).map(|v| (v, v));
        }
        let (v, _) = self.captures(position)?;
        let (k, i) = key_of(position);
        let (lower, upper) = capture::decode(self.layers[k][i as usize], k);
        let stores = v - self.split_value(position, k, i);
        Some((stores + lower, stores + upper))
    }

    /// Each move's value from the tables, where `position` and all its
    /// moves are in them: exact when every value is. A move's value is its
    /// position's as a fresh start (see [`capture`]).
    pub fn solution(&self, position: &Position) -> Option<super::Solution> {
        let (value, mut exact) = self.lookup(position)?;
        let mut moves = Vec::new();
        for pit in position.legal_moves() {
            let mut child = *position;
            child.play_unchecked(pit);
            let (v, e) = self.lookup(&child)?;
            exact &= e;
            let v = if child.to_move() == position.to_move() {
                v
            } else {
                -v
            };
            moves.push((pit, v));
        }
        // Where play can cycle the position's own value (its split within
        // its bounds) need not be its best move's: say the best move's,
        // so the value and the moves never disagree.
        let value = match exact {
            true => value,
            false => moves.iter().map(|m| m.1).max().unwrap_or(value),
        };
        Some(super::Solution {
            exact,
            value,
            moves,
            depth: None,
            nodes: 0,
        })
    }

    /// The board's part of the value of the position of layer `k`, index
    /// `i` (its split kept within the bounds).
    fn split_value(&self, position: &Position, k: usize, i: u64) -> i32 {
        let mover = position.to_move();
        let split =
            i32::from(position.row_total(mover)) - i32::from(position.row_total(mover.other()));
        capture::value(self.layers[k][i as usize], k, split).0
    }

    /// A Wari position's value: the captures so far, and the board's value
    /// with play to the end (the majority rule may end the game sooner,
    /// never with another winner).
    fn captures(&self, position: &Position) -> Option<(i32, bool)> {
        let mover = position.to_move();
        let stores = i32::from(position.store(mover)) - i32::from(position.store(mover.other()));
        if usize::from(position.stones_in_pits()) > self.max_stones() {
            return None;
        }
        let (k, i) = key_of(position);
        let byte = *self.layers.get(k)?.get(i as usize)?;
        let (lower, upper) = capture::decode(byte, k);
        Some((stores + self.split_value(position, k, i), lower == upper))
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
    /// I/O, or a file for other rules, or one cut short or too long.
    pub fn read(rules: &Rules, input: &mut dyn Read) -> Result<Tables, TableError> {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(bytes.len());
        let max = parse_header(rules, &String::from_utf8_lossy(&bytes[..end]))?;
        let expected = header(rules, max);
        let kind = Kind::of(rules)?;
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
        // Bytes past the last layer: a header that was changed, or a file
        // written over another.
        if bytes.len() > at {
            return Err(TableError::Header {
                expected: format!("{expected} and its values alone"),
                found: format!("{} bytes more", bytes.len() - at),
            });
        }
        Ok(Tables {
            rules: roomy(rules),
            kind,
            layers,
        })
    }
}

/// What a build may use of the machine.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub threads: usize,
    /// Bytes for the tables' layers while they are built (and the capture
    /// games' cache of moves); each thread reads the file through 1 MB more.
    pub memory: usize,
}

fn header(rules: &Rules, max: usize) -> String {
    format!(
        "mancala-tables 1 {} pits {} stones-in-pits {max}",
        Tables::game_name(rules),
        rules.pits
    )
}

/// The stones in pits of a header line of `rules`' tables.
fn parse_header(rules: &Rules, found: &str) -> Result<usize, TableError> {
    let max: Option<usize> = found.rsplit(' ').next().and_then(|m| m.parse().ok());
    let expected = header(rules, max.unwrap_or(0));
    match max {
        Some(max) if found == expected => Ok(max),
        _ => Err(TableError::Header {
            expected,
            found: found.to_string(),
        }),
    }
}

/// The same game, whatever the stones it started with.
fn same_game(a: &Rules, b: &Rules) -> bool {
    Rules { stones: 0, ..*a } == Rules { stones: 0, ..*b }
}

/// The position of `counts` (the mover's row first), South to move, the
/// stones not in pits shared between the stores.
pub(super) fn position_of(rules: &Rules, counts: &[u8]) -> Position {
    let n = usize::from(rules.pits);
    let in_pits: u16 = counts.iter().map(|&c| u16::from(c)).sum();
    let rest = rules.total_stones() - in_pits;
    let stores = [(rest / 2) as u8, (rest - rest / 2) as u8];
    Position::from_counts(*rules, &counts[..n], &counts[n..], stores, Side::South)
        .unwrap_or_else(|_| Position::start(*rules, Side::South))
}

/// The layer and index of a position: its stones in pits, the mover's row first.
pub(super) fn key_of(position: &Position) -> (usize, u64) {
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
