//! The store, as its readers and its operator rely on it, on SQLite and on
//! PostgreSQL alike: the ratings kept as games end are those a replay of
//! every finished game draws, lookups agree with reading every game,
//! `mancala games` and `ratings` show what they say, an old folder store
//! moves in whole (keys, mails handled, replies owed) or not at all, and
//! two referees on one store send each reply once.
//!
//! Each store test runs on a SQLite file and on a database of a private
//! PostgreSQL server (tests/common/pg.rs); where that cannot start, or the
//! tests were built without `--features postgres`, it says so on standard
//! error and runs on SQLite alone.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::address::mailbox_key;
use mancala::engine::{Ruleset, Side, SplitMix64};
use mancala::mail::delivery::DeliveryError;
use mancala::mail::hosted::{HostedReferee, Reminder};
use mancala::mail::letter::Letter;
use mancala::mail::outgoing::Outgoing;
use mancala::mail::Referee;
use mancala::sheet::Sheet;
use mancala::store::ratings::Rating;
use mancala::store::{
    Delivery, GameId, GameRecord, MailKey, Mailbox, Owed, Secrets, Standing, Store, StoreError,
};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

mod common;
use common::Dump;
#[path = "common/games.rs"]
mod games;
#[path = "common/stub.rs"]
mod stub;

use stub::Stub;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";
const DAY: u64 = 86_400;

// ---------------------------------------------------------------------
// Each test on each database.

/// A store for a test body: a SQLite file in the test's folder, or a
/// database of the test's PostgreSQL server.
struct On {
    /// The test's own folder, for files beside the store.
    dir: common::TempDir,
    /// The store as `--store` names it.
    store: String,
    /// "SQLite" or "PostgreSQL", for messages.
    kind: &'static str,
}

impl On {
    fn open(&self) -> Store {
        Store::open(&self.store)
            .unwrap_or_else(|e| panic!("{}: opening {}: {e}", self.kind, self.store))
    }

    fn is_postgres(&self) -> bool {
        self.kind == "PostgreSQL"
    }
}

/// A line on the test's real standard error, past the harness's capture:
/// a skip is never silent.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A fresh PostgreSQL database for `name`, or `None` with the reason
/// printed (no server here, or no PostgreSQL in this build).
fn postgresql(name: &str) -> Option<String> {
    if !cfg!(feature = "postgres") {
        say(&format!(
            "{name}: skipped on PostgreSQL: this test was built without PostgreSQL \
             (cargo test --features postgres)"
        ));
        return None;
    }
    match common::pg::database(name) {
        Ok(url) => Some(url),
        Err(why) => {
            say(&format!("{name}: skipped on PostgreSQL: {why}"));
            None
        }
    }
}

/// The stores a test runs on: SQLite, then PostgreSQL when it can be had.
fn stores(name: &str) -> Vec<On> {
    let sqlite = common::temp_dir(name);
    let mut list = vec![On {
        store: sqlite.join("referee.db").to_string_lossy().into_owned(),
        dir: sqlite,
        kind: "SQLite",
    }];
    if let Some(url) = postgresql(name) {
        list.push(On {
            dir: common::temp_dir(name),
            store: url,
            kind: "PostgreSQL",
        });
    }
    list
}

/// Runs `body` on each store (see [`stores`]).
fn on_each_store(name: &str, body: impl Fn(&On)) {
    for on in stores(name) {
        body(&on);
        println!("{name}: passed on {}", on.kind);
    }
}

/// Runs one SQL statement on the store's database, as an operator's
/// client (or a damaged disk) would, beside the referee.
fn sql(on: &On, statement: &str) {
    if on.is_postgres() {
        #[cfg(feature = "postgres")]
        {
            let mut client = postgres::Client::connect(&on.store, postgres::NoTls).unwrap();
            client.batch_execute(statement).unwrap();
        }
    } else {
        let db = rusqlite::Connection::open(&on.store).unwrap();
        db.execute_batch(statement).unwrap();
    }
}

/// Saves `record` as the referee does: in a transaction of its own.
fn save(store: &Store, record: &GameRecord) {
    store
        .transact(|| -> Result<(), StoreError> { store.save_game(record) })
        .unwrap();
}

/// Saves every record in one transaction (a test's set-up).
fn save_all<'a>(store: &Store, records: impl IntoIterator<Item = &'a GameRecord> + Clone) {
    store
        .transact(|| -> Result<(), StoreError> {
            for record in records.clone() {
                store.save_game(record)?;
            }
            Ok(())
        })
        .unwrap();
}

fn ids(games: &[GameRecord]) -> Vec<String> {
    games.iter().map(|g| g.id.to_string()).collect()
}

// ---------------------------------------------------------------------
// Ratings.

