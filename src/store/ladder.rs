//! The ratings in the index: a file per player (their rows, one per
//! ruleset) and, per ruleset, a ladder of bands of rating points holding
//! an empty entry per player, so that the best of a ruleset are found by
//! reading its highest bands and their players' files alone:
//!
//! ```text
//! index/ratings/<digest>.json              a player's rows (see `ratings::Player`)
//! index/ladder/<ruleset>/<band>/<digest>   their row of that ruleset is in that band
//! index/best.json                          the best 22 of each ruleset, as the last count left them
//! ```
//!
//! A count (under the `ratings` lock) first finishes every count a crash
//! left owed (`to-rate/`), then files the players' new bands (made and
//! synced), writes their two files (each row remembers the last game
//! counted and its numbers before it, so that a count cut short between
//! the two files is finished from them), makes `rated/<id>`, and only then
//! takes away the old bands' entries and `to-rate/<id>`. Before the
//! marker it draws the counted ruleset's best afresh from its ladder into
//! `best.json`, so that a question (the best 10 by mail, 20 on the command
//! line) reads that one file and the asker's. Every reader
//! checks an entry's band against the player's file and ignores a stale
//! one, as every other entry of the index.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::index::{make_entry, names_in, remove_entry};
use super::ratings::{self, Count, Leaders, Player, Rating};
use super::{
    io_error, sync_folder, Durability, GameId, GameRecord, LockOn, Secrets, Store, StoreError,
};
use crate::engine::Ruleset;

/// The best kept of each ruleset: the 20 `mancala ratings` shows, and
/// two to spare for the players of a game a mail has just ended.
const KEPT: usize = 22;

/// The best of each ruleset, kept as games end (`index/best.json`), so
/// that a question reads one file, not the ladders and their players'.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Best {
    tops: Vec<(Ruleset, Vec<Shown>)>,
}

/// A row of the best, with the player's digest and mailbox (which a
/// rating never prints), its numbers as their bits (a round trip through
/// the file changes nothing).
#[derive(Debug, Serialize, Deserialize)]
struct Shown {
    digest: String,
    mailbox: String,
    name: String,
    /// rating, deviation
    numbers: [u64; 2],
    /// games, wins, draws, losses
    tally: [u32; 4],
}

impl Shown {
    fn of(digest: String, r: Rating) -> Shown {
        Shown {
            digest,
            mailbox: r.mailbox,
            name: r.name,
            numbers: [r.rating, r.deviation].map(f64::to_bits),
            tally: [r.games, r.wins, r.draws, r.losses],
        }
    }

    fn rating(&self, ruleset: Ruleset) -> Rating {
        let [rating, deviation] = self.numbers.map(f64::from_bits);
        let [games, wins, draws, losses] = self.tally;
        Rating {
            ruleset,
            name: self.name.clone(),
            rating,
            deviation,
            games,
            wins,
            draws,
            losses,
            mailbox: self.mailbox.clone(),
        }
    }
}

impl Best {
    fn of(&self, ruleset: Ruleset) -> Option<&[Shown]> {
        let (_, rows) = self.tops.iter().find(|(r, _)| *r == ruleset)?;
        Some(rows)
    }
}

/// Players' files read by one question, by digest (`None`: no file).
type Players = HashMap<String, Option<Player>>;

impl Store {
    fn players_dir(&self) -> PathBuf {
        self.index_dir().join("ratings")
    }

    fn ladder_dir(&self, ruleset: Ruleset) -> PathBuf {
        self.index_dir().join("ladder").join(ruleset.as_str())
    }

    fn read_player(&self, digest: &str) -> Result<Option<Player>, StoreError> {
        let path = self.players_dir().join(format!("{digest}.json"));
        match fs::read_to_string(&path) {
            Ok(text) => super::decode(&path, &text).map(Some),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    /// The player of `digest`, read once per question.
    fn cached<'a>(
        &self,
        cache: &'a mut Players,
        digest: &str,
    ) -> Result<&'a Option<Player>, StoreError> {
        if !cache.contains_key(digest) {
            let player = self.read_player(digest)?;
            cache.insert(digest.to_string(), player);
        }
        Ok(&cache[digest])
    }

