//! New games: `new RULESET with ADDRESS`, or a start sheet with its first
//! move and the opponent in Cc. A person is sent one invitation and the
//! game starts when they accept; the computer starts at once. The game's
//! id derives from the mail that asked for it, so a retry finds the game
//! its first delivery made, however far that delivery got.

use std::fmt::Write as _;

use super::{Decision, Did, HostedReferee, Scene};
use crate::address::{not_a_person, same_mailbox};
use crate::engine::Side;
use crate::hosted::{Event, GameRefusal, HostedGame};
use crate::mail::command::{Command, Opponent};
use crate::mail::compose::{clean_name, game_line, sheet_body, Next};
use crate::mail::delivery::{DeliveryError, Transaction};
use crate::mail::incoming::Mailbox;
use crate::mail::letter::Letter;
use crate::mail::outgoing::Outgoing;
use crate::mail::play::{line_move, Quoted};
use crate::mail::refusal::Refusal;
use crate::mail::Report;
use crate::sheet::{Player, Players, Sheet};
use crate::store::{
    self, GameId, GameRecord, MailKey, PlayerRecord, Secrets, Standing, StoreError,
};

/// Invitations an address gets in a day, at most.
const INVITATIONS_A_DAY: usize = 3;
/// How long an unanswered invitation keeps others from inviting the same address.
const INVITATION_OPEN: u64 = 7 * 86_400;

enum Slot {
    Free(GameId),
    /// The game this very mail started before.
    Ours(Box<GameRecord>),
}

impl HostedReferee {
    /// `new ...` from `inviter`; `verified` when a game key vouches for them.
    pub(super) fn propose_new(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        inviter: &Mailbox,
        verified: bool,
    ) -> Result<Report, DeliveryError> {
        let Some(Command::New {
            ruleset,
            stones,
            variant,
            opponent,
            side,
        }) = letter.new_game().cloned()
        else {
            return Ok(Report::ignored("no new game asked for"));
        };
        let made = ruleset
            .configure(stones, variant.as_deref())
            .map_err(Refusal::Rules)
            .and_then(|rules| {
                let me = Player {
                    name: clean_name(&inviter.short_name()),
                    address: Some(inviter.address.clone()),
                };
                let them = match &opponent {
                    Opponent::Computer => Player {
                        name: "Computer".into(),
                        address: None,
                    },
                    Opponent::Person(m) => {
                        if self.identity.is_own(&m.address) {
                            return Err(Refusal::RefereeOpponent);
                        }
                        Player {
                            name: clean_name(&m.short_name()),
                            address: Some(m.address.clone()),
                        }
                    }
                };
                let mut players = Players::default();
                *players.get_mut(side) = me;
                *players.get_mut(side.other()) = them;
                Ok(Sheet::new(rules, players))
            });
        let computer = (opponent == Opponent::Computer).then_some(side.other());
        self.propose(
            secrets,
            letter,
            inviter,
            verified,
            made,
            side,
            computer,
            String::new(),
        )
    }

    /// A start sheet with the first move played, from `inviter`.
    pub(super) fn propose_sheet(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        inviter: &Mailbox,
        sheet: Sheet,
        news: String,
    ) -> Result<Report, DeliveryError> {
        let side = sheet
            .game
            .sowings()
            .first()
            .map_or(sheet.game.first(), |s| s.side);
        self.propose(secrets, letter, inviter, false, Ok(sheet), side, None, news)
    }

