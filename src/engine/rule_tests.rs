//! Every rule and clarification, each on a hand-worked position.

use super::*;

fn pit(letter: char) -> Pit {
    letter.to_string().parse().unwrap()
}

fn pits(letters: &str) -> PitSet {
    letters.chars().map(pit).collect()
}

/// A position of `ruleset` drawn as its board: South's pits from a, `/`,
/// North's from a, `/`, the stores South's then North's, and `north` after
/// them when North is to move, as in `"2 0 0 0 0 1 / 2 9 9 9 9 2 / 2 3"`.
fn setup(ruleset: Ruleset, board: &str) -> Position {
    drawn(ruleset.rules(), board)
}

/// `setup` for any rules, a variant's included.
fn drawn(rules: Rules, board: &str) -> Position {
    let (counts, to_move) = match board.strip_suffix(" north") {
        Some(counts) => (counts, Side::North),
        None => (board, Side::South),
    };
    let rows: Vec<Vec<u8>> = counts
        .split(" / ")
        .map(|row| row.split(' ').map(|n| n.parse().unwrap()).collect())
        .collect();
    let stores = [rows[2][0], rows[2][1]];
    Position::from_counts(rules, &rows[0], &rows[1], stores, to_move).unwrap()
}

/// `setup`'s position as the start of a game.
fn game_at(ruleset: Ruleset, board: &str) -> Game {
    Game::from_position(setup(ruleset, board))
}

/// The winner (`None` for a draw) of a game that is over, and why it
/// ended; a game over has no one to move and no legal move.
fn result(game: &Game) -> (Option<Side>, EndReason) {
    let outcome = game.outcome().expect("the game is over");
    assert_eq!(game.to_move(), None);
    assert!(game.legal_moves().is_empty());
    (outcome.winner, outcome.reason)
}

/// The board drawn as `setup` reads it, without the side to move.
fn assert_board(p: &Position, board: &str) {
    let row = |side| {
        let counts: Vec<String> = p.pits(side).iter().map(u8::to_string).collect();
        counts.join(" ")
    };
    let drawn = format!(
        "{} / {} / {} {}",
        row(Side::South),
        row(Side::North),
        p.store(Side::South),
        p.store(Side::North)
    );
    assert_eq!(drawn, board, "board of {p:?}");
}

/// One sowing by South on a hand-worked board and all it does: from
/// `before`, sowing `sow` takes `takes` stones, ends in `last` and leaves
/// `after`, with North to move (no case here sows again).
struct Sows {
    before: &'static str,
    sow: char,
    takes: u8,
    last: Landing,
    after: &'static str,
}

fn in_pit(side: Side, letter: char) -> Landing {
    Landing::Pit(side, pit(letter))
}

fn assert_sows(ruleset: Ruleset, cases: &[Sows]) {
    assert_sows_by(ruleset.rules(), cases);
}

/// `assert_sows` under any rules, a variant's included.
fn assert_sows_by(rules: Rules, cases: &[Sows]) {
    for case in cases {
        let mut p = drawn(rules, case.before);
        let s = p.play(pit(case.sow)).unwrap();
        let what = format!("{} from {}", case.sow, case.before);
        assert_eq!(
            (s.captured, s.last, s.bonus),
            (case.takes, case.last, false),
            "{what}"
        );
        assert_board(&p, case.after);
        assert_eq!(p.to_move(), Side::North, "{what}");
    }
}

// ---- Super-Wari and Wari ----

/// From `board` only the pits of `legal` may be played: `starving` is
/// refused, as it would leave the opponent no stones. Its error, to read.
fn assert_starves(ruleset: Ruleset, board: &str, legal: &str, starving: char) -> PlayError {
    let p = setup(ruleset, board);
    assert_eq!(p.legal_moves(), pits(legal), "from {board}");
    let err = p.clone().play(pit(starving)).unwrap_err();
    assert_eq!(err.kind, PlayErrorKind::StarvesOpponent, "from {board}");
    err
}

#[test]
fn wari_sows_one_a_cell_anticlockwise() {
    let mut p = Position::start(Ruleset::SuperWari.rules(), Side::South);
    let s = p.play(pit('g')).unwrap();
    assert_board(&p, "3 3 3 3 3 3 0 4 / 4 4 3 3 3 3 3 3 / 0 0");
    assert_eq!(s.last, Landing::Pit(Side::North, pit('b')));
    assert_eq!((s.captured, s.bonus, p.to_move()), (0, false, Side::North));
}

#[test]
fn wari_lap_skips_the_cell_moved_from() {
    assert_sows(
        Ruleset::SuperWari,
        &[
            // 15 cells get one; the 16th stone skips a and falls in b.
            Sows {
                before: "16 0 0 0 0 0 0 0 / 2 2 2 2 2 2 2 2 / 8 8",
                sow: 'a',
                takes: 0,
                last: in_pit(Side::South, 'b'),
                after: "0 2 1 1 1 1 1 1 / 3 3 3 3 3 3 3 3 / 8 8",
            },
        ],
    );
}

