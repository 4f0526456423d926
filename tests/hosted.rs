//! The hosted referee, tried as players, operators and attackers would:
//! games kept in a store, players known by their keys, each mail one
//! transaction (nothing lost, doubled, leaked or abused), invitations,
//! daily limits, reminders. Players only ever press "reply" on the last
//! mail they got: to its Reply-To, quoting its body.

use std::path::Path;

use mancala::engine::{Pit, Side, SplitMix64};
use mancala::mail::delivery::DeliveryError;
use mancala::mail::hosted::{HostedReferee, Reminder, Reminders};
use mancala::mail::letter::Letter;
use mancala::mail::outgoing::Outgoing;
use mancala::mail::transport::Failure;
use mancala::mail::Referee;
use mancala::mail::Report;
use mancala::sheet::Sheet;
use mancala::store::{GameRecord, Store};

mod common;
use common::Dump;
#[path = "common/stub.rs"]
mod stub;

use common::{run, spawn, squeezed, temp_dir};
use stub::Stub;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";

/// A referee on its own store, with a postman that keeps what it sends.
struct World {
    dir: common::TempDir,
    /// The store: SQLite in `dir`, or PostgreSQL (MANCALA_TEST_STORE).
    store: String,
    referee: HostedReferee,
    postman: Stub,
}

impl World {
    fn new(name: &str) -> World {
        let dir = temp_dir(name);
        let store = common::pg::store_for(&dir, name);
        World {
            referee: HostedReferee::new(REFEREE, Store::open(&store).unwrap()),
            store,
            dir,
            postman: Stub::default(),
        }
    }

    /// Another connection to the world's store.
    fn store(&self) -> Store {
        Store::open(&self.store).unwrap()
    }

    /// Runs `sql` on the store's SQLite file, as an operator's mistake or a
    /// damaged disk would change it; `false` (said) on PostgreSQL.
    fn tamper(&self, sql: &str) -> bool {
        if self.store.contains("://") {
            println!("SQLite's file only: skipped on PostgreSQL");
            return false;
        }
        let db = rusqlite::Connection::open(&self.store).unwrap();
        db.execute_batch(sql).unwrap();
        true
    }

    /// The replies the one game owes and has not sent.
    fn owed(&self) -> Vec<Outgoing> {
        let id = self.the_game().id;
        self.store()
            .owed(mancala::store::Owed::Of(id.as_str()))
            .unwrap()
    }

    fn try_deliver(&self, raw: &str) -> Result<Report, DeliveryError> {
        let letter = Letter::read(raw.as_bytes(), &self.referee.identity);
        self.referee.deliver(&letter, &self.postman)
    }

    /// Delivers a mail and returns what was sent.
    fn deliver(&self, raw: &str) -> Vec<Outgoing> {
        self.try_deliver(raw).unwrap();
        self.postman.take()
    }

    fn games(&self) -> Vec<GameRecord> {
        self.store().list().unwrap().games
    }

    fn the_game(&self) -> GameRecord {
        let games = self.games();
        assert_eq!(games.len(), 1, "one game");
        games.into_iter().next().unwrap()
    }

    /// Alice invites Bob and Bob accepts: their first boards.
    fn game_on(&self) -> (Outgoing, Outgoing) {
        self.game_of("super-wari")
    }

    /// As [`World::game_on`], a game of `game`: one more such game
    /// between them each call.
    fn game_of(&self, game: &str) -> (Outgoing, Outgoing) {
        let made = self.games().len();
        let out = self.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c{made}-{game}@players.example>\n\nnew {game} with Bob <{BOB}>\n"
        ));
        let invitation = to(&out, BOB);
        let out = self.deliver(&press_reply(
            BOB,
            &invitation,
            "accept",
            &format!("acc{made}-{game}@players.example"),
        ));
        (to(&out, ALICE), to(&out, BOB))
    }
}

fn to(out: &[Outgoing], address: &str) -> Outgoing {
    out.iter()
        .find(|o| o.to.address == address)
        .cloned()
        .unwrap_or_else(|| panic!("nothing to {address}: {out:#?}"))
}

fn press_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    common::press_reply(REFEREE, from, received, words, message_id)
}

fn key_of(out: &Outgoing) -> String {
    let line = out
        .body
        .lines()
        .find(|l| l.starts_with("Your key for game"))
        .unwrap_or_else(|| panic!("no key line in\n{}", out.body));
    line.rsplit(' ').next().unwrap().to_string()
}

#[test]
fn a_challenge_sends_one_invitation_and_the_game_starts_on_accept() {
    let world = World::new("invite");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c1@players.example>\n\nnew super-wari with Bob <{BOB}>\n"
    ));
    assert_eq!(out.len(), 2);
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    for text in [
        "alice@players.example invites you",
        "accept",
        "decline",
        "ignore this mail",
    ] {
        assert!(bob.body.contains(text), "{text} missing:\n{}", bob.body);
    }
    assert!(
        alice
            .body
            .contains("your invitation to bob@players.example is sent"),
        "{}",
        alice.body
    );
    let record = world.the_game();
    assert_eq!(
        record.north.name, "Bob",
        "the name as the challenge wrote it"
    );
    assert_ne!(key_of(&alice), key_of(&bob));
    assert!(!alice.body.contains(&key_of(&bob)));
    // Alice cannot move before Bob says yes.
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "move c",
        "early@players.example",
    ));
    assert!(
        to(&out, ALICE)
            .body
            .contains("Bob has not accepted the game yet"),
        "{}",
        out[0].body
    );
    // Nor is she told how to move, only what she waits for.
    assert!(
        !out[0].body.contains("To move, reply")
            && out[0].body.contains("The game starts when Bob accepts"),
        "{}",
        out[0].body
    );
    assert!(world.the_game().turns.is_empty());
    // Bob accepts: both get the board, Alice to move.
    let out = world.deliver(&press_reply(BOB, &bob, "accept", "yes@players.example"));
    assert_eq!(out.len(), 2);
    assert!(
        to(&out, ALICE).body.contains("It is Alice's move (South)"),
        "{}",
        out[0].body
    );
    assert!(world.the_game().is_playing());
}

/// Bob declines, by his key, the invitation from `inviter`.
fn bob_declines(world: &World, inviter: &str, message_id: &str) {
    let game = world
        .games()
        .into_iter()
        .find(|g| g.south.address.as_deref() == Some(inviter))
        .unwrap();
    let store = world.store();
    let key = store.secrets().token(&game.id, Side::North);
    world.deliver(&format!(
        "From: {BOB}\nTo: referee+{key}@referee.example\nMessage-ID: <{message_id}>\n\ndecline\n"
    ));
}

#[test]
fn a_mail_read_only_in_part_is_refused_whatever_it_carries() {
    let world = World::new("hosted-too-large");
    let (_, bob) = world.game_on();
    let raw = press_reply(BOB, &bob, "resign", "big@players.example") + &"x".repeat(500);
    let letter = Letter::read_capped(raw.as_bytes(), 400, &world.referee.identity);
    assert_eq!(letter.too_large, Some(400));
    world.referee.deliver(&letter, &world.postman).unwrap();
    let out = world.postman.take();
    assert_eq!(addresses_of(&out), [BOB], "the sender alone is told");
    assert!(
        out[0].body.contains("larger than 400 bytes"),
        "{}",
        out[0].body
    );
    assert_eq!(world.the_game().conceded, None, "its resign is not read");
}

fn addresses_of(out: &[Outgoing]) -> Vec<&str> {
    out.iter().map(|o| o.to.address.as_str()).collect()
}

#[test]
fn a_players_name_comes_from_their_own_from_display_name() {
    let world = World::new("names");
    let out = world.deliver(&format!(
        "From: Alice Liddell <{ALICE}>\nMessage-ID: <nm@x>\n\nnew wari with {BOB}\n"
    ));
    let invitation = to(&out, BOB);
    assert_eq!(world.the_game().south.name, "Alice Liddell");
    assert_eq!(
        world.the_game().north.name,
        "bob",
        "until Bob says otherwise"
    );
    let mut accept = press_reply(BOB, &invitation, "accept", "nm1@x");
    accept = accept.replacen(
        &format!("From: {BOB}"),
        &format!("From: Bob Smith <{BOB}>"),
        1,
    );
    let out = world.deliver(&accept);
    assert_eq!(world.the_game().north.name, "Bob Smith");
    assert!(
        to(&out, ALICE).body.contains("Bob Smith accepted"),
        "{}",
        out[0].body
    );
}

#[test]
fn a_declined_inviter_cannot_invite_again_and_an_address_gets_three_invitations_a_day() {
    let world = World::new("decline");
    let invite = |from: &str, n: u32| {
        world.deliver(&format!(
            "From: {from}\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <d{n}@players.example>\n\nnew wari with {BOB}\n"
        ))
    };
    let out = invite(ALICE, 0);
    let bob = to(&out, BOB);
    let out = world.deliver(&press_reply(BOB, &bob, "decline", "no@players.example"));
    assert!(
        to(&out, ALICE).body.contains("bob declined the game"),
        "{}",
        out[0].body
    );
    let out = invite(ALICE, 1);
    assert_eq!(out.len(), 1, "nothing to Bob");
    assert!(
        to(&out, ALICE)
            .body
            .contains("declined an earlier invitation"),
        "{}",
        out[0].body
    );
    // Others may invite him, one open invitation at a time, three a day.
    let out = invite("carol@players.example", 2);
    assert_eq!(out.len(), 2);
    let out = invite("dave@players.example", 3);
    assert!(to(&out, "dave@players.example")
        .body
        .contains("has an invitation open already"));
    bob_declines(&world, "carol@players.example", "no2@x");
    let out = invite("erin@players.example", 4);
    assert_eq!(out.len(), 2, "the third invitation today");
    bob_declines(&world, "erin@players.example", "no3@x");
    let out = invite("frank@players.example", 5);
    assert!(
        to(&out, "frank@players.example")
            .body
            .contains("as many invitations today"),
        "{}",
        out[0].body
    );
}

#[test]
fn questions_beside_new_are_answered_with_the_game_just_made() {
    let world = World::new("new-and-games");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <ng0@players.example>\n\n\
         new wari with Bob <{BOB}>\ngames\nhistory\n"
    ));
    assert_eq!(addresses_of(&out), [BOB, ALICE]);
    let (alice, bob) = (
        squeezed(&to(&out, ALICE).body),
        squeezed(&to(&out, BOB).body),
    );
    assert!(alice.contains("Your games, as you asked"), "{alice}");
    assert!(alice.contains("waiting for Bob to accept"), "{alice}");
    assert!(
        alice.contains("Your finished games, as you asked"),
        "{alice}"
    );
    // The invitee is told nothing of what the inviter asked.
    assert!(!bob.contains("as you asked"), "{bob}");
    // Against the computer, after its first move.
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <ng1@players.example>\n\n\
         new mankala with computer as north\ngames\n"
    ));
    assert_eq!(addresses_of(&out), [ALICE]);
    let alice = squeezed(&out[0].body);
    assert!(alice.contains("Your games, as you asked"), "{alice}");
    // A move or an offer beside `new` is not done, and said so.
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <ng2@players.example>\n\n\
         new kalah with computer\nmove c-f\noffer draw\n"
    ));
    let alice = squeezed(&out[0].body);
    assert!(
        alice.contains("Not done: move, offer draw. A mail with a line new only starts a game"),
        "{alice}"
    );
}

#[test]
fn a_player_asking_without_a_key_gets_each_answer_asked_for() {
    let world = World::new("keyless-questions");
    world.game_on();
    let ask = |words: &str, id: &str| {
        world.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <{id}@players.example>\n\n{words}\n"
        ))
    };
    let out = ask("history\nratings", "kq1");
    assert_eq!(addresses_of(&out), [ALICE]);
    let text = squeezed(&out[0].body);
    assert!(text.contains("Your finished games, as you asked"), "{text}");
    assert!(text.contains("The ratings, as you asked"), "{text}");
    assert!(!text.contains("moved nothing"), "{text}");
    // A move without a key is still told it moved nothing, with the games
    // (Bob, who has shown his key, has the answers to spare).
    let out = world.deliver(&format!(
        "From: Bob <{BOB}>\nTo: {REFEREE}\nMessage-ID: <kq2@players.example>\n\nmove a\n"
    ));
    let text = squeezed(&out[0].body);
    assert!(
        text.contains("carries no game key, so it moved nothing"),
        "{text}"
    );
    assert!(text.contains("your key: "), "{text}");
}

#[test]
fn a_sheet_of_another_game_pasted_into_a_reply_plays_in_neither() {
    let world = World::new("other-sheet");
    let (alice_a, _) = world.game_on();
    let (alice_b, _) = world.game_of("wari");
    // Alice answers game A's mail, but pastes game B's sheet, her move on it.
    let mut reply = press_reply(ALICE, &alice_a, "", "os3@players.example");
    let sheet_b: String = alice_b.body.lines().map(|l| format!("> {l}\n")).collect();
    let sheet_a: String = alice_a.body.lines().map(|l| format!("> {l}\n")).collect();
    reply = reply.replace(&sheet_a, &sheet_b.replace("1.    ?", "1.    c"));
    assert!(reply.contains("1.    c"), "{reply}");
    let out = world.deliver(&reply);
    assert_eq!(addresses_of(&out), [ALICE], "{}", out[0].body);
    let text = squeezed(&out[0].body);
    assert!(text.contains("no move was played"), "{text}");
    let id_b = alice_b.subject.split([' ', ':']).nth(1).unwrap();
    assert!(
        text.contains(&format!("the board you quoted is game {id_b}'s")),
        "{text}"
    );
    assert!(
        world.games().iter().all(|g| g.turns.is_empty()),
        "nothing played"
    );
    // A move line is the key's game's, whatever sheet is quoted beside it.
    let reply = press_reply(ALICE, &alice_a, "move d", "os4@players.example");
    let out = world.deliver(&reply.replace(&sheet_a, &sheet_b));
    assert_eq!(addresses_of(&out), [ALICE, BOB], "{}", out[0].body);
    let id_a = alice_a.subject.split([' ', ':']).nth(1).unwrap();
    let played: Vec<String> = world
        .games()
        .iter()
        .filter(|g| !g.turns.is_empty())
        .map(|g| g.id.to_string())
        .collect();
    assert_eq!(played, [id_a]);
}

