//! Random playouts per ruleset: sowings per second on one core, with the
//! full rules (legal moves, captures, repetition). Run: `cargo bench`.
//!
//! It also checks what it times: every playout conserves the stones and
//! ends, so a broken engine cannot post a fast figure.

use std::time::{Duration, Instant};

use mancala::engine::{Game, Ruleset, Side, SplitMix64};

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

fn main() {
    let seconds: f64 = std::env::var("PLAYOUT_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let budget = Duration::from_secs_f64(seconds);
    let mut rng = SplitMix64::new(2026);
    println!("random playouts, one core, {seconds} s each");
    for ruleset in Ruleset::ALL {
        let started = Instant::now();
        let (sowings, games) = playouts(ruleset, budget, &mut rng);
        let rate = sowings as f64 / started.elapsed().as_secs_f64();
        println!(
            "{:<11} {:>6.2} M sowings/s  {:>8} games  {:>6.1} sowings/game",
            ruleset.as_str(),
            rate / 1e6,
            games,
            sowings as f64 / games as f64
        );
    }
}
