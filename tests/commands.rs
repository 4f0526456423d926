//! The commands players had on pbmserv, each through `mancala mail` on a
//! store, the players answering only by pressing "reply" on the last mail
//! the referee sent them (to its Reply-To, quoting its text part).

use std::collections::BTreeSet;
use std::path::PathBuf;

use mancala::engine::Side;
use mancala::sheet::Sheet;

mod common;
use common::Dump;

use common::{run, stderr, stdout, temp_dir};

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";

/// A mail the referee sent, as a player's client shows it.
type Received = common::Written;

impl Received {
    fn sheet(&self) -> Sheet {
        Sheet::parse(&self.body).unwrap_or_else(|e| panic!("{e}:\n{}", self.body))
    }

    fn legal(&self) -> Vec<String> {
        self.sheet()
            .game
            .legal_moves()
            .into_iter()
            .map(|p| p.to_string())
            .collect()
    }
}

/// A store, the referee's outgoing folder, and the mails seen so far.
struct Referee {
    /// Removed with the referee.
    _dir: common::TempDir,
    store: PathBuf,
    out: PathBuf,
    seen: std::cell::RefCell<BTreeSet<PathBuf>>,
    count: std::cell::Cell<u32>,
}

impl Referee {
    fn new(name: &str) -> Referee {
        let dir = temp_dir(name);
        Referee {
            store: dir.join("store"),
            out: dir.join("out"),
            seen: Default::default(),
            count: Default::default(),
            _dir: dir,
        }
    }

