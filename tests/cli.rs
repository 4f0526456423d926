//! The `mancala` binary as people use it: real files, real exit codes.

mod common;
#[path = "common/stub.rs"]
mod stub;

use common::{last_sowing_to_draw, repo, squeezed, stderr, stdout, temp_dir};

fn mancala(args: &[&str], stdin: &str) -> std::process::Output {
    common::run(args, stdin.as_bytes())
}

#[test]
fn boards_hold_exactly_what_new_prints() {
    let mut seen = 0;
    for ruleset in mancala::engine::Ruleset::ALL.map(|r| r.as_str()) {
        let board = std::fs::read_to_string(repo(&format!("boards/{ruleset}.txt"))).unwrap();
        let out = mancala(&["new", ruleset], "");
        assert!(out.status.success());
        assert_eq!(
            stdout(&out),
            board,
            "boards/{ruleset}.txt differs from `mancala new {ruleset}`"
        );
        seen += 1;
    }
    // Every start sheet there is one of these (the pictures beside them are the README's).
    let sheets = std::fs::read_dir(repo("boards"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "txt")
        })
        .count();
    assert_eq!(seen, sheets);
}

#[test]
fn new_super_wari_prints_the_broadcast_board() {
    let out = mancala(
        &[
            "new",
            "super-wari",
            "--north",
            "Bill",
            "--south",
            "Yourname",
        ],
        "",
    );
    let text = stdout(&out);
    let expected = "\
   h    g    f    e    d    c    b    a
+----+----+----+----+----+----+----+----+
|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Bill
+----+----+----+----+----+----+----+----+
|  3 |  3 |  3 |  3 |  3 |  3 |  3 |  3 |   Yourname
+----+----+----+----+----+----+----+----+
   a    b    c    d    e    f    g    h
";
    assert!(text.contains(expected), "{text}");
    assert!(
        text.contains("\n   Yourname  Bill\n1.    ?\n2.\n3.\n4.\n"),
        "{text}"
    );
}

