//! The outgoing message as the mail layer builds it: a reply threaded
//! under the mail it answers, or a notice that answers none, with its HTML
//! part. It is the store's [`Outgoing`] itself, kept in a ledger as is
//! until sent; only [`transport`](super::transport) knows how it leaves.

pub use crate::store::{Mailbox, Outgoing};

use super::compose::reply_subject;
use super::html_part::{html_of, Drawn};
use super::letter::Letter;
use crate::sheet::{Player, Sheet};
use crate::store::Delivery;

// Built here, not in the store: the store keeps replies and knows no
// letters, subjects or HTML.
impl Outgoing {
    /// A reply to `letter`, threaded under it.
    pub fn reply(letter: &Letter, message_id: String, to: Mailbox, body: String) -> Outgoing {
        let mut references = letter.references.clone();
        if let Some(id) = &letter.message_id {
            references.push(id.clone());
        }
        Outgoing {
            in_reply_to: letter.message_id.clone(),
            references,
            ..Outgoing::notice(message_id, to, reply_subject(&letter.subject), body)
        }
    }

    /// A mail that answers no mail (a reminder).
    pub fn notice(message_id: String, to: Mailbox, subject: String, body: String) -> Outgoing {
        Outgoing {
            message_id,
            event: 0,
            to,
            reply_to: None,
            subject,
            body,
            in_reply_to: None,
            references: Vec::new(),
            html: None,
            delivery: Delivery::Pending,
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
}

/// Where the referee mails `player`, if anywhere.
pub fn mailbox_of(player: &Player) -> Option<Mailbox> {
    player.address.as_ref().map(|address| Mailbox {
        name: Some(player.name.clone()),
        address: address.clone(),
    })
}