/// The ratings as a replay of every rated game draws them, in the order
/// the games ended (the referee's code before ratings were kept).
fn replay(games: &[GameRecord], ruleset: Option<Ruleset>) -> Vec<Rating> {
    let mut finished: Vec<(u64, &GameRecord, Option<Side>)> = games
        .iter()
        .filter(|r| ruleset.is_none_or(|want| r.ruleset == want))
        .filter_map(|r| {
            if r.computer.is_some() || r.standing != Standing::Playing {
                return None;
            }
            let outcome = r.game().ok()?.outcome()?;
            Some((r.ended()?, r, outcome.winner))
        })
        .collect();
    finished.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    let config = Glicko2Config::new();
    let mut table: HashMap<(Ruleset, String), (Glicko2Rating, Rating)> = HashMap::new();
    for (_, record, winner) in finished {
        let keys = Side::BOTH.map(|side| {
            let address = record.player(side).address.as_deref().unwrap_or_default();
            (record.ruleset, mailbox_key(address))
        });
        if keys[0].1 == keys[1].1 {
            continue;
        }
        let entry = |table: &HashMap<_, (Glicko2Rating, Rating)>, side: Side| {
            let key = &keys[side.index()];
            table.get(key).cloned().unwrap_or_else(|| {
                let rating = Rating {
                    ruleset: record.ruleset,
                    name: String::new(),
                    rating: 0.0,
                    deviation: 0.0,
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    mailbox: key.1.clone(),
                };
                (Glicko2Rating::new(), rating)
            })
        };
        let (south, north) = (entry(&table, Side::South), entry(&table, Side::North));
        let outcome = match winner {
            Some(Side::South) => Outcomes::WIN,
            Some(Side::North) => Outcomes::LOSS,
            None => Outcomes::DRAW,
        };
        let (south_new, north_new) = glicko2(&south.0, &north.0, &outcome, &config);
        for (side, (_, mut tally), new) in [
            (Side::South, south, south_new),
            (Side::North, north, north_new),
        ] {
            tally.name = record.player(side).name.clone();
            tally.games += 1;
            match winner {
                None => tally.draws += 1,
                Some(w) if w == side => tally.wins += 1,
                Some(_) => tally.losses += 1,
            }
            tally.rating = new.rating;
            tally.deviation = new.deviation;
            table.insert(keys[side.index()].clone(), (new, tally));
        }
    }
    let mut list: Vec<Rating> = table.into_values().map(|(_, r)| r).collect();
    list.sort_by(|a, b| {
        (a.ruleset.as_str(), -a.rating, &a.mailbox)
            .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    list
}

/// `n` games among eight players, most finished, in the order they ended.
fn generated(n: u64, rng: &mut SplitMix64) -> Vec<GameRecord> {
    let players: Vec<String> = (0..8).map(|i| format!("p{i}@players.example")).collect();
    (0..n)
        .map(|i| {
            let south = &players[rng.below(players.len())];
            let north = &players[rng.below(players.len())];
            let finish = rng.below(5) != 0;
            games::random_game(&games::nth_id(i), (south, north), i * 100_000, finish, rng)
        })
        .collect()
}

#[test]
fn ratings_kept_as_games_end_equal_a_replay_of_every_finished_game() {
    on_each_store("store-ratings", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(19);
        let games = generated(120, &mut rng);
        assert!(games.iter().filter(|g| g.game().unwrap().is_over()).count() > 60);
        for record in &games {
            save(&store, record);
            // Saved again as ended (a resent mail, a question): counted once.
            save(&store, record);
        }
        assert_eq!(
            store.ratings(None).unwrap(),
            replay(&games, None),
            "{}",
            on.kind
        );
        assert_eq!(
            store.ratings(Some(Ruleset::Wari)).unwrap(),
            replay(&games, Some(Ruleset::Wari)),
            "{}",
            on.kind
        );
        // Another connection (another referee) reads the same table.
        assert_eq!(on.open().ratings(None).unwrap(), replay(&games, None));
    });
}

/// What a question should see: the first `most` of each ruleset of the
/// whole table, and every row of `mailbox`.
fn best_of(list: &[Rating], most: usize, mailbox: &str) -> (Vec<Rating>, bool) {
    let mut kept = Vec::new();
    let mut cut = false;
    for ruleset in Ruleset::ALL {
        let rows: Vec<&Rating> = list.iter().filter(|r| r.ruleset == ruleset).collect();
        cut |= rows.len() > most;
        for (place, row) in rows.into_iter().enumerate() {
            if place < most || row.mailbox == mailbox {
                kept.push(row.clone());
            }
        }
    }
    kept.sort_by(|a, b| {
        (a.ruleset.as_str(), -a.rating, &a.mailbox)
            .partial_cmp(&(b.ruleset.as_str(), -b.rating, &b.mailbox))
            .unwrap()
    });
    (kept, cut)
}

#[test]
fn a_question_gets_the_best_of_each_game_and_the_askers_rows_as_the_whole_table_has_them() {
    on_each_store("store-leaders", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(23);
        let mut games = generated(160, &mut rng);
        // The last finished game is the one a mail has just ended, not saved.
        let at = games
            .iter()
            .rposition(|g| g.game().unwrap().is_over())
            .unwrap();
        let ending = games.remove(at);
        save_all(&store, &games);
        let asker = ending.south.address.clone().unwrap();
        let mailbox = mailbox_key(&asker);
        let before = store.ratings(None).unwrap();
        assert_eq!(before, replay(&games, None));
        let mut afters = Vec::new();
        for most in [1, 3, 100] {
            let whole = store.ratings(None).unwrap();
            let (list, cut) = best_of(&whole, most, &mailbox);
            let leaders = store.leaders(None, most, Some(&asker), None).unwrap();
            assert_eq!((leaders.list, leaders.cut), (list, cut), "{most}");
            assert_eq!(cut, most < 8, "{most}");
            let wari = store
                .leaders(Some(Ruleset::Wari), most, None, None)
                .unwrap();
            let (list, _) = best_of(&store.ratings(Some(Ruleset::Wari)).unwrap(), most, "");
            assert_eq!(wari.list, list, "{most}");
            // With the game the mail ended counted first, in the mail's
            // transaction (which the question is part of).
            let after = store.transact(|| store.leaders(None, most, Some(&asker), Some(&ending)));
            afters.push((most, after.unwrap()));
        }
        let all: Vec<GameRecord> = games.iter().chain([&ending]).cloned().collect();
        assert_ne!(store.ratings(None).unwrap(), before, "the ending counted");
        assert_eq!(store.ratings(None).unwrap(), replay(&all, None));
        save(&store, &ending);
        assert_eq!(
            store.ratings(None).unwrap(),
            replay(&all, None),
            "counted once"
        );
        for (most, after) in afters {
            let (list, cut) = best_of(&store.ratings(None).unwrap(), most, &mailbox);
            assert_eq!((after.list, after.cut), (list, cut), "{most}, after");
        }
    });
}

// ---------------------------------------------------------------------
// Lookups.

#[test]
fn a_listing_of_an_empty_store_finds_nothing_and_writes_nothing() {
    on_each_store("store-empty", |on| {
        let store = on.open();
        assert!(store.is_empty().unwrap());
        let (listing, total) = store.under_way(Some(5)).unwrap();
        assert!(listing.games.is_empty() && listing.unreadable.is_empty());
        assert_eq!(total, 0);
        let listing = store.list().unwrap();
        assert!(listing.games.is_empty() && listing.unreadable.is_empty());
        assert!(store.games_of(ALICE).unwrap().games.is_empty());
        assert!(store.ratings(None).unwrap().is_empty());
        let leaders = store.leaders(None, 5, Some(ALICE), None).unwrap();
        assert!(leaders.list.is_empty() && !leaders.cut);
        assert!(store.due(100 * DAY, DAY, 2 * DAY).unwrap().is_empty());
        assert!(store.owed(Owed::Of("abcdef")).unwrap().is_empty());
        assert_eq!(store.dump().unwrap(), Vec::<String>::new(), "no row");
    });
}

/// Could `remind` nudge or forfeit the player to move of `record` at
/// `now`? (As its doc says: both in, a person to move, idle long enough.)
fn due_by_reading(record: &GameRecord, now: u64, nudge: u64, forfeit: u64) -> bool {
    let game = record.game().unwrap();
    let Some(side) = game.to_move() else {
        return false;
    };
    if !record.is_playing()
        || !record.inviter_confirmed
        || record.computer == Some(side)
        || record.player(side).address.is_none()
    {
        return false;
    }
    let idle = now.saturating_sub(record.last_activity);
    (record.reminded.is_none() && idle >= nudge) || idle >= forfeit
}