    #[allow(clippy::too_many_arguments)]
    fn propose(
        &self,
        secrets: &Secrets,
        letter: &Letter,
        inviter: &Mailbox,
        verified: bool,
        sheet: Result<Sheet, Refusal>,
        side: Side,
        computer: Option<Side>,
        news: String,
    ) -> Result<Report, DeliveryError> {
        let id = match self.game_slot(secrets, letter)? {
            Slot::Ours(record) => {
                return Ok(Report::about(
                    &record.id,
                    "started by this mail before; sending what did not go",
                ));
            }
            Slot::Free(id) => id,
        };
        let mut sender = self.sender(secrets, &inviter.address)?;
        let plays_here = self.counts_as_player(&sender.record, &inviter.address)?;
        if let Some(report) = self.sender_gate(&mut sender, letter, plays_here, !verified)? {
            return Ok(report);
        }
        let refuse = |sender: Transaction<'_, crate::store::SenderRecord>, refusal: Refusal| {
            let mut body = format!(
                "{} your mail was read, but no game was started:\n\n{}",
                crate::mail::compose::REFEREE_LINE,
                crate::mail::compose::note(&refusal.to_string())
            );
            if !verified {
                body = super::keyless::noting_last_answer(body, &sender.record, plays_here);
            }
            // Pointed to an invitation of theirs: replying answers it.
            let reply_to = match &refusal {
                Refusal::InvitedBy { id, side, .. } | Refusal::GameUnderWay { id, side, .. } => {
                    Some(self.identity.sub_address(&secrets.token(id, *side)))
                }
                _ => None,
            };
            self.reply_to_sender(sender, letter, inviter, body, reply_to)
        };
        let mut sheet = match sheet {
            Ok(sheet) => sheet,
            Err(refusal) => return refuse(sender, refusal),
        };
        let now = store::now();
        let invitee = sheet.players.get(side.other()).address.clone();
        let invitee = invitee.filter(|_| computer.is_none());
        if let Some(invitee) = invitee.as_deref() {
            if let Err(refusal) = self.may_invite(invitee, &inviter.address, letter, now)? {
                return refuse(sender, refusal);
            }
        }
        sheet.id = Some(id.to_string());
        let mut record = new_record(&id, &sheet, letter, side, computer, now);
        record.inviter_confirmed = verified;
        let hosted = HostedGame::new(record).map_err(|e| super::corrupt(&self.store, &id, e))?;
        let mut game = Transaction::new(&self.store, hosted);
        let mut scene = Scene::new(self, secrets, &id, &mut game, Some(letter));
        let opening = scene.opening(side, computer.is_some(), &news, inviter, now)?;
        let summary = scene.summary(&opening.did);
        // The game is the mail's record: a retry finds it by its id.
        game.commit(&letter.identity, opening.replies)?;
        if !verified {
            sender.record.count_answer(now);
            sender.save()?;
        }
        Ok(Report::about(&id, summary))
    }

    /// The id for the game this mail starts: free, or the one it started
    /// before.
    fn game_slot(&self, secrets: &Secrets, letter: &Letter) -> Result<Slot, StoreError> {
        for attempt in 0..32 {
            let id = secrets.game_id(&letter.identity, attempt);
            match self.store.load_game(&id)? {
                None => return Ok(Slot::Free(id)),
                Some(record) if record.started_by == letter.identity => {
                    return Ok(Slot::Ours(Box::new(record)))
                }
                Some(_) => continue, // another mail's game
            }
        }
        Err(StoreError::Corrupt {
            store: self.store.location(),
            what: "game ids".into(),
            error: "no free game id in 32 tries".into(),
        })
    }

    /// May `inviter` invite `invitee` now? Not themselves, nor a role's or
    /// a local-only mailbox; not while an invitation to them
    /// is open, nor while one from them to the inviter is, not by a sheet
    /// in a reply to a mail of their game under way, not after they
    /// declined this inviter, not more than a few times a day.
    fn may_invite(
        &self,
        invitee: &str,
        inviter: &str,
        letter: &Letter,
        now: u64,
    ) -> Result<Result<(), Refusal>, StoreError> {
        // Two seats of one mailbox (`sam@` and `sam+2@`) are no game.
        if same_mailbox(invitee, inviter) {
            return Ok(Err(Refusal::SelfOpponent));
        }
        // Anyone may name anyone: not a role's mailbox, nor one of this
        // machine's (but the owner's, whose mailbox this referee reads).
        if let Some(why) = not_a_person(invitee, &self.identity.address) {
            if !self.identity.is_own(invitee) {
                return Ok(Err(Refusal::NotAPerson(invitee.to_string(), why)));
            }
        }
        let listing = self.store.games_of(invitee)?;
        // A game file of theirs that cannot be read may hold an open invitation or a
        // decline: no invitation goes out until the operator mends it.
        if let Some(unreadable) = listing.unreadable.into_iter().next() {
            return Err(unreadable);
        }
        let is = |record: &GameRecord, side: Side, address: &str| {
            record
                .player(side)
                .address
                .as_deref()
                .is_some_and(|a| same_mailbox(a, address))
        };
        // An invitation unanswered for a week no longer blocks others.
        let open = |r: &GameRecord| r.is_invited() && r.created + INVITATION_OPEN > now;
        // The invitee's own invitation to the inviter is the game they
        // meant: their mails crossed, or the inviter answered the
        // invitee's mail instead of the referee's.
        if let Some(theirs) = listing
            .games
            .iter()
            .find(|r| open(r) && is(r, r.inviter, invitee) && is(r, r.inviter.other(), inviter))
        {
            return Ok(Err(Refusal::InvitedBy {
                name: theirs.player(theirs.inviter).name.clone(),
                game: theirs.ruleset.title(),
                id: theirs.id.clone(),
                side: theirs.inviter.other(),
            }));
        }
        // A sheet in a reply to a mail their game under way was played by
        // (a reply-all to the inviter's first mail, again) is that game's.
        let answered: Vec<MailKey> = match letter.new_game() {
            Some(_) => Vec::new(), // `new`: a second game, as asked
            None => letter
                .mail
                .references
                .iter()
                .map(|r| MailKey::of_message_id(r))
                .collect(),
        };
        let mut under_way = None;
        for r in &listing.games {
            let Some(side) = Side::BOTH.into_iter().find(|&s| is(r, s, inviter)) else {
                continue;
            };
            if r.is_playing() && is(r, side.other(), invitee) {
                // On the owner's mailbox a player has one game under way
                // with the owner: a start board pasted again restarts nothing.
                let going = self.identity.owner && r.game().is_ok_and(|g| !g.is_over());
                if going {
                    under_way = Some((r, side));
                }
                for mail in &answered {
                    if self.store.has_handled(r.id.as_str(), mail)? {
                        under_way = Some((r, side));
                    }
                }
            }
        }
        if let Some((game, side)) = under_way {
            return Ok(Err(Refusal::GameUnderWay {
                name: game.player(side.other()).name.clone(),
                game: game.ruleset.title(),
                id: game.id.clone(),
                side,
            }));
        }
        let invited = |r: &&GameRecord| r.computer.is_none() && is(r, r.inviter.other(), invitee);
        let games: Vec<&GameRecord> = listing.games.iter().filter(invited).collect();
        if games.iter().any(|r| open(r)) {
            return Ok(Err(Refusal::InvitationOpen(invitee.to_string())));
        }
        if games
            .iter()
            .any(|r| r.standing == Standing::Declined && is(r, r.inviter, inviter))
        {
            return Ok(Err(Refusal::DeclinedBefore(invitee.to_string())));
        }
        // (The owner invited everyone, by their broadcast.)
        let today = games.iter().filter(|r| r.created + 86_400 > now).count();
        if today >= INVITATIONS_A_DAY && !self.identity.owner {
            return Ok(Err(Refusal::TooManyInvitations(invitee.to_string())));
        }
        Ok(Ok(()))
    }
}

