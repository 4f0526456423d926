//! The referee's store: a database (SQLite built in, or PostgreSQL for a
//! referee on several hosts) of games, players, the mails handled and the
//! replies owed, and the secret from which each player's per-game key is
//! derived. It knows games and replies owed, not mail and not the sheet's
//! text.
//!
//! A mail's whole decision is one database transaction
//! ([`Store::transact`]): the state it changes, the mail noted as handled,
//! the replies it owes, a stranger's count, the ratings. Replies are sent
//! after it commits, each marked sent as it goes ([`Store::send_owed`]).

mod db;
mod games;
mod import;
pub mod outbox;
pub mod ratings;
mod schema;
mod upgrade;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use db::{params, Db, DbError, DbErrorKind, Value};

pub use crate::record::{
    Conceded, Concession, Conditional, GameId, GameRecord, MailKey, Offer, OfferKind, PlayerRecord,
    Secrets, SenderRecord, SetUpRecord, Standing, Turn,
};
pub use db::Kind;
pub use games::{Listing, Owed};
pub use import::{ImportError, Imported};
pub use outbox::{Delivery, Mailbox, Outgoing};

/// What can go wrong with the store, and whether waiting helps.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the store {store}: {error}")]
    Db { store: String, error: DbError },
    #[error("the store {store}: {what}: {error}; it is left as it is: repair or remove it")]
    Corrupt {
        store: String,
        what: String,
        error: String,
    },
    #[error("the store {store} has schema {version}, newer than this referee's {}; it is left as it is: run a newer mancala", schema::VERSION)]
    Future { store: String, version: i64 },
    #[error("{0} is a store of an earlier mancala (a folder of game files): move it into a database with `mancala store import {0}`, then point the referee at the database")]
    FolderStore(PathBuf),
    #[error("no random numbers to be had")]
    NoRandom,
}

impl StoreError {
    /// Trying again later may help by itself (a busy or full disk, a
    /// server away); otherwise the operator must act first. Either way the
    /// mail is kept (exit 75), never dropped.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Db { error, .. } => error.kind != DbErrorKind::Permanent,
            StoreError::NoRandom => true,
            _ => false,
        }
    }
}

/// The store: one connection to its database.
pub struct Store {
    location: String,
    db: RefCell<Box<dyn Db>>,
    secrets: Secrets,
    /// Inside [`Store::transact`]: statements run in its transaction.
    in_transaction: Cell<bool>,
    /// A statement of the transaction under way met another's change.
    conflicted: Cell<bool>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish()
    }
}

/// Tries of one transaction that another keeps beating to a row.
const CONFLICT_TRIES: u32 = 20;

impl Store {
    /// The store at `location`: a PostgreSQL address (`postgresql://...`),
    /// or a SQLite file, made (with its folder, the owner's alone) if
    /// missing. A folder store of an earlier referee is refused, never
    /// started afresh beside.
    ///
    /// # Errors
    /// When the database cannot be opened, or is of a newer schema.
    pub fn open(location: impl AsRef<Path>) -> Result<Store, StoreError> {
        let location = location.as_ref().to_string_lossy();
        let location = location.as_ref();
        if !location.contains("://") {
            check_not_a_folder_store(Path::new(location))?;
        }
        Store::open_as_is(location)
    }

    /// [`Store::open`], where a folder store beside is no matter (the
    /// import's target).
    fn open_as_is(location: &str) -> Result<Store, StoreError> {
        let fail = |error: DbError| StoreError::Db {
            store: shown(location),
            error,
        };
        let mut db = db::open(location).map_err(fail)?;
        let fresh = crate::record::fresh_secret().ok_or(StoreError::NoRandom)?;
        match schema::migrate(db.as_mut(), &fresh).map_err(fail)? {
            schema::Opened::Current => {}
            schema::Opened::Newer(version) => {
                return Err(StoreError::Future {
                    store: shown(location),
                    version,
                })
            }
        }
        let rows = db.query("SELECT value FROM meta WHERE name = 'secret'", params![]);
        let secret = match rows.map_err(fail)?.first().and_then(|r| r.first()) {
            Some(Value::String(text)) => text.clone(),
            _ => {
                return Err(StoreError::Corrupt {
                    store: shown(location),
                    what: "the secret".into(),
                    error: "missing".into(),
                })
            }
        };
        Ok(Store {
            location: location.to_string(),
            db: RefCell::new(db),
            secrets: Secrets::new(&secret).ok_or_else(|| StoreError::Corrupt {
                store: shown(location),
                what: "the secret".into(),
                error: "too short".into(),
            })?,
            in_transaction: Cell::new(false),
            conflicted: Cell::new(false),
        })
    }

