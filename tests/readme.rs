//! The README's game by mail in five mails, played through the real
//! binary: the subjects it quotes and the sample mail it prints are the
//! ones the referee sends today (the game's id and key, which differ from
//! store to store, put back as the README has them).

use std::path::PathBuf;

mod common;

use common::{repo, run, stderr, temp_dir};

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "Alice <alice@players.example>";
const BOB: &str = "Bob <bob@players.example>";

type Sent = common::Written;

/// Referees `raw`; returns the replies it wrote into `out`, by recipient.
fn deliver(store: &str, out: &std::path::Path, raw: &str) -> Vec<Sent> {
    let before: Vec<PathBuf> = files(out);
    let send = format!("dir:{}", out.display());
    let output = run(
        &["mail", "--from", REFEREE, "--store", store, "--send", &send],
        raw.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let mut sent = Vec::new();
    for path in files(out).into_iter().filter(|p| !before.contains(p)) {
        sent.push(common::read_written(&path));
    }
    sent
}

fn files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

fn to<'a>(sent: &'a [Sent], address: &str) -> &'a Sent {
    sent.iter()
        .find(|s| address.contains(&format!("<{}>", s.to)))
        .unwrap_or_else(|| panic!("no reply to {address}"))
}

/// `from` presses reply on `received` and writes `words` above the quote.
fn reply(from: &str, received: &Sent, words: &str, n: usize) -> String {
    let quoted: String = received.body.lines().map(|l| format!("> {l}\n")).collect();
    format!(
        "From: {from}\nTo: {}\nSubject: Re: {}\nMessage-ID: <readme{n}@players.example>\n\n{words}\n\n{quoted}",
        received.reply_to, received.subject
    )
}

/// The fenced block that follows `after` in `text`.
fn block_after<'a>(text: &'a str, after: &str) -> &'a str {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("README: no {after:?}"))..];
    let start = rest.find("```\n").expect("a block") + 4;
    let end = rest[start..].find("```").expect("the block's end");
    &rest[start..start + end]
}

#[test]
fn the_readmes_five_mails_are_what_the_referee_sends() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let dir = temp_dir("readme");
    let (store, out) = (dir.join("store"), dir.join("out"));
    std::fs::create_dir_all(&out).unwrap();
    let store = store.to_str().unwrap();

    let first = format!(
        "From: {ALICE}\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <readme1@players.example>\n\nnew super-wari with {BOB}\n"
    );
    let one = deliver(store, &out, &first);
    let two = deliver(store, &out, &reply(BOB, to(&one, BOB), "accept", 2));
    let three = deliver(store, &out, &reply(ALICE, to(&two, ALICE), "move c", 3));
    let four = deliver(
        store,
        &out,
        &reply(
            BOB,
            to(&three, BOB),
            "move e\noffer draw\nNice opening! A draw?",
            4,
        ),
    );
    let five = deliver(store, &out, &reply(ALICE, to(&four, ALICE), "accept", 5));

    // The README's id and Alice's key stand for this store's.
    let sample = block_after(&readme, "The mail Alice gets after mail 4");
    let alice = to(&four, ALICE);
    let id = alice.message_id.split('.').next().unwrap().to_string();
    let key = alice
        .reply_to
        .trim_start_matches("referee+")
        .split('@')
        .next()
        .unwrap();
    let as_readme = |text: &str| {
        text.replace(key, "xss96i-5cb4b7fe480d")
            .replace(&id, "xss96i")
    };

    let signature = alice.body.find("\n-- \n").expect("a signature");
    let rendered = format!(
        "Subject: {}\nReply-To: \"Mancala referee\" <{}>\nMessage-ID: <{}>\n\n{}\n",
        alice.subject,
        alice.reply_to,
        alice.message_id,
        alice.body[..signature].trim_end()
    );
    assert_eq!(as_readme(&rendered), sample, "README's sample mail");

    // Every subject the table quotes, less its "..." ends, is part of one sent.
    let table = &readme[readme.find("| mail | who writes").unwrap()..];
    let table = &table[..table.find("\n\n").unwrap()];
    let subjects: Vec<String> = [&one, &two, &three, &four, &five]
        .iter()
        .flat_map(|sent| sent.iter().map(|s| as_readme(&s.subject)))
        .collect();
    let quoted: Vec<&str> = table
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|q| q.starts_with("Super-Wari ") || q.starts_with("... "))
        .collect();
    assert!(
        quoted.len() >= 7,
        "the table quotes the subjects: {quoted:?}"
    );
    for q in quoted {
        let part = q.trim_start_matches("... ").trim_end_matches("...");
        assert!(
            subjects.iter().any(|s| s.contains(part)),
            "README quotes {q:?}; the referee sent {subjects:#?}"
        );
    }
}

