//! The referee's store: one JSON file per game, written so that a crash
//! leaves the old state or the new one, locked per game so that mails for
//! one game are handled one at a time, and a secret key from which each
//! player's per-game key is derived. It knows games and players, not mail.
//!
//! The file format (`<store>/<id>.json`, `format` 1):
//!
//! ```text
//! {
//!   "format": 1, "id": "k7q2mx", "ruleset": "super-wari", "stones": 3, "first": "south",
//!   "south": {"name": "Alice", "address": "alice@players.example"},
//!   "north": {"name": "Bob", "address": "bob@players.example"},
//!   "turns": [{"side": "south", "sowings": "c", "message_id": "a1@players.example", "time": 1796029500}],
//!   "conceded": null,          // or {"side": "north", "reason": "resignation", "time": ...}
//!   "created": 1796029400,     // times are seconds since 1970, UTC
//!   "last_activity": 1796029500,
//!   "reminded": null,          // when the player to move was last nudged
//!   "mails": [{"message_id": "a1@players.example", "time": 1796029500, "sent": true}],
//!   "outbox": []               // replies decided but not yet sent
//! }
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use crate::engine::{EndReason, Game, Pit, Ruleset, Side};
use crate::sheet::{self, Player, Players, Sheet};

pub const FORMAT: u32 = 1;

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    pub name: String,
    pub address: Option<String>,
}

/// One turn: a side's sowings (`c-f`), and the mail that made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub side: String,
    pub sowings: String,
    pub message_id: Option<String>,
    pub time: u64,
}

/// A game ended by a player's word or clock, not by the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Concession {
    /// The side that lost.
    pub side: String,
    /// `resignation` or `forfeit`.
    pub reason: String,
    pub time: u64,
}

/// A mail the referee has handled, by Message-ID, and whether its replies
/// went out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandledMail {
    pub message_id: String,
    pub time: u64,
    pub sent: bool,
}

/// A reply decided and kept until it is sent, so a retry sends the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredMail {
    /// The Message-ID of the mail this answers.
    pub answers: String,
    pub to: Vec<PlayerRecord>,
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
}

/// One game as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
    pub id: String,
    pub ruleset: String,
    pub stones: u8,
    pub first: String,
    pub south: PlayerRecord,
    pub north: PlayerRecord,
    pub turns: Vec<TurnRecord>,
    pub conceded: Option<Concession>,
    pub created: u64,
    pub last_activity: u64,
    pub reminded: Option<u64>,
    pub mails: Vec<HandledMail>,
    pub outbox: Vec<StoredMail>,
    /// The side the referee itself plays, in a game against the computer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<String>,
}

/// What can go wrong with the store: the disk, or a file that is not a game.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("{path}: not a game file: {error}")]
    Format { path: PathBuf, error: String },
    #[error("no game '{0}' in the store")]
    NoGame(String),
}

impl StoreError {
    /// Trying again later may help (a full disk, a lock, a permission fixed).
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Io { .. })
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    }
}

impl GameRecord {
    /// A new game, nobody to move yet but the first player.
    pub fn new(id: &str, sheet: &Sheet, now: u64) -> GameRecord {
        let rules = sheet.game.rules();
        let player = |p: &Player| PlayerRecord {
            name: p.name.clone(),
            address: p.address.clone(),
        };
        let mut record = GameRecord {
            format: FORMAT,
            id: id.to_string(),
            ruleset: rules.ruleset.as_str().to_string(),
            stones: rules.stones,
            first: sheet.game.first().as_str().to_string(),
            south: player(&sheet.players.south),
            north: player(&sheet.players.north),
            turns: Vec::new(),
            conceded: None,
            created: now,
            last_activity: now,
            reminded: None,
            mails: Vec::new(),
            outbox: Vec::new(),
            computer: None,
        };
        record.set_turns(&sheet.game, None, now);
        record
    }

    /// Records the game's turns beyond those already stored (and a turn
    /// grown by bonus sowings), as made by one mail.
    pub fn set_turns(&mut self, game: &Game, message_id: Option<&str>, now: u64) {
        for (i, (side, sowings)) in sheet::turns_of(game).into_iter().enumerate() {
            let written = sowings
                .iter()
                .map(Pit::to_string)
                .collect::<Vec<_>>()
                .join("-");
            match self.turns.get_mut(i) {
                Some(turn) if turn.sowings == written => continue,
                Some(turn) => turn.sowings = written,
                None => self.turns.push(TurnRecord {
                    side: side.as_str().to_string(),
                    sowings: written,
                    message_id: message_id.map(str::to_string),
                    time: now,
                }),
            }
            self.last_activity = now;
            self.reminded = None;
        }
    }

