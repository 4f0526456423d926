//! Reading a sheet out of any text: quoted, indented, re-spaced, CRLF.
//!
//! [`RawSheet::find`] only reads: the counts drawn, the names, the log's
//! moves. [`RawSheet::replay`] hands the moves to the engine, which alone
//! decides what is legal.

use super::error::{Place, SheetError};
use super::setup::{setup_line, SetUpLine};
use super::{written, Player, Players, Sheet};
use crate::engine::{EndReason, Game, Pit, Position, Rules, Ruleset, Side};

/// A sheet as written, before its log is replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawSheet {
    /// From the `Game:` line, if there is one.
    pub ruleset: Option<Ruleset>,
    pub stones: Option<u8>,
    pub first: Option<Side>,
    /// The variant played, from the `Game:` line, as written.
    pub variant: Option<String>,
    /// The game's id in the referee's store, from the `Game:` line.
    pub id: Option<String>,
    /// The position the game started from, when set up by hand (the
    /// `Set up:` line under the `Game:` line).
    pub setup: Option<SetUpLine>,
    /// Pits in each row, as drawn.
    pub pits: u8,
    /// The grid has store columns at its ends.
    pub stores_drawn: bool,
    /// Counts drawn, each row from its owner's `a`.
    pub south: Vec<u8>,
    pub north: Vec<u8>,
    /// Stores drawn at the grid's ends (South's, North's).
    pub stores: Option<[u8; 2]>,
    /// The `Captured:` line of Wari sheets (South's, North's).
    pub captured: Option<[u8; 2]>,
    pub players: Players,
    /// The log's turns in order, each its sowings; the `?` marks are not kept.
    pub turns: Vec<Vec<Pit>>,
    /// The log ends with the `?` that marks the move awaited.
    pub awaits: bool,
    /// A game ended by a player's word rather than the board: the loser
    /// and why (resignation or forfeit), from the `Result:` lines.
    pub conceded: Option<(Side, EndReason)>,
    /// The sheet shows a `Result:`, as the referee draws a finished game
    /// (a player who ends it by hand on the sheet writes none).
    pub result_shown: bool,
    /// The text's lines (0-based) that the sheet spans, title to last line.
    pub lines: std::ops::Range<usize>,
}

/// A line without quote markers, indentation, CR or trailing blanks.
fn bare(line: &str) -> &str {
    line.trim_start_matches(|c: char| c == '>' || c.is_whitespace())
        .trim_end()
}

fn is_border(line: &str) -> bool {
    line.starts_with('+')
        && line.matches('+').count() >= 3
        && line.chars().all(|c| matches!(c, '+' | '-' | ' ' | '\t'))
}

/// The store row between the pit rows: `|  0 +----+ ... +----+  0 |`.
fn is_middle(line: &str) -> bool {
    line.starts_with('|') && line.contains("+-")
}

fn is_row(line: &str) -> bool {
    line.starts_with('|') && !is_middle(line)
}

/// One pit row: the cells between the bars, and the name after the last.
fn split_row(line: &str) -> (Vec<&str>, &str) {
    let body = &line[1..];
    let last = body.rfind('|').unwrap_or(body.len());
    let name = body.get(last + 1..).unwrap_or("").trim();
    let cells = body[..last].split('|').map(str::trim).collect();
    (cells, name)
}

fn count(text: &str, row: &'static str) -> Result<u8, SheetError> {
    text.parse().map_err(|_| SheetError::BadRow {
        row,
        problem: format!("'{text}' is not a number of stones"),
    })
}

/// The counts of a drawn row, left to right, checking blank store columns.
fn row_counts(
    line: &str,
    columns: usize,
    stores: bool,
    row: &'static str,
) -> Result<(Vec<u8>, String), SheetError> {
    let (cells, name) = split_row(line);
    if cells.len() != columns {
        return Err(SheetError::BadRow {
            row,
            problem: format!(
                "it has {} cells where the border has {columns}",
                cells.len()
            ),
        });
    }
    let pits = if stores {
        if !cells[0].is_empty() || !cells[columns - 1].is_empty() {
            return Err(SheetError::BadRow {
                row,
                problem: "the store columns at its ends should be blank on this row".into(),
            });
        }
        &cells[1..columns - 1]
    } else {
        &cells[..]
    };
    let counts = pits
        .iter()
        .map(|c| count(c, row))
        .collect::<Result<_, _>>()?;
    Ok((counts, name.to_string()))
}

