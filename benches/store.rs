//! What the store's size costs a mail and a command, and how many queued
//! mails a second one store takes from several referees at once.
//!
//! Part 1: on stores of 0, 10,000 and 100,000 games (10,000 of them under
//! way), the release binary (`target/release/mancala`, or `MANCALA_BIN`)
//! runs a move, an invitation, a keyless mail, a mail asking `games`,
//! `history` and `ratings`, `mancala games`, `mancala ratings` and
//! `mancala remind` with nothing due; each time is the median of
//! `MANCALA_BENCH_RUNS` runs (default 9; each run times the three stores
//! in turn, side by side), said with its ratio to the empty store's
//! (target: at most 1.3x), and the peak memory of one more run (target:
//! under 20 MB), read by GNU time (`/usr/bin/time -f %M`) where it is.
//! Every run's outcome is checked (the move played, the invitation made,
//! the answer written), never its time.
//!
//! Part 2: 1,000 queued moves over 200 games of Wari (five a game, in
//! turn), taken from the queue by 1, 2 and 8 referee processes at once:
//! mails a second, on the database store (SQLite) and, side by side, on
//! the folder store of the last referee that had one (commit `1aab292`,
//! built once into `target/bench-old-store/` from a `git worktree`; if
//! that cannot be built, its figures are left out and the reason said).
//! Each figure is the median of `MANCALA_BENCH_ROUNDS` rounds (default
//! 5), the two stores taking turns to go first. Each game's turns are
//! checked afterwards on both.
//!
//! ```text
//! cargo build --release && cargo bench --bench store
//! MANCALA_BENCH_GAMES=2000 MANCALA_BENCH_RUNS=5 MANCALA_BENCH_QUEUED=200 cargo bench --bench store
//! ```
//!
//! `MANCALA_BENCH_GAMES=N` makes the stores 0, N/10 and N games (N/10
//! under way) for a quick run; `MANCALA_BENCH_QUEUED=N` queues N moves
//! over N/5 games. The stores are generated once into
//! `target/bench-stores/db-N/` (kept for later runs; remove the folder to
//! have them made afresh): games of random legal play (every ruleset, the
//! finished ones played out or resigned), among a pool of players that
//! grows with the store (200 + games / 20). Two bench players have the
//! same dozen games under way in every store (put back to their start
//! when a run has played one far, so a second run of the bench finds a
//! move to make) and five finished.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mancala::engine::{Game, Ruleset, Side, SplitMix64};
use mancala::mail::Identity;
use mancala::store::{GameId, GameRecord, Secrets, Store, StoreError};

#[path = "../tests/common/games.rs"]
mod games;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "bench-alice@players.example";
const BOB: &str = "bench-bob@players.example";
/// The bench players' games under way (ids 0..), and finished ones after.
const BENCH_GAMES: u64 = 12;
const BENCH_FINISHED: u64 = 5;
/// The last commit whose referee kept a folder store.
const FOLDER_STORE_COMMIT: &str = "1aab292";

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = std::env::var_os("MANCALA_BIN")
        .map_or_else(|| root.join("target/release/mancala"), PathBuf::from);
    assert!(
        bin.exists(),
        "build the release binary first: cargo build --release"
    );
    let runs = env_number("MANCALA_BENCH_RUNS", 9).max(1) as usize;
    let largest = env_number("MANCALA_BENCH_GAMES", 100_000).max(10);
    let queued = env_number("MANCALA_BENCH_QUEUED", 1_000).max(5);
    let rounds = env_number("MANCALA_BENCH_ROUNDS", 5).max(1) as usize;
    let sizes = [0, largest / 10, largest];
    let folder = root.join(format!("target/bench-stores/db-{largest}"));
    let subjects: Vec<Subject> = sizes
        .iter()
        .map(|&size| Subject::prepare(&folder, size, (largest / 10).min(size)))
        .collect();
    // Side by side: each run times every store in turn, so a slow spell
    // of the machine (or of its disk's syncs) falls on all of them alike.
    let figures = measure(&bin, &subjects, runs);
    println!("\nmedian of {runs} runs; the ratio is to the empty store's time");
    for (s, subject) in subjects.iter().enumerate() {
        println!(
            "store of {} games ({} under way):",
            subject.size, subject.under_way
        );
        for (what, by_store) in &figures {
            let (time, peak) = by_store[s];
            let ratio = time.as_secs_f64() / by_store[0].0.as_secs_f64();
            let peak = peak.map_or("n/a".to_string(), |kib| {
                format!("{:.1} MB", kib as f64 / 1024.0)
            });
            println!(
                "  {what:<28} {:>9.3} ms  {ratio:>5.2}x  peak {peak:>8}",
                time.as_secs_f64() * 1e3,
            );
        }
    }
    drop(subjects);
    queued_moves(&root, &bin, queued, rounds);
}