#[test]
fn show_json_of_the_broadcast_is_the_start() {
    let out = mancala(
        &[
            "show",
            "--json",
            repo("tests/data/seed-000.txt").to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(
        r#"{"ruleset":"super-wari","ply":0,"to_move":"south","south":[3,3,3,3,3,3,3,3],"north":[3,3,3,3,3,3,3,3],"south_store":0,"north_store":0,"legal":["a","b","c","d","e","f","g","h"],"over":false,"winner":null}"#,
    )
    .unwrap();
    for (key, value) in expected.as_object().unwrap() {
        assert_eq!(&json[key], value, "field {key}");
    }
}

#[test]
fn move_plays_for_whoever_is_to_move_and_in_place_rewrites_the_file() {
    let dir = temp_dir("move");
    let file = dir.join("game.txt");
    std::fs::write(&file, stdout(&mancala(&["new", "waurie"], ""))).unwrap();
    let path = file.to_str().unwrap();
    let out = mancala(&["move", path, "c-f"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\n1.    c-f    ?\n"),
        "{}",
        stdout(&out)
    );
    // Unchanged without --in-place.
    assert!(std::fs::read_to_string(&file).unwrap().contains("1.    ?"));
    let out = mancala(&["move", "--in-place", path, "c", "f", "a"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\n1.    c-f    a\n2.    ?\n"), "{text}");
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

/// `-i` rewrites the file a symbolic link names, keeping its permissions:
/// a sheet shared with a group stays shared, the link stays a link.
#[test]
fn move_in_place_writes_through_a_link_and_keeps_the_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("move-link");
    let file = dir.join("game.txt");
    std::fs::write(&file, stdout(&mancala(&["new", "wari"], ""))).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink("game.txt", &link).unwrap();
    let out = mancala(&["move", "-i", link.to_str().unwrap(), "c"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\n1.    c      ?\n"), "{text}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o664);
}

/// `show` checks a `Result:` line against the end the log reaches: a
/// result made up, or shown before the end, is an error naming both.
#[test]
fn show_refuses_a_result_the_log_does_not_reach() {
    let last = last_sowing_to_draw();
    let over = stdout(&mancala(&["move", "-", "f"], &last));
    assert!(over.contains("Result: a draw, 24 to 24"), "{over}");
    assert!(mancala(&["show", "-"], &over).status.success());
    let made_up = over.replace("a draw, 24 to 24", "South (South) wins, 25 to 23");
    let out = mancala(&["show", "-"], &made_up);
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("shows 'Result: South (South) wins, 25 to 23', but its log ends 'Result: a draw, 24 to 24'"),
        "{}",
        stderr(&out)
    );
    let early = last + "Result: North (North) wins\n";
    let out = mancala(&["show", "-"], &early);
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("but its game is not over"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn move_reads_standard_input() {
    let start = stdout(&mancala(&["new", "mankala"], ""));
    let out = mancala(&["move", "-", "b"], &start);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = mancala(&["show", "-", "--json"], &stdout(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(value["south"], serde_json::json!([3, 0, 4, 4, 4, 3]));
    assert_eq!(value["to_move"], "north");
}

#[test]
fn an_illegal_move_exits_65_with_one_line_saying_what_and_where() {
    let start = stdout(&mancala(&["new", "super-wari"], ""));
    let out = mancala(&["move", "-", "c", "a", "c"], &start);
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(
        stderr(&out),
        "mancala: move 2: South's c is empty; legal: a, b, d, e, f, g, h\n"
    );
    let out = mancala(&["move", "-", ""], &start);
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(stderr(&out), "mancala: '' names no pit\n");
    let out = mancala(&["move", "-", "z"], &start);
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("'z' is not a pit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_bad_sheet_exits_65_and_names_the_input() {
    let out = mancala(&["show", "-"], "hello, no board here\n");
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).starts_with("mancala: <stdin>: no game sheet found"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn usage_errors_exit_2_and_a_missing_file_66() {
    assert_eq!(mancala(&["new", "chess"], "").status.code(), Some(2));
    assert_eq!(
        mancala(&["new", "mankala", "--stones", "9"], "")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(mancala(&["frobnicate"], "").status.code(), Some(2));
    let out = mancala(&["show", "/nonexistent/sheet.txt"], "");
    assert_eq!(out.status.code(), Some(66));
    assert!(stderr(&out).contains("/nonexistent/sheet.txt"));
}

#[test]
fn replay_json_prints_ply_zero_then_one_line_per_sowing() {
    let out = mancala(&["replay", "waurie", "c-f", "a", "--json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for (ply, line) in lines.iter().enumerate() {
        assert_eq!(line["ply"], ply);
    }
    assert_eq!(lines[1]["to_move"], "south", "c earns a bonus");
    assert_eq!(lines[3]["to_move"], "south");
}

#[test]
fn replay_stops_at_an_illegal_move_with_65() {
    let out = mancala(&["replay", "wari", "a", "a", "a", "--json"], "");
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(stdout(&out).lines().count(), 3);
    assert_eq!(
        stderr(&out),
        "mancala: turn 3: South's a is empty; legal: b, c, d, e, f\n"
    );
}

/// `a-b` is one turn, as by mail: b follows only a bonus sowing, and is
/// never played for the opponent.
#[test]
fn a_turn_written_on_past_its_end_is_refused_whole() {
    let start = stdout(&mancala(&["new", "waurie"], ""));
    let out = mancala(&["move", "-", "a-b"], &start);
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(
        stderr(&out),
        "mancala: move 1: South's a earns no free turn, so b cannot follow\n"
    );
    assert!(stdout(&out).is_empty());
    let out = mancala(&["replay", "super-wari", "c-d", "--json"], "");
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(stdout(&out).lines().count(), 1, "nothing of the turn shown");
    assert_eq!(
        stderr(&out),
        "mancala: turn 1: South's c earns no free turn, so d cannot follow\n"
    );
    // As separate arguments they are two turns, one a side.
    let out = mancala(&["move", "-", "a", "b"], &start);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\n1.    a      b\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn replay_to_the_end_reports_the_winner() {
    // Mankala, South sows f, North sows a, ...: play until over, then check the last line.
    let mut moves: Vec<String> = Vec::new();
    let mut last = serde_json::Value::Null;
    for _ in 0..400 {
        let args: Vec<&str> = ["replay", "mankala", "--json"]
            .into_iter()
            .chain(moves.iter().map(String::as_str))
            .collect();
        let out = mancala(&args, "");
        last = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
        if last["over"] == true {
            break;
        }
        let legal = last["legal"].as_array().unwrap();
        moves.push(legal.last().unwrap().as_str().unwrap().to_string());
    }
    assert_eq!(last["over"], true);
    assert_eq!(last["to_move"], serde_json::Value::Null);
    assert!(["south", "north", "draw"].contains(&last["winner"].as_str().unwrap()));
    assert_eq!(last["legal"], serde_json::json!([]));
}

#[test]
fn rules_prints_the_rules_and_clarifications() {
    let out = mancala(&["rules"], "");
    let text = stdout(&out);
    for needle in [
        "Super-Wari",
        "Wari",
        "Waurie",
        "Mankala",
        "more than half",
        "Clarification",
    ] {
        assert!(text.contains(needle), "missing {needle}");
    }
    let out = mancala(&["rules", "waurie"], "");
    let words = stdout(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains("cannot play, and wins"));
    assert!(!stdout(&out).contains("Mankala ("));
}

#[test]
fn help_reads_well() {
    let out = mancala(&["--help"], "");
    let text = stdout(&out);
    for command in ["new", "move", "show", "replay", "rules"] {
        assert!(
            text.contains(&format!("  {command} ")),
            "no {command} in help"
        );
    }
    assert!(text.contains("Exit status"));
    // Each --opponent says which opponents there are, and the default.
    for (command, default) in [
        ("hint", "(default: perfect)"),
        ("play", "greedy for mankala)"),
    ] {
        let out = mancala(&[command, "--help"], "");
        let help = stdout(&out)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for needle in [
            "greedy (Critchlow's)",
            "perfect (exact",
            "blitz (10,000)",
            "search-N (N positions a move)",
            default,
        ] {
            assert!(
                help.contains(needle),
                "{command} --help: no {needle} in\n{help}"
            );
        }
    }
}

#[test]
fn play_takes_moves_piped_in_and_saves_the_sheet() {
    let dir = temp_dir("play");
    let save = dir.join("game.txt");
    // More moves than the game needs, some illegal: each gets an answer.
    let moves: String = "help\nhint\nz\nd\nundo\n".to_string() + &"a\nb\nc\nd\ne\nf\n".repeat(60);
    let out = mancala(
        &[
            "play",
            "mankala",
            "--opponent",
            "first",
            "--save",
            save.to_str().unwrap(),
        ],
        &moves,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for seen in [
        "Type a pit to sow it",
        "Hint: ",
        "Taken back.",
        "'z' is not a pit: pits are letters a to f (or digits 1 to 6)",
        "North plays ",
        "The game is over.",
        "Result: ",
    ] {
        assert!(text.contains(seen), "no '{seen}' in the session:\n{text}");
    }
    let shown = mancala(&["show", "--json", save.to_str().unwrap()], "");
    let json: serde_json::Value = serde_json::from_str(&stdout(&shown)).unwrap();
    assert_eq!(json["over"], true);
}

#[test]
fn hint_json_names_the_move() {
    let start = stdout(&mancala(&["new", "mankala"], ""));
    let out = mancala(&["hint", "-", "--json", "--opponent", "greedy"], &start);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        json["move"], "d",
        "three stones, three from home: a free turn"
    );
    let out = mancala(&["hint", "-", "--json", "--opponent", "blitz"], &start);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["move"].as_str().is_some_and(|m| "abcdef".contains(m)));
    assert!(json["depth"].as_u64().unwrap() >= 1);
}

#[test]
fn tournament_counts_wins_draws_and_losses() {
    let out = mancala(
        &["tournament", "wari", "blitz", "greedy", "--games", "4"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("blitz against greedy: 4 wins, 0 draws, 0 losses"),
        "{text}"
    );
    assert!(
        text.contains("ms a move") && text.contains("M nodes a second"),
        "{text}"
    );
}

/// A referee started with its standard output closed (a careless crontab,
/// an odd MTA) has it opened on /dev/null first, as std's own start does:
/// a store file it opens (its key, a lock, a game) never becomes standard
/// output, so never has a reply written into it. That /dev/null cannot be
/// told from one of the operator's own opened read and write (`1<>`, a
/// systemd `StandardOutput=null`, Python's `DEVNULL`), which throws the
/// replies away on purpose as `>/dev/null` does: each is handled (exit 0),
/// and the log says the replies were thrown away.
#[cfg(unix)]
#[test]
fn send_stdout_into_a_read_write_dev_null_is_handled_and_a_closed_output_never_becomes_a_store_file(
) {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let dir = temp_dir("closed-stdout");
    let referee = |store: &std::path::Path, send: &str, out: &str| {
        // The shell opens (`1<>/dev/null`) or closes (`>&-`) standard
        // output as `out` says, and runs the referee in its place.
        let mut command = Command::new("/bin/sh");
        command
            .args([
                "-c",
                &format!(r#"exec "$0" "$@" {out}"#),
                env!("CARGO_BIN_EXE_mancala"),
            ])
            .args(["mail", "--from", "referee@referee.example", "--send", send])
            .arg("--store")
            .arg(store)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"From: alice@players.example\nTo: referee@referee.example\nMessage-ID: <closed@x>\n\nnew wari with computer\n")
            .unwrap();
        child.wait_with_output().unwrap()
    };
    for (n, out) in ["1<>/dev/null", ">/dev/null", ">&-"].iter().enumerate() {
        let store = dir.join(format!("store-{n}"));
        let run = referee(&store, "stdout", out);
        assert!(run.status.success(), "{out}: {}", stderr(&run));
        let said = stderr(&run);
        assert!(
            said.contains("the replies are thrown away"),
            "{out}: {said}"
        );
        let games = mancala::store::Store::open(&store).unwrap().list().unwrap();
        assert_eq!(games.games.len(), 1, "{out}");
    }
    let store = dir.join("store-sent");
    let out = referee(&store, &format!("dir:{}", dir.join("out").display()), ">&-");
    assert!(out.status.success(), "{}", stderr(&out));
    fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .flat_map(|path| {
                if path.is_dir() {
                    files(&path)
                } else {
                    vec![path]
                }
            })
            .collect()
    }
    for file in files(&dir)
        .into_iter()
        .filter(|f| !f.starts_with(dir.join("out")))
    {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("Message-ID:"),
            "a reply was written into {}",
            file.display()
        );
    }
    let games = mancala::store::Store::open(&store).unwrap().list().unwrap();
    assert!(games.unreadable.is_empty());
    assert_eq!(games.games.len(), 1);
    assert_eq!(games.games[0].ruleset.as_str(), "wari");
}

/// Output into a pipe whose reader has gone (`mancala rules | head -1`, a
/// sendmail that died) is an error the program reports and exits on, as
/// with std's own start, which ignores SIGPIPE: never a kill by the signal.
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_an_error_not_a_kill() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    // A pipe whose reading end is closed before the referee starts.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .arg("rules")
        .stdout(writer)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.signal(), None, "killed by a signal: {status:?}");
    assert!(status.code().is_some(), "{status:?}");
}

/// `mancala mail`'s variables stand in for the flags not given, a flag
/// beats its variable, and unset they leave the defaults: replies on
/// standard output from referee@localhost, the game in the store named.
#[test]
fn mail_reads_its_variables_for_the_flags_not_given() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let dir = temp_dir("variables");
    let mail = |args: &[&str], variables: &[(&str, &std::path::Path)]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .arg("mail")
            .args(args)
            .env_remove("MANCALA_SEND")
            .env_remove("MANCALA_FROM")
            .env_remove("MANCALA_STORE")
            .envs(variables.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A usage error exits before reading: the pipe may then be closed.
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(b"From: alice@players.example\nTo: referee@localhost\nMessage-ID: <v@x>\n\nnew wari with computer\n");
        child.wait_with_output().unwrap()
    };
    let games = |store: &std::path::Path| match store.exists() {
        true => (mancala::store::Store::open(store)
            .unwrap()
            .list()
            .unwrap()
            .games)
            .len(),
        false => 0,
    };
    let from = std::path::Path::new("ref@env.example");

    let out = mail(&["--store", dir.join("a").to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\nFrom: \"Mancala referee\" <referee@localhost>"),
        "{}",
        stdout(&out)
    );
    assert_eq!(games(&dir.join("a")), 1);

    let store = dir.join("b");
    let out = mail(&[], &[("MANCALA_FROM", from), ("MANCALA_STORE", &store)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("<ref@env.example>"),
        "{}",
        stdout(&out)
    );
    assert_eq!(games(&store), 1);

    let out = mail(
        &[
            "--from",
            "flag@x.example",
            "--store",
            dir.join("c").to_str().unwrap(),
        ],
        &[("MANCALA_FROM", from)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("<flag@x.example>"),
        "{}",
        stdout(&out)
    );

    let sent = dir.join("sent");
    std::fs::create_dir_all(&sent).unwrap();
    let send = format!("dir:{}", sent.display());
    let out = mail(
        &["--store", dir.join("d").to_str().unwrap()],
        &[("MANCALA_SEND", std::path::Path::new(&send))],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the reply went to the folder");
    assert_eq!(std::fs::read_dir(&sent).unwrap().count(), 1);

    let out = mail(&["--no-store"], &[("MANCALA_STORE", &store)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `mancala remind` from cron: its arguments checked before anything is
/// done, its log in words with a count of every game it looked at, and a
/// reminder that says when the game is forfeited, first, so a subject cut
/// short keeps it (issue 45).
#[test]
fn remind_logs_in_words_and_its_nudge_leads_with_when_the_game_is_forfeited() {
    use mancala::mail::hosted::HostedReferee;
    use mancala::mail::letter::Letter;
    use mancala::mail::Referee;
    use mancala::store::Store;
    use stub::Stub;

    const REFEREE: &str = "referee@referee.example";
    for (args, said) in [
        (&["--nudge", "7"][..], "'7' has no unit: write 7d for days"),
        (
            &["--nudge", "7d", "--forfeit", "3d"][..],
            "--forfeit (3d) is shorter than --nudge (7d)",
        ),
    ] {
        let dir = temp_dir("remind-refused");
        let store = dir.join("store");
        let out = mancala(
            &[&["remind", "--store", store.to_str().unwrap()][..], args].concat(),
            "",
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(!store.exists(), "{args:?} opened the store");
    }

    let dir = temp_dir("remind");
    let store_dir = dir.join("store");
    let referee = HostedReferee::new(REFEREE, Store::open(&store_dir).unwrap());
    let postman = Stub::default();
    let deliver = |mail: String| {
        // (a send that fails leaves its mail owed: not an error here)
        let _ = referee.deliver(&Letter::read(mail.as_bytes(), &referee.identity), &postman);
        postman.take()
    };
    let to = |out: &[mancala::mail::outgoing::Outgoing], who: &str| {
        out.iter().find(|o| o.to.address == who).unwrap().clone()
    };
    let (alice, bob) = ("alice@players.example", "bob@players.example");
    let out = deliver(format!(
        "From: Alice <{alice}>\nTo: {REFEREE}\nMessage-ID: <r1@x>\n\nnew wari with Bob <{bob}>\n"
    ));
    let out = deliver(common::press_reply(
        REFEREE,
        bob,
        &to(&out, bob),
        "accept",
        "r2@x",
    ));
    // Alice shows her key (a referee never reminds an inviter who did not).
    deliver(common::press_reply(
        REFEREE,
        alice,
        &to(&out, alice),
        "board",
        "r3@x",
    ));
    let first = Store::open(&store_dir).unwrap().list().unwrap().games[0]
        .id
        .clone();
    // A second game, whose inviter never shows a key, owing Carol a notice
    // that failed to go: looked at (to send it), then left alone.
    let out = deliver(format!(
        "From: Alice <{alice}>\nTo: {REFEREE}\nMessage-ID: <r4@x>\n\nnew wari with Carol <carol@players.example>\n"
    ));
    let carol = to(&out, "carol@players.example");
    postman.fail(
        "carol@players.example",
        mancala::mail::transport::Failure::Transient,
    );
    deliver(common::press_reply(
        REFEREE,
        "carol@players.example",
        &carol,
        "accept",
        "r5@x",
    ));
    let store = Store::open(&store_dir).unwrap();
    let mut record = None;
    for mut game in store.list().unwrap().games {
        game.last_activity = mancala::store::now() - 8 * 86_400;
        store.save_game(&game).unwrap();
        if game.id == first {
            record = Some(game);
        }
    }
    let record = record.unwrap();

    let sent = dir.join("sent");
    let remind = || {
        let send = format!("dir:{}", sent.display());
        let args = ["remind", "--store", store_dir.to_str().unwrap()];
        mancala(
            &[&args[..], &["--from", REFEREE, "--send", &send]].concat(),
            "",
        )
    };
    let out = remind();
    let log = stderr(&out);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(&format!("{} reminded Alice to move", record.id)),
        "{log}"
    );
    assert!(!log.contains("Nudged"), "{log}");
    assert!(
        log.contains(
            "- remind: 1 reminded, 0 forfeited, 1 with notices resent, 1 left alone (1 inviter never keyed), 0 not handled"
        ),
        "{log}"
    );
    let mails: Vec<_> = std::fs::read_dir(&sent)
        .unwrap()
        .map(|e| common::read_written(&e.unwrap().path()))
        .collect();
    assert_eq!(mails.len(), 2, "the nudge and the notice owed");
    let nudge = mails
        .iter()
        .find(|m| m.body.contains("a reminder"))
        .unwrap();
    let deadline =
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(record.last_activity + 21 * 86_400);
    let stamp = mancala::mail::transport::timestamp(deadline);
    let by = format!(
        "{}: move by {} at {} UTC, or you forfeit",
        record.id,
        &stamp[..10],
        &stamp[11..16]
    );
    // (as read, the lines wrapped where the referee wrapped them)
    let words = squeezed(&nudge.body);
    assert!(
        words.starts_with(&format!("Wari {by}")),
        "no '{by}' first in\n{}",
        nudge.body
    );
    assert!(
        nudge.subject.starts_with(&format!("Wari {by}")),
        "{}",
        nudge.subject
    );
    assert!(words.contains("your move for 8 days"), "{}", nudge.body);

    let again = remind();
    let log = stderr(&again);
    assert!(again.status.success(), "{log}");
    assert!(
        log.contains(
            "- remind: 0 reminded, 0 forfeited, 0 with notices resent, 0 left alone, 0 not handled"
        ),
        "{log}"
    );
}

/// At `mancala play` a sowing that earns another says so (issue 45):
/// Waurie's c ends in the endpit, f does not.
#[test]
fn play_says_when_a_sowing_earns_a_bonus_sowing() {
    let out = mancala(&["play", "waurie", "--opponent", "first"], "c\nf\nquit\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("earned a bonus sowing").count(), 1, "{text}");
    assert!(
        text.contains("c earned a bonus sowing: you sow again."),
        "{text}"
    );
}

/// What mail takes, the terminal takes: `move c` at `mancala play` sows c,
/// as `c` does (issue 45), never "'move' is not a pit".
#[test]
fn play_takes_a_move_written_as_mail_writes_it() {
    let out = mancala(&["play", "super-wari"], "move c\nquit\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("is not a pit"), "{text}");
    let sheet = text.split("You quit.").next().unwrap();
    let sown = mancala::sheet::Sheet::parse(sheet.rsplit("Your move").nth(1).unwrap_or(sheet));
    assert!(
        sown.is_ok_and(|s| s
            .game
            .sowings()
            .first()
            .is_some_and(|w| w.pit.letter() == 'c')),
        "c was not sown:\n{text}"
    );
}