fn middle_stores(line: &str) -> Result<[u8; 2], SheetError> {
    let inner = line.trim_start_matches('|').trim_end_matches('|');
    let (Some(first), Some(last)) = (inner.find('+'), inner.rfind('+')) else {
        return Err(SheetError::BadRow {
            row: "store",
            problem: "expected '| n +----+ ... +----+ n |'".into(),
        });
    };
    let north = count(inner[..first].trim(), "store")?;
    let south = count(inner[last + 1..].trim(), "store")?;
    Ok([south, north])
}

/// What a `Game:` line says: the game, and perhaps the stones, the first
/// mover, the variant and the id.
struct GameLine {
    ruleset: Ruleset,
    stones: Option<u8>,
    first: Option<Side>,
    variant: Option<String>,
    id: Option<String>,
}

/// `Game: waurie, 4 stones, south first, variant both-stores, id k7q2mx`:
/// the game, and optionally the rest, in any order after the game.
fn game_line(line: &str) -> Option<Result<GameLine, SheetError>> {
    let (key, rest) = line.split_once(':')?;
    if !key.trim().eq_ignore_ascii_case("game") {
        return None;
    }
    let mut parts = rest.split(',').map(str::trim);
    let parsed = (|| {
        let mut game = GameLine {
            ruleset: parts.next().unwrap_or("").parse()?,
            stones: None,
            first: None,
            variant: None,
            id: None,
        };
        for part in parts {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words.as_slice() {
                [n, unit] if unit.starts_with("stone") => {
                    game.stones = Some(n.parse().map_err(|_| {
                        SheetError::GameLine(format!("'{n}' is not a number of stones"))
                    })?);
                }
                ["id", value] => game.id = Some(value.to_string()),
                ["variant", name] => game.variant = Some(name.to_string()),
                [side, "first"] | [side, "moves", "first"] => {
                    game.first = Some(side.parse().map_err(|_| {
                        SheetError::GameLine(format!("'{side}' is not south or north"))
                    })?);
                }
                _ => return Err(SheetError::GameLine(format!("'{part}' is not understood"))),
            }
        }
        Ok(game)
    })();
    Some(parsed)
}

/// `Captured: Alice (south) 3, Bob (north) 5`, or `Captured: south 3,
/// north 5`: each count follows its side's word (the last in brackets, as
/// the name before it may hold any word).
fn captured_line(line: &str) -> Option<[u8; 2]> {
    let (key, rest) = line.split_once(':')?;
    if !key.trim().eq_ignore_ascii_case("captured") {
        return None;
    }
    let words: Vec<String> = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut captured = [0, 0];
    for side in Side::BOTH {
        let bracketed = format!("({})", side.as_str());
        let at = (words.iter().rposition(|w| *w == bracketed))
            .or_else(|| words.iter().position(|w| w == side.as_str()))?;
        captured[side.index()] = words.get(at + 1)?.parse().ok()?;
    }
    Some(captured)
}

/// `South: Yourname <you@example.org>`.
fn address_line(line: &str) -> Option<(Side, Player)> {
    let (key, rest) = line.split_once(':')?;
    let side: Side = key.parse().ok()?;
    let rest = rest.trim();
    let open = rest.rfind('<')?;
    let address = rest[open + 1..].strip_suffix('>')?.trim();
    Some((
        side,
        Player {
            name: rest[..open].trim().to_string(),
            address: (!address.is_empty()).then(|| address.to_string()),
        },
    ))
}

