//! The store's index: the games of an address, the games whose player to
//! move has been idle since a given day, the games under way and the
//! ratings, each found without reading every game.
//!
//! The game files stay the truth; the index is made of hints checked
//! against them. Each entry is an empty file whose name says what it
//! stands for:
//!
//! ```text
//! index/version                    written once the index is whole
//! index/by-address/<digest>/<id>   game <id> has a player at that mailbox
//! index/idle/<day>/<id>[.reminded] its player to move last acted on <day>
//! index/under-way/<id>             invited, or playing and not over
//! index/pending/<id>               it owes replies not yet sent
//! index/games/<id>                 the entries the game was last filed under
//! index/to-rate/<id>               ended and rated, not yet in the table
//! index/rated/<id>                 counted in the ratings table
//! index/ratings.json               the ratings table (see [`ratings::Table`])
//! ```
//!
//! A save (`Store::save_game`) adds the entries the new state needs (each
//! made with exclusive create, its folder synced) and lists them with the
//! old ones in `games/<id>` before the game file's atomic rename; only
//! after it does it take away the entries the new state no longer needs.
//! So a crash at any point leaves at worst an extra entry, never a game
//! missing from the index: every reader checks what an entry says against
//! the game it loads and ignores a stale one, and the game's next save,
//! which finds it in `games/<id>`, takes it away. `pending/` and
//! `games/<id>` are not synced: lost to a power cut, the one only delays
//! the resending of a notice (replies to mails are resent by the MTA's
//! retry anyway), the other leaves a stale entry, which readers ignore.
//!
//! Ratings: a game saved as ended is counted once, by its id, under the
//! `ratings` lock: the table is written with the game as its `last`, then
//! `rated/<id>` is made; a crash between is mended by the next count,
//! which makes the marker of the table's `last` first. `to-rate/<id>`,
//! made before the game's rename, is the hint that a count may be owed
//! when a crash came between the rename and the count.
//!
//! A store of an older referee has no `index/version`: the first call that
//! needs the index builds it, under the `index` lock, from the game files.
//! Removing the `index` folder has it built afresh (after game files were
//! restored from a backup, say).

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::ratings::{self, Table};
use super::{
    io_error, mailbox_key, replace_file, sync_folder, Durability, GameId, GameRecord, Listing,
    LockOn, Secrets, Standing, Store, StoreError,
};
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

/// Games a run of `remind` must look at.
#[derive(Debug, Default)]
pub struct Due {
    pub games: Vec<GameId>,
}

impl Store {
    fn index_dir(&self) -> PathBuf {
        self.dir.join(INDEX)
    }

    /// Builds the index if the store has none yet (a store of an older
    /// referee): once, under the `index` lock.
    ///
    /// # Errors
    /// When a file cannot be read or written; a game file that is not a
    /// readable game is reported so (the index is not marked whole).
    pub fn ensure_index(&self, secrets: &Secrets) -> Result<(), StoreError> {
        let version = self.index_dir().join("version");
        if version.exists() {
            return Ok(());
        }
        let _lock = self.lock(LockOn::Index)?;
        if version.exists() {
            return Ok(());
        }
        self.build_index(secrets)?;
        let index = self.index_dir();
        replace_file(&index, &version, b"1\n", Durability::Whole).map_err(io_error(&version))
    }

