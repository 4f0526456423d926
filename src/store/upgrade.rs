//! Game files of format 1 (the first hosted referee's, which kept strings
//! and whole Message-IDs) read as the later formats, for the import of a
//! folder store.

use serde::Deserialize;

use super::import::{Handled, Ledger};
use super::outbox::{Delivery, Mailbox, Outgoing};
use super::{Conceded, Concession, GameId, GameRecord, MailKey, PlayerRecord, Standing, Turn};
use crate::engine::{Pit, Ruleset, Side};

#[derive(Deserialize)]
struct V1 {
    id: GameId,
    ruleset: Ruleset,
    stones: u8,
    first: Side,
    south: PlayerRecord,
    north: PlayerRecord,
    turns: Vec<V1Turn>,
    conceded: Option<V1Conceded>,
    created: u64,
    last_activity: u64,
    reminded: Option<u64>,
    mails: Vec<V1Mail>,
    outbox: Vec<V1Reply>,
    #[serde(default)]
    computer: Option<Side>,
}

#[derive(Deserialize)]
struct V1Turn {
    side: Side,
    sowings: String,
    time: u64,
}

#[derive(Deserialize)]
struct V1Conceded {
    side: Side,
    reason: Concession,
    time: u64,
}

#[derive(Deserialize)]
struct V1Mail {
    message_id: String,
    time: u64,
}

#[derive(Deserialize)]
struct V1Reply {
    answers: String,
    to: Vec<PlayerRecord>,
    reply_to: Option<String>,
    subject: String,
    body: String,
    in_reply_to: Option<String>,
    references: Vec<String>,
}

impl V1Turn {
    /// The turn with its sowings (`c-f`) read as pits.
    fn upgrade(self) -> Result<Turn, String> {
        let sowings = self
            .sowings
            .split('-')
            .map(str::parse::<Pit>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        Ok(Turn {
            side: self.side,
            sowings,
            time: self.time,
        })
    }
}

impl V1 {
    /// Each handled mail an event, with the replies to it still to send
    /// as its replies, one an address.
    fn ledger(&self) -> Ledger {
        let mut ledger = Ledger::default();
        for (i, mail) in self.mails.iter().enumerate() {
            let event = i as u32 + 1;
            ledger.handled.push(Handled {
                mail: MailKey::of_message_id(&mail.message_id),
                event,
                time: mail.time,
            });
            // Numbered across the event's replies: each a Message-ID of its own.
            let replies = self.outbox.iter().filter(|r| r.answers == mail.message_id);
            let envelopes = replies.flat_map(|reply| reply.envelopes(&self.id, event));
            for (k, mut out) in envelopes.enumerate() {
                out.message_id = out.message_id.replacen("v1-0@", &format!("v1-{k}@"), 1);
                ledger.outbox.push(out);
            }
        }
        ledger.events = self.mails.len() as u32;
        ledger
    }
}

impl V1Reply {
    /// The reply as format 2 replies, one to each addressed player, each
    /// with a Message-ID made from the game, the event and the place.
    fn envelopes<'a>(&'a self, id: &'a GameId, event: u32) -> impl Iterator<Item = Outgoing> + 'a {
        let domain = self
            .reply_to
            .as_deref()
            .and_then(|r| r.rsplit_once('@'))
            .map_or("localhost", |(_, d)| d);
        self.to.iter().filter_map(move |to| {
            let address = to.address.as_ref()?;
            Some(Outgoing {
                message_id: format!("{id}.{event}.v1-0@{domain}"),
                event,
                to: Mailbox {
                    name: Some(to.name.clone()).filter(|n| !n.is_empty()),
                    address: address.clone(),
                },
                reply_to: self.reply_to.clone(),
                subject: self.subject.clone(),
                body: self.body.clone(),
                in_reply_to: self.in_reply_to.clone().filter(|r| r.len() < 200),
                references: self
                    .references
                    .iter()
                    .filter(|r| r.len() < 200)
                    .cloned()
                    .collect(),
                html: None,
                delivery: Delivery::Pending,
            })
        })
    }
}

/// A format 1 game as a format 2 record: playing (format 1 had no
/// invitations), each handled mail an event, unsent replies kept to send.
///
/// # Errors
/// When the text is not a format 1 game.
pub fn from_format_1(text: &str) -> Result<(GameRecord, Ledger), String> {
    let old: V1 = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let ledger = old.ledger();
    let turns = old
        .turns
        .into_iter()
        .map(V1Turn::upgrade)
        .collect::<Result<_, _>>()?;
    let events = ledger.events;
    let record = GameRecord {
        started_by: MailKey(format!("format-1:{}", old.id)),
        id: old.id,
        ruleset: old.ruleset,
        stones: old.stones,
        variant: None,
        first: old.first,
        setup: None,
        south: old.south,
        north: old.north,
        computer: old.computer,
        standing: Standing::Playing,
        turns,
        conceded: old.conceded.map(|c| Conceded {
            side: c.side,
            reason: c.reason,
            time: c.time,
        }),
        inviter: Side::South,
        inviter_confirmed: true,
        created: old.created,
        last_activity: old.last_activity,
        reminded: old.reminded,
        offer: None,
        conditions: Vec::new(),
        board_event: 0,
        events,
    };
    Ok((record, ledger))
}
