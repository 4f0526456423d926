//! The solver: alpha-beta over positions with a transposition table of
//! bounds, down to the end of the game or into the tables. When a
//! position is out of its reach (a node budget), it says so and gives a
//! depth-limited search's value instead, never a guess called exact.

use std::collections::{HashMap, HashSet};

use super::{Scoring, Tables};
use crate::engine::{Pit, Position};

/// A position's value and each legal move's, for the side to move.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Solution {
    /// True when `value` and every move's value are the game's own.
    pub exact: bool,
    pub value: i32,
    /// Each legal move (the first sowing of a turn) and its value.
    pub moves: Vec<(Pit, i32)>,
    /// The depth (in sowings) of the search behind an inexact value.
    pub depth: Option<u32>,
    pub nodes: u64,
}

/// Why an exact search stopped short.
enum Stop {
    Budget,
    /// A position met again on the path: play can cycle here.
    Cycle,
}

/// One solving session: its tables, budget and what it learnt.
pub struct Solver<'a> {
    tables: Option<&'a Tables>,
    /// Lower and upper bounds of exact values met so far.
    known: HashMap<Position, (i32, i32)>,
    path: HashSet<Position>,
    pub nodes: u64,
    budget: u64,
}

const INF: i32 = 100_000;

impl<'a> Solver<'a> {
    /// A solver using `tables` (if any) that gives up exactness after
    /// `budget` nodes.
    pub fn new(tables: Option<&'a Tables>, budget: u64) -> Solver<'a> {
        Solver {
            tables,
            known: HashMap::new(),
            path: HashSet::new(),
            nodes: 0,
            budget,
        }
    }

    /// Solves `position`: exactly if it can within the budget.
    pub fn solve(&mut self, position: &Position) -> Solution {
        let scoring = Scoring::of(position.rules());
        let legal: Vec<Pit> = position.legal_moves().into_iter().collect();
        if let Some(scoring) = scoring {
            let mut moves = Vec::new();
            let mut exact = true;
            for &pit in &legal {
                let mut child = *position;
                child.play_unchecked(pit);
                self.path.clear();
                match self.exact(scoring, &child, -INF, INF) {
                    Ok(v) => moves.push((pit, relative(position, &child, v))),
                    Err(_) => {
                        exact = false;
                        break;
                    }
                }
            }
            if exact {
                let value = match moves.iter().map(|m| m.1).max() {
                    Some(best) => best,
                    None => scoring.final_value(position),
                };
                return Solution {
                    exact: true,
                    value,
                    moves,
                    depth: None,
                    nodes: self.nodes,
                };
            }
        }
        self.estimate(position, &legal)
    }

    /// The exact value of `position` for its side to move, within (alpha, beta).
    fn exact(
        &mut self,
        scoring: Scoring,
        position: &Position,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, Stop> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(Stop::Budget);
        }
        if position.is_over() {
            return Ok(scoring.final_value(position));
        }
        if let Some(v) = self.tables.and_then(|t| t.value(position)) {
            return Ok(v);
        }
        let (mut lower, mut upper) = self.known.get(position).copied().unwrap_or((-INF, INF));
        if lower >= beta || lower == upper {
            return Ok(lower);
        }
        if upper <= alpha {
            return Ok(upper);
        }
        alpha = alpha.max(lower);
        beta = beta.min(upper);
        if !self.path.insert(*position) {
            return Err(Stop::Cycle);
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let mut best = -INF;
        for pit in ordered(position) {
            let mut child = *position;
            child.play_unchecked(pit);
            let value = if child.to_move() == position.to_move() {
                self.exact(scoring, &child, alpha, beta)
            } else {
                self.exact(scoring, &child, -beta, -alpha).map(|v| -v)
            };
            let value = match value {
                Ok(v) => v,
                Err(stop) => {
                    self.path.remove(position);
                    return Err(stop);
                }
            };
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        self.path.remove(position);
        if best <= alpha_in {
            upper = best;
        } else if best >= beta_in {
            lower = best;
        } else {
            (lower, upper) = (best, best);
        }
        self.known.insert(*position, (lower, upper));
        Ok(best)
    }

    /// A depth-limited search, deepened while the budget lasts: the values
    /// of the last depth it finished.
    fn estimate(&mut self, position: &Position, legal: &[Pit]) -> Solution {
        // A budget of its own: the exact search may have spent the first.
        self.budget = self.nodes.saturating_add(self.budget);
        self.known.clear();
        let mut last = None;
        for depth in 1..=64u32 {
            let start = self.nodes;
            let mut moves = Vec::new();
            for &pit in legal {
                let mut child = *position;
                child.play_unchecked(pit);
                let v = self.limited(&child, depth - 1, -INF, INF);
                moves.push((pit, relative(position, &child, v)));
            }
            let value = moves
                .iter()
                .map(|m| m.1)
                .max()
                .unwrap_or_else(|| heuristic(position));
            let spent = self.nodes - start;
            // Back to the game's units (the search works in hundredths).
            let units = |v: i32| (f64::from(v) / 100.0).round() as i32;
            last = Some(Solution {
                exact: false,
                value: units(value),
                moves: moves.into_iter().map(|(p, v)| (p, units(v))).collect(),
                depth: Some(depth),
                nodes: self.nodes,
            });
            // The next depth costs a few times this one: stop before the budget.
            if self.nodes + spent * 4 > self.budget || spent == 0 {
                break;
            }
        }
        last.unwrap_or(Solution {
            exact: false,
            value: heuristic(position) / 100,
            moves: Vec::new(),
            depth: Some(0),
            nodes: self.nodes,
        })
    }

    fn limited(&mut self, position: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if position.is_over() {
            return Scoring::of(position.rules())
                .unwrap_or(Scoring::Margin)
                .final_value(position)
                * 100;
        }
        if let Some(v) = self.tables.and_then(|t| t.value(position)) {
            return v * 100;
        }
        if depth == 0 {
            return heuristic(position);
        }
        let mut best = -INF;
        for pit in ordered(position) {
            let mut child = *position;
            child.play_unchecked(pit);
            let value = if child.to_move() == position.to_move() {
                self.limited(&child, depth - 1, alpha, beta)
            } else {
                -self.limited(&child, depth - 1, -beta, -alpha)
            };
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Solves `position` with `tables` and a budget of `nodes`.
pub fn solve(position: &Position, tables: Option<&Tables>, nodes: u64) -> Solution {
    Solver::new(tables, nodes).solve(position)
}

/// A child's value for the parent's mover: the same when the turn goes on.
fn relative(parent: &Position, child: &Position, value: i32) -> i32 {
    if child.to_move() == parent.to_move() {
        value
    } else {
        -value
    }
}

/// A guess, in hundredths of the game's unit: the homes' (or captures')
/// difference; in Waurie, fewer stones of one's own left to sow.
fn heuristic(position: &Position) -> i32 {
    let mover = position.to_move();
    match Scoring::of(position.rules()) {
        Some(Scoring::WinLoss) => {
            (i32::from(position.row_total(mover.other())) - i32::from(position.row_total(mover)))
                * 10
        }
        _ => (i32::from(position.store(mover)) - i32::from(position.store(mover.other()))) * 100,
    }
}

/// Moves in a good order for cut-offs: those ending in the own store
/// (a free turn) first, then from the end of the row backwards.
fn ordered(position: &Position) -> impl Iterator<Item = Pit> {
    let legal: Vec<Pit> = position.legal_moves().into_iter().collect();
    let n = position.rules().pits;
    let side = position.to_move();
    let bonus = position.rules().bonus_in_own_store;
    let mut sorted = legal;
    sorted.sort_by_key(|&pit| {
        let reaches =
            u16::from(position.stones(side, pit)) + u16::from(pit.index()) == u16::from(n);
        (!(bonus && reaches), std::cmp::Reverse(pit.index()))
    });
    sorted.into_iter()
}
