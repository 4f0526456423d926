//! A reply as the referee sends it and as the store keeps it until sent:
//! one type, plain data. The mail layer builds it (and knows how it
//! leaves); the store only keeps it, so a reply sent again after a crash
//! is the very message decided.

use serde::{Deserialize, Serialize};

/// A person's mailbox: a display name (decoded) and an address. Stored only
/// as a reply's recipient, under the names its fields have always had in
/// the game file (`to_name`, `to`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mailbox {
    #[serde(rename = "to_name")]
    pub name: Option<String>,
    #[serde(rename = "to")]
    pub address: String,
}

impl Mailbox {
    /// The display name, or the address's local part.
    pub fn short_name(&self) -> String {
        match &self.name {
            Some(name) if !name.trim().is_empty() => name.trim().to_string(),
            _ => self.address.split('@').next().unwrap_or("").to_string(),
        }
    }
}

/// Where a reply stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state", content = "why")]
pub enum Delivery {
    /// Not yet handed to the transport (or handed, and the process died
    /// before it could note so: it is sent again, with the same Message-ID).
    Pending,
    Sent,
    /// Refused for good (a 550): trying again cannot help.
    Refused(String),
}

/// One mail to send, to one recipient: decided once and kept until it is
/// sent, so a retry sends the very same message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outgoing {
    /// Without angle brackets; derived from what it answers and whom it
    /// goes to, so a resend is the same message.
    pub message_id: String,
    /// The ledger's event this reply belongs to: set when the decision is
    /// recorded (0 for a reply kept nowhere).
    pub event: u32,
    #[serde(flatten)]
    pub to: Mailbox,
    /// Where replies should go, when not to the referee's plain address.
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    /// The Message-ID replied to, and the thread's references.
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    /// The body as HTML too (multipart/alternative, the text first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    pub delivery: Delivery,
}
