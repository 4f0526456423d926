//! A referee killed at any system call loses and doubles nothing. For each
//! transaction path (an invitation, an accept, a move, a keyless answer, a
//! takeback accepted, a conditional move triggered, a forfeit and a nudge
//! by `remind`),
//! the real binary runs under strace once per
//! (system call, n) pair it makes, killed by SIGKILL at the nth call of
//! that kind; then the same mail is delivered again, as the MTA would. The
//! store must end as an uninterrupted run leaves it, and the players must
//! hold each reply once: the same set of Message-IDs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::outgoing::Outgoing;
use mancala::mail::Referee;
use mancala::store::Store;

mod common;
use common::Dump;
#[path = "common/stub.rs"]
mod stub;

use stub::Stub;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";
/// Kill points tried at once (threads, each with its own store).
const WORKERS: usize = 4;

fn press_reply(from: &str, received: &Outgoing, words: &str, message_id: &str) -> String {
    common::press_reply(REFEREE, from, received, words, message_id)
}

fn to(out: &[Outgoing], address: &str) -> Outgoing {
    out.iter()
        .find(|o| o.to.address == address)
        .cloned()
        .unwrap_or_else(|| panic!("nothing to {address}"))
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

/// The store in a test's folder.
fn open(dir: &Path) -> Store {
    Store::open(dir.join("referee.db").to_str().unwrap()).unwrap()
}

/// What the players hold (reply files, by Message-ID) and what the store
/// says: every row, times aside.
fn outcome(store: &Path, out: &Path) -> (Vec<String>, Vec<String>) {
    let mut sent: Vec<String> = std::fs::read_dir(out)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    sent.sort();
    // (A reply left owed shows as `pending` where the whole run sent it.)
    let mut rows = open(store).dump().unwrap();
    // A Maildir's mails: handled ones moved to cur/, each once.
    for folder in ["new", "cur"] {
        let names = std::fs::read_dir(store.join("maildir").join(folder));
        for entry in names.into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            rows.push(format!("maildir {folder} {name}"));
        }
    }
    rows.sort();
    (sent, rows)
}

/// What the referee is run on: a mail on standard input, `mancala remind`
/// with these flags, `mancala maildir` on the folder's `maildir/`, or
/// `mancala store import` of its `old/`.
#[derive(Clone, Copy)]
enum Run<'a> {
    Mail(&'a [u8]),
    Remind(&'a [&'a str]),
    Maildir,
    Import,
}

fn run_referee(prefix: &[&str], store: &Path, out: &Path, run: Run) -> std::process::ExitStatus {
    let send = format!("dir:{}", out.display());
    let (maildir, old) = (store.join("maildir"), store.join("old"));
    let (maildir, old) = (maildir.to_str().unwrap(), old.to_str().unwrap());
    let store = store.join("referee.db");
    let store = store.to_str().unwrap();
    let mut args: Vec<&str> = prefix.to_vec();
    args.push(env!("CARGO_BIN_EXE_mancala"));
    let mail = match run {
        Run::Mail(mail) => {
            args.push("mail");
            mail
        }
        Run::Remind(flags) => {
            args.push("remind");
            args.extend(flags);
            b""
        }
        Run::Maildir => {
            args.extend(["maildir", maildir]);
            b""
        }
        Run::Import => {
            args.extend(["store", "import", old, "--store", store]);
            b""
        }
    };
    if !matches!(run, Run::Import) {
        args.extend(["--from", REFEREE, "--store", store, "--send", &send]);
    }
    spawned(&args, mail)
}

/// `args` (the first the program: strace, or the referee) run to the end,
/// `stdin` written to it, its output dropped.
fn spawned(args: &[&str], stdin: &[u8]) -> std::process::ExitStatus {
    let mut child = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("strace is installed (tests/run.sh installs it)");
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin);
    }
    child.wait().unwrap()
}

/// strace's arguments that kill its tracee at the `n`th `call`.
fn kill_at(call: &str, n: usize) -> Vec<String> {
    let trace = format!("trace={call}");
    let inject = format!("inject={call}:signal=SIGKILL:when={n}");
    [
        "strace",
        "-f",
        "-qq",
        "-o",
        "/dev/null",
        "-e",
        &trace,
        "-e",
        &inject,
    ]
    .map(String::from)
    .to_vec()
}

/// Did the run end by SIGKILL? (strace ends as its tracee did: by the
/// signal, or exit 128 + 9.)
fn by_sigkill(status: std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal() == Some(9) || status.code() == Some(137)
}

