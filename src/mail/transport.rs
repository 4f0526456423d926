//! Turning replies into RFC 5322 messages (lettre's builder) and sending
//! them: to standard output as mbox, through sendmail, over SMTP, or into
//! a folder of `.eml` files.

use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Body, Mailbox as LettreMailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Message, SendmailTransport, SmtpTransport, Transport as _};

use super::outgoing::Outgoing;
use super::Identity;

/// Whether trying again later can help a failed send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A 4xx, a connection refused, a full disk: keep the mail, retry.
    Transient,
    /// A 5xx for this recipient: it will never go; say so and go on.
    Permanent,
}

/// A reply that could not be built or sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SendError {
    pub failure: Failure,
    pub message: String,
}

impl SendError {
    pub fn transient(message: impl std::fmt::Display) -> SendError {
        SendError {
            failure: Failure::Transient,
            message: message.to_string(),
        }
    }

    pub fn permanent(message: impl std::fmt::Display) -> SendError {
        SendError {
            failure: Failure::Permanent,
            message: message.to_string(),
        }
    }
}

/// What sends one message: a transport (or a test's stub).
pub trait Postman {
    /// # Errors
    /// When the message could not be handed on.
    fn send(&self, mail: &Outgoing) -> Result<(), SendError>;
}

fn permanent(message: impl std::fmt::Display) -> SendError {
    SendError::permanent(message)
}

fn transient(message: impl std::fmt::Display) -> SendError {
    SendError::transient(message)
}

/// Where replies go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Printed to standard output in mbox format.
    Stdout,
    /// Handed to a sendmail-compatible program.
    Sendmail(PathBuf),
    /// An SMTP server: `smtp://` tries STARTTLS when offered, `smtps://`
    /// starts with TLS.
    Smtp {
        host: String,
        port: u16,
        implicit_tls: bool,
    },
    /// `.eml` files written into a folder.
    Dir(PathBuf),
}

/// The environment variables that hold SMTP credentials.
pub const SMTP_USER_VAR: &str = "MANCALA_SMTP_USER";
pub const SMTP_PASSWORD_VAR: &str = "MANCALA_SMTP_PASSWORD";
/// A PEM file of root certificates trusted besides the public CAs (a
/// server with a private CA's certificate, as a test's).
pub const SMTP_CA_VAR: &str = "MANCALA_SMTP_CA";

/// TLS for `host`: the public CAs (webpki roots), and those of
/// `MANCALA_SMTP_CA` if set.
fn tls_parameters(host: &str) -> Result<TlsParameters, SendError> {
    let mut builder = TlsParameters::builder(host.to_string());
    if let Some(path) = std::env::var_os(SMTP_CA_VAR).filter(|p| !p.is_empty()) {
        let shown = std::path::Path::new(&path).display().to_string();
        // Unreadable now, perhaps readable later: keep the mail and retry.
        let pem =
            std::fs::read(&path).map_err(|e| transient(format!("{SMTP_CA_VAR} {shown}: {e}")))?;
        let ca = lettre::transport::smtp::client::Certificate::from_pem(&pem)
            .map_err(|e| transient(format!("{SMTP_CA_VAR} {shown}: {e}")))?;
        builder = builder.add_root_certificate(ca);
    }
    builder.build().map_err(permanent)
}

impl FromStr for Transport {
    type Err = String;

    /// `stdout`, `sendmail`, `sendmail:/path/to/sendmail`,
    /// `smtp://HOST:PORT`, `smtps://HOST:PORT` or `dir:PATH`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let url = |rest: &str, implicit_tls: bool, default_port: u16| {
            let rest = rest.trim_end_matches('/');
            let (host, port) = match rest.rsplit_once(':') {
                Some((host, port)) => (
                    host,
                    port.parse()
                        .map_err(|_| format!("'{port}' is not a port"))?,
                ),
                None => (rest, default_port),
            };
            if host.is_empty() {
                return Err(format!("'{s}' names no host"));
            }
            Ok(Transport::Smtp {
                host: host.to_string(),
                port,
                implicit_tls,
            })
        };
        match s {
            "stdout" => Ok(Transport::Stdout),
            "sendmail" => Ok(Transport::Sendmail(PathBuf::from("/usr/sbin/sendmail"))),
            _ => {
                if let Some(path) = s.strip_prefix("sendmail:") {
                    Ok(Transport::Sendmail(PathBuf::from(path)))
                } else if let Some(rest) = s.strip_prefix("smtp://") {
                    url(rest, false, 25)
                } else if let Some(rest) = s.strip_prefix("smtps://") {
                    url(rest, true, 465)
                } else if let Some(path) = s.strip_prefix("dir:") {
                    Ok(Transport::Dir(PathBuf::from(path)))
                } else {
                    Err(format!(
                        "'{s}' is not a transport: use stdout, sendmail[:PATH], smtp://HOST:PORT, smtps://HOST:PORT or dir:PATH"
                    ))
                }
            }
        }
    }
}

