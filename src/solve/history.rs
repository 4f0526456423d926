//! Wari and Super-Wari on the game's own history: the repetition rule ends
//! a game whose position came up before since the last capture (a set-up
//! counting as the first occurrence, as the engine says), so a move's value
//! depends on the positions already seen, which the tables cannot know.
//! This search plays every line with that history, valued with play to the
//! end (the tables' scale), and says exact only where it finished.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::search::INF;
use super::Tables;
use crate::engine::{Game, Pit, Position, Rules, Side};

/// The most positions a layer may have for every line of it to be
/// searched where its bounds do not meet (lines multiply with its size).
const SEARCHED_LAYER: usize = 5_000;

/// The budget ran out before every line ended.
pub(super) struct OutOfBudget;

/// An alpha-beta search over every line of a capture game, a line ending
/// where its position repeats one of the history since the last capture.
/// After a capture the history starts again, so what is learnt of a
/// position there holds wherever it comes up, and the tables' bounds (on
/// a history that starts there) cut the search off.
pub(super) struct HistorySearch<'a> {
    tables: Option<&'a Tables>,
    /// The game's rules: the tables are looked up under them.
    rules: Rules,
    /// The same without the majority rule: values are of play to the end
    /// (which the majority rule ends sooner, never with another winner).
    to_end: Rules,
    /// Bounds learnt of positions just after a capture (under `to_end`).
    fresh: HashMap<Position, (i32, i32)>,
    pub nodes: u64,
    budget: u64,
}