/// The system calls an uninterrupted run makes, and how often each.
fn syscalls(store: &Path, out: &Path, run: Run) -> BTreeMap<String, usize> {
    let trace = store.with_extension("trace");
    let trace_arg = trace.to_str().unwrap().to_string();
    let status = run_referee(&["strace", "-f", "-qq", "-o", &trace_arg], store, out, run);
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

/// Kills the referee at every system call of `run` on `before`, runs it
/// again, and compares with an uninterrupted run.
fn exhaustively(name: &str, before: &Path, run: Run) -> usize {
    let work = common::temp_dir(&format!("crash-{name}"));
    let (store, out) = (work.join("store"), work.join("out"));
    // (Read on a copy of its own: opening a store may set it up.)
    let untouched = work.join("untouched");
    copy_dir(before, &untouched);
    let unchanged = outcome(&untouched, &out);
    copy_dir(before, &store);
    let calls = syscalls(&store, &out, run);
    let expected = outcome(&store, &out);
    assert_ne!(
        expected, unchanged,
        "{name}: the uninterrupted run did nothing"
    );
    assert_eq!(
        expected.0.is_empty(),
        matches!(run, Run::Import),
        "{name}: the uninterrupted run sent {:?}",
        expected.0
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
                    kill_and_retry(name, before, run, &store, &out, kill, expected);
                }
            });
        }
    });
    kills.len()
}

/// Runs the referee on a copy of `before`, killed by SIGKILL at the nth
/// `call`, runs it again (as the MTA or cron would), and compares with the
/// uninterrupted run.
fn kill_and_retry(
    name: &str,
    before: &Path,
    run: Run,
    store: &Path,
    out: &Path,
    (call, n): (&str, usize),
    expected: &(Vec<String>, Vec<String>),
) {
    copy_dir(before, store);
    let _ = std::fs::remove_dir_all(out);
    let prefix = kill_at(call, n);
    let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let killed = run_referee(&prefix, store, out, run);
    let was_killed = by_sigkill(killed);
    // How often the allocator grows the heap varies by a few bytes of
    // input (a PID's digits): the nth `brk` may not come. Then the run
    // went through whole, and must have done just what the first did.
    if !was_killed && call == "brk" && killed.success() {
        assert_eq!(
            &outcome(store, out),
            expected,
            "{name}: {call} #{n} not reached"
        );
        return;
    }
    assert!(was_killed, "{name}: {call} #{n} was not killed: {killed:?}");
    let again = run_referee(&[], store, out, run);
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
    open(&start_dir); // the store and its secret, made once, copied to every run
    let start = format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <c1@players.example>\n\nnew super-wari with Bob <{BOB}>\n"
    );
    // The states before an accept and before a move, made by the library.
    let postman = Stub::default();
    let deliver = |dir: &PathBuf, raw: &str| {
        let referee = HostedReferee::new(REFEREE, open(dir));
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
    // After Alice's move: Bob's turn, and the states that follow from it.
    let moved_dir = base.join("moved");
    copy_dir(&move_dir, &moved_dir);
    let after_move = deliver(&moved_dir, &play);
    let takeback_dir = base.join("takeback");
    copy_dir(&moved_dir, &takeback_dir);
    let asked = deliver(
        &takeback_dir,
        &press_reply(
            ALICE,
            &to(&after_move, ALICE),
            "takeback",
            "tb@players.example",
        ),
    );
    let takeback = press_reply(BOB, &to(&asked, BOB), "accept", "tba@players.example");
    let undone = base.join("undone");
    copy_dir(&takeback_dir, &undone);
    assert!(
        to(&deliver(&undone, &takeback), ALICE)
            .body
            .contains("Bob accepted your takeback"),
        "the takeback is accepted"
    );
    let games = open(&undone).list().unwrap().games;
    assert!(games[0].turns.is_empty(), "Alice's turn undone");
    // Alice's move with a conditional answer to Bob's c, which Bob plays.
    let condition_dir = base.join("condition");
    copy_dir(&move_dir, &condition_dir);
    let kept = deliver(
        &condition_dir,
        &press_reply(ALICE, &alice, "move c\nif c then d", "cd@players.example"),
    );
    let reply = press_reply(BOB, &to(&kept, BOB), "move c", "bc@players.example");
    let trial = base.join("trial");
    copy_dir(&condition_dir, &trial);
    assert!(
        to(&deliver(&trial, &reply), ALICE)
            .body
            .contains("By your conditional move"),
        "the condition is triggered"
    );
    let stranger = format!(
        "From: Carol <carol@players.example>\nTo: {REFEREE}\nSubject: hello\nMessage-ID: <k1@players.example>\n\nhelp\n"
    );
    let forfeit_all = Run::Remind(&["--nudge", "0", "--forfeit", "0"]);
    let nudge_all = Run::Remind(&["--nudge", "0", "--forfeit", "30d"]);
    // Alice's move waiting in a Maildir, as mbsync leaves it.
    let maildir_dir = base.join("maildir");
    copy_dir(&move_dir, &maildir_dir);
    for folder in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir_dir.join("maildir").join(folder)).unwrap();
    }
    std::fs::write(maildir_dir.join("maildir/new/1.mv.host"), &play).unwrap();
    // A folder store of an earlier referee, to import.
    let import_dir = base.join("import");
    for name in ["key", "mx2frb.json"] {
        std::fs::create_dir_all(import_dir.join("old")).unwrap();
        std::fs::copy(
            common::repo(&format!("tests/data/format-1-store/{name}")),
            import_dir.join("old").join(name),
        )
        .unwrap();
    }
    #[rustfmt::skip]
    let paths: [(&str, &Path, Run); 10] = [
        ("start", &start_dir, Run::Mail(start.as_bytes())),
        ("accept", &accept_dir, Run::Mail(accept.as_bytes())),
        ("move", &move_dir, Run::Mail(play.as_bytes())),
        ("keyless", &start_dir, Run::Mail(stranger.as_bytes())),
        ("takeback", &takeback_dir, Run::Mail(takeback.as_bytes())),
        ("condition", &condition_dir, Run::Mail(reply.as_bytes())),
        ("forfeit", &moved_dir, forfeit_all),
        ("nudge", &moved_dir, nudge_all),
        ("maildir", &maildir_dir, Run::Maildir),
        ("import", &import_dir, Run::Import),
    ];
    // The paths side by side: each works in folders of its own.
    let runs: usize = std::thread::scope(|scope| {
        let running: Vec<_> = paths
            .into_iter()
            .map(|(name, dir, run)| {
                scope.spawn(move || {
                    let began = std::time::Instant::now();
                    let kills = exhaustively(name, dir, run);
                    println!("{name}: {kills} kills in {:.1?}", began.elapsed());
                    kills
                })
            })
            .collect();
        running.into_iter().map(|t| t.join().unwrap()).sum()
    });
    println!("{runs} kills, each followed by a retry: nothing lost, nothing doubled");
    assert!(
        runs > 100,
        "only {runs} kill points: strace found too few calls"
    );
}