#[test]
fn lookups_by_address_under_way_and_due_agree_with_reading_every_game() {
    on_each_store("store-lookups", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(7);
        let mut made = generated(60, &mut rng);
        // Some nudged already, one invited and one declined, one against the computer.
        for (i, record) in made.iter_mut().enumerate() {
            if i % 7 == 3 {
                record.reminded = Some(record.last_activity + 10);
            }
        }
        made[5].standing = Standing::Declined;
        made[6].turns.clear();
        made[6].standing = Standing::Invited {
            invitee: Side::North,
        };
        made[6].inviter_confirmed = false;
        save_all(&store, &made);
        let all = store.list().unwrap().whole().unwrap();
        assert_eq!(all, made, "every game read back as saved");
        for i in 0..8 {
            let address = format!("p{i}@players.example");
            let theirs: Vec<GameRecord> = all
                .iter()
                .filter(|g| g.side_of(&address).is_some())
                .cloned()
                .collect();
            // Any spelling of the mailbox finds them.
            let spelt = format!("P{i}+tag@Players.Example");
            assert_eq!(ids(&store.games_of(&spelt).unwrap().games), ids(&theirs));
        }
        assert!(store
            .games_of("carol@players.example")
            .unwrap()
            .games
            .is_empty());
        let going: Vec<GameRecord> = all
            .iter()
            .filter(|g| match g.standing {
                Standing::Invited { .. } => true,
                Standing::Playing => !g.game().unwrap().is_over(),
                _ => false,
            })
            .cloned()
            .collect();
        assert!(going.len() > 5, "{} under way", going.len());
        // Newest first, as `mancala games` lists them.
        let mut newest = ids(&going);
        newest.reverse();
        let (listing, total) = store.under_way(None).unwrap();
        assert_eq!(ids(&listing.games), newest);
        assert_eq!(total, going.len());
        let (listing, total) = store.under_way(Some(3)).unwrap();
        assert_eq!(ids(&listing.games), newest[..3]);
        assert_eq!(total, going.len());
        // What `remind` is handed at a moment halfway through the games.
        let (nudge, forfeit) = (10 * DAY, 40 * DAY);
        for now in [
            30 * 100_000,
            45 * 100_000 + 5 * DAY,
            61 * 100_000 + 40 * DAY,
        ] {
            let mut due: Vec<String> = all
                .iter()
                .filter(|g| due_by_reading(g, now, nudge, forfeit))
                .map(|g| g.id.to_string())
                .collect();
            due.sort();
            let handed: Vec<String> = (store.due(now, nudge, forfeit).unwrap().iter())
                .map(GameId::to_string)
                .collect();
            assert_eq!(handed, due, "{} at {now}", on.kind);
        }
    });
}

/// `remind` run at `now` on `on`'s store: the games it nudged and
/// forfeited, by id.
fn remind_at(on: &On, now: u64, nudge: u64, forfeit: u64) -> Vec<Reminder> {
    let referee = HostedReferee::new(REFEREE, on.open());
    let postman = Stub::default();
    let run = referee.remind(now, nudge, forfeit, &postman).unwrap();
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    run.done
}

#[test]
fn remind_nudges_a_player_idle_past_the_nudge_once_and_again_after_the_next_move() {
    on_each_store("store-remind", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(7);
        let mut record = games::random_game(&games::nth_id(1), (ALICE, BOB), 0, false, &mut rng);
        assert!(
            record.game().unwrap().to_move().is_some(),
            "a game under way"
        );
        let (nudge, forfeit) = (5 * DAY, 9 * DAY);
        // A move on day 10: not due on day 12.
        record.last_activity = 10 * DAY + 60;
        save(&store, &record);
        assert!(store.due(12 * DAY, nudge, forfeit).unwrap().is_empty());
        assert!(remind_at(on, 12 * DAY, nudge, forfeit).is_empty());
        // Day 16: nudged, once.
        let done = remind_at(on, 16 * DAY, nudge, forfeit);
        assert!(
            matches!(done.as_slice(), [Reminder::Nudged { game, .. }] if *game == record.id.to_string()),
            "{done:?}"
        );
        assert!(
            remind_at(on, 17 * DAY, nudge, forfeit).is_empty(),
            "nudged once"
        );
        // A move after the nudge: the player now to move is nudged in turn.
        let mut record = store.load_game(&record.id).unwrap().unwrap();
        assert!(record.reminded.is_some());
        record.last_activity = 17 * DAY;
        record.reminded = None;
        save(&store, &record);
        assert!(remind_at(on, 21 * DAY, nudge, forfeit).is_empty());
        let done = remind_at(on, 23 * DAY, nudge, forfeit);
        assert!(
            matches!(done.as_slice(), [Reminder::Nudged { .. }]),
            "{done:?}"
        );
        // Idle past the forfeit: the game ends, and nothing is due after.
        let done = remind_at(on, 40 * DAY, nudge, forfeit);
        assert!(
            matches!(done.as_slice(), [Reminder::Forfeited { .. }]),
            "{done:?}"
        );
        let ended = store.load_game(&record.id).unwrap().unwrap();
        assert!(ended.game().unwrap().is_over());
        assert!(store.due(100 * DAY, nudge, forfeit).unwrap().is_empty());
    });
}

#[test]
fn a_sender_over_the_days_answers_is_settled_before_any_game_is_read() {
    on_each_store("store-limit-first", |on| {
        let referee = HostedReferee::new(REFEREE, on.open());
        let postman = Stub::default();
        let deliver = |n: usize| {
            let mail = format!("From: {ALICE}\nTo: {REFEREE}\nMessage-ID: <s{n}@x>\n\nhello\n");
            let letter = Letter::read(mail.as_bytes(), &referee.identity);
            referee.deliver(&letter, &postman)
        };
        let invite =
            format!("From: {ALICE}\nTo: {REFEREE}\nMessage-ID: <i@x>\n\nnew wari with {BOB}\n");
        let letter = Letter::read(invite.as_bytes(), &referee.identity);
        referee.deliver(&letter, &postman).unwrap();
        let id = referee.store.list().unwrap().games[0].id.clone();
        // Alice's one game damaged: reading it is an error for the
        // operator, never "a stranger".
        sql(
            on,
            &format!("UPDATE games SET ruleset = 'no-such-game' WHERE id = '{id}'"),
        );
        let err = deliver(0).unwrap_err();
        assert!(matches!(err, DeliveryError::Store(_)), "{err}");
        assert!(err.needs_operator(), "{err}");
        assert!(err.to_string().contains(id.as_str()), "{err}");
        // Over even a player's answers: settled from her sender row alone.
        let digest = referee.store.secrets().address_digest(ALICE);
        let mut sender = referee.store.load_sender(&digest).unwrap();
        for _ in 0..10 {
            sender.count_answer(mancala::store::now());
        }
        referee.store.save_sender(&sender).unwrap();
        let report = deliver(1).unwrap();
        assert!(
            report.summary.contains("answers today"),
            "{}",
            report.summary
        );
    });
}

// ---------------------------------------------------------------------
// `mancala games` and `mancala ratings`.

/// `mancala ARGS --store STORE`: its output, errors and exit code.
fn mancala(args: &[&str], store: &str) -> (String, String, Option<i32>) {
    let mut args = args.to_vec();
    args.extend(["--store", store]);
    let out = common::run(&args, b"");
    (
        common::stdout(&out),
        common::stderr(&out),
        out.status.code(),
    )
}

/// A store of `n` games among `players` people, saved in one transaction;
/// the records, in the order made (`created` growing).
fn written_store(store: &Store, n: u64, players: usize, seed: u64) -> Vec<GameRecord> {
    let mut rng = SplitMix64::new(seed);
    let names: Vec<String> = (0..players)
        .map(|i| format!("p{i}@players.example"))
        .collect();
    let records: Vec<GameRecord> = (0..n)
        .map(|i| {
            let (south, north) = (&names[rng.below(players)], &names[rng.below(players)]);
            let finish = rng.below(3) != 0;
            games::random_game(
                &games::nth_id(i),
                (south, north),
                i * 1_000,
                finish,
                &mut rng,
            )
        })
        .collect();
    // Saved in the order they ended, as the referee saw them end (the
    // ratings are counted so); those under way whenever.
    let mut by_end: Vec<&GameRecord> = records.iter().collect();
    by_end.sort_by_key(|r| (r.game().unwrap().is_over().then(|| r.ended()), r.id.clone()));
    save_all(store, by_end);
    records
}

