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

/// Do `a` and `b` reach one mailbox? The one comparison of two addresses:
/// a seat, a sender's record and the self-invitation check all ask it.
pub fn same_mailbox(a: &str, b: &str) -> bool {
    mailbox_key(a) == mailbox_key(b)
}

/// Local parts that name a role, not a person (RFC 2142's mailboxes, the
/// system's own, and the no-reply kind): nobody there asked to play.
pub const ROLES: [&str; 13] = [
    "abuse",
    "daemon",
    "do-not-reply",
    "donotreply",
    "hostmaster",
    "mailer-daemon",
    "no-reply",
    "nobody",
    "noreply",
    "postmaster",
    "root",
    "security",
    "webmaster",
];

/// Why an address is no player's own, if it is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAPerson {
    /// A role's mailbox ([`ROLES`]).
    Role,
    /// A domain only this machine knows: no dot (`root@localhost`,
    /// `bob@intranet`), `localhost` or `*.localhost`, or an address
    /// literal (`[127.0.0.1]`).
    LocalOnly,
}

/// Is `address` a person's mailbox reachable from outside? A local-only
/// address is one when `home` (the referee's own address) is local-only
/// too: a referee for the users of one machine invites them.
pub fn not_a_person(address: &str, home: &str) -> Option<NotAPerson> {
    let key = mailbox_key(address);
    let (local, domain) = key.rsplit_once('@').unwrap_or(("", &key));
    if ROLES.contains(&local) {
        return Some(NotAPerson::Role);
    }
    let local_only = |domain: &str| {
        domain.starts_with('[')
            || !domain.trim_end_matches('.').contains('.')
            || domain.trim_end_matches('.').ends_with(".localhost")
    };
    let home = mailbox_key(home);
    let home_domain = home.rsplit_once('@').map_or("", |(_, d)| d);
    (local_only(domain) && !local_only(home_domain)).then_some(NotAPerson::LocalOnly)
}

fn ascii_domain(domain: &str) -> String {
    idna::domain_to_ascii(domain).unwrap_or_else(|_| domain.to_string())
}

#[cfg(test)]
mod tests {
    use super::{mailbox_key, not_a_person, same_mailbox, NotAPerson};

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

    #[test]
    fn roles_and_local_only_domains_are_no_persons_address() {
        let home = "referee@referee.example";
        for (address, expected) in [
            ("bob@players.example", None),
            ("root@players.example", Some(NotAPerson::Role)),
            ("Postmaster+x@Players.Example", Some(NotAPerson::Role)),
            ("MAILER-DAEMON@players.example", Some(NotAPerson::Role)),
            ("no-reply@shop.example", Some(NotAPerson::Role)),
            ("bob@localhost", Some(NotAPerson::LocalOnly)),
            ("bob@intranet", Some(NotAPerson::LocalOnly)),
            ("bob@mail.localhost", Some(NotAPerson::LocalOnly)),
            ("bob@[127.0.0.1]", Some(NotAPerson::LocalOnly)),
            ("bob@players.example.", None),
        ] {
            assert_eq!(not_a_person(address, home), expected, "{address}");
        }
        // A referee of one machine's users invites them; never its roles.
        assert_eq!(not_a_person("bob@localhost", "referee@localhost"), None);
        assert_eq!(
            not_a_person("root@localhost", "referee@localhost"),
            Some(NotAPerson::Role)
        );
        assert!(same_mailbox("Sam+2@Players.example", "sam@players.example"));
        assert!(!same_mailbox("sam@players.example", "sam@other.example"));
    }
}