#[test]
fn classic_wari_laps_of_twelve_skip_the_origin() {
    assert_sows(
        Ruleset::Wari,
        &[
            // b..f, North a..f: 11 stones; the 12th skips a for b.
            Sows {
                before: "12 0 0 0 0 0 / 1 5 5 5 5 5 / 5 5",
                sow: 'a',
                takes: 0,
                last: in_pit(Side::South, 'b'),
                after: "0 2 1 1 1 1 / 2 6 6 6 6 6 / 5 5",
            },
        ],
    );
}

#[test]
fn wari_captures_the_run_of_twos_and_threes_behind_the_last_cell() {
    assert_sows(
        Ruleset::SuperWari,
        &[Sows {
            before: "0 0 0 0 0 0 0 4 / 1 2 1 2 5 5 5 5 / 10 8",
            sow: 'h',
            takes: 2 + 3 + 2 + 3,
            last: in_pit(Side::North, 'd'),
            after: "0 0 0 0 0 0 0 0 / 0 0 0 0 5 5 5 5 / 20 8",
        }],
    );
}

#[test]
fn wari_run_stops_at_a_cell_that_is_not_two_or_three() {
    assert_sows(
        Ruleset::SuperWari,
        &[Sows {
            before: "0 0 0 0 0 0 0 4 / 1 5 1 2 5 5 5 5 / 7 8",
            sow: 'h',
            takes: 3 + 2,
            last: in_pit(Side::North, 'd'),
            after: "0 0 0 0 0 0 0 0 / 2 6 0 0 5 5 5 5 / 12 8",
        }],
    );
}

#[test]
fn wari_run_stops_at_the_edge_of_the_opponents_row() {
    // The last stone lands in North's a: nothing behind it is North's.
    assert_sows(
        Ruleset::Wari,
        &[Sows {
            before: "2 0 0 0 0 1 / 2 9 9 9 9 2 / 2 3",
            sow: 'f',
            takes: 3,
            last: in_pit(Side::North, 'a'),
            after: "2 0 0 0 0 0 / 0 9 9 9 9 2 / 5 3",
        }],
    );
}

#[test]
fn wari_no_capture_in_own_row_or_of_other_counts() {
    // f sows North a, b, c: a=4, b=1, c=2; the last (c) holds 2 but b behind holds 1.
    assert_sows(
        Ruleset::Wari,
        &[Sows {
            before: "1 0 0 0 0 3 / 3 0 1 1 1 1 / 19 18",
            sow: 'f',
            takes: 2,
            last: in_pit(Side::North, 'c'),
            after: "1 0 0 0 0 0 / 4 1 0 1 1 1 / 21 18",
        }],
    );
}

#[test]
fn wari_forbids_capturing_all_the_opponents_stones() {
    let err = assert_starves(
        Ruleset::SuperWari,
        "1 0 0 0 0 0 0 4 / 1 1 1 1 0 0 0 0 / 20 19",
        "a",
        'h',
    );
    assert_eq!(
        err.to_string(),
        "South's h would leave North with no stones; legal: a"
    );
}

#[test]
fn wari_must_feed_an_empty_row() {
    assert_starves(
        Ruleset::SuperWari,
        "1 0 0 0 0 0 0 1 / 0 0 0 0 0 0 0 0 / 23 23",
        "h",
        'a',
    );
}

#[test]
fn wari_when_no_move_can_feed_the_mover_plays_any_and_takes_the_rest() {
    // South's sowing reaches North a (one stone, no capture); North cannot
    // reach South's row from a or c, so any move is legal and ends the game.
    let mut game = game_at(Ruleset::Wari, "0 0 0 0 0 1 / 0 0 1 0 0 0 / 23 23");
    game.play(pit('f')).unwrap();
    assert_eq!(game.legal_moves(), pits("ac"));
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.swept, 2);
    assert_eq!(result(&game), (Some(Side::North), EndReason::Starvation));
    assert_eq!(game.outcome().unwrap().score, [23, 25]);
}

#[test]
fn wari_capturing_more_than_half_wins_at_once_and_half_is_not_a_majority() {
    // h captures North's a (2 after the sowing): 23 + 2 is more than half.
    let board = "0 0 0 0 0 0 0 1 / 1 3 3 3 3 3 3 3 / 23 2";
    let mut game = game_at(Ruleset::SuperWari, board);
    assert_eq!(game.play(pit('h')).unwrap().captured, 2);
    assert_eq!(result(&game), (Some(Side::South), EndReason::Majority));
    assert_eq!(game.outcome().unwrap().score, [25, 2]);
    // From 22, the same capture makes 24 of 48: half, and play goes on.
    let board = "0 0 0 0 0 0 0 1 / 1 3 3 3 3 3 3 4 / 22 2";
    let mut game = game_at(Ruleset::SuperWari, board);
    game.play(pit('h')).unwrap();
    assert_eq!(game.position().store(Side::South), 24);
    assert!(!game.is_over());
}

