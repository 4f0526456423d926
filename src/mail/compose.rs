//! The referee's own phrases: the bodies that carry a sheet, a player's
//! key, the help; subjects and names. Every body's first line says who
//! wrote it ("Super-Wari game k7q2mx: ..."), so a copy pasted back unquoted
//! is known for the referee's, never the player's. The message they go in
//! is [`outgoing`](super::outgoing)'s, its HTML part
//! [`html_part`](super::html_part)'s.

use std::fmt::Write as _;

use super::html_part::{instruction, Drawn};
use super::text;
use super::wrap::fill;
use crate::engine::Ruleset;
use crate::sheet::Sheet;
use crate::store::ratings::Rating;

/// Mail lines stay under 76 columns so they go out unencoded and unwrapped.
pub const COMMENT_WIDTH: usize = 68;
/// The longest name kept, in characters: its sheet's address line,
/// quoted twice, still fits a mail line.
pub const NAME_LENGTH: usize = 30;
/// Line prefix of the referee's own notes inside a body.
pub const INDENT: &str = "    ";
pub const SIGNATURE_LINE: &str = "mancala-referee: pits are letters from each player's own left";
/// The first words of a mail not about one game.
pub const REFEREE_LINE: &str = "Mancala referee:";
/// The first words of the line that carries a player's key.
pub const KEY_LINE: &str = "Your key for game ";

/// Is this line the referee's own writing (its first line, key line or
/// signature)? Then it and all below it were pasted from the referee's mail.
pub fn is_referee_text(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with(REFEREE_LINE) || line.starts_with(KEY_LINE) || line == SIGNATURE_LINE {
        return true;
    }
    // `Wari game: `, `Wari k7q2mx: ` (and `Wari game k7q2mx: `, as earlier
    // referees wrote it).
    let id_then_colon = |rest: &str| {
        rest.get(..6)
            .is_some_and(|id| crate::store::GameId::parse(id).is_some())
            && rest
                .get(6..)
                .is_some_and(|r| r.starts_with(": ") || r == ":")
    };
    Ruleset::ALL.iter().any(|r| {
        line.strip_prefix(r.title()).is_some_and(|rest| {
            rest.starts_with(" game: ")
                || rest.strip_prefix(" game ").is_some_and(id_then_colon)
                || rest.strip_prefix(' ').is_some_and(id_then_colon)
        })
    })
}

/// `Super-Wari k7q2mx: Alice played c, your move` (a stored game), or
/// `Super-Wari game: ...` (a game that lives in its mails).
pub fn game_line(sheet: &Sheet, news: &str) -> String {
    let title = sheet.game.rules().ruleset.title();
    let line = match &sheet.id {
        Some(id) => format!("{title} {id}: {news}"),
        None => format!("{title} game: {news}"),
    };
    fill(&line)
}

/// The most characters of a subject before it is cut (at a word, with
/// `...`): mail programs show about this much.
const SUBJECT_WIDTH: usize = 90;

/// A body's first paragraph on one line, short enough for a subject: its
/// first sentence whole (what is awaited of the reader comes first), the
/// later ones each up to its colon (what follows a colon is detail the
/// body has), all cut at a word before [`SUBJECT_WIDTH`].
pub fn subject_of(body: &str) -> String {
    let first = body.split("\n\n").next().unwrap_or("");
    let line = text::clean_text(first);
    let mut sentences = line.split(". ");
    let mut subject = sentences.next().unwrap_or("").to_string();
    for sentence in sentences {
        subject.push_str(". ");
        subject.push_str(sentence.split(": ").next().unwrap_or(sentence));
    }
    let subject = subject.trim_end_matches(['.', ':', ' ']);
    if subject.chars().count() <= SUBJECT_WIDTH {
        return subject.to_string();
    }
    let mut cut = String::new();
    for word in subject.split(' ') {
        if cut.chars().count() + 1 + word.chars().count() > SUBJECT_WIDTH - 3 {
            break;
        }
        if !cut.is_empty() {
            cut.push(' ');
        }
        cut.push_str(word);
    }
    format!("{}...", cut.trim_end_matches([',', ';', ':', '.']))
}