/// A numbered log line: `3.    c-f    d`.
fn log_line(line: &str) -> Option<(usize, &str)> {
    let (number, rest) = line.split_once('.')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    Some((number.parse().ok()?, rest.trim()))
}

/// One turn as written: its sowings, and whether it ends awaiting one (`?`).
fn log_turn(token: &str, line: usize) -> Result<(Vec<Pit>, bool), SheetError> {
    let bad = || SheetError::BadLogMove {
        line,
        text: token.to_string(),
    };
    let mut sowings = Vec::new();
    let mut parts = token.split('-').peekable();
    while let Some(part) = parts.next() {
        if part == "?" && parts.peek().is_none() {
            return Ok((sowings, true));
        }
        sowings.push(part.parse().map_err(|_| bad())?);
    }
    Ok((sowings, false))
}

/// Lines of the grid, from the border over North's row to the one under South's.
struct Grid {
    start: usize,
    columns: usize,
    stores: bool,
}

/// The line above a sheet that is not the game's board (a preview, an
/// earlier position): a reply quoting it is read by the game's sheet instead.
pub const NOT_THE_GAME: &str = "Not the game:";
/// What follows the marker: the only sheets the referee itself so marks.
pub const NOT_THE_GAME_KINDS: [&str; 2] = ["a preview", "the board after turn"];

/// The first grid at or after line `from` not marked [`NOT_THE_GAME`] in
/// the few lines above it.
fn find_grid(lines: &[&str], from: usize) -> Option<Grid> {
    (from..lines.len().saturating_sub(4)).find_map(|i| {
        let w = &lines[i..i + 5];
        let marked = lines[i.saturating_sub(5)..i].iter().any(|l| {
            l.strip_prefix(NOT_THE_GAME).is_some_and(|rest| {
                NOT_THE_GAME_KINDS
                    .iter()
                    .any(|k| rest.trim_start().starts_with(k))
            })
        });
        let shape = !marked
            && is_border(w[0])
            && is_row(w[1])
            && (is_border(w[2]) || is_middle(w[2]))
            && is_row(w[3])
            && is_border(w[4]);
        shape.then(|| Grid {
            start: i,
            columns: w[0].matches('+').count() - 1,
            stores: is_middle(w[2]),
        })
    })
}

impl Grid {
    /// Pits a row: the grid's columns, less the two stores' if drawn.
    fn pits(&self) -> Result<u8, SheetError> {
        let pits = if self.stores {
            self.columns.saturating_sub(2)
        } else {
            self.columns
        };
        u8::try_from(pits)
            .ok()
            .filter(|&p| (1..=crate::engine::MAX_PITS).contains(&p))
            .ok_or_else(|| SheetError::BadRow {
                row: "border",
                problem: format!("no game has {pits} pits a row"),
            })
    }
}

/// Above the grid at line `g`: the Game: line, perhaps after a blank, and a
/// set-up position's line under it; with the line the sheet starts at.
fn read_above_grid(
    lines: &[&str],
    g: usize,
) -> Result<(Option<GameLine>, Option<SetUpLine>, usize), SheetError> {
    let mut title = None;
    let mut setup = None;
    let mut sheet_start = g;
    for i in (g.saturating_sub(6)..g).rev() {
        if let Some(parsed) = setup_line(lines[i]) {
            setup = Some(parsed?);
        } else if let Some(parsed) = game_line(lines[i]) {
            title = Some(parsed?);
            sheet_start = i;
            break;
        }
    }
    if sheet_start == g && g > 0 && is_letters(lines[g - 1]) {
        sheet_start = g - 1;
    }
    Ok((title, setup, sheet_start))
}

/// What stands between the grid and the log.
struct UnderGrid<'a> {
    captured: Option<[u8; 2]>,
    heading: Option<&'a str>,
    log_start: usize,
}

