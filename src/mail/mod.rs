//! The mail adapter. A mail is read once into a [`letter::Letter`] (its
//! own lines, quoted sheet, keys, commands); a referee decides from the
//! letter what to answer: [`sheet_referee`] for games that live in their
//! mails, [`hosted`] for games kept in the store. A hosted answer is one
//! transaction ([`delivery`]): decide, save, send each reply, record it
//! sent. Only [`transport`] knows how mail leaves.

pub mod command;
pub mod compose;
pub mod delivery;
pub mod hosted;
pub mod html_part;
pub mod incoming;
pub mod letter;
pub mod maildir;
pub mod outgoing;
pub mod play;
pub mod refusal;
pub mod sheet_referee;
pub mod text;
pub mod transport;
pub mod wrap;

/// What both referees do with a mail: decide, send, and say what they did.
pub trait Referee {
    fn identity(&self) -> &Identity;

    /// Answers one mail (one [`too_large`](letter::Letter::too_large) with
    /// a refusal alone).
    ///
    /// # Errors
    /// When a later try may succeed (exit 75); nothing is lost meanwhile.
    fn deliver(
        &self,
        letter: &letter::Letter,
        postman: &dyn transport::Postman,
    ) -> Result<Report, delivery::DeliveryError>;
}

/// Who the referee is: its address and the display name on its mail.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The referee's own address, e.g. `referee@referee.example`.
    pub address: String,
    pub name: String,
    /// The address is a person's, who plays from it (`--owner`): their own
    /// hand-written mail is theirs, and loops are told by the referee's
    /// headers (X-Loop, Auto-Submitted) alone, never by the From.
    pub owner: bool,
    /// The mail system delivers `name+anything@domain` to the referee, so
    /// a player's key rides in the Reply-To (else only in the text).
    pub sub_addresses: bool,
}

impl Identity {
    pub fn new(address: &str) -> Identity {
        Identity {
            address: address.trim().to_string(),
            name: "Mancala referee".to_string(),
            owner: false,
            sub_addresses: true,
        }
    }

    /// The referee of `owner`'s own mailbox, playing as them.
    pub fn owner(owner: &incoming::Mailbox) -> Identity {
        Identity {
            address: owner.address.clone(),
            name: owner.name.clone().unwrap_or_else(|| owner.short_name()),
            owner: true,
            sub_addresses: false,
        }
    }

    /// The owner's mailbox, when the referee runs on one.
    pub fn owner_mailbox(&self) -> Option<incoming::Mailbox> {
        self.owner.then(|| incoming::Mailbox {
            name: Some(self.name.clone()),
            address: self.address.clone(),
        })
    }

    /// `referee+<extension>@domain`: the sub-address Postfix and most MTAs
    /// deliver to the referee itself (the plain address where the mail
    /// system does not).
    pub fn sub_address(&self, extension: &str) -> String {
        match self.address.split_once('@') {
            Some((local, domain)) if self.sub_addresses => format!("{local}+{extension}@{domain}"),
            _ => self.address.clone(),
        }
    }

    /// The domain the referee's Message-IDs are made on.
    pub fn domain(&self) -> &str {
        self.address
            .rsplit_once('@')
            .map_or("localhost", |(_, d)| d)
    }

    /// Is `address` the referee's own, sub-addresses (`referee+x@`) included?
    pub fn is_own(&self, address: &str) -> bool {
        crate::address::same_mailbox(address, &self.address)
    }

    /// Does `text` name the referee's address or one of its sub-addresses?
    pub fn is_named_in(&self, text: &str) -> bool {
        let Some((local, domain)) = self.address.split_once('@') else {
            return false;
        };
        let lower = text.to_ascii_lowercase();
        let (local, domain) = (local.to_ascii_lowercase(), domain.to_ascii_lowercase());
        lower.match_indices(&local).any(|(at, _)| {
            let rest = &lower[at + local.len()..];
            let rest = match rest.strip_prefix('+') {
                Some(r) => r.trim_start_matches(|c: char| c != '@' && !c.is_whitespace()),
                None => rest,
            };
            rest.strip_prefix('@')
                .is_some_and(|r| r.starts_with(&domain))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_addresses_include_sub_addresses() {
        let referee = Identity::new("referee@referee.example");
        assert!(referee.is_own("Referee+g1-abc@Referee.Example"));
        assert!(!referee.is_own("alice@players.example"));
        assert!(referee.is_named_in("write to Referee+k7q2mx-0123@referee.example now"));
        assert!(referee.is_named_in("<referee@referee.example>"));
        assert!(!referee.is_named_in("the referee@ is busy"));
        assert_eq!(referee.domain(), "referee.example");
    }
}

/// What a delivery did, for the log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The game the mail was about, if one.
    pub game: Option<String>,
    pub summary: String,
    /// Message-IDs sent now.
    pub sent: Vec<String>,
    /// Replies refused for good: the address and why.
    pub refused: Vec<(String, String)>,
}

impl Report {
    pub fn ignored(reason: impl Into<String>) -> Report {
        Report {
            summary: reason.into(),
            ..Report::default()
        }
    }

    /// What was done about game `id`.
    pub fn about(id: impl std::fmt::Display, summary: impl Into<String>) -> Report {
        Report {
            game: Some(id.to_string()),
            summary: summary.into(),
            ..Report::default()
        }
    }
}
