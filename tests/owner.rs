//! Bill Taylor's own mailbox, as the broadcast asks: players reply to his
//! address with the board and their move; `mancala mail --owner ...
//! --filter` (a procmail `:0 fw` filter) referees it. The player is
//! answered through --send; Bill's inbox gets his copy of the new board,
//! and he moves by replying to it as anyone would.

use std::path::Path;

use mancala::engine::SplitMix64;
use mancala::mail::incoming::Incoming;
use mancala::sheet::Sheet;

mod common;

use common::{repo, run, temp_dir};

const BILL: &str = "bill@players.example";
const YOU: &str = "you@players.example";

/// The filter run on one mail: what Bill's inbox gets.
fn filter(out: &Path, mail: &str) -> Vec<u8> {
    let send = format!("dir:{}", out.display());
    let result = run(
        &[
            "mail",
            "--owner",
            &format!("Bill Taylor <{BILL}>"),
            "--filter",
            "--send",
            &send,
        ],
        mail.as_bytes(),
    );
    assert!(result.status.success(), "{}", common::stderr(&result));
    result.stdout
}

/// The newest mail sent to the player, and how many there are.
fn to_player(out: &Path) -> (Incoming, usize) {
    let mut files: Vec<_> = std::fs::read_dir(out)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
    let newest = files.last().expect("a mail to the player");
    (
        Incoming::parse(&std::fs::read(newest).unwrap()),
        files.len(),
    )
}

fn quoted(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\n")).collect()
}

#[test]
fn a_whole_game_on_bills_own_mailbox() {
    let dir = temp_dir("owner-game");
    let out = dir.join("out");
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let first = format!(
        "From: Yourname <{YOU}>\nTo: Bill Taylor <{BILL}>\nSubject: Re: Super-Wari\nMessage-ID: <o0@players.example>\n\nMove: c\n\n{}",
        quoted(&broadcast)
    );
    let mut inbox = Incoming::parse(&filter(&out, &first));
    assert_eq!(inbox.from.as_ref().unwrap().address, BILL);
    assert!(inbox.text.contains("It is Bill's move"), "{}", inbox.text);
    let (player, sent) = to_player(&out);
    assert_eq!(sent, 1);
    assert_eq!(
        player.from.as_ref().unwrap().address,
        BILL,
        "answers come from Bill's address"
    );
    let mut rng = SplitMix64::new(9);
    let mut player_text = player.text;
    for n in 1..60 {
        let sheet = Sheet::parse(&inbox.text).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        let mail = if sheet.players.get(side).address.as_deref() == Some(BILL) {
            // Bill presses reply on his inbox copy: to his own address.
            format!(
                "From: Bill Taylor <{BILL}>\nTo: {BILL}\nSubject: Re: Super-Wari\nMessage-ID: <b{n}@players.example>\n\nmove {pit}\n\n{}",
                quoted(&inbox.text)
            )
        } else {
            format!(
                "From: Yourname <{YOU}>\nTo: {BILL}\nSubject: Re: Super-Wari\nMessage-ID: <y{n}@players.example>\n\nmove {pit}\n\n{}",
                quoted(&player_text)
            )
        };
        inbox = Incoming::parse(&filter(&out, &mail));
        assert!(!inbox.text.contains("no move was played"), "{}", inbox.text);
        let (player, count) = to_player(&out);
        assert_eq!(count, n + 1, "one mail to the player a move");
        player_text = player.text;
        assert_eq!(
            Sheet::parse(&inbox.text).unwrap().game.sowings(),
            Sheet::parse(&player_text).unwrap().game.sowings()
        );
    }
    assert!(Sheet::parse(&inbox.text).unwrap().game.ply() >= 30);
}

#[test]
fn mail_about_no_game_reaches_bill_unchanged_and_nothing_is_sent() {
    let dir = temp_dir("owner-other");
    let out = dir.join("out");
    let mails = [
        format!("From: Carol <carol@players.example>\nTo: {BILL}\nSubject: Lunch?\nMessage-ID: <l1@x>\n\nLunch tomorrow? I could move a chair.\n"),
        format!("From: Bill Taylor <{BILL}>\nTo: {BILL}\nSubject: note to self\n\nbuy stones\n"),
        "From: MAILER-DAEMON@players.example\nReturn-Path: <>\nSubject: failure\n\nmove c\n".to_string(),
    ];
    for mail in &mails {
        assert_eq!(filter(&out, mail), mail.as_bytes(), "{mail}");
    }
    // The referee's own copy, fed back (a loop), is left alone too.
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let first = format!(
        "From: {YOU}\nTo: {BILL}\nMessage-ID: <o1@x>\n\nMove: c\n\n{}",
        quoted(&broadcast)
    );
    let copy = filter(&out, &first);
    let again = String::from_utf8(copy.clone()).unwrap();
    assert_eq!(filter(&out, &again), copy);
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "only the first move's answer"
    );
}
