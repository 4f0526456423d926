//! Computer opponents: Critchlow's greedy player and his other simple
//! strategies, exactly, and a game-tree search that is hard to beat. Like
//! the engine, they know nothing of text or mail.
//!
//! ```
//! use mancala::engine::{Game, Ruleset, Side};
//! use mancala::opponent::Opponent;
//!
//! let game = Game::new(Ruleset::Mankala.rules(), Side::South);
//! let greedy: Opponent = "greedy".parse().unwrap();
//! let choice = greedy.choose(&game, &mut mancala::engine::SplitMix64::new(1)).unwrap();
//! assert_eq!(choice.pit.to_string(), "d"); // 3 stones, 3 from the home: a free turn
//! ```

use crate::engine::{
    Capture, DefaultOpponent, EmptyRow, Game, Landing, Outcome, Pit, PitSet, Position, Ruleset,
    Side, SplitMix64,
};
use std::fmt;
use std::str::FromStr;

/// Critchlow's simple strategies, used alone or as greedy's fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simple {
    Random,
    First,
    Last,
    FirstLargest,
    LastLargest,
    FirstSmallest,
    LastSmallest,
}

/// A computer player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// A simple strategy.
    Simple(Simple),
    /// Critchlow's FindGreedy: a free turn, else the largest capture, else
    /// the fallback (`greedy` is `greedy-last`).
    Greedy(Simple),
    /// Iterative-deepening alpha-beta search with a budget of positions
    /// per move: work, not wall time, so a position gets the same move on
    /// any machine under any load.
    Search { nodes: u64, name: &'static str },
    /// Exact play where the solver (with the tables, if given) reaches
    /// within `nodes` positions; `strong`'s search elsewhere.
    Perfect {
        nodes: u64,
        tables: Option<&'static crate::solve::Tables>,
    },
}

/// Why a strategy chose its move, in a few words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    FreeTurn,
    Capture(u8),
    Fallback(Simple),
    Searched,
    /// The solver's exact choice, worth this much.
    Perfect(i32),
    /// Beyond the solver's reach: worth about this much (the final
    /// margin, as the solver estimates it).
    Estimated(i32),
    OnlyMove,
}

/// A move chosen, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub pit: Pit,
    pub reason: Reason,
    /// The search's score for the side to move (stones ahead, or about
    /// 10000 for a won game), and how deep it looked.
    pub eval: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
}

impl Choice {
    /// Did the search see the game end on every line: a forced win or loss?
    pub fn saw_the_end(&self) -> bool {
        self.eval.is_some_and(|eval| eval.abs() >= WIN - 64)
    }

    /// A choice made without searching.
    fn plain(pit: Pit, reason: Reason) -> Choice {
        Choice {
            pit,
            reason,
            eval: None,
            depth: 0,
            nodes: 0,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::FreeTurn => f.write_str("a free turn"),
            Reason::Capture(n) => write!(f, "captures {n}"),
            Reason::Fallback(s) => write!(f, "no free turn or capture, so the {}", s.describe()),
            Reason::Searched => f.write_str("the best it found"),
            Reason::Perfect(value) => write!(f, "perfect play, worth {value:+}"),
            Reason::Estimated(value) => write!(f, "not exact, worth about {value:+}"),
            Reason::OnlyMove => f.write_str("the only move"),
        }
    }
}

impl Simple {
    const ALL: [(Simple, &'static str); 7] = [
        (Simple::Random, "random"),
        (Simple::First, "first"),
        (Simple::Last, "last"),
        (Simple::FirstLargest, "first-largest"),
        (Simple::LastLargest, "last-largest"),
        (Simple::FirstSmallest, "first-smallest"),
        (Simple::LastSmallest, "last-smallest"),
    ];

    pub fn as_str(self) -> &'static str {
        Simple::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("?", |(_, name)| name)
    }

