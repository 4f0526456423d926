//! Writing a sheet: the broadcast's grid, the stores at the ends of the
//! grid, the numbered log and the result.

use std::fmt::{self, Write};

use super::Sheet;
use crate::engine::{EndReason, Game, Pit, Position, Rules, Side};

/// A cell as the broadcast draws it: the count right-aligned in four columns.
fn cell(out: &mut impl Write, count: u8) -> fmt::Result {
    write!(out, "{count:>3} |")
}

fn border(out: &mut impl Write, columns: usize) -> fmt::Result {
    out.write_char('+')?;
    for _ in 0..columns {
        out.write_str("----+")?;
    }
    out.write_char('\n')
}

/// The pit letters under or over the grid, `lead` columns in.
fn letters(out: &mut impl Write, lead: usize, pits: impl Iterator<Item = Pit>) -> fmt::Result {
    let mut line = " ".repeat(lead * 5);
    for pit in pits {
        write!(line, "   {pit} ")?;
    }
    writeln!(out, "{}", line.trim_end())
}

fn name_after_row(out: &mut impl Write, name: &str) -> fmt::Result {
    if name.is_empty() {
        writeln!(out)
    } else {
        writeln!(out, "   {name}")
    }
}

/// The widest a grid row (with its name) or the log's heading is drawn:
/// quoted twice (`> > `), it still fits a mail line of 72, which is where
/// mail programs wrap, and a row wrapped would no longer read as one.
const SHEET_WIDTH: usize = 68;

/// A grid row's columns of text: five a pit (and a store), and the edge.
fn row_width(rules: &Rules) -> usize {
    let stores = if rules.stores { 2 } else { 0 };
    5 * (usize::from(rules.pits) + stores) + 1
}

/// The room for a name beside a grid row (after its three blanks).
fn room_beside(rules: &Rules) -> usize {
    SHEET_WIDTH.saturating_sub(row_width(rules) + 3)
}

/// `name` in at most `room` columns, as the grid and the log's heading
/// show it: whole words that fit, else its first letters. The address
/// lines under the log keep the name whole.
fn fitted(name: &str, room: usize) -> &str {
    if name.chars().count() <= room {
        return name;
    }
    let words_end = name
        .match_indices(' ')
        .map(|(at, _)| at)
        .take_while(|&at| name[..at].chars().count() <= room)
        .last();
    let end = words_end
        .or_else(|| name.char_indices().nth(room).map(|(at, _)| at))
        .unwrap_or(name.len());
    name[..end].trim_end()
}

/// The board grid. Wari games draw the broadcast's grid exactly; games with
/// stores add a column at each end, North's store west and South's east.
pub(super) fn write_grid(
    out: &mut impl Write,
    position: &Position,
    names: [&str; 2],
) -> fmt::Result {
    let rules = position.rules();
    let pits = rules.pits;
    let north_left_to_right = Pit::all(pits).rev();
    let [south_name, north_name] = names.map(|name| fitted(name, room_beside(rules)));
    if !rules.stores {
        let columns = usize::from(pits);
        letters(out, 0, north_left_to_right.clone())?;
        border(out, columns)?;
        out.write_char('|')?;
        for pit in north_left_to_right {
            cell(out, position.stones(Side::North, pit))?;
        }
        name_after_row(out, north_name)?;
        border(out, columns)?;
        out.write_char('|')?;
        for pit in Pit::all(pits) {
            cell(out, position.stones(Side::South, pit))?;
        }
        name_after_row(out, south_name)?;
        border(out, columns)?;
        return letters(out, 0, Pit::all(pits));
    }
    let columns = usize::from(pits) + 2;
    letters(out, 1, north_left_to_right.clone())?;
    border(out, columns)?;
    out.write_str("|    |")?;
    for pit in north_left_to_right {
        cell(out, position.stones(Side::North, pit))?;
    }
    out.write_str("    |")?;
    name_after_row(out, north_name)?;
    write!(out, "|{:>3} +", position.store(Side::North))?;
    for _ in 0..pits {
        out.write_str("----+")?;
    }
    writeln!(out, "{:>3} |", position.store(Side::South))?;
    out.write_str("|    |")?;
    for pit in Pit::all(pits) {
        cell(out, position.stones(Side::South, pit))?;
    }
    out.write_str("    |")?;
    name_after_row(out, south_name)?;
    border(out, columns)?;
    letters(out, 1, Pit::all(pits))
}

