//! Moves as mail carries them, for both referees: the move line, the
//! quoted sheet with the move written in place of its `?`, one turn
//! played, and why a mail's move was not played ([`Refusal`]).

use super::letter::Letter;
use crate::engine::{Pit, RulesError, Side};
use crate::sheet::{self, RawSheet, Sheet, SheetError};

/// Why a mail's move (or command) was not carried out, said to the player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0}; reply to the referee's latest mail, quoting it whole")]
    Sheet(#[from] SheetError),
    #[error("'{text}' is not a move: {error}; write move and a pit letter, such as: move c")]
    BadMoveLine {
        text: String,
        error: crate::engine::ParsePitError,
    },
    #[error("the move line says {line} but the log says {log}: they disagree; send one move")]
    Disagree { line: String, log: String },
    #[error("the move lines say different things ({0}); send one move")]
    SeveralMoves(String),
    #[error("no move found: write a line 'move <pit>' above the quoted board")]
    NoMove,
    #[error("the game is over; it takes no more moves (start another with a line: new GAME with ADDRESS)")]
    GameOver,
    #[error("it is {name}'s move ({side}), and this mail is from {from}, not {address}: {name} replies from that address")]
    NotYourMove {
        name: String,
        side: Side,
        from: String,
        address: String,
    },
    /// A sowing the rules refuse, said as the player sees it.
    #[error("{}", in_your_words(.0))]
    Illegal(crate::engine::PlayError),
    #[error("Your {played} earns no free turn, so {rest} cannot follow.")]
    NoFreeTurn { played: String, rest: String },
    #[error("the mail is larger than {0} bytes; send a plain-text reply without attachments")]
    TooLarge(usize),
    #[error("this mail carries no valid game key, so it can move nothing; reply to the referee's last mail to you, or start a game with a line: new super-wari with <address>")]
    NoKey,
    #[error("there is no game {0} here; a line  games  lists yours")]
    NoGame(String),
    #[error("it is {name}'s move ({side}): wait for the referee's mail with their move, then reply to it")]
    NotYourTurn { name: String, side: Side },
    #[error("the board you quoted is out of date: answer the referee's latest mail")]
    OutOfDate,
    #[error("there is no offer to answer: accept and decline answer an invitation, a draw offer or a takeback; to offer a draw, write: offer draw")]
    NoOffer,
    #[error("the mail you answered is older than {name}'s {what}, which stands now: to answer it, reply to the mail that tells of it")]
    OfferSince { name: String, what: &'static str },
    #[error("one offer a mail: the first stands; send another in a mail of its own")]
    OneOfferAMail,
    #[error("there is nothing to take back: {0} (a takeback is asked right after one's own move, before the reply)")]
    NoTakeback(String),
    #[error("if lines go with your move (or after it, while your opponent is to move): write move c and then if e then d")]
    ConditionsNeedMove,
    #[error(
        "the computer answers at once, so it takes no conditional moves: write your move alone"
    )]
    NoConditionsAgainstComputer,
    #[error("the computer takes no offers: play on, or write resign")]
    ComputerTakesNoOffers,
    #[error("a mail carries at most 30 commands: send the rest in another mail")]
    TooManyCommands,
    #[error("the game has {turns} turns; write board and a number from 0 to {turns}")]
    NoSuchTurn { turns: usize },
    #[error("'{0}' cannot be read: write preview and the turns, such as: preview c e-b d")]
    BadPreview(String),
    #[error("'{0}' cannot be read: write if, the reply you expect, then and your answer, such as: if e then d")]
    BadCondition(String),
    #[error("'{0}' cannot be read: write new RULESET [stones N] [variant V] with ADDRESS [as south|north]")]
    BadNew(String),
    /// Stones or a variant the ruleset does not have.
    #[error("{0}")]
    Stones(RulesError),
    #[error("you cannot play against yourself: name another address, or computer")]
    SelfOpponent,
    #[error("you cannot play against the referee's own address; name your opponent's")]
    RefereeOpponent,
    #[error("no opponent: put their address in Cc, or write a line: new <game> with <address>")]
    NoOpponent,
    #[error("{name} has not accepted the game yet: it starts when they do")]
    NotAccepted { name: String },
    #[error("{name} declined this game; start another with a line: new GAME with ADDRESS")]
    Declined { name: String },
    #[error(
        "to play, reply with a line 'accept' (or your first move); to refuse, a line 'decline'"
    )]
    AcceptOrDecline,
    #[error("a mail does one thing: send the move and the new game in mails of their own")]
    NewAndMove,
    #[error("{0} has an invitation open already; wait for their answer to that one, or invite someone else")]
    InvitationOpen(String),
    #[error("{0} declined an earlier invitation of yours, so the referee sends no more; invite someone else")]
    DeclinedBefore(String),
    #[error("{0} has had as many invitations today as the referee sends in a day; try tomorrow")]
    TooManyInvitations(String),
}

