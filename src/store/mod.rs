//! The referee's store: one JSON file per game, written so that a crash
//! leaves the old state or the new one, locked per game so that mails for
//! one game are handled one at a time, and a secret from which each
//! player's per-game key is derived. It knows games, players and the
//! replies they are owed, not mail and not the sheet's text.
//!
//! Layout of the folder:
//!
//! ```text
//! key                the secret (back it up: every key in every game derives from it)
//! <id>.json          a game (see [`GameRecord`]), `format` 3 (2 is read too)
//! senders/<h>.json   answers given to a keyless address <h> (a digest of it)
//! locks/             lock files, one per game or address
//! index/             what finds games without reading them all (see `index`), and the ratings
//! ```

mod index;
mod keys;
mod ladder;
pub mod outbox;
pub mod ratings;
mod record;
mod upgrade;
mod view;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use index::Due;
pub use keys::Secrets;
pub use outbox::{Delivery, Mailbox, Outgoing};
pub use record::{
    Conceded, Concession, Conditional, GameId, GameRecord, Handled, Ledger, Ledgered, MailKey,
    Memory, Offer, OfferKind, PlayerRecord, ReplayError, SenderRecord, SetUpRecord, Standing, Turn,
    FORMAT, HANDLED_KEPT,
};
pub use view::{player_of, record_sheet, sheet_of, summary};

/// What can go wrong with the store, and whether waiting helps.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("{path}: not a game file ({error}); it is left as it is: repair or remove it")]
    Corrupt { path: PathBuf, error: String },
    #[error("{path}: written in format {format}, newer than this referee's {FORMAT}; it is left as it is: run a newer mancala")]
    Future { path: PathBuf, format: u32 },
    #[error("{path} is missing but the store holds games: restore it from a backup (a new one would void every player's key)")]
    KeyMissing { path: PathBuf },
    #[error("no random numbers to be had")]
    NoRandom,
}

