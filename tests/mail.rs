//! The referee by mail, without an MTA: every fixture mail of the corpus
//! (made with real clients where possible) with its expected outcome, the
//! broadcast mailed back, mail that must never be answered, and whole games
//! played by replying to the referee's own mails.

use std::path::{Path, PathBuf};

use mancala::engine::{Position, Ruleset, Side, SplitMix64};
use mancala::mail::letter::Letter;
use mancala::mail::outgoing::Outgoing;
use mancala::mail::sheet_referee::{Decision, SheetReferee};
use mancala::sheet::{parse_sowings, Players, Sheet};

mod common;

use common::{repo, squeezed};

const REFEREE: &str = "referee@referee.example";

fn referee() -> SheetReferee {
    SheetReferee::new(REFEREE)
}

fn answer(raw: &[u8]) -> Decision {
    let referee = referee();
    referee.decide(&Letter::read(raw, &referee.identity))
}

/// The replies: the same body to each recipient, one mail each.
fn replies(raw: &[u8]) -> Vec<Outgoing> {
    match answer(raw) {
        Decision::Send { mail, .. } => {
            // Each reader's own mail (what is awaited of them), one board.
            assert!(!mail.is_empty());
            let boards: Vec<Option<usize>> = mail
                .iter()
                .map(|m| Sheet::parse(&m.body).ok().map(|s| s.game.ply()))
                .collect();
            assert!(boards.iter().all(|b| *b == boards[0]), "{boards:?}");
            mail
        }
        other => panic!("no reply: {other:?}"),
    }
}

fn reply(raw: &[u8]) -> Outgoing {
    replies(raw).remove(0)
}

/// `text` quoted as mail clients quote it.
fn quote(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\n")).collect()
}

/// Bob's reply: his own words above the quoted `original`.
fn bob_replies(words: &str, original: &str) -> Vec<u8> {
    let quoted = quote(original);
    format!("From: bob@players.example\nTo: {REFEREE}\nSubject: Re: x\n\n{words}\n\n{quoted}")
        .into_bytes()
}

fn addresses(out: &[Outgoing]) -> Vec<&str> {
    out.iter().map(|m| m.to.address.as_str()).collect()
}

/// The sheet a fixture answers: the source mail's, which the fixture quotes.
fn source_sheet(source: &str) -> Sheet {
    let text = std::fs::read_to_string(repo(&format!("tests/mail/sources/{source}"))).unwrap();
    Sheet::parse(&text).unwrap()
}

#[derive(serde::Deserialize)]
struct Expected {
    description: String,
    source: String,
    #[serde(rename = "move")]
    sowings: Option<String>,
    error: Option<String>,
    /// The sheet the fixture quotes, when it is not the source's own.
    #[serde(default)]
    quotes: Option<String>,
}

fn check_fixture(eml: &Path, raw: &[u8], expected: &Expected) {
    let name = eml.file_name().unwrap().to_string_lossy();
    let all = match answer(raw) {
        Decision::Send { mail, .. } => mail,
        other => panic!("{name}: no reply: {other:?}"),
    };
    let out = all[0].clone();
    let mut sheet = match &expected.quotes {
        Some(path) => Sheet::parse(&std::fs::read_to_string(repo(path)).unwrap()).unwrap(),
        None => source_sheet(&expected.source),
    };
    match (&expected.sowings, &expected.error) {
        (Some(sowings), None) => {
            assert!(
                !out.body.contains("no move was played"),
                "{name} ({}): refused:\n{}",
                expected.description,
                out.body
            );
            sheet.play(&parse_sowings(sowings).unwrap()).unwrap();
            let replied = Sheet::parse(&out.body)
                .unwrap_or_else(|e| panic!("{name}: reply unreadable: {e}\n{}", out.body));
            assert_eq!(
                replied.game.sowings(),
                sheet.game.sowings(),
                "{name}: {}",
                expected.description
            );
            assert_eq!(
                addresses(&all),
                ["alice@players.example", "bob@players.example"],
                "{name}"
            );
        }
        (None, Some(error)) => {
            assert!(
                out.body.contains("no move was played"),
                "{name}: played:\n{}",
                out.body
            );
            assert!(
                out.body.contains(error.as_str()),
                "{name}: no '{error}' in\n{}",
                out.body
            );
            assert_eq!(
                addresses(&all),
                ["bob@players.example"],
                "{name}: a refusal goes to the sender alone"
            );
        }
        _ => panic!("{name}: the .json needs a move or an error"),
    }
}

