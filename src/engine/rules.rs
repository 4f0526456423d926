//! The rulesets: each one is an entry of the one table below (a [`Rules`]
//! value of numbers and small enums, its names, its stone counts, its
//! variants and its rules text), never a copy of the sowing loop.
//!
//! Every list of games the program shows (the command line's values and
//! help, the mail `help`, `mancala rules`, the error that names the games)
//! and every per-game default (the store's word, the computer opponent) is
//! read from this table, so a new ruleset is one entry here, its rules text
//! in `src/guide/`, and its tests.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use super::Side;

/// Declares the [`Ruleset`] enum, [`Ruleset::ALL`] and the table of
/// [`RulesetSpec`]s from one list, so that the three cannot disagree.
macro_rules! rulesets {
    ($($(#[doc = $doc:literal])* $variant:ident => $spec:expr,)*) => {
        /// The games this referee knows, by the names the command line takes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum Ruleset {
            $($(#[doc = $doc])* $variant,)*
        }

        /// The table: one entry a ruleset, in the order of [`Ruleset::ALL`].
        static SPECS: [RulesetSpec; [$(stringify!($variant)),*].len()] =
            [$({
                // Which ruleset a row is, said once: by its place.
                let spec = $spec;
                RulesetSpec {
                    rules: Rules { ruleset: Ruleset::$variant, ..spec.rules },
                    ..spec
                }
            },)*];

        impl Ruleset {
            /// Every ruleset, in the order the program lists them.
            pub const ALL: [Ruleset; [$(stringify!($variant)),*].len()] = [$(Ruleset::$variant,)*];
        }
    };
}

rulesets! {
    /// Bill Taylor's 2x8 Wari (seed 000).
    SuperWari => WARI_SPEC
        .named("super-wari", "Super-Wari")
        .with_rules(Rules {
            pits: 8,
            stones: 3,
            ..WARI
        })
        .pit_range(8..=8)
        // Any count whose total fits the board's counters (at most 240 stones).
        .stone_range(1..=15)
        .guide(include_str!("../guide/super-wari.md")),
    /// Classic 2x6 Wari, the game Super-Wari extends.
    Wari => WARI_SPEC,
    /// The Cayman 2x6 game with endpits and bonus moves (seed 002).
    Waurie => KALAH_LIKE_SPEC
        .named("waurie", "Waurie")
        .with_rules(Rules {
            empty_row: EmptyRow::CannotMoveWins,
            ..KALAH_LIKE
        })
        .store_word("endpit")
        .variants(&[
            VariantSpec {
                name: "first-empty-wins",
                summary: "the first player to empty their own row wins at once, even \
                          if the opponent could feed it (Armstrong's Island Wari)",
                apply: |rules| Rules {
                    empty_row: EmptyRow::EmptiedRowWins,
                    ..rules
                },
            },
            VariantSpec {
                name: "both-stores",
                summary: "seeds are sown into both endpits, the opponent's too \
                          (Kid-Cala's beginner's version)",
                apply: |rules| Rules {
                    sow_opponent_store: true,
                    ..rules
                },
            },
        ])
        .guide(include_str!("../guide/waurie.md"))
        .summary(
            "\
Sow anti-clockwise into your own endpit but never the opponent's; the
emptied pit is sown again on a lap. Ending in your own endpit sows again
(a free turn). No captures. The player to move who has no seeds wins.
",
        ),
    /// Roger Critchlow's Kalah-like game (seed 004).
    Mankala => KALAH_LIKE_SPEC
        .named("mankala", "Mankala")
        .with_rules(Rules {
            stones: 3,
            capture: Capture::OppositeIntoOwnPit,
            ..KALAH_LIKE
        })
        // Critchlow's program offers 3, 4, 5 or 6.
        .stone_range(3..=6)
        .store_word("home")
        // Critchlow's own greedy player, for his own game.
        .opponent(DefaultOpponent::Greedy)
        .guide(include_str!("../guide/mankala.md"))
        .summary(
            "\
Sow anti-clockwise into your own home but never the opponent's. Ending in
your home is another turn. Ending in an empty pit of your own brings the
opposite pit's stones into that pit. The game ends as soon as a row is
empty; each scores their pits plus home, and the higher score wins.
",
        ),
    /// Standard Kalah, the game most people know as mancala.
    Kalah => KALAH_LIKE_SPEC
        .named("kalah", "Kalah")
        .with_rules(Rules {
            capture: Capture::OppositeIntoStore,
            ..KALAH_LIKE
        })
        // 1 and 2 for the small boards of the literature.
        .stone_range(1..=6)
        // The smaller boards of the literature (Irving, Donkers and
        // Uiterwijk solved Kalah with 1 to 6 pits a row).
        .pit_range(1..=6)
        .variants(&[VariantSpec {
            name: "empty-capture",
            summary: "a last stone in an empty pit of your own goes into your store even \
                      when the opposite pit is empty (the rules Irving, Donkers and \
                      Uiterwijk solved)",
            apply: |rules| Rules {
                lone_capture: true,
                ..rules
            },
        }])
        .guide(include_str!("../guide/kalah.md"))
        .summary(
            "\
Sow anti-clockwise into your own store but never the opponent's. Ending in
your store is another turn. Ending in an empty pit of your own while the
opposite pit has stones puts both into your store. The game ends as soon
as a row is empty; each scores their pits plus store; the higher wins.
",
        ),
}

/// Wari's entry, the base of Super-Wari's.
const WARI_SPEC: RulesetSpec = RulesetSpec {
    name: "wari",
    title: "Wari",
    rules: WARI,
    stones: 1..=20,
    pits: 6..=6,
    store_word: "store",
    opponent: DefaultOpponent::Strong,
    variants: &[],
    guide: include_str!("../guide/wari.md"),
    summary: "\
Sow anti-clockwise, skipping the pit you moved from on a lap. A last
stone that makes an opponent's pit 2 or 3 captures it, and the unbroken
run of 2s and 3s behind it, to the edge of their row. No move may leave
the opponent without stones (when none can help, the mover takes all
that is left). A position seen before ends the game, each taking their
own side. More than half the stones captured wins at once; equal is a
draw.
",
};

/// Wari's rules, the base of Super-Wari's.
const WARI: Rules = Rules {
    ruleset: Ruleset::Wari,
    pits: 6,
    stones: 4,
    stores: false,
    sow_opponent_store: false,
    skip_origin: true,
    capture: Capture::TwoOrThreeBackwards,
    bonus_in_own_store: false,
    empty_row: EmptyRow::MustFeed,
    majority_wins: true,
    repetition_ends: true,
    lone_capture: false,
    variant: None,
};

/// The rules of the games with stores that sowing passes (Waurie,
/// Mankala, Kalah), as they differ from Wari's.
const KALAH_LIKE: Rules = Rules {
    ruleset: Ruleset::Kalah,
    stores: true,
    skip_origin: false,
    capture: Capture::None,
    bonus_in_own_store: true,
    empty_row: EmptyRow::EndsGame,
    majority_wins: false,
    repetition_ends: false,
    ..WARI
};

/// The base of the Kalah-like rows: Wari's entry with their rules; each
/// row names itself and what else it changes.
const KALAH_LIKE_SPEC: RulesetSpec = WARI_SPEC.with_rules(KALAH_LIKE);

/// Which computer a game is played against unless the player names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefaultOpponent {
    /// Critchlow's greedy player.
    Greedy,
    /// The strong game-tree search.
    Strong,
}

/// One ruleset's entry in the table.
///
/// It carries the rules text too: the engine never prints it, but a
/// ruleset and the words that explain it are added together, in one place.
#[derive(Debug)]
pub struct RulesetSpec {
    /// The name the command line, the sheet and the mail use.
    pub name: &'static str,
    /// The name people write in prose.
    pub title: &'static str,
    /// The rules with the usual number of stones.
    pub rules: Rules,
    /// Which stone counts a pit may start with.
    pub stones: RangeInclusive<u8>,
    /// How many pits a row may have (the usual number alone, but Kalah's).
    pub pits: RangeInclusive<u8>,
    /// What the game calls the pit at the end of a row.
    pub store_word: &'static str,
    pub opponent: DefaultOpponent,
    /// The other ways the game is played, besides the default.
    pub variants: &'static [VariantSpec],
    /// The full rules as applied, with clarifications (Markdown).
    pub guide: &'static str,
    /// The rules in a few lines, for a mail that must stay short.
    pub summary: &'static str,
}

/// The table's rows are built from a base entry (`WARI_SPEC`,
/// `KALAH_LIKE_SPEC`), each naming only what it changes, as a builder does
/// (its rules first, as a whole).
impl RulesetSpec {
    const fn with_rules(self, rules: Rules) -> RulesetSpec {
        RulesetSpec { rules, ..self }
    }

    const fn named(self, name: &'static str, title: &'static str) -> RulesetSpec {
        RulesetSpec {
            name,
            title,
            ..self
        }
    }

    const fn stone_range(self, stones: RangeInclusive<u8>) -> RulesetSpec {
        RulesetSpec { stones, ..self }
    }

    const fn pit_range(self, pits: RangeInclusive<u8>) -> RulesetSpec {
        RulesetSpec { pits, ..self }
    }

    const fn store_word(self, store_word: &'static str) -> RulesetSpec {
        RulesetSpec { store_word, ..self }
    }

    const fn opponent(self, opponent: DefaultOpponent) -> RulesetSpec {
        RulesetSpec { opponent, ..self }
    }

    const fn variants(self, variants: &'static [VariantSpec]) -> RulesetSpec {
        RulesetSpec { variants, ..self }
    }

    const fn guide(self, guide: &'static str) -> RulesetSpec {
        RulesetSpec { guide, ..self }
    }

    const fn summary(self, summary: &'static str) -> RulesetSpec {
        RulesetSpec { summary, ..self }
    }
}

/// A variant of a ruleset: a name, a line that says what differs, and the
/// change to the rules' parameters.
pub struct VariantSpec {
    pub name: &'static str,
    pub summary: &'static str,
    pub apply: fn(Rules) -> Rules,
}

impl fmt::Debug for VariantSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A variant, by its place in its ruleset's list: one byte, so that a
/// [`Rules`] stays small to copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VariantId(u8);

impl Ruleset {
    /// This ruleset's entry in the table.
    pub fn spec(self) -> &'static RulesetSpec {
        &SPECS[self as usize]
    }

    /// The name the command line and the sheet use.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The name people write in prose.
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// The rules with the ruleset's usual number of stones.
    pub fn rules(self) -> Rules {
        self.spec().rules
    }

    /// Which stone counts a pit may start with.
    pub fn stone_range(self) -> RangeInclusive<u8> {
        self.spec().stones.clone()
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

    /// The rules as asked for: the usual stones and no variant unless said.
    ///
    /// # Errors
    /// When the stones are out of range, or the ruleset has no such variant.
    pub fn configure(self, stones: Option<u8>, variant: Option<&str>) -> Result<Rules, RulesError> {
        let rules = match stones {
            Some(n) => self.with_stones(n)?,
            None => self.rules(),
        };
        match variant {
            Some(name) => rules.with_variant(name),
            None => Ok(rules),
        }
    }

    /// The names of the ruleset's variants, `a and b`.
    pub fn variant_names(self) -> String {
        join_list(self.spec().variants.iter().map(|v| v.name), "and")
    }
}

/// A ruleset writes as its name, as the command line and the sheet take it.
impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `a`, `a or b`, `a, b or c` (with `conjunction` "or").
fn join_list<'a>(names: impl Iterator<Item = &'a str>, conjunction: &str) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} {conjunction} {last}", rest.join(", ")),
    }
}

