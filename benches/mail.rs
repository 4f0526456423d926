//! What a mail costs the referee, side by side with starting a trivial
//! process: `/bin/true`, a storeless mail (`mancala mail --no-store`, a move
//! in a quoted sheet of 150 sowings), a hosted move by key into a store (each
//! run on a fresh copy of it), and that move's durable writes (the move with
//! its replies, then the replies marked sent), timed apart on the same disk.
//! `mancala --version`, timed beside them, is what starting costs before any
//! mail is read. Each runs with the environment an MTA's pipe gives.
//! Targets: a storeless mail at most 2.5 times `/bin/true`; a hosted move at
//! most 2.5 times `/bin/true` plus its durable writes; peak memory under
//! 10 MB. A bench, never a gate: it prints each target met or missed, and
//! fails only when the referee does not play the move it is timed on.
//!
//! Run: `cargo bench --bench mail` (the release profile's binary, as
//! `cargo build --release` builds it; `MANCALA_BIN` times another build).
//! `MANCALA_BENCH_RUNS` sets the runs (300); `MANCALA_BENCH_KEEP=1` keeps
//! the store and both mails (`mail.eml`, the hosted move; `storeless.eml`)
//! and prints where.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::engine::{Pit, Ruleset, Side, SplitMix64};
use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::Referee;
use mancala::sheet::{Players, Sheet};
use mancala::store::{GameId, Owed, Store};

#[path = "../tests/common/stub.rs"]
mod stub;

use stub::Stub;

const SOWINGS: usize = 150;
const REFEREE: &str = "referee@referee.example";
const STORELESS: [&str; 4] = ["mail", "--no-store", "--from", REFEREE];