    fn describe(self) -> &'static str {
        match self {
            Simple::Random => "random legal pit",
            Simple::First => "first legal pit",
            Simple::Last => "last legal pit",
            Simple::FirstLargest | Simple::LastLargest => "fullest pit",
            Simple::FirstSmallest | Simple::LastSmallest => "emptiest pit",
        }
    }

    /// The pit this strategy picks among `legal`.
    fn pick(self, position: &Position, legal: PitSet, rng: &mut SplitMix64) -> Option<Pit> {
        let side = position.to_move();
        let count = |p: Pit| position.stones(side, p);
        let pits = legal.into_iter();
        match self {
            Simple::Random => legal.nth(rng.below(legal.len().max(1))),
            Simple::First => legal.first(),
            Simple::Last => legal.last(),
            // max_by_key keeps the last of equals, min_by_key the first.
            Simple::FirstLargest => pits.rev().max_by_key(|&p| count(p)),
            Simple::LastLargest => pits.max_by_key(|&p| count(p)),
            Simple::FirstSmallest => pits.min_by_key(|&p| count(p)),
            Simple::LastSmallest => pits.rev().min_by_key(|&p| count(p)),
        }
    }
}

/// Named search levels: the positions each may search per move (at about
/// 10 million a second on one core, `strong` takes about 0.1 s a move,
/// `quick` 10 ms, `blitz` 1 ms; a loaded machine is slower, never weaker).
pub const LEVELS: [(&str, u64); 3] = [("strong", 1_000_000), ("quick", 100_000), ("blitz", 10_000)];

impl FromStr for Opponent {
    type Err = String;

    /// `greedy`, `greedy-X`, a simple strategy (`random`, `first`, `last`,
    /// `first-largest`, ...), a level (`strong`, `quick`, `blitz`) or
    /// `search-N` (N positions a move).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        let simple = |name: &str| {
            Simple::ALL
                .iter()
                .find(|(_, n)| *n == name)
                .map(|(s, _)| *s)
        };
        if s == "greedy" {
            return Ok(Opponent::Greedy(Simple::Last));
        }
        if s == "perfect" {
            return Ok(Opponent::perfect(None));
        }
        if let Some(fallback) = s.strip_prefix("greedy-").and_then(simple) {
            return Ok(Opponent::Greedy(fallback));
        }
        if let Some(strategy) = simple(&s) {
            return Ok(Opponent::Simple(strategy));
        }
        if let Some(&(name, nodes)) = LEVELS.iter().find(|(name, _)| *name == s) {
            return Ok(Opponent::Search { nodes, name });
        }
        if let Some(nodes) = s
            .strip_prefix("search-")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
        {
            return Ok(Opponent::Search {
                nodes,
                name: "search",
            });
        }
        Err(format!(
            "unknown opponent '{s}': try greedy, greedy-first, random, first, last, first-largest, \
             last-largest, first-smallest, last-smallest, perfect, strong, quick, blitz or search-N (N positions a move, e.g. search-50000)"
        ))
    }
}

impl fmt::Display for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opponent::Simple(s) => f.write_str(s.as_str()),
            Opponent::Greedy(Simple::Last) => f.write_str("greedy"),
            Opponent::Greedy(s) => write!(f, "greedy-{}", s.as_str()),
            Opponent::Search { nodes, name } if *name == "search" => write!(f, "search-{nodes}"),
            Opponent::Search { name, .. } => f.write_str(name),
            Opponent::Perfect { .. } => f.write_str("perfect"),
        }
    }
}

impl Opponent {
    /// The default opponent for a game, as its entry in the rulesets'
    /// table says: Critchlow's greedy one for his Mankala, the strong
    /// search elsewhere.
    pub fn default_for(ruleset: Ruleset) -> Opponent {
        match ruleset.spec().opponent {
            DefaultOpponent::Greedy => Opponent::Greedy(Simple::Last),
            DefaultOpponent::Strong => Opponent::strong(),
        }
    }

    /// Exact where the solver reaches within 500,000 positions, with
    /// `tables` if given; `strong` elsewhere.
    pub fn perfect(tables: Option<&'static crate::solve::Tables>) -> Opponent {
        Opponent::Perfect {
            nodes: 500_000,
            tables,
        }
    }

    pub fn strong() -> Opponent {
        let (name, nodes) = LEVELS[0];
        Opponent::Search { nodes, name }
    }

