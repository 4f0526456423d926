//! Sending what a referee decided, exactly as decided. Replies kept in a
//! [`Ledger`] are sent one by one, each recorded as sent (or refused for
//! good) in the store before the next, so a crash or a 451 resends only
//! what did not go, under the same Message-ID.

use std::cell::RefCell;

use super::compose::Outgoing;
use crate::store::{Delivery, Ledger, StoreError};

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

/// What sends one message: a transport, or a stub in tests.
pub trait Postman {
    /// # Errors
    /// When the message could not be handed on.
    fn send(&self, mail: &Outgoing) -> Result<(), SendError>;
}

/// Why a delivery must be tried again later (exit 75): nothing is lost.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("the store: {0}")]
    Store(#[from] StoreError),
    #[error("a reply could not be sent ({0}); it is kept and goes with the next try")]
    Send(SendError),
}

impl DeliveryError {
    /// Waiting alone will not help: the operator must mend the store (a
    /// damaged or newer file, a lost key) before the MTA's next try.
    pub fn needs_operator(&self) -> bool {
        matches!(self, DeliveryError::Store(e) if !e.is_transient())
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

/// Hands one reply to the postman and notes how it went: `None` when it
/// should go again later (the first such failure is kept in `retry`).
fn post(
    mail: &Outgoing,
    postman: &dyn Postman,
    report: &mut Report,
    retry: &mut Option<SendError>,
) -> Option<Delivery> {
    match postman.send(mail) {
        Ok(()) => {
            report.sent.push(mail.message_id.clone());
            Some(Delivery::Sent)
        }
        Err(e) if e.failure == Failure::Permanent => {
            report
                .refused
                .push((mail.to.address.clone(), e.message.clone()));
            Some(Delivery::Refused(e.message))
        }
        Err(e) => {
            retry.get_or_insert(e);
            None
        }
    }
}

/// What sending a ledger's pending replies did.
#[must_use = "the ledger must be saved when settled, and a retry reported"]
pub struct Flushed {
    /// Some reply went (or was refused for good): the ledger changed and
    /// its record should be saved.
    pub settled: bool,
    retry: Option<SendError>,
}

impl Flushed {
    /// # Errors
    /// The first transient send failure, so that the MTA tries again.
    pub fn finish(self) -> Result<(), DeliveryError> {
        match self.retry {
            Some(e) => Err(DeliveryError::Send(e)),
            None => Ok(()),
        }
    }
}

/// Sends every pending reply of `ledger` and settles those that went; the
/// caller saves the record once after (a crash before that save sends them
/// again next time, with the same Message-IDs: at-least-once, and a client
/// shows one). A transient failure leaves that reply pending, goes on with
/// the others, and is returned by [`Flushed::finish`].
pub fn flush(ledger: &mut Ledger, postman: &dyn Postman, report: &mut Report) -> Flushed {
    let pending: Vec<Outgoing> = ledger.pending().map(Outgoing::from_envelope).collect();
    let mut flushed = Flushed {
        settled: false,
        retry: None,
    };
    for mail in pending {
        if let Some(delivery) = post(&mail, postman, report, &mut flushed.retry) {
            ledger.settle(&mail.message_id, delivery);
            flushed.settled = true;
        }
    }
    flushed
}

/// Sends replies kept nowhere (a game that lives in its mails): each is
/// the same message on a retry, by its Message-ID.
///
/// # Errors
/// The first transient failure, after trying the rest.
pub fn send_all(
    mail: &[Outgoing],
    postman: &dyn Postman,
    report: &mut Report,
) -> Result<(), DeliveryError> {
    let mut retry = None;
    for out in mail {
        post(out, postman, report, &mut retry);
    }
    Flushed {
        settled: false,
        retry,
    }
    .finish()
}

/// A postman that keeps what it is given, and fails as told: for tests.
#[derive(Debug, Default)]
pub struct Stub {
    pub sent: RefCell<Vec<Outgoing>>,
    /// Sends to these addresses fail so.
    pub failing: RefCell<Vec<(String, Failure)>>,
}

impl Stub {
    pub fn fail(&self, address: &str, failure: Failure) {
        self.failing
            .borrow_mut()
            .push((address.to_string(), failure));
    }

    pub fn heal(&self) {
        self.failing.borrow_mut().clear();
    }

    /// Everything sent so far, and forgets it.
    pub fn take(&self) -> Vec<Outgoing> {
        std::mem::take(&mut self.sent.borrow_mut())
    }
}

impl Postman for Stub {
    fn send(&self, mail: &Outgoing) -> Result<(), SendError> {
        if let Some((_, failure)) = self
            .failing
            .borrow()
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(&mail.to.address))
        {
            return Err(SendError {
                failure: *failure,
                message: format!("stub: {} refused ({failure:?})", mail.to.address),
            });
        }
        self.sent.borrow_mut().push(mail.clone());
        Ok(())
    }
}
