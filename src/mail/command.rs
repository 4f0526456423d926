//! The commands a player writes, one a line in their own text (or in the
//! subject): `new`, `accept`, `decline`, `resign`, `board`, `help`, `games`.
//! Moves are read apart (a move line, or the `?` of a quoted log).

use crate::engine::{Ruleset, Side};

use super::incoming::Mailbox;
use super::play::Refusal;

/// Whom a `new` game is against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    Computer,
    Person(Mailbox),
}

/// A command a player writes on a line of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `new RULESET [stones N] [variant V] with ADDRESS [as south|north]`
    New {
        ruleset: Ruleset,
        stones: Option<u8>,
        /// The ruleset's variant, as written (the referee checks it).
        variant: Option<String>,
        opponent: Opponent,
        side: Side,
    },
    Accept,
    Decline,
    Resign,
    Board,
    Help,
    /// `help rules RULESET`: one game's full rules.
    HelpRules(Ruleset),
    Games,
}

/// The command on one line, if the line is one.
///
/// # Errors
/// A `new` line that cannot be read.
pub fn command_line(line: &str) -> Result<Option<Command>, Refusal> {
    let trimmed = line.trim().trim_end_matches(['.', '!']);
    let words: Vec<String> = trimmed
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["accept"] => Some(Command::Accept),
        ["decline"] => Some(Command::Decline),
        ["resign"] => Some(Command::Resign),
        ["board"] => Some(Command::Board),
        ["help"] => Some(Command::Help),
        ["help", "rules", ruleset] => ruleset.parse().ok().map(Command::HelpRules),
        ["games"] => Some(Command::Games),
        ["new", ruleset, ..] => match ruleset.parse::<Ruleset>() {
            // Words kept as written: a display name keeps its case.
            Ok(ruleset) => Some(new_command(
                ruleset,
                &trimmed.split_whitespace().skip(2).collect::<Vec<_>>(),
                trimmed,
            )?),
            Err(_) => None, // "new to this game": prose
        },
        _ => None,
    })
}

/// `[stones N] [variant V] with OPPONENT [as south|north]`, where
/// OPPONENT is `computer`, `bob@x`, `<bob@x>` or `Bob Smith <bob@x>`.
fn new_command(ruleset: Ruleset, rest: &[&str], line: &str) -> Result<Command, Refusal> {
    const KEYWORDS: [&str; 3] = ["as", "stones", "variant"];
    let bad = || Refusal::BadNew(line.trim().to_string());
    let (mut stones, mut variant, mut opponent, mut side) = (None, None, None, Side::South);
    let mut words = rest.iter().peekable();
    while let Some(word) = words.next() {
        match word.to_ascii_lowercase().as_str() {
            "stones" => stones = Some(words.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?),
            "variant" => variant = Some(words.next().ok_or_else(bad)?.to_ascii_lowercase()),
            "as" => side = words.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?,
            "with" => {
                let mut named = Vec::new();
                while let Some(w) =
                    words.next_if(|w| !KEYWORDS.contains(&w.to_ascii_lowercase().as_str()))
                {
                    named.push(*w);
                }
                opponent = Some(opponent_of(&named).ok_or_else(bad)?);
            }
            _ => return Err(bad()),
        }
    }
    let opponent = opponent.ok_or_else(bad)?;
    Ok(Command::New {
        ruleset,
        stones,
        variant,
        opponent,
        side,
    })
}

fn opponent_of(words: &[&str]) -> Option<Opponent> {
    if let [word] = words {
        if word.eq_ignore_ascii_case("computer") {
            return Some(Opponent::Computer);
        }
    }
    let address_at = words.iter().position(|w| w.contains('@'))?;
    let address = words[address_at]
        .trim_matches(['<', '>', ',', ';'])
        .to_string();
    let valid = address.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && domain.contains('.') || domain == "localhost"
    }) && !address.contains(['<', '>', '"', '(', ')', ',']);
    if !valid || address_at + 1 != words.len() {
        return None;
    }
    let name = words[..address_at].join(" ");
    let name = name.trim_matches('"').trim();
    Some(Opponent::Person(Mailbox {
        name: (!name.is_empty()).then(|| name.to_string()),
        address,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_whole_lines() {
        let line = |l: &str| command_line(l).unwrap();
        assert_eq!(line("resign"), Some(Command::Resign));
        assert_eq!(line("  Board."), Some(Command::Board));
        assert_eq!(line("Accept!"), Some(Command::Accept));
        assert_eq!(line("decline"), Some(Command::Decline));
        assert_eq!(
            line("help rules Waurie"),
            Some(Command::HelpRules(Ruleset::Waurie))
        );
        assert_eq!(line("board looks great"), None);
        assert_eq!(line("new to this"), None);
        assert_eq!(
            line("new Wari stones 5 with <bob@players.example> as north"),
            Some(Command::New {
                ruleset: Ruleset::Wari,
                stones: Some(5),
                variant: None,
                opponent: Opponent::Person(Mailbox {
                    name: None,
                    address: "bob@players.example".into()
                }),
                side: Side::North
            })
        );
        assert_eq!(
            line("new Waurie variant First-Empty-Wins with computer as north"),
            Some(Command::New {
                ruleset: Ruleset::Waurie,
                stones: None,
                variant: Some("first-empty-wins".into()),
                opponent: Opponent::Computer,
                side: Side::North
            })
        );
        assert!(command_line("new waurie variant").is_err());
        assert!(command_line("new wari with").is_err());
        assert!(command_line("new wari with bob").is_err());
        assert!(matches!(
            command_line("new wari with computer"),
            Ok(Some(Command::New {
                opponent: Opponent::Computer,
                ..
            }))
        ));
    }

    #[test]
    fn an_opponent_as_people_write_one() {
        let opponent = |l: &str| match command_line(l) {
            Ok(Some(Command::New { opponent, .. })) => opponent,
            other => panic!("{l}: {other:?}"),
        };
        assert_eq!(
            opponent("new wari with Bob <bob@players.example>"),
            Opponent::Person(Mailbox {
                name: Some("Bob".into()),
                address: "bob@players.example".into()
            })
        );
        assert_eq!(
            opponent("new wari with \"Bob Smith\" <bob@players.example> as north"),
            Opponent::Person(Mailbox {
                name: Some("Bob Smith".into()),
                address: "bob@players.example".into()
            })
        );
        assert!(command_line("new wari with <bob@players.example> Bob").is_err());
        assert!(command_line("new wari with bob@x\"y").is_err());
    }
}
