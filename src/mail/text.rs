//! Turning a mail body into plain lines the sheet reader can use: RFC 3676
//! `format=flowed`, HTML (with `<pre>` kept as it is and `<blockquote>` as
//! quote marks), and the split between the player's own words and what
//! they quoted.

use html5gum::{State, Token, Tokenizer};

/// Undoes RFC 3676 `format=flowed`: removes space-stuffing, joins soft
/// line breaks (a trailing space) within one quote depth, and writes quote
/// marks back as `> `.
pub fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<(usize, String)> = None;
    for line in text.lines() {
        let depth = line.chars().take_while(|&c| c == '>').count();
        let mut content = &line[depth..];
        if let Some(stripped) = content.strip_prefix(' ') {
            content = stripped; // space-stuffing, or the blank after the marks
        }
        let flowed = content.ends_with(' ') && content != "-- ";
        let content = if flowed && delsp {
            &content[..content.len() - 1]
        } else {
            content
        };
        match &mut open {
            Some((d, joined)) if *d == depth => joined.push_str(content),
            _ => {
                if let Some((d, joined)) = open.take() {
                    push_quoted(&mut out, d, &joined);
                }
                open = Some((depth, content.to_string()));
            }
        }
        if !flowed {
            if let Some((d, joined)) = open.take() {
                push_quoted(&mut out, d, &joined);
            }
        }
    }
    if let Some((d, joined)) = open.take() {
        push_quoted(&mut out, d, &joined);
    }
    out
}

fn push_quoted(out: &mut String, depth: usize, line: &str) {
    for _ in 0..depth {
        out.push_str("> ");
    }
    out.push_str(line);
    out.push('\n');
}

/// Plain text from HTML, as far as a referee needs it: the text of `<pre>`
/// blocks exactly as written, `<blockquote>` as `> ` quote marks, `<br>`
/// and block ends as line breaks, runs of blanks squeezed elsewhere
/// (`&nbsp;` runs are kept: they carry the board's spacing). The markup is
/// read by a WHATWG tokenizer (html5gum), as a browser reads it: a `>`
/// inside an attribute or a comment ends nothing, and every character
/// reference is decoded.
pub fn html_to_text(html: &str) -> String {
    let mut writer = TextWriter {
        out: String::with_capacity(html.len()),
        depth: 0,
        pre: 0,
        skip: None,
        at_line_start: true,
        squeezable: false,
    };
    let mut tokenizer = Tokenizer::new(html);
    while let Some(Ok(token)) = tokenizer.next() {
        match token {
            Token::StartTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name);
                writer.tag(&name, false);
                if let Some(state) = content_state(&name) {
                    tokenizer.set_state(state);
                }
            }
            Token::EndTag(tag) => writer.tag(&String::from_utf8_lossy(&tag.name), true),
            Token::String(text) => writer.text(&String::from_utf8_lossy(&text)),
            _ => {} // comments, doctypes and parse errors carry no words
        }
    }
    writer.out
}

/// What a tree builder tells the tokenizer after these start tags (as a
/// mail reader runs no scripts, `<noscript>` holds markup): their content
/// is text, not markup.
fn content_state(tag: &str) -> Option<State> {
    match tag {
        "title" | "textarea" => Some(State::RcData),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(State::RawText),
        "script" => Some(State::ScriptData),
        "plaintext" => Some(State::PlainText),
        _ => None,
    }
}

/// The plain text written so far, and where in the HTML it stands.
struct TextWriter {
    out: String,
    /// `<blockquote>`s open: the quote marks each line starts with.
    depth: usize,
    /// `<pre>`s open: inside one, blanks and line breaks are kept.
    pre: usize,
    /// Inside `<style>`, `<script>` or `<head>`: the tag that ends it.
    skip: Option<&'static str>,
    at_line_start: bool,
    /// The last character written was a blank of the source (not &nbsp;).
    squeezable: bool,
}

impl TextWriter {
    fn newline(&mut self) {
        self.out.push('\n');
        self.at_line_start = true;
    }