/// Under the grid at line `g`: letters, the Captured: line, the log
/// heading; with the line the log starts at.
fn read_under_grid<'a>(lines: &[&'a str], g: usize) -> Result<UnderGrid<'a>, SheetError> {
    let mut captured = None;
    let mut heading = None;
    for (i, line) in lines.iter().enumerate().skip(g + 5).take(8) {
        if let Some(c) = captured_line(line) {
            captured = Some(c);
        } else if let Some((1, _)) = log_line(line) {
            return Ok(UnderGrid {
                captured,
                heading,
                log_start: i,
            });
        } else if !line.is_empty() && !is_letters(line) {
            heading = Some(*line);
        }
    }
    Err(SheetError::NoLog)
}

/// After the log, which ends at `log_end`: the result (two lines) and the
/// players' addresses, put into `players`; with the line after the sheet
/// and the result, if shown: `Some` of a concession it records, if any.
fn read_after_log(
    lines: &[&str],
    log_end: usize,
    players: &mut Players,
) -> (usize, Option<Option<(Side, EndReason)>>) {
    let mut end = log_end;
    let mut result = None;
    for (i, line) in lines.iter().enumerate().skip(log_end).take(5) {
        // A long name's line, wrapped by a mail program before its address.
        let wrapped = || {
            let next = lines
                .get(i + 1)
                .filter(|next| !line.contains('<') && address_line(next).is_none())?;
            address_line(&format!("{line} {next}"))
        };
        if let Some((side, player)) = address_line(line) {
            *players.get_mut(side) = player;
            end = i + 1;
        } else if let Some((side, player)) = wrapped() {
            *players.get_mut(side) = player;
            end = i + 2;
        } else if line.starts_with("Result:") {
            end = i + 2;
            result = Some(concession(line, lines.get(i + 1).copied().unwrap_or("")));
        }
    }
    (end, result)
}

fn is_letters(line: &str) -> bool {
    !line.is_empty()
        && line
            .split_whitespace()
            .all(|w| w.len() == 1 && w.as_bytes()[0].is_ascii_lowercase())
}

impl RawSheet {
    /// Finds the sheet in `text` and reads it, without replaying it: of
    /// several of one game (a thread quoting older boards, a board pasted
    /// below the one quoted with the move made on it), the one whose log is
    /// longest, the first of those; a sheet that cannot be read only when
    /// none can. Sheets of another game (by the id on their `Game:` line)
    /// than the first read are passed over: a `games` list quoted.
    ///
    /// # Errors
    /// When there is no grid or log, or a part cannot be read.
    pub fn find(text: &str) -> Result<RawSheet, SheetError> {
        let lines: Vec<&str> = text.lines().map(bare).collect();
        let found = RawSheet::find_in(&lines);
        // Quoted with `| ` or `: `, as some mail programs quote: read so
        // too where a border is, and weighed as any other sheet (a board
        // quoted so may be newer than one quoted with `>`).
        let unbarred: Vec<&str> = (lines.iter())
            .map(|&l| bare(l.strip_prefix(['|', ':']).unwrap_or(l)))
            .collect();
        let barred = |(l, u): (&&str, &&str)| l != u && is_border(u);
        if !lines.iter().zip(&unbarred).any(barred) {
            return found;
        }
        match (found, RawSheet::find_in(&unbarred)) {
            (Ok(found), Ok(quoted)) if quoted.id == found.id => match found.against(&quoted) {
                Some(disagree) => Err(disagree),
                None if quoted.sowing_count() > found.sowing_count() => Ok(quoted),
                None => Ok(found),
            },
            (Err(SheetError::NoSheet), quoted) | (Err(_), quoted @ Ok(_)) => quoted,
            (found, _) => found,
        }
    }