// ---------------------------------------------------------------------
// Part 1: each operation on stores of three sizes.

/// One store the bench runs on.
struct Subject {
    size: u64,
    under_way: u64,
    path: PathBuf,
    store: Store,
}

impl Subject {
    /// The store of `size` games in `folder`, generated the first time;
    /// the bench players' games put back where a move can be made.
    fn prepare(folder: &Path, size: u64, under_way: u64) -> Subject {
        let path = folder.join(format!("{size}.db"));
        let done = folder.join(format!("{size}.done"));
        if !done.exists() {
            std::fs::create_dir_all(folder).expect("the bench's folder");
            for end in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{end}", path.display()));
            }
            let started = Instant::now();
            generate(&path, size, under_way);
            std::fs::write(&done, "").expect("the marker");
            println!(
                "generated {size} games ({under_way} under way) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        let store = Store::open(&path).expect("the store");
        reset_bench_games(&store);
        Subject {
            size,
            under_way,
            path,
            store,
        }
    }
}

/// Saves `records` in one transaction.
fn save_all(store: &Store, records: &[GameRecord]) {
    store
        .transact(|| -> Result<(), StoreError> {
            for record in records {
                store.save_game(record)?;
            }
            Ok(())
        })
        .expect("games saved");
}

/// A store of `size` games, `under_way` of them under way and active
/// within the day (nothing due for `remind`), and the bench players'.
fn generate(path: &Path, size: u64, under_way: u64) {
    let store = Store::open(path).expect("the store");
    let mut rng = SplitMix64::new(size + 1);
    let now = mancala::store::now();
    let players = 200 + size / 20;
    let player = |n: usize| format!("player{n}@players.example");
    let mut batch = Vec::new();
    // Finished games over the last year, then those under way.
    for n in 0..size {
        let (south, north) = (rng.below(players as usize), rng.below(players as usize));
        let finish = n < size - under_way;
        let start = if finish {
            now - 400 * 86_400 + n * (390 * 86_400 / size.max(1))
        } else {
            now - 3 * 3_600
        };
        let id = games::nth_id(1_000 + n);
        let (south, north) = (player(south), player(north));
        batch.push(games::random_game(
            &id,
            (&south, &north),
            start,
            finish,
            &mut rng,
        ));
        if batch.len() == 2_000 {
            save_all(&store, &std::mem::take(&mut batch));
        }
    }
    for n in BENCH_GAMES..BENCH_GAMES + BENCH_FINISHED {
        let id = games::nth_id(n);
        batch.push(games::random_game(
            &id,
            (ALICE, BOB),
            now - 30 * 86_400,
            true,
            &mut rng,
        ));
    }
    save_all(&store, &batch);
}

/// Each bench game under way, at its start (Alice, South, to move) when
/// missing, over, or played far by earlier runs; its events kept, so
/// that the replies of its next moves have Message-IDs of their own.
fn reset_bench_games(store: &Store) {
    let now = mancala::store::now();
    let mut rng = SplitMix64::new(now);
    let mut fresh = Vec::new();
    for n in 0..BENCH_GAMES {
        let id = games::nth_id(n);
        let stored = store.load_game(&id).expect("a bench game read");
        let playable = stored
            .as_ref()
            .is_some_and(|r| r.turns.len() < 40 && r.game().is_ok_and(|g| g.to_move().is_some()));
        if playable {
            continue;
        }
        let mut record = games::random_game(&id, (ALICE, BOB), now - 3_600, false, &mut rng);
        record.turns.clear();
        record.last_activity = record.created;
        record.events = stored.map_or(0, |r| r.events);
        record.board_event = record.events;
        fresh.push(record);
    }
    save_all(store, &fresh);
}

/// What the bench times.
#[derive(Clone, Copy, PartialEq, Eq)]
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

/// One run of an operation: the command, its input, and how to tell
/// that it did what it should.
struct Job {
    args: Vec<String>,
    input: String,
    check: Check,
}

enum Check {
    /// Game `id` has one sowing more than `sowings`.
    Moved { id: GameId, sowings: usize },
    /// The output holds a mail to this address.
    MailTo(String),
    /// The output (standard output, else errors) holds this.
    Says(String),
}

fn sowings(record: &GameRecord) -> usize {
    record.turns.iter().map(|t| t.sowings.len()).sum()
}

impl Job {
    fn check(&self, subject: &Subject, out: &Output) {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "mancala {:?} on {} games failed ({}): {stderr}",
            self.args,
            subject.size,
            out.status
        );
        match &self.check {
            Check::Moved {
                id,
                sowings: before,
            } => {
                let record = subject.store.load_game(id).unwrap().unwrap();
                assert_eq!(sowings(&record), before + 1, "the move in {id}: {stderr}");
            }
            Check::MailTo(address) => assert!(
                stdout.contains(&format!("To: {address}"))
                    || stdout.contains(&format!("<{address}>")),
                "no mail to {address}: {stderr}\n{stdout}"
            ),
            Check::Says(words) => assert!(
                stdout.contains(words.as_str()) || stderr.contains(words.as_str()),
                "{:?} did not say {words:?}: {stderr}\n{stdout}",
                self.args
            ),
        }
    }
}

