//! The referee that keeps no games (`--no-store`): each game lives in its
//! mails, and the quoted sheet is checked by replaying its log. It decides
//! from a [`Letter`]; sending is [`delivery`](super::delivery)'s.

use super::command::Command;
use super::compose::{
    self, clean_name, game_line, is_placeholder, note, sheet_body, signature, Next,
};
use super::delivery::{self, DeliveryError};
use super::html_part::Drawn;
use super::incoming::Mailbox;
use super::letter::Letter;
use super::outgoing::{mailbox_of, Outgoing};
use super::play::{play_turn, read_request, Request, Writer};
use super::refusal::Refusal;
use super::transport::Postman;
use super::Identity;
use super::Report;
use crate::address::same_mailbox;
use crate::engine::Side;
use crate::sheet::{Player, RawSheet, Sheet};

/// What a referee decided about one mail.
#[derive(Clone, Debug)]
pub enum Decision {
    /// Never answer it; the reason is for the log.
    Ignore(String),
    /// Send these; the summary is for the log.
    Send {
        mail: Vec<Outgoing>,
        summary: String,
    },
}

/// The referee of games that live in their mails.
#[derive(Clone, Debug)]
pub struct SheetReferee {
    pub identity: Identity,
}

impl super::Referee for SheetReferee {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Decides, then sends.
    ///
    /// # Errors
    /// When a reply could not be sent and trying later may help.
    fn deliver(&self, letter: &Letter, postman: &dyn Postman) -> Result<Report, DeliveryError> {
        self.send(self.decide(letter), postman)
    }
}

impl SheetReferee {
    pub fn new(address: &str) -> SheetReferee {
        SheetReferee {
            identity: Identity::new(address),
        }
    }

    fn send(&self, decision: Decision, postman: &dyn Postman) -> Result<Report, DeliveryError> {
        match decision {
            Decision::Ignore(why) => Ok(Report::ignored(why)),
            Decision::Send { mail, summary } => {
                let mut report = Report {
                    summary,
                    ..Report::default()
                };
                delivery::send_all(&mail, postman, &mut report)?;
                Ok(report)
            }
        }
    }

    /// Reads one mail and decides what to send.
    pub fn decide(&self, letter: &Letter) -> Decision {
        let from = match letter.sender(&self.identity) {
            Ok(from) => from.clone(),
            Err(why) => return Decision::Ignore(why),
        };
        if let Some(limit) = letter.too_large {
            return self.refuse(letter, &from, &Refusal::TooLarge(limit), None);
        }
        let raw = match RawSheet::find(&letter.mail.text) {
            Ok(raw) => raw,
            Err(error) => return self.refuse(letter, &from, &Refusal::Sheet(error), None),
        };
        // The writer, when the sheet seats the sender's address.
        let side = Side::BOTH.into_iter().find(|&side| {
            (raw.players.get(side).address.as_deref())
                .is_some_and(|a| same_mailbox(a, &from.address))
        });
        let writer = side.map(|side| Writer { side, played: &[] });
        let request = match read_request(letter, &raw, writer) {
            Ok(request) => request,
            Err((Refusal::NoMove, sheet)) => {
                let refusal = without_move(letter, sheet.as_deref());
                return self.refuse(letter, &from, &refusal, sheet.as_deref());
            }
            Err((refusal, sheet)) => return self.refuse(letter, &from, &refusal, sheet.as_deref()),
        };
        self.play(letter, &from, request)
    }

    /// The Message-ID of the `n`th reply to `letter`: the same on a retry.
    fn message_id(&self, letter: &Letter, n: usize) -> String {
        format!("sheet.{}.{n}@{}", letter.identity.0, self.identity.domain())
    }