    /// The move this opponent plays for the side to move, or `None` when
    /// the game is over.
    pub fn choose(&self, game: &Game, rng: &mut SplitMix64) -> Option<Choice> {
        // Over by the game's history (a repetition), not only its board.
        if game.is_over() {
            return None;
        }
        let legal = game.legal_moves();
        if legal.len() == 1 {
            return legal
                .first()
                .map(|pit| Choice::plain(pit, Reason::OnlyMove));
        }
        let position = game.position();
        match *self {
            Opponent::Simple(strategy) => strategy
                .pick(position, legal, rng)
                .map(|p| Choice::plain(p, Reason::Fallback(strategy))),
            Opponent::Greedy(fallback) => Some(greedy(position, legal, fallback, rng)),
            Opponent::Search { nodes, .. } => search(position, nodes),
            Opponent::Perfect { nodes, tables } => {
                let solution = crate::solve::Solver::new(tables, nodes).solve_game(game);
                let best = solution
                    .moves
                    .iter()
                    .max_by_key(|m| (m.1, std::cmp::Reverse(m.0)));
                let worth = |pit: Pit| solution.moves.iter().find(|m| m.0 == pit).map(|m| m.1);
                match best {
                    Some(&(pit, value)) if solution.exact => Some(Choice {
                        pit,
                        reason: Reason::Perfect(value),
                        eval: Some(value),
                        depth: 0,
                        nodes: solution.nodes,
                    }),
                    // The tables' best, where play may cycle (in Wari
                    // games their values bound the game's).
                    Some(&(pit, value)) if solution.depth.is_none() => Some(Choice {
                        pit,
                        reason: Reason::Estimated(value),
                        eval: Some(value),
                        depth: 0,
                        nodes: solution.nodes,
                    }),
                    // Out of reach: `strong`'s move, valued on the game's
                    // scale (the final margin) by the solver's search, as
                    // `solve` values it, never in the search's own score.
                    _ => search(position, LEVELS[0].1).map(|choice| match worth(choice.pit) {
                        Some(value) => Choice {
                            reason: Reason::Estimated(value),
                            eval: Some(value),
                            depth: solution.depth.unwrap_or(0),
                            nodes: choice.nodes + solution.nodes,
                            ..choice
                        },
                        None => choice,
                    }),
                }
            }
        }
    }
}

/// Critchlow's FindGreedy: (1) a free turn, the pit whose stones reach
/// exactly the home, the one nearest the home of several; (2) the largest
/// capture, judged on the counts before the move: a pit whose last stone
/// lands in an own pit empty now, with the fullest opposite pit, the first
/// such pit on a tie; (3) the fallback. For games without free turns or
/// with other captures: a bonus sowing first where the game has one, else
/// the move that captures most, else the fallback.
fn greedy(position: &Position, legal: PitSet, fallback: Simple, rng: &mut SplitMix64) -> Choice {
    let rules = position.rules();
    let side = position.to_move();
    let choice = Choice::plain;
    if rules.bonus_in_own_store {
        // The pit nearest the home first.
        let free = legal.into_iter().rev().find(|&pit| {
            usize::from(position.stones(side, pit)) == usize::from(rules.pits - pit.index())
        });
        if let Some(pit) = free {
            return choice(pit, Reason::FreeTurn);
        }
    }
    let mut best: Option<(Pit, u8)> = None;
    for pit in legal {
        let mut after = *position;
        let sowing = after.play_unchecked(pit);
        let gain = match (rules.capture, sowing.last) {
            (Capture::OppositeIntoOwnPit | Capture::OppositeIntoStore, Landing::Pit(s, landed))
                if s == side && position.stones(side, landed) == 0 =>
            {
                position.stones(side.other(), rules.opposite(landed))
            }
            (Capture::TwoOrThreeBackwards, _) => sowing.captured,
            _ => 0,
        };
        if gain > 0 && best.is_none_or(|(_, most)| gain > most) {
            best = Some((pit, gain));
        }
    }
    if let Some((pit, gain)) = best {
        return choice(pit, Reason::Capture(gain));
    }
    let pit = fallback.pick(position, legal, rng).unwrap_or(Pit::new(0));
    choice(pit, Reason::Fallback(fallback))
}