    /// `mancala mail` on `raw`; the mails it sent.
    fn mail(&self, raw: &str) -> Vec<Received> {
        let send = format!("dir:{}", self.out.display());
        let store = self.store.to_str().unwrap();
        let output = run(
            &["mail", "--from", REFEREE, "--store", store, "--send", &send],
            raw.as_bytes(),
        );
        assert!(output.status.success(), "{}", stderr(&output));
        let mut sent = Vec::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.out)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for path in files {
            if !self.seen.borrow_mut().insert(path.clone()) {
                continue;
            }
            sent.push(common::read_written(&path));
        }
        sent
    }

    /// `from` presses reply on `received` and writes `words` above the quote.
    fn reply(&self, from: &str, received: &Received, words: &str) -> Vec<Received> {
        self.count.set(self.count.get() + 1);
        let quoted: String = received.body.lines().map(|l| format!("> {l}\n")).collect();
        self.mail(&format!(
            "From: {from}\nTo: {}\nSubject: Re: {}\nMessage-ID: <r{}@players.example>\n\n{words}\n\n{quoted}",
            received.reply_to,
            received.subject,
            self.count.get()
        ))
    }

    /// Alice invites Bob, Bob accepts: their boards.
    fn game_on(&self, game: &str) -> (Received, Received) {
        self.count.set(self.count.get() + 1);
        let out = self.mail(&format!(
            "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game\nMessage-ID: <n{}@players.example>\n\nnew {game} with Bob <{BOB}>\n",
            self.count.get()
        ));
        let out = self.reply(BOB, &to(&out, BOB), "accept");
        (to(&out, ALICE), to(&out, BOB))
    }

    /// Alice starts another game by replying to a mail of hers (her key
    /// vouches for her), Bob accepts: their boards.
    fn another_game(&self, alices: &Received, game: &str) -> (Received, Received) {
        let out = self.reply(ALICE, alices, &format!("new {game} with Bob <{BOB}>"));
        let out = self.reply(BOB, &to(&out, BOB), "accept");
        (to(&out, ALICE), to(&out, BOB))
    }

    fn ratings_json(&self) -> Vec<serde_json::Value> {
        let output = run(
            &["ratings", "--json", "--store", self.store.to_str().unwrap()],
            b"",
        );
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// Does `body` say `text`, however the referee wrapped its lines?
/// `sheet` after `pit`, and the moves legal then, as written.
fn after(mut sheet: Sheet, pit: &str) -> (Sheet, Vec<String>) {
    sheet
        .play(&mancala::sheet::parse_sowings(pit).unwrap())
        .unwrap();
    let legal = sheet.game.legal_moves().into_iter();
    (sheet, legal.map(|p| p.to_string()).collect())
}

fn says(body: &str, text: &str) -> bool {
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    squeeze(body).contains(&squeeze(text))
}

fn to(out: &[Received], address: &str) -> Received {
    out.iter()
        .find(|o| o.to == address)
        .cloned()
        .unwrap_or_else(|| panic!("nothing to {address}: {out:#?}"))
}

/// South (Alice) and North (Bob) each play their first legal move, `turns` times.
fn play_turns(
    referee: &Referee,
    mut boards: (Received, Received),
    turns: usize,
) -> (Received, Received) {
    for _ in 0..turns {
        let (mover, board) = match boards.0.sheet().game.to_move() {
            Some(Side::South) => (ALICE, &boards.0),
            _ => (BOB, &boards.1),
        };
        let pit = board.legal()[0].clone();
        let out = referee.reply(mover, board, &format!("move {pit}"));
        boards = (to(&out, ALICE), to(&out, BOB));
    }
    boards
}

/// The sheet a `board N` answer shows apart, before the game's own.
fn not_the_game(body: &str) -> &str {
    let after = body.split("Not the game:").nth(1).unwrap();
    after.split("The game as it stands:").next().unwrap()
}

#[test]
fn board_n_shows_the_sheet_after_line_n_of_the_log_and_its_mail_still_plays() {
    let referee = Referee::new("board-n");
    let boards = referee.game_on("wari");
    let (alice, _bob) = play_turns(&referee, boards, 3);
    let out = referee.reply(ALICE, &alice, "board 1");
    assert_eq!(out.len(), 1, "to the asker alone");
    let answer = to(&out, ALICE);
    assert!(
        answer
            .body
            .contains("Not the game: the board after turn 1 of 2"),
        "{}",
        answer.body
    );
    // Line 1 of the log: each player's first turn; the game's own has three.
    let after = not_the_game(&answer.body);
    let early = Sheet::parse(&after[after.find("Game:").unwrap()..]).unwrap();
    assert_eq!(early.game.ply(), 2);
    assert_eq!(
        answer.sheet().game.ply(),
        3,
        "a reply is read by the game's sheet"
    );
    // North is to move; Bob's reply to his last mail still plays.
    // Past the log's end: no board, and the subject says so too.
    let out = referee.reply(ALICE, &answer, "board 9");
    let past = to(&out, ALICE);
    assert!(says(
        &past.body,
        "numbered lines in the log: 2; write board and a number from 0 to 2"
    ));
    assert!(
        past.subject.contains("no board after turn 9") && !past.subject.contains("as you asked"),
        "{}",
        past.subject
    );
}

#[test]
fn turn_numbers_in_board_analysis_and_history_are_the_logs_numbered_lines() {
    let referee = Referee::new("turn-numbers");
    let boards = referee.game_on("wari");
    // Five turns: lines 1 and 2 whole, line 3 South's alone.
    let (alice, bob) = play_turns(&referee, boards, 5);
    let out = referee.reply(ALICE, &alice, "board 3");
    let body = to(&out, ALICE).body;
    assert!(body.contains("the board after turn 3 of 3"), "{body}");
    let after = not_the_game(&body);
    let early = Sheet::parse(&after[after.find("Game:").unwrap()..]).unwrap();
    assert_eq!(early.game.ply(), 5, "line 3 as it stands");
    let out = referee.reply(ALICE, &alice, "board 2");
    let body = to(&out, ALICE).body;
    let after = not_the_game(&body);
    let early = Sheet::parse(&after[after.find("Game:").unwrap()..]).unwrap();
    assert_eq!(early.game.ply(), 4, "line 2: two turns each");
    // Perfect play's view waits for the end of a game between players.
    let out = referee.reply(ALICE, &alice, "analysis");
    let body = to(&out, ALICE).body;
    assert!(says(&body, "no analysis while the game is on"), "{body}");
    assert!(!body.contains("  1. Alice"), "{body}");
    let out = referee.reply(BOB, &bob, "resign");
    let finished = to(&out, ALICE);
    let out = referee.reply(ALICE, &finished, "analysis");
    let body = to(&out, ALICE).body;
    for line in [
        "  1. Alice",
        "  1. Bob",
        "  2. Alice",
        "  2. Bob",
        "  3. Alice",
    ] {
        assert!(body.contains(line), "{line}:\n{body}");
    }
    assert!(!body.contains("  4. "), "{body}");
    let out = referee.reply(ALICE, &finished, "history");
    let body = to(&out, ALICE).body;
    assert!(
        says(&body, "Alice wins (Bob resigned) after 3 lines of the log"),
        "{body}"
    );
}

#[test]
fn preview_plays_on_a_copy_and_mails_nobody_else() {
    let referee = Referee::new("preview");
    let (alice, bob) = referee.game_on("super-wari");
    let legal = alice.legal();
    let out = referee.reply(ALICE, &alice, &format!("preview {} {}", legal[0], "a"));
    assert_eq!(out.len(), 1, "Bob is not mailed");
    let preview = to(&out, ALICE);
    assert!(says(&preview.body, "nothing is played"), "{}", preview.body);
    assert!(preview
        .body
        .contains("Not the game: a preview, nothing is played."));
    assert_eq!(preview.sheet().game.ply(), 0, "the game is untouched");
    // Alice replies to the preview mail with her move: it is played.
    let out = referee.reply(ALICE, &preview, &format!("move {}", legal[0]));
    assert_eq!(out.len(), 2, "{out:#?}");
    assert_eq!(to(&out, BOB).sheet().game.ply(), 1);
    let _ = bob;
}

#[test]
fn a_conditional_move_is_played_when_the_reply_comes_and_never_shown_to_the_opponent() {
    let referee = Referee::new("conditional");
    let (alice, _) = referee.game_on("super-wari");
    let pit = alice.legal()[0].clone();
    // What Bob may answer, and Alice's answer to that.
    let mut trial = alice.sheet();
    trial
        .play(&mancala::sheet::parse_sowings(&pit).unwrap())
        .unwrap();
    let reply = trial.game.legal_moves().first().unwrap().to_string();
    trial
        .play(&mancala::sheet::parse_sowings(&reply).unwrap())
        .unwrap();
    let answer = trial.game.legal_moves().first().unwrap().to_string();
    let out = referee.reply(
        ALICE,
        &alice,
        &format!("move {pit}\nif {reply} then {answer}\nif a-b then c"),
    );
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert!(
        says(
            &alice.body,
            &format!("kept for Bob's next turn (Bob does not see them): if {reply} then {answer}")
        ),
        "{}",
        alice.body
    );
    assert!(
        says(&alice.body, "if a-b then c: dropped"),
        "{}",
        alice.body
    );
    assert!(
        !bob.body.contains(&format!("if {reply} then")),
        "Bob never sees them:\n{}",
        bob.body
    );
    assert!(!says(&bob.body, "conditional"), "{}", bob.body);
    let out = referee.reply(BOB, &bob, &format!("move {reply}"));
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert_eq!(bob.sheet().game.ply(), 3, "Alice's answer played at once");
    assert!(
        says(&bob.body, "By Alice's conditional move"),
        "{}",
        bob.body
    );
    assert_eq!(bob.sheet().game.to_move(), Some(Side::North));
    // A condition that does not apply is dropped with a note to its writer alone.
    let pit = alice.legal().last().unwrap().clone();
    let _ = pit;
    let mine = bob.legal()[0].clone();
    let (mut trial, replies) = after(bob.sheet(), &mine);
    assert!(replies.len() >= 2, "two replies to choose from");
    trial
        .play(&mancala::sheet::parse_sowings(&replies[0]).unwrap())
        .unwrap();
    let answer = trial.game.legal_moves().first().unwrap().to_string();
    let out = referee.reply(
        BOB,
        &bob,
        &format!("move {mine}\nif {} then {answer}", replies[0]),
    );
    let alice = to(&out, ALICE);
    let out = referee.reply(ALICE, &alice, &format!("move {}", replies[1]));
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert!(
        says(&bob.body, "did not apply: Alice played"),
        "{}",
        bob.body
    );
    assert!(!alice.body.contains("conditional"), "{}", alice.body);
    assert_eq!(alice.sheet().game.to_move(), Some(Side::North));
}

#[test]
fn a_draw_offer_is_accepted_declined_or_answered_by_a_move() {
    let referee = Referee::new("draw");
    let (alice, _) = referee.game_on("wari");
    let pit = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("move {pit}\noffer draw"));
    assert_eq!(out.len(), 2, "one mail each for the move and the offer");
    let bob = to(&out, BOB);
    assert!(
        says(&bob.body, "Alice offers a draw: you may answer accept"),
        "{}",
        bob.body
    );
    // Bob's move declines it.
    let out = referee.reply(BOB, &bob, &format!("move {}", bob.legal()[0]));
    let alice = to(&out, ALICE);
    assert!(
        says(&alice.body, "The move declines your draw offer"),
        "{}",
        alice.body
    );
    // Offered again, declined in words.
    let out = referee.reply(
        ALICE,
        &alice,
        &format!("move {}\noffer draw", alice.legal()[0]),
    );
    let out = referee.reply(BOB, &to(&out, BOB), "decline");
    let bob = to(&out, BOB);
    assert!(says(&to(&out, ALICE).body, "Bob declined your draw offer"));
    // Nothing is open now: accept says what to write instead.
    let out = referee.reply(BOB, &bob, "accept");
    assert!(says(
        &to(&out, BOB).body,
        "to offer a draw, write: offer draw"
    ));
    let bob = to(&out, BOB);
    // Bob offers, Alice accepts: the game ends drawn.
    let out = referee.reply(BOB, &bob, &format!("move {}\noffer draw", bob.legal()[0]));
    let out = referee.reply(ALICE, &to(&out, ALICE), "accept");
    let alice = to(&out, ALICE);
    assert!(
        says(
            &alice.body,
            "You accepted Bob's draw offer: the game is drawn"
        ),
        "{}",
        alice.body
    );
    assert!(says(&alice.body, "drawn by agreement"), "{}", alice.body);
    assert!(alice.sheet().game.is_over());
    let list = referee.ratings_json();
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.iter().all(|r| r["draws"] == 1 && r["games"] == 1));
}

