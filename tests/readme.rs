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
