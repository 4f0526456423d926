//! Bill Taylor's own mailbox, as the broadcast asks: players reply to his
//! address with the board and their move; `mancala mail --owner ...
//! --filter` (a procmail `:0 fw` filter) referees it. Whatever comes in
//! goes out to Bill's inbox as it came, whole; the players are mailed
//! through --send. It is the hosted referee seated as Bill, on his store
//! (SQLite in his data folder): moves need the key of the side to move.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use mancala::engine::SplitMix64;
use mancala::mail::incoming::Incoming;
use mancala::sheet::Sheet;

mod common;

use common::{repo, run, stdout, temp_dir, TempDir};

const BILL: &str = "bill@players.example";
const YOU: &str = "you@players.example";

/// Bill's mailbox: his config folder, and the folder --send writes to.
struct Mailbox {
    dir: TempDir,
    seen: BTreeSet<PathBuf>,
    options: Vec<&'static str>,
}

/// One mail the filter sent: its raw bytes, read.
struct Sent {
    raw: String,
    mail: Incoming,
}

impl Sent {
    fn to(&self) -> &str {
        &self.mail.recipients[0].address
    }

    fn reply_to(&self) -> String {
        header(&self.raw, "Reply-To").unwrap_or_else(|| BILL.to_string())
    }
}

/// The value of header `name` (unfolded), bare of any display name.
fn header(raw: &str, name: &str) -> Option<String> {
    let head = raw.split("\r\n\r\n").next()?.replace("\r\n", "\n");
    let start = head.find(&format!("\n{name}: "))? + name.len() + 3;
    let value: String = head[start..].split('\n').next()?.trim().to_string();
    Some(match value.rsplit_once('<') {
        Some((_, rest)) => rest.trim_end_matches('>').to_string(),
        None => value,
    })
}

impl Mailbox {
    fn new(name: &str) -> Mailbox {
        Mailbox {
            dir: temp_dir(name),
            seen: BTreeSet::new(),
            options: Vec::new(),
        }
    }

    fn config(&self) -> PathBuf {
        self.dir.join("config")
    }

    /// Bill's store: the default one, in his data folder.
    fn store(&self) -> PathBuf {
        self.dir.join("data/mancala-referee/referee.db")
    }

    /// The turns of Bill's one game, as his store has them.
    fn turns(&self) -> usize {
        let store = mancala::store::Store::open(self.store()).unwrap();
        let games = store.list().unwrap().games;
        assert_eq!(games.len(), 1, "one game");
        games[0].turns.len()
    }

    /// The filter run on one mail: it must exit 0 and pass the mail through
    /// byte for byte. Returns the mails it sent.
    fn filter(&mut self, mail: &[u8]) -> Vec<Sent> {
        let out = self.dir.join("out");
        let send = format!("dir:{}", out.display());
        let mut args = vec![
            "mail",
            "--owner",
            "Bill Taylor <bill@players.example>",
            "--filter",
            "--send",
            &send,
        ];
        args.extend(&self.options);
        let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(&args)
            .env("XDG_CONFIG_HOME", self.config())
            .env("XDG_DATA_HOME", self.dir.join("data"))
            .env("HOME", self.dir.join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the mancala binary runs");
        let mut input = child.stdin.take().unwrap();
        let mail_owned = mail.to_vec();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            input.write_all(&mail_owned).unwrap();
        });
        let result = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(result.status.success(), "{}", common::stderr(&result));
        assert!(
            result.stdout == mail,
            "the mail left the filter changed ({} bytes in, {} out)",
            mail.len(),
            result.stdout.len()
        );
        self.sent()
    }

    /// The filter run on one mail it may fail on: what it wrote and its
    /// exit, whatever they are.
    fn filter_output(&self, mail: &[u8]) -> std::process::Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(["mail", "--owner", BILL, "--filter", "--send"])
            .arg(format!("dir:{}", self.dir.join("out").display()))
            .env("XDG_CONFIG_HOME", self.config())
            .env("XDG_DATA_HOME", self.dir.join("data"))
            .env("HOME", self.dir.join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the mancala binary runs");
        // The filter may stop reading early: it fails before the end.
        let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), mail);
        child.wait_with_output().unwrap()
    }

    fn sent(&mut self) -> Vec<Sent> {
        let out = self.dir.join("out");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .into_iter()
            .filter(|p| self.seen.insert(p.clone()))
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                Sent {
                    raw: String::from_utf8_lossy(&bytes).into_owned(),
                    mail: Incoming::parse(&bytes),
                }
            })
            .collect()
    }
}

