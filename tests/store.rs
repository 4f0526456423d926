//! The store's index, as a reader relies on it: a game is never missing
//! from it (a kill between an entry and the game's rename included), a
//! stale entry is ignored, the ratings kept as games end are those a
//! replay of every finished game draws, and an old store gets its index.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

use mancala::address::mailbox_key;
use mancala::engine::{Ruleset, Side, SplitMix64};
use mancala::mail::delivery::DeliveryError;
use mancala::mail::hosted::{HostedReferee, Reminders};
use mancala::mail::letter::Letter;
use mancala::mail::Referee;
use mancala::store::ratings::Rating;
use mancala::store::{GameRecord, Standing, Store};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

mod common;
#[path = "common/games.rs"]
mod games;
#[path = "common/stub.rs"]
mod stub;

use stub::Stub;

const REFEREE: &str = "referee@referee.example";
const ALICE: &str = "alice@players.example";
const BOB: &str = "bob@players.example";

fn ids(games: &[GameRecord]) -> Vec<String> {
    games.iter().map(|g| g.id.to_string()).collect()
}

/// The ratings as they were drawn before the index: every rated game
/// replayed in the order the games ended (the referee's code until then).
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
    let dir = common::temp_dir("index-ratings");
    let store = Store::open(&dir).unwrap();
    let mut rng = SplitMix64::new(19);
    let games = generated(120, &mut rng);
    assert!(games.iter().filter(|g| g.game().unwrap().is_over()).count() > 60);
    for record in &games {
        store.save_game(record).unwrap();
        // Saved again as ended (a resent mail, a question): counted once.
        store.save_game(record).unwrap();
    }
    assert_eq!(store.ratings(None).unwrap(), replay(&games, None));
    assert_eq!(
        store.ratings(Some(Ruleset::Wari)).unwrap(),
        replay(&games, Some(Ruleset::Wari))
    );
    // Built from the files of an index-less store: the same again.
    std::fs::remove_dir_all(dir.join("index")).unwrap();
    assert_eq!(store.ratings(None).unwrap(), replay(&games, None));
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
    let dir = common::temp_dir("index-leaders");
    let store = Store::open(&dir).unwrap();
    let mut rng = SplitMix64::new(23);
    let mut games = generated(160, &mut rng);
    // The last finished game is the one a mail has just ended, not saved.
    let at = games
        .iter()
        .rposition(|g| g.game().unwrap().is_over())
        .unwrap();
    let ending = games.remove(at);
    for record in &games {
        store.save_game(record).unwrap();
    }
    let asker = ending.south.address.clone().unwrap();
    let mailbox = mailbox_key(&asker);
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
        // With the game the mail ended, before it is saved.
        let after = store.leaders(None, most, Some(&asker), Some(&ending));
        afters.push((most, after.unwrap()));
    }
    store.save_game(&ending).unwrap();
    let all: Vec<GameRecord> = games.iter().chain([&ending]).cloned().collect();
    assert_eq!(store.ratings(None).unwrap(), replay(&all, None));
    for (most, after) in afters {
        let (list, cut) = best_of(&store.ratings(None).unwrap(), most, &mailbox);
        assert_eq!((after.list, after.cut), (list, cut), "{most}, after");
        // Asked again once it is saved: counted once, the same table.
        let again = store
            .leaders(None, most, Some(&asker), Some(&ending))
            .unwrap();
        assert_eq!(
            again.list,
            best_of(&store.ratings(None).unwrap(), most, &mailbox).0
        );
    }
}

#[test]
fn a_listing_of_an_empty_store_makes_nothing() {
    let dir = common::temp_dir("index-empty");
    let store = Store::open(&dir).unwrap();
    assert!(store.under_way(Some(5)).unwrap().0.games.is_empty());
    assert!(store.ratings(None).unwrap().is_empty());
    assert!(store
        .leaders(None, 5, Some(ALICE), None)
        .unwrap()
        .list
        .is_empty());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "no key, no index"
    );
}