#[test]
fn an_empty_reply_on_the_opponents_turn_is_told_whose_move_it_is() {
    let world = World::new("empty-reply");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move a", "er1@players.example"));
    let alice = to(&out, ALICE);
    let out = world.deliver(&press_reply(ALICE, &alice, "", "er2@players.example"));
    assert_eq!(addresses_of(&out), [ALICE]);
    let text = squeezed(&out[0].body);
    assert!(text.contains("it is Bob's move"), "{text}");
    assert!(!text.contains("write a line"), "{text}");
}

#[test]
fn if_lines_beside_a_turn_not_finished_ask_for_the_whole_turn() {
    let world = World::new("if-free-turn");
    let (alice, _) = world.game_of("kalah");
    // Kalah's c, four stones, ends in the store: another sowing is due.
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "move c\nif a then b",
        "ft2@players.example",
    ));
    let text = squeezed(&to(&out, ALICE).body);
    assert!(
        text.contains(
            "your turn is not over (c earns another sowing): write the whole turn, as move c-<pit>"
        ),
        "{text}"
    );
}

#[test]
fn a_preview_refusing_the_opponents_turn_names_the_opponents_pit() {
    let world = World::new("preview-whose");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "pw1@players.example"));
    let out = world.deliver(&press_reply(
        BOB,
        &to(&out, BOB),
        "move b",
        "pw2@players.example",
    ));
    let alice = to(&out, ALICE);
    // Alice's a, then Bob's b: the pit he has just emptied.
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "preview a b",
        "pw3@players.example",
    ));
    let text = squeezed(&out[0].body);
    assert!(
        text.contains("b cannot be played: Bob's b is empty. Legal for Bob:"),
        "{text}"
    );
    assert!(!text.contains("Your b is empty"), "{text}");
}

#[test]
fn a_takeback_a_conditional_move_declines_at_once_is_not_offered_for_an_answer() {
    let world = World::new("takeback-if");
    let (alice, _) = world.game_of("wari");
    let words = "move c\nif d then e";
    let out = world.deliver(&press_reply(ALICE, &alice, words, "ti2@players.example"));
    let out = world.deliver(&press_reply(
        BOB,
        &to(&out, BOB),
        "move d\ntakeback",
        "ti3@players.example",
    ));
    for reader in [ALICE, BOB] {
        let text = squeezed(&to(&out, reader).body);
        assert!(text.contains("to take back"), "{text}");
        assert!(text.contains("declines"), "{text}");
        assert!(!text.contains("may answer accept"), "{text}");
    }
}

#[test]
fn an_inviter_withdraws_an_invitation_not_yet_answered() {
    let world = World::new("withdraw");
    let invite = |n: u32| {
        world.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <w{n}@players.example>\n\nnew wari with Bob <{BOB}>\n"
        ))
    };
    let out = invite(0);
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert!(alice.body.contains("withdraw"), "{}", alice.body);
    let listed = |all: &[&str]| {
        let args = [&["games", "--store", world.store.as_str()], all].concat();
        String::from_utf8(run(&args, b"").stdout).unwrap()
    };
    assert!(
        listed(&[]).contains("waiting for Bob to accept\n"),
        "{}",
        listed(&[])
    );
    // Bob's own withdraw is not his to write.
    let out = world.deliver(&press_reply(BOB, &bob, "withdraw", "bw@players.example"));
    assert_eq!(addresses_of(&out), [BOB]);
    assert!(out[0].body.contains("accept"), "{}", out[0].body);
    // Alice's: told to her alone (the invitation promised Bob nothing
    // more unless he replied), her games answered as the mail leaves them.
    let words = "withdraw\ngames";
    let out = world.deliver(&press_reply(ALICE, &alice, words, "wd@players.example"));
    assert_eq!(addresses_of(&out), [ALICE]);
    let text = squeezed(&out[0].body);
    assert!(
        text.contains("You withdrew the invitation; Bob is not told."),
        "{text}"
    );
    assert!(!text.contains("waiting for Bob"), "{text}");
    assert!(!listed(&[]).contains("Bob"), "no longer under way");
    assert!(listed(&["--all"]).contains("withdrawn by Alice"));
    // Bob's answer comes too late, and is told so, to him alone.
    let out = world.deliver(&press_reply(BOB, &bob, "accept", "late@players.example"));
    assert_eq!(addresses_of(&out), [BOB]);
    let text = squeezed(&out[0].body);
    assert!(
        text.contains("Alice withdrew the invitation to this game"),
        "{text}"
    );
    // An answer refused is no move refused.
    assert!(text.contains("nothing in it was done"), "{text}");
    assert!(!text.contains("no move was played"), "{text}");
    // A withdrawn invitation is no refusal of Bob's: Alice may ask again.
    assert_eq!(invite(1).len(), 2);
    // Nothing to withdraw in a game under way: refused, not ignored.
    let world = World::new("withdraw-playing");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "withdraw",
        "wp@players.example",
    ));
    assert_eq!(addresses_of(&out), [ALICE]);
    assert!(
        out[0].body.contains("no invitation of yours to withdraw"),
        "{}",
        out[0].body
    );
}

/// Two sheets in one mail that log different moves play neither, as a
/// move line against a sheet does, however each is quoted.
#[test]
fn two_sheets_logging_different_moves_play_neither() {
    let world = World::new("two-sheets");
    let (alice, _) = world.game_on();
    assert!(alice.body.contains("1.    ?"), "{}", alice.body);
    let mut edited = alice.clone();
    edited.body = alice.body.replacen("1.    ?", "1.    d", 1);
    let start = alice.body.find("Game:").unwrap();
    let end = alice.body[start..]
        .find("\n\n\n")
        .map_or(alice.body.len(), |e| start + e);
    let pasted: String = (alice.body[start..end]
        .replacen("1.    ?", "1.    b", 1)
        .lines())
    .map(|l| format!("| {l}\n"))
    .collect();
    let words = format!("Sorry, I meant this:\n\n{pasted}");
    let out = world.deliver(&press_reply(ALICE, &edited, &words, "two@x"));
    assert_eq!(addresses_of(&out), [ALICE]);
    let text = squeezed(&out[0].body);
    assert!(
        text.contains("log different moves (d and b), so neither was played"),
        "{text}"
    );
    assert_eq!(world.the_game().turns.len(), 0, "no move played");
}

/// An invitation's answer written with more: the accept first, then the
/// rest in order, and the questions answered on the game as it then is.
#[test]
fn an_accept_with_more_to_do_does_it_all_and_answers_on_the_game_begun() {
    let invite = |world: &World, n: u32| -> Outgoing {
        let out = world.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <m{n}@players.example>\n\nnew wari with Bob <{BOB}>\n"
        ));
        to(&out, BOB)
    };
    let flat = |o: &Outgoing| squeezed(&o.body);
    let world = World::new("accept-and-more");
    let bob = invite(&world, 0);
    let out = world.deliver(&press_reply(BOB, &bob, "accept\noffer draw\ngames", "a1@x"));
    let told = flat(&to(&out, BOB));
    assert!(told.contains("you accepted: the game is on"), "{told}");
    assert!(
        !told.contains("waiting for Bob"),
        "games on the game begun: {told}"
    );
    assert!(
        flat(&to(&out, ALICE)).contains("offer"),
        "{}",
        to(&out, ALICE).body
    );
    assert!(world.the_game().offer.is_some(), "the draw offer stands");

    let world = World::new("accept-and-resign");
    let bob = invite(&world, 1);
    world.deliver(&press_reply(BOB, &bob, "accept\nresign", "a2@x"));
    assert!(world.the_game().conceded.is_some(), "Bob resigned");

    let world = World::new("accept-and-if");
    let bob = invite(&world, 2);
    world.deliver(&press_reply(BOB, &bob, "accept\nif c then d", "a3@x"));
    assert_eq!(world.the_game().conditions.len(), 1, "the if line is kept");

    // Declined, the games answer says so; a later mail to the declined
    // game asks no move of anyone.
    let world = World::new("decline-and-games");
    let bob = invite(&world, 3);
    let out = world.deliver(&press_reply(BOB, &bob, "decline\ngames", "d1@x"));
    let told = flat(&to(&out, BOB));
    assert!(told.contains("You declined the game"), "{told}");
    assert!(!told.contains("waiting for Bob"), "{told}");
    let out = world.deliver(&press_reply(BOB, &bob, "move c", "d2@x"));
    let told = flat(&out[0]);
    assert!(told.contains("This game will not be played"), "{told}");
    assert!(!told.contains("To move, reply"), "{told}");
}

#[test]
fn a_thousand_forged_challenges_send_the_victim_at_most_three_mails() {
    let world = World::new("forged-challenges");
    let victim = "victim@elsewhere.example";
    let mut to_victim = 0;
    let mut to_senders = std::collections::HashMap::<String, usize>::new();
    for n in 0..1000 {
        // Half from one forged address, half from a new one each time.
        let from = if n % 2 == 0 {
            "forged@elsewhere.example".to_string()
        } else {
            format!("f{n}@elsewhere.example")
        };
        for out in world.deliver(&format!(
            "From: {from}\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <x{n}@elsewhere.example>\n\nnew super-wari with {victim}\n"
        )) {
            if out.to.address == victim {
                to_victim += 1;
            } else {
                *to_senders.entry(out.to.address).or_default() += 1;
            }
        }
    }
    assert!(to_victim <= 3, "{to_victim} mails to the victim");
    assert_eq!(to_victim, 1, "one invitation, open until answered");
    assert!(to_senders.values().all(|&n| n <= 3), "{to_senders:?}");
    // Nobody who never accepted is ever reminded or forfeited.
    let far = mancala::store::now() + 365 * 86_400;
    let Reminders { done, problems, .. } = world
        .referee
        .remind(far, 7 * 86_400, 21 * 86_400, &world.postman)
        .unwrap();
    assert!(
        done.is_empty() && problems.is_empty(),
        "{done:?} {problems:?}"
    );
    assert!(world.postman.take().is_empty());
}

#[test]
fn a_stranger_gets_at_most_three_answers_a_day_and_a_player_gets_their_boards() {
    let world = World::new("strangers");
    let mut answers = 0;
    for n in 0..20 {
        answers += world
            .deliver(&format!(
                "From: someone@elsewhere.example\nMessage-ID: <s{n}@x>\n\nmove c\n"
            ))
            .len();
    }
    assert_eq!(answers, 3);
    let (alice, _) = world.game_on();
    // A keyless mail from Alice's address (perhaps forged) is answered at
    // her address, with her board and key: a forger learns nothing.
    let out = world.deliver(&format!(
        "From: A <ALICE@Players.Example>\nTo: {REFEREE}\nMessage-ID: <nokey@x>\n\nmove c\n"
    ));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to.address, ALICE);
    assert!(out[0].body.contains(&key_of(&alice)), "{}", out[0].body);
    assert!(
        out[0].body.contains("+----+"),
        "and the board:\n{}",
        out[0].body
    );
    assert!(world.the_game().turns.is_empty(), "no key, no move");
}

#[test]
fn every_spelling_of_one_mailbox_shares_its_limits() {
    let world = World::new("sub-addresses");
    let mut to_bob = 0;
    for n in 0..6 {
        let out = world.deliver(&format!(
            "From: x{n}@evil.example\nMessage-ID: <sa{n}@x>\n\nnew super-wari with Bob+{n}@Players.example\n"
        ));
        to_bob += out
            .iter()
            .filter(|o| o.to.address.to_ascii_lowercase().starts_with("bob"))
            .count();
    }
    assert_eq!(to_bob, 1, "one open invitation for bob@, however spelt");
    let mut answers = 0;
    for n in 0..10 {
        answers += world
            .deliver(&format!(
                "From: victim+{n}@elsewhere.example\nMessage-ID: <v{n}@x>\n\nhello\n"
            ))
            .len();
    }
    assert_eq!(answers, 3);
}

/// `mancala mail --from referee` on the world's store, as the MTA runs it:
/// the replies as each recipient's mail program reads them.
fn through_binary(world: &World, referee: &str, raw: &str) -> Vec<common::Written> {
    let out = tempfile::tempdir_in(&*world.dir).unwrap();
    let send = format!("dir:{}", out.path().display());
    let args = [
        "mail",
        "--from",
        referee,
        "--store",
        &world.store,
        "--send",
        &send,
    ];
    let output = run(&args, raw.as_bytes());
    assert!(output.status.success(), "{}", common::stderr(&output));
    std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| common::read_written(&e.unwrap().path()))
        .collect()
}

#[test]
fn a_players_sub_address_without_a_key_is_answered_as_the_player() {
    let world = World::new("sub-address-keyless");
    let (_, bob) = world.game_on();
    let out = through_binary(
        &world,
        REFEREE,
        &format!("From: Bob <Bob+x@players.example>\nTo: {REFEREE}\nMessage-ID: <bx@x>\n\nboard\n"),
    );
    assert_eq!(out.len(), 1, "{out:#?}");
    assert_eq!(out[0].to, BOB, "at the address his seat has");
    assert!(out[0].body.contains(&key_of(&bob)), "{}", out[0].body);
}

#[test]
fn a_game_whose_two_seats_are_one_mailbox_is_refused() {
    let world = World::new("one-mailbox-two-seats");
    let out = through_binary(
        &world,
        REFEREE,
        &format!("From: Sam <sam@players.example>\nTo: {REFEREE}\nMessage-ID: <sam2@x>\n\nnew wari with Sam <SAM+2@players.example>\n"),
    );
    assert_eq!(out.len(), 1, "to Sam alone: {out:#?}");
    assert_eq!(out[0].to, "sam@players.example");
    let said = squeezed(&out[0].body);
    assert!(said.contains("you cannot play against yourself"), "{said}");
    assert!(world.games().is_empty());
}

#[test]
fn role_and_local_only_addresses_are_not_invited_unless_the_referee_is_local_too() {
    let world = World::new("no-person");
    for (n, invitee) in [
        "root@localhost",
        "postmaster@localhost",
        "Postmaster@players.example",
        "noreply+games@shop.example",
        "mailer-daemon@players.example",
        "bob@localhost",
        "carol@mail.localhost",
    ]
    .iter()
    .enumerate()
    {
        let from = format!("s{n}@players.example");
        let out = through_binary(
            &world,
            REFEREE,
            &format!(
                "From: {from}\nTo: {REFEREE}\nMessage-ID: <np{n}@x>\n\nnew wari with {invitee}\n"
            ),
        );
        let to: Vec<&str> = out.iter().map(|o| o.to.as_str()).collect();
        assert_eq!(to, [from.as_str()], "{invitee}: the inviter alone is told");
        let said = squeezed(&out[0].body);
        assert!(
            said.contains("the referee sends it no invitations"),
            "{said}"
        );
    }
    assert!(world.games().is_empty());
    // A referee of one machine (its own address local) plays its users,
    // never its roles.
    let local = "referee@localhost";
    let out = through_binary(
        &world,
        local,
        "From: alice@localhost\nTo: referee@localhost\nMessage-ID: <nl1@x>\n\nnew wari with bob@localhost\n",
    );
    assert!(out.iter().any(|o| o.to == "bob@localhost"), "{out:#?}");
    let out = through_binary(
        &world,
        local,
        "From: carol@localhost\nTo: referee@localhost\nMessage-ID: <nl2@x>\n\nnew wari with root@localhost\n",
    );
    assert_eq!(out.len(), 1, "{out:#?}");
    assert!(squeezed(&out[0].body).contains("a role's mailbox"));
    assert_eq!(world.games().len(), 1);
}

