//! `mancala store import DIR`: a folder store of an earlier referee (one
//! JSON file per game, `senders/`, the secret in `key`) moved into the
//! database, whole or not at all. The secret comes along, so every key
//! handed out stays valid, and each game's and sender's handled mails, so
//! that an old mail delivered again is still known. Games already in the
//! database are left as they are: importing twice changes nothing.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use super::db::params;
use super::outbox::{Delivery, Outgoing};
use super::{upgrade, Store, StoreError};
use super::{GameRecord, Ledgered, MailKey, SenderRecord};

/// The newest file format a folder store was written in.
const NEWEST_FORMAT: u32 = 3;

/// A folder store's ledger: the mails a record handled, and its replies owed.
#[derive(Debug, Default, Deserialize)]
pub struct Ledger {
    pub events: u32,
    pub handled: Vec<Handled>,
    /// Older mails, as 16 hex digits of a digest each, end to end.
    #[serde(default)]
    pub older: String,
    pub outbox: Vec<Outgoing>,
}

#[derive(Debug, Deserialize)]
pub struct Handled {
    pub mail: MailKey,
    pub event: u32,
    pub time: u64,
}

#[derive(Deserialize)]
struct FileGame {
    #[serde(flatten)]
    game: GameRecord,
    ledger: Ledger,
}

#[derive(Deserialize)]
struct FileSender {
    answered: Vec<u64>,
    ledger: Ledger,
}

#[derive(Deserialize)]
struct Format {
    format: u32,
}

/// What an import did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub games: usize,
    /// Games the database held already, left as they were.
    pub present: usize,
    pub senders: usize,
    pub replies_owed: usize,
}

/// Why a folder could not be imported: each file that stopped it.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("nothing was imported:\n{}", .0.join("\n"))]
    Unreadable(Vec<String>),
}

fn read_game(text: &str) -> Result<(GameRecord, Ledger), String> {
    let format: Format = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match format.format {
        1 => upgrade::from_format_1(text),
        2..=NEWEST_FORMAT => {
            let file: FileGame = serde_json::from_str(text).map_err(|e| e.to_string())?;
            let mut game = file.game;
            game.events = file.ledger.events;
            Ok((game, file.ledger))
        }
        newer => Err(format!("format {newer}, newer than any folder store")),
    }
}

