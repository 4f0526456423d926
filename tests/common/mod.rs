//! What the integration tests share: the real binary, run or started with
//! its input written; temporary folders; files of the repository.

// Each test file uses a part of this.
#![allow(dead_code, unused_imports)]

pub mod dump;
pub mod pg;

pub use dump::Dump;

use std::io::Write;
use std::path::PathBuf;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestError, TestRunner};
use std::process::{Child, Command, Output, Stdio};

/// Starts `mancala ARGS` with `stdin` written and closed.
pub fn spawn(args: &[&str], stdin: &[u8]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mancala binary runs");
    if let Some(mut input) = child.stdin.take() {
        // The program may stop reading early (a mail over the size limit).
        let _ = input.write_all(stdin);
    }
    child
}

/// Runs `mancala ARGS` to the end.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    spawn(args, stdin)
        .wait_with_output()
        .expect("the mancala binary ends")
}

/// A Kalah sheet one sowing from the end: South's f ends it, a draw
/// 24 to 24 (the last row emptied).
pub fn last_sowing_to_draw() -> String {
    let position = "0 0 0 0 0 1 / 1 0 0 0 0 0";
    let args = ["new", "kalah", "--position", position, "--stores", "23,23"];
    stdout(&run(&args, b""))
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 errors")
}

pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// An empty folder of this test's own under TMPDIR, with a fresh name
/// (tests run at once never share one).
pub fn temp_dir(name: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("mancala-test-{name}-"))
        .tempdir()
        .expect("a temporary folder");
    TempDir {
        path: dir.path().to_path_buf(),
        _dir: dir,
    }
}

/// A test's own folder, removed when the test is done with it (pass or
/// fail), so test runs leave nothing behind.
pub struct TempDir {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TempDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.path
    }
}

/// What a player's client sends on "reply": to the Reply-To (else
/// `referee`), quoting the body.
pub fn press_reply(
    referee: &str,
    from: &str,
    received: &mancala::mail::outgoing::Outgoing,
    words: &str,
    message_id: &str,
) -> String {
    let quoted: String = received.body.lines().map(|l| format!("> {l}\n")).collect();
    format!(
        "From: {from}\nTo: {}\nSubject: Re: {}\nMessage-ID: <{message_id}>\nIn-Reply-To: <{}>\n\n{words}\n\n{quoted}",
        received.reply_to.as_deref().unwrap_or(referee),
        received.subject,
        received.message_id
    )
}

/// One change to a mail's bytes, as the fuzz tests make them.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// The byte at a place set to a value.
    Set(Index, u8),
    /// The mail cut at a place.
    Cut(Index),
    /// Up to `len` bytes from a place in another mail of the pool, put in.
    Splice {
        at: Index,
        mail: Index,
        from: Index,
        len: usize,
    },
}

/// `base` with each of `changes` made in turn (splices taken from `pool`).
pub fn mutated(base: &[u8], pool: &[Vec<u8>], changes: &[Mutation]) -> Vec<u8> {
    let mut raw = base.to_vec();
    for change in changes {
        if raw.is_empty() {
            break;
        }
        match change {
            Mutation::Set(at, byte) => {
                let at = at.index(raw.len());
                raw[at] = *byte;
            }
            Mutation::Cut(at) => raw.truncate(at.index(raw.len())),
            Mutation::Splice {
                at,
                mail,
                from,
                len,
            } => {
                let other = &pool[mail.index(pool.len())];
                let from = from.index(other.len().max(1)).min(other.len());
                let end = (from + len).min(other.len());
                let at = at.index(raw.len());
                raw.splice(at..at, other[from..end].iter().copied());
            }
        }
    }
    raw
}

/// Runs `deliver` on `cases` mails, each one of `pool` changed 1 to `most`
/// times (splices of at most `splice` bytes): a fuzzer over real mail. A
/// mail that makes it panic is shrunk by proptest to a small change, and
/// the test fails showing it.
pub fn fuzz(
    pool: &[Vec<u8>],
    cases: u32,
    (most, splice): (usize, usize),
    deliver: impl FnMut(&[u8]),
) {
    let change = prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set(at, byte)),
        any::<Index>().prop_map(Mutation::Cut),
        (any::<Index>(), any::<Index>(), any::<Index>(), 0..=splice).prop_map(
            |(at, mail, from, len)| Mutation::Splice {
                at,
                mail,
                from,
                len
            }
        ),
    ];
    let cases_strategy = (any::<Index>(), prop::collection::vec(change, 1..=most));
    let config = Config {
        cases,
        // The failing mail is in the panic's message; no regression files
        // are written into the source tree.
        failure_persistence: None,
        ..Config::default()
    };
    let deliver = std::cell::RefCell::new(deliver);
    let result = TestRunner::new(config).run(&cases_strategy, |(base, changes)| {
        let mail = mutated(&pool[base.index(pool.len())], pool, &changes);
        (deliver.borrow_mut())(&mail);
        Ok(())
    });
    if let Err(TestError::Fail(reason, (base, changes))) = result {
        let mail = mutated(&pool[base.index(pool.len())], pool, &changes);
        panic!(
            "{reason}, on this mail:\n{}\n({changes:?} on mail {})",
            String::from_utf8_lossy(&mail),
            base.index(pool.len())
        );
    } else if let Err(abort) = result {
        panic!("{abort}");
    }
}

/// A reply the referee wrote into a `dir:` outbox, as the tests read it.
#[derive(Clone, Debug)]
pub struct Written {
    pub to: String,
    pub reply_to: String,
    pub subject: String,
    pub message_id: String,
    pub body: String,
    /// Every header, decoded (`Name: value` a line, the value as parsed):
    /// for what no header may carry.
    pub headers: String,
}

/// The reply in the file at `path`.
pub fn read_written(path: &std::path::Path) -> Written {
    let raw = std::fs::read(path).unwrap();
    let message = mail_parser::MessageParser::default().parse(&raw).unwrap();
    let address = |a: Option<&mail_parser::Address>| {
        a.and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string()
    };
    Written {
        to: address(message.to()),
        reply_to: address(message.reply_to()),
        subject: message.subject().unwrap_or_default().to_string(),
        message_id: message.message_id().unwrap_or_default().to_string(),
        body: message
            .body_text(0)
            .unwrap_or_default()
            .replace("\r\n", "\n"),
        headers: message
            .headers()
            .iter()
            .map(|h| format!("{}: {:?}\n", h.name(), h.value()))
            .collect(),
    }
}

/// The names under a store's `index/idle/`, as `day/entry` (none before
/// the store's first game).
pub fn idle_entries(dir: &std::path::Path) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(days) = std::fs::read_dir(dir.join("index/idle")) else {
        return names;
    };
    for day in days {
        let day = day.unwrap();
        for entry in std::fs::read_dir(day.path()).unwrap() {
            let name = entry.unwrap().file_name();
            names.push(format!(
                "{}/{}",
                day.file_name().to_string_lossy(),
                name.to_string_lossy()
            ));
        }
    }
    names.sort();
    names
}

/// A body's words one space apart: what it says, however it is wrapped.
pub fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