    /// Every rated player's rows in `ruleset` (or every ruleset), best
    /// first: every player's file is read (`mancala ratings --all`).
    ///
    /// # Errors
    /// When the index cannot be read or built.
    pub fn ratings(&self, ruleset: Option<Ruleset>) -> Result<Vec<Rating>, StoreError> {
        if !self.index_ready()? {
            return Ok(Vec::new());
        }
        self.count_owed_ratings()?;
        let mut list = Vec::new();
        for name in names_in(&self.players_dir())? {
            let Some(digest) = name.strip_suffix(".json") else {
                continue;
            };
            if let Some(player) = self.read_player(digest)? {
                list.extend(
                    player
                        .ratings()
                        .filter(|r| ruleset.is_none_or(|w| r.ruleset == w)),
                );
            }
        }
        ratings::sort(&mut list);
        Ok(list)
    }

    /// The best `most` of `ruleset` (or of each ruleset), every row of
    /// `asker`'s mailbox, and `after` counted if it has ended and is not
    /// counted yet (the ratings as a mail's acts leave them, before its
    /// game is saved). Only the ladder's highest bands and the files of
    /// the players shown are read.
    ///
    /// # Errors
    /// When the index cannot be read or built.
    pub fn leaders(
        &self,
        ruleset: Option<Ruleset>,
        most: usize,
        asker: Option<&str>,
        after: Option<&GameRecord>,
    ) -> Result<Leaders, StoreError> {
        if !self.index_ready()? {
            return Ok(Leaders::default());
        }
        self.count_owed_ratings()?;
        let secrets = self.secrets()?;
        let mut cache = Players::new();
        let counted_now = self.count_in_memory(after, &secrets, &mut cache)?;
        // The best kept as games end serve unless more are asked for.
        let best = match most + counted_now.len() < KEPT {
            true => Some(self.best()?),
            false => None,
        };
        let mut leaders = Leaders::default();
        let rulesets = ruleset.map_or(Ruleset::ALL.to_vec(), |r| vec![r]);
        for &r in &rulesets {
            let kept = best.as_ref().and_then(|b| b.of(r));
            let mut rows: Vec<Rating> = match kept {
                Some(rows) => (rows.iter())
                    .filter(|s| !counted_now.contains(&s.digest))
                    .map(|s| s.rating(r))
                    .collect(),
                None => (self.ladder_top(r, most + 1, &mut cache, &counted_now)?)
                    .into_iter()
                    .map(|(_, rating)| rating)
                    .collect(),
            };
            let now = counted_now
                .iter()
                .filter_map(|d| cache[d].as_ref()?.rating(r));
            rows.extend(now.collect::<Vec<_>>());
            ratings::sort(&mut rows);
            leaders.cut |= rows.len() > most;
            rows.truncate(most);
            leaders.list.extend(rows);
        }
        if let Some(address) = asker {
            let digest = secrets.address_digest(address);
            if let Some(player) = self.cached(&mut cache, &digest)? {
                for rating in player.ratings().filter(|r| rulesets.contains(&r.ruleset)) {
                    let same =
                        |s: &Rating| s.ruleset == rating.ruleset && s.mailbox == rating.mailbox;
                    if !leaders.list.iter().any(same) {
                        leaders.list.push(rating);
                    }
                }
            }
        }
        ratings::sort(&mut leaders.list);
        Ok(leaders)
    }

    /// `after` counted in `cache` if it is rated and not yet counted: the
    /// digests of the players it changed.
    fn count_in_memory(
        &self,
        after: Option<&GameRecord>,
        secrets: &Secrets,
        cache: &mut Players,
    ) -> Result<HashSet<String>, StoreError> {
        let mut counted_now = HashSet::new();
        if let Some(count) = after.and_then(|r| self.uncounted(r)) {
            let (digests, pair) = self.counted_pair(&count, secrets)?;
            for (digest, player) in digests.into_iter().zip(pair) {
                counted_now.insert(digest.clone());
                cache.insert(digest, Some(player));
            }
        }
        Ok(counted_now)
    }

    fn best_path(&self) -> PathBuf {
        self.index_dir().join("best.json")
    }