/// The turns of the log, each a list of sowings; a turn still waiting for a
/// bonus sowing ends in `?`, and the move awaited is a lone `?`.
pub(super) fn log_turns(game: &Game) -> LogTurns {
    // Written straight from the sowings into one string: each sheet and
    // each HTML log draws this, and a string a turn (or a pit) cost an
    // allocation or more a sowing.
    let mut turns = LogTurns {
        text: String::with_capacity(2 * game.sowings().len() + 2),
        ends: Vec::with_capacity(game.sowings().len() + 1),
    };
    for turn in game.turns() {
        for (i, sowing) in turn.iter().enumerate() {
            if i > 0 {
                turns.text.push('-');
            }
            turns.text.push(sowing.pit.letter());
        }
        turns.ends.push(turns.text.len());
    }
    if let Some(side) = game.to_move() {
        // A bonus sowing awaited goes on the turn it belongs to.
        if game.sowings().last().map(|s| s.side) == Some(side) {
            turns.ends.pop();
            turns.text.push('-');
        }
        turns.text.push('?');
        turns.ends.push(turns.text.len());
    }
    turns
}

/// The log's turns as written (`c`, `f-b`, `?`), the first mover's first.
pub(super) struct LogTurns {
    text: String,
    /// Where each turn ends in `text`; each starts where the one before
    /// ends.
    ends: Vec<usize>,
}

impl LogTurns {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn get(&self, turn: usize) -> Option<&str> {
        let end = *self.ends.get(turn)?;
        let start = if turn == 0 { 0 } else { self.ends[turn - 1] };
        Some(&self.text[start..end])
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|turn| self.get(turn))
    }
}

/// Lines of the log shown even when empty, as in the broadcast.
const LOG_LINES_SHOWN: usize = 4;

fn write_log(out: &mut impl Write, sheet: &Sheet) -> fmt::Result {
    let first = sheet.game.first();
    // `   FIRST  SECOND`: each as beside its row, the second in what is left.
    let room = room_beside(sheet.game.rules());
    let first_name = fitted(sheet.name(first), room);
    let left = SHEET_WIDTH.saturating_sub(first_name.chars().count() + 5);
    let second_name = fitted(sheet.name(first.other()), room.min(left));
    writeln!(out, "   {first_name}  {second_name}")?;
    let turns = log_turns(&sheet.game);
    // The second column sits under the second name, as the first sits under
    // the first, but never closer than two blanks to the longest first move.
    let widest_first = turns
        .iter()
        .step_by(2)
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(1);
    let second_column = (first_name.chars().count() + 8).max(6 + widest_first + 2);
    let lines = turns.len().div_ceil(2);
    let lines_shown = if sheet.game.is_over() {
        lines
    } else {
        lines.max(LOG_LINES_SHOWN)
    };
    // One line's buffer for the whole log: a long game's log is hundreds
    // of lines, each once three strings.
    let mut text = String::with_capacity(second_column + 16);
    let pad_to = |text: &mut String, column: usize| {
        let pad = column.saturating_sub(text.chars().count());
        text.extend(std::iter::repeat_n(' ', pad));
    };
    for line in 0..lines_shown {
        text.clear();
        write!(text, "{}.", line + 1)?;
        pad_to(&mut text, 6);
        if let Some(turn) = turns.get(2 * line) {
            text.push_str(turn);
        }
        if let Some(turn) = turns.get(2 * line + 1) {
            pad_to(&mut text, second_column);
            text.push_str(turn);
        }
        out.write_str(text.trim_end())?;
        out.write_char('\n')?;
    }
    Ok(())
}

/// The result, on two lines so that mail never needs to wrap it:
/// "Result: Yourname (South) wins 26 to 22" and the reason in parentheses.
pub(super) fn write_result(out: &mut impl Write, sheet: &Sheet) -> fmt::Result {
    let Some(outcome) = sheet.game.outcome() else {
        return Ok(());
    };
    let why = outcome.reason.describe();
    let Some(winner) = outcome.winner else {
        let [south, north] = outcome.score;
        return writeln!(out, "Result: a draw, {south} to {north}\n        ({why}).");
    };
    let name = sheet.name(winner);
    let (won, lost) = (outcome.score_of(winner), outcome.score_of(winner.other()));
    match outcome.reason {
        EndReason::Resignation | EndReason::Forfeit => {
            writeln!(out, "Result: {name} ({winner}) wins\n        ({why}).")
        }
        // Waurie's winner is whoever cannot move (or first empties their
        // row); the stores are shown, not a score.
        EndReason::CannotMove | EndReason::FirstEmpty => writeln!(
            out,
            "Result: {name} ({winner}) wins, stores {won} to {lost}\n        ({why})."
        ),
        _ => writeln!(
            out,
            "Result: {name} ({winner}) wins {won} to {lost}\n        ({why})."
        ),
    }
}