fn new_record(
    id: &GameId,
    sheet: &Sheet,
    letter: &Letter,
    inviter: Side,
    computer: Option<Side>,
    now: u64,
) -> GameRecord {
    let rules = sheet.game.rules();
    let player = |side: Side| {
        let p = sheet.players.get(side);
        PlayerRecord {
            name: p.name.clone(),
            address: p.address.clone(),
        }
    };
    let mut record = GameRecord {
        id: id.clone(),
        ruleset: rules.ruleset,
        stones: rules.stones,
        variant: rules.variant_name().map(str::to_string),
        first: sheet.game.first(),
        setup: store::SetUpRecord::of(&sheet.game),
        south: player(Side::South),
        north: player(Side::North),
        computer,
        standing: match computer {
            Some(_) => Standing::Playing,
            None => Standing::Invited {
                invitee: inviter.other(),
            },
        },
        turns: Vec::new(),
        conceded: None,
        started_by: letter.identity.clone(),
        inviter,
        inviter_confirmed: false,
        created: now,
        last_activity: now,
        reminded: None,
        offer: None,
        conditions: Vec::new(),
        board_event: 0,
        events: 0,
    };
    record.set_turns(&sheet.game, now);
    record
}

/// The invitation to the invitee, and the word to the inviter.
impl Scene<'_> {
    /// A new game's first mails, and the summary for the log: the
    /// invitations, or against the computer the board after its turns.
    fn opening(
        &mut self,
        side: Side,
        against_computer: bool,
        news: &str,
        inviter: &Mailbox,
        now: u64,
    ) -> Result<Decision, StoreError> {
        // `games`, `help` and the like beside `new`: answered once the game
        // is made (and the computer has moved), so the answers show it.
        if let Some(Ok(commands)) = self.letter.map(|l| &l.commands) {
            self.questions = commands
                .iter()
                .filter(|c| c.asks_for_an_answer())
                .cloned()
                .collect();
            // A move, an offer or `if` lines in the mail that starts the
            // game are not done: said, with what to do instead. (A game
            // started from a sheet played its move: that one was done.)
            let from_sheet = self.game.game().ply() > 0;
            let mut acts: Vec<&str> = commands
                .iter()
                .filter(|c| !c.is_question() && !matches!(c, Command::New { .. }))
                .filter(|c| !(from_sheet && matches!(c, Command::Move(_))))
                .map(Command::name)
                .collect();
            acts.dedup();
            if !acts.is_empty() {
                let how = match from_sheet {
                    true => "The board you sent starts the game with your first move alone",
                    false => "A mail with a line  new  only starts a game",
                };
                self.notes[side.index()].push(format!(
                    "Not done: {}. {how}; write them in a reply to a mail of the game \
                     once it is on.",
                    acts.join(", ")
                ));
            }
        }
        // An invitation carries the referee's words alone: anyone may
        // invite anyone, and the referee relays no stranger's text.
        if self.letter.is_some_and(|l| !l.comment.is_empty()) {
            let why = match against_computer {
                true => "the computer reads none".to_string(),
                false => format!(
                    "an invitation carries only the referee's words; write to {} once the game is on",
                    self.game.name(side.other())
                ),
            };
            self.notes[side.index()].push(format!("Your other words were not passed on: {why}."));
        }
        if self.referee.owner_invited(self.game.record(), side.other()) {
            // The owner's broadcast invited everyone: the game is on at once.
            let accepted = self.game.accept_invitation(side.other(), now);
            let accepted = accepted
                .map_err(|e| super::corrupt(&self.referee.store, &self.id, format!("{e:?}")))?;
            self.note_answers(side)?;
            let events = vec![accepted];
            let mails = self.both(|_| format!("{news} The game is on."), None);
            return Ok(Decision::new(mails, Did::Acted(events)));
        }
        if !against_computer {
            self.note_answers(side)?;
            let did = Did::Invited(inviter.address.clone());
            return Ok(Decision::new(invitations(self, side, news), did));
        }
        let events: Vec<Event> = self.game.computer_replies(now).into_iter().collect();
        self.note_answers(side)?;
        let did = Did::Challenged(side, events);
        let news = self.summary(&did);
        Ok(Decision::new(self.both(|_| news.clone(), None), did))
    }
}