const WIN: i32 = 10_000;
const TABLE_BITS: u32 = 18;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    depth: u8,
    bound: u8, // 0 exact, 1 lower, 2 upper
    best: u8,  // pit index + 1, 0 for none
}

impl Entry {
    /// The stored score, when it was searched deep enough and its bound
    /// settles the window `alpha..beta` without searching again.
    fn cutoff(&self, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        if u32::from(self.depth) < depth {
            return None;
        }
        match self.bound {
            0 => Some(self.score),
            1 if self.score >= beta => Some(self.score),
            2 if self.score <= alpha => Some(self.score),
            _ => None,
        }
    }
}

/// What a search's best score says of the true one: exact (0), at least
/// (1, it failed high) or at most (2, nothing beat the window).
fn bound(best_score: i32, original_alpha: i32, beta: i32) -> u8 {
    if best_score <= original_alpha {
        2
    } else if best_score >= beta {
        1
    } else {
        0
    }
}

struct Searcher {
    table: Vec<Entry>,
    nodes: u64,
    budget: u64,
    stopped: bool,
}

/// The score of a finished game for `side`: winning sooner is better.
fn outcome_score(outcome: Outcome, side: Side, ply: u32) -> i32 {
    match outcome.winner {
        Some(w) if w == side => WIN - ply as i32,
        Some(_) => -WIN + ply as i32,
        None => 0,
    }
}

/// The static score for the side to move.
fn evaluate(position: &Position) -> i32 {
    let side = position.to_move();
    let (own, opp) = (side, side.other());
    let store = |s| i32::from(position.store(s));
    let row = |s| i32::from(position.row_total(s));
    // What wins follows from what an empty row means.
    match position.rules().empty_row {
        // Wari: captured stones are what count; stones at home are a reserve.
        EmptyRow::MustFeed => 4 * (store(own) - store(opp)) + (row(own) - row(opp)) / 2,
        // Mankala, Kalah: pits and store both score at the end; the store is safe.
        EmptyRow::EndsGame => 3 * (store(own) - store(opp)) + (row(own) - row(opp)),
        // Waurie: who cannot move (or first empties their row) wins: fewer
        // seeds of one's own is better.
        EmptyRow::CannotMoveWins | EmptyRow::EmptiedRowWins => {
            2 * (row(opp) - row(own)) + (store(own) - store(opp)) / 4
        }
    }
}

impl Searcher {
    fn slot(&self, key: u64) -> usize {
        (key >> (64 - TABLE_BITS)) as usize
    }