    /// The best of each ruleset as the last count left them; made from
    /// the ladders, under the `ratings` lock, by the first reader of an
    /// index that has none yet.
    fn best(&self) -> Result<Best, StoreError> {
        let read = || -> Result<Option<Best>, StoreError> {
            let path = self.best_path();
            match fs::read_to_string(&path) {
                Ok(text) => super::decode(&path, &text).map(Some),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io_error(&path)(e)),
            }
        };
        if let Some(best) = read()? {
            return Ok(best);
        }
        let _lock = self.lock(LockOn::Ratings)?;
        match read()? {
            Some(best) => Ok(best),
            None => self.keep_best(&Ruleset::ALL),
        }
    }

    /// Under the `ratings` lock: the best of `rulesets` drawn afresh from
    /// their ladders into the file of the best (the others as they were).
    fn keep_best(&self, rulesets: &[Ruleset]) -> Result<Best, StoreError> {
        let path = self.best_path();
        let mut best: Best = match fs::read_to_string(&path) {
            Ok(text) => super::decode(&path, &text).unwrap_or_default(),
            Err(_) => Best::default(),
        };
        let mut cache = Players::new();
        for &ruleset in rulesets {
            let mut rows = self.ladder_top(ruleset, KEPT, &mut cache, &HashSet::new())?;
            rows.sort_by(|a, b| {
                (-a.1.rating, &a.1.mailbox)
                    .partial_cmp(&(-b.1.rating, &b.1.mailbox))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            rows.truncate(KEPT);
            let rows = (rows.into_iter())
                .map(|(digest, rating)| Shown::of(digest, rating))
                .collect();
            best.tops.retain(|(r, _)| *r != ruleset);
            best.tops.push((ruleset, rows));
        }
        super::write_record(&self.index_dir(), &path, &best, Durability::Whole)?;
        Ok(best)
    }

    /// `record`'s count, if it is rated and not yet counted.
    fn uncounted(&self, record: &GameRecord) -> Option<Count> {
        let marker = self.index_dir().join("rated").join(record.id.as_str());
        Count::of(record).filter(|_| !marker.exists())
    }

    /// At least `want` rows of `ruleset` from the top of its ladder (the
    /// whole of the last band read), those of `skip` left out.
    fn ladder_top(
        &self,
        ruleset: Ruleset,
        want: usize,
        cache: &mut Players,
        skip: &HashSet<String>,
    ) -> Result<Vec<(String, Rating)>, StoreError> {
        let ladder = self.ladder_dir(ruleset);
        let mut bands: Vec<(i64, String)> = names_in(&ladder)?
            .into_iter()
            .filter_map(|name| Some((name.parse().ok()?, name)))
            .collect();
        bands.sort_by(|a, b| b.cmp(a));
        let mut rows = Vec::new();
        for (band, name) in bands {
            if rows.len() >= want {
                break;
            }
            for digest in names_in(&ladder.join(name))? {
                if skip.contains(&digest) {
                    continue;
                }
                let Some(player) = self.cached(cache, &digest)? else {
                    continue; // an entry whose file was never written
                };
                // A stale entry (a count cut short) is ignored.
                if player.bands(ruleset).is_some_and(|(now, _)| now == band) {
                    rows.extend(player.rating(ruleset).map(|r| (digest, r)));
                }
            }
        }
        Ok(rows)
    }

    /// The two players of `count` as their files hold them (fresh if new).
    /// The two players' digests and rows with `count` applied (not yet filed).
    fn counted_pair(
        &self,
        count: &Count,
        secrets: &Secrets,
    ) -> Result<([String; 2], [Player; 2]), StoreError> {
        let digests = count
            .mailboxes
            .each_ref()
            .map(|m| secrets.address_digest(m));
        let mut pair = self.pair(count, &digests)?;
        count.apply(&mut pair);
        Ok((digests, pair))
    }

    fn pair(&self, count: &Count, digests: &[String; 2]) -> Result<[Player; 2], StoreError> {
        let read = |i: usize| -> Result<Player, StoreError> {
            Ok(self
                .read_player(&digests[i])?
                .unwrap_or_else(|| Player::new(&count.mailboxes[i])))
        };
        Ok([read(0)?, read(1)?])
    }

    /// Counts every game whose count a crash left owed.
    pub(super) fn count_owed_ratings(&self) -> Result<(), StoreError> {
        let to_rate = self.index_dir().join("to-rate");
        if names_in(&to_rate)?.is_empty() {
            return Ok(());
        }
        let _lock = self.lock(LockOn::Ratings)?;
        self.finish_owed(&self.secrets()?)
    }

    /// Under the `ratings` lock: counts the games of `to-rate/`.
    fn finish_owed(&self, secrets: &Secrets) -> Result<(), StoreError> {
        let to_rate = self.index_dir().join("to-rate");
        for name in names_in(&to_rate)? {
            let Some(id) = GameId::parse(&name) else {
                continue;
            };
            match self.load_game(&id)? {
                Some(record) if super::index::is_rated(&record) => {
                    self.count_locked(&record, secrets)?;
                }
                // Not ended after all (the rename never came): its save,
                // if it comes, counts it itself.
                _ => remove_entry(&to_rate.join(id.as_str()))?,
            }
        }
        Ok(())
    }

    /// Counts an ended game in the ratings once (see the module's text).
    pub(super) fn count_rating(&self, record: &GameRecord) -> Result<(), StoreError> {
        let _lock = self.lock(LockOn::Ratings)?;
        let secrets = self.secrets()?;
        self.finish_owed(&secrets)?;
        self.count_locked(record, &secrets)
    }

    fn count_locked(&self, record: &GameRecord, secrets: &Secrets) -> Result<(), StoreError> {
        let rated = self.index_dir().join("rated");
        let marker = rated.join(record.id.as_str());
        let mut old_bands = Vec::new();
        if !marker.exists() {
            if let Some(count) = Count::of(record) {
                let (digests, pair) = self.counted_pair(&count, secrets)?;
                old_bands = self.file_players(count.ruleset, &digests, &pair)?;
                self.keep_best(&[count.ruleset])?;
            }
            make_entry(&marker)?;
            sync_folder(&rated).map_err(io_error(&rated))?;
        }
        for entry in old_bands {
            remove_entry(&entry)?;
        }
        remove_entry(&self.index_dir().join("to-rate").join(record.id.as_str()))
    }

    /// Files the players in their bands of `ruleset` and writes their
    /// files, durably; the entries of their old bands, to take away.
    fn file_players(
        &self,
        ruleset: Ruleset,
        digests: &[String],
        players: &[Player],
    ) -> Result<Vec<PathBuf>, StoreError> {
        let ladder = self.ladder_dir(ruleset);
        let mut to_sync = BTreeSet::new();
        let mut old = Vec::new();
        for (digest, player) in digests.iter().zip(players) {
            let Some((now, before)) = player.bands(ruleset) else {
                continue;
            };
            let band = ladder.join(now.to_string());
            if make_entry(&band.join(digest))? {
                to_sync.insert(band);
            }
            if before != now {
                old.push(ladder.join(before.to_string()).join(digest));
            }
        }
        for dir in &to_sync {
            sync_folder(dir).map_err(io_error(dir))?;
        }
        self.write_players(digests.iter().zip(players))?;
        Ok(old)
    }

    /// Writes players' files, then syncs their folder once.
    fn write_players<'a>(
        &self,
        players: impl Iterator<Item = (&'a String, &'a Player)>,
    ) -> Result<(), StoreError> {
        let dir = self.players_dir();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        for (digest, player) in players {
            let path = dir.join(format!("{digest}.json"));
            super::write_record(&dir, &path, player, Durability::Contents)?;
        }
        sync_folder(&dir).map_err(io_error(&dir))
    }

    /// The ratings built afresh from the rated games, counted in the
    /// order they ended (the id breaks ties, so every build agrees).
    pub(super) fn build_ratings(
        &self,
        mut finished: Vec<(u64, GameId, Option<Count>)>,
        secrets: &Secrets,
    ) -> Result<(), StoreError> {
        let index = self.index_dir();
        remove_entry(&self.best_path())?;
        for old in [self.players_dir(), index.join("ladder")] {
            match fs::remove_dir_all(&old) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error(&old)(e)),
                _ => {}
            }
        }
        // The one table of an index of version 1.
        remove_entry(&index.join("ratings.json"))?;
        finished.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mut players: HashMap<String, Player> = HashMap::new();
        let rated = index.join("rated");
        for (_, id, count) in &finished {
            if let Some(count) = count {
                let digests = count
                    .mailboxes
                    .each_ref()
                    .map(|m| secrets.address_digest(m));
                let mut pair = [0, 1].map(|i| {
                    (players.remove(&digests[i]))
                        .unwrap_or_else(|| Player::new(&count.mailboxes[i]))
                });
                count.apply(&mut pair);
                players.extend(digests.into_iter().zip(pair));
            }
            make_entry(&rated.join(id.as_str()))?;
        }
        let mut to_sync = BTreeSet::from([rated]);
        for (digest, player) in &players {
            for ruleset in Ruleset::ALL {
                if let Some((now, _)) = player.bands(ruleset) {
                    let band = self.ladder_dir(ruleset).join(now.to_string());
                    make_entry(&band.join(digest))?;
                    to_sync.insert(band);
                }
            }
        }
        for dir in &to_sync {
            sync_folder(dir).map_err(io_error(dir))?;
        }
        self.write_players(players.iter())?;
        self.keep_best(&Ruleset::ALL).map(drop)
    }
}