#[test]
fn lookups_by_address_and_under_way_agree_with_reading_every_game() {
    let dir = common::temp_dir("index-lookups");
    let store = Store::open(&dir).unwrap();
    let secrets = store.secrets().unwrap();
    let mut rng = SplitMix64::new(7);
    for record in generated(60, &mut rng) {
        store.save_game(&record).unwrap();
    }
    let all = store.list().unwrap().games;
    for i in 0..8 {
        let address = format!("p{i}@players.example");
        let theirs: Vec<GameRecord> = all
            .iter()
            .filter(|g| g.side_of(&address).is_some())
            .cloned()
            .collect();
        let spelt = format!("P{i}+tag@Players.Example");
        assert_eq!(
            ids(&store.games_of(&secrets, &spelt).unwrap().games),
            ids(&theirs)
        );
    }
    let going: Vec<GameRecord> = all
        .iter()
        .filter(|g| !g.game().unwrap().is_over())
        .cloned()
        .collect();
    assert!(!going.is_empty());
    // Newest first, as `mancala games` lists them.
    let mut newest = ids(&going);
    newest.reverse();
    let (listing, total) = store.under_way(None).unwrap();
    assert_eq!(ids(&listing.games), newest);
    assert_eq!(total, going.len());
    let (listing, total) = store.under_way(Some(3)).unwrap();
    assert_eq!(ids(&listing.games), newest[..3]);
    assert_eq!(total, going.len());
}

#[test]
fn a_stale_entry_is_ignored_and_taken_away_by_the_games_next_save() {
    let dir = common::temp_dir("index-stale");
    let store = Store::open(&dir).unwrap();
    let secrets = store.secrets().unwrap();
    let mut rng = SplitMix64::new(3);
    let record = generated(1, &mut rng).remove(0);
    store.save_game(&record).unwrap();
    // What a kill before the rename of a save that added Carol leaves: her
    // entry, listed among the game's, and an idle entry of long ago.
    let carol = secrets.address_digest("carol@players.example");
    let id = record.id.as_str();
    let entries = [format!("by-address/{carol}/{id}"), format!("idle/3/{id}")];
    let hints = dir.join("index/games").join(id);
    let mut listed = std::fs::read_to_string(&hints).unwrap();
    for entry in &entries {
        let path = dir.join("index").join(entry);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "").unwrap();
        listed.push_str(&format!("{entry}\n"));
    }
    std::fs::write(&hints, listed).unwrap();
    let games = store.games_of(&secrets, "carol@players.example").unwrap();
    assert!(games.games.is_empty() && games.unreadable.is_empty());
    // `remind` is handed it to look at, and finds nothing to do.
    let due = store.due(10 * 86_400, 86_400, 2 * 86_400).unwrap();
    assert_eq!(due.games, std::slice::from_ref(&record.id));
    let never = 7 * 86_400 * 1000;
    assert!(remind_at(&dir, 10 * 86_400, never, never).is_empty());
    store.save_game(&record).unwrap();
    for entry in &entries {
        assert!(!dir.join("index").join(entry).exists(), "{entry}");
    }
}

const DAY: u64 = 86_400;

/// A store in a folder of its own holding one random game between Alice
/// and Bob, finished or under way, made at second 1,000.
fn one_game(name: &str, seed: u64, finished: bool) -> (common::TempDir, Store, GameRecord) {
    let dir = common::temp_dir(name);
    let store = Store::open(&dir).unwrap();
    let mut rng = SplitMix64::new(seed);
    let id = games::nth_id(seed);
    let record = games::random_game(&id, (ALICE, BOB), 1_000, finished, &mut rng);
    store.save_game(&record).unwrap();
    (dir, store, record)
}