fn quoted(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\n")).collect()
}

/// The first reply to the broadcast: from you, no key, move c.
fn first_reply() -> String {
    let broadcast = std::fs::read_to_string(repo("tests/data/seed-000.txt")).unwrap();
    format!(
        "From: Yourname <{YOU}>\nTo: Bill Taylor <{BILL}>\nSubject: Re: Super-Wari\nMessage-ID: <o0@players.example>\n\nMove: c\n\n{}",
        quoted(&broadcast)
    )
}

/// A game started: the mail to you and Bill's copy.
fn started(bill: &mut Mailbox) -> (Sent, Sent) {
    let mut sent = bill.filter(first_reply().as_bytes());
    assert_eq!(sent.len(), 2, "one mail to you, Bill's copy");
    sent.sort_by_key(|s| s.to() == BILL);
    let copy = sent.pop().unwrap();
    let you = sent.pop().unwrap();
    assert_eq!((you.to(), copy.to()), (YOU, BILL));
    (you, copy)
}

/// What a client sends on "reply": to the Reply-To, quoting the body.
fn reply(from: &str, to: &Sent, words: &str, id: &str) -> String {
    format!(
        "From: {from}\nTo: {}\nSubject: Re: Super-Wari\nMessage-ID: <{id}@players.example>\n\n{words}\n\n{}",
        to.reply_to(),
        quoted(&to.mail.text)
    )
}

#[test]
fn a_whole_game_on_bills_own_mailbox_each_player_pressing_reply() {
    let mut bill = Mailbox::new("owner-game");
    bill.options.push("--sub-addresses");
    let (mut you, mut copy) = started(&mut bill);
    assert!(
        copy.mail.text.contains("It is Bill's move"),
        "{}",
        copy.mail.text
    );
    assert_eq!(
        you.mail.from.as_ref().unwrap().address,
        BILL,
        "answers come from Bill"
    );
    assert!(you.reply_to().starts_with("bill+"), "{}", you.reply_to());
    let mut rng = SplitMix64::new(9);
    for n in 1..80 {
        let sheet = Sheet::parse(&copy.mail.text).unwrap();
        let Some(side) = sheet.game.to_move() else {
            break;
        };
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        let mail = if sheet.players.get(side).address.as_deref() == Some(BILL) {
            reply(BILL, &copy, &format!("move {pit}"), &format!("b{n}"))
        } else {
            // Your client quotes no key line: the Reply-To's key is enough.
            let mut mail = keyless(YOU, &you, &format!("move {pit}"), &format!("y{n}"));
            mail = mail.replacen(
                &format!("To: {BILL}\n"),
                &format!("To: {}\n", you.reply_to()),
                1,
            );
            assert!(!mail.contains("Your key for game"));
            mail
        };
        let mut sent = bill.filter(mail.as_bytes());
        assert_eq!(sent.len(), 2, "one mail to each player a move: {n}");
        sent.sort_by_key(|s| s.to() == BILL);
        (copy, you) = (sent.pop().unwrap(), sent.pop().unwrap());
        assert!(
            !copy.mail.text.contains("no move was played"),
            "{}",
            copy.mail.text
        );
        assert_eq!(
            Sheet::parse(&copy.mail.text).unwrap().game.sowings(),
            Sheet::parse(&you.mail.text).unwrap().game.sowings()
        );
    }
    assert!(Sheet::parse(&copy.mail.text).unwrap().game.ply() >= 30);
}

