//! The board as mail-safe HTML, for clients that show plain text in a
//! proportional font (Gmail's web view, Apple Mail, Outlook), where the
//! grid's letters drift off their cells. Tables and inline styles only: no
//! scripts, no images, no style sheet a webmail would strip. The text sheet
//! stays the authority; this draws the same position.
//!
//! The markup comes in short lines, under 73 bytes (a break stands where a
//! space would, between attributes or after a `;` in a style), so it
//! travels as written: only a player's name, alone on its line with a few
//! words, may make one longer.

use std::fmt::Write as _;

use super::render::log_turns;
use super::Sheet;
use crate::engine::{Pit, Position, Side};

// Pixels, not em, and colours spelt out: Outlook's renderer and dark modes
// honour these. Sizes and centring go in attributes (`width`, `height`,
// `align`), which every client honours and which cost a few bytes: the
// whole mail is built, stored and sent per reply, so its size is its speed.
const CELL: &str = "border:1px solid #555;font-size:16px;color:#222";
const CELL_SIZE: &str = "width=\"42\" height=\"35\" align=\"center\"";
const LETTER: &str = "color:#666;font-size:13px";
const LAST: &str = "background-color:#ffe08a;font-weight:bold";

/// `text` with `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Copied a run at a time between the characters to escape: a sheet's
    // text has few or none.
    let mut rest = text;
    while let Some(at) = rest
        .bytes()
        .position(|b| matches!(b, b'&' | b'<' | b'>' | b'"'))
    {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => "&quot;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

/// The board and the line under it as an HTML fragment ([`log`] draws
/// the log). Every pit's cell carries
/// `data-pit="south-c"` and its letter's cell `data-letter="south-c"`, so
/// a layout check can find them.
pub fn board(sheet: &Sheet) -> String {
    let game = &sheet.game;
    let rules = game.rules();
    let position = game.position();
    let pits = rules.pits;
    let last = game.sowings().last().map(|s| (s.side, s.pit));
    let name = |side: Side| escape(sheet.name(side));
    let mut out = String::new();
    out.push_str(
        "<table role=\"presentation\" cellspacing=\"0\" cellpadding=\"0\"\n\
         style=\"border-collapse:collapse;font-family:Arial,Helvetica,sans-serif;\n\
         margin:8px 0\">\n",
    );
    let letter_row = |out: &mut String, side: Side, order: &mut dyn Iterator<Item = Pit>| {
        out.push_str("<tr>");
        if rules.stores {
            out.push_str("<td></td>");
        }
        for pit in order {
            let _ = writeln!(
                out,
                "<td data-letter=\"{}-{pit}\" width=\"42\" align=\"center\"\nstyle=\"{LETTER}\">{pit}</td>",
                side.as_str()
            );
        }
        out.push_str("</tr>\n");
    };
    // Each side's name on a row of its own, above North's letters and
    // below South's, across the board: beside the rows it would make the
    // board wider than a phone.
    let columns = pits + if rules.stores { 2 } else { 0 };
    let owner = |out: &mut String, side: Side| {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"{columns}\"\nstyle=\"font-size:14px;padding:2px 0\">\n{}'s pits</td></tr>",
            name(side)
        );
    };
    owner(&mut out, Side::North);
    letter_row(&mut out, Side::North, &mut Pit::all(pits).rev());
    // North's row, left to right from its h; North's store at the west end.
    out.push_str("<tr>");
    let store_cell = |out: &mut String, side: Side| {
        let _ = writeln!(
            out,
            "<td rowspan=\"2\" data-store=\"{}\"\ntitle=\"{}'s {}\"\n{CELL_SIZE} bgcolor=\"#eee\"\n\
             style=\"{CELL};\nbackground-color:#eee\">{}</td>",
            side.as_str(),
            name(side),
            rules.ruleset.spec().store_word,
            position.store(side)
        );
    };
    if rules.stores {
        store_cell(&mut out, Side::North);
    }
    for pit in Pit::all(pits).rev() {
        pit_cell(&mut out, position, last, Side::North, pit);
    }
    if rules.stores {
        store_cell(&mut out, Side::South);
    }
    out.push_str("</tr>\n<tr>");
    for pit in Pit::all(pits) {
        pit_cell(&mut out, position, last, Side::South, pit);
    }
    out.push_str("</tr>\n");
    letter_row(&mut out, Side::South, &mut Pit::all(pits));
    owner(&mut out, Side::South);
    out.push_str("</table>\n");
    out.push_str(&notes(sheet, last));
    out
}

/// One pit's cell; the last move's pit is marked.
fn pit_cell(
    out: &mut String,
    position: &Position,
    last: Option<(Side, Pit)>,
    side: Side,
    pit: Pit,
) {
    let (side_name, stones) = (side.as_str(), position.stones(side, pit));
    let _ = if last == Some((side, pit)) {
        writeln!(
            out,
            "<td data-pit=\"{side_name}-{pit}\" {CELL_SIZE}\nstyle=\"{CELL};\n\
             {LAST}\" bgcolor=\"#ffe08a\">{stones}</td>",
        )
    } else {
        writeln!(
            out,
            "<td data-pit=\"{side_name}-{pit}\" {CELL_SIZE}\nstyle=\"{CELL}\">{stones}</td>"
        )
    };
}

