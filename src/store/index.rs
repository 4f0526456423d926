//! The store's index: the games of an address, the games whose player to
//! move has been idle since a given day, the games under way and the
//! ratings, each found without reading every game.
//!
//! The game files stay the truth; the index is made of hints checked
//! against them. Each entry is an empty file whose name says what it
//! stands for:
//!
//! ```text
//! index/version                    the index's layout (2), written once it is whole
//! index/by-address/<digest>/<id>   game <id> has a player at that mailbox
//! index/idle/<day>/<id>[.reminded] its player to move has been idle since <day> or later
//! index/under-way/<id>.<created>   invited, or playing and not over (made at <created>)
//! index/pending/<id>               it owes replies not yet sent
//! index/games/<id>                 the entries the game was last filed under (the hints)
//! index/to-rate/<id>               ended and rated, not yet counted
//! index/rated/<id>                 counted in the ratings
//! index/ratings/, index/ladder/    the ratings (see the `ladder` module)
//! ```
//!
//! A save (`Store::save_game`) lists the entries the new state needs with
//! the old ones in `games/<id>`, then makes them (each with exclusive
//! create, its folder synced), all before the game file's atomic rename;
//! only after it does it take away the entries the new state no longer
//! needs.
//! So a crash at any point leaves at worst an extra entry, never a game
//! missing from the index: every reader checks what an entry says against
//! the game it loads and ignores a stale one, and the game's next save,
//! which finds it in `games/<id>`, takes it away. `pending/<id>`, named
//! by the id alone, is not among those: a save makes it before the rename
//! when the game owes replies, and takes it away after the rename when it
//! owes none, so a move and its replies marked sent rewrite no hints.
//! `pending/` and
//! `games/<id>` are not synced: lost to a power cut, the one only delays
//! the resending of a notice (replies to mails are resent by the MTA's
//! retry anyway), the other leaves a stale entry that no save may take
//! away, which readers ignore (and `remind`, handed one, takes away).
//!
//! An idle entry is a lower bound: a move leaves the game's older entry
//! standing rather than filing it under today, which would cost a folder
//! sync (two on a day's first move) on every move. `remind`, handed such a
//! game too early, finds it not due and re-files it under its true day
//! ([`Store::refile`]), so each game costs it at most one extra look per
//! wait. Only an entry without `.reminded` is kept: one with it would keep
//! the player just to move from their nudge.
//!
//! Ratings: a game saved as ended is counted once, by its id, under the
//! `ratings` lock (see the `ladder` module); `to-rate/<id>`, made before
//! the game's rename and taken away once it is counted, is what has the
//! next count finish it when a crash came between the rename and the end
//! of its count.
//!
//! A store of an older referee has no `index/version`, or an older one:
//! the first call that needs the index builds it, under the `index` lock,
//! from the game files. Removing the `index` folder has it built afresh
//! (after game files were restored from a backup, say).

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::ratings::{self, Count};
use super::{
    io_error, replace_file, sync_folder, Durability, GameId, GameRecord, Listing, LockOn, Secrets,
    Standing, Store, StoreError,
};
use crate::address::mailbox_key;
use crate::engine::{Game, Side};

const INDEX: &str = "index";
const FOLDERS: [&str; 7] = [
    "by-address",
    "idle",
    "under-way",
    "pending",
    "games",
    "to-rate",
    "rated",
];
const DAY: u64 = 86_400;
/// The index's layout: 2 since the ratings are a file per player.
const VERSION: u32 = 2;

/// Games a run of `remind` must look at.
#[derive(Debug, Default)]
pub struct Due {
    pub games: Vec<GameId>,
    /// The idle entries that named each, for [`Store::refile`].
    idle: Vec<(GameId, String)>,
}

impl Store {
    pub(super) fn index_dir(&self) -> PathBuf {
        self.dir.join(INDEX)
    }

    /// Builds the index if the store has none yet (a store of an older
    /// referee), or one of an older layout: once, under the `index` lock.
    ///
    /// # Errors
    /// When a file cannot be read or written; a game file that is not a
    /// readable game is reported so (the index is not marked whole).
    pub fn ensure_index(&self, secrets: &Secrets) -> Result<(), StoreError> {
        if self.index_current() {
            return Ok(());
        }
        let _lock = self.lock(LockOn::Index)?;
        if self.index_current() {
            return Ok(());
        }
        self.build_index(secrets)?;
        let (index, version) = (self.index_dir(), self.index_dir().join("version"));
        let text = format!("{VERSION}\n");
        replace_file(&index, &version, text.as_bytes(), Durability::Whole)
            .map_err(io_error(&version))
    }