    fn find_in(lines: &[&str]) -> Result<RawSheet, SheetError> {
        let mut found: Option<Result<RawSheet, SheetError>> = None;
        // Two sheets of the longest log that log different moves.
        let mut disagree = None;
        let mut from = 0;
        while let Some(grid) = find_grid(lines, from) {
            from = grid.start + 5;
            let read = RawSheet::read(lines, &grid);
            if let (Some(Ok(best)), Ok(sheet)) = (&found, &read) {
                if sheet.id == best.id && sheet.sowing_count() > best.sowing_count() {
                    disagree = None;
                }
                disagree = disagree.or(best.against(sheet));
            }
            found = match (found, read) {
                (Some(Ok(best)), Ok(sheet))
                    if sheet.id != best.id || sheet.sowing_count() <= best.sowing_count() =>
                {
                    Some(Ok(best))
                }
                (Some(Ok(best)), Err(_)) => Some(Ok(best)),
                (Some(Err(first)), Err(_)) => Some(Err(first)),
                (_, read) => Some(read),
            };
        }
        match disagree {
            Some(disagree) => Err(disagree),
            None => found.unwrap_or(Err(SheetError::NoSheet)),
        }
    }

    /// How `other`, a sheet of this game with a log as long, logs another
    /// move; `None` when it logs the same, or is of another game or length.
    fn against(&self, other: &RawSheet) -> Option<SheetError> {
        let tied = other.id == self.id && other.sowing_count() == self.sowing_count();
        if !tied || other.turns == self.turns {
            return None;
        }
        let last = |sheet: &RawSheet| sheet.turns.last().map_or("none".into(), |t| written(t));
        Some(SheetError::SheetsDisagree {
            one: last(self),
            other: last(other),
        })
    }

    /// Reads the sheet whose grid is `grid`.
    fn read(lines: &[&str], grid: &Grid) -> Result<RawSheet, SheetError> {
        let g = grid.start;
        let pits = grid.pits()?;
        let (top, north_name) = row_counts(lines[g + 1], grid.columns, grid.stores, "top")?;
        let (bottom, south_name) = row_counts(lines[g + 3], grid.columns, grid.stores, "bottom")?;
        let stores = if grid.stores {
            Some(middle_stores(lines[g + 2])?)
        } else {
            None
        };
        let (title, setup, sheet_start) = read_above_grid(lines, g)?;
        let UnderGrid {
            captured,
            heading,
            log_start,
        } = read_under_grid(lines, g)?;
        let (turns, awaits, log_end) = read_log(lines, log_start)?;

        let mut players = Players {
            south: Player {
                name: south_name,
                address: None,
            },
            north: Player {
                name: north_name,
                address: None,
            },
        };
        let (end, result) = read_after_log(lines, log_end, &mut players);
        let (ruleset, stones, first, variant, id) = match title {
            Some(t) => (Some(t.ruleset), t.stones, t.first, t.variant, t.id),
            None => (None, None, None, None, None),
        };
        let first = first.or_else(|| first_from_heading(heading, &players));
        let pit_rows = |counts: Vec<u8>, reversed: bool| {
            if reversed {
                counts.into_iter().rev().collect()
            } else {
                counts
            }
        };
        Ok(RawSheet {
            ruleset,
            stones,
            first,
            variant,
            id,
            setup,
            pits,
            stores_drawn: grid.stores,
            north: pit_rows(top, true),
            south: pit_rows(bottom, false),
            stores,
            captured,
            players,
            turns,
            awaits,
            conceded: result.flatten(),
            result_shown: result.is_some(),
            lines: sheet_start..end,
        })
    }

    /// The rules the sheet is played by.
    ///
    /// # Errors
    /// When it does not name its game and the grid does not tell, or names
    /// one whose board differs from the grid.
    pub fn rules(&self) -> Result<Rules, SheetError> {
        let ruleset = match self.ruleset {
            Some(r) => r,
            // The broadcast's own sheet names no game: 8 cells, no stores.
            None if self.pits == 8 && !self.stores_drawn => Ruleset::SuperWari,
            None => {
                return Err(SheetError::UnnamedGame {
                    pits: self.pits,
                    example: if self.stores_drawn { "waurie" } else { "wari" },
                })
            }
        };
        let mut rules = ruleset.configure(self.stones, self.variant.as_deref())?;
        // The board as drawn says how many pits, where the game has a choice.
        if ruleset.spec().pits.contains(&self.pits) {
            rules = rules.with_pits(self.pits)?;
        }
        if rules.pits != self.pits || rules.stores != self.stores_drawn {
            return Err(SheetError::Layout {
                ruleset,
                expected: rules.pits,
                stores: if rules.stores {
                    " and two stores"
                } else {
                    " and no stores"
                },
                pits: self.pits,
            });
        }
        Ok(rules)
    }