/// Every game's name, `super-wari, wari, ... or kalah`.
pub fn ruleset_names() -> String {
    join_list(Ruleset::ALL.iter().map(|r| r.as_str()), "or")
}

/// Every game's prose name, `Super-Wari, Wari, ... and Kalah`.
pub fn ruleset_titles() -> String {
    join_list(Ruleset::ALL.iter().map(|r| r.title()), "and")
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
        // Other names of the same games: Oware, Awari and Awale are Wari's
        // (the abapa rules); Kalaha is Kalah's.
        const ALIASES: [(&str, Ruleset); 4] = [
            ("oware", Ruleset::Wari),
            ("awari", Ruleset::Wari),
            ("awale", Ruleset::Wari),
            ("kalaha", Ruleset::Kalah),
        ];
        Ruleset::ALL
            .into_iter()
            .find(|r| r.as_str().replace('-', "") == squeezed)
            .or_else(|| {
                ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == squeezed)
                    .map(|(_, r)| *r)
            })
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
    /// Kalah: the last stone in an own empty pit, when the opposite pit has
    /// stones, goes with them into the mover's store.
    OppositeIntoStore,
}

/// What an empty row means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EmptyRow {
    /// Wari: no move may leave the opponent without stones; when no move can
    /// avoid it, the mover plays any move and takes every stone left.
    MustFeed,
    /// Waurie: the player to move with no stones cannot play, and wins.
    CannotMoveWins,
    /// Waurie, first-empty-wins: whoever empties their own row wins at once.
    EmptiedRowWins,
    /// Mankala, Kalah: the game ends as soon as either row is empty.
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
    /// Sowing passes through the opponent's store too (with `stores`).
    pub sow_opponent_store: bool,
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
    /// Kalah, empty-capture: a last stone in an own empty pit goes into the
    /// store even when the opposite pit is empty.
    pub lone_capture: bool,
    /// The variant played, if not the ruleset's default rules.
    pub variant: Option<VariantId>,
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

    /// These rules on a board of `pits` pits a row.
    ///
    /// # Errors
    /// When the ruleset is not played with that many.
    pub fn with_pits(self, pits: u8) -> Result<Rules, RulesError> {
        let range = self.ruleset.spec().pits.clone();
        if !range.contains(&pits) {
            return Err(RulesError::Pits {
                ruleset: self.ruleset,
                pits,
                min: *range.start(),
                max: *range.end(),
            });
        }
        Ok(Rules { pits, ..self })
    }

    /// The variant played, if any.
    pub fn variant(&self) -> Option<&'static VariantSpec> {
        let VariantId(index) = self.variant?;
        self.ruleset.spec().variants.get(usize::from(index))
    }

    /// The variant's name, as the sheet and the command line write it.
    pub fn variant_name(&self) -> Option<&'static str> {
        self.variant().map(|v| v.name)
    }

    /// These rules played as the variant `name` (any case).
    ///
    /// # Errors
    /// When the ruleset has no such variant.
    pub fn with_variant(self, name: &str) -> Result<Rules, RulesError> {
        let variants = self.ruleset.spec().variants;
        let found = variants
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(name.trim()));
        match found.and_then(|i| u8::try_from(i).ok()) {
            Some(index) => Ok(Rules {
                variant: Some(VariantId(index)),
                ..(variants[usize::from(index)].apply)(self)
            }),
            None => Err(RulesError::UnknownVariant {
                ruleset: self.ruleset,
                variant: name.trim().to_string(),
            }),
        }
    }
}

