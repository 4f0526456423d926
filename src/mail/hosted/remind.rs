//! The clock: nudge the player to move after a while, forfeit them after
//! longer. Only games both players accepted; each game is its own
//! transaction, and a notice that failed to go goes with the next run.

use super::{corrupt, HostedReferee, Scene};
use crate::engine::Side;
use crate::hosted::HostedGame;
use crate::mail::delivery::{send_owed, DeliveryError, Transaction};
use crate::mail::transport::Postman;
use crate::mail::Report;
use crate::store::{MailKey, Owed};

/// What `remind` did to one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reminder {
    Nudged {
        game: String,
        player: String,
    },
    Forfeited {
        game: String,
        player: String,
    },
    /// Notices whose sending failed before, sent now.
    Resent {
        game: String,
        mails: usize,
    },
}

/// For the log: the game first, as every line of the referee's.
impl std::fmt::Display for Reminder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reminder::Nudged { game, player } => write!(f, "{game} reminded {player} to move"),
            Reminder::Forfeited { game, player } => {
                write!(f, "{game} {player} forfeits: no move in time")
            }
            Reminder::Resent { game, mails } => {
                write!(f, "{game} sent {mails} notice(s) that had failed to go")
            }
        }
    }
}

/// Why `remind` left a game that the index said might be due alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// An invitation not yet accepted, or a game over (or gone).
    NotPlaying,
    /// The inviter never showed their key: their From may have been forged.
    InviterUnconfirmed,
    /// The computer is to move, or a player with no address.
    NoOneToRemind,
    /// Not idle long enough, or reminded already and not yet to forfeit.
    NotDue,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Skip::NotPlaying => "not being played",
            Skip::InviterUnconfirmed => "inviter never keyed",
            Skip::NoOneToRemind => "no one to remind",
            Skip::NotDue => "not due",
        })
    }
}

/// What one run of `remind` did.
#[derive(Debug, Default)]
pub struct Reminders {
    pub done: Vec<Reminder>,
    /// The games looked at and left alone, and why.
    pub skipped: Vec<Skip>,
    /// The games that could not be handled (each reported, none in silence).
    pub problems: Vec<DeliveryError>,
}

impl HostedReferee {
    /// Nudges the player to move in every game idle for `nudge` seconds
    /// (once until they move), and forfeits those idle for `forfeit`.
    /// Returns what was done, the games left alone, and those that could
    /// not be handled (each reported, none skipped in silence).
    pub fn remind(
        &self,
        now: u64,
        nudge: u64,
        forfeit: u64,
        postman: &dyn Postman,
    ) -> Result<Reminders, DeliveryError> {
        let secrets = self.store.secrets();
        // Only the games that may be due: none read otherwise.
        let due = self.store.due(now, nudge, forfeit)?;
        let mut run = Reminders::default();
        for id in &due {
            let mut report = Report::default();
            let mut sent = || -> Result<Option<Skip>, DeliveryError> {
                // What a crash or a failed send left owed goes first.
                send_owed(&self.store, Owed::Of(id.as_str()), postman, &mut report)?;
                if !report.sent.is_empty() {
                    run.done.push(Reminder::Resent {
                        game: id.to_string(),
                        mails: report.sent.len(),
                    });
                }
                let decided = self
                    .store
                    .transact(|| self.remind_game(secrets, id, now, nudge, forfeit))?;
                let what = match decided {
                    Ok(what) => what,
                    Err(skip) => return Ok(Some(skip)),
                };
                run.done.push(what);
                send_owed(
                    &self.store,
                    Owed::Of(id.as_str()),
                    postman,
                    &mut Report::default(),
                )?;
                Ok(None)
            };
            match sent() {
                Ok(Some(skip)) => run.skipped.push(skip),
                Ok(None) => {}
                Err(e) => run.problems.push(e),
            }
        }
        Ok(run)
    }

