//! Invariants over many random games of every ruleset and variant, some of
//! them from random set-up positions: stones are conserved, a move is legal
//! exactly when it is listed, and a sheet rendered then parsed is the same
//! game. A failing game is shrunk by proptest to a short one.

use std::cell::Cell;

use mancala::engine::{Game, Pit, PlayErrorKind, Position, Rules, Ruleset, Side};
use mancala::sheet::{Players, Sheet};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseResult, TestError, TestRunner};

const GAMES_PER_RULESET: u32 = 300;

fn stones_on_board(game: &Game) -> u16 {
    let p = game.position();
    Side::BOTH
        .iter()
        .map(|&s| p.row_total(s) + u16::from(p.store(s)))
        .sum()
}

/// Every ruleset, and every variant of each, by name.
fn every_game() -> Vec<(String, Ruleset, Option<&'static str>)> {
    let mut games = Vec::new();
    for ruleset in Ruleset::ALL {
        games.push((ruleset.to_string(), ruleset, None));
        for variant in ruleset.spec().variants {
            games.push((
                format!("{ruleset} {}", variant.name),
                ruleset,
                Some(variant.name),
            ));
        }
    }
    games
}

/// A set-up position, reached from the start by 1 to 39 random sowings (one
/// that would end the game left out), its stores given (two times in
/// three) or left to their default.
#[derive(Clone, Debug)]
struct SetUp {
    first: Side,
    sowings: Vec<Index>,
    stores_given: bool,
}

/// One random game: its stones, its first mover, perhaps a set-up, and the
/// choice among the legal moves at each turn (past the list's end, the
/// first legal move, so a shrunk game is a short list).
#[derive(Clone, Debug)]
struct RandomGame {
    stones: u8,
    first: Side,
    set_up: Option<SetUp>,
    choices: Vec<Index>,
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::South), Just(Side::North)]
}

/// Random games of `ruleset`: random stones (up to five above the fewest)
/// and first mover, a third of them from a random set-up, with choices for
/// up to 600 turns (most games end within 200 plies, the longest seen at 430).
fn random_game(ruleset: Ruleset) -> impl Strategy<Value = RandomGame> {
    let range = ruleset.stone_range();
    let stones = *range.start()..=(*range.end()).min(range.start() + 5);
    let set_up = (side(), prop::collection::vec(any::<Index>(), 1..40), 0..3u8).prop_map(
        |(first, sowings, stores)| SetUp {
            first,
            sowings,
            stores_given: stores > 0,
        },
    );
    (
        stones,
        side(),
        prop::option::weighted(1.0 / 3.0, set_up),
        prop::collection::vec(any::<Index>(), 0..600),
    )
        .prop_map(|(stones, first, set_up, choices)| RandomGame {
            stones,
            first,
            set_up,
            choices,
        })
}

/// The position `set_up` describes, or `None` when it cannot be set up.
fn set_up_position(rules: Rules, set_up: &SetUp) -> Option<Position> {
    let mut game = Game::new(rules, set_up.first);
    for choice in &set_up.sowings {
        let legal = game.legal_moves();
        let pit = legal.nth(choice.index(legal.len().max(1)))?;
        let mut next = game.clone();
        next.play(pit).unwrap();
        if !next.is_over() {
            game = next;
        }
    }
    let p = game.position();
    let stores = set_up
        .stores_given
        .then(|| [p.store(Side::South), p.store(Side::North)]);
    Position::set_up(
        rules,
        p.pits(Side::South),
        p.pits(Side::North),
        stores,
        p.to_move(),
    )
    .ok()
}