#[test]
fn mancala_games_and_ratings_on_an_empty_store_say_so_and_make_nothing() {
    let words: [&[&str]; 4] = [
        &["games"],
        &["games", "--all"],
        &["ratings"],
        &["ratings", "--all"],
    ];
    // A store not made yet: told so, and not made.
    let dir = common::temp_dir("cli-empty");
    let missing = dir.join("referee.db");
    for words in words {
        let (out, err, code) = mancala(words, missing.to_str().unwrap());
        assert_eq!(code, Some(0), "{words:?}: {err}");
        assert!(out.starts_with("No "), "{words:?}: {out}");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "{words:?} made a file"
        );
    }
    // A store made, with no game yet.
    on_each_store("cli-empty-made", |on| {
        drop(on.open());
        for words in words {
            let (out, err, code) = mancala(words, &on.store);
            assert_eq!(code, Some(0), "{words:?} on {}: {err}", on.kind);
            assert!(out.starts_with("No "), "{words:?} on {}: {out}", on.kind);
        }
        assert!(on.open().dump().unwrap().is_empty(), "no row written");
    });
}

#[test]
fn mancala_games_lists_the_newest_under_way_in_columns_and_says_how_to_see_the_rest() {
    on_each_store("cli-games", |on| {
        let records = written_store(&on.open(), 90, 30, 5);
        let mut going: Vec<&GameRecord> = records
            .iter()
            .filter(|r| !r.game().unwrap().is_over())
            .collect();
        assert!(going.len() > 20, "{} under way", going.len());
        going.reverse(); // made in order: the newest last
        let (out, err, code) = mancala(&["games"], &on.store);
        assert_eq!(code, Some(0), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("game    ruleset"), "{out}");
        let rows = &lines[1..=20];
        let shown: Vec<&str> = rows.iter().map(|l| &l[..6]).collect();
        let newest: Vec<String> = going[..20].iter().map(|r| r.id.to_string()).collect();
        assert_eq!(shown, newest);
        // Every column starts where its heading does.
        let heading = lines[0];
        for column in ["ruleset", "south", "north", "state"] {
            let at = heading.find(column).unwrap();
            for row in rows {
                let (before, cell) = row.split_at(at);
                assert!(
                    before.ends_with("  ") && !cell.starts_with(' '),
                    "{column}: {row}"
                );
            }
        }
        assert_eq!(lines[21], "");
        assert!(
            lines[22].contains(&format!("The newest 20 of {}", going.len()))
                && lines[22].contains("--all"),
            "{out}"
        );
        assert_eq!(lines.len(), 23, "{out}");
        // Every game with --all, and a finished game says so.
        let (out, _, code) = mancala(&["games", "--all", "--json"], &on.store);
        assert_eq!(code, Some(0));
        let listed: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(listed.len(), records.len());
        for (value, record) in listed.iter().zip(records.iter().rev()) {
            assert_eq!(value["id"], record.id.as_str());
            let over = record.game().unwrap().is_over();
            let state = if over { "finished" } else { "playing" };
            assert_eq!(value["standing"]["state"], state, "{value}");
        }
    });
}

#[test]
fn mancala_games_reads_only_the_games_it_shows() {
    on_each_store("cli-games-2000", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(31);
        // 2,000 games under way (one that random play ended is left out).
        let records: Vec<GameRecord> = (0..2100)
            .map(|i| {
                let south = format!("s{}@players.example", i % 97);
                let north = format!("n{}@players.example", i % 89);
                let id = games::nth_id(i);
                games::random_game(&id, (&south, &north), 10_000 + i * 60, false, &mut rng)
            })
            .filter(|r| !r.game().unwrap().is_over())
            .take(2000)
            .collect();
        assert_eq!(records.len(), 2000);
        save_all(&store, &records);
        // The oldest game damaged: a listing that read it would say so.
        let oldest = &records[0].id;
        sql(
            on,
            &format!("UPDATE games SET ruleset = 'no-such-game' WHERE id = '{oldest}'"),
        );
        let (out, err, code) = mancala(&["games"], &on.store);
        assert_eq!(code, Some(0), "{}: {err}", on.kind);
        assert!(!err.contains(oldest.as_str()), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        let shown: Vec<&str> = lines[1..=20].iter().map(|l| &l[..6]).collect();
        let newest: Vec<String> = records
            .iter()
            .rev()
            .take(20)
            .map(|r| r.id.to_string())
            .collect();
        assert_eq!(shown, newest, "{out}");
        assert!(
            out.contains("The newest 20 of 2000 games under way"),
            "{out}"
        );
        assert_eq!(lines.len(), 23, "{out}");
        // Every game, read: the damaged one is reported.
        let (_, err, code) = mancala(&["games", "--all", "--json"], &on.store);
        assert_ne!(code, Some(0), "{err}");
        assert!(err.contains(oldest.as_str()), "{err}");
    });
}

#[test]
fn mancala_ratings_shows_the_best_of_each_game_and_all_with_all() {
    on_each_store("cli-ratings", |on| {
        let records = written_store(&on.open(), 400, 60, 9);
        let (out, err, code) = mancala(&["ratings", "--all", "--json"], &on.store);
        assert_eq!(code, Some(0), "{err}");
        let every: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let replayed = replay(&records, None);
        assert_eq!(every.len(), replayed.len());
        for (shown, row) in every.iter().zip(&replayed) {
            assert_eq!(shown["ruleset"], row.ruleset.as_str());
            assert_eq!(shown["name"], row.name.as_str());
            assert_eq!(shown["games"], row.games);
            // As JSON carries it (serde_json reads the last digit loosely).
            let rating = shown["rating"].as_f64().unwrap();
            assert!((rating - row.rating).abs() < 1e-9, "{shown} {row:?}");
        }
        let (out, err, _) = mancala(&["ratings", "--json"], &on.store);
        let best: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut cut = false;
        for ruleset in Ruleset::ALL {
            let of = |list: &[serde_json::Value]| -> Vec<serde_json::Value> {
                list.iter()
                    .filter(|r| r["ruleset"] == ruleset.as_str())
                    .cloned()
                    .collect()
            };
            let (all, shown) = (of(&every), of(&best));
            cut |= all.len() > 20;
            assert_eq!(shown, all[..all.len().min(20)], "{ruleset:?}");
        }
        assert!(cut, "some game has more than 20 players");
        assert!(err.contains("--all"), "{err}");
        let (out, _, _) = mancala(&["ratings"], &on.store);
        assert!(
            out.contains("The best 20 of each game; `mancala ratings --all`"),
            "{out}"
        );
    });
}

// ---------------------------------------------------------------------
// An old folder store, moved in.

