//! The capture games' tables (Wari, Super-Wari) against a plain search that
//! applies the repetition rule as the engine does, over every line of play,
//! and against the engine's own moves on every position of every layer.

use std::cell::Cell;
use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::Tables;
use crate::engine::{Game, Position, Rules, Ruleset};

/// An alpha-beta search over every line of a game whose history starts at
/// its start, the repetition rule applied by the engine's `Game` (a line
/// ends when a position repeats). After a capture no earlier position can
/// come back, so what is learnt of a position from there is kept. The
/// tables only order the moves (the best-looking first, for cut-offs).
struct PathSearch<'a> {
    tables: &'a Tables,
    /// The rules the tables are for (the searched games may differ).
    rules: Rules,
    after_capture: HashMap<Position, (i32, i32)>,
    nodes: u64,
}

impl PathSearch<'_> {
    /// The value of `game` for its mover (the final margin), exact within
    /// (alpha, beta) and a bound beyond them.
    fn search(&mut self, game: &Game, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        assert!(self.nodes < 20_000_000, "the search is too big for a test");
        let position = *game.position();
        let mover = position.to_move();
        if let Some(outcome) = game.outcome() {
            return i32::from(outcome.score_of(mover)) - i32::from(outcome.score_of(mover.other()));
        }
        let mut children: Vec<(i32, Game, bool)> = game
            .legal_moves()
            .into_iter()
            .map(|pit| {
                let mut next = game.clone();
                let captured = next.play_unchecked(pit).captured > 0 && !next.is_over();
                let guess = self
                    .tables
                    .value(&under(self.rules, next.position()))
                    .unwrap_or(0);
                (guess, next, captured)
            })
            .collect();
        children.sort_by_key(|c| c.0);
        let mut best = i32::MIN;
        for (_, next, captured) in children {
            // Wari games have no bonus sowing: the turn always passes.
            let v = if captured {
                -self.fresh(*next.position(), -beta, -alpha)
            } else {
                -self.search(&next, -beta, -alpha)
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        assert!(best > i32::MIN, "a position with no move: {position:?}");
        best
    }

    /// [`PathSearch::search`] of a game that starts at `position`, with
    /// the bounds learnt of it before.
    fn fresh(&mut self, position: Position, mut alpha: i32, mut beta: i32) -> i32 {
        let (lo, hi) = self
            .after_capture
            .get(&position)
            .copied()
            .unwrap_or((i32::MIN, i32::MAX));
        if lo >= beta || lo == hi {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let v = self.search(&Game::from_position(position), alpha, beta);
        let (lo, hi) = if v <= alpha {
            (lo, v)
        } else if v >= beta {
            (v, hi)
        } else {
            (v, v)
        };
        self.after_capture.insert(position, (lo, hi));
        v
    }
}

/// A random position of `rules` with 1 to `most` stones on the board (the
/// rest split between the stores at random), its mover with stones.
fn random_position(rules: Rules, most: usize) -> impl Strategy<Value = Position> {
    super::tests::random_position(rules, most)
        .prop_filter("the mover has stones (else no play reaches it)", |p| {
            p.row_total(p.to_move()) > 0
        })
}

/// `position` under `rules` (the same counts).
fn under(rules: Rules, position: &Position) -> Position {
    super::history::with_rules(position, rules).expect("the same counts, another game's rules")
}

/// The tables of `ruleset` to `stones` against the path-dependent search
/// on `cases` random positions: where the tables say exact, the same value
/// (and, under the real rules with the majority rule, the same winner);
/// elsewhere the game's value lies within the tables' bounds (the search
/// proves it at least the lower and at most the upper).
fn check(ruleset: Ruleset, stones: usize, cases: u32) {
    let rules = ruleset.rules();
    // Play to the end: the tables' value is the margin with every stone won.
    let to_the_end = Rules {
        majority_wins: false,
        ..rules
    };
    let tables = Tables::build(&rules, stones, &mut |_, _| {}).unwrap();
    let (exact, inexact) = (Cell::new(0), Cell::new(0));
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&random_position(to_the_end, stones), |position| {
        let real = under(rules, &position);
        let mut search = PathSearch {
            tables: &tables,
            rules,
            after_capture: HashMap::new(),
            nodes: 0,
        };
        let game = Game::from_position(position);
        let (lower, upper) = tables.bounds(&real).unwrap();
        if tables.exact(&real).unwrap() {
            let value = tables.value(&real).unwrap();
            let truth = search.search(&game, value - 1, value + 1);
            prop_assert_eq!(truth, value, "{:?}", position);
            // With the majority rule on, the same winner.
            search.after_capture.clear();
            let wins = search.search(&Game::from_position(real), -1, 1).signum();
            prop_assert_eq!(wins, value.signum(), "the winner: {:?}", real);
            exact.set(exact.get() + 1);
        } else {
            let at_least = search.search(&game, lower - 1, lower);
            prop_assert!(at_least >= lower, "{at_least} < {lower}: {position:?}");
            let at_most = search.search(&game, upper, upper + 1);
            prop_assert!(at_most <= upper, "{at_most} > {upper}: {position:?}");
            inexact.set(inexact.get() + 1);
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{ruleset}: {failure}");
    }
    eprintln!("{ruleset}: {} exact, {} not", exact.get(), inexact.get());
    assert_eq!(exact.get() + inexact.get(), cases);
    assert!(exact.get() > cases / 2, "most small positions are exact");
}

#[test]
fn wari_tables_agree_with_the_path_dependent_search() {
    check(Ruleset::Wari, 3, 2000);
}

#[test]
fn super_wari_tables_agree_with_the_path_dependent_search() {
    check(Ruleset::SuperWari, 3, 2000);
}

/// `solve` on a Wari game values each move on the game's own history: a
/// move whose play can come back to a position seen since the last capture
/// (the set-up counting as the first occurrence) is valued by the
/// repetition rule, as the engine ends the game, never as a fresh start.
fn check_history(ruleset: Ruleset, stones: usize, cases: u32) {
    let rules = ruleset.rules();
    let to_the_end = Rules {
        majority_wins: false,
        ..rules
    };
    let tables = Tables::build(&rules, stones, &mut |_, _| {}).unwrap();
    let (asked, exact, differs) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (random_position(to_the_end, stones), 0..2usize, any::<u64>());
    let result = runner.run(&strategy, |(position, before, seed)| {
        // A set-up, or a set-up and a move or two that captured nothing:
        // then the history holds more than the position.
        let mut game = Game::from_position(position);
        let mut rng = crate::engine::SplitMix64::new(seed);
        for _ in 0..before {
            let legal: Vec<_> = game.legal_moves().into_iter().collect();
            if legal.is_empty() {
                break;
            }
            let pit = legal[rng.below(legal.len())];
            let mut next = game.clone();
            if next.play_unchecked(pit).captured == 0 {
                game = next;
            }
        }
        let real = Game::from_position(under(rules, game.start()));
        let mut real_game = real;
        for sowing in game.sowings() {
            real_game.play_unchecked(sowing.pit);
        }
        // (Most random splits of the captured stones are over by the
        // majority rule.)
        if game.is_over() || real_game.is_over() {
            return Ok(());
        }
        asked.set(asked.get() + 1);
        let solution = super::Solver::new(Some(&tables), 1_000_000).solve_game(&real_game);
        if !solution.exact {
            return Ok(());
        }
        exact.set(exact.get() + 1);
        let mut search = PathSearch {
            tables: &tables,
            rules,
            after_capture: HashMap::new(),
            nodes: 0,
        };
        for &(pit, value) in &solution.moves {
            let mut next = game.clone();
            next.play_unchecked(pit);
            // Wari games have no bonus sowing: the turn always passes.
            let truth = -search.search(&next, -1000, 1000);
            prop_assert_eq!(
                value,
                truth,
                "{:?} after {:?}: {}",
                game.start(),
                game.sowings(),
                pit
            );
            let mut child = *real_game.position();
            child.play_unchecked(pit);
            if tables.value(&child).map(|v| -v) != Some(truth) {
                differs.set(differs.get() + 1);
            }
        }
        let best = solution.moves.iter().map(|m| m.1).max();
        prop_assert_eq!(Some(solution.value), best);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{ruleset}: {failure}");
    }
    eprintln!(
        "{ruleset}: {} of {} exact, {} moves the history changes",
        exact.get(),
        asked.get(),
        differs.get()
    );
    assert!(asked.get() > 100, "{ruleset}: {} asked", asked.get());
    assert_eq!(
        exact.get(),
        asked.get(),
        "{ruleset}: small games all solved"
    );
    assert!(differs.get() > 0, "{ruleset}: the history changed no move");
}

#[test]
fn solve_values_wari_moves_on_the_games_history_as_the_engine_ends_it() {
    check_history(Ruleset::Wari, 3, 10_000);
}

#[test]
fn solve_values_super_wari_moves_on_the_games_history_as_the_engine_ends_it() {
    check_history(Ruleset::SuperWari, 3, 10_000);
}

/// Every position of every layer: its bounds are the best of its moves'
/// (each move as the engine plays it, valued by the tables).
fn check_layers(ruleset: Ruleset, stones: usize) {
    let tables = Tables::build(&ruleset.rules(), stones, &mut |_, _| {}).unwrap();
    let checked = tables.check_against_engine(&|_, _| {}).unwrap();
    assert_eq!(checked as usize + 1, tables.positions());
}

#[test]
fn every_wari_layer_agrees_with_the_engines_moves() {
    check_layers(Ruleset::Wari, 9);
}

#[test]
fn every_super_wari_layer_agrees_with_the_engines_moves() {
    check_layers(Ruleset::SuperWari, 7);
}

#[test]
fn capture_tables_are_the_same_on_any_number_of_threads_and_extended() {
    for ruleset in [Ruleset::Wari, Ruleset::SuperWari] {
        let rules = ruleset.rules();
        let one = Tables::build_on(&rules, 6, 1, &mut |_, _| {}).unwrap();
        assert_eq!(one, Tables::build_on(&rules, 6, 3, &mut |_, _| {}).unwrap());
        let mut extended = Tables::build_on(&rules, 3, 2, &mut |_, _| {}).unwrap();
        extended.extend_on(6, 2, &mut |_, _| {}).unwrap();
        assert_eq!(one, extended);
        let mut bytes = Vec::new();
        one.write(&mut bytes).unwrap();
        assert!(bytes.starts_with(format!("mancala-tables 1 {ruleset} pits").as_bytes()));
        assert_eq!(Tables::read(&rules, &mut bytes.as_slice()).unwrap(), one);
    }
}

#[test]
fn pits_tables_are_the_same_on_any_number_of_threads() {
    let rules = Ruleset::Mankala.rules();
    let one = Tables::build_on(&rules, 7, 1, &mut |_, _| {}).unwrap();
    assert_eq!(one, Tables::build_on(&rules, 7, 3, &mut |_, _| {}).unwrap());
}

#[test]
fn perfect_never_picks_a_move_the_tables_value_lower() {
    use crate::engine::SplitMix64;
    use crate::opponent::Opponent;
    for (ruleset, stones) in [(Ruleset::Wari, 7), (Ruleset::SuperWari, 6)] {
        let rules = ruleset.rules();
        let tables: &'static Tables = Box::leak(Box::new(
            Tables::build(&rules, stones, &mut |_, _| {}).unwrap(),
        ));
        let perfect = Opponent::perfect(Some(tables));
        let checked = Cell::new(0);
        let mut runner = TestRunner::new(Config {
            // Most small positions have one move: 4,000 give a few hundred choices.
            cases: 4000,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&random_position(rules, stones), |position| {
            let game = Game::from_position(position);
            if game.is_over() || game.legal_moves().len() < 2 {
                return Ok(());
            }
            checked.set(checked.get() + 1);
            let choice = perfect.choose(&game, &mut SplitMix64::new(7)).unwrap();
            // Each move valued on the game's history where the solver
            // finished, else as the tables value it.
            let solution = super::Solver::new(Some(tables), 500_000).solve_game(&game);
            let worth = |pit| {
                let valued = solution.moves.iter().find(|m| m.0 == pit).map(|m| m.1);
                let mut child = position;
                child.play_unchecked(pit);
                valued.unwrap_or_else(|| -tables.value(&child).unwrap())
            };
            let best = game.legal_moves().into_iter().map(worth).max().unwrap();
            prop_assert_eq!(worth(choice.pit), best, "{:?}", position);
            // The history starts at the set-up: the tables' exact value
            // is the game's.
            if tables.exact(&position) == Some(true) && solution.exact {
                prop_assert_eq!(tables.value(&position), Some(best));
            }
            Ok(())
        });
        if let Err(failure) = result {
            panic!("{ruleset}: {failure}");
        }
        assert!(checked.get() > 200, "{ruleset}: {} choices", checked.get());
    }
}
