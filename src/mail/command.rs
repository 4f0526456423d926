//! The commands a player writes, one a line in their own text (or in the
//! subject): `new`, `accept`, `decline`, `withdraw`, `resign`, `board [N]`,
//! `preview ...`, `if X then Y`, `offer draw`, `takeback`, `help` (or
//! `rules`), `games`, `history`, `ratings`. Move lines are read apart (see
//! [`move_line`](super::play::move_line)) and take their place among them.

use crate::engine::{Pit, RulesError, Ruleset, Side};
use crate::sheet::parse_sowings;

use super::incoming::Mailbox;
use super::refusal::{echo, Refusal};

/// `if REPLY then ANSWER`, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub reply: Vec<Pit>,
    pub answer: Vec<Pit>,
}

/// The most commands one mail may carry: each costs an answer or a turn.
pub const MOST_COMMANDS: usize = 30;

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
    /// The inviter takes back an invitation not yet answered.
    Withdraw,
    Resign,
    /// `board`, or `board N`: the sheet after the first N turns.
    Board(Option<usize>),
    /// `preview c e-b d`: turns (the player to move's first), played on a copy.
    Preview(Vec<Vec<Pit>>),
    /// `if e then d` (several on a line, split by `;` or `,`): should the
    /// opponent answer `e`, play `d` at once.
    If(Vec<Condition>),
    /// `offer draw`
    OfferDraw,
    /// `takeback`: ask to undo one's last turn.
    Takeback,
    /// A move line, where it stands among the commands.
    Move(Vec<Pit>),
    Help,
    /// `help rules RULESET`: one game's full rules.
    HelpRules(Ruleset),
    Games,
    /// `history`: one's finished games.
    History,
    /// `analysis`: the game turn by turn under perfect play.
    Analysis,
    /// `ratings [RULESET]`
    Ratings(Option<Ruleset>),
}

impl Command {
    /// The command's word, as the player wrote it in short.
    pub fn name(&self) -> &'static str {
        match self {
            Command::New { .. } => "new",
            Command::Accept => "accept",
            Command::Decline => "decline",
            Command::Withdraw => "withdraw",
            Command::Resign => "resign",
            Command::Board(_) => "board",
            Command::Preview(_) => "preview",
            Command::If(_) => "if",
            Command::OfferDraw => "offer draw",
            Command::Takeback => "takeback",
            Command::Move(_) => "move",
            Command::Help => "help",
            Command::HelpRules(_) => "rules",
            Command::Games => "games",
            Command::History => "history",
            Command::Analysis => "analysis",
            Command::Ratings(_) => "ratings",
        }
    }

    /// Does it only ask (an answer to the sender, the game untouched)?
    pub fn is_question(&self) -> bool {
        matches!(
            self,
            Command::Board(_)
                | Command::Preview(_)
                | Command::Help
                | Command::HelpRules(_)
                | Command::Games
                | Command::History
                | Command::Analysis
                | Command::Ratings(_)
        )
    }

    /// A question answered in a section of its own. Not `board` alone: the
    /// reply shows the board anyway, so it asks for nothing more.
    pub fn asks_for_an_answer(&self) -> bool {
        self.is_question() && *self != Command::Board(None)
    }
}

/// The command on one line, if the line is one.
///
/// # Errors
/// A `new`, `preview` or `if` line that cannot be read.
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
        ["withdraw"] => Some(Command::Withdraw),
        ["resign"] => Some(Command::Resign),
        ["board"] => Some(Command::Board(None)),
        ["board", n] => board_number(n)?.map(|n| Command::Board(Some(n))),
        ["preview", turns @ ..] if !turns.is_empty() => {
            let read: Result<Vec<Vec<Pit>>, _> = turns.iter().map(|t| parse_sowings(t)).collect();
            match read {
                Ok(turns) if turns.iter().all(|t| !t.is_empty()) => Some(Command::Preview(turns)),
                _ => return Err(Refusal::BadPreview(echo(trimmed))),
            }
        }
        // Any line of `if ... then ...` is a condition, or refused: never
        // relayed, so the opponent cannot read what was meant for the referee.
        ["if", ..] if words.contains(&"then") => Some(Command::If(conditions(trimmed)?)),
        ["offer", "draw"] | ["offer", "a", "draw"] => Some(Command::OfferDraw),
        ["takeback"] | ["take", "back"] | ["undo"] => Some(Command::Takeback),
        // `rules` alone: the commands and the game's rules in short.
        ["help"] | ["rules"] | ["help", "rules"] => Some(Command::Help),
        // A game named in words or not (`super wari`), as `new` takes it.
        ["help", "rules", named @ ..] | ["rules", named @ ..] => {
            named.concat().parse().ok().map(Command::HelpRules)
        }
        ["games"] => Some(Command::Games),
        ["history"] => Some(Command::History),
        ["analysis"] | ["analyse"] | ["analyze"] => Some(Command::Analysis),
        ["ratings"] => Some(Command::Ratings(None)),
        ["ratings", named @ ..] => named
            .concat()
            .parse()
            .ok()
            .map(|r| Command::Ratings(Some(r))),
        ["new", rest @ ..] => match game_named(rest) {
            // Words kept as written: a display name keeps its case.
            Some((ruleset, named)) => Some(new_command(
                ruleset,
                &trimmed
                    .split_whitespace()
                    .skip(1 + named)
                    .collect::<Vec<_>>(),
                trimmed,
            )?),
            None => None, // "new to this game": prose
        },
        _ => None,
    })
}

