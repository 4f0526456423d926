//! Why a mail's move or command was not carried out: one closed set of
//! kinds, each worded for the player, with what to write instead.

use crate::address::NotAPerson;
use crate::engine::{RulesError, Side};
use crate::hosted::GameRefusal;
use crate::sheet::written;
use crate::sheet::SheetError;
use crate::store::{GameId, OfferKind};

impl Refusal {
    /// The game's refusal in the player's words, `name` naming a side.
    pub fn of_game(refusal: GameRefusal, name: impl Fn(Side) -> String) -> Refusal {
        match refusal {
            GameRefusal::GameOver => Refusal::GameOver { stored: true },
            GameRefusal::NotYourTurn { to_move } => Refusal::NotYourTurn {
                name: name(to_move),
                side: to_move,
            },
            GameRefusal::OutOfDate => Refusal::OutOfDate,
            GameRefusal::Illegal(error) => Refusal::Illegal(error),
            GameRefusal::NoFreeTurn { played, rest } => Refusal::NoFreeTurn {
                played: echo(&written(&played)),
                rest: echo(&written(&rest)),
            },
            GameRefusal::NoOffer => Refusal::NoOffer,
            GameRefusal::OwnOffer { kind, to } => Refusal::OwnOffer {
                what: offered(kind),
                name: name(to),
            },
            GameRefusal::OfferSince { by, kind } => Refusal::OfferSince {
                name: name(by),
                what: offered(kind),
            },
            GameRefusal::ComputerTakesNoOffers => Refusal::ComputerTakesNoOffers,
            GameRefusal::NotYourLastTurn => {
                Refusal::NoTakeback("the last turn is not yours".into())
            }
            GameRefusal::Unreplayable => Refusal::NoTakeback("the game cannot be replayed".into()),
            GameRefusal::ConditionsNeedMove => Refusal::ConditionsNeedMove,
            GameRefusal::NoConditionsAgainstComputer => Refusal::NoConditionsAgainstComputer,
            GameRefusal::NotInvited => Refusal::NoOffer,
        }
    }

    /// Is this a move refused (so the reply may say "no move was played"),
    /// rather than an offer, an answer, a question or a new game?
    pub fn refuses_a_move(&self) -> bool {
        // Exhaustive, so that each new refusal is classed when it is added.
        match self {
            Refusal::Sheet(_)
            | Refusal::BadMoveLine { .. }
            | Refusal::Disagree { .. }
            | Refusal::SeveralMoves(_)
            | Refusal::TurnsDrawAlike { .. }
            | Refusal::NoMove
            | Refusal::GameOver { .. }
            | Refusal::OtherSeat { .. }
            | Refusal::NotYourMove { .. }
            | Refusal::Illegal(_)
            | Refusal::NoFreeTurn { .. }
            | Refusal::NotYourTurn { .. }
            | Refusal::OutOfDate
            | Refusal::ConditionsNeedMove
            | Refusal::ConditionsNeedWholeTurn(_)
            | Refusal::NoConditionsAgainstComputer
            | Refusal::BadCondition(_)
            | Refusal::OtherGame { .. } => true,
            Refusal::KeepsNoGames(_)
            | Refusal::TooLarge(_)
            | Refusal::NoKey
            | Refusal::NotSentBoard
            | Refusal::NotFromTheStart
            | Refusal::SeveralGames(_)
            | Refusal::NoGame(_)
            | Refusal::NoOffer
            | Refusal::OwnOffer { .. }
            | Refusal::OfferLapsed
            | Refusal::OfferSince { .. }
            | Refusal::OneOfferAMail
            | Refusal::NoTakeback(_)
            | Refusal::ComputerTakesNoOffers
            | Refusal::TooManyCommands
            | Refusal::NoSuchTurn { .. }
            | Refusal::BadBoard(_)
            | Refusal::BadPreview(_)
            | Refusal::BadNew(_)
            | Refusal::Rules(_)
            | Refusal::SelfOpponent
            | Refusal::NotAPerson(..)
            | Refusal::RefereeOpponent
            | Refusal::NoOpponent
            | Refusal::NotAccepted { .. }
            | Refusal::Declined { .. }
            | Refusal::Withdrawn { .. }
            | Refusal::NothingToWithdraw
            | Refusal::AcceptOrDecline
            | Refusal::NewAndMove
            | Refusal::InvitationOpen(_)
            | Refusal::InvitedBy { .. }
            | Refusal::GameUnderWay { .. }
            | Refusal::DeclinedBefore(_)
            | Refusal::TooManyInvitations(_) => false,
        }
    }
}