impl fmt::Display for Sheet {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let game = &self.game;
        let rules = game.rules();
        write!(
            out,
            "Game: {}, {} stones, {} first",
            rules.ruleset,
            rules.stones,
            game.first().as_str()
        )?;
        if let Some(variant) = rules.variant_name() {
            write!(out, ", variant {variant}")?;
        }
        match &self.id {
            Some(id) => writeln!(out, ", id {id}")?,
            None => writeln!(out)?,
        }
        if !game.start().is_start() {
            writeln!(out, "Set up: {}", setup_text(game.start()))?;
        }
        writeln!(out)?;
        let position = game.position();
        write_grid(
            out,
            position,
            [self.name(Side::South), self.name(Side::North)],
        )?;
        if !rules.stores {
            write_captured(
                out,
                position,
                [self.name(Side::South), self.name(Side::North)],
            )?;
        }
        writeln!(out)?;
        write_log(out, self)?;
        write_result(out, self)?;
        for side in Side::BOTH {
            let player = self.players.get(side);
            if let Some(address) = &player.address {
                writeln!(out, "{}: {} <{address}>", side.title(), player.name)?;
            }
        }
        Ok(())
    }
}

/// A position as `--position` and `--stores` take it, as the sheet's
/// `Set up:` line writes it: `1 0 0 0 1 1 / 0 0 1 0 0 0, stores 22,22`.
pub fn setup_text(position: &Position) -> String {
    let row = |side: Side| {
        position
            .pits(side)
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let word = if position.rules().stores {
        "stores"
    } else {
        "captured"
    };
    format!(
        "{} / {}, {word} {},{}",
        row(Side::South),
        row(Side::North),
        position.store(Side::South),
        position.store(Side::North)
    )
}

/// A position on its own, for `replay`: what the last sowing was, whose
/// move it is, and the grid.
pub fn describe_position(game: &Game) -> String {
    let mut out = String::new();
    let _ = match game.sowings().last() {
        None if game.start().is_start() => write!(out, "Start of {}", game.rules().ruleset.title()),
        None => write!(out, "Set-up position of {}", game.rules().ruleset.title()),
        Some(last) => write!(
            out,
            "Sowing {}: {} sowed {}",
            game.ply(),
            last.side,
            last.pit
        ),
    };
    let _ = match (game.outcome(), game.to_move()) {
        (Some(outcome), _) => match outcome.winner {
            Some(w) => writeln!(out, "; {w} wins ({}).", outcome.reason.describe()),
            None => writeln!(out, "; a draw ({}).", outcome.reason.describe()),
        },
        (None, Some(side)) => writeln!(out, "; {side} to move."),
        (None, None) => writeln!(out),
    };
    let _ = write_grid(&mut out, game.position(), ["South", "North"]);
    if !game.rules().stores {
        let _ = write_captured(&mut out, game.position(), ["South", "North"]);
    }
    out
}

/// The room for each name on the `Captured:` line, so that the line
/// fits [`SHEET_WIDTH`] with two-digit totals.
const CAPTURED_NAME: usize = 17;

/// `Captured: Alice (south) 3, Bob (north) 5`: the names the grid's rows
/// carry, with the side the reader goes by; `south 3` for a player
/// named by their side.
fn write_captured(out: &mut impl Write, position: &Position, names: [&str; 2]) -> fmt::Result {
    let told: Vec<String> = Side::BOTH
        .iter()
        .map(|&side| {
            let name = fitted(names[side.index()], CAPTURED_NAME);
            let count = position.store(side);
            match name.eq_ignore_ascii_case(side.as_str()) || name.is_empty() {
                true => format!("{side} {count}", side = side.as_str()),
                false => format!("{name} ({}) {count}", side.as_str()),
            }
        })
        .collect();
    writeln!(out, "Captured: {}", told.join(", "))
}
