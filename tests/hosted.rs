//! The hosted referee: games kept in a store, players known by their keys,
//! each mail applied once, even when twenty arrive at once or a process
//! dies mid-save; reminders and forfeits by the clock.

use std::path::Path;

use mancala::engine::{Side, SplitMix64};
use mancala::mail::incoming::Incoming;
use mancala::mail::referee::{Answer, Outgoing, Referee};
use mancala::sheet::Sheet;
use mancala::store::{GameRecord, Store};

mod common;

use common::{run, spawn, temp_dir};

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";

fn referee(dir: &Path) -> Referee {
    Referee::with_store(REFEREE, Store::open(dir).unwrap())
}

/// Sends a mail and, as the CLI does after sending, commits it.
fn deliver(referee: &Referee, raw: &str) -> Answer {
    let answer = referee.answer(&Incoming::parse(raw.as_bytes()));
    if let Answer::Reply {
        commit: Some(commit),
        ..
    } = &answer
    {
        referee.commit(commit).unwrap();
    }
    answer
}

fn replies(answer: Answer) -> Vec<Outgoing> {
    match answer {
        Answer::Reply { mail, .. } => mail,
        other => panic!("no reply: {other:?}"),
    }
}

fn to(out: &[Outgoing], address: &str) -> Outgoing {
    out.iter()
        .find(|o| o.to.iter().any(|m| m.address == address))
        .cloned()
        .unwrap_or_else(|| panic!("nothing to {address}: {out:?}"))
}

/// What a player's client sends on "reply": to the Reply-To, quoting the body.
fn press_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    let quoted: String = received.body.lines().map(|l| format!("> {l}\n")).collect();
    format!(
        "From: {from}\nTo: {}\nSubject: Re: {}\nMessage-ID: <{message_id}>\n\n{words}\n\n{quoted}",
        received.reply_to.as_deref().unwrap_or(REFEREE),
        received.subject
    )
}

fn challenge(referee: &Referee) -> (Outgoing, Outgoing) {
    let out = replies(deliver(
        referee,
        &format!("From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c1@players.example>\n\nnew super-wari with {BOB}\n"),
    ));
    assert_eq!(out.len(), 2);
    (to(&out, ALICE), to(&out, BOB))
}

fn the_game(dir: &Path) -> GameRecord {
    let store = Store::open(dir).unwrap();
    let games = store.list().unwrap();
    assert_eq!(games.len(), 1);
    games.into_iter().next().unwrap()
}

#[test]
fn a_challenge_starts_a_stored_game_and_mails_each_player_their_own_key() {
    let dir = temp_dir("challenge");
    let (alice, bob) = challenge(&referee(&dir));
    let record = the_game(&dir);
    assert!(
        alice.subject.contains(&record.id) && alice.body.contains(&format!("id {}", record.id))
    );
    let (alice_key, bob_key) = (
        alice.reply_to.clone().unwrap(),
        bob.reply_to.clone().unwrap(),
    );
    assert_ne!(alice_key, bob_key);
    assert!(
        alice_key.starts_with(&format!("referee+{}-", record.id)),
        "{alice_key}"
    );
    assert!(
        !alice.body.contains(&bob_key[8..27]),
        "Alice's mail must not carry Bob's key"
    );
    assert!(alice.body.contains("It is Alice's move (South)"));
    assert_eq!(record.south.address.as_deref(), Some(ALICE));
    assert_eq!(record.north.address.as_deref(), Some(BOB));
}

#[test]
fn a_whole_game_where_each_player_only_presses_reply() {
    let dir = temp_dir("whole");
    let referee = referee(&dir);
    let (mut alice, mut bob) = challenge(&referee);
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
        let out = replies(deliver(
            &referee,
            &press_reply(
                from,
                received,
                &format!("move {pit}"),
                &format!("m{n}@players.example"),
            ),
        ));
        assert!(
            !out[0].body.contains("no move was played"),
            "{}",
            out[0].body
        );
        alice = to(&out, ALICE);
        bob = to(&out, BOB);
    }
    let record = the_game(&dir);
    let sheet = record.sheet().unwrap();
    assert!(sheet.game.is_over(), "the game ends");
    assert!(alice.body.contains("Result: "));
    assert!(record.mails.iter().all(|m| m.sent) && record.outbox.is_empty());
}

