//! Sending what a referee decided, exactly as decided. Replies kept in a
//! [`Ledger`] are sent one by one, each recorded as sent (or refused for
//! good) in the store before the next, so a crash or a 451 resends only
//! what did not go, under the same Message-ID.

use std::cell::RefCell;

use super::outgoing::Outgoing;
use crate::store::{Delivery, Ledgered, Lock, MailKey, Store, StoreError};

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

/// One mail's transaction on one record (a game, or a keyless sender),
/// the same on every path: lock, load, handled before?, decide, commit the
/// new state with its replies in one durable write, send each reply, save
/// once with what went. A crash anywhere leaves the old state or the new
/// one with its replies owed, and the next delivery of the mail (or the
/// next `remind`) sends what did not go, under the same Message-IDs.
pub struct Transaction<'s, R: Ledgered> {
    store: &'s Store,
    _lock: Lock,
    pub record: R,
}

impl<'s, R: Ledgered> Transaction<'s, R> {
    /// The transaction on `record`, read under `lock`.
    pub fn new(store: &'s Store, lock: Lock, record: R) -> Transaction<'s, R> {
        Transaction {
            store,
            _lock: lock,
            record,
        }
    }

    /// The number of the event this transaction's decision makes: its
    /// replies' Message-IDs are derived from it.
    pub fn event(&self) -> u32 {
        self.record.ledger().next_event()
    }

    /// Was `mail` handled before? Then what it owed and did not go is sent
    /// now, and the report says so.
    ///
    /// # Errors
    /// As [`Transaction::send`].
    pub fn handled_before(
        &mut self,
        mail: &MailKey,
        postman: &dyn Postman,
        report: &mut Report,
    ) -> Result<bool, DeliveryError> {
        if !self.record.ledger().has_handled(mail) {
            return Ok(false);
        }
        report.summary = "mail handled before; sending what did not go".into();
        self.send(postman, report)?;
        Ok(true)
    }

    /// The decision made durable: `mail` handled as the next event, owing
    /// `replies`, saved with the state in one write.
    ///
    /// # Errors
    /// When the write fails: nothing is done, and a retry decides again.
    pub fn commit(&mut self, mail: MailKey, replies: Vec<Outgoing>) -> Result<(), StoreError> {
        self.record
            .ledger_mut()
            .record(mail, replies, crate::store::now(), R::MEMORY);
        self.record.save(self.store, true)
    }

    /// Sends every reply the record owes, each settled as it goes (sent, or
    /// refused for good), then saves the record once with what went (a
    /// crash before that save sends them again, with the same Message-IDs:
    /// a mail client shows one). A transient failure leaves that reply
    /// owed and goes on with the others.
    ///
    /// # Errors
    /// The first transient send failure, so that the MTA tries again; or
    /// the store's, when what went cannot be noted.
    pub fn send(
        &mut self,
        postman: &dyn Postman,
        report: &mut Report,
    ) -> Result<(), DeliveryError> {
        let ledger = self.record.ledger_mut();
        let pending: Vec<Outgoing> = ledger.pending().cloned().collect();
        let mut retry = None;
        let mut settled = false;
        for mail in pending {
            if let Some(delivery) = post(&mail, postman, report, &mut retry) {
                ledger.settle(&mail.message_id, delivery);
                settled = true;
            }
        }
        if settled {
            self.record.save(self.store, false)?;
        }
        retry.map_or(Ok(()), |e| Err(DeliveryError::Send(e)))
    }

    /// Saves a change that answers no mail of its own (a sender's count,
    /// kept beside a game's transaction), durably.
    ///
    /// # Errors
    /// When the write fails; the old file is then untouched.
    pub fn save(&self) -> Result<(), StoreError> {
        self.record.save(self.store, true)
    }

    /// [`Transaction::commit`], then [`Transaction::send`].
    ///
    /// # Errors
    /// As those.
    pub fn finish(
        mut self,
        mail: MailKey,
        replies: Vec<Outgoing>,
        postman: &dyn Postman,
        report: &mut Report,
    ) -> Result<(), DeliveryError> {
        self.commit(mail, replies)?;
        self.send(postman, report)
    }
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
    retry.map_or(Ok(()), |e| Err(DeliveryError::Send(e)))
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