#[test]
fn wari_repetition_ends_the_game_and_each_takes_their_side() {
    // One stone each, chasing round the board: after 12 sowings the start
    // position is back with South to move.
    let start = setup(Ruleset::Wari, "1 0 0 0 0 0 / 1 0 0 0 0 0 / 23 23");
    let mut game = Game::from_position(start);
    for (i, letter) in "aabbccddeeff".chars().enumerate() {
        assert!(!game.is_over(), "over early, before sowing {}", i + 1);
        game.play(pit(letter)).unwrap();
    }
    assert_eq!(game.position(), &start);
    assert_eq!(result(&game), (None, EndReason::Repetition));
    assert_eq!(game.outcome().unwrap().score, [24, 24]);
}

#[test]
fn wari_repetition_score_counts_own_side() {
    // 24 captured is half, not more: the game goes on until the repetition.
    let start = setup(Ruleset::Wari, "1 0 0 0 0 0 / 1 0 0 0 0 0 / 24 22");
    let mut game = Game::from_position(start);
    for letter in "aabbccddeeff".chars() {
        game.play(pit(letter)).unwrap();
    }
    assert_eq!(result(&game), (Some(Side::South), EndReason::Repetition));
    assert_eq!(game.outcome().unwrap().score, [25, 23]);
}

#[test]
fn wari_illegal_moves_say_what_is_wrong() {
    let mut p = Position::start(Ruleset::Wari.rules(), Side::South);
    p.play(pit('c')).unwrap();
    let err = p.play(pit('g')).unwrap_err();
    assert_eq!(
        err.to_string(),
        "North has no pit g on this board; legal: a, b, c, d, e, f"
    );
    p.play(pit('a')).unwrap();
    let err = p.play(pit('c')).unwrap_err();
    assert_eq!(err.to_string(), "South's c is empty; legal: a, b, d, e, f");
}

// ---- Waurie ----

#[test]
fn waurie_sows_own_endpit_but_never_the_opponents_and_laps_through_the_emptied_pit() {
    assert_sows(
        Ruleset::Waurie,
        &[
            // Own endpit, North a..f, skip North's endpit, South a.
            Sows {
                before: "4 4 4 0 0 8 / 4 4 4 4 4 4 / 2 2",
                sow: 'f',
                takes: 0,
                last: in_pit(Side::South, 'a'),
                after: "5 4 4 0 0 0 / 5 5 5 5 5 5 / 3 2",
            },
            // A lap sows the emptied pit too (and Waurie has no captures).
            Sows {
                before: "13 0 0 0 0 0 / 5 5 5 5 5 5 / 2 3",
                sow: 'a',
                takes: 0,
                last: in_pit(Side::South, 'a'),
                after: "1 1 1 1 1 1 / 6 6 6 6 6 6 / 3 3",
            },
        ],
    );
}

#[test]
fn waurie_last_seed_in_own_endpit_sows_again() {
    let mut p = Position::start(Ruleset::Waurie.rules(), Side::South);
    let s = p.play(pit('c')).unwrap();
    assert!(s.bonus);
    assert_eq!(s.last, Landing::Store(Side::South));
    assert_eq!(p.to_move(), Side::South);
    p.play(pit('f')).unwrap();
    assert_eq!(p.to_move(), Side::North);
    assert_board(&p, "4 4 0 5 5 0 / 5 5 5 5 4 4 / 2 0");
}

#[test]
fn waurie_player_who_cannot_move_wins() {
    let mut game = game_at(Ruleset::Waurie, "0 0 0 0 0 1 / 9 9 9 9 5 0 / 3 3");
    game.play(pit('f')).unwrap();
    // The bonus leaves South to move with no seeds: South wins.
    assert_eq!(result(&game), (Some(Side::South), EndReason::CannotMove));
}

#[test]
fn waurie_empty_row_does_not_end_the_game_while_the_other_may_feed_it() {
    let game = game_at(Ruleset::Waurie, "0 0 0 0 4 4 / 0 0 0 0 0 0 / 20 20");
    assert!(!game.is_over());
    assert_eq!(game.legal_moves(), pits("ef"));
    // North to move with nothing is over: North wins.
    let game = game_at(Ruleset::Waurie, "0 0 0 0 4 4 / 0 0 0 0 0 0 / 20 20 north");
    assert_eq!(game.outcome().unwrap().winner, Some(Side::North));
}