#[test]
fn a_takeback_undoes_the_last_turn_only_with_the_opponents_accept() {
    let referee = Referee::new("takeback");
    let (alice, _) = referee.game_on("waurie");
    let pit = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("move {pit}"));
    let out = referee.reply(ALICE, &to(&out, ALICE), "takeback");
    let bob = to(&out, BOB);
    assert!(
        says(&bob.body, "Alice asks to take back their last turn"),
        "{}",
        bob.body
    );
    let out = referee.reply(BOB, &bob, "accept");
    let (alice, bob) = (to(&out, ALICE), to(&out, BOB));
    assert!(says(&bob.body, "is undone"), "{}", bob.body);
    assert_eq!(alice.sheet().game.ply(), 0);
    assert_eq!(alice.sheet().game.to_move(), Some(Side::South));
    // Asked again, Bob's move refuses it.
    let out = referee.reply(ALICE, &alice, &format!("move {pit}"));
    let out = referee.reply(ALICE, &to(&out, ALICE), "takeback");
    let bob = to(&out, BOB);
    let out = referee.reply(BOB, &bob, &format!("move {}", bob.legal()[0]));
    assert!(says(
        &to(&out, ALICE).body,
        "The move declines your takeback"
    ));
    // Alice's turn is no longer the last: nothing to take back, and she is told why.
    let out = referee.reply(ALICE, &to(&out, ALICE), "takeback");
    assert_eq!(out.len(), 1, "Bob is not bothered");
    assert!(says(
        &to(&out, ALICE).body,
        "there is nothing to take back: the last turn is not yours"
    ));
}

