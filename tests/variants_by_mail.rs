//! Variants and set-up positions by mail: the referee that keeps no games
//! (the game lives in its sheet) and the hosted one (the store keeps the
//! variant and the set-up) both play them as the sheet says.

use mancala::engine::{Position, Ruleset, Side, SplitMix64};
use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::outgoing::Outgoing;
use mancala::mail::sheet_referee::{Decision, SheetReferee};
use mancala::mail::Referee;
use mancala::sheet::{Players, Sheet};
use mancala::store::Store;

mod common;
#[path = "common/stub.rs"]
mod stub;

use stub::Stub;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";

fn quote(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\n")).collect()
}

/// The sheet referee's answer to `raw`: the first mail it sends.
fn sheet_referee_reply(raw: &str) -> Outgoing {
    let referee = SheetReferee::new(REFEREE);
    match referee.decide(&Letter::read(raw.as_bytes(), &referee.identity)) {
        Decision::Send { mut mail, .. } => mail.remove(0),
        other => panic!("no reply: {other:?}"),
    }
}

/// Plays `start` to the end by mail through the referee that keeps no
/// games, each player answering the last mail with `choose`'s move.
fn play_by_mail(start: &Sheet, mut choose: impl FnMut(&Sheet) -> String) -> Sheet {
    let first = choose(start);
    let mut received = format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}, Bob <{BOB}>\nSubject: a game\n\
         Message-ID: <0@players.example>\n\nmove {first}\n\n{start}"
    );
    for n in 1..500 {
        let out = sheet_referee_reply(&received);
        assert!(
            !out.body.contains("no move was played"),
            "refused:\n{}",
            out.body
        );
        let sheet = Sheet::parse(&out.body).unwrap();
        assert_eq!(sheet.game.start(), start.game.start(), "the set-up is kept");
        assert_eq!(
            sheet.game.rules(),
            start.game.rules(),
            "the variant is kept"
        );
        let Some(side) = sheet.game.to_move() else {
            return sheet;
        };
        let from = sheet.players.get(side).address.clone().unwrap();
        received = format!(
            "From: {from}\nTo: {REFEREE}\nSubject: {}\nMessage-ID: <{n}@players.example>\n\n\
             move {}\n\n{}",
            out.subject,
            choose(&sheet),
            quote(&out.body)
        );
    }
    panic!("the game did not end");
}

fn players() -> Players {
    let mut players = Players::named("Alice", "Bob");
    players.south.address = Some(ALICE.into());
    players.north.address = Some(BOB.into());
    players
}

#[test]
fn gerings_endgame_played_by_mail_from_its_sheet() {
    let start = Position::set_up(
        Ruleset::Waurie.rules(),
        &[1, 0, 0, 0, 1, 1],
        &[0, 0, 1, 0, 0, 0],
        None,
        Side::South,
    )
    .unwrap();
    let sheet = Sheet::from_position(start, players());
    let mut line = "e c a d b e f f-a c b d c e d f".split_whitespace();
    let end = play_by_mail(&sheet, |_| line.next().unwrap().to_string());
    let outcome = end.game.outcome().unwrap();
    assert_eq!(outcome.winner, Some(Side::South));
    assert!(end
        .to_string()
        .contains("Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0"));
}

#[test]
fn every_variant_is_played_by_mail_to_its_end() {
    for ruleset in Ruleset::ALL {
        for variant in ruleset.spec().variants {
            let rules = ruleset.rules().with_variant(variant.name).unwrap();
            let mut rng = SplitMix64::new(3);
            let sheet = Sheet::new(rules, players());
            let end = play_by_mail(&sheet, |sheet| {
                let legal = sheet.game.legal_moves();
                legal.nth(rng.below(legal.len())).unwrap().to_string()
            });
            assert!(end.game.is_over(), "{ruleset} {}", variant.name);
            assert!(
                end.to_string()
                    .contains(&format!("variant {}", variant.name)),
                "{end}"
            );
        }
    }
}

/// The one game of the store in `dir`.
fn the_game(dir: &std::path::Path) -> mancala::store::GameRecord {
    let store = Store::open(dir.join("referee.db")).unwrap();
    store.list().unwrap().games.remove(0)
}