#[test]
fn a_forged_from_without_the_key_moves_nothing() {
    let dir = temp_dir("forged");
    let referee = referee(&dir);
    let (_, bob) = challenge(&referee);
    // Bob writes as Alice, to the plain address, quoting his own mail's board but not his key line.
    let board: String = bob
        .body
        .lines()
        .filter(|l| !l.contains("key"))
        .map(|l| format!("> {l}\n"))
        .collect();
    let forged = format!("From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: Re: x\nMessage-ID: <f1@players.example>\n\nmove c\n\n{board}");
    let out = replies(deliver(&referee, &forged));
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].to[0].address, ALICE,
        "the answer goes to the sender only"
    );
    assert!(out[0].body.contains("no valid game key"), "{}", out[0].body);
    assert!(!out[0].body.contains("+---"), "no board");
    assert!(!out[0].body.contains("referee+"), "no key");
    assert_eq!(the_game(&dir).turns.len(), 0);
    // With his own key, Bob still cannot move for Alice.
    let out = replies(deliver(
        &referee,
        &press_reply(ALICE, &bob, "move c", "f2@players.example"),
    ));
    assert!(
        out[0].body.contains("it is Alice's move (South)"),
        "{}",
        out[0].body
    );
    assert_eq!(the_game(&dir).turns.len(), 0);
}

#[test]
fn the_same_mail_twice_moves_once_and_an_unsent_reply_is_sent_again() {
    let dir = temp_dir("twice");
    let referee = referee(&dir);
    let (alice, _) = challenge(&referee);
    let mail = press_reply(ALICE, &alice, "move c", "same@players.example");
    let first = replies(deliver(&referee, &mail));
    assert!(
        matches!(deliver(&referee, &mail), Answer::Ignore(why) if why.contains("already handled"))
    );
    assert_eq!(the_game(&dir).turns.len(), 1);
    // A reply whose send failed (no commit) is resent, and still moves once.
    let mail = press_reply(BOB, &to(&first, BOB), "move a", "unsent@players.example");
    let unsent = replies(referee.answer(&Incoming::parse(mail.as_bytes())));
    let again = replies(referee.answer(&Incoming::parse(mail.as_bytes())));
    assert_eq!(unsent, again);
    assert_eq!(the_game(&dir).turns.len(), 2);
    assert_eq!(the_game(&dir).outbox.len(), 2);
}

#[test]
fn a_challenge_delivered_twice_starts_one_game() {
    let dir = temp_dir("challenge-twice");
    let referee = referee(&dir);
    challenge(&referee);
    let again = deliver(
        &referee,
        &format!("From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c1@players.example>\n\nnew super-wari with {BOB}\n"),
    );
    assert!(matches!(again, Answer::Ignore(why) if why.contains("already handled")));
    the_game(&dir);
}

#[test]
fn an_old_board_gets_the_current_one_not_a_wrong_move() {
    let dir = temp_dir("stale");
    let referee = referee(&dir);
    let (alice, _) = challenge(&referee);
    replies(deliver(
        &referee,
        &press_reply(ALICE, &alice, "move c", "s1@players.example"),
    ));
    // Alice answers her first mail again, whose board is now out of date.
    let out = replies(deliver(
        &referee,
        &press_reply(ALICE, &alice, "move d", "s2@players.example"),
    ));
    assert!(
        out[0].body.contains("out of date") || out[0].body.contains("Bob's move"),
        "{}",
        out[0].body
    );
    assert_eq!(the_game(&dir).turns.len(), 1);
}

