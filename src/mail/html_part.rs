//! The HTML part of an outgoing mail: the text body's paragraphs and
//! quotes, with the sheet it carries drawn as the board's table (and the
//! sheet's text kept, to quote back). Its markup comes in short lines, so
//! the part goes out without quoted-printable.

use std::cell::OnceCell;

use crate::sheet::Sheet;

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
/// and the drawn sheet's text (where the body carries it) as the board's
/// table followed by the sheet itself in a `<pre>`, so that a reply quoting
/// the HTML still quotes a sheet the referee can read. Its markup comes in lines
/// under 73 bytes, as the board's does ([`crate::sheet::html`]); the body's
/// own lines keep their lengths.
pub(super) fn html_of(text: &str, drawn: Option<&Drawn>) -> String {
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
/// player to move, and the most visible line of its HTML. Its words live
/// here, below `compose` (which writes them into the body), so that this
/// part can find them in the body.
pub fn instruction(sheet: &Sheet) -> Option<String> {
    let side = sheet.game.to_move()?;
    // Wrapped here, as the body has it, so that this part finds it there.
    Some(super::wrap::fill(&format!(
        "It is {}'s move ({side}). Legal moves: {}.\n\
         To move, reply to this mail with a line:  move <pit>",
        sheet.name(side),
        sheet.game.legal_moves()
    )))
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

#[cfg(test)]
mod tests {
    use super::*;

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
        use crate::mail::compose::{key_block, sheet_body, Next};
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
        body.push_str(&key_block(
            "k7q2mx",
            "k7q2mx-0123456789ab",
            "move <pit>, board",
        ));
        let html = html_of(&body, Some(&Drawn::new(&sheet)));
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
        assert!(!html_of(&body, Some(&Drawn::new(&sheet))).contains("data-next"));
    }

    /// A long name wraps the instruction in the text part: the HTML part
    /// still finds it there and sets it under the board.
    #[test]
    fn an_instruction_wrapped_by_a_long_name_is_still_set_under_the_board() {
        use crate::engine::Ruleset;
        use crate::mail::compose::{sheet_body, Next};
        use crate::sheet::{Players, Sheet};
        let long = "Zoë & Max von Habsburg-Lothringen und Sachsen-Coburg";
        let sheet = Sheet::new(Ruleset::SuperWari.rules(), Players::named(long, "Bob"));
        let body = sheet_body("Super-Wari game: your move", None, &sheet, Next::Moves);
        assert!(body.lines().all(|l| l.starts_with(['|', '+', ' '])
            || l.chars().count() <= crate::mail::wrap::LINE_WIDTH));
        let html = html_of(&body, Some(&Drawn::new(&sheet)));
        assert!(html.contains("<p data-next=\"move\""), "{html}");
        assert_eq!(html.matches("Legal moves").count(), 1, "moved, not copied");
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
        let html = html_of(&body, Some(&Drawn::new(&sheet)));
        assert!(html.contains("data-pit=\"south-a\""), "{html}");
        // Every line: the markup's, the news, the sheet quoted in its `<pre>`.
        for line in html.lines() {
            assert!(line.len() <= 72, "{line:?}");
        }
    }
}