/// Plays `case` of `kind` to its end, running `visit` on every position,
/// up to the first position where an invariant fails.
fn play_out(
    (name, ruleset, variant): &(String, Ruleset, Option<&'static str>),
    case: &RandomGame,
    visit: &impl Fn(&Game) -> TestCaseResult,
) -> (Game, TestCaseResult) {
    let rules = ruleset.configure(Some(case.stones), *variant).unwrap();
    let start = case.set_up.as_ref().and_then(|s| set_up_position(rules, s));
    let mut game = match start {
        Some(start) => Game::from_position(start),
        None => Game::new(rules, case.first),
    };
    let mut choices = case.choices.iter();
    let result = (|| {
        visit(&game)?;
        while !game.is_over() && game.ply() < 3000 {
            let legal = game.legal_moves();
            prop_assert!(
                !legal.is_empty(),
                "{name}: not over but no legal move: {:?}",
                game.position()
            );
            let choice = choices.next().map_or(0, |c| c.index(legal.len()));
            game.play(legal.nth(choice).unwrap()).unwrap();
            visit(&game)?;
        }
        Ok(())
    })();
    (game, result)
}

/// Runs `visit` on every position of `GAMES_PER_RULESET` random games of
/// `kind`, each played to the end, and returns how many games finished.
/// A game whose visit fails is shrunk by proptest, and the test panics
/// with the shortest failing game found, as a sheet.
fn random_games(
    kind: &(String, Ruleset, Option<&'static str>),
    visit: impl Fn(&Game) -> TestCaseResult,
) -> usize {
    let finished = Cell::new(0);
    let config = Config {
        cases: GAMES_PER_RULESET,
        // Shrinking a game of some hundred choices takes a few thousand runs.
        max_shrink_iters: 50_000,
        // The shrunk game is in the panic's message; the tests write no
        // regression files into the source tree.
        failure_persistence: None,
        ..Config::default()
    };
    let result = TestRunner::new(config).run(&random_game(kind.1), |case| {
        let (game, result) = play_out(kind, &case, &visit);
        finished.set(finished.get() + usize::from(game.is_over()));
        result
    });
    match result {
        Ok(()) => finished.get(),
        Err(TestError::Fail(reason, case)) => {
            let (game, _) = play_out(kind, &case, &visit);
            let sheet = Sheet {
                id: None,
                game,
                players: Players::named("Ann", "Bo Lee"),
            };
            panic!("{}: {reason}, in this game:\n{sheet}\n{case:?}", kind.0)
        }
        Err(abort) => panic!("{}: {abort}", kind.0),
    }
}

#[test]
fn stones_are_conserved_by_every_move() {
    for ruleset in every_game() {
        let set_ups = Cell::new(0);
        let finished = random_games(&ruleset, |game| {
            set_ups.set(set_ups.get() + usize::from(game.ply() == 0 && !game.start().is_start()));
            prop_assert_eq!(
                stones_on_board(game),
                game.rules().total_stones(),
                "{} {:?}",
                ruleset.0,
                game.position()
            );
            Ok(())
        });
        let games = GAMES_PER_RULESET as usize;
        assert!(
            finished > games * 9 / 10,
            "{}: only {finished} games finished",
            ruleset.0
        );
        assert!(
            set_ups.get() > games / 5,
            "{}: only {} games from a set-up",
            ruleset.0,
            set_ups.get()
        );
    }
}

#[test]
fn a_move_is_legal_exactly_when_listed() {
    for game_kind in every_game() {
        let ruleset = &game_kind.0;
        random_games(&game_kind, |game| {
            let position = game.position();
            prop_assert_eq!(
                position.is_over(),
                position.outcome().is_some(),
                "{:?}",
                position
            );
            let legal = game.legal_moves();
            for pit in Pit::all(8) {
                let mut copy = game.clone();
                match copy.play(pit) {
                    Ok(_) => prop_assert!(
                        legal.contains(pit),
                        "{ruleset}: {pit} played but not listed"
                    ),
                    Err(e) => {
                        prop_assert!(
                            !legal.contains(pit),
                            "{ruleset}: {pit} listed but refused: {e}"
                        );
                        prop_assert_eq!(copy.ply(), game.ply(), "a refused move changed the game");
                        if game.is_over() {
                            prop_assert_eq!(e.kind, PlayErrorKind::GameOver);
                        }
                    }
                }
            }
            Ok(())
        });
    }
}

#[test]
fn render_then_parse_gives_the_same_game() {
    for game_kind in every_game() {
        let ruleset = &game_kind.0;
        let checked = Cell::new(0);
        random_games(&game_kind, |game| {
            // Every seventh position keeps the test quick; every end is checked.
            if game.ply() % 7 != 0 && !game.is_over() {
                return Ok(());
            }
            let sheet = Sheet {
                id: None,
                game: game.clone(),
                players: Players::named("Ann", "Bo Lee"),
            };
            let text = sheet.to_string();
            let again = Sheet::parse(&text)
                .map_err(|e| TestCaseError::fail(format!("{ruleset}: {e}\n{text}")))?;
            prop_assert_eq!(again.game.start(), game.start());
            prop_assert_eq!(again.game.sowings(), game.sowings());
            prop_assert_eq!(again.game.position(), game.position());
            prop_assert_eq!(again.game.outcome(), game.outcome());
            prop_assert_eq!(again.to_string(), text);
            checked.set(checked.get() + 1);
            Ok(())
        });
        assert!(
            checked.get() > GAMES_PER_RULESET as usize,
            "{ruleset}: only {} sheets checked",
            checked.get()
        );
    }
}
