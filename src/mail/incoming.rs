//! One incoming mail, reduced to what the referee needs. Parsing never
//! fails: whatever cannot be read is simply absent.

use std::borrow::Cow;

use mail_parser::{Address, HeaderValue, Message, MessageParser, MessagePart, MimeHeaders};

use super::text;

/// A person's mailbox: the store's, as a reply's recipient is one.
pub use crate::store::Mailbox;

/// What the referee reads from a mail.
#[derive(Clone, Debug, Default)]
pub struct Incoming {
    pub from: Option<Mailbox>,
    /// To and Cc, in order.
    pub recipients: Vec<Mailbox>,
    pub subject: String,
    pub message_id: Option<String>,
    /// The thread so far: References, else In-Reply-To.
    pub references: Vec<String>,
    /// The mail this one answers (In-Reply-To), if it says.
    pub in_reply_to: Option<String>,
    /// The body as plain lines: decoded, unflowed, HTML made text.
    pub text: String,
    /// The envelope sender: the mbox `From ` line, else Return-Path.
    pub envelope_sender: Option<String>,
    /// Why this mail must never be answered (RFC 3834), if so.
    pub automatic: Option<&'static str>,
    /// Every X-Loop header's value.
    pub loops: Vec<String>,
    /// The addresses the MTA delivered it to (X-Original-To, Delivered-To):
    /// they keep a `+` sub-address that To may not show.
    pub delivered_to: Vec<String>,
}