/// A regular file's text: a FIFO or a device planted in the folder is
/// refused, never read.
fn read_plain(path: &Path) -> Result<String, String> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => fs::read_to_string(path).map_err(|e| e.to_string()),
        Ok(_) => Err("not a plain file".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl Store {
    /// Imports the folder store `dir` into this database, in one
    /// transaction.
    ///
    /// # Errors
    /// When a file of the folder cannot be read (nothing is imported), the
    /// database holds games under another secret, or the store fails.
    pub fn import(dir: &Path, target: &str) -> Result<Imported, ImportError> {
        let key_path = dir.join("key");
        let secret = read_plain(&key_path).and_then(|text| match super::Secrets::new(&text) {
            Some(_) => Ok(text.trim().to_string()),
            None => Err("too short to be a secret".into()),
        });
        let secret = secret
            .map_err(|e| ImportError::Unreadable(vec![format!("{}: {e}", key_path.display())]))?;
        let (games, senders) = read_folder(dir)?;
        let store = Store::open_as_is(target)?;
        store.transact(|| store.import_records(&secret, &games, &senders))
    }

    fn import_records(
        &self,
        secret: &str,
        games: &[(GameRecord, Ledger)],
        senders: &[(String, FileSender)],
    ) -> Result<Imported, ImportError> {
        let held: Vec<(String,)> =
            self.query("SELECT value FROM meta WHERE name = 'secret'", params![])?;
        if held.first().map(|(s,)| s.as_str()) != Some(secret) {
            if !self.is_empty()? {
                return Err(ImportError::Unreadable(vec![format!(
                    "the database {} holds games under another secret: import into a new one",
                    self.location()
                )]));
            }
            self.execute(
                "UPDATE meta SET value = $1 WHERE name = 'secret'",
                params![secret],
            )?;
        }
        let mut done = Imported::default();
        for (game, ledger) in games {
            if self.load_game(&game.id)?.is_some() {
                done.present += 1;
                continue;
            }
            game.save(self)?;
            done.replies_owed += self.import_ledger(&game.scope(), ledger)?;
            done.games += 1;
        }
        for (digest, file) in senders {
            let record = SenderRecord {
                digest: digest.clone(),
                answered: file.answered.clone(),
                events: file.ledger.events,
            };
            if self.has_any_handled(&record.scope())? {
                continue;
            }
            record.save(self)?;
            done.replies_owed += self.import_ledger(&record.scope(), &file.ledger)?;
            done.senders += 1;
        }
        Ok(done)
    }

    fn has_any_handled(&self, scope: &str) -> Result<bool, StoreError> {
        let rows: Vec<(i64,)> = self.query(
            "SELECT 1 FROM handled WHERE scope = $1 LIMIT 1",
            params![scope],
        )?;
        Ok(!rows.is_empty())
    }

    /// A record's handled mails and replies owed: the replies' cause is
    /// the mail of their event, so that its delivery again sends them.
    fn import_ledger(&self, scope: &str, ledger: &Ledger) -> Result<usize, StoreError> {
        for h in &ledger.handled {
            self.execute(
                "INSERT INTO handled (scope, mail, event, time) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (scope, mail) DO NOTHING",
                params![scope, h.mail.0.as_str(), h.event, h.time],
            )?;
        }
        let older = ledger.older.as_bytes().chunks(16);
        for (i, short) in older.enumerate() {
            let short = format!("~{}", String::from_utf8_lossy(short));
            self.execute(
                "INSERT INTO handled (scope, mail, event, time) VALUES ($1, $2, 0, $3)
                 ON CONFLICT (scope, mail) DO NOTHING",
                params![scope, short.as_str(), i],
            )?;
        }
        let owed: Vec<&Outgoing> = (ledger.outbox.iter())
            .filter(|o| o.delivery == Delivery::Pending)
            .collect();
        for (n, reply) in owed.iter().enumerate() {
            let cause = (ledger.handled.iter())
                .find(|h| h.event == reply.event)
                .map_or_else(|| MailKey(format!("import-{scope}")), |h| h.mail.clone());
            self.owe(scope, (reply.event, n), &cause, reply, "pending")?;
        }
        Ok(owed.len())
    }
}

/// Every game and sender of a folder store, ended games in the order they
/// ended (the ratings are counted so), or every file that is not one.
#[allow(clippy::type_complexity)]
fn read_folder(
    dir: &Path,
) -> Result<(Vec<(GameRecord, Ledger)>, Vec<(String, FileSender)>), ImportError> {
    if !dir.is_dir() {
        let problem = format!("{}: not a folder", dir.display());
        return Err(ImportError::Unreadable(vec![problem]));
    }
    let mut problems = Vec::new();
    // Each `NAME.json` of a folder, by name, read as its text.
    let mut files = |dir: &Path| -> Vec<(String, std::path::PathBuf, String)> {
        let mut paths: Vec<_> = fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.sort();
        let mut read = Vec::new();
        for path in paths {
            let name = path
                .file_name()
                .and_then(|n| n.to_str()?.strip_suffix(".json"));
            match name.map(|name| (name.to_string(), read_plain(&path))) {
                Some((name, Ok(text))) => read.push((name, path, text)),
                Some((_, Err(e))) => problems.push(format!("{}: {e}", path.display())),
                None => {}
            }
        }
        read
    };
    let (game_files, sender_files) = (files(dir), files(&dir.join("senders")));
    let mut games = Vec::new();
    for (stem, path, text) in game_files {
        match read_game(&text) {
            // A game saved under another game's name is not that game.
            Ok((game, _)) if game.id.as_str() != stem => {
                let id = game.id;
                problems.push(format!("{}: holds game {id}, not {stem}", path.display()));
            }
            Ok(game) => games.push(game),
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    let mut senders = Vec::new();
    for (digest, path, text) in sender_files {
        match serde_json::from_str::<FileSender>(&text) {
            Ok(sender) => senders.push((digest, sender)),
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    if !problems.is_empty() {
        return Err(ImportError::Unreadable(problems));
    }
    games.sort_by_key(|(g, _)| (g.ended().unwrap_or(u64::MAX), g.created, g.id.clone()));
    Ok((games, senders))
}