#[test]
fn every_fixture_gets_its_expected_answer_with_lf_and_crlf() {
    let mut checked = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo("tests/mail/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    paths.sort();
    for eml in paths {
        let expected: Expected =
            serde_json::from_str(&std::fs::read_to_string(eml.with_extension("json")).unwrap())
                .unwrap();
        let raw = std::fs::read(&eml).unwrap();
        let lf: Vec<u8> = String::from_utf8_lossy(&raw)
            .replace("\r\n", "\n")
            .into_bytes();
        let crlf: Vec<u8> = String::from_utf8_lossy(&lf)
            .replace('\n', "\r\n")
            .into_bytes();
        check_fixture(&eml, &lf, &expected);
        check_fixture(&eml, &crlf, &expected);
        checked += 1;
    }
    assert!(
        checked >= 20,
        "only {checked} fixtures: the corpus is missing"
    );
}

#[test]
fn the_broadcast_mailed_back_with_a_move_line_starts_a_game() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let mail = format!(
        "From: Yourname <you@players.example>\nTo: {REFEREE}\nCc: Bill <bill@players.example>\n\
         Subject: Super-Wari?\nMessage-ID: <start@players.example>\n\nMove: c\n\n{broadcast}"
    );
    let out = reply(mail.as_bytes());
    let sheet = Sheet::parse(&out.body).unwrap();
    let south = sheet
        .game
        .position()
        .pits(mancala::engine::Side::South)
        .to_vec();
    assert_eq!(south, [3, 3, 0, 4, 4, 4, 3, 3], "South's c is sown");
    assert_eq!(
        sheet.players.south.address.as_deref(),
        Some("you@players.example")
    );
    assert_eq!(
        sheet.players.north.address.as_deref(),
        Some("bill@players.example")
    );
    assert_eq!(
        (
            sheet.name(mancala::engine::Side::North),
            sheet.name(mancala::engine::Side::South)
        ),
        ("Bill", "Yourname")
    );
    assert_eq!(
        addresses(&replies(mail.as_bytes())),
        ["you@players.example", "bill@players.example"]
    );
    assert_eq!(
        out.subject,
        "Super-Wari game: Bill to move — Yourname played c"
    );
    assert_eq!(out.in_reply_to.as_deref(), Some("start@players.example"));
    assert!(
        out.body
            .starts_with("Super-Wari game: Bill to move — Yourname played c.\n"),
        "{}",
        out.body
    );
    // How to move is told to Bill, whose move it is, not to the one who moved.
    let bill = replies(mail.as_bytes()).remove(1);
    assert!(bill
        .body
        .contains("It is Bill's move (North). Legal moves: a, b, c, d, e, f, g, h."));
    assert_eq!(
        bill.subject,
        "Super-Wari game: your move — Yourname played c"
    );
    assert!(!out.body.contains("Legal moves"), "{}", out.body);
    assert!(
        !out.body.contains("writes:"),
        "a pasted broadcast is not relayed as a comment"
    );
    // Names written on the wrong rows (Zoe's on Bill's) are not kept: each
    // seat takes the name the mail gives its address. Otherwise a name on
    // the sheet stands, and a placeholder (`Yourname`) takes the mail's.
    let swapped = mail
        .replacen("|   Bill", "|   Zoe", 1)
        .replacen("|   Yourname", "|   Bill", 1)
        .replace("Yourname <you@", "Zoe <you@");
    let names = |mail: &str| {
        let sheet = Sheet::parse(&reply(mail.as_bytes()).body).unwrap();
        (sheet.players.south.name, sheet.players.north.name)
    };
    assert_eq!(names(&swapped), ("Zoe".into(), "Bill".into()));
    let unnamed = swapped.replace(
        "Cc: Bill <bill@players.example>",
        "Cc: bill@players.example",
    );
    assert_eq!(names(&unnamed).1, "bill", "Zoe's name is not Bill's");
    let half = mail
        .replacen("|   Bill", "|   Zoe", 1)
        .replace("Yourname <you@", "Zoe <you@");
    assert_eq!(names(&half), ("Zoe".into(), "Bill".into()));
    // Bill Taylor pasting his own broadcast, "Bill" left on the other row.
    let own_sheet = mail
        .replace(
            "From: Yourname <you@players.example>",
            "From: Bill Taylor <bill@players.example>",
        )
        .replace(
            "Cc: Bill <bill@players.example>",
            "Cc: Zoe <you@players.example>",
        );
    assert_eq!(names(&own_sheet), ("Bill Taylor".into(), "Zoe".into()));
    let own = mail.replacen("|   Bill", "|   Bill T.", 1);
    assert_eq!(names(&own).1, "Bill T.", "the sheet's name, as written");
}