#[test]
fn words_without_a_command_go_to_the_opponent() {
    let referee = Referee::new("chat");
    let (_, bob) = referee.game_on("mankala");
    let out = referee.reply(BOB, &bob, "Nice opening, I am thinking.");
    let alice = to(&out, ALICE);
    assert!(
        says(&alice.body, "Bob wrote, without a move"),
        "{}",
        alice.body
    );
    assert!(
        alice.body.contains("> Nice opening, I am thinking."),
        "{}",
        alice.body
    );
    assert_eq!(alice.sheet().game.ply(), 0);
}

/// A line that tries to be a move without being a `move` line (a slip of
/// the word, a lone pit, "I play d") is read as the move, and the opponent
/// never reads it as chat (issue 45); prose that merely names a pit stays
/// chat, and a lone initial signed under it is neither. Documented in
/// docs/commands.md.
#[test]
fn a_line_that_can_only_mean_a_move_is_played_and_never_relayed() {
    let referee = Referee::new("implied-move");
    let mut boards = referee.game_on("wari");
    for (n, (from, words, pit, chat)) in [
        (ALICE, "mvoe c\nGood luck!", "c", Some("> Good luck!")),
        (BOB, "Hm.\n\nd\n", "d", Some("> Hm.")),
        (ALICE, "I play d.", "d", None),
        (BOB, "my move: e", "e", None),
        (ALICE, "mve a", "a", None),
    ]
    .into_iter()
    .enumerate()
    {
        let received = if from == ALICE { &boards.0 } else { &boards.1 };
        let out = referee.reply(from, received, words);
        boards = (to(&out, ALICE), to(&out, BOB));
        let opponent = if from == ALICE { &boards.1 } else { &boards.0 };
        let sheet = opponent.sheet();
        assert_eq!(sheet.game.ply(), n + 1, "{words:?}:\n{}", opponent.body);
        let last = sheet.game.sowings().last().unwrap().pit.to_string();
        assert_eq!(last, pit, "{words:?}:\n{}", opponent.body);
        let move_line = words.lines().find(|l| l.contains(pit)).unwrap();
        assert!(
            !opponent.body.contains(&format!("> {move_line}")),
            "{words:?} relayed:\n{}",
            opponent.body
        );
        let relayed = opponent.body.contains(" writes:");
        assert_eq!(relayed, chat.is_some(), "{words:?}:\n{}", opponent.body);
        assert!(
            chat.is_none_or(|c| opponent.body.contains(c)),
            "{}",
            opponent.body
        );
    }
    // Bob signs with his initial under prose naming a pit: nothing played,
    // the prose relayed, the initial not (it might have been his move).
    let out = referee.reply(BOB, &boards.1, "Shall we play a game of kalah next?\n\nB");
    let alice = to(&out, ALICE);
    assert_eq!(alice.sheet().game.ply(), 5, "{}", alice.body);
    assert!(
        alice.body.contains("> Shall we play a game of kalah next?"),
        "{}",
        alice.body
    );
    assert!(!alice.body.contains("> B\n"), "{}", alice.body);
    assert!(
        says(&to(&out, BOB).body, "no line of yours reads as one"),
        "{}",
        to(&out, BOB).body
    );
}