    fn end_line(&mut self) {
        if !self.at_line_start {
            self.newline();
        }
    }

    /// A start or end tag, by its (lower-case) name.
    fn tag(&mut self, name: &str, closing: bool) {
        if let Some(skipped) = self.skip {
            if closing && name == skipped {
                self.skip = None;
            }
            return;
        }
        match (name, closing) {
            ("style", false) => self.skip = Some("style"),
            ("script", false) => self.skip = Some("script"),
            ("head", false) => self.skip = Some("head"),
            ("br", _) => self.newline(),
            ("pre", false) => {
                self.pre += 1;
                self.end_line();
            }
            ("pre", true) => {
                self.pre = self.pre.saturating_sub(1);
                self.newline();
            }
            ("blockquote", false) => {
                self.end_line();
                self.depth += 1;
            }
            ("blockquote", true) => {
                self.end_line();
                self.depth = self.depth.saturating_sub(1);
            }
            ("p" | "div" | "tr" | "li" | "h1" | "h2" | "h3" | "table", _) => self.end_line(),
            _ => {}
        }
    }

    /// Text between two tags, its character references decoded. A NUL is
    /// a parse error a browser shows as nothing.
    fn text(&mut self, chunk: &str) {
        if self.skip.is_some() {
            return;
        }
        for c in chunk.chars().filter(|&c| c != '\0') {
            let c = if self.pre == 0 && c.is_whitespace() && c != '\u{a0}' {
                ' '
            } else {
                c
            };
            if c == '\n' {
                self.newline();
                continue;
            }
            if self.at_line_start {
                if c == ' ' && self.pre == 0 {
                    continue;
                }
                for _ in 0..self.depth {
                    self.out.push_str("> ");
                }
                self.at_line_start = false;
            }
            if c == ' ' && self.pre == 0 && self.squeezable {
                continue;
            }
            self.squeezable = c == ' ';
            self.out.push(if c == '\u{a0}' { ' ' } else { c });
        }
    }
}

/// Is this line quoted (`>` after optional blanks, or `: ` as some mail
/// programs quote; `| ` is not told from a board's row)?
pub fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>') || line.starts_with(": ") || line == ":"
}

/// The lines that are the player's own words: before the signature and
/// before any quoted original (Outlook's `-----Original Message-----` or
/// its header block), never quoted lines or attribution lines ("On ...
/// wrote:", wrapped or not, in the languages mail clients write them).
/// Each comes with its index in `text.lines()`. A signature separator
/// indented, or followed by `pasted_signature` (the referee's, in a copy
/// of its mail pasted unquoted), is not the player's signature.
pub fn own_lines<'a>(text: &'a str, pasted_signature: &str) -> Vec<(usize, &'a str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut own: Vec<(usize, &str)> = Vec::new();
    for (i, &line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let pasted = || {
            line.starts_with(char::is_whitespace)
                || lines.get(i + 1).is_some_and(|next| {
                    !pasted_signature.is_empty() && next.trim() == pasted_signature
                })
        };
        if trimmed == "--" && !pasted() {
            break; // the signature
        }
        let lower = trimmed.to_lowercase();
        if (lower.contains("original message") && lower.starts_with("---"))
            || trimmed.starts_with("________________________________")
            || starts_header_block(&lines[i..])
        {
            break; // Outlook: everything below is the original, unquoted
        }
        if is_quoted(line) {
            continue;
        }
        if is_attribution(&lower) {
            // Gmail wraps a long one: its first half is the line before.
            if let Some(&(j, before)) = own.last() {
                if j + 1 == i && opens_attribution(&before.trim().to_lowercase()) {
                    own.pop();
                }
            }
            continue;
        }
        own.push((i, line));
    }
    own
}

/// The words mail clients open an attribution with, by language.
fn opens_attribution(lower: &str) -> bool {
    ["on ", "am ", "le ", "el ", "op ", "il "]
        .iter()
        .any(|w| lower.starts_with(w))
}

