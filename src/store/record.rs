//! What the store keeps, typed: a game (its players, turns and state) and
//! a sender (the answers given to a keyless address), each with a
//! [`Ledger`] of the mails it handled and the replies it still has to send.

use serde::{Deserialize, Serialize};

use super::outbox::{Delivery, Outgoing};
use crate::engine::{Game, Pit, PlayError, Position, RulesError, Ruleset, SetUpError, Side};

/// The version of the file format this build writes and reads.
/// 3 added a game's variant, set-up position, open offer and conditional
/// moves: a referee of format 2 would replay such a game by the wrong rules,
/// so it must refuse the file, and does, as newer than its own.
pub const FORMAT: u32 = 3;

/// A game's short id: six letters of an alphabet without 0/o and 1/l.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GameId(String);

/// Letters for game ids: no 0/o, 1/l to misread.
pub(super) const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
pub(super) const ID_LENGTH: usize = 6;

impl GameId {
    /// `text`, if it has the shape of a game id (and so is safe in a file name).
    pub fn parse(text: &str) -> Option<GameId> {
        (text.len() == ID_LENGTH && text.bytes().all(|b| ID_ALPHABET.contains(&b)))
            .then(|| GameId(text.to_string()))
    }

    /// An id made of `bytes`, one letter a byte.
    pub(super) fn from_bytes(bytes: &[u8]) -> GameId {
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

    fn digest(input: &[u8]) -> MailKey {
        let hash = ring::digest::digest(&ring::digest::SHA256, input);
        MailKey(
            hash.as_ref()[..16]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        )
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

/// A mail handled, and the event number it made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handled {
    pub mail: MailKey,
    pub event: u32,
    pub time: u64,
}

/// The mails a record has handled and the replies it owes. The state
/// change and its replies are saved in one write, so a crash after it
/// sends them next time, and a crash before it leaves nothing done.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub events: u32,
    pub handled: Vec<Handled>,
    /// The mails handled before the last [`HANDLED_KEPT`], for a record
    /// that remembers them all (a game): 16 hex digits of a digest of
    /// each, end to end. An old mail fetched again is still known, and a
    /// long game's file grows by 16 bytes a mail.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub older: String,
    /// Replies not yet sent or refused; sent ones are dropped.
    pub outbox: Vec<Outgoing>,
}

/// Handled mails remembered in full per record (with their events).
pub const HANDLED_KEPT: usize = 500;

/// How long a ledger remembers the mails it handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// For the record's whole life: a game, where an old `accept` fetched
    /// again must not answer a new offer.
    Lifelong,
    /// The last [`HANDLED_KEPT`]: a keyless sender, whose file a flood of
    /// forged mails must not grow (an old mail answered again costs one
    /// of their daily answers, nothing more).
    Recent,
}

/// A mail's key as [`Ledger::older`] keeps it.
fn short_key(mail: &MailKey) -> [u8; 16] {
    let hash = ring::digest::digest(&ring::digest::SHA256, mail.0.as_bytes());
    let mut out = [0u8; 16];
    for (pair, byte) in out.chunks_mut(2).zip(hash.as_ref()) {
        pair.copy_from_slice(format!("{byte:02x}").as_bytes());
    }
    out
}

impl Ledger {
    /// The event this mail made, if it was handled before.
    pub fn handled(&self, mail: &MailKey) -> Option<u32> {
        self.handled
            .iter()
            .find(|h| &h.mail == mail)
            .map(|h| h.event)
    }

    /// Was this mail handled before (among the older ones too)?
    pub fn has_handled(&self, mail: &MailKey) -> bool {
        if self.handled(mail).is_some() {
            return true;
        }
        let short = short_key(mail);
        self.older.as_bytes().chunks(16).any(|k| k == short)
    }

    /// The number the next event will have.
    pub fn next_event(&self) -> u32 {
        self.events + 1
    }