fn angle(id: &str) -> String {
    format!("<{}>", id.trim_start_matches('<').trim_end_matches('>'))
}

fn mailbox(name: Option<&str>, address: &str) -> Result<LettreMailbox, SendError> {
    let address = crate::address::with_ascii_domain(address)
        .parse()
        .map_err(|e| permanent(format!("'{address}' is not an address: {e}")))?;
    // lettre panics on a line break in a display name: a player's name is
    // theirs to choose, so no control character gets that far.
    Ok(LettreMailbox::new(
        name.map(super::text::clean_text),
        address,
    ))
}

/// Builds the message: plain UTF-8 text, 8bit, never `format=flowed`,
/// threaded, marked as an automatic reply (RFC 3834), with the Message-ID
/// the referee gave it.
///
/// # Errors
/// When an address cannot be used.
pub fn build(referee: &Identity, out: &Outgoing, now: SystemTime) -> Result<Message, SendError> {
    let own = mailbox(Some(&referee.name), &referee.address)?;
    let mut builder = Message::builder()
        .from(own)
        .to(mailbox(out.to.name.as_deref(), &out.to.address)?)
        .subject(super::text::clean_text(&out.subject))
        .date(now)
        .message_id(Some(angle(&out.message_id)))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            "auto-replied".to_string(),
        ))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Loop"),
            referee.address.clone(),
        ));
    if let Some(reply_to) = &out.reply_to {
        builder = builder.reply_to(mailbox(Some(&referee.name), reply_to)?);
    }
    if let Some(id) = &out.in_reply_to {
        builder = builder.in_reply_to(angle(id));
    }
    if !out.references.is_empty() {
        let refs: Vec<String> = out.references.iter().map(|r| angle(r)).collect();
        builder = builder.references(refs.join(" "));
    }
    let text = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(body(&out.body));
    match &out.html {
        None => builder.singlepart(text).map_err(permanent),
        Some(html) => {
            let html = SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(body(html));
            builder
                .multipart(MultiPart::alternative().singlepart(text).singlepart(html))
                .map_err(permanent)
        }
    }
}

/// A part's body in the encoding lettre chooses: 8bit where it allows
/// (every line short, as the referee writes them), else quoted-printable or
/// base64.
fn body(text: &str) -> Body {
    // lettre turns bare LF into CRLF slowly (an insert a line): give it CRLF.
    // A player's words quoted back may hold a NUL or a bare CR, which no
    // mail body may: control characters but the tab are left out. One scan
    // for the bytes that may start one (0xC2 leads the C1 controls, and
    // Latin-1 letters too); the text between is copied whole.
    let mut crlf = String::with_capacity(text.len() + text.len() / 16);
    let mut rest = text;
    while let Some(at) = rest
        .bytes()
        .position(|b| b < 0x20 || b == 0x7f || b == 0xc2)
    {
        // `at` is a character's start: an ASCII byte or a lead byte.
        let (before, from) = rest.split_at(at);
        crlf.push_str(before);
        let mut chars = from.chars();
        match chars.next() {
            Some('\n') => crlf.push_str("\r\n"),
            Some('\t') => crlf.push('\t'),
            Some(c) if !c.is_control() => crlf.push(c),
            _ => {}
        }
        rest = chars.as_str();
    }
    crlf.push_str(rest);
    // `Body::new` alone never picks 8bit for UTF-8; this asks lettre
    // whether 8bit will do, and gives the text back when it will not.
    match Body::new_with_encoding(crlf, ContentTransferEncoding::EightBit) {
        Ok(body) => body,
        Err(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Body::new(text),
            Err(error) => Body::new(error.into_bytes()),
        },
    }
}

