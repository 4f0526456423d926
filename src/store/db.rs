//! The database under the store: SQLite, built in, or a PostgreSQL server
//! (feature `postgres`), behind one small interface, so that every query
//! and the schema are written once, in SQL both accept (`$1` parameters,
//! `ON CONFLICT`, BIGINT and TEXT columns).

use std::path::Path;

pub use serde_json::Value;

/// The parameters of a query, `params![a, b]`: each any plain value
/// (text, a number, a flag, or none), as JSON holds it.
macro_rules! params {
    ($($p:expr),* $(,)?) => { &[$(serde_json::to_value($p).unwrap_or_default()),*] };
}
pub(crate) use params;

/// A row a query returns: its columns, in order.
pub type Row = Vec<Value>;

/// What the database said, and whether waiting (or trying the
/// transaction again at once) can help.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct DbError {
    pub message: String,
    pub kind: DbErrorKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbErrorKind {
    /// Another transaction got there first (PostgreSQL's serialization
    /// failure, a deadlock): the transaction is tried again at once.
    Conflict,
    /// Busy, unreachable, a full disk: the mail is kept for a later try.
    Transient,
    /// Damaged or not ours: the operator must act.
    Permanent,
}

/// Which database, for the few statements they spell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

/// One connection to the store's database.
pub trait Db {
    fn kind(&self) -> Kind;
    /// Runs statements without parameters (the schema, `COMMIT`).
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    /// Runs one statement: the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError>;
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError>;
    /// Begins a transaction that holds what it reads until it commits.
    /// PostgreSQL: serializable (a conflict is tried again). SQLite, on a
    /// first try: deferred, so that deciding (most of a mail's work) runs
    /// beside other referees, and the write lock is taken at the first
    /// write, refused at once (a conflict) if another wrote since this one
    /// began to read; on a later try the write lock is taken up front, a
    /// busy store waited for, so a decision made again cannot lose again.
    fn begin(&mut self, first_try: bool) -> Result<(), DbError>;
    /// Makes the last commit durable: a no-op where the commit itself
    /// waited for the disk (PostgreSQL).
    fn sync(&mut self) -> Result<(), DbError> {
        Ok(())
    }
    /// Copies the whole database, consistent, into a new SQLite file at
    /// `to` while others write (SQLite only: PostgreSQL has `pg_dump`).
    fn backup(&mut self, to: &Path) -> Result<(), DbError>;
}

/// Opens the database at `location`: a `postgresql://` (or `postgres://`)
/// address, else the path of a SQLite file (made if missing).
pub fn open(location: &str) -> Result<Box<dyn Db>, DbError> {
    if location.starts_with("postgresql://") || location.starts_with("postgres://") {
        #[cfg(feature = "postgres")]
        return pg::open(location).map(|db| Box::new(db) as Box<dyn Db>);
        #[cfg(not(feature = "postgres"))]
        return Err(DbError {
            message: "this mancala was built without PostgreSQL: build it with \
                      `--features postgres`"
                .into(),
            kind: DbErrorKind::Permanent,
        });
    }
    lite::open(Path::new(location)).map(|db| Box::new(db) as Box<dyn Db>)
}

mod lite {
    use std::path::Path;
    use std::time::Duration;

    use rusqlite::config::DbConfig;
    use rusqlite::types::{ToSqlOutput, ValueRef};
    use rusqlite::{Connection, ErrorCode, OpenFlags};

    use super::{Db, DbError, DbErrorKind, Kind, Row, Value};

    pub struct Lite {
        conn: Connection,
        path: std::path::PathBuf,
        /// The write-ahead log was there when the transaction under way
        /// began (else its folder is synced too).
        log_was_there: bool,
    }