#[test]
fn an_invitation_carries_no_inviters_words_in_its_headers_and_prints_names_as_names() {
    let world = World::new("phishing");
    let out = through_binary(
        &world,
        REFEREE,
        &format!(
            "From: \"Your bank: https://bank.example/login\" <mallory@evil.example>\n\
             To: {REFEREE}\nSubject: Your account is locked: log in at bank.example\n\
             Message-ID: <account-locked@bank.example>\n\n\
             new wari with Your bank account is locked www.bank.example <victim@players.example>\n"
        ),
    );
    let invitation = out
        .iter()
        .find(|o| o.to == "victim@players.example")
        .unwrap_or_else(|| panic!("no invitation: {out:#?}"));
    for bait in ["bank", "locked", "login"] {
        assert!(
            !invitation.headers.to_lowercase().contains(bait),
            "{bait} in a header:\n{}",
            invitation.headers
        );
    }
    assert!(
        invitation
            .subject
            .contains("mallory@evil.example invites you to a game of Wari"),
        "{}",
        invitation.subject
    );
    // The names on the board are names: no link, no address in them.
    for link in ["https:", "bank.example", "www."] {
        assert!(
            !invitation.body.contains(link),
            "{link}:\n{}",
            invitation.body
        );
    }
    let sheet = Sheet::parse(&invitation.body).unwrap();
    assert_eq!(sheet.name(Side::North), "Your bank account is locked");
    assert_eq!(sheet.name(Side::South), "Your bank:");
}

#[test]
fn a_game_against_the_computer_makes_nobody_a_player_here() {
    let world = World::new("computer-forged");
    let mut answers = world
        .deliver("From: victim@elsewhere.example\nMessage-ID: <cf@x>\n\nnew wari with computer\n")
        .len();
    let mut last = String::new();
    for n in 0..12 {
        let out = world.deliver(&format!(
            "From: victim@elsewhere.example\nMessage-ID: <cf{n}@x>\n\nhello\n"
        ));
        answers += out.len();
        // Only the last answer says it is the last, and when mail is answered again.
        for mail in out {
            assert_eq!(
                answers == 3,
                mail.body.contains("This is the last of the 3 answers")
            );
            last = squeezed(&mail.body);
        }
    }
    assert_eq!(answers, 3, "a stranger's three a day");
    assert!(last.contains("mail sent before 20"), "{last}");
    // A newcomer's `new` refused is counted and warned the same way.
    let world = World::new("newcomer-typos");
    let said: Vec<bool> = (0..4)
        .map(|n| {
            let out = world.deliver(&format!(
                "From: newcomer@elsewhere.example\nMessage-ID: <nt{n}@x>\n\nnew wari with newcomer@elsewhere.example\n"
            ));
            out.iter().any(|o| o.body.contains("This is the last of the 3 answers"))
        })
        .collect();
    assert_eq!(said, [false, false, true, false]);
}

/// A garbled first move accepts nothing. The invitee who moves first is
/// told what is wrong with it; one who moves second, how to accept.
#[test]
fn a_refused_first_move_does_not_accept_an_invitation() {
    let world = World::new("typo");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <ty@x>\n\nnew super-wari with Bob <{BOB}> as north\n"
    ));
    let bob = to(&out, BOB);
    let out = world.deliver(&press_reply(BOB, &bob, "move z", "ty1@x"));
    assert_eq!(out.len(), 1, "a refusal to Bob alone");
    assert!(out[0].body.contains("'z' is not a pit"), "{}", out[0].body);
    assert!(!world.the_game().is_playing(), "still an invitation");
    // Nor a garbled move when it is not even his turn.
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <ty0@x>\n\nnew wari with Carol <carol@players.example>\n"
    ));
    let carol = to(&out, "carol@players.example");
    let out = world.deliver(&press_reply(
        "carol@players.example",
        &carol,
        "move zz",
        "ty3@x",
    ));
    assert!(
        out[0].body.contains("reply with a line 'accept'"),
        "{}",
        out[0].body
    );
    assert!(
        world.games().iter().all(|g| !g.is_playing()),
        "a garbled move accepts nothing"
    );
    let out = world.deliver(&press_reply(BOB, &bob, "decline", "ty2@x"));
    assert!(to(&out, ALICE).body.contains("declined"), "{}", out[0].body);
}

#[test]
fn a_forged_inviter_gets_at_most_three_mails_a_day_whatever_the_invitees_do() {
    let world = World::new("forged-inviter");
    let victim = "victim@players.example";
    let mut to_victim = 0;
    for n in 0..5 {
        let out = world.deliver(&format!(
            "From: Victim <{victim}>\nMessage-ID: <fi{n}@x>\n\nnew super-wari with m{n}@evil.example as north\n"
        ));
        to_victim += out.iter().filter(|o| o.to.address == victim).count();
        let Some(invitation) = out.iter().find(|o| o.to.address != victim) else {
            continue;
        };
        let mallory = invitation.to.address.clone();
        let mut last = invitation.clone();
        for (k, words) in ["accept", "move c", "resign"].iter().enumerate() {
            let out = world.deliver(&press_reply(
                &mallory,
                &last,
                words,
                &format!("fi{n}-{k}@x"),
            ));
            to_victim += out.iter().filter(|o| o.to.address == victim).count();
            if let Some(next) = out.iter().find(|o| o.to.address == mallory) {
                last = next.clone();
            }
        }
    }
    assert!(
        to_victim <= 3,
        "{to_victim} mails to an address that never wrote"
    );
    let far = mancala::store::now() + 30 * 86_400;
    world
        .referee
        .remind(far, 86_400, 2 * 86_400, &world.postman)
        .unwrap();
    assert!(
        world.postman.take().iter().all(|o| o.to.address != victim),
        "remind never writes to them"
    );
}

#[test]
fn international_spellings_of_one_domain_are_one_mailbox() {
    let world = World::new("idn");
    let mut invitations = 0;
    for (n, bob) in [
        "bob@bücher.example",
        "bob@xn--bcher-kva.example",
        "bob@BÜCHER.example",
    ]
    .iter()
    .enumerate()
    {
        let out = world.deliver(&format!(
            "From: u{n}@players.example\nMessage-ID: <idn{n}@x>\n\nnew wari with {bob}\n"
        ));
        invitations += out
            .iter()
            .filter(|o| o.to.address.starts_with("bob@"))
            .count();
    }
    assert_eq!(invitations, 1);
}

#[test]
fn a_damaged_game_file_holds_invitations_until_mended() {
    let world = World::new("damaged-invite");
    world.game_on();
    let id = world.the_game().id;
    if !world.tamper(&format!(
        "UPDATE games SET standing = '{{ damaged' WHERE id = '{id}'"
    )) {
        return;
    }
    let err = world
        .try_deliver(&format!(
            "From: {ALICE}\nMessage-ID: <dm@x>\n\nnew wari with {BOB}\n"
        ))
        .unwrap_err();
    assert!(err.needs_operator(), "{err}");
    assert!(world.postman.take().is_empty());
}

#[test]
fn a_move_and_a_new_game_in_one_mail_are_refused_not_half_done() {
    let world = World::new("new-and-move");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "move c\nnew wari with computer",
        "nm@x",
    ));
    assert_eq!(out.len(), 1);
    assert!(
        out[0].body.contains("a mail does one thing"),
        "{}",
        out[0].body
    );
    assert_eq!(world.games().len(), 1);
    assert!(world.the_game().turns.is_empty());
}

/// The inside of the referee's HTML part: what a client quotes.
/// A hosted reply (the hosted referee's answer to an invitation to play
/// the computer, board and sheet in its HTML part) as lettre sends it: its
/// HTML part, whose lines the referee writes short, goes 8bit; with a long
/// line of the body added, in the encoding lettre chooses. Either way it
/// reads back as the HTML drawn.
#[test]
fn a_hosted_replys_html_reads_back_as_drawn() {
    use mail_parser::{Encoding, MessageParser};
    use std::time::{Duration, UNIX_EPOCH};

    let world = World::new("html-reads-back");
    let mut reply = world
        .deliver(
            "From: Alice <alice@players.example>\nMessage-ID: <h1@x>\n\nnew wari with computer\n",
        )
        .pop()
        .expect("a reply");
    let drawn = reply.html.clone().expect("an HTML part");
    assert!(drawn.contains("data-pit=\"south-a\""), "{drawn}");
    for line in drawn.lines() {
        assert!(line.len() < 73, "{line:?}");
    }
    let long = format!("<p>{}</p>\n", "a comment that runs on ".repeat(8));
    for (html, encoding) in [
        (drawn.clone(), Encoding::None),
        (
            drawn.replace("</body>", &format!("{long}</body>")),
            Encoding::QuotedPrintable,
        ),
    ] {
        reply.html = Some(html.clone());
        let at = UNIX_EPOCH + Duration::from_secs(1_796_029_500);
        let built = mancala::mail::transport::build(&world.referee.identity, &reply, at);
        let formatted = built.unwrap().formatted();
        let message = MessageParser::default().parse(&formatted).unwrap();
        let part = message.html_part(0).unwrap();
        assert_eq!(part.encoding, encoding);
        let eight_bit = String::from_utf8_lossy(&formatted)
            .contains("Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit");
        assert_eq!(eight_bit, encoding == Encoding::None);
        let read = part.text_contents().unwrap().replace("\r\n", "\n");
        assert_eq!(read, html);
    }
}

fn html_inside(received: &Outgoing) -> String {
    let html = received.html.as_deref().expect("an HTML part");
    let start = html
        .find("<body")
        .and_then(|b| html[b..].find('>').map(|e| b + e + 1))
        .unwrap();
    let end = html.rfind("</body>").unwrap();
    html[start..end].to_string()
}

/// An HTML-only reply as Gmail's web view sends it: the answer, then the
/// original in a gmail_quote blockquote.
fn gmail_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    format!(
        "From: {from}\nTo: {0}\nSubject: Re: {1}\nMessage-ID: <{message_id}>\nMIME-Version: 1.0\n\
         Content-Type: text/html; charset=UTF-8\n\n<div dir=\"ltr\">{words}</div><br>\
         <div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">On Mon, Nov 30, 2026 at 9:05\u{202f}AM \
         Mancala referee &lt;{0}&gt;<br>wrote:<br></div><blockquote class=\"gmail_quote\" \
         style=\"margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex\">{2}</blockquote></div>\n",
        received.reply_to.as_deref().unwrap(),
        received.subject,
        html_inside(received),
    )
}

/// An HTML-only reply as Outlook sends it: the answer, a rule, the
/// original's header block, the original unquoted.
fn outlook_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    format!(
        "From: {from}\nTo: {0}\nSubject: RE: {1}\nMessage-ID: <{message_id}>\nMIME-Version: 1.0\n\
         Content-Type: text/html; charset=UTF-8\n\n<html><body><div>{words}</div><div id=\"appendonsend\"></div>\
         <hr style=\"display:inline-block;width:98%\"><div id=\"divRplyFwdMsg\" dir=\"ltr\">\
         <font face=\"Calibri\" style=\"font-size:11pt\"><b>From:</b> Mancala referee &lt;{0}&gt;<br>\
         <b>Sent:</b> Monday, November 30, 2026 9:05 AM<br><b>To:</b> {from}<br><b>Subject:</b> {1}</font>\
         <div>&nbsp;</div></div>{2}</body></html>\n",
        received.reply_to.as_deref().unwrap(),
        received.subject,
        html_inside(received),
    )
}