fn runs() -> usize {
    std::env::var("MANCALA_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(300)
}

/// A Super-Wari game 150 sowings long and not over, with addresses.
fn long_game() -> Sheet {
    for seed in 0.. {
        let mut rng = SplitMix64::new(seed);
        let mut sheet = Sheet::new(Ruleset::SuperWari.rules(), Players::named("Alice", "Bob"));
        sheet.players.south.address = Some("alice@players.example".into());
        sheet.players.north.address = Some("bob@players.example".into());
        while sheet.game.ply() < SOWINGS && !sheet.game.is_over() {
            let legal = sheet.game.legal_moves();
            sheet
                .game
                .play(legal.nth(rng.below(legal.len())).unwrap())
                .unwrap();
        }
        if !sheet.game.is_over() {
            return sheet;
        }
    }
    unreachable!()
}

/// `program` as an MTA's pipe starts it: with a short environment (here
/// `PATH` alone; Postfix's pipe passes `TZ`, `LANG` and `MAIL_CONFIG`,
/// procmail a few more), not cargo's, whose `LD_LIBRARY_PATH` of five
/// folders has the loader look for each shared library in each of them
/// first (a cost in proportion to the libraries a program needs:
/// `/bin/true` one, the referee three).
fn as_an_mta_runs(program: &str) -> Command {
    let mut command = Command::new(program);
    command.env_clear().env("PATH", "/usr/bin:/bin");
    command
}

/// Runs `program` with `input` on stdin, output thrown away; its wall time.
fn run(program: &str, args: &[&str], input: &[u8]) -> Duration {
    let started = Instant::now();
    let mut child = as_an_mta_runs(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait().expect("wait");
    started.elapsed()
}

/// The peak memory (KiB) of `program` run with `input`, as GNU time reports
/// it (getrusage's maxrss, which std does not expose); `None` without
/// /usr/bin/time. Measured in runs of their own: time's start is not timed.
fn peak_kib(program: &str, args: &[&str], input: &[u8]) -> Option<u64> {
    let mut child = as_an_mta_runs("/usr/bin/time")
        .args(["-f", "%M", program])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// Runs the referee once and checks that it played `pit` and replied.
fn check_move(bin: &str, args: &[&str], mail: &str, pit: Pit) {
    let out = as_an_mta_runs(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(mail.as_bytes())?;
            c.wait_with_output()
        })
        .expect("mancala mail runs");
    let reply = String::from_utf8_lossy(&out.stdout);
    assert!(
        reply.contains(&format!("played {pit}")),
        "no move played:\n{reply}"
    );
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A fresh copy of the store, settled on disk as a store is between two
/// mails: without the `sync`, the copy's hundreds of new files wait in the
/// file system's journal, and the timed move's first fsync commits them all.
fn settled_copy(from: &Path, to: &Path) {
    copy_dir(from, to);
    let synced = Command::new("sync").status().expect("sync runs");
    assert!(synced.success(), "sync failed");
}

/// The storeless mail: the next move, quoting the whole sheet.
fn storeless_mail(sheet: &Sheet, pit: Pit) -> String {
    let side = sheet.game.to_move().unwrap_or(Side::South);
    let quoted: String = sheet
        .to_string()
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
    format!(
        "From {from}  Mon Nov 30 09:05:00 2026\nFrom: {from}\nTo: {REFEREE}\n\
         Subject: Re: Super-Wari\nMessage-ID: <bench@players.example>\n\nmove {pit}\n\n{quoted}",
        from = sheet.players.get(side).address.clone().unwrap()
    )
}

/// A store holding the same game as `sheet`, between the same players,
/// made through the referee (an invitation, its acceptance) at `dir`.
/// Returns the hosted move by key, and the game's id.
fn hosted_store(dir: &Path, sheet: &Sheet, pit: Pit) -> (String, GameId) {
    let referee = HostedReferee::new(REFEREE, Store::open(dir.join("referee.db")).unwrap());
    let postman = Stub::default();
    let deliver = |raw: String| {
        let letter = Letter::read(raw.as_bytes(), &referee.identity);
        referee.deliver(&letter, &postman).unwrap();
        postman.take()
    };
    deliver("From: alice@players.example\nMessage-ID: <b1@x>\n\nnew super-wari with bob@players.example\n".to_string());
    let store = Store::open(dir.join("referee.db")).unwrap();
    let secrets = store.secrets();
    let mut record = store.list().unwrap().games.remove(0);
    deliver(format!(
        "From: bob@players.example\nTo: referee+{}@referee.example\nMessage-ID: <b2@x>\n\naccept\n",
        secrets.token(&record.id, Side::North)
    ));
    record = store.load_game(&record.id).unwrap().unwrap();
    // A move as most are: by a player who has shown their key before, the
    // last move days ago.
    record.set_turns(&sheet.game, mancala::store::now() - 2 * 86_400);
    record.inviter_confirmed = true;
    store.save_game(&record).unwrap();
    let side = sheet.game.to_move().unwrap();
    let mail = format!(
        "From {from}  Mon Nov 30 09:05:00 2026\nFrom: {from}\nTo: referee+{key}@referee.example\n\
         Subject: Re: Super-Wari\nMessage-ID: <hosted-bench@players.example>\n\nmove {pit}\n",
        from = record.player(side).address.clone().unwrap(),
        key = secrets.token(&record.id, side)
    );
    (mail, record.id)
}

fn main() {
    let bin_override = std::env::var("MANCALA_BIN").ok();
    let bin = bin_override
        .as_deref()
        .unwrap_or(env!("CARGO_BIN_EXE_mancala"));
    let sheet = long_game();
    let pit = sheet.game.legal_moves().first().unwrap();
    let storeless = storeless_mail(&sheet, pit);
    // Check what is timed: the move is played and a reply comes out.
    check_move(bin, &STORELESS, &storeless, pit);

    let base = std::env::temp_dir().join(format!("mancala-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let store_dir = base.join("store");
    let (hosted, id) = hosted_store(&store_dir, &sheet, pit);
    let work = base.join("work");
    let work_db = work.join("referee.db");
    let hosted_args = [
        "mail",
        "--from",
        REFEREE,
        "--store",
        work_db.to_str().unwrap(),
    ];
    copy_dir(&store_dir, &work);
    check_move(bin, &hosted_args, &hosted, pit);
    // The game as the referee first writes it, with the replies it owes: as
    // it is left when they cannot go (a sendmail that fails).
    copy_dir(&store_dir, &work);
    let failing = [&hosted_args[..], &["--send", "sendmail:/bin/false"]].concat();
    run(bin, &failing, hosted.as_bytes());
    let owed = Store::open(&work_db)
        .unwrap()
        .load_game(&id)
        .unwrap()
        .unwrap();
    let owes = Store::open(&work_db)
        .unwrap()
        .owed(Owed::Of(id.as_str()))
        .unwrap();
    assert_eq!(owes.len(), 2, "the replies owed are kept with the move");

    // Side by side, interleaved, so all see the same machine.
    let (mut truth, mut mail, mut moves) = (Vec::new(), Vec::new(), Vec::new());
    let (mut start, mut durable) = (Vec::new(), Vec::new());
    for _ in 0..runs() {
        truth.push(run("/bin/true", &[], storeless.as_bytes()));
        start.push(run(bin, &["--version"], storeless.as_bytes()));
        mail.push(run(bin, &STORELESS, storeless.as_bytes()));
        settled_copy(&store_dir, &work);
        moves.push(run(bin, &hosted_args, hosted.as_bytes()));
        // The move's one durable write: its decision's commit.
        let probe = Store::open(&work_db).unwrap();
        let started = Instant::now();
        (probe.transact(|| probe.save_game(&owed))).unwrap();
        durable.push(started.elapsed());
    }
    let (truth, mail, moves) = (median(truth), median(mail), median(moves));
    let start = median(start);
    let writes = median(durable);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "{bin}: medians of {} runs side by side; a Super-Wari game of {SOWINGS} sowings",
        runs()
    );
    // The figures are only as good as the machine is quiet.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average: {}", load.trim());
    }
    println!("/bin/true:            {:>8.3} ms", ms(truth));
    // What any mail costs before it is read: the floor of both targets.
    println!(
        "starting (--version): {:>8.3} ms ({:.2} x /bin/true)",
        ms(start),
        start.as_secs_f64() / truth.as_secs_f64()
    );
    println!(
        "storeless mail:       {:>8.3} ms ({} bytes in)",
        ms(mail),
        storeless.len()
    );
    println!("hosted move by key:   {:>8.3} ms", ms(moves));
    println!(
        "its durable write:    {:>8.3} ms (the move with its replies, one commit)",
        ms(writes)
    );
    let ratio = mail.as_secs_f64() / truth.as_secs_f64();
    println!(
        "storeless: {ratio:.2} x /bin/true (target at most 2.50): {}",
        met(ratio <= 2.5)
    );
    let budget = truth.mul_f64(2.5) + writes;
    println!(
        "hosted: {:.3} ms against 2.5 x /bin/true + its writes = {:.3} ms ({:.2} of it): {}",
        ms(moves),
        ms(budget),
        moves.as_secs_f64() / budget.as_secs_f64(),
        met(moves <= budget)
    );
    let peak = (0..10)
        .filter_map(|_| {
            let storeless = peak_kib(bin, &STORELESS, storeless.as_bytes());
            copy_dir(&store_dir, &work);
            storeless.max(peak_kib(bin, &hosted_args, hosted.as_bytes()))
        })
        .max();
    match peak {
        Some(kib) => println!(
            "peak memory {:.1} MB (target under 10): {}",
            kib as f64 / 1024.0,
            met(kib < 10 * 1024)
        ),
        None => println!("peak memory not measured: no /usr/bin/time"),
    }
    if std::env::var_os("MANCALA_BENCH_KEEP").is_some() {
        std::fs::write(base.join("mail.eml"), &hosted).unwrap();
        std::fs::write(base.join("storeless.eml"), &storeless).unwrap();
        println!("kept: {}", base.display());
    } else {
        let _ = std::fs::remove_dir_all(&base);
    }
}