/// Bill deletes his copy's `?` and writes his move on a line: it is
/// played. The log's last turn, yours, is not read as his move (which
/// refused his as disagreeing with the log).
#[test]
fn a_move_line_beside_a_log_whose_question_mark_is_deleted_is_played() {
    let mut bill = Mailbox::new("owner-deleted-mark");
    let (_, copy) = started(&mut bill);
    let mut deleted = false;
    let text: String = copy
        .mail
        .text
        .lines()
        .map(|line| {
            let logged = line.starts_with(|c: char| c.is_ascii_digit()) && line.contains('?');
            let line = if logged && !deleted {
                deleted = true;
                line.replacen('?', "", 1)
            } else {
                line.to_string()
            };
            line + "\n"
        })
        .collect();
    assert!(deleted, "no `?` in the log of\n{}", copy.mail.text);
    let before = Sheet::parse(&copy.mail.text).unwrap();
    let pit = before.game.legal_moves().first().unwrap();
    let mail = format!(
        "From: {BILL}\nTo: {}\nSubject: Re: Super-Wari\nMessage-ID: <dm1@players.example>\n\nmove {pit}\n\n{}",
        copy.reply_to(),
        quoted(&text)
    );
    let sent = bill.filter(mail.as_bytes());
    assert_eq!(sent.len(), 2, "both players get the board");
    for mail in &sent {
        let after = Sheet::parse(&mail.mail.text).unwrap();
        assert_eq!(
            after.game.ply(),
            before.game.ply() + 1,
            "{}",
            mail.mail.text
        );
    }
}

/// Bill's games are kept in his store (SQLite in his data folder), his
/// alone; `mancala games` on it lists the game a reply to the broadcast
/// started.
#[test]
fn bills_games_are_kept_in_his_store_his_alone() {
    let mut bill = Mailbox::new("owner-store");
    started(&mut bill);
    let store = bill.store();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&store).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let folder = std::fs::metadata(store.parent().unwrap()).unwrap();
        assert_eq!(folder.permissions().mode() & 0o777, 0o700);
    }
    let games = stdout(&run(&["games", "--store", store.to_str().unwrap()], b""));
    assert!(games.contains("Bill to move"), "{games}");
}

/// A key line that is no key of Bill's store (a stranger's forgery) makes
/// nothing of the mail: a reply to the broadcast still starts its game, and
/// nothing is deferred.
#[test]
fn a_forged_key_line_is_no_key_and_the_broadcast_reply_starts_its_game() {
    let mut bill = Mailbox::new("owner-forged-key");
    let forged = first_reply().replace(
        "Move: c\n",
        "Move: c\n\nYour key for game k7q2mx: k7q2mx-0123456789ab\n",
    );
    let sent = bill.filter(forged.as_bytes());
    assert_eq!(sent.len(), 2, "the game starts: you and Bill are mailed");
    assert!(sent
        .iter()
        .all(|s| s.mail.text.contains("Yourname played c")));
}

/// A multipart mail of about `size` bytes: text, a PDF and a binary photo.
fn with_attachments(head: &str, text: &str, size: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let mut photo = Vec::with_capacity(size);
    while photo.len() < size {
        photo.push(rng.next_u64() as u8);
    }
    let mut mail = format!(
        "{head}MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b0\"\n\n--b0\nContent-Type: text/plain; charset=utf-8\n\n{text}\n--b0\nContent-Type: application/pdf; name=\"rules.pdf\"\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==\n--b0\nContent-Type: image/jpeg\nContent-Transfer-Encoding: binary\n\n"
    )
    .into_bytes();
    mail.extend(photo);
    mail.extend(b"\n--b0--\n");
    mail
}

#[test]
fn a_10_mb_mail_with_attachments_passes_through_whole() {
    let mut bill = Mailbox::new("owner-big");
    let head = format!("From: Carol <carol@players.example>\nTo: {BILL}\nSubject: photos\n");
    let mail = with_attachments(&head, "The photos from Sunday.", 10 << 20, 1);
    assert!(mail.len() > 10 << 20);
    assert!(bill.filter(&mail).is_empty(), "nothing sent");
}

