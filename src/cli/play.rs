//! Playing the computer: `play` at a terminal or through a pipe, `hint`,
//! and `tournament` between two opponents.

use std::io::{self, BufRead, Write as _};
use std::path::Path;
use std::time::{Duration, Instant};

use mancala::engine::{Game, Position, Rules, Side, Sowing, SplitMix64};
use mancala::opponent::{Choice, Opponent, Reason};
use mancala::sheet::{Players, Sheet};

use super::{print, CliResult, Failure};

const PLAY_HELP: &str = "\
Type a pit to sow it (a, b, c ... from your own left; c-f for a bonus sowing),
or: hint (what the strong opponent would play), undo (your last move and the
computer's reply), help, quit.
";

/// The move an opponent suggests for the side to move, in words or JSON.
pub fn hint(sheet: &Sheet, opponent: Option<Opponent>, json: bool) -> CliResult {
    // Perfect play (with the tables, where built) unless told otherwise.
    let opponent = super::solve::with_tables(
        opponent.unwrap_or(Opponent::perfect(None)),
        sheet.game.rules(),
    )?;
    let Some(choice) = opponent.choose(&sheet.game, &mut SplitMix64::new(seed())) else {
        return Err(Failure::data(
            "the game is over: there is no move to suggest",
        ));
    };
    if json {
        let value = serde_json::json!({
            "move": choice.pit.to_string(),
            "side": sheet.game.position().to_move().as_str(),
            "opponent": opponent.to_string(),
            "eval": choice.eval,
            "depth": choice.depth,
            "nodes": choice.nodes,
            "reason": choice.reason.to_string(),
        });
        print(&format!("{value}\n"))
    } else {
        print(&format!("{}\n", describe(&choice, &opponent)))
    }
}

fn describe(choice: &Choice, opponent: &Opponent) -> String {
    // The solver's values are the game's final margin, said as its reason
    // says them; only a search's own score (another scale) is a "score".
    match (choice.reason, choice.eval) {
        (Reason::Estimated(_), _) if choice.depth > 0 => format!(
            "{} ({opponent}: {} by a search of depth {})",
            choice.pit, choice.reason, choice.depth
        ),
        (Reason::Perfect(_) | Reason::Estimated(_), _) => {
            format!("{} ({opponent}: {})", choice.pit, choice.reason)
        }
        (_, Some(eval)) => format!(
            "{} ({opponent}: {}, score {eval:+} at depth {})",
            choice.pit, choice.reason, choice.depth
        ),
        _ => format!("{} ({opponent}: {})", choice.pit, choice.reason),
    }
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// An interactive game against the computer. Reads one command a line, so
/// it plays the same at a terminal and through a pipe.
pub fn play(
    start: Position,
    human: Side,
    opponent: Option<Opponent>,
    save: Option<&Path>,
) -> CliResult {
    let rules = *start.rules();
    let opponent = opponent.unwrap_or_else(|| Opponent::default_for(rules.ruleset));
    let opponent = super::solve::with_tables(opponent, &rules)?;
    let names = match human {
        Side::South => Players::named("You", "Computer"),
        Side::North => Players::named("Computer", "You"),
    };
    let mut sheet = Sheet::from_position(start, names);
    let mut rng = SplitMix64::new(seed());
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = String::new();
    out.push_str(&format!(
        "{} against {opponent}: you are {human}.\n{PLAY_HELP}\n{sheet}",
        rules.ruleset.title()
    ));
    loop {
        let Some(side) = sheet.game.to_move() else {
            out.push_str("The game is over.\n");
            break;
        };
        if side != human {
            let choice = opponent
                .choose(&sheet.game, &mut rng)
                .ok_or_else(|| Failure::data("the computer has no move"))?;
            let sowing = sheet.game.play_unchecked(choice.pit);
            out.push_str(&format!(
                "{side} plays {}: {}\n{}\n{sheet}",
                choice.pit,
                choice.reason,
                sows_again(&sheet.game, &sowing, &format!("{side} sows again"))
            ));
            continue;
        }
        out.push_str(&format!(
            "Your move ({side}; legal: {}) > ",
            sheet.game.legal_moves()
        ));
        print(&std::mem::take(&mut out))?;
        let _ = io::stdout().flush();
        let Some(Ok(line)) = lines.next() else {
            out.push_str("\nNo more input: the game stops here.\n");
            break;
        };
        let line = line.trim().to_ascii_lowercase();
        // What mail takes, the terminal takes: `move c` as well as `c`.
        let line = line
            .strip_prefix("move ")
            .map_or(line.as_str(), str::trim_start);
        match line {
            "" => {}
            "help" | "?" => out.push_str(PLAY_HELP),
            "quit" | "q" | "exit" => {
                out.push_str("You quit.\n");
                break;
            }
            "hint" => out.push_str(&hint_line(&sheet.game, &mut rng)),
            "undo" => match undone(&sheet.game, human) {
                Some(game) => {
                    sheet.game = game;
                    out.push_str(&format!("Taken back.\n\n{sheet}"));
                }
                None => out.push_str("Nothing of yours to take back.\n"),
            },
            text => sow_typed(&mut sheet, human, text, &mut out),
        }
    }
    if let Some(path) = save {
        std::fs::write(path, sheet.to_string()).map_err(|e| Failure::io(path.display(), &e))?;
        out.push_str(&format!("The sheet is saved in {}.\n", path.display()));
    }
    print(&out)
}

/// The strong opponent's move for the human, in words; none when the game
/// is over.
fn hint_line(game: &Game, rng: &mut SplitMix64) -> String {
    Opponent::strong()
        .choose(game, rng)
        .map_or_else(String::new, |choice| {
            format!("Hint: {}\n", describe(&choice, &Opponent::strong()))
        })
}

/// The human's typed move (`c`, or `c-f` for a bonus sowing): each
/// sowing played and the sheet after it, until one is refused.
fn sow_typed(sheet: &mut Sheet, human: Side, text: &str, out: &mut String) {
    let pits = match super::sowings_in(text, sheet.game.rules()) {
        Ok(pits) => pits,
        Err(e) => {
            out.push_str(&format!("{e}; type help for help\n"));
            return;
        }
    };
    for pit in pits {
        if sheet.game.to_move() != Some(human) {
            out.push_str(&format!("Your turn is over before {pit}.\n"));
            break;
        }
        match sheet.game.play(pit) {
            Ok(sowing) => out.push_str(&format!(
                "{}\n{sheet}",
                sows_again(&sheet.game, &sowing, "you sow again")
            )),
            Err(e) => {
                out.push_str(&format!("{e}\n"));
                break;
            }
        }
    }
}

/// A line saying that `sowing` earned its sower another (`again`: "you
/// sow again"), if it did and the game goes on; else nothing.
fn sows_again(game: &Game, sowing: &Sowing, again: &str) -> String {
    match sowing.bonus && !game.is_over() {
        true => format!("{} earned a bonus sowing: {again}.\n", sowing.pit),
        false => String::new(),
    }
}

/// The game without the human's last turn and everything after it.
fn undone(game: &Game, human: Side) -> Option<Game> {
    let sowings = game.sowings();
    let last = sowings.iter().rposition(|s| s.side == human)?;
    let start = sowings[..=last]
        .iter()
        .rposition(|s| s.side != human)
        .map_or(0, |i| i + 1);
    let mut replay = Game::from_position(*game.start());
    for sowing in &sowings[..start] {
        replay.play_unchecked(sowing.pit);
    }
    Some(replay)
}

/// Tallies for one side of a tournament.
#[derive(Default)]
struct Tally {
    moves: u64,
    thinking: Duration,
    nodes: u64,
}

/// `games` games between `a` and `b`, alternating who is South.
pub fn tournament(rules: Rules, a: Opponent, b: Opponent, games: usize, seed: u64) -> CliResult {
    let mut rng = SplitMix64::new(seed);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut tallies = [Tally::default(), Tally::default()];
    for n in 0..games {
        let a_side = if n % 2 == 0 { Side::South } else { Side::North };
        let mut game = Game::new(rules, Side::South);
        while let Some(side) = game.to_move() {
            if game.ply() >= 2000 {
                break; // counted as a draw: no repetition rule ends this game
            }
            let (who, player) = if side == a_side { (0, &a) } else { (1, &b) };
            let started = Instant::now();
            let choice = player
                .choose(&game, &mut rng)
                .ok_or_else(|| Failure::data("no move in an unfinished game"))?;
            tallies[who].thinking += started.elapsed();
            tallies[who].moves += 1;
            tallies[who].nodes += choice.nodes;
            game.play_unchecked(choice.pit);
        }
        match game.outcome().and_then(|o| o.winner) {
            Some(w) if w == a_side => wins += 1,
            Some(_) => losses += 1,
            None => draws += 1,
        }
    }
    let mut out = format!(
        "{} ({} stones), {games} games, sides alternating\n{a} against {b}: {wins} wins, {draws} draws, {losses} losses ({:.1}% won)\n",
        rules.ruleset,
        rules.stones,
        100.0 * wins as f64 / games.max(1) as f64
    );
    for (player, tally) in [(a, &tallies[0]), (b, &tallies[1])] {
        let per_move = tally.thinking.as_secs_f64() * 1e3 / tally.moves.max(1) as f64;
        out.push_str(&format!("{player}: {per_move:.3} ms a move"));
        if tally.nodes > 0 {
            let rate = tally.nodes as f64 / tally.thinking.as_secs_f64().max(1e-9);
            out.push_str(&format!(", {:.2} M nodes a second", rate / 1e6));
        }
        out.push('\n');
    }
    print(&out)
}