impl StoreError {
    /// Trying again later may help by itself (a full disk, a lock, a
    /// permission fixed); otherwise the operator must act first. Either
    /// way the mail is kept (exit 75), never dropped.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Io { .. } | StoreError::NoRandom)
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// A lock on one game or address, held until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// What a lock holds. An address has a lock for each role it plays, so
/// that two invitations crossing (Alice inviting Bob as Bob invites Alice)
/// take them in the same order: sender first, then invitee.
#[derive(Clone, Copy, Debug)]
pub enum LockOn<'a> {
    Game(&'a GameId),
    /// A keyless address's answers (its daily limit), by its digest.
    Sender(&'a str),
    /// The invitations an address gets, by its digest.
    Invitee(&'a str),
    /// The index, while it is built from the game files.
    Index,
    /// The ratings table, while a game is counted in it.
    Ratings,
}

impl LockOn<'_> {
    fn file_name(self) -> String {
        match self {
            LockOn::Game(id) => format!("{id}.lock"),
            LockOn::Sender(digest) => format!("sender-{digest}.lock"),
            LockOn::Invitee(digest) => format!("invitee-{digest}.lock"),
            LockOn::Index => "index.lock".to_string(),
            LockOn::Ratings => "ratings.lock".to_string(),
        }
    }
}

/// The store: a folder of game files, their locks, and the key.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in `dir`, made (readable by its owner only) if missing.
    /// An existing folder's permissions are the operator's and left alone.
    ///
    /// # Errors
    /// When the folder cannot be made.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        if !dir.is_dir() {
            let mut builder = fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            builder.create(dir).map_err(io_error(dir))?;
        }
        Ok(Store {
            dir: dir.to_path_buf(),
        })
    }

    /// Where games are kept when nobody says: `$XDG_DATA_HOME/mancala-referee`,
    /// else `~/.local/share/mancala-referee`.
    pub fn default_dir() -> PathBuf {
        match std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
            Some(data) => PathBuf::from(data).join("mancala-referee"),
            None => {
                let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
                PathBuf::from(home).join(".local/share/mancala-referee")
            }
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn game_path(&self, id: &GameId) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn sender_path(&self, digest: &str) -> PathBuf {
        self.dir.join("senders").join(format!("{digest}.json"))
    }

    /// Waits for, then holds, the lock on `on`: mails for one game are
    /// handled one at a time; other games are not held up.
    ///
    /// # Errors
    /// When the lock file cannot be opened or locked.
    pub fn lock(&self, on: LockOn) -> Result<Lock, StoreError> {
        let dir = self.dir.join("locks");
        let path = dir.join(on.file_name());
        let open = || {
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        };
        let file = match open() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(&dir).map_err(io_error(&dir))?;
                open()
            }
            other => other,
        }
        .map_err(io_error(&path))?;
        file.lock().map_err(io_error(&path))?;
        Ok(Lock { _file: file })
    }

    /// Game `id`, or `None` if the store has no such game.
    ///
    /// # Errors
    /// When the file cannot be read, is not a game, or is of a newer format.
    pub fn load_game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        let path = self.game_path(id);
        let Some(text) = read_text(&path)? else {
            return Ok(None);
        };
        // One parse for a file of this format or the last, read as a game
        // and its format checked after: reading the format first, then the
        // game, parsed every file twice. Anything else (a newer format, an
        // old one, a damaged file) goes the careful way below.
        if let Ok(mut record) = serde_json::from_str::<GameRecord>(&text) {
            if (2..=FORMAT).contains(&record.format) {
                // Format 2 is format 3 without its new fields: read as it
                // is, written back as 3.
                record.format = FORMAT;
                return Ok(Some(record));
            }
        }
        match versioned(&path, text)? {
            (text, 1) => upgrade::from_format_1(&text)
                .map(Some)
                .map_err(|error| StoreError::Corrupt { path, error }),
            (text, _) => decode::<GameRecord>(&path, &text).map(|mut record| {
                record.format = FORMAT;
                Some(record)
            }),
        }
    }

    /// Writes the game durably (see [`write_atomically`]), filed in the
    /// index in the same step (see the `index` module).
    ///
    /// # Errors
    /// When any step fails; the old file is then untouched.
    pub fn save_game(&self, record: &GameRecord) -> Result<(), StoreError> {
        self.write_game(record, Durability::Whole)
    }

    /// Writes the game once replies went, marked sent: whole and atomic as
    /// [`Store::save_game`], but the folder is not synced. Lost to a power
    /// cut, the rename leaves the last durable state, whose replies are then
    /// sent again under the same Message-IDs: that costs a duplicate a mail
    /// client hides, never a move.
    ///
    /// # Errors
    /// As [`Store::save_game`].
    pub fn note_sent(&self, record: &GameRecord) -> Result<(), StoreError> {
        self.write_game(record, Durability::Contents)
    }

    fn write_game(&self, record: &GameRecord, durability: Durability) -> Result<(), StoreError> {
        let path = self.game_path(&record.id);
        self.file_game(record, || {
            write_record(&self.dir, &path, record, durability)
        })
    }

    /// The record of the keyless address with this digest (a fresh one if none).
    ///
    /// # Errors
    /// As [`Store::load_game`].
    pub fn load_sender(&self, digest: &str) -> Result<SenderRecord, StoreError> {
        let mut record: SenderRecord = read_record(&self.sender_path(digest))?.unwrap_or_default();
        record.digest = digest.to_string();
        Ok(record)
    }

    /// # Errors
    /// As [`Store::save_game`].
    pub fn save_sender(&self, record: &SenderRecord) -> Result<(), StoreError> {
        let dir = self.dir.join("senders");
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        write_record(
            &dir,
            &self.sender_path(&record.digest),
            record,
            Durability::Whole,
        )
    }

    /// Every game in the store, oldest first, and every file that could not
    /// be read as one (reported, never skipped in silence). It reads every
    /// game file: for tests and tools that want them all; the referee's
    /// own lookups go through the index ([`Store::games_of`], [`Store::due`],
    /// [`Store::under_way`], [`Store::ratings`]).
    ///
    /// # Errors
    /// When the folder cannot be read.
    pub fn list(&self) -> Result<Listing, StoreError> {
        let mut listing = Listing::default();
        for entry in fs::read_dir(&self.dir).map_err(io_error(&self.dir))? {
            let entry = entry.map_err(io_error(&self.dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            let Some(id) = GameId::parse(id) else {
                listing.unreadable.push(StoreError::Corrupt {
                    path: entry.path(),
                    error: "its name is not a game id".into(),
                });
                continue;
            };
            match self.load_game(&id) {
                Ok(Some(record)) => listing.games.push(record),
                Ok(None) => {} // removed since the folder was read
                Err(e) => listing.unreadable.push(e),
            }
        }
        listing
            .games
            .sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(listing)
    }

    /// Does the store hold no game yet (nor any sender's record)?
    ///
    /// # Errors
    /// When the folder cannot be read.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        self.has_records().map(|has| !has)
    }

    /// Does the store hold any game (or the folder for senders)?
    fn has_records(&self) -> Result<bool, StoreError> {
        for entry in fs::read_dir(&self.dir).map_err(io_error(&self.dir))? {
            let name = entry.map_err(io_error(&self.dir))?.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".json") || name == "senders" {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The games of a store, and the files that are not readable games.
#[derive(Debug, Default)]
pub struct Listing {
    pub games: Vec<GameRecord>,
    pub unreadable: Vec<StoreError>,
}

impl Listing {
    /// The games, or the first file that is not a readable game: for a
    /// decision that a game left out could turn (whether someone plays
    /// here), which is then the operator's to mend.
    ///
    /// # Errors
    /// The first unreadable file's.
    pub fn whole(self) -> Result<Vec<GameRecord>, StoreError> {
        match self.unreadable.into_iter().next() {
            Some(error) => Err(error),
            None => Ok(self.games),
        }
    }
}

/// The `format` of a record, read before the rest so that a newer file is
/// refused as newer rather than as damaged.
#[derive(serde::Deserialize)]
struct Version {
    format: u32,
}

fn read_record<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, StoreError> {
    match read_versioned(path)? {
        None => Ok(None),
        // Senders' files are the same in formats 2 and 3.
        Some((_, format)) if format < 2 => Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            error: format!("format {format} is not one this referee reads"),
        }),
        Some((text, _)) => decode(path, &text).map(Some),
    }
}

/// A record's text and its `format`: a newer one is refused here.
fn read_versioned(path: &Path) -> Result<Option<(String, u32)>, StoreError> {
    read_text(path)?
        .map(|text| versioned(path, text))
        .transpose()
}

/// A file's text; `None` when there is no such file.
fn read_text(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// `text` and its `format`, read from it: a newer one is refused here.
fn versioned(path: &Path, text: String) -> Result<(String, u32), StoreError> {
    let version: Version = decode(path, &text)?;
    if version.format > FORMAT {
        return Err(StoreError::Future {
            path: path.to_path_buf(),
            format: version.format,
        });
    }
    Ok((text, version.format))
}

fn decode<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|error| StoreError::Corrupt {
        path: path.to_path_buf(),
        error: error.to_string(),
    })
}