#[test]
fn a_move_mail_with_a_pdf_reaches_the_inbox_with_the_pdf() {
    let mut bill = Mailbox::new("owner-pdf");
    let (_, copy) = started(&mut bill);
    let words = format!(
        "move a\n\n{}",
        "A long paragraph about the game.\n\n".repeat(80)
    );
    let head = format!(
        "From: Bill Taylor <{BILL}>\nTo: {}\nSubject: Re: Super-Wari\nMessage-ID: <pdf@players.example>\n",
        copy.reply_to()
    );
    let mail = with_attachments(
        &head,
        &format!("{words}\n{}", quoted(&copy.mail.text)),
        2000,
        2,
    );
    // The filter's check: the mail, PDF and all, came out as it went in.
    let sent = bill.filter(&mail);
    assert_eq!(sent.len(), 2, "the move is played");
    assert!(sent
        .iter()
        .all(|s| !s.mail.text.contains("no move was played")));
    let to_you = sent.iter().find(|s| s.to() == YOU).unwrap();
    assert!(
        to_you.mail.text.contains("Bill played a"),
        "{}",
        to_you.mail.text
    );
}

#[test]
fn the_relay_attempt_mails_no_one() {
    let mut bill = Mailbox::new("owner-relay");
    let sheet = common::stdout(&common::run(
        &["new", "super-wari", "--south", "X", "--north", "Y"],
        b"",
    )) + "South: X <victim1@elsewhere.example>\nNorth: Y <victim2@elsewhere.example>\n";
    assert!(
        Sheet::parse(&sheet)
            .unwrap()
            .players
            .south
            .address
            .is_some(),
        "{sheet}"
    );
    for n in 0..5 {
        let mail = format!(
            "From: Stranger <stranger@elsewhere.example>\nTo: {BILL}\nSubject: game\nMessage-ID: <r{n}@x>\n\nmove c\n\n{}",
            quoted(&sheet)
        );
        // A game with Bill at most: never a mail to the addresses the sheet names.
        let sent = bill.filter(mail.as_bytes());
        assert!(
            sent.iter()
                .all(|s| [BILL, "stranger@elsewhere.example"].contains(&s.to())),
            "mailed someone"
        );
    }
}

/// A mail from `from` (whoever's address it is) with the board of
/// `received` and `words`, but none of its keys: what a forger can write.
fn keyless(from: &str, received: &Sent, words: &str, id: &str) -> String {
    let board: String = received
        .mail
        .text
        .lines()
        .filter(|l| !l.starts_with("Your key for game "))
        .map(|l| format!("{l}\n"))
        .collect();
    format!(
        "From: {from}\nTo: {BILL}\nSubject: Re: Super-Wari\nMessage-ID: <{id}@x>\n\n{words}\n\n{}",
        quoted(&board)
    )
}

/// The forged mail plays nothing, and mails none but its writer's From
/// (told how a game starts, at most).
fn not_played(bill: &mut Mailbox, forged: &str, from: &str) {
    let before = bill.turns();
    let sent = bill.filter(forged.as_bytes());
    assert!(sent.iter().all(|s| s.to() == from), "mailed another");
    assert!(sent.iter().all(|s| !s.mail.text.contains(" played ")));
    assert_eq!(bill.turns(), before, "nothing played");
}

#[test]
fn a_forged_from_move_is_not_played_for_bill() {
    let mut bill = Mailbox::new("owner-forged");
    let (you, copy) = started(&mut bill);
    // Bill to move: a forger quotes the board with his From, without his key.
    not_played(&mut bill, &keyless(BILL, &copy, "move f", "f1"), BILL);
    // Nor is your own From with the board: no key, no move.
    not_played(&mut bill, &keyless(YOU, &you, "move a", "f2"), YOU);
    // Bill's real reply still plays: the game did not move meanwhile.
    let sent = bill.filter(reply(BILL, &copy, "move f", "real").as_bytes());
    assert_eq!(sent.len(), 2);
    let to_you = sent.iter().find(|s| s.to() == YOU).unwrap();
    assert!(
        to_you.mail.text.contains("Bill played f"),
        "{}",
        to_you.mail.text
    );
}

