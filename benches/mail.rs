//! One mail in, reply out (`mancala mail --send stdout`) on a game of 150
//! sowings, timed side by side with starting a trivial process
//! (`/bin/true`), and the referee's peak memory. Run: `cargo bench --bench
//! mail`. Targets: at most twice `/bin/true`'s time, under 10 MB. Then the
//! hosted referee: the same move by key into a store (each run on a fresh
//! copy of it), whose two durable writes (the move with its replies, then
//! the replies marked sent) are timed apart as the disk's sync cost.
//! `MANCALA_BENCH_KEEP=1` keeps the store and both mails (`mail.eml`, the
//! hosted move; `storeless.eml`) and prints where.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::engine::{Ruleset, Side, SplitMix64};
use mancala::mail::delivery::Stub;
use mancala::mail::hosted::HostedReferee;
use mancala::mail::letter::Letter;
use mancala::mail::Referee;
use mancala::sheet::{Players, Sheet};
use mancala::store::Store;

const SOWINGS: usize = 150;

/// Runs of each timing: 300, or `MANCALA_BENCH_RUNS` (benches/hot-functions.sh
/// needs only the files that `MANCALA_BENCH_KEEP` keeps).
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

/// Runs `program` with `input` on stdin; returns wall time and peak RSS (KiB).
// The child is reaped by wait4, which std cannot see.
#[allow(clippy::zombie_processes)]
fn run(program: &str, args: &[&str], input: &[u8]) -> (Duration, i64) {
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 fills `usage` for our own child, which we then never wait on again.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    (started.elapsed(), usage.ru_maxrss)
}

