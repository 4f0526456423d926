//! Random playouts per ruleset: sowings per second on one core. Two
//! figures: whole games (`Game`: legal moves, captures, the record and the
//! repetition rule), and positions alone (`Position`: legal moves, sowing,
//! captures, the end by the board; what a search's inner loop runs, with
//! repetition left to the search). Run: `cargo bench --bench playouts`.
//!
//! It also checks what it times: every playout conserves the stones and
//! ends, so a broken engine cannot post a fast figure.

use std::time::{Duration, Instant};

use mancala::engine::{Game, Position, Ruleset, Side, SplitMix64};

/// Plays random games until `budget` has passed; returns (sowings, games).
fn playouts(ruleset: Ruleset, budget: Duration, rng: &mut SplitMix64) -> (u64, u64) {
    let rules = ruleset.rules();
    let total = rules.total_stones();
    let (mut sowings, mut games) = (0u64, 0u64);
    let started = Instant::now();
    while started.elapsed() < budget {
        for _ in 0..1000 {
            let mut game = Game::new(rules, Side::South);
            // Mankala has no repetition rule; a cap keeps a freak cycle finite.
            while !game.is_over() && game.ply() < 5000 {
                let legal = game.legal_moves();
                let pit = legal.nth(rng.below(legal.len())).expect("a legal move");
                game.play_unchecked(pit);
            }
            let p = game.position();
            let stones: u16 = Side::BOTH
                .iter()
                .map(|&s| p.row_total(s) + u16::from(p.store(s)))
                .sum();
            assert_eq!(stones, total, "stones not conserved in {ruleset}");
            sowings += game.ply() as u64;
            games += 1;
        }
    }
    (sowings, games)
}

/// Random sowings on positions alone until `budget` has passed; returns sowings.
fn position_playouts(ruleset: Ruleset, budget: Duration, rng: &mut SplitMix64) -> u64 {
    let rules = ruleset.rules();
    let mut sowings = 0u64;
    let started = Instant::now();
    while started.elapsed() < budget {
        for _ in 0..1000 {
            let mut position = Position::start(rules, Side::South);
            // No repetition rule here: a cap ends the rare endless game.
            for _ in 0..1000 {
                let legal = position.legal_moves();
                let Some(pit) = legal.nth(rng.below(legal.len().max(1))) else {
                    break;
                };
                position.play_unchecked(pit);
                sowings += 1;
            }
            let stones: u16 = Side::BOTH
                .iter()
                .map(|&s| position.row_total(s) + u16::from(position.store(s)))
                .sum();
            assert_eq!(
                stones,
                rules.total_stones(),
                "stones not conserved in {ruleset}"
            );
        }
    }
    sowings
}

fn main() {
    let seconds: f64 = std::env::var("PLAYOUT_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let budget = Duration::from_secs_f64(seconds);
    let mut rng = SplitMix64::new(2026);
    println!("random playouts, one core, {seconds} s each; millions of sowings a second");
    println!(
        "{:<11} {:>8} {:>10} {:>14}",
        "ruleset", "games", "positions", "sowings/game"
    );
    for ruleset in Ruleset::ALL {
        let started = Instant::now();
        let (sowings, games) = playouts(ruleset, budget, &mut rng);
        let game_rate = sowings as f64 / started.elapsed().as_secs_f64();
        let started = Instant::now();
        let position_sowings = position_playouts(ruleset, budget, &mut rng);
        let position_rate = position_sowings as f64 / started.elapsed().as_secs_f64();
        println!(
            "{:<11} {:>8.2} {:>10.2} {:>14.1}",
            ruleset.as_str(),
            game_rate / 1e6,
            position_rate / 1e6,
            sowings as f64 / games as f64
        );
    }
}
