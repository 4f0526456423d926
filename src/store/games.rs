//! Games, senders, the mails handled and the replies owed, in SQL.

use super::db::{params, Row};
use super::outbox::{Delivery, Mailbox, Outgoing};
use super::ratings;
use super::record::{
    Conceded, Conditional, GameId, GameRecord, Ledgered, MailKey, Offer, PlayerRecord,
    SenderRecord, SetUpRecord, Standing, Turn,
};
use super::{Store, StoreError};
use crate::address::mailbox_key;
use crate::engine::{Game, Pit, Ruleset, Side};

/// A game's columns, in the order [`Store::game_of_row`] reads them.
const GAME_COLUMNS: &str = "id, ruleset, stones, variant, first, setup, computer, standing, \
     conceded, started_by, inviter, inviter_confirmed, created, last_activity, reminded, offer, \
     conditions, board_event, events";

/// Games a run of `remind` must look at.
#[derive(Debug, Default)]
pub struct Due {
    pub games: Vec<GameId>,
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn opt_json<T: serde::Serialize>(value: Option<&T>) -> Option<String> {
    value.map(json)
}

fn sowings_text(pits: &[Pit]) -> String {
    pits.iter().map(|p| p.letter()).collect()
}

impl Store {
    fn game_of_row(&self, row: &Row) -> Result<GameRecord, StoreError> {
        let id_text = row.text(0).map_err(self.fail())?;
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            self.corrupt(format!("game {id_text}: {what}"), e)
        };
        let id = GameId::parse(&id_text).ok_or_else(|| bad("its id", &"not a game id"))?;
        let text = |i: usize| row.text(i).map_err(self.fail());
        let opt_text = |i: usize| row.opt_text(i).map_err(self.fail());
        let side = |i: usize, what: &str| -> Result<Side, StoreError> {
            text(i)?.parse().map_err(|e| bad(what, &e))
        };
        fn from_json<T: serde::de::DeserializeOwned>(
            text: Option<String>,
        ) -> Result<Option<T>, serde_json::Error> {
            text.map(|t| serde_json::from_str(&t)).transpose()
        }
        let ruleset: Ruleset = text(1)?.parse().map_err(|e| bad("ruleset", &e))?;
        let computer = match opt_text(6)? {
            Some(s) => Some(s.parse().map_err(|e| bad("computer", &e))?),
            None => None,
        };
        let mut record = GameRecord {
            id,
            ruleset,
            stones: u8::try_from(row.int(2).map_err(self.fail())?)
                .map_err(|e| bad("stones", &e))?,
            variant: opt_text(3)?,
            first: side(4, "first")?,
            setup: from_json::<SetUpRecord>(opt_text(5)?).map_err(|e| bad("setup", &e))?,
            south: PlayerRecord {
                name: String::new(),
                address: None,
            },
            north: PlayerRecord {
                name: String::new(),
                address: None,
            },
            computer,
            standing: from_json::<Standing>(Some(text(7)?))
                .map_err(|e| bad("standing", &e))?
                .unwrap_or(Standing::Playing),
            turns: Vec::new(),
            conceded: from_json::<Conceded>(opt_text(8)?).map_err(|e| bad("conceded", &e))?,
            started_by: MailKey(text(9)?),
            inviter: side(10, "inviter")?,
            inviter_confirmed: row.int(11).map_err(self.fail())? != 0,
            created: row.uint(12).map_err(self.fail())?,
            last_activity: row.uint(13).map_err(self.fail())?,
            reminded: row.opt_uint(14).map_err(self.fail())?,
            offer: from_json::<Offer>(opt_text(15)?).map_err(|e| bad("offer", &e))?,
            conditions: from_json::<Vec<Conditional>>(opt_text(16)?)
                .map_err(|e| bad("conditions", &e))?
                .unwrap_or_default(),
            board_event: row.small(17).map_err(self.fail())?,
            events: row.small(18).map_err(self.fail())?,
        };
        let id = record.id.as_str().to_string();
        for seat in self.query(
            "SELECT side, name, address FROM seats WHERE game = $1",
            params![id.as_str()],
        )? {
            let player = PlayerRecord {
                name: seat.text(1).map_err(self.fail())?,
                address: seat.opt_text(2).map_err(self.fail())?,
            };
            let seat_side: Side = (seat.text(0).map_err(self.fail())?)
                .parse()
                .map_err(|e| bad("a seat", &e))?;
            match seat_side {
                Side::South => record.south = player,
                Side::North => record.north = player,
            }
        }
        for turn in self.query(
            "SELECT side, sowings, time FROM turns WHERE game = $1 ORDER BY n",
            params![id.as_str()],
        )? {
            let side: Side = (turn.text(0).map_err(self.fail())?)
                .parse()
                .map_err(|e| bad("a turn", &e))?;
            let sowings = (turn.text(1).map_err(self.fail())?)
                .chars()
                .map(|c| c.to_string().parse::<Pit>())
                .collect::<Result<Vec<Pit>, _>>()
                .map_err(|e| bad("a turn", &e))?;
            record.turns.push(Turn {
                side,
                sowings,
                time: turn.uint(2).map_err(self.fail())?,
            });
        }
        Ok(record)
    }

