//! Moves as mail carries them, for both referees: the move line, the
//! quoted sheet with the move written in place of its `?`, one turn
//! played, and why a mail's move was not played ([`Refusal`]).

use super::letter::Letter;
use super::refusal::Refusal;
use crate::engine::{Game, ParsePitError, Pit, PlayedSowing, Side, Sowing};
use crate::sheet::{self, written, RawSheet, Sheet, SheetError};

/// A sheet and the move the mail asks for.
pub struct Request {
    pub sheet: Sheet,
    pub sowings: Vec<Pit>,
    /// The sheet was pasted unquoted, so the player's own text cannot be
    /// told from what they pasted.
    pub pasted: bool,
}

/// A refusal, with the sheet as it stands when one could be read.
pub type Refused = (Refusal, Option<Box<Sheet>>);

/// A sheet a mail quotes as read: verified, with the move from a move line
/// or the log; or the refusal.
pub type Quoted = Result<Request, Refused>;

/// The move the mail's own move lines make, lines at `skipped` indexes
/// (a pasted sheet's) left out: none, or one however often written.
///
/// # Errors
/// The first garbled line's refusal; two different moves ("move d", then
/// "no wait: move c"), as which was meant is the player's to say.
pub fn line_move(
    letter: &Letter,
    skipped: impl Fn(usize) -> bool,
) -> Result<Option<Vec<Pit>>, Refusal> {
    let mut moves: Vec<Vec<Pit>> = Vec::new();
    for (index, read) in &letter.move_lines {
        if skipped(*index) {
            continue;
        }
        let sowings = read.clone()?;
        if !moves.contains(&sowings) {
            moves.push(sowings);
        }
    }
    if moves.len() > 1 {
        let list: Vec<String> = moves.iter().map(|m| written(m)).collect();
        return Err(Refusal::SeveralMoves(list.join(", ")));
    }
    Ok(moves.pop())
}

/// A move line's sowings, read against `game`: the sowings to make now,
/// or, a turn begun (`f-?`) written whole (`move f-a`), its rest, where
/// the line as written cannot be sown (f is empty now).
pub fn line_turn(game: &Game, sowings: Vec<Pit>) -> Vec<Pit> {
    let (Some(side), begun) = (game.to_move(), begun(game)) else {
        return sowings;
    };
    let rest = match sowings.strip_prefix(begun.as_slice()) {
        Some(rest) if !begun.is_empty() && !rest.is_empty() => rest,
        _ => return sowings,
    };
    match game.clone().play_turn(side, &sowings) {
        Ok(_) => sowings,
        Err(_) => rest.to_vec(),
    }
}

/// The sowings of the turn the side to move has begun (`f-?`), if any.
pub fn begun(game: &Game) -> Vec<Pit> {
    let Some(side) = game.to_move() else {
        return Vec::new();
    };
    let turn = game.turns().last().unwrap_or_default();
    match turn.first() {
        Some(first) if first.side == side => turn.iter().map(|s| s.pit).collect(),
        _ => Vec::new(),
    }
}

/// Who wrote a mail, and what of the game the referee has played: a turn
/// in the quoted log is the mail's move only if the writer played it, and
/// only the part of it not played yet (a turn begun by mail, `c-?`, may be
/// finished on the sheet, board and log alike).
#[derive(Clone, Copy, Debug)]
pub struct Writer<'a> {
    pub side: Side,
    pub played: &'a [PlayedSowing],
}

/// The sheet a mail from `writer` quotes, if it quotes one.
pub fn quoted_request(letter: &Letter, writer: Writer) -> Option<Quoted> {
    match RawSheet::find(&letter.mail.text) {
        Ok(raw) => Some(read_request(letter, &raw, Some(writer))),
        // Two sheets logging different moves are a move, refused.
        Err(disagree @ SheetError::SheetsDisagree { .. }) => Some(Err((disagree.into(), None))),
        Err(_) => None,
    }
}

