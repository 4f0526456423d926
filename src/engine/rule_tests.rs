//! Every rule and clarification, each on a hand-worked position.

use super::*;

fn pit(letter: char) -> Pit {
    letter.to_string().parse().unwrap()
}

fn pits(letters: &str) -> PitSet {
    letters.chars().map(pit).collect()
}

/// A position of `ruleset` from its counts, stores South's then North's.
fn setup(ruleset: Ruleset, south: &[u8], north: &[u8], stores: [u8; 2], to_move: Side) -> Position {
    Position::from_counts(ruleset.rules(), south, north, stores, to_move).unwrap()
}

fn assert_board(p: &Position, south: &[u8], north: &[u8], stores: [u8; 2]) {
    assert_eq!(p.pits(Side::South), south, "south row of {p:?}");
    assert_eq!(p.pits(Side::North), north, "north row of {p:?}");
    assert_eq!(
        [p.store(Side::South), p.store(Side::North)],
        stores,
        "stores of {p:?}"
    );
}

// ---- Super-Wari and Wari ----

#[test]
fn wari_sows_one_a_cell_anticlockwise() {
    let mut p = Position::start(Ruleset::SuperWari.rules(), Side::South);
    let s = p.play(pit('g')).unwrap();
    assert_board(
        &p,
        &[3, 3, 3, 3, 3, 3, 0, 4],
        &[4, 4, 3, 3, 3, 3, 3, 3],
        [0, 0],
    );
    assert_eq!(s.last, Landing::Pit(Side::North, pit('b')));
    assert_eq!((s.captured, s.bonus, p.to_move()), (0, false, Side::North));
}

#[test]
fn wari_lap_skips_the_cell_moved_from() {
    let mut p = setup(
        Ruleset::SuperWari,
        &[16, 0, 0, 0, 0, 0, 0, 0],
        &[2; 8],
        [8, 8],
        Side::South,
    );
    let s = p.play(pit('a')).unwrap();
    // 15 cells get one; the 16th stone skips a and falls in b.
    assert_board(&p, &[0, 2, 1, 1, 1, 1, 1, 1], &[3; 8], [8, 8]);
    assert_eq!(s.last, Landing::Pit(Side::South, pit('b')));
}

#[test]
fn classic_wari_laps_of_twelve_skip_the_origin() {
    let mut p = setup(
        Ruleset::Wari,
        &[12, 0, 0, 0, 0, 0],
        &[1, 5, 5, 5, 5, 5],
        [5, 5],
        Side::South,
    );
    p.play(pit('a')).unwrap();
    // b..f, North a..f: 11 stones; the 12th skips a for b.
    assert_board(&p, &[0, 2, 1, 1, 1, 1], &[2, 6, 6, 6, 6, 6], [5, 5]);
}

#[test]
fn wari_captures_the_run_of_twos_and_threes_behind_the_last_cell() {
    let mut p = setup(
        Ruleset::SuperWari,
        &[0, 0, 0, 0, 0, 0, 0, 4],
        &[1, 2, 1, 2, 5, 5, 5, 5],
        [10, 8],
        Side::South,
    );
    let s = p.play(pit('h')).unwrap();
    assert_eq!(s.captured, 2 + 3 + 2 + 3);
    assert_board(&p, &[0; 8], &[0, 0, 0, 0, 5, 5, 5, 5], [20, 8]);
}

#[test]
fn wari_run_stops_at_a_cell_that_is_not_two_or_three() {
    let mut p = setup(
        Ruleset::SuperWari,
        &[0, 0, 0, 0, 0, 0, 0, 4],
        &[1, 5, 1, 2, 5, 5, 5, 5],
        [7, 8],
        Side::South,
    );
    let s = p.play(pit('h')).unwrap();
    assert_eq!(s.captured, 3 + 2);
    assert_board(&p, &[0; 8], &[2, 6, 0, 0, 5, 5, 5, 5], [12, 8]);
}

#[test]
fn wari_run_stops_at_the_edge_of_the_opponents_row() {
    // The last stone lands in North's a: nothing behind it is North's.
    let mut p = setup(
        Ruleset::Wari,
        &[2, 0, 0, 0, 0, 1],
        &[2, 9, 9, 9, 9, 2],
        [2, 3],
        Side::South,
    );
    let s = p.play(pit('f')).unwrap();
    assert_eq!(s.captured, 3);
    assert_board(&p, &[2, 0, 0, 0, 0, 0], &[0, 9, 9, 9, 9, 2], [5, 3]);
}