/// Run `run` of operation `op` on `subject`.
fn job(subject: &Subject, op: Operation, run: usize, nonce: u64) -> Job {
    let store_arg = subject.path.to_str().unwrap().to_string();
    let mail = |input: String, check: Check| Job {
        args: ["mail", "--from", REFEREE, "--send", "stdout", "--store"]
            .map(String::from)
            .into_iter()
            .chain([store_arg.clone()])
            .collect(),
        input,
        check,
    };
    let secrets: &Secrets = subject.store.secrets();
    // A keyed mail from whoever is to move in bench game `n`.
    let keyed = |n: u64, words: &dyn Fn(&GameRecord) -> String, tag: &str| {
        let id = games::nth_id(n % BENCH_GAMES);
        let record = subject.store.load_game(&id).unwrap().expect("a bench game");
        let side = record.game().unwrap().to_move().unwrap_or(Side::South);
        let token = secrets.token(&id, side);
        let from = record.player(side).address.clone().unwrap();
        let text = format!(
            "From: {from}\nTo: {}\nSubject: Re: your game\nMessage-ID: <{tag}.{nonce}@players.example>\n\n{}\n",
            Identity::new(REFEREE).sub_address(&token),
            words(&record)
        );
        (text, record, from)
    };
    let command = |words: &[&str], check: Check| Job {
        args: words
            .iter()
            .map(|w| w.to_string())
            .chain(["--store".to_string(), store_arg.clone()])
            .collect(),
        input: String::new(),
        check,
    };
    match op {
        Operation::Move => {
            // A bench game with a move to make (a run may have ended one).
            let n = (0..BENCH_GAMES)
                .map(|k| (run as u64 + k) % BENCH_GAMES)
                .find(|&n| {
                    let record = subject.store.load_game(&games::nth_id(n)).unwrap();
                    record.is_some_and(|r| r.game().is_ok_and(|g| g.to_move().is_some()))
                })
                .expect("a bench game under way (they are put back each bench run)");
            let pit = |record: &GameRecord| {
                let game = record.game().unwrap();
                let pit = game.legal_moves().into_iter().next().expect("a legal move");
                format!("move {pit}")
            };
            let (text, record, _) = keyed(n, &pit, &format!("m{run}"));
            let check = Check::Moved {
                sowings: sowings(&record),
                id: record.id,
            };
            mail(text, check)
        }
        Operation::Invitation => {
            let invitee = format!("invitee{run}.{nonce}@players.example");
            mail(
                format!(
                    "From: inviter{run}.{nonce}@players.example\nTo: {REFEREE}\nMessage-ID: <i{run}.{nonce}@players.example>\n\nnew wari with {invitee}\n"
                ),
                Check::MailTo(invitee),
            )
        }
        Operation::Keyless => {
            let from = format!("stranger{run}.{nonce}@players.example");
            mail(
                format!(
                    "From: {from}\nTo: {REFEREE}\nMessage-ID: <k{run}.{nonce}@players.example>\n\nhello\n"
                ),
                Check::MailTo(from),
            )
        }
        Operation::Questions => {
            let words = |_: &GameRecord| "games\nhistory\nratings".to_string();
            let (text, _, from) = keyed(BENCH_GAMES - 1, &words, &format!("q{run}"));
            mail(text, Check::MailTo(from))
        }
        // Every store holds the bench players' games, under way and finished.
        Operation::Games => command(&["games"], Check::Says("game    ruleset".to_string())),
        Operation::Ratings => command(&["ratings"], Check::Says("rating".to_string())),
        Operation::Remind => command(
            &["remind", "--from", REFEREE, "--send", "stdout"],
            Check::Says("0 reminded, 0 forfeited".to_string()),
        ),
    }
}

