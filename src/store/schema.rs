//! The store's schema, in one place: each version's statements in order,
//! run on first use in one transaction. A store of a newer version is
//! refused, never written.
//!
//! What each table holds:
//! - `meta`: the schema's version and the secret every key derives from.
//! - `games`, `turns`, `seats`: a game, its turns, its players (by mailbox,
//!   for the games of an address); `under_way` and `idle` are derived
//!   from the game on each save, for `mancala games` and `remind`.
//! - `handled`: each mail handled, by scope (a game's id, or `s` and a
//!   keyless sender's digest), with the event it made: a mail is handled
//!   once per game for the game's whole life.
//! - `outbox`: the replies each event owes, kept until sent (then the
//!   body is let go, the row kept as the record of what went); its state
//!   is `pending`, `sending:PID` (a SQLite referee sending it now),
//!   `sent` or `refused`.
//! - `senders`: a keyless address's answers of the last day.
//! - `ratings`, `rated`: the players' Glicko-2 rows, and the games counted.

use super::db::{params, Db, DbError, DbErrorKind, Kind, Value};

/// The schema this build writes.
pub const VERSION: i64 = 1;

const V1: &str = "
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    stones BIGINT NOT NULL,
    variant TEXT,
    first TEXT NOT NULL,
    setup TEXT,
    computer TEXT,
    standing TEXT NOT NULL,
    conceded TEXT,
    started_by TEXT NOT NULL,
    inviter TEXT NOT NULL,
    inviter_confirmed BIGINT NOT NULL,
    created BIGINT NOT NULL,
    last_activity BIGINT NOT NULL,
    reminded BIGINT,
    offer TEXT,
    conditions TEXT,
    board_event BIGINT NOT NULL,
    events BIGINT NOT NULL,
    under_way BIGINT NOT NULL,
    idle BIGINT
);
CREATE INDEX games_under_way ON games (under_way, created, id);
CREATE INDEX games_idle ON games (idle);
CREATE TABLE turns (
    game TEXT NOT NULL,
    n BIGINT NOT NULL,
    side TEXT NOT NULL,
    sowings TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (game, n)
);
CREATE TABLE seats (
    game TEXT NOT NULL,
    side TEXT NOT NULL,
    name TEXT NOT NULL,
    address TEXT,
    mailbox TEXT,
    PRIMARY KEY (game, side)
);
CREATE INDEX seats_mailbox ON seats (mailbox);
CREATE TABLE handled (
    scope TEXT NOT NULL,
    mail TEXT NOT NULL,
    event BIGINT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (scope, mail)
);
CREATE TABLE outbox (
    message_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    event BIGINT NOT NULL,
    n BIGINT NOT NULL,
    cause TEXT NOT NULL,
    to_name TEXT,
    to_address TEXT NOT NULL,
    reply_to TEXT,
    subject TEXT NOT NULL,
    body TEXT,
    in_reply_to TEXT,
    refs TEXT NOT NULL,
    html TEXT,
    state TEXT NOT NULL,
    why TEXT,
    time BIGINT NOT NULL
);
CREATE INDEX outbox_owed ON outbox (cause) WHERE state NOT IN ('sent', 'refused');
CREATE INDEX outbox_owed_by_scope ON outbox (scope) WHERE state NOT IN ('sent', 'refused');
CREATE TABLE senders (
    digest TEXT PRIMARY KEY,
    events BIGINT NOT NULL,
    answered TEXT NOT NULL
);
CREATE TABLE ratings (
    mailbox TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    name TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    PRIMARY KEY (mailbox, ruleset)
);
CREATE INDEX ratings_best ON ratings (ruleset, rating);
CREATE TABLE rated (game TEXT PRIMARY KEY);
";

/// Each version's statements, the first making version 1.
const MIGRATIONS: [&str; 1] = [V1];

/// What opening found.
pub enum Opened {
    /// The schema is this build's.
    Current,
    /// The store is of a newer referee's schema.
    Newer(i64),
}

/// The version a `SELECT value FROM meta WHERE name = 'schema'` found:
/// none is 0, one unreadable newer than any.
fn version(rows: &[Vec<Value>]) -> i64 {
    match rows.first().and_then(|r| r.first()) {
        Some(Value::String(v)) => v.parse().unwrap_or(i64::MAX),
        _ => 0,
    }
}

/// Brings the schema up to [`VERSION`], in one transaction, and makes the
/// secret if the store has none; refuses a newer one.
pub fn migrate(db: &mut dyn Db, fresh_secret: &str) -> Result<Opened, DbError> {
    // Most opens find the schema current: read without the write lock.
    let current = db.query("SELECT value FROM meta WHERE name = 'schema'", params![]);
    if current.is_ok_and(|rows| version(&rows) == VERSION) {
        return Ok(Opened::Current);
    }
    let mut tries = 0;
    loop {
        tries += 1;
        match migrate_once(db, fresh_secret) {
            Err(e) if e.kind == DbErrorKind::Conflict && tries < 10 => continue,
            done => return done,
        }
    }
}

fn migrate_once(db: &mut dyn Db, fresh_secret: &str) -> Result<Opened, DbError> {
    db.begin(false)?;
    let done = (|| {
        if db.kind() == Kind::Postgres {
            // Two referees starting on a new store: one migrates, the other waits.
            db.execute("SELECT pg_advisory_xact_lock(7307)", params![])?;
        }
        db.batch("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")?;
        let found = version(&db.query("SELECT value FROM meta WHERE name = 'schema'", params![])?);
        if found > VERSION {
            return Ok(Opened::Newer(found));
        }
        if found == VERSION {
            return Ok(Opened::Current); // (nothing written: no conflict with another's open)
        }
        for sql in MIGRATIONS.iter().skip(usize::try_from(found).unwrap_or(0)) {
            db.batch(sql)?;
        }
        db.execute(
            "INSERT INTO meta (name, value) VALUES ('schema', $1)
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            params![VERSION.to_string().as_str()],
        )?;
        db.execute(
            "INSERT INTO meta (name, value) VALUES ('secret', $1) ON CONFLICT (name) DO NOTHING",
            params![fresh_secret],
        )?;
        Ok(Opened::Current)
    })();
    match done {
        Ok(opened) => db.batch("COMMIT").map(|()| opened),
        Err(e) => {
            let _ = db.batch("ROLLBACK");
            Err(e)
        }
    }
}