/// Does the mail make a move: a move line (garbled or not), a move
/// written on the sheet it quotes, or one in its subject?
pub fn makes_move(letter: &Letter, quoted: Option<&Quoted>) -> bool {
    let read = |q: &Quoted| q.as_ref().map_or_else(|(r, _)| disagrees(r), |_| true);
    !letter.move_lines.is_empty() || quoted.is_some_and(read) || letter.subject_move.is_some()
}

/// Is `refusal` the mail's move refused because the mail says two moves
/// (a line against its sheet, or two sheets)?
pub fn disagrees(refusal: &Refusal) -> bool {
    matches!(
        refusal,
        Refusal::Disagree { .. } | Refusal::Sheet(SheetError::SheetsDisagree { .. })
    )
}

/// The verified sheet in `raw` and the move, from a move line or the log;
/// a turn in the log is the mail's move only if `writer` (when known)
/// played it.
///
/// # Errors
/// The refusal, with the sheet as it stands (before any move written on
/// it) when one could be read.
pub fn read_request(
    letter: &Letter,
    raw: &RawSheet,
    writer: Option<Writer>,
) -> Result<Request, Refused> {
    let line = line_move(letter, |index| raw.lines.contains(&index));
    let read = sheet_and_log_move(raw, writer, line.as_ref().ok().and_then(Option::as_deref));
    let line = match line {
        Ok(line) => line,
        Err(refusal) => {
            // A drawing that matches no point of the log still shows its log.
            let sheet = read.ok().map(|(sheet, _)| sheet);
            let sheet = sheet.or_else(|| raw.replay(raw.sowing_count()).ok());
            return Err((refusal, sheet.map(Box::new)));
        }
    };
    let (sheet, log_move) = read?;
    // A line may repeat the whole of a turn the log finishes (`move f-a`
    // beside `f-a` in place of `f-?`): it says the same.
    let line = line.map(|line| match &log_move {
        Some(log) if line == [begun(&sheet.game).as_slice(), log].concat() => log.clone(),
        _ => line_turn(&sheet.game, line),
    });
    let sowings = match (line, log_move) {
        (None, None) => match &letter.subject_move {
            Some(subject) => line_turn(&sheet.game, subject.clone()),
            None => return Err((Refusal::NoMove, Some(Box::new(sheet)))),
        },
        (None, Some(log)) => log,
        (Some(line), None) => line,
        (Some(line), Some(log)) if line == log => log,
        (Some(line), Some(log)) => {
            return Err((
                Refusal::Disagree {
                    line: written(&line),
                    sheet: written(&log),
                },
                Some(Box::new(sheet)),
            ))
        }
    };
    let pasted = letter
        .mail
        .text
        .lines()
        .nth(raw.lines.start)
        .is_some_and(|first| !super::text::is_quoted(first));
    Ok(Request {
        sheet,
        sowings,
        pasted,
    })
}

