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

// ---- Kalah ----

fn kalah(south: &[u8], north: &[u8], stores: [u8; 2], to_move: Side) -> Position {
    setup(Ruleset::Kalah, south, north, stores, to_move)
}

#[test]
fn kalah_default_is_four_stones_and_stones_are_one_to_six() {
    let rules = Ruleset::Kalah.rules();
    assert_eq!((rules.pits, rules.stones, rules.total_stones()), (6, 4, 48));
    assert!(Ruleset::Kalah.with_stones(0).is_err());
    assert!(Ruleset::Kalah.with_stones(7).is_err());
    assert_eq!(Ruleset::Kalah.with_stones(1).map(|r| r.stones), Ok(1));
    assert_eq!(Ruleset::Kalah.with_stones(6).map(|r| r.stones), Ok(6));
}

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
    assert_board(&p, &[0, 1, 1], &[2, 2, 0], [11, 7]);
}

#[test]
fn kalah_last_in_own_store_is_another_turn() {
    let mut p = Position::start(Ruleset::Kalah.rules(), Side::South);
    let s = p.play(pit('c')).unwrap();
    assert!(s.bonus);
    assert_eq!(p.to_move(), Side::South);
    assert_board(&p, &[4, 4, 0, 5, 5, 5], &[4; 6], [1, 0]);
}

#[test]
fn kalah_capture_puts_the_stone_and_the_opposite_pit_into_the_store() {
    let mut p = kalah(
        &[0, 1, 0, 4, 4, 4],
        &[4, 4, 5, 4, 4, 4],
        [6, 4],
        Side::South,
    );
    // South b sows c, which was empty; opposite c is North's d (4 stones).
    let s = p.play(pit('b')).unwrap();
    assert_eq!(s.captured, 4);
    assert_eq!(s.last, Landing::Pit(Side::South, pit('c')));
    assert_board(&p, &[0, 0, 0, 4, 4, 4], &[4, 4, 5, 0, 4, 4], [11, 4]);
    assert_eq!(p.to_move(), Side::North);
}

#[test]
fn kalah_no_capture_when_the_opposite_pit_is_empty() {
    let mut p = kalah(
        &[0, 1, 0, 4, 4, 4],
        &[4, 4, 5, 0, 4, 8],
        [6, 4],
        Side::South,
    );
    assert_eq!(p.play(pit('b')).unwrap().captured, 0);
    // The last stone stays where it fell.
    assert_board(&p, &[0, 0, 1, 4, 4, 4], &[4, 4, 5, 0, 4, 8], [6, 4]);
}

#[test]
fn kalah_empty_capture_takes_the_lone_last_stone_into_the_store() {
    let rules = Ruleset::Kalah
        .rules()
        .with_variant("empty-capture")
        .unwrap();
    let mut p = Position::from_counts(
        rules,
        &[0, 1, 0, 4, 4, 4],
        &[4, 4, 5, 0, 4, 8],
        [6, 4],
        Side::South,
    )
    .unwrap();
    // As above, but the stone that fell in the empty c goes to the store.
    assert_eq!(p.play(pit('b')).unwrap().captured, 0);
    assert_board(&p, &[0, 0, 0, 4, 4, 4], &[4, 4, 5, 0, 4, 8], [7, 4]);
    assert_eq!(p.to_move(), Side::North);
}

#[test]
fn kalah_no_capture_in_the_opponents_empty_pit() {
    let mut p = kalah(
        &[4, 4, 4, 4, 4, 2],
        &[0, 4, 4, 4, 4, 4],
        [3, 3],
        Side::South,
    );
    // f sows the store and North's a, which was empty: nothing is taken.
    let s = p.play(pit('f')).unwrap();
    assert_eq!(
        (s.captured, s.last),
        (0, Landing::Pit(Side::North, pit('a')))
    );
    assert_board(&p, &[4, 4, 4, 4, 4, 0], &[1, 4, 4, 4, 4, 4], [4, 3]);
}

