//! The referee's own text: one reply ([`Outgoing`]), the bodies that carry
//! a sheet, a player's key, the help; subjects and names. Every body's
//! first line says who wrote it ("Super-Wari game k7q2mx: ..."), so a copy
//! pasted back unquoted is known for the referee's, never the player's.

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::incoming::Mailbox;
use super::letter::Letter;
use super::text;
use crate::engine::Ruleset;
use crate::sheet::{Player, Sheet};
use crate::store::{Delivery, Envelope};

/// Mail lines stay under 76 columns so they go out unencoded and unwrapped.
pub const COMMENT_WIDTH: usize = 68;
/// Line prefix of the referee's own notes inside a body.
pub const INDENT: &str = "    ";
pub const SIGNATURE_LINE: &str = "mancala-referee: pits are letters from each player's own left";
/// The first words of a mail not about one game.
pub const REFEREE_LINE: &str = "Mancala referee:";
/// The first words of the line that carries a player's key.
pub const KEY_LINE: &str = "Your key for game ";

/// One mail to send, to one recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// Without angle brackets; derived from what it answers, so a resend
    /// is the same message.
    pub message_id: String,
    pub to: Mailbox,
    /// Where replies should go, when not to the referee's plain address.
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    /// The Message-ID replied to, and the thread's references.
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    /// The body as HTML too (multipart/alternative, the text first).
    pub html: Option<String>,
}

impl Outgoing {
    /// A reply to `letter`, threaded under it.
    pub fn reply(letter: &Letter, message_id: String, to: Mailbox, body: String) -> Outgoing {
        let mut references = letter.references.clone();
        if let Some(id) = &letter.message_id {
            references.push(id.clone());
        }
        Outgoing {
            message_id,
            to,
            reply_to: None,
            subject: reply_subject(&letter.subject),
            body,
            in_reply_to: letter.message_id.clone(),
            references,
            html: None,
        }
    }

    /// A mail that answers no mail (a reminder).
    pub fn notice(message_id: String, to: Mailbox, subject: String, body: String) -> Outgoing {
        Outgoing {
            message_id,
            to,
            reply_to: None,
            subject,
            body,
            in_reply_to: None,
            references: Vec::new(),
            html: None,
        }
    }

    /// With an HTML part drawn from the body, the board of `sheet` (if the
    /// body carries it) as a table.
    pub fn with_html(self, sheet: Option<&Sheet>) -> Outgoing {
        let drawn = sheet.map(Drawn::new);
        self.with_html_drawn(drawn.as_ref())
    }

    /// As [`Outgoing::with_html`], with the sheet already drawn: the mails
    /// of one answer share one drawing.
    pub fn with_html_drawn(mut self, drawn: Option<&Drawn>) -> Outgoing {
        self.html = Some(html_of(&self.body, drawn));
        self
    }

    pub fn with_reply_to(mut self, reply_to: Option<String>) -> Outgoing {
        self.reply_to = reply_to;
        self
    }

    pub fn with_subject(mut self, subject: String) -> Outgoing {
        self.subject = subject;
        self
    }

    /// Kept in a ledger until sent.
    pub fn into_envelope(self, event: u32) -> Envelope {
        Envelope {
            message_id: self.message_id,
            event,
            to_name: self.to.name,
            to: self.to.address,
            reply_to: self.reply_to,
            subject: self.subject,
            body: self.body,
            in_reply_to: self.in_reply_to,
            references: self.references,
            html: self.html,
            delivery: Delivery::Pending,
        }
    }

    pub fn from_envelope(envelope: &Envelope) -> Outgoing {
        Outgoing {
            message_id: envelope.message_id.clone(),
            to: Mailbox {
                name: envelope.to_name.clone(),
                address: envelope.to.clone(),
            },
            reply_to: envelope.reply_to.clone(),
            subject: envelope.subject.clone(),
            body: envelope.body.clone(),
            in_reply_to: envelope.in_reply_to.clone(),
            references: envelope.references.clone(),
            html: envelope.html.clone(),
        }
    }
}