#[test]
fn waurie_feeding_the_opponent_keeps_the_game_going() {
    let mut game = game_at(Ruleset::Waurie, "0 0 0 0 0 3 / 0 0 0 0 0 0 / 22 23");
    game.play(pit('f')).unwrap();
    assert_board(game.position(), "0 0 0 0 0 0 / 1 1 0 0 0 0 / 23 23");
    // North is fed and must play; South, now empty, is not to move yet.
    assert_eq!(game.to_move(), Some(Side::North));
    game.play(pit('b')).unwrap();
    // North did not feed South back: South is to move with nothing, and wins.
    assert_eq!(game.to_move(), None);
    assert_eq!(result(&game), (Some(Side::South), EndReason::CannotMove));
}

// ---- Mankala, and the rules Kalah shares with it ----

#[test]
fn kalah_stones_are_one_to_six_and_mankala_three_to_six_defaulting_to_four_and_three() {
    for (stones, total, fewest, ruleset) in
        [(4, 48, 1, Ruleset::Kalah), (3, 36, 3, Ruleset::Mankala)]
    {
        let rules = ruleset.rules();
        assert_eq!(
            (rules.pits, rules.stones, rules.total_stones()),
            (6, stones, total)
        );
        assert!(ruleset.with_stones(fewest - 1).is_err(), "{ruleset}");
        assert_eq!(ruleset.with_stones(fewest).map(|r| r.stones), Ok(fewest));
        assert!(ruleset.with_stones(7).is_err(), "{ruleset}");
        assert_eq!(ruleset.with_stones(6).map(|r| r.stones), Ok(6));
    }
}

#[test]
fn kalah_and_mankala_last_in_own_store_or_home_is_another_turn() {
    for (ruleset, letter, board) in [
        (Ruleset::Kalah, 'c', "4 4 0 5 5 5 / 4 4 4 4 4 4 / 1 0"),
        (Ruleset::Mankala, 'd', "3 3 3 0 4 4 / 3 3 3 3 3 3 / 1 0"),
    ] {
        let mut p = Position::start(ruleset.rules(), Side::South);
        let s = p.play(pit(letter)).unwrap();
        assert!(s.bonus, "{ruleset}");
        assert_eq!(p.to_move(), Side::South);
        assert_board(&p, board);
    }
}

#[test]
fn mankala_capture_moves_the_opposite_pit_into_the_landing_pit() {
    assert_sows(
        Ruleset::Mankala,
        &[
            // South b sows c, which was empty; opposite c is North's d (index 6-1-2).
            Sows {
                before: "0 1 0 3 3 3 / 3 3 4 3 3 3 / 4 3",
                sow: 'b',
                takes: 3,
                last: in_pit(Side::South, 'c'),
                after: "0 0 4 3 3 3 / 3 3 4 0 3 3 / 4 3",
            },
        ],
    );
}

#[test]
fn mankala_opposite_of_a_is_the_opponents_last_pit() {
    let rules = Ruleset::Mankala.rules();
    assert_eq!(rules.opposite(pit('a')), pit('f'));
    assert_eq!(rules.opposite(pit('f')), pit('a'));
}

#[test]
fn mankala_no_capture_when_the_opposite_pit_is_empty_or_the_pit_was_not() {
    assert_sows(
        Ruleset::Mankala,
        &[
            // c was empty, North's d opposite is too.
            Sows {
                before: "0 1 0 3 3 3 / 3 3 4 0 3 6 / 4 3",
                sow: 'b',
                takes: 0,
                last: in_pit(Side::South, 'c'),
                after: "0 0 1 3 3 3 / 3 3 4 0 3 6 / 4 3",
            },
            // North's d holds 2, but c was not empty.
            Sows {
                before: "0 1 2 3 3 3 / 3 3 4 2 3 6 / 3 0",
                sow: 'b',
                takes: 0,
                last: in_pit(Side::South, 'c'),
                after: "0 0 3 3 3 3 / 3 3 4 2 3 6 / 3 0",
            },
        ],
    );
}

#[test]
fn mankala_never_sows_the_opponents_home() {
    assert_sows(
        Ruleset::Mankala,
        &[
            // Seven stones from f: the home, North's a..f; North's home is never sown.
            Sows {
                before: "0 0 0 0 1 7 / 3 3 3 3 3 3 / 5 5",
                sow: 'f',
                takes: 0,
                last: in_pit(Side::North, 'f'),
                after: "0 0 0 0 1 0 / 4 4 4 4 4 4 / 6 5",
            },
            // With eight the last passes North's home and lands in South's empty a...
            // ... where it captures North's f (4 stones) into a.
            Sows {
                before: "0 0 0 0 0 8 / 3 3 3 3 3 3 / 5 5",
                sow: 'f',
                takes: 4,
                last: in_pit(Side::South, 'a'),
                after: "5 0 0 0 0 0 / 4 4 4 4 4 0 / 6 5",
            },
        ],
    );
}

