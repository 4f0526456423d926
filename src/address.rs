//! An email address as one mailbox: the one normalisation that the mail
//! layer (is this mail from a player?), the store's index (games by
//! address) and the ratings (a player's row) must share. It stands apart
//! from both so that neither reaches into the other for it.

/// An address as one mailbox: lower case, without a `+` sub-address, its
/// domain in ASCII (`bücher.example` and `xn--bcher-kva.example` are one).
pub fn mailbox_key(address: &str) -> String {
    let address = address.trim().to_lowercase();
    match address.rsplit_once('@') {
        Some((local, domain)) => {
            let local = local.split('+').next().unwrap_or(local);
            format!("{local}@{}", ascii_domain(domain))
        }
        None => address,
    }
}

/// The address as every mail server takes it: its domain in ASCII (the
/// A-label, `bob@xn--bcher-kva.example`), the local part as written. A
/// server without SMTPUTF8 refuses a domain in Unicode.
pub fn with_ascii_domain(address: &str) -> String {
    match address.rsplit_once('@') {
        Some((local, domain)) => format!("{local}@{}", ascii_domain(domain)),
        None => address.to_string(),
    }
}

fn ascii_domain(domain: &str) -> String {
    idna::domain_to_ascii(domain).unwrap_or_else(|_| domain.to_string())
}

#[cfg(test)]
mod tests {
    use super::mailbox_key;

    #[test]
    fn every_spelling_that_reaches_one_mailbox_is_one_key() {
        for spelling in [
            "bob@players.example",
            " Bob@Players.Example ",
            "bob+chess@players.example",
            "BOB+Wari+2@PLAYERS.EXAMPLE",
        ] {
            assert_eq!(mailbox_key(spelling), "bob@players.example", "{spelling}");
        }
        assert_eq!(
            mailbox_key("anna@bücher.example"),
            mailbox_key("anna@xn--bcher-kva.example")
        );
        assert_ne!(
            mailbox_key("bob@players.example"),
            mailbox_key("bobby@players.example")
        );
        // Not an address: kept, lower case, so it never matches one.
        assert_eq!(mailbox_key("Nobody"), "nobody");
    }
}