/// A sheet drawn once for every mail of one answer: its text, and (when a
/// mail carries that text) its board and log as HTML. Both are the same
/// for each reader, and drawing them is most of the cost of a reply: the
/// log of a long game is hundreds of lines, written twice a mail before.
pub struct Drawn<'a> {
    pub sheet: &'a Sheet,
    /// The sheet as text (`Display`), as every body carries it.
    pub text: String,
    html: OnceCell<(String, String)>,
}

impl<'a> Drawn<'a> {
    pub fn new(sheet: &'a Sheet) -> Drawn<'a> {
        Drawn {
            sheet,
            text: sheet.to_string(),
            html: OnceCell::new(),
        }
    }

    /// What stands in an HTML part for the sheet's text: the board's table
    /// (with its line under it), then the log and the sheet itself to
    /// quote; drawn the first time asked.
    fn html(&self) -> &(String, String) {
        self.html.get_or_init(|| {
            let board = crate::sheet::html::board(self.sheet);
            let mut rest = crate::sheet::html::log(self.sheet);
            rest.push_str(
                "<p style=\"margin:10px 0 0;font-size:12px;color:#666666\">\n\
                 The sheet, to quote when you reply:</p>\n",
            );
            rest.push_str(&pre(&self.text));
            (board, rest)
        })
    }
}

/// A text body as an HTML document: its paragraphs, quotes as blockquotes,
/// and `sheet`'s text (where the body carries it) as the board's table
/// followed by the sheet itself in a `<pre>`, so that a reply quoting the
/// HTML still quotes a sheet the referee can read.
pub fn html_body(text: &str, sheet: Option<&Sheet>) -> String {
    html_of(text, sheet.map(Drawn::new).as_ref())
}

/// [`html_body`] of a sheet already drawn. Its markup comes in lines
/// under 73 bytes, as the board's does ([`crate::sheet::html`]); the body's
/// own lines keep their lengths.
fn html_of(text: &str, drawn: Option<&Drawn>) -> String {
    // The styles sit on a wrapping div: webmail drops the body's.
    let mut out = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n<body>\n\
         <div style=\"font-family:Arial,Helvetica,sans-serif;font-size:15px;\n\
         color:#222222\">\n",
    );
    let placed = drawn.and_then(|drawn| find_sheet(text, &drawn.text).map(|at| (drawn, at)));
    match placed {
        Some((drawn, at)) => {
            let (board, rest) = drawn.html();
            out.reserve(board.len() + rest.len() + 2 * (text.len() - drawn.text.len()));
            out.push_str(&paragraphs(&text[..at]));
            out.push_str(board);
            // How to move, where the text says it, stands right under the
            // board, above a log that may be hundreds of rows long.
            let after = &text[at + drawn.text.len()..];
            match instruction(drawn.sheet).filter(|i| after.contains(i.as_str())) {
                Some(instruction) => {
                    out.push_str(&emphasised(&instruction));
                    out.push_str(rest);
                    out.push_str(&paragraphs(&after.replacen(&instruction, "", 1)));
                }
                None => {
                    out.push_str(rest);
                    out.push_str(&paragraphs(after));
                }
            }
        }
        None => out.push_str(&pre(text)),
    }
    out.push_str("</div>\n</body></html>\n");
    out
}

/// Where `text` first holds `sheet` (a sheet's text): as `text.find(sheet)`,
/// but by its first line, then the rest compared, without setting up a
/// substring search for a needle of thousands of bytes.
fn find_sheet(text: &str, sheet: &str) -> Option<usize> {
    let Some(first) = sheet.split_inclusive('\n').next() else {
        return Some(0); // as `find` finds an empty needle
    };
    text.match_indices(first)
        .map(|(at, _)| at)
        .find(|&at| text[at..].starts_with(sheet))
}

