//! `mancala solve`, `analyze`, `tables build` and `tables check` as a user runs them, and
//! the tables shipped in boards/tables checked against tables built anew.

use mancala::engine::{Position, Ruleset, Side};
use mancala::solve::Tables;

mod common;

use common::{last_sowing_to_draw, repo, run, stderr, stdout, temp_dir};

fn gering() -> String {
    let out = run(
        &["new", "waurie", "--position", "1 0 0 0 1 1 / 0 0 1 0 0 0"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn solve_prints_the_exact_value_of_each_move() {
    let out = run(&["solve", "-", "--json"], gering().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["exact"], true, "{value}");
    assert_eq!(value["value"], 1);
    assert_eq!(value["moves"]["e"], 1, "Gering's 5!");
    assert_eq!(value["moves"]["f"], -1, "Gering's 6?");
    // By proof numbers, not MTD(f): the same values, by other work (a
    // search, not the built-in tables, which hold this position).
    let search = |how: &[&str]| -> serde_json::Value {
        let args = [&["solve", "-", "--json", "--no-tables"], how].concat();
        serde_json::from_str(&stdout(&run(&args, gering().as_bytes()))).unwrap()
    };
    let (by_mtdf, by_proof) = (search(&[]), search(&["--proof-numbers"]));
    assert_eq!(by_mtdf["moves"], value["moves"]);
    assert_eq!(by_proof["moves"], value["moves"]);
    assert_ne!(by_proof["nodes"], by_mtdf["nodes"]);
    // Out of reach: said so, with a depth, never called exact.
    let start = stdout(&run(&["new", "mankala"], b""));
    let out = run(
        &["solve", "-", "--json", "--nodes", "20000"],
        start.as_bytes(),
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["exact"], false, "{value}");
    assert!(value["depth"].as_u64().unwrap() >= 1, "{value}");
    let wari = stdout(&run(&["new", "wari"], b""));
    let out = run(
        &["solve", "-", "--json", "--nodes", "20000"],
        wari.as_bytes(),
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["exact"], false, "a repetition rule: never exact");
    // A finished game has nothing to value: said so, as `hint` says it.
    let over = run(&["move", "-", "f"], last_sowing_to_draw().as_bytes());
    assert!(
        stdout(&over).contains("Result: a draw"),
        "{}",
        stdout(&over)
    );
    let out = run(&["solve", "-", "--json"], &over.stdout);
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(
        stderr(&out),
        "mancala: the game is over: there is no move to value\n"
    );
}

#[test]
fn solve_at_least_proves_a_bound_with_each_first_moves() {
    // Kalah with 2 stones a pit: South wins by 6 (e: +6, f: 0, the rest less).
    let start = stdout(&run(&["new", "kalah", "--stones", "2"], b""));
    let bound = |v: &str| -> serde_json::Value {
        let out = run(&["solve", "-", "--json", "--at-least", v], start.as_bytes());
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    let reached = bound("6");
    assert_eq!(
        reached["bound"],
        serde_json::json!({"at_least": 6}),
        "{reached}"
    );
    assert_eq!(reached["moves"], serde_json::json!({"e": {"at_least": 6}}));
    let missed = bound("7");
    assert_eq!(
        missed["bound"],
        serde_json::json!({"at_most": 6}),
        "{missed}"
    );
    let moves = missed["moves"].as_object().unwrap();
    assert_eq!(moves.len(), 6, "every first move is searched: {missed}");
    assert!(moves
        .values()
        .all(|m| m == &serde_json::json!({"at_most": 6})));
    // A loss to prove as such: a negative bound is a bound, not an option.
    let lost = bound("-20");
    assert_eq!(
        lost["bound"],
        serde_json::json!({"at_least": -20}),
        "{lost}"
    );
}

#[test]
fn analyze_marks_the_turn_that_let_the_win_go() {
    let sheet = gering();
    let played = run(&["move", "-", "f"], sheet.as_bytes());
    assert!(played.status.success(), "{}", stderr(&played));
    let out = run(&["analyze", "-", "--json"], &played.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let first = &value["turns"][0];
    assert_eq!(first["before"], 1);
    assert_eq!(first["after"], -1);
    assert_eq!(first["let_go"], true, "{value}");
    let text = stdout(&run(&["analyze", "-"], &played.stdout));
    assert!(text.contains("the won position let go"), "{text}");
    // A sheet with no turn yet is said to have none, not met with silence.
    let text = stdout(&run(&["analyze", "-"], sheet.as_bytes()));
    assert_eq!(text, "no turn played yet: nothing to analyze\n");
}

#[test]
fn tables_build_writes_a_file_the_solver_reads() {
    let dir = temp_dir("tables-build");
    let out = run(
        &[
            "tables",
            "build",
            "waurie",
            "--stones-in-pits",
            "6",
            "--tables",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("18564 positions"), "{}", stdout(&out));
    let out = run(
        &["solve", "-", "--json", "--tables", dir.to_str().unwrap()],
        gering().as_bytes(),
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (value["exact"].clone(), value["value"].clone()),
        (true.into(), 1.into())
    );
    // Wari's tables build too, to at most 21 stones on the board.
    let build = |stones: &str| {
        run(
            &[
                "tables",
                "build",
                "wari",
                "--stones",
                stones,
                "--tables",
                dir.to_str().unwrap(),
            ],
            b"",
        )
    };
    let out = build("3");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::fs::read(dir.join("wari.tables")).unwrap();
    assert!(file.starts_with(b"mancala-tables 1 wari pits 6 stones-in-pits 3\n"));
    // Asked for fewer stones, deeper tables are kept, not built smaller.
    let out = build("2");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("already tables to 3 stones in pits; nothing built"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(dir.join("wari.tables")).unwrap(), file);
    let out = build("22");
    assert_eq!(out.status.code(), Some(65));
    assert!(stderr(&out).contains("at most 21"), "{}", stderr(&out));
}

#[test]
fn the_shipped_tables_agree_with_tables_built_anew() {
    for ruleset in [Ruleset::Mankala, Ruleset::Waurie, Ruleset::Kalah] {
        let rules = ruleset.rules();
        let path = repo(&format!("boards/tables/{ruleset}.tables"));
        let shipped = Tables::read(&rules, &mut std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(shipped.max_stones(), 11);
        let fresh = Tables::build(&rules, 6, &mut |_, _| {}).unwrap();
        let mut counts = [0u8; 12];
        for stones in 0..=6 {
            for index in 0..mancala::solve::rank::spreads(stones, 12) {
                mancala::solve::rank::unrank(index, stones, &mut counts);
                let rest = rules.total_stones() - stones as u16;
                let position = Position::from_counts(
                    rules,
                    &counts[..6],
                    &counts[6..],
                    [(rest / 2) as u8, (rest - rest / 2) as u8],
                    Side::North,
                )
                .unwrap();
                assert_eq!(
                    shipped.value(&position),
                    fresh.value(&position),
                    "{position:?}"
                );
            }
        }
    }
}

#[test]
fn a_variant_is_solved_with_its_own_tables_never_the_games() {
    let dir = temp_dir("variant-tables");
    let tables = dir.to_str().unwrap();
    let build = |extra: &[&str]| {
        let args = [
            &["tables", "build", "waurie", "--stones-in-pits", "6"],
            extra,
            &["--tables", tables],
        ]
        .concat();
        let out = run(&args, b"");
        assert!(out.status.success(), "{}", stderr(&out));
    };
    build(&[]);
    let sheet = run(
        &[
            "new",
            "waurie",
            "--variant",
            "both-stores",
            "--position",
            "2 0 1 0 0 1 / 0 1 0 0 1 0",
        ],
        b"",
    );
    assert!(sheet.status.success(), "{}", stderr(&sheet));
    let solve = |tables: &str| {
        let out = run(&["solve", "-", "--json", "--tables", tables], &sheet.stdout);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let alone = {
        let out = run(&["solve", "-", "--json", "--no-tables"], &sheet.stdout);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let value = |text: &str| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("nodes");
        v
    };
    // The plain game's tables are there, and are not used for the variant:
    // the same answer as with none (the positions counted vary with how the
    // first moves are shared out among the cores), and the log says why.
    assert_eq!(value(&solve(tables)), value(&alone));
    let out = run(&["solve", "-", "--json", "--tables", tables], &sheet.stdout);
    assert!(
        stderr(&out).contains("no endgame tables for waurie-both-stores"),
        "{}",
        stderr(&out)
    );
    build(&["--variant", "both-stores"]);
    assert!(dir.join("waurie-both-stores.tables").exists());
    let with_own = solve(tables);
    assert_eq!(value(&with_own), value(&alone));
    assert!(
        serde_json::from_str::<serde_json::Value>(&with_own).unwrap()["nodes"].as_u64()
            < serde_json::from_str::<serde_json::Value>(&alone).unwrap()["nodes"].as_u64(),
        "its own tables shorten the search"
    );
}

/// The shipped tables are built into the binary: `solve` run from any
/// folder is exact where they reach, with no `--tables`; a `--tables`
/// folder that does not exist is an error, not a search without them.
#[test]
fn an_installed_binary_finds_the_shipped_tables_from_any_folder() {
    let dir = temp_dir("tables-anywhere");
    // 11 stones in pits: in the shipped tables, far from exact in 1 position.
    let sheet = run(
        &["new", "mankala", "--position", "2 1 1 2 0 1 / 1 0 2 0 1 0"],
        b"",
    );
    assert!(sheet.status.success(), "{}", stderr(&sheet));
    let solve = |args: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args([&["solve", "-", "--json", "--nodes", "1"], args].concat())
            .current_dir(&dir)
            .env_remove("MANCALA_TABLES")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&sheet.stdout)
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = solve(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["exact"], true, "{value}");
    assert_eq!(stderr(&out), "", "tables found: nothing to say");
    let out = solve(&["--no-tables"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["exact"], false, "{value}");
    let out = solve(&["--tables", "/nonexistent/tables"]);
    assert_eq!(out.status.code(), Some(66), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--tables /nonexistent/tables: no such folder"),
        "{}",
        stderr(&out)
    );
    // None for a variant (none shipped): said, and the hint given all the same.
    let variant = run(&["new", "waurie", "--variant", "both-stores"], b"");
    let out = run(&["hint", "-", "--json"], &variant.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no endgame tables for waurie-both-stores"),
        "{}",
        stderr(&out)
    );
}

/// Irving, Donkers and Uiterwijk, "Solving Kalah" (ICGA Journal 23(3),
/// 2000), Table 10: the first player's result on m pits a row and n stones
/// a pit, one letter for each n from 1, under their rules (our variant
/// `empty-capture`); and Table 9's margins for m of 4 to 6. Read from two
/// public re-readings of the paper (see boards/solutions/kalah-small.txt).
const PAPER_RESULTS: [&str; 6] = ["DLWLWD", "WLLLWW", "DWWWWL", "WWWWWD", "DDWWWW", "WWWWW"];
const PAPER_MARGINS: [(u8, u8, i32); 17] = [
    (4, 1, 2),
    (4, 2, 6),
    (4, 3, 8),
    (4, 4, 2),
    (4, 5, 2),
    (4, 6, 0),
    (5, 1, 0),
    (5, 2, 0),
    (5, 3, 8),
    (5, 4, 12),
    (5, 5, 2),
    (5, 6, 2),
    (6, 1, 2),
    (6, 2, 10),
    (6, 3, 2),
    (6, 4, 10),
    (6, 5, 12),
];

#[test]
fn small_kalah_boards_solve_to_the_published_values() {
    // The shapes solved in well under a second each (the rest, to minutes,
    // are in boards/solutions/kalah-small.txt).
    let quick =
        |m: u8, n: u8| m <= 3 || (m == 4 && n <= 4) || (m == 5 && n <= 3) || (m == 6 && n <= 2);
    let mut checked = 0;
    for m in 1..=6u8 {
        for n in 1..=6u8 {
            if !quick(m, n) {
                continue;
            }
            let rules = Ruleset::Kalah
                .with_stones(n)
                .and_then(|r| r.with_pits(m))
                .and_then(|r| r.with_variant("empty-capture"))
                .unwrap();
            let solution = mancala::solve::Solver::new(None, 1 << 32)
                .solve(&Position::start(rules, Side::South));
            assert!(solution.exact, "Kalah({m},{n})");
            let letter = match solution.value.signum() {
                1 => 'W',
                0 => 'D',
                _ => 'L',
            };
            let published = PAPER_RESULTS[usize::from(m - 1)]
                .chars()
                .nth(usize::from(n - 1));
            assert_eq!(
                Some(letter),
                published,
                "Kalah({m},{n}): {}",
                solution.value
            );
            if let Some(&(_, _, margin)) = PAPER_MARGINS.iter().find(|s| (s.0, s.1) == (m, n)) {
                assert_eq!(solution.value, margin, "Kalah({m},{n})");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 6 + 4 + 3 + 2);
}

/// Table 9's perfect games: each turn's holes (numbered from 0 on each
/// side in sowing order, so 0 is a), a dash where the turn passes.
const PAPER_GAMES: [(u8, u8, &str); 17] = [
    (4, 1, "32-32-1"),
    (4, 2, "3-3-230-231-1323"),
    (4, 3, "13-1-032-2-3-0-1320-3-0-2"),
    (4, 4, "02-2-3-0-2-21-303231-0-32-1-0"),
    (
        4,
        5,
        "0-2-1-3-0-2-1-0-32-3-021-2-0-02-2-1-3-3-313032-13031-1-2-2-3",
    ),
    (
        4,
        6,
        "1-0-2-3-1330-01-2-2-21-201-2-23-3-23-230-32-32-12-1-0-32",
    ),
    (5, 1, "43-43-2-2"),
    (5, 2, "31-32-24-0-0-31-3"),
    (5, 3, "24-3-3-03-41-1-04342-3-3-2-2-4-414342-3"),
    (5, 4, "12-04-03-2-20-41-1-42-32-3-2-40-0-1"),
    (5, 5, "03-2-2-1-1-23-24-2-0-34414340-4240-2-14342"),
    (
        5,
        6,
        "2-0-0-3-3-0-2-1-440-4-42-2-121-12-3-1-4-20-0-34-24-324-1-3-3-1-41-43-2-2-3",
    ),
    (6, 1, "54-54-3-3-2"),
    (6, 2, "42-42-30-0-1-1-4-5"),
    (6, 3, "4-5-35-250-2-154-451535452-53-3-54-2"),
    (
        6,
        4,
        "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3",
    ),
    (
        6,
        5,
        "12-02-05-2-4-51-53-3-45-20-3-2-2-345-5-4-351-0-54-1-52-354-4-254-3-3",
    ),
];

/// Plays `game` under `rules`: the margin for South at its end, or the
/// turn (from 1) and sowing (from 1) where it breaks: an illegal sowing, a
/// turn that passes too soon or not at all, or moves past the end.
fn replay(rules: mancala::engine::Rules, game: &str) -> Result<i32, (usize, usize)> {
    use mancala::engine::{Game, Pit};
    let mut played = Game::new(rules, Side::South);
    for (turn, holes) in game.split('-').enumerate() {
        let mover = played.to_move().ok_or((turn + 1, 1))?;
        for (i, hole) in holes.bytes().enumerate() {
            let at = (turn + 1, i + 1);
            if played.to_move() != Some(mover) {
                return Err(at);
            }
            played.play(Pit::new(hole - b'0')).map_err(|_| at)?;
        }
        if played.to_move() == Some(mover) {
            return Err((turn + 1, holes.len()));
        }
    }
    let score = played.outcome().ok_or((0, 0))?.score;
    Ok(i32::from(score[0]) - i32::from(score[1]))
}

#[test]
fn the_papers_perfect_games_replay_to_their_margins_under_empty_capture() {
    let mut standard_breaks = 0;
    for (m, n, game) in PAPER_GAMES {
        let rules = Ruleset::Kalah
            .with_stones(n)
            .and_then(|r| r.with_pits(m))
            .unwrap();
        let margin = PAPER_MARGINS
            .iter()
            .find(|s| (s.0, s.1) == (m, n))
            .unwrap()
            .2;
        let ours = replay(rules.with_variant("empty-capture").unwrap(), game);
        // The one game a re-reading of the paper found not to replay under
        // the paper's own rules ("turn 9, move 1" in its count): here too it
        // breaks, at its tenth turn.
        if (m, n) == (4, 6) {
            assert!(matches!(ours, Err((10, _))), "Kalah({m},{n}): {ours:?}");
        } else {
            assert_eq!(ours, Ok(margin), "Kalah({m},{n})");
        }
        standard_breaks += usize::from(replay(rules, game) != Ok(margin));
    }
    // Under our default rule the games go otherwise (a lone stone stays).
    assert!(standard_breaks > 8, "{standard_breaks}");
}

#[test]
fn tables_check_passes_built_tables_and_names_the_position_a_damaged_byte_spoils() {
    let dir = temp_dir("tables-check");
    let folder = dir.to_str().unwrap();
    let out = run(
        &[
            "tables",
            "build",
            "super-wari",
            "--stones",
            "4",
            "--tables",
            folder,
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let check = || run(&["tables", "check", "super-wari", "--tables", folder], b"");
    // Exits `code`, saying `text` on standard output or error.
    let says = |out: std::process::Output, code: i32, text: &str| {
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(code), "{said}");
        assert!(said.contains(text), "{said}");
    };
    says(check(), 0, "to 4 stones in pits: all 4844 positions agree");
    let path = dir.join("super-wari.tables");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 100;
    bytes[at] = bytes[at].wrapping_add(1);
    std::fs::write(&path, bytes).unwrap();
    says(
        check(),
        65,
        "super-wari.tables are wrong at super-wari north",
    );
    // Bytes past the last layer: a file that is not what its header says.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at] = bytes[at].wrapping_sub(1);
    bytes.extend_from_slice(b"more");
    std::fs::write(&path, bytes).unwrap();
    says(check(), 65, "and its values alone: 4 bytes more");
    // A folder without the game's tables: the built-in ones, as `solve`
    // would use them.
    let built_in = run(&["tables", "check", "wari", "--tables", folder], b"");
    says(
        built_in,
        0,
        "the built-in wari tables, to 11 stones in pits: all",
    );
}

/// A Wari sheet set up with these rows and captures, South to move.
fn wari_set_up(rows: &str, captured: [u8; 2]) -> String {
    let out = run(&["new", "wari", "--position", rows], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let sheet = stdout(&out);
    let total: u32 = rows
        .split_whitespace()
        .filter_map(|n| n.parse::<u32>().ok())
        .sum();
    // `new` splits the rest evenly: the captures asked for instead.
    let even = (48 - total) / 2;
    let asked = format!("captured {},{}", captured[0], captured[1]);
    let sheet = sheet.replace(&format!("captured {even},{}", 48 - total - even), &asked);
    let sheet = sheet.replace(
        &format!("Captured: south {even}, north {}", 48 - total - even),
        &format!("Captured: south {}, north {}", captured[0], captured[1]),
    );
    assert!(sheet.contains(&asked), "{sheet}");
    sheet
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap()
}

#[test]
fn solve_says_exact_in_text_only_where_its_json_does_and_the_value_is_the_best_moves() {
    // The only move, f, is worth what the position is (the set-up comes
    // back: a draw), in text and JSON alike.
    let sheet = wari_set_up("0 0 0 0 0 1 / 0 0 0 0 0 1", [23, 23]);
    let value = json_of(&run(&["solve", "-", "--json"], sheet.as_bytes()));
    assert_eq!(value["exact"], true, "{value}");
    assert_eq!(value["moves"], serde_json::json!({"f": 0}), "{value}");
    assert_eq!(value["value"], 0, "{value}");
    let text = stdout(&run(&["solve", "-"], sheet.as_bytes()));
    assert_eq!(text, "exact value for South (South) to move: +0\n  f: +0\n");
    // Where the search of the game's history cannot finish (a budget of
    // one position), the tables' values as fresh starts: not exact, in
    // both, and the value is still the best move's.
    let sheet = wari_set_up("0 1 0 0 0 1 / 0 0 0 0 0 1", [23, 22]);
    let args = ["solve", "-", "--json", "--nodes", "1"];
    let value = json_of(&run(&args, sheet.as_bytes()));
    assert_eq!(value["exact"], false, "{value}");
    let best = value["moves"]
        .as_object()
        .unwrap()
        .values()
        .max_by_key(|v| v.as_i64());
    assert_eq!(Some(&value["value"]), best, "{value}");
    let text = stdout(&run(
        &args[..2]
            .iter()
            .chain(&args[3..])
            .copied()
            .collect::<Vec<_>>(),
        sheet.as_bytes(),
    ));
    assert!(
        text.starts_with("not exact (play can repeat a position here"),
        "{text}"
    );
    assert!(!text.contains("exact value"), "{text}");
}

#[test]
fn solve_values_a_wari_move_that_repeats_the_set_up_by_the_repetition_rule() {
    // f leads by force back to a position of the game (the set-up counts
    // as its first occurrence): the engine ends it there, +2 for South,
    // where the tables, valuing f's position as a fresh start, say +4.
    let sheet = wari_set_up("0 1 0 0 0 1 / 0 0 0 0 0 1", [23, 22]);
    let value = json_of(&run(&["solve", "-", "--json"], sheet.as_bytes()));
    assert_eq!(value["exact"], true, "{value}");
    assert_eq!(
        value["moves"],
        serde_json::json!({"b": 4, "f": 2}),
        "{value}"
    );
    assert_eq!(value["value"], 4);
    // Played out, f does end by repetition at +2: South 25, North 23.
    let mut game = run(&["move", "-", "f"], sheet.as_bytes()).stdout;
    for _ in 0..40 {
        if stdout_bytes(&game).contains("Result") {
            break;
        }
        let hint = json_of(&run(&["hint", "-", "--json"], &game));
        let pit = hint["move"].as_str().unwrap().to_string();
        let out = run(&["move", "-", &pit], &game);
        assert!(out.status.success(), "{}", stderr(&out));
        game = out.stdout;
    }
    let text = stdout_bytes(&game);
    assert!(text.contains("the position repeated"), "{text}");
    assert!(text.contains("25 to 23"), "{text}");
}

fn stdout_bytes(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn hint_on_a_game_ended_by_repetition_says_the_game_is_over() {
    let mut game = wari_set_up("0 0 0 0 0 1 / 0 0 0 0 0 1", [23, 23]).into_bytes();
    // Every move here is forced: f, f, then a to e on both sides.
    for pit in ["f", "f", "a", "a", "b", "b", "c", "c", "d", "d", "e", "e"] {
        let out = run(&["move", "-", pit], &game);
        assert!(out.status.success(), "{}", stderr(&out));
        game = out.stdout;
    }
    assert!(stdout_bytes(&game).contains("the position repeated"));
    let out = run(&["hint", "-"], &game);
    assert_eq!(out.status.code(), Some(65), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        "mancala: the game is over: there is no move to suggest\n"
    );
    let out = run(&["solve", "-"], &game);
    assert_eq!(out.status.code(), Some(65));
    // The analysis of the game ends on the repetition's draw.
    let analysis = json_of(&run(&["analyze", "-", "--json"], &game));
    let last = &analysis["turns"].as_array().unwrap()[11];
    assert_eq!((&last["after"], &last["exact"]), (&0.into(), &true.into()));
}

/// Each line of an analysis says `lost N` exactly where its values drop
/// by N, exact or estimated (issue 45: a drop from +5 to +3 was marked on
/// one line and not on another). A Waurie game played at random, on a
/// budget that leaves most turns estimated.
#[test]
fn an_analysis_says_lost_wherever_its_values_drop() {
    use mancala::engine::{Ruleset, SplitMix64};
    use mancala::sheet::{Players, Sheet};
    let mut rng = SplitMix64::new(7);
    let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Ann", "Bo"));
    while !sheet.game.is_over() && sheet.game.ply() < 40 {
        let legal = sheet.game.legal_moves();
        let pit = legal.nth(rng.below(legal.len())).unwrap();
        sheet.game.play(pit).unwrap();
    }
    let out = run(
        &["analyze", "-", "--nodes", "200"],
        sheet.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(not exact)"), "estimates too:\n{text}");
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let arrow = words.iter().position(|w| *w == "->").unwrap();
        let value = |w: &str| w.parse::<i32>().unwrap();
        let drop = value(words[arrow - 1]) - value(words[arrow + 1]);
        let lost = words
            .iter()
            .position(|w| *w == "lost")
            .map(|at| value(words[at + 1]));
        assert_eq!(lost, (drop > 0).then_some(drop), "{line}\n{text}");
    }
}

#[test]
fn hint_solve_and_analysis_speak_the_final_margin() {
    // Kalah with 2 stones: exact within the hint's budget. South wins by
    // 6 with e: the hint, the solve and the analysis say +6.
    let start = stdout(&run(&["new", "kalah", "--stones", "2"], b""));
    let solved = json_of(&run(&["solve", "-", "--json"], start.as_bytes()));
    assert_eq!(
        (&solved["exact"], &solved["value"]),
        (&true.into(), &6.into())
    );
    let hint = json_of(&run(&["hint", "-", "--json"], start.as_bytes()));
    let pit = hint["move"].as_str().unwrap();
    assert_eq!(hint["eval"], solved["moves"][pit], "{hint}");
    assert_eq!(hint["eval"], 6);
    let text = stdout(&run(&["hint", "-"], start.as_bytes()));
    assert_eq!(text, format!("{pit} (perfect: perfect play, worth +6)\n"));
    let played = run(&["move", "-", pit], start.as_bytes()).stdout;
    let analysis = json_of(&run(&["analyze", "-", "--json"], &played));
    assert_eq!(analysis["turns"][0]["before"], 6);
    // Kalah with 4 stones is beyond the hint's 500,000 positions: its
    // estimate is the solver's on the same budget, the final margin, and
    // never the strong search's own score (which said +14 here).
    let start = stdout(&run(&["new", "kalah"], b""));
    let hint = json_of(&run(&["hint", "-", "--json"], start.as_bytes()));
    let args = ["solve", "-", "--json", "--nodes", "500000"];
    let solved = json_of(&run(&args, start.as_bytes()));
    assert_eq!(solved["exact"], false);
    let pit = hint["move"].as_str().unwrap();
    assert_eq!(hint["eval"], solved["moves"][pit], "{hint} {solved}");
    assert_eq!(hint["depth"], solved["depth"], "{hint} {solved}");
    let text = stdout(&run(&["hint", "-"], start.as_bytes()));
    assert!(text.contains("not exact, worth about"), "{text}");
    assert!(!text.contains("score"), "{text}");
}