/// What a mail after a move says first to `reader`: what is awaited of
/// them, then the news (`your move — Bob played e.`, `Alice to move —
/// ...`), or at the end the result (`game over: Alice wins 28-20`), so
/// that a subject cut short keeps what the reader must know.
pub fn headline(sheet: &Sheet, news: &str, reader: crate::engine::Side) -> String {
    let news = news.trim();
    // News that opens with the reader ("You played c.") goes on after a dash.
    let you = news.strip_prefix("You ").map(|rest| format!("you {rest}"));
    let news = you.as_deref().unwrap_or(news);
    match (sheet.game.outcome(), sheet.game.to_move()) {
        (Some(outcome), _) => format!("game over: {}", result_words(sheet, &outcome)),
        (None, Some(side)) if side == reader => format!("your move — {news}"),
        (None, Some(side)) => format!("{} to move — {news}", sheet.name(side)),
        (None, None) => news.to_string(),
    }
}

/// How to move is told to the player to move alone (and the end to both).
pub fn next_for(sheet: &Sheet, reader: crate::engine::Side) -> Next<'static> {
    match sheet.game.to_move() {
        Some(side) if side != reader => Next::Nothing,
        _ => Next::Moves,
    }
}

/// `Alice wins 28-20`, `a draw, 24-24`, `Bob wins (Alice resigned)`,
/// `Bob wins, stores 21-25 (no stones left to move, which wins in Waurie)`.
pub fn result_words(sheet: &Sheet, outcome: &crate::engine::Outcome) -> String {
    use crate::engine::EndReason;
    match outcome.winner {
        None if outcome.reason == EndReason::Agreement => "a draw by agreement".to_string(),
        None => format!("a draw, {}-{}", outcome.score[0], outcome.score[1]),
        Some(winner) => {
            let name = sheet.name(winner);
            let loser = sheet.name(winner.other());
            match outcome.reason {
                EndReason::Resignation => format!("{name} wins ({loser} resigned)"),
                EndReason::Forfeit => format!("{name} wins ({loser} ran out of time)"),
                // Waurie's winner may hold fewer stones: the stores, not a
                // score, then why, so a subject cut short keeps the stores.
                EndReason::CannotMove | EndReason::FirstEmpty => format!(
                    "{name} wins, stores {}-{} ({})",
                    outcome.score_of(winner),
                    outcome.score_of(winner.other()),
                    outcome.reason.describe()
                ),
                _ => format!(
                    "{name} wins {}-{}",
                    outcome.score_of(winner),
                    outcome.score_of(winner.other())
                ),
            }
        }
    }
}

/// What a mail with a sheet says after it.
pub enum Next<'a> {
    /// Whose move it is, and how to make one.
    Moves,
    /// Nothing: the text before the sheet said it.
    Nothing,
    /// This text.
    Say(&'a str),
}

/// A body carrying a sheet: the first line, the mover's comment, the
/// sheet, and what to do next.
pub fn sheet_body(
    first: &str,
    comment: Option<(&str, &[String])>,
    sheet: &Sheet,
    next: Next,
) -> String {
    sheet_body_drawn(first, comment, &Drawn::new(sheet), next)
}

/// [`sheet_body`] of a sheet already drawn.
pub fn sheet_body_drawn(
    first: &str,
    comment: Option<(&str, &[String])>,
    drawn: &Drawn,
    next: Next,
) -> String {
    let sheet = drawn.sheet;
    let mut body = String::with_capacity(drawn.text.len() + 1024);
    let _ = writeln!(body, "{first}");
    if let Some((mover, lines)) = comment.filter(|(_, c)| !c.is_empty()) {
        let _ = writeln!(body, "\n{mover} writes:");
        for line in lines {
            // Relayed as a quote: never read back as anyone's command.
            let _ = writeln!(body, "> {line}");
        }
    }
    body.push('\n');
    body.push_str(&drawn.text);
    // Each paragraph after the sheet opens with its blank line, so the
    // body ends on text and what is appended (a note, the key) adds one.
    if sheet.game.rules().stores {
        // The grid's end columns: say whose is whose, in the game's word.
        let word = sheet.game.rules().ruleset.spec().store_word;
        let ends = format!(
            "{}'s {word} is the left end of the board, {}'s the right.",
            sheet.name(crate::engine::Side::North),
            sheet.name(crate::engine::Side::South)
        );
        let _ = writeln!(body, "\n{}", fill(&ends));
    }
    let next = match next {
        Next::Moves => Some(
            instruction(sheet)
                .unwrap_or_else(|| "The game is over. Thank you for playing.".to_string()),
        ),
        Next::Say(text) => Some(text.to_string()),
        Next::Nothing => None,
    };
    if let Some(next) = next {
        let _ = writeln!(body, "\n{}", fill(&next));
    }
    body
}