#[test]
fn a_forged_from_move_is_not_played_for_you() {
    let mut bill = Mailbox::new("owner-forged-you");
    let (_, copy) = started(&mut bill);
    let sent = bill.filter(reply(BILL, &copy, "move f", "b1").as_bytes());
    let you = sent.into_iter().find(|s| s.to() == YOU).unwrap();
    not_played(&mut bill, &keyless(YOU, &you, "move a", "fy"), YOU);
    // Your real reply plays.
    let sent = bill.filter(reply(YOU, &you, "move a", "y1").as_bytes());
    assert_eq!(sent.len(), 2);
    let to_bill = sent.iter().find(|s| s.to() == BILL).unwrap();
    assert!(
        to_bill.mail.text.contains("Yourname played a"),
        "{}",
        to_bill.mail.text
    );
}

/// A keyed player quotes a sheet the referee never sent: their key line,
/// the real seats, but a log that says Bill played what he did not, or a
/// start set up to win. Nothing is played: the writer is told the board is
/// not the game's, and Bill gets a copy; the real board still plays.
#[test]
fn a_made_up_sheet_with_a_real_key_is_not_played() {
    use mancala::engine::{Pit, Position, Side};
    let mut bill = Mailbox::new("owner-made-up");
    let (_, copy) = started(&mut bill);
    let sent = bill.filter(reply(BILL, &copy, "move e", "b1").as_bytes());
    let you = sent.into_iter().find(|s| s.to() == YOU).unwrap();
    let real = Sheet::parse(&you.mail.text).unwrap();
    let key_line: String = you
        .mail
        .text
        .lines()
        .filter(|l| l.starts_with("Your key for game "))
        .collect();
    assert!(!key_line.is_empty(), "{}", you.mail.text);
    let made_up = |sheet: &Sheet, id: &str| {
        format!(
            "From: {YOU}\nTo: {BILL}\nSubject: Re: Super-Wari\nMessage-ID: <{id}@players.example>\n\nmove d\n\n{}",
            quoted(&format!("{sheet}\n{key_line}\n"))
        )
    };
    let pit = |c: char| Pit::new(c as u8 - b'a');
    // The log says Bill played a, not e.
    let mut other_log = Sheet::new(*real.game.rules(), real.players.clone());
    other_log.play(&[pit('c'), pit('a')]).unwrap();
    // A start where South's h takes Bill's last stones.
    let rules = *real.game.rules();
    let start = Position::from_counts(
        rules,
        &[0, 0, 0, 0, 0, 0, 0, 1],
        &[1, 3, 3, 3, 3, 3, 3, 3],
        [24, 1],
        Side::South,
    )
    .unwrap();
    let set_up = Sheet::from_position(start, real.players.clone());
    for (n, sheet) in [other_log, set_up].iter().enumerate() {
        let before = bill.turns();
        let sent = bill.filter(made_up(sheet, &format!("m{n}")).as_bytes());
        assert_eq!(sent.len(), 2, "the writer is told, and Bill gets a copy");
        for mail in &sent {
            let text = &mail.mail.text;
            assert!(text.contains("no move was played"), "{text}");
        }
        assert!(sent
            .iter()
            .any(|s| s.to() == BILL && s.mail.text.contains("Your referee answered")));
        assert_eq!(bill.turns(), before, "nothing played");
    }
    let sent = bill.filter(reply(YOU, &you, "move d", "y1").as_bytes());
    assert_eq!(sent.len(), 2);
    let to_bill = sent.iter().find(|s| s.to() == BILL).unwrap();
    assert!(
        to_bill.mail.text.contains("Yourname played d"),
        "{}",
        to_bill.mail.text
    );
}

