//! The referee that keeps no games (`--no-store`): each game lives in its
//! mails, and the quoted sheet is checked by replaying its log. It decides
//! from a [`Letter`]; sending is [`delivery`](super::delivery)'s.

use super::compose::{
    self, clean_name, game_line, is_placeholder, mailbox_of, note, sheet_body, signature, Next,
    Outgoing,
};
use super::delivery::{self, DeliveryError, Postman, Report};
use super::incoming::Mailbox;
use super::letter::Letter;
use super::play::{play_turn, read_request, Request};
use super::refusal::Refusal;
use super::Identity;
use crate::engine::Side;
use crate::sheet::{RawSheet, Sheet};

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

    /// The answer to a mail over the size limit, read only in part.
    ///
    /// # Errors
    /// As [`Referee::deliver`](super::Referee::deliver).
    fn deliver_too_large(
        &self,
        letter: &Letter,
        limit: usize,
        postman: &dyn Postman,
    ) -> Result<Report, DeliveryError> {
        let decision = match letter.sender(&self.identity) {
            Err(why) => Decision::Ignore(why),
            Ok(from) => self.refuse(letter, from, &Refusal::TooLarge(limit), None),
        };
        self.send(decision, postman)
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
        let raw = match RawSheet::find(&letter.text) {
            Ok(raw) => raw,
            Err(error) => return self.refuse(letter, &from, &Refusal::Sheet(error), None),
        };
        let request = match read_request(letter, &raw) {
            Ok(request) => request,
            Err((refusal, sheet)) => return self.refuse(letter, &from, &refusal, sheet.as_deref()),
        };
        self.play(letter, &from, request)
    }

    /// On an owner's mailbox (`mail --owner ... --filter`): the mail the
    /// owner's inbox should get. Mail about no game of the owner's comes
    /// back byte for byte; a move is refereed, the player answered through
    /// `postman`, and the owner's copy (the new board) returned instead.
    ///
    /// # Errors
    /// When a reply to the player could not be sent and a later try may help.
    pub fn filter(
        &self,
        letter: &Letter,
        raw: &[u8],
        postman: &dyn Postman,
    ) -> Result<Vec<u8>, DeliveryError> {
        let Some(owner) = self.identity.owner_mailbox() else {
            return Ok(raw.to_vec());
        };
        let about_a_game = RawSheet::find(&letter.text).is_ok() || !letter.move_lines.is_empty();
        if letter.never_answer(&self.identity).is_some() || !about_a_game {
            return Ok(raw.to_vec());
        }
        let mail = match self.decide(letter) {
            Decision::Ignore(_) => return Ok(raw.to_vec()),
            Decision::Send { mail, .. } => mail,
        };
        let is_owner = |m: &Outgoing| m.to.address.eq_ignore_ascii_case(&owner.address);
        let (to_owner, to_others): (Vec<Outgoing>, Vec<Outgoing>) =
            mail.into_iter().partition(is_owner);
        let mut report = Report::default();
        delivery::send_all(&to_others, postman, &mut report)?;
        match to_owner.first() {
            // The owner's copy, with the owner's own address to reply to.
            Some(copy) => {
                let copy = copy.clone().with_reply_to(Some(owner.address.clone()));
                let message =
                    super::transport::build(&self.identity, &copy, std::time::SystemTime::now())
                        .map_err(DeliveryError::Send)?;
                Ok(String::from_utf8_lossy(&message.formatted())
                    .replace("\r\n", "\n")
                    .into_bytes())
            }
            // A player's move refused: they are told; the owner reads their mail.
            None => Ok(raw.to_vec()),
        }
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
            return self.refuse(letter, from, &Refusal::GameOver, Some(&sheet));
        };
        // The seat to move is the sender's: by its address, or, while it has
        // none yet (a new game), by taking it.
        let seat = sheet.players.get(side).clone();
        match &seat.address {
            Some(address) if !address.eq_ignore_ascii_case(&from.address) => {
                let refusal = Refusal::NotYourMove {
                    name: seat.name.clone(),
                    side,
                    from: from.address.clone(),
                    address: address.clone(),
                };
                return self.refuse(letter, from, &refusal, Some(&sheet));
            }
            Some(_) => {}
            None => {
                let player = sheet.players.get_mut(side);
                player.address = Some(from.address.clone());
                if is_placeholder(&player.name) {
                    player.name = clean_name(&from.short_name());
                }
                seat_opponent(&self.identity, letter, from, &mut sheet, side);
            }
        }
        let news = match play_turn(&mut sheet, side, &sowings) {
            Ok(news) => news,
            Err(refusal) => return self.refuse(letter, from, &refusal, Some(&sheet)),
        };
        let mover = sheet.name(side).to_string();
        // A pasted sheet: the player's words cannot be told from the paste.
        let comment: &[String] = if pasted { &[] } else { &letter.comment };
        // One mail to each address, headed with what is awaited of its reader.
        let mut readers: Vec<(Mailbox, Side)> = Vec::new();
        for s in Side::BOTH {
            if let Some(m) = mailbox_of(sheet.players.get(s)) {
                match readers
                    .iter_mut()
                    .find(|(a, _)| a.address.eq_ignore_ascii_case(&m.address))
                {
                    // One address on both seats: the mail is the mover's.
                    Some(reader) if sheet.game.to_move() == Some(s) => reader.1 = s,
                    Some(_) => {}
                    None => readers.push((m, s)),
                }
            }
        }
        // One drawing of the sheet for every reader's mail.
        let drawn = compose::Drawn::new(&sheet);
        let mail = readers
            .into_iter()
            .enumerate()
            .map(|(n, (m, reader))| {
                let mut first = game_line(&sheet, &compose::headline(&sheet, &news, reader));
                if sheet.game.is_over() {
                    first.push_str("\n\n");
                    first.push_str(note(&news).trim_end());
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
            Some(sheet) => {
                body.push('\n');
                body.push_str(&sheet_body(
                    "The board is unchanged:",
                    None,
                    sheet,
                    Next::Moves,
                ));
            }
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

/// A new game's other seat: the other address in To/Cc, not the referee's
/// own nor the sender's; on an owner's mailbox, the owner.
pub fn seat_opponent(
    referee: &Identity,
    letter: &Letter,
    from: &Mailbox,
    sheet: &mut Sheet,
    side: Side,
) {
    let other = sheet.players.get_mut(side.other());
    if other.address.is_some() {
        return;
    }
    let owner = referee
        .owner_mailbox()
        .filter(|owner| !owner.address.eq_ignore_ascii_case(&from.address));
    let opponent = owner.or_else(|| {
        letter
            .recipients
            .iter()
            .find(|m| !referee.is_own(&m.address) && !m.address.eq_ignore_ascii_case(&from.address))
            .cloned()
    });
    if let Some(opponent) = opponent {
        other.address = Some(opponent.address.clone());
        if is_placeholder(&other.name) {
            other.name = clean_name(&opponent.short_name());
        }
    }
}
