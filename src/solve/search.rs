//! The solver: MTD(f), a series of null-window alpha-beta searches
//! converging on the exact value, over positions with a fixed-size
//! transposition table of bounds ([`Memo`]), down to the end of the game or
//! into the tables. When a position is out of its reach (a node budget), it
//! says so and gives a depth-limited search's value instead, never a guess
//! called exact.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::dfpn::{ProofSearch, Unproven};
use super::history::HistorySearch;
use super::memo::{Key, Known, Memo, Memos, Path};
use super::{Scoring, Tables};
use crate::engine::{Capture, EmptyRow, EndReason, Game, Pit, Position};

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

/// What [`Solver::at_least`] proved: whether the position's value reaches
/// the bound, and each first move searched (those after the first to
/// reach it are not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundTest {
    pub holds: bool,
    pub moves: Vec<(Pit, Proved)>,
}

/// A proven bound on a value, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proved {
    AtLeast(i32),
    AtMost(i32),
}

impl Proved {
    /// What a test of `bound` proved: that the value `reaches` it, or not.
    pub fn of_test(bound: i32, reaches: bool) -> Proved {
        match reaches {
            true => Proved::AtLeast(bound),
            false => Proved::AtMost(bound - 1),
        }
    }
}

impl std::fmt::Display for Proved {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Proved::AtLeast(v) => write!(f, "at least {v:+}"),
            Proved::AtMost(v) => write!(f, "at most {v:+}"),
        }
    }
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
    memo: Memos,
    path: Path,
    pub nodes: u64,
    budget: u64,
    /// Where to report each step of a long solve, if anywhere.
    trace: Option<Trace<'a>>,
    started: Instant,
    /// Whether a game of win or loss is searched by proof numbers (their
    /// search made when first needed), not by MTD(f).
    proof_numbers: bool,
    proof: Option<ProofSearch<'a>>,
    /// The threads each null-window search runs on: one unless asked
    /// ([`Solver::on_cores`]), so that a budget means the same positions
    /// on any machine.
    threads: usize,
    /// Whether [`Solver::value`] deepens iteratively first.
    deepen: bool,
    /// Set when another thread has answered the search this one helps
    /// with ([`Solver::value`] on several cores): it stops then.
    cancel: Option<Arc<AtomicBool>>,
}

/// Where a long solve reports its steps.
type Trace<'a> = Box<dyn FnMut(&str) + 'a>;

pub(super) const INF: i32 = 100_000;

/// The deepest pass of [`Solver::deepened`], in sowings (Irving's 30).
const DEEPENING: u32 = 29;

/// How far from the root threads sharing a search mark what they search.
const BUSY_PLIES: usize = 24;

impl<'a> Solver<'a> {
    /// A solver using `tables` (if any) that gives up exactness after
    /// `budget` nodes, with a transposition table that grows as needed up
    /// to the budget's size (at most 2^26 entries, 1 GB).
    pub fn new(tables: Option<&'a Tables>, budget: u64) -> Solver<'a> {
        let entries = usize::try_from(budget).unwrap_or(usize::MAX).min(1 << 26);
        let memo = Memo::growing(entries);
        Solver::with_memo(tables, budget, memo)
    }

    /// As [`Solver::new`], with a transposition table of at most
    /// `megabytes` MB (grown as needed: a short solve costs no more for a
    /// large bound).
    ///
    /// # Errors
    /// When the system would not give that much memory.
    pub fn with_memory(
        tables: Option<&'a Tables>,
        budget: u64,
        megabytes: usize,
    ) -> Result<Solver<'a>, std::collections::TryReserveError> {
        let memo = Memo::growing_within(megabytes.saturating_mul(1 << 16))?;
        Ok(Solver::with_memo(tables, budget, memo))
    }

    fn with_memo(tables: Option<&'a Tables>, budget: u64, memo: Memo) -> Solver<'a> {
        Solver {
            tables,
            memo: Memos::Own(memo),
            path: Path::default(),
            nodes: 0,
            budget,
            trace: None,
            started: Instant::now(),
            proof_numbers: false,
            proof: None,
            threads: 1,
            deepen: false,
            cancel: None,
        }
    }

    /// Runs each null-window search on `threads` threads over one memo
    /// they share ([`Solver::test_on_cores`]). The values are the same;
    /// the positions counted, and where a budget runs out, are not.
    pub fn on_cores(mut self, threads: usize) -> Solver<'a> {
        self.threads = threads.max(1);
        self
    }