/// A sheet with no seats' addresses starts a game, keyless: only from the
/// start board, with the sender's first turn. A made-up log or start
/// without its address lines is refused to the sender, and nothing plays.
#[test]
fn a_new_game_begins_only_from_the_start_board() {
    let mut bill = Mailbox::new("owner-new-made-up");
    let new = |extra: &[&str]| {
        let args = [
            &[
                "new",
                "super-wari",
                "--south",
                "Yourname",
                "--north",
                "Bill",
            ],
            extra,
        ]
        .concat();
        stdout(&run(&args, b""))
    };
    let other_log = stdout(&run(&["move", "-", "c", "a"], new(&[]).as_bytes()));
    let set_up = new(&[
        "--position",
        "0 0 0 0 0 0 0 1 / 1 3 3 3 3 3 3 3",
        "--stores",
        "24,1",
    ]);
    for (n, (sheet, words)) in [(other_log, "move d"), (set_up, "move h")]
        .iter()
        .enumerate()
    {
        let mail = format!(
            "From: Yourname <{YOU}>\nTo: {BILL}\nSubject: Re: Super-Wari\nMessage-ID: <mu{n}@players.example>\n\n{words}\n\n{}",
            quoted(sheet)
        );
        let sent = bill.filter(mail.as_bytes());
        assert_eq!(sent.len(), 1, "the sender alone is answered");
        assert_eq!(sent[0].to(), YOU);
        let text = &sent[0].mail.text;
        assert!(
            text.contains("nothing was done") && text.contains("begins from the start board"),
            "{text}"
        );
    }
}