/// A transport with the referee's name on what it sends: the postman the
/// referees hand their replies to.
pub struct Postbox {
    pub transport: Transport,
    pub identity: Identity,
}

impl Postman for Postbox {
    fn send(&self, mail: &Outgoing) -> Result<(), SendError> {
        let now = SystemTime::now();
        let message = build(&self.identity, mail, now)?;
        self.transport
            .send_one(&self.identity, &message, &mail.message_id, now)
    }
}

impl Transport {
    /// Sends one message.
    ///
    /// # Errors
    /// Transient when trying later may help (a 4xx, no connection, a full
    /// disk), permanent when the recipient is refused for good (a 5xx).
    pub fn send_one(
        &self,
        referee: &Identity,
        message: &Message,
        message_id: &str,
        now: SystemTime,
    ) -> Result<(), SendError> {
        match self {
            Transport::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(&mbox_entry(&referee.address, message, now))
                    .and_then(|()| out.flush())
                    .map_err(transient)
            }
            Transport::Sendmail(path) => SendmailTransport::new_with_command(path)
                .send(message)
                .map_err(|e| transient(format!("{}: {e}", path.display()))),
            Transport::Smtp {
                host,
                port,
                implicit_tls,
            } => {
                let params = tls_parameters(host)?;
                let tls = if *implicit_tls {
                    Tls::Wrapper(params)
                } else {
                    Tls::Opportunistic(params)
                };
                let mut builder = SmtpTransport::builder_dangerous(host.as_str())
                    .port(*port)
                    .tls(tls);
                if let (Ok(user), Ok(password)) = (
                    std::env::var(SMTP_USER_VAR),
                    std::env::var(SMTP_PASSWORD_VAR),
                ) {
                    builder = builder.credentials(Credentials::new(user, password));
                }
                builder.build().send(message).map(|_| ()).map_err(|e| {
                    let text = format!("smtp {host}:{port}: {e}");
                    let code = e.status().map(|code| code.to_string());
                    if refuses_the_recipient(code.as_deref()) {
                        permanent(text)
                    } else {
                        transient(text)
                    }
                })
            }
            Transport::Dir(path) => {
                // Named by Message-ID: a reply sent again is the same file.
                let name: String = message_id
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || ".-_@".contains(c) {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let file = path.join(format!("{name}.eml"));
                std::fs::create_dir_all(path)
                    .and_then(|()| {
                        crate::files::write_atomically(path, &file, &message.formatted())
                    })
                    .map_err(|e| transient(format!("{}: {e}", file.display())))
            }
        }
    }
}

/// Is this reply code the recipient refused for good? Only 550 and 551
/// (no such mailbox, not here) are: a 535 (our password), a 554 or 530
/// (no AUTH) or any 4xx is the referee's own set-up or a passing trouble,
/// which waiting (or the operator) mends, so the reply is kept, not lost.
fn refuses_the_recipient(code: Option<&str>) -> bool {
    matches!(code, Some("550" | "551"))
}

/// One mbox entry: the `From ` line, the message with LF endings and
/// `From ` lines quoted, and a blank line. Bytes in, bytes out: the
/// message is lettre's, and no line of it needs reading as text.
pub fn mbox_entry(sender: &str, message: &Message, now: SystemTime) -> Vec<u8> {
    let formatted = message.formatted();
    let mut entry = Vec::with_capacity(formatted.len() + 64);
    let _ = writeln!(entry, "From {sender} {}", asctime(now));
    push_mbox_lines(&mut entry, &formatted);
    entry.push(b'\n');
    entry
}