/// A sheet and the move the mail asks for.
pub struct Request {
    pub sheet: Sheet,
    pub sowings: Vec<Pit>,
    /// The sheet was pasted unquoted, so the player's own text cannot be
    /// told from what they pasted.
    pub pasted: bool,
}

/// The verified sheet in `raw` and the move, from a move line or the log.
///
/// # Errors
/// The refusal, with the sheet as it stands when one could be read.
pub fn read_request(
    letter: &Letter,
    raw: &RawSheet,
) -> Result<Request, (Refusal, Option<Box<Sheet>>)> {
    let mut line_moves: Vec<Vec<Pit>> = Vec::new();
    for (index, read) in &letter.move_lines {
        if raw.lines.contains(index) {
            continue;
        }
        match read {
            Ok(sowings) if !line_moves.contains(sowings) => line_moves.push(sowings.clone()),
            Err(refusal) => {
                return Err((
                    refusal.clone(),
                    raw.replay(raw.sowing_count()).ok().map(Box::new),
                ))
            }
            _ => {}
        }
    }
    // The log is the authority: the board drawn is the log played out,
    // or the log without the move the player wrote in place of `?`.
    let total = raw.sowing_count();
    let full = raw.replay(total).map_err(|e| (Refusal::Sheet(e), None))?;
    let (sheet, log_move) = match raw.check_board(&full.game) {
        Ok(()) => (full, None),
        Err(mismatch) => {
            let last_turn = raw.turns.last().map_or(0, Vec::len);
            let earlier = (1..=last_turn).find_map(|k| {
                let sheet = raw.replay(total - k).ok()?;
                raw.check_board(&sheet.game).ok()?;
                Some((sheet, raw.turns.last()?[last_turn - k..].to_vec()))
            });
            match earlier {
                Some((sheet, sowings)) => (sheet, Some(sowings)),
                None => return Err((Refusal::Sheet(mismatch), None)),
            }
        }
    };
    let sowings = match (line_moves.as_slice(), log_move) {
        ([], None) => return Err((Refusal::NoMove, Some(Box::new(sheet)))),
        ([], Some(log)) => log,
        ([line], None) => line.clone(),
        ([line], Some(log)) if *line == log => log,
        ([line], Some(log)) => {
            return Err((
                Refusal::Disagree {
                    line: written(line),
                    log: written(&log),
                },
                Some(Box::new(sheet)),
            ))
        }
        (several, _) => {
            let list = several
                .iter()
                .map(|m| written(m))
                .collect::<Vec<_>>()
                .join(", ");
            return Err((Refusal::SeveralMoves(list), Some(Box::new(sheet))));
        }
    };
    let pasted = letter
        .text
        .lines()
        .nth(raw.lines.start)
        .is_some_and(|first| !super::text::is_quoted(first));
    Ok(Request {
        sheet,
        sowings,
        pasted,
    })
}

/// Plays `side`'s turn: its sowings, bonus sowings included. Returns the
/// news in words ("Alice played e, a free turn, then c, capturing 5.").
///
/// # Errors
/// An illegal sowing, or a sowing after the turn has passed, said as the
/// player sees it ("Your c is empty. Legal: a, b, d."); the sheet is then
/// as it was.
pub fn play_turn(sheet: &mut Sheet, side: Side, sowings: &[Pit]) -> Result<String, Refusal> {
    let before = sheet.clone();
    let mut told = Vec::new();
    for (i, &pit) in sowings.iter().enumerate() {
        if sheet.game.to_move() != Some(side) {
            *sheet = before;
            return Err(Refusal::NoFreeTurn {
                played: written(&sowings[..i]),
                rest: written(&sowings[i..]),
            });
        }
        match sheet.game.play(pit) {
            Ok(sowing) => {
                let mut words = pit.to_string();
                if sowing.captured > 0 {
                    words.push_str(&format!(", capturing {}", sowing.captured));
                }
                if sowing.bonus && i + 1 < sowings.len() {
                    words.push_str(", a free turn");
                }
                told.push(words);
            }
            Err(error) => {
                *sheet = before;
                return Err(Refusal::Illegal(error));
            }
        }
    }
    Ok(format!(
        "{} played {}.",
        sheet.name(side),
        told.join(", then ")
    ))
}

