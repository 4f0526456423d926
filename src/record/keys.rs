//! The store's secret and what derives from it: each player's key for a
//! game, a game's id from the mail that started it, and the digest an
//! address is filed under.

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use super::{GameId, MailKey, ID_LENGTH};
use crate::address::mailbox_key;
use crate::engine::Side;

/// The players' keys: each player of each game has one, derived from the
/// store's secret, that only the referee's mails to that player carry.
pub struct Secrets {
    key: hmac::Key,
}

/// Hex digits of a player's key.
const TOKEN_LENGTH: usize = 12;

impl Secrets {
    /// The secret written as `text` (64 hex digits when made here); `None`
    /// when too short to be one.
    pub fn new(text: &str) -> Option<Secrets> {
        (text.trim().len() >= 32).then(|| Secrets {
            key: hmac::Key::new(hmac::HMAC_SHA256, text.trim().as_bytes()),
        })
    }
}

/// A new secret: 32 random bytes, in hex.
/// `None` when the system has no random numbers to give.
pub fn fresh_secret() -> Option<String> {
    let mut fresh = [0u8; 32];
    SystemRandom::new().fill(&mut fresh).ok()?;
    Some(hex(&fresh))
}

impl Secrets {
    fn sign(&self, text: &str) -> hmac::Tag {
        hmac::sign(&self.key, text.as_bytes())
    }

    /// The key of `side` in game `id`: `id-` and 12 hex digits of an HMAC.
    pub fn token(&self, id: &GameId, side: Side) -> String {
        let tag = self.sign(&format!("{id}:{}", side.as_str()));
        format!("{id}-{}", hex(&tag.as_ref()[..TOKEN_LENGTH / 2]))
    }

    /// Whose key `token` is, if it is one: the game and the side.
    pub fn check(&self, token: &str) -> Option<(GameId, Side)> {
        let (id, _) = token.split_once('-')?;
        let id = GameId::parse(id)?;
        Side::BOTH.into_iter().find_map(|side| {
            constant_time_eq(self.token(&id, side).as_bytes(), token.as_bytes())
                .then(|| (id.clone(), side))
        })
    }

    /// The id of the game the mail `mail` starts, on the `attempt`th try
    /// (the next one when an earlier id is some other mail's game). The
    /// same mail delivered again finds the same game.
    pub fn game_id(&self, mail: &MailKey, attempt: u32) -> GameId {
        GameId::from_bytes(&self.sign(&format!("game:{}:{attempt}", mail.0)).as_ref()[..ID_LENGTH])
    }

    /// The name an address is filed under: keyed, so the folder names no one.
    /// `bob+1@x` and `Bob@X` are filed as `bob@x`: a limit per address
    /// holds for every spelling that reaches the same mailbox.
    pub fn address_digest(&self, address: &str) -> String {
        let tag = self.sign(&format!("address:{}", mailbox_key(address)));
        hex(&tag.as_ref()[..12])
    }
}

/// Lower-case hex, two digits a byte.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares without stopping at the first difference, so the time taken
/// tells a forger nothing.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::{hmac, GameId, Secrets, Side};

    #[test]
    fn a_key_is_the_id_and_the_first_twelve_hex_digits_of_its_hmac() {
        // Computed apart (Python's hmac): every key ever mailed depends on it.
        let secrets = Secrets {
            key: hmac::Key::new(hmac::HMAC_SHA256, b"0123456789abcdef0123456789abcdef"),
        };
        let id = GameId::parse("abcdef").unwrap();
        assert_eq!(secrets.token(&id, Side::South), "abcdef-b1428b5d5a78");
        assert_eq!(secrets.token(&id, Side::North), "abcdef-568e86215374");
        assert_eq!(
            secrets.check("abcdef-568e86215374"),
            Some((id, Side::North))
        );
    }
}
