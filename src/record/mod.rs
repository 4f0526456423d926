//! A hosted game as plain data (its players, turns and state), a keyless
//! sender (the answers given to an address), and the identities of games
//! and mails: what the store keeps, the hosted layer plays and the mail
//! layer words.

use serde::{Deserialize, Serialize};

mod keys;

use keys::hex;
pub use keys::{fresh_secret, Secrets};

use crate::engine::{Pit, Ruleset, Side};

/// A game's short id: six letters of an alphabet without 0/o and 1/l.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GameId(String);

/// Letters for game ids: no 0/o, 1/l to misread.
const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
pub(crate) const ID_LENGTH: usize = 6;

impl GameId {
    /// `text`, if it has the shape of a game id (and so is safe in a file name).
    pub fn parse(text: &str) -> Option<GameId> {
        (text.len() == ID_LENGTH && text.bytes().all(|b| ID_ALPHABET.contains(&b)))
            .then(|| GameId(text.to_string()))
    }

    /// An id made of `bytes`, one letter a byte.
    fn from_bytes(bytes: &[u8]) -> GameId {
        GameId(
            bytes
                .iter()
                .take(ID_LENGTH)
                .map(|b| char::from(ID_ALPHABET[usize::from(*b) % ID_ALPHABET.len()]))
                .collect(),
        )
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for GameId {
    type Error = String;
    fn try_from(text: String) -> Result<GameId, String> {
        GameId::parse(&text).ok_or_else(|| format!("'{text}' is not a game id"))
    }
}

impl From<GameId> for String {
    fn from(id: GameId) -> String {
        id.0
    }
}

/// A mail's identity: a digest of its Message-ID, else of its bytes. It
/// is what "the same mail again" means, and small whatever the mail holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MailKey(pub String);

impl MailKey {
    /// The identity of a mail with this Message-ID.
    pub fn of_message_id(id: &str) -> MailKey {
        MailKey::digest(&[b"id:".as_slice(), id.trim().as_bytes()].concat())
    }

    /// The identity of a mail without Message-ID: its bytes, line ends aside.
    pub fn of_bytes(bytes: &[u8]) -> MailKey {
        let lf: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'\r').collect();
        MailKey::digest(&[b"bytes:".as_slice(), &lf].concat())
    }

    /// The mail's key as the folder stores of earlier referees kept their
    /// older mails: a digest of it, marked apart from full keys.
    pub fn short(&self) -> String {
        let hash = ring::digest::digest(&ring::digest::SHA256, self.0.as_bytes());
        format!("~{}", hex(&hash.as_ref()[..8]))
    }

    fn digest(input: &[u8]) -> MailKey {
        let hash = ring::digest::digest(&ring::digest::SHA256, input);
        MailKey(hex(&hash.as_ref()[..16]))
    }
}

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    pub name: String,
    /// Where the referee mails them; none for the computer.
    pub address: Option<String>,
}

/// One turn: a side's sowings, bonus sowings included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub side: Side,
    pub sowings: Vec<Pit>,
    pub time: u64,
}

/// Why a game ended other than by the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Concession {
    Resignation,
    Forfeit,
    /// A draw offered by `side` and accepted by the other.
    Draw,
}

/// A game ended by a player's word or clock: who lost, how, when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conceded {
    pub side: Side,
    pub reason: Concession,
    pub time: u64,
}

/// What one player asked of the other, awaiting their `accept` or `decline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OfferKind {
    /// End the game drawn.
    Draw,
    /// Undo the offerer's last turn.
    Takeback,
}

/// An offer open in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    pub kind: OfferKind,
    pub by: Side,
    /// The game's turns when it was made: a turn played since answers it.
    pub turns: usize,
    /// The ledger's event whose mails told of it: an `accept` answering an
    /// older mail answers another offer (0 in files written before).
    #[serde(default)]
    pub event: u32,
}

/// `if REPLY then ANSWER`: should the opponent's next turn be `reply`,
/// the referee plays `answer` for `side` at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditional {
    pub side: Side,
    pub reply: Vec<Pit>,
    pub answer: Vec<Pit>,
}