#[test]
fn wari_no_capture_in_own_row_or_of_other_counts() {
    let mut p = setup(
        Ruleset::Wari,
        &[1, 0, 0, 0, 0, 3],
        &[3, 0, 1, 1, 1, 1],
        [19, 18],
        Side::South,
    );
    // f sows North a, b, c: a=4, b=1, c=2; the last (c) holds 2 but b behind holds 1.
    let s = p.play(pit('f')).unwrap();
    assert_eq!(s.captured, 2);
    assert_board(&p, &[1, 0, 0, 0, 0, 0], &[4, 1, 0, 1, 1, 1], [21, 18]);
}

#[test]
fn wari_forbids_capturing_all_the_opponents_stones() {
    let p = setup(
        Ruleset::SuperWari,
        &[1, 0, 0, 0, 0, 0, 0, 4],
        &[1, 1, 1, 1, 0, 0, 0, 0],
        [20, 19],
        Side::South,
    );
    assert_eq!(p.legal_moves(), pits("a"));
    let err = p.clone().play(pit('h')).unwrap_err();
    assert_eq!(err.kind, PlayErrorKind::StarvesOpponent);
    assert_eq!(
        err.to_string(),
        "South's h would leave North with no stones; legal: a"
    );
}

#[test]
fn wari_must_feed_an_empty_row() {
    let p = setup(
        Ruleset::SuperWari,
        &[1, 0, 0, 0, 0, 0, 0, 1],
        &[0; 8],
        [23, 23],
        Side::South,
    );
    assert_eq!(p.legal_moves(), pits("h"));
    assert_eq!(
        p.clone().play(pit('a')).unwrap_err().kind,
        PlayErrorKind::StarvesOpponent
    );
}

#[test]
fn wari_when_no_move_can_feed_the_mover_plays_any_and_takes_the_rest() {
    // South's sowing reaches North a (one stone, no capture); North cannot
    // reach South's row from a or c, so any move is legal and ends the game.
    let mut game = Game::from_position(setup(
        Ruleset::Wari,
        &[0, 0, 0, 0, 0, 1],
        &[0, 0, 1, 0, 0, 0],
        [23, 23],
        Side::South,
    ));
    game.play(pit('f')).unwrap();
    assert_eq!(game.legal_moves(), pits("ac"));
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.swept, 2);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::Starvation);
    assert_eq!(
        (outcome.winner, outcome.score),
        (Some(Side::North), [23, 25])
    );
    assert_eq!(game.to_move(), None);
    assert!(game.legal_moves().is_empty());
}

#[test]
fn wari_capturing_more_than_half_wins_at_once() {
    let mut game = Game::from_position(setup(
        Ruleset::SuperWari,
        &[0, 0, 0, 0, 0, 0, 0, 1],
        &[1, 3, 3, 3, 3, 3, 3, 3],
        [23, 2],
        Side::South,
    ));
    let s = game.play(pit('h')).unwrap();
    assert_eq!(s.captured, 2);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.reason, outcome.winner, outcome.score),
        (EndReason::Majority, Some(Side::South), [25, 2])
    );
}

#[test]
fn wari_half_is_not_a_majority() {
    let mut game = Game::from_position(setup(
        Ruleset::SuperWari,
        &[0, 0, 0, 0, 0, 0, 0, 1],
        &[1, 3, 3, 3, 3, 3, 3, 4],
        [22, 2],
        Side::South,
    ));
    game.play(pit('h')).unwrap();
    assert_eq!(game.position().store(Side::South), 24);
    assert!(!game.is_over());
}

#[test]
fn wari_repetition_ends_the_game_and_each_takes_their_side() {
    // One stone each, chasing round the board: after 12 sowings the start
    // position is back with South to move.
    let start = setup(
        Ruleset::Wari,
        &[1, 0, 0, 0, 0, 0],
        &[1, 0, 0, 0, 0, 0],
        [23, 23],
        Side::South,
    );
    let mut game = Game::from_position(start);
    for (i, letter) in "aabbccddeeff".chars().enumerate() {
        assert!(!game.is_over(), "over early, before sowing {}", i + 1);
        game.play(pit(letter)).unwrap();
    }
    assert_eq!(game.position(), &start);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.reason, outcome.winner, outcome.score),
        (EndReason::Repetition, None, [24, 24])
    );
}

#[test]
fn wari_repetition_score_counts_own_side() {
    // 24 captured is half, not more: the game goes on until the repetition.
    let start = setup(
        Ruleset::Wari,
        &[1, 0, 0, 0, 0, 0],
        &[1, 0, 0, 0, 0, 0],
        [24, 22],
        Side::South,
    );
    let mut game = Game::from_position(start);
    for letter in "aabbccddeeff".chars() {
        game.play(pit(letter)).unwrap();
    }
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.reason, outcome.winner, outcome.score),
        (EndReason::Repetition, Some(Side::South), [25, 23])
    );
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
fn waurie_sows_own_endpit_but_never_the_opponents() {
    let mut p = setup(
        Ruleset::Waurie,
        &[4, 4, 4, 0, 0, 8],
        &[4, 4, 4, 4, 4, 4],
        [2, 2],
        Side::South,
    );
    let s = p.play(pit('f')).unwrap();
    // Own endpit, North a..f, skip North's endpit, South a.
    assert_board(&p, &[5, 4, 4, 0, 0, 0], &[5; 6], [3, 2]);
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert!(!s.bonus);
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
    assert_board(&p, &[4, 4, 0, 5, 5, 0], &[5, 5, 5, 5, 4, 4], [2, 0]);
}