/// The line under the board: where the stores are (or what each side has
/// captured) and the last move.
fn notes(sheet: &Sheet, last: Option<(Side, Pit)>) -> String {
    let rules = sheet.game.rules();
    let position = sheet.game.position();
    let name = |side: Side| escape(sheet.name(side));
    let (north, south) = (name(Side::North), name(Side::South));
    let (north_store, south_store) = (position.store(Side::North), position.store(Side::South));
    let word = rules.ruleset.spec().store_word;
    let mut notes = vec![if rules.stores {
        format!("{north}'s {word}\nis on the left ({north_store}),\n{south}'s on the right ({south_store}).")
    } else {
        format!("Captured: {south} {south_store},\n{north} {north_store}.")
    }];
    if let Some((side, pit)) = last {
        notes.push(format!("Last move:\n{} sowed {pit} (marked).", name(side)));
    }
    format!(
        "<p style=\"margin:4px 0;font-family:Arial,Helvetica,sans-serif;\n\
         font-size:14px\">\n{}</p>\n",
        notes.join("\n")
    )
}

/// The numbered log, one row a line, the first mover's column first. Its
/// font sits on the table once, not on each of its hundreds of cells.
pub fn log(sheet: &Sheet) -> String {
    let first = sheet.game.first();
    let mut out = format!(
        "<table role=\"presentation\" cellspacing=\"0\" cellpadding=\"2\"\n\
         style=\"border-collapse:collapse;font-family:Arial,Helvetica,sans-serif;\n\
         font-size:14px\">\n\
         <tr><td></td><th align=\"left\" width=\"90\">\n{}</th>\n\
         <th align=\"left\" width=\"90\">\n{}</th></tr>\n",
        escape(sheet.name(first)),
        escape(sheet.name(first.other()))
    );
    let turns = log_turns(&sheet.game);
    for line in 0..turns.len().div_ceil(2) {
        // A turn is letters, `-` and `?`: nothing to escape.
        let cell = |turn: usize| turns.get(turn).unwrap_or("");
        let _ = writeln!(
            out,
            "<tr><td>{}.</td><td>{}</td>\n<td>{}</td></tr>",
            line + 1,
            cell(2 * line),
            cell(2 * line + 1)
        );
    }
    out.push_str("</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Ruleset;
    use crate::sheet::{parse_sowings, Players};

    #[test]
    fn escaping_replaces_the_four_and_keeps_the_rest() {
        assert_eq!(escape(""), "");
        assert_eq!(escape("caf\u{e9} | 4 |"), "caf\u{e9} | 4 |");
        assert_eq!(
            escape("<a href=\"x\">&amp;</a>\u{e9}>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt;\u{e9}&gt;"
        );
    }

    #[test]
    fn the_board_has_every_pit_under_its_letter_and_marks_the_last_sowing() {
        let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Al<i>ce", "Bob"));
        sheet.play(&parse_sowings("c-f").unwrap()).unwrap();
        let html = board(&sheet) + &log(&sheet);
        for side in ["south", "north"] {
            for pit in ["a", "b", "c", "d", "e", "f"] {
                assert!(
                    html.contains(&format!("data-pit=\"{side}-{pit}\"")),
                    "{side}-{pit}"
                );
                assert!(
                    html.contains(&format!("data-letter=\"{side}-{pit}\"")),
                    "{side}-{pit}"
                );
            }
        }
        assert!(html.contains("Al&lt;i&gt;ce's pits"), "names are escaped");
        assert!(html.contains("Bob's endpit\nis on the left"), "{html}");
        assert!(
            html.contains(&format!(
                "data-pit=\"south-f\" {CELL_SIZE}\nstyle=\"{CELL};\n{LAST}\" bgcolor=\"#ffe08a\">"
            )),
            "{html}"
        );
        assert!(
            html.contains("<tr><td>1.</td><td>c-f</td>\n<td>?</td></tr>"),
            "{html}"
        );
        assert!(!html.contains("<script") && !html.contains("<img") && !html.contains("<style"));
    }

    /// Every line of the board's markup is under 73 bytes, in every game,
    /// from its start to its end, the last sowing marked, with a name of
    /// the longest the referee keeps (30 characters, some escaped).
    #[test]
    fn every_line_of_the_board_is_short() {
        let long = "Zo\u{e9} & <Max> von Hohenzollern-S";
        let mut checked = 0;
        for ruleset in crate::engine::Ruleset::ALL {
            for (south, north) in [(long, "Bob"), ("Al", long)] {
                let mut sheet = Sheet::new(ruleset.rules(), Players::named(south, north));
                let mut rng = crate::engine::SplitMix64::new(7);
                loop {
                    for line in (board(&sheet) + &log(&sheet)).lines() {
                        assert!(line.len() < 73, "{ruleset}: {line:?} of {}", line.len());
                        checked += 1;
                    }
                    let legal = sheet.game.legal_moves();
                    if sheet.game.is_over() || legal.is_empty() || sheet.game.ply() > 300 {
                        break;
                    }
                    let pit = legal.nth(rng.below(legal.len())).unwrap();
                    sheet.play(&[pit]).unwrap();
                }
            }
        }
        assert!(checked > 10_000, "{checked} lines");
    }
}
