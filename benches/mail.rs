//! One mail in, reply out (`mancala mail --send stdout`) on a game of 150
//! sowings, timed side by side with starting a trivial process
//! (`/bin/true`), and the referee's peak memory. Run: `cargo bench --bench
//! mail`. Targets: at most twice `/bin/true`'s time, under 10 MB.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::engine::{Ruleset, Side, SplitMix64};
use mancala::sheet::{Players, Sheet};

const SOWINGS: usize = 150;
const RUNS: usize = 300;

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
    let out = Command::new(bin)
        .args(["mail", "--no-store", "--from", "referee@referee.example"])
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

    let (mut referee, mut truth, mut peak) = (Vec::new(), Vec::new(), 0);
    for _ in 0..RUNS {
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
        "mail of {} bytes, game of {SOWINGS} sowings, median of {RUNS} runs",
        mail.len()
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
    if ratio > 2.0 {
        eprintln!("over the time target");
        std::process::exit(1);
    }
}