#[test]
fn an_under_way_entry_of_another_time_is_stale_so_the_game_is_listed_once() {
    let (dir, store, record) = one_game("index-stale-under-way", 5, false);
    // What an older referee's kill left: the entry of a first try, made a
    // second before the game the retry saved.
    let stale = format!("index/under-way/{}.{}", record.id, record.created - 1);
    std::fs::write(dir.join(stale), "").unwrap();
    let (listing, total) = store.under_way(None).unwrap();
    assert_eq!(ids(&listing.games), [record.id.to_string()]);
    assert_eq!(total, 1, "one game under way");
}

#[test]
fn remind_takes_away_the_stale_idle_entry_of_a_finished_game_it_is_handed() {
    let (dir, store, record) = one_game("index-stale-finished", 9, true);
    // What a kill after the game's last rename, before the old entries
    // went, leaves (and a power cut, with the hints that named it).
    let stale = dir.join(format!("index/idle/3/{}", record.id));
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, "").unwrap();
    let due = || store.due(10 * DAY, DAY, 2 * DAY).unwrap().games;
    assert_eq!(due(), std::slice::from_ref(&record.id));
    assert!(remind_at(&dir, 10 * DAY, DAY, 2 * DAY).is_empty());
    assert!(!stale.exists(), "the stale entry is taken away");
    assert!(due().is_empty(), "and the next run is not handed the game");
}

#[test]
fn a_store_without_an_index_gets_it_built_once_on_first_use() {
    let dir = common::temp_dir("index-format-1");
    for name in ["key", "mx2frb.json"] {
        std::fs::copy(
            common::repo(&format!("tests/data/format-1-store/{name}")),
            dir.join(name),
        )
        .unwrap();
    }
    let store = Store::open(&dir).unwrap();
    assert!(!dir.join("index").exists());
    let secrets = store.secrets().unwrap();
    let record = store.list().unwrap().games.remove(0);
    let address = record.south.address.clone().unwrap();
    let found = store.games_of(&secrets, &address).unwrap();
    assert_eq!(ids(&found.games), ["mx2frb"]);
    assert!(dir.join("index/version").exists());
    assert_eq!(ids(&store.under_way(None).unwrap().0.games), ["mx2frb"]);
    // Built once: a game file dropped in afterwards is the operator's to file.
    let version = std::fs::metadata(dir.join("index/version")).unwrap();
    store.ratings(None).unwrap();
    assert_eq!(
        std::fs::metadata(dir.join("index/version"))
            .unwrap()
            .modified()
            .unwrap(),
        version.modified().unwrap()
    );
}

/// Runs the referee on `mail`, killed by strace at its `n`th rename.
/// What `remind` at `now`, with these waits, did on the store in `dir`,
/// each in words (it must meet no problem).
fn remind_at(dir: &Path, now: u64, nudge: u64, forfeit: u64) -> Vec<String> {
    let referee = HostedReferee::new(REFEREE, Store::open(dir).unwrap());
    let Reminders { done, problems, .. } = referee
        .remind(now, nudge, forfeit, &Stub::default())
        .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    done.iter()
        .map(|reminder| format!("{reminder:?}"))
        .collect()
}