#[test]
fn kalah_lap_of_thirteen_captures_from_its_own_emptied_pit() {
    // 13 stones: b..f, the store, North a..f, skip North's store, back into a.
    let mut p = kalah(
        &[13, 0, 0, 0, 0, 0],
        &[1, 1, 1, 1, 1, 2],
        [14, 14],
        Side::South,
    );
    let s = p.play(pit('a')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    // a holds 1 and North's f 3: both go into South's store.
    assert_eq!(s.captured, 3);
    assert_board(&p, &[0, 1, 1, 1, 1, 1], &[2, 2, 2, 2, 2, 0], [19, 14]);
}

#[test]
fn kalah_ends_when_a_row_empties_and_scores_pits_plus_store() {
    // A capture that empties South's own row ends the game.
    let mut game = Game::from_position(kalah(
        &[1, 0, 0, 0, 0, 0],
        &[2, 2, 2, 2, 9, 2],
        [10, 18],
        Side::South,
    ));
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.captured, 9, "North's e, opposite b");
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::RowEmpty);
    assert_eq!(
        (outcome.score, outcome.winner),
        ([20, 28], Some(Side::North))
    );
    assert_board(game.position(), &[0; 6], &[2, 2, 2, 2, 0, 2], [20, 18]);
}

// ---- Waurie's variants ----

fn waurie(variant: &str, south: &[u8], north: &[u8], stores: [u8; 2], to_move: Side) -> Game {
    let rules = Ruleset::Waurie.rules().with_variant(variant).unwrap();
    Game::from_position(Position::from_counts(rules, south, north, stores, to_move).unwrap())
}

#[test]
fn first_empty_wins_ends_the_game_though_the_opponent_could_feed_the_row() {
    // South's f (1 seed) leaves South's row empty and passes to North, who
    // could feed it with f. By the seed's rule North must move, and may.
    let start = ([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 3], [21, 22]);
    let mut seed_rule = Game::from_position(setup(
        Ruleset::Waurie,
        &start.0,
        &start.1,
        start.2,
        Side::South,
    ));
    seed_rule.play(pit('f')).unwrap();
    assert_eq!(seed_rule.to_move(), Some(Side::North));
    seed_rule.play(pit('f')).unwrap();
    assert_board(
        seed_rule.position(),
        &[1, 1, 0, 0, 0, 0],
        &[1, 0, 0, 0, 0, 0],
        [22, 23],
    );
    // In first-empty-wins South's sowing wins at once.
    let mut game = waurie("first-empty-wins", &start.0, &start.1, start.2, Side::South);
    game.play(pit('f')).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason, outcome.score),
        (Some(Side::South), EndReason::FirstEmpty, [22, 22])
    );
    assert_eq!(game.to_move(), None);
    assert!(game.legal_moves().is_empty());
}

#[test]
fn first_empty_wins_still_wins_by_a_bonus_that_empties_the_row() {
    let mut game = waurie(
        "first-empty-wins",
        &[0, 0, 0, 0, 0, 1],
        &[9, 9, 9, 9, 5, 0],
        [3, 3],
        Side::South,
    );
    game.play(pit('f')).unwrap();
    assert_eq!(game.outcome().unwrap().winner, Some(Side::South));
}

#[test]
fn first_empty_wins_keeps_the_rest_of_the_seed_rules() {
    let mut game = waurie(
        "first-empty-wins",
        &[4, 4, 4, 0, 0, 8],
        &[4, 4, 4, 4, 4, 4],
        [2, 2],
        Side::South,
    );
    let s = game.play(pit('f')).unwrap();
    assert_board(game.position(), &[5, 4, 4, 0, 0, 0], &[5; 6], [3, 2]);
    assert!(!s.bonus && !game.is_over());
}

#[test]
fn both_stores_sows_the_opponents_endpit_too() {
    // f: own endpit, North a..f, North's endpit (the seed rule skips it), South a.
    let mut game = waurie(
        "both-stores",
        &[4, 4, 4, 0, 0, 9],
        &[4, 4, 4, 4, 4, 4],
        [1, 2],
        Side::South,
    );
    let s = game.play(pit('f')).unwrap();
    assert_board(game.position(), &[5, 4, 4, 0, 0, 0], &[5; 6], [2, 3]);
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    // The same sowing under the seed's rule ends a pit further on.
    let mut p = setup(
        Ruleset::Waurie,
        &[4, 4, 4, 0, 0, 9],
        &[4, 4, 4, 4, 4, 4],
        [1, 2],
        Side::South,
    );
    p.play(pit('f')).unwrap();
    assert_board(&p, &[5, 5, 4, 0, 0, 0], &[5; 6], [2, 2]);
}