/// The referee on PostgreSQL: its store is a server's, not files, so the
/// kill comes at each message it sends the server (each `sendto`) while it
/// handles Alice's move; then the same mail is delivered again. Each run
/// works on a copy of the store made before the move.
#[test]
fn a_referee_killed_mid_transaction_on_postgresql_leaves_nothing_done() {
    let before = match common::pg::database("crash_before") {
        Ok(url) => url,
        Err(why) => return println!("skipped on PostgreSQL: {why}"),
    };
    let referee = match Store::open(&before) {
        Ok(store) => HostedReferee::new(REFEREE, store),
        Err(why) => return println!("skipped on PostgreSQL: {why}"),
    };
    let postman = Stub::default();
    let deliver = |raw: &str| {
        let letter = Letter::read(raw.as_bytes(), &referee.identity);
        referee.deliver(&letter, &postman).unwrap();
        postman.take()
    };
    let invitation = deliver(&format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <pc1@players.example>\n\nnew super-wari with Bob <{BOB}>\n"
    ));
    let boards = deliver(&press_reply(
        BOB,
        &to(&invitation, BOB),
        "accept",
        "pa@players.example",
    ));
    let play = press_reply(ALICE, &to(&boards, ALICE), "move c", "pm@players.example");
    drop(referee); // a copy is made of a database nobody is connected to
    let work = common::temp_dir("crash-pg");
    let run = |store: &str, out: &Path, prefix: &[&str]| {
        let send = format!("dir:{}", out.display());
        let mut args: Vec<&str> = prefix.to_vec();
        args.push(env!("CARGO_BIN_EXE_mancala"));
        args.extend(["mail", "--from", REFEREE, "--store", store, "--send", &send]);
        spawned(&args, play.as_bytes())
    };
    let outcome = |store: &str, out: &Path| {
        let mut sent: Vec<String> = std::fs::read_dir(out)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        sent.sort();
        (sent, Store::open(store).unwrap().dump().unwrap())
    };
    // The uninterrupted run, traced: how many messages it sends the server.
    let whole = common::pg::copy_of(&before, "crash_whole").unwrap();
    let out = work.join("out-whole");
    let trace = work.join("trace");
    let traced = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=sendto",
        "-o",
        trace.to_str().unwrap(),
    ];
    assert!(run(&whole, &out, &traced).success());
    let expected = outcome(&whole, &out);
    assert_eq!(expected.0.len(), 2, "the move's two replies");
    let sends = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("sendto("))
        .count();
    assert!(sends > 5, "only {sends} messages to the server");
    for n in 1..=sends {
        let store = common::pg::copy_of(&before, &format!("crash_{n}")).unwrap();
        let out = work.join(format!("out-{n}"));
        let prefix = kill_at("sendto", n);
        let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
        let killed = run(&store, &out, &prefix);
        assert!(by_sigkill(killed), "sendto #{n} was not killed: {killed:?}");
        assert!(
            run(&store, &out, &[]).success(),
            "the retry after sendto #{n}"
        );
        assert_eq!(outcome(&store, &out), expected, "killed at sendto #{n}");
    }
    println!(
        "{sends} kills on PostgreSQL, each followed by a retry: nothing lost, nothing doubled"
    );
}
