//! The tables and the solver against a plain minimax, on thousands of
//! small positions of each ruleset the tables know.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::Read;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseResult, TestRunner};

use super::rank::unrank;
use super::{Proved, Scoring, Solver, Tables};
use crate::engine::{Pit, Position, Rules, Ruleset, Side};

/// Minimax with no pruning and no table, remembering only what it has
/// worked out (each position's value is the same however it is reached).
fn minimax_in(
    position: &Position,
    scoring: Scoring,
    depth: u32,
    memo: &mut HashMap<Position, i32>,
) -> i32 {
    assert!(depth < 400, "play went on for 400 sowings: a cycle?");
    if position.is_over() {
        return scoring.final_value(position);
    }
    if let Some(&v) = memo.get(position) {
        return v;
    }
    let v = position
        .legal_moves()
        .into_iter()
        .map(|pit| {
            let mut child = *position;
            child.play_unchecked(pit);
            let v = minimax_in(&child, scoring, depth + 1, memo);
            if child.to_move() == position.to_move() {
                v
            } else {
                -v
            }
        })
        .max()
        .unwrap_or(0);
    memo.insert(*position, v);
    v
}

fn minimax(position: &Position, scoring: Scoring, _depth: u32) -> i32 {
    minimax_in(position, scoring, 0, &mut HashMap::new())
}

/// Random positions of `rules` with 1 to `most` stones in their pits (the
/// rest shared between the stores at random), either side to move.
pub(super) fn random_position(rules: Rules, most: usize) -> impl Strategy<Value = Position> {
    (1..=most, any::<Index>(), any::<Index>(), any::<bool>()).prop_map(
        move |(stones, spread, home, south)| {
            let cells = 2 * usize::from(rules.pits);
            let size = super::rank::spreads(stones, cells);
            let mut counts = vec![0u8; cells];
            unrank(spread.index(size as usize) as u64, stones, &mut counts);
            let n = usize::from(rules.pits);
            let rest = rules.total_stones() - stones as u16;
            let south_home = home.index(usize::from(rest) + 1) as u16;
            let side = if south { Side::South } else { Side::North };
            Position::from_counts(
                rules,
                &counts[..n],
                &counts[n..],
                [south_home as u8, (rest - south_home) as u8],
                side,
            )
            .unwrap()
        },
    )
}