    /// Negamax with alpha-beta; a bonus sowing keeps the same side to
    /// move, so its score is not negated.
    fn search(
        &mut self,
        position: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: u32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        if let Some(outcome) = position.outcome() {
            return outcome_score(outcome, position.to_move(), ply);
        }
        if depth == 0 {
            return evaluate(position);
        }
        let key = position.key();
        let slot = self.slot(key);
        let entry = self.table[slot];
        let mut first = None;
        if entry.key == key {
            if let Some(score) = entry.cutoff(depth, alpha, beta) {
                return score;
            }
            first = entry.best.checked_sub(1).map(Pit::new);
        }
        let legal = position.legal_moves();
        let side = position.to_move();
        // The table's move first, then the rest from the home end.
        let ordered = first
            .into_iter()
            .chain(legal.into_iter().rev().filter(|p| Some(*p) != first));
        let original_alpha = alpha;
        let mut best_score = -WIN - 1;
        let mut best_pit = None;
        for pit in ordered {
            if !legal.contains(pit) {
                continue;
            }
            let mut child = *position;
            child.play_unchecked(pit);
            let score = if child.to_move() == side {
                self.search(&child, depth - 1, alpha, beta, ply + 1)
            } else {
                -self.search(&child, depth - 1, -beta, -alpha, ply + 1)
            };
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_pit = Some(pit);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.table[slot] = Entry {
            key,
            score: best_score,
            depth: depth.min(255) as u8,
            bound: bound(best_score, original_alpha, beta),
            best: best_pit.map_or(0, |p| p.index() + 1),
        };
        best_score
    }
}

/// Iterative deepening until `budget` positions are searched; the deepest
/// search finished gives the move. Nothing here reads a clock, so the move
/// depends on the position and the budget alone.
fn search(position: &Position, budget: u64) -> Option<Choice> {
    let legal = position.legal_moves();
    let mut result = legal.last().map(|pit| Choice::plain(pit, Reason::Searched));
    let mut searcher = Searcher {
        table: vec![Entry::default(); 1 << TABLE_BITS],
        nodes: 0,
        budget,
        stopped: false,
    };
    let side = position.to_move();
    for depth in 1..=64u32 {
        let (mut alpha, beta) = (-WIN - 1, WIN + 1);
        let mut best = None;
        let first = result.map(|c| c.pit);
        let ordered = first
            .into_iter()
            .chain(legal.into_iter().rev().filter(|p| Some(*p) != first));
        for pit in ordered {
            let mut child = *position;
            child.play_unchecked(pit);
            let score = if child.to_move() == side {
                searcher.search(&child, depth - 1, alpha, beta, 1)
            } else {
                -searcher.search(&child, depth - 1, -beta, -alpha, 1)
            };
            if searcher.stopped {
                break;
            }
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((pit, score));
            }
            alpha = alpha.max(score);
        }
        if searcher.stopped {
            break;
        }
        if let Some((pit, score)) = best {
            let choice = Choice {
                pit,
                reason: Reason::Searched,
                eval: Some(score),
                depth,
                nodes: searcher.nodes,
            };
            result = Some(choice);
            if choice.saw_the_end() {
                break; // a forced win or loss is found: deeper changes nothing
            }
        }
    }
    result.map(|c| Choice {
        nodes: searcher.nodes,
        ..c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(ruleset: Ruleset, south: &[u8], north: &[u8], stores: [u8; 2]) -> Game {
        Game::from_position(
            Position::from_counts(ruleset.rules(), south, north, stores, Side::South).unwrap(),
        )
    }

    fn greedy_pick(game: &Game) -> (String, Reason) {
        let choice = Opponent::Greedy(Simple::Last)
            .choose(game, &mut SplitMix64::new(0))
            .unwrap();
        (choice.pit.to_string(), choice.reason)
    }

    /// Critchlow's greedy rules, one position each: the pick and its reason.
    #[test]
    fn greedy_picks_free_turns_then_captures_then_the_fallback() {
        use Ruleset::{Mankala, SuperWari};
        // Why, the game, South's and North's pits, the stores, the pick.
        type Case = (
            &'static str,
            Ruleset,
            &'static [u8],
            &'static [u8],
            [u8; 2],
            &'static str,
            Reason,
        );
        #[rustfmt::skip]
        let cases: [Case; 7] = [
            ("a 6, d 3 and f 1 are all free turns: the one nearest the home",
             Mankala, &[6, 2, 2, 3, 2, 1], &[3; 6], [1, 1], "f", Reason::FreeTurn),
            ("a 6 and d 3 are free turns: the nearer",
             Mankala, &[6, 2, 2, 3, 1, 2], &[3; 6], [1, 1], "d", Reason::FreeTurn),
            ("b into empty c takes North's d (5), e into empty f North's a (5): a tie, the first",
             Mankala, &[3, 1, 0, 4, 1, 0], &[5, 1, 1, 5, 1, 1], [8, 5], "b", Reason::Capture(5)),
            ("the same with North's a fuller: e",
             Mankala, &[3, 1, 0, 4, 1, 0], &[6, 1, 1, 5, 1, 0], [8, 5], "e", Reason::Capture(6)),
            ("a ends in f, empty before the move, opposite North's a (2); d passes the home",
             Mankala, &[5, 0, 0, 4, 0, 0], &[2, 4, 4, 4, 4, 4], [2, 3], "a", Reason::Capture(2)),
            ("b and c end in empty pits opposite nothing: the last legal pit",
             Mankala, &[2, 2, 2, 0, 0, 0], &[6, 0, 0, 0, 0, 6], [9, 9], "c", Reason::Fallback(Simple::Last)),
            ("Wari: h sows 4 into North's a to d, capturing a 2-3-2-3 run",
             SuperWari, &[1, 0, 0, 0, 0, 0, 0, 4], &[1, 2, 1, 2, 5, 5, 5, 5], [10, 7], "h", Reason::Capture(10)),
        ];
        for (why, ruleset, south, north, stores, pit, reason) in cases {
            let game = position(ruleset, south, north, stores);
            assert_eq!(greedy_pick(&game), (pit.into(), reason), "{why}");
        }
        let waurie = Game::new(Ruleset::Waurie.rules(), Side::South);
        assert_eq!(greedy_pick(&waurie), ("c".into(), Reason::FreeTurn));
        // The fallback's other end: with `greedy-first`, a.
        let game = position(Mankala, &[2, 2, 2, 0, 0, 0], &[6, 0, 0, 0, 0, 6], [9, 9]);
        let first = Opponent::Greedy(Simple::First)
            .choose(&game, &mut SplitMix64::new(0))
            .unwrap();
        assert_eq!(first.pit.to_string(), "a");
    }

    #[test]
    fn simple_strategies_pick_as_named() {
        let game = position(Ruleset::Mankala, &[2, 5, 1, 5, 1, 0], &[3; 6], [2, 2]);
        let pick = |name: &str| {
            name.parse::<Opponent>()
                .unwrap()
                .choose(&game, &mut SplitMix64::new(0))
                .unwrap()
                .pit
                .to_string()
        };
        assert_eq!(pick("first"), "a");
        assert_eq!(pick("last"), "e");
        assert_eq!(pick("first-largest"), "b");
        assert_eq!(pick("last-largest"), "d");
        assert_eq!(pick("first-smallest"), "c");
        assert_eq!(pick("last-smallest"), "e");
        assert!("greedy-sideways".parse::<Opponent>().is_err());
        for name in [
            "greedy",
            "greedy-first",
            "random",
            "strong",
            "quick",
            "blitz",
            "search-5000",
        ] {
            assert_eq!(name.parse::<Opponent>().unwrap().to_string(), name);
        }
    }

    #[test]
    fn the_search_is_set_by_positions_not_time() {
        // The same position and budget give the same move, score, depth and
        // work every time: no clock is read, so load cannot change a move.
        let mut game = Game::new(Ruleset::Kalah.rules(), Side::South);
        for pit in [2, 5] {
            game.play(Pit::new(pit)).unwrap();
        }
        let run = |nodes| search(game.position(), nodes).unwrap();
        let strong = run(LEVELS[0].1);
        assert_eq!(strong, run(LEVELS[0].1));
        assert!(strong.nodes <= LEVELS[0].1 + 1, "{strong:?}");
        assert!(
            strong.nodes > LEVELS[0].1 / 2,
            "it used its budget: {strong:?}"
        );
        // More work looks deeper.
        let blitz = run(LEVELS[2].1);
        assert!(blitz.depth < strong.depth, "{blitz:?} {strong:?}");
        assert_eq!(Opponent::strong(), "strong".parse().unwrap());
        assert!("search-0".parse::<Opponent>().is_err());
    }

    #[test]
    fn the_search_finds_a_capture_and_a_winning_finish() {
        let game = position(
            Ruleset::SuperWari,
            &[1, 0, 0, 0, 0, 0, 0, 4],
            &[1, 2, 1, 2, 5, 5, 5, 5],
            [10, 7],
        );
        let searched = |game: &Game, budget: u64| {
            Opponent::Search {
                nodes: budget,
                name: "search",
            }
            .choose(game, &mut SplitMix64::new(0))
            .unwrap()
        };
        let choice = searched(&game, 500_000);
        assert_eq!(choice.pit.to_string(), "h");
        assert!(choice.depth >= 4 && choice.nodes > 0, "{choice:?}");
        // Waurie: South's f ends in the endpit and leaves South empty: an immediate win.
        let game = position(
            Ruleset::Waurie,
            &[0, 0, 0, 0, 2, 1],
            &[9, 9, 9, 9, 4, 0],
            [3, 2],
        );
        let choice = searched(&game, 200_000);
        assert_eq!(choice.eval.map(|e| e > WIN - 100), Some(true), "{choice:?}");
    }
}
