//! The database under the store: SQLite, built in, or a PostgreSQL server
//! (feature `postgres`), behind one small interface, so that every query
//! and the schema are written once, in SQL both accept (`$1` parameters,
//! `ON CONFLICT`, BIGINT and TEXT columns).

use std::path::Path;

/// A value a query is given. Integers are BIGINT on both databases.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Int(Option<i64>),
    Real(f64),
    Text(Option<&'a str>),
}

/// Counts, times and flags, as BIGINT (a count past i64 is none we keep).
macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl From<$t> for Param<'_> {
            fn from(v: $t) -> Self {
                Param::Int(Some(i64::try_from(v).unwrap_or(i64::MAX)))
            }
        }
    )*};
}
int_param!(i64, u64, u32, usize, bool);

impl From<Option<u64>> for Param<'_> {
    fn from(v: Option<u64>) -> Self {
        Param::Int(v.map(|v| i64::try_from(v).unwrap_or(i64::MAX)))
    }
}
impl From<f64> for Param<'_> {
    fn from(v: f64) -> Self {
        Param::Real(v)
    }
}
impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Param::Text(v)
    }
}

/// The parameters of a query: `params![a, b]`.
macro_rules! params {
    ($($p:expr),* $(,)?) => { &[$($crate::store::db::Param::from($p)),*] };
}
pub(crate) use params;

/// A value a query returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

/// A row a query returns; its getters say which column was not as expected.
#[derive(Clone, Debug)]
pub struct Row(Vec<Value>);

impl Row {
    /// Column `i`, if the row has one.
    pub fn value(&self, i: usize) -> Result<&Value, DbError> {
        self.0
            .get(i)
            .ok_or_else(|| DbError::shape(i, "a column", &Value::Null))
    }

    fn at(&self, i: usize) -> &Value {
        self.0.get(i).unwrap_or(&Value::Null)
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, DbError> {
        match self.at(i) {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            other => Err(DbError::shape(i, "an integer", other)),
        }
    }

    pub fn int(&self, i: usize) -> Result<i64, DbError> {
        self.opt_int(i)?
            .ok_or_else(|| DbError::shape(i, "an integer", &Value::Null))
    }

    /// A count or a time, never negative.
    pub fn uint(&self, i: usize) -> Result<u64, DbError> {
        let v = self.int(i)?;
        u64::try_from(v).map_err(|_| DbError::shape(i, "a count", &Value::Int(v)))
    }

    pub fn opt_uint(&self, i: usize) -> Result<Option<u64>, DbError> {
        self.opt_int(i)?
            .map(|v| u64::try_from(v).map_err(|_| DbError::shape(i, "a count", &Value::Int(v))))
            .transpose()
    }

    pub fn small(&self, i: usize) -> Result<u32, DbError> {
        let v = self.int(i)?;
        u32::try_from(v).map_err(|_| DbError::shape(i, "a count", &Value::Int(v)))
    }

    pub fn real(&self, i: usize) -> Result<f64, DbError> {
        match self.at(i) {
            Value::Real(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            other => Err(DbError::shape(i, "a number", other)),
        }
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>, DbError> {
        match self.at(i) {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            other => Err(DbError::shape(i, "text", other)),
        }
    }

    pub fn text(&self, i: usize) -> Result<String, DbError> {
        self.opt_text(i)?
            .ok_or_else(|| DbError::shape(i, "text", &Value::Null))
    }
}

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

impl DbError {
    fn shape(column: usize, wanted: &str, got: &Value) -> DbError {
        DbError {
            message: format!("column {column} holds {got:?}, not {wanted}"),
            kind: DbErrorKind::Permanent,
        }
    }
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
    fn execute(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError>;
    fn query(&mut self, sql: &str, params: &[Param]) -> Result<Vec<Row>, DbError>;
    /// Begins a transaction that holds what it reads until it commits:
    /// SQLite's write lock taken up front (a busy store waits), or
    /// PostgreSQL's serializable isolation (a conflict is tried again).
    fn begin(&mut self) -> Result<(), DbError> {
        match self.kind() {
            Kind::Sqlite => self.batch("BEGIN IMMEDIATE"),
            Kind::Postgres => self.batch("BEGIN ISOLATION LEVEL SERIALIZABLE"),
        }
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

    use super::{Db, DbError, DbErrorKind, Kind, Param, Row, Value};

    pub struct Lite(Connection);

    impl rusqlite::ToSql for Param<'_> {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(ToSqlOutput::Borrowed(match *self {
                Param::Int(Some(v)) => ValueRef::Integer(v),
                Param::Real(v) => ValueRef::Real(v),
                Param::Text(Some(v)) => ValueRef::Text(v.as_bytes()),
                Param::Int(None) | Param::Text(None) => ValueRef::Null,
            }))
        }
    }