/// Bill's broadcast asks for the board "with your first move made": the
/// player sows c on the board and writes it in the log, with no `?` and
/// no move line. That is the move; the same board with the log's `?`
/// kept (the referee's own mark of a move awaited) is no move.
#[test]
fn the_broadcast_with_the_first_move_made_on_board_and_log_is_that_move() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let made = broadcast
        .replace(
            "|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Yourname",
            "|  3 |  3 |  0 |  4 |  4 |  4 |  3 |  3 |   Yourname",
        )
        .replace("1.    ?", "1.    c");
    assert_ne!(made, broadcast, "the fixture's board and log were edited");
    let mail = |sheet: &str| {
        format!(
            "From: Yourname <you@players.example>\nTo: {REFEREE}\nCc: Bill <bill@players.example>\n\
             Subject: Super-Wari?\nMessage-ID: <made@players.example>\n\n{sheet}"
        )
    };
    let out = replies(mail(&made).as_bytes());
    assert_eq!(
        addresses(&out),
        ["you@players.example", "bill@players.example"]
    );
    assert_eq!(
        out[0].subject,
        "Super-Wari game: Bill to move — Yourname played c"
    );
    let sheet = Sheet::parse(&out[1].body).unwrap();
    assert_eq!(sheet.game.ply(), 1, "c played once, not twice");
    // With a move line too (the owner filter reads only those): the same
    // move, played once; another move is refused as disagreeing.
    let with_line = replies(mail(&format!("move c\n\n{made}")).as_bytes());
    assert_eq!(Sheet::parse(&with_line[1].body).unwrap().game.ply(), 1);
    let other = reply(mail(&format!("move d\n\n{made}")).as_bytes());
    assert!(other.body.contains("no move was played"), "{}", other.body);
    let awaiting = made.replace("1.    c", "1.    c      ?");
    let refused = reply(mail(&awaiting).as_bytes());
    assert!(refused.body.contains("no move found"), "{}", refused.body);
    // "Your first move made" on the board alone, the log left as it was:
    // the one turn that draws that board is the move.
    let on_board = made.replace("1.    c", "1.    ?");
    let out = replies(mail(&on_board).as_bytes());
    assert_eq!(
        out[0].subject,
        "Super-Wari game: Bill to move — Yourname played c"
    );
    let other = reply(mail(&format!("move d\n\n{on_board}")).as_bytes());
    assert!(
        other
            .body
            .contains("the move line says d but the sheet shows c"),
        "{}",
        other.body
    );
}

/// A board drawn alone that two moves leave alike (Wari's last sweep: the
/// mover, unable to feed, takes the rest whichever pit is sown) names them
/// both and plays neither.
#[test]
fn a_board_drawn_alone_that_two_moves_leave_is_refused_naming_both() {
    let rules = Ruleset::Wari.rules();
    let ends = [1, 1, 0, 0, 0, 0];
    let start = Position::set_up(rules, &ends, &[0; 6], Some([23, 23]), Side::South).unwrap();
    let drawn = Sheet::from_position(start, Players::default())
        .to_string()
        .replace("|  1 |  1 |  0 |", "|  0 |  0 |  0 |")
        .replace("Captured: south 23", "Captured: south 25");
    let mail = format!(
        "From: South <south@players.example>\nTo: {REFEREE}\nCc: North <north@players.example>\n\
         Subject: Wari\nMessage-ID: <alike@players.example>\n\n{drawn}"
    );
    let refused = reply(mail.as_bytes());
    let words = squeezed(&refused.body);
    assert!(
        words.contains(
            "the board you drew could come from a or from b, so it shows no one move: \
             write yours in the log in place of its ?, or on a line such as: move a"
        ),
        "{}",
        refused.body
    );
    // A move line naming one of them says which.
    let named = mail.replace("\n\nGame:", "\n\nmove b\n\nGame:");
    let out = replies(named.as_bytes());
    assert!(out[0].body.contains("South played b."), "{}", out[0].body);
}