/// An operation's median time on one store, and its peak memory (KiB).
type Figure = (Duration, Option<u64>);

/// Each operation's median time and peak memory (KiB) on each store.
fn measure(bin: &Path, subjects: &[Subject], runs: usize) -> Vec<(&'static str, Vec<Figure>)> {
    let nonce = mancala::store::now();
    let mut out = Vec::new();
    for op in Operation::ALL {
        let mut times = vec![Vec::new(); subjects.len()];
        for run in 0..runs {
            // Each run starts at another store: what one run leaves the
            // disk to do falls on each alike.
            for k in 0..subjects.len() {
                let s = (k + run) % subjects.len();
                let job = job(&subjects[s], op, run, nonce);
                let (took, output) = run_child(bin, &job.args, job.input.as_bytes());
                job.check(&subjects[s], &output);
                times[s].push(took);
            }
        }
        let by_store = subjects
            .iter()
            .zip(&mut times)
            .map(|(subject, times)| {
                let job = job(subject, op, runs, nonce);
                let peak = peak_of(bin, &job.args, job.input.as_bytes());
                times.sort();
                (times[times.len() / 2], peak)
            })
            .collect();
        out.push((op.name(), by_store));
    }
    out
}

/// Runs `bin` to its end; its wall time and output.
fn run_child(bin: &Path, args: &[String], input: &[u8]) -> (Duration, Output) {
    let started = Instant::now();
    let output = spawn(Command::new(bin).args(args), input);
    (started.elapsed(), output)
}

/// The peak resident memory (KiB) of one run of `bin`, as GNU time reads
/// it from the child's rusage (`%M`): under time, whose own image is
/// small, not straight from this process (Linux counts the image a child
/// had before it ran `exec` in its peak, and this one holds a store).
/// `None` where there is no `/usr/bin/time`.
fn peak_of(bin: &Path, args: &[String], input: &[u8]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let report = std::env::temp_dir().join(format!("mancala-bench-store-{}", std::process::id()));
    let out = spawn(
        Command::new(time)
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(bin)
            .args(args),
        input,
    );
    assert!(
        out.status.success(),
        "mancala {args:?} failed ({})",
        out.status
    );
    let text = std::fs::read_to_string(&report).expect("time's report");
    let _ = std::fs::remove_file(&report);
    text.trim().parse().ok()
}