    /// `side` gave up or ran out of time.
    pub fn concede(&mut self, side: Side, reason: EndReason, now: u64) {
        self.conceded = Some(Concession {
            side: side.as_str().to_string(),
            reason: reason.as_str().to_string(),
            time: now,
        });
        self.last_activity = now;
    }

    /// The game, replayed from its turns.
    ///
    /// # Errors
    /// When the record names no game, or holds a move the rules refuse.
    pub fn sheet(&self) -> Result<Sheet, String> {
        let ruleset: Ruleset = self.ruleset.parse().map_err(|e| format!("{e}"))?;
        let rules = ruleset
            .with_stones(self.stones)
            .map_err(|e| e.to_string())?;
        let first: Side = self.first.parse().map_err(|e| format!("{e}"))?;
        let player = |p: &PlayerRecord| Player {
            name: p.name.clone(),
            address: p.address.clone(),
        };
        let mut sheet = Sheet::with_first(
            rules,
            Players {
                south: player(&self.south),
                north: player(&self.north),
            },
            first,
        );
        sheet.id = Some(self.id.clone());
        for (i, turn) in self.turns.iter().enumerate() {
            let sowings =
                sheet::parse_sowings(&turn.sowings).map_err(|e| format!("turn {}: {e}", i + 1))?;
            sheet
                .play(&sowings)
                .map_err(|e| format!("turn {}: {e}", i + 1))?;
        }
        if let Some(conceded) = &self.conceded {
            let side: Side = conceded.side.parse().map_err(|e| format!("{e}"))?;
            if conceded.reason == EndReason::Forfeit.as_str() {
                sheet.game.forfeit(side);
            } else {
                sheet.game.resign(side);
            }
        }
        Ok(sheet)
    }

    /// One line for a list of games: `k7q2mx  super-wari  Alice v Bob  Bob to move`.
    pub fn summary(&self) -> String {
        let state = match self.sheet() {
            Ok(sheet) => match sheet.game.to_move() {
                Some(side) => format!("{} to move", sheet.name(side)),
                None => "over".to_string(),
            },
            Err(e) => format!("unreadable: {e}"),
        };
        format!(
            "{}  {:<10}  {} v {}  {state}",
            self.id, self.ruleset, self.south.name, self.north.name
        )
    }

    /// Is `address` one of the players?
    pub fn has_player(&self, address: &str) -> bool {
        [&self.south, &self.north].iter().any(|p| {
            p.address
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(address))
        })
    }

    /// The side the referee plays, if it plays one.
    pub fn computer_side(&self) -> Option<Side> {
        self.computer.as_deref().and_then(|s| s.parse().ok())
    }

    pub fn player(&self, side: Side) -> &PlayerRecord {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }

    /// This mail's entry, if it was handled before.
    pub fn handled(&self, message_id: &str) -> Option<&HandledMail> {
        self.mails.iter().find(|m| m.message_id == message_id)
    }

    /// Keeps `replies` as the answer to `message_id`, to be sent.
    pub fn remember(&mut self, message_id: &str, replies: Vec<StoredMail>, now: u64) {
        self.mails.push(HandledMail {
            message_id: message_id.to_string(),
            time: now,
            sent: replies.is_empty(),
        });
        self.outbox.extend(replies);
    }

    /// The replies to `message_id` went out.
    pub fn mark_sent(&mut self, message_id: &str) {
        for mail in &mut self.mails {
            if mail.message_id == message_id {
                mail.sent = true;
            }
        }
        self.outbox.retain(|m| m.answers != message_id);
    }
}

/// A lock on one game, held until dropped.
#[derive(Debug)]
pub struct GameLock {
    _file: File,
}

/// The store: a folder of game files, their locks, and the key.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// Letters for game ids: no 0/o, 1/l to misread.
const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
const ID_LENGTH: usize = 6;

impl Store {
    /// The store in `dir`, made if missing (readable by its owner only).
    ///
    /// # Errors
    /// When the folder cannot be made.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        fs::create_dir_all(dir).map_err(io_error(dir))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
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

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Is `id` the shape of a game id (and so safe in a file name)?
    pub fn is_id(id: &str) -> bool {
        id.len() == ID_LENGTH && id.bytes().all(|b| ID_ALPHABET.contains(&b))
    }