/// Runs `test` on `cases` random positions of `rules` (see
/// `random_position`); a failure is shrunk to a small position and panics.
fn for_random_positions(
    rules: Rules,
    most: usize,
    cases: u32,
    test: impl Fn(Position) -> TestCaseResult,
) {
    let config = Config {
        cases,
        // The shrunk position is in the panic's message; no regression
        // files are written into the source tree.
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(failure) = TestRunner::new(config).run(&random_position(rules, most), test) {
        panic!("{}: {failure}", Tables::game_name(&rules));
    }
}

fn check(ruleset: Ruleset, table_stones: usize, most: usize, samples: u32) {
    check_rules(ruleset.rules(), table_stones, most, samples);
}

fn check_rules(rules: Rules, table_stones: usize, most: usize, samples: u32) {
    let scoring = Scoring::of(&rules).unwrap();
    let tables = Tables::build(&rules, table_stones, &mut |_, _| {}).unwrap();
    let played = Cell::new(0);
    for_random_positions(rules, most, samples, |position| {
        let truth = minimax(&position, scoring, 0);
        if usize::from(position.stones_in_pits()) <= table_stones {
            prop_assert_eq!(tables.value(&position), Some(truth), "{:?}", position);
        }
        // The solver with tables below the position, without any, with a
        // memo small enough (1024 entries) to be replacing all the time,
        // and (in Waurie: elsewhere it is the same) by proof numbers, not
        // MTD(f).
        // And on three threads over one shared memo.
        let ways = [
            (None, 16, false, 1),
            (Some(&tables), 16, false, 1),
            (Some(&tables), 0, false, 1),
            (Some(&tables), 0, true, 1),
            (Some(&tables), 16, false, 3),
        ];
        for (with, megabytes, proof, threads) in ways {
            let solver = Solver::with_memory(with, 1_000_000, megabytes).unwrap();
            let solver = if proof {
                solver.by_proof_numbers()
            } else {
                solver
            };
            let solver = solver.on_cores(threads);
            let solution = { solver }.solve(&position);
            prop_assert!(solution.exact, "{:?}", position);
            prop_assert_eq!(solution.value, truth, "{:?}", position);
            for (pit, value) in &solution.moves {
                let mut child = position;
                child.play_unchecked(*pit);
                let v = minimax(&child, scoring, 0);
                let v = if child.to_move() == position.to_move() {
                    v
                } else {
                    -v
                };
                prop_assert_eq!(*value, v, "{:?} {}", position, pit);
            }
        }
        // A bound proven: the value reaches itself and less, not more, and
        // every first move's bound holds of its value.
        // The value alone, as the value of every move gives it.
        let alone = Solver::new(Some(&tables), 1_000_000).value(&position);
        prop_assert_eq!(alone, Some(truth), "{:?}", position);
        // And after iterative deepening: its horizon's values order the
        // moves, never decide the value. Also with no tables (the horizon
        // then reached far more often) and a memo replacing all the time.
        // And on two or three threads over one shared memo (a small one too).
        for (with, megabytes, threads) in [
            (Some(&tables), 16, 1),
            (None, 16, 1),
            (Some(&tables), 0, 1),
            (Some(&tables), 16, 2),
            (None, 0, 3),
        ] {
            let deepened = Solver::with_memory(with, 1_000_000, megabytes)
                .unwrap()
                .deepening()
                .on_cores(threads)
                .value(&position);
            prop_assert_eq!(deepened, Some(truth), "{:?}", position);
        }
        let shared = Solver::new(Some(&tables), 1_000_000)
            .on_cores(2)
            .value(&position);
        prop_assert_eq!(shared, Some(truth), "{:?}", position);
        // The stones left bound the value (see stones_left).
        if let Some((lower, upper)) = super::search::stones_left(scoring, &position) {
            prop_assert!(lower <= truth && truth <= upper, "{:?}", position);
        }
        for (bound, threads) in [(truth - 3, 1), (truth, 1), (truth + 1, 1), (truth + 3, 1)]
            .into_iter()
            .chain([(truth, 2), (truth + 1, 3)])
        {
            let test = Solver::new(Some(&tables), 1_000_000)
                .on_cores(threads)
                .at_least(&position, bound)
                .unwrap();
            prop_assert_eq!(test.holds, bound <= truth, "{:?} {}", position, bound);
            for (pit, proved) in &test.moves {
                let (_, value) = solution_moves(&position, scoring)
                    .into_iter()
                    .find(|(p, _)| p == pit)
                    .unwrap();
                let holds = match *proved {
                    Proved::AtLeast(v) => value >= v,
                    Proved::AtMost(v) => value <= v,
                };
                prop_assert!(holds, "{:?} {} {:?} {}", position, pit, proved, value);
            }
        }
        played.set(played.get() + 1);
        Ok(())
    });
    assert_eq!(played.get(), samples);
}

/// Each legal move of `position` and its value for the mover, by minimax.
fn solution_moves(position: &Position, scoring: Scoring) -> Vec<(Pit, i32)> {
    position
        .legal_moves()
        .into_iter()
        .map(|pit| {
            let mut child = *position;
            child.play_unchecked(pit);
            let v = minimax(&child, scoring, 0);
            let sign = if child.to_move() == position.to_move() {
                1
            } else {
                -1
            };
            (pit, sign * v)
        })
        .collect()
}

#[test]
fn mankala_tables_and_solver_agree_with_minimax() {
    check(Ruleset::Mankala, 5, 7, 2000);
}

#[test]
fn waurie_tables_and_solver_agree_with_minimax() {
    check(Ruleset::Waurie, 5, 7, 2000);
}

#[test]
fn kalah_tables_and_solver_agree_with_minimax() {
    check(Ruleset::Kalah, 5, 7, 2000);
}

#[test]
fn kalah_empty_capture_tables_and_solver_agree_with_minimax() {
    // Under this rule the mover always wins a stone: the stones-left bound
    // is 2 tighter (wins_a_stone), checked here against minimax.
    let rules = Ruleset::Kalah
        .rules()
        .with_variant("empty-capture")
        .unwrap();
    check_rules(rules, 5, 7, 2000);
}

#[test]
fn proof_numbers_and_mtdf_agree_on_larger_waurie_positions() {
    // Beyond minimax's reach: 9 to 16 stones in pits, tables to 6, each
    // move's value by df-pn and by MTD(f), two searches sharing nothing.
    let rules = Ruleset::Waurie.rules();
    let tables = Tables::build(&rules, 6, &mut |_, _| {}).unwrap();
    let nodes = Cell::new((0u64, 0u64));
    let played = Cell::new(0);
    for_random_positions(rules, 16, 150, |position| {
        if position.stones_in_pits() < 9 {
            return Ok(());
        }
        let mut proof = Solver::new(Some(&tables), 100_000_000).by_proof_numbers();
        let mut mtdf = Solver::new(Some(&tables), 100_000_000);
        let (by_proof, by_mtdf) = (proof.solve(&position), mtdf.solve(&position));
        prop_assert!(by_proof.exact && by_mtdf.exact, "{:?}", position);
        prop_assert_eq!(&by_proof.moves, &by_mtdf.moves, "{:?}", position);
        prop_assert_eq!(by_proof.value, by_mtdf.value);
        let (p, m) = nodes.get();
        nodes.set((p + proof.nodes, m + mtdf.nodes));
        played.set(played.get() + 1);
        Ok(())
    });
    let (p, m) = nodes.get();
    eprintln!(
        "{} positions: df-pn {p} positions, MTD(f) {m}",
        played.get()
    );
    assert!(played.get() > 40, "{} played", played.get());
}

#[test]
fn proof_numbers_settle_in_a_table_too_small_for_the_memo() {
    // Found by the minimax check: with the smallest memo (1024 entries),
    // df-pn's table of the same size lost its numbers faster than it made
    // them and spent a million positions on this one; its table now has
    // 2^16 entries at least.
    let rules = Ruleset::Waurie.rules();
    let tables = Tables::build(&rules, 5, &mut |_, _| {}).unwrap();
    let position = Position::from_counts(
        rules,
        &[0, 1, 0, 1, 1, 0],
        &[2, 0, 0, 1, 0, 1],
        [0, 41],
        Side::South,
    )
    .unwrap();
    let solution = Solver::with_memory(Some(&tables), 1_000_000, 0)
        .unwrap()
        .by_proof_numbers()
        .solve(&position);
    assert!(solution.exact, "{solution:?}");
    assert_eq!(solution.value, 1);
}

#[test]
fn tables_extended_are_the_tables_built_at_once() {
    let rules = Ruleset::Mankala.rules();
    let mut tables = Tables::build(&rules, 3, &mut |_, _| {}).unwrap();
    let mut reported = 0;
    tables.extend(6, &mut |done, _| reported = done).unwrap();
    assert_eq!(
        reported,
        (4..=6).map(|k| super::rank::spreads(k, 12)).sum::<u64>()
    );
    assert_eq!(tables, Tables::build(&rules, 6, &mut |_, _| {}).unwrap());
}

/// `tables` extended to `max` by [`Tables::build_file`] within `memory`
/// bytes: the file's bytes, and whether the layers were read back from it.
fn built_in_a_file(tables: Tables, max: usize, memory: usize) -> (Vec<u8>, bool) {
    let file = tempfile::tempfile().unwrap();
    let budget = super::Budget { threads: 2, memory };
    let written = tables
        .build_file(max, budget, &file, &mut |_, _| {})
        .unwrap();
    (bytes_of(file, &written), written.on_disk)
}

/// What `file` holds, all `written` said.
fn bytes_of(mut file: std::fs::File, written: &super::Written) -> Vec<u8> {
    use std::io::{Seek, SeekFrom};
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.read_to_end(&mut bytes).unwrap();
    assert_eq!(written.bytes, bytes.len() as u64);
    bytes
}

/// A limit small enough that the finished layers go to disk part way (the
/// first layers in memory, then read back from the file; in Wari a cache
/// of moves for some blocks and none for others) gives the bytes of the
/// build in memory, extending tables or building them anew, and extending
/// a file of tables without reading it.
#[test]
fn tables_built_from_disk_are_the_tables_built_in_memory() {
    let cases = [
        // Kalah to 9: layer 9 (167,960 bytes) with 0 to 8 (125,970) is
        // over 200,000; layer 8 with those below is not.
        (Ruleset::Kalah, 9, 200_000),
        // Wari to 8: layer 8 takes 3 x 75,582 bytes, beside 50,388 below.
        (Ruleset::Wari, 8, 250_000),
        // Kalah to 10: layer 10 (352,716) with 0 to 9 (293,930); extended
        // from 9, the header's count gains a digit.
        (Ruleset::Kalah, 10, 400_000),
    ];
    for (ruleset, max, memory) in cases {
        let rules = ruleset.rules();
        let mut in_memory = Vec::new();
        Tables::build(&rules, max, &mut |_, _| {})
            .unwrap()
            .write(&mut in_memory)
            .unwrap();
        let fresh = || Tables::new(&rules).unwrap();
        let begun = || Tables::build(&rules, 5, &mut |_, _| {}).unwrap();
        assert_eq!(
            built_in_a_file(fresh(), max, usize::MAX),
            (in_memory.clone(), false)
        );
        assert_eq!(
            built_in_a_file(fresh(), max, memory),
            (in_memory.clone(), true),
            "{ruleset}"
        );
        assert_eq!(
            built_in_a_file(begun(), max, memory),
            (in_memory.clone(), true),
            "{ruleset}"
        );
        // Extending a file of tables to one stone fewer, too large to read
        // beside the last layer: copied from the file, never held.
        let mut old = tempfile::tempfile().unwrap();
        let below = Tables::build(&rules, max - 1, &mut |_, _| {}).unwrap();
        below.write(&mut old).unwrap();
        let file = tempfile::tempfile().unwrap();
        let budget = super::Budget { threads: 2, memory };
        let written =
            Tables::extend_file(&rules, &old, max, budget, &file, &mut |_, _| {}).unwrap();
        assert!(written.on_disk, "{ruleset}");
        assert_eq!(written.kept, below.positions() as u64, "{ruleset}");
        assert_eq!(bytes_of(file, &written), in_memory, "{ruleset}");
        // A file cut short is refused, not extended.
        let short = tempfile::tempfile().unwrap();
        let mut bytes = Vec::new();
        below.write(&mut bytes).unwrap();
        std::io::Write::write_all(&mut &short, &bytes[..bytes.len() - 1]).unwrap();
        assert!(Tables::stones_in(&rules, &short).is_err(), "{ruleset}");
        // With room, the same tables are read and extended in memory.
        let file = tempfile::tempfile().unwrap();
        let roomy = super::Budget {
            threads: 2,
            memory: usize::MAX,
        };
        let written = Tables::extend_file(&rules, &old, max, roomy, &file, &mut |_, _| {}).unwrap();
        assert!(!written.on_disk, "{ruleset}");
        assert_eq!(bytes_of(file, &written), in_memory, "{ruleset}");
        // A layer that alone does not fit is refused before any is built.
        let file = tempfile::tempfile().unwrap();
        let budget = super::Budget {
            threads: 2,
            memory: 100_000,
        };
        match fresh().build_file(max, budget, &file, &mut |_, _| {}) {
            Err(super::TableError::Memory { stones, .. }) => assert!(stones <= max),
            other => panic!("{ruleset}: {other:?}"),
        }
    }
}

#[test]
fn a_variant_has_tables_of_its_own() {
    let base = Ruleset::Waurie.rules();
    let variant = base.with_variant("both-stores").unwrap();
    assert_eq!(Tables::game_name(&base), "waurie");
    assert_eq!(Tables::game_name(&variant), "waurie-both-stores");
    let mut bytes = Vec::new();
    Tables::build(&base, 3, &mut |_, _| {})
        .unwrap()
        .write(&mut bytes)
        .unwrap();
    assert!(
        Tables::read(&variant, &mut bytes.as_slice()).is_err(),
        "the game's tables are not its variant's"
    );
    let own = Tables::build(&variant, 3, &mut |_, _| {}).unwrap();
    let mut bytes = Vec::new();
    own.write(&mut bytes).unwrap();
    assert_eq!(Tables::read(&variant, &mut bytes.as_slice()).unwrap(), own);
}

#[test]
fn tables_round_trip_through_their_file() {
    let rules = Ruleset::Waurie.rules();
    let tables = Tables::build(&rules, 4, &mut |_, _| {}).unwrap();
    let mut bytes = Vec::new();
    tables.write(&mut bytes).unwrap();
    let read = Tables::read(&rules, &mut bytes.as_slice()).unwrap();
    assert_eq!(read.max_stones(), 4);
    for_random_positions(rules, 4, 200, |p| {
        prop_assert_eq!(read.value(&p), tables.value(&p));
        Ok(())
    });
    assert!(Tables::read(&Ruleset::Mankala.rules(), &mut bytes.as_slice()).is_err());
    assert!(
        Tables::read(&rules, &mut &bytes[..bytes.len() - 1]).is_err(),
        "cut short"
    );
    assert!(
        Tables::build(&Ruleset::Wari.rules(), 22, &mut |_, _| {}).is_err(),
        "too big"
    );
}

#[test]
fn wari_games_are_searched_but_never_called_exact() {
    let position = Position::start(Ruleset::Wari.rules(), Side::South);
    let solution = Solver::new(None, 20_000).solve(&position);
    assert!(!solution.exact);
    assert!(solution.depth.is_some_and(|d| d >= 2), "{solution:?}");
    assert_eq!(solution.moves.len(), 6);
}

/// Gering's Waurie problem (the seed, 2008): South 1 0 0 0 1 1, North
/// 0 0 1 0 0 0, South to move and win.
fn gering() -> Position {
    Position::from_counts(
        Ruleset::Waurie.rules(),
        &[1, 0, 0, 0, 1, 1],
        &[0, 0, 1, 0, 0, 0],
        [22, 22],
        Side::South,
    )
    .unwrap()
}

#[test]
fn gerings_endgame_is_solved_as_published() {
    let solution = Solver::new(None, 10_000_000).solve(&gering());
    assert!(solution.exact);
    assert_eq!(solution.value, 1, "South to move and win");
    let value = |pit: char| {
        solution
            .moves
            .iter()
            .find(|(p, _)| p.letter() == pit)
            .map(|m| m.1)
    };
    assert_eq!(value('e'), Some(1), "5! wins");
    assert_eq!(
        value('a'),
        Some(1),
        "the first three moves may start with 1"
    );
    assert_eq!(value('f'), Some(-1), "6? loses");
    // Every South turn of the main line keeps the win; North's answers lose.
    let main_line = "e c a d b e f f-a c b d c e d f";
    let mut position = gering();
    for turn in main_line.split_whitespace() {
        let mover = position.to_move();
        let before = Solver::new(None, 10_000_000).solve(&position);
        assert!(before.exact);
        assert_eq!(
            before.value,
            if mover == Side::South { 1 } else { -1 },
            "{turn}"
        );
        for pit in crate::sheet::parse_sowings(turn).unwrap() {
            position.play_unchecked(pit);
        }
    }
    assert!(position.is_over());
    assert_eq!(position.outcome().unwrap().winner, Some(Side::South));
}

#[test]
fn analysis_marks_the_turn_that_let_the_win_go() {
    use crate::engine::Game;
    // South throws the win away with 6 (f); then both play on perfectly.
    let mut game = Game::from_position(gering());
    game.play(crate::engine::Pit::new(5)).unwrap();
    while let Some(side) = game.to_move() {
        let best = Solver::new(None, 1_000_000).solve(game.position());
        let pit = best.moves.iter().max_by_key(|m| m.1).unwrap().0;
        game.play(pit).unwrap();
        assert!(game.ply() < 60, "{side}");
    }
    let analysis = super::analyze(&game, None, 1_000_000);
    let first = &analysis.turns[0];
    assert_eq!((first.before, first.after, first.lost), (1, -1, 2));
    assert!(first.let_go && first.exact);
    assert!(first.best.is_some());
    for turn in &analysis.turns[1..] {
        assert_eq!(turn.lost, 0, "{turn:?}");
        assert!(!turn.let_go);
    }
}

/// Past the search's reach a value is an estimate: no turn is said to let
/// a won position go unless both its values are exact.
#[test]
fn analysis_says_a_win_was_let_go_only_on_exact_values() {
    use crate::engine::{Game, Ruleset, SplitMix64};
    let mut rng = SplitMix64::new(7);
    let mut game = Game::new(Ruleset::Waurie.rules(), Side::South);
    while !game.is_over() && game.ply() < 40 {
        let legal = game.legal_moves();
        game.play(legal.nth(rng.below(legal.len())).unwrap())
            .unwrap();
    }
    let analysis = super::analyze(&game, None, 200);
    assert!(
        analysis.turns.iter().any(|t| !t.exact),
        "some turns out of reach"
    );
    for turn in &analysis.turns {
        assert!(!turn.let_go || turn.exact, "{turn:?}");
        // The best named is never the sowing the turn began with.
        assert_ne!(turn.best, Some(turn.sowings[0]), "{turn:?}");
    }
    // Estimates say no loss of a turn begun with the sowing ranked best;
    // where one is said, the best named is another sowing.
    assert!(analysis.turns.iter().any(|t| !t.exact && t.lost == 0));
    for turn in analysis.turns.iter().filter(|t| !t.exact && t.lost > 0) {
        assert!(turn.best.is_some(), "{turn:?}");
    }
}