/// Runs the referee once and checks that it played `pit` and replied.
fn check_move(bin: &str, args: &[&str], mail: &str, pit: mancala::engine::Pit) {
    let out = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
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

fn main() {
    // MANCALA_BIN measures another build of the referee (say, a static one).
    let bin_override = std::env::var("MANCALA_BIN").ok();
    let bin = bin_override
        .as_deref()
        .unwrap_or(env!("CARGO_BIN_EXE_mancala"));
    let sheet = long_game();
    let side = sheet.game.to_move().unwrap_or(Side::South);
    let pit = sheet.game.legal_moves().first().unwrap();
    let quoted: String = sheet
        .to_string()
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
    let mail = format!(
        "From {from}  Mon Nov 30 09:05:00 2026\nFrom: {from}\nTo: referee@referee.example\n\
         Subject: Re: Super-Wari\nMessage-ID: <bench@players.example>\n\nmove {pit}\n\n{quoted}",
        from = sheet.players.get(side).address.clone().unwrap()
    );
    // Check what is timed: the move is played and a reply comes out.
    check_move(
        bin,
        &["mail", "--no-store", "--from", "referee@referee.example"],
        &mail,
        pit,
    );

    let (mut referee, mut truth, mut peak) = (Vec::new(), Vec::new(), 0);
    for _ in 0..runs() {
        // Side by side, interleaved, so both see the same machine.
        let (t, rss) = run(
            bin,
            &["mail", "--no-store", "--from", "referee@referee.example"],
            mail.as_bytes(),
        );
        referee.push(t);
        peak = peak.max(rss);
        truth.push(run("/bin/true", &[], mail.as_bytes()).0);
    }
    let (referee, truth) = (median(referee), median(truth));
    let ratio = referee.as_secs_f64() / truth.as_secs_f64();
    println!(
        "mail of {} bytes, game of {SOWINGS} sowings, median of {} runs",
        mail.len(),
        runs()
    );
    println!(
        "mancala mail --send stdout: {:>8.3} ms",
        referee.as_secs_f64() * 1e3
    );
    println!(
        "/bin/true:                  {:>8.3} ms",
        truth.as_secs_f64() * 1e3
    );
    println!(
        "ratio {ratio:.2} (target at most 2.00); peak memory {:.1} MB (target under 10)",
        peak as f64 / 1024.0
    );
    assert!(peak < 10 * 1024, "peak memory {peak} KiB");
    let hosted_ok = hosted(bin, &sheet, &mail);
    if ratio > 2.0 || !hosted_ok {
        eprintln!("over the time target");
        std::process::exit(1);
    }
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
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

/// The hosted referee on the same game: one move by key. True when within
/// twice `/bin/true` plus its two syncs.
fn hosted(bin: &str, sheet: &Sheet, storeless_mail: &str) -> bool {
    const REFEREE: &str = "referee@referee.example";
    let base = std::env::temp_dir().join(format!("mancala-bench-{}", std::process::id()));
    let store_dir = base.join("store");
    let _ = std::fs::remove_dir_all(&base);
    let referee = HostedReferee::new(REFEREE, Store::open(&store_dir).unwrap());
    let postman = Stub::default();
    let deliver = |raw: String| {
        let letter = Letter::read(raw.as_bytes(), &referee.identity);
        referee.deliver(&letter, &postman).unwrap();
        postman.take()
    };
    deliver("From: alice@players.example\nMessage-ID: <b1@x>\n\nnew super-wari with bob@players.example\n".to_string());
    let store = Store::open(&store_dir).unwrap();
    let secrets = store.secrets().unwrap();
    let mut record = store.list().unwrap().games.remove(0);
    deliver(format!(
        "From: bob@players.example\nTo: referee+{}@referee.example\nMessage-ID: <b2@x>\n\naccept\n",
        secrets.token(&record.id, Side::North)
    ));
    record = store.load_game(&record.id).unwrap().unwrap();
    record.set_turns(&sheet.game, mancala::store::now());
    store.save_game(&record).unwrap();
    let side = sheet.game.to_move().unwrap();
    let pit = sheet.game.legal_moves().first().unwrap();
    let mail = format!(
        "From {from}  Mon Nov 30 09:05:00 2026\nFrom: {from}\nTo: referee+{key}@referee.example\n\
         Subject: Re: Super-Wari\nMessage-ID: <hosted-bench@players.example>\n\nmove {pit}\n",
        from = record.player(side).address.clone().unwrap(),
        key = secrets.token(&record.id, side)
    );
    let work = base.join("work");
    let args = ["mail", "--from", REFEREE, "--store", work.to_str().unwrap()];
    copy_dir(&store_dir, &work);
    check_move(bin, &args, &mail, pit);
    let game_file = work.join(format!("{}.json", record.id));
    let bytes = std::fs::read(&game_file).unwrap();
    // The referee's own two writes of the game, timed apart on the same disk:
    // the move with the replies it owes (durable), then the replies marked
    // sent. The first is the game as a referee leaves it when its replies
    // cannot go (a sendmail that fails): the same bytes it wrote first.
    let moved = Store::open(&work)
        .unwrap()
        .load_game(&record.id)
        .unwrap()
        .unwrap();
    copy_dir(&store_dir, &work);
    let failing = [&args[..], &["--send", "sendmail:/bin/false"]].concat();
    run(bin, &failing, mail.as_bytes());
    let owed = Store::open(&work)
        .unwrap()
        .load_game(&record.id)
        .unwrap()
        .unwrap();
    let owed_bytes = std::fs::metadata(&game_file).unwrap().len();
    assert!(
        owed_bytes as usize > bytes.len(),
        "the replies owed are in the game file"
    );
    let (mut times, mut truth) = (Vec::new(), Vec::new());
    let (mut durable, mut noted) = (Vec::new(), Vec::new());
    for _ in 0..runs() {
        copy_dir(&store_dir, &work);
        times.push(run(bin, &args, mail.as_bytes()).0);
        truth.push(run("/bin/true", &[], mail.as_bytes()).0);
        let probe = Store::open(&work).unwrap();
        let started = Instant::now();
        probe.save_game(&owed).unwrap();
        durable.push(started.elapsed());
        let started = Instant::now();
        probe.note_sent(&moved).unwrap();
        noted.push(started.elapsed());
    }
    let (hosted, truth) = (median(times), median(truth));
    let (durable, noted) = (median(durable), median(noted));
    let budget = truth * 2 + durable + noted;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "hosted move by key, game file of {owed_bytes} bytes with the replies owed, {} after, median of {} runs",
        bytes.len(),
        runs()
    );
    println!("mancala mail --store:       {:>8.3} ms", ms(hosted));
    println!("/bin/true:                  {:>8.3} ms", ms(truth));
    println!("the move saved (durable):   {:>8.3} ms", ms(durable));
    println!("replies noted sent:         {:>8.3} ms", ms(noted));
    println!(
        "hosted {:.3} ms against 2 x /bin/true + its two writes = {:.3} ms (ratio to /bin/true alone {:.2})",
        ms(hosted),
        ms(budget),
        hosted.as_secs_f64() / truth.as_secs_f64()
    );
    if std::env::var_os("MANCALA_BENCH_KEEP").is_some() {
        std::fs::write(base.join("mail.eml"), &mail).unwrap();
        std::fs::write(base.join("storeless.eml"), storeless_mail).unwrap();
        println!("kept: {}", base.display());
    } else {
        let _ = std::fs::remove_dir_all(&base);
    }
    hosted <= budget
}