    /// Is the index whole, and of this referee's layout?
    fn index_current(&self) -> bool {
        fs::read_to_string(self.index_dir().join("version"))
            .is_ok_and(|text| text.trim() == VERSION.to_string())
    }

    /// Is there an index to read, built now if it must be? `false` for a
    /// store that holds nothing yet: a listing of it makes no file.
    pub(super) fn index_ready(&self) -> Result<bool, StoreError> {
        if self.index_current() {
            return Ok(true);
        }
        if !self.has_records()? {
            return Ok(false);
        }
        self.ensure_index(&self.secrets()?)?;
        Ok(true)
    }

    /// Every game filed, and the ratings replayed in the order the games
    /// ended (as they were drawn before there was an index).
    fn build_index(&self, secrets: &Secrets) -> Result<(), StoreError> {
        let index = self.index_dir();
        // Named otherwise by an index of version 1.
        let under_way = index.join("under-way");
        match fs::remove_dir_all(&under_way) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error(&under_way)(e)),
            _ => {}
        }
        for folder in FOLDERS {
            let dir = index.join(folder);
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        let mut touched = BTreeSet::new();
        let mut finished = Vec::new();
        for id in self.game_ids()? {
            let Some(record) = self.load_game(&id)? else {
                continue;
            };
            let game = record.game();
            let entries = entries_of(&record, game.as_ref().ok(), secrets);
            let owes = record
                .ledger
                .pending()
                .next()
                .map(|_| self.pending_path(&id));
            for path in entries.iter().map(|e| index.join(e)).chain(owes) {
                make_entry(&path)?;
                touched.insert(folder_of(&path));
            }
            let hints = self.hints_path(&id);
            fs::write(&hints, hints_text(&entries)).map_err(io_error(&hints))?;
            if let Some(ended) = game.ok().and_then(|g| ratings::rated(&record, &g)) {
                finished.push((ended, id, Count::of(&record)));
            }
        }
        touched.insert(index.join("games"));
        touched.insert(under_way);
        for dir in touched.iter().chain([&index]) {
            sync_folder(dir).map_err(io_error(dir))?;
        }
        self.build_ratings(finished, secrets)
    }

    /// The ids of the game files in the store's folder.
    fn game_ids(&self) -> Result<Vec<GameId>, StoreError> {
        let id = |name: String| GameId::parse(name.strip_suffix(".json")?);
        Ok(names_in(&self.dir)?.into_iter().filter_map(id).collect())
    }

    /// Files `record` in the index around `write`, the game file's rename:
    /// entries added before, taken away after, the ratings counted after.
    pub(super) fn file_game(
        &self,
        record: &GameRecord,
        write: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.file(record, Idle::KeepOlder, write).map(drop)
    }

    /// Files `record`, a game `remind` was handed by `due` and found not
    /// due, under its true idle day, and takes away the entries that
    /// named it. Call it holding the game's lock, as a save.
    ///
    /// # Errors
    /// When the index cannot be read or written.
    pub fn refile(&self, record: &GameRecord, due: &Due) -> Result<(), StoreError> {
        let filed = self.file(record, Idle::Exact, || Ok(()))?;
        for (_, entry) in due.idle.iter().filter(|(id, _)| *id == record.id) {
            if !filed.contains(entry) {
                remove_entry(&self.index_dir().join(entry))?;
            }
        }
        Ok(())
    }

    /// Takes away every entry of game `id`, whose file is gone (a kill
    /// before its first rename, or a file removed by hand): those its hints
    /// name, its `pending/` entry, the idle entries `due` named, and the
    /// hints. Call it holding the game's lock, as a save.
    ///
    /// # Errors
    /// When the index cannot be read or written.
    pub fn unfile_gone(&self, id: &GameId, due: &Due) -> Result<(), StoreError> {
        let index = self.index_dir();
        let named = due.idle.iter().filter(|(of, _)| of == id).map(|(_, e)| e);
        for entry in self.hints(id)?.iter().chain(named) {
            remove_entry(&index.join(entry))?;
        }
        remove_entry(&self.pending_path(id))?;
        remove_entry(&self.hints_path(id))
    }

    /// Files `record` around `write` (see [`Store::file_game`]): the
    /// entries it is filed under.
    fn file(
        &self,
        record: &GameRecord,
        idle: Idle,
        write: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<BTreeSet<String>, StoreError> {
        let secrets = self.secrets()?;
        self.ensure_index(&secrets)?;
        let index = self.index_dir();
        let game = record.game();
        let mut new = entries_of(record, game.as_ref().ok(), &secrets);
        let old = self.hints(&record.id)?;
        if idle == Idle::KeepOlder {
            keep_older_idle(&mut new, &old);
        }
        let mut hinted = old.clone();
        if !new.is_subset(&old) {
            // The entries about to be made, beside the old, named first: a
            // crash after any of them is made leaves it known to the game's
            // next save, which takes away those it no longer files under
            // (an entry names the time its game was made, which a retry
            // in a later second does not share).
            hinted.extend(new.iter().cloned());
            self.write_hints(&record.id, &hinted)?;
        }
        // Made before the rename when replies are owed, taken away after it
        // when none are.
        let pending = self.pending_path(&record.id);
        let owes = record.ledger.pending().next().is_some();
        if owes {
            make_entry(&pending)?;
        }
        let mut to_sync = BTreeSet::new();
        // Every entry, not only those new to the hints: a crash may have
        // named some that it kept from being made.
        for entry in &new {
            let path = index.join(entry);
            if make_entry(&path)? {
                to_sync.insert(folder_of(&path));
            }
        }
        let rated = game.ok().and_then(|g| ratings::rated(record, &g)).is_some();
        let to_rate = rated && !index.join("rated").join(record.id.as_str()).exists();
        if to_rate {
            let path = index.join("to-rate").join(record.id.as_str());
            make_entry(&path)?;
            to_sync.insert(folder_of(&path));
        }
        for dir in &to_sync {
            sync_folder(dir).map_err(io_error(dir))?;
        }
        write()?;
        if !owes {
            remove_entry(&pending)?;
        }
        for entry in old.difference(&new) {
            remove_entry(&index.join(entry))?;
        }
        if hinted != new {
            self.write_hints(&record.id, &new)?;
        }
        if to_rate {
            self.count_rating(record)?;
        }
        Ok(new)
    }

    /// The entry of a game that owes replies: named by its id alone, so
    /// never among its hints.
    fn pending_path(&self, id: &GameId) -> PathBuf {
        self.index_dir().join("pending").join(id.as_str())
    }

    fn hints_path(&self, id: &GameId) -> PathBuf {
        self.index_dir().join("games").join(id.as_str())
    }

    /// The entries game `id` was last filed under (none if never filed).
    fn hints(&self, id: &GameId) -> Result<BTreeSet<String>, StoreError> {
        let path = self.hints_path(id);
        match fs::read_to_string(&path) {
            // Only names of the index's own shape: a damaged file never
            // makes a save take away anything else. (An older referee
            // listed `pending/<id>` too: the save handles that one apart.)
            Ok(text) => Ok(text
                .lines()
                .filter(|l| is_entry(l) && !l.starts_with("pending/"))
                .map(String::from)
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeSet::new()),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    fn write_hints(&self, id: &GameId, entries: &BTreeSet<String>) -> Result<(), StoreError> {
        let path = self.hints_path(id);
        let dir = self.index_dir().join("games");
        replace_file(
            &dir,
            &path,
            hints_text(entries).as_bytes(),
            Durability::Hint,
        )
        .map_err(io_error(&path))
    }

    /// The games with a player at `address`'s mailbox (any spelling of
    /// it), oldest first, and those that could not be read.
    ///
    /// # Errors
    /// When the index cannot be read or built.
    pub fn games_of(&self, secrets: &Secrets, address: &str) -> Result<Listing, StoreError> {
        self.ensure_index(secrets)?;
        let mailbox = mailbox_key(address);
        let folder = format!("by-address/{}", secrets.address_digest(address));
        let plays = |record: &GameRecord| {
            Side::BOTH.into_iter().any(|side| {
                let address = record.player(side).address.as_deref();
                address.is_some_and(|a| mailbox_key(a) == mailbox)
            })
        };
        self.load_listed(&folder, |record| plays(record))
    }

    /// The games invited, or playing and not over, newest first: at most
    /// `most` of them (every one when `None`), and how many the index
    /// holds in all. Only the games returned are read; a store that holds
    /// nothing yet has none, and no file is made.
    ///
    /// # Errors
    /// As [`Store::games_of`].
    pub fn under_way(&self, most: Option<usize>) -> Result<(Listing, usize), StoreError> {
        if !self.index_ready()? {
            return Ok((Listing::default(), 0));
        }
        let made = |name: &str| name.split_once('.').and_then(|(_, t)| t.parse().ok());
        let mut entries: Vec<(u64, GameId)> = (self
            .entries(&self.index_dir().join("under-way"))?)
        .into_iter()
        .map(|(id, name)| (made(&name).unwrap_or(0), id))
        .collect();
        // Newest first; the id breaks ties, so every listing agrees.
        entries.sort_by(|a, b| b.cmp(a));
        // Games, not entries: a crash may leave a game a stale second one.
        let total = entries
            .iter()
            .map(|(_, id)| id)
            .collect::<BTreeSet<_>>()
            .len();
        let mut listing = Listing::default();
        for (made, id) in entries {
            if most.is_some_and(|m| listing.games.len() + listing.unreadable.len() >= m) {
                break;
            }
            match self.load_game(&id) {
                // (An entry of another time is stale: the game made again.)
                Ok(Some(record))
                    if made == record.created
                        && under_way(&record, record.game().ok().as_ref()) =>
                {
                    listing.games.push(record);
                }
                Ok(_) => {} // a stale hint: the game's next save takes it away
                Err(e) => listing.unreadable.push(e),
            }
        }
        Ok((listing, total))
    }

    /// The games of an index folder that `holds` (stale entries left out).
    fn load_listed(
        &self,
        folder: &str,
        holds: impl Fn(&GameRecord) -> bool,
    ) -> Result<Listing, StoreError> {
        let mut listing = Listing::default();
        for (id, _) in self.entries(&self.index_dir().join(folder))? {
            match self.load_game(&id) {
                Ok(Some(record)) if holds(&record) => listing.games.push(record),
                Ok(_) => {} // a stale hint: the game's next save takes it away
                Err(e) => listing.unreadable.push(e),
            }
        }
        listing
            .games
            .sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(listing)
    }

    /// The games and their entries' names in an index folder (none if it
    /// is missing).
    fn entries(&self, dir: &Path) -> Result<Vec<(GameId, String)>, StoreError> {
        let named = |name: String| Some((GameId::parse(name.split('.').next()?)?, name));
        Ok(names_in(dir)?.into_iter().filter_map(named).collect())
    }

    /// The games `remind` must look at by `now`: those owing replies, those
    /// whose player to move has not been nudged and was idle `nudge`
    /// seconds, those nudged and idle `forfeit` seconds. Only the idle
    /// folders of days old enough are read, and no game.
    ///
    /// # Errors
    /// When the index cannot be read or built.
    pub fn due(&self, now: u64, nudge: u64, forfeit: u64) -> Result<Due, StoreError> {
        self.ensure_index(&self.secrets()?)?;
        let index = self.index_dir();
        let mut ids: BTreeSet<GameId> = self
            .entries(&index.join("pending"))?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        // A day's folder holds those last active that day: idle at least
        // `nudge` by now only if the day is at most (now - nudge)'s.
        let last_day = |idle: u64| now.checked_sub(idle).map(|t| t / DAY);
        let (nudge_day, forfeit_day) = (last_day(nudge), last_day(forfeit));
        let idle = index.join("idle");
        let mut found = Vec::new();
        for (day, name) in self.day_folders(&idle)? {
            if nudge_day.is_none_or(|d| day > d) {
                continue;
            }
            for (id, entry) in self.entries(&idle.join(&name))? {
                let reminded = entry.ends_with(".reminded");
                if !reminded || forfeit_day.is_some_and(|d| day <= d) {
                    ids.insert(id.clone());
                    found.push((id, format!("idle/{name}/{entry}")));
                }
            }
        }
        Ok(Due {
            games: ids.into_iter().collect(),
            idle: found,
        })
    }

    /// The day folders of `idle/`, by day.
    fn day_folders(&self, idle: &Path) -> Result<Vec<(u64, String)>, StoreError> {
        let dated = |name: String| Some((name.parse().ok()?, name));
        Ok(names_in(idle)?.into_iter().filter_map(dated).collect())
    }
}

/// How a save files a game's idle entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Idle {
    /// Under its day, or under an older entry it already has (a lower
    /// bound: no folder to sync).
    KeepOlder,
    /// Under its day.
    Exact,
}

/// Puts back, in place of `new`'s idle entry, an older one of `old`'s, if
/// `new`'s is without `.reminded` and `old` has one of an earlier day.
fn keep_older_idle(new: &mut BTreeSet<String>, old: &BTreeSet<String>) {
    // `idle/<day>/<id>`: the day, for an entry without a suffix.
    let plain_day = |entry: &String| -> Option<u64> {
        let (day, name) = entry.strip_prefix("idle/")?.split_once('/')?;
        (!name.contains('.')).then_some(())?;
        day.parse().ok()
    };
    let Some((entry, day)) = new.iter().find_map(|e| Some((e.clone(), plain_day(e)?))) else {
        return;
    };
    let older = old
        .iter()
        .filter_map(|e| Some((plain_day(e)?, e)))
        .filter(|(d, _)| *d < day)
        .min();
    if let Some((_, kept)) = older {
        new.remove(&entry);
        new.insert(kept.clone());
    }
}

/// A game ended between two people who both agreed to play.
pub(super) fn is_rated(record: &GameRecord) -> bool {
    record
        .game()
        .is_ok_and(|game| ratings::rated(record, &game).is_some())
}

/// The entries a game in this state is filed under (`game` is `None` when
/// its turns cannot be replayed: filed as under way and due, so that the
/// listings and `remind` report it).
fn entries_of(record: &GameRecord, game: Option<&Game>, secrets: &Secrets) -> BTreeSet<String> {
    let id = record.id.as_str();
    let mut entries = BTreeSet::new();
    for side in Side::BOTH {
        if let Some(address) = &record.player(side).address {
            let digest = secrets.address_digest(address);
            entries.insert(format!("by-address/{digest}/{id}"));
        }
    }
    if remindable(record, game) {
        let day = record.last_activity / DAY;
        let reminded = if record.reminded.is_some() {
            ".reminded"
        } else {
            ""
        };
        entries.insert(format!("idle/{day}/{id}{reminded}"));
    }
    if under_way(record, game) {
        entries.insert(format!("under-way/{id}.{}", record.created));
    }
    entries
}

/// Could the clock ever nudge or forfeit the player to move? (As
/// `remind` decides: a game both accepted, a person to move.)
fn remindable(record: &GameRecord, game: Option<&Game>) -> bool {
    if !record.is_playing() || !record.inviter_confirmed {
        return false;
    }
    match game.map(Game::to_move) {
        None => true,
        Some(None) => false,
        Some(Some(side)) => record.computer != Some(side) && record.player(side).address.is_some(),
    }
}

fn under_way(record: &GameRecord, game: Option<&Game>) -> bool {
    match record.standing {
        Standing::Invited { .. } => true,
        Standing::Declined | Standing::Withdrawn => false,
        Standing::Playing => !game.is_some_and(Game::is_over),
    }
}

/// Is `line` an entry's name (`folder/…/name` of letters, digits, `.`, `-`)?
fn is_entry(line: &str) -> bool {
    let mut parts = line.split('/');
    parts.next().is_some_and(|f| FOLDERS.contains(&f))
        && parts.all(|p| {
            !p.is_empty()
                && !p.starts_with('.')
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        })
}

/// The names in a folder (none if it is missing).
pub(super) fn names_in(dir: &Path) -> Result<Vec<String>, StoreError> {
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(dir)(e)),
    };
    let mut names = Vec::new();
    for entry in read {
        let name = entry.map_err(io_error(dir))?.file_name();
        names.push(name.to_string_lossy().into_owned());
    }
    Ok(names)
}

fn hints_text(entries: &BTreeSet<String>) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

fn folder_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Makes an empty entry (and its folder, synced into its parent):
/// `false` if it was there.
pub(super) fn make_entry(path: &Path) -> Result<bool, StoreError> {
    let create = || OpenOptions::new().write(true).create_new(true).open(path);
    let made = match create() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = folder_of(path);
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
            let parent = folder_of(&dir);
            sync_folder(&parent).map_err(io_error(&parent))?;
            create()
        }
        other => other,
    };
    match made {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_error(path)(e)),
    }
}

pub(super) fn remove_entry(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}