fn spawn(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .env_remove("MANCALA_STORE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().expect("wait")
}

// ---------------------------------------------------------------------
// Part 2: queued moves, several referees at once, beside the folder store.

/// The secret of the queued stores (an old folder store's `key`).
const QUEUE_KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

/// A game file of the folder store (format 3): the record's fields, its
/// format, and an empty ledger.
fn old_game_file(record: &GameRecord) -> String {
    let mut value = serde_json::to_value(record).expect("a record");
    let fields = value.as_object_mut().expect("an object");
    fields.remove("events");
    fields.insert("format".into(), 3.into());
    fields.insert(
        "ledger".into(),
        serde_json::json!({ "events": 0, "handled": [], "outbox": [] }),
    );
    value.to_string()
}

/// A queued mail, and the index of the game it is for.
type Queued = (usize, String);

/// A folder store of `games` Wari games at their start, each between two
/// players of its own; the mails of `per_game` moves in each, in queue
/// order (each game's first move, then each game's second, ...); and the
/// turns each game then has.
fn queue(dir: &Path, games: u64, per_game: usize) -> (Vec<Queued>, Vec<(GameId, usize)>) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("the folder store");
    std::fs::write(dir.join("key"), QUEUE_KEY).expect("the key");
    let secrets = Secrets::new(QUEUE_KEY).expect("a secret");
    let now = mancala::store::now();
    let nonce = now;
    let mut rng = SplitMix64::new(now);
    let rules = Ruleset::Wari.rules();
    let mut rounds: Vec<Vec<Queued>> = vec![Vec::new(); per_game];
    let mut expected = Vec::new();
    for g in 0..games {
        let id = games::nth_id(50_000 + g);
        let (south, north) = (
            format!("q{g}s@players.example"),
            format!("q{g}n@players.example"),
        );
        let mut record = games::random_game(&id, (&south, &north), now - 600, false, &mut rng);
        record.ruleset = Ruleset::Wari;
        record.stones = rules.stones;
        record.turns.clear();
        record.last_activity = record.created;
        std::fs::write(dir.join(format!("{id}.json")), old_game_file(&record)).expect("a game");
        let mut game = Game::new(rules, Side::South);
        let mut made = 0;
        for (k, round) in rounds.iter_mut().enumerate() {
            let Some(side) = game.to_move() else { break };
            let legal: Vec<_> = game.legal_moves().into_iter().collect();
            let pit = legal[rng.below(legal.len())];
            game.play(pit).expect("a legal move");
            let token = secrets.token(&id, side);
            let from = record.player(side).address.clone().expect("an address");
            round.push((
                g as usize,
                format!(
                    "From: {from}\nTo: {}\nSubject: Re: your game\nMessage-ID: <q{g}.{k}.{nonce}@players.example>\n\nmove {pit}\n",
                    Identity::new(REFEREE).sub_address(&token)
                ),
            ));
            made += 1;
        }
        expected.push((id, made));
    }
    (rounds.concat(), expected)
}