fn invitations(scene: &Scene, inviter: Side, news: &str) -> Vec<Outgoing> {
    let sheet = &scene.game.sheet();
    let invitee = inviter.other();
    // Anyone may invite anyone, so the invitation's first line (its
    // subject) names the inviter by address alone: their display name is
    // on the board, as a name, never in a header.
    let who = sheet.players.get(inviter).address.as_deref().unwrap_or("");
    let title = sheet.game.rules().ruleset.title();
    let first_move = sheet.game.to_move() == Some(invitee) && sheet.game.ply() > 0;
    let how = if first_move {
        format!(
            "{news} It is your move. Legal moves: {}.\n\
             Your first move accepts the game: reply with a line  move <pit>\n\
             To refuse it, reply with a line:  decline",
            sheet.game.legal_moves()
        )
    } else {
        "To play, reply to this mail with a line:  accept\n\
         To refuse, reply with a line:  decline"
            .to_string()
    };
    let invite = format!(
        "{how}\nIf you would rather not answer, just ignore this mail: nothing more\n\
         will come about this game unless you reply."
    );
    let to_invitee = scene
        .mail(
            invitee,
            sheet_body(
                &game_line(sheet, &format!("{who} invites you to a game of {title}.")),
                None,
                sheet,
                Next::Say(&invite),
            ),
        )
        // Nor the name the inviter gave the invitee, nor the thread of a
        // mail the invitee never saw (its Message-ID is the inviter's too).
        .map(|mail| Outgoing {
            to: Mailbox {
                name: None,
                ..mail.to
            },
            in_reply_to: None,
            references: Vec::new(),
            ..mail
        });
    let to_inviter = scene.mail(
        inviter,
        sheet_body(
            &game_line(
                sheet,
                &format!(
                    "your invitation to {} is sent.",
                    sheet.players.get(invitee).address.as_deref().unwrap_or("")
                ),
            ),
            None,
            sheet,
            Next::Say("The game starts when they accept; you will get the board then."),
        ),
    );
    to_invitee.into_iter().chain(to_inviter).collect()
}