/// The secret of the old folder stores made here.
const OLD_KEY: &str = "6b1f0c2d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c";

/// A mail handled, as an old ledger lists it.
fn handled_json(mail: &MailKey, event: u32, time: u64) -> serde_json::Value {
    serde_json::json!({ "mail": mail, "event": event, "time": time })
}

/// A game file of format 3 (the last folder store's): the record's fields,
/// `format`, and its ledger (the events, the mails handled, older mails
/// as 16 hex digits each end to end, the replies owed).
fn old_game_file(record: &GameRecord, ledger: serde_json::Value) -> String {
    let mut value = serde_json::to_value(record).unwrap();
    let fields = value.as_object_mut().unwrap();
    fields.remove("events"); // kept in the ledger then
    fields.insert("format".into(), 3.into());
    fields.insert("ledger".into(), ledger);
    serde_json::to_string_pretty(&value).unwrap()
}

/// `mail` as an old ledger's `older` kept it.
fn older_digits(mail: &MailKey) -> String {
    mail.short().trim_start_matches('~').to_string()
}

/// A reply owed, as an old outbox kept it.
fn reply_owed(message_id: &str, event: u32, to: &str) -> Outgoing {
    Outgoing {
        message_id: message_id.to_string(),
        event,
        to: Mailbox {
            name: Some("Alice".into()),
            address: to.to_string(),
        },
        reply_to: Some("referee+abc@referee.example".into()),
        subject: "Re: move".into(),
        body: "Bob played c.\n".into(),
        in_reply_to: Some("m@players.example".into()),
        references: vec!["m@players.example".into()],
        html: None,
        delivery: Delivery::Pending,
    }
}

/// What the old folder store made by [`old_store`] holds.
struct OldStore {
    dir: PathBuf,
    /// Its games, as the database should hold them.
    games: Vec<GameRecord>,
    /// A game that owes a reply: its id, the mail whose event owes it,
    /// the reply, and a mail known only among the older ones.
    owing: GameId,
    owing_mail: String,
    owed: Outgoing,
    older_mail: String,
    /// A keyless sender: the digest, its answers and a mail it sent.
    sender: String,
    answered: Vec<u64>,
    sender_mail: MailKey,
}

/// An old folder store of 12 games (format 3, finished and under way,
/// each with its ledger), a game of format 1, a keyless sender, its
/// `key`, and the index folder it had.
fn old_store(dir: &Path) -> OldStore {
    std::fs::create_dir_all(dir.join("senders")).unwrap();
    std::fs::create_dir_all(dir.join("index/under-way")).unwrap();
    std::fs::write(dir.join("key"), format!("{OLD_KEY}\n")).unwrap();
    let mut rng = SplitMix64::new(41);
    let players = [ALICE, BOB, "carol@players.example", "dan@players.example"];
    let now = mancala::store::now();
    let mut games = Vec::new();
    let mut owing = None;
    for i in 0..12u64 {
        let (south, north) = (players[i as usize % 4], players[(i as usize + 1) % 4]);
        let finish = i % 3 != 0;
        let mut record = games::random_game(
            &games::nth_id(500 + i),
            (south, north),
            now - 30 * DAY + i * 1_000,
            finish,
            &mut rng,
        );
        let events = 3 + i as u32;
        record.events = events;
        record.board_event = events;
        let mails: Vec<MailKey> = (1..=events)
            .map(|e| MailKey::of_message_id(&format!("g{i}-m{e}@players.example")))
            .collect();
        let handled: Vec<serde_json::Value> = (mails.iter().enumerate())
            .skip(2) // the first two only among the older
            .map(|(e, m)| handled_json(m, e as u32 + 1, record.created + e as u64))
            .collect();
        let older: String = mails[..2].iter().map(older_digits).collect();
        let mut outbox = Vec::new();
        if i == 3 {
            let id = format!("{}.{events}.south@referee.example", record.id);
            outbox.push(reply_owed(&id, events, south));
            owing = Some((
                record.id.clone(),
                format!("g{i}-m{events}@players.example"),
                outbox[0].clone(),
                format!("g{i}-m1@players.example"),
            ));
        }
        let ledger = serde_json::json!({
            "events": events,
            "handled": handled,
            "older": older,
            "outbox": outbox,
        });
        std::fs::write(
            dir.join(format!("{}.json", record.id)),
            old_game_file(&record, ledger),
        )
        .unwrap();
        std::fs::write(dir.join("index/under-way").join(record.id.as_str()), "").unwrap();
        games.push(record);
    }
    // A game of the first hosted referee's format, as a store kept it.
    std::fs::copy(
        common::repo("tests/data/format-1-store/mx2frb.json"),
        dir.join("mx2frb.json"),
    )
    .unwrap();
    let secrets = Secrets::new(OLD_KEY).unwrap();
    let sender = secrets.address_digest("erin@strangers.example");
    let sender_mail = MailKey::of_message_id("erin-1@strangers.example");
    let answered = vec![now - 600, now - 60];
    let file = serde_json::json!({
        "format": 3,
        "answered": answered,
        "ledger": {
            "events": 2,
            "handled": [
                handled_json(&MailKey::of_message_id("erin-0@strangers.example"), 1, now - 600),
                handled_json(&sender_mail, 2, now - 60),
            ],
            "outbox": [],
        },
    });
    std::fs::write(
        dir.join("senders").join(format!("{sender}.json")),
        file.to_string(),
    )
    .unwrap();
    let (owing, owing_mail, owed, older_mail) = owing.unwrap();
    OldStore {
        dir: dir.to_path_buf(),
        games,
        owing,
        owing_mail,
        owed,
        older_mail,
        sender,
        answered,
        sender_mail,
    }
}

/// `mancala store import DIR --store TARGET`.
fn import(dir: &Path, target: &str) -> (String, Option<i32>) {
    let out = common::run(
        &["store", "import", dir.to_str().unwrap(), "--store", target],
        b"",
    );
    (common::stderr(&out), out.status.code())
}

/// A mail from `from` with this Message-ID carrying `token`, as a player's
/// reply carries their key.
fn keyed_mail(from: &str, message_id: &str, token: &str, words: &str) -> String {
    format!(
        "From: {from}\nTo: {REFEREE}\nSubject: Re: game\nMessage-ID: <{message_id}>\n\n{words}\n\n> Your key for game {} is {token}\n",
        &token[..6]
    )
}