fn killed_at_rename(dir: &Path, mail: &str, n: usize) {
    let mut child = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-e"])
        .arg(format!(
            "inject=rename,renameat,renameat2:signal=KILL:when={n}"
        ))
        .arg(env!("CARGO_BIN_EXE_mancala"))
        .args(["mail", "--from", REFEREE, "--send", "stdout", "--store"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("strace is installed (tests/run.sh installs it)");
    {
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(mail.as_bytes());
    }
    child.wait().unwrap();
}

#[test]
fn a_kill_between_an_index_entry_and_the_games_rename_leaves_lookups_right() {
    let mail = format!(
        "From: Alice <{ALICE}>\nTo: {REFEREE}\nMessage-ID: <k1@players.example>\n\nnew wari with Bob <{BOB}>\n"
    );
    let mut saw_entry_without_game = false;
    for n in 1..=6 {
        let dir = common::temp_dir(&format!("index-kill-{n}"));
        killed_at_rename(&dir, &mail, n);
        let store = Store::open(&dir).unwrap();
        let secrets = store.secrets().unwrap();
        let check = |store: &Store| {
            let all = store.list().unwrap().games;
            for address in [ALICE, BOB] {
                let found = store.games_of(&secrets, address).unwrap();
                assert_eq!(
                    ids(&found.games),
                    ids(&all),
                    "kill at rename {n}: {address}"
                );
            }
            assert_eq!(ids(&store.under_way(None).unwrap().0.games), ids(&all));
            all.len()
        };
        let games = check(&store);
        let entries = std::fs::read_dir(dir.join("index/under-way"))
            .map(|d| d.count())
            .unwrap_or(0);
        saw_entry_without_game |= games == 0 && entries == 1;
        // The MTA delivers the mail again, in a later second (the game's
        // entries name the time it was made): one game, found by both, once.
        std::thread::sleep(std::time::Duration::from_millis(1_100));
        let referee = HostedReferee::new(REFEREE, Store::open(&dir).unwrap());
        let letter = Letter::read(mail.as_bytes(), &referee.identity);
        referee.deliver(&letter, &Stub::default()).unwrap();
        assert_eq!(check(&store), 1, "kill at rename {n}");
    }
    assert!(
        saw_entry_without_game,
        "some kill fell between an entry and the rename"
    );
}

#[test]
fn a_sender_over_the_days_answers_is_settled_before_any_game_is_read() {
    let dir = common::temp_dir("index-limit-first");
    let referee = HostedReferee::new(REFEREE, Store::open(&dir).unwrap());
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
    // Alice's one game made unreadable: reading it is an error for the
    // operator, never "a stranger".
    let path = dir.join(format!("{id}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"format\":3", "\"format\":4")).unwrap();
    let err = deliver(0).unwrap_err();
    assert!(matches!(err, DeliveryError::Store(_)), "{err}");
    assert!(err.to_string().contains("newer"), "{err}");
    // Over even a player's answers: settled from her sender file alone.
    let digest = referee.store.secrets().unwrap().address_digest(ALICE);
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
}

/// A store of `n` games among `players` people, written as game files
/// alone (the index is built by the binary's first use, as for an old
/// store); the records, in the order made.
fn written_store(dir: &Path, n: u64, players: usize, seed: u64) -> Vec<GameRecord> {
    let store = Store::open(dir).unwrap();
    store.secrets().unwrap();
    let mut rng = SplitMix64::new(seed);
    let names: Vec<String> = (0..players)
        .map(|i| format!("p{i}@players.example"))
        .collect();
    (0..n)
        .map(|i| {
            let (south, north) = (&names[rng.below(players)], &names[rng.below(players)]);
            let finish = rng.below(3) != 0;
            let record = games::random_game(
                &games::nth_id(i),
                (south, north),
                i * 1_000,
                finish,
                &mut rng,
            );
            std::fs::write(
                dir.join(format!("{}.json", record.id)),
                serde_json::to_vec(&record).unwrap(),
            )
            .unwrap();
            record
        })
        .collect()
}

fn mancala(args: &[&str], dir: &Path) -> (String, String, Option<i32>) {
    let mut args = args.to_vec();
    args.extend(["--store", dir.to_str().unwrap()]);
    let out = common::run(&args, b"");
    (
        common::stdout(&out),
        common::stderr(&out),
        out.status.code(),
    )
}

#[test]
fn mancala_games_and_ratings_on_an_empty_store_say_so_and_make_nothing() {
    let dir = common::temp_dir("cli-empty");
    let missing = dir.join("store");
    for words in [
        &["games"][..],
        &["games", "--all"],
        &["ratings"],
        &["ratings", "--all"],
    ] {
        let (out, _, code) = mancala(words, &missing);
        assert_eq!(code, Some(0), "{words:?}");
        assert!(out.starts_with("No "), "{words:?}: {out}");
        assert!(!missing.exists(), "{words:?} made the store");
        let (out, _, code) = mancala(words, &dir);
        assert_eq!(code, Some(0), "{words:?}");
        assert!(out.starts_with("No "), "{words:?}: {out}");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "{words:?} made a file"
        );
    }
}

#[test]
fn mancala_games_lists_the_newest_under_way_in_columns_and_says_how_to_see_the_rest() {
    let dir = common::temp_dir("cli-games");
    let records = written_store(&dir, 90, 30, 5);
    let mut going: Vec<&GameRecord> = records
        .iter()
        .filter(|r| !r.game().unwrap().is_over())
        .collect();
    assert!(going.len() > 20, "{} under way", going.len());
    going.reverse(); // made in order: the newest last
    let (out, _, code) = mancala(&["games"], &dir);
    assert_eq!(code, Some(0));
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
    // Every game with --all, and a finished game says so.
    let (out, _, _) = mancala(&["games", "--all", "--json"], &dir);
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
}

#[test]
fn mancala_ratings_shows_the_best_of_each_game_and_all_with_all() {
    let dir = common::temp_dir("cli-ratings");
    let records = written_store(&dir, 400, 60, 9);
    let (out, _, code) = mancala(&["ratings", "--all", "--json"], &dir);
    assert_eq!(code, Some(0));
    let every: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let replayed = replay(&records, None);
    assert_eq!(every.len(), replayed.len());
    let (out, err, _) = mancala(&["ratings", "--json"], &dir);
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
    let (out, _, _) = mancala(&["ratings"], &dir);
    assert!(
        out.contains("The best 20 of each game; `mancala ratings --all`"),
        "{out}"
    );
}

#[test]
fn a_move_days_later_keeps_the_older_idle_entry_and_remind_refiles_it_under_its_day() {
    let dir = common::temp_dir("index-idle-lower-bound");
    let store = Store::open(&dir).unwrap();
    let mut rng = SplitMix64::new(7);
    let mut record = games::random_game(&games::nth_id(1), (ALICE, BOB), 0, false, &mut rng);
    let game = record.game().unwrap();
    assert!(game.to_move().is_some(), "a game under way");
    record.last_activity = 3 * DAY + 60;
    store.save_game(&record).unwrap();
    assert_eq!(common::idle_entries(&dir), [format!("3/{}", record.id)]);
    // A move on day 10 files nothing new: day 3 is a lower bound of its
    // idle day, and no folder needs making or syncing.
    record.last_activity = 10 * DAY + 60; // as a move that day
    store.save_game(&record).unwrap();
    assert_eq!(common::idle_entries(&dir), [format!("3/{}", record.id)]);
    // On day 12, with a nudge after 5 days, remind is handed the game,
    // finds it not due, and files it under day 10.
    assert!(remind_at(&dir, 12 * DAY, 5 * DAY, 9 * DAY).is_empty());
    assert_eq!(common::idle_entries(&dir), [format!("10/{}", record.id)]);
    assert!(store
        .due(12 * DAY, 5 * DAY, 9 * DAY)
        .unwrap()
        .games
        .is_empty());
    // Day 16: due, and nudged; the entry says so.
    let done = remind_at(&dir, 16 * DAY, 5 * DAY, 9 * DAY);
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(
        common::idle_entries(&dir),
        [format!("10/{}.reminded", record.id)]
    );
    // A move after the nudge is filed under its own day: the player now to
    // move has not been nudged, which the older entry would have hidden.
    let mut record = store.load_game(&record.id).unwrap().unwrap();
    record.last_activity = 17 * DAY; // as a move that day
    record.reminded = None;
    store.save_game(&record).unwrap();
    assert_eq!(common::idle_entries(&dir), [format!("17/{}", record.id)]);
}

/// A reply the game owes, as a move's decision records it.
fn owe_a_reply(record: &mut GameRecord, mail: &str) {
    use mancala::store::{Delivery, MailKey, Mailbox, Memory, Outgoing};
    let reply = Outgoing {
        message_id: format!("{mail}.south@referee.example"),
        event: 0,
        to: Mailbox {
            name: None,
            address: ALICE.to_string(),
        },
        reply_to: None,
        subject: "Re: move".to_string(),
        body: "played".to_string(),
        in_reply_to: None,
        references: Vec::new(),
        html: None,
        delivery: Delivery::Pending,
    };
    let key = MailKey::of_message_id(mail);
    record
        .ledger
        .record(key, vec![reply], 2_000, Memory::Lifelong);
}

#[test]
fn a_move_and_its_replies_marked_sent_rewrite_no_hints_and_file_pending_by_id() {
    use std::os::unix::fs::MetadataExt;
    let (dir, store, mut record) = one_game("index-pending", 11, false);
    let pending = dir.join("index/pending").join(record.id.as_str());
    let hints = dir.join("index/games").join(record.id.as_str());
    // A rewrite is a new file: another inode, or the same one reused with
    // a later modification time.
    let file = || {
        let meta = std::fs::metadata(&hints).unwrap();
        (meta.ino(), meta.modified().unwrap())
    };
    let before = file();
    owe_a_reply(&mut record, "m1@players.example");
    store.save_game(&record).unwrap();
    assert!(pending.exists(), "a game owing replies is filed as pending");
    let message_id = record.ledger.pending().next().unwrap().message_id.clone();
    record
        .ledger
        .settle(&message_id, mancala::store::Delivery::Sent);
    store.note_sent(&record).unwrap();
    assert!(!pending.exists(), "sent, it is pending no more");
    assert_eq!(file(), before, "the hints were not rewritten");
    // A kill after the entry was made and before the game's rename leaves
    // it; the game's next save, owing nothing, takes it away.
    std::fs::write(&pending, "").unwrap();
    store.save_game(&record).unwrap();
    assert!(!pending.exists(), "the stale entry is taken away");
    // An older referee listed it among the hints: a save that owes
    // replies keeps it all the same.
    let listed = std::fs::read_to_string(&hints).unwrap();
    std::fs::write(&hints, format!("{listed}pending/{}\n", record.id.as_str())).unwrap();
    std::fs::write(&pending, "").unwrap();
    owe_a_reply(&mut record, "m2@players.example");
    store.save_game(&record).unwrap();
    assert!(pending.exists(), "still pending");
    let due = store.due(3_000, 7 * DAY, 14 * DAY).unwrap();
    assert_eq!(due.games, std::slice::from_ref(&record.id));
}

#[test]
fn remind_takes_away_every_entry_of_a_game_whose_file_is_gone() {
    let (dir, store, mut record) = one_game("index-gone", 12, false);
    owe_a_reply(&mut record, "m1@players.example");
    store.save_game(&record).unwrap();
    let id = record.id.as_str();
    let pending = dir.join("index/pending").join(id);
    assert!(pending.exists());
    // As a kill before a new game's first rename leaves it, or an operator
    // who removed the file.
    std::fs::remove_file(dir.join(format!("{id}.json"))).unwrap();
    let never = 7 * DAY * 1000;
    assert!(remind_at(&dir, 100 * DAY, never, never).is_empty());
    assert!(!pending.exists(), "pending taken away");
    assert!(
        !dir.join("index/games").join(id).exists(),
        "hints taken away"
    );
    let secrets = store.secrets().unwrap();
    let left: Vec<_> = ["by-address", "idle", "under-way"]
        .iter()
        .flat_map(|folder| walk(&dir.join("index").join(folder)))
        .filter(|path| path.to_string_lossy().contains(id))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(store.games_of(&secrets, ALICE).unwrap().games.is_empty());
    // Nothing is handed to the next run.
    assert!(store.due(100 * DAY, DAY, 2 * DAY).unwrap().games.is_empty());
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|entry| match entry.file_type().is_ok_and(|t| t.is_dir()) {
            true => walk(&entry.path()),
            false => vec![entry.path()],
        })
        .collect()
}