/// The answers to `board`, `help` and `preview` say first, in their
/// subject and first line, whose move it is, as every mail of the game
/// does (issue 45).
#[test]
fn board_help_and_preview_answers_say_whose_move_it_is() {
    let referee = Referee::new("whose-move");
    let (alice, bob) = referee.game_on("kalah");
    let id = alice.sheet().id.unwrap();
    for question in ["board", "help", "preview c"] {
        for (from, received, awaited) in [
            (ALICE, &alice, "your move — "),
            (BOB, &bob, "Alice to move — "),
        ] {
            let out = referee.reply(from, received, question);
            assert_eq!(out.len(), 1, "{question}: to the asker alone");
            let answer = &out[0];
            let first = answer.body.lines().next().unwrap();
            for (what, said) in [
                ("subject", &answer.subject),
                ("first line", &first.to_string()),
            ] {
                assert!(
                    said.starts_with(&format!("Kalah {id}: {awaited}")),
                    "{question} from {from}: the {what} says {said:?}"
                );
            }
        }
    }
}

/// Under a board whose rows carry the players' names, the captured
/// totals name them too (issue 45), and a reply quoting it still plays.
#[test]
fn the_captured_totals_name_the_players() {
    let referee = Referee::new("captured-named");
    let (alice, _) = referee.game_on("wari");
    assert!(
        alice
            .body
            .contains("\nCaptured: Alice (south) 0, Bob (north) 0\n"),
        "{}",
        alice.body
    );
    let out = referee.reply(ALICE, &alice, "move c");
    assert_eq!(to(&out, BOB).sheet().game.ply(), 1);
}

