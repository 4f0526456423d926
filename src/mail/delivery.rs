//! Sending what a referee decided, exactly as decided. Replies owed in the
//! store are sent one by one, each recorded as sent (or refused for good)
//! before the next, so a crash or a 451 resends only what did not go,
//! under the same Message-ID.

use super::outgoing::Outgoing;
use super::transport::{Failure, Postman, SendError};
use super::Report;
use crate::store::{Delivery, Ledgered, MailKey, Owed, Store, StoreError};

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

/// A record (a game, or a keyless sender) in the store's transaction
/// under way ([`Store::transact`]): whether a mail was handled before, and
/// the decision committed with the replies it owes. The replies are sent
/// once the transaction commits ([`send_owed`]); a crash anywhere leaves
/// the old state or the new one with its replies owed, and the next
/// delivery of the mail (or the next `remind`) sends what did not go,
/// under the same Message-IDs.
pub struct Transaction<'s, R: Ledgered> {
    store: &'s Store,
    pub record: R,
}

impl<'s, R: Ledgered> Transaction<'s, R> {
    pub fn new(store: &'s Store, record: R) -> Transaction<'s, R> {
        Transaction { store, record }
    }

    /// The number of the event this transaction's decision makes: its
    /// replies' Message-IDs are derived from it.
    pub fn event(&self) -> u32 {
        self.record.events() + 1
    }

    /// Was `mail` handled before? (What it owes and did not go is sent
    /// once the transaction ends, as every mail's.)
    pub fn handled_before(&self, mail: &MailKey, report: &mut Report) -> Result<bool, StoreError> {
        if !self.store.has_handled(&self.record.scope(), mail)? {
            return Ok(false);
        }
        report.summary = "mail handled before; sending what did not go".into();
        Ok(true)
    }

    /// The decision: `mail` handled as the next event, owing `replies`,
    /// with the record's new state.
    ///
    /// # Errors
    /// The store's: then nothing is done, and a retry decides again.
    pub fn commit(&mut self, mail: &MailKey, replies: Vec<Outgoing>) -> Result<(), StoreError> {
        self.commit_for(mail, mail, replies)
    }

    /// [`Transaction::commit`], the replies sent with those of `cause`
    /// (the clock's events, `remind`'s).
    ///
    /// # Errors
    /// As [`Transaction::commit`].
    pub fn commit_for(
        &mut self,
        mail: &MailKey,
        cause: &MailKey,
        replies: Vec<Outgoing>,
    ) -> Result<(), StoreError> {
        self.store
            .commit_event(&mut self.record, mail, cause, replies)
            .map(drop)
    }

    /// Saves a change that answers no mail of its own (a sender's count,
    /// beside a game's decision).
    pub fn save(&self) -> Result<(), StoreError> {
        self.record.save(self.store)
    }
}

/// Sends every reply owed that `which` names, each settled in the store
/// as it goes (sent, or refused for good). A transient failure leaves that
/// reply owed and goes on with the others. On PostgreSQL each is sent
/// under its row's lock, so two referees handed the same mail send it once.
///
/// # Errors
/// The first transient send failure, so that the MTA tries again; or the
/// store's, when what went cannot be noted.
pub fn send_owed(
    store: &Store,
    which: Owed,
    postman: &dyn Postman,
    report: &mut Report,
) -> Result<(), DeliveryError> {
    let mut retry = None;
    for mail in store.owed(which)? {
        store.sending(&mail.message_id, || {
            post(&mail, postman, report, &mut retry)
        })?;
    }
    retry.map_or(Ok(()), |e| Err(DeliveryError::Send(e)))
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