#[test]
fn players_who_answer_from_the_html_side_are_read_as_well() {
    let world = World::new("html-replies");
    let (alice, _) = world.game_on();
    assert!(alice
        .html
        .as_deref()
        .is_some_and(|h| h.contains("data-pit=\"south-c\"")));
    let out = world.deliver(&gmail_reply(ALICE, &alice, "move c", "g1@x"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    assert!(
        !out[0].body.contains("no move was played"),
        "{}",
        out[0].body
    );
    let bob = to(&out, BOB);
    let out = world.deliver(&outlook_reply(BOB, &bob, "move a", "o1@x"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    assert!(
        !out[0].body.contains("no move was played"),
        "{}",
        out[0].body
    );
    assert_eq!(world.the_game().turns.len(), 2);
    // An old board answered from the HTML side moves nothing.
    let out = world.deliver(&gmail_reply(ALICE, &alice, "move d", "g2@x"));
    assert!(
        out[0].body.contains("out of date") || out[0].body.contains("no move was played"),
        "{}",
        out[0].body
    );
    assert_eq!(world.the_game().turns.len(), 2);
}

#[test]
fn each_mail_says_what_happened_and_what_is_awaited_of_its_reader() {
    let world = World::new("headlines");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <hl@x>\n\nnew waurie with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "hl1@x"));
    let id = world.the_game().id;
    let alice = to(&out, ALICE);
    assert_eq!(
        alice.subject,
        format!("Waurie {id}: your move — Bob accepted: the game is on")
    );
    let out = world.deliver(&press_reply(ALICE, &alice, "move c-f", "hl2@x"));
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert_eq!(
        bob.subject,
        format!("Waurie {id}: your move — Alice played c, a free turn, then f")
    );
    assert_eq!(
        alice.subject,
        format!("Waurie {id}: Bob to move — you played c, a free turn, then f")
    );
    assert!(
        bob.body.starts_with(&format!(
            "Waurie {id}: your move — Alice played c, a free turn, then f."
        )),
        "{}",
        bob.body
    );
    assert!(
        bob.body.contains("To move, reply"),
        "the one to move is told how"
    );
    assert!(bob
        .body
        .contains("Bob's endpit is the left end of the board, Alice's the right."));
    assert!(
        !alice.body.contains("To move, reply") && !alice.body.contains("Legal moves"),
        "{}",
        alice.body
    );
    // An illegal move, as the player thinks of it.
    let refusal = world
        .deliver(&press_reply(BOB, &bob, "move 9", "hl3@x"))
        .remove(0);
    assert!(
        refusal.body.contains("no pit") || refusal.body.contains("not a"),
        "{}",
        refusal.body
    );
    // The end: the result first, and nothing more about keys and moves.
    let out = world.deliver(&press_reply(BOB, &bob, "resign", "hl4@x"));
    for mail in &out {
        assert_eq!(
            mail.subject,
            format!("Waurie {id}: game over: Alice wins (Bob resigned)")
        );
        assert!(
            !mail.body.contains("Your key for game") && !mail.body.contains("To move"),
            "{}",
            mail.body
        );
        // Each reads the news in their own words: Bob is "you" to Bob.
        let news = match mail.to.address.as_str() {
            BOB => "You resigned.",
            _ => "Bob resigned.",
        };
        assert!(mail.body.contains(news), "{}", mail.body);
    }
}

#[test]
fn a_whole_game_where_each_player_only_presses_reply() {
    let world = World::new("whole");
    let (mut alice, mut bob) = world.game_on();
    let mut rng = SplitMix64::new(3);
    for n in 0..1000 {
        let sheet = Sheet::parse(&alice.body).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        let (from, received) = if side == Side::South {
            (ALICE, &alice)
        } else {
            (BOB, &bob)
        };
        let out = world.deliver(&press_reply(
            from,
            received,
            &format!("move {pit}"),
            &format!("m{n}@players.example"),
        ));
        assert_eq!(out.len(), 2, "{}", out[0].body);
        alice = to(&out, ALICE);
        bob = to(&out, BOB);
    }
    let record = world.the_game();
    assert!(record.game().unwrap().is_over(), "the game ends");
    assert!(alice.body.contains("Result: "));
    assert!(world.owed().is_empty());
}

#[test]
fn a_keyed_mail_with_a_forged_from_is_answered_to_the_keys_owner() {
    let world = World::new("forged-from");
    let (alice, _) = world.game_on();
    let forged = press_reply("mallory@elsewhere.example", &alice, "board", "mal@x");
    let out = world.deliver(&forged);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to.address, ALICE, "never to the forged From");
    assert!(
        out[0].body.contains("came from mallory@elsewhere.example"),
        "{}",
        out[0].body
    );
    // With his own key, Bob cannot move for Alice.
    let (_, bob) = (
        alice,
        world.deliver(&format!(
            "From: {BOB}\nTo: {REFEREE}\nMessage-ID: <b@x>\n\ngames\n"
        )),
    );
    assert!(bob[0].body.contains("your key:"), "{}", bob[0].body);
}

#[test]
fn help_games_and_refusals_carry_the_key_so_replying_to_them_works() {
    let world = World::new("dead-ends");
    let (alice, _) = world.game_on();
    let help = world
        .deliver(&press_reply(ALICE, &alice, "help", "h1@x"))
        .remove(0);
    assert_eq!(help.reply_to, alice.reply_to);
    assert!(help.body.contains(&key_of(&alice)));
    let refusal = world
        .deliver(&press_reply(ALICE, &help, "move z", "h2@x"))
        .remove(0);
    assert!(
        refusal.body.contains("no move was played"),
        "{}",
        refusal.body
    );
    assert_eq!(refusal.reply_to, alice.reply_to);
    let games = world
        .deliver(&press_reply(ALICE, &refusal, "games", "h3@x"))
        .remove(0);
    assert_eq!(games.reply_to, alice.reply_to);
    // Replying to the latest of them, whatever it was, plays.
    let out = world.deliver(&press_reply(ALICE, &games, "move c", "h4@x"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    assert_eq!(world.the_game().turns.len(), 1);
}

/// A `games` answer lists a key for each game: a move in reply to it
/// plays in the one game listed, and in none of several (which is not the
/// referee's to pick); another `games` is answered.
#[test]
fn a_move_in_reply_to_a_games_answer_of_several_games_plays_in_none() {
    let world = World::new("games-answer");
    world.game_on();
    let keyless = |words: &str, id: &str| {
        world.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <{id}@x>\n\n{words}\n"
        ))
    };
    let games = keyless("games", "g1").remove(0);
    let out = world.deliver(&press_reply(ALICE, &games, "move c", "g2@x"));
    assert_eq!(out.len(), 2, "one game listed: played; {}", out[0].body);

    let out = keyless("new kalah with Bob <bob@players.example>", "g3");
    world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "g4@x"));
    let games = keyless("games", "g5").remove(0);
    assert_eq!(games.body.matches("your key:").count(), 2, "{}", games.body);
    let out = world.deliver(&press_reply(ALICE, &games, "move d", "g6@x"));
    assert_eq!(out.len(), 1, "{out:#?}");
    let words = squeezed(&out[0].body);
    assert!(
        words.contains("carries the keys of several games") && words.contains("moved nothing"),
        "{words}"
    );
    let turns: Vec<usize> = world.games().iter().map(|g| g.turns.len()).collect();
    assert_eq!(
        turns.iter().sum::<usize>(),
        1,
        "nothing more played: {turns:?}"
    );
    let out = world.deliver(&press_reply(ALICE, &games, "games", "g7@x"));
    assert!(out[0].body.contains("Your games here"), "{}", out[0].body);
    // `new` is no game's: it invites.
    let out = world.deliver(&press_reply(
        ALICE,
        &games,
        "new wari with Carol <carol@players.example>",
        "g8@x",
    ));
    assert!(
        out.iter().any(|o| o.to.address == "carol@players.example"),
        "{out:#?}"
    );
}

#[test]
fn help_is_short_and_help_rules_gives_the_whole_text() {
    let world = World::new("help");
    let (alice, _) = world.game_on();
    let help = world
        .deliver(&press_reply(ALICE, &alice, "help", "hp1@x"))
        .remove(0);
    let commands_and_rules = help.body.split("Your key for game").next().unwrap();
    assert!(commands_and_rules.lines().count() <= 40, "{}", help.body);
    assert!(help.body.contains("Super-Wari in short"), "{}", help.body);
    assert!(help.body.lines().all(|l| l.chars().count() < 78));
    let rules = world
        .deliver(&press_reply(ALICE, &help, "help rules waurie", "hp2@x"))
        .remove(0);
    assert!(rules.body.contains(mancala::guide::ruleset_text(
        mancala::engine::Ruleset::Waurie
    )));
    let stranger = world
        .deliver("From: someone@elsewhere.example\nMessage-ID: <hp3@x>\n\nhelp rules mankala\n");
    assert!(
        stranger[0].body.contains("Critchlow") || stranger[0].body.contains("home"),
        "{}",
        stranger[0].body
    );
}

#[test]
fn a_pasted_copy_of_the_referees_mail_relays_no_key_and_no_command() {
    let world = World::new("pasted");
    let (alice, _) = world.game_on();
    // Alice's comment wraps so that lines read "resign" and a new challenge.
    let long = format!("{}resign", "word ".repeat(13));
    let comment = format!("move c\n{long}\nthen new wari with carol@players.example soon\n");
    let out = world.deliver(&press_reply(ALICE, &alice, &comment, "p1@x"));
    let bob = to(&out, BOB);
    assert!(
        bob.body.contains("\n> "),
        "the comment is relayed as a quote:\n{}",
        bob.body
    );
    // Bob answers the broadcast's way: his move, then the mail pasted unquoted.
    let pasted = format!(
        "From: {BOB}\nTo: {}\nSubject: Re: x\nMessage-ID: <p2@x>\n\nmove a\nYour turn!\n\n{}",
        bob.reply_to.as_deref().unwrap(),
        bob.body
    );
    let out = world.deliver(&pasted);
    let alice = to(&out, ALICE);
    let record = world.the_game();
    assert_eq!(record.turns.len(), 2, "Bob's move is played");
    assert!(
        record.conceded.is_none(),
        "no resignation read from the relay"
    );
    assert_eq!(world.games().len(), 1, "no game started from the relay");
    assert!(alice.body.contains("> Your turn!"), "{}", alice.body);
    assert!(
        !alice.body.contains(&key_of(&bob)),
        "Bob's key is not relayed:\n{}",
        alice.body
    );
    assert_eq!(alice.body.matches("referee+").count(), 0, "{}", alice.body);
}

#[test]
fn the_same_mail_twice_moves_once_and_sends_once() {
    let world = World::new("twice");
    let (alice, _) = world.game_on();
    let mail = press_reply(ALICE, &alice, "move c", "same@players.example");
    assert_eq!(world.deliver(&mail).len(), 2);
    assert!(
        world.deliver(&mail).is_empty(),
        "handled before: nothing again"
    );
    assert_eq!(world.the_game().turns.len(), 1);
}

#[test]
fn a_451_for_one_player_resends_only_theirs_with_the_same_message_id() {
    let world = World::new("451");
    let (alice, _) = world.game_on();
    let mail = press_reply(ALICE, &alice, "move c", "t1@players.example");
    world.postman.fail(BOB, Failure::Transient);
    assert!(matches!(
        world.try_deliver(&mail),
        Err(DeliveryError::Send(_))
    ));
    let first = world.postman.take();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].to.address, ALICE);
    let pending = world.owed();
    assert_eq!(pending.len(), 1);
    world.postman.heal();
    let again = world.deliver(&mail);
    assert_eq!(again.len(), 1, "only Bob's");
    assert_eq!(again[0].to.address, BOB);
    assert_eq!(again[0].message_id, pending[0].message_id);
    assert_eq!(world.the_game().turns.len(), 1);
    assert!(world.deliver(&mail).is_empty());
}

#[test]
fn a_550_for_one_player_is_logged_and_the_move_stands() {
    let world = World::new("550");
    let (alice, _) = world.game_on();
    world.postman.fail(BOB, Failure::Permanent);
    let report = world
        .try_deliver(&press_reply(ALICE, &alice, "move c", "p@x"))
        .unwrap();
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].0, BOB);
    assert_eq!(world.the_game().turns.len(), 1);
    assert!(world.owed().is_empty());
}

#[test]
fn a_mail_without_message_id_starts_one_game_however_often_it_comes() {
    let world = World::new("no-id");
    let mail = format!("From: {ALICE}\nTo: {REFEREE}\nSubject: hi\n\nnew wari with {BOB}\n");
    world.postman.fail(ALICE, Failure::Transient);
    assert!(world.try_deliver(&mail).is_err());
    world.postman.heal();
    let mut sent = world.postman.take();
    sent.extend(world.deliver(&mail));
    sent.extend(world.deliver(&mail));
    assert_eq!(world.games().len(), 1);
    assert_eq!(sent.iter().filter(|o| o.to.address == BOB).count(), 1);
    assert_eq!(sent.iter().filter(|o| o.to.address == ALICE).count(), 1);
}

#[test]
fn a_900_kb_message_id_leaves_the_store_and_the_headers_small() {
    let world = World::new("huge-id");
    let (alice, _) = world.game_on();
    let huge = format!("{}@players.example", "x".repeat(900_000));
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", &huge));
    assert_eq!(out.len(), 2);
    assert!(out
        .iter()
        .all(|o| o.in_reply_to.is_none() && o.references.iter().all(|r| r.len() < 300)));
    // Nothing of it is kept: the store's rows, and (SQLite) its files.
    let rows = world.store().dump().unwrap().concat();
    assert!(
        !rows.contains(&"x".repeat(300)),
        "a row holds the Message-ID"
    );
    for entry in std::fs::read_dir(&world.dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(!bytes.windows(300).any(|w| w.iter().all(|&b| b == b'x')));
    }
    assert!(
        world
            .deliver(&press_reply(ALICE, &alice, "move c", &huge))
            .is_empty(),
        "still known"
    );
}

#[test]
fn an_old_board_gets_the_current_one_not_a_wrong_move() {
    let world = World::new("stale");
    let (alice, _) = world.game_on();
    world.deliver(&press_reply(ALICE, &alice, "move c", "s1@x"));
    let out = world.deliver(&press_reply(ALICE, &alice, "move d", "s2@x"));
    assert!(
        out[0].body.contains("out of date") || out[0].body.contains("Bob's move"),
        "{}",
        out[0].body
    );
    assert_eq!(world.the_game().turns.len(), 1);
}

