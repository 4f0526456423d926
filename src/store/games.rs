//! Games, senders, the mails handled and the replies owed, in SQL.

use serde_json::{Map, Value};

use super::db::{params, Row};
use super::outbox::{Delivery, Mailbox, Outgoing};
use super::ratings;
use super::{GameId, GameRecord, Ledgered, MailKey, PlayerRecord, SenderRecord, Standing};
use super::{Store, StoreError};
use crate::address::mailbox_key;
use crate::engine::{Game, Pit, Side};

/// A game's columns, each a field of [`GameRecord`] by name.
const GAME_COLUMNS: &str = "id, ruleset, stones, variant, first, setup, computer, standing, \
     conceded, started_by, inviter, inviter_confirmed, created, last_activity, reminded, offer, \
     conditions, board_event, events";

/// The columns that hold a field as JSON text.
const JSON_COLUMNS: [&str; 5] = ["setup", "standing", "conceded", "offer", "conditions"];

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn sowings_text(pits: &[Pit]) -> String {
    pits.iter().map(|p| p.letter()).collect()
}

impl Store {
    /// The game of a row of [`GAME_COLUMNS`], with its seats and turns.
    fn game_of_row(&self, row: Row) -> Result<GameRecord, StoreError> {
        let id = row.first().cloned().unwrap_or_default();
        let bad = |e: &dyn std::fmt::Display| {
            self.corrupt(format!("game {}", id.as_str().unwrap_or("?")), e)
        };
        let mut fields = Map::new();
        for (name, value) in GAME_COLUMNS.split(", ").zip(row) {
            let value = match (name, value) {
                (_, Value::String(t)) if JSON_COLUMNS.contains(&name) => {
                    serde_json::from_str(&t).map_err(|e| bad(&format!("{name}: {e}")))?
                }
                ("inviter_confirmed", v) => Value::Bool(v.as_i64().is_some_and(|v| v != 0)),
                (_, v) => v,
            };
            fields.insert(name.to_string(), value);
        }
        fields.retain(|_, v| !v.is_null()); // (a field left out is its default)
        let seats: Vec<(Side, String, Option<String>)> = self.query(
            "SELECT side, name, address FROM seats WHERE game = $1",
            params![&id],
        )?;
        for (side, name, address) in seats {
            let player = PlayerRecord { name, address };
            fields.insert(
                side.as_str().into(),
                serde_json::to_value(player).unwrap_or_default(),
            );
        }
        let turns: Vec<(Side, String, u64)> = self.query(
            "SELECT side, sowings, time FROM turns WHERE game = $1 ORDER BY n",
            params![&id],
        )?;
        let turns = turns.into_iter().map(|(side, sowings, time)| {
            let sowings: Vec<String> = sowings.chars().map(String::from).collect();
            serde_json::json!({ "side": side, "sowings": sowings, "time": time })
        });
        fields.insert("turns".into(), turns.collect());
        serde_json::from_value(Value::Object(fields)).map_err(|e| bad(&e))
    }