/// Text in a monospaced block, as the text part draws it. A line too long
/// for the window (a long name or address) wraps rather than scrolls: the
/// grid's own lines fit a phone.
fn pre(text: &str) -> String {
    format!(
        // The parser drops the newline after `<pre>`: the tag gets a line of its own.
        "<pre style=\"font-family:Menlo,Consolas,monospace;\n\
         font-size:11px;color:#444;white-space:pre-wrap;\n\
         overflow-wrap:anywhere\">\n{}</pre>\n",
        crate::sheet::html::escape(text.trim_end_matches('\n'))
    )
}

/// The instruction to move: the text under the sheet of a mail to the
/// player to move, and the most visible line of its HTML.
pub fn instruction(sheet: &Sheet) -> Option<String> {
    let side = sheet.game.to_move()?;
    Some(format!(
        "It is {}'s move ({side}). Legal moves: {}.\n\
         To move, reply to this mail with a line:  move <pit>",
        sheet.name(side),
        sheet.game.legal_moves()
    ))
}

/// `text` (the instruction) large and bold, its lines kept.
fn emphasised(text: &str) -> String {
    let mut out = String::from(
        "<p data-next=\"move\" style=\"margin:12px 0;font-size:18px;\n\
         font-weight:bold;color:#111111\">\n",
    );
    push_lines(&mut out, &text.lines().collect::<Vec<_>>());
    out.push_str("\n</p>\n");
    out
}

/// Blank-line paragraphs as `<p>`, runs of `> ` lines (a relayed
/// comment) as blockquotes, the signature dropped (the text part has it).
fn paragraphs(text: &str) -> String {
    use crate::sheet::html::escape;
    let text = text.split("\n-- \n").next().unwrap_or("");
    let mut out = String::new();
    let quoted = |l: &&str| l.starts_with('>');
    for paragraph in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let lines: Vec<&str> = paragraph.trim_matches('\n').lines().collect();
        for run in lines.chunk_by(|a, b| quoted(a) == quoted(b)) {
            if quoted(&run[0]) {
                // The player's lines as they wrote them, each on its own.
                out.push_str(
                    "<blockquote style=\"margin:4px 0 4px 8px;padding-left:8px;\n\
                     border-left:3px solid #ccc\">\n",
                );
                for (n, line) in run.iter().enumerate() {
                    if n > 0 {
                        out.push_str("\n<br>\n");
                    }
                    let line = line.strip_prefix('>').unwrap_or(line);
                    push_wrapped(&mut out, &escape(line.strip_prefix(' ').unwrap_or(line)));
                }
                out.push_str("\n</blockquote>\n");
            } else if run.iter().any(|l| is_drawing(l)) {
                // A drawing (another sheet, a table) keeps its columns.
                out.push_str(&pre(&run.join("\n")));
            } else {
                out.push_str("<p style=\"margin:0 0 10px\">\n");
                push_lines(&mut out, run);
                out.push_str("\n</p>\n");
            }
        }
    }
    out
}

/// A line of columns: indented, ruled, or with a run of blanks inside (but
/// not the two that set off a command to write, `a line:  move <pit>`).
fn is_drawing(line: &str) -> bool {
    let words = match line.split_once(":  ") {
        Some((before, command)) => before.contains("  ") || command.trim().contains("  "),
        None => line.contains("  "),
    };
    words || line.starts_with([' ', '+', '|'])
}

/// The lines of a paragraph of the referee's. A line it broke only to wrap
/// flows on (in a proportional font the break reads as a space); its
/// other breaks (after a key, between sentences) stay.
fn push_lines(out: &mut String, lines: &[&str]) {
    // The referee wraps at 68 to 74 columns.
    const WRAPPED: usize = 60;
    for (n, line) in lines.iter().enumerate() {
        if let Some(before) = n.checked_sub(1).map(|b| lines[b]) {
            let next_word = line.split_whitespace().next().unwrap_or("");
            let wrapped = before.chars().count() + 1 + next_word.chars().count() > WRAPPED
                && !before.ends_with(['.', ':', '!', '?']);
            out.push_str(if wrapped { "\n" } else { "\n<br>\n" });
        }
        push_line(out, line);
    }
}

