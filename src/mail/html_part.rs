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
    html: OnceCell<String>,
}

impl<'a> Drawn<'a> {
    pub fn new(sheet: &'a Sheet) -> Drawn<'a> {
        Drawn {
            sheet,
            text: sheet.to_string(),
            html: OnceCell::new(),
        }
    }

    /// What stands in an HTML part for the sheet's text: the board's table,
    /// the log, and the sheet itself to quote; drawn the first time asked.
    fn html(&self) -> &str {
        self.html.get_or_init(|| {
            let mut html = crate::sheet::html::board(self.sheet);
            html.push_str(
                "<p style=\"margin:10px 0 0;font-size:12px;color:#666666\">\n\
                 The sheet, to quote when you reply:</p>\n",
            );
            html.push_str(&pre(&self.text));
            html
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
            out.reserve(drawn.html().len() + 2 * (text.len() - drawn.text.len()));
            out.push_str(&paragraphs(&text[..at]));
            out.push_str(drawn.html());
            out.push_str(&paragraphs(&text[at + drawn.text.len()..]));
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

/// Text in a monospaced block, as the text part draws it.
fn pre(text: &str) -> String {
    format!(
        // The parser drops the newline after `<pre>`: the tag gets a line of its own.
        "<pre style=\"font-family:Menlo,Consolas,monospace;\n\
         font-size:11px;color:#444\">\n{}</pre>\n",
        crate::sheet::html::escape(text.trim_end_matches('\n'))
    )
}

/// Blank-line paragraphs as `<p>`, `> ` lines as a blockquote, the
/// signature dropped (the text part has it).
fn paragraphs(text: &str) -> String {
    use crate::sheet::html::escape;
    let text = text.split("\n-- \n").next().unwrap_or("");
    let mut out = String::new();
    for paragraph in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let lines: Vec<&str> = paragraph.lines().collect();
        // A drawing (another sheet, a table) keeps its columns.
        let drawn = |l: &&str| l.starts_with(' ') || l.contains("  ") || l.starts_with(['+', '|']);
        if lines.iter().any(drawn) {
            out.push_str(&pre(paragraph));
            continue;
        }
        let quoted: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("> ")).collect();
        if quoted.len() == lines.len() {
            out.push_str(
                "<blockquote style=\"margin:4px 0 4px 8px;padding-left:8px;\n\
                 border-left:3px solid #ccc\">\n",
            );
            for (n, line) in quoted.iter().enumerate() {
                if n > 0 {
                    out.push_str("\n<br>\n");
                }
                push_wrapped(&mut out, &escape(line));
            }
            out.push_str("\n</blockquote>\n");
        } else {
            out.push_str("<p style=\"margin:0 0 10px\">\n");
            // Lines wrapped for plain text flow again in a proportional
            // font: each keeps its line, a break read as a space.
            for (n, line) in lines.iter().enumerate() {
                if n > 0 {
                    out.push('\n');
                }
                push_wrapped(&mut out, &escape(line));
            }
            out.push_str("\n</p>\n");
        }
    }
    out
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
