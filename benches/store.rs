//! What the store's size costs a mail and a command: on stores of 0,
//! 10,000 and 100,000 games, the release binary (`target/release/mancala`)
//! runs a move, an invitation, a keyless mail, a mail asking `games`,
//! `history` and `ratings`, `mancala games`, `mancala ratings` and
//! `mancala remind` with nothing due; each time is the median of
//! `MANCALA_BENCH_RUNS` runs (default 9; each run times the three stores
//! in turn, side by side), said with its ratio to the empty
//! store (target: at most 1.5x), and the peak memory of one more run
//! (target: under 20 MB), read by GNU time (`/usr/bin/time -f %M`).
//!
//! ```text
//! cargo build --release && cargo bench --bench store
//! cargo bench --bench store -- --generate DIR GAMES   # one store, then stop
//! ```
//!
//! The stores are generated once into `target/bench-stores/<games>` (kept
//! for later runs; remove the folder to have them made afresh): game files
//! written directly by random legal play (every ruleset, four in five
//! finished, played out or resigned, the rest under way, among a pool of
//! players that grows with the store: 200 + games / 20), then the index
//! built by the store's own first use, as for an old store. Two bench
//! players have the same dozen games in every store, the games the bench
//! moves in and asks about.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::engine::{Side, SplitMix64};
use mancala::mail::Identity;
use mancala::store::{GameRecord, Secrets, Store};

#[path = "../tests/common/games.rs"]
mod games;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "bench-alice@players.example";
const BOB: &str = "bench-bob@players.example";
/// The bench players' games under way (ids 0..), and finished ones after.
const BENCH_GAMES: u64 = 12;
const BENCH_FINISHED: u64 = 5;
const SIZES: [u64; 3] = [0, 10_000, 100_000];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--generate") {
        let (Some(dir), Some(games)) = (args.get(at + 1), args.get(at + 2)) else {
            eprintln!("usage: cargo bench --bench store -- --generate DIR GAMES");
            std::process::exit(2);
        };
        let games: u64 = games.parse().expect("GAMES: a number");
        generate(Path::new(dir), games);
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = root.join("target/release/mancala");
    assert!(
        bin.exists(),
        "build the release binary first: cargo build --release"
    );
    let runs = std::env::var("MANCALA_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    let subjects: Vec<Subject> = SIZES
        .iter()
        .map(|&size| Subject::prepare(&root.join(format!("target/bench-stores/{size}")), size))
        .collect();
    // Side by side: each run times every store in turn, so a slow spell
    // of the machine (or of its disk's syncs) falls on all of them alike.
    let figures = measure(&bin, &subjects, runs);
    for (s, subject) in subjects.iter().enumerate() {
        println!("store of {} games:", subject.size);
        for (what, by_store) in &figures {
            let (time, peak) = by_store[s];
            let ratio = time.as_secs_f64() / by_store[0].0.as_secs_f64();
            println!(
                "  {what:<28} {:>9.3} ms  {ratio:>5.2}x  peak {:>6.1} MB",
                time.as_secs_f64() * 1e3,
                peak as f64 / 1024.0
            );
        }
    }
}

/// One store the bench runs on.
struct Subject {
    size: u64,
    dir: PathBuf,
    store: Store,
    secrets: Secrets,
}