    /// Game `id`, or `None` if the store has no such game.
    ///
    /// # Errors
    /// When it cannot be read, or is not a game.
    pub fn load_game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        let rows: Vec<Row> = self.query(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"),
            params![id.as_str()],
        )?;
        rows.into_iter()
            .next()
            .map(|row| self.game_of_row(row))
            .transpose()
    }

    fn games_where(&self, condition: &str, params: &[Value]) -> Listing {
        let mut listing = Listing::default();
        let sql = format!("SELECT {GAME_COLUMNS} FROM games {condition}");
        match self.query::<Row>(&sql, params) {
            Ok(rows) => {
                for row in rows {
                    match self.game_of_row(row) {
                        Ok(record) => listing.games.push(record),
                        Err(e) => listing.unreadable.push(e),
                    }
                }
            }
            Err(e) => listing.unreadable.push(e),
        }
        listing
    }

    /// Writes the game: its row, its seats, and its turns from the first
    /// that changed; a game newly ended is counted in the ratings.
    pub fn save_game(&self, record: &GameRecord) -> Result<(), StoreError> {
        let game = record.game().ok();
        let id = record.id.as_str();
        let fields = serde_json::to_value(record).unwrap_or_default();
        let mut values: Vec<Value> = (GAME_COLUMNS.split(", "))
            .map(|name| fields.get(name).cloned().unwrap_or_default())
            .collect();
        values.push(is_under_way(record, game.as_ref()).into());
        let idle = remindable(record, game.as_ref()).then_some(record.last_activity);
        values.push(idle.into());
        let columns = format!("{GAME_COLUMNS}, under_way, idle");
        let places: Vec<String> = (1..=values.len()).map(|i| format!("${i}")).collect();
        let update: Vec<String> = (columns.split(", ").skip(1))
            .map(|name| format!("{name} = excluded.{name}"))
            .collect();
        self.execute(
            &format!(
                "INSERT INTO games ({columns}) VALUES ({}) ON CONFLICT (id) DO UPDATE SET {}",
                places.join(", "),
                update.join(", ")
            ),
            &values,
        )?;
        for side in Side::BOTH {
            let player = record.player(side);
            let mailbox = player.address.as_deref().map(mailbox_key);
            self.execute(
                "INSERT INTO seats (game, side, name, address, mailbox) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (game, side) DO UPDATE SET name = excluded.name,
                  address = excluded.address, mailbox = excluded.mailbox
                 WHERE (seats.name, seats.address) IS DISTINCT FROM (excluded.name, excluded.address)",
                params![
                    id,
                    side.as_str(),
                    player.name.as_str(),
                    player.address.as_deref(),
                    mailbox.as_deref()
                ],
            )?;
        }
        self.save_turns(record)?;
        if let Some(game) = &game {
            ratings::count_if_ended(self, record, game)?;
        }
        Ok(())
    }

    /// The turns from the first that differs from what is stored.
    fn save_turns(&self, record: &GameRecord) -> Result<(), StoreError> {
        let id = record.id.as_str();
        let stored: Vec<(String,)> = self.query(
            "SELECT sowings FROM turns WHERE game = $1 ORDER BY n",
            params![id],
        )?;
        let same = (stored.iter().zip(&record.turns))
            .take_while(|((sowings,), turn)| *sowings == sowings_text(&turn.sowings))
            .count();
        if same < stored.len() {
            self.execute(
                "DELETE FROM turns WHERE game = $1 AND n >= $2",
                params![id, same],
            )?;
        }
        for (n, turn) in record.turns.iter().enumerate().skip(same) {
            let sowings = sowings_text(&turn.sowings);
            self.execute(
                "INSERT INTO turns (game, n, side, sowings, time) VALUES ($1, $2, $3, $4, $5)",
                params![id, n, turn.side.as_str(), sowings.as_str(), turn.time],
            )?;
        }
        Ok(())
    }

    /// Every game in the store, oldest first, and every one that could not
    /// be read (reported, never skipped in silence).
    ///
    /// # Errors
    /// When the store cannot be read.
    pub fn list(&self) -> Result<Listing, StoreError> {
        Ok(self.games_where("ORDER BY created, id", params![]))
    }

    /// Does the store hold no game yet?
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        let rows: Vec<(String,)> = self.query("SELECT id FROM games LIMIT 1", params![])?;
        Ok(rows.is_empty())
    }

    /// The games with a player at `address`'s mailbox (any spelling of
    /// it), oldest first, and those that could not be read.
    pub fn games_of(&self, address: &str) -> Result<Listing, StoreError> {
        let mailbox = mailbox_key(address);
        Ok(self.games_where(
            "WHERE id IN (SELECT game FROM seats WHERE mailbox = $1) ORDER BY created, id",
            params![mailbox.as_str()],
        ))
    }

    /// The games invited, or playing and not over, newest first: at most
    /// `most` of them (every one when `None`), and how many there are.
    pub fn under_way(&self, most: Option<usize>) -> Result<(Listing, usize), StoreError> {
        let total: Vec<(u64,)> =
            self.query("SELECT COUNT(*) FROM games WHERE under_way = 1", params![])?;
        let total = total.first().map_or(0, |(n,)| *n);
        let limit = most.unwrap_or(usize::MAX >> 2);
        let listing = self.games_where(
            "WHERE under_way = 1 ORDER BY created DESC, id DESC LIMIT $1",
            params![limit],
        );
        Ok((listing, usize::try_from(total).unwrap_or(usize::MAX)))
    }

    /// The games `remind` must look at by `now`: those owing replies, those
    /// whose player to move has not been nudged and was idle `nudge`
    /// seconds, those nudged and idle `forfeit` seconds.
    pub fn due(&self, now: u64, nudge: u64, forfeit: u64) -> Result<Vec<GameId>, StoreError> {
        // Two lookups, each by its index: idle games, and replies owed.
        let mut rows: Vec<(String,)> = self.query(
            "SELECT id FROM games WHERE idle <= $1 AND (reminded IS NULL OR idle <= $2)",
            params![
                now.saturating_sub(nudge),
                now.checked_sub(forfeit).map_or(-1, |t| t as i64)
            ],
        )?;
        rows.extend(self.query(
            "SELECT DISTINCT scope FROM outbox WHERE state NOT IN ('sent', 'refused')",
            params![],
        )?);
        let mut games = std::collections::BTreeSet::new();
        for (id,) in rows {
            games.extend(GameId::parse(&id));
        }
        Ok(games.into_iter().collect())
    }

    /// The keyless address with this digest (a fresh record if new).
    pub fn load_sender(&self, digest: &str) -> Result<SenderRecord, StoreError> {
        let rows: Vec<(u32, String)> = self.query(
            "SELECT events, answered FROM senders WHERE digest = $1",
            params![digest],
        )?;
        let mut record = SenderRecord {
            digest: digest.to_string(),
            ..SenderRecord::default()
        };
        if let Some((events, answered)) = rows.into_iter().next() {
            record.events = events;
            record.answered = answered.split(',').filter_map(|t| t.parse().ok()).collect();
        }
        Ok(record)
    }

    pub fn save_sender(&self, record: &SenderRecord) -> Result<(), StoreError> {
        let answered: Vec<String> = record.answered.iter().map(u64::to_string).collect();
        self.execute(
            "INSERT INTO senders (digest, events, answered) VALUES ($1, $2, $3)
             ON CONFLICT (digest) DO UPDATE SET events = excluded.events,
              answered = excluded.answered",
            params![
                record.digest.as_str(),
                record.events,
                answered.join(",").as_str()
            ],
        )?;
        Ok(())
    }

    /// Was `mail` handled before in `scope` (a game, a sender)?
    pub fn has_handled(&self, scope: &str, mail: &MailKey) -> Result<bool, StoreError> {
        let rows: Vec<(u32,)> = self.query(
            "SELECT event FROM handled WHERE scope = $1 AND (mail = $2 OR mail = $3)",
            params![scope, mail.0.as_str(), mail.short().as_str()],
        )?;
        Ok(!rows.is_empty())
    }

    /// Notes `mail` as handled by `record`'s next event, which owes
    /// `replies` (each marked with the event), and saves the record: one
    /// decision, in the transaction under way.
    pub fn commit_event<R: Ledgered>(
        &self,
        record: &mut R,
        mail: &MailKey,
        cause: &MailKey,
        replies: Vec<Outgoing>,
    ) -> Result<u32, StoreError> {
        let event = record.events() + 1;
        record.set_events(event);
        let scope = record.scope();
        let now = super::now();
        self.execute(
            "INSERT INTO handled (scope, mail, event, time) VALUES ($1, $2, $3, $4)",
            params![scope.as_str(), mail.0.as_str(), event, now],
        )?;
        if let Some(forget) = R::MAILS_KEPT.and_then(|kept| event.checked_sub(kept)) {
            // A sender's last mails only: forged mail must not grow the store.
            self.execute(
                "DELETE FROM handled WHERE scope = $1 AND event <= $2",
                params![scope.as_str(), forget],
            )?;
        }
        let claimed = self.first_state();
        for (n, reply) in replies.into_iter().enumerate() {
            self.owe(&scope, (event, n), cause, &reply, &claimed)?;
        }
        record.save(self)?;
        Ok(event)
    }

    /// Keeps `reply`, the `n`th of `event`, owed in `state`.
    pub(super) fn owe(
        &self,
        scope: &str,
        (event, n): (u32, usize),
        cause: &MailKey,
        reply: &Outgoing,
        state: &str,
    ) -> Result<(), StoreError> {
        let refs = json(&reply.references);
        self.execute(
            "INSERT INTO outbox (message_id, scope, event, n, cause, to_name, to_address,
              reply_to, subject, body, in_reply_to, refs, html, state, time)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            params![
                reply.message_id.as_str(),
                scope,
                event,
                n,
                cause.0.as_str(),
                reply.to.name.as_deref(),
                reply.to.address.as_str(),
                reply.reply_to.as_deref(),
                reply.subject.as_str(),
                reply.body.as_str(),
                reply.in_reply_to.as_deref(),
                refs.as_str(),
                reply.html.as_deref(),
                state,
                super::now(),
            ],
        )?;
        Ok(())
    }

    /// The replies owed and not yet sent: those `mail` caused, those of
    /// `scope`, or all.
    pub fn owed(&self, which: Owed) -> Result<Vec<Outgoing>, StoreError> {
        const COLUMNS: &str = "message_id, event, to_name, to_address, reply_to, subject, body, \
                               in_reply_to, refs, html";
        let owed = "state NOT IN ('sent', 'refused')";
        let rows: Vec<OwedRow> = match which {
            Owed::Caused(mail) => self.query(
                &format!("SELECT {COLUMNS} FROM outbox WHERE cause = $1 AND {owed} ORDER BY scope, event, n"),
                params![mail.0.as_str()],
            )?,
            Owed::Of(scope) => self.query(
                &format!("SELECT {COLUMNS} FROM outbox WHERE scope = $1 AND {owed} ORDER BY event, n"),
                params![scope],
            )?,
        };
        rows.into_iter()
            .map(|r| {
                Ok(Outgoing {
                    message_id: r.0,
                    event: r.1,
                    to: Mailbox {
                        name: r.2,
                        address: r.3,
                    },
                    reply_to: r.4,
                    subject: r.5,
                    body: r.6.unwrap_or_default(),
                    in_reply_to: r.7,
                    references: serde_json::from_str(&r.8)
                        .map_err(|e| self.corrupt("a reply's references", e))?,
                    html: r.9,
                    delivery: Delivery::Pending,
                })
            })
            .collect()
    }

    /// Notes how sending `message_id` went: a sent or refused reply is
    /// kept as a record of what went, without its text.
    pub(super) fn settle(&self, message_id: &str, delivery: &Delivery) -> Result<(), StoreError> {
        let (state, why) = match delivery {
            Delivery::Pending => return Ok(()),
            Delivery::Sent => ("sent", None),
            Delivery::Refused(why) => ("refused", Some(why.as_str())),
        };
        self.execute(
            "UPDATE outbox SET state = $1, why = $2, body = NULL, html = NULL, time = $3
             WHERE message_id = $4",
            params![state, why, super::now(), message_id],
        )?;
        Ok(())
    }

    /// Is `message_id` still owed? On PostgreSQL the row is also locked
    /// until the transaction under way ends (see [`Store::sending`]).
    pub(super) fn claim(&self, message_id: &str) -> Result<bool, StoreError> {
        let lock = match self.kind() {
            super::Kind::Postgres => " FOR UPDATE",
            super::Kind::Sqlite => "",
        };
        let rows: Vec<(i64,)> = self.query(
            &format!("SELECT 1 FROM outbox WHERE message_id = $1 AND state = 'pending'{lock}"),
            params![message_id],
        )?;
        Ok(!rows.is_empty())
    }
}