#[test]
fn an_old_folder_store_moves_in_with_its_keys_games_mails_and_replies_owed() {
    on_each_store("import", |on| {
        let old = old_store(&on.dir.join("old"));
        let secrets = Secrets::new(OLD_KEY).unwrap();
        // Keys handed out before the move.
        let tokens: Vec<(String, GameId, Side)> = (old.games.iter())
            .flat_map(|g| Side::BOTH.map(|side| (secrets.token(&g.id, side), g.id.clone(), side)))
            .collect();
        let (err, code) = import(&old.dir, &on.store);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            err.contains("13 games (0 there already), 1 senders, 3 replies owed"),
            "{err}"
        );
        let store = on.open();
        for (token, id, side) in &tokens {
            assert_eq!(
                store.secrets().check(token),
                Some((id.clone(), *side)),
                "{token}"
            );
        }
        for record in &old.games {
            assert_eq!(store.load_game(&record.id).unwrap().as_ref(), Some(record));
        }
        let format_1 = GameId::parse("mx2frb").unwrap();
        let v1 = store
            .load_game(&format_1)
            .unwrap()
            .expect("the format 1 game");
        assert_eq!(v1.turns.len(), 2);
        assert_eq!(store.list().unwrap().whole().unwrap().len(), 13);
        // Its finished games are rated as a replay of them rates them.
        assert_eq!(store.ratings(None).unwrap(), replay(&old.games, None));
        // Every mail handled is known, the older ones too, in its game alone.
        for (i, record) in old.games.iter().enumerate() {
            let scope = record.id.as_str();
            for e in 1..=record.events {
                let mail = MailKey::of_message_id(&format!("g{i}-m{e}@players.example"));
                assert!(store.has_handled(scope, &mail).unwrap(), "{scope} {e}");
                let other = old.games[(i + 1) % old.games.len()].id.as_str();
                assert!(!store.has_handled(other, &mail).unwrap(), "{scope} {e}");
            }
            let unknown = MailKey::of_message_id(&format!("g{i}-new@players.example"));
            assert!(!store.has_handled(scope, &unknown).unwrap());
        }
        let v1_mail = MailKey::of_message_id("v1-m2@players.example");
        assert!(store.has_handled("mx2frb", &v1_mail).unwrap());
        // The replies owed, by the mail that caused them and by game.
        let cause = MailKey::of_message_id(&old.owing_mail);
        let owed = store.owed(Owed::Caused(&cause)).unwrap();
        assert_eq!(owed, std::slice::from_ref(&old.owed));
        assert_eq!(store.owed(Owed::Of(old.owing.as_str())).unwrap(), owed);
        // The format 1 game's reply to each player.
        assert_eq!(store.owed(Owed::Caused(&v1_mail)).unwrap().len(), 2);
        // The keyless sender: its answers, and its mails.
        let sender = store.load_sender(&old.sender).unwrap();
        assert_eq!(
            (sender.answered.clone(), sender.events),
            (old.answered.clone(), 2)
        );
        let scope = format!("s{}", old.sender);
        assert!(store.has_handled(&scope, &old.sender_mail).unwrap());
        // Importing again changes nothing.
        let dumped = store.dump().unwrap();
        assert!(dumped.len() > 100, "{} rows", dumped.len());
        let (err, code) = import(&old.dir, &on.store);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            err.contains("0 games (13 there already), 0 senders, 0 replies owed"),
            "{err}"
        );
        assert_eq!(on.open().dump().unwrap(), dumped);
        // The mail that owed the reply, delivered again: the reply goes,
        // under its Message-ID, and nothing else happens.
        let referee = HostedReferee::new(REFEREE, on.open());
        let postman = Stub::default();
        let owner = old.games.iter().find(|g| g.id == old.owing).unwrap();
        let token = secrets.token(&owner.id, Side::South);
        let from = owner.south.address.clone().unwrap();
        let again = keyed_mail(&from, &old.owing_mail, &token, "move a");
        let letter = Letter::read(again.as_bytes(), &referee.identity);
        let report = referee.deliver(&letter, &postman).unwrap();
        assert!(
            report.summary.contains("handled before"),
            "{}",
            report.summary
        );
        let sent: Vec<String> = postman.take().into_iter().map(|o| o.message_id).collect();
        assert_eq!(sent, std::slice::from_ref(&old.owed.message_id));
        // A mail known only among the older ones: nothing done, nothing sent.
        let again = keyed_mail(&from, &old.older_mail, &token, "move a");
        let letter = Letter::read(again.as_bytes(), &referee.identity);
        let report = referee.deliver(&letter, &postman).unwrap();
        assert!(
            report.summary.contains("handled before"),
            "{}",
            report.summary
        );
        assert!(postman.take().is_empty());
        assert_eq!(store.load_game(&owner.id).unwrap().as_ref(), Some(owner));
        assert!(store.owed(Owed::Of(owner.id.as_str())).unwrap().is_empty());
    });
}

#[test]
fn a_referee_pointed_at_an_old_folder_store_refuses_and_names_the_import() {
    let dir = common::temp_dir("import-refused");
    let old = old_store(&dir.join("old"));
    let mail = format!("From: {ALICE}\nTo: {REFEREE}\nMessage-ID: <x@y>\n\nhelp\n");
    let before = walk(&old.dir);
    for words in [&["mail", "--send", "stdout"][..], &["games"], &["remind"]] {
        let mut args = words.to_vec();
        args.extend(["--store", old.dir.to_str().unwrap()]);
        let out = common::run(&args, mail.as_bytes());
        assert_eq!(out.status.code(), Some(75), "{words:?}");
        let err = common::stderr(&out);
        assert!(err.contains("mancala store import"), "{words:?}: {err}");
    }
    // The default store, where an old referee kept its folder.
    let data = dir.join("data");
    let folder = data.join("mancala-referee");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::rename(&old.dir, &folder).unwrap();
    for words in [&["mail", "--send", "stdout"][..], &["remind"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(words)
            .env("XDG_DATA_HOME", &data)
            .env("HOME", dir.join("home"))
            .env_remove("MANCALA_STORE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                // It may refuse before reading its mail.
                let _ = child.stdin.take().unwrap().write_all(mail.as_bytes());
                child.wait_with_output()
            })
            .unwrap();
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(75), "{words:?}: {err}");
        assert!(err.contains("mancala store import"), "{words:?}: {err}");
        assert!(!folder.join("referee.db").exists(), "{words:?}");
    }
    // Nothing of the old store was touched.
    let after: Vec<PathBuf> = walk(&folder)
        .into_iter()
        .map(|p| old.dir.join(p.strip_prefix(&folder).unwrap()))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn a_game_file_named_for_another_game_is_refused_by_the_import_not_saved_over_it() {
    on_each_store("import-misnamed", |on| {
        let old = old_store(&on.dir.join("old"));
        // Game Y's record restored under the name of game X.
        let (x, y) = (&old.games[1].id, &old.games[2].id);
        std::fs::copy(
            old.dir.join(format!("{y}.json")),
            old.dir.join(format!("{x}.json")),
        )
        .unwrap();
        let (err, code) = import(&old.dir, &on.store);
        assert_eq!(code, Some(65), "{err}");
        assert!(
            err.contains(&format!("{x}.json: holds game {y}, not {x}")),
            "{err}"
        );
        assert!(err.contains("nothing was imported"), "{err}");
        if !on.is_postgres() {
            assert!(!Path::new(&on.store).exists(), "no database made");
        }
        let store = on.open();
        assert!(store.is_empty().unwrap());
        assert!(store.dump().unwrap().is_empty());
        // A symlink named for a game is no game file either.
        std::fs::remove_file(old.dir.join(format!("{x}.json"))).unwrap();
        std::os::unix::fs::symlink(
            old.dir.join(format!("{y}.json")),
            old.dir.join(format!("{x}.json")),
        )
        .unwrap();
        let (err, code) = import(&old.dir, &on.store);
        assert_eq!(code, Some(65), "{err}");
        assert!(
            err.contains(&format!("{x}.json: not a plain file")),
            "{err}"
        );
        assert!(store.dump().unwrap().is_empty());
    });
}