/// A client that quotes the whole broadcast, with its board pasted below
/// and the first move made on it: of the two sheets, the one whose log
/// is the longer, the pasted one, is read.
#[test]
fn the_broadcast_quoted_and_its_board_pasted_below_with_the_move_made_is_that_move() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let start = broadcast.find("   h    g    f").unwrap();
    let end = broadcast[start..].find("4.").unwrap() + start + 2;
    let made = broadcast[start..end]
        .replace(
            "|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Yourname",
            "|  3 |  3 |  0 |  4 |  4 |  4 |  3 |  3 |   Zoe",
        )
        .replace("Yourname", "Zoe")
        .replace("1.    ?", "1.    c");
    let mail = format!(
        "From: Zoe <zoe@players.example>\nTo: {REFEREE}\nCc: Bill <bill@players.example>\n\
         Subject: Re: Super-Wari\nMessage-ID: <pasted@players.example>\n\n\
         On Mon, 1 Nov 1999, Bill Taylor wrote:\n{}\nHere's my board, Bill:\n\n{made}\n\nZoe\n",
        quote(&broadcast)
    );
    let out = replies(mail.as_bytes());
    assert_eq!(
        addresses(&out),
        ["zoe@players.example", "bill@players.example"]
    );
    assert!(
        out[0].subject.contains("Zoe played c"),
        "{}",
        out[0].subject
    );
}

/// The game's last move made by hand on the sheet (board and log, no
/// result written) is that move: the game ends with its result; the
/// referee's own sheet of the finished game, quoted back, takes no move.
#[test]
fn the_last_move_made_by_hand_on_the_sheet_ends_the_game() {
    let (before, last) = (0..)
        .find_map(|seed| {
            let mut rng = SplitMix64::new(seed);
            let mut sheet = Sheet::new(Ruleset::Mankala.rules(), Players::named("Alice", "Bob"));
            sheet.players.south.address = Some("alice@players.example".into());
            sheet.players.north.address = Some("bob@players.example".into());
            loop {
                let legal = sheet.game.legal_moves();
                let pit = legal.nth(rng.below(legal.len())).unwrap();
                let mut after = sheet.clone();
                after.game.play(pit).unwrap();
                if after.game.is_over() {
                    // A one-sowing last turn, so the log's turn is that sowing.
                    let whole = after.game.ply() == sheet.game.ply() + 1
                        && sheet.game.to_move() != after.game.to_move();
                    return whole.then_some((sheet, pit));
                }
                sheet = after;
            }
        })
        .unwrap();
    let side = before.game.to_move().unwrap();
    let mut after = before.clone();
    after.game.play(last).unwrap();
    let finished = after.to_string();
    let by_hand: String = finished
        .lines()
        .scan(false, |result, line| {
            // The result's two lines, which the player does not write.
            let skip = *result || line.starts_with("Result:");
            *result = line.starts_with("Result:");
            Some((!skip).then_some(line))
        })
        .flatten()
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(by_hand, finished);
    let from = before.players.get(side).address.clone().unwrap();
    let mail = |sheet: &str| {
        format!(
            "From: {from}\nTo: {REFEREE}\nSubject: Re: Mankala\n\n{}",
            quote(sheet)
        )
    };
    let out = replies(mail(&by_hand).as_bytes());
    assert!(out[0].subject.contains("game over"), "{}", out[0].subject);
    assert!(
        out[0].body.contains(&format!("played {last}")),
        "{}",
        out[0].body
    );
    assert!(Sheet::parse(&out[0].body).unwrap().game.is_over());
    assert!(out[0].body.contains("Result:"), "{}", out[0].body);
    let again = reply(mail(&finished).as_bytes());
    assert!(again.body.contains("the game is over"), "{}", again.body);
}

/// A long name beside a grid row: quoted twice, every line of the sheet
/// still fits 72 columns, so a mail program that wraps there leaves the
/// grid whole, and the reply's move is played. The name reads back whole
/// from the address lines.
#[test]
fn a_long_name_leaves_the_grid_whole_when_a_client_wraps_the_quote_at_72() {
    let long = "Bartholomew Fitzgerald-Smithson the Third";
    let mut sheet = Sheet::new(Ruleset::SuperWari.rules(), Players::named(long, "Bill"));
    sheet.players.south.address = Some("bart@players.example".into());
    sheet.players.north.address = Some("bill@players.example".into());
    sheet.game.play(parse_sowings("c").unwrap()[0]).unwrap();
    let text = sheet.to_string();
    let twice = quote(&quote(&text));
    let grid_and_log = twice.lines().take_while(|l| !l.contains('<'));
    for line in grid_and_log {
        assert!(line.chars().count() <= 72, "{line}");
    }
    // A client that wraps quoted lines at 72, as phones do.
    let wrapped: String = quote(&text)
        .lines()
        .flat_map(|l| match l.char_indices().nth(72) {
            Some(_) => {
                let cut = l[..72].rfind(' ').unwrap_or(72);
                vec![l[..cut].to_string(), format!("> {}", &l[cut + 1..])]
            }
            None => vec![l.to_string()],
        })
        .map(|l| l + "\n")
        .collect();
    let mail = format!(
        "From: Bill <bill@players.example>\nTo: {REFEREE}\nSubject: Re: x\n\nmove d\n\n{wrapped}"
    );
    let out = reply(mail.as_bytes());
    assert!(out.subject.contains("Bill played d"), "{}", out.body);
    let after = Sheet::parse(&out.body).unwrap();
    assert_eq!(after.players.south.name, long, "{}", out.body);
}

