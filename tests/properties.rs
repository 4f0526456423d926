//! Invariants over many random games of every ruleset: stones are
//! conserved, a move is legal exactly when it is listed, and a sheet
//! rendered then parsed is the same game.

use mancala::engine::{Game, Pit, PlayErrorKind, Ruleset, Side, SplitMix64};
use mancala::sheet::{Players, Sheet};

const GAMES_PER_RULESET: usize = 300;

fn stones_on_board(game: &Game) -> u16 {
    let p = game.position();
    Side::BOTH
        .iter()
        .map(|&s| p.row_total(s) + u16::from(p.store(s)))
        .sum()
}

/// Random games, each with random stones and first mover, played to the end.
fn random_games(ruleset: Ruleset, seed: u64, mut visit: impl FnMut(&Game)) -> usize {
    let mut rng = SplitMix64::new(seed);
    let mut finished = 0;
    for _ in 0..GAMES_PER_RULESET {
        let range = ruleset.stone_range();
        let stones =
            *range.start() + rng.below(usize::from(range.end() - range.start()).min(5) + 1) as u8;
        let first = Side::BOTH[rng.below(2)];
        let mut game = Game::new(ruleset.with_stones(stones).unwrap(), first);
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
    for ruleset in Ruleset::ALL {
        let finished = random_games(ruleset, 1, |game| {
            assert_eq!(
                stones_on_board(game),
                game.rules().total_stones(),
                "{ruleset} {:?}",
                game.position()
            );
        });
        assert!(
            finished > GAMES_PER_RULESET * 9 / 10,
            "{ruleset}: only {finished} games finished"
        );
    }
}

#[test]
fn a_move_is_legal_exactly_when_listed() {
    for ruleset in Ruleset::ALL {
        random_games(ruleset, 2, |game| {
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
    for ruleset in Ruleset::ALL {
        let mut checked = 0;
        random_games(ruleset, 3, |game| {
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