/// How to play again after a game: a referee that keeps games starts one
/// from a line; one that keeps none, from a board mailed to it.
fn restart(stored: bool) -> &'static str {
    match stored {
        true => "start another with a line: new GAME with ADDRESS",
        false => "to play again, mail a start board with your first move made on it",
    }
}

/// What an offer is called in the referee's words.
pub fn offered(kind: OfferKind) -> &'static str {
    match kind {
        OfferKind::Draw => "draw offer",
        OfferKind::Takeback => "takeback",
    }
}

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
    #[error("the move line says {line} but the sheet shows {sheet}: they disagree; send one move")]
    Disagree { line: String, sheet: String },
    #[error("the move lines say different things ({0}), so none was played: write one move line (a turn with a bonus sowing is one line, such as: move c-f)")]
    SeveralMoves(String),
    #[error("the board you drew could come from {turns}, so it shows no one move: write yours in the log in place of its ?, or on a line such as: move {first}")]
    TurnsDrawAlike { turns: String, first: String },
    #[error("no move found: write a line 'move <pit>' above the quoted board")]
    NoMove,
    /// A command to a referee that keeps no games (the sheet referee).
    #[error("'{0}' is not done here: this referee keeps no games, it plays the move on the quoted sheet and nothing else; write a line 'move <pit>' above the quoted board, and to resign or agree a draw, write to your opponent")]
    KeepsNoGames(&'static str),
    #[error("the game is over; it takes no more moves ({})", restart(*stored))]
    GameOver { stored: bool },
    #[error("it is {name}'s move ({side}), and you play the other side: forward this mail to {name}, whose reply with a move gives the referee their address")]
    OtherSeat { name: String, side: Side },
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
    #[error("the key in this mail is for another board than the one quoted: reply to the referee's latest mail to you, keeping its board and move log as they are, with your move on a line: move <pit>")]
    NotSentBoard,
    #[error("a game here begins from the start board with your first move: reply to the board as it was first sent, with your move on a line: move <pit>")]
    NotFromTheStart,
    #[error("this mail carries the keys of several games ({0}) and names none of them, so it moved nothing; reply to a mail of the game you mean")]
    SeveralGames(String),
    #[error("there is no game {0} here; a line  games  lists yours")]
    NoGame(String),
    /// A move written on the sheet of another game than the key's.
    #[error("the board you quoted is game {quoted}'s, not this game's ({this}); to move in {quoted}, reply to a mail of that game")]
    OtherGame { quoted: String, this: String },
    #[error("it is {name}'s move ({side}): wait for the referee's mail with their move, then reply to it")]
    NotYourTurn { name: String, side: Side },
    #[error("the board you answered has changed since (it is out of date): answer the referee's latest mail, which shows it as it stands")]
    OutOfDate,
    #[error("there is no offer to answer: accept and decline answer an invitation, a draw offer or a takeback; to offer a draw, write: offer draw")]
    NoOffer,
    #[error("the {what} standing is yours: it waits for {name} to accept or decline it")]
    OwnOffer { what: &'static str, name: String },
    #[error("your offer lapsed: the game ended in this mail; to play on, start another with a line: new GAME with ADDRESS")]
    OfferLapsed,
    #[error("the mail you answered is older than {name}'s {what}, which stands now: to answer it, reply to the mail that tells of it")]
    OfferSince { name: String, what: &'static str },
    #[error("one offer a mail: the first stands; send another in a mail of its own")]
    OneOfferAMail,
    #[error("there is nothing to take back: {0} (a takeback is asked right after one's own move, before the reply)")]
    NoTakeback(String),
    #[error("if lines go with your move (or after it, while your opponent is to move): write move c and then if e then d")]
    ConditionsNeedMove,
    /// `if` lines beside a turn not finished: its sowing earned another.
    #[error("if lines wait for your opponent's reply, and your turn is not over ({0} earns another sowing): write the whole turn, as move {0}-<pit>, with them")]
    ConditionsNeedWholeTurn(String),
    #[error(
        "the computer answers at once, so it takes no conditional moves: write your move alone"
    )]
    NoConditionsAgainstComputer,
    #[error("the computer takes no offers: play on, or write resign")]
    ComputerTakesNoOffers,
    #[error("a mail carries at most 30 commands: send the rest in another mail")]
    TooManyCommands,
    #[error("numbered lines in the log: {turns}; write board and a number from 0 to {turns}")]
    NoSuchTurn { turns: usize },
    #[error("'{0}' cannot be read: write board, or board and the number of a line of the log, such as: board 3")]
    BadBoard(String),
    #[error("'{0}' cannot be read: write preview and the turns, such as: preview c e-b d")]
    BadPreview(String),
    #[error("'{0}' cannot be read: write if, the reply you expect, then and your answer, such as: if e then d")]
    BadCondition(String),
    #[error("'{0}' cannot be read: write new RULESET [stones N] [variant V] with ADDRESS [as south|north]")]
    BadNew(String),
    /// A game, stones or a variant the referee does not have.
    #[error("{0}")]
    Rules(RulesError),
    #[error("you cannot play against yourself: name another address, or computer")]
    SelfOpponent,
    /// An invitee no person reads, or only this machine can reach.
    #[error("{0} is {why}, not a person's own: the referee sends it no invitations; invite your opponent at theirs", why = not_a_person(*.1))]
    NotAPerson(String, NotAPerson),
    #[error("you cannot play against the referee's own address; name your opponent's")]
    RefereeOpponent,
    #[error("no opponent: put their address in Cc, or write a line: new <game> with <address>")]
    NoOpponent,
    #[error("{name} has not accepted the game yet: it starts when they do, and you get the board then; to take the invitation back, write: withdraw")]
    NotAccepted { name: String },
    #[error("{name} declined this game; start another with a line: new GAME with ADDRESS")]
    Declined { name: String },
    #[error("{name} withdrew the invitation to this game; start another with a line: new GAME with ADDRESS")]
    Withdrawn { name: String },
    #[error("there is no invitation of yours to withdraw: withdraw takes back an invitation not yet answered (to end a game under way, write: resign)")]
    NothingToWithdraw,
    #[error(
        "to play, reply with a line 'accept' (or your first move, when you move first); to refuse, a line 'decline'"
    )]
    AcceptOrDecline,
    #[error("a mail does one thing: send the move and the new game in mails of their own")]
    NewAndMove,
    #[error("{0} has an invitation open already, yours or another player's (an address gets one at a time); try again once it is answered, or invite someone else")]
    InvitationOpen(String),
    #[error("{name} has invited you already, to a game of {game} ({id}): reply to this mail to answer that invitation, with a line 'accept' (or your first move, when you move first) or a line 'decline'")]
    InvitedBy {
        name: String,
        game: &'static str,
        id: GameId,
        side: Side,
    },
    #[error("the mail you answered belongs to your game of {game} with {name} ({id}), which is under way, so no second game was started: reply to this mail to play in it")]
    GameUnderWay {
        name: String,
        game: &'static str,
        id: GameId,
        side: Side,
    },
    #[error("{0} declined an earlier invitation of yours, so the referee sends no more; invite someone else")]
    DeclinedBefore(String),
    #[error("{0} has had as many invitations today as the referee sends in a day; try tomorrow")]
    TooManyInvitations(String),
}