#[test]
fn mankala_ends_when_a_row_empties_and_scores_pits_plus_home() {
    let mut game = game_at(Ruleset::Mankala, "0 0 0 0 0 2 / 1 0 0 0 0 5 / 14 14");
    game.play(pit('f')).unwrap();
    // f sows the home and North's a: South's row is empty.
    assert_eq!(result(&game), (Some(Side::North), EndReason::RowEmpty));
    assert_eq!(game.outcome().unwrap().score, [15, 21]);
}

#[test]
fn mankala_end_is_checked_after_a_bonus_sowing_too() {
    let mut game = game_at(Ruleset::Mankala, "0 0 0 0 0 1 / 2 2 2 2 2 2 / 12 11");
    let s = game.play(pit('f')).unwrap();
    assert!(s.bonus);
    assert_eq!(game.outcome().unwrap().score, [13, 23]);
}

#[test]
fn mankala_equal_scores_draw() {
    let mut game = game_at(Ruleset::Mankala, "0 0 0 0 0 1 / 1 1 1 1 1 1 / 17 12");
    game.play(pit('f')).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!((outcome.winner, outcome.score), (None, [18, 18]));
}

// ---- Games ----

#[test]
fn a_finished_game_takes_no_more_moves() {
    let mut game = game_at(Ruleset::Waurie, "0 0 0 0 0 0 / 9 9 9 9 4 0 / 4 4");
    let err = game.play(pit('a')).unwrap_err();
    assert_eq!(
        (err.kind, err.to_string()),
        (PlayErrorKind::GameOver, "the game is over".to_string())
    );
}

#[test]
fn resignation_ends_the_game_for_the_other_side() {
    let mut game = Game::new(Ruleset::Wari.rules(), Side::South);
    game.resign(Side::South);
    assert_eq!(result(&game), (Some(Side::North), EndReason::Resignation));
}

#[test]
fn wari_feeding_an_empty_row_may_not_then_capture_all_of_it() {
    // North's d (19 stones) feeds South's empty row, laps, and ends with
    // every South cell at 2: a capture of all, so d is illegal (found by the
    // OpenSpiel cross-check).
    assert_starves(
        Ruleset::Wari,
        "0 0 0 0 0 0 / 0 5 0 19 0 3 / 10 11 north",
        "bf",
        'd',
    );
}

// ---- Kalah ----

#[test]
fn kalah_alone_may_have_one_to_six_pits_a_row() {
    let rules = Ruleset::Kalah.rules();
    assert_eq!(rules.with_pits(1).map(|r| r.total_stones()), Ok(8));
    assert_eq!(rules.with_pits(6), Ok(rules));
    assert_eq!(
        rules.with_pits(7).unwrap_err().to_string(),
        "kalah is played with 1 to 6 pits a row, not 7"
    );
    assert_eq!(
        Ruleset::Wari.rules().with_pits(5).unwrap_err().to_string(),
        "wari is played with 6 pits a row, not 5"
    );
}