#[test]
fn both_stores_last_seed_in_the_opponents_endpit_earns_nothing() {
    let mut game = waurie(
        "both-stores",
        &[4, 4, 4, 0, 0, 8],
        &[4, 4, 4, 4, 4, 4],
        [2, 2],
        Side::South,
    );
    let s = game.play(pit('f')).unwrap();
    assert_eq!(s.last, Landing::Store(Side::North));
    assert!(!s.bonus);
    assert_eq!(game.to_move(), Some(Side::North));
    assert_board(game.position(), &[4, 4, 4, 0, 0, 0], &[5; 6], [3, 3]);
}

#[test]
fn both_stores_laps_through_both_endpits_and_the_emptied_pit() {
    // 14 seeds from a: b..f, own endpit, North a..f, North's endpit, a.
    let mut game = waurie(
        "both-stores",
        &[14, 0, 0, 0, 0, 0],
        &[5, 5, 5, 5, 5, 4],
        [2, 3],
        Side::South,
    );
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_board(game.position(), &[1; 6], &[6, 6, 6, 6, 6, 5], [3, 4]);
    // 29 seeds: two laps of 14 and one more, into b.
    let mut game = waurie(
        "both-stores",
        &[29, 0, 0, 0, 0, 0],
        &[1, 1, 1, 1, 1, 0],
        [7, 7],
        Side::South,
    );
    let s = game.play(pit('a')).unwrap();
    assert_eq!(s.last, Landing::Pit(Side::South, pit('b')));
    assert_board(
        game.position(),
        &[2, 3, 2, 2, 2, 2],
        &[3, 3, 3, 3, 3, 2],
        [9, 9],
    );
}

#[test]
fn both_stores_north_sows_souths_endpit_and_the_player_who_cannot_move_wins() {
    let mut game = waurie(
        "both-stores",
        &[0, 0, 0, 0, 0, 0],
        &[0, 0, 0, 0, 0, 2],
        [23, 23],
        Side::North,
    );
    // North to move with seeds; South's row is empty (South is not to move).
    let s = game.play(pit('f')).unwrap();
    // f: North's endpit, then South's a; no bonus.
    assert_eq!(s.last, Landing::Pit(Side::South, pit('a')));
    assert_board(game.position(), &[1, 0, 0, 0, 0, 0], &[0; 6], [23, 24]);
    // North is to move next only after South; South plays a, then North cannot move and wins.
    game.play(pit('a')).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Side::North), EndReason::CannotMove)
    );
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

#[test]
fn a_set_up_shares_the_stones_left_between_the_stores() {
    let rules = Ruleset::Waurie.rules();
    let p = Position::set_up(
        rules,
        &[1, 0, 0, 0, 1, 1],
        &[0, 0, 1, 0, 0, 0],
        None,
        Side::South,
    )
    .unwrap();
    assert_eq!([p.store(Side::South), p.store(Side::North)], [22, 22]);
    assert!(!p.is_start());
    // An odd number left: South takes the odd one.
    let p = Position::set_up(
        rules,
        &[1, 0, 0, 0, 1, 1],
        &[1, 1, 0, 0, 0, 0],
        None,
        Side::South,
    )
    .unwrap();
    assert_eq!([p.store(Side::South), p.store(Side::North)], [22, 21]);
    assert!(Position::start(rules, Side::North).is_start());
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
    Game::from_position(
        Position::set_up(
            Ruleset::Waurie.rules(),
            &[1, 0, 0, 0, 1, 1],
            &[0, 0, 1, 0, 0, 0],
            None,
            Side::South,
        )
        .unwrap(),
    )
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
    let outcome = game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.reason),
        (Some(Side::South), EndReason::CannotMove)
    );
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