    /// Sowings in the log.
    pub fn sowing_count(&self) -> usize {
        self.turns.iter().map(Vec::len).sum()
    }

    /// Replays the first `sowings` sowings of the log.
    ///
    /// # Errors
    /// The first move that cannot be played, named by its log line.
    pub fn replay(&self, sowings: usize) -> Result<Sheet, SheetError> {
        let rules = self.rules()?;
        let first = self.first.unwrap_or(rules.default_first());
        let start = match &self.setup {
            Some(setup) => {
                Position::set_up(rules, &setup.south, &setup.north, setup.stores, first)?
            }
            None => Position::start(rules, first),
        };
        let mut game = Game::from_position(start);
        let mut left = sowings;
        for (t, turn) in self.turns.iter().enumerate() {
            if left == 0 {
                break;
            }
            let line = t / 2 + 1;
            let side = if t % 2 == 0 { first } else { first.other() };
            if t > 0 && game.to_move() == Some(side.other()) {
                let previous = &self.turns[t - 1];
                return Err(SheetError::MissingBonus {
                    line: (t - 1) / 2 + 1,
                    side: side.other(),
                    turn: written(previous),
                });
            }
            for (j, &pit) in turn.iter().take(left).enumerate() {
                match game.to_move() {
                    None => return Err(SheetError::AfterEnd { line }),
                    Some(s) if s != side && j > 0 => {
                        return Err(SheetError::NoBonus {
                            line,
                            side,
                            turn: written(turn),
                        })
                    }
                    _ => {}
                }
                game.play(pit)
                    .map_err(|error| SheetError::Move { line, error })?;
            }
            left = left.saturating_sub(turn.len());
        }
        if let Some((loser, reason)) = self.conceded.filter(|_| left == 0) {
            match reason {
                EndReason::Forfeit => game.forfeit(loser),
                EndReason::Agreement => game.agree_draw(),
                _ => game.resign(loser),
            }
        }
        Ok(Sheet {
            game,
            players: self.players.clone(),
            id: self.id.clone(),
        })
    }

    /// The one turn from `game` (its bonus sowings too) after which the
    /// grid is as drawn: a move made on the board alone, the log (and a
    /// `Captured:` line) left as it was. A turn drawn up to a free sowing
    /// still to make counts, as a turn begun by mail does (`c-?`). Each turn
    /// that draws it (more than one: the board shows no one move); none
    /// when the turns branch past a bound of work.
    pub fn turns_drawn(&self, game: &Game) -> Vec<Vec<Pit>> {
        self.turns_drawn_within(game).unwrap_or_default()
    }

    fn turns_drawn_within(&self, game: &Game) -> Option<Vec<Vec<Pit>>> {
        let side = game.to_move()?;
        let mut found: Vec<Vec<Pit>> = Vec::new();
        let mut open = vec![(game.clone(), Vec::new())];
        let mut budget = 10_000_u32;
        while let Some((before, turn)) = open.pop() {
            for pit in before.legal_moves() {
                budget = budget.checked_sub(1)?;
                let mut after = before.clone();
                if after.play(pit).is_err() {
                    continue;
                }
                let turn = [turn.as_slice(), &[pit]].concat();
                if self.places(&after, false).all(|(_, drawn, is)| drawn == is) {
                    found.push(turn.clone());
                }
                if after.to_move() == Some(side) {
                    open.push((after, turn));
                }
            }
        }
        Some(found)
    }

    /// Checks the counts drawn against `game`'s position.
    ///
    /// # Errors
    /// The first place, South's pits first, whose count differs.
    pub fn check_board(&self, game: &Game) -> Result<(), SheetError> {
        match self.places(game, true).find(|(_, drawn, is)| drawn != is) {
            Some((what, drawn, expected)) => Err(SheetError::Mismatch {
                what,
                drawn,
                expected,
            }),
            None => Ok(()),
        }
    }