fn mailboxes(address: Option<&Address>) -> Vec<Mailbox> {
    address
        .map(|a| {
            a.iter()
                .filter_map(|addr| {
                    let address = addr.address()?.trim().to_string();
                    address.contains('@').then(|| Mailbox {
                        name: addr
                            .name()
                            .map(|n| n.trim().to_string())
                            .filter(|n| !n.is_empty()),
                        address,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn text_list(value: &HeaderValue) -> Vec<String> {
    match value {
        HeaderValue::Text(t) => vec![t.to_string()],
        HeaderValue::TextList(list) => list.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    }
}

impl Incoming {
    /// Reads a message (LF or CRLF, perhaps after an mbox `From ` line).
    pub fn parse(raw: &[u8]) -> Incoming {
        let raw = lines_ended(raw);
        let (envelope_line, raw) = split_mbox_line(&raw);
        let parser = MessageParser::default();
        let Some(message) = parser.parse(raw) else {
            return Incoming {
                envelope_sender: envelope_line,
                ..Incoming::default()
            };
        };
        // mail-parser drops a last part whose closing boundary never comes
        // (a mail cut short): closed, it is read, the move in it with it.
        if let Some(closed) = closing_boundary(&message, raw) {
            if let Some(message) = parser.parse(&[raw, closed.as_bytes()].concat()) {
                return Incoming::read(&message, envelope_line);
            }
        }
        Incoming::read(&message, envelope_line)
    }

    fn read(message: &Message, envelope_line: Option<String>) -> Incoming {
        let header_text = |name: &str| message.header_raw(name).map(|v| v.trim().to_string());
        let return_path = header_text("Return-Path");
        let envelope_sender = envelope_line.or_else(|| {
            return_path
                .as_deref()
                .map(|p| p.trim_start_matches('<').trim_end_matches('>').to_string())
        });
        let mut recipients = mailboxes(message.to());
        recipients.extend(mailboxes(message.cc()));
        let in_reply_to = text_list(message.in_reply_to()).pop();
        let references = {
            let refs = text_list(message.references());
            if refs.is_empty() {
                text_list(message.in_reply_to())
            } else {
                refs
            }
        };
        let loops = message
            .header_values("X-Loop")
            .filter_map(|v| v.as_text().map(|t| t.trim().to_string()))
            .collect();
        let delivered_to = ["X-Original-To", "Delivered-To"]
            .iter()
            .flat_map(|name| message.header_values(*name))
            .filter_map(|v| v.as_text().map(|t| t.trim().to_string()))
            .collect();
        Incoming {
            delivered_to,
            from: mailboxes(message.from()).into_iter().next(),
            recipients,
            subject: message.subject().unwrap_or("").to_string(),
            message_id: message.message_id().map(str::to_string),
            references,
            in_reply_to,
            text: body_text(message),
            automatic: automatic(message, envelope_sender.as_deref()),
            envelope_sender,
            loops,
        }
    }
}

/// The closing delimiter a multipart mail lacks, if it lacks it.
fn closing_boundary(message: &Message, raw: &[u8]) -> Option<String> {
    let content_type = message.content_type()?;
    if !content_type.ctype().eq_ignore_ascii_case("multipart") {
        return None;
    }
    let closing = format!("--{}--", content_type.attribute("boundary")?);
    let closed = raw
        .windows(closing.len())
        .any(|window| window == closing.as_bytes());
    (!closed).then(|| format!("\n{closing}\n"))
}

/// Splits off the `From sender date` line that mbox files and MTA pipes put first.
fn split_mbox_line(raw: &[u8]) -> (Option<String>, &[u8]) {
    if !raw.starts_with(b"From ") {
        return (None, raw);
    }
    let end = raw
        .iter()
        .position(|&b| b == b'\n')
        .map_or(raw.len(), |i| i + 1);
    let line = String::from_utf8_lossy(&raw[..end]);
    let sender = line.split_whitespace().nth(1).map(str::to_string);
    (sender, &raw[end..])
}

/// The text the player wrote and quoted: the text/plain bodies, in order
/// (a mail client puts an inline image between two of them, the words
/// after it as much the player's), with `format=flowed` undone; else, or
/// when they only say to read the HTML body ("[This message is in HTML
/// format]"), the HTML body made text.
fn body_text(message: &Message) -> String {
    let parts: Vec<_> = message.text_bodies().collect();
    let plain: Vec<String> = parts
        .iter()
        .filter(|p| !p.is_text_html() && p.text_contents().is_some())
        .map(|p| plain_text(p))
        .collect();
    // An HTML part that is the text's alternative (multipart/alternative):
    // mail-parser lists it among the HTML bodies only.
    let alternative =
        message.html_bodies().any(|p| p.is_text_html()) && !parts.iter().any(|p| p.is_text_html());
    let only_points_to_html = alternative && plain.iter().all(|p| points_to_html(p));
    if !plain.is_empty() && !only_points_to_html {
        return plain.join("\n");
    }
    // mail-parser's own HTML-to-text squeezes <pre> blanks: read the HTML here.
    if let Some(part) = message.html_bodies().next().or(parts.first().copied()) {
        return text::html_to_text(contents(part));
    }
    String::new()
}

/// A plain text that is no text but a pointer to the HTML part: blank, or
/// one line that names HTML.
fn points_to_html(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    match (lines.next(), lines.next()) {
        (None, _) => true,
        (Some(line), None) => line.to_ascii_lowercase().contains("html"),
        _ => false,
    }
}

/// A text/plain part's lines, `format=flowed` undone.
fn plain_text(part: &MessagePart) -> String {
    let body = contents(part);
    let content_type = part.content_type();
    let flowed = content_type
        .and_then(|c| c.attribute("format"))
        .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
    if flowed {
        let delsp = content_type
            .and_then(|c| c.attribute("delsp"))
            .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
        return text::unflow(body, delsp);
    }
    body.replace("\r\n", "\n")
}

/// A text part's decoded contents, without the leading byte-order mark
/// mail-parser keeps: it is no text.
fn contents<'a>(part: &'a MessagePart) -> &'a str {
    let body = part.text_contents().unwrap_or("");
    body.strip_prefix('\u{feff}').unwrap_or(body)
}

/// RFC 3834 and common practice: bounces, auto-replies and list mail are
/// never answered.
fn automatic(message: &Message, envelope_sender: Option<&str>) -> Option<&'static str> {
    let raw = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if envelope_sender.is_some_and(|s| s.is_empty() || s == "<>")
        || raw("Return-Path").is_some_and(|p| p == "<>")
    {
        return Some("a bounce (empty return path)");
    }
    let daemon = |address: &str| {
        let local = address.split('@').next().unwrap_or("").to_ascii_lowercase();
        local == "mailer-daemon" || local == "postmaster"
    };
    if envelope_sender.is_some_and(daemon)
        || mailboxes(message.from()).iter().any(|m| daemon(&m.address))
    {
        return Some("a bounce (from MAILER-DAEMON or postmaster)");
    }
    let content_type = message.content_type();
    if content_type.is_some_and(|c| {
        c.ctype().eq_ignore_ascii_case("multipart")
            && c.subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
    }) {
        return Some("a delivery report (multipart/report)");
    }
    if raw("Auto-Submitted").is_some_and(|a| a.split(';').next().unwrap_or("").trim() != "no") {
        return Some("an automatic mail (Auto-Submitted)");
    }
    if raw("Precedence").is_some_and(|p| matches!(p.as_str(), "bulk" | "junk" | "list")) {
        return Some("bulk or list mail (Precedence)");
    }
    if message.header_raw("List-Id").is_some() {
        return Some("list mail (List-Id)");
    }
    None
}

/// The mail with its lines ended as the parser reads them: old Mac mail
/// programs end each line with a CR alone (some lines only, when a relay
/// ended others), which would make the mail one header line (no From, no
/// move) and leave it unanswered. A CR alone ends no line in mail
/// (RFC 5322 allows it only before LF): each becomes an LF, and a run of
/// CRs before an LF (a CRLF converted twice) is one line end.
fn lines_ended(raw: &[u8]) -> Cow<'_, [u8]> {
    let mut ended = Vec::new();
    let mut changed = false;
    let mut at = 0;
    while let Some(cr) = raw[at..].iter().position(|&b| b == b'\r') {
        ended.extend_from_slice(&raw[at..at + cr]);
        at += cr;
        let run = raw[at..].iter().take_while(|&&b| b == b'\r').count();
        if raw.get(at + run) == Some(&b'\n') {
            ended.push(b'\r');
            changed |= run > 1;
        } else {
            ended.resize(ended.len() + run, b'\n');
            changed = true;
        }
        at += run;
    }
    if !changed {
        return Cow::Borrowed(raw);
    }
    ended.extend_from_slice(&raw[at..]);
    Cow::Owned(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text part that only points to its HTML alternative gives way to
    /// it (an alternative says the same); a text part beside an HTML part
    /// of its own (multipart/mixed) is the player's, whatever it says.
    #[test]
    fn a_text_part_gives_way_only_to_its_html_alternative() {
        let mail = |kind: &str, text: &str| {
            let raw = format!(
                "From: bob@players.example\nContent-Type: multipart/{kind}; boundary=\"b\"\n\n\
                 --b\nContent-Type: text/plain\n\n{text}\n--b\nContent-Type: text/html\n\n\
                 <p>move e</p>\n--b--\n"
            );
            Incoming::parse(raw.as_bytes()).text
        };
        let stub = "[This message is in HTML format]";
        assert!(mail("alternative", stub).contains("move e"));
        assert!(mail("alternative", "").contains("move e"));
        let own = "move c (the board in HTML below)";
        assert!(
            mail("mixed", own).starts_with(own),
            "{}",
            mail("mixed", own)
        );
        assert!(
            mail("mixed", stub).starts_with(stub),
            "{}",
            mail("mixed", stub)
        );
    }

    #[test]
    fn a_mail_whose_lines_end_in_cr_alone_is_read_as_lines() {
        let mail = Incoming::parse(b"From: bob@players.example\rSubject: Re: Wari\r\rmove c\r");
        assert_eq!(
            mail.from.map(|m| m.address).as_deref(),
            Some("bob@players.example")
        );
        assert_eq!(mail.text.trim(), "move c");
        // Some lines ended by a relay, the others still by a CR alone.
        let mixed = Incoming::parse(b"From: bob@players.example\rSubject: Re: Wari\r\n\rmove c\r");
        assert_eq!(
            mixed.from.map(|m| m.address).as_deref(),
            Some("bob@players.example")
        );
        assert_eq!(mixed.text.trim(), "move c");
        // A CRLF converted twice (CR CR LF) ends one line, not two.
        let twice = Incoming::parse(
            b"From: bob@players.example\r\r\nCc: a@x.example\r\r\n\r\r\nmove c\r\r\n",
        );
        assert_eq!(twice.recipients.len(), 1, "the headers go on past From");
        assert_eq!(twice.text.trim(), "move c");
    }

    /// A mail cut off before its closing boundary keeps its last part.
    #[test]
    fn a_last_part_with_no_closing_boundary_is_read() {
        let raw = "From: bob@players.example\nMIME-Version: 1.0\n\
            Content-Type: multipart/mixed; boundary=\"A\"\n\n\
            --A\nContent-Type: text/plain\n\nmove c\n";
        assert_eq!(Incoming::parse(raw.as_bytes()).text.trim(), "move c");
    }

    /// mail-parser keeps a part's leading byte-order mark: it is dropped,
    /// so a move written right after it is read.
    #[test]
    fn a_leading_byte_order_mark_is_no_text_in_plain_or_html_bodies() {
        for content_type in ["text/plain", "text/html"] {
            let raw = format!(
                "From: bob@players.example\nContent-Type: {content_type}; charset=utf-8\n\n\u{feff}move c"
            );
            assert_eq!(
                Incoming::parse(raw.as_bytes()).text,
                "move c",
                "{content_type}"
            );
        }
    }

    /// Apple Mail's way with a picture pasted among the words: text, an
    /// inline image, more text, in one multipart/mixed. The move after the
    /// image is the player's too; the text of an alternative is read once.
    #[test]
    fn every_inline_text_part_is_read_in_order_around_an_inline_image() {
        let raw = "From: alice@players.example\nMIME-Version: 1.0\n\
            Content-Type: multipart/mixed; boundary=\"A\"\n\n\
            --A\nContent-Type: text/plain\n\nHere is my board:\n\n\
            --A\nContent-Disposition: inline; filename=board.png\n\
            Content-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n\n\
            --A\nContent-Type: text/plain\n\nmove c\n\n--A--\n";
        let text = Incoming::parse(raw.as_bytes()).text;
        let (before, after) = (text.find("Here is"), text.find("move c"));
        assert!(before.is_some() && after > before, "{text:?}");

        let alternative = "From: alice@players.example\nMIME-Version: 1.0\n\
            Content-Type: multipart/alternative; boundary=\"B\"\n\n\
            --B\nContent-Type: text/plain\n\nmove c\n\n\
            --B\nContent-Type: text/html\n\n<p>move c</p>\n\n--B--\n";
        let text = Incoming::parse(alternative.as_bytes()).text;
        assert_eq!(text.matches("move c").count(), 1, "{text:?}");
    }

    #[test]
    fn reads_headers_and_skips_the_mbox_line() {
        let raw = b"From bob@players.example  Mon Nov 30 09:05:00 2026\n\
            Return-Path: <bob@players.example>\n\
            From: =?utf-8?q?J=C3=BCrgen?= <bob@players.example>\n\
            To: referee@referee.example, Zo\xc3\xab <alice@players.example>\n\
            Subject: Re: =?utf-8?q?Waurie?=\n\
            Message-ID: <b1@players.example>\n\
            In-Reply-To: <g1@referee.example>\n\n\
            move c\n";
        let mail = Incoming::parse(raw);
        let from = mail.from.unwrap();
        assert_eq!(
            (from.name.as_deref(), from.address.as_str()),
            (Some("Jürgen"), "bob@players.example")
        );
        assert_eq!(mail.recipients.len(), 2);
        assert_eq!(mail.subject, "Re: Waurie");
        assert_eq!(mail.message_id.as_deref(), Some("b1@players.example"));
        assert_eq!(mail.references, ["g1@referee.example"]);
        assert_eq!(mail.envelope_sender.as_deref(), Some("bob@players.example"));
        assert_eq!(mail.text, "move c\n");
        assert_eq!(mail.automatic, None);
    }

    #[test]
    fn bounces_and_auto_replies_are_recognised() {
        let cases: [(&[u8], &str); 6] = [
            (b"Return-Path: <>\nFrom: x@y.example\n\nhi\n", "bounce"),
            (
                b"From MAILER-DAEMON  Mon Nov 30 09:05:00 2026\nFrom: x@y.example\n\nhi\n",
                "bounce",
            ),
            (
                b"From: Mail Delivery System <MAILER-DAEMON@y.example>\n\nhi\n",
                "bounce",
            ),
            (
                b"From: x@y.example\nAuto-Submitted: auto-replied\n\nhi\n",
                "automatic",
            ),
            (b"From: x@y.example\nPrecedence: bulk\n\nhi\n", "bulk"),
            (
                b"From: x@y.example\nList-Id: <games.example>\n\nhi\n",
                "list",
            ),
        ];
        for (raw, why) in cases {
            let mail = Incoming::parse(raw);
            assert!(
                mail.automatic.is_some_and(|a| a.contains(why)),
                "{:?}: {:?}",
                String::from_utf8_lossy(raw),
                mail.automatic
            );
        }
        let mail = Incoming::parse(b"From: x@y.example\nAuto-Submitted: no\n\nhi\n");
        assert_eq!(mail.automatic, None);
    }

    #[test]
    fn a_report_is_never_answered() {
        let raw = b"From: x@y.example\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\n\n--b\nContent-Type: text/plain\n\nfailed\n--b--\n";
        assert!(Incoming::parse(raw).automatic.is_some());
    }

    #[test]
    fn garbage_parses_to_nothing_without_panicking() {
        for raw in [&b""[..], b"\0\0\0", b"From \n", b"::::\n\n", &[0xff; 64]] {
            let _ = Incoming::parse(raw);
        }
    }
}