    /// Has [`Solver::value`] deepen iteratively first, as Irving's program
    /// does ([`Solver::deepened`]): fewer positions for Kalah (6,5) and
    /// (6,4) on tables to 13, more for (6,4) on tables to 18 and 23, whose search
    /// is short beside the passes (docs/perfect-play.md).
    pub fn deepening(mut self) -> Solver<'a> {
        self.deepen = true;
        self
    }

    /// Searches a game of win or loss (Waurie) by proof numbers (df-pn),
    /// not by MTD(f): a second, independent search, faster on some
    /// positions, slower on others (docs/perfect-play.md).
    pub fn by_proof_numbers(mut self) -> Solver<'a> {
        self.proof_numbers = true;
        self
    }

    /// Reports each step of the search (each null-window search at the
    /// root) to `trace`.
    pub fn traced(mut self, trace: impl FnMut(&str) + 'a) -> Solver<'a> {
        self.trace = Some(Box::new(trace));
        self
    }

    /// The most bytes the transposition table may take.
    pub fn memory(&self) -> usize {
        self.memo.most_bytes()
    }

    fn report(&mut self, what: std::fmt::Arguments) {
        let (nodes, seconds) = (self.nodes, self.started.elapsed().as_secs_f64());
        if let Some(trace) = &mut self.trace {
            trace(&format!("{what} ({nodes} positions, {seconds:.1} s)"));
        }
    }

    /// Solves the position `game` has reached, on the game's history:
    /// in Wari and Super-Wari a move that repeats a position seen since
    /// the last capture ends the game (rule 5), which the position alone
    /// cannot show. There, every line is searched with that history where
    /// the tables hold the position, and the answer is exact only where
    /// that search finished within the budget; elsewhere as
    /// [`Solver::solve`], never exact.
    pub fn solve_game(&mut self, game: &Game) -> Solution {
        let position = game.position();
        if let Some(outcome) = game.outcome().filter(|o| o.reason == EndReason::Repetition) {
            // Rule 5 ended it: each took the stones on their own side.
            let mover = position.to_move();
            let value =
                i32::from(outcome.score_of(mover)) - i32::from(outcome.score_of(mover.other()));
            return Solution {
                exact: true,
                value,
                moves: Vec::new(),
                depth: None,
                nodes: self.nodes,
            };
        }
        if !position.rules().repetition_ends || game.is_over() {
            return self.solve(position);
        }
        if self.tables.and_then(|t| t.bounds(position)).is_some() {
            let budget = self.budget.saturating_sub(self.nodes);
            let mut search = HistorySearch::new(self.tables, *position.rules(), budget);
            let found = search.moves(game);
            self.nodes += search.nodes;
            if let Ok(moves) = found.as_ref() {
                if let Some(value) = moves.iter().map(|m| m.1).max() {
                    self.report(format_args!("on the game's history: exactly {value:+}"));
                    return Solution {
                        exact: true,
                        value,
                        moves: moves.clone(),
                        depth: None,
                        nodes: self.nodes,
                    };
                }
            }
        }
        // Values of positions as fresh starts: history may change them.
        let solution = self.solve(position);
        Solution {
            exact: false,
            nodes: self.nodes,
            ..solution
        }
    }

    /// Solves `position`: exactly if it can within the budget (in the
    /// games with the repetition rule, as a game whose history starts
    /// there: see [`Solver::solve_game`]).
    pub fn solve(&mut self, position: &Position) -> Solution {
        // The capture games' tables answer their positions outright.
        if let Some(solution) = self.tables.and_then(|t| t.solution(position)) {
            return solution;
        }
        let scoring = Scoring::of(position.rules());
        let legal: Vec<Pit> = position.legal_moves().into_iter().collect();
        // The exact search needs the memo's keys (and its cycle check).
        if let (Some(scoring), Some(_)) = (scoring, Key::of(position)) {
            let guesses = self.guesses(position, &legal);
            let mut moves = Vec::new();
            let mut exact = true;
            for &(pit, child, guess) in &guesses {
                let sign = relative(position, &child, 1);
                let Ok(v) = self.move_value(scoring, &child, guess, sign) else {
                    exact = false;
                    break;
                };
                let v = relative(position, &child, v);
                self.report(format_args!("{pit}: exactly {v:+}"));
                moves.push((pit, v));
            }
            moves.sort_by_key(|&(pit, _)| pit.index());
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

    /// Each legal move with its position and a short search's guess at its
    /// value (for the child's mover), the best looking first: its value is
    /// the position's if it is the best, and each guess is where a search
    /// of that move starts.
    fn guesses(&mut self, position: &Position, legal: &[Pit]) -> Vec<(Pit, Position, i32)> {
        let mut guesses: Vec<(Pit, Position, i32)> = legal
            .iter()
            .map(|&pit| {
                let mut child = *position;
                child.play_unchecked(pit);
                let v = self.limited(&child, 6, -INF, INF);
                (pit, child, (f64::from(v) / 100.0).round() as i32)
            })
            .collect();
        guesses.sort_by_key(|&(_, child, v)| std::cmp::Reverse(relative(position, &child, v)));
        guesses
    }

    /// The value of `position` alone, for its mover: MTD(f) on the
    /// position itself from a short search's guess, so that only the best
    /// move is valued and every other is proved no better (where
    /// [`Solver::solve`] values each). `None` when the budget runs out
    /// first, play can cycle, or the game is not one the exact search knows.
    pub fn value(&mut self, position: &Position) -> Option<i32> {
        let scoring = Scoring::of(position.rules())?;
        Key::of(position)?;
        if let Some(v) = self.settled(scoring, position) {
            return Some(v);
        }
        if self.threads > 1 {
            // The memo the threads share, from the start: deepening fills it.
            self.memo.shared();
        }
        // Deepening's first pass starts from the homes' difference, as
        // Irving's does: a search for a first guess would cost more.
        let guess = match scoring {
            Scoring::Margin if self.deepen => {
                self.deepened(scoring, position, heuristic(position) / 100)
            }
            _ => (f64::from(self.limited(position, 6, -INF, INF)) / 100.0).round() as i32,
        };
        self.mtdf(scoring, position, guess, 1).ok()
    }

    /// Whether `position`'s value is at least `beta` (a null-window
    /// search, fail-soft), on every thread: the memo shared from the first
    /// (what it held before is lost).
    fn test(&mut self, scoring: Scoring, position: &Position, beta: i32) -> Result<i32, Stop> {
        self.path.clear();
        match self.threads {
            1 => self.exact(scoring, position, beta - 1, beta),
            _ => self.test_on_cores(scoring, position, beta),
        }
    }

    /// One null-window search of `position` (is its value at least
    /// `beta`?) on [`Solver::on_cores`]'s threads over one shared memo,
    /// each putting off the moves another is searching (each thread's
    /// positions counted): the first to answer stops the other.
    fn test_on_cores(
        &mut self,
        scoring: Scoring,
        position: &Position,
        beta: i32,
    ) -> Result<i32, Stop> {
        let shared = self.memo.shared();
        let cancel = Arc::new(AtomicBool::new(false));
        // The budget left, shared out: the positions counted are all theirs.
        let budget = self.budget.saturating_sub(self.nodes) / self.threads as u64;
        let tables = self.tables;
        let each = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..self.threads)
                .map(|_| {
                    let (shared, cancel) = (shared.clone(), cancel.clone());
                    scope.spawn(move || {
                        let mut solver = Solver::with_memo(tables, budget, Memo::growing(0));
                        solver.memo = Memos::Shared(shared);
                        solver.cancel = Some(cancel.clone());
                        let result = solver.exact(scoring, position, beta - 1, beta);
                        if result.is_ok() {
                            cancel.store(true, Ordering::Relaxed);
                        }
                        (result, solver.nodes)
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join()).collect::<Vec<_>>()
        });
        let mut answer = Err(Stop::Budget);
        for worker in each {
            let (result, nodes) = worker.unwrap_or_else(|e| std::panic::resume_unwind(e));
            self.nodes += nodes;
            answer = match (answer, result) {
                (Ok(v), _) | (_, Ok(v)) => Ok(v),
                (Err(Stop::Cycle), _) | (_, Err(Stop::Cycle)) => Err(Stop::Cycle),
                _ => Err(Stop::Budget),
            };
        }
        answer
    }

    /// Iterative deepening before the exact search, as in Irving's
    /// program: depth-limited MTD(f) passes, 3 sowings deeper each, whose
    /// best moves go into the memo to order the exact search (its last
    /// pass, proving every move no better, is where most positions go)
    /// and whose last value is its first guess.
    fn deepened(&mut self, scoring: Scoring, position: &Position, guess: i32) -> i32 {
        let mut g = guess;
        for depth in (5..=DEEPENING).step_by(3) {
            let (mut lower, mut upper) = (-INF, INF);
            while lower < upper {
                let beta = if g == lower { g + 1 } else { g };
                g = self.shallow(scoring, position, depth, beta - 1, beta).0;
                if g < beta {
                    upper = g;
                } else {
                    lower = g;
                }
            }
            self.report(format_args!("  {depth} sowings deep: {g:+}"));
        }
        g
    }

    /// What [`Solver::shallow`] knows of `position` without searching it
    /// (Irving's peek): its value if the game is over or in the tables, a
    /// bound from the stones left or the memo that decides the window
    /// (with whether it is the game's), or the homes' difference at the
    /// horizon. Otherwise `Err` with its key and what the memo holds, for
    /// its search ([`Solver::expand`]).
    fn peek(
        &self,
        scoring: Scoring,
        position: &Position,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> Result<(i32, bool), (Key, Option<Known>)> {
        if let Some(v) = self.settled(scoring, position) {
            return Ok((v, true));
        }
        let home = scoring.home_term(position);
        if let Some((lower, upper)) = stones_left(scoring, position) {
            if lower >= beta {
                return Ok((lower, true));
            }
            if upper <= alpha {
                return Ok((upper, true));
            }
        }
        let Some(key) = Key::of(position) else {
            return Ok((home, false));
        };
        // The game's bounds, or a search's at least as deep: a cut-off by
        // the latter is no more resolved than the search behind it.
        let entry = self.memo.entry(key);
        if let Some((bounds, horizon)) = entry {
            let resolved = horizon.is_none();
            if horizon.is_none_or(|h| u32::from(h) >= depth) {
                if let Some(lower) = bounds.lower.map(|v| v + home).filter(|&v| v >= beta) {
                    return Ok((lower, resolved));
                }
                if let Some(upper) = bounds.upper.map(|v| v + home).filter(|&v| v <= alpha) {
                    return Ok((upper, resolved));
                }
            }
        }
        match depth {
            0 => Ok((home, false)),
            _ => Err((key, entry.map(|e| e.0))),
        }
    }

    /// A depth-limited null-window search for [`Solver::deepened`]: the
    /// homes' difference at its horizon, exact where the game is over, in
    /// the tables, or bounded by the stones left or the memo's bounds. With
    /// the value, whether it is resolved: found without reaching the
    /// horizon, so a bound on the game's value, kept in the memo as the
    /// exact search's are. Each position's best move is kept either way.
    /// Positions are counted as the exact search counts them: those whose
    /// moves are searched.
    fn shallow(
        &mut self,
        scoring: Scoring,
        position: &Position,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        match self.peek(scoring, position, depth, alpha, beta) {
            Ok(found) => found,
            Err((key, known)) => self.expand(scoring, position, key, known, depth, alpha, beta),
        }
    }

    /// [`Solver::shallow`] for a position its peek left to search: every
    /// child peeked at first (one whose bound cuts off spares searching
    /// those before it), then the rest searched, the memo's best first,
    /// then the free turns, then by what the move gains for the store.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        scoring: Scoring,
        position: &Position,
        key: Key,
        known: Option<Known>,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        let home = scoring.home_term(position);
        self.nodes += 1;
        let before = self.nodes;
        let known_best = known.and_then(|k| k.best);
        let mut open = [None; 8];
        let mut count = 0;
        for (pit, child, same) in moves(position, known_best) {
            let gain = relative(position, &child, scoring.home_term(&child));
            if count < open.len() {
                open[count] = Some((pit, child, same, gain));
                count += 1;
            }
        }
        search_order(&mut open[..count], known_best, |o| (o.0, o.2, o.3));
        let (mut best, mut best_pit, mut resolved) = (-INF, None, true);
        let mut floor = alpha;
        let mut searched = [None; 8];
        let mut left = 0;
        for &(pit, child, same, _) in open[..count].iter().flatten() {
            let peeked = if same {
                self.peek(scoring, &child, depth - 1, floor, beta)
            } else {
                self.peek(scoring, &child, depth - 1, -beta, -floor)
                    .map(|(v, sure)| (-v, sure))
            };
            let (value, sure) = match peeked {
                Ok(found) => found,
                Err(entry) => {
                    searched[left] = Some((pit, child, same, entry));
                    left += 1;
                    continue;
                }
            };
            if value > best {
                (best, best_pit) = (value, Some(pit.index()));
            }
            floor = floor.max(value);
            if floor >= beta {
                resolved = sure;
                left = 0;
                break;
            }
            resolved &= sure;
        }
        for &(pit, child, same, (key, known)) in searched[..left].iter().flatten() {
            let (value, sure) = if same {
                self.expand(scoring, &child, key, known, depth - 1, floor, beta)
            } else {
                let (v, sure) = self.expand(scoring, &child, key, known, depth - 1, -beta, -floor);
                (-v, sure)
            };
            if value > best {
                (best, best_pit) = (value, Some(pit.index()));
            }
            floor = floor.max(value);
            if floor >= beta {
                // A cut-off is as sure as the move that made it.
                resolved = sure;
                break;
            }
            resolved &= sure;
        }
        let (lower, upper) = if best <= alpha {
            (None, Some(best - home))
        } else if best >= beta {
            (Some(best - home), None)
        } else {
            (Some(best - home), Some(best - home))
        };
        let work = (64 - (self.nodes - before).leading_zeros()) as u8;
        let kept = Known {
            lower,
            upper,
            best: best_pit,
            work,
        };
        match resolved {
            true => self.memo.put(key, kept),
            false => self.memo.put_horizon(key, kept, depth as u8),
        }
        (best, resolved)
    }

    /// Whether the value of `position` for its mover is at least `bound`:
    /// one null-window search a first move, the best looking first, until
    /// one reaches it. Far from the exact value such a proof costs far
    /// less than the value, so it says how far a start too large to solve
    /// is won or lost. `None` when the budget runs out first, play can
    /// cycle, or the game is not one the exact search knows.
    pub fn at_least(&mut self, position: &Position, bound: i32) -> Option<BoundTest> {
        self.at_least_in(&Game::from_position(*position), bound)
    }

    /// [`Solver::at_least`] for the position `game` has reached, on the
    /// game's history (see [`Solver::solve_game`]).
    pub fn at_least_in(&mut self, game: &Game, bound: i32) -> Option<BoundTest> {
        let position = game.position();
        // The capture games are answered on their history, where exact.
        if position.rules().repetition_ends {
            let solution = Some(self.solve_game(game)).filter(|s| s.exact)?;
            return Some(BoundTest {
                holds: solution.value >= bound,
                moves: (solution.moves.iter())
                    .map(|&(pit, v)| (pit, Proved::of_test(bound, v >= bound)))
                    .collect(),
            });
        }
        let scoring = Scoring::of(position.rules())?;
        Key::of(position)?;
        if position.is_over() {
            let value = scoring.final_value(position);
            return Some(BoundTest {
                holds: value >= bound,
                moves: Vec::new(),
            });
        }
        let legal: Vec<Pit> = position.legal_moves().into_iter().collect();
        let guesses = self.guesses(position, &legal);
        let mut moves = Vec::new();
        for &(pit, child, _) in &guesses {
            // The child's value v, for its own mover, is `sign * v` here.
            let sign = relative(position, &child, 1);
            let beta = if sign > 0 { bound } else { 1 - bound };
            let reaches = (self.test(scoring, &child, beta).ok()? >= beta) == (sign > 0);
            let proved = Proved::of_test(bound, reaches);
            self.report(format_args!("{pit}: {proved}"));
            moves.push((pit, proved));
            if reaches {
                break;
            }
        }
        moves.sort_by_key(|&(pit, _)| pit.index());
        let holds = moves.iter().any(|(_, p)| matches!(p, Proved::AtLeast(_)));
        Some(BoundTest { holds, moves })
    }

    /// The exact value of a root move's `child` for its mover: by proof
    /// numbers in a game of win or loss (wherever they can say), else by
    /// MTD(f) from `guess`.
    fn move_value(
        &mut self,
        scoring: Scoring,
        child: &Position,
        guess: i32,
        sign: i32,
    ) -> Result<i32, Stop> {
        if scoring == Scoring::WinLoss && self.proof_numbers {
            // The same memory as the memo's bound: the memo is then unused.
            let (tables, entries) = (self.tables, self.memo.most_bytes() / 32);
            let proof = self
                .proof
                .get_or_insert_with(|| ProofSearch::new(tables, entries));
            let result = proof.wins(child, self.budget.saturating_sub(self.nodes));
            self.nodes += proof.nodes;
            match result {
                Ok(wins) => return Ok(if wins { 1 } else { -1 }),
                Err(Unproven::Budget) => return Err(Stop::Budget),
                Err(Unproven::NotWinLoss) => {}
            }
        }
        self.mtdf(scoring, child, guess, sign)
    }

    /// The exact value of `position` for its mover: null-window searches
    /// from `guess`, each closing in by at least one. Steps are reported
    /// times `sign` (for the parent's mover).
    fn mtdf(
        &mut self,
        scoring: Scoring,
        position: &Position,
        guess: i32,
        sign: i32,
    ) -> Result<i32, Stop> {
        let (mut lower, mut upper) = (-INF, INF);
        let mut g = guess;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.test(scoring, position, beta)?;
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
            let bound = if (g < beta) == (sign > 0) {
                "at most"
            } else {
                "at least"
            };
            self.report(format_args!("  {bound} {:+}", sign * g));
        }
        Ok(g)
    }

    /// The value of `position` for its side to move, exact within
    /// (alpha, beta) and a bound beyond them (fail-soft).
    fn exact(
        &mut self,
        scoring: Scoring,
        position: &Position,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stop> {
        if let Some(v) = self.settled(scoring, position) {
            self.nodes += 1;
            return Ok(v);
        }
        let key = Key::of(position);
        if key.is_some_and(|k| self.path.holds(position, k)) {
            return Err(Stop::Cycle);
        }
        let known = key.and_then(|k| self.memo.get(k));
        self.unsettled(scoring, position, (key, known), alpha, beta)
    }

    /// [`Solver::exact`] for a position neither over nor in the tables nor
    /// on the path (checked before any bound from the memo: a position met
    /// again on the path is play cycling, whatever the memo knows of it),
    /// whose memo entry has been looked up already.
    fn unsettled(
        &mut self,
        scoring: Scoring,
        position: &Position,
        (key, known): (Option<Key>, Option<Known>),
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<i32, Stop> {
        let home = scoring.home_term(position);
        if let Some((lower, upper)) = stones_left(scoring, position) {
            // Not a bound worth keeping: it costs nothing to find again.
            if lower >= beta {
                return Ok(lower);
            }
            if upper <= alpha {
                return Ok(upper);
            }
        }
        if let Some(known) = known {
            let lower = known.lower.map_or(-INF, |v| v + home);
            let upper = known.upper.map_or(INF, |v| v + home);
            if lower >= beta || lower == upper {
                return Ok(lower);
            }
            if upper <= alpha {
                return Ok(upper);
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        // Counted as Irving's program counts: positions whose moves are
        // generated (those cut off above were not).
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.cancel.as_ref()).is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(Stop::Budget);
        }
        if let Some(key) = key {
            self.path.push(position, key);
        }
        let before = self.nodes;
        let outcome = self.children(scoring, position, alpha, beta, known.and_then(|k| k.best));
        if key.is_some() {
            self.path.pop();
        }
        let (best, best_pit) = outcome?;
        if let Some(key) = key {
            let work = (64 - (self.nodes - before).leading_zeros()) as u8;
            let (lower, upper) = if best <= alpha {
                (None, Some(best - home))
            } else if best >= beta {
                (Some(best - home), None)
            } else {
                (Some(best - home), Some(best - home))
            };
            self.memo.put(
                key,
                Known {
                    lower,
                    upper,
                    best: best_pit,
                    work,
                },
            );
        }
        Ok(best)
    }

    /// The value of a finished position, or one the tables hold.
    fn settled(&self, scoring: Scoring, position: &Position) -> Option<i32> {
        if position.is_over() {
            return Some(scoring.final_value(position));
        }
        self.tables.and_then(|t| t.value(position))
    }

    /// The best of `position`'s moves within (alpha, beta), and its pit:
    /// first any child whose value is settled or whose bounds already cut
    /// off (so no search at all), then the rest, the best move known first.
    fn children(
        &mut self,
        scoring: Scoring,
        position: &Position,
        mut alpha: i32,
        beta: i32,
        known_best: Option<u8>,
    ) -> Result<(i32, Option<u8>), Stop> {
        let mut best = -INF;
        let mut best_pit = None;
        // At most one child a pit, and no board has more than 8 pits a row.
        let mut open = [None; 8];
        let mut count = 0;
        for (pit, child, same) in moves(position, known_best) {
            // The child's bounds for this mover: its value if settled,
            // else what the memo and the stones left say (Irving's peek).
            let (lower, upper) = match self.settled(scoring, &child) {
                Some(v) => {
                    let v = relative(position, &child, v);
                    (v, v)
                }
                None => {
                    let home = scoring.home_term(&child);
                    let key = Key::of(&child);
                    if let Some(key) = key {
                        // A child on the path is a cycle: never cut off by
                        // what the memo knows of it.
                        if self.path.holds(&child, key) {
                            return Err(Stop::Cycle);
                        }
                    }
                    let known = key.and_then(|k| self.memo.get(k));
                    // For the child's own mover first.
                    let (mut lo, mut hi) = stones_left(scoring, &child).unwrap_or((-INF, INF));
                    if let Some(known) = known {
                        lo = lo.max(known.lower.map_or(-INF, |v| v + home));
                        hi = hi.min(known.upper.map_or(INF, |v| v + home));
                    }
                    let (lo, hi) = if same { (lo, hi) } else { (-hi, -lo) };
                    // Neither bound decides: searched, in order of what the
                    // move gains for the store (after the memo's best and
                    // the free turns): a gain is most often the best move.
                    if lo < beta && hi > alpha && lo < hi && count < open.len() {
                        let gain = relative(position, &child, home);
                        open[count] = Some((pit, child, same, (key, known), gain));
                        count += 1;
                    }
                    (lo, hi)
                }
            };
            // A lower bound that cuts off (or raises alpha: the child is
            // searched above it), or an upper bound that leaves the child
            // unsearched, its fail-soft value.
            let v = if lower < beta && upper <= alpha {
                upper
            } else {
                lower
            };
            if v > best {
                (best, best_pit) = (v, Some(pit.index()));
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                return Ok((best, best_pit));
            }
        }
        search_order(&mut open[..count], known_best, |o| (o.0, o.2, o.4));
        // Threads sharing one search part ways near its root: a move (but
        // the first) that another thread is searching is put off till the
        // others are done (simplified ABDADA). Deeper, marking costs more
        // than the work it spares.
        let shared = match &self.memo {
            Memos::Shared(shared) if self.path.len() <= BUSY_PLIES => Some(shared.clone()),
            _ => None,
        };
        let mut put_off = [false; 8];
        // The second pass only for moves put off in the first.
        for pass in 0..1 + usize::from(shared.is_some()) {
            for (i, open) in open[..count].iter().enumerate() {
                let Some((pit, child, same, probe, _)) = *open else {
                    continue;
                };
                let mark = shared.as_ref().zip(probe.0);
                if pass == 1 && !put_off[i] {
                    continue;
                }
                if let Some((shared, key)) = mark {
                    if pass == 0 && i > 0 && shared.is_busy(key) {
                        put_off[i] = true;
                        continue;
                    }
                    shared.start(key);
                }
                let value = if same {
                    self.unsettled(scoring, &child, probe, alpha, beta)
                } else {
                    self.unsettled(scoring, &child, probe, -beta, -alpha)
                        .map(|v| -v)
                };
                if let Some((shared, key)) = mark {
                    shared.done(key);
                }
                let value = value?;
                if value > best {
                    (best, best_pit) = (value, Some(pit.index()));
                }
                alpha = alpha.max(value);
                if alpha >= beta {
                    return Ok((best, best_pit));
                }
            }
        }
        Ok((best, best_pit))
    }

    /// A depth-limited search, deepened while the budget lasts: the values
    /// of the last depth it finished.
    fn estimate(&mut self, position: &Position, legal: &[Pit]) -> Solution {
        // A budget of its own: the exact search may have spent the first.
        self.budget = self.nodes.saturating_add(self.budget);
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
        for pit in ordered(position, None) {
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

/// Bounds on a position's value from the stones left in its pits: every
/// one of them won, or every one lost (where the value is the margin).
pub(super) fn stones_left(scoring: Scoring, position: &Position) -> Option<(i32, i32)> {
    match scoring {
        Scoring::Margin => {
            let home = scoring.home_term(position);
            let left = i32::from(position.stones_in_pits());
            Some((
                home - left + 2 * i32::from(wins_a_stone(position)),
                home + left,
            ))
        }
        Scoring::WinLoss => None,
    }
}

/// Whether the mover, with a move, can always win a stone: under the
/// empty-capture rule (Irving's program's bound) the last pit with
/// stones either reaches the store or ends in an empty pit of the
/// mover's, taken into the store.
fn wins_a_stone(position: &Position) -> bool {
    let rules = position.rules();
    rules.stores
        && rules.lone_capture
        && rules.capture == Capture::OppositeIntoStore
        && rules.empty_row == EmptyRow::EndsGame
        && !position.is_over()
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

/// Each of `position`'s moves in [`ordered`]'s order, with the position
/// it makes and whether its mover moves again.
fn moves(
    position: &Position,
    known_best: Option<u8>,
) -> impl Iterator<Item = (Pit, Position, bool)> + '_ {
    ordered(position, known_best).map(move |pit| {
        let mut child = *position;
        child.play_unchecked(pit);
        (pit, child, child.to_move() == position.to_move())
    })
}

/// Orders the children left to search: the memo's best first (where
/// [`ordered`] put it), then the free turns, then by what the move gains
/// for the store (a gain is most often the best move); stable, so ties
/// keep [`ordered`]'s order. `parts` reads a child's pit, whether its
/// mover moves again, and its gain.
fn search_order<T: Copy>(
    open: &mut [Option<T>],
    known_best: Option<u8>,
    parts: impl Fn(T) -> (Pit, bool, i32),
) {
    let first = usize::from(known_best.is_some_and(|b| {
        (open.first()).is_some_and(|o| o.is_some_and(|o| parts(o).0.index() == b))
    }));
    open[first..].sort_by_key(|o| {
        o.map(|o| {
            let (_, same, gain) = parts(o);
            (!same, std::cmp::Reverse(gain))
        })
    });
}

/// Moves in a good order for cut-offs: the best one known first, then
/// those ending in the own store (a free turn), then from the end of the
/// row backwards.
fn ordered(position: &Position, known_best: Option<u8>) -> impl Iterator<Item = Pit> {
    let legal: Vec<Pit> = position.legal_moves().into_iter().collect();
    let n = position.rules().pits;
    let side = position.to_move();
    let bonus = position.rules().bonus_in_own_store;
    let mut sorted = legal;
    sorted.sort_by_key(|&pit| {
        let reaches =
            u16::from(position.stones(side, pit)) + u16::from(pit.index()) == u16::from(n);
        (
            Some(pit.index()) != known_best,
            !(bonus && reaches),
            std::cmp::Reverse(pit.index()),
        )
    });
    sorted.into_iter()
}