    /// Every game filed, and the ratings replayed in the order the games
    /// ended (as they were drawn before there was an index).
    fn build_index(&self, secrets: &Secrets) -> Result<(), StoreError> {
        let index = self.index_dir();
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
            for entry in &entries {
                let path = index.join(entry);
                make_entry(&path)?;
                touched.insert(folder_of(&path));
            }
            let hints = self.hints_path(&id);
            fs::write(&hints, hints_text(&entries)).map_err(io_error(&hints))?;
            if let Some(ended) = game.ok().and_then(|g| ratings::rated(&record, &g)) {
                finished.push((ended, id));
            }
        }
        // In the order they ended; the id breaks ties, so every build agrees.
        finished.sort();
        let mut table = Table::default();
        for (_, id) in &finished {
            if let Some(record) = self.load_game(id)? {
                table.count(&record);
                make_entry(&index.join("rated").join(id.as_str()))?;
            }
        }
        touched.insert(index.join("rated"));
        touched.insert(index.join("games"));
        for dir in touched.iter().chain([&index]) {
            sync_folder(dir).map_err(io_error(dir))?;
        }
        self.write_table(&table)
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
        let secrets = self.secrets()?;
        self.ensure_index(&secrets)?;
        let index = self.index_dir();
        let game = record.game();
        let new = entries_of(record, game.as_ref().ok(), &secrets);
        let old = self.hints(&record.id)?;
        let added: Vec<&String> = new.difference(&old).collect();
        let mut to_sync = BTreeSet::new();
        for entry in &added {
            let path = index.join(entry);
            if make_entry(&path)? && !entry.starts_with("pending/") {
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
        if !added.is_empty() {
            // Old and new: a crash before the rename leaves the new ones
            // known to the game's next save, which takes away the stale.
            let both: BTreeSet<String> = old.union(&new).cloned().collect();
            self.write_hints(&record.id, &both)?;
        }
        write()?;
        for entry in old.difference(&new) {
            remove_entry(&index.join(entry))?;
        }
        if old != new {
            self.write_hints(&record.id, &new)?;
        }
        if to_rate {
            self.count_rating(record)?;
        }
        Ok(())
    }

    fn hints_path(&self, id: &GameId) -> PathBuf {
        self.index_dir().join("games").join(id.as_str())
    }

    /// The entries game `id` was last filed under (none if never filed).
    fn hints(&self, id: &GameId) -> Result<BTreeSet<String>, StoreError> {
        let path = self.hints_path(id);
        match fs::read_to_string(&path) {
            // Only names of the index's own shape: a damaged file never
            // makes a save take away anything else.
            Ok(text) => Ok(text
                .lines()
                .filter(|l| is_entry(l))
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

    /// The games invited, or playing and not over, oldest first.
    ///
    /// # Errors
    /// As [`Store::games_of`].
    pub fn under_way(&self) -> Result<Listing, StoreError> {
        self.ensure_index(&self.secrets()?)?;
        self.load_listed("under-way", |record| {
            under_way(record, record.game().ok().as_ref())
        })
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
        for (day, name) in self.day_folders(&idle)? {
            if nudge_day.is_none_or(|d| day > d) {
                continue;
            }
            for (id, entry) in self.entries(&idle.join(&name))? {
                let reminded = entry.ends_with(".reminded");
                if !reminded || forfeit_day.is_some_and(|d| day <= d) {
                    ids.insert(id);
                }
            }
        }
        Ok(Due {
            games: ids.into_iter().collect(),
        })
    }

    /// The day folders of `idle/`, by day.
    fn day_folders(&self, idle: &Path) -> Result<Vec<(u64, String)>, StoreError> {
        let dated = |name: String| Some((name.parse().ok()?, name));
        Ok(names_in(idle)?.into_iter().filter_map(dated).collect())
    }

    /// Everyone's ratings in `ruleset` (or every ruleset), best first:
    /// from the table kept as games end, after counting any game whose
    /// count a crash left owed.
    ///
    /// # Errors
    /// When the index cannot be read or built.
    pub fn ratings(
        &self,
        ruleset: Option<crate::engine::Ruleset>,
    ) -> Result<Vec<ratings::Rating>, StoreError> {
        self.count_owed_ratings()?;
        Ok(self.read_table()?.list(ruleset))
    }

    /// Counts every game whose count a crash left owed.
    fn count_owed_ratings(&self) -> Result<(), StoreError> {
        self.ensure_index(&self.secrets()?)?;
        let to_rate = self.index_dir().join("to-rate");
        for (id, _) in self.entries(&to_rate)? {
            match self.load_game(&id)? {
                Some(record) if is_rated(&record) => self.count_rating(&record)?,
                // Not ended after all (the rename never came): its save,
                // if it comes, counts it itself.
                _ => remove_entry(&to_rate.join(id.as_str()))?,
            }
        }
        Ok(())
    }

    /// As [`Store::ratings`], with `record` counted too if it has ended
    /// and is not counted yet: the ratings as a mail's acts leave them,
    /// before its game is saved.
    ///
    /// # Errors
    /// As [`Store::ratings`].
    pub fn ratings_after(
        &self,
        ruleset: Option<crate::engine::Ruleset>,
        record: &GameRecord,
    ) -> Result<Vec<ratings::Rating>, StoreError> {
        self.count_owed_ratings()?;
        let mut table = self.read_table()?;
        let counted = self
            .index_dir()
            .join("rated")
            .join(record.id.as_str())
            .exists()
            || table.last.as_ref() == Some(&record.id);
        if is_rated(record) && !counted {
            table.count(record);
        }
        Ok(table.list(ruleset))
    }

    /// Counts an ended game in the ratings once (see the module's text).
    fn count_rating(&self, record: &GameRecord) -> Result<(), StoreError> {
        let _lock = self.lock(LockOn::Ratings)?;
        let rated = self.index_dir().join("rated");
        let mut table = self.read_table()?;
        if let Some(last) = &table.last {
            // The table's last game, counted before its marker was made.
            make_entry(&rated.join(last.as_str()))?;
            sync_folder(&rated).map_err(io_error(&rated))?;
        }
        let marker = rated.join(record.id.as_str());
        if !marker.exists() && table.last.as_ref() != Some(&record.id) {
            table.count(record);
            self.write_table(&table)?;
            make_entry(&marker)?;
            sync_folder(&rated).map_err(io_error(&rated))?;
        }
        remove_entry(&self.index_dir().join("to-rate").join(record.id.as_str()))
    }

    fn table_path(&self) -> PathBuf {
        self.index_dir().join("ratings.json")
    }

    fn read_table(&self) -> Result<Table, StoreError> {
        let path = self.table_path();
        match fs::read_to_string(&path) {
            Ok(text) => super::decode(&path, &text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Table::default()),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    fn write_table(&self, table: &Table) -> Result<(), StoreError> {
        super::write_record(
            &self.index_dir(),
            &self.table_path(),
            table,
            Durability::Whole,
        )
    }
}

/// A game ended between two people who both agreed to play.
fn is_rated(record: &GameRecord) -> bool {
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
        entries.insert(format!("under-way/{id}"));
    }
    if record.ledger.pending().next().is_some() {
        entries.insert(format!("pending/{id}"));
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
        Standing::Declined => false,
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
fn names_in(dir: &Path) -> Result<Vec<String>, StoreError> {
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
fn make_entry(path: &Path) -> Result<bool, StoreError> {
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

fn remove_entry(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}