/// One line, a command to write (after `:  `) set in monospace.
fn push_line(out: &mut String, line: &str) {
    use crate::sheet::html::escape;
    match line.split_once(":  ") {
        Some((words, command)) if !command.trim().is_empty() => {
            push_wrapped(out, &escape(&format!("{words}:")));
            // The break after the tag collapses into the space before it.
            out.push_str("\n<code style=\"font-family:Menlo,Consolas,monospace\">\n");
            push_wrapped(out, &escape(command.trim()));
            out.push_str("</code>");
        }
        _ => push_wrapped(out, &escape(line)),
    }
}

/// `line` as it is when under 73 bytes (as the referee writes its lines),
/// else its words in lines under 73 bytes (a longer word alone), broken at
/// spaces: outside `<pre>` a line break reads as the space it replaces.
fn push_wrapped(out: &mut String, line: &str) {
    const WIDTH: usize = 72;
    if line.len() <= WIDTH {
        out.push_str(line);
        return;
    }
    let mut width = 0;
    for word in line.split_whitespace() {
        if width > 0 && width + 1 + word.len() > WIDTH {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
}

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
    text::wrap(&line, 74).join("\n")
}

/// A body's first paragraph on one line, short enough for a subject.
pub fn subject_of(body: &str) -> String {
    let first = body.split("\n\n").next().unwrap_or("");
    let line = text::clean_text(first);
    let line = line.trim_end_matches(['.', ':']);
    match line.char_indices().nth(100) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_string(),
    }
}

/// What a mail after a move says first to `reader`: the news and what is
/// awaited of them (`Bob played e, your move`, `..., Alice to move`), or
/// at the end the result (`game over: Alice wins 28-20`).
pub fn headline(sheet: &Sheet, news: &str, reader: crate::engine::Side) -> String {
    let news = news.trim().trim_end_matches('.');
    match (sheet.game.outcome(), sheet.game.to_move()) {
        (Some(outcome), _) => format!("game over: {}", result_words(sheet, &outcome)),
        (None, Some(side)) if side == reader => format!("{news}, your move"),
        (None, Some(side)) => format!("{news}, {} to move", sheet.name(side)),
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

/// `Alice wins 28-20`, `a draw, 24-24`, `Bob wins (Alice resigned)`.
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
    body.push('\n');
    if sheet.game.rules().stores {
        // The grid's end columns: say whose is whose, in the game's word.
        let word = sheet.game.rules().ruleset.spec().store_word;
        let _ = writeln!(
            body,
            "{}'s {word} is the left end of the board, {}'s the right.\n",
            sheet.name(crate::engine::Side::North),
            sheet.name(crate::engine::Side::South)
        );
    }
    match next {
        Next::Moves => match instruction(sheet) {
            Some(instruction) => {
                let _ = writeln!(body, "{instruction}");
            }
            None => {
                let _ = writeln!(body, "The game is over. Thank you for playing.");
            }
        },
        Next::Say(text) => {
            let _ = writeln!(body, "{text}");
        }
        Next::Nothing => {}
    }
    body
}

/// The key paragraph of a mail to one player of game `id`.
pub fn key_block(id: &str, token: &str) -> String {
    format!(
        "\n{KEY_LINE}{id}: {token}\nIt proves a mail is yours: replies to this mail carry it. Keep it\n\
         in the quoted text if your mail program drops the Reply-To address.\n\
         Commands, one a line: move <pit>, board, offer draw, resign, help (all).\n"
    )
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
/// own structure, and short enough for the grid.
pub fn clean_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|c| !matches!(c, '|' | '<' | '>' | '"'))
        .collect();
    let name: String = text::clean_text(&kept).chars().take(30).collect();
    if name.trim().is_empty() {
        "Player".to_string()
    } else {
        name.trim().to_string()
    }
}