    /// One game's reminder or forfeit, decided and saved with the mails it
    /// owes; why it was left alone, if it was.
    fn remind_game(
        &self,
        secrets: &crate::store::Secrets,
        id: &crate::store::GameId,
        now: u64,
        nudge: u64,
        forfeit: u64,
    ) -> Result<Result<Reminder, Skip>, DeliveryError> {
        let Some(record) = self.store.load_game(id)? else {
            return Ok(Err(Skip::NotPlaying)); // only replies owed
        };
        let hosted = HostedGame::new(record).map_err(|e| corrupt(&self.store, id, e))?;
        let mut game = Transaction::new(&self.store, hosted);
        let side = match side_to_remind(&game.record) {
            Ok(side) => side,
            Err(skip) => return Ok(Err(skip)),
        };
        let record = game.record.record();
        let idle = now.saturating_sub(record.last_activity);
        let deadline = record.last_activity.saturating_add(forfeit);
        let name = record.player(side).name.clone();
        let reminded = record.reminded;
        let scene = Scene::new(self, secrets, id, &mut game, None);
        let (what, mails) = if idle >= forfeit {
            scene.game.forfeit(side, now);
            let news = format!(
                "{name} has not moved for {}, and so forfeits the game.",
                span(idle)
            );
            let what = Reminder::Forfeited {
                game: id.to_string(),
                player: name,
            };
            (what, scene.both(|_| news.clone(), None))
        } else if idle >= nudge && reminded.is_none() {
            scene.game.reminded(now);
            // The deadline first: a subject cut short still shows it.
            let news = format!(
                "move by {}, or you forfeit the game (a reminder: it has been your move for {}).",
                when(deadline),
                span(idle)
            );
            let what = Reminder::Nudged {
                game: id.to_string(),
                player: name,
            };
            (what, scene.board(side, &news, None).into_iter().collect())
        } else {
            return Ok(Err(Skip::NotDue));
        };
        let key = MailKey(format!("remind-{}", scene.event));
        game.commit(&key, mails)?;
        Ok(Ok(what))
    }
}

/// The side a reminder would go to, or why the game gets none: never a
/// word to someone who has not accepted, nor to an inviter who never
/// showed their key (their From may have been forged).
fn side_to_remind(game: &HostedGame) -> Result<Side, Skip> {
    let record = game.record();
    if !record.is_playing() {
        return Err(Skip::NotPlaying);
    }
    if !record.inviter_confirmed {
        return Err(Skip::InviterUnconfirmed);
    }
    let side = game.game().to_move().ok_or(Skip::NotPlaying)?;
    if record.computer == Some(side) || record.player(side).address.is_none() {
        return Err(Skip::NoOneToRemind);
    }
    Ok(side)
}

/// A time idle in words: `8 days`, `a day`, `36 hours`, `90 minutes`,
/// `less than an hour` (never "1 minutes", nor a word that changes while
/// the same reminder is decided again a minute on).
fn span(seconds: u64) -> String {
    match (seconds / 86_400, seconds / 3600) {
        (1, _) => "a day".to_string(),
        (days, _) if days > 1 => format!("{days} days"),
        (_, hours) if hours > 1 => format!("{hours} hours"),
        (_, 0) => "less than an hour".to_string(),
        _ => format!("{} minutes", seconds / 60),
    }
}

/// A moment for a player: `2026-12-21 at 09:05 UTC`.
fn when(seconds: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    let stamp = crate::mail::transport::timestamp(time); // 2026-12-21T09:05:00Z
    let (date, time) = stamp.split_once('T').unwrap_or((&stamp, ""));
    format!("{date} at {} UTC", time.get(..5).unwrap_or(time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_words() {
        assert_eq!(span(8 * 86_400 + 5), "8 days");
        assert_eq!(span(86_400 + 3600), "a day");
        assert_eq!(span(36 * 3600 - 1), "a day");
        assert_eq!(span(23 * 3600), "23 hours");
        assert_eq!(span(90 * 60), "90 minutes");
        assert_eq!(span(61), "less than an hour");
        assert_eq!(when(1_796_029_500), "2026-11-30 at 09:05 UTC");
    }
}