/// The broadcast mailed back with no one in Cc: the move is played, and
/// its sender, the only one mailed, is told so.
#[test]
fn a_move_with_no_opponents_address_tells_its_sender_they_alone_were_mailed() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let mail = format!(
        "From: Yourname <you@players.example>\nTo: {REFEREE}\n\
         Subject: Super-Wari?\nMessage-ID: <nocc@players.example>\n\nMove: c\n\n{broadcast}"
    );
    let out = replies(mail.as_bytes());
    assert_eq!(addresses(&out), ["you@players.example"]);
    let words = squeezed(&out[0].body);
    assert!(
        words.contains("Bill has no address in this game, so this mail went to you alone"),
        "{}",
        out[0].body
    );
    // Pressing reply on it themselves, they cannot take Bill's seat too.
    let again = format!(
        "From: Yourname <you@players.example>\nTo: {REFEREE}\nSubject: Re: x\n\
         Message-ID: <nocc2@players.example>\n\nmove e\n\n{}",
        quote(&out[0].body)
    );
    let refused = reply(again.as_bytes());
    let words = squeezed(&refused.body);
    assert!(
        words.contains("no move was played")
            && words.contains(
                "it is Bill's move (North), and you play the other side: forward this mail to Bill"
            ),
        "{}",
        refused.body
    );
}

/// A name written long on the sheet a game begins from is kept to 30
/// characters, cut at a word, as a mail's name is.
#[test]
fn a_long_name_written_on_the_first_sheet_is_kept_to_thirty_characters() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    let long = "Maximilian Alexander Fitzgerald Worthington";
    let mail = format!(
        "From: Max <max@players.example>\nTo: {REFEREE}\nCc: Bill <bill@players.example>\n\
         Subject: Super-Wari?\nMessage-ID: <long@players.example>\n\nmove c\n\n{}",
        broadcast.replace("Yourname", long)
    );
    let out = replies(mail.as_bytes());
    let sheet = Sheet::parse(&out[0].body).unwrap();
    assert_eq!(
        sheet.players.south.name, "Maximilian Alexander",
        "{}",
        out[0].body
    );
}

/// The sheet referee keeps no games: a `resign`, `offer draw` or `help`
/// with no move is told it is not done here and what to do instead, not
/// "no move found".
#[test]
fn a_command_to_the_referee_that_keeps_no_games_is_told_what_it_does() {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    for command in ["resign", "offer draw", "help"] {
        let mail = format!(
            "From: Yourname <you@players.example>\nTo: {REFEREE}\n\
             Subject: Super-Wari?\nMessage-ID: <asked@players.example>\n\n{command}\n\n{broadcast}"
        );
        let refused = reply(mail.as_bytes());
        let words = squeezed(&refused.body);
        assert!(
            words.contains(&format!(
                "'{command}' is not done here: this referee keeps no games"
            )),
            "{command}: {}",
            refused.body
        );
        assert!(words.contains("write to your opponent"), "{}", refused.body);
    }
}

#[test]
fn mail_that_must_not_be_answered_is_not() {
    let sheet = Sheet::new(Ruleset::Wari.rules(), Players::default()).to_string();
    for (headers, why) in [
        (
            "Return-Path: <>\nFrom: MAILER-DAEMON@players.example\n",
            "bounce",
        ),
        ("From: postmaster@players.example\n", "bounce"),
        (
            "From: bob@players.example\nAuto-Submitted: auto-replied\n",
            "Auto-Submitted",
        ),
        (
            "From: bob@players.example\nPrecedence: junk\n",
            "Precedence",
        ),
        (
            "From: bob@players.example\nList-Id: <mancala.lists.example>\n",
            "List-Id",
        ),
        ("From: referee+g1-x@referee.example\n", "own mail"),
        (
            "From: bob@players.example\nX-Loop: referee@referee.example\n",
            "X-Loop",
        ),
        ("To: referee@referee.example\n", "no From"),
    ] {
        let mail = format!("{headers}Subject: Re: Wari\n\nmove a\n\n{sheet}");
        match answer(mail.as_bytes()) {
            Decision::Ignore(reason) => assert!(reason.contains(why), "{headers:?}: {reason}"),
            other => panic!("answered {headers:?}: {other:?}"),
        }
    }
}