/// The sheet before the move the player made on it, and that move: the
/// log is the authority, and the board drawn is the log played out, or the
/// log without the move the player wrote in place of `?` (or made on board
/// and log alike), or the log played out and then a turn made on the board
/// alone. A turn `writer` did not play is not theirs to have
/// written: a log whose `?` was deleted, and no move written, ends on the
/// opponent's turn. A board that several turns draw alike is the one
/// `line` (the mail's move line) names, if any.
fn sheet_and_log_move(
    raw: &RawSheet,
    writer: Option<Writer>,
    line: Option<&[Pit]>,
) -> Result<(Sheet, Option<Vec<Pit>>), Refused> {
    let written_by_writer =
        |before: &Sheet| writer.is_none_or(|w| before.game.to_move() == Some(w.side));
    let total = raw.sowing_count();
    let replay = |sowings| raw.replay(sowings).map_err(|e| (Refusal::Sheet(e), None));
    let full = replay(total)?;
    Ok(match raw.check_board(&full.game) {
        // No `?` awaits a move, and the board shows the log's last turn
        // played: the sender made their move on the sheet, board and log
        // ("with your first move made", as Bill's broadcast asks), the
        // game's last perhaps, while no result is drawn.
        Ok(()) if !raw.awaits && !raw.result_shown => match raw.turns.last() {
            Some(turn) => {
                let start = total - turn.len();
                let before = replay(start)?;
                let done = writer.map_or(0, |w| turn_begun(&before, turn, w.played));
                // The opponent's turn, or one the game has played whole:
                // nothing written.
                if !written_by_writer(&before) || done == turn.len() {
                    (full, None)
                } else if done > 0 {
                    (replay(start + done)?, Some(turn[done..].to_vec()))
                } else {
                    (before, Some(turn.clone()))
                }
            }
            None => (full, None),
        },
        Ok(()) => (full, None),
        Err(mismatch) => {
            let last_turn = raw.turns.last().map_or(0, Vec::len);
            let earlier = (1..=last_turn).find_map(|k| {
                let sheet = raw.replay(total - k).ok()?;
                raw.check_board(&sheet.game).ok()?;
                written_by_writer(&sheet).then_some(())?;
                Some((sheet, raw.turns.last()?[last_turn - k..].to_vec()))
            });
            // Or the writer's turn made on the board alone, the log unchanged.
            let drawn = || match written_by_writer(&full) {
                true => raw.turns_drawn(&full.game),
                false => Vec::new(),
            };
            if let Some((sheet, sowings)) = earlier {
                return Ok((sheet, Some(sowings)));
            }
            let named = |turn: &Vec<Pit>| line.is_some_and(|line| line == turn.as_slice());
            match drawn().as_slice() {
                [turn] => (full, Some(turn.clone())),
                [] => return Err((Refusal::Sheet(mismatch), None)),
                several if several.iter().any(named) => (full, line.map(<[Pit]>::to_vec)),
                several => {
                    let turns: Vec<String> = several.iter().map(|t| written(t)).collect();
                    let refusal = Refusal::TurnsDrawAlike {
                        turns: turns.join(" or from "),
                        first: turns[0].clone(),
                    };
                    return Err((refusal, None));
                }
            }
        }
    })
}

/// How many of `turn`'s first sowings, logged after `before`, the game has
/// played already (all of them: a `c-?` whose `-?` was deleted): the
/// game's sowings are `before`'s, then those.
fn turn_begun(before: &Sheet, turn: &[Pit], played: &[PlayedSowing]) -> usize {
    let logged = before.game.sowings();
    match played.strip_prefix(logged) {
        Some(begun)
            if begun.len() <= turn.len()
                && begun
                    .iter()
                    .zip(turn)
                    .all(|(sowing, pit)| sowing.pit == *pit) =>
        {
            begun.len()
        }
        _ => 0,
    }
}

/// Plays `side`'s turn: its sowings, bonus sowings included. Returns the
/// news in words ("Alice played e, a free turn, then c, capturing 5.").
///
/// # Errors
/// An illegal sowing, or a sowing after the turn has passed, said as the
/// player sees it ("Your c is empty. Legal: a, b, d."); the sheet is then
/// as it was.
pub fn play_turn(sheet: &mut Sheet, side: Side, sowings: &[Pit]) -> Result<String, Refusal> {
    match sheet.game.play_turn(side, sowings) {
        Ok(sowed) => {
            let name = sheet.name(side);
            let again = (sheet.game.to_move() == Some(side)).then(|| format!("{name} sows again"));
            Ok(turn_words(name, &sowed, again.as_deref()))
        }
        Err(refusal) => Err(Refusal::of_game(refusal.into(), |s| {
            sheet.name(s).to_string()
        })),
    }
}