#[test]
fn twenty_deliveries_of_one_move_at_once_apply_it_once() {
    let dir = temp_dir("twenty");
    let (alice, _) = challenge(&referee(&dir));
    let mail = press_reply(ALICE, &alice, "move c", "burst@players.example");
    let out_dir = dir.join("out");
    let children: Vec<_> = (0..20)
        .map(|_| {
            let send = format!("dir:{}", out_dir.display());
            spawn(
                &[
                    "mail",
                    "--from",
                    REFEREE,
                    "--store",
                    dir.to_str().unwrap(),
                    "--send",
                    &send,
                ],
                mail.as_bytes(),
            )
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let record = the_game(&dir);
    assert_eq!(record.turns.len(), 1, "exactly one move");
    assert_eq!(
        record
            .mails
            .iter()
            .filter(|m| m.message_id == "burst@players.example")
            .count(),
        1
    );
    let sent = std::fs::read_dir(&out_dir).unwrap().count();
    assert_eq!(sent, 2, "one reply to each player, once");
}

#[test]
fn a_process_killed_while_saving_leaves_the_old_or_the_new_game() {
    let dir = temp_dir("killed");
    let (mut alice, mut bob) = challenge(&referee(&dir));
    let mut rng = SplitMix64::new(11);
    let store = dir.to_str().unwrap().to_string();
    for n in 0..40 {
        let before = the_game(&dir).turns.len();
        let sheet = Sheet::parse(&alice.body).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        let pit = sheet.game.legal_moves().first().unwrap();
        let (from, received) = if side == Side::South {
            (ALICE, &alice)
        } else {
            (BOB, &bob)
        };
        let mail = press_reply(
            from,
            received,
            &format!("move {pit}"),
            &format!("k{n}@players.example"),
        );
        let mut child = spawn(
            &["mail", "--from", REFEREE, "--store", &store],
            mail.as_bytes(),
        );
        std::thread::sleep(std::time::Duration::from_micros(rng.below(3000) as u64));
        let _ = child.kill();
        let _ = child.wait();
        // The file always parses, and holds the move or not: never half of it.
        let record = the_game(&dir);
        let after = record.turns.len();
        assert!(
            after == before || after == before + 1,
            "{before} -> {after}"
        );
        record.sheet().unwrap();
        // Deliver it again, as the MTA would, so the game goes on. If the
        // killed process had finished, its replies are gone with its output:
        // each player asks for the board instead.
        match deliver(&referee(&dir), &mail) {
            Answer::Reply { mail: out, .. } if out.len() == 2 => {
                alice = to(&out, ALICE);
                bob = to(&out, BOB);
            }
            Answer::Ignore(why) => {
                assert!(why.contains("already handled"), "{why}");
                let ask = |from: &str, received: &Outgoing, n: &str| {
                    replies(deliver(
                        &referee(&dir),
                        &press_reply(from, received, "board", n),
                    ))
                    .remove(0)
                };
                alice = ask(ALICE, &alice, &format!("ba{n}@players.example"));
                bob = ask(BOB, &bob, &format!("bb{n}@players.example"));
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(the_game(&dir).turns.len() >= 10);
}

#[test]
fn reminders_and_forfeits_follow_the_clock() {
    let dir = temp_dir("remind");
    let referee = referee(&dir);
    challenge(&referee);
    let store = Store::open(&dir).unwrap();
    let mut record = the_game(&dir);
    let now = mancala::store::now();
    // Set the clock back: Alice has not moved for 8 days.
    record.last_activity = now - 8 * 86_400;
    store.save(&record).unwrap();
    let done = referee.remind(now, 7 * 86_400, 21 * 86_400).unwrap();
    assert_eq!(done.len(), 1);
    // Not yet sent (no commit): the next run sends it again, and nudges no more.
    let again = referee.remind(now + 60, 7 * 86_400, 21 * 86_400).unwrap();
    assert!(
        matches!(&again[..], [(mancala::mail::hosted::Reminder::Resent { .. }, mails, _)] if mails == &done[0].1)
    );
    referee.commit(&again[0].2).unwrap();
    assert!(
        matches!(&done[0].0, mancala::mail::hosted::Reminder::Nudged { player, .. } if player == "Alice")
    );
    assert_eq!(done[0].1.len(), 1);
    assert!(done[0].1[0].body.contains("A reminder"));
    // Once only.
    assert!(referee
        .remind(now, 7 * 86_400, 21 * 86_400)
        .unwrap()
        .is_empty());
    // 22 days: the game is forfeited, and both players are told.
    let mut record = the_game(&dir);
    record.last_activity = now - 22 * 86_400;
    store.save(&record).unwrap();
    let done = referee.remind(now, 7 * 86_400, 21 * 86_400).unwrap();
    assert!(
        matches!(&done[0].0, mancala::mail::hosted::Reminder::Forfeited { player, .. } if player == "Alice")
    );
    assert_eq!(done[0].1.len(), 2);
    let sheet = the_game(&dir).sheet().unwrap();
    assert_eq!(sheet.game.outcome().unwrap().winner, Some(Side::North));
    // The CLI does the same from cron.
    let out = run(
        &[
            "remind",
            "--store",
            dir.to_str().unwrap(),
            "--from",
            REFEREE,
        ],
        b"",
    );
    assert!(out.status.success());
}

#[test]
fn games_and_show_read_the_store() {
    let dir = temp_dir("cli");
    challenge(&referee(&dir));
    let id = the_game(&dir).id;
    let out = run(&["games", "--store", dir.to_str().unwrap()], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&id) && text.contains("Alice to move"),
        "{text}"
    );
    let out = run(&["games", "--json", "--store", dir.to_str().unwrap()], b"");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["id"], id.as_str());
    let out = run(
        &["show", "--game", &id, "--store", dir.to_str().unwrap()],
        b"",
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains(&format!("id {id}")));
    let out = run(
        &["show", "--game", "nosuch", "--store", dir.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(65));
}

#[test]
fn the_broadcast_with_a_first_move_starts_a_stored_game() {
    let dir = temp_dir("broadcast");
    let referee = referee(&dir);
    let broadcast = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/seed-000.txt"
    ))
    .unwrap();
    let mail = format!("From: Yourname <{ALICE}>\nTo: {REFEREE}\nCc: Bill <{BOB}>\nSubject: Super-Wari\nMessage-ID: <b0@players.example>\n\nMove: c\n\n{broadcast}");
    let out = replies(deliver(&referee, &mail));
    assert_eq!(out.len(), 2);
    let record = the_game(&dir);
    assert_eq!(record.turns.len(), 1);
    assert_eq!(record.turns[0].sowings, "c");
    assert_eq!(
        (record.south.name.as_str(), record.north.name.as_str()),
        ("Yourname", "Bill")
    );
    // Without an opponent, there is nobody to mail: the sender is told.
    let dir = temp_dir("broadcast-alone");
    let alone = mail.replace(&format!("Cc: Bill <{BOB}>\n"), "");
    let alone_referee = Referee::with_store(REFEREE, Store::open(&dir).unwrap());
    let out = replies(deliver(&alone_referee, &alone));
    assert!(out[0].body.contains("no opponent"), "{}", out[0].body);
}

#[test]
fn a_game_against_the_computer_by_mail() {
    let dir = temp_dir("computer");
    let referee = referee(&dir);
    // Alice plays North: the computer (South) moves first, in the same reply.
    let out = replies(deliver(
        &referee,
        &format!("From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <pc-start@players.example>\n\nnew mankala with computer as north\n"),
    ));
    assert_eq!(out.len(), 1, "only Alice gets mail");
    let mut mail = out.into_iter().next().unwrap();
    assert!(
        mail.body.contains("Computer (South) played"),
        "{}",
        mail.body
    );
    assert_eq!(the_game(&dir).computer.as_deref(), Some("south"));
    let mut rng = SplitMix64::new(5);
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
        let reply = press_reply(
            ALICE,
            &mail,
            &format!("move {pit}"),
            &format!("pc{n}@players.example"),
        );
        mail = replies(deliver(&referee, &reply)).remove(0);
        assert!(!mail.body.contains("no move was played"), "{}", mail.body);
    }
    assert!(the_game(&dir).sheet().unwrap().game.is_over());
    assert!(mail.body.contains("Result: "));
}

#[test]
fn no_mail_makes_the_hosted_referee_panic() {
    let dir = temp_dir("fuzz");
    let referee = referee(&dir);
    let (alice, bob) = challenge(&referee);
    let seeds: Vec<Vec<u8>> = vec![
        press_reply(ALICE, &alice, "move c", "z1@players.example").into_bytes(),
        press_reply(BOB, &bob, "resign", "z2@players.example").into_bytes(),
        press_reply(ALICE, &alice, "board\nhelp\ngames", "z3@players.example").into_bytes(),
        format!("From: {ALICE}\nSubject: new wari stones 5 with {BOB} as north\n\nnew mankala with computer\n").into_bytes(),
    ];
    let mut rng = SplitMix64::new(77);
    for round in 0..1500 {
        let mut raw = seeds[round % seeds.len()].clone();
        common::mutate(&mut raw, &seeds, 6, 80, &mut rng);
        let _ = deliver(&referee, &String::from_utf8_lossy(&raw));
    }
    // Whatever happened, every game file still reads back.
    for record in Store::open(&dir).unwrap().list().unwrap() {
        record.sheet().unwrap();
    }
}

#[test]
fn board_sends_the_board_again_unless_a_move_comes_with_it() {
    let dir = temp_dir("board");
    let referee = referee(&dir);
    let (alice, _) = challenge(&referee);
    let out = replies(deliver(
        &referee,
        &press_reply(ALICE, &alice, "board", "bd1@players.example"),
    ));
    assert_eq!(out.len(), 1);
    assert!(
        out[0].body.starts_with("The board, as you asked:"),
        "{}",
        out[0].body
    );
    assert_eq!(the_game(&dir).turns.len(), 0);
    let out = replies(deliver(
        &referee,
        &press_reply(ALICE, &alice, "board\nmove c", "bd2@players.example"),
    ));
    assert_eq!(out.len(), 2, "a move goes to both");
    assert_eq!(the_game(&dir).turns.len(), 1);
}

#[test]
fn a_new_store_made_by_ten_deliveries_at_once_has_one_key() {
    let dir = temp_dir("new-store");
    let store_dir = dir.join("store");
    let children: Vec<_> = (0..10)
        .map(|n| {
            let mail = format!(
                "From: {ALICE}\nTo: {REFEREE}\nSubject: hi\nMessage-ID: <ns{n}@players.example>\n\nnew wari with {BOB}\n"
            );
            spawn(&["mail", "--from", REFEREE, "--store", store_dir.to_str().unwrap()], mail.as_bytes())
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    assert!(outputs.iter().all(|o| o.status.success()));
    let store = Store::open(&store_dir).unwrap();
    assert_eq!(store.list().unwrap().len(), 10);
    // Every key any process mailed out is one the store's secret vouches for.
    let secrets = store.secrets().unwrap();
    for output in outputs {
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("Your key for game"))
            .expect("a key line");
        let token = line.rsplit(' ').next().unwrap();
        assert!(secrets.check(token).is_some(), "{token} does not check");
    }
}