/// Help by mail fits a window of 40 lines in every game and variant, its
/// first line to its rules in short (the key paragraph under it is every
/// mail's), and still lists every command (issue 45: 41 in Kalah).
#[test]
fn help_by_mail_fits_40_lines_in_every_game() {
    for game in [
        "super-wari",
        "wari",
        "waurie",
        "waurie variant first-empty-wins",
        "waurie variant both-stores",
        "mankala",
        "kalah",
        "kalah variant empty-capture",
    ] {
        let referee = Referee::new("help-lines");
        let (alice, _) = referee.game_on(game);
        let out = referee.reply(ALICE, &alice, "help");
        let help = out[0].body.split("\n\nYour key for game").next().unwrap();
        assert!(
            help.lines().count() <= 40,
            "{game}: {} lines:\n{help}",
            help.lines().count()
        );
        for command in [
            "new GAME",
            "accept",
            "decline",
            "withdraw",
            "move c",
            "if e then d",
            "offer draw",
            "takeback",
            "resign",
            "board 12",
            "preview",
            "games",
            "history",
            "ratings",
            "analysis",
            "help rules GAME",
            "go to your opponent",
            "in short",
        ] {
            assert!(help.contains(command), "{game}: no {command:?} in\n{help}");
        }
    }
}

#[test]
fn games_lists_those_awaiting_the_senders_move_first_and_history_the_finished() {
    let referee = Referee::new("games");
    let (alice, _) = referee.game_on("wari");
    // Waurie: Alice moves, so Bob is to move there; Mankala: Alice resigns.
    let (waurie, _) = referee.another_game(&alice, "waurie");
    let out = referee.reply(ALICE, &waurie, &format!("move {}", waurie.legal()[0]));
    let waurie = to(&out, ALICE);
    let (mankala, _) = referee.another_game(&waurie, "mankala");
    referee.reply(ALICE, &mankala, "resign");
    let out = referee.reply(ALICE, &waurie, "games\nhistory");
    assert_eq!(out.len(), 1);
    let body = to(&out, ALICE).body;
    let listing = &body[body.find("Your games here").unwrap()..];
    let wari = listing.find("\nWari ").unwrap();
    let waurie_at = listing.find("\nWaurie ").unwrap();
    assert!(
        wari < waurie_at,
        "Alice's move first (wari), then Bob's (waurie):\n{body}"
    );
    assert!(says(&body, "against Bob, your move"), "{body}");
    assert!(says(&body, "against Bob, Bob to move"), "{body}");
    assert_eq!(body.matches("your key:").count(), 2, "{body}");
    assert!(
        says(&body, "And 1 finished: a line history lists them."),
        "{body}"
    );
    assert!(says(&body, "Bob wins (Alice resigned)"), "{body}");
    assert!(body.contains("1. Your games, as you asked."), "{body}");
    assert!(
        body.contains("2. Your finished games, as you asked."),
        "{body}"
    );
}