impl Subject {
    /// The store of `size` games in `dir`, generated the first time.
    fn prepare(dir: &Path, size: u64) -> Subject {
        if !dir.join("index/version").exists() {
            let _ = std::fs::remove_dir_all(dir);
            let started = Instant::now();
            generate(dir, size);
            println!(
                "generated {size} games in {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        // An index of an older layout is rebuilt here, not in a timed run.
        let store = Store::open(dir).expect("the store");
        let secrets = store.secrets().expect("the key");
        store.ensure_index(&secrets).expect("the index");
        Subject {
            size,
            dir: dir.to_path_buf(),
            store,
            secrets,
        }
    }
}

/// A store of `size` games (and the bench players' own) in `dir`.
fn generate(dir: &Path, size: u64) {
    let store = Store::open(dir).expect("the store folder");
    let secrets = store.secrets().expect("the key");
    let mut rng = SplitMix64::new(size + 1);
    let now = mancala::store::now();
    let players = 200 + size / 20;
    let player = |n: u64| format!("player{n}@players.example");
    let write = |record: &GameRecord| {
        let path = dir.join(format!("{}.json", record.id));
        let text = serde_json::to_vec(record).expect("a record");
        std::fs::write(&path, text).expect("a game file");
    };
    // Finished games over the last year, then a few hundred under way,
    // all active within the day (nothing due for `remind`).
    let under_way = size.min(300);
    for n in 0..size {
        let (south, north) = (rng.below(players as usize), rng.below(players as usize));
        let finish = n < size - under_way;
        let start = if finish {
            now - 400 * 86_400 + n * (390 * 86_400 / size.max(1))
        } else {
            now - 3 * 3_600
        };
        let id = games::nth_id(1_000 + n);
        let (south, north) = (player(south as u64), player(north as u64));
        write(&games::random_game(
            &id,
            (&south, &north),
            start,
            finish,
            &mut rng,
        ));
    }
    for n in 0..BENCH_GAMES + BENCH_FINISHED {
        let finish = n >= BENCH_GAMES;
        let id = games::nth_id(n);
        let start = now - if finish { 30 * 86_400 } else { 3_600 };
        let mut record = games::random_game(&id, (ALICE, BOB), start, finish, &mut rng);
        if !finish {
            record.turns.clear(); // Alice (South) to move
        }
        write(&record);
    }
    // The index, built once as for a store of an older referee.
    store.ensure_index(&secrets).expect("the index");
}

/// What the bench times.
#[derive(Clone, Copy)]
enum Operation {
    Move,
    Invitation,
    Keyless,
    Questions,
    Games,
    Ratings,
    Remind,
}

impl Operation {
    const ALL: [Operation; 7] = [
        Operation::Move,
        Operation::Invitation,
        Operation::Keyless,
        Operation::Questions,
        Operation::Games,
        Operation::Ratings,
        Operation::Remind,
    ];

    fn name(self) -> &'static str {
        match self {
            Operation::Move => "a move",
            Operation::Invitation => "an invitation",
            Operation::Keyless => "a keyless mail",
            Operation::Questions => "games+history+ratings mail",
            Operation::Games => "mancala games",
            Operation::Ratings => "mancala ratings",
            Operation::Remind => "mancala remind (none due)",
        }
    }
}

/// Each operation's median time and peak memory (KiB) on each store.
fn measure(
    bin: &Path,
    subjects: &[Subject],
    runs: usize,
) -> Vec<(&'static str, Vec<(Duration, i64)>)> {
    let nonce = mancala::store::now();
    let mut out = Vec::new();
    for op in Operation::ALL {
        let mut times = vec![Vec::new(); subjects.len()];
        for run in 0..runs {
            // Each run starts at another store: what one run leaves the
            // disk to do (its journal's commit) falls on each alike.
            for k in 0..subjects.len() {
                let s = (k + run) % subjects.len();
                let (args, input) = job(&subjects[s], op, run, nonce);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                times[s].push(run_child(bin, &args, input.as_bytes()));
            }
        }
        let by_store = subjects
            .iter()
            .zip(&mut times)
            .map(|(subject, times)| {
                let (args, input) = job(subject, op, runs, nonce);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let peak = peak_of(bin, &args, input.as_bytes());
                times.sort();
                (times[times.len() / 2], peak)
            })
            .collect();
        out.push((op.name(), by_store));
    }
    out
}

/// The arguments and input of run `run` of operation `op` on `subject`.
fn job(subject: &Subject, op: Operation, run: usize, nonce: u64) -> (Vec<String>, String) {
    let dir_arg = subject.dir.to_str().unwrap();
    let mail = |input: String| {
        let args = [
            "mail", "--from", REFEREE, "--send", "stdout", "--store", dir_arg,
        ];
        (args.map(String::from).to_vec(), input)
    };
    // A keyed mail from whoever is to move in bench game `n`.
    let keyed = |n: u64, words: &dyn Fn(&GameRecord) -> String, tag: &str| {
        let id = games::nth_id(n % BENCH_GAMES);
        let record = subject.store.load_game(&id).unwrap().expect("a bench game");
        let side = record.game().unwrap().to_move().unwrap_or(Side::South);
        let token = subject.secrets.token(&id, side);
        let from = record.player(side).address.clone().unwrap();
        format!(
            "From: {from}\nTo: {}\nSubject: Re: your game\nMessage-ID: <{tag}.{nonce}@players.example>\n\n{}\n",
            Identity::new(REFEREE).sub_address(&token),
            words(&record)
        )
    };
    let pit = |record: &GameRecord| {
        let game = record.game().unwrap();
        format!("move {}", game.legal_moves().first().unwrap())
    };
    let questions = |_: &GameRecord| "games\nhistory\nratings".to_string();
    let command = |words: &[&str]| {
        let mut args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        args.extend(["--store".to_string(), dir_arg.to_string()]);
        (args, String::new())
    };
    match op {
        Operation::Move => mail(keyed(run as u64, &pit, &format!("m{run}"))),
        Operation::Invitation => mail(format!(
            "From: inviter{run}.{nonce}@players.example\nTo: {REFEREE}\nMessage-ID: <i{run}.{nonce}@players.example>\n\nnew wari with invitee{run}.{nonce}@players.example\n"
        )),
        Operation::Keyless => mail(format!(
            "From: stranger{run}.{nonce}@players.example\nTo: {REFEREE}\nMessage-ID: <k{run}.{nonce}@players.example>\n\nhello\n"
        )),
        Operation::Questions => {
            mail(keyed(BENCH_GAMES - 1, &questions, &format!("q{run}")))
        }
        Operation::Games => command(&["games"]),
        Operation::Ratings => command(&["ratings"]),
        Operation::Remind => command(&["remind", "--from", REFEREE, "--send", "stdout"]),
    }
}

/// Runs `bin` to its end (it must succeed); its wall time.
fn run_child(bin: &Path, args: &[&str], input: &[u8]) -> Duration {
    let started = Instant::now();
    let status = spawn(Command::new(bin).args(args), input);
    let took = started.elapsed();
    assert!(status.success(), "mancala {args:?} failed ({status})");
    took
}

/// The peak resident memory (KiB) of one run of `bin`, as GNU time reads
/// it from the child's rusage (`%M`). Under time, whose own image is small,
/// not straight from this process: Linux counts the image a child had
/// before it ran `exec` in its peak, and this one has held a whole store.
fn peak_of(bin: &Path, args: &[&str], input: &[u8]) -> i64 {
    let report = std::env::temp_dir().join(format!("mancala-bench-store-{}", std::process::id()));
    let status = spawn(
        Command::new("/usr/bin/time")
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(bin)
            .args(args),
        input,
    );
    assert!(status.success(), "mancala {args:?} failed ({status})");
    let text = std::fs::read_to_string(&report).expect("time's report");
    let _ = std::fs::remove_file(&report);
    text.trim().parse().expect("a number of KiB")
}

fn spawn(command: &mut Command, input: &[u8]) -> std::process::ExitStatus {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait().expect("wait")
}
