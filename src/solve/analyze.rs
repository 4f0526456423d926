//! A game turn by turn: the value before each turn and after it, for the
//! player who made it, so that the turns that gave value away, and the one
//! where a won position was let go, stand out.

use super::{Solver, Tables};
use crate::engine::{Game, Pit, Side};

/// One turn, valued for the player who made it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TurnAnalysis {
    /// The numbered line of the sheet's log the turn is on: 1 for the
    /// game's first two turns (each mover's first), 2 for the next two.
    pub turn: usize,
    pub side: Side,
    pub sowings: Vec<Pit>,
    /// The value of the position before the turn, best play from there.
    pub before: i32,
    /// The value after the turn (of the turn played); for an estimated
    /// turn begun with the sowing its search ranked best, that search's
    /// value of it (the value before).
    pub after: i32,
    /// `before - after`: what the turn gave away (0 for a best turn).
    pub lost: i32,
    /// The turn let a won position go (before it the mover was winning,
    /// after it they no longer are), as exact values show.
    pub let_go: bool,
    /// A first sowing of a best turn, when this one was not.
    pub best: Option<Pit>,
    /// Both values are exact.
    pub exact: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Analysis {
    pub turns: Vec<TurnAnalysis>,
}

impl Analysis {
    /// One line a turn: who, what, the value before and after, and marks
    /// for a turn that lost value or let a won position go.
    pub fn text(&self, name: impl Fn(Side) -> String) -> String {
        let mut out = String::new();
        for turn in &self.turns {
            let sowings: Vec<String> = turn.sowings.iter().map(|p| p.to_string()).collect();
            let mut line = format!(
                "{:>3}. {:<8} {:<8} {:+} -> {:+}",
                turn.turn,
                name(turn.side),
                sowings.join("-"),
                turn.before,
                turn.after
            );
            if turn.lost > 0 {
                line.push_str(&format!("  lost {}", turn.lost));
                if let Some(best) = turn.best {
                    line.push_str(&format!(" (best: {best})"));
                }
            }
            if turn.let_go {
                line.push_str("  <- the won position let go");
            }
            if !turn.exact {
                line.push_str("  (not exact)");
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// Analyses every turn of `game`, each position with a budget of `nodes`.
pub fn analyze(game: &Game, tables: Option<&Tables>, nodes: u64) -> Analysis {
    let mut turns = Vec::new();
    // Replayed with its history: in Wari games a repetition ends it.
    let mut replay = Game::from_position(*game.start());
    let sowings = game.sowings();
    let mut i = 0;
    while i < sowings.len() {
        let side = sowings[i].side;
        let before_game = replay.clone();
        let mut played = Vec::new();
        while i < sowings.len() && sowings[i].side == side {
            replay.play_unchecked(sowings[i].pit);
            played.push(sowings[i].pit);
            i += 1;
        }
        let mut solver = Solver::new(tables, nodes);
        let before = solver.solve_game(&before_game);
        let after = value_for(&mut Solver::new(tables, nodes), &replay, side);
        let exact = before.exact && after.1;
        let best_value = before.moves.iter().map(|m| m.1).max();
        let best = before
            .moves
            .iter()
            .find(|m| Some(m.1) == best_value)
            .map(|m| m.0);
        // Was the turn begun with a sowing the search before it ranks best?
        let begun_best = (before.moves.iter()).any(|m| m.0 == played[0] && Some(m.1) == best_value);
        // Two estimates, each of its own search, differ by noise: a turn
        // begun best lost nothing that estimates can show, so it is valued
        // after as its search valued that sowing (a line's numbers never
        // show a drop its `lost` does not).
        let after_value = match exact || !begun_best {
            true => after.0,
            false => before.value,
        };
        let lost = before.value - after_value;
        // A turn begun best that lost (a later sowing of it): naming its
        // first sowing would tell its player nothing.
        let best = best.filter(|_| lost > 0 && !begun_best);
        turns.push(TurnAnalysis {
            turn: turns.len() / 2 + 1,
            side,
            sowings: played,
            before: before.value,
            after: after_value,
            lost,
            // Only known, never guessed from an estimate.
            let_go: before.exact && after.1 && before.value > 0 && after.0 <= 0,
            best,
            exact,
        });
    }
    Analysis { turns }
}

/// The value of the position `game` has reached for `side`, and whether
/// it is exact.
fn value_for(solver: &mut Solver, game: &Game, side: Side) -> (i32, bool) {
    let solution = solver.solve_game(game);
    let value = if game.position().to_move() == side {
        solution.value
    } else {
        -solution.value
    };
    (value, solution.exact)
}