pub fn mailbox_of(player: &Player) -> Option<Mailbox> {
    player.address.as_ref().map(|address| Mailbox {
        name: Some(player.name.clone()),
        address: address.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_sheet_is_found_where_find_finds_it() {
        let sheet = "Game: wari\n| 4 |\nlog\n";
        for text in [
            "",
            "Game: wari\n",
            "x Game: wari\n| 4 |\nlog\n y",
            "Game: wari\n| 5 |\nGame: wari\n| 4 |\nlog\n",
            "Game: wari\n| 4 |\nlo",
        ] {
            assert_eq!(find_sheet(text, sheet), text.find(sheet), "{text:?}");
        }
        assert_eq!(find_sheet("anything", ""), Some(0));
    }

    /// The mover's HTML: the instruction right under the board, above the
    /// log, its lines kept; the relayed comment and the key paragraph keep
    /// their line breaks, the referee's wrapped sentences flow.
    #[test]
    fn the_html_puts_the_instruction_under_the_board_and_keeps_deliberate_breaks() {
        use crate::engine::Ruleset;
        use crate::sheet::{parse_sowings, Players, Sheet};
        let mut sheet = Sheet::new(Ruleset::Wari.rules(), Players::named("Alice", "Bob"));
        sheet.play(&parse_sowings("c").unwrap()).unwrap();
        let comment = ["good luck".to_string(), "  and have fun".to_string()];
        let mut body = sheet_body(
            "Wari game: Alice played c, your move",
            Some(("Alice", &comment)),
            &sheet,
            Next::Moves,
        );
        body.push_str(&key_block("k7q2mx", "k7q2mx-0123456789ab"));
        let html = html_body(&body, Some(&sheet));
        let at = |needle: &str| {
            html.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {html}"))
        };
        let instruction = at("<p data-next=\"move\"");
        assert!(at("Last move:") < instruction && instruction < at("cellpadding=\"2\""));
        assert!(html.contains(
            "It is Bob's move (North). Legal moves: a, b, c, d, e, f.\n<br>\n\
             To move, reply to this mail with a line:\n\
             <code style=\"font-family:Menlo,Consolas,monospace\">\nmove &lt;pit&gt;</code>"
        ));
        assert_eq!(html.matches("Legal moves").count(), 1, "moved, not copied");
        assert!(html.contains("Alice writes:\n</p>\n<blockquote"), "{html}");
        assert!(html.contains("good luck\n<br>\n  and have fun\n</blockquote>"));
        assert!(html.contains(
            "Your key for game k7q2mx: k7q2mx-0123456789ab\n<br>\n\
             It proves a mail is yours: replies to this mail carry it. Keep it\n\
             in the quoted text if your mail program drops the Reply-To address.\n<br>\n"
        ));
        // The reader not to move gets no instruction.
        let body = sheet_body("Wari game: Alice played c", None, &sheet, Next::Nothing);
        assert!(!html_body(&body, Some(&sheet)).contains("data-next"));
    }

    #[test]
    fn the_html_of_a_long_game_needs_no_quoted_printable() {
        use crate::engine::Ruleset;
        use crate::sheet::{Players, Sheet};
        let mut sheet = Sheet::new(Ruleset::SuperWari.rules(), Players::named("Alice", "Bob"));
        for _ in 0..60 {
            let Some(pit) = sheet.game.legal_moves().first() else {
                break;
            };
            sheet.play(&[pit]).unwrap();
        }
        let body = format!("Bob played.\n\n{sheet}\nYour key for game x: x-0\n");
        let html = html_body(&body, Some(&sheet));
        assert!(html.contains("data-pit=\"south-a\""), "{html}");
        // Every line: the markup's, the news, the sheet quoted in its `<pre>`.
        for line in html.lines() {
            assert!(line.len() <= 72, "{line:?}");
        }
    }
}