fn hosted(name: &str) -> (common::TempDir, HostedReferee, Stub) {
    let dir = common::temp_dir(name);
    let referee = HostedReferee::new(REFEREE, Store::open(dir.join("referee.db")).unwrap());
    (dir, referee, Stub::default())
}

fn deliver(referee: &HostedReferee, postman: &Stub, raw: &str) -> Vec<Outgoing> {
    let letter = Letter::read(raw.as_bytes(), &referee.identity);
    let report = referee.deliver(&letter, postman).unwrap();
    let sent = postman.take();
    assert!(!sent.is_empty(), "nothing sent: {report:?}");
    sent
}

#[test]
fn a_hosted_game_in_a_variant_keeps_it_to_the_end() {
    let (dir, referee, postman) = hosted("variant-hosted");
    let mut out = deliver(
        &referee,
        &postman,
        &format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <v0@x>\n\n\
             new waurie variant first-empty-wins with computer\n"
        ),
    );
    let mut mail = out.remove(0);
    assert!(
        mail.body
            .contains("Game: waurie, 4 stones, south first, variant first-empty-wins, id "),
        "{}",
        mail.body
    );
    let record = the_game(&dir);
    assert_eq!(record.variant.as_deref(), Some("first-empty-wins"));
    // Help about the game says which variant it is played as.
    let help = deliver(
        &referee,
        &postman,
        &common::press_reply(REFEREE, ALICE, &mail, "help", "v-help@x"),
    );
    let words = help[0]
        .body
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("This game is played as the variant first-empty-wins: the first player"),
        "{}",
        help[0].body
    );
    let mut rng = SplitMix64::new(9);
    for n in 0..200 {
        let sheet = Sheet::parse(&mail.body).unwrap();
        let Some(_) = sheet.game.to_move() else {
            break;
        };
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        mail = deliver(
            &referee,
            &postman,
            &common::press_reply(
                REFEREE,
                ALICE,
                &mail,
                &format!("move {pit}"),
                &format!("m{n}@x"),
            ),
        )
        .remove(0);
        assert!(!mail.body.contains("no move was played"), "{}", mail.body);
    }
    let game = the_game(&dir).game().unwrap();
    assert!(game.is_over());
    assert_eq!(game.rules().variant_name(), Some("first-empty-wins"));
    // A variant the game does not have is refused with the reason.
    let out = deliver(
        &referee,
        &postman,
        &format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <v-bad@x>\n\n\
             new kalah variant both-stores with computer\n"
        ),
    );
    assert!(
        out[0].body.contains("kalah has no variant 'both-stores'"),
        "{}",
        out[0].body
    );
}

#[test]
fn a_hosted_game_from_a_set_up_sheet_keeps_its_start() {
    let (dir, referee, postman) = hosted("setup-hosted");
    let start = Position::set_up(
        Ruleset::Waurie.rules(),
        &[1, 0, 0, 0, 1, 1],
        &[0, 0, 1, 0, 0, 0],
        None,
        Side::South,
    )
    .unwrap();
    let sheet = Sheet::from_position(start, Players::named("Alice", "Bob"));
    let out = deliver(
        &referee,
        &postman,
        &format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nCc: Bob <{BOB}>\nSubject: Gering\n\
             Message-ID: <g0@players.example>\n\nmove e\n\n{sheet}"
        ),
    );
    let bob = out.iter().find(|o| o.to.address == BOB).unwrap().clone();
    assert!(
        bob.body
            .contains("Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22"),
        "{}",
        bob.body
    );
    let record = the_game(&dir);
    let setup = record.setup.clone().expect("the store keeps the set-up");
    assert_eq!(
        (setup.south, setup.north, setup.stores),
        (vec![1, 0, 0, 0, 1, 1], vec![0, 0, 1, 0, 0, 0], [22, 22])
    );
    // Bob's first move accepts; the game goes on from the set-up.
    let out = deliver(
        &referee,
        &postman,
        &common::press_reply(REFEREE, BOB, &bob, "move c", "g1@players.example"),
    );
    let alice = out.iter().find(|o| o.to.address == ALICE).unwrap();
    let sheet = Sheet::parse(&alice.body).unwrap();
    assert_eq!(sheet.game.start(), &start);
    assert_eq!(sheet.game.ply(), 2);
    assert_eq!(the_game(&dir).game().unwrap().start(), &start);
}