    /// Where games are kept when nobody says:
    /// `$XDG_DATA_HOME/mancala-referee/referee.db`, else
    /// `~/.local/share/mancala-referee/referee.db`.
    pub fn default_location() -> PathBuf {
        let folder = match std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
            Some(data) => PathBuf::from(data).join("mancala-referee"),
            None => {
                let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
                PathBuf::from(home).join(".local/share/mancala-referee")
            }
        };
        folder.join("referee.db")
    }

    /// The store as the operator named it (a server's password left out).
    pub fn location(&self) -> String {
        shown(&self.location)
    }

    pub fn kind(&self) -> Kind {
        self.db.borrow().kind()
    }

    /// The secret from which the players' keys derive.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    fn fail(&self) -> impl Fn(DbError) -> StoreError + '_ {
        move |error| {
            if error.kind == DbErrorKind::Conflict {
                self.conflicted.set(true);
            }
            StoreError::Db {
                store: self.location(),
                error,
            }
        }
    }

    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        self.db
            .borrow_mut()
            .execute(sql, params)
            .map_err(self.fail())
    }

    /// The rows `sql` finds, each read as a `T`: a tuple (or a struct) of
    /// its columns in order.
    fn query<T: serde::de::DeserializeOwned>(
        &self,
        sql: &str,
        params: &[Value],
    ) -> Result<Vec<T>, StoreError> {
        let rows = self
            .db
            .borrow_mut()
            .query(sql, params)
            .map_err(self.fail())?;
        let read = |row| serde_json::from_value(Value::Array(row));
        let what = || sql.split(" WHERE").next().unwrap_or(sql).to_string();
        (rows.into_iter())
            .map(|row| read(row).map_err(|e| self.corrupt(what(), e)))
            .collect()
    }

    /// A stored value that is not what it should be.
    fn corrupt(&self, what: impl std::fmt::Display, error: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt {
            store: self.location(),
            what: what.to_string(),
            error: error.to_string(),
        }
    }

    /// Runs `decide` in one transaction: everything it reads and writes
    /// through the store commits together, or (on an error) not at all.
    /// Another referee's transaction is waited for (SQLite) or, having
    /// changed what this one read, has this one decided again (PostgreSQL):
    /// `decide` must do nothing but through the store. Outside any
    /// transaction a statement commits by itself.
    ///
    /// # Errors
    /// `decide`'s, or the store's when it cannot begin or commit.
    pub fn transact<T, E: From<StoreError>>(
        &self,
        mut decide: impl FnMut() -> Result<T, E>,
    ) -> Result<T, E> {
        if self.in_transaction.get() {
            return decide(); // a part of the transaction already begun
        }
        let mut tries = 0;
        loop {
            tries += 1;
            self.db
                .borrow_mut()
                .begin(tries == 1)
                .map_err(self.fail())?;
            self.conflicted.set(false); // (a conflict met outside counts for nothing here)
            self.in_transaction.set(true);
            let decided = decide();
            self.in_transaction.set(false);
            let ended = match &decided {
                Ok(_) => self.db.borrow_mut().batch("COMMIT"),
                Err(_) => self.db.borrow_mut().batch("ROLLBACK"),
            };
            let conflict = self.last_was_conflict(&ended);
            match (decided, ended) {
                (Ok(value), Ok(())) => {
                    self.db.borrow_mut().sync().map_err(self.fail())?;
                    return Ok(value);
                }
                (_, Err(_)) | (Err(_), _) if conflict && tries < CONFLICT_TRIES => {
                    // Another referee changed what this one read: decide again.
                    std::thread::sleep(std::time::Duration::from_millis(u64::from(tries - 1) * 3));
                }
                (Ok(_), Err(e)) => return Err(self.fail()(e).into()),
                (Err(e), _) => return Err(e),
            }
        }
    }

    /// Did the transaction just ended fail for a conflict with another
    /// (so that deciding again will do)?
    fn last_was_conflict(&self, ended: &Result<(), DbError>) -> bool {
        let conflict = self.conflicted.replace(false);
        conflict || matches!(ended, Err(e) if e.kind == DbErrorKind::Conflict)
    }

    /// Sends the reply `message_id` with `send` if it is still owed, and
    /// notes how it went; never twice at once, never run again after a
    /// send (a failure after it leaves the reply owed, to go again under
    /// the same Message-ID). On PostgreSQL the row is locked while it is
    /// sent: another referee, on any host, waits, then finds it sent. On
    /// SQLite, whose lock is the whole store's, the row is claimed for
    /// this process instead (`sending:PID`), so others go on meanwhile; a
    /// claim whose process is gone (killed mid-send) is owed again.
    pub fn sending(
        &self,
        message_id: &str,
        send: impl FnOnce() -> Option<Delivery>,
    ) -> Result<(), StoreError> {
        if self.kind() == Kind::Postgres {
            // READ COMMITTED: a row waited for is read again once free, and
            // no conflict can undo the transaction after the send.
            let begin = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = off";
            self.db.borrow_mut().batch(begin).map_err(self.fail())?;
            let done = self.claim(message_id).and_then(|owed| match owed {
                true => send().map_or(Ok(()), |delivery| self.settle(message_id, &delivery)),
                false => Ok(()),
            });
            let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
            let ended = self.db.borrow_mut().batch(end);
            return done.and(ended.map_err(self.fail()));
        }
        // (Claims and marks are not synced: lost, a reply goes again.)
        self.claimed(message_id).and_then(|mine| match mine {
            Some(mine) => match send() {
                Some(delivery) => self.settle(message_id, &delivery),
                None => self
                    .execute(
                        "UPDATE outbox SET state = 'pending' WHERE message_id = $1 AND state = $2",
                        params![message_id, mine.as_str()],
                    )
                    .map(drop),
            },
            None => Ok(()),
        })
    }

    /// The state a reply owed is written in: on SQLite already claimed for
    /// this process, which sends it once the decision commits (no second
    /// write to claim it); on PostgreSQL pending, locked when sent.
    fn first_state(&self) -> String {
        match self.kind() {
            Kind::Sqlite => format!("sending:{}", std::process::id()),
            Kind::Postgres => "pending".to_string(),
        }
    }

    /// Claims `message_id` for this process if it is owed (pending, or
    /// claimed by a process that is gone): the claim, or `None`.
    fn claimed(&self, message_id: &str) -> Result<Option<String>, StoreError> {
        let rows: Vec<(String,)> = self.query(
            "SELECT state FROM outbox WHERE message_id = $1",
            params![message_id],
        )?;
        let Some((state,)) = rows.into_iter().next() else {
            return Ok(None);
        };
        let mine = self.first_state();
        if state == mine {
            return Ok(Some(mine)); // claimed when it was decided
        }
        let gone = |pid: &str| !Path::new("/proc").join(pid).exists();
        let free = state == "pending" || state.strip_prefix("sending:").is_some_and(gone);
        if !free {
            return Ok(None);
        }
        let took = self.execute(
            "UPDATE outbox SET state = $1 WHERE message_id = $2 AND state = $3",
            params![mine.as_str(), message_id, state.as_str()],
        )?;
        Ok((took == 1).then_some(mine))
    }

    /// Copies the store, consistent, into the SQLite file `to` while mail
    /// flows (a PostgreSQL store: `pg_dump`, see docs/operating.md).
    ///
    /// # Errors
    /// When the copy cannot be made.
    pub fn backup(&self, to: &Path) -> Result<(), StoreError> {
        self.db.borrow_mut().backup(to).map_err(self.fail())
    }
}