    fn error(e: rusqlite::Error) -> DbError {
        let kind = match e.sqlite_error_code() {
            Some(
                ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
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

    pub fn open(path: &Path) -> Result<Lite, DbError> {
        make_private(path).map_err(|e| DbError {
            message: format!("{}: {e}", path.display()),
            kind: DbErrorKind::Transient,
        })?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(path, flags).map_err(error)?;
        // Another referee's transaction is waited for, not failed on.
        conn.busy_timeout(Duration::from_secs(60)).map_err(error)?;
        // One process a mail: the write-ahead log is kept for the next one
        // (checkpointed as it grows), not folded into the file and made
        // again, two fsyncs each, by every process.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(error)?;
        // WAL: readers beside the writer; FULL: a commit is on the disk
        // before a reply it owes is sent. Turning a new file to WAL while
        // another referee opens it may be refused at once, not waited for:
        // tried again for a while.
        let mut tries = 0;
        loop {
            match conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;") {
                Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) && tries < 200 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
                done => return done.map(|()| Lite(conn)).map_err(error),
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
            ValueRef::Integer(i) => Value::Int(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) | ValueRef::Blob(t) => {
                Value::Text(String::from_utf8_lossy(t).into_owned())
            }
        }
    }

    impl Db for Lite {
        fn kind(&self) -> Kind {
            Kind::Sqlite
        }

        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.0.execute_batch(sql).map_err(error)
        }

        fn execute(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
            let mut statement = self.0.prepare_cached(&dialect(sql)).map_err(error)?;
            let n = statement
                .execute(rusqlite::params_from_iter(params))
                .map_err(error)?;
            Ok(n as u64)
        }

        fn query(&mut self, sql: &str, params: &[Param]) -> Result<Vec<Row>, DbError> {
            let mut statement = self.0.prepare_cached(&dialect(sql)).map_err(error)?;
            let columns = statement.column_count();
            let mut rows = statement
                .query(rusqlite::params_from_iter(params))
                .map_err(error)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(error)? {
                let values = (0..columns)
                    .map(|i| row.get_ref(i).map(value))
                    .collect::<Result<Vec<Value>, _>>()
                    .map_err(error)?;
                out.push(Row(values));
            }
            Ok(out)
        }

        fn backup(&mut self, to: &Path) -> Result<(), DbError> {
            let mut target = Connection::open(to).map_err(error)?;
            let backup = rusqlite::backup::Backup::new(&self.0, &mut target).map_err(error)?;
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

    use super::{Db, DbError, DbErrorKind, Kind, Param, Row, Value};

    pub struct Pg {
        client: Client,
        /// Statements prepared once a connection (one round trip saved each).
        prepared: HashMap<String, Statement>,
    }

    impl ToSql for Param<'_> {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut postgres::types::private::BytesMut,
        ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            match *self {
                Param::Int(Some(v)) if *ty == Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
                Param::Int(Some(v)) => v.to_sql(ty, out),
                Param::Real(v) => v.to_sql(ty, out),
                Param::Text(Some(v)) => v.to_sql(ty, out),
                Param::Int(None) | Param::Text(None) => Ok(IsNull::Yes),
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

    fn refs<'a>(params: &'a [Param<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
        params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
    }

    impl Db for Pg {
        fn kind(&self) -> Kind {
            Kind::Postgres
        }

        fn batch(&mut self, sql: &str) -> Result<(), DbError> {
            self.client.batch_execute(sql).map_err(error)
        }

        fn execute(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
            let statement = self.statement(sql)?;
            self.client
                .execute(&statement, &refs(params))
                .map_err(error)
        }

        fn query(&mut self, sql: &str, params: &[Param]) -> Result<Vec<Row>, DbError> {
            let statement = self.statement(sql)?;
            let rows = self
                .client
                .query(&statement, &refs(params))
                .map_err(error)?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                let mut values = Vec::with_capacity(row.len());
                for (i, column) in row.columns().iter().enumerate() {
                    let ty = column.type_();
                    let value = if *ty == Type::INT8 {
                        row.try_get::<_, Option<i64>>(i).map(|v| v.map(Value::Int))
                    } else if *ty == Type::INT4 {
                        (row.try_get::<_, Option<i32>>(i)).map(|v| v.map(|v| Value::Int(v.into())))
                    } else if *ty == Type::BOOL {
                        (row.try_get::<_, Option<bool>>(i)).map(|v| v.map(|v| Value::Int(v.into())))
                    } else if *ty == Type::FLOAT8 {
                        row.try_get::<_, Option<f64>>(i).map(|v| v.map(Value::Real))
                    } else {
                        row.try_get::<_, Option<String>>(i)
                            .map(|v| v.map(Value::Text))
                    };
                    values.push(value.map_err(error)?.unwrap_or(Value::Null));
                }
                out.push(Row(values));
            }
            Ok(out)
        }

        fn backup(&mut self, _to: &Path) -> Result<(), DbError> {
            Err(DbError {
                message: "a PostgreSQL store is backed up with pg_dump (docs/operating.md)".into(),
                kind: DbErrorKind::Permanent,
            })
        }
    }
}