/// The game `new` names in `words` (after `new`, lowercased), written in
/// words or not (`super wari`) up to the first keyword, and how many words
/// its name took.
fn game_named(words: &[&str]) -> Option<(Ruleset, usize)> {
    let named = words
        .iter()
        .position(|w| ["with", "as", "stones", "variant"].contains(w))
        .unwrap_or(words.len());
    let ruleset = words[..named].concat().parse().ok()?;
    (named > 0).then_some((ruleset, named))
}

/// A whole invitation to a game the referee does not have (`new oware
/// with bob@x`, `new chess with computer`): why none can start. Any other
/// line that opens with `new` is prose.
pub fn unknown_game(line: &str) -> Option<RulesError> {
    let words: Vec<String> = line
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let ["new", rest @ ..] = words.as_slice() else {
        return None;
    };
    let with = rest
        .iter()
        .position(|w| *w == "with")
        .filter(|&at| at > 0)?;
    if game_named(rest).is_some() {
        return None;
    }
    let written: Vec<&str> = line.split_whitespace().skip(2 + with).collect();
    opponent_of(&written)?;
    Some(RulesError::UnknownRuleset(rest[..with].join(" ")))
}

/// The number of `board N` (`board 3`, `board #3`): `None` for prose
/// (`board looks great`); a word that starts as a number must be one.
fn board_number(word: &str) -> Result<Option<usize>, Refusal> {
    // Any script's digit (`٣`) is a number meant, refused as a bad one.
    if !word.starts_with(|c: char| c.is_numeric() || matches!(c, '#' | '-' | '+')) {
        return Ok(None);
    }
    match word.strip_prefix('#').unwrap_or(word).parse() {
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(Refusal::BadBoard(echo(&format!("board {word}")))),
    }
}

/// `if e then d; if b-f then a, if c then d (a trap)`: the word before each
/// `then` is the reply, the word after it the answer.
fn conditions(line: &str) -> Result<Vec<Condition>, Refusal> {
    let bad = || Refusal::BadCondition(echo(line));
    let mut read = Vec::new();
    for part in line.split([';', ',']).filter(|p| !p.trim().is_empty()) {
        let words: Vec<String> = part
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
            .map(str::to_ascii_lowercase)
            .collect();
        let then = words.iter().position(|w| w == "then").ok_or_else(bad)?;
        let reply = then
            .checked_sub(1)
            .and_then(|i| words.get(i))
            .ok_or_else(bad)?;
        let answer = words.get(then + 1).ok_or_else(bad)?;
        match (parse_sowings(reply), parse_sowings(answer)) {
            (Ok(reply), Ok(answer)) if !reply.is_empty() && !answer.is_empty() => {
                read.push(Condition { reply, answer });
            }
            _ => return Err(bad()),
        }
    }
    Ok(read)
}