/// The key paragraph of a mail to one player of game `id`, with the
/// `commands` that work in that game now (`help` has them all).
pub fn key_block(id: &str, token: &str, commands: &str) -> String {
    let commands = fill(&format!("Commands, one a line: {commands}, help (all)."));
    format!(
        "\n{KEY_LINE}{id}: {token}\nIt proves a mail is yours: replies to this mail carry it. Keep it\n\
         in the quoted text if your mail program drops the Reply-To address.\n{commands}\n"
    )
}

/// `title` as a heading of its own: a sentence, capitalised.
pub fn heading(title: &str) -> String {
    let mut chars = title.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The closing lines of every body.
pub fn signature() -> String {
    format!("\n-- \n{SIGNATURE_LINE}\n")
}

/// A paragraph of the referee's own words, wrapped and indented.
pub fn note(text: &str) -> String {
    let mut out = String::new();
    for line in text::wrap(text, COMMENT_WIDTH) {
        let _ = writeln!(out, "{INDENT}{line}");
    }
    out
}

/// `Re: ` once, whatever the thread did to the subject before.
pub fn reply_subject(subject: &str) -> String {
    let mut rest = text::clean_text(subject);
    loop {
        let lower = rest.to_ascii_lowercase();
        let cut = ["re:", "aw:", "sv:", "fwd:", "fw:"]
            .iter()
            .find(|p| lower.starts_with(*p));
        match cut {
            Some(prefix) => rest = rest[prefix.len()..].trim_start().to_string(),
            None => break,
        }
    }
    // A subject is a line, not a place for a stranger's text.
    let rest: String = rest.chars().take(120).collect();
    if rest.is_empty() {
        "Re: your mancala game".to_string()
    } else {
        format!("Re: {rest}")
    }
}

const PLACEHOLDER_NAMES: [&str; 4] = ["yourname", "south", "north", ""];

pub fn is_placeholder(name: &str) -> bool {
    PLACEHOLDER_NAMES.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// A player's name: clean, without the characters the sheet uses for its
/// own structure, short enough for the grid, and a name: a word that is an
/// address or a link is left out (anyone may name anyone in an invitation,
/// and the referee is no way to mail a stranger a link).
pub fn clean_name(name: &str) -> String {
    let kept: String = name
        .chars()
        // (Nor the marks that turn text right to left: `\u{202e}moc.knab`.)
        .filter(|c| !matches!(c, '|' | '<' | '>' | '"' | '\u{200e}' | '\u{200f}'))
        .filter(|c| !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .collect();
    let words = text::clean_text(&kept);
    let words: Vec<&str> = words.split(' ').filter(|w| !is_link(w)).collect();
    let name = words.join(" ");
    let name = name.trim();
    // A longer name is cut at a word where it can be.
    let name = match name.char_indices().nth(NAME_LENGTH) {
        // A space just past the limit: the words before it fit whole.
        Some((cut, ' ')) => &name[..cut],
        Some((cut, _)) => {
            let head = &name[..cut];
            match head.rfind(' ') {
                Some(space) if space > 0 => &head[..space],
                _ => head,
            }
        }
        None => name,
    };
    if name.trim().is_empty() {
        "Player".to_string()
    } else {
        name.trim().to_string()
    }
}

/// The ratings as a table for a mail or a terminal, a block per ruleset.
pub fn ratings_table(list: &[Rating]) -> String {
    if list.is_empty() {
        return "No rated games yet: a game counts when two people finish it.\n".to_string();
    }
    let mut out = String::new();
    let mut current = None;
    for r in list {
        if current != Some(r.ruleset) {
            if current.is_some() {
                out.push('\n');
            }
            current = Some(r.ruleset);
            let _ = writeln!(out, "{}", r.ruleset.title());
            let _ = writeln!(
                out,
                "  {:<20} {:>6} {:>5} {:>5} {:>4} {:>5} {:>6}",
                "player", "rating", "+/-", "games", "won", "drawn", "lost"
            );
        }
        // A name from a damaged store must not draw on the terminal.
        let name: String = r
            .name
            .chars()
            .filter(|c| !c.is_control())
            .take(20)
            .collect();
        let _ = writeln!(
            out,
            "  {name:<20} {:>6.0} {:>5.0} {:>5} {:>4} {:>5} {:>6}",
            r.rating, r.deviation, r.games, r.wins, r.draws, r.losses
        );
    }
    out
}

/// Does `word` read as an address, a link or a domain (`a@b`, `http://`,
/// `evil.example/login`, `bank.example`)? A dot between a letter and two
/// more (a domain's label) does; an initial's (`J.R.R.`) does not.
fn is_link(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    let domain_dot = chars.windows(4).any(|w| {
        w[0].is_alphanumeric() && w[1] == '.' && w[2].is_alphabetic() && w[3].is_alphabetic()
    });
    domain_dot || word.contains(['@', '/', '\\'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waurie_winner_with_fewer_stones_is_told_by_the_rule_not_a_score() {
        use crate::engine::{EndReason, Outcome, Ruleset, Side};
        use crate::sheet::Players;
        let sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Alice", "Bob"));
        let outcome = |reason| Outcome {
            winner: Some(Side::North),
            reason,
            score: [25, 21],
        };
        assert_eq!(
            result_words(&sheet, &outcome(EndReason::CannotMove)),
            "Bob wins, stores 21-25 (no stones left to move, which wins in Waurie)"
        );
        assert_eq!(
            result_words(&sheet, &outcome(EndReason::RowEmpty)),
            "Bob wins 21-25"
        );
    }

    #[test]
    fn subjects_get_one_re() {
        assert_eq!(reply_subject("Re: RE: Fwd: Super-Wari"), "Re: Super-Wari");
        assert_eq!(
            reply_subject("Wari\r\nBcc: evil@example.org"),
            "Re: Wari Bcc: evil@example.org"
        );
        assert_eq!(reply_subject(""), "Re: your mancala game");
    }

    #[test]
    fn names_cannot_carry_structure_or_control_characters() {
        assert_eq!(clean_name("Bob\r\nBcc: x | <y>"), "Bob Bcc: x y");
        assert_eq!(clean_name("  "), "Player");
        for (written, name) in [
            ("Your bank: https://bank.example/login", "Your bank:"),
            ("Alice alice@players.example", "Alice"),
            ("visit www.evil.example now", "visit now"),
            ("Pay at evil.example/x or paypal.com", "Pay at or"),
            ("J.R.R. Tolkien", "J.R.R. Tolkien"),
            ("Dr. No", "Dr. No"),
            ("https://evil.example", "Player"),
            ("Bob \u{202e}nimda", "Bob nimda"),
        ] {
            assert_eq!(clean_name(written), name, "{written}");
        }
        let long = "Zoë Ångström-Çelik de la Fuente y Martínez-Villalobos de Castilla";
        assert_eq!(clean_name(long), "Zoë Ångström-Çelik de la");
        assert_eq!(clean_name(&"x".repeat(100)), "x".repeat(NAME_LENGTH));
        assert_eq!(
            clean_name("Maria Teresa de la Fuente Ruiz y Castillo"),
            "Maria Teresa de la Fuente Ruiz"
        );
    }

    #[test]
    fn the_referees_own_lines_are_known() {
        assert!(is_referee_text("Super-Wari game k7q2mx: Alice played c."));
        assert!(is_referee_text(
            "Super-Wari k7q2mx: Alice played c, your move"
        ));
        assert!(!is_referee_text("Super-Wari really: a fine game"));
        assert!(is_referee_text("Wari game: Bob played e."));
        assert!(is_referee_text("Mancala referee: your games"));
        assert!(is_referee_text(
            "Your key for game k7q2mx: k7q2mx-0123456789ab"
        ));
        assert!(is_referee_text(SIGNATURE_LINE));
        assert!(!is_referee_text("Wari game tonight?"));
        assert!(!is_referee_text("Super-Wari game k7q2mx was fun"));
    }
}
