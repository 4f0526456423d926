//! Games that start from a position set up by hand, and variants, through
//! the real binary: `new --position`, then `show`, `move`, `replay`,
//! `hint` and `play` all working from it. The example is Ralf Gering's 2008
//! Waurie endgame problem from the Waurie seed (Mancala World).

mod common;

use common::{stderr, stdout, temp_dir};

fn mancala(args: &[&str], stdin: &str) -> std::process::Output {
    common::run(args, stdin.as_bytes())
}

const GERING: &str = "1 0 0 0 1 1 / 0 0 1 0 0 0";
/// The seed's solution, "5! a/3/1! b/4/2 c/5/6!/6-1/3/2/4/3/5/4/6 South wins."
const MAIN_LINE: &str = "e c a d b e f f-a c b d c e d f";

fn gering_sheet(dir: &std::path::Path) -> std::path::PathBuf {
    let out = mancala(
        &[
            "new",
            "waurie",
            "--position",
            GERING,
            "--south",
            "Ann",
            "--north",
            "Bo",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let file = dir.join("gering.txt");
    std::fs::write(&file, stdout(&out)).unwrap();
    file
}

#[test]
fn new_prints_a_sheet_that_starts_from_the_position() {
    let out = mancala(&["new", "waurie", "--position", GERING], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
Game: waurie, 4 stones, south first
Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22

        f    e    d    c    b    a
+----+----+----+----+----+----+----+----+
|    |  0 |  0 |  0 |  1 |  0 |  0 |    |   North
| 22 +----+----+----+----+----+----+ 22 |
|    |  1 |  0 |  0 |  0 |  1 |  1 |    |   South
+----+----+----+----+----+----+----+----+
        a    b    c    d    e    f

   South  North
1.    ?
2.
3.
4.
"
    );
    // Stores given, and North to move.
    let out = mancala(
        &[
            "new",
            "waurie",
            "--position",
            GERING,
            "--stores",
            "20,24",
            "--first",
            "north",
        ],
        "",
    );
    let text = stdout(&out);
    assert!(text.contains("Game: waurie, 4 stones, north first\nSet up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 20,24\n"), "{text}");
}

#[test]
fn impossible_positions_are_refused_with_the_reason() {
    let refused = |args: &[&str]| {
        let out = mancala(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stdout(&out).is_empty());
        stderr(&out)
    };
    let err = refused(&["new", "waurie", "--position", "20 20 0 0 0 0 / 9 0 0 0 0 0"]);
    assert_eq!(
        err,
        "mancala: --position: waurie cannot start from this position: the pits hold 49 stones, more than the 48 of the game\n"
    );
    let err = refused(&["new", "kalah", "--position", "1 0 0 0 1 / 60 0 0 0 0 0 0"]);
    assert!(
        err.contains("South's row lists 5 pits, the board has 6; North's row lists 7 pits"),
        "{err}"
    );
    let err = refused(&["new", "mankala", "--position", "37 0 0 0 0 0 / 0 0 0 0 0 0"]);
    assert!(
        err.contains("South's a holds 37, more than the 36 stones"),
        "{err}"
    );
    let err = refused(&["new", "waurie", "--position", GERING, "--stores", "1,1"]);
    assert!(
        err.contains("pits and stores hold 6 stones, the game has 48"),
        "{err}"
    );
    let err = refused(&["new", "kalah", "--position", "0 0 0 0 0 0 / 1 2 3 0 0 0"]);
    assert!(
        err.contains("the game would already be over (a row is empty"),
        "{err}"
    );
    let err = refused(&["new", "waurie", "--position", "0 0 0 0 0 0 / 1 0 0 0 0 0"]);
    assert!(err.contains("the game would already be over"), "{err}");
    let err = refused(&[
        "new",
        "wari",
        "--position",
        "1 0 0 0 0 0 / 1 0 0 0 0 0",
        "--stores",
        "25,21",
    ]);
    assert!(err.contains("more than half the stones captured"), "{err}");
    let err = refused(&["new", "waurie", "--position", "1 0 0 0 1 1"]);
    assert!(err.contains("is not two rows"), "{err}");
    let err = refused(&["new", "waurie", "--stores", "1,1"]);
    assert!(
        err.contains("--position"),
        "--stores needs --position: {err}"
    );
    // The same row empty is no end while the other player may feed it.
    let out = mancala(
        &[
            "new",
            "waurie",
            "--position",
            "0 0 0 0 0 0 / 1 0 0 0 0 0",
            "--first",
            "north",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn gerings_endgame_move_by_move_south_wins() {
    let dir = temp_dir("gering-move");
    let file = gering_sheet(&dir);
    let path = file.to_str().unwrap();
    // One move at a time, as the players would mail them, rewriting the sheet.
    for turn in MAIN_LINE.split_whitespace() {
        let out = mancala(&["move", path, turn, "--in-place"], "");
        assert!(out.status.success(), "move {turn}: {}", stderr(&out));
    }
    let out = mancala(&["show", path], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22\n"),
        "{text}"
    );
    // The log counts from the set-up: 15 turns, the last South's on line 8.
    assert!(text.contains("\n1.    e    c\n"), "{text}");
    assert!(text.contains("\n4.    f    f-a\n"), "{text}");
    assert!(text.contains("\n8.    f\n"), "{text}");
    assert!(
        text.contains("Result: Ann (South) wins, stores 24 to 23\n        (no stones left to move, which wins in Waurie).\n"),
        "{text}"
    );
    let json = stdout(&mancala(&["show", path, "--json"], ""));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["winner"], "south");
    assert_eq!(value["ply"], 16);
}

#[test]
fn gerings_endgame_replayed_and_the_refuted_lines_lose() {
    let last = |moves: &str| {
        let mut args = vec!["replay", "waurie", "--position", GERING, "--json"];
        args.extend(moves.split_whitespace());
        let out = mancala(&args, "");
        assert!(out.status.success(), "{moves}: {}", stderr(&out));
        let text = stdout(&out);
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["south"], serde_json::json!([1, 0, 0, 0, 1, 1]));
        assert_eq!(first["north_store"], 22);
        serde_json::from_str::<serde_json::Value>(text.lines().last().unwrap()).unwrap()
    };
    let end = last(MAIN_LINE);
    assert_eq!(
        (end["winner"].as_str(), end["reason"].as_str()),
        (Some("south"), Some("cannot-move"))
    );
    // (a) "6?-1/3/2/4/3/5/4/6 North is faster."
    assert_eq!(last("f-a c b d c e d f")["winner"], "north");
    // (b) "6?/1!/1/2/2/3/3/4/4/6-5/5/6 North wins." (after 5 / 3)
    assert_eq!(last("e c f a a b b c c d d f-e e f")["winner"], "north");
    // The text replay says where it started.
    let out = mancala(&["replay", "waurie", "--position", GERING], "");
    assert!(stdout(&out).starts_with("Set-up position of Waurie; South to move.\n"));
}

#[test]
fn hint_and_play_work_from_the_set_up() {
    let dir = temp_dir("gering-hint");
    let file = gering_sheet(&dir);
    // The solver solves the problem at once: a forced win for South (+1).
    let out = mancala(&["hint", file.to_str().unwrap(), "--json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["side"], "south");
    assert_eq!(value["opponent"], "perfect", "{value}");
    assert_eq!(value["eval"], 1, "{value}");
    // The strong search finds it too, as a won score.
    let out = mancala(
        &[
            "hint",
            file.to_str().unwrap(),
            "--json",
            "--opponent",
            "strong",
        ],
        "",
    );
    let strong: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(strong["eval"].as_i64().unwrap() > 9000, "{strong}");
    assert!(
        ["a", "e"].contains(&value["move"].as_str().unwrap()),
        "{value}"
    );
    // Play North against the computer from the set-up; it finds the win.
    let save = dir.join("played.txt");
    let mut input = String::new();
    for _ in 0..20 {
        // North's only seed moves on each turn: its lowest legal pit.
        input.push_str("a\nb\nc\nd\ne\nf\n");
    }
    let out = mancala(
        &[
            "play",
            "waurie",
            "--position",
            GERING,
            "--as",
            "north",
            "--save",
            save.to_str().unwrap(),
        ],
        &input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("Waurie against strong: you are North.\n"),
        "{text}"
    );
    assert!(text.contains("The game is over."), "{text}");
    let saved = std::fs::read_to_string(&save).unwrap();
    assert!(
        saved.contains("Set up: 1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22\n"),
        "{saved}"
    );
    assert!(saved.contains("Result: Computer (South) wins"), "{saved}");
}

#[test]
fn a_variant_is_on_the_sheet_and_every_command_honours_it() {
    let dir = temp_dir("variant");
    // South's f (one seed) empties South's row: a win at once in first-empty-wins.
    let position = "0 0 0 0 0 2 / 0 0 0 0 0 3";
    let out = mancala(
        &[
            "new",
            "waurie",
            "--variant",
            "first-empty-wins",
            "--position",
            position,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Game: waurie, 4 stones, south first, variant first-empty-wins\nSet up: 0 0 0 0 0 2 / 0 0 0 0 0 3, stores 22,21\n"), "{text}");
    let file = dir.join("sheet.txt");
    std::fs::write(&file, &text).unwrap();
    let out = mancala(&["move", file.to_str().unwrap(), "f"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Result: South (South) wins, stores 23 to 21\n        (the first to empty their own row wins).\n"),
        "{}",
        stdout(&out)
    );
    // By the seed's rule the same move leaves North to move.
    let out = mancala(
        &["replay", "waurie", "--position", position, "--json", "f"],
        "",
    );
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["to_move"], "north");
    let out = mancala(
        &[
            "replay",
            "waurie",
            "--variant",
            "first-empty-wins",
            "--position",
            position,
            "--json",
            "f",
        ],
        "",
    );
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["winner"].as_str(), last["variant"].as_str()),
        (Some("south"), Some("first-empty-wins"))
    );
    // Both stores: the opponent's endpit is sown too.
    let out = mancala(
        &[
            "replay",
            "waurie",
            "--variant",
            "both-stores",
            "--json",
            "f",
        ],
        "",
    );
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["north_store"], 0);
    // North's f (8 seeds): North's endpit, South's a to f, South's endpit.
    let out = mancala(
        &[
            "replay",
            "waurie",
            "--variant",
            "both-stores",
            "--position",
            "1 0 0 0 0 0 / 0 0 0 0 0 8",
            "--first",
            "north",
            "--json",
            "f",
        ],
        "",
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        (
            lines[0]["south_store"].as_u64(),
            lines[0]["north_store"].as_u64()
        ),
        (Some(20), Some(19))
    );
    assert_eq!(
        (
            lines[1]["south_store"].as_u64(),
            lines[1]["north_store"].as_u64()
        ),
        (Some(21), Some(20))
    );
    assert_eq!(lines[1]["south"], serde_json::json!([2, 1, 1, 1, 1, 1]));
    assert_eq!(
        lines[1]["to_move"], "south",
        "a last seed in the opponent's endpit earns nothing"
    );
    // A tournament and a game against the computer in a variant.
    let out = mancala(
        &[
            "tournament",
            "waurie",
            "greedy",
            "random",
            "--variant",
            "both-stores",
            "--games",
            "10",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mancala(&["new", "wari", "--variant", "both-stores"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("wari has no variant 'both-stores'"));
}
