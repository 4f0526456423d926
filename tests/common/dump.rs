//! Every row of a store, a line each, read straight from its database (as
//! an operator's `sqlite3` or `psql` would), in order, with the times left
//! out and a sender's answers as their count: two stores that did the
//! same, at other moments, dump the same. The crash test and the store's
//! tests compare these.

use mancala::store::Store;

/// The tables and the columns compared (no times: `idle` and `reminded`
/// only as whether they are set).
const TABLES: [(&str, &str); 7] = [
    ("games", "SELECT id, ruleset, stones, variant, first, setup, computer, standing, conceded, started_by, inviter, inviter_confirmed, offer, conditions, board_event, events, under_way, CASE WHEN idle IS NULL THEN 1 ELSE 0 END, CASE WHEN reminded IS NULL THEN 1 ELSE 0 END FROM games ORDER BY id"),
    ("turns", "SELECT game, n, side, sowings FROM turns ORDER BY game, n"),
    ("seats", "SELECT game, side, name, address, mailbox FROM seats ORDER BY game, side"),
    ("handled", "SELECT scope, mail, event FROM handled ORDER BY scope, mail"),
    ("outbox", "SELECT message_id, scope, event, n, to_address, subject, state FROM outbox ORDER BY message_id"),
    ("senders", "SELECT digest, events, answered FROM senders ORDER BY digest"),
    ("ratings", "SELECT mailbox, ruleset, name, rating, deviation, games, wins, draws, losses FROM ratings ORDER BY mailbox, ruleset"),
];

/// A column as the dump shows it: text quoted, a concession's time left
/// out of its JSON, a sender's answers counted.
fn shown(table: &str, column: usize, value: Option<Result<i64, String>>) -> String {
    match (table, column, value) {
        (_, _, None) => "null".to_string(),
        (_, _, Some(Ok(n))) => n.to_string(),
        ("senders", 2, Some(Err(t))) => {
            format!("{} answers", t.split(',').filter(|t| !t.is_empty()).count())
        }
        (_, _, Some(Err(t))) => match serde_json::from_str::<serde_json::Value>(&t) {
            Ok(serde_json::Value::Object(mut map)) if map.contains_key("time") => {
                map.remove("time");
                serde_json::Value::Object(map).to_string()
            }
            _ => format!("{t:?}"),
        },
    }
}

pub trait Dump {
    /// Every row, a line each (see the module's comment).
    fn dump(&self) -> Result<Vec<String>, String>;
}

impl Dump for Store {
    fn dump(&self) -> Result<Vec<String>, String> {
        let location = self.location();
        let mut lines = Vec::new();
        for (table, sql) in TABLES {
            for row in rows(&location, sql)? {
                let columns = row.into_iter().enumerate();
                let shown: Vec<String> = columns.map(|(i, v)| shown(table, i, v)).collect();
                lines.push(format!("{table}: {}", shown.join(" ")));
            }
        }
        Ok(lines)
    }
}

/// Each column: none, a number (reals rounded to the millionth), or text.
type Column = Option<Result<i64, String>>;

fn rows(location: &str, sql: &str) -> Result<Vec<Vec<Column>>, String> {
    if location.starts_with("postgresql://") {
        return pg_rows(location, sql);
    }
    use rusqlite::types::ValueRef;
    let db = rusqlite::Connection::open(location).map_err(|e| e.to_string())?;
    let mut statement = db.prepare(sql).map_err(|e| e.to_string())?;
    let columns = statement.column_count();
    let mut out = Vec::new();
    let mut rows = statement.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let value = |i| match row.get_ref(i) {
            Ok(ValueRef::Integer(n)) => Some(Ok(n)),
            Ok(ValueRef::Real(r)) => Some(Ok((r * 1e6).round() as i64)),
            Ok(ValueRef::Text(t)) => Some(Err(String::from_utf8_lossy(t).into_owned())),
            _ => None,
        };
        out.push((0..columns).map(value).collect());
    }
    Ok(out)
}

#[cfg(feature = "postgres")]
fn pg_rows(location: &str, sql: &str) -> Result<Vec<Vec<Column>>, String> {
    use postgres::types::Type;
    let mut client =
        postgres::Client::connect(location, postgres::NoTls).map_err(|e| e.to_string())?;
    let rows = client.query(sql, &[]).map_err(|e| e.to_string())?;
    let value = |row: &postgres::Row, i: usize, ty: &Type| -> Column {
        if *ty == Type::INT8 {
            row.get::<_, Option<i64>>(i).map(Ok)
        } else if *ty == Type::INT4 {
            row.get::<_, Option<i32>>(i).map(|n| Ok(n.into()))
        } else if *ty == Type::FLOAT8 {
            row.get::<_, Option<f64>>(i)
                .map(|r| Ok((r * 1e6).round() as i64))
        } else {
            row.get::<_, Option<String>>(i).map(Err)
        }
    };
    let read = |row: &postgres::Row| {
        let columns = row.columns().iter().enumerate();
        columns.map(|(i, c)| value(row, i, c.type_())).collect()
    };
    Ok(rows.iter().map(read).collect())
}

#[cfg(not(feature = "postgres"))]
fn pg_rows(_: &str, _: &str) -> Result<Vec<Vec<Column>>, String> {
    Err("built without the postgres feature".into())
}