#[test]
fn kalah_on_three_pits_laps_and_captures_from_the_emptied_pit() {
    let rules = Ruleset::Kalah.rules().with_pits(3).unwrap();
    let mut p = Position::from_counts(rules, &[7, 0, 0], &[1, 1, 1], [7, 7], Side::South).unwrap();
    // 7 stones: b, c, the store, North a..c, skip North's store, back into a,
    // which holds 1: it and North's c (opposite a on 3 pits) go to the store.
    let s = p.play(pit('a')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_eq!(s.captured, 2);
    assert_board(&p, "0 1 1 / 2 2 0 / 11 7");
}

#[test]
fn kalah_capture_puts_the_stone_and_the_opposite_pit_into_the_store() {
    assert_sows(
        Ruleset::Kalah,
        &[
            // South b sows c, which was empty; opposite c is North's d (4 stones).
            Sows {
                before: "0 1 0 4 4 4 / 4 4 5 4 4 4 / 6 4",
                sow: 'b',
                takes: 4,
                last: in_pit(Side::South, 'c'),
                after: "0 0 0 4 4 4 / 4 4 5 0 4 4 / 11 4",
            },
        ],
    );
}

#[test]
fn kalah_no_capture_when_the_opposite_pit_is_empty() {
    assert_sows(
        Ruleset::Kalah,
        &[
            // The last stone stays where it fell.
            Sows {
                before: "0 1 0 4 4 4 / 4 4 5 0 4 8 / 6 4",
                sow: 'b',
                takes: 0,
                last: in_pit(Side::South, 'c'),
                after: "0 0 1 4 4 4 / 4 4 5 0 4 8 / 6 4",
            },
        ],
    );
}

#[test]
fn kalah_empty_capture_takes_the_lone_last_stone_into_the_store() {
    let rules = Ruleset::Kalah
        .rules()
        .with_variant("empty-capture")
        .unwrap();
    let mut p = drawn(rules, "0 1 0 4 4 4 / 4 4 5 0 4 8 / 6 4");
    // As above, but the stone that fell in the empty c goes to the store.
    assert_eq!(p.play(pit('b')).unwrap().captured, 0);
    assert_board(&p, "0 0 0 4 4 4 / 4 4 5 0 4 8 / 7 4");
    assert_eq!(p.to_move(), Side::North);
}

#[test]
fn kalah_no_capture_in_the_opponents_empty_pit() {
    assert_sows(
        Ruleset::Kalah,
        &[
            // f sows the store and North's a, which was empty: nothing is taken.
            Sows {
                before: "4 4 4 4 4 2 / 0 4 4 4 4 4 / 3 3",
                sow: 'f',
                takes: 0,
                last: in_pit(Side::North, 'a'),
                after: "4 4 4 4 4 0 / 1 4 4 4 4 4 / 4 3",
            },
        ],
    );
}

#[test]
fn kalah_and_mankala_lap_of_thirteen_captures_with_its_own_emptied_pit() {
    // 13 stones: b..f, the store (Mankala's home), North a..f, skip North's
    // store, back into a.
    assert_sows(
        Ruleset::Kalah,
        &[Sows {
            before: "13 0 0 0 0 0 / 1 1 1 1 1 2 / 14 14",
            sow: 'a',
            takes: 3,
            last: in_pit(Side::South, 'a'),
            // a holds 1 and North's f 3: both go into South's store.
            after: "0 1 1 1 1 1 / 2 2 2 2 2 0 / 19 14",
        }],
    );
    assert_sows(
        Ruleset::Mankala,
        &[Sows {
            before: "13 0 0 0 0 0 / 1 1 1 1 1 2 / 8 8",
            sow: 'a',
            takes: 3,
            last: in_pit(Side::South, 'a'),
            // In Mankala they go into a.
            after: "4 1 1 1 1 1 / 2 2 2 2 2 0 / 9 8",
        }],
    );
}

#[test]
fn kalah_ends_when_a_row_empties_and_scores_pits_plus_store() {
    // A capture that empties South's own row ends the game.
    let mut game = game_at(Ruleset::Kalah, "1 0 0 0 0 0 / 2 2 2 2 9 2 / 10 18");
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.captured, 9, "North's e, opposite b");
    assert_eq!(result(&game), (Some(Side::North), EndReason::RowEmpty));
    assert_eq!(game.outcome().unwrap().score, [20, 28]);
    assert_board(game.position(), "0 0 0 0 0 0 / 2 2 2 2 0 2 / 20 18");
}

// ---- Waurie's variants ----

fn both_stores() -> Rules {
    Ruleset::Waurie.rules().with_variant("both-stores").unwrap()
}

fn waurie(variant: &str, board: &str) -> Game {
    let rules = Ruleset::Waurie.rules().with_variant(variant).unwrap();
    Game::from_position(drawn(rules, board))
}

#[test]
fn first_empty_wins_ends_the_game_though_the_opponent_could_feed_the_row() {
    // South's f (1 seed) leaves South's row empty and passes to North, who
    // could feed it with f. By the seed's rule North must move, and may.
    let start = "0 0 0 0 0 2 / 0 0 0 0 0 3 / 21 22";
    let mut seed_rule = game_at(Ruleset::Waurie, start);
    seed_rule.play(pit('f')).unwrap();
    assert_eq!(seed_rule.to_move(), Some(Side::North));
    seed_rule.play(pit('f')).unwrap();
    assert_board(seed_rule.position(), "1 1 0 0 0 0 / 1 0 0 0 0 0 / 22 23");
    // In first-empty-wins South's sowing wins at once.
    let mut game = waurie("first-empty-wins", start);
    game.play(pit('f')).unwrap();
    assert_eq!(result(&game), (Some(Side::South), EndReason::FirstEmpty));
    assert_eq!(game.outcome().unwrap().score, [22, 22]);
}

#[test]
fn first_empty_wins_still_wins_by_a_bonus_that_empties_the_row() {
    let mut game = waurie("first-empty-wins", "0 0 0 0 0 1 / 9 9 9 9 5 0 / 3 3");
    game.play(pit('f')).unwrap();
    assert_eq!(game.outcome().unwrap().winner, Some(Side::South));
}

#[test]
fn first_empty_wins_keeps_the_rest_of_the_seed_rules() {
    let mut game = waurie("first-empty-wins", "4 4 4 0 0 8 / 4 4 4 4 4 4 / 2 2");
    let s = game.play(pit('f')).unwrap();
    assert_board(game.position(), "5 4 4 0 0 0 / 5 5 5 5 5 5 / 3 2");
    assert!(!s.bonus && !game.is_over());
}

