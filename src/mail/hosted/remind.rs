//! The clock: nudge the player to move after a while, forfeit them after
//! longer. Only games both players accepted; each game is its own
//! transaction, and a notice that failed to go goes with the next run.

use super::{corrupt, HostedReferee, Scene};
use crate::hosted::HostedGame;
use crate::mail::delivery::{DeliveryError, Postman, Report, Transaction};
use crate::store::MailKey;

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

impl HostedReferee {
    /// Nudges the player to move in every game idle for `nudge` seconds
    /// (once until they move), and forfeits those idle for `forfeit`.
    /// Returns what was done, and the games that could not be handled
    /// (each reported, none skipped in silence).
    pub fn remind(
        &self,
        now: u64,
        nudge: u64,
        forfeit: u64,
        postman: &dyn Postman,
    ) -> Result<(Vec<Reminder>, Vec<DeliveryError>), DeliveryError> {
        let secrets = self.store.secrets()?;
        // Only the games the index says may be due: none read otherwise.
        let due = self.store.due(now, nudge, forfeit)?;
        let mut problems = Vec::new();
        let mut done = Vec::new();
        for id in &due.games {
            if let Err(e) = self.remind_game(&secrets, id, now, nudge, forfeit, postman, &mut done)
            {
                problems.push(e);
            }
        }
        Ok((done, problems))
    }

    /// One game's reminders, each noted in `done` once decided and saved.
    #[allow(clippy::too_many_arguments)]
    fn remind_game(
        &self,
        secrets: &crate::store::Secrets,
        id: &crate::store::GameId,
        now: u64,
        nudge: u64,
        forfeit: u64,
        postman: &dyn Postman,
        done: &mut Vec<Reminder>,
    ) -> Result<(), DeliveryError> {
        let (lock, record) = self.lock_game(id)?;
        let Some(record) = record else {
            return Ok(());
        };
        let hosted = HostedGame::new(record).map_err(|e| corrupt(&self.store, id, e))?;
        let mut game = Transaction::new(&self.store, lock, hosted);
        let mut report = Report::default();
        if game.record.record().ledger.pending().next().is_some() {
            game.send(postman, &mut report)?;
            done.push(Reminder::Resent {
                game: id.to_string(),
                mails: report.sent.len(),
            });
        }
        let record = game.record.record();
        if !record.is_playing() || !record.inviter_confirmed {
            // Never a word to someone who has not accepted, nor to an inviter
            // who never showed their key (their From may have been forged).
            return Ok(());
        }
        let Some(side) = game.record.game().to_move() else {
            return Ok(());
        };
        if record.computer == Some(side) || record.player(side).address.is_none() {
            return Ok(());
        }
        let idle = now.saturating_sub(record.last_activity);
        let days = idle / 86_400;
        let name = record.player(side).name.clone();
        let (reminded, event) = (record.reminded, game.event());
        let scene = Scene {
            referee: self,
            secrets,
            game: &mut game.record,
            id: id.clone(),
            event,
            letter: None,
            notes: Default::default(),
            questions: Vec::new(),
        };
        let (what, mails) = if idle >= forfeit {
            scene.game.forfeit(side, now);
            let news = format!("{name} has not moved for {days} days, and so forfeits the game.");
            let what = Reminder::Forfeited {
                game: id.to_string(),
                player: name,
            };
            (what, scene.both(|_| news.clone(), None))
        } else if idle >= nudge && reminded.is_none() {
            scene.game.reminded(now);
            let news = format!("a reminder: it has been your move for {days} days.");
            let what = Reminder::Nudged {
                game: id.to_string(),
                player: name,
            };
            (
                what,
                scene.board(side, &news, None, None).into_iter().collect(),
            )
        } else {
            return Ok(());
        };
        let key = MailKey(format!("remind-{}", scene.event));
        game.commit(key, mails)?;
        done.push(what);
        game.send(postman, &mut report)
    }
}
