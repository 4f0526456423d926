//! The questions a player may ask by mail: they change nothing and are
//! answered to the asker alone. `board N` and `preview` draw sheets marked
//! [`NOT_THE_GAME`], so that a reply to their mail still plays the game.

use std::fmt::Write as _;

use super::{sheet_of, summary, HostedReferee, Scene};
use crate::engine::{Game, Pit, Side};
use crate::mail::command::Command;
use crate::mail::compose::result_words;
use crate::mail::play::play_turn;
use crate::mail::refusal::{echo, in_words_of, Refusal};
use crate::sheet::{written, Sheet, NOT_THE_GAME};
use crate::store::{ratings, GameRecord, Secrets, Standing, StoreError};

impl Scene<'_> {
    /// Answers the writer's questions in their mail, in the order asked.
    ///
    /// # Errors
    /// As [`Scene::answer`].
    pub(super) fn note_answers(&mut self, side: Side) -> Result<(), StoreError> {
        let questions = std::mem::take(&mut self.questions);
        for (title, text) in self.answers(side, &questions)? {
            let title = crate::mail::compose::heading(&title);
            self.notes[side.index()].push(format!("{title}\n\n{}", text.trim_end()));
        }
        Ok(())
    }

    /// The titles and texts of the answers to `questions`, in order; past
    /// [`MOST_DRAWN`] sheets, a line that says so instead of each.
    ///
    /// # Errors
    /// As [`Scene::answer`].
    pub(super) fn answers(
        &self,
        side: Side,
        questions: &[Command],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let mut drawn = 0;
        questions
            .iter()
            .map(|question| {
                if matches!(question, Command::Board(Some(_)) | Command::Preview(_)) {
                    drawn += 1;
                    if drawn > MOST_DRAWN {
                        return Ok((
                            "a board not drawn.".to_string(),
                            format!("A mail gets at most {MOST_DRAWN} boards drawn (board N or preview): ask for the rest in another mail.\n"),
                        ));
                    }
                }
                self.answer(side, question)
            })
            .collect()
    }

    /// The title and text of the answer to `question`.
    ///
    /// # Errors
    /// When the store cannot say what the answer needs (the writer's games,
    /// the ratings): never answered as if there were none.
    pub(super) fn answer(
        &self,
        side: Side,
        question: &Command,
    ) -> Result<(String, String), StoreError> {
        let record = self.game.record();
        let address = record.player(side).address.as_deref().unwrap_or("");
        Ok(match question {
            Command::Help => (
                "help, as you asked.".into(),
                super::game_help_text(self.game.game().rules()),
            ),
            Command::HelpRules(ruleset) => (
                format!("the rules of {}, as you asked.", ruleset.title()),
                crate::guide::ruleset_text(*ruleset).to_string(),
            ),
            Command::Games | Command::History => {
                let games = self.games_now(record, address)?;
                let answer = self.referee.about_player(
                    self.secrets,
                    question,
                    &games,
                    address,
                    Some(record),
                );
                answer?.unwrap_or_default()
            }
            Command::Ratings(_) => {
                let answer =
                    self.referee
                        .about_player(self.secrets, question, &[], address, Some(record));
                answer?.unwrap_or_default()
            }
            // Perfect play's view of a game between two players still on
            // would be help in it: it waits for the end.
            Command::Analysis if !self.game.game().is_over() && record.computer.is_none() => (
                "no analysis while the game is on.".into(),
                "The analysis (each turn's value under perfect play) would be help in a game \
                 still on between two players: ask for it with a line  analysis  once the game \
                 is over (a game against the computer has it at any time).\n"
                    .into(),
            ),
            Command::Analysis => (
                "the game turn by turn, as you asked.".into(),
                analysis_text(&self.game.sheet()),
            ),
            Command::Board(Some(turns)) => self.board_after(record, *turns),
            Command::Preview(turns) => self.preview(side, turns),
            _ => (String::new(), String::new()),
        })
    }

    /// The store's games, this one as the mail's acts leave it: the
    /// answers are on the game after the mail, not before it. A game file
    /// that cannot be read is an error, not a game left out.
    fn games_now(&self, record: &GameRecord, address: &str) -> Result<Vec<GameRecord>, StoreError> {
        let mut games = self.referee.store.games_of(address)?.whole()?;
        match games.iter_mut().find(|g| g.id == record.id) {
            Some(stored) => *stored = record.clone(),
            None => games.push(record.clone()),
        }
        Ok(games)
    }

    /// The sheet as it stood after line `line` of the log (each line a
    /// turn of each player's, as the sheet numbers them).
    fn board_after(&self, record: &GameRecord, line: usize) -> (String, String) {
        let lines = log_lines(record);
        if line > lines {
            let refusal = crate::mail::refusal::Refusal::NoSuchTurn { turns: lines };
            let title = format!("no board after turn {line}: the log is not that long yet.");
            return (title, format!("{refusal}.\n"));
        }
        let title = format!("the board after turn {line}, as you asked.");
        let mut early = record.clone();
        early.turns.truncate(line.saturating_mul(2));
        early.conceded = None;
        let text = match early.game() {
            Ok(game) => marked(
                &format!("the board after turn {line} of {lines}"),
                &sheet_of(record, game),
            ),
            Err(e) => format!("That board cannot be drawn: {e}.\n"),
        };
        (title, text)
    }

    /// The sheet after `turns`, the player to move's first, on a copy.
    fn preview(&self, side: Side, turns: &[Vec<Pit>]) -> (String, String) {
        // Each turn is played on a copy: a mail of a million turns costs no more than this.
        let cut = turns.len() > PREVIEW_TURNS;
        let turns = &turns[..turns.len().min(PREVIEW_TURNS)];
        let line = echo(
            &turns
                .iter()
                .map(|t| written(t))
                .collect::<Vec<_>>()
                .join(" "),
        );
        let title = format!("a preview of {line}, as you asked: nothing is played.");
        let mut trial: Sheet = self.game.sheet();
        let mut said = Vec::new();
        for turn in turns {
            let turn_written = echo(&written(turn));
            let Some(mover) = trial.game.to_move() else {
                said.push(format!("The game is over before {turn_written}."));
                break;
            };
            match play_turn(&mut trial, mover, turn) {
                Ok(_) if trial.game.to_move() == Some(mover) && !trial.game.is_over() => {
                    said.push(format!(
                        "{turn_written} earns {} a free turn: write the turn whole, such as {turn_written}-a. The preview stops here.",
                        trial.name(mover),
                    ));
                    break;
                }
                Ok(news) => said.push(news),
                Err(refusal) => {
                    let why = match &refusal {
                        Refusal::Illegal(error) if mover != side => {
                            in_words_of(error, Some(trial.name(mover)))
                        }
                        _ => refusal.to_string(),
                    };
                    said.push(format!("{turn_written} cannot be played: {why}"));
                    break;
                }
            }
        }
        let start = match self.game.game().to_move() {
            Some(first) if first != side => format!(
                "(It is {}'s move, so the preview starts with theirs.) ",
                self.game.name(first)
            ),
            _ => String::new(),
        };
        if cut {
            said.push(format!("(A preview plays at most {PREVIEW_TURNS} turns.)"));
        }
        let mut text = format!("{start}{}\n\n", said.join(" "));
        text.push_str(&marked("a preview, nothing is played", &trial));
        (title, text)
    }
}