    /// Game `id`, or `None` if the store has no such game.
    ///
    /// # Errors
    /// When it cannot be read, or is not a game.
    pub fn load_game(&self, id: &GameId) -> Result<Option<GameRecord>, StoreError> {
        let rows = self.query(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"),
            params![id.as_str()],
        )?;
        rows.first().map(|row| self.game_of_row(row)).transpose()
    }

    fn games_where(&self, condition: &str, params: &[super::db::Param]) -> Listing {
        let mut listing = Listing::default();
        match self.query(
            &format!("SELECT {GAME_COLUMNS} FROM games {condition}"),
            params,
        ) {
            Ok(rows) => {
                for row in rows {
                    match self.game_of_row(&row) {
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
    ///
    /// # Errors
    /// The store's.
    pub fn save_game(&self, record: &GameRecord) -> Result<(), StoreError> {
        let game = record.game().ok();
        let id = record.id.as_str();
        let under_way = is_under_way(record, game.as_ref());
        let idle = remindable(record, game.as_ref()).then_some(record.last_activity);
        let standing = json(&record.standing);
        let setup = opt_json(record.setup.as_ref());
        let conceded = opt_json(record.conceded.as_ref());
        let offer = opt_json(record.offer.as_ref());
        let conditions = (!record.conditions.is_empty()).then(|| json(&record.conditions));
        self.execute(
            &format!(
                "INSERT INTO games ({GAME_COLUMNS}, under_way, idle) VALUES
                 ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                  $18, $19, $20, $21)
                 ON CONFLICT (id) DO UPDATE SET standing = excluded.standing,
                  conceded = excluded.conceded, inviter_confirmed = excluded.inviter_confirmed,
                  last_activity = excluded.last_activity, reminded = excluded.reminded,
                  offer = excluded.offer, conditions = excluded.conditions,
                  board_event = excluded.board_event, events = excluded.events,
                  under_way = excluded.under_way, idle = excluded.idle"
            ),
            params![
                id,
                record.ruleset.as_str(),
                u32::from(record.stones),
                record.variant.as_deref(),
                record.first.as_str(),
                setup.as_deref(),
                record.computer.map(Side::as_str),
                standing.as_str(),
                conceded.as_deref(),
                record.started_by.0.as_str(),
                record.inviter.as_str(),
                record.inviter_confirmed,
                record.created,
                record.last_activity,
                record.reminded,
                offer.as_deref(),
                conditions.as_deref(),
                record.board_event,
                record.events,
                under_way,
                idle,
            ],
        )?;
        for side in Side::BOTH {
            let player = record.player(side);
            let mailbox = player.address.as_deref().map(mailbox_key);
            self.execute(
                "INSERT INTO seats (game, side, name, address, mailbox) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (game, side) DO UPDATE SET name = excluded.name,
                  address = excluded.address, mailbox = excluded.mailbox",
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
        let stored = self.query(
            "SELECT sowings FROM turns WHERE game = $1 ORDER BY n",
            params![id],
        )?;
        let mut same = 0;
        for (row, turn) in stored.iter().zip(&record.turns) {
            if row.text(0).map_err(self.fail())? != sowings_text(&turn.sowings) {
                break;
            }
            same += 1;
        }
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
    ///
    /// # Errors
    /// The store's.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        let rows = self.query("SELECT id FROM games LIMIT 1", params![])?;
        Ok(rows.is_empty())
    }

    /// The games with a player at `address`'s mailbox (any spelling of
    /// it), oldest first, and those that could not be read.
    ///
    /// # Errors
    /// The store's.
    pub fn games_of(&self, address: &str) -> Result<Listing, StoreError> {
        let mailbox = mailbox_key(address);
        Ok(self.games_where(
            "WHERE id IN (SELECT game FROM seats WHERE mailbox = $1) ORDER BY created, id",
            params![mailbox.as_str()],
        ))
    }

    /// The games invited, or playing and not over, newest first: at most
    /// `most` of them (every one when `None`), and how many there are.
    ///
    /// # Errors
    /// The store's.
    pub fn under_way(&self, most: Option<usize>) -> Result<(Listing, usize), StoreError> {
        let total = self.query("SELECT COUNT(*) FROM games WHERE under_way = 1", params![])?;
        let total = total
            .first()
            .map(|r| r.uint(0))
            .transpose()
            .map_err(self.fail())?
            .unwrap_or(0);
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
    ///
    /// # Errors
    /// The store's.
    pub fn due(&self, now: u64, nudge: u64, forfeit: u64) -> Result<Due, StoreError> {
        // Two lookups, each by its index: idle games, and replies owed.
        let mut rows = self.query(
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
        for row in rows {
            games.extend(GameId::parse(&row.text(0).map_err(self.fail())?));
        }
        Ok(Due {
            games: games.into_iter().collect(),
        })
    }

    /// The keyless address with this digest (a fresh record if new).
    ///
    /// # Errors
    /// The store's.
    pub fn load_sender(&self, digest: &str) -> Result<SenderRecord, StoreError> {
        let rows = self.query(
            "SELECT events, answered FROM senders WHERE digest = $1",
            params![digest],
        )?;
        let mut record = SenderRecord {
            digest: digest.to_string(),
            ..SenderRecord::default()
        };
        if let Some(row) = rows.first() {
            record.events = row.small(0).map_err(self.fail())?;
            record.answered = (row.text(1).map_err(self.fail())?)
                .split(',')
                .filter_map(|t| t.parse().ok())
                .collect();
        }
        Ok(record)
    }

    /// # Errors
    /// The store's.
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
    ///
    /// # Errors
    /// The store's.
    pub fn has_handled(&self, scope: &str, mail: &MailKey) -> Result<bool, StoreError> {
        let rows = self.query(
            "SELECT event FROM handled WHERE scope = $1 AND (mail = $2 OR mail = $3)",
            params![scope, mail.0.as_str(), mail.short().as_str()],
        )?;
        Ok(!rows.is_empty())
    }

    /// Notes `mail` as handled by `record`'s next event, which owes
    /// `replies` (each marked with the event), and saves the record: one
    /// decision, in the transaction under way.
    ///
    /// # Errors
    /// The store's.
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
        if let Some(forget) = event
            .checked_sub(SENDER_MAILS_KEPT)
            .filter(|_| scope.starts_with('s'))
        {
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
    ///
    /// # Errors
    /// The store's.
    pub fn owed(&self, which: Owed) -> Result<Vec<Outgoing>, StoreError> {
        const COLUMNS: &str = "message_id, event, to_name, to_address, reply_to, subject, body, \
                               in_reply_to, refs, html";
        let rows = match which {
            Owed::Caused(mail) => self.query(
                &format!("SELECT {COLUMNS} FROM outbox WHERE cause = $1 AND state NOT IN ('sent', 'refused') ORDER BY scope, event, n"),
                params![mail.0.as_str()],
            )?,
            Owed::Of(scope) => self.query(
                &format!("SELECT {COLUMNS} FROM outbox WHERE scope = $1 AND state NOT IN ('sent', 'refused') ORDER BY event, n"),
                params![scope],
            )?,
        };
        rows.iter()
            .map(|row| -> Result<Outgoing, StoreError> {
                let f = self.fail();
                Ok(Outgoing {
                    message_id: row.text(0).map_err(&f)?,
                    event: row.small(1).map_err(&f)?,
                    to: Mailbox {
                        name: row.opt_text(2).map_err(&f)?,
                        address: row.text(3).map_err(&f)?,
                    },
                    reply_to: row.opt_text(4).map_err(&f)?,
                    subject: row.text(5).map_err(&f)?,
                    body: row.opt_text(6).map_err(&f)?.unwrap_or_default(),
                    in_reply_to: row.opt_text(7).map_err(&f)?,
                    references: serde_json::from_str(&row.text(8).map_err(&f)?)
                        .map_err(|e| self.corrupt("a reply's references", e))?,
                    html: row.opt_text(9).map_err(&f)?,
                    delivery: Delivery::Pending,
                })
            })
            .collect()
    }

    /// Notes how sending `message_id` went: a sent or refused reply is
    /// kept as a record of what went, without its text.
    ///
    /// # Errors
    /// The store's.
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
        let rows = self.query(
            &format!("SELECT 1 FROM outbox WHERE message_id = $1 AND state = 'pending'{lock}"),
            params![message_id],
        )?;
        Ok(!rows.is_empty())
    }
}

impl Store {
    /// Every row of the store, a line each, in order, with the times left
    /// out (a sender's answers as their count): two stores that did the
    /// same, at other moments, dump the same. The crash test compares
    /// these; an operator may diff them.
    ///
    /// # Errors
    /// The store's.
    pub fn dump(&self) -> Result<Vec<String>, StoreError> {
        let mut lines = Vec::new();
        let tables: [(&str, &str); 7] = [
            ("games", "SELECT id, ruleset, stones, variant, first, setup, computer, standing, conceded, started_by, inviter, inviter_confirmed, offer, conditions, board_event, events, under_way, idle IS NULL, reminded IS NULL FROM games ORDER BY id"),
            ("turns", "SELECT game, n, side, sowings FROM turns ORDER BY game, n"),
            ("seats", "SELECT game, side, name, address, mailbox FROM seats ORDER BY game, side"),
            ("handled", "SELECT scope, mail, event FROM handled ORDER BY scope, mail"),
            ("outbox", "SELECT message_id, scope, event, n, to_address, subject, state FROM outbox ORDER BY message_id"),
            ("senders", "SELECT digest, events, answered FROM senders ORDER BY digest"),
            ("ratings", "SELECT mailbox, ruleset, name, rating, deviation, games, wins, draws, losses FROM ratings ORDER BY mailbox, ruleset"),
        ];
        for (table, sql) in tables {
            for row in self.query(sql, params![])? {
                let mut line = format!("{table}:");
                for i in 0.. {
                    let Ok(value) = row.value(i) else { break };
                    let shown = match (table, i, value) {
                        ("senders", 2, super::db::Value::Text(t)) => {
                            format!("{} answers", t.split(',').filter(|t| !t.is_empty()).count())
                        }
                        // A concession's time, inside its JSON.
                        (_, _, super::db::Value::Text(t)) if t.contains("\"time\":") => {
                            match serde_json::from_str::<serde_json::Value>(t) {
                                Ok(serde_json::Value::Object(mut map)) => {
                                    map.remove("time");
                                    serde_json::Value::Object(map).to_string()
                                }
                                _ => format!("{t:?}"),
                            }
                        }
                        (_, _, v) => format!("{v:?}"),
                    };
                    line.push(' ');
                    line.push_str(&shown);
                }
                lines.push(line);
            }
        }
        Ok(lines)
    }
}

/// Which replies owed.
#[derive(Clone, Copy, Debug)]
pub enum Owed<'a> {
    /// Those a mail caused (whichever game or sender they are filed under).
    Caused(&'a MailKey),
    /// Those of a game or sender.
    Of(&'a str),
}

/// The mails a keyless sender's record remembers: enough for any
/// re-delivery, and a flood of forged mail does not grow the store.
const SENDER_MAILS_KEPT: u32 = 500;

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
