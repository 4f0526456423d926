//! The rules engine: positions, sowing, legal moves and outcomes for every
//! ruleset. It knows nothing of text or mail; notation lives in
//! [`crate::sheet`].
//!
//! ```
//! use mancala::engine::{Game, Pit, Ruleset, Side};
//!
//! let mut game = Game::new(Ruleset::SuperWari.rules(), Side::South);
//! let sowing = game.play(Pit::new(2)).unwrap(); // South sows c
//! assert_eq!(sowing.side, Side::South);
//! assert_eq!(game.position().to_move(), Side::North);
//! assert_eq!(game.position().stones(Side::South, Pit::new(2)), 0);
//! ```

mod errors;
mod game;
mod position;
mod random;
mod rules;

pub use errors::{PlayError, PlayErrorKind, SetUpError, SetUpFault, TurnError};
pub use game::{Game, PlayedSowing};
pub use position::{Landing, Position, Sowing};
pub use random::SplitMix64;
pub use rules::{
    ruleset_names, ruleset_titles, Capture, DefaultOpponent, EmptyRow, Rules, RulesError, Ruleset,
    RulesetSpec, VariantId, VariantSpec,
};

use std::fmt;
use std::str::FromStr;

/// A player, named for where they sit.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    South,
    North,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }

    /// `South` or `North`, for sentences.
    pub fn title(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

impl FromStr for Side {
    type Err = ParsePitError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "south" | "s" => Ok(Side::South),
            "north" | "n" => Ok(Side::North),
            _ => Err(ParsePitError::Side(s.to_string())),
        }
    }
}

/// Most pits a row can have (Super-Wari's 8).
pub const MAX_PITS: u8 = 8;

/// One of a player's own pits, counted from that player's left in sowing
/// order: `a` is index 0. It reads and writes as its letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pit(pub(crate) u8);

impl Pit {
    /// # Panics
    /// When `index` is not below [`MAX_PITS`]: that is a bug in the caller,
    /// never a player's input (use `FromStr` for that).
    pub fn new(index: u8) -> Pit {
        assert!(index < MAX_PITS, "pit index {index} out of range");
        Pit(index)
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn letter(self) -> char {
        char::from(b'a' + self.0)
    }

    /// All pits of a row with `pits` pits, from `a`.
    pub fn all(pits: u8) -> impl DoubleEndedIterator<Item = Pit> + Clone {
        (0..pits.min(MAX_PITS)).map(Pit)
    }
}

impl fmt::Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_char(f, self.letter())
    }
}

impl FromStr for Pit {
    type Err = ParsePitError;

    /// A letter `a`..`h` (any case) or its digit `1`..`8`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.trim().chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(ParsePitError::Pit(s.to_string()));
        };
        let index = match c.to_ascii_lowercase() {
            l @ 'a'..='h' => l as u8 - b'a',
            d @ '1'..='8' => d as u8 - b'1',
            _ => return Err(ParsePitError::Pit(s.to_string())),
        };
        Ok(Pit(index))
    }
}

/// A pit is stored as its letter, as players write it.
impl serde::Serialize for Pit {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.letter().encode_utf8(&mut [0; 4]))
    }
}

/// Read from the text as it stands in the file: a game's every sowing is
/// one, and a `String` made for each is most of the cost of loading it.
impl<'de> serde::Deserialize<'de> for Pit {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Pit, D::Error> {
        struct Letter;
        impl serde::de::Visitor<'_> for Letter {
            type Value = Pit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a pit's letter")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Pit, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Letter)
    }
}

/// Text that names no pit or side.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParsePitError {
    // A game's own range is its caller's to say: this error knows no game.
    #[error("'{0}' is not a pit: pits are letters from a (or digits from 1)")]
    Pit(String),
    #[error("'{0}' is not a side: say south or north")]
    Side(String),
}