/// Positions the solver may visit for each turn of a mailed analysis:
/// a long game's answer stays within seconds.
const ANALYSIS_NODES: u64 = 50_000;

/// The analysis of `sheet`'s game, with a line on how to read it: exact
/// where the built-in endgame tables reach (a damaged one, which a test
/// rules out, would only make it slower).
fn analysis_text(sheet: &Sheet) -> String {
    let tables = crate::solve::Tables::built_in(sheet.game.rules()).unwrap_or(None);
    let analysis = crate::solve::analyze(&sheet.game, tables.as_ref(), ANALYSIS_NODES);
    let unit = match crate::solve::Scoring::of(sheet.game.rules()) {
        Some(crate::solve::Scoring::WinLoss) => "+1 a win, -1 a loss",
        _ => "the final margin",
    };
    format!(
        "Each turn: the value of the position for its mover before it and after it ({unit}, \
         best play from there; on a line marked (not exact), the search's estimate). A turn \
         that lost value says what was best.\n\n{}",
        analysis.text(|side| sheet.name(side).to_string())
    )
}

/// The numbered lines of `record`'s log: its turns, two a line (the
/// players' turn numbers, as the sheet shows them).
fn log_lines(record: &GameRecord) -> usize {
    record.turns.len().div_ceil(2)
}