    /// The secret from which the players' keys derive, made on first use.
    ///
    /// # Errors
    /// When it cannot be read or made.
    pub fn secrets(&self) -> Result<Secrets, StoreError> {
        let path = self.dir.join("key");
        // Written whole beside it, then linked into place: whoever links
        // first wins, and nobody ever reads a key half written.
        if !path.exists() {
            let mut fresh = [0u8; 32];
            SystemRandom::new()
                .fill(&mut fresh)
                .map_err(|_| StoreError::Io {
                    path: path.clone(),
                    error: io::Error::other("no random numbers"),
                })?;
            let hex: String = fresh.iter().map(|b| format!("{b:02x}")).collect();
            let temp = self.dir.join(format!(".key.{}.tmp", std::process::id()));
            let mut options = OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let written = options
                .open(&temp)
                .and_then(|mut file| {
                    file.write_all(hex.as_bytes())
                        .and_then(|()| file.sync_all())
                })
                .and_then(|()| match fs::hard_link(&temp, &path) {
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
                    other => other,
                });
            let _ = fs::remove_file(&temp);
            written.map_err(io_error(&path))?;
        }
        let text = fs::read_to_string(&path).map_err(io_error(&path))?;
        if text.trim().len() < 32 {
            return Err(StoreError::Format {
                path,
                error: "the key is too short".into(),
            });
        }
        Ok(Secrets {
            key: hmac::Key::new(hmac::HMAC_SHA256, text.trim().as_bytes()),
        })
    }

    /// A fresh game id, not yet used in this store.
    ///
    /// # Errors
    /// When no random numbers can be had.
    pub fn new_id(&self) -> Result<String, StoreError> {
        let random = SystemRandom::new();
        loop {
            let mut bytes = [0u8; ID_LENGTH];
            random.fill(&mut bytes).map_err(|_| StoreError::Io {
                path: self.dir.clone(),
                error: io::Error::other("no random numbers"),
            })?;
            let id: String = bytes
                .iter()
                .map(|b| char::from(ID_ALPHABET[usize::from(*b) % ID_ALPHABET.len()]))
                .collect();
            if !self.path(&id).exists() {
                return Ok(id);
            }
        }
    }