/// The README's first command, `mancala mail --store "$(mktemp -d)/demo.db" <
/// tests/mail/examples/broadcast-reply.eml`, on the defaults a newcomer has (no
/// MANCALA_* variable, a home of their own): it keeps the game in a store of its own,
/// never the user's default one, and prints the two replies as mbox, with no false
/// "not done" and the log line the README shows.
#[test]
fn the_readmes_first_command_referees_the_example_mail_and_leaves_the_default_store_alone() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let command_line =
        "-- mail --store \"$(mktemp -d)/demo.db\" < tests/mail/examples/broadcast-reply.eml";
    assert!(readme.contains(command_line), "README's first command");
    let home = temp_dir("readme-home");
    let demo = temp_dir("readme-demo");
    let mail = std::fs::read(repo("tests/mail/examples/broadcast-reply.eml")).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"));
    command
        .arg("mail")
        .arg("--store")
        .arg(demo.join("demo.db"))
        .env("HOME", &*home)
        .env_remove("XDG_DATA_HOME");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MANCALA_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &mail).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let mbox = common::stdout(&output);
    let messages: Vec<&str> = mbox.split("\nFrom ").collect();
    assert!(mbox.starts_with("From "), "mbox on stdout:\n{mbox}");
    assert_eq!(messages.len(), 2, "two replies:\n{mbox}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("To: bill@players.example")),
        "Bill's invitation (the name the inviter gave him in no header):\n{mbox}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("To: Yourname <you@players.example>")),
        "the word to the sender:\n{mbox}"
    );
    let log = stderr(&output);
    assert!(
        log.trim_end()
            .ends_with("invitation sent by you@players.example"),
        "the README's log line, got {log}"
    );
    assert!(!mbox.contains("Not done"), "no false 'not done':\n{mbox}");
    assert!(demo.join("demo.db").is_file(), "the demo's store");
    let default = home.join(".local/share/mancala-referee");
    assert!(!default.exists(), "the default store is left alone");
}

/// A solved position's answer, as `solve --json` gives it and its
/// solution file records it: the value for South, the first moves that
/// keep it, and whether it is exact.
#[derive(Clone, Debug, PartialEq)]
struct Solved {
    value: i64,
    best: Vec<String>,
}