#[test]
fn both_stores_sows_the_opponents_endpit_too() {
    assert_sows_by(
        both_stores(),
        &[Sows {
            // f: own endpit, North a..f, North's endpit (the seed rule skips it), South a.
            before: "4 4 4 0 0 9 / 4 4 4 4 4 4 / 1 2",
            sow: 'f',
            takes: 0,
            last: in_pit(Side::South, 'a'),
            after: "5 4 4 0 0 0 / 5 5 5 5 5 5 / 2 3",
        }],
    );
    assert_sows(
        Ruleset::Waurie,
        &[Sows {
            // The same sowing under the seed's rule ends a pit further on.
            before: "4 4 4 0 0 9 / 4 4 4 4 4 4 / 1 2",
            sow: 'f',
            takes: 0,
            last: in_pit(Side::South, 'b'),
            after: "5 5 4 0 0 0 / 5 5 5 5 5 5 / 2 2",
        }],
    );
}

#[test]
fn both_stores_last_seed_in_the_opponents_endpit_earns_nothing() {
    assert_sows_by(
        both_stores(),
        &[Sows {
            before: "4 4 4 0 0 8 / 4 4 4 4 4 4 / 2 2",
            sow: 'f',
            takes: 0,
            last: Landing::Store(Side::North),
            after: "4 4 4 0 0 0 / 5 5 5 5 5 5 / 3 3",
        }],
    );
}

#[test]
fn both_stores_laps_through_both_endpits_and_the_emptied_pit() {
    assert_sows_by(
        both_stores(),
        &[
            // 14 seeds from a: b..f, own endpit, North a..f, North's endpit, a.
            Sows {
                before: "14 0 0 0 0 0 / 5 5 5 5 5 4 / 2 3",
                sow: 'a',
                takes: 0,
                last: in_pit(Side::South, 'a'),
                after: "1 1 1 1 1 1 / 6 6 6 6 6 5 / 3 4",
            },
            // 29 seeds: two laps of 14 and one more, into b.
            Sows {
                before: "29 0 0 0 0 0 / 1 1 1 1 1 0 / 7 7",
                sow: 'a',
                takes: 0,
                last: in_pit(Side::South, 'b'),
                after: "2 3 2 2 2 2 / 3 3 3 3 3 2 / 9 9",
            },
        ],
    );
}

#[test]
fn both_stores_north_sows_souths_endpit_and_the_player_who_cannot_move_wins() {
    let mut game = waurie("both-stores", "0 0 0 0 0 0 / 0 0 0 0 0 2 / 23 23 north");
    // North to move with seeds; South's row is empty (South is not to move).
    let s = game.play(pit('f')).unwrap();
    // f: North's endpit, then South's a; no bonus.
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_board(game.position(), "1 0 0 0 0 0 / 0 0 0 0 0 0 / 23 24");
    // North is to move next only after South; South plays a, then North cannot move and wins.
    game.play(pit('a')).unwrap();
    assert_eq!(result(&game), (Some(Side::North), EndReason::CannotMove));
}

#[test]
fn variants_are_named_in_the_rules() {
    let rules = Ruleset::Waurie.rules().with_variant("Both-Stores").unwrap();
    assert_eq!(rules.variant_name(), Some("both-stores"));
    assert!(rules.sow_opponent_store);
    assert_eq!(Ruleset::Waurie.rules().variant_name(), None);
    assert!(Ruleset::Kalah.rules().with_variant("both-stores").is_err());
}

// ---- Set-up positions ----

/// A Waurie position set up from its pits alone, South to move: the stores
/// share the stones left.
fn waurie_set_up(south: &[u8], north: &[u8]) -> Position {
    Position::set_up(Ruleset::Waurie.rules(), south, north, None, Side::South).unwrap()
}

#[test]
fn a_set_up_shares_the_stones_left_between_the_stores() {
    let p = waurie_set_up(&[1, 0, 0, 0, 1, 1], &[0, 0, 1, 0, 0, 0]);
    assert_eq!([p.store(Side::South), p.store(Side::North)], [22, 22]);
    assert!(!p.is_start());
    // An odd number left: South takes the odd one.
    let p = waurie_set_up(&[1, 0, 0, 0, 1, 1], &[1, 1, 0, 0, 0, 0]);
    assert_eq!([p.store(Side::South), p.store(Side::North)], [22, 21]);
    assert!(Position::start(Ruleset::Waurie.rules(), Side::North).is_start());
}