    /// Each place drawn, South's pits first: what it shows and what
    /// `game`'s position holds; the grid's, and the `Captured:` line's
    /// if `totals`.
    fn places(&self, game: &Game, totals: bool) -> impl Iterator<Item = (Place, u8, u8)> {
        let position = game.position();
        let mut places: Vec<(Place, u8, u8)> = Vec::new();
        for (side, row) in [(Side::South, &self.south), (Side::North, &self.north)] {
            for (pit, &drawn) in Pit::all(self.pits).zip(row.iter()) {
                places.push((Place::Pit(side, pit), drawn, position.stones(side, pit)));
            }
        }
        for side in Side::BOTH {
            if let Some(stores) = self.stores {
                let store = position.store(side);
                places.push((Place::Store(side), stores[side.index()], store));
            }
            if let Some(captured) = self.captured.filter(|_| totals) {
                let store = position.store(side);
                places.push((Place::Captured(side), captured[side.index()], store));
            }
        }
        places.into_iter()
    }
}

/// `Result: Bo (North) wins` then `(the opponent resigned).`: the loser
/// and the reason, for the endings the board cannot show (an agreed draw
/// has no loser: its side means nothing).
fn concession(result: &str, reason: &str) -> Option<(Side, EndReason)> {
    if result.contains("a draw") && reason.contains(EndReason::Agreement.describe()) {
        return Some((Side::South, EndReason::Agreement));
    }
    let winner = if result.contains("(South) wins") {
        Side::South
    } else if result.contains("(North) wins") {
        Side::North
    } else {
        return None;
    };
    [EndReason::Resignation, EndReason::Forfeit]
        .into_iter()
        .find(|r| reason.contains(r.describe()))
        .map(|r| (winner.other(), r))
}

/// The heading lists the first mover first; names the same on both rows
/// leave it to the default.
fn first_from_heading(heading: Option<&str>, players: &Players) -> Option<Side> {
    let first_name = heading?
        .split("  ")
        .map(str::trim)
        .find(|n| !n.is_empty())?;
    let is = |p: &Player| p.name.eq_ignore_ascii_case(first_name);
    match (is(&players.south), is(&players.north)) {
        (false, true) => Some(Side::North),
        (true, false) => Some(Side::South),
        _ => None,
    }
}

/// Reads the numbered lines from `start`: the turns, whether a `?` ends
/// them, and the line after the log.
fn read_log(lines: &[&str], start: usize) -> Result<(Vec<Vec<Pit>>, bool, usize), SheetError> {
    let mut turns = Vec::new();
    let mut awaiting_seen = false;
    let mut short_line = None;
    let mut end = start;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let Some((number, rest)) = log_line(line) else {
            break;
        };
        let expected = i - start + 1;
        if number != expected {
            return Err(SheetError::BadLogLine {
                line: expected,
                problem: format!("numbered {number}, expected {expected}"),
            });
        }
        end = i + 1;
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        if tokens.len() > 2 {
            return Err(SheetError::BadLogLine {
                line: number,
                problem: format!("'{rest}' holds more than the two players' moves"),
            });
        }
        for token in tokens {
            if awaiting_seen {
                return Err(SheetError::BadLogLine {
                    line: number,
                    problem: "a move follows the '?' that marks the move awaited".into(),
                });
            }
            if let Some(gap) = short_line {
                return Err(SheetError::BadLogLine {
                    line: gap,
                    problem: "the second player's move is missing".into(),
                });
            }
            let (sowings, awaiting) = log_turn(token, number)?;
            awaiting_seen = awaiting;
            if !sowings.is_empty() {
                turns.push(sowings);
            }
        }
        if turns.len() % 2 == 1 && !awaiting_seen {
            short_line = Some(number);
        }
    }
    Ok((turns, awaiting_seen, end))
}