    /// Notes `mail` as handled by a new event whose replies are `replies`
    /// (each marked with the event).
    pub fn record(
        &mut self,
        mail: MailKey,
        replies: Vec<Outgoing>,
        now: u64,
        memory: Memory,
    ) -> u32 {
        self.events += 1;
        self.handled.push(Handled {
            mail,
            event: self.events,
            time: now,
        });
        if self.handled.len() > HANDLED_KEPT {
            let old = self.handled.remove(0);
            if memory == Memory::Lifelong {
                let short = short_key(&old.mail);
                self.older.extend(short.iter().map(|&b| char::from(b)));
            }
        }
        let event = self.events;
        self.outbox
            .extend(replies.into_iter().map(|r| Outgoing { event, ..r }));
        event
    }

    /// Replies still to send.
    pub fn pending(&self) -> impl Iterator<Item = &Outgoing> {
        self.outbox
            .iter()
            .filter(|e| e.delivery == Delivery::Pending)
    }

    /// Notes how sending `message_id` went; a sent or refused reply leaves
    /// the outbox (a refusal is logged by whoever sent it).
    pub fn settle(&mut self, message_id: &str, delivery: Delivery) {
        if delivery == Delivery::Pending {
            return;
        }
        self.outbox.retain(|e| e.message_id != message_id);
    }
}

/// One game as the store keeps it. It knows turns, not text: the sheet
/// is drawn from the [`Game`] it replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
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
    pub ledger: Ledger,
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

impl SetUpRecord {
    /// The set-up of a game that did not start from the usual start.
    pub fn of(game: &Game) -> Option<SetUpRecord> {
        let start = game.start();
        (!start.is_start()).then(|| SetUpRecord {
            south: start.pits(Side::South).to_vec(),
            north: start.pits(Side::North).to_vec(),
            stores: [start.store(Side::South), start.store(Side::North)],
        })
    }
}

/// A record whose turns the rules refuse: the file was edited or damaged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Rules(#[from] RulesError),
    #[error("the set-up position: {0}")]
    SetUp(#[from] SetUpError),
    #[error("turn {turn}: {error}")]
    Turn { turn: usize, error: PlayError },
    #[error("turn {turn} is {side}'s, but it was not their move")]
    WrongSide { turn: usize, side: Side },
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
            format: super::FORMAT,
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
            ledger: Ledger::default(),
        }
    }

    pub fn player(&self, side: Side) -> &PlayerRecord {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }

    /// The game, replayed from its turns, with any concession applied.
    ///
    /// # Errors
    /// When the turns are not a legal game of the record's rules.
    pub fn game(&self) -> Result<Game, ReplayError> {
        let rules = self
            .ruleset
            .configure(Some(self.stones), self.variant.as_deref())?;
        let mut game = match &self.setup {
            Some(s) => Game::from_position(Position::set_up(
                rules,
                &s.south,
                &s.north,
                Some(s.stores),
                self.first,
            )?),
            None => Game::new(rules, self.first),
        };
        for (i, turn) in self.turns.iter().enumerate() {
            for &pit in &turn.sowings {
                if game.to_move() != Some(turn.side) {
                    return Err(ReplayError::WrongSide {
                        turn: i + 1,
                        side: turn.side,
                    });
                }
                game.play(pit)
                    .map_err(|error| ReplayError::Turn { turn: i + 1, error })?;
            }
        }
        if let Some(conceded) = &self.conceded {
            match conceded.reason {
                Concession::Resignation => game.resign(conceded.side),
                Concession::Forfeit => game.forfeit(conceded.side),
                Concession::Draw => game.agree_draw(),
            }
        }
        Ok(game)
    }

    /// Records the turns of `game` beyond those already stored (and a
    /// turn grown by bonus sowings).
    pub fn set_turns(&mut self, game: &Game, now: u64) {
        // Each turn compared where it stands, a new list made only for a
        // turn that changed: a long game's every move would otherwise
        // rebuild all of its turns.
        for (i, sowings) in game.turns().enumerate() {
            let pits = sowings.iter().map(|s| s.pit);
            match self.turns.get_mut(i) {
                Some(turn) if turn.sowings.iter().copied().eq(pits.clone()) => continue,
                Some(turn) => turn.sowings = pits.collect(),
                None => self.turns.push(Turn {
                    side: sowings[0].side,
                    sowings: pits.collect(),
                    time: now,
                }),
            }
            self.last_activity = now;
            self.reminded = None;
            self.board_event = self.ledger.next_event();
        }
    }

    /// When the game ended by a player's word or clock, else when its last
    /// turn was played (for a game that is over).
    pub fn ended(&self) -> Option<u64> {
        self.conceded
            .as_ref()
            .map(|c| c.time)
            .or_else(|| self.turns.last().map(|t| t.time))
    }

    /// `side` gave up or ran out of time.
    pub fn concede(&mut self, side: Side, reason: Concession, now: u64) {
        self.conceded = Some(Conceded {
            side,
            reason,
            time: now,
        });
        self.last_activity = now;
    }

    /// The side whose registered address is `address`, if either.
    pub fn side_of(&self, address: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|&side| {
            self.player(side)
                .address
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(address))
        })
    }

    /// Both players have agreed to play.
    pub fn is_playing(&self) -> bool {
        self.standing == Standing::Playing
    }

    /// The invitation awaits its answer.
    pub fn is_invited(&self) -> bool {
        matches!(self.standing, Standing::Invited { .. })
    }

    /// Has `side` shown its key in this game (the invitee by answering the
    /// invitation, the inviter by any keyed mail)?
    pub fn confirmed(&self, side: Side) -> bool {
        if side == self.inviter {
            self.inviter_confirmed
        } else {
            self.standing != (Standing::Invited { invitee: side })
        }
    }
}

