//! `mancala maildir`: a Maildir as the referee's inbox. Each message in
//! new/ is handled once and moved to cur/ marked seen; a failure worth
//! retrying leaves it in new/; two runs at once handle nothing twice.

use std::path::{Path, PathBuf};

mod common;

use common::{run, spawn, temp_dir};

const REFEREE: &str = "referee@referee.example";

fn maildir(root: &Path) -> PathBuf {
    let dir = root.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    dir
}

fn deliver_to(dir: &Path, name: &str, mail: &str) {
    std::fs::write(dir.join("new").join(name), mail).unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// `maildir DIR` with its store in `root`, its replies sent by `send`.
fn maildir_args(root: &Path, dir: &Path, send: &str) -> Vec<String> {
    let store = root.join("store");
    ["maildir", dir.to_str().unwrap(), "--from", REFEREE]
        .into_iter()
        .chain(["--store", store.to_str().unwrap(), "--send", send])
        .map(String::from)
        .collect()
}

/// The `dir:` outbox in `root` and the `--send` that fills it.
fn outbox(root: &Path) -> (PathBuf, String) {
    let out = root.join("out");
    let send = format!("dir:{}", out.display());
    (out, send)
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn challenge(n: usize) -> String {
    format!("From: p{n}@players.example\nTo: {REFEREE}\nMessage-ID: <md{n}@players.example>\n\nnew wari with q{n}@players.example\n")
}

#[test]
fn each_message_is_handled_once_and_moved_to_cur_marked_seen() {
    let root = temp_dir("maildir-once");
    let dir = maildir(&root);
    deliver_to(&dir, "1796.M1.host", &challenge(1));
    deliver_to(
        &dir,
        "1796.M2.host:2,F",
        "From: MAILER-DAEMON@players.example\nReturn-Path: <>\n\nbounce\n",
    );
    let (out, send) = outbox(&root);
    let args = maildir_args(&root, &dir, &send);
    let result = run(&strs(&args), b"");
    assert!(result.status.success(), "{}", common::stderr(&result));
    assert!(names(&dir.join("new")).is_empty());
    assert_eq!(
        names(&dir.join("cur")),
        ["1796.M1.host:2,S", "1796.M2.host:2,FS"]
    );
    assert_eq!(
        names(&out).len(),
        2,
        "the invitation and the word to the inviter"
    );
    // Run again: nothing more.
    let again = run(&strs(&args), b"");
    assert!(again.status.success());
    assert_eq!(names(&out).len(), 2);
}

#[test]
fn a_message_whose_reply_cannot_go_stays_in_new_for_the_next_run() {
    let root = temp_dir("maildir-retry");
    let dir = maildir(&root);
    deliver_to(&dir, "1796.M1.host", &challenge(1));
    let refused = run(&strs(&maildir_args(&root, &dir, "smtp://127.0.0.1:1")), b"");
    assert_eq!(
        refused.status.code(),
        Some(75),
        "{}",
        common::stderr(&refused)
    );
    assert!(common::stderr(&refused).contains("kept in new/"));
    assert_eq!(names(&dir.join("new")), ["1796.M1.host"]);
    let (out, send) = outbox(&root);
    let done = run(&strs(&maildir_args(&root, &dir, &send)), b"");
    assert!(done.status.success());
    assert!(names(&dir.join("new")).is_empty());
    assert_eq!(names(&out).len(), 2);
}

#[test]
fn two_runs_at_once_handle_nothing_twice() {
    let root = temp_dir("maildir-race");
    let dir = maildir(&root);
    for n in 0..12 {
        deliver_to(&dir, &format!("1796.M{n:02}.host"), &challenge(n));
    }
    let (out, send) = outbox(&root);
    let args = maildir_args(&root, &dir, &send);
    let children: Vec<_> = (0..3).map(|_| spawn(&strs(&args), b"")).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(names(&dir.join("new")).is_empty());
    assert_eq!(names(&dir.join("cur")).len(), 12);
    assert_eq!(names(&out).len(), 24, "two mails for each challenge, once");
    let games = mancala::store::Store::open(root.join("store"))
        .unwrap()
        .list()
        .unwrap()
        .games;
    assert_eq!(games.len(), 12);
}

/// Runs `mancala ARGS` to the end, or fails the test if it has not ended
/// within a minute (a FIFO opened for reading waits for a writer for ever).
#[cfg(unix)]
fn run_or_hang(args: &[&str]) -> std::process::Output {
    let mut child = spawn(args, b"");
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("mancala {args:?} hangs");
}

/// `mancala maildir DIR` with its store and `dir:` outbox in `root`;
/// the run's output and the outbox.
#[cfg(unix)]
fn maildir_run(root: &Path, dir: &Path) -> (std::process::Output, PathBuf) {
    let (out, send) = outbox(root);
    (run_or_hang(&strs(&maildir_args(root, dir, &send))), out)
}

#[test]
fn a_folder_without_new_is_not_a_maildir_and_nothing_is_made_in_it() {
    let root = temp_dir("maildir-none");
    let dir = root.join("Mail");
    std::fs::create_dir_all(&dir).unwrap();
    let store = root.join("store");
    let out = run(
        &[
            "maildir",
            dir.to_str().unwrap(),
            "--send",
            &format!("dir:{}", root.join("out").display()),
            "--store",
            store.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(66), "{}", common::stderr(&out));
    let said = common::stderr(&out);
    assert!(
        said.contains("not a Maildir: it has no new/ folder"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "made in {dir:?}"
    );
}

/// A folder, a FIFO and a link to a folder in new/ are no messages: each is
/// logged and left, and the run handles the rest and ends (a FIFO opened
/// would wait for a writer); a name that is not UTF-8 is handled as any.
#[cfg(unix)]
#[test]
fn what_is_not_a_message_in_new_is_logged_and_left() {
    use std::os::unix::ffi::OsStrExt;
    let root = temp_dir("maildir-odd");
    let dir = maildir(&root);
    let new = dir.join("new");
    std::fs::create_dir(new.join("1796.M0.folder")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(new.join("1796.M0.fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    std::os::unix::fs::symlink(&root, new.join("1796.M0.link")).unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"1796.M1.h\xf6st");
    std::fs::write(new.join(odd), challenge(1)).unwrap();
    deliver_to(&dir, "1796.M2.host", &challenge(2));
    let (result, out) = maildir_run(&root, &dir);
    let said = common::stderr(&result);
    assert!(result.status.success(), "{said}");
    for name in ["1796.M0.folder", "1796.M0.fifo", "1796.M0.link"] {
        assert!(
            said.contains(&format!("{name}: not a message file")),
            "{name} not logged:\n{said}"
        );
    }
    assert_eq!(
        names(&new),
        ["1796.M0.fifo", "1796.M0.folder", "1796.M0.link"]
    );
    let cur: Vec<Vec<u8>> = std::fs::read_dir(dir.join("cur"))
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    assert!(cur.contains(&b"1796.M1.h\xf6st:2,S".to_vec()), "{cur:?}");
    assert!(cur.contains(&b"1796.M2.host:2,S".to_vec()), "{cur:?}");
    assert_eq!(names(&out).len(), 4, "two mails for each challenge");
}

/// A message that cannot be read (here a link that loops) is logged and
/// stays in new/; the others are handled, and the run exits 75 so that
/// cron's mail or the operator sees a message is waiting.
#[cfg(unix)]
#[test]
fn an_unreadable_message_is_logged_and_stays_for_the_next_run() {
    let root = temp_dir("maildir-unreadable");
    let dir = maildir(&root);
    let new = dir.join("new");
    std::os::unix::fs::symlink("1796.M0.loop", new.join("1796.M0.loop")).unwrap();
    std::os::unix::fs::symlink("nowhere", new.join("1796.M0.dangling")).unwrap();
    deliver_to(&dir, "1796.M1.host", &challenge(1));
    let (result, _) = maildir_run(&root, &dir);
    let said = common::stderr(&result);
    assert_eq!(result.status.code(), Some(75), "{said}");
    for name in ["1796.M0.loop", "1796.M0.dangling"] {
        assert!(
            said.contains(&format!("{name}: cannot be read (")),
            "{name} not logged:\n{said}"
        );
    }
    assert!(said.contains("2 message(s) stay in new/"), "{said}");
    assert_eq!(names(&new), ["1796.M0.dangling", "1796.M0.loop"]);
    assert_eq!(names(&dir.join("cur")), ["1796.M1.host:2,S"]);
}