    /// Waits for, then holds, the lock of game `id`: mails for one game are
    /// handled one at a time; other games are not held up.
    ///
    /// # Errors
    /// When the lock file cannot be opened or locked.
    pub fn lock(&self, id: &str) -> Result<GameLock, StoreError> {
        let path = self.dir.join(format!("{id}.lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_error(&path))?;
        file.lock().map_err(io_error(&path))?;
        Ok(GameLock { _file: file })
    }

    /// Game `id`, or `None` if the store has no such game.
    ///
    /// # Errors
    /// When the file cannot be read or is not a game.
    pub fn load(&self, id: &str) -> Result<Option<GameRecord>, StoreError> {
        if !Store::is_id(id) {
            return Ok(None);
        }
        let path = self.path(id);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path)(e)),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Format {
                path,
                error: e.to_string(),
            })
    }

    /// Writes the game durably: a temporary file, synced, renamed over the
    /// old one, and the folder synced. A crash leaves the old or the new.
    ///
    /// # Errors
    /// When any step fails; the old file is then untouched.
    pub fn save(&self, record: &GameRecord) -> Result<(), StoreError> {
        let path = self.path(&record.id);
        let temp = self
            .dir
            .join(format!(".{}.{}.tmp", record.id, std::process::id()));
        let text = serde_json::to_string_pretty(record).map_err(|e| StoreError::Format {
            path: path.clone(),
            error: e.to_string(),
        })?;
        let write = || -> io::Result<()> {
            let mut file = File::create(&temp)?;
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            fs::rename(&temp, &path)?;
            File::open(&self.dir)?.sync_all()
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&temp);
            io_error(&path)(e)
        })
    }

    fn start_note(&self, message_id: &str) -> PathBuf {
        // FNV-1a: a file name from any Message-ID; the note holds the ID itself.
        let hash = message_id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        self.dir.join("starts").join(format!("{hash:016x}"))
    }

    /// The game a mail with this Message-ID started, if one did.
    ///
    /// # Errors
    /// When the note cannot be read.
    pub fn started_by(&self, message_id: &str) -> Result<Option<String>, StoreError> {
        let path = self.start_note(message_id);
        match fs::read_to_string(&path) {
            Ok(text) => Ok(text
                .split_once('\n')
                .filter(|(id_of_mail, _)| *id_of_mail == message_id)
                .map(|(_, game)| game.trim().to_string())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    /// Notes that the mail `message_id` started game `id`.
    ///
    /// # Errors
    /// When the note cannot be written.
    pub fn note_start(&self, message_id: &str, id: &str) -> Result<(), StoreError> {
        let path = self.start_note(message_id);
        let dir = self.dir.join("starts");
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        fs::write(&path, format!("{message_id}\n{id}\n")).map_err(io_error(&path))
    }

    /// Every game in the store, oldest first; files that are not games are skipped.
    ///
    /// # Errors
    /// When the folder cannot be read.
    pub fn list(&self) -> Result<Vec<GameRecord>, StoreError> {
        let mut games = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(io_error(&self.dir))? {
            let entry = entry.map_err(io_error(&self.dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".json") {
                if let Ok(Some(record)) = self.load(id) {
                    games.push(record);
                }
            }
        }
        games.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(games)
    }
}

/// The players' keys: each player of each game has one, derived from the
/// store's secret, that only the referee's mails to that player carry.
pub struct Secrets {
    key: hmac::Key,
}

/// Hex digits of a player's key.
const TOKEN_LENGTH: usize = 12;

impl Secrets {
    /// The key of `side` in game `id`: `id-` and 12 hex digits of an HMAC.
    pub fn token(&self, id: &str, side: Side) -> String {
        let tag = hmac::sign(&self.key, format!("{id}:{}", side.as_str()).as_bytes());
        let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        format!("{id}-{}", &hex[..TOKEN_LENGTH])
    }

    /// Whose key `token` is, if it is one: the game and the side.
    pub fn check(&self, token: &str) -> Option<(String, Side)> {
        let (id, _) = token.split_once('-')?;
        if !Store::is_id(id) {
            return None;
        }
        Side::BOTH.into_iter().find_map(|side| {
            constant_time_eq(self.token(id, side).as_bytes(), token.as_bytes())
                .then(|| (id.to_string(), side))
        })
    }
}

/// Compares without stopping at the first difference, so the time taken
/// tells a forger nothing.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Seconds since 1970, for the records.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_store(name: &str) -> Store {
        let dir = std::env::temp_dir().join(format!("mancala-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Store::open(&dir).unwrap()
    }

    #[test]
    fn records_round_trip_through_the_file() {
        let store = temp_store("round-trip");
        let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Alice", "Bob"));
        sheet.play(&sheet::parse_sowings("c").unwrap()).unwrap();
        let id = store.new_id().unwrap();
        let mut record = GameRecord::new(&id, &sheet, 100);
        assert_eq!(record.turns.len(), 1);
        assert_eq!(record.turns[0].sowings, "c");
        // The bonus sowing completes the same turn.
        sheet.play(&sheet::parse_sowings("f").unwrap()).unwrap();
        record.set_turns(&sheet.game, Some("m1@x"), 200);
        assert_eq!(record.turns.len(), 1);
        assert_eq!(record.turns[0].sowings, "c-f");
        store.save(&record).unwrap();
        let loaded = store.load(&id).unwrap().unwrap();
        assert_eq!(loaded, record);
        assert_eq!(loaded.sheet().unwrap().game.sowings(), sheet.game.sowings());
        assert_eq!(store.list().unwrap().len(), 1);
        assert!(store.load("nosuch").unwrap().is_none());
        assert!(store.load("../etc").unwrap().is_none());
    }

    #[test]
    fn keys_are_per_game_and_side_and_checked() {
        let store = temp_store("keys");
        let secrets = store.secrets().unwrap();
        let south = secrets.token("abcdef", Side::South);
        let north = secrets.token("abcdef", Side::North);
        assert_ne!(south, north);
        assert!(south.starts_with("abcdef-"));
        assert_eq!(
            secrets.check(&south),
            Some(("abcdef".to_string(), Side::South))
        );
        assert_eq!(
            secrets.check(&north),
            Some(("abcdef".to_string(), Side::North))
        );
        assert_eq!(secrets.check("abcdef-000000000000"), None);
        assert_eq!(
            secrets.check(
                &secrets
                    .token("ghijkm", Side::South)
                    .replace("ghijkm", "abcdef")
            ),
            None
        );
        // The same store gives the same keys again.
        assert_eq!(store.secrets().unwrap().token("abcdef", Side::South), south);
        let other = temp_store("keys-other");
        assert_ne!(other.secrets().unwrap().token("abcdef", Side::South), south);
    }

    #[test]
    fn handled_mails_and_the_outbox() {
        let sheet = Sheet::new(Ruleset::Wari.rules(), Players::default());
        let mut record = GameRecord::new("abcdef", &sheet, 1);
        let reply = StoredMail {
            answers: "m1".into(),
            to: vec![],
            reply_to: None,
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
            references: vec![],
        };
        record.remember("m1", vec![reply], 2);
        assert!(!record.handled("m1").unwrap().sent);
        assert_eq!(record.outbox.len(), 1);
        record.mark_sent("m1");
        assert!(record.handled("m1").unwrap().sent);
        assert!(record.outbox.is_empty());
        assert!(record.handled("m2").is_none());
    }
}
