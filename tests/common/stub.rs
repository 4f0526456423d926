//! The test postman: keeps what it is given, and fails as told. Test code
//! only (the referee never sends through it); tests and benches include
//! this file by `#[path]`.

use std::cell::RefCell;

use mancala::mail::outgoing::Outgoing;
use mancala::mail::transport::{Failure, Postman, SendError};

#[derive(Debug, Default)]
pub struct Stub {
    pub sent: RefCell<Vec<Outgoing>>,
    /// Sends to these addresses fail so.
    pub failing: RefCell<Vec<(String, Failure)>>,
}

#[allow(dead_code)] // each test file uses a part of it
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
        // Every body a test sees: paragraphs parted by one blank line.
        assert!(
            !mail.body.contains("\n\n\n"),
            "two blank lines in\n{}",
            mail.body
        );
        // The referee's own prose fits 72 columns, indented notes and
        // list items too (quoted lines, the sheet's, its address lines
        // kept whole, and tables, whose columns are set off by two
        // spaces, aside); a single word may not.
        for line in mail.body.lines() {
            let sheet = line.starts_with("South: ") || line.starts_with("North: ");
            // A table's line: indented, its columns set off by two spaces
            // (prose sets off what to write so too, and is checked).
            let table = line.starts_with(' ') && line.trim_start().contains("  ");
            let own = !sheet && !table && !line.starts_with(['>', '|', '+']);
            assert!(
                !own || line.chars().count() <= 72 || !line.contains(' '),
                "a line over 72 columns in\n{}",
                mail.body
            );
        }
        self.sent.borrow_mut().push(mail.clone());
        Ok(())
    }
}