#[test]
fn the_broadcast_with_a_first_move_invites_the_cc_and_their_first_move_accepts() {
    let world = World::new("broadcast");
    let broadcast = std::fs::read_to_string(common::repo("tests/data/seed-000.txt")).unwrap();
    let mail = format!("From: Yourname <{ALICE}>\nTo: {REFEREE}\nCc: Bill <{BOB}>\nSubject: Super-Wari\nMessage-ID: <b0@players.example>\n\nMove: c\n\n{broadcast}");
    let out = world.deliver(&mail);
    let bill = to(&out, BOB);
    assert!(
        bill.body.contains("invites you") && bill.body.contains("Your first move accepts"),
        "{}",
        bill.body
    );
    let record = world.the_game();
    assert_eq!(record.turns.len(), 1);
    assert!(!record.is_playing());
    let out = world.deliver(&press_reply(BOB, &bill, "move e", "b1@players.example"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    let record = world.the_game();
    assert!(record.is_playing());
    assert_eq!(record.turns.len(), 2);
    // Without an opponent, there is nobody to invite: the sender is told.
    let alone = World::new("broadcast-alone");
    let out = alone.deliver(&mail.replace(&format!("Cc: Bill <{BOB}>\n"), ""));
    assert!(out[0].body.contains("no opponent"), "{}", out[0].body);
}

/// Bill presses reply-all on Yourname's mail (the broadcast with `Move: c`),
/// not on the referee's invitation: his mail quotes the start board with his
/// move written. It is Yourname's invitation he answers, so no second game
/// starts; he is pointed to it, and replying to that answer plays his move.
#[test]
fn a_reply_to_the_inviters_own_mail_starts_no_second_game_and_points_to_the_invitation() {
    let world = World::new("reply-all-to-inviter");
    let broadcast = std::fs::read_to_string(common::repo("tests/data/seed-000.txt")).unwrap();
    let yours = format!("Move: c\n\n{broadcast}");
    world.deliver(&format!(
        "From: Yourname <{ALICE}>\nTo: {REFEREE}\nCc: Bill <{BOB}>\nSubject: Super-Wari\n\
         Message-ID: <b0@players.example>\n\n{yours}"
    ));
    let quoted: String = yours.lines().map(|l| format!("> {l}\n")).collect();
    let out = world.deliver(&format!(
        "From: Bill <{BOB}>\nTo: {REFEREE}, Yourname <{ALICE}>\nSubject: Re: Super-Wari\n\
         Message-ID: <b1@players.example>\nIn-Reply-To: <b0@players.example>\n\n\
         move e\n\nOn Monday, Yourname wrote:\n{quoted}"
    ));
    assert_eq!(world.games().len(), 1, "no second game");
    assert_eq!(out.len(), 1, "{out:#?}");
    let answer = to(&out, BOB);
    let id = world.the_game().id;
    assert!(
        answer.body.contains("Yourname has invited you already")
            && answer.body.contains(id.as_str())
            && answer.body.contains("reply to this mail"),
        "{}",
        answer.body
    );
    let out = world.deliver(&press_reply(BOB, &answer, "move e", "b2@players.example"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    let record = world.the_game();
    assert!(record.is_playing());
    assert_eq!(record.turns.len(), 2);
    // Reply-all to the inviter's first mail again, the game under way.
    let out = world.deliver(&format!(
        "From: Bill <{BOB}>\nTo: {REFEREE}, Yourname <{ALICE}>\nSubject: Re: Super-Wari\n\
         Message-ID: <b3@players.example>\nIn-Reply-To: <b0@players.example>\n\n\
         move f\n\nOn Monday, Yourname wrote:\n{quoted}"
    ));
    assert_eq!(world.games().len(), 1, "no second game");
    let words = squeezed(&to(&out, BOB).body);
    assert!(
        words.contains(&format!(
            "belongs to your game of Super-Wari with Yourname ({}), which is under way",
            record.id
        )),
        "{words}"
    );
    assert_eq!(world.the_game().turns.len(), 2, "nothing played");
    // Replying to that answer reaches the game.
    let out = world.deliver(&press_reply(
        BOB,
        &to(&out, BOB),
        "games",
        "b4@players.example",
    ));
    assert!(
        to(&out, BOB).subject.contains(record.id.as_str()),
        "{}",
        to(&out, BOB).subject
    );

    // Invitations that cross, by command: the second is pointed to the first.
    let world = World::new("crossing-invitations");
    world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <x1@x>\n\nnew super-wari with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&format!(
        "From: Bob <{BOB}>\nMessage-ID: <x2@x>\n\nnew kalah with Alice <{ALICE}>\n"
    ));
    assert_eq!(world.games().len(), 1, "no second game");
    let words = squeezed(&out[0].body);
    assert!(
        words.contains("Alice has invited you already, to a game of Super-Wari"),
        "{words}"
    );
    world.deliver(&press_reply(BOB, &out[0], "accept", "x3@x"));
    assert!(world.the_game().is_playing());
}

#[test]
fn a_game_against_the_computer_starts_at_once() {
    let world = World::new("computer");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <pc@x>\n\nnew mankala with computer as north\n"
    ));
    assert_eq!(out.len(), 1, "only Alice gets mail");
    let mut mail = out.into_iter().next().unwrap();
    let words = squeezed(&mail.body);
    assert!(words.contains("Computer (South) played"), "{}", mail.body);
    let mut rng = SplitMix64::new(5);
    let mut free_turns = 0;
    for n in 0..200 {
        let sheet = Sheet::parse(&mail.body).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        assert_eq!(
            side,
            Side::North,
            "the computer never leaves its move to Alice"
        );
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        mail = world
            .deliver(&press_reply(
                ALICE,
                &mail,
                &format!("move {pit}"),
                &format!("pc{n}@x"),
            ))
            .remove(0);
        assert!(!mail.body.contains("no move was played"), "{}", mail.body);
        // The computer's free turn is told once, as the words joining its
        // sowings, not again as the first sowing's reason.
        let words = squeezed(&mail.body);
        assert!(!words.contains("(a free turn), a free turn"), "{words}");
        free_turns += usize::from(
            words.contains("Computer (South) played") && words.contains(", a free turn, then "),
        );
    }
    assert!(world.the_game().game().unwrap().is_over());
    assert!(free_turns > 0, "no free turn of the computer's was told");
}

#[test]
fn reminders_and_forfeits_follow_the_clock_and_a_failed_notice_goes_next_run() {
    let world = World::new("remind");
    let (alice, _) = world.game_on();
    // Alice shows her key once (a forged inviter would never be reminded).
    world.deliver(&press_reply(ALICE, &alice, "board", "rb@x"));
    let store = world.store();
    let now = mancala::store::now();
    let mut record = world.the_game();
    record.last_activity = now - 8 * 86_400;
    store.save_game(&record).unwrap();
    world.postman.fail(ALICE, Failure::Transient);
    let Reminders { done, problems, .. } = world
        .referee
        .remind(now, 7 * 86_400, 21 * 86_400, &world.postman)
        .unwrap();
    assert!(
        matches!(&done[..], [Reminder::Nudged { player, .. }] if player == "Alice"),
        "{done:?}"
    );
    assert_eq!(problems.len(), 1, "the failed send is reported");
    world.postman.heal();
    let Reminders { done, .. } = world
        .referee
        .remind(now + 60, 7 * 86_400, 21 * 86_400, &world.postman)
        .unwrap();
    assert!(
        matches!(&done[..], [Reminder::Resent { mails: 1, .. }]),
        "{done:?}"
    );
    let sent = world.postman.take();
    assert!(sent[0].body.contains("a reminder"), "{}", sent[0].body);
    let Reminders { done, .. } = world
        .referee
        .remind(now + 120, 7 * 86_400, 21 * 86_400, &world.postman)
        .unwrap();
    assert!(done.is_empty(), "once only");
    let mut record = world.the_game();
    record.last_activity = now - 22 * 86_400;
    store.save_game(&record).unwrap();
    let Reminders { done, .. } = world
        .referee
        .remind(now, 7 * 86_400, 21 * 86_400, &world.postman)
        .unwrap();
    assert!(matches!(&done[..], [Reminder::Forfeited { player, .. }] if player == "Alice"));
    assert_eq!(world.postman.take().len(), 2);
    assert_eq!(
        world.the_game().game().unwrap().outcome().unwrap().winner,
        Some(Side::North)
    );
    let out = run(
        &["remind", "--store", world.store.as_str(), "--from", REFEREE],
        b"",
    );
    assert!(out.status.success());
}

fn mail_cli(dir: &Path, send: &str, mail: &[u8]) -> std::process::Output {
    run(
        &[
            "mail",
            "--from",
            REFEREE,
            "--store",
            dir.to_str().unwrap(),
            "--send",
            send,
        ],
        mail,
    )
}

#[test]
fn a_store_of_a_newer_schema_is_kept_and_the_mail_deferred() {
    let world = World::new("future");
    let (alice, _) = world.game_on();
    if world.store.contains("://") {
        println!("SQLite's file only: PostgreSQL's schema is the same code");
        return;
    }
    {
        let db = rusqlite::Connection::open(&world.store).unwrap();
        db.execute("UPDATE meta SET value = '2' WHERE name = 'schema'", [])
            .unwrap();
    }
    let before = std::fs::read(&world.store).unwrap();
    let out = mail_cli(
        std::path::Path::new(&world.store),
        "stdout",
        press_reply(ALICE, &alice, "move c", "f@x").as_bytes(),
    );
    assert_eq!(out.status.code(), Some(75));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("newer than this referee's"), "{err}");
    assert!(err.contains("run a newer mancala"), "{err}");
    assert_eq!(
        std::fs::read(&world.store).unwrap(),
        before,
        "never written"
    );
    for command in [&["games"][..], &["remind", "--from", REFEREE]] {
        let args = [command, &["--store", world.store.as_str()]].concat();
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(75), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("newer than this referee's"));
    }
}

#[test]
fn a_game_of_format_1_imported_goes_on_and_its_unsent_replies_go_out() {
    let mut world = World::new("format-1");
    let old = world.dir.join("old-store");
    std::fs::create_dir(&old).unwrap();
    for name in ["key", "mx2frb.json"] {
        std::fs::copy(
            common::repo(&format!("tests/data/format-1-store/{name}")),
            old.join(name),
        )
        .unwrap();
    }
    let out = run(
        &[
            "store",
            "import",
            old.to_str().unwrap(),
            "--store",
            world.store.as_str(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    // The referee starts after the import, with the old store's secret.
    world.referee = HostedReferee::new(REFEREE, world.store());
    let record = world.the_game();
    assert_eq!((record.turns.len(), world.owed().len()), (2, 2));
    // The MTA retries Bob's move: its replies go out, nothing is played again.
    let bob_move =
        std::fs::read_to_string(common::repo("tests/data/format-1-bob-move.eml")).unwrap();
    let out = world.deliver(&bob_move);
    let ids: Vec<&str> = out.iter().map(|o| o.message_id.as_str()).collect();
    assert_eq!(out.len(), 2, "{ids:?}");
    let alice = to(&out, ALICE);
    assert!(alice.body.contains("bob played a"), "{}", alice.body);
    let record = world.the_game();
    assert_eq!(record.turns.len(), 2);
    assert!(world.owed().is_empty());
    // And the game goes on, by the old keys.
    let sheet = Sheet::parse(&alice.body).unwrap();
    let pit = sheet.game.legal_moves().first().unwrap();
    let out = world.deliver(&press_reply(ALICE, &alice, &format!("move {pit}"), "v2@x"));
    assert_eq!(out.len(), 2, "{}", out[0].body);
    assert_eq!(world.the_game().turns.len(), 3);
}

#[test]
fn forty_copies_of_one_move_and_both_players_racing_apply_it_once() {
    let world = World::new("forty");
    let (alice, bob) = world.game_on();
    let out_dir = world.dir.join("out");
    let send = format!("dir:{}", out_dir.display());
    let mail = press_reply(ALICE, &alice, "move c", "burst@players.example");
    let store = world.store.as_str().to_string();
    let mut children = Vec::new();
    for n in 0..40 {
        let raw = if n % 4 == 3 {
            press_reply(BOB, &bob, "move a", &format!("race{n}@players.example"))
        } else {
            mail.clone()
        };
        children.push(spawn(
            &[
                "mail", "--from", REFEREE, "--store", &store, "--send", &send,
            ],
            raw.as_bytes(),
        ));
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
    let record = world.the_game();
    assert!(record.game().is_ok());
    let turns = record.turns.len();
    assert!((1..=2).contains(&turns), "{turns} turns");
    assert_eq!(
        record.turns[0].side,
        Side::South,
        "Alice's move is the first"
    );
    let sent: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // Each move played sent one reply to each player; refusals went to Bob alone.
    let to_alice: Vec<&String> = sent.iter().filter(|n| n.contains(".south@")).collect();
    assert_eq!(to_alice.len(), turns, "{sent:?}");
    for name in to_alice {
        assert!(
            sent.contains(&name.replace(".south@", ".north@")),
            "{sent:?}"
        );
    }
}

#[test]
fn a_referee_waits_for_another_referees_transaction_then_goes_on() {
    let world = World::new("stall");
    world.game_on();
    let location = world.store.clone();
    let (began, held) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let store = Store::open(&location).unwrap();
        store
            .transact(|| -> Result<(), mancala::store::StoreError> {
                store.list()?; // (on PostgreSQL a snapshot, nothing held)
                began.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(1500));
                Ok(())
            })
            .unwrap();
    });
    held.recv().unwrap();
    let mail = format!("From: carol@players.example\nTo: {REFEREE}\nMessage-ID: <st@x>\n\nnew wari with dave@players.example\n");
    let out = run(
        &["mail", "--from", REFEREE, "--store", world.store.as_str()],
        mail.as_bytes(),
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    holder.join().unwrap();
    assert_eq!(world.games().len(), 2);
}

#[test]
fn ten_first_deliveries_make_one_key() {
    let tmp = temp_dir("new-store");
    let dir = tmp.join("store");
    let children: Vec<_> = (0..10)
        .map(|n| {
            let mail = format!("From: p{n}@players.example\nTo: {REFEREE}\nMessage-ID: <ns{n}@x>\n\nnew wari with q{n}@players.example\n");
            spawn(&["mail", "--from", REFEREE, "--store", dir.to_str().unwrap()], mail.as_bytes())
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for out in &outputs {
        assert!(out.status.success(), "{}", common::stderr(out));
    }
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.list().unwrap().games.len(), 10);
    let secrets = store.secrets();
    for output in outputs {
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        for line in text.lines().filter(|l| l.starts_with("Your key for game")) {
            let token = line.rsplit(' ').next().unwrap();
            assert!(secrets.check(token).is_some(), "{token} does not check");
        }
    }
}

#[test]
fn no_mail_makes_the_hosted_referee_panic() {
    let world = World::new("fuzz");
    let (alice, bob) = world.game_on();
    let seeds: Vec<Vec<u8>> = vec![
        press_reply(ALICE, &alice, "move c", "z1@x").into_bytes(),
        press_reply(BOB, &bob, "resign", "z2@x").into_bytes(),
        press_reply(ALICE, &alice, "board\nhelp\ngames", "z3@x").into_bytes(),
        format!("From: {ALICE}\nSubject: new wari stones 5 with {BOB} as north\n\nnew mankala with computer\n").into_bytes(),
        press_reply(BOB, &bob, "accept\ndecline", "z4@x").into_bytes(),
    ];
    common::fuzz(&seeds, 1500, (6, 80), |raw| {
        let _ = world.try_deliver(&String::from_utf8_lossy(raw));
        world.postman.take();
    });
    let listing = world.store().list().unwrap();
    assert!(listing.unreadable.is_empty());
    for record in listing.games {
        record.game().unwrap();
    }
}

#[test]
fn games_and_show_read_the_store() {
    let world = World::new("cli");
    world.game_on();
    let id = world.the_game().id.to_string();
    let dir = world.store.as_str();
    let text = String::from_utf8(run(&["games", "--store", dir], b"").stdout).unwrap();
    assert!(
        text.contains(&id) && text.contains("Alice to move"),
        "{text}"
    );
    let out = run(&["games", "--json", "--store", dir], b"");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["id"], id.as_str());
    let out = run(&["show", "--game", &id, "--store", dir], b"");
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains(&format!("id {id}")));
    let out = run(&["show", "--game", "nosuch", "--store", dir], b"");
    assert_eq!(out.status.code(), Some(65));
}

#[test]
fn each_log_line_starts_with_the_time_and_the_game() {
    let tmp = temp_dir("log-lines");
    let dir = tmp.join("referee.db");
    let mail = format!("From: {ALICE}\nMessage-ID: <lg@x>\n\nnew wari with {BOB}\n");
    let out = run(
        &["mail", "--from", REFEREE, "--store", dir.to_str().unwrap()],
        mail.as_bytes(),
    );
    let err = common::stderr(&out);
    let line = err.lines().next().unwrap();
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words[0], "mancala:");
    let time = words[1].as_bytes();
    assert!(
        time.len() == 20 && time[4] == b'-' && time[10] == b'T' && time[19] == b'Z',
        "{line}"
    );
    let id = Store::open(&dir).unwrap().list().unwrap().games[0]
        .id
        .to_string();
    assert_eq!(words[2], id, "{line}");
}