    /// A parameter as SQLite takes it (a flag as 0 or 1).
    struct P<'a>(&'a Value);

    impl rusqlite::ToSql for P<'_> {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(match self.0 {
                Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
                Value::Bool(b) => ToSqlOutput::Owned(i64::from(*b).into()),
                Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) => ToSqlOutput::Owned(i.into()),
                    (None, Some(_)) => ToSqlOutput::Owned(i64::MAX.into()),
                    (None, None) => ToSqlOutput::Owned(n.as_f64().unwrap_or(0.0).into()),
                },
                Value::String(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
                other => ToSqlOutput::Owned(other.to_string().into()),
            })
        }
    }

    fn error(e: rusqlite::Error) -> DbError {
        let kind = match e.sqlite_error_code() {
            // A deferred transaction that cannot take the write lock: the
            // transaction is tried again (outside one, SQLite has waited
            // a minute already, and the mail is kept for a later try).
            Some(ErrorCode::DatabaseBusy) => DbErrorKind::Conflict,
            Some(
                ErrorCode::DatabaseLocked
                | ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure
                | ErrorCode::CannotOpen
                | ErrorCode::OutOfMemory
                | ErrorCode::PermissionDenied
                | ErrorCode::ReadOnly,
            ) => DbErrorKind::Transient,
            _ => DbErrorKind::Permanent,
        };
        DbError {
            message: e.to_string(),
            kind,
        }
    }

    /// Makes the file (and its folder) the owner's alone if missing: it
    /// holds the players' addresses and the secret, whatever the umask of
    /// the MTA that started us (SQLite's own files beside take its mode).
    fn make_private(path: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(folder)?;
        }
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
        match made {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            other => other.map(drop),
        }
    }

    /// Waits a little for another referee's write to end, for a minute in
    /// all. SQLite's own handler sleeps 1, 2, 5, 10... ms, where a write
    /// here holds the lock a millisecond or two: waiters slept past it,
    /// and eight referees did fewer mails a second than one lock file.
    fn wait_for_another(tries: i32) -> bool {
        let pause = if tries < 100 { 100 } else { 1_000 };
        std::thread::sleep(Duration::from_micros(pause));
        tries < 60_000
    }

    pub fn open(path: &Path) -> Result<Lite, DbError> {
        make_private(path).map_err(|e| DbError {
            message: format!("{}: {e}", path.display()),
            kind: DbErrorKind::Transient,
        })?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = Connection::open_with_flags(path, flags).map_err(error)?;
        // Another referee's transaction is waited for, not failed on.
        conn.busy_handler(Some(wait_for_another)).map_err(error)?;
        // One process a mail: the write-ahead log is kept for the next one
        // (checkpointed as it grows), not folded into the file and made
        // again, two fsyncs each, by every process.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(error)?;
        // WAL: readers beside the writer. NORMAL: a commit does not sync
        // under the write lock; `sync` does, after it, before any reply
        // the commit owes is sent (so referees' syncs overlap). Turning a
        // new file to WAL while another referee opens it may be refused at
        // once, not waited for: tried again for a while.
        let mut tries = 0;
        loop {
            match conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 100;") {
                Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) && tries < 200 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
                done => {
                    return done.map_err(error).map(|()| Lite {
                        conn,
                        path: path.into(),
                        log_was_there: true,
                    })
                }
            }
        }
    }

    /// `$1` as SQLite numbers its parameters, `?1`.
    fn dialect(sql: &str) -> String {
        sql.replace('$', "?")
    }

    fn value(v: ValueRef) -> Value {
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => i.into(),
            ValueRef::Real(r) => r.into(),
            ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into(),
        }
    }

    impl Lite {
        fn wal(&self) -> String {
            format!("{}-wal", self.path.display())
        }
    }

    impl Db for Lite {
        fn kind(&self) -> Kind {
            Kind::Sqlite
        }

        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.conn.execute_batch(sql).map_err(error)
        }

        fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
            let mut statement = self.conn.prepare_cached(&dialect(sql)).map_err(error)?;
            let n = statement
                .execute(rusqlite::params_from_iter(params.iter().map(P)))
                .map_err(error)?;
            Ok(n as u64)
        }

        fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
            let mut statement = self.conn.prepare_cached(&dialect(sql)).map_err(error)?;
            let columns = statement.column_count();
            let mut rows = statement
                .query(rusqlite::params_from_iter(params.iter().map(P)))
                .map_err(error)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(error)? {
                let values = (0..columns).map(|i| row.get_ref(i).map(value));
                out.push(values.collect::<Result<Row, _>>().map_err(error)?);
            }
            Ok(out)
        }

        fn begin(&mut self, first_try: bool) -> Result<(), DbError> {
            self.log_was_there = Path::new(&self.wal()).exists();
            let how = if first_try { "DEFERRED" } else { "IMMEDIATE" };
            self.batch(&format!("BEGIN {how}"))
        }

        /// The write-ahead log synced (a commit's frames are in it, or,
        /// once checkpointed, synced into the file, whatever others wrote
        /// since), and the folder that names it if it was made meanwhile.
        fn sync(&mut self) -> Result<(), DbError> {
            let failed = |e: std::io::Error| DbError {
                message: format!("{}: syncing: {e}", self.path.display()),
                kind: DbErrorKind::Transient,
            };
            std::fs::File::open(self.wal())
                .and_then(|f| f.sync_data())
                .map_err(failed)?;
            if self.log_was_there {
                return Ok(());
            }
            let folder = self.path.parent().filter(|p| !p.as_os_str().is_empty());
            std::fs::File::open(folder.unwrap_or(Path::new(".")))
                .and_then(|f| f.sync_all())
                .map_err(failed)
        }

        fn backup(&mut self, to: &Path) -> Result<(), DbError> {
            let mut target = Connection::open(to).map_err(error)?;
            let backup = rusqlite::backup::Backup::new(&self.conn, &mut target).map_err(error)?;
            // A hundred pages at a time, so writers get their turns between.
            backup
                .run_to_completion(100, Duration::from_millis(5), None)
                .map_err(error)
        }
    }
}