fn not_a_person(why: NotAPerson) -> &'static str {
    match why {
        NotAPerson::Role => "a role's mailbox (postmaster, root, noreply and the like)",
        NotAPerson::LocalOnly => {
            "an address only the referee's machine knows (no dot in its domain, or localhost)"
        }
    }
}

/// Most characters of a player's line repeated in a refusal.
const ECHOED: usize = 60;

/// A player's line as a refusal repeats it: cut short, so that a huge
/// line gets a short answer.
pub fn echo(line: &str) -> String {
    match line.char_indices().nth(ECHOED) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_string(),
    }
}

/// A refused sowing as the player thinks of it.
fn in_your_words(error: &crate::engine::PlayError) -> String {
    in_words_of(error, None)
}

/// The engine's refusal of a sowing said to its player, or (`owner`
/// named) to another reader: "Your b is empty" is wrong about Bob's b.
pub fn in_words_of(error: &crate::engine::PlayError, owner: Option<&str>) -> String {
    use crate::engine::PlayErrorKind;
    let pit = error.pit;
    let (whose, opponent, legal) = match owner {
        None => ("Your".to_string(), "your opponent", "Legal".to_string()),
        Some(name) => (
            format!("{name}'s"),
            "their opponent",
            format!("Legal for {name}"),
        ),
    };
    let why = match error.kind {
        PlayErrorKind::GameOver => return "The game is over.".to_string(),
        // Written as a letter or a digit: both said.
        PlayErrorKind::NoSuchPit => {
            format!("There is no pit {pit} ({}) on this board.", pit.index() + 1)
        }
        PlayErrorKind::Empty => format!("{whose} {pit} is empty."),
        PlayErrorKind::StarvesOpponent => {
            format!("{whose} {pit} would leave {opponent} with no stones, which the rules forbid.")
        }
    };
    format!("{why} {legal}: {}.", error.legal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Pit;
    use crate::sheet;

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
        // `move 7` on a board of 6: said in both spellings.
        let rules = crate::engine::Ruleset::Wari.configure(None, None).unwrap();
        let mut game = crate::engine::Game::new(rules, Side::South);
        let seventh: Pit = "7".parse().unwrap();
        assert_eq!(
            Refusal::Illegal(game.play(seventh).unwrap_err()).to_string(),
            "There is no pit g (7) on this board. Legal: a, b, c, d, e, f."
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
                sheet: "d".into(),
            },
            Refusal::SeveralMoves("c, d".into()),
            Refusal::TurnsDrawAlike {
                turns: "a or from d".into(),
                first: "a".into(),
            },
            Refusal::NoMove,
            Refusal::KeepsNoGames("resign"),
            Refusal::GameOver { stored: true },
            Refusal::GameOver { stored: false },
            Refusal::OtherSeat {
                name: name(),
                side: Side::North,
            },
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
            Refusal::NotSentBoard,
            Refusal::NotFromTheStart,
            Refusal::SeveralGames("k7q2mx, m3p9zt".into()),
            Refusal::NoGame("k7q2mx".into()),
            Refusal::OtherGame {
                quoted: "m3p9zt".into(),
                this: "k7q2mx".into(),
            },
            Refusal::NotYourTurn {
                name: name(),
                side: Side::North,
            },
            Refusal::OutOfDate,
            Refusal::NoOffer,
            Refusal::OwnOffer {
                what: "draw offer",
                name: name(),
            },
            Refusal::OfferLapsed,
            Refusal::OfferSince {
                name: name(),
                what: "draw offer",
            },
            Refusal::OneOfferAMail,
            Refusal::NoTakeback("the last turn is not yours".into()),
            Refusal::ConditionsNeedMove,
            Refusal::ConditionsNeedWholeTurn("c".into()),
            Refusal::NoConditionsAgainstComputer,
            Refusal::ComputerTakesNoOffers,
            Refusal::TooManyCommands,
            Refusal::NoSuchTurn { turns: 3 },
            Refusal::BadBoard("board -1".into()),
            Refusal::BadPreview("preview zz".into()),
            Refusal::BadCondition("if zz then c".into()),
            Refusal::BadNew("new wari with".into()),
            Refusal::Rules(crate::engine::Ruleset::Mankala.with_stones(9).unwrap_err()),
            Refusal::SelfOpponent,
            Refusal::NotAPerson(name(), NotAPerson::Role),
            Refusal::NotAPerson(name(), NotAPerson::LocalOnly),
            Refusal::RefereeOpponent,
            Refusal::NoOpponent,
            Refusal::NotAccepted { name: name() },
            Refusal::Declined { name: name() },
            Refusal::Withdrawn { name: name() },
            Refusal::NothingToWithdraw,
            Refusal::AcceptOrDecline,
            Refusal::NewAndMove,
            Refusal::InvitationOpen(name()),
            Refusal::InvitedBy {
                name: name(),
                game: "Super-Wari",
                id: GameId::parse("k7q2mx").unwrap(),
                side: Side::North,
            },
            Refusal::GameUnderWay {
                name: name(),
                game: "Wari",
                id: GameId::parse("k7q2mx").unwrap(),
                side: Side::South,
            },
            Refusal::DeclinedBefore(name()),
            Refusal::TooManyInvitations(name()),
        ];
        for refusal in &all {
            match refusal {
                Refusal::Sheet(_)
                | Refusal::BadMoveLine { .. }
                | Refusal::Disagree { .. }
                | Refusal::SeveralMoves(_)
                | Refusal::TurnsDrawAlike { .. }
                | Refusal::NoMove
                | Refusal::KeepsNoGames(_)
                | Refusal::GameOver { .. }
                | Refusal::OtherSeat { .. }
                | Refusal::NotYourMove { .. }
                | Refusal::Illegal(_)
                | Refusal::NoFreeTurn { .. }
                | Refusal::TooLarge(_)
                | Refusal::NoKey
                | Refusal::NotSentBoard
                | Refusal::NotFromTheStart
                | Refusal::SeveralGames(_)
                | Refusal::NoGame(_)
                | Refusal::OtherGame { .. }
                | Refusal::NotYourTurn { .. }
                | Refusal::OutOfDate
                | Refusal::NoOffer
                | Refusal::OwnOffer { .. }
                | Refusal::OfferLapsed
                | Refusal::OfferSince { .. }
                | Refusal::OneOfferAMail
                | Refusal::NoTakeback(_)
                | Refusal::ConditionsNeedMove
                | Refusal::ConditionsNeedWholeTurn(_)
                | Refusal::NoConditionsAgainstComputer
                | Refusal::ComputerTakesNoOffers
                | Refusal::TooManyCommands
                | Refusal::NoSuchTurn { .. }
                | Refusal::BadBoard(_)
                | Refusal::BadPreview(_)
                | Refusal::BadCondition(_)
                | Refusal::BadNew(_)
                | Refusal::Rules(_)
                | Refusal::SelfOpponent
                | Refusal::NotAPerson(..)
                | Refusal::RefereeOpponent
                | Refusal::NoOpponent
                | Refusal::NotAccepted { .. }
                | Refusal::Declined { .. }
                | Refusal::Withdrawn { .. }
                | Refusal::NothingToWithdraw
                | Refusal::AcceptOrDecline
                | Refusal::NewAndMove
                | Refusal::InvitationOpen(_)
                | Refusal::InvitedBy { .. }
                | Refusal::GameUnderWay { .. }
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
}
