//! Invariants over many random games of every ruleset and variant, some of
//! them from random set-up positions: stones are conserved, a move is legal
//! exactly when it is listed, and a sheet rendered then parsed is the same
//! game.

use mancala::engine::{Game, Pit, PlayErrorKind, Position, Rules, Ruleset, Side, SplitMix64};
use mancala::sheet::{Players, Sheet};

const GAMES_PER_RULESET: usize = 300;

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

/// A random position of a game of `rules` a few random sowings in, set up
/// by hand from its counts (the stores left to their default a third of
/// the time), or `None` when that game was over.
fn random_set_up(rules: Rules, rng: &mut SplitMix64) -> Option<Position> {
    let mut game = Game::new(rules, Side::BOTH[rng.below(2)]);
    for _ in 0..rng.below(40) {
        let legal = game.legal_moves();
        let pit = legal.nth(rng.below(legal.len().max(1)))?;
        game.play(pit).unwrap();
    }
    let p = game.position();
    let stores = (rng.below(3) > 0).then(|| [p.store(Side::South), p.store(Side::North)]);
    Position::set_up(
        rules,
        p.pits(Side::South),
        p.pits(Side::North),
        stores,
        p.to_move(),
    )
    .ok()
}

/// Random games, each with random stones and first mover (and every third
/// from a random set-up), played to the end.
fn random_games(
    (name, ruleset, variant): &(String, Ruleset, Option<&'static str>),
    seed: u64,
    mut visit: impl FnMut(&Game),
) -> usize {
    let mut rng = SplitMix64::new(seed);
    let mut finished = 0;
    for n in 0..GAMES_PER_RULESET {
        let range = ruleset.stone_range();
        let stones =
            *range.start() + rng.below(usize::from(range.end() - range.start()).min(5) + 1) as u8;
        let first = Side::BOTH[rng.below(2)];
        let rules = ruleset.configure(Some(stones), *variant).unwrap();
        let set_up = if n % 3 == 2 {
            random_set_up(rules, &mut rng)
        } else {
            None
        };
        let mut game = match set_up {
            Some(start) => Game::from_position(start),
            None => Game::new(rules, first),
        };
        let ruleset = name;
        visit(&game);
        while !game.is_over() && game.ply() < 3000 {
            let legal = game.legal_moves();
            assert!(
                !legal.is_empty(),
                "{ruleset}: not over but no legal move: {:?}",
                game.position()
            );
            game.play(legal.nth(rng.below(legal.len())).unwrap())
                .unwrap();
            visit(&game);
        }
        finished += usize::from(game.is_over());
    }
    finished
}

#[test]
fn stones_are_conserved_by_every_move() {
    for ruleset in every_game() {
        let mut set_ups = 0;
        let finished = random_games(&ruleset, 1, |game| {
            set_ups += usize::from(game.ply() == 0 && !game.start().is_start());
            assert_eq!(
                stones_on_board(game),
                game.rules().total_stones(),
                "{} {:?}",
                ruleset.0,
                game.position()
            );
        });
        assert!(
            finished > GAMES_PER_RULESET * 9 / 10,
            "{}: only {finished} games finished",
            ruleset.0
        );
        assert!(
            set_ups > GAMES_PER_RULESET / 5,
            "{}: only {set_ups} games from a set-up",
            ruleset.0
        );
    }
}

#[test]
fn a_move_is_legal_exactly_when_listed() {
    for game_kind in every_game() {
        let ruleset = &game_kind.0;
        random_games(&game_kind, 2, |game| {
            let position = game.position();
            assert_eq!(
                position.is_over(),
                position.outcome().is_some(),
                "{position:?}"
            );
            let legal = game.legal_moves();
            for pit in Pit::all(8) {
                let mut copy = game.clone();
                match copy.play(pit) {
                    Ok(_) => assert!(
                        legal.contains(pit),
                        "{ruleset}: {pit} played but not listed"
                    ),
                    Err(e) => {
                        assert!(
                            !legal.contains(pit),
                            "{ruleset}: {pit} listed but refused: {e}"
                        );
                        assert_eq!(copy.ply(), game.ply(), "a refused move changed the game");
                        if game.is_over() {
                            assert_eq!(e.kind, PlayErrorKind::GameOver);
                        }
                    }
                }
            }
        });
    }
}

#[test]
fn render_then_parse_gives_the_same_game() {
    for game_kind in every_game() {
        let ruleset = &game_kind.0;
        let mut checked = 0;
        random_games(&game_kind, 3, |game| {
            // Every seventh position keeps the test quick; every end is checked.
            if game.ply() % 7 != 0 && !game.is_over() {
                return;
            }
            let sheet = Sheet {
                id: None,
                game: game.clone(),
                players: Players::named("Ann", "Bo Lee"),
            };
            let text = sheet.to_string();
            let again = Sheet::parse(&text).unwrap_or_else(|e| panic!("{ruleset}: {e}\n{text}"));
            assert_eq!(again.game.start(), game.start());
            assert_eq!(again.game.sowings(), game.sowings());
            assert_eq!(again.game.position(), game.position());
            assert_eq!(again.game.outcome(), game.outcome());
            assert_eq!(again.to_string(), text);
            checked += 1;
        });
        assert!(
            checked > GAMES_PER_RULESET,
            "{ruleset}: only {checked} sheets checked"
        );
    }
}
