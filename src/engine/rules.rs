//! The rulesets: each one is a [`Rules`] value (numbers and small enums),
//! never a copy of the sowing loop.

use std::fmt;
use std::str::FromStr;

use super::Side;

/// The games this referee knows, by the names the command line takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ruleset {
    /// Bill Taylor's 2x8 Wari (seed 000).
    SuperWari,
    /// Classic 2x6 Wari, the game Super-Wari extends.
    Wari,
    /// The Cayman 2x6 game with endpits and bonus moves (seed 002).
    Waurie,
    /// Roger Critchlow's Kalah-like game (seed 004).
    Mankala,
}

impl Ruleset {
    pub const ALL: [Ruleset; 4] = [
        Ruleset::SuperWari,
        Ruleset::Wari,
        Ruleset::Waurie,
        Ruleset::Mankala,
    ];

    /// The name the command line and the sheet use.
    pub fn as_str(self) -> &'static str {
        match self {
            Ruleset::SuperWari => "super-wari",
            Ruleset::Wari => "wari",
            Ruleset::Waurie => "waurie",
            Ruleset::Mankala => "mankala",
        }
    }

    /// The name people write in prose.
    pub fn title(self) -> &'static str {
        match self {
            Ruleset::SuperWari => "Super-Wari",
            Ruleset::Wari => "Wari",
            Ruleset::Waurie => "Waurie",
            Ruleset::Mankala => "Mankala",
        }
    }

    /// The rules with the ruleset's usual number of stones.
    pub fn rules(self) -> Rules {
        let (pits, stones) = match self {
            Ruleset::SuperWari => (8, 3),
            Ruleset::Wari | Ruleset::Waurie => (6, 4),
            Ruleset::Mankala => (6, 3),
        };
        let wari = matches!(self, Ruleset::SuperWari | Ruleset::Wari);
        Rules {
            ruleset: self,
            pits,
            stones,
            stores: !wari,
            skip_origin: wari,
            capture: match self {
                Ruleset::SuperWari | Ruleset::Wari => Capture::TwoOrThreeBackwards,
                Ruleset::Waurie => Capture::None,
                Ruleset::Mankala => Capture::OppositeIntoOwnPit,
            },
            bonus_in_own_store: !wari,
            empty_row: match self {
                Ruleset::SuperWari | Ruleset::Wari => EmptyRow::MustFeed,
                Ruleset::Waurie => EmptyRow::CannotMoveWins,
                Ruleset::Mankala => EmptyRow::EndsGame,
            },
            majority_wins: wari,
            repetition_ends: wari,
        }
    }

    /// Which stone counts a pit may start with.
    pub fn stone_range(self) -> std::ops::RangeInclusive<u8> {
        match self {
            // Critchlow's program offers 3, 4, 5 or 6.
            Ruleset::Mankala => 3..=6,
            // Any count whose total fits the board's counters (at most 240 stones).
            Ruleset::SuperWari => 1..=15,
            Ruleset::Wari | Ruleset::Waurie => 1..=20,
        }
    }

    /// The rules with `stones` in each pit at the start.
    ///
    /// # Errors
    /// When `stones` is outside [`Ruleset::stone_range`].
    pub fn with_stones(self, stones: u8) -> Result<Rules, RulesError> {
        let range = self.stone_range();
        if !range.contains(&stones) {
            return Err(RulesError::Stones {
                ruleset: self,
                stones,
                min: *range.start(),
                max: *range.end(),
            });
        }
        Ok(Rules {
            stones,
            ..self.rules()
        })
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Ruleset {
    type Err = RulesError;

    /// Case and the spelling of the separator do not matter: `Super-Wari`,
    /// `super_wari` and `superwari` all name the same game.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let squeezed: String = s
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        Ruleset::ALL
            .into_iter()
            .find(|r| r.as_str().replace('-', "") == squeezed)
            .ok_or_else(|| RulesError::UnknownRuleset(s.to_string()))
    }
}

/// What happens to the stones when the last one lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capture {
    /// No captures at all (Waurie).
    None,
    /// Wari: an opponent cell brought to 2 or 3 is taken, with the unbroken
    /// run of 2-or-3 cells behind it, back to the edge of the opponent's row.
    TwoOrThreeBackwards,
    /// Mankala: the last stone in an own empty pit brings the opposite pit's
    /// stones into that pit (not into the home).
    OppositeIntoOwnPit,
}

/// What an empty row means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EmptyRow {
    /// Wari: no move may leave the opponent without stones; when no move can
    /// avoid it, the mover plays any move and takes every stone left.
    MustFeed,
    /// Waurie: the player to move with no stones cannot play, and wins.
    CannotMoveWins,
    /// Mankala: the game ends as soon as either row is empty.
    EndsGame,
}

/// A ruleset's parameters. Every game is played by the same sowing code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub ruleset: Ruleset,
    /// Pits in each player's row.
    pub pits: u8,
    /// Stones in each pit at the start.
    pub stones: u8,
    /// Sowing passes through the mover's own store (endpit, home).
    pub stores: bool,
    /// A sowing that laps skips the pit it started from.
    pub skip_origin: bool,
    pub capture: Capture,
    /// A last stone in the mover's own store earns another sowing.
    pub bonus_in_own_store: bool,
    pub empty_row: EmptyRow,
    /// Capturing more than half the stones wins at once.
    pub majority_wins: bool,
    /// A position seen before ends the game; each player takes their own side.
    pub repetition_ends: bool,
}

impl Rules {
    /// All the stones in play.
    pub fn total_stones(&self) -> u16 {
        2 * u16::from(self.pits) * u16::from(self.stones)
    }

    /// The pit opposite `pit` across the board.
    pub fn opposite(&self, pit: super::Pit) -> super::Pit {
        super::Pit::new(self.pits - 1 - pit.index())
    }

    /// Which side moves first unless a game says otherwise.
    pub fn default_first(&self) -> Side {
        Side::South
    }
}

/// A ruleset name or a stone count that is not allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown game '{0}'; the games are super-wari, wari, waurie and mankala")]
    UnknownRuleset(String),
    #[error("{ruleset} is played with {min} to {max} stones a pit, not {stones}")]
    Stones {
        ruleset: Ruleset,
        stones: u8,
        min: u8,
        max: u8,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Ruleset::ALL {
            assert_eq!(r.as_str().parse::<Ruleset>(), Ok(r));
            assert_eq!(r.title().parse::<Ruleset>(), Ok(r));
        }
        assert_eq!("Super_Wari".parse::<Ruleset>(), Ok(Ruleset::SuperWari));
        assert!("oware".parse::<Ruleset>().is_err());
    }

    #[test]
    fn stones_are_checked() {
        assert!(Ruleset::Mankala.with_stones(2).is_err());
        assert!(Ruleset::Mankala.with_stones(7).is_err());
        assert_eq!(Ruleset::Mankala.with_stones(6).map(|r| r.stones), Ok(6));
        assert_eq!(
            Ruleset::Mankala.with_stones(9).unwrap_err().to_string(),
            "mankala is played with 3 to 6 stones a pit, not 9"
        );
        for r in Ruleset::ALL {
            let max = r.with_stones(*r.stone_range().end()).unwrap();
            assert!(max.total_stones() <= 240);
        }
    }
}
