//! Perfect play's speed: building endgame tables (positions a second) and
//! the exact solver (nodes a second) on a fixed set of positions. Run:
//! `cargo bench --bench solve`.

use std::time::Instant;

use mancala::engine::{Position, Ruleset, Side, SplitMix64};
use mancala::solve::{Solver, Tables};

const TABLE_STONES: usize = 12;

fn main() {
    for ruleset in [Ruleset::Mankala, Ruleset::Waurie, Ruleset::Kalah] {
        let rules = ruleset.rules();
        let started = Instant::now();
        let tables = Tables::build(&rules, TABLE_STONES, &mut |_, _| {}).expect("tables");
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{ruleset}: tables to {TABLE_STONES} stones in pits, {} positions in {seconds:.2} s: {:.2} million a second",
            tables.positions(),
            tables.positions() as f64 / seconds / 1e6
        );
        // Positions a little beyond the tables, reached by random play from the start.
        let mut rng = SplitMix64::new(11);
        let mut positions = Vec::new();
        while positions.len() < 20 {
            let mut position = Position::start(rules, Side::South);
            while !position.is_over() && usize::from(position.stones_in_pits()) > TABLE_STONES + 6 {
                let legal = position.legal_moves();
                let pit = legal.nth(rng.below(legal.len())).expect("a legal move");
                position.play_unchecked(pit);
            }
            if !position.is_over() {
                positions.push(position);
            }
        }
        // Waurie (win or loss) by MTD(f), and by proof numbers beside.
        let ways: &[(bool, &str)] = if ruleset == Ruleset::Waurie {
            &[(false, "MTD(f)"), (true, "df-pn")]
        } else {
            &[(false, "MTD(f)")]
        };
        for &(proof, way) in ways {
            let (mut nodes, mut exact) = (0u64, 0);
            let started = Instant::now();
            for position in &positions {
                let solver = Solver::new(Some(&tables), 5_000_000);
                let mut solver = if proof {
                    solver.by_proof_numbers()
                } else {
                    solver
                };
                exact += usize::from(solver.solve(position).exact);
                nodes += solver.nodes;
            }
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{ruleset}: solver ({way}) on 20 positions with {} stones in pits: {exact} exact, {nodes} nodes in {seconds:.2} s: {:.2} million nodes a second",
                TABLE_STONES + 6,
                nodes as f64 / seconds / 1e6
            );
        }
    }
}