/// The answer a solution file records: its exact line, else its two
/// bounds (`at_least` and `at_most` the same value), with the moves proven
/// to reach it.
fn recorded(name: &str) -> Solved {
    let path = repo(&format!("boards/solutions/{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let answers: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    if let Some(exact) = answers.iter().find(|a| a["exact"] == true) {
        return solved(exact);
    }
    let bound = |which: &str| {
        answers
            .iter()
            .find_map(|a| a["bound"][which].as_i64())
            .unwrap_or_else(|| panic!("{name}: no exact answer, nor an {which} bound"))
    };
    let value = bound("at_least");
    assert_eq!(value, bound("at_most"), "{name}: the bounds meet");
    let at_least = answers.iter().find(|a| a["bound"]["at_least"] == value);
    let best = at_least.unwrap()["moves"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    Solved { value, best }
}

fn solved(answer: &serde_json::Value) -> Solved {
    let value = answer["value"].as_i64().unwrap();
    let moves = answer["moves"].as_object().unwrap();
    let best = (moves.iter())
        .filter(|(_, v)| v.as_i64() == Some(value))
        .map(|(pit, _)| pit.clone())
        .collect();
    Solved { value, best }
}

/// The README's claim, in its words: `South wins by 2, with e or f`,
/// `South wins, with f only` (a win-or-loss game: +1).
fn claimed(claim: &str) -> Solved {
    let number = |after: &str| -> Option<i64> {
        let rest = &claim[claim.find(after)? + after.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let value = number("wins by ")
        .or_else(|| claim.contains("South wins,").then_some(1))
        .unwrap_or_else(|| panic!("no value in the README's {claim:?}"));
    let best = match claim.find(", with ") {
        Some(at) => {
            let moves = claim[at + 7..].split([',', '(']).next().unwrap();
            let moves = moves.trim_end_matches(" only").replace(" or ", " ");
            moves.split_whitespace().map(str::to_string).collect()
        }
        None => Vec::new(),
    };
    Solved { value, best }
}

/// `mancala new ... | mancala solve - ...` as the README writes it, run
/// with `--json`: the answer, and whether it is exact.
fn run_solve(pipeline: &str) -> (Solved, bool) {
    let (new, solve) = pipeline
        .split_once(" | ")
        .unwrap_or_else(|| panic!("not a new | solve pipeline: {pipeline}"));
    let words = |command: &str| -> Vec<String> {
        let words = command.strip_prefix("mancala ").expect("a mancala command");
        words.split_whitespace().map(str::to_string).collect()
    };
    let new: Vec<String> = words(new);
    let new = run(&new.iter().map(String::as_str).collect::<Vec<_>>(), b"");
    assert!(new.status.success(), "{pipeline}: {}", stderr(&new));
    let mut args = words(solve);
    args.push("--json".into());
    let out = run(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &new.stdout,
    );
    assert!(out.status.success(), "{pipeline}: {}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (solved(&answer), answer["exact"] == true)
}

/// Each solved claim in the README names what reproduces it (the shipped
/// binary's command, `reproduce.sh NAME`, or the solution file's
/// commands) and says what its solution file records; a command the
/// README gives is run, and says what the README says it says (exact, or
/// `not exact` and its value).
#[test]
fn every_solved_claim_in_the_readme_names_what_reproduces_it_and_agrees_with_its_solution() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let script = std::fs::read_to_string(repo("boards/solutions/reproduce.sh")).unwrap();
    let table = &readme[readme
        .find("| start position, South first |")
        .expect("the README's table of solved positions")..];
    let rows: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(rows.len() >= 5, "{rows:?}");
    let mut runs = Vec::new();
    for row in rows {
        let cells: Vec<&str> = row
            .split(" | ")
            .map(|c| c.trim_matches(['|', ' ']))
            .collect();
        let [position, claim, how] = cells[..] else {
            panic!("three cells: {row}");
        };
        // `Kalah, 4 stones, the empty-capture rule` is kalah-4-empty-capture.
        let words: Vec<&str> = position
            .split([',', ' '])
            .filter(|w| !w.is_empty())
            .collect();
        let mut name = format!("{}-{}", words[0].to_lowercase(), words[1]);
        if position.contains("empty-capture") {
            name.push_str("-empty-capture");
        }
        let want = claimed(claim);
        assert_eq!(
            recorded(&name),
            want,
            "{position}: the README against {name}.txt"
        );
        let spans: Vec<&str> = how.split('`').skip(1).step_by(2).collect();
        let reproduced = spans.iter().any(|span| {
            span.strip_prefix("boards/solutions/reproduce.sh ") == Some(&name)
                && script.contains(&format!("    {name})"))
                || *span == format!("boards/solutions/{name}.txt")
        });
        let commands: Vec<String> = (spans.iter())
            .filter(|s| s.starts_with("mancala new"))
            .map(|s| s.replace("\\|", "|"))
            .collect();
        assert!(
            reproduced || !commands.is_empty(),
            "{position}: nothing named reproduces it: {how}"
        );
        runs.extend(
            commands
                .into_iter()
                .map(|c| (position, how, want.clone(), c)),
        );
    }
    // The commands at once: each is seconds of a core.
    std::thread::scope(|scope| {
        for (position, how, want, command) in &runs {
            scope.spawn(move || {
                let (got, exact) = run_solve(command);
                if exact {
                    assert_eq!(&got, want, "{position}: `{command}`");
                } else {
                    // Named as what the shipped tables cannot do: said so, with its value.
                    assert!(
                        how.contains("not exact"),
                        "{position}: `{command}` is not exact"
                    );
                    let value = format!("{:+}", got.value);
                    assert!(
                        how.contains(&value),
                        "{position}: `{command}` gives {got:?}"
                    );
                }
            });
        }
    });
}