/// The most sheets (`board N`, `preview`) drawn for one mail: each is a
/// board and a log, so a mail of them gets an answer of bounded size.
const MOST_DRAWN: usize = 3;

/// The most turns a preview plays.
const PREVIEW_TURNS: usize = 100;

/// A sheet under a [`NOT_THE_GAME`] line, so no reply reads it as the game.
fn marked(what: &str, sheet: &Sheet) -> String {
    format!("{NOT_THE_GAME} {what}.\n{sheet}")
}

/// The best of each game and the asker's own standing: a mail that
/// fits a window however many play here.
fn ratings_text(leaders: &ratings::Leaders) -> String {
    let mut text = crate::mail::compose::ratings_table(&leaders.list);
    if leaders.cut {
        let _ = writeln!(
            text,
            "\n(The best {RATINGS_SHOWN} of each game, and yours.)"
        );
    }
    text
}

/// The most players of each game a mailed ratings table shows.
const RATINGS_SHOWN: usize = 10;

/// `address`'s finished games, the latest first, with their results.
pub(super) fn history_text(games: &[GameRecord], address: &str) -> String {
    let mut finished: Vec<(u64, String)> = Vec::new();
    for record in games {
        if record.side_of(address).is_none() || record.standing != Standing::Playing {
            continue;
        }
        let Ok(game) = record.game() else { continue };
        let Some(outcome) = game.outcome() else {
            continue;
        };
        let ended = record.ended().unwrap_or(record.last_activity);
        let sheet = sheet_of(record, game.clone());
        // Counted as `board N` counts: the log's numbered lines.
        let turns = match log_lines(record) {
            1 => "1 line of the log".to_string(),
            lines => format!("{lines} lines of the log"),
        };
        let rated = if record.computer.is_some() {
            " (against the computer, unrated)"
        } else {
            ""
        };
        finished.push((
            ended,
            format!(
                "{} {}: {} v {}, {} after {turns}{rated}",
                record.ruleset.title(),
                record.id,
                record.south.name,
                record.north.name,
                result_words(&sheet, &outcome),
            ),
        ));
    }
    if finished.is_empty() {
        return "You have no finished games here yet.\n".into();
    }
    finished.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut out = String::from("Your finished games, the latest first:\n\n");
    for (_, line) in finished {
        let _ = writeln!(out, "{}", crate::mail::wrap::item("  ", &line));
    }
    out
}

impl HostedReferee {
    /// The title and text of the answer to a question about a player,
    /// asked in a game's mail or without a key: `games` and `history` on
    /// `games` (theirs), `ratings` on the store as it is (`after` the game
    /// just changed, if it has not yet counted). `None` for any other question.
    ///
    /// # Errors
    /// When the store cannot say what the ratings are.
    pub(super) fn about_player(
        &self,
        secrets: &Secrets,
        question: &Command,
        games: &[GameRecord],
        address: &str,
        after: Option<&GameRecord>,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(Some(match question {
            Command::Games => (
                "your games, as you asked.".into(),
                self.games_text(secrets, games, address),
            ),
            Command::History => (
                "your finished games, as you asked.".into(),
                history_text(games, address),
            ),
            Command::Ratings(ruleset) => {
                let leaders = self
                    .store
                    .leaders(*ruleset, RATINGS_SHOWN, Some(address), after)?;
                ("the ratings, as you asked.".into(), ratings_text(&leaders))
            }
            _ => return Ok(None),
        }))
    }