/// Waits for `child` at most `limit`; kills it (and fails) if it is
/// still running then.
fn wait_at_most(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_fifo_or_device_in_an_old_store_is_refused_not_read() {
    let dir = common::temp_dir("import-fifo");
    let old = old_store(&dir.join("old"));
    let target = dir.join("referee.db");
    let planted = [
        (old.dir.join("abcdef.json"), "fifo"),
        (old.dir.join("bcdefg.json"), "/dev/zero"),
        (
            old.dir.join("senders/0123456789abcdef01234567.json"),
            "fifo",
        ),
    ];
    for (path, what) in &planted {
        let made = match *what {
            "fifo" => Command::new("mkfifo").arg(path).status().unwrap().success(),
            device => std::os::unix::fs::symlink(device, path).is_ok(),
        };
        assert!(made, "{}", path.display());
    }
    // The import, made to end within 30 s whatever the folder holds.
    let import = || {
        let args = [
            "store",
            "import",
            old.dir.to_str().unwrap(),
            "--store",
            target.to_str().unwrap(),
        ];
        wait_at_most(common::spawn(&args, b""), Duration::from_secs(30))
    };
    let out = import();
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(65), "{err}");
    for (path, _) in &planted {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(err.contains(&format!("{name}: not a plain file")), "{err}");
    }
    assert!(!target.exists(), "nothing imported");
    // The key itself planted as a FIFO: refused too, not waited on.
    for (path, _) in &planted {
        std::fs::remove_file(path).unwrap();
    }
    std::fs::remove_file(old.dir.join("key")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(old.dir.join("key"))
        .status()
        .unwrap()
        .success());
    let out = import();
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(err.contains("key: not a plain file"), "{err}");
    assert!(!target.exists(), "nothing imported");
}

/// Every file below `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(walk(&entry.path()));
        } else {
            found.push(entry.path());
        }
    }
    found.sort();
    found
}

// ---------------------------------------------------------------------
// Backup.