impl<'a> HistorySearch<'a> {
    pub fn new(tables: Option<&'a Tables>, rules: Rules, budget: u64) -> HistorySearch<'a> {
        HistorySearch {
            tables,
            rules,
            to_end: Rules {
                majority_wins: false,
                ..rules
            },
            fresh: HashMap::new(),
            nodes: 0,
            budget,
        }
    }

    /// Each legal move of `game` and its exact value for the side to move,
    /// on the game's history; `Err` when the budget ran out first.
    pub fn moves(&mut self, game: &Game) -> Result<Vec<(Pit, i32)>, OutOfBudget> {
        let mut history = since_capture(game, self.to_end);
        let Some(&root) = history.last() else {
            return Ok(Vec::new());
        };
        // Bounds that hold on this history first: where they meet, no
        // line need be searched.
        let layer = self.layer_bounds(&root, &history)?;
        let mut moves = Vec::new();
        // Every line of a large layer is far beyond any budget: there the
        // bounds are all there is.
        let searchable = layer.positions.len() <= SEARCHED_LAYER;
        for pit in game.legal_moves() {
            let (lo, hi) = layer.of_move(&root, pit);
            let v = match (lo == hi, searchable) {
                (true, _) => lo,
                (false, true) => self.child(&root, pit, &mut history, -INF, INF)?,
                (false, false) => return Err(OutOfBudget),
            };
            moves.push((pit, v));
        }
        Ok(moves)
    }

    /// Bounds on the value of every position play from `root` can reach
    /// before a capture, on a history holding `seen` (the positions since
    /// the last capture, `root` among them): worked out as the tables
    /// work out a layer (the lower what the mover can force by play that
    /// never comes back to a position, play for ever counted as the
    /// worst for them; the upper likewise for the opponent), a position
    /// of `seen` ending the game by the repetition rule, a capture giving
    /// its position's bounds as a fresh start. The forcing side's play
    /// never repeats a position outside `seen`, so they hold whatever
    /// else the history holds.
    fn layer_bounds(&mut self, root: &Position, seen: &[Position]) -> Result<Layer, OutOfBudget> {
        let mut layer = Layer::default();
        layer.add(*root);
        let mut next = 0;
        while let Some(&position) = layer.positions.get(next) {
            next += 1;
            self.nodes += 1;
            if self.nodes > self.budget {
                return Err(OutOfBudget);
            }
            let start = layer.edges.len();
            for pit in position.legal_moves() {
                let edge = self.edge(&position, pit, seen, &mut layer);
                layer.edges.push(edge);
            }
            layer.spans.push((start, layer.edges.len()));
        }
        // The root is in `seen`: only its moves are asked about.
        let n = layer.positions.len();
        layer.lower = layer.positions.iter().map(|p| range(p).0).collect();
        layer.upper = layer.positions.iter().map(|p| range(p).1).collect();
        // Later positions first: values flow back from the exits.
        let mut changed = true;
        // (A sweep reads what the positions' moves were found to be: it
        // costs far less than finding them, and is not counted.)
        while changed {
            changed = false;
            for i in (1..n).rev() {
                let (start, end) = layer.spans[i];
                let (mut lo, mut hi) = (-INF, -INF);
                for edge in &layer.edges[start..end] {
                    let (l, h) = layer.bounds(*edge);
                    lo = lo.max(l);
                    hi = hi.max(h);
                }
                if lo > layer.lower[i] || hi < layer.upper[i] {
                    layer.lower[i] = lo.max(layer.lower[i]);
                    layer.upper[i] = hi.min(layer.upper[i]);
                    changed = true;
                }
            }
        }
        Ok(layer)
    }

    /// What sowing `pit` at `position` leads to, for `position`'s mover.
    fn edge(&self, position: &Position, pit: Pit, seen: &[Position], layer: &mut Layer) -> Edge {
        let mut child = *position;
        let captured = child.play_unchecked(pit).captured > 0;
        let same = child.to_move() == position.to_move();
        let (lo, hi) = if child.is_over() || (!captured && seen.contains(&child)) {
            // The end, or rule 5: each takes the stones on their own side.
            (margin(&child), margin(&child))
        } else if captured {
            self.bounds(&child).unwrap_or_else(|| range(&child))
        } else {
            let i = layer.index.get(&packed(&child)).copied();
            let i = i.unwrap_or_else(|| layer.add(child));
            return Edge::Child(i, same);
        };
        match same {
            true => Edge::Fixed(lo, hi),
            false => Edge::Fixed(-hi, -lo),
        }
    }

    /// The value for `position`'s mover of sowing `pit` there, `history`
    /// (ending with `position`) the positions since the last capture.
    fn child(
        &mut self,
        position: &Position,
        pit: Pit,
        history: &mut Vec<Position>,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, OutOfBudget> {
        let mut child = *position;
        let captured = child.play_unchecked(pit).captured > 0;
        let flip = |v: i32| match child.to_move() == position.to_move() {
            true => v,
            false => -v,
        };
        let (a, b) = match child.to_move() == position.to_move() {
            true => (alpha, beta),
            false => (-beta, -alpha),
        };
        if child.is_over() {
            self.nodes += 1;
            return Ok(flip(margin(&child)));
        }
        if captured {
            return Ok(flip(self.fresh(child, a, b)?));
        }
        if history.contains(&child) {
            // Rule 5: each takes the stones on their own side.
            self.nodes += 1;
            return Ok(flip(margin(&child)));
        }
        history.push(child);
        let v = self.search(history, a, b);
        history.pop();
        Ok(flip(v?))
    }

    /// The value of the last position of `history` for its mover, exact
    /// within (alpha, beta) and a bound beyond them.
    fn search(
        &mut self,
        history: &mut Vec<Position>,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, OutOfBudget> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(OutOfBudget);
        }
        let Some(&position) = history.last() else {
            return Err(OutOfBudget);
        };
        // The best-looking move first (the tables' value as a fresh
        // start), for cut-offs.
        let mut order: Vec<(i32, Pit)> = position
            .legal_moves()
            .into_iter()
            .map(|pit| {
                let mut child = position;
                child.play_unchecked(pit);
                let guess = self.bounds(&child).map_or(0, |(lo, hi)| (lo + hi) / 2);
                let mine = match child.to_move() == position.to_move() {
                    true => guess,
                    false => -guess,
                };
                (-mine, pit)
            })
            .collect();
        order.sort_by_key(|&(v, pit)| (v, pit.index()));
        let mut best = -INF;
        for (_, pit) in order {
            let v = self.child(&position, pit, history, alpha, beta)?;
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// The value of a game that starts at `position` (just after a
    /// capture) for its mover, exact within (alpha, beta) and a bound
    /// beyond them: the tables' where exact, else searched within their
    /// bounds and what was learnt of it before.
    fn fresh(
        &mut self,
        position: Position,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, OutOfBudget> {
        self.nodes += 1;
        let (mut lo, mut hi) = self.bounds(&position).unwrap_or((-INF, INF));
        if let Some(&(l, h)) = self.fresh.get(&position) {
            (lo, hi) = (lo.max(l), hi.min(h));
        }
        if lo >= beta || lo == hi {
            return Ok(lo);
        }
        if hi <= alpha {
            return Ok(hi);
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let v = self.search(&mut vec![position], alpha, beta)?;
        let learnt = if v <= alpha {
            (lo, v)
        } else if v >= beta {
            (v, hi)
        } else {
            (v, v)
        };
        self.fresh.insert(position, learnt);
        Ok(v)
    }

    /// The tables' bounds on `position` (under `to_end`) as a fresh start.
    fn bounds(&self, position: &Position) -> Option<(i32, i32)> {
        let tables = self.tables?;
        let under = with_rules(position, self.rules)?;
        tables.bounds(&under)
    }
}

/// The final margin for the mover where the game ends here: each side's
/// store and the stones on its own side (what the repetition rule gives;
/// at the end of play the board is empty).
fn margin(position: &Position) -> i32 {
    let mover = position.to_move();
    let score = |side: Side| i32::from(position.store(side)) + i32::from(position.row_total(side));
    score(mover) - score(mover.other())
}

/// The widest bounds on `position`'s value for its mover: every stone on
/// the board won, or lost.
fn range(position: &Position) -> (i32, i32) {
    let mover = position.to_move();
    let stores = i32::from(position.store(mover)) - i32::from(position.store(mover.other()));
    let board = i32::from(position.stones_in_pits());
    (stores - board, stores + board)
}

/// What a move of a layer's position leads to, for its mover.
#[derive(Clone, Copy)]
enum Edge {
    /// Bounds fixed by the end, a repetition or a capture.
    Fixed(i32, i32),
    /// A position of the layer, and whether the turn stays with the mover.
    Child(usize, bool),
}

/// The positions play can reach before a capture, their moves and bounds.
#[derive(Default)]
struct Layer {
    positions: Vec<Position>,
    index: HashMap<u128, usize, BuildHasherDefault<Mix>>,
    /// Each position's moves: `edges[spans[i].0..spans[i].1]`.
    spans: Vec<(usize, usize)>,
    edges: Vec<Edge>,
    lower: Vec<i32>,
    upper: Vec<i32>,
}

impl Layer {
    fn add(&mut self, position: Position) -> usize {
        let i = self.positions.len();
        self.positions.push(position);
        self.index.insert(packed(&position), i);
        i
    }

    /// An edge's bounds for the mover it leaves.
    fn bounds(&self, edge: Edge) -> (i32, i32) {
        match edge {
            Edge::Fixed(lo, hi) => (lo, hi),
            Edge::Child(i, true) => (self.lower[i], self.upper[i]),
            Edge::Child(i, false) => (-self.upper[i], -self.lower[i]),
        }
    }

    /// The bounds of sowing `pit` at the layer's root (its first position).
    fn of_move(&self, root: &Position, pit: Pit) -> (i32, i32) {
        let moves = root.legal_moves().into_iter();
        let (start, _) = self.spans.first().copied().unwrap_or((0, 0));
        let k = moves.take_while(|&p| p != pit).count();
        self.edges
            .get(start + k)
            .map_or((-INF, INF), |&edge| self.bounds(edge))
    }
}

/// A position of a layer as one number: the pits a byte each, South's row
/// first, and the side to move in the top bit (no pit holds 128 stones).
/// The stores are the same throughout a layer.
fn packed(position: &Position) -> u128 {
    let mut bytes = [0u8; 16];
    let rows = position
        .pits(Side::South)
        .iter()
        .chain(position.pits(Side::North));
    for (byte, &pit) in bytes.iter_mut().zip(rows) {
        *byte = pit;
    }
    let mover = u128::from(position.to_move() == Side::North) << 127;
    u128::from_le_bytes(bytes) | mover
}

/// A fast hash of a packed position (a multiply and a fold): the index
/// is the layer search's inner loop, and its keys are not chosen by anyone.
#[derive(Default)]
struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let m = u128::from(self.0 ^ n) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }

    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

/// `position` under `rules` (the same counts), if they allow it.
pub(super) fn with_rules(position: &Position, rules: Rules) -> Option<Position> {
    let stores = [position.store(Side::South), position.store(Side::North)];
    Position::from_counts(
        rules,
        position.pits(Side::South),
        position.pits(Side::North),
        stores,
        position.to_move(),
    )
    .ok()
}

/// The positions of `game` since its last capture (the start, when none),
/// the current one last, under `rules`.
fn since_capture(game: &Game, rules: Rules) -> Vec<Position> {
    let mut position = *game.start();
    let mut history: Vec<Position> = with_rules(&position, rules).into_iter().collect();
    for sowing in game.sowings() {
        if position.play_unchecked(sowing.pit).captured > 0 {
            history.clear();
        }
        history.extend(with_rules(&position, rules));
    }
    history
}