#[cfg(feature = "postgres")]
mod pg {
    use std::collections::HashMap;
    use std::path::Path;

    use postgres::error::SqlState;
    use postgres::types::{IsNull, ToSql, Type};
    use postgres::{Client, NoTls, Statement};

    use super::{Db, DbError, DbErrorKind, Kind, Row, Value};

    pub struct Pg {
        client: Client,
        /// Statements prepared once a connection (one round trip saved each).
        prepared: HashMap<String, Statement>,
    }

    /// A parameter as the server takes it, in the column's type.
    #[derive(Debug)]
    struct P<'a>(&'a Value);

    impl ToSql for P<'_> {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut postgres::types::private::BytesMut,
        ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            let int = |n: &serde_json::Number| n.as_i64().unwrap_or(i64::MAX);
            match self.0 {
                Value::Null => Ok(IsNull::Yes),
                Value::Bool(b) => i64::from(*b).to_sql(ty, out),
                Value::Number(n) if *ty == Type::INT4 => i32::try_from(int(n))?.to_sql(ty, out),
                Value::Number(n) if *ty == Type::FLOAT8 => n.as_f64().to_sql(ty, out),
                Value::Number(n) => int(n).to_sql(ty, out),
                Value::String(t) => t.to_sql(ty, out),
                other => other.to_string().to_sql(ty, out),
            }
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        postgres::types::to_sql_checked!();
    }

    fn error(e: postgres::Error) -> DbError {
        let kind = match e.code() {
            Some(c)
                if *c == SqlState::T_R_SERIALIZATION_FAILURE
                    || *c == SqlState::T_R_DEADLOCK_DETECTED
                    || *c == SqlState::UNIQUE_VIOLATION =>
            {
                DbErrorKind::Conflict
            }
            Some(c) if c.code().starts_with("08") || c.code().starts_with("53") => {
                DbErrorKind::Transient
            }
            None => DbErrorKind::Transient, // the connection, not the query
            Some(_) => DbErrorKind::Permanent,
        };
        // "db error" alone says nothing: the server's own words, and its code.
        let message = match e.as_db_error() {
            Some(db) => format!("{} ({})", db.message(), db.code().code()),
            None => e.to_string(),
        };
        DbError { message, kind }
    }

    pub fn open(location: &str) -> Result<Pg, DbError> {
        let client = Client::connect(location, NoTls).map_err(error)?;
        Ok(Pg {
            client,
            prepared: HashMap::new(),
        })
    }

    impl Pg {
        fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
            if let Some(s) = self.prepared.get(sql) {
                return Ok(s.clone());
            }
            let s = self.client.prepare(sql).map_err(error)?;
            self.prepared.insert(sql.to_string(), s.clone());
            Ok(s)
        }
    }

    fn run<T>(
        params: &[Value],
        with: impl FnOnce(&[&(dyn ToSql + Sync)]) -> Result<T, postgres::Error>,
    ) -> Result<T, DbError> {
        let params: Vec<P> = params.iter().map(P).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        with(&refs).map_err(error)
    }

    impl Db for Pg {
        fn kind(&self) -> Kind {
            Kind::Postgres
        }

        fn begin(&mut self, _first_try: bool) -> Result<(), DbError> {
            self.batch("BEGIN ISOLATION LEVEL SERIALIZABLE")
        }

        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.client.batch_execute(sql).map_err(error)
        }

        fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
            let statement = self.statement(sql)?;
            run(params, |p| self.client.execute(&statement, p))
        }

        fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
            let statement = self.statement(sql)?;
            let rows = run(params, |p| self.client.query(&statement, p))?;
            let value = |row: &postgres::Row, i: usize, ty: &Type| -> Result<Value, _> {
                Ok(if *ty == Type::INT8 {
                    row.try_get::<_, Option<i64>>(i)?.into()
                } else if *ty == Type::INT4 {
                    row.try_get::<_, Option<i32>>(i)?.into()
                } else if *ty == Type::BOOL {
                    row.try_get::<_, Option<bool>>(i)?.map(i64::from).into()
                } else if *ty == Type::FLOAT8 {
                    row.try_get::<_, Option<f64>>(i)?.into()
                } else {
                    row.try_get::<_, Option<String>>(i)?.into()
                })
            };
            let decode = |row: &postgres::Row| -> Result<Row, postgres::Error> {
                let columns = row.columns().iter().enumerate();
                columns.map(|(i, c)| value(row, i, c.type_())).collect()
            };
            rows.iter().map(|r| decode(r).map_err(error)).collect()
        }

        fn backup(&mut self, _to: &Path) -> Result<(), DbError> {
            Err(DbError {
                message: "a PostgreSQL store is backed up with pg_dump (docs/operating.md)".into(),
                kind: DbErrorKind::Permanent,
            })
        }
    }
}