#[test]
fn mancala_store_backup_makes_a_copy_that_opens_with_the_same_rows() {
    on_each_store("backup", |on| {
        let old = old_store(&on.dir.join("old"));
        let (err, code) = import(&old.dir, &on.store);
        assert_eq!(code, Some(0), "{err}");
        let copy = on.dir.join("copy.db");
        let out = common::run(
            &[
                "store",
                "backup",
                copy.to_str().unwrap(),
                "--store",
                &on.store,
            ],
            b"",
        );
        let err = common::stderr(&out);
        if on.is_postgres() {
            // A server's store is copied by its own tool.
            assert_ne!(out.status.code(), Some(0), "{err}");
            assert!(err.contains("pg_dump"), "{err}");
            return;
        }
        assert_eq!(out.status.code(), Some(0), "{err}");
        let store = on.open();
        let backup = Store::open(&copy).unwrap();
        assert_eq!(backup.dump().unwrap(), store.dump().unwrap());
        let token = store.secrets().token(&old.owing, Side::North);
        assert_eq!(
            backup.secrets().check(&token),
            Some((old.owing.clone(), Side::North))
        );
        // A copy is never made over a file.
        let out = common::run(
            &[
                "store",
                "backup",
                copy.to_str().unwrap(),
                "--store",
                &on.store,
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    });
}

// ---------------------------------------------------------------------
// Two referees on one store.

/// One referee's run: its store, and a postman keeping what it sent.
struct Serial {
    referee: HostedReferee,
    postman: Stub,
}

impl Serial {
    fn deliver(&self, raw: &str) -> Vec<Outgoing> {
        let letter = Letter::read(raw.as_bytes(), &self.referee.identity);
        self.referee.deliver(&letter, &self.postman).unwrap();
        self.postman.take()
    }
}

fn to(out: &[Outgoing], address: &str) -> Outgoing {
    out.iter()
        .find(|o| o.to.address == address)
        .cloned()
        .unwrap_or_else(|| panic!("nothing to {address}: {out:#?}"))
}

/// The mails of the workload: the set-up (20 games invited and accepted,
/// delivered to both stores in turn), then rounds of mails for the
/// referees to race on: a move in each game (made on the board the last
/// round's reply showed) and keyless `help` from strangers. The serial
/// run delivers each as it is made; the Message-IDs it sent, in rounds.
struct Workload {
    rounds: Vec<Vec<String>>,
    sent: Vec<String>,
}

fn workload(both: [&Serial; 2], serial: &Serial, games: usize, rounds: usize) -> Workload {
    let mut rng = SplitMix64::new(5);
    let player = |k: usize, side: Side| match side {
        Side::South => format!("south{k}@players.example"),
        Side::North => format!("north{k}@players.example"),
    };
    let mut latest = Vec::new();
    for k in 0..games {
        let (south, north) = (player(k, Side::South), player(k, Side::North));
        let invite = format!(
            "From: South {k} <{south}>\nTo: {REFEREE}\nSubject: a game?\nMessage-ID: <inv{k}@players.example>\n\nnew wari with North {k} <{north}>\n"
        );
        let mut out = Vec::new();
        for world in both {
            out = world.deliver(&invite);
        }
        let accept = common::press_reply(
            REFEREE,
            &north,
            &to(&out, &north),
            "accept",
            &format!("acc{k}@players.example"),
        );
        for world in both {
            out = world.deliver(&accept);
        }
        latest.push([to(&out, &south), to(&out, &north)]);
    }
    let mut work = Workload {
        rounds: Vec::new(),
        sent: Vec::new(),
    };
    for r in 0..rounds {
        let mut round = Vec::new();
        for (k, last) in latest.iter_mut().enumerate() {
            let sheet = Sheet::parse(&last[0].body).unwrap();
            let Some(side) = sheet.game.to_move() else {
                continue;
            };
            let legal = sheet.game.legal_moves();
            let pit = legal.nth(rng.below(legal.len())).unwrap();
            let received = &last[side.index()];
            let mail = common::press_reply(
                REFEREE,
                &player(k, side),
                received,
                &format!("move {pit}"),
                &format!("r{r}-g{k}@players.example"),
            );
            let out = serial.deliver(&mail);
            assert_eq!(out.len(), 2, "{}", out[0].body);
            work.sent.extend(out.iter().map(|o| o.message_id.clone()));
            *last = Side::BOTH.map(|s| to(&out, &player(k, s)));
            round.push(mail);
        }
        for h in 0..games {
            let n = r * games + h;
            let mail = format!(
                "From: stranger{n}@strangers.example\nTo: {REFEREE}\nSubject: help\nMessage-ID: <help{n}@strangers.example>\n\nhelp\n"
            );
            let out = serial.deliver(&mail);
            assert_eq!(out.len(), 1);
            work.sent.extend(out.iter().map(|o| o.message_id.clone()));
            round.push(mail);
        }
        work.rounds.push(round);
    }
    work
}

/// A `sendmail` that keeps each message it is handed in a file of its
/// own in `out`: a reply sent twice is two files. (The `dir:` transport
/// names its files by Message-ID, so a second send of a reply would
/// overwrite the first and go unseen.)
fn counting_sendmail(dir: &Path, out: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(out).unwrap();
    let script = dir.join("sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfile=$(mktemp '{}/mail.XXXXXXXX') || exit 75\ncat > \"$file\"\n",
            out.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// The Message-ID of each mail in `out`, with how many times it came.
fn message_ids(out: &Path) -> BTreeMap<String, usize> {
    let mut count = BTreeMap::new();
    for path in walk(out) {
        let text = std::fs::read_to_string(&path).unwrap();
        let id = text
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("message-id")
                    .then(|| value.trim())
            })
            .unwrap_or_else(|| panic!("no Message-ID in {}", path.display()));
        let id = id.trim_start_matches('<').trim_end_matches('>').to_string();
        *count.entry(id).or_insert(0) += 1;
    }
    count
}

/// `mancala mail` on `store`, `mail` on its input, as an MTA runs it:
/// tried again on exit 75 (at most five times). The tries it took.
fn mail_as_an_mta_would(store: &str, sendmail: &Path, mail: &str) -> usize {
    let send = format!("sendmail:{}", sendmail.display());
    let mut said = String::new();
    for tries in 1..=5 {
        let out = common::run(
            &["mail", "--from", REFEREE, "--store", store, "--send", &send],
            mail.as_bytes(),
        );
        match out.status.code() {
            Some(0) => return tries,
            Some(75) => said = common::stderr(&out),
            code => panic!("exit {code:?}: {}", common::stderr(&out)),
        }
    }
    panic!("five tries and the mail is still kept:\n{mail}\nthe last try said: {said}");
}

/// Two referees on `concurrent` deliver each mail of a workload at once
/// (as two MX hosts handed the same mail would), `parallel` mails at a
/// time; a third, alone on `serial`, delivers them in turn. Each reply
/// goes once, and both stores end the same.
fn two_referees_race(dir: &Path, concurrent: &str, serial: &str, parallel: usize) {
    // One secret for both stores, so that ids and keys agree: an old
    // store's key imported into each.
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("key"), OLD_KEY).unwrap();
    for store in [concurrent, serial] {
        Store::import(&old, store).unwrap();
    }
    let world = |store: &str| Serial {
        referee: HostedReferee::new(REFEREE, Store::open(store).unwrap()),
        postman: Stub::default(),
    };
    let (racing, alone) = (world(concurrent), world(serial));
    let work = workload([&racing, &alone], &alone, 20, 5);
    let mails: usize = work.rounds.iter().map(Vec::len).sum();
    assert_eq!(mails, 200);
    drop(racing);
    let out = dir.join("out");
    let sendmail = counting_sendmail(dir, &out);
    let tries = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    for round in &work.rounds {
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..parallel {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(mail) = round.get(i) else { break };
                    std::thread::scope(|pair| {
                        let hosts: Vec<_> = (0..2)
                            .map(|_| {
                                pair.spawn(|| mail_as_an_mta_would(concurrent, &sendmail, mail))
                            })
                            .collect();
                        for host in hosts {
                            let took = host.join().unwrap();
                            tries.fetch_add(took, std::sync::atomic::Ordering::Relaxed);
                        }
                    });
                });
            }
        });
    }
    let tries = tries.into_inner();
    println!(
        "{mails} mails, each to two referees, {parallel} at a time: {tries} runs ({} tried again after exit 75) in {:.1?}",
        tries - 2 * mails,
        started.elapsed()
    );
    // Every check made, and every failure told at once.
    let mut wrong = Vec::new();
    let sent = message_ids(&out);
    let twice: Vec<String> = (sent.iter().filter(|(_, n)| **n > 1))
        .map(|(id, n)| format!("{id} x{n}"))
        .collect();
    let copies: usize = sent.values().sum();
    if !twice.is_empty() {
        wrong.push(format!(
            "{} of {} replies sent more than once ({copies} mails in all): {}",
            twice.len(),
            sent.len(),
            twice.join(", ")
        ));
    }
    let mut expected = work.sent.clone();
    expected.sort();
    let got: Vec<String> = sent.keys().cloned().collect();
    if got != expected {
        let missing: Vec<&String> = expected
            .iter()
            .filter(|id| !sent.contains_key(*id))
            .collect();
        let extra: Vec<&String> = got.iter().filter(|id| !expected.contains(id)).collect();
        wrong.push(format!(
            "not the replies of a serial run: missing {missing:?}, extra {extra:?}"
        ));
    }
    let (racing, alone) = (
        Store::open(concurrent).unwrap(),
        Store::open(serial).unwrap(),
    );
    let dumped = racing.dump().unwrap();
    let pending: Vec<&String> = (dumped.iter())
        .filter(|l| l.starts_with("outbox:") && l.contains("\"pending\""))
        .collect();
    if !pending.is_empty() {
        wrong.push(format!("replies still owed: {pending:?}"));
    }
    let serial_rows = alone.dump().unwrap();
    if dumped != serial_rows {
        let only = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter()
                .filter(|l| !b.contains(l))
                .take(10)
                .cloned()
                .collect()
        };
        wrong.push(format!(
            "rows unlike a serial run's: only here {:?}; only in the serial run {:?}",
            only(&dumped, &serial_rows),
            only(&serial_rows, &dumped)
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn two_referees_on_one_postgresql_store_send_each_reply_once() {
    let name = "two-referees";
    let Some(concurrent) = postgresql(name) else {
        return;
    };
    let Some(serial) = postgresql(&format!("{name}-serial")) else {
        return;
    };
    let dir = common::temp_dir(name);
    two_referees_race(&dir, &concurrent, &serial, 6);
}

#[test]
fn two_referees_on_one_sqlite_store_send_each_reply_once() {
    let dir = common::temp_dir("two-referees-sqlite");
    let concurrent = dir.join("racing.db").to_string_lossy().into_owned();
    let serial = dir.join("serial.db").to_string_lossy().into_owned();
    two_referees_race(&dir, &concurrent, &serial, 6);
}

#[test]
fn a_game_whose_id_begins_with_s_remembers_every_mail_as_a_game_does() {
    // A keyless sender's scope is `s` and a digest, and keeps its last 500
    // mails; a game's id may begin with `s` too, and keeps every one (it
    // forgot them when the scope's first letter decided: a flaky test).
    on_each_store("store-s-game", |on| {
        let store = on.open();
        let mut rng = SplitMix64::new(3);
        let id = GameId::parse("s2abcd").unwrap();
        let mut record = games::random_game(&id, (ALICE, BOB), 0, false, &mut rng);
        let mails: Vec<MailKey> = (0..505)
            .map(|i| MailKey::of_message_id(&format!("m{i}@x")))
            .collect();
        for mail in &mails {
            store
                .transact(|| store.commit_event(&mut record, mail, mail, Vec::new()))
                .unwrap();
        }
        for mail in [&mails[0], &mails[504]] {
            assert!(store.has_handled("s2abcd", mail).unwrap(), "{mail:?}");
        }
    });
}