#[test]
fn ratings_follow_finished_games_between_people_only() {
    let referee = Referee::new("ratings");
    let (alice, _) = referee.game_on("wari");
    let out = referee.reply(ALICE, &alice, "resign");
    let alice = to(&out, ALICE);
    // Against the computer: unrated.
    let out = referee.reply(ALICE, &alice, "new wari with computer");
    let cpu = to(&out, ALICE);
    referee.reply(ALICE, &cpu, "resign");
    let list = referee.ratings_json();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["name"], "Bob", "the winner first");
    assert!(list[0]["rating"].as_f64().unwrap() > 1500.0);
    assert!(list[1]["rating"].as_f64().unwrap() < 1500.0);
    assert_eq!(list[0]["wins"], 1);
    assert_eq!(list[1]["losses"], 1);
    assert_eq!(list[1]["games"], 1, "the computer game is unrated");
    assert!(list[0]["deviation"].as_f64().unwrap() < 350.0);
    // By mail: the same table, best first.
    let (waurie, _) = referee.another_game(&alice, "waurie");
    let out = referee.reply(ALICE, &waurie, "ratings wari");
    let body = to(&out, ALICE).body;
    assert!(body.contains("Wari\n  player"), "{body}");
    let bob_at = body.find("  Bob").unwrap();
    let alice_at = body.find("  Alice").unwrap();
    assert!(bob_at < alice_at, "best first:\n{body}");
}

#[test]
fn several_commands_in_one_mail_are_answered_in_one_reply_in_order() {
    let referee = Referee::new("several");
    let (alice, _) = referee.game_on("super-wari");
    let (alice, _) = play_turns(&referee, (alice.clone(), alice), 0);
    let pit = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("ratings\npreview {pit}\nboard 0"));
    assert_eq!(out.len(), 1);
    let body = &out[0].body;
    let (r, p, b) = (
        body.find("1. The ratings, as you asked.").unwrap(),
        body.find("2. A preview").unwrap(),
        body.find("3. The board after turn 0").unwrap(),
    );
    assert!(r < p && p < b, "{body}");
}

#[test]
fn a_huge_preview_or_a_flood_of_if_lines_costs_little_and_keeps_the_file_small() {
    let referee = Referee::new("flood");
    let (alice, _) = referee.game_on("wari");
    let preview = format!("preview {}", "a b ".repeat(20_000));
    let started = std::time::Instant::now();
    let out = referee.reply(ALICE, &alice, &preview);
    assert!(says(
        &to(&out, ALICE).body,
        "A preview plays at most 100 turns"
    ));
    let pit = alice.legal()[0].clone();
    let pits = ["a", "b", "c", "d", "e", "f"];
    let lines: String = (0..2_000)
        .map(|i| format!("if {} then {}\n", pits[i % 6], pits[(i / 6) % 6]))
        .collect();
    let out = referee.reply(ALICE, &alice, &format!("move {pit}\n{lines}"));
    assert_eq!(out.len(), 1, "refused whole, nothing played");
    assert!(says(&to(&out, ALICE).body, "at most 30 commands"));
    let line: String = (0..40)
        .map(|i| format!("if {} then {}; ", pits[i % 6], pits[(i / 6) % 6]))
        .collect();
    let out = referee.reply(ALICE, &alice, &format!("move {pit}\n{line}"));
    assert!(says(
        &to(&out, ALICE).body,
        "Only the first 20 if lines are read"
    ));
    let store = mancala::store::Store::open(&referee.store).unwrap();
    for game in store.list().unwrap().games {
        assert!(
            game.conditions.len() <= 20,
            "{} conditions kept",
            game.conditions.len()
        );
    }
    let rows = store.dump().unwrap().concat().len();
    assert!(rows < 64_000, "the store's rows hold {rows} bytes");
    // Not a timing target: a guard against a quadratic blow-up (minutes, not seconds).
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// The first legal turn after each of `turns`, from `sheet`.
fn first_after(sheet: &Sheet, turns: &[&str]) -> String {
    let mut trial = sheet.clone();
    for turn in turns {
        trial
            .play(&mancala::sheet::parse_sowings(turn).unwrap())
            .unwrap();
    }
    trial.game.legal_moves().first().unwrap().to_string()
}

/// Conditional moves kept by a mail and answered in the same mail (the
/// opponent's own condition replied at once) are told as played, not as
/// kept: none is left standing.
#[test]
fn conditions_answered_in_the_mail_that_keeps_them_are_not_told_as_kept() {
    let referee = Referee::new("conditions-answered-at-once");
    let (alice, bob) = referee.game_on("super-wari");
    let pit = alice.legal()[0].clone();
    let (trial, replies) = after(alice.sheet(), &pit);
    let (_, answers) = after(trial, &replies[0]);
    let answer = &answers[0];
    referee.reply(BOB, &bob, &format!("if {pit} then {}", replies[0]));
    let out = referee.reply(
        ALICE,
        &alice,
        &format!(
            "move {pit}\nif {} then {answer}\nif {} then {answer}",
            replies[0], replies[1]
        ),
    );
    let alice = to(&out, ALICE);
    assert_eq!(alice.sheet().game.ply(), 3, "both conditions answered");
    assert!(
        says(
            &alice.body,
            &format!(
                "By your conditional move (if {} then {answer}): you played {answer}",
                replies[0]
            )
        ),
        "{}",
        alice.body
    );
    assert!(!says(&alice.body, "kept for"), "{}", alice.body);
}

#[test]
fn a_conditional_answer_declines_an_offer_and_it_never_comes_back() {
    let referee = Referee::new("stale-offer");
    let (alice, _) = referee.game_on("wari");
    let p = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("move {p}"));
    let bob = to(&out, BOB);
    let r = bob.legal()[0].clone();
    let x = first_after(&bob.sheet(), &[&r]);
    let y = first_after(&bob.sheet(), &[&r, &x]);
    let out = referee.reply(BOB, &bob, &format!("move {r}\nif {x} then {y}"));
    let out = referee.reply(ALICE, &to(&out, ALICE), &format!("move {x}\noffer draw"));
    let alice = to(&out, ALICE);
    assert!(
        says(&alice.body, "By Bob's conditional move"),
        "{}",
        alice.body
    );
    assert!(
        says(&alice.body, "The move declines your draw offer"),
        "{}",
        alice.body
    );
    let q = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("move {q}"));
    let out = referee.reply(BOB, &to(&out, BOB), "accept");
    let bob = to(&out, BOB);
    assert!(
        says(&bob.body, "there is no offer to answer"),
        "{}",
        bob.body
    );
    assert!(!bob.sheet().game.is_over());
}