/// A turn in words: "Alice played e, a free turn, then c, capturing 5.";
/// a turn that goes on (its last sowing earned a free turn) says so, and
/// `again` ("Alice sows again").
pub fn turn_words(name: &str, sowings: &[Sowing], again: Option<&str>) -> String {
    let told: Vec<String> = sowings
        .iter()
        .enumerate()
        .map(|(i, sowing)| {
            let mut words = sowing.pit.to_string();
            if sowing.captured > 0 {
                words.push_str(&format!(", capturing {}", sowing.captured));
            }
            if sowing.bonus && i + 1 < sowings.len() {
                words.push_str(", a free turn");
            }
            words
        })
        .collect();
    let played = format!("{name} played {}", told.join(", then "));
    match again {
        Some(again) if sowings.last().is_some_and(|s| s.bonus) => {
            format!("{played}, which earns a free turn: {again}.")
        }
        _ => format!("{played}."),
    }
}

/// A move line: `move c`, `Move: c-f`, `MOVE c f`; or a line that can only
/// mean a move (see [`implied_move`]). `None` for prose that merely starts
/// with the word.
pub fn move_line(line: &str) -> Option<Result<Vec<Pit>, Refusal>> {
    keyword_line(line).or_else(|| implied_move(line).map(Ok))
}

/// The words that may stand before a turn on a line of its own (`I play d`).
const OPENERS: [&str; 11] = [
    "play",
    "i play",
    "i'll play",
    "i will play",
    "sow",
    "i sow",
    "i'll sow",
    "i will sow",
    "i move",
    "my move",
    "my move is",
];

/// A line that tries to be a move though it lacks the word `move`: a lone
/// turn in letters (`d`, `c-f`) or a lone digit (`4`), a turn after one of
/// the [`OPENERS`] (`I play d`, `my move: c-f`), or after a word one typing
/// slip from `move` (`mvoe c`, `mve c`, `moev c`). Read as the move, so it
/// is never relayed to the opponent as chat. A lone `2-3` may be a score,
/// and a turn followed by more words (`play a game`) is prose.
fn implied_move(line: &str) -> Option<Vec<Pit>> {
    let line = line
        .trim()
        .trim_end_matches(['.', '!'])
        .replace('\u{2019}', "'")
        .to_ascii_lowercase();
    let words: Vec<&str> = line
        .split_whitespace()
        .map(|w| w.trim_end_matches(':'))
        .filter(|w| !w.is_empty())
        .collect();
    let turn = |words: &[&str]| match sheet::parse_sowings(&words.join(" ")) {
        Ok(sowings) if !sowings.is_empty() => Some(sowings),
        _ => None,
    };
    if let [word] = words.as_slice() {
        let lone = word
            .split('-')
            .all(|p| matches!(p, "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h"))
            || (word.len() == 1 && word.as_bytes()[0].is_ascii_digit());
        return lone.then(|| turn(&words)).flatten();
    }
    (1..words.len()).find_map(|at| {
        let opener = words[..at].join(" ");
        let opens = OPENERS.contains(&opener.as_str()) || (at == 1 && near_move(words[0]));
        opens.then(|| turn(&words[at..])).flatten()
    })
}

/// Is `word` (lowercase) one letter added, dropped, changed or swapped
/// with its neighbour away from `move`?
fn near_move(word: &str) -> bool {
    const MOVE: &[u8] = b"move";
    let w = word.as_bytes();
    let without = |s: &[u8], i: usize| [&s[..i], &s[i + 1..]].concat();
    match w.len() {
        4 => {
            let differ: Vec<usize> = (0..4).filter(|&i| w[i] != MOVE[i]).collect();
            match differ.as_slice() {
                [_] => true,
                [i, j] => *j == i + 1 && w[*i] == MOVE[*j] && w[*j] == MOVE[*i],
                _ => false,
            }
        }
        5 => (0..5).any(|i| without(w, i) == MOVE),
        3 => (0..4).any(|i| without(MOVE, i) == w),
        _ => false,
    }
}