/// A row of the outbox, as [`Store::owed`] reads it.
type OwedRow = (
    String,
    u32,
    Option<String>,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
);

/// Which replies owed.
#[derive(Clone, Copy, Debug)]
pub enum Owed<'a> {
    /// Those a mail caused (whichever game or sender they are filed under).
    Caused(&'a MailKey),
    /// Those of a game or sender.
    Of(&'a str),
}

/// The games of a store, and those that are not readable games.
#[derive(Debug, Default)]
pub struct Listing {
    pub games: Vec<GameRecord>,
    pub unreadable: Vec<StoreError>,
}

impl Listing {
    /// The games, or the first that is not a readable game: for a
    /// decision that a game left out could turn (whether someone plays
    /// here), which is then the operator's to mend.
    ///
    /// # Errors
    /// The first unreadable game's.
    pub fn whole(self) -> Result<Vec<GameRecord>, StoreError> {
        match self.unreadable.into_iter().next() {
            Some(error) => Err(error),
            None => Ok(self.games),
        }
    }
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

fn is_under_way(record: &GameRecord, game: Option<&Game>) -> bool {
    match record.standing {
        Standing::Invited { .. } => true,
        Standing::Declined | Standing::Withdrawn => false,
        Standing::Playing => !game.is_some_and(Game::is_over),
    }
}