    /// The games `address` plays here, those awaiting their move first,
    /// each with its opponent, whose move it is, the key for it and its board.
    pub(super) fn games_text(
        &self,
        secrets: &Secrets,
        games: &[GameRecord],
        address: &str,
    ) -> String {
        let mut going: Vec<(bool, String)> = Vec::new();
        let mut finished = 0;
        for record in games {
            let Some(side) = record.side_of(address) else {
                continue;
            };
            let game: Option<Game> = record.game().ok();
            // An invitation declined or withdrawn is no game, and no history.
            if matches!(record.standing, Standing::Declined | Standing::Withdrawn) {
                continue;
            }
            if game.as_ref().is_some_and(Game::is_over) {
                finished += 1;
                continue;
            }
            let state = match &game {
                Some(game) => summary(record, game),
                None => "cannot be read just now".to_string(),
            };
            let yours = record.standing == Standing::Playing
                && game.as_ref().and_then(Game::to_move) == Some(side);
            // Filled: a long name must not run the line past the width.
            let mut entry = crate::mail::wrap::fill(&format!(
                "{} {}: against {}, {}\n",
                record.ruleset.title(),
                record.id,
                record.player(side.other()).name,
                if yours {
                    "your move".to_string()
                } else {
                    state
                },
            ));
            let _ = writeln!(entry, "    your key: {}", secrets.token(&record.id, side));
            if let Some(game) = game {
                let _ = write!(entry, "\n{}", sheet_of(record, game));
            }
            going.push((yours, entry));
        }
        // Awaiting their move first; the store's order (by id) within each.
        going.sort_by_key(|(yours, _)| !yours);
        let mut body = String::new();
        if going.is_empty() {
            body.push_str(
                "You have no games under way here. Start one with a line:\n    new super-wari with <address>\n",
            );
        } else {
            body.push_str(
                "Your games here, those awaiting your move first, with your key for\n\
                 each (reply to any mail of a game to play it):\n\n",
            );
            let entries: Vec<&str> = going.iter().map(|(_, entry)| entry.trim_end()).collect();
            let _ = writeln!(body, "{}", entries.join("\n\n"));
        }
        if finished > 0 {
            let _ = writeln!(
                body,
                "\nAnd {finished} finished: a line  history  lists them."
            );
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Ruleset, SplitMix64};
    use crate::sheet::Players;

    #[test]
    fn a_mailed_analysis_is_exact_where_the_built_in_tables_reach() {
        // A Kalah game played at random until 18 stones are left in pits
        // (the first seed whose game lasts so long): its last turns are
        // past a 50,000-position search alone.
        let rules = Ruleset::Kalah.rules();
        let sheet = (0..)
            .find_map(|seed| {
                let mut rng = SplitMix64::new(seed);
                let mut sheet = Sheet::new(rules, Players::named("Alice", "Bob"));
                while sheet.game.position().stones_in_pits() > 18 && !sheet.game.is_over() {
                    let legal = sheet.game.legal_moves();
                    sheet.game.play(legal.nth(rng.below(legal.len()))?).ok()?;
                }
                (!sheet.game.is_over()).then_some(sheet)
            })
            .unwrap();
        let inexact = |text: &str| text.matches("(not exact)").count();
        let alone = crate::solve::analyze(&sheet.game, None, ANALYSIS_NODES);
        let alone = inexact(&alone.text(|side| sheet.name(side).to_string()));
        let text = analysis_text(&sheet);
        assert!(
            inexact(&text) < alone,
            "{alone} turns not exact alone:\n{text}"
        );
        // The last turns are exact: the tables reach them.
        let last = text.lines().rev().take(2).collect::<Vec<_>>().join("\n");
        assert_eq!(inexact(&last), 0, "{text}");
    }
}