#[test]
fn nothing_a_player_writes_reaches_the_headers() {
    let sheet = Sheet::new(
        Ruleset::Mankala.rules(),
        Players::named("Eve\tBcc: x@evil.example", "North"),
    )
    .to_string();
    let mail = format!(
        "From: \"Eve\" <eve@players.example>\nTo: {REFEREE}, =?utf-8?q?Mallory=0D=0ABcc=3A_x=40evil=2Eexample?= <mallory@players.example>\n\
         Subject: =?utf-8?q?Re=3A_hi=0D=0ABcc=3A_x=40evil=2Eexample?=\n\nmove a\n\n{sheet}"
    );
    let mut recipients: Vec<String> = Vec::new();
    for out in replies(mail.as_bytes()) {
        let message = mancala::mail::transport::build(
            &referee().identity,
            &out,
            std::time::SystemTime::now(),
        )
        .unwrap();
        // No header of the message or of its parts (the body's lines are
        // the writer's, and may start with anything a player wrote).
        let formatted = message.formatted();
        let parsed = mail_parser::MessageParser::default()
            .parse(&formatted)
            .unwrap();
        let text = String::from_utf8_lossy(&formatted);
        assert!(parsed.parts.len() > 1, "{text}");
        for part in &parsed.parts {
            for header in &part.headers {
                assert!(!header.name().eq_ignore_ascii_case("bcc"), "{text}");
            }
        }
        recipients.extend(message.envelope().to().iter().map(|a| a.to_string()));
    }
    assert_eq!(
        recipients,
        ["eve@players.example", "mallory@players.example"]
    );
}

/// Bob deletes his `?` and writes no move: the log's last turn, Alice's,
/// is not read as his (the sheet seats his address), nor played again.
#[test]
fn a_log_whose_question_mark_is_deleted_is_no_move_of_the_writer() {
    let sheet = source_sheet("referee-super-wari.eml");
    assert_eq!(sheet.game.to_move(), Some(Side::North));
    let deleted = sheet.to_string().replacen('?', "", 1);
    let out = reply(&bob_replies("", &deleted));
    assert!(out.body.contains("no move found"), "{}", out.body);
    assert_eq!(addresses(&[out]), ["bob@players.example"]);
}

/// A turn begun by mail (`f-?`) finished in the log, the whole turn
/// written (`f-f-a`, f sown once more, as it holds a stone again): every
/// sowing of it is played; and the whole turn on a line beside the same
/// log (`c-f`, where c is empty now) agrees with it.
#[test]
fn a_turn_begun_by_mail_is_finished_whole_in_the_log_and_on_a_line() {
    let alice = |words: &str, sheet: &str| {
        let quoted = quote(sheet);
        format!("From: alice@players.example\nTo: {REFEREE}\nSubject: Re: x\n\n{words}\n\n{quoted}")
            .into_bytes()
    };
    let with_addresses = |mut sheet: Sheet| {
        sheet.players.south.address = Some("alice@players.example".into());
        sheet.players.north.address = Some("bob@players.example".into());
        sheet
    };
    // South's f holds 14: it goes round, back into f, and ends in her store.
    let lap = mancala::engine::Position::set_up(
        Ruleset::Kalah.rules(),
        &[0, 0, 0, 0, 0, 14],
        &[4; 6],
        Some([5, 5]),
        Side::South,
    )
    .unwrap();
    let mut sheet = with_addresses(Sheet::from_position(lap, Players::named("Alice", "Bob")));
    sheet.play(&parse_sowings("f").unwrap()).unwrap();
    assert_eq!(sheet.game.to_move(), Some(Side::South));
    let text = sheet.to_string();
    assert!(text.contains("f-?"), "{text}");
    let sown = |body: &str| -> Vec<String> {
        let after = Sheet::parse(body).unwrap();
        after
            .game
            .sowings()
            .iter()
            .map(|s| s.pit.to_string())
            .collect()
    };
    let out = reply(&alice("", &text.replacen("f-?", "f-f-a", 1)));
    assert_eq!(sown(&out.body), ["f", "f", "a"], "{}", out.body);
    // The turn finished in the log (`f-a`) and written whole on a line
    // beside it, f holding a stone it could sow again: they agree.
    let out = reply(&alice("move f-a", &text.replacen("f-?", "f-a", 1)));
    assert_eq!(sown(&out.body), ["f", "a"], "{}", out.body);

    let mut begun = with_addresses(Sheet::new(
        Ruleset::Kalah.rules(),
        Players::named("Alice", "Bob"),
    ));
    begun.play(&parse_sowings("c").unwrap()).unwrap();
    let finished = begun.to_string().replacen("c-?", "c-f", 1);
    let out = reply(&alice("move c-f", &finished));
    assert_eq!(sown(&out.body), ["c", "f"], "{}", out.body);
}