#[test]
fn impossible_set_ups_are_refused_with_every_reason() {
    let waurie = Ruleset::Waurie.rules();
    let err = |south: &[u8], north: &[u8], stores, to_move| {
        Position::set_up(waurie, south, north, stores, to_move)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(&[1, 0, 0, 0, 1], &[60, 0, 0, 0, 0, 0], None, Side::South),
        "South's row lists 5 pits, the board has 6; North's a holds 60, more than the 48 stones of the game"
    );
    assert_eq!(
        err(
            &[20, 20, 0, 0, 0, 0],
            &[9, 0, 0, 0, 0, 0],
            None,
            Side::South
        ),
        "the pits hold 49 stones, more than the 48 of the game"
    );
    assert_eq!(
        err(
            &[1, 0, 0, 0, 1, 1],
            &[0, 0, 1, 0, 0, 0],
            Some([20, 20]),
            Side::South
        ),
        "pits and stores hold 44 stones, the game has 48"
    );
    assert_eq!(
        err(&[0; 6], &[0, 0, 1, 0, 0, 0], None, Side::South),
        "the game would already be over (no stones left to move, which wins in Waurie)"
    );
    // The same row empty is no end while the other is to move (it may feed it).
    assert!(Position::set_up(waurie, &[0; 6], &[0, 0, 1, 0, 0, 7], None, Side::North).is_ok());
    let wari = Ruleset::Wari.rules();
    assert_eq!(
        Position::set_up(
            wari,
            &[1, 0, 0, 0, 0, 0],
            &[1, 0, 0, 0, 0, 0],
            Some([25, 21]),
            Side::South
        )
        .unwrap_err()
        .to_string(),
        "the game would already be over (more than half the stones captured)"
    );
    let kalah = Ruleset::Kalah.rules();
    assert!(Position::set_up(kalah, &[0; 6], &[1, 0, 0, 0, 0, 0], None, Side::South).is_err());
}

/// The game's value for the side to move by full search: `Some(winner)`,
/// or `None` for a draw. For the tiny endgames here only.
fn solve(game: &Game) -> Option<Side> {
    if let Some(outcome) = game.outcome() {
        return outcome.winner;
    }
    let mover = game.position().to_move();
    let mut draw = false;
    let mut results = game.legal_moves().into_iter().map(|p| {
        let mut next = game.clone();
        next.play(p).unwrap();
        solve(&next)
    });
    for result in results.by_ref() {
        match result {
            Some(w) if w == mover => return Some(mover),
            None => draw = true,
            Some(_) => {}
        }
    }
    if draw {
        None
    } else {
        Some(mover.other())
    }
}

fn gering() -> Game {
    Game::from_position(waurie_set_up(&[1, 0, 0, 0, 1, 1], &[0, 0, 1, 0, 0, 0]))
}

fn play_line(game: &mut Game, line: &str) {
    for (i, turn) in line.split_whitespace().enumerate() {
        for part in turn.split('-') {
            game.play(pit(part.chars().next().unwrap()))
                .unwrap_or_else(|e| panic!("turn {} '{turn}': {e}", i + 1));
        }
    }
}

#[test]
fn gerings_endgame_main_line_wins_for_south() {
    // Mancala World's Waurie page: "5! a/3/1! b/4/2 c/5/6!/6-1/3/2/4/3/5/4/6 South wins."
    let mut game = gering();
    assert_eq!(solve(&game), Some(Side::South), "South to move and win");
    play_line(&mut game, "e c a d b e f f-a c b d c e d f");
    assert_eq!(result(&game), (Some(Side::South), EndReason::CannotMove));
    assert_eq!(turns(&game), 15, "15 moves");
}

fn turns(game: &Game) -> usize {
    let sides: Vec<Side> = game.sowings().iter().map(|s| s.side).collect();
    1 + sides.windows(2).filter(|w| w[0] != w[1]).count()
}

#[test]
fn gerings_endgame_refuted_lines_lose_as_the_seed_says() {
    // (a) "6?-1/3/2/4/3/5/4/6 North is faster."
    let mut game = gering();
    play_line(&mut game, "f-a");
    assert_eq!(solve(&game), Some(Side::North), "after f-a North wins");
    play_line(&mut game, "c b d c e d f");
    assert_eq!(game.outcome().unwrap().winner, Some(Side::North));
    // (b) "6?/1!/1/2/2/3/3/4/4/6-5/5/6 North wins.": f instead of South's a.
    let mut game = gering();
    play_line(&mut game, "e c f");
    assert_eq!(solve(&game), Some(Side::North), "after e c f North wins");
    play_line(&mut game, "a a b b c c d d f-e e f");
    assert_eq!(game.outcome().unwrap().winner, Some(Side::North));
}

#[test]
fn gerings_endgame_south_may_begin_in_the_three_orders_the_notes_give() {
    // "The first three moves of South can be: (5, 1, 2), (1, 5, 2) or (1, 2, 5)."
    // After each of South's moves the full search says South still wins,
    // whatever North replies; the line follows North's first legal reply.
    for order in ["e a b", "a e b", "a b e"] {
        let mut game = gering();
        for letter in order.split_whitespace() {
            play_line(&mut game, letter);
            assert_eq!(
                solve(&game),
                Some(Side::South),
                "{order}: after South's {letter}"
            );
            let reply = game.legal_moves().first().unwrap();
            game.play(reply).unwrap();
        }
    }
}