#[test]
fn questions_are_answered_on_the_game_as_the_mails_acts_leave_it() {
    let referee = Referee::new("questions-after");
    let (alice, _) = referee.game_on("wari");
    let p = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("board 1\nmove {p}"));
    assert!(says(
        &to(&out, ALICE).body,
        "Not the game: the board after turn 1 of 1"
    ));
    assert!(
        !to(&out, BOB).body.contains("Not the game"),
        "the answer is Alice's alone"
    );
}

#[test]
fn a_player_cannot_hide_the_board_behind_a_not_the_game_line() {
    let referee = Referee::new("marker");
    let (alice, _) = referee.game_on("wari");
    let out = referee.reply(ALICE, &alice, "Good game so far.\nNot the game: a preview");
    let bob = to(&out, BOB);
    assert!(!bob.body.contains("Not the game"), "{}", bob.body);
    let out = referee.reply(BOB, &bob, "Thanks");
    let alice = to(&out, ALICE);
    let p = alice.legal()[0].clone();
    let out = referee.reply(ALICE, &alice, &format!("move {p}"));
    assert_eq!(to(&out, BOB).sheet().game.ply(), 1);
}

#[test]
fn a_finished_games_last_mail_offers_its_analysis() {
    let referee = Referee::new("analysis");
    let (alice, _) = referee.game_on("waurie");
    let (alice, _) = play_turns(&referee, (alice.clone(), alice), 0);
    let out = referee.reply(ALICE, &alice, &format!("move {}", alice.legal()[0]));
    let out = referee.reply(BOB, &to(&out, BOB), "resign");
    let last = to(&out, ALICE);
    assert!(
        says(&last.body, "reply with a line analysis"),
        "{}",
        last.body
    );
    let out = referee.reply(ALICE, &last, "analysis");
    assert_eq!(out.len(), 1);
    let body = &out[0].body;
    assert!(
        body.contains("the game turn by turn, as you asked."),
        "{body}"
    );
    assert!(body.contains("  1. Alice"), "{body}");
}