#[test]
fn waurie_lap_sows_the_emptied_starting_pit() {
    let mut p = setup(
        Ruleset::Waurie,
        &[13, 0, 0, 0, 0, 0],
        &[5, 5, 5, 5, 5, 5],
        [2, 3],
        Side::South,
    );
    let s = p.play(pit('a')).unwrap();
    assert_board(&p, &[1, 1, 1, 1, 1, 1], &[6; 6], [3, 3]);
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_eq!(s.captured, 0, "Waurie has no captures");
}

#[test]
fn waurie_player_who_cannot_move_wins() {
    let mut game = Game::from_position(setup(
        Ruleset::Waurie,
        &[0, 0, 0, 0, 0, 1],
        &[9, 9, 9, 9, 5, 0],
        [3, 3],
        Side::South,
    ));
    game.play(pit('f')).unwrap();
    // The bonus leaves South to move with no seeds: South wins.
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Side::South), EndReason::CannotMove)
    );
}

#[test]
fn waurie_empty_row_does_not_end_the_game_while_the_other_may_feed_it() {
    let game = Game::from_position(setup(
        Ruleset::Waurie,
        &[0, 0, 0, 0, 4, 4],
        &[0; 6],
        [20, 20],
        Side::South,
    ));
    assert!(!game.is_over());
    assert_eq!(game.legal_moves(), pits("ef"));
    // North to move with nothing is over: North wins.
    let game = Game::from_position(setup(
        Ruleset::Waurie,
        &[0, 0, 0, 0, 4, 4],
        &[0; 6],
        [20, 20],
        Side::North,
    ));
    assert_eq!(game.outcome().unwrap().winner, Some(Side::North));
}

#[test]
fn waurie_feeding_the_opponent_keeps_the_game_going() {
    let mut game = Game::from_position(setup(
        Ruleset::Waurie,
        &[0, 0, 0, 0, 0, 3],
        &[0; 6],
        [22, 23],
        Side::South,
    ));
    game.play(pit('f')).unwrap();
    assert_board(game.position(), &[0; 6], &[1, 1, 0, 0, 0, 0], [23, 23]);
    // North is fed and must play; South, now empty, is not to move yet.
    assert_eq!(game.to_move(), Some(Side::North));
    game.play(pit('b')).unwrap();
    // North did not feed South back: South is to move with nothing, and wins.
    assert_eq!(game.to_move(), None);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Side::South), EndReason::CannotMove)
    );
}

// ---- Mankala ----

#[test]
fn mankala_default_is_three_stones_and_stones_are_three_to_six() {
    let rules = Ruleset::Mankala.rules();
    assert_eq!((rules.pits, rules.stones, rules.total_stones()), (6, 3, 36));
    assert!(Ruleset::Mankala.with_stones(2).is_err());
    assert!(Ruleset::Mankala.with_stones(7).is_err());
}

#[test]
fn mankala_last_in_own_home_is_another_turn() {
    let mut p = Position::start(Ruleset::Mankala.rules(), Side::South);
    let s = p.play(pit('d')).unwrap();
    assert!(s.bonus);
    assert_eq!(p.to_move(), Side::South);
    assert_board(&p, &[3, 3, 3, 0, 4, 4], &[3; 6], [1, 0]);
}

#[test]
fn mankala_capture_moves_the_opposite_pit_into_the_landing_pit() {
    let mut p = setup(
        Ruleset::Mankala,
        &[0, 1, 0, 3, 3, 3],
        &[3, 3, 4, 3, 3, 3],
        [4, 3],
        Side::South,
    );
    // South b sows c, which was empty; opposite c is North's d (index 6-1-2).
    let s = p.play(pit('b')).unwrap();
    assert_eq!(s.captured, 3);
    assert_board(&p, &[0, 0, 4, 3, 3, 3], &[3, 3, 4, 0, 3, 3], [4, 3]);
}

#[test]
fn mankala_opposite_of_a_is_the_opponents_last_pit() {
    let rules = Ruleset::Mankala.rules();
    assert_eq!(rules.opposite(pit('a')), pit('f'));
    assert_eq!(rules.opposite(pit('f')), pit('a'));
}

