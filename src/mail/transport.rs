//! Turning replies into RFC 5322 messages (lettre's builder) and sending
//! them: to standard output as mbox, through sendmail, over SMTP, or into
//! a folder of `.eml` files.

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Body, Mailbox as LettreMailbox, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{FileTransport, Message, SendmailTransport, SmtpTransport, Transport as _};

use super::referee::{Outgoing, Referee};

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

/// A reply that could not be built or sent.
#[derive(Debug)]
pub struct SendError {
    /// Worth trying again later (exit 75 tells the MTA so).
    pub transient: bool,
    pub message: String,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SendError {}

fn permanent(message: impl fmt::Display) -> SendError {
    SendError {
        transient: false,
        message: message.to_string(),
    }
}

fn transient(message: impl fmt::Display) -> SendError {
    SendError {
        transient: true,
        message: message.to_string(),
    }
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A fresh Message-ID on the referee's own domain.
fn message_id(referee: &Referee, now: SystemTime) -> String {
    let nanos = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let domain = referee
        .address
        .rsplit_once('@')
        .map_or("localhost", |(_, d)| d);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    format!("<{nanos:x}.{}.{n}@{domain}>", std::process::id())
}

fn angle(id: &str) -> String {
    format!("<{}>", id.trim_start_matches('<').trim_end_matches('>'))
}

fn mailbox(name: Option<&str>, address: &str) -> Result<LettreMailbox, SendError> {
    let address = address
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
/// threaded and marked as an automatic reply (RFC 3834).
///
/// # Errors
/// When an address cannot be used.
pub fn build(referee: &Referee, out: &Outgoing, now: SystemTime) -> Result<Message, SendError> {
    let own = mailbox(Some(&referee.name), &referee.address)?;
    let mut builder = Message::builder()
        .from(own)
        .subject(super::text::clean_text(&out.subject))
        .date(now)
        .message_id(Some(message_id(referee, now)))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            "auto-replied".to_string(),
        ))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Loop"),
            referee.address.clone(),
        ));
    let mut recipients = 0;
    for to in &out.to {
        builder = builder.to(mailbox(to.name.as_deref(), &to.address)?);
        recipients += 1;
    }
    if recipients == 0 {
        return Err(permanent("a reply with no recipient"));
    }
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
    // lettre turns bare LF into CRLF slowly (quadratic): give it CRLF.
    let crlf = out.body.replace("\r\n", "\n").replace('\n', "\r\n");
    let body = Body::new_with_encoding(crlf.clone(), ContentTransferEncoding::EightBit)
        .unwrap_or_else(|_| Body::new(crlf)); // a line over 998 bytes: let lettre pick
    let part = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(body);
    builder.singlepart(part).map_err(permanent)
}

impl Transport {
    /// Sends every message, in order.
    ///
    /// # Errors
    /// The first failure; `transient` when trying later may help.
    pub fn send(
        &self,
        referee: &Referee,
        messages: &[Message],
        now: SystemTime,
    ) -> Result<(), SendError> {
        match self {
            Transport::Stdout => {
                let mut out = std::io::stdout().lock();
                for message in messages {
                    out.write_all(mbox_entry(&referee.address, message, now).as_bytes())
                        .map_err(transient)?;
                }
                out.flush().map_err(transient)
            }
            Transport::Sendmail(path) => {
                let sendmail = SendmailTransport::new_with_command(path);
                for message in messages {
                    sendmail
                        .send(message)
                        .map_err(|e| transient(format!("{}: {e}", path.display())))?;
                }
                Ok(())
            }
            Transport::Smtp {
                host,
                port,
                implicit_tls,
            } => {
                let params = TlsParameters::new(host.clone()).map_err(permanent)?;
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
                let smtp = builder.build();
                for message in messages {
                    smtp.send(message).map_err(|e| SendError {
                        transient: !e.is_permanent(),
                        message: format!("smtp {host}:{port}: {e}"),
                    })?;
                }
                Ok(())
            }
            Transport::Dir(path) => {
                std::fs::create_dir_all(path)
                    .map_err(|e| transient(format!("{}: {e}", path.display())))?;
                let files = FileTransport::new(path);
                for message in messages {
                    files
                        .send(message)
                        .map_err(|e| transient(format!("{}: {e}", path.display())))?;
                }
                Ok(())
            }
        }
    }
}

/// One mbox entry: the `From ` line, the message with LF endings and
/// `From ` lines quoted, and a blank line.
pub fn mbox_entry(sender: &str, message: &Message, now: SystemTime) -> String {
    let text = String::from_utf8_lossy(&message.formatted()).replace("\r\n", "\n");
    let mut entry = format!("From {sender} {}\n", asctime(now));
    for line in text.lines() {
        if line.trim_start_matches('>').starts_with("From ") {
            entry.push('>');
        }
        entry.push_str(line);
        entry.push('\n');
    }
    entry.push('\n');
    entry
}

/// `Mon Nov 30 09:05:00 2026`, in UTC, as mbox `From ` lines want it.
fn asctime(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let (h, m, s) = (secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {day:2} {h:02}:{m:02}:{s:02} {year}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::incoming::Mailbox;
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
    fn asctime_is_utc_calendar_time() {
        let t = UNIX_EPOCH + Duration::from_secs(1_796_029_500); // 2026-11-30 09:05:00 UTC
        assert_eq!(asctime(t), "Mon Nov 30 09:05:00 2026");
        assert_eq!(asctime(UNIX_EPOCH), "Thu Jan  1 00:00:00 1970");
    }

    #[test]
    fn built_replies_thread_mark_themselves_and_cannot_be_injected() {
        let referee = Referee::new("referee@referee.example");
        let out = Outgoing {
            to: vec![Mailbox {
                name: Some("Bob\r\nBcc: evil@example.org".into()),
                address: "bob@players.example".into(),
            }],
            reply_to: None,
            subject: "Re: Wari".into(),
            body: "Bob played c.\nFrom the start\n".into(),
            in_reply_to: Some("b1@players.example".into()),
            references: vec!["g1@referee.example".into(), "b1@players.example".into()],
        };
        let message = build(
            &referee,
            &out,
            UNIX_EPOCH + Duration::from_secs(1_796_029_500),
        )
        .unwrap();
        let text = mbox_entry(&referee.address, &message, UNIX_EPOCH);
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
        assert!(text.contains("Message-ID: <") && text.contains("@referee.example>\n"));
        assert!(!text.contains("\nBcc:"), "{text}");
        assert!(text.contains("\n>From the start\n"), "{text}");
        assert!(!text.contains("format=flowed"));
    }
}