/// `NTH_SET_BIT[mask * 8 + n]`: the index of the `n`th set bit of `mask`,
/// or 8 when it has fewer.
const NTH_SET_BIT: [u8; 256 * 8] = {
    let mut table = [8u8; 256 * 8];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut seen) = (0, 0);
        while bit < 8 {
            if mask >> bit & 1 == 1 {
                table[mask * 8 + seen] = bit as u8;
                seen += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// A set of a row's pits, such as the legal moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PitSet(pub(crate) u16);

impl PitSet {
    pub const EMPTY: PitSet = PitSet(0);

    pub fn contains(self, pit: Pit) -> bool {
        self.0 & (1 << pit.0) != 0
    }

    pub fn insert(&mut self, pit: Pit) {
        self.0 |= 1 << pit.0;
    }

    pub fn remove(&mut self, pit: Pit) {
        self.0 &= !(1 << pit.0);
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The `n`th pit in the set, counting from `a`.
    #[inline]
    pub fn nth(self, n: usize) -> Option<Pit> {
        // A row has at most 8 pits, so a table of every byte answers at once.
        let index = NTH_SET_BIT.get(usize::from(self.0 as u8) * 8 + n)?;
        (*index < 8 && self.0 >> 8 == 0)
            .then_some(Pit(*index))
            .or_else(|| self.into_iter().nth(n))
    }

    pub fn first(self) -> Option<Pit> {
        (self.0 != 0).then(|| Pit(self.0.trailing_zeros() as u8))
    }

    pub fn last(self) -> Option<Pit> {
        (self.0 != 0).then(|| Pit(15 - self.0.leading_zeros() as u8))
    }
}

impl IntoIterator for PitSet {
    type Item = Pit;
    type IntoIter = PitSetIter;

    fn into_iter(self) -> PitSetIter {
        PitSetIter(self.0)
    }
}

pub struct PitSetIter(u16);

impl Iterator for PitSetIter {
    type Item = Pit;

    fn next(&mut self) -> Option<Pit> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Pit(index))
    }
}

impl DoubleEndedIterator for PitSetIter {
    fn next_back(&mut self) -> Option<Pit> {
        if self.0 == 0 {
            return None;
        }
        let index = 15 - self.0.leading_zeros() as u8;
        self.0 &= !(1 << index);
        Some(Pit(index))
    }
}

impl FromIterator<Pit> for PitSet {
    fn from_iter<I: IntoIterator<Item = Pit>>(iter: I) -> Self {
        let mut set = PitSet::EMPTY;
        for pit in iter {
            set.insert(pit);
        }
        set
    }
}

/// Lists the pits as players write them: `a, d, e`.
impl fmt::Display for PitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pit) in self.into_iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{pit}")?;
        }
        Ok(())
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Wari: a player captured more than half the stones.
    Majority,
    /// Wari: no move could leave the opponent stones; the mover took the rest.
    Starvation,
    /// Wari: a position occurred a second time; each took their own side.
    Repetition,
    /// Waurie: the player to move had no stones and so won.
    CannotMove,
    /// Waurie, first-empty-wins: a player emptied their own row and so won.
    FirstEmpty,
    /// Mankala, Kalah: a row emptied; each scored their pits and store.
    RowEmpty,
    /// A player resigned.
    Resignation,
    /// A player let their clock run out.
    Forfeit,
    /// The players agreed a draw (one offered, the other accepted).
    Agreement,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Majority => "majority",
            EndReason::Starvation => "starvation",
            EndReason::Repetition => "repetition",
            EndReason::CannotMove => "cannot-move",
            EndReason::FirstEmpty => "first-empty",
            EndReason::RowEmpty => "row-empty",
            EndReason::Resignation => "resignation",
            EndReason::Forfeit => "forfeit",
            EndReason::Agreement => "agreement",
        }
    }

    /// Why, in a few words that fit in parentheses after the result.
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::Majority => "more than half the stones captured",
            EndReason::Starvation => "the opponent could not be fed; the mover took the rest",
            EndReason::Repetition => "the position repeated; each took their own side",
            EndReason::CannotMove => "no stones left to move, which wins in Waurie",
            EndReason::FirstEmpty => "the first to empty their own row wins",
            EndReason::RowEmpty => "a row is empty; each scores pits and store",
            EndReason::Resignation => "the opponent resigned",
            EndReason::Forfeit => "the opponent ran out of time",
            EndReason::Agreement => "drawn by agreement",
        }
    }
}

/// How a game ended: who won (none for a draw), why, and the final score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub winner: Option<Side>,
    pub reason: EndReason,
    /// Final scores, South's first.
    pub score: [u16; 2],
}

impl Outcome {
    /// The side with the higher score wins; equal scores draw.
    pub fn by_score(reason: EndReason, score: [u16; 2]) -> Outcome {
        let winner = match score[0].cmp(&score[1]) {
            std::cmp::Ordering::Greater => Some(Side::South),
            std::cmp::Ordering::Less => Some(Side::North),
            std::cmp::Ordering::Equal => None,
        };
        Outcome {
            winner,
            reason,
            score,
        }
    }

    pub fn score_of(&self, side: Side) -> u16 {
        self.score[side.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pits_read_and_write_as_letters() {
        assert_eq!("c".parse(), Ok(Pit::new(2)));
        assert_eq!("C".parse(), Ok(Pit::new(2)));
        assert_eq!("3".parse(), Ok(Pit::new(2)));
        assert_eq!(" h ".parse(), Ok(Pit::new(7)));
        for bad in ["", "i", "0", "9", "ab", "é", "c-f"] {
            assert!(bad.parse::<Pit>().is_err(), "{bad}");
        }
        assert_eq!(Pit::new(4).to_string(), "e");
    }

    #[test]
    fn pit_sets_list_in_order() {
        let set: PitSet = [Pit::new(4), Pit::new(0), Pit::new(3)]
            .into_iter()
            .collect();
        assert_eq!(set.to_string(), "a, d, e");
        assert_eq!(set.len(), 3);
        assert_eq!(set.first(), Some(Pit::new(0)));
        assert_eq!(set.last(), Some(Pit::new(4)));
        assert_eq!(set.nth(1), Some(Pit::new(3)));
        assert_eq!(PitSet::EMPTY.last(), None);
    }
}

#[cfg(test)]
mod rule_tests;