/// `text`'s lines as an mbox holds them: each CRLF (or LF) an LF, as
/// `str::lines` reads them, and a `From ` line, however many `>` it
/// starts with, quoted by one more.
fn push_mbox_lines(entry: &mut Vec<u8>, text: &[u8]) {
    let mut push = |line: &[u8]| {
        let unquoted = line
            .iter()
            .position(|&b| b != b'>')
            .map_or(&[][..], |at| &line[at..]);
        if unquoted.starts_with(b"From ") {
            entry.push(b'>');
        }
        entry.extend_from_slice(line);
        entry.push(b'\n');
    };
    for line in text.split_inclusive(|&byte| byte == b'\n') {
        match line.strip_suffix(b"\n") {
            Some(line) => push(line.strip_suffix(b"\r").unwrap_or(line)),
            None => push(line),
        }
    }
}

/// `2026-11-30T09:05:00Z`: when, for the referee's log lines.
pub fn timestamp(time: SystemTime) -> String {
    utc(time).to_rfc3339()
}

/// `Mon Nov 30 09:05:00 2026`, in UTC, as mbox `From ` lines want it.
fn asctime(time: SystemTime) -> String {
    const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let t = utc(time);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        WEEKDAYS[usize::from(t.day_of_week()) % 7],
        MONTHS[usize::from(t.month.clamp(1, 12) - 1)],
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.year
    )
}