#[test]
fn a_move_for_the_other_player_is_refused() {
    let mut sheet = source_sheet("referee-super-wari.eml");
    sheet.play(&parse_sowings("a").unwrap()).unwrap(); // Bob (North) played a: Alice to move
    let out = reply(&bob_replies("move b", &sheet.to_string()));
    assert!(
        out.body.contains("it is Alice's move (South)"),
        "{}",
        out.body
    );
    assert_eq!(addresses(&[out]), ["bob@players.example"]);
}

#[test]
fn a_finished_game_takes_no_more_moves() {
    let mut sheet = source_sheet("referee-super-wari.eml");
    sheet.game.resign(mancala::engine::Side::North);
    let out = reply(&bob_replies("move b", &sheet.to_string()));
    assert!(out.body.contains("the game is over"), "{}", out.body);
    // This referee keeps no games: a `new` line would not start one.
    let words = squeezed(&out.body);
    assert!(
        words.contains("to play again, mail a start board with your first move made on it")
            && !words.contains("new GAME"),
        "{}",
        out.body
    );
}

/// A game that lives in its mails goes on when a player answers from the
/// HTML side (Gmail's web view quotes the HTML part, `<pre>` sheet and all).
#[test]
fn a_reply_quoting_the_html_part_carries_the_game() {
    let start = Sheet::new(Ruleset::Wari.rules(), Players::named("Alice", "Bob")).to_string();
    let first = replies(
        format!(
            "From: Alice <alice@players.example>\nTo: {REFEREE}, Bob <bob@players.example>\n\
             Subject: wari\nMessage-ID: <h0@players.example>\n\nmove a\n\n{start}"
        )
        .as_bytes(),
    );
    let html = first[0].html.clone().expect("an HTML part");
    let inside = &html[html.find("<body").unwrap()..html.rfind("</body>").unwrap()];
    let answer = format!(
        "From: bob@players.example\nTo: {REFEREE}\nSubject: Re: wari\nMIME-Version: 1.0\n\
         Content-Type: text/html; charset=UTF-8\n\n<div>move b</div><div class=\"gmail_quote\">\
         <div>On Mon, Nov 30, 2026 at 9:05 AM referee wrote:</div><blockquote>{inside}</blockquote></div>\n"
    );
    let out = reply(answer.as_bytes());
    assert!(!out.body.contains("no move was played"), "{}", out.body);
    let sheet = Sheet::parse(&out.body).unwrap();
    assert_eq!(sheet.game.ply(), 2);
}

/// Plays whole games: each reply goes to both players, and the player to
/// move answers that reply, quoting it, with a random legal move.
#[test]
fn whole_games_by_replying_to_the_referee() {
    for ruleset in Ruleset::ALL {
        let mut rng = SplitMix64::new(7);
        let start = Sheet::new(ruleset.rules(), Players::named("Alice", "Bob")).to_string();
        let mut received = format!(
            "From: Alice <alice@players.example>\nTo: {REFEREE}, Bob <bob@players.example>\n\
             Subject: {ruleset}\nMessage-ID: <0@players.example>\n\nmove a\n\n{start}"
        );
        let mut mails = 0;
        loop {
            let out = reply(received.as_bytes());
            assert!(
                !out.body.contains("no move was played"),
                "{ruleset}: refused:\n{}",
                out.body
            );
            mails += 1;
            let sheet = Sheet::parse(&out.body).unwrap();
            let Some(side) = sheet.game.to_move() else {
                assert!(out.body.contains("Result: "), "{}", out.body);
                break;
            };
            assert!(mails < 2000, "{ruleset}: the game does not end");
            let legal = sheet.game.legal_moves();
            let pit = legal.nth(rng.below(legal.len())).unwrap();
            let from = sheet.players.get(side).address.clone().unwrap();
            let quoted = quote(&out.body);
            received = format!(
                "From: {from}\nTo: {REFEREE}\nSubject: {}\nMessage-ID: <{mails}@players.example>\n\n\
                 move {pit}\n\nOn Monday the referee wrote:\n{quoted}",
                out.subject
            );
        }
        assert!(mails > 5, "{ruleset}: only {mails} mails");
    }
}