/// A ruleset name, stone count or variant that is not allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown game '{0}'; the games are {names}", names = ruleset_names())]
    UnknownRuleset(String),
    #[error("{ruleset} is played with {min} to {max} stones a pit, not {stones}")]
    Stones {
        ruleset: Ruleset,
        stones: u8,
        min: u8,
        max: u8,
    },
    #[error("{ruleset} is played with {} pits a row, not {pits}", pit_range(*min, *max))]
    Pits {
        ruleset: Ruleset,
        pits: u8,
        min: u8,
        max: u8,
    },
    #[error("{ruleset} has no variant '{variant}'{known}", known = known_variants(*ruleset))]
    UnknownVariant { ruleset: Ruleset, variant: String },
}

fn pit_range(min: u8, max: u8) -> String {
    match min == max {
        true => min.to_string(),
        false => format!("{min} to {max}"),
    }
}

fn known_variants(ruleset: Ruleset) -> String {
    match ruleset.spec().variants {
        [] => format!("; {ruleset} is played one way only"),
        _ => format!("; its variants are {}", ruleset.variant_names()),
    }
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
        // Other names of the same games.
        assert_eq!("Oware".parse::<Ruleset>(), Ok(Ruleset::Wari));
        assert_eq!("kalaha".parse::<Ruleset>(), Ok(Ruleset::Kalah));
        assert!("chess".parse::<Ruleset>().is_err());
    }

    #[test]
    fn each_entry_describes_its_own_ruleset() {
        for r in Ruleset::ALL {
            let spec = r.spec();
            assert_eq!(spec.rules.ruleset, r, "{r}'s entry names another ruleset");
            // The store files and JSON spell the name as serde derives it.
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", spec.name)
            );
            assert!(spec.stones.contains(&spec.rules.stones), "{r}");
            assert!(spec.pits.contains(&spec.rules.pits), "{r}");
            assert!(*spec.pits.end() <= super::super::MAX_PITS, "{r}");
            assert!(spec.rules.stores || !spec.rules.sow_opponent_store, "{r}");
            for v in spec.variants {
                let rules = r.rules().with_variant(v.name).unwrap();
                assert_eq!(rules.variant_name(), Some(v.name));
                assert_ne!(
                    Rules {
                        variant: None,
                        ..rules
                    },
                    r.rules(),
                    "{r} {v:?} changes nothing"
                );
            }
        }
    }

    #[test]
    fn the_error_names_every_game() {
        let err = "chess".parse::<Ruleset>().unwrap_err().to_string();
        for r in Ruleset::ALL {
            assert!(err.contains(r.as_str()), "{err}");
        }
        assert!(err.ends_with(" or kalah"), "{err}");
        assert_eq!(
            Ruleset::Waurie
                .rules()
                .with_variant("x")
                .unwrap_err()
                .to_string(),
            "waurie has no variant 'x'; its variants are first-empty-wins and both-stores"
        );
        assert_eq!(
            Ruleset::Wari
                .rules()
                .with_variant("x")
                .unwrap_err()
                .to_string(),
            "wari has no variant 'x'; wari is played one way only"
        );
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