/// Where a game stands between the players, beside what the board says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum Standing {
    /// `invitee` has been asked and has not answered: nobody is nudged,
    /// nothing more is mailed to them.
    Invited { invitee: Side },
    /// Both players are in.
    Playing,
    /// The invitee said no.
    Declined,
    /// The inviter took the invitation back before it was answered.
    Withdrawn,
}

/// One game as the store keeps it. It knows turns, not text: the sheet
/// is drawn from the [`Game`] it replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub id: GameId,
    pub ruleset: Ruleset,
    pub stones: u8,
    /// The ruleset's variant, by name; none for its default rules (and in
    /// files written before variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub first: Side,
    /// The position the game started from, when set up by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetUpRecord>,
    pub south: PlayerRecord,
    pub north: PlayerRecord,
    /// The side the referee itself plays, in a game against the computer.
    pub computer: Option<Side>,
    pub standing: Standing,
    pub turns: Vec<Turn>,
    pub conceded: Option<Conceded>,
    /// The mail that started the game: its id is derived from it.
    pub started_by: MailKey,
    /// Who started it (the inviter).
    pub inviter: Side,
    /// The inviter has shown their key (a keyed mail of theirs): until then
    /// their address is only a From anyone can forge, and the game's mails to
    /// it count against its daily answers.
    #[serde(default)]
    pub inviter_confirmed: bool,
    /// Times are seconds since 1970, UTC.
    pub created: u64,
    pub last_activity: u64,
    /// When the player to move was last nudged.
    pub reminded: Option<u64>,
    /// A draw or takeback offered and not yet answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
    /// Conditional moves of the player who moved last, for the opponent's
    /// next turn; never shown to the opponent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Conditional>,
    /// The event whose mails first showed the board as it stands (its last
    /// turn played or taken back); 0 in files written before it. A move
    /// answering an older mail of the game was chosen on another board.
    #[serde(default)]
    pub board_event: u32,
    /// The events the game's mails (and the clock) made: each reply's
    /// Message-ID names the event it tells of.
    #[serde(default)]
    pub events: u32,
}

/// A position set up by hand: each row from its owner's `a`, and the
/// stores (Wari's captured totals), South's first. The side to move is the
/// record's `first`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetUpRecord {
    pub south: Vec<u8>,
    pub north: Vec<u8>,
    pub stores: [u8; 2],
}

impl GameRecord {
    /// For unit tests: game `id` of `ruleset` between Alice (South, to move
    /// first, the inviter) and Bob, playing, no turn yet, made at time 100.
    #[cfg(test)]
    pub(crate) fn between_alice_and_bob(id: &str, ruleset: Ruleset) -> GameRecord {
        let player = |name: &str| PlayerRecord {
            name: name.into(),
            address: Some(format!("{}@players.example", name.to_lowercase())),
        };
        GameRecord {
            id: GameId::parse(id).expect("a test's game id"),
            ruleset,
            stones: 4,
            variant: None,
            first: Side::South,
            setup: None,
            south: player("Alice"),
            north: player("Bob"),
            computer: None,
            standing: Standing::Playing,
            turns: Vec::new(),
            conceded: None,
            started_by: MailKey("m0".into()),
            inviter: Side::South,
            inviter_confirmed: true,
            created: 100,
            last_activity: 100,
            reminded: None,
            offer: None,
            conditions: Vec::new(),
            board_event: 0,
            events: 0,
        }
    }

    pub fn player(&self, side: Side) -> &PlayerRecord {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }
}

/// A keyless address's record: the answers it was given, so that a
/// stranger (or a forger using their name) gets at most a few a day.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderRecord {
    /// The digest of the address (see [`Secrets::address_digest`]).
    pub digest: String,
    /// The answers' times, the last day's only.
    pub answered: Vec<u64>,
    /// The mails handled from it.
    pub events: u32,
}

impl SenderRecord {
    /// Answers given in the day up to `now`.
    pub fn answers_today(&self, now: u64) -> usize {
        self.answered.iter().filter(|&&t| t + 86_400 > now).count()
    }

    /// Counts one more answer, forgetting those older than a day.
    pub fn count_answer(&mut self, now: u64) {
        self.answered.retain(|&t| t + 86_400 > now);
        self.answered.push(now);
    }
}