#[test]
fn an_accept_answers_the_offer_of_the_mail_it_replies_to_and_a_mail_makes_one_offer() {
    let world = World::new("offer-answered");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "o1@players.example"));
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "takeback", "o2@x"));
    let bob_told_of_takeback = to(&out, BOB);
    assert!(bob_told_of_takeback
        .body
        .contains("Alice asks to take back"));
    // The draw offer replaces the takeback; the takeback after it is refused.
    let out = world.deliver(&press_reply(
        ALICE,
        &to(&out, ALICE),
        "offer draw\ntakeback",
        "o3@x",
    ));
    assert!(
        to(&out, ALICE).body.contains("one offer a mail"),
        "{}",
        to(&out, ALICE).body
    );
    let bob_told_of_draw = to(&out, BOB);
    // Bob's accept of the takeback's mail answers an offer that no longer stands.
    let out = world.deliver(&press_reply(BOB, &bob_told_of_takeback, "accept", "o4@x"));
    assert_eq!(out.len(), 1, "to Bob alone");
    assert!(
        to(&out, BOB)
            .body
            .contains("the mail you answered is older than Alice's draw offer"),
        "{}",
        out[0].body
    );
    let game = world.the_game();
    assert_eq!(game.turns.len(), 1, "nothing taken back");
    assert!(game.conceded.is_none(), "no draw");
    // Accepted from the mail that carried it, the draw offer ends the game.
    let out = world.deliver(&press_reply(BOB, &bob_told_of_draw, "accept", "o5@x"));
    assert!(
        to(&out, ALICE)
            .body
            .contains("Bob accepted your draw offer: the game is drawn."),
        "{}",
        to(&out, ALICE).body
    );
    assert!(world.the_game().conceded.is_some());
}

/// Issue 42's attack: an old `accept`, mailed again with a new Message-ID
/// and no In-Reply-To, quoting a board five turns old, is checked as a
/// move would be and refused, with the offer that stands.
#[test]
fn an_old_accept_mailed_again_with_a_new_message_id_does_not_accept_an_offer_made_since() {
    let world = World::new("old-accept-new-id");
    let (mut alice, mut bob) = world.game_on();
    let first_board = alice.clone();
    for turn in 0..5 {
        let (from, received) = if turn % 2 == 0 {
            (ALICE, &alice)
        } else {
            (BOB, &bob)
        };
        let sheet = Sheet::parse(&received.body).unwrap();
        let pit = sheet.game.legal_moves().first().unwrap();
        let out = world.deliver(&press_reply(
            from,
            received,
            &format!("move {pit}"),
            &format!("t{turn}@x"),
        ));
        (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    }
    // Bob moves and offers a draw: Alice is to answer it.
    let sheet = Sheet::parse(&bob.body).unwrap();
    let pit = sheet.game.legal_moves().first().unwrap();
    let out = world.deliver(&press_reply(
        BOB,
        &bob,
        &format!("move {pit}\noffer draw"),
        "od@x",
    ));
    assert!(to(&out, ALICE).body.contains("offers a draw"));
    // Alice's accept of long ago, mailed again as a new mail: a new
    // Message-ID, no In-Reply-To, her first board quoted.
    let stale = press_reply(ALICE, &first_board, "accept", "fresh-id@x")
        .lines()
        .filter(|l| !l.starts_with("In-Reply-To:"))
        .collect::<Vec<_>>()
        .join("\n");
    let out = world.deliver(&stale);
    assert_eq!(out.len(), 1, "to Alice alone");
    assert!(
        squeezed(&out[0].body).contains("the mail you answered is older than Bob's draw offer"),
        "{}",
        out[0].body
    );
    let game = world.the_game();
    assert!(game.conceded.is_none(), "no draw");
    assert_eq!(game.turns.len(), 6, "nothing else changed");
}

#[test]
fn an_old_accept_fetched_again_after_505_newer_mails_accepts_no_new_takeback() {
    let world = World::new("old-accept");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "k1@x"));
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "takeback", "k2@x"));
    let old_accept = press_reply(BOB, &to(&out, BOB), "accept", "old-accept@x");
    let out = world.deliver(&old_accept);
    assert!(world.the_game().turns.is_empty(), "the takeback accepted");
    let (mut alice, mut bob) = (to(&out, ALICE), to(&out, BOB));
    for i in 0..505 {
        bob = to(
            &world.deliver(&press_reply(BOB, &bob, "board", &format!("b{i}@x"))),
            BOB,
        );
    }
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "k3@x"));
    alice = to(&out, ALICE);
    world.deliver(&press_reply(ALICE, &alice, "takeback", "k4@x"));
    let report = world.try_deliver(&old_accept).unwrap();
    assert!(
        world.postman.take().is_empty(),
        "{}: handled before, so nothing is sent: {:?}",
        report.summary,
        world.postman.take()
    );
    let game = world.the_game();
    assert_eq!(game.turns.len(), 1, "the new turn stands");
    assert!(game.offer.is_some(), "the new takeback still open");
}

#[test]
fn questions_are_answered_on_the_game_after_the_mails_acts() {
    let world = World::new("questions-after-acts");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c\ngames", "q1@x"));
    let games = to(&out, ALICE).body;
    assert!(
        games.contains("against Bob, Bob to move") && !games.contains("against Bob, your move"),
        "{games}"
    );
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "resign\nhistory", "q2@x"));
    let history = to(&out, BOB).body;
    let id = world.the_game().id;
    assert!(
        history.contains("Your finished games, the latest first")
            && history.contains(&format!("Super-Wari {id}: Alice v Bob")),
        "{history}"
    );
}

#[test]
fn an_unreadable_game_file_defers_a_keyed_mails_questions_never_answering_them_without_it() {
    let world = World::new("unreadable-other");
    let (alice, _) = world.game_on();
    let first = world.the_game().id;
    world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <c2@players.example>\n\nnew wari with Bob <{BOB}>\n"
    ));
    let other = world
        .games()
        .into_iter()
        .find(|g| g.id != first)
        .expect("a second game")
        .id;
    let standing =
        |text: &str| format!("UPDATE games SET standing = '{text}' WHERE id = '{other}'");
    if !world.tamper(&standing("{ damaged")) {
        return;
    }
    // A move with a question that needs Alice's games: neither is done
    // while one of her games cannot be read.
    let mail = press_reply(ALICE, &alice, "move c\ngames", "uq@x");
    let out = mail_cli(
        std::path::Path::new(&world.store),
        "stdout",
        mail.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(75), "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains(&format!("game {other}")),
        "{}",
        common::stderr(&out)
    );
    assert!(out.stdout.is_empty(), "nothing answered");
    let store = world.store();
    let game = store.load_game(&first).unwrap().unwrap();
    assert!(game.turns.is_empty(), "the move waits with the mail");
    // Mended, the same mail (the MTA's retry) is done whole, once.
    world.tamper(&standing("{\"state\":\"playing\"}"));
    let out = world.deliver(&mail);
    let listed = to(&out, ALICE).body;
    assert!(
        listed.contains(first.as_str()) && listed.contains(other.as_str()),
        "both games listed:\n{listed}"
    );
    let game = store.load_game(&first).unwrap().unwrap();
    assert_eq!(game.turns.len(), 1, "the move played once");
}

#[test]
fn a_reply_is_never_many_times_larger_than_the_mail_that_asked_for_it() {
    let world = World::new("reply-size");
    let (alice, _) = world.game_on();
    let size = |out: &[Outgoing]| -> usize {
        out.iter()
            .map(|o| o.subject.len() + o.body.len() + o.html.as_ref().map_or(0, String::len))
            .sum()
    };
    let pits = ["a", "b", "c", "d", "e", "f"];
    let one = world.deliver(&press_reply(ALICE, &alice, "preview a", "one@x"));
    let base = size(&one);
    let shapes = [
        // 30 previews (the most commands a mail carries), each its own board.
        (0..30)
            .map(|i| format!("preview {} {}\n", pits[i % 6], pits[i / 6]))
            .collect::<String>(),
        // Boards of every turn and previews mixed.
        (0..15)
            .map(|i| format!("board {i}\npreview {}\n", pits[i % 6]))
            .collect(),
        // A 0.9 MB mail: 30 previews of huge turns, each line repeated back once before.
        (0..30)
            .map(|i| format!("preview {}{}\n", pits[i % 6], "-a".repeat(14_000)))
            .collect(),
        (0..30)
            .map(|i| format!("preview {}\n", format!("{} ", pits[i % 6]).repeat(7_000)))
            .collect(),
    ];
    for (n, words) in shapes.iter().enumerate() {
        let out = world.deliver(&press_reply(ALICE, &alice, words, &format!("{n}@x")));
        assert_eq!(out.len(), 1, "to the asker alone");
        assert!(
            size(&out) <= 4 * base,
            "shape {n}: a mail of {} bytes got {} (one preview: {base})",
            words.len(),
            size(&out)
        );
    }
    let out = world.deliver(&press_reply(ALICE, &alice, &shapes[0], "cap@x"));
    let words = squeezed(&out[0].body);
    assert!(
        words.contains("A mail gets at most 3 boards drawn (board N or preview)"),
        "the cap is said:\n{}",
        out[0].body
    );
    assert_eq!(out[0].body.matches("Not the game: a preview").count(), 3);
}

#[test]
fn a_board_number_that_is_no_number_is_refused_with_what_to_write_not_relayed() {
    let world = World::new("board-odd");
    let (alice, _) = world.game_on();
    // (`board ٣`: a digit of another script, relayed as chat before.)
    for (n, line) in [
        "board 99999999999999999999999",
        "board -1",
        "board #",
        "board \u{663}",
    ]
    .iter()
    .enumerate()
    {
        let out = world.deliver(&press_reply(ALICE, &alice, line, &format!("odd{n}@x")));
        assert_eq!(out.len(), 1, "{line}: nothing to Bob");
        let body = to(&out, ALICE).body;
        let said = squeezed(&body);
        assert!(
            said.contains(&format!(
                "'{line}' cannot be read: write board, or board and the number of a line of the log, such as: board 3"
            )),
            "{line}:\n{body}"
        );
        assert!(!body.contains("Alice writes:"), "{body}");
    }
}

#[test]
fn words_written_with_new_or_accept_are_passed_on_or_the_writer_is_told() {
    let world = World::new("chat-new");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <cn1@x>\n\nnew super-wari with Bob <{BOB}>\nFancy a game, Bob?\n"
    ));
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert!(!bob.body.contains("Fancy a game"), "{}", bob.body);
    let said = squeezed(&alice.body);
    assert!(
        said.contains("Your other words were not passed on: an invitation carries only the referee's words; write to Bob once the game is on."),
        "{}",
        alice.body
    );
    let out = world.deliver(&press_reply(
        BOB,
        &bob,
        "accept\nGladly. Good luck!",
        "cn2@x",
    ));
    assert!(
        to(&out, ALICE)
            .body
            .contains("Bob writes:\n> Gladly. Good luck!"),
        "{}",
        to(&out, ALICE).body
    );
    let out = world.deliver(&format!(
        "From: Carol <carol@players.example>\nTo: {REFEREE}\nMessage-ID: <cn3@x>\n\nnew wari with computer\nHello, machine.\n"
    ));
    assert!(
        out[0]
            .body
            .contains("Your other words were not passed on: the computer reads none."),
        "{}",
        out[0].body
    );
}

#[test]
fn a_free_turn_is_told_whenever_it_happens() {
    let world = World::new("free-turn");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <ft@x>\n\nnew kalah with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "ft1@x"));
    let id = world.the_game().id;
    // Kalah's c holds 4: its last stone falls in Alice's store.
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "move c", "ft2@x"));
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert_eq!(
        alice.subject,
        format!("Kalah {id}: your move — you played c, which earns a free turn: you sow again")
    );
    assert_eq!(
        bob.subject,
        format!(
            "Kalah {id}: Alice to move — Alice played c, which earns a free turn: Alice sows again"
        )
    );
    // The computer's turn of several sowings says each earned a free turn.
    let mut mail = world
        .deliver(
            "From: Carol <carol@players.example>\nMessage-ID: <ft3@x>\n\nnew kalah with computer as north\n",
        )
        .remove(0);
    for n in 0..40 {
        let computer = world
            .games()
            .into_iter()
            .find(|g| g.computer.is_some())
            .unwrap();
        let last = computer.turns.iter().rev().find(|t| t.side == Side::South);
        if last.is_some_and(|t| t.sowings.len() > 1) {
            assert!(mail.body.contains(", a free turn, then "), "{}", mail.body);
            assert!(!mail.body.contains("found), then"), "{}", mail.body);
            return;
        }
        let sheet = Sheet::parse(&mail.body).unwrap();
        let Some(pit) = sheet.game.legal_moves().first() else {
            break;
        };
        mail = world
            .deliver(&press_reply(
                "carol@players.example",
                &mail,
                &format!("move {pit}"),
                &format!("ft{n}c@x"),
            ))
            .remove(0);
    }
    panic!("the computer never sowed twice in a turn");
}

#[test]
fn an_offer_made_before_the_same_mails_resignation_is_not_told_as_standing() {
    let world = World::new("offer-then-resign");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "offer draw\nresign", "or1@x"));
    for mail in &out {
        assert!(
            mail.subject
                .contains("game over: Bob wins (Alice resigned)"),
            "{}",
            mail.subject
        );
        assert!(!mail.body.contains("may answer accept"), "{}", mail.body);
    }
    let alices = to(&out, ALICE).body;
    assert!(
        alices.contains("You resigned.") && alices.contains("Not done: your offer lapsed"),
        "{alices}"
    );
}

/// Words that make no move go to the opponent; their writer, whose move
/// it still is, is told that no line of theirs read as one. (A slip of
/// the word `move` is read as a move: see tests/commands.rs.)
#[test]
fn a_player_to_move_whose_mail_holds_no_move_is_told_none_was_read() {
    let world = World::new("typo-told");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "moving on soon", "ty1@x"));
    let (alices, bobs) = (to(&out, ALICE), to(&out, BOB));
    assert!(
        alices
            .subject
            .contains("your move — you wrote, without a move: no line of yours reads as one"),
        "{}",
        alices.subject
    );
    let words = squeezed(&alices.body);
    assert!(
        words.contains("no line of yours reads as one (a move is a line move <pit>)."),
        "{}",
        alices.body
    );
    assert!(
        bobs.subject
            .contains("Alice to move — Alice wrote, without a move"),
        "{}",
        bobs.subject
    );
    assert!(bobs.body.contains("> moving on soon"), "{}", bobs.body);
    assert_eq!(world.the_game().turns.len(), 0, "nothing played");
}