/// A refused sowing as the player thinks of it.
fn in_your_words(error: &crate::engine::PlayError) -> String {
    use crate::engine::PlayErrorKind;
    let pit = error.pit;
    let why = match error.kind {
        PlayErrorKind::GameOver => return "The game is over.".to_string(),
        PlayErrorKind::NoSuchPit => format!("There is no pit {pit} on this board."),
        PlayErrorKind::Empty => format!("Your {pit} is empty."),
        PlayErrorKind::StarvesOpponent => {
            format!("Your {pit} would leave your opponent with no stones, which the rules forbid.")
        }
    };
    format!("{why} Legal: {}.", error.legal)
}

/// A move line: `move c`, `Move: c-f`, `MOVE c f`. `None` for prose that
/// merely starts with the word.
pub fn move_line(line: &str) -> Option<Result<Vec<Pit>, Refusal>> {
    let trimmed = line.trim();
    let keyword = trimmed.get(..4)?;
    if !keyword.eq_ignore_ascii_case("move") {
        return None;
    }
    let rest = &trimmed[4..];
    let (colon, rest) = match rest.trim_start().strip_prefix(':') {
        Some(after) => (true, after.trim()),
        None if rest.starts_with(char::is_whitespace) => (false, rest.trim()),
        None => return None, // "moved", "movement"
    };
    let rest = rest.trim_end_matches(['.', '!']);
    match sheet::parse_sowings(rest) {
        Ok(sowings) if !sowings.is_empty() => Some(Ok(sowings)),
        Ok(_) if colon => Some(Err(Refusal::NoMove)),
        Err(error) if colon || rest.split_whitespace().count() == 1 => {
            Some(Err(Refusal::BadMoveLine {
                text: rest.to_string(),
                error,
            }))
        }
        _ => None,
    }
}