/// `move c`, `Move: c-f`, `MOVE c f`: the word `move` and a turn, or
/// refused when what follows the word cannot be one.
fn keyword_line(line: &str) -> Option<Result<Vec<Pit>, Refusal>> {
    let trimmed = line.trim();
    let keyword = trimmed.get(..4)?;
    if !keyword.eq_ignore_ascii_case("move") {
        return None;
    }
    let rest = &trimmed[4..];
    let (colon, rest) = match rest.trim_start().strip_prefix(':') {
        Some(after) => (true, after.trim()),
        None if rest.starts_with(char::is_whitespace) => (false, rest.trim()),
        None => return None, // "moved", "movement"
    };
    let rest = rest.trim_end_matches(['.', '!']);
    match sheet::parse_sowings(rest) {
        Ok(sowings) if !sowings.is_empty() => Some(Ok(sowings)),
        Ok(_) if colon => Some(Err(Refusal::NoMove)),
        Err(error) if colon || rest.split_whitespace().count() == 1 => {
            // Each told at most so long (a word of hundreds of letters).
            let error = match error {
                ParsePitError::Pit(word) => ParsePitError::Pit(super::refusal::echo(&word)),
                other => other,
            };
            Some(Err(Refusal::BadMoveLine {
                text: super::refusal::echo(rest),
                error,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines_as_players_write_them() {
        let ok = |l: &str| written(&move_line(l).unwrap().unwrap());
        assert_eq!(ok("move c"), "c");
        assert_eq!(ok("Move: c"), "c");
        assert_eq!(ok("  MOVE c-f"), "c-f");
        assert_eq!(ok("move c f."), "c-f");
        assert_eq!(ok("move:3"), "c");
        assert_eq!(ok("move c\u{200b}"), "c", "a zero-width space pasted after");
        assert!(move_line("Move fast and break things").is_none());
        assert!(move_line("moved to Paris").is_none());
        assert!(move_line("a move").is_none());
        // Lines that can only mean a move, though they lack the word.
        for (line, turn) in [
            ("mvoe c", "c"),
            ("Mve: c-f", "c-f"),
            ("moev d.", "d"),
            ("d", "d"),
            ("  C-F ", "c-f"),
            ("4", "d"),
            ("I play d", "d"),
            ("I\u{2019}ll play c-f!", "c-f"),
            ("play e", "e"),
            ("My move: e", "e"),
        ] {
            assert_eq!(ok(line), turn, "{line}");
        }
        // Prose that names a pit, or a score, stays prose.
        for line in [
            "play a game",
            "I play d because it captures",
            "2-3",
            "a b c d e f",
            "love you",
            "mvoe z",
            "remove c",
            "bad",
        ] {
            assert!(move_line(line).is_none(), "{line}");
        }
        assert!(matches!(
            move_line("move: z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
        assert!(matches!(
            move_line("move z"),
            Some(Err(Refusal::BadMoveLine { .. }))
        ));
        // The line is read before the game is known: no game's range is
        // named (a to h is wrong in the 6-pit games).
        let told = move_line("move z").unwrap().unwrap_err().to_string();
        assert!(
            told.contains("'z' is not a pit") && !told.contains("a to h"),
            "{told}"
        );
        // A word of hundreds of letters is told cut, both times.
        let long = "x".repeat(300);
        let told = move_line(&format!("move {long}"))
            .unwrap()
            .unwrap_err()
            .to_string();
        assert_eq!(
            told.matches(&format!("{}...'", "x".repeat(60))).count(),
            2,
            "{told}"
        );
        assert!(!told.contains(&"x".repeat(61)), "{told}");
    }

    #[test]
    fn a_turn_plays_its_bonus_sowings_and_nothing_after_the_turn_passes() {
        use crate::engine::Ruleset;
        use crate::sheet::Players;
        let mut sheet = Sheet::new(Ruleset::Waurie.rules(), Players::named("Ann", "Bo"));
        let pits = |s: &str| sheet::parse_sowings(s).unwrap();
        assert_eq!(
            play_turn(&mut sheet, Side::South, &pits("c-f")),
            Ok("Ann played c, a free turn, then f.".to_string())
        );
        let before = sheet.game.ply();
        let err = play_turn(&mut sheet, Side::North, &pits("a b")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Your a earns no free turn, so b cannot follow."
        );
        assert_eq!(sheet.game.ply(), before, "the sheet is as it was");
    }
}