/// A Kalah turn begun by mail (`move c` earns a sowing: `c-?`) and
/// finished on the sheet, however the log is written, plays its rest:
/// the key is for the board after c, and the sheet is read to it.
#[test]
fn a_turn_begun_by_mail_and_finished_on_the_sheet_plays_on_bills_mailbox() {
    let start = stdout(&run(
        &["new", "kalah", "--south", "Yourname", "--north", "Bill"],
        b"",
    ));
    let begun = |name: &str| {
        let mut bill = Mailbox::new(name);
        let mail = format!(
            "From: Yourname <{YOU}>\nTo: Bill Taylor <{BILL}>\nSubject: Kalah\nMessage-ID: <k0@players.example>\n\nmove c\n\n{}",
            quoted(&start)
        );
        let you = bill
            .filter(mail.as_bytes())
            .into_iter()
            .find(|s| s.to() == YOU)
            .unwrap();
        assert!(you.mail.text.contains("c-?"), "{}", you.mail.text);
        (bill, you)
    };
    let after_c_d = Sheet::parse(&stdout(&run(&["move", "-", "c-d"], start.as_bytes()))).unwrap();
    for (n, (log, words)) in [("c", "move d"), ("c-d", "move d"), ("c-?", "move d")]
        .into_iter()
        .enumerate()
    {
        let (mut bill, you) = begun(&format!("owner-begun-{n}"));
        let text = you.mail.text.replacen("c-?", log, 1);
        plays_c_d(&mut bill, &you, &text, words, &after_c_d);
    }
    // The board and the log both showing c-d, beside the key of `c-?`.
    let (mut bill, you) = begun("owner-begun-alike");
    let key = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("Your key for game "))
            .unwrap()
            .to_string()
    };
    let sent = bill.filter(reply(YOU, &you, "move d", "p1").as_bytes());
    let after = sent.into_iter().find(|s| s.to() == YOU).unwrap();
    let text = after
        .mail
        .text
        .replacen(&key(&after.mail.text), &key(&you.mail.text), 1)
        .lines()
        .map(|l| match l.starts_with("1.") {
            true => "1.    c-d\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect::<String>();
    for words in ["move d", "move c-d"] {
        plays_c_d(&mut bill, &you, &text, words, &after_c_d);
    }
}

/// `text` sent as a reply to `you` with `words` plays the turn c-d.
fn plays_c_d(bill: &mut Mailbox, you: &Sent, text: &str, words: &str, after_c_d: &Sheet) {
    let mail = format!(
        "From: {YOU}\nTo: {}\nSubject: Re: Kalah\nMessage-ID: <{}@x>\n\n{words}\n\n{}",
        you.reply_to(),
        bill.seen.len(),
        quoted(text)
    );
    let sent = bill.filter(mail.as_bytes());
    assert_eq!(
        sent.len(),
        2,
        "{words:?} beside\n{text}\n{:?}",
        sent.iter().map(|s| &s.mail.text).collect::<Vec<_>>()
    );
    for mail in &sent {
        let sheet = Sheet::parse(&mail.mail.text).unwrap();
        assert_eq!(
            sheet.game.sowings(),
            after_c_d.game.sowings(),
            "{}",
            mail.mail.text
        );
    }
}

#[test]
fn move_on_and_move_house_and_a_quoted_board_get_no_answer() {
    let mut bill = Mailbox::new("owner-friends");
    let (_, copy) = started(&mut bill);
    let mails = [
        format!("From: Carol <carol@players.example>\nTo: {BILL}\nSubject: Lunch?\nMessage-ID: <l1@x>\n\nMove on.\n"),
        format!("From: Carol <carol@players.example>\nTo: {BILL}\nSubject: news\nMessage-ID: <l2@x>\n\nWe move house on Friday.\nmove house\n"),
        format!("From: Dan <dan@players.example>\nTo: {BILL}\nSubject: your game\nMessage-ID: <l3@x>\n\nNice position! Why not c?\n\n{}", quoted(&copy.mail.text)),
        format!("From: Bill Taylor <{BILL}>\nTo: {BILL}\nSubject: note to self\n\nbuy stones\n"),
        "From: MAILER-DAEMON@players.example\nReturn-Path: <>\nSubject: failure\n\nmove c\n".to_string(),
    ];
    for mail in &mails {
        assert!(bill.filter(mail.as_bytes()).is_empty(), "{mail}");
    }
    // The referee's own copy, fed back (a loop), is left alone too.
    assert!(bill.filter(copy.raw.as_bytes()).is_empty());
}

/// The broadcast answered five times by one player: the first starts the
/// game; the others restart nothing, each told the game is under way,
/// within a stranger's three answers a day.
#[test]
fn the_broadcast_answered_again_restarts_nothing() {
    let mut bill = Mailbox::new("owner-stranger");
    started(&mut bill);
    let answered: Vec<usize> = (1..5)
        .map(|n| {
            let mail = first_reply().replace("<o0@", &format!("<s{n}@"));
            let sent = bill.filter(mail.as_bytes());
            assert!(sent
                .iter()
                .all(|s| s.to() == YOU && s.mail.text.contains("under way")));
            sent.len()
        })
        .collect();
    assert_eq!(
        answered,
        [1, 1, 0, 0],
        "a stranger's day: 3 answers, the game's first one"
    );
    assert_eq!(bill.turns(), 1, "the game under way, as it was");
}

/// The store unusable (here a folder in its place): the filter exits 75
/// before writing a byte, so procmail keeps the mail for a retry, and
/// nobody is mailed.
#[test]
fn an_unusable_store_keeps_the_mail_with_exit_75() {
    let bill = Mailbox::new("owner-no-store");
    std::fs::create_dir_all(bill.store()).unwrap();
    let out = bill.filter_output(first_reply().as_bytes());
    let log = common::stderr(&out);
    assert_eq!(out.status.code(), Some(75), "{log}");
    assert!(
        out.stdout.is_empty(),
        "nothing passed through before the retry"
    );
    assert!(!bill.dir.join("out").exists(), "no mail sent");
}

#[test]
fn generated_mails_leave_the_filter_as_they_came() {
    let mut bill = Mailbox::new("owner-fuzz");
    let (you, copy) = started(&mut bill);
    let pool: Vec<Vec<u8>> = vec![
        first_reply().into_bytes(),
        reply(YOU, &you, "move a", "z1").into_bytes(),
        reply(BILL, &copy, "move f", "z2").into_bytes(),
        with_attachments("From: c@x.example\nSubject: p\n", "hi", 3000, 7),
        b"Content-Type: multipart/mixed; boundary=\"\"\n\n--\n\x00\xff\xfe--".to_vec(),
        // Over --max-size.
        [first_reply().as_bytes(), &[b'\xc3'; 1_200_000]].concat(),
    ];
    common::fuzz(&pool, 120, (6, 400), |mail| {
        bill.filter(mail); // exits 0, and passes the mail through unchanged
    });
}

/// Bill's sendmail down for three deliveries of a player's first reply
/// (exit 75 each: procmail keeps it, Postfix tries again), then up: the
/// game is started once, each of its mails sent once, and the stranger's
/// answer counted once (the count and the mails owed are one transaction;
/// a retry sends what is owed and counts nothing again).
#[cfg(unix)]
#[test]
fn a_send_failing_three_times_then_working_answers_the_reply_once() {
    use std::os::unix::fs::PermissionsExt;
    let bill = Mailbox::new("owner-send-down");
    let script = bill.dir.join("sendmail");
    let sent = bill.dir.join("sent");
    std::fs::create_dir_all(&sent).unwrap();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ -e {down} ] && exit 75\ncat > {sent}/$(date +%s%N).$$\n",
            down = bill.dir.join("down").display(),
            sent = sent.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let deliver = || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args([
                "mail",
                "--owner",
                "Bill Taylor <bill@players.example>",
                "--filter",
            ])
            .arg("--send")
            .arg(format!("sendmail:{}", script.display()))
            .env("XDG_DATA_HOME", bill.dir.join("data"))
            .env("HOME", bill.dir.join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ =
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), first_reply().as_bytes());
        child.wait_with_output().unwrap()
    };
    std::fs::write(bill.dir.join("down"), "").unwrap();
    for _ in 0..3 {
        let out = deliver();
        assert_eq!(out.status.code(), Some(75), "{}", common::stderr(&out));
        assert!(
            out.stdout.is_empty(),
            "kept for the retry, not passed through"
        );
    }
    std::fs::remove_file(bill.dir.join("down")).unwrap();
    let out = deliver();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let ids: Vec<String> = std::fs::read_dir(&sent)
        .unwrap()
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            header(&text, "Message-ID").unwrap_or_default()
        })
        .collect();
    assert_eq!(ids.len(), 2, "one mail to you, one to Bill: {ids:?}");
    assert_ne!(ids[0], ids[1]);
    assert_eq!(bill.turns(), 1, "one game, your c played once");
    let store = mancala::store::Store::open(bill.store()).unwrap();
    let you = store
        .load_sender(&store.secrets().address_digest(YOU))
        .unwrap();
    assert_eq!(you.answered.len(), 1, "the answer counted once");
}

