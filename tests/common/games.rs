//! Game records as a store holds them, made by random legal play: mixed
//! rulesets, finished (played out or resigned) and under way. Shared by
//! the store's tests and `benches/store.rs`, which writes 100,000 of them.

use mancala::engine::{Game, Ruleset, Side, SplitMix64};
use mancala::store::{GameId, GameRecord, MailKey, PlayerRecord, Standing};

/// A record of a game between `south` and `north` (addresses), its turns
/// played at random from `start` a minute apart; finished when `finish`
/// (played to its end, or resigned after a while), else left after a few
/// turns with South or North to move.
pub fn random_game(
    id: &GameId,
    (south, north): (&str, &str),
    start: u64,
    finish: bool,
    rng: &mut SplitMix64,
) -> GameRecord {
    let ruleset = Ruleset::ALL[rng.below(Ruleset::ALL.len())];
    let rules = ruleset.rules();
    let mut game = Game::new(rules, Side::South);
    let mut turns = if finish { 400 } else { 2 + rng.below(20) };
    while turns > 0 && !game.is_over() {
        let legal: Vec<_> = game.legal_moves().into_iter().collect();
        let Some(&pit) = legal.get(rng.below(legal.len().max(1))) else {
            break;
        };
        game.play(pit).expect("a legal move");
        turns -= 1;
    }
    let player = |address: &str| PlayerRecord {
        name: address.split('@').next().unwrap_or(address).to_string(),
        address: Some(address.to_string()),
    };
    let mut record = GameRecord {
        id: id.clone(),
        ruleset,
        stones: rules.stones,
        variant: None,
        first: Side::South,
        setup: None,
        south: player(south),
        north: player(north),
        computer: None,
        standing: Standing::Playing,
        turns: Vec::new(),
        conceded: None,
        started_by: MailKey(format!("generated-{id}")),
        inviter: Side::South,
        inviter_confirmed: true,
        created: start,
        last_activity: start,
        reminded: None,
        offer: None,
        conditions: Vec::new(),
        board_event: 0,
        events: 0,
    };
    // A minute a turn, so that games end in the order they were made.
    let mut clock = start;
    let mut played = Game::new(rules, Side::South);
    for sowings in game.turns() {
        clock += 60;
        for sowing in sowings {
            played.play(sowing.pit).expect("replayed");
        }
        record.set_turns(&played, clock);
    }
    if finish && !game.is_over() {
        let side = game.to_move().unwrap_or(Side::South);
        record.concede(side, mancala::store::Concession::Resignation, clock + 60);
    }
    record
}

/// The `n`th id of a generated store: six letters of the ids' alphabet.
pub fn nth_id(n: u64) -> GameId {
    const LETTERS: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut n = n;
    let mut id = String::new();
    for _ in 0..6 {
        id.push(char::from(LETTERS[(n % 32) as usize]));
        n /= 32;
    }
    GameId::parse(&id).expect("an id")
}