/// "On Mon, Bill <b@x> wrote:", `"X" <x@y> wrote:`, "Am ... schrieb Bill:",
/// "Le ... a écrit :", "El ... escribió:".
fn is_attribution(lower: &str) -> bool {
    let ends = [
        "wrote:",
        "writes:",
        "a écrit :",
        "a écrit:",
        "escribió:",
        "schreef:",
    ];
    ends.iter().any(|e| lower.ends_with(e))
        || (lower.starts_with("am ") && lower.contains(" schrieb ") && lower.ends_with(':'))
}

/// Outlook's block above an unquoted original: `From:` then `Sent:` (or
/// `Date:`), `To:` and `Subject:` lines, in English, German, French or Spanish.
fn starts_header_block(lines: &[&str]) -> bool {
    let field = |line: &str, names: &[&str]| {
        let lower = line.trim().to_lowercase();
        names.iter().any(|n| lower.starts_with(n))
    };
    let from = ["from:", "von:", "de :", "de:"];
    let sent = [
        "sent:",
        "date:",
        "gesendet:",
        "envoyé :",
        "envoyé:",
        "enviado:",
        "fecha:",
    ];
    let subject = ["subject:", "betreff:", "objet :", "objet:", "asunto:"];
    let Some(first) = lines.first() else {
        return false;
    };
    field(first, &from)
        && lines.iter().skip(1).take(5).any(|l| field(l, &sent))
        && lines.iter().skip(1).take(6).any(|l| field(l, &subject))
}