pub fn written(sowings: &[Pit]) -> String {
    sowings
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's refusal of South's empty `a` in Wari.
    fn empty_pit() -> crate::engine::PlayError {
        let rules = crate::engine::Ruleset::Wari.configure(None, None).unwrap();
        let mut game = crate::engine::Game::new(rules, Side::South);
        let a = Pit::new(0);
        game.play(a).unwrap();
        game.play(a).unwrap();
        game.play(a).unwrap_err()
    }

    #[test]
    fn an_illegal_sowing_is_said_as_the_player_sees_it() {
        assert_eq!(
            Refusal::Illegal(empty_pit()).to_string(),
            "Your a is empty. Legal: b, c, d, e, f."
        );
    }

    /// One of each refusal. The match has no catch-all, so a new refusal
    /// does not compile until it is added here.
    fn one_of_each() -> Vec<Refusal> {
        let name = || "Bob".to_string();
        let all = vec![
            Refusal::Sheet(SheetError::NoSheet),
            Refusal::BadMoveLine {
                text: "zz".into(),
                error: sheet::parse_sowings("zz").unwrap_err(),
            },
            Refusal::Disagree {
                line: "c".into(),
                log: "d".into(),
            },
            Refusal::SeveralMoves("c, d".into()),
            Refusal::NoMove,
            Refusal::GameOver,
            Refusal::NotYourMove {
                name: name(),
                side: Side::North,
                from: "eve@x.example".into(),
                address: "bob@x.example".into(),
            },
            Refusal::Illegal(empty_pit()),
            Refusal::NoFreeTurn {
                played: "c".into(),
                rest: "d".into(),
            },
            Refusal::TooLarge(1_000_000),
            Refusal::NoKey,
            Refusal::NoGame("k7q2mx".into()),
            Refusal::NotYourTurn {
                name: name(),
                side: Side::North,
            },
            Refusal::OutOfDate,
            Refusal::NoOffer,
            Refusal::OfferSince {
                name: name(),
                what: "draw offer",
            },
            Refusal::OneOfferAMail,
            Refusal::NoTakeback("the last turn is not yours".into()),
            Refusal::ConditionsNeedMove,
            Refusal::NoConditionsAgainstComputer,
            Refusal::ComputerTakesNoOffers,
            Refusal::TooManyCommands,
            Refusal::NoSuchTurn { turns: 3 },
            Refusal::BadPreview("preview zz".into()),
            Refusal::BadCondition("if zz then c".into()),
            Refusal::BadNew("new wari with".into()),
            Refusal::Stones(crate::engine::Ruleset::Mankala.with_stones(9).unwrap_err()),
            Refusal::SelfOpponent,
            Refusal::RefereeOpponent,
            Refusal::NoOpponent,
            Refusal::NotAccepted { name: name() },
            Refusal::Declined { name: name() },
            Refusal::AcceptOrDecline,
            Refusal::NewAndMove,
            Refusal::InvitationOpen(name()),
            Refusal::DeclinedBefore(name()),
            Refusal::TooManyInvitations(name()),
        ];
        for refusal in &all {
            match refusal {
                Refusal::Sheet(_)
                | Refusal::BadMoveLine { .. }
                | Refusal::Disagree { .. }
                | Refusal::SeveralMoves(_)
                | Refusal::NoMove
                | Refusal::GameOver
                | Refusal::NotYourMove { .. }
                | Refusal::Illegal(_)
                | Refusal::NoFreeTurn { .. }
                | Refusal::TooLarge(_)
                | Refusal::NoKey
                | Refusal::NoGame(_)
                | Refusal::NotYourTurn { .. }
                | Refusal::OutOfDate
                | Refusal::NoOffer
                | Refusal::OfferSince { .. }
                | Refusal::OneOfferAMail
                | Refusal::NoTakeback(_)
                | Refusal::ConditionsNeedMove
                | Refusal::NoConditionsAgainstComputer
                | Refusal::ComputerTakesNoOffers
                | Refusal::TooManyCommands
                | Refusal::NoSuchTurn { .. }
                | Refusal::BadPreview(_)
                | Refusal::BadCondition(_)
                | Refusal::BadNew(_)
                | Refusal::Stones(_)
                | Refusal::SelfOpponent
                | Refusal::RefereeOpponent
                | Refusal::NoOpponent
                | Refusal::NotAccepted { .. }
                | Refusal::Declined { .. }
                | Refusal::AcceptOrDecline
                | Refusal::NewAndMove
                | Refusal::InvitationOpen(_)
                | Refusal::DeclinedBefore(_)
                | Refusal::TooManyInvitations(_) => {}
            }
        }
        all
    }

    #[test]
    fn every_refusal_says_what_to_write_instead() {
        // The words that point the player at what to do next.
        let ways = [
            "write",
            "reply",
            "send",
            "wait",
            "start",
            "name",
            "answer",
            "invite",
            "try",
            "legal",
            "played with",
            "lists",
            "replies",
            "put ",
        ];
        // A turn's sowing after one that earned no free turn: worded as it
        // was when it was an `Illegal` text, which no test held to this.
        let worded_before = |r: &Refusal| matches!(r, Refusal::NoFreeTurn { .. });
        for refusal in one_of_each().into_iter().filter(|r| !worded_before(r)) {
            let text = refusal.to_string().to_lowercase();
            assert!(ways.iter().any(|w| text.contains(w)), "{refusal:?}: {text}");
        }
    }

    #[test]
    fn move_lines_as_players_write_them() {
        let ok = |l: &str| {
            move_line(l)
                .unwrap()
                .unwrap()
                .iter()
                .map(|p| p.to_string())
                .collect::<String>()
        };
        assert_eq!(ok("move c"), "c");
        assert_eq!(ok("Move: c"), "c");
        assert_eq!(ok("  MOVE c-f"), "cf");
        assert_eq!(ok("move c f."), "cf");
        assert_eq!(ok("move:3"), "c");
        assert!(move_line("Move fast and break things").is_none());
        assert!(move_line("moved to Paris").is_none());
        assert!(move_line("a move").is_none());
        assert!(matches!(
            move_line("move: z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
        assert!(matches!(
            move_line("move z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
    }

    #[test]
    fn a_turn_plays_its_bonus_sowings_and_nothing_after_the_turn_passes() {
        use crate::engine::Ruleset;
        use crate::sheet::Players;
        let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Ann", "Bo"));
        let pits = |s: &str| sheet::parse_sowings(s).unwrap();
        assert_eq!(
            play_turn(&mut sheet, Side::South, &pits("c-f")),
            Ok("Ann played c, a free turn, then f.".to_string())
        );
        let before = sheet.game.ply();
        let err = play_turn(&mut sheet, Side::North, &pits("a b")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Your a earns no free turn, so b cannot follow."
        );
        assert_eq!(sheet.game.ply(), before, "the sheet is as it was");
    }
}