#[test]
fn mankala_no_capture_when_the_opposite_pit_is_empty_or_the_pit_was_not() {
    let mut p = setup(
        Ruleset::Mankala,
        &[0, 1, 0, 3, 3, 3],
        &[3, 3, 4, 0, 3, 6],
        [4, 3],
        Side::South,
    );
    assert_eq!(p.play(pit('b')).unwrap().captured, 0);
    assert_board(&p, &[0, 0, 1, 3, 3, 3], &[3, 3, 4, 0, 3, 6], [4, 3]);
    let mut p = setup(
        Ruleset::Mankala,
        &[0, 1, 2, 3, 3, 3],
        &[3, 3, 4, 2, 3, 6],
        [3, 0],
        Side::South,
    );
    assert_eq!(p.play(pit('b')).unwrap().captured, 0);
}

#[test]
fn mankala_lap_of_thirteen_captures_into_its_own_emptied_pit() {
    // 13 stones: b..f, home, North a..f, skip North's home, back into a.
    let mut p = setup(
        Ruleset::Mankala,
        &[13, 0, 0, 0, 0, 0],
        &[1, 1, 1, 1, 1, 2],
        [8, 8],
        Side::South,
    );
    let s = p.play(pit('a')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_eq!(s.captured, 3);
    assert_board(&p, &[4, 1, 1, 1, 1, 1], &[2, 2, 2, 2, 2, 0], [9, 8]);
}

#[test]
fn mankala_never_sows_the_opponents_home() {
    // Seven stones from f: the home, North's a..f; North's home is never sown.
    let mut p = setup(
        Ruleset::Mankala,
        &[0, 0, 0, 0, 1, 7],
        &[3, 3, 3, 3, 3, 3],
        [5, 5],
        Side::South,
    );
    let s = p.play(pit('f')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::North, pit('f')));
    assert_board(&p, &[0, 0, 0, 0, 1, 0], &[4; 6], [6, 5]);
    // With eight the last passes North's home and lands in South's empty a...
    let mut p = setup(
        Ruleset::Mankala,
        &[0, 0, 0, 0, 0, 8],
        &[3, 3, 3, 3, 3, 3],
        [5, 5],
        Side::South,
    );
    p.play(pit('f')).unwrap();
    // ... where it captures North's f (4 stones) into a.
    assert_board(&p, &[5, 0, 0, 0, 0, 0], &[4, 4, 4, 4, 4, 0], [6, 5]);
}

#[test]
fn mankala_ends_when_a_row_empties_and_scores_pits_plus_home() {
    let mut game = Game::from_position(setup(
        Ruleset::Mankala,
        &[0, 0, 0, 0, 0, 2],
        &[1, 0, 0, 0, 0, 5],
        [14, 14],
        Side::South,
    ));
    game.play(pit('f')).unwrap();
    // f sows the home and North's a: South's row is empty.
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::RowEmpty);
    assert_eq!(
        (outcome.score, outcome.winner),
        ([15, 21], Some(Side::North))
    );
}

#[test]
fn mankala_end_is_checked_after_a_bonus_sowing_too() {
    let mut game = Game::from_position(setup(
        Ruleset::Mankala,
        &[0, 0, 0, 0, 0, 1],
        &[2, 2, 2, 2, 2, 2],
        [12, 11],
        Side::South,
    ));
    let s = game.play(pit('f')).unwrap();
    assert!(s.bonus);
    assert_eq!(game.outcome().unwrap().score, [13, 23]);
}

#[test]
fn mankala_equal_scores_draw() {
    let mut game = Game::from_position(setup(
        Ruleset::Mankala,
        &[0, 0, 0, 0, 0, 1],
        &[1, 1, 1, 1, 1, 1],
        [17, 12],
        Side::South,
    ));
    game.play(pit('f')).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!((outcome.winner, outcome.score), (None, [18, 18]));
}

// ---- Games ----

#[test]
fn a_finished_game_takes_no_more_moves() {
    let mut game = Game::from_position(setup(
        Ruleset::Waurie,
        &[0; 6],
        &[9, 9, 9, 9, 4, 0],
        [4, 4],
        Side::South,
    ));
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
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Side::North), EndReason::Resignation)
    );
}

#[test]
fn wari_feeding_an_empty_row_may_not_then_capture_all_of_it() {
    // North's d (19 stones) feeds South's empty row, laps, and ends with
    // every South cell at 2: a capture of all, so d is illegal (found by the
    // OpenSpiel cross-check).
    let mut p = setup(
        Ruleset::Wari,
        &[0; 6],
        &[0, 5, 0, 19, 0, 3],
        [10, 11],
        Side::North,
    );
    assert_eq!(p.legal_moves(), pits("bf"));
    assert_eq!(
        p.play(pit('d')).unwrap_err().kind,
        PlayErrorKind::StarvesOpponent
    );
}