/// A move in reply to a mail sent before the board last changed was
/// chosen on that older board: refused with the board as it stands,
/// whether the old board is quoted or deleted from the reply.
#[test]
fn a_move_answering_a_mail_older_than_the_board_is_refused_quoted_or_not() {
    let world = World::new("old-mail-move");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "om1@x"));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "move e", "om2@x"));
    let latest = to(&out, ALICE);
    let unquoted = |raw: String| -> String {
        raw.lines()
            .filter(|l| !l.starts_with('>'))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    for (n, raw) in [
        press_reply(ALICE, &alice, "move a", "om3@x"),
        unquoted(press_reply(ALICE, &alice, "move a", "om4@x")),
    ]
    .into_iter()
    .enumerate()
    {
        let out = world.deliver(&raw);
        assert_eq!(out.len(), 1, "{n}: the writer alone is answered");
        assert!(
            out[0].body.contains("out of date") && out[0].body.contains("no move was played"),
            "{n}: {}",
            out[0].body
        );
        assert_eq!(world.the_game().turns.len(), 2, "{n}: a not played");
    }
    let out = world.deliver(&press_reply(ALICE, &latest, "move a", "om5@x"));
    assert!(
        to(&out, BOB).subject.contains("Alice played a"),
        "{}",
        to(&out, BOB).subject
    );
    assert_eq!(world.the_game().turns.len(), 3);
    // Out of turn, the turn is what is told, not the old board.
    let out = world.deliver(&press_reply(ALICE, &alice, "move b", "om6@x"));
    assert!(out[0].body.contains("it is Bob's move"), "{}", out[0].body);
}

#[test]
fn rules_asked_in_a_game_are_answered_with_its_rules_not_relayed() {
    let world = World::new("rules-asked");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "rules", "ru1@x"));
    assert_eq!(out.len(), 1, "the asker alone: {out:#?}");
    assert!(
        out[0].body.contains("Super-Wari in short:"),
        "{}",
        out[0].body
    );
    assert!(!out[0].body.contains("writes:"), "{}", out[0].body);
}

/// The invitee who moves second accepts with a move: the game is on, and
/// they are told the move waits for the inviter's.
#[test]
fn an_invitees_move_out_of_turn_accepts_and_is_told_it_waits() {
    let world = World::new("invitee-moves-second");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <ims1@players.example>\n\nnew super-wari with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "move d", "ims2@x"));
    let bobs = to(&out, BOB);
    assert!(
        bobs.subject.contains("you accepted: the game is on"),
        "{}",
        bobs.subject
    );
    let words = squeezed(&bobs.body);
    assert!(
        words.contains("Your move was not played: it is Alice's move (South)"),
        "{}",
        bobs.body
    );
    assert!(world.the_game().turns.is_empty(), "d is not played");
}

/// A standing offer is recalled in each later mail to the one who may
/// answer it, and not in the mail that tells of it.
#[test]
fn a_standing_offer_is_recalled_in_each_later_mail_to_its_answerer() {
    let world = World::new("offer-recalled");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "rc1@x"));
    let out = world.deliver(&press_reply(
        BOB,
        &to(&out, BOB),
        "move e\noffer draw",
        "rc2@x",
    ));
    let told = to(&out, ALICE);
    assert!(!told.body.contains("stands: answer it"), "{}", told.body);
    let out = world.deliver(&press_reply(ALICE, &told, "Thinking about it.", "rc3@x"));
    let alices = to(&out, ALICE).body;
    let words = squeezed(&alices);
    assert!(
        words.contains("Bob's draw offer stands: answer it with a line accept or decline."),
        "{alices}"
    );
    assert!(
        !to(&out, BOB).body.contains("stands: answer it"),
        "the offerer is not asked"
    );
}

/// An invitation to a game not here is told why nothing started; a
/// subject of prose that opens with `new` does not stop the body's.
#[test]
fn an_invitation_to_a_game_not_here_is_told_and_prose_new_lines_stay_prose() {
    let world = World::new("unknown-game");
    let out = world.deliver(&format!(
        "From: Carol <carol@players.example>\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <ug1@players.example>\n\nnew chess with Bob <{BOB}>\n"
    ));
    let words = squeezed(&out[0].body);
    assert!(
        words.contains(
            "unknown game 'chess'; the games are super-wari, wari, waurie, mankala or kalah"
        ),
        "{}",
        out[0].body
    );
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: New game with {BOB}\nMessage-ID: <ug2@players.example>\n\nnew oware with Bob <{BOB}>\n"
    ));
    assert!(
        to(&out, BOB)
            .subject
            .contains("invites you to a game of Wari"),
        "{}",
        to(&out, BOB).subject
    );
}

/// A new mail (it answers none of the referee's) with an older board
/// than the game's pasted in was written on that board: out of date,
/// however its move is written, and nothing is played.
#[test]
fn a_move_beside_a_quoted_board_older_than_the_games_is_out_of_date_however_written() {
    let world = World::new("old-quoted-board");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "qb1@x"));
    world.deliver(&press_reply(BOB, &to(&out, BOB), "move e", "qb2@x"));
    let new_mail = |words: &str, id: &str| -> String {
        press_reply(ALICE, &alice, words, id)
            .lines()
            .filter(|l| !l.starts_with("In-Reply-To:"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    for (words, id) in [("move a", "qb3@x"), ("move zz", "qb4@x")] {
        let out = world.deliver(&new_mail(words, id));
        assert_eq!(out.len(), 1, "{words}: the writer alone is answered");
        assert!(
            out[0].body.contains("out of date") && out[0].body.contains("no move was played"),
            "{words}: {}",
            out[0].body
        );
        assert_eq!(world.the_game().turns.len(), 2, "{words}: nothing played");
    }
}

/// The referee's mail with the player's move written in its log in place
/// of the `?` (no move line), as a player fills in the sheet.
fn with_log_move(received: &Outgoing, pit: &str) -> Outgoing {
    let mut filled = received.clone();
    let mut done = false;
    filled.body = received
        .body
        .lines()
        .map(|line| {
            let numbered = line
                .split_once('.')
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            match line.find('?') {
                Some(at) if numbered && !done => {
                    done = true;
                    format!("{}{pit}{}\n", &line[..at], &line[at + 1..])
                }
                _ => format!("{line}\n"),
            }
        })
        .collect();
    assert!(done, "no `?` in the log of\n{}", received.body);
    filled
}

/// Issue 43: a whole game where every move is made on the sheet only, as
/// the broadcast asks (the move written in the log in place of the `?`, no
/// move line, nothing else written), both players pressing reply.
#[test]
fn a_whole_game_is_played_with_every_move_written_on_the_sheet_only() {
    let world = World::new("sheet-only");
    let (mut alice, mut bob) = world.game_on();
    let mut rng = SplitMix64::new(43);
    for n in 0..400 {
        let sheet = Sheet::parse(&alice.body).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap().to_string();
        let (from, received) = match side {
            Side::South => (ALICE, &alice),
            Side::North => (BOB, &bob),
        };
        let out = world.deliver(&press_reply(
            from,
            &with_log_move(received, &pit),
            "",
            &format!("so{n}@x"),
        ));
        assert_eq!(out.len(), 2, "both get the board: {}", out[0].body);
        (alice, bob) = (to(&out, ALICE), to(&out, BOB));
        assert_eq!(world.the_game().turns.len(), n + 1, "turn {n} played once");
    }
    assert!(world.the_game().game().unwrap().is_over(), "the game ends");
    assert!(alice.body.contains("Result: ") && bob.body.contains("Result: "));
}

/// A move written in the log of an older mail than the game's is out of
/// date, as a move line on it is; written in the latest mail's log it is
/// played; an old board with words alone is no move, and the words reach
/// the opponent.
#[test]
fn a_move_written_in_an_old_mails_log_is_out_of_date_and_words_beside_it_are_relayed() {
    let world = World::new("old-log-move");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "ol1@x"));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "move e", "ol2@x"));
    let latest = to(&out, ALICE);

    let out = world.deliver(&press_reply(
        ALICE,
        &with_log_move(&alice, "a"),
        "",
        "ol3@x",
    ));
    assert_eq!(out.len(), 1, "the writer alone is answered");
    assert!(out[0].body.contains("out of date"), "{}", out[0].body);
    assert_eq!(world.the_game().turns.len(), 2, "nothing played");

    let out = world.deliver(&press_reply(ALICE, &alice, "Nice opening, Bob!", "ol4@x"));
    assert!(
        to(&out, BOB).body.contains("Nice opening, Bob!"),
        "{}",
        to(&out, BOB).body
    );
    assert!(!to(&out, ALICE).body.contains("out of date"));
    assert_eq!(world.the_game().turns.len(), 2, "nothing played");

    let out = world.deliver(&press_reply(
        ALICE,
        &with_log_move(&latest, "a"),
        "",
        "ol5@x",
    ));
    assert!(
        to(&out, BOB).subject.contains("Alice played a"),
        "{}",
        to(&out, BOB).subject
    );
    assert_eq!(world.the_game().turns.len(), 3);
}

/// A player who deletes the log's `?` and writes no move has made none:
/// the log's last turn, the opponent's, is not read as theirs (which made
/// the board they answered, the latest, look out of date). With a move
/// line the same mail plays it.
#[test]
fn a_log_whose_question_mark_is_deleted_without_a_move_makes_no_move() {
    let world = World::new("deleted-mark");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "dm1@x"));
    let bob = with_log_move(&to(&out, BOB), "");
    let out = world.deliver(&press_reply(BOB, &bob, "", "dm2@x"));
    assert_eq!(out.len(), 1, "the writer alone is answered");
    assert!(
        out[0].body.contains("no move found") && !out[0].body.contains("out of date"),
        "{}",
        out[0].body
    );
    assert_eq!(world.the_game().turns.len(), 1, "nothing played");

    let out = world.deliver(&press_reply(BOB, &bob, "move e", "dm3@x"));
    assert!(
        to(&out, ALICE).subject.contains("Bob played e"),
        "{}",
        to(&out, ALICE).subject
    );
    assert_eq!(world.the_game().turns.len(), 2);
}

/// A turn begun by mail (`move c` earned a free turn: the log shows
/// `c-?`) and finished on the sheet, board and log alike (`c-f`, as Bill's
/// broadcast asks moves made), plays the rest of it: the part the game has
/// played is not read again, nor the board taken for an old one.
#[test]
fn a_turn_begun_by_mail_and_finished_on_board_and_log_plays_its_rest() {
    // Alice's `move c` in a new Kalah game: c holds 4 stones, its last in
    // her store, a free turn; her mail shows `c-?`.
    let begun = |name: &str| {
        let world = World::new(name);
        let out = world.deliver(&format!(
            "From: Alice <{ALICE}>\nMessage-ID: <bs@x>\n\nnew kalah with Bob <{BOB}>\n"
        ));
        let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "bs1@x"));
        let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "move c", "bs2@x"));
        let begun = to(&out, ALICE);
        assert!(begun.body.contains("c-?"), "{}", begun.body);
        (world, begun)
    };
    let (world, mail) = begun("bonus-on-sheet");
    let mut sheet = Sheet::parse(&mail.body).unwrap();
    let f = sheet.game.legal_moves().last().unwrap();
    sheet.game.play(f).unwrap();
    let mut finished = mail.clone();
    finished.body = sheet.to_string();
    let finished = with_log_move(&finished, "");
    assert!(
        finished.body.contains("c-f") && !finished.body.contains('?'),
        "{}",
        finished.body
    );
    let out = world.deliver(&press_reply(ALICE, &finished, "", "bs3@x"));
    let bob = to(&out, BOB);
    assert!(bob.subject.contains("Alice played f"), "{}", bob.subject);
    let after = Sheet::parse(&bob.body).unwrap();
    assert_eq!(after.game.sowings(), sheet.game.sowings());
    assert_eq!(after.game.to_move(), Some(Side::North));

    // The turn's rest on a line, the log's `-?` deleted (`c`): the line is it.
    let (world, mail) = begun("bonus-dash-deleted");
    let mut cut = mail.clone();
    cut.body = mail.body.replacen("c-?", "c", 1);
    let out = world.deliver(&press_reply(ALICE, &cut, &format!("move {f}"), "bs4@x"));
    let bob = to(&out, BOB);
    assert!(bob.subject.contains("Alice played f"), "{}", bob.subject);
    assert_eq!(
        Sheet::parse(&bob.body).unwrap().game.sowings(),
        sheet.game.sowings()
    );

    // The whole turn on a line (`move c-f`), as the log would have it: its
    // rest is played, c not again.
    let (world, mail) = begun("bonus-whole-on-a-line");
    let out = world.deliver(&press_reply(ALICE, &mail, &format!("move c-{f}"), "bs5@x"));
    let bob = to(&out, BOB);
    assert!(bob.body.contains("— Alice played f.\n"), "{}", bob.body);
    assert_eq!(
        Sheet::parse(&bob.body).unwrap().game.sowings(),
        sheet.game.sowings()
    );
}

