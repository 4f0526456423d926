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
    let (store, out) = (root.join("store"), root.join("out"));
    let args = [
        "maildir",
        dir.to_str().unwrap(),
        "--from",
        REFEREE,
        "--store",
        store.to_str().unwrap(),
    ];
    let send = format!("dir:{}", out.display());
    let result = run(&[&args[..], &["--send", &send]].concat(), b"");
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
    let again = run(&[&args[..], &["--send", &send]].concat(), b"");
    assert!(again.status.success());
    assert_eq!(names(&out).len(), 2);
}

#[test]
fn a_message_whose_reply_cannot_go_stays_in_new_for_the_next_run() {
    let root = temp_dir("maildir-retry");
    let dir = maildir(&root);
    deliver_to(&dir, "1796.M1.host", &challenge(1));
    let store = root.join("store");
    let base = [
        "maildir",
        dir.to_str().unwrap(),
        "--from",
        REFEREE,
        "--store",
        store.to_str().unwrap(),
    ];
    let refused = run(
        &[&base[..], &["--send", "smtp://127.0.0.1:1"]].concat(),
        b"",
    );
    assert_eq!(
        refused.status.code(),
        Some(75),
        "{}",
        common::stderr(&refused)
    );
    assert!(common::stderr(&refused).contains("kept in new/"));
    assert_eq!(names(&dir.join("new")), ["1796.M1.host"]);
    let out = root.join("out");
    let send = format!("dir:{}", out.display());
    let done = run(&[&base[..], &["--send", &send]].concat(), b"");
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
    let (store, out) = (root.join("store"), root.join("out"));
    let send = format!("dir:{}", out.display());
    let args = [
        "maildir",
        dir.to_str().unwrap(),
        "--from",
        REFEREE,
        "--store",
        store.to_str().unwrap(),
        "--send",
        &send,
    ];
    let children: Vec<_> = (0..3).map(|_| spawn(&args, b"")).collect();
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
    let games = mancala::store::Store::open(&store)
        .unwrap()
        .list()
        .unwrap()
        .games;
    assert_eq!(games.len(), 12);
}