    fn play(&self, letter: &Letter, from: &Mailbox, request: Request) -> Decision {
        let Request {
            mut sheet,
            sowings,
            pasted,
        } = request;
        let Some(side) = sheet.game.to_move() else {
            return self.refuse(
                letter,
                from,
                &Refusal::GameOver { stored: false },
                Some(&sheet),
            );
        };
        if let Err(refusal) = self.take_seat(letter, from, &mut sheet, side) {
            return self.refuse(letter, from, &refusal, Some(&sheet));
        }
        let news = match play_turn(&mut sheet, side, &sowings) {
            Ok(news) => news,
            Err(refusal) => return self.refuse(letter, from, &refusal, Some(&sheet)),
        };
        let mover = sheet.name(side).to_string();
        // A pasted sheet: the player's words cannot be told from the paste.
        let comment: &[String] = if pasted { &[] } else { &letter.comment };
        // One mail to each address, headed with what is awaited of its reader.
        let readers = readers(&sheet);
        // One drawing of the sheet for every reader's mail.
        let drawn = Drawn::new(&sheet);
        let mail = readers
            .into_iter()
            .enumerate()
            .map(|(n, (m, reader))| {
                let mut first = game_line(&sheet, &compose::headline(&sheet, &news, reader));
                if sheet.game.is_over() {
                    first.push_str("\n\n");
                    first.push_str(note(&news).trim_end());
                }
                // No one else to mail: the mover hears it, not a silence.
                if let Some(other) = sheet
                    .players
                    .get(side.other())
                    .address
                    .is_none()
                    .then(|| sheet.name(side.other()))
                {
                    let alone = format!(
                        "{other} has no address in this game, so this mail went to you alone: \
                         forward it to them (their reply with a move gives the referee their address), or \
                         put their address in Cc next time."
                    );
                    first.push_str("\n\n");
                    first.push_str(note(&alone).trim_end());
                }
                let body = compose::sheet_body_drawn(
                    &first,
                    Some((&mover, comment)),
                    &drawn,
                    compose::next_for(&sheet, reader),
                ) + &signature();
                let subject = compose::subject_of(&body);
                Outgoing::reply(letter, self.message_id(letter, n), m, body)
                    .with_subject(subject)
                    .with_html_drawn(Some(&drawn))
            })
            .collect();
        Decision::Send {
            mail,
            summary: format!("{} {news}", sheet.game.rules().ruleset),
        }
    }

    /// Checks that `side`, to move, is the sender's seat: by its address,
    /// or, while it has none yet (a new game), by taking it.
    fn take_seat(
        &self,
        letter: &Letter,
        from: &Mailbox,
        sheet: &mut Sheet,
        side: Side,
    ) -> Result<(), Refusal> {
        let seat = sheet.players.get(side).clone();
        match &seat.address {
            Some(address) if !same_mailbox(address, &from.address) => Err(Refusal::NotYourMove {
                name: seat.name,
                side,
                from: from.address.clone(),
                address: address.clone(),
            }),
            Some(_) => Ok(()),
            // The other seat's player cannot take this one too.
            None if sheet
                .players
                .get(side.other())
                .address
                .as_deref()
                .is_some_and(|a| same_mailbox(a, &from.address)) =>
            {
                Err(Refusal::OtherSeat {
                    name: seat.name,
                    side,
                })
            }
            None => {
                seat_players(&self.identity, letter, from, sheet, side);
                Ok(())
            }
        }
    }

    /// The reply to a refused mail: to the sender alone, with what is wrong,
    /// what is legal, and the unchanged sheet.
    fn refuse(
        &self,
        letter: &Letter,
        from: &Mailbox,
        refusal: &Refusal,
        sheet: Option<&Sheet>,
    ) -> Decision {
        let mut body = format!(
            "{} your mail was read, but no move was played:\n\n",
            compose::REFEREE_LINE
        );
        body.push_str(&note(&refusal.to_string()));
        match sheet {
            Some(sheet) => body.push_str(&unchanged(sheet)),
            None => body.push_str(
                "\nReply to the referee's last mail, keeping its board and move log in the\n\
                 quoted text, and write your move on a line of its own:  move <pit>\n",
            ),
        }
        body.push_str(&signature());
        Decision::Send {
            mail: vec![
                Outgoing::reply(letter, self.message_id(letter, 0), from.clone(), body)
                    .with_html(sheet),
            ],
            summary: format!("refused {}: {refusal}", from.address),
        }
    }
}