/// A turn made on the quoted board alone, the log left with its `?`, is
/// the move (in Kalah, `c` and its bonus sowing), as Bill's broadcast asks
/// moves "made"; a move line beside a board drawn with another move plays
/// neither.
#[test]
fn a_turn_made_on_the_board_alone_is_the_move_and_a_line_beside_another_plays_neither() {
    let world = World::new("board-alone");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <ba@x>\n\nnew kalah with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "ba1@x"));
    let alice = to(&out, ALICE);
    let mut sheet = Sheet::parse(&alice.body).unwrap();
    let [c, f] = [2, 5].map(|i| Pit::all(6).nth(i).unwrap());
    sheet.game.play(c).unwrap();
    assert_eq!(
        sheet.game.to_move(),
        Some(Side::South),
        "c earns a free turn"
    );
    sheet.game.play(f).unwrap();
    let mut drawn = alice.clone();
    drawn.body = drawn_board(&alice.body, &sheet);
    assert!(drawn.body.contains('?'), "the log is left as it was");

    let out = world.deliver(&press_reply(ALICE, &drawn, "move d", "ba2@x"));
    assert_eq!(out.len(), 1, "{out:#?}");
    assert!(
        out[0]
            .body
            .contains("the move line says d but the sheet shows c-f"),
        "{}",
        out[0].body
    );
    let out = world.deliver(&press_reply(ALICE, &drawn, "", "ba3@x"));
    let bob = to(&out, BOB);
    assert!(
        bob.subject.contains("Alice played c, a free turn, then f"),
        "{}",
        bob.subject
    );
    assert_eq!(
        Sheet::parse(&bob.body).unwrap().game.sowings(),
        sheet.game.sowings()
    );

    // Drawn up to the free sowing still to make, with the line or without:
    // that far, and the writer sows again.
    for (n, line) in ["move c", ""].into_iter().enumerate() {
        let world = World::new(&format!("board-alone-begun-{n}"));
        let out = world.deliver(&format!(
            "From: Alice <{ALICE}>\nMessage-ID: <bb@x>\n\nnew kalah with Bob <{BOB}>\n"
        ));
        let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "bb1@x"));
        let alice = to(&out, ALICE);
        let mut begun = Sheet::parse(&alice.body).unwrap();
        begun.game.play(c).unwrap();
        let mut drawn = alice.clone();
        drawn.body = drawn_board(&alice.body, &begun);
        let out = world.deliver(&press_reply(ALICE, &drawn, line, "bb2@x"));
        let alice = to(&out, ALICE);
        assert!(
            alice
                .subject
                .contains("you played c, which earns a free turn"),
            "{line:?}: {}",
            alice.body
        );
        assert_eq!(world.the_game().turns.len(), 1, "{line:?}");
        assert_eq!(
            Sheet::parse(&alice.body).unwrap().game.to_move(),
            Some(Side::South)
        );
    }
}

/// A condition on half a turn (Bob's c earns him a free turn) is dropped,
/// with a note to its writer that says why within the line width (the
/// test postman checks every line).
#[test]
fn a_condition_on_half_a_turn_is_dropped_with_a_note_that_fits_the_line() {
    let world = World::new("half-a-turn");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <ht@x>\n\nnew kalah with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "ht1@x"));
    let out = world.deliver(&press_reply(
        ALICE,
        &to(&out, ALICE),
        "move a\nif c then d",
        "ht2@x",
    ));
    let words = squeezed(&to(&out, ALICE).body);
    assert!(
        words.contains("if c then d: dropped, c is not a whole turn of Bob's"),
        "{words}"
    );
}

/// `body` with its grid drawn as `sheet`'s, every other line kept.
fn drawn_board(body: &str, sheet: &Sheet) -> String {
    let grid = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with('+') || l.starts_with('|'))
            .map(str::to_string)
            .collect()
    };
    let (old, new) = (grid(body), grid(&sheet.to_string()));
    assert_eq!(old.len(), new.len());
    let mut rows = new.into_iter();
    body.lines()
        .map(|l| {
            if l.starts_with('+') || l.starts_with('|') {
                rows.next().unwrap() + "\n"
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// Two different move lines in one mail ("move d", then "no wait" and
/// "move c") play neither: which was meant is the player's to say. The
/// same line twice is one move.
#[test]
fn two_different_move_lines_play_neither_and_the_same_line_twice_plays_once() {
    let world = World::new("two-moves");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(
        ALICE,
        &alice,
        "move d\nNo wait, I mean:\nmove c",
        "tm1@x",
    ));
    assert_eq!(out.len(), 1, "the writer alone is answered");
    assert!(
        out[0].body.contains("say different things (d, c)"),
        "{}",
        out[0].body
    );
    assert!(world.the_game().turns.is_empty(), "nothing played");

    let out = world.deliver(&press_reply(ALICE, &alice, "move c\nmove c", "tm2@x"));
    assert!(
        to(&out, BOB).subject.contains("Alice played c"),
        "{}",
        to(&out, BOB).subject
    );
    assert!(
        !to(&out, ALICE).body.contains("Not done"),
        "{}",
        to(&out, ALICE).body
    );
    assert_eq!(world.the_game().turns.len(), 1);
}

/// A move in the subject is played, as PBM servers took commands, when
/// the body makes none: a move on the sheet or a move line outweighs it.
#[test]
fn a_move_in_the_subject_is_played_when_the_body_makes_none() {
    let world = World::new("subject-move");
    let (alice, _) = world.game_on();
    let reply = press_reply(ALICE, &alice, "", "sm1@x");
    let subject = reply.lines().find(|l| l.starts_with("Subject: ")).unwrap();
    let out = world.deliver(&reply.replacen(subject, "Subject: move c", 1));
    assert!(
        to(&out, BOB).subject.contains("Alice played c"),
        "{}",
        to(&out, BOB).subject
    );
    assert_eq!(world.the_game().turns.len(), 1);
    // A move the body makes, on the sheet or by a line, outweighs it.
    let subject_move = |reply: String, pit: Pit| {
        let subject = reply.lines().find(|l| l.starts_with("Subject: ")).unwrap();
        reply.replacen(subject, &format!("Subject: move {pit}"), 1)
    };
    let legal = |mail: &Outgoing| Sheet::parse(&mail.body).unwrap().game.legal_moves();
    let bob = to(&out, BOB);
    let (first, other) = (legal(&bob).first().unwrap(), legal(&bob).last().unwrap());
    let written = with_log_move(&bob, &first.to_string());
    let out = world.deliver(&subject_move(
        press_reply(BOB, &written, "", "sm2@x"),
        other,
    ));
    let alice = to(&out, ALICE);
    assert!(
        alice.subject.contains(&format!("Bob played {first}")),
        "{}",
        alice.subject
    );
    let pit = legal(&alice).first().unwrap();
    let out = world.deliver(&press_reply(ALICE, &alice, &format!("move {pit}"), "sm3@x"));
    let bob = to(&out, BOB);
    let (first, other) = (legal(&bob).first().unwrap(), legal(&bob).last().unwrap());
    let line = format!("move {first}");
    let out = world.deliver(&subject_move(press_reply(BOB, &bob, &line, "sm4@x"), other));
    let alice = to(&out, ALICE);
    assert!(
        alice.subject.contains(&format!("Bob played {first}")),
        "{}",
        alice.subject
    );
}

/// A takeback asked in the middle of a turn (`c-?`), the turn then
/// finished: an accept from the mail that showed only `c` is out of date,
/// for it would undo more than it was shown; one from the latest mail
/// undoes the whole turn.
#[test]
fn a_takeback_accepted_on_a_board_older_than_the_turn_it_undoes_is_out_of_date() {
    let world = World::new("takeback-turn-went-on");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nMessage-ID: <tt@x>\n\nnew kalah with Bob <{BOB}>\n"
    ));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "tt1@x"));
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "move c", "tt2@x"));
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "takeback", "tt3@x"));
    let asked = to(&out, BOB);
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "move d", "tt4@x"));
    let latest = to(&out, BOB);
    let out = world.deliver(&press_reply(BOB, &asked, "accept", "tt5@x"));
    assert!(out[0].body.contains("out of date"), "{}", out[0].body);
    assert_eq!(world.the_game().turns.len(), 1, "nothing undone");
    let out = world.deliver(&press_reply(BOB, &latest, "accept", "tt6@x"));
    assert!(
        to(&out, ALICE).subject.contains("(c-d) is undone"),
        "{}",
        to(&out, ALICE).subject
    );
    assert!(world.the_game().turns.is_empty());
}

/// A draw offered while the opponent's draw offer stands agrees the draw;
/// another offer replaces the opponent's, and both are told it lapsed.
/// An accept after the game is over is told the game is over.
#[test]
fn a_draw_offered_against_a_standing_draw_offer_agrees_it_and_a_replaced_offer_is_told() {
    let world = World::new("offers-meet");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(ALICE, &alice, "move c", "om1@x"));
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "takeback", "om2@x"));
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "offer draw", "om3@x"));
    let words = |body: &str| squeezed(body);
    for mail in &out {
        assert!(words(&mail.body).contains("It replaces"), "{}", mail.body);
    }
    // Bob's `accept` of his own offer is told whose it is to answer.
    let own = world.deliver(&press_reply(BOB, &to(&out, BOB), "accept", "om3a@x"));
    assert!(
        words(&own[0].body).contains("the draw offer standing is yours: it waits for Alice"),
        "{}",
        own[0].body
    );
    assert!(!world.the_game().game().unwrap().is_over());
    assert!(
        words(&to(&out, ALICE).body).contains("It replaces your takeback"),
        "{}",
        to(&out, ALICE).body
    );
    let out = world.deliver(&press_reply(ALICE, &to(&out, ALICE), "offer draw", "om4@x"));
    assert!(
        to(&out, BOB).subject.contains("a draw by agreement"),
        "{}",
        to(&out, BOB).subject
    );
    assert!(world.the_game().game().unwrap().is_over());
    let ended = to(&out, BOB);
    let out = world.deliver(&press_reply(BOB, &ended, "accept", "om5@x"));
    assert!(out[0].body.contains("the game is over"), "{}", out[0].body);
    // One line of the log, said so.
    let out = world.deliver(&press_reply(BOB, &ended, "history", "om6@x"));
    let history = words(&out[0].body);
    assert!(
        history.contains("after 1 line of the log The game"),
        "{history}"
    );
}

/// A garbled move line beside a move written in the log of the latest
/// mail is told as garbled: the board the mail was written on is the
/// game's, so it is not out of date.
#[test]
fn a_garbled_line_beside_a_move_in_the_latest_log_is_told_as_garbled() {
    let world = World::new("garbled-beside-log");
    let (alice, _) = world.game_on();
    let out = world.deliver(&press_reply(
        ALICE,
        &with_log_move(&alice, "c"),
        "move zz",
        "gl1@x",
    ));
    assert_eq!(out.len(), 1, "the writer alone is answered");
    assert!(
        out[0].body.contains("'zz' is not a move") && !out[0].body.contains("out of date"),
        "{}",
        out[0].body
    );
    assert!(world.the_game().turns.is_empty(), "nothing played");
}

/// An inviter who spent the day's answers on keyless mail before their
/// invitation was answered still hears that the game began and that it
/// is their move: that news passes the daily count, once a game. The
/// game's other mails to them still count until they show their key.
#[test]
fn an_inviter_out_of_answers_still_hears_the_invitation_accepted() {
    let world = World::new("accepted-past-the-count");
    let keyless = |n: usize, words: &str| {
        format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: hello\nMessage-ID: <ac{n}@players.example>\n\n{words}\n"
        )
    };
    let out = world.deliver(&keyless(1, &format!("new super-wari with Bob <{BOB}>")));
    let invitation = to(&out, BOB);
    for n in 2..=3 {
        let out = world.deliver(&keyless(n, "hello"));
        assert_eq!(out.len(), 1, "answered");
    }
    let out = world.deliver(&press_reply(BOB, &invitation, "accept", "ac4@x"));
    assert!(
        to(&out, ALICE).subject.contains("your move"),
        "{}",
        to(&out, ALICE).subject
    );
    let out = world.deliver(&press_reply(BOB, &to(&out, BOB), "Over to you!", "ac5@x"));
    assert!(
        out.iter().all(|o| o.to.address != ALICE),
        "past the count, until Alice shows her key"
    );
}

/// Invitations made in an address's name over several days, all answered
/// on one day, bring it at most 6 mails that day: the news of an answered
/// invitation counts against twice the day's 3 answers.
#[test]
fn invitations_saved_up_and_answered_at_once_bring_their_inviter_at_most_six_mails_a_day() {
    let world = World::new("saved-up-invitations");
    let invitees: Vec<String> = (0..6)
        .map(|n| format!("friend{n}@players.example"))
        .collect();
    let mut invitations = Vec::new();
    for (n, invitee) in invitees.iter().enumerate() {
        if n == 3 {
            // A day passes: the three answers given age out.
            let store = world.store();
            let mut sender = store
                .load_sender(&store.secrets().address_digest(ALICE))
                .unwrap();
            assert_eq!(sender.answered.len(), 3);
            for time in &mut sender.answered {
                *time -= 86_400;
            }
            store.save_sender(&sender).unwrap();
        }
        let out = world.deliver(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <sv{n}@players.example>\n\nnew super-wari with {invitee}\n"
        ));
        invitations.push(to(&out, invitee));
    }
    let told = invitees
        .iter()
        .zip(&invitations)
        .enumerate()
        .filter(|(n, (invitee, invitation))| {
            let out = world.deliver(&press_reply(
                invitee,
                invitation,
                "accept",
                &format!("sa{n}@x"),
            ));
            out.iter().any(|o| o.to.address == ALICE)
        })
        .count();
    assert_eq!(
        told, 3,
        "3 answers that day already, then 3 of the 6 answers"
    );
}

/// A long opponent's name in a `games` answer is filled to the width (the
/// fuzz test found one run past it); the stub postman checks every line.
#[test]
fn a_games_answer_with_a_long_name_keeps_within_the_line_width() {
    let world = World::new("games-long-name");
    let long = "a-very-long-local-part-for-a-name@players.example";
    world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <ln0@x>\n\nnew super-wari with {long}\n"
    ));
    // The newer game is listed first: the long name's line comes after its board.
    world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <ln1@x>\n\nnew wari with {BOB}\n"
    ));
    // Asked without a key, as the fuzzed mail did.
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <ln2@x>\n\ngames\n"
    ));
    let body = &to(&out, ALICE).body;
    assert_eq!(body.matches("waiting for").count(), 2, "{body}");
}

/// The broadcast answered exactly as it asks, to the hosted referee with
/// the opponent in Cc: its board pasted, the name written twice, the first
/// move made in the log in place of the `?`, no move line. The game is
/// proposed with that move played, and nothing is said not done.
#[test]
fn a_reply_to_the_broadcast_made_as_it_asks_proposes_the_game_with_its_move() {
    let world = World::new("broadcast-as-asked");
    let seed = std::fs::read_to_string(common::repo("tests/data/seed-000.txt")).unwrap();
    let sheet = seed
        .replace("Yourname", "Alice")
        .replace("1.    ?", "1.    c");
    let out = world.deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nCc: Bob <{BOB}>\nSubject: Re: Super-Wari\nMessage-ID: <ba@x>\n\n{sheet}"
    ));
    let invitation = to(&out, BOB);
    let board = Sheet::parse(&invitation.body).unwrap();
    assert_eq!(board.game.ply(), 1, "{}", invitation.body);
    assert_eq!(board.game.sowings()[0].pit.letter(), 'c');
    assert!(out.iter().all(|o| !o.body.contains("Not done")));
    assert_eq!(world.the_game().turns.len(), 1);
}