/// Runs every mail of `mails` through `bin mail --store STORE`, by
/// `processes` referees at once, each taking its next mail from the
/// queue; mails a second. A game's moves are taken by one referee, in
/// turn, as its players send them (each waits for the reply to the last):
/// a later move overtaking an earlier one would be refused, not timed.
fn drain(bin: &Path, store: &str, mails: &[Queued], processes: usize) -> f64 {
    // What the last run (or the copy of the store) left to write goes to
    // the disk first: its writeback would otherwise fall on this run's syncs.
    let synced = Command::new("sync").status().expect("sync");
    assert!(synced.success());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..processes {
            scope.spawn(move || {
                let mine =
                    (mails.iter().enumerate()).filter(|(_, (game, _))| game % processes == worker);
                for (i, (_, mail)) in mine {
                    let args = [
                        "mail", "--from", REFEREE, "--send", "stdout", "--store", store,
                    ];
                    let out = spawn(Command::new(bin).args(args), mail.as_bytes());
                    assert!(
                        out.status.success(),
                        "mail {i} failed ({}): {}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            });
        }
    });
    mails.len() as f64 / started.elapsed().as_secs_f64()
}

/// The folder store's referee (commit [`FOLDER_STORE_COMMIT`]), built
/// once into `target/bench-old-store/`; why not, when it cannot be.
fn folder_store_referee(root: &Path) -> Result<PathBuf, String> {
    let base = root.join("target/bench-old-store");
    let bin = base.join("target/release/mancala");
    if bin.exists() {
        return Ok(bin);
    }
    let src = base.join("src");
    let run = |command: &mut Command, what: &str| -> Result<(), String> {
        let out = command
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{what}: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(format!(
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    };
    if !src.join("Cargo.toml").exists() {
        std::fs::create_dir_all(&base).map_err(|e| e.to_string())?;
        run(
            Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["worktree", "add", "--detach"])
                .arg(&src)
                .arg(FOLDER_STORE_COMMIT),
            "git worktree add",
        )?;
    }
    println!(
        "building the folder store's referee ({FOLDER_STORE_COMMIT}) into {} once (minutes)",
        base.display()
    );
    run(
        Command::new("cargo")
            .args(["build", "--release", "--manifest-path"])
            .arg(src.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(base.join("target")),
        "cargo build",
    )?;
    match bin.exists() {
        true => Ok(bin),
        false => Err(format!("no {} after the build", bin.display())),
    }
}

/// The turns each game of a folder store has.
fn folder_turns(dir: &Path, id: &GameId) -> usize {
    let text = std::fs::read_to_string(dir.join(format!("{id}.json"))).expect("a game file");
    let value: serde_json::Value = serde_json::from_str(&text).expect("a game");
    value["turns"].as_array().map_or(0, Vec::len)
}

/// 1,000 (or `MANCALA_BENCH_QUEUED`) queued moves over a fifth as many
/// games, by 1, 2 and 8 referees at once, on the database and on the
/// folder store: `rounds` of each, the two taking turns to go first (the
/// one that runs second meets the first's writes still being flushed),
/// each figure the median of its rounds.
fn queued_moves(root: &Path, bin: &Path, moves: u64, rounds: usize) {
    let per_game = 5;
    let games = moves / per_game as u64;
    let base = root.join("target/bench-stores/queued");
    let template = base.join("template");
    let (mails, expected) = queue(&template, games, per_game);
    let queue = Queue {
        base,
        template,
        mails,
        expected,
    };
    let old = folder_store_referee(root);
    if let Err(why) = &old {
        println!("\nno folder store figures: its referee could not be built: {why}");
    }
    println!(
        "\n{} queued moves over {games} games (Wari), mails a second, the median of {rounds} rounds:",
        queue.mails.len()
    );
    println!(
        "  {:<12} {:>12} {:>14}",
        "referees", "database", "folder store"
    );
    for processes in [1, 2, 8] {
        let mut db_rates = Vec::new();
        let mut old_rates = Vec::new();
        for round in 0..rounds {
            let on_db = || db_rate(bin, &queue, processes);
            let on_folder =
                || (old.as_ref().ok()).map(|old_bin| folder_rate(old_bin, &queue, processes));
            if round % 2 == 0 {
                db_rates.push(on_db());
                old_rates.extend(on_folder());
            } else {
                old_rates.extend(on_folder());
                db_rates.push(on_db());
            }
        }
        let old_rate = median(&mut old_rates).map_or("n/a".to_string(), |r| format!("{r:.1}"));
        let rate = median(&mut db_rates).unwrap_or(0.0);
        println!("  {processes:<12} {rate:>12.1} {old_rate:>14}");
    }
}

/// The queued mails, the folder store they go to (and its database
/// copies beside), and the turns each game has once they are handled.
struct Queue {
    base: PathBuf,
    template: PathBuf,
    mails: Vec<Queued>,
    expected: Vec<(GameId, usize)>,
}

fn median(rates: &mut [f64]) -> Option<f64> {
    rates.sort_by(f64::total_cmp);
    rates.get(rates.len() / 2).copied()
}

/// The queue drained on a database the folder store was imported into
/// (as an operator moves in), each game's turns then checked.
fn db_rate(bin: &Path, queue: &Queue, processes: usize) -> f64 {
    let db = queue.base.join(format!("db-{processes}.db"));
    for end in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{end}", db.display()));
    }
    let db_arg = db.to_str().unwrap();
    Store::import(&queue.template, db_arg).expect("the import");
    let rate = drain(bin, db_arg, &queue.mails, processes);
    let store = Store::open(&db).expect("the store");
    for (id, turns) in &queue.expected {
        let record = store.load_game(id).unwrap().expect("a queued game");
        assert_eq!(record.turns.len(), *turns, "game {id} on the database");
    }
    rate
}

/// The queue drained on a copy of the folder store, its index built
/// before the clock starts, each game's turns then checked.
fn folder_rate(old_bin: &Path, queue: &Queue, processes: usize) -> f64 {
    let dir = queue.base.join(format!("folder-{processes}"));
    let _ = std::fs::remove_dir_all(&dir);
    let copied = Command::new("cp")
        .arg("-r")
        .arg(&queue.template)
        .arg(&dir)
        .status()
        .expect("cp");
    assert!(copied.success());
    let dir_arg = dir.to_str().unwrap();
    let warm = spawn(
        Command::new(old_bin).args(["games", "--store", dir_arg]),
        b"",
    );
    assert!(
        warm.status.success(),
        "{}",
        String::from_utf8_lossy(&warm.stderr)
    );
    let rate = drain(old_bin, dir_arg, &queue.mails, processes);
    for (id, turns) in &queue.expected {
        assert_eq!(
            folder_turns(&dir, id),
            *turns,
            "game {id} on the folder store"
        );
    }
    rate
}