/// How much of a file's replacement survives a power cut.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// Contents synced, then the folder: the rename itself is durable.
    Whole,
    /// Contents synced, the rename not: lost, the old file stands.
    Contents,
    /// Nothing synced, for a file that is only a hint: lost or emptied by
    /// a power cut, it costs a stale entry left in the index, never a game.
    Hint,
}

fn write_record<T: Serialize>(
    dir: &Path,
    path: &Path,
    record: &T,
    durability: Durability,
) -> Result<(), StoreError> {
    // Room for a game with the replies it owes from the start: grown from
    // serde_json's 128 bytes, the buffer was copied nine times.
    let mut text = Vec::with_capacity(64 * 1024);
    serde_json::to_writer(&mut text, record).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        error: e.to_string(),
    })?;
    text.push(b'\n');
    replace_file(dir, path, &text, durability).map_err(io_error(path))
}

/// Writes `bytes` to `path` durably: a temporary file beside it, synced,
/// renamed over the old one, and the folder synced. A crash leaves the old
/// file or the new one, never half of one. The temporary file is made
/// afresh (`O_EXCL`, a random name, the owner's alone): a file or symlink
/// planted in the folder is never opened, so never written through.
///
/// # Errors
/// When any step fails; the old file is then untouched.
pub fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_file(dir, path, bytes, Durability::Whole)
}

/// As [`write_atomically`], the contents written to the file by `write`
/// (for a file too large to be held whole, or read back while written).
/// When `write` fails, nothing is renamed: its error is the inner one.
///
/// # Errors
/// The outer error, when a step of the write fails.
pub fn write_atomically_with<T, E>(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(&File) -> Result<T, E>,
) -> io::Result<Result<T, E>> {
    let temp = temp_with(dir, &[])?;
    let written = match write(temp.as_file()) {
        Ok(written) => written,
        Err(e) => return Ok(Err(e)), // the temporary file goes with `temp`
    };
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_folder(dir)?;
    Ok(Ok(written))
}

/// `bytes` in a fresh temporary file in `dir`, synced: removed again if
/// dropped before it is persisted.
fn synced_temp(dir: &Path, bytes: &[u8]) -> io::Result<tempfile::NamedTempFile> {
    let temp = temp_with(dir, bytes)?;
    temp.as_file().sync_all()?;
    Ok(temp)
}

fn temp_with(dir: &Path, bytes: &[u8]) -> io::Result<tempfile::NamedTempFile> {
    // Games hold addresses and the replies owed: the owner's alone,
    // whatever the umask of the MTA that started us (tempfile's 0600).
    let mut temp = tempfile::Builder::new()
        .prefix(".")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    Ok(temp)
}

fn replace_file(dir: &Path, path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let temp = match durability {
        Durability::Hint => temp_with(dir, bytes)?,
        Durability::Whole | Durability::Contents => synced_temp(dir, bytes)?,
    };
    temp.persist(path).map_err(|e| e.error)?;
    if durability == Durability::Whole {
        sync_folder(dir)?;
    }
    Ok(())
}

/// Writes `bytes` to `path` unless it exists (whoever comes first wins,
/// and nobody reads it half written). `false` if it was there.
fn create_whole(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<bool> {
    match synced_temp(dir, bytes)?.persist_noclobber(path) {
        Ok(_) => {}
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e.error),
    }
    sync_folder(dir)?;
    Ok(true)
}

/// Makes a folder's entries durable: Unix only (elsewhere a rename is as
/// durable as the system makes it).
fn sync_folder(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Seconds since 1970, for the records.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests;