/// `[stones N] [variant V] with OPPONENT [as south|north]`, where
/// OPPONENT is `computer`, `bob@x`, `<bob@x>` or `Bob Smith <bob@x>`.
fn new_command(ruleset: Ruleset, rest: &[&str], line: &str) -> Result<Command, Refusal> {
    const KEYWORDS: [&str; 3] = ["as", "stones", "variant"];
    let bad = || Refusal::BadNew(echo(line.trim()));
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
    // What the mail system can send to, and no more: a control character
    // or an over-long part (lettre's parse) or an IP literal (the `[`,
    // which lettre takes and few servers route) is refused here, with the
    // way to write an invitation, not after the inviter was told it went.
    let sendable = crate::address::with_ascii_domain(&address)
        .parse::<lettre::Address>()
        .is_ok();
    let valid = sendable
        && address.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') || domain == "localhost"
        })
        && !address.contains(['<', '>', '"', '(', ')', ',', '[']);
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
    fn an_invitee_the_mail_system_cannot_reach_is_no_opponent() {
        let long_local = format!("{}@players.example", "b".repeat(300));
        let long_label = format!("bob@{}.example", "d".repeat(70));
        for address in [
            "bob\0@players.example",
            long_local.as_str(),
            long_label.as_str(),
            "bob@[127.0.0.1]",
        ] {
            assert_eq!(opponent_of(&["Bob", address]), None, "{address:?}");
        }
        for address in ["bob@players.example", "bob@bücher.example", "bob@localhost"] {
            assert!(opponent_of(&["Bob", address]).is_some(), "{address}");
        }
    }

    #[test]
    fn commands_are_whole_lines() {
        let line = |l: &str| command_line(l).unwrap();
        assert_eq!(line("resign"), Some(Command::Resign));
        assert_eq!(line("  Board."), Some(Command::Board(None)));
        assert_eq!(line("board 12"), Some(Command::Board(Some(12))));
        assert_eq!(line("board #3"), Some(Command::Board(Some(3))));
        assert!(matches!(
            command_line("board \u{663}"),
            Err(Refusal::BadBoard(_))
        ));
        assert_eq!(line("board of today"), None);
        let pits = |s: &str| parse_sowings(s).unwrap();
        assert_eq!(
            line("preview c e-b d"),
            Some(Command::Preview(vec![pits("c"), pits("e-b"), pits("d")]))
        );
        assert!(matches!(
            command_line("preview c zz"),
            Err(Refusal::BadPreview(_))
        ));
        assert_eq!(
            line("If e then d-a."),
            Some(Command::If(vec![Condition {
                reply: pits("e"),
                answer: pits("d-a")
            }]))
        );
        let count = |l: &str| match command_line(l) {
            Ok(Some(Command::If(c))) => c.len(),
            other => panic!("{l}: {other:?}"),
        };
        assert_eq!(count("if d then e; if a then b"), 2);
        assert_eq!(count("if d then e, if a then b"), 2);
        assert_eq!(count("if d then e (my trap)"), 1);
        assert_eq!(count("If you play d then e"), 1);
        assert!(
            command_line("if you want, then we talk").is_err(),
            "refused, not relayed"
        );
        assert!(command_line("if e then z").is_err());
        assert_eq!(line("if only it were so"), None);
        assert_eq!(line("Offer draw"), Some(Command::OfferDraw));
        assert_eq!(line("rules"), Some(Command::Help));
        assert_eq!(line("help rules"), Some(Command::Help));
        assert_eq!(line("rules oware"), Some(Command::HelpRules(Ruleset::Wari)));
        assert_eq!(line("take back"), Some(Command::Takeback));
        assert_eq!(line("history"), Some(Command::History));
        assert_eq!(
            line("ratings wari"),
            Some(Command::Ratings(Some(Ruleset::Wari)))
        );
        assert_eq!(
            line("ratings Super Wari"),
            Some(Command::Ratings(Some(Ruleset::SuperWari)))
        );
        assert_eq!(
            line("rules super wari"),
            Some(Command::HelpRules(Ruleset::SuperWari))
        );
        assert_eq!(line("Accept!"), Some(Command::Accept));
        assert_eq!(line("decline"), Some(Command::Decline));
        assert_eq!(line("Withdraw."), Some(Command::Withdraw));
        assert_eq!(
            line("help rules Waurie"),
            Some(Command::HelpRules(Ruleset::Waurie))
        );
        assert_eq!(line("board looks great"), None);
        for odd in [
            "board 99999999999999999999999",
            "board -1",
            "board #",
            "board 3x",
        ] {
            assert!(
                matches!(command_line(odd), Err(Refusal::BadBoard(_))),
                "{odd}: refused, not relayed"
            );
        }
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

    /// The game and the opponent of the invitation `line` reads as.
    fn invitation(line: &str) -> (Ruleset, Opponent) {
        match command_line(line) {
            Ok(Some(Command::New {
                ruleset, opponent, ..
            })) => (ruleset, opponent),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn an_opponent_as_people_write_one() {
        let opponent = |line: &str| invitation(line).1;
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

    /// A game named in words or by another of its names is that game; an
    /// invitation to a game not here is refused with the games' names;
    /// prose that starts with `new` stays prose.
    #[test]
    fn a_new_games_name_as_people_write_it() {
        let ruleset = |line: &str| invitation(line).0;
        assert_eq!(
            ruleset("new Super Wari with bob@x.example"),
            Ruleset::SuperWari
        );
        assert_eq!(ruleset("new oware with bob@x.example"), Ruleset::Wari);
        assert_eq!(
            ruleset("new Kalaha stones 6 with bob@x.example"),
            Ruleset::Kalah
        );
        // Prose to the command reader, wherever it stands (a subject, a
        // chat line); a mail that starts nothing is told why.
        assert_eq!(command_line("new chess with bob@x.example"), Ok(None));
        assert_eq!(
            unknown_game("New Chess game with Bob <bob@x.example>").map(|e| e.to_string()),
            Some(
                "unknown game 'chess game'; the games are super-wari, wari, waurie, mankala or kalah"
                    .into()
            )
        );
        assert!(unknown_game("new chess with computer").is_some());
        assert!(unknown_game("new wari with computer").is_none());
        assert!(unknown_game("new idea with computer help").is_none());
        assert!(unknown_game("new to this game, with luck").is_none());
        assert_eq!(command_line("new to this game, with luck"), Ok(None));
        assert_eq!(command_line("new here"), Ok(None));
    }
}