/// Text from a player that ends up in a header or a sheet: no control
/// characters (so no header can be injected), no runs of blanks.
pub fn clean_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Word-wraps one line to `width` columns (a longer word stands alone).
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in line.split_whitespace() {
        let current = lines.last_mut().map(|l| l.chars().count()).unwrap_or(0);
        if current > 0 && current + 1 + word.chars().count() > width {
            lines.push(String::new());
        }
        if let Some(last) = lines.last_mut() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_between_words() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("", 9), [""]);
        assert_eq!(wrap("abcdefghijkl x", 5), ["abcdefghijkl", "x"]);
    }

    #[test]
    fn unflow_joins_soft_breaks_and_removes_stuffing() {
        let flowed = "move c \r\nplease\n>> | 3 | 3 |\n>>  From me\n> a long \n> line\n-- \nsig";
        assert_eq!(
            unflow(flowed, false),
            "move c please\n> > | 3 | 3 |\n> >  From me\n> a long line\n-- \nsig\n"
        );
        assert_eq!(unflow("a \nb", true), "ab\n");
    }

    #[test]
    fn html_keeps_pre_and_quotes_blockquotes() {
        let html = "<html><head><style>p{}</style></head><body><p>move&nbsp;c</p>\
                    <blockquote>Bill wrote:<br><pre>|  3 |  3 |\n+----+</pre></blockquote>\
                    <p>bye &amp; thanks</p></body></html>";
        assert_eq!(
            html_to_text(html),
            "move c\n> Bill wrote:\n> |  3 |  3 |\n> +----+\nbye & thanks\n"
        );
    }

    #[test]
    fn character_references_next_to_multibyte_characters_are_decoded_or_kept() {
        assert_eq!(
            html_to_text("&nb\u{fffd}p; &#233;t\u{e9} &eacute;&bogus; &amp"),
            "&nb\u{fffd}p; \u{e9}t\u{e9} \u{e9}&bogus; &"
        );
    }

    /// A `>` inside an attribute or a comment ends no tag; a `<` in a
    /// style sheet or a script opens none.
    #[test]
    fn html_markup_is_read_as_a_browser_reads_it() {
        assert_eq!(html_to_text("<div title='a > b'>move c</div>"), "move c\n");
        assert_eq!(
            html_to_text("<p data-x=\"1>2\">move d</p><!-- <p> > --><p>thanks</p>"),
            "move d\nthanks\n"
        );
        assert_eq!(
            html_to_text("<style>p > a { x: '</p>' }</style><script>if (a<b) {}</script>move e"),
            "move e"
        );
    }

    /// The content of `<title>`, `<textarea>`, `<noframes>` and their like
    /// is text; `<noscript>` holds markup, as a reader that runs no
    /// scripts shows it; after `<plaintext>` everything is text; a NUL
    /// shows as nothing.
    #[test]
    fn html_raw_text_elements_and_nuls_are_read_as_a_mail_reader_shows_them() {
        for (html, text) in [
            ("<title>a <b>c</b></title>", "a <b>c</b>"),
            ("<textarea>&lt;p&gt;</textarea>", "<p>"),
            ("<noframes><p>x</p></noframes>move c", "<p>x</p>move c"),
            ("<noscript><p>move c</p></noscript>", "move c\n"),
            ("<plaintext>move <b>c", "move <b>c"),
            ("mo\0ve c", "move c"),
        ] {
            assert_eq!(html_to_text(html), text, "{html:?}");
        }
    }

    #[test]
    fn html_nbsp_runs_keep_their_width() {
        let html = "<div>|&nbsp;&nbsp;3 |&nbsp; 4 |</div><div>&#62; &#x3c;</div>";
        assert_eq!(html_to_text(html), "|  3 |  4 |\n> <\n");
    }

    #[test]
    fn attribution_lines_are_never_the_players_own() {
        let own = |text: &str| -> Vec<String> {
            own_lines(text, "")
                .into_iter()
                .map(|(_, l)| l.to_string())
                .collect()
        };
        for attribution in [
            "On Mon, 30 Nov 2026 at 09:05, Bill Taylor <w.taylor@x.example> wrote:",
            "\"Bill Taylor\" <w.taylor@x.example> wrote:",
            "On 30 Nov 2026, at 09:05, Bill Taylor <w.taylor@x.example> wrote:",
            "On 30/11/2026 09:05, Bill Taylor wrote:",
            "Am 30.11.2026 um 09:05 schrieb Bill Taylor <w.taylor@x.example>:",
            "Le lun. 30 nov. 2026 à 09:05, Bill Taylor <w.taylor@x.example> a écrit :",
            "El lun, 30 nov 2026 a las 9:05, Bill Taylor (<w.taylor@x.example>) escribió:",
        ] {
            assert_eq!(
                own(&format!("move c\n{attribution}\n> | 3 |\n")),
                ["move c"],
                "{attribution}"
            );
        }
        // Gmail wraps a long attribution in two.
        let wrapped = "move c\n\nOn Mon, Nov 30, 2026 at 9:05 AM Bill Taylor <\nw.taylor@x.example> wrote:\n> | 3 |\n";
        assert_eq!(own(wrapped), ["move c", ""]);
        // Outlook's header block over an unquoted original.
        let outlook = "move d\n\nFrom: Mancala referee <referee@x.example>\nSent: Monday, 30 November 2026 09:05\nTo: Bob\nSubject: Wari\n\nresign\n";
        assert_eq!(own(outlook), ["move d", ""]);
        let german = "move d\nVon: Referee\nGesendet: Montag\nAn: Bob\nBetreff: Wari\nresign\n";
        assert_eq!(own(german), ["move d"]);
        // A From: line in prose is not a header block.
        assert_eq!(
            own("from: the heart\nmove c\n"),
            ["from: the heart", "move c"]
        );
    }

    #[test]
    fn own_lines_stop_at_signatures_and_originals() {
        let text = "move c\nOn Mon, Bill wrote:\n> quoted\nmine\n-- \nBob | 555 1234\n";
        let own: Vec<&str> = own_lines(text, "").into_iter().map(|(_, l)| l).collect();
        assert_eq!(own, ["move c", "mine"]);
        let outlook = "move d\n\n-----Original Message-----\nFrom: referee\nmove <pit>\n";
        let own: Vec<&str> = own_lines(outlook, "").into_iter().map(|(_, l)| l).collect();
        assert_eq!(own, ["move d", ""]);
    }
}