/// Why a mail with no move is refused: the game is over, or the command
/// it holds is one this referee, which keeps no games, does not carry out.
fn without_move(letter: &Letter, sheet: Option<&Sheet>) -> Refusal {
    if sheet.is_some_and(|sheet| sheet.game.is_over()) {
        return Refusal::GameOver { stored: false };
    }
    let commands = letter.commands.as_deref().unwrap_or_default();
    commands
        .iter()
        .find(|c| !matches!(c, Command::Move(_)))
        .map_or(Refusal::NoMove, |command| {
            Refusal::KeepsNoGames(command.name())
        })
}

/// The sheet of a mail that played nothing, and the moves it awaits.
fn unchanged(sheet: &Sheet) -> String {
    "\n".to_string() + &sheet_body("The board is unchanged:", None, sheet, Next::Moves)
}

/// The addresses a move's mail goes to, once each, with the seat whose
/// view it takes: one address on both seats gets the mover's.
fn readers(sheet: &Sheet) -> Vec<(Mailbox, Side)> {
    let mut readers: Vec<(Mailbox, Side)> = Vec::new();
    for s in Side::BOTH {
        if let Some(m) = mailbox_of(sheet.players.get(s)) {
            match readers
                .iter_mut()
                .find(|(a, _)| same_mailbox(&a.address, &m.address))
            {
                Some(reader) if sheet.game.to_move() == Some(s) => reader.1 = s,
                Some(_) => {}
                None => readers.push((m, s)),
            }
        }
    }
    readers
}

/// A new game's seats, from its first mail: the writer at `side`, and at
/// the other side (unless the sheet gives it an address) the owner, else
/// the first other recipient. A seat keeps the name the sheet gives it,
/// but a placeholder (`Yourname`), and neither does when the other row
/// holds the writer's name: the names were written on the wrong rows.
pub fn seat_players(
    referee: &Identity,
    letter: &Letter,
    from: &Mailbox,
    sheet: &mut Sheet,
    side: Side,
) {
    // The writer's name, or its first word (Bill Taylor writes "Bill").
    let writer = clean_name(&from.short_name());
    let first = writer.split_whitespace().next().unwrap_or("");
    let other = sheet.players.get(side.other());
    let swapped = other.address.is_none()
        && [writer.as_str(), first]
            .iter()
            .any(|w| other.name.trim().eq_ignore_ascii_case(w));
    seat_mailbox(sheet.players.get_mut(side), from, swapped);
    if sheet.players.get(side.other()).address.is_some() {
        return;
    }
    let owner = referee
        .owner_mailbox()
        .filter(|owner| !same_mailbox(&owner.address, &from.address));
    let opponent = owner.or_else(|| {
        letter
            .mail
            .recipients
            .iter()
            .find(|m| !referee.is_own(&m.address) && !same_mailbox(&m.address, &from.address))
            .cloned()
    });
    if let Some(opponent) = opponent {
        seat_mailbox(sheet.players.get_mut(side.other()), &opponent, swapped);
    }
}

/// A seat taken by a mailbox the mail names: under the sheet's name, or
/// the mail's when that is a placeholder or not theirs (`renamed`).
fn seat_mailbox(player: &mut Player, mailbox: &Mailbox, renamed: bool) {
    player.address = Some(mailbox.address.clone());
    let name = match renamed || is_placeholder(&player.name) {
        true => mailbox.short_name(),
        false => player.name.clone(),
    };
    // A name written on the sheet is kept to the length a mail's is.
    player.name = clean_name(&name);
}