/// UTC calendar time, by mail-parser's calendar.
fn utc(time: SystemTime) -> mail_parser::DateTime {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    mail_parser::DateTime::from_timestamp(i64::try_from(secs).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::incoming::Mailbox;
    use crate::mail::Identity;
    use std::time::Duration;

    #[test]
    fn transports_read_as_written() {
        assert_eq!("stdout".parse(), Ok(Transport::Stdout));
        assert_eq!(
            "sendmail".parse(),
            Ok(Transport::Sendmail("/usr/sbin/sendmail".into()))
        );
        assert_eq!(
            "sendmail:/opt/sm".parse(),
            Ok(Transport::Sendmail("/opt/sm".into()))
        );
        assert_eq!(
            "smtp://127.0.0.1:2525".parse(),
            Ok(Transport::Smtp {
                host: "127.0.0.1".into(),
                port: 2525,
                implicit_tls: false
            })
        );
        assert_eq!(
            "smtps://mail.example".parse(),
            Ok(Transport::Smtp {
                host: "mail.example".into(),
                port: 465,
                implicit_tls: true
            })
        );
        assert_eq!("dir:out".parse(), Ok(Transport::Dir("out".into())));
        assert!("carrier-pigeon".parse::<Transport>().is_err());
        assert!("smtp://:25".parse::<Transport>().is_err());
    }

    #[test]
    fn only_a_refused_mailbox_is_permanent() {
        assert!(refuses_the_recipient(Some("550")));
        assert!(refuses_the_recipient(Some("551")));
        for kept in [Some("535"), Some("554"), Some("530"), Some("451"), None] {
            assert!(!refuses_the_recipient(kept), "{kept:?}");
        }
    }

    #[test]
    fn bodies_are_encoded_as_lettre_would() {
        let long = "x".repeat(74);
        for text in [
            String::new(),
            "short\n".to_string(),
            "caf\u{e9} au lait\nand more\n".to_string(),
            format!("{long}\n"),
            format!("{long}x\n"),
            format!("a\n{long}\n"),
            format!("a\n{long}x\n"),
            format!("a\n{long}xx"),
            format!("{long}xx"),
            format!("{long}x"),
            format!("no newline {long}"),
            format!("\n\n{long}\r\nwith CRLF\r\n"),
        ] {
            let ours = body(&text);
            let mut crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
            let lettres = Body::new_with_encoding(crlf.clone(), ContentTransferEncoding::EightBit)
                .unwrap_or_else(|unfit| {
                    crlf = String::from_utf8_lossy(&unfit).into_owned();
                    Body::new(crlf.clone())
                });
            assert_eq!(ours.encoding(), lettres.encoding(), "{text:?}");
            assert_eq!(ours.as_ref(), lettres.as_ref(), "{text:?}");
        }
    }

    #[test]
    fn mbox_lines_are_the_lines_str_reads() {
        for text in [
            "",
            "a",
            "a\r\nb\r\n",
            "a\nb\n\n",
            "\n\r\n\r",
            "From me\r\n>From you\r\n>>From x\nFromage\n From y\n>\n",
            "caf\u{e9}\r\nlast\r",
            "trailing\r\r\n",
        ] {
            let mut expected = String::new();
            for line in text.lines() {
                if line.trim_start_matches('>').starts_with("From ") {
                    expected.push('>');
                }
                expected.push_str(line);
                expected.push('\n');
            }
            let mut ours = Vec::new();
            push_mbox_lines(&mut ours, text.as_bytes());
            assert_eq!(String::from_utf8(ours).unwrap(), expected, "{text:?}");
        }
    }

    #[test]
    fn asctime_is_utc_calendar_time() {
        let t = UNIX_EPOCH + Duration::from_secs(1_796_029_500); // 2026-11-30 09:05:00 UTC
        assert_eq!(asctime(t), "Mon Nov 30 09:05:00 2026");
        assert_eq!(asctime(UNIX_EPOCH), "Thu Jan  1 00:00:00 1970");
        let leap_day = UNIX_EPOCH + Duration::from_secs(1_709_210_096);
        assert_eq!(asctime(leap_day), "Thu Feb 29 12:34:56 2024");
        assert_eq!(timestamp(t), "2026-11-30T09:05:00Z");
    }

    /// A notice of game k7q2mx to `name <address>`.
    fn notice_to(name: &str, address: &str, body: &str) -> Outgoing {
        let to = Mailbox {
            name: Some(name.into()),
            address: address.into(),
        };
        let id = "k7q2mx.3.north@referee.example".into();
        Outgoing::notice(id, to, "Re: Wari".into(), body.into())
    }

    #[test]
    fn built_replies_thread_mark_themselves_and_cannot_be_injected() {
        let referee = Identity::new("referee@referee.example");
        let out = Outgoing {
            in_reply_to: Some("b1@players.example".into()),
            references: vec!["g1@referee.example".into(), "b1@players.example".into()],
            ..notice_to(
                "Bob\r\nBcc: evil@example.org",
                "bob@players.example",
                "Bob played c.\nFrom the start\n",
            )
        };
        let message = build(
            &referee,
            &out,
            UNIX_EPOCH + Duration::from_secs(1_796_029_500),
        )
        .unwrap();
        let text = String::from_utf8(mbox_entry(&referee.address, &message, UNIX_EPOCH)).unwrap();
        assert!(text.starts_with("From referee@referee.example Thu Jan  1 00:00:00 1970\n"));
        for header in [
            "Auto-Submitted: auto-replied\n",
            "X-Loop: referee@referee.example\n",
            "In-Reply-To: <b1@players.example>\n",
            "References: <g1@referee.example> <b1@players.example>\n",
            "Content-Type: text/plain; charset=utf-8\n",
        ] {
            assert!(text.contains(header), "{header} missing from\n{text}");
        }
        assert!(
            text.contains("Message-ID: <k7q2mx.3.north@referee.example>\n"),
            "{text}"
        );
        assert!(!text.contains("\nBcc:"), "{text}");
        assert!(text.contains("\n>From the start\n"), "{text}");
        assert!(!text.contains("format=flowed"));
    }

    #[test]
    fn no_control_character_but_the_tab_reaches_a_body() {
        let body = body("move\0 c\rx\x1b[31m\tend\r\nNEL\u{85} 10°\nclean é\n");
        assert_eq!(
            String::from_utf8_lossy(body.as_ref()),
            "move cx[31m\tend\r\nNEL 10°\r\nclean é\r\n"
        );
    }

    /// A server without SMTPUTF8 refuses a domain in Unicode: the envelope
    /// and the header both carry its ASCII form.
    #[test]
    fn an_international_domain_goes_out_in_ascii() {
        let referee = Identity::new("referee@referee.example");
        let out = notice_to("Bob", "bob@bücher.example", "Your move.\n");
        let message = build(&referee, &out, UNIX_EPOCH).unwrap();
        let recipients: Vec<String> = message
            .envelope()
            .to()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(recipients, ["bob@xn--bcher-kva.example"]);
        let text = String::from_utf8(message.formatted()).unwrap();
        assert!(
            text.contains("To: Bob <bob@xn--bcher-kva.example>"),
            "{text}"
        );
    }
}