/// The invitee's answer.
impl Scene<'_> {
    /// The invitee's mail: a decline, an accept, or a first move (which
    /// accepts too, and is played with the rest of the mail).
    ///
    /// # Errors
    /// As [`Scene::decide`].
    pub(super) fn invitee_answers(
        &mut self,
        letter: &Letter,
        from: &Mailbox,
        invitee: Side,
        acts: Vec<Command>,
        quoted: Option<&Quoted>,
        from_note: &str,
    ) -> Result<Decision, StoreError> {
        let (side, now) = (invitee, store::now());
        let wants_board = letter.move_lines.is_empty() && letter.has(&Command::Board(None));
        // A move line that reads as a move (a garbled one accepts nothing),
        // or a move written on the quoted sheet.
        let has_move = letter.writes_a_move() || matches!(quoted, Some(Ok(_)));
        let declines = acts.contains(&Command::Decline);
        // The invitee's name as they give it (their From display name),
        // not as the inviter wrote it.
        let registered = self.game.record().player(invitee).address.clone();
        if let Some(name) = from.name.as_deref().filter(|n| !n.trim().is_empty()) {
            if registered.is_some_and(|a| same_mailbox(&a, &from.address)) {
                self.game.name_invitee(invitee, clean_name(name));
            }
        }
        if declines {
            let declined = self.game.decline_invitation(invitee, now);
            self.note_answers(side)?;
            return Ok(match declined {
                Ok(event) => self.declined(event),
                Err(refusal) => self.refuse(side, &self.refusal(refusal), from_note),
            });
        }
        if !acts.contains(&Command::Accept) && !has_move {
            self.note_answers(side)?;
            if wants_board {
                return Ok(self.board_asked(side, Some(&Refusal::AcceptOrDecline.to_string())));
            }
            // The invitee who moves first may answer with a move: one
            // garbled is told as written.
            let refusal = match line_move(letter, |_| false) {
                Err(garbled) if self.game.game().to_move() == Some(side) => garbled,
                _ => Refusal::AcceptOrDecline,
            };
            return Ok(self.refuse(side, &refusal, from_note));
        }
        // An accept with more to do (an offer, a resignation, `if`
        // lines): the acts in order, the accept the first.
        let more = acts.iter().any(|c| *c != Command::Accept);
        if !has_move && more {
            return self.act(letter, side, acts, quoted, from_note);
        }
        if !has_move || self.game.game().to_move() != Some(side) {
            let accepted = self.game.accept_invitation(invitee, now);
            self.note_answers(side)?;
            return Ok(match accepted {
                Ok(event) => {
                    // A move from the invitee who moves second accepts, and is told.
                    if let Some(to_move) = self.game.game().to_move().filter(|_| has_move) {
                        let wait = self.refusal(GameRefusal::NotYourTurn { to_move });
                        self.notes[side.index()].push(format!("Your move was not played: {wait}."));
                    }
                    let events = vec![event];
                    let name = self.game.name(invitee).to_string();
                    let news = |reader| self.news_to(&events, Some(reader));
                    let replies = self.both(news, Some((&name, &letter.comment)));
                    Decision::new(replies, Did::Acted(events))
                }
                Err(refusal) => self.refuse(side, &self.refusal(refusal), from_note),
            });
        }
        // A first move accepts too: played with the rest of the mail.
        let acts = acts.into_iter().filter(|c| *c != Command::Accept).collect();
        self.act(letter, side, acts, quoted, from_note)
    }

    /// The word of a declined invitation to both, without a board; of a
    /// withdrawn one to the inviter alone: the invitation promised the
    /// invitee nothing more unless they replied.
    pub(super) fn declined(&self, event: Event) -> Decision {
        let events = vec![event];
        let readers = match events[0] {
            Event::InvitationWithdrawn { by } => vec![by],
            _ => Side::BOTH.to_vec(),
        };
        let sheet = self.game.sheet();
        let mail_to = |reader: Side| {
            let news = self.news_to(&events, Some(reader));
            let mut top = game_line(&sheet, &news);
            top.push('\n');
            // The invitee's words with their answer go to the inviter, quoted.
            if let (Some(letter), Event::InvitationDeclined { by }) = (self.letter, &events[0]) {
                if !letter.comment.is_empty() && *by != reader {
                    let _ = writeln!(top, "\n{} writes:", self.game.name(*by));
                    for line in &letter.comment {
                        let _ = writeln!(top, "> {line}");
                    }
                }
            }
            self.mail(reader, top)
        };
        let mail = readers.into_iter().filter_map(mail_to).collect::<Vec<_>>();
        Decision::new(mail, Did::Acted(events))
    }
}