/// A keyless address's record: the mails answered, so that a stranger (or
/// a forger using their name) gets at most a few answers a day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SenderRecord {
    /// The digest of the address it is filed under (its file's name).
    #[serde(skip)]
    pub digest: String,
    pub format: u32,
    /// The answers' times, the last day's only.
    pub answered: Vec<u64>,
    pub ledger: Ledger,
}

impl SenderRecord {
    pub fn new() -> SenderRecord {
        SenderRecord {
            digest: String::new(),
            format: FORMAT,
            answered: Vec::new(),
            ledger: Ledger::default(),
        }
    }

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

impl Default for SenderRecord {
    fn default() -> Self {
        SenderRecord::new()
    }
}

/// A record that keeps a [`Ledger`]: a game, or a keyless sender. Each is
/// changed in one transaction under its lock, and saved whole.
pub trait Ledgered {
    /// How long its ledger remembers the mails it handled.
    const MEMORY: Memory;
    fn ledger(&self) -> &Ledger;
    fn ledger_mut(&mut self) -> &mut Ledger;
    /// Saves the record: durably (a decision and the replies it owes), or
    /// not (replies noted as sent: lost to a power cut, they go again).
    ///
    /// # Errors
    /// When the write fails; the old file is then untouched.
    fn save(&self, store: &super::Store, durable: bool) -> Result<(), super::StoreError>;
}

/// [`Ledgered`]'s accessors, for a record that keeps its ledger in its
/// field `ledger`.
macro_rules! ledger_in_field {
    () => {
        fn ledger(&self) -> &Ledger {
            &self.ledger
        }
        fn ledger_mut(&mut self) -> &mut Ledger {
            &mut self.ledger
        }
    };
}

impl Ledgered for GameRecord {
    const MEMORY: Memory = Memory::Lifelong;
    ledger_in_field!();
    fn save(&self, store: &super::Store, durable: bool) -> Result<(), super::StoreError> {
        if durable {
            store.save_game(self)
        } else {
            store.note_sent(self)
        }
    }
}

impl Ledgered for SenderRecord {
    const MEMORY: Memory = Memory::Recent;
    ledger_in_field!();
    fn save(&self, store: &super::Store, _durable: bool) -> Result<(), super::StoreError> {
        store.save_sender(self)
    }
}
