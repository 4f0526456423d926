//! A referee killed at any system call loses and doubles nothing. For a
//! start, an accept and a move, the real binary runs under strace once per
//! (system call, n) pair it makes, killed by SIGKILL at the nth call of
//! that kind; then the same mail is delivered again, as the MTA would. The
//! store must end as an uninterrupted run leaves it, and the players must
//! hold each reply once: the same set of Message-IDs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mancala::mail::compose::Outgoing;
use mancala::mail::delivery::Stub;
use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::Referee;
use mancala::store::Store;

mod common;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";
/// Kill points tried at once (threads, each with its own store).
const WORKERS: usize = 4;

fn press_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    common::press_reply(REFEREE, from, received, words, message_id)
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What the players hold (reply files, by Message-ID) and what the store says.
fn outcome(store: &Path, out: &Path) -> (Vec<String>, Vec<String>) {
    let mut sent: Vec<String> = std::fs::read_dir(out)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    sent.sort();
    let listing = Store::open(store).unwrap().list().unwrap();
    assert!(listing.unreadable.is_empty(), "{:?}", listing.unreadable);
    let games = listing
        .games
        .iter()
        .map(|g| {
            assert!(g.ledger.outbox.is_empty(), "{}: replies left unsent", g.id);
            format!(
                "{} {:?} {:?} {}",
                g.id,
                g.standing,
                g.turns.iter().map(|t| &t.sowings).collect::<Vec<_>>(),
                g.ledger.events
            )
        })
        .collect();
    (sent, games)
}

fn mail_args<'a>(store: &'a str, send: &'a str) -> [&'a str; 7] {
    ["mail", "--from", REFEREE, "--store", store, "--send", send]
}

fn run_referee(prefix: &[&str], store: &Path, out: &Path, mail: &[u8]) -> std::process::ExitStatus {
    let send = format!("dir:{}", out.display());
    let store = store.to_str().unwrap();
    let mut args: Vec<&str> = prefix.to_vec();
    args.push(env!("CARGO_BIN_EXE_mancala"));
    args.extend(mail_args(store, &send));
    let mut child = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("strace is installed (tests/run.sh installs it)");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(mail);
    }
    child.wait().unwrap()
}

/// The system calls an uninterrupted run makes, and how often each.
fn syscalls(store: &Path, out: &Path, mail: &[u8]) -> BTreeMap<String, usize> {
    let trace = store.with_extension("trace");
    let trace_arg = trace.to_str().unwrap().to_string();
    let status = run_referee(&["strace", "-f", "-qq", "-o", &trace_arg], store, out, mail);
    assert!(status.success());
    let mut counts = BTreeMap::new();
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let call = line.split_whitespace().nth(1).unwrap_or("");
        if let Some((name, _)) = call.split_once('(') {
            if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                *counts.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// Kills the referee at every system call of handling `mail` on `before`,
/// delivers it again, and compares with an uninterrupted run.
fn exhaustively(name: &str, before: &Path, mail: &[u8]) -> usize {
    let work = common::temp_dir(&format!("crash-{name}"));
    let (store, out) = (work.join("store"), work.join("out"));
    copy_dir(before, &store);
    let calls = syscalls(&store, &out, mail);
    let expected = outcome(&store, &out);
    assert!(
        !expected.0.is_empty(),
        "{name}: the uninterrupted run sent nothing"
    );
    // Every (call, n) pair but those where the work is done or not begun.
    let kills: Vec<(&str, usize)> = calls
        .iter()
        .filter(|(call, _)| *call != "exit_group" && *call != "execve")
        .flat_map(|(call, &count)| (1..=count).map(move |n| (call.as_str(), n)))
        .collect();
    // Each worker kills and retries in a store and an outbox of its own; the
    // runs wait on strace and fsync far more than on the processors.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let (next, kills, expected, work) = (&next, &kills, &expected, &work);
            scope.spawn(move || {
                let store = work.join(format!("store-{worker}"));
                let out = work.join(format!("out-{worker}"));
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&kill) = kills.get(i) else {
                        break;
                    };
                    kill_and_retry(name, before, mail, &store, &out, kill, expected);
                }
            });
        }
    });
    kills.len()
}

/// Runs the referee on a copy of `before`, killed by SIGKILL at the nth
/// `call`, delivers the mail again, and compares with the uninterrupted run.
fn kill_and_retry(
    name: &str,
    before: &Path,
    mail: &[u8],
    store: &Path,
    out: &Path,
    (call, n): (&str, usize),
    expected: &(Vec<String>, Vec<String>),
) {
    copy_dir(before, store);
    let _ = std::fs::remove_dir_all(out);
    let inject = format!("inject={call}:signal=SIGKILL:when={n}");
    let killed = run_referee(
        &[
            "strace",
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            &format!("trace={call}"),
            "-e",
            &inject,
        ],
        store,
        out,
        mail,
    );
    // strace ends as its tracee did: by SIGKILL (or exit 128 + 9).
    use std::os::unix::process::ExitStatusExt;
    assert!(
        killed.signal() == Some(9) || killed.code() == Some(137),
        "{name}: {call} #{n} was not killed: {killed:?}"
    );
    let again = run_referee(&[], store, out, mail);
    assert!(
        again.success(),
        "{name}: the retry after a kill at {call} #{n} failed"
    );
    assert_eq!(
        &outcome(store, out),
        expected,
        "{name}: killed at {call} #{n}"
    );
}

#[test]
fn a_referee_killed_at_any_system_call_loses_and_doubles_nothing() {
    let base = common::temp_dir("crash-base");
    let start_dir = base.join("start");
    let referee = HostedReferee::new(REFEREE, Store::open(&start_dir).unwrap());
    referee.store.secrets().unwrap(); // the key, made once, copied to every run
    let start = format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c1@players.example>\n\nnew super-wari with Bob <{BOB}>\n"
    );
    // The states before an accept and before a move, made by the library.
    let postman = Stub::default();
    let deliver = |dir: &PathBuf, raw: &str| {
        let referee = HostedReferee::new(REFEREE, Store::open(dir).unwrap());
        referee
            .deliver(&Letter::read(raw.as_bytes(), &referee.identity), &postman)
            .unwrap();
        postman.take()
    };
    let accept_dir = base.join("accept");
    copy_dir(&start_dir, &accept_dir);
    let invitation = deliver(&accept_dir, &start)
        .into_iter()
        .find(|o| o.to.address == BOB)
        .unwrap();
    let accept = press_reply(BOB, &invitation, "accept", "acc@players.example");
    let move_dir = base.join("move");
    copy_dir(&accept_dir, &move_dir);
    let boards = deliver(&move_dir, &accept);
    let alice = boards.into_iter().find(|o| o.to.address == ALICE).unwrap();
    let play = press_reply(ALICE, &alice, "move c\nGood luck!", "mv@players.example");
    let mut runs = 0;
    for (name, dir, mail) in [
        ("start", &start_dir, &start),
        ("accept", &accept_dir, &accept),
        ("move", &move_dir, &play),
    ] {
        runs += exhaustively(name, dir, mail.as_bytes());
    }
    println!("{runs} kills, each followed by a retry: nothing lost, nothing doubled");
    assert!(
        runs > 100,
        "only {runs} kill points: strace found too few calls"
    );
}