/// The binary's mail command, keeping no games: these check the mail layer
/// as such, games living in their mails.
fn run_mail(args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::run(&[&["mail", "--no-store"], args].concat(), stdin)
}

#[test]
fn the_binary_prints_mbox_by_default_and_exits_0() {
    let raw = std::fs::read(repo("tests/mail/fixtures/001-mutt-move-above-quote.eml")).unwrap();
    let out = run_mail(&["--from", REFEREE], &raw);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("From referee@referee.example "), "{text}");
    assert!(text.contains("\nAuto-Submitted: auto-replied\n"));
    assert!(text.contains("\nContent-Type: text/plain; charset=utf-8\n"));
}

/// A subject is cut at a word near 90 characters: the result's score
/// comes before why the game ended (issue 45: a Waurie win by the rule
/// lost its stores).
#[test]
fn a_game_overs_subject_keeps_the_score_before_the_reason() {
    let setup = ["--position", "0 0 0 0 0 1 / 1 1 0 0 0 0"];
    let names = ["--south", "Alexandra Montgomery", "--north", "Bob"];
    let sheet = common::stdout(&common::run(
        &[&["new", "waurie"], &setup[..], &names].concat(),
        b"",
    ));
    let raw = format!(
        "From: Alexandra Montgomery <alice@players.example>\nTo: {REFEREE}, Bob <bob@players.example>\n\
         Subject: our game\nMessage-ID: <w1@players.example>\n\nmove f\n\n{sheet}"
    );
    let out = run_mail(&["--from", REFEREE], raw.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let mbox = common::stdout(&out);
    let subjects: Vec<String> = mbox
        .split("\nSubject: ")
        .skip(1)
        .map(|rest| squeezed(&rest[..rest.find("\nDate:").unwrap()]))
        .collect();
    assert_eq!(subjects.len(), 2, "{mbox}");
    for subject in subjects {
        assert!(
            subject.starts_with("Waurie game: game over: Alexandra Montgomery wins, stores 24-22"),
            "{subject}"
        );
        assert!(subject.chars().count() <= 90, "{subject}");
    }
}

#[test]
fn a_reply_that_cannot_be_sent_exits_75() {
    let raw = std::fs::read(repo("tests/mail/fixtures/001-mutt-move-above-quote.eml")).unwrap();
    let out = run_mail(
        &[
            "--from",
            REFEREE,
            "--send",
            "sendmail:/nonexistent/sendmail",
        ],
        &raw,
    );
    assert_eq!(
        out.status.code(),
        Some(75),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run_mail(&["--from", REFEREE, "--send", "smtp://127.0.0.1:9"], &raw);
    assert_eq!(
        out.status.code(),
        Some(75),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn dir_transport_writes_one_eml_file_per_reply_even_when_sent_twice() {
    let folder = common::temp_dir("mail-dir");
    let dir = folder.join("out");
    let raw = std::fs::read(repo("tests/mail/fixtures/001-mutt-move-above-quote.eml")).unwrap();
    for _ in 0..2 {
        let out = run_mail(
            &[
                "--from",
                REFEREE,
                "--send",
                &format!("dir:{}", dir.display()),
            ],
            &raw,
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "one file per player, named by Message-ID");
    assert!(std::fs::read_to_string(&files[0])
        .unwrap()
        .contains("Bob played"));
}

#[test]
fn an_oversized_mail_is_refused_and_answered_briefly() {
    let mut raw =
        b"From: bob@players.example\nTo: referee@referee.example\nSubject: big\n\nmove a\n"
            .to_vec();
    raw.extend(std::iter::repeat_n(b'x', 300_000));
    let out = run_mail(&["--from", REFEREE, "--max-size", "100000"], &raw);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("larger than 100000 bytes"), "{text}");
}

#[test]
fn no_input_makes_the_referee_panic() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo("tests/mail/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    paths.sort();
    let fixtures: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!fixtures.is_empty());
    common::fuzz(&fixtures, 3000, (8, 200), |raw| {
        let _ = answer(raw);
    });
}