/// A location as the log may show it: a server address without its password.
fn shown(location: &str) -> String {
    match location.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((user, host)) => {
                let user = user.split(':').next().unwrap_or("");
                format!("{scheme}://{user}@{host}")
            }
            None => location.to_string(),
        },
        None => location.to_string(),
    }
}

/// Refuses a path that is (or sits in) a folder store of an earlier
/// referee: its games would be left behind by a new database beside them.
fn check_not_a_folder_store(path: &Path) -> Result<(), StoreError> {
    let is_folder_store = |dir: &Path| dir.join("key").is_file() && dir.is_dir();
    if path.is_dir() {
        return Err(StoreError::FolderStore(path.to_path_buf()));
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        if !path.exists() && is_folder_store(folder) {
            return Err(StoreError::FolderStore(folder.to_path_buf()));
        }
    }
    Ok(())
}

/// Seconds since 1970, for the records.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A record that mails are handled for, each once: a game, or a keyless
/// sender. Its mails are filed under its scope, each with the event it made.
pub trait Ledgered {
    /// How many of its last mails it remembers, if not all.
    const MAILS_KEPT: Option<u32>;
    /// What its mails are filed under: a game's id, or `s` and a sender's digest.
    fn scope(&self) -> String;
    /// The events made so far.
    fn events(&self) -> u32;
    fn set_events(&mut self, events: u32);
    /// Writes the record in the store's transaction.
    fn save(&self, store: &Store) -> Result<(), StoreError>;
}

impl Ledgered for GameRecord {
    /// Every one, for the game's whole life.
    const MAILS_KEPT: Option<u32> = None;
    fn scope(&self) -> String {
        self.id.to_string()
    }
    fn events(&self) -> u32 {
        self.events
    }
    fn set_events(&mut self, events: u32) {
        self.events = events;
    }
    fn save(&self, store: &Store) -> Result<(), StoreError> {
        store.save_game(self)
    }
}

impl Ledgered for SenderRecord {
    /// Enough for any re-delivery, and a flood of forged mail does not
    /// grow the store. (A game's id may begin with `s` too: before, the
    /// scope's first letter decided, and such a game forgot its mails.)
    const MAILS_KEPT: Option<u32> = Some(500);
    fn scope(&self) -> String {
        format!("s{}", self.digest)
    }
    fn events(&self) -> u32 {
        self.events
    }
    fn set_events(&mut self, events: u32) {
        self.events = events;
    }
    fn save(&self, store: &Store) -> Result<(), StoreError> {
        store.save_sender(self)
    }
}