/// Your reply to an older mail of the game is refused as out of date, with
/// the board as it stands; Bill's copy says so, and the game stands still.
#[test]
fn a_reply_to_an_older_mail_is_out_of_date_and_bills_copy_says_so() {
    let mut bill = Mailbox::new("owner-old-reply");
    let (you, copy) = started(&mut bill);
    let sent = bill.filter(reply(BILL, &copy, "move f", "b1").as_bytes());
    assert_eq!(sent.len(), 2, "Bill's move");
    let sent = bill.filter(reply(YOU, &you, "move a", "old").as_bytes());
    assert_eq!(sent.len(), 2, "you are told, and Bill gets a copy");
    let to_you = sent.iter().find(|s| s.to() == YOU).unwrap();
    assert!(
        to_you.mail.text.contains("out of date"),
        "{}",
        to_you.mail.text
    );
    let board = Sheet::parse(&to_you.mail.text).unwrap();
    assert_eq!(
        board.game.ply(),
        2,
        "the board as it stands:\n{}",
        to_you.mail.text
    );
    let to_bill = sent.iter().find(|s| s.to() == BILL).unwrap();
    assert!(
        to_bill.mail.text.contains("Your referee answered")
            && to_bill.mail.text.contains("out of date"),
        "{}",
        to_bill.mail.text
    );
    assert_eq!(bill.turns(), 2, "the game did not change");
}
