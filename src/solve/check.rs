//! The tables checked against the engine: every position of every layer
//! is worth the best of its moves as the engine plays them (its bounds, in
//! Wari games), each move valued by the tables themselves. A build that
//! misread a rule (a capture, the grand slam, feeding, a free turn) or a
//! damaged file fails it at the first position it gets wrong.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use super::rank::{spreads, unrank};
use super::tables::{default_threads, Tables};
use crate::engine::{Position, Side};

/// Positions a thread checks between two reports of progress.
const BATCH: u64 = 65_536;

/// A position whose tables' bounds are not the best of its moves'.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{position:?} (the stones off the board split between the homes): the tables give \
     {says:?}, the best of its moves {moves:?} (lower and upper bound, for the side to move)"
)]
pub struct Disagreement {
    pub position: Position,
    pub says: (i32, i32),
    pub moves: (i32, i32),
}

impl Tables {
    /// Checks every position of every layer (South to move: the tables
    /// hold no other) on every core, calling `progress(done, total)` now
    /// and then; the number of positions looked at (those already over
    /// are the rules' to value: the tables' bytes for them are never read).
    ///
    /// # Errors
    /// The first position found whose bounds are not its moves' best.
    pub fn check_against_engine(
        &self,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, Disagreement> {
        let rules = self.rules();
        let cells = 2 * usize::from(rules.pits);
        let total: u64 = (1..=self.max_stones()).map(|k| spreads(k, cells)).sum();
        let done = AtomicU64::new(0);
        // Set at the first disagreement, so that the other threads stop.
        let found = AtomicBool::new(false);
        let threads = default_threads() as u64;
        for k in 1..=self.max_stones() {
            let size = spreads(k, cells);
            let chunk = size.div_ceil(threads);
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..threads)
                    .map(|t| {
                        let range = (t * chunk).min(size)..((t + 1) * chunk).min(size);
                        let (done, found) = (&done, &found);
                        scope.spawn(move || {
                            let mut start = range.start;
                            while start < range.end && !found.load(Relaxed) {
                                let end = (start + BATCH).min(range.end);
                                for index in start..end {
                                    if let Err(disagreement) = self.check_position(k, index) {
                                        found.store(true, Relaxed);
                                        return Err(disagreement);
                                    }
                                }
                                progress(done.fetch_add(end - start, Relaxed) + end - start, total);
                                start = end;
                            }
                            Ok(())
                        })
                    })
                    .collect();
                workers.into_iter().try_for_each(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
            })?;
        }
        progress(total, total);
        Ok(total)
    }

    /// The position of layer `k` at `index`, with the stones off the board
    /// split evenly between the homes, against its moves.
    fn check_position(&self, k: usize, index: u64) -> Result<(), Disagreement> {
        let rules = self.rules();
        let n = usize::from(rules.pits);
        let mut counts = [0u8; 2 * crate::engine::MAX_PITS as usize];
        let counts = &mut counts[..2 * n];
        unrank(index, k, counts);
        let rest = rules.total_stones() - k as u16;
        let homes = [(rest / 2) as u8, (rest - rest / 2) as u8];
        let position = Position::from_counts(rules, &counts[..n], &counts[n..], homes, Side::South)
            .expect("a layer's counts fit its rules");
        if position.is_over() {
            // Valued by the rules' end, not by the tables' bytes.
            return Ok(());
        }
        let says = self
            .bounds(&position)
            .expect("the position is in its layer");
        let mut best = None::<(i32, i32)>;
        for pit in position.legal_moves() {
            let mut child = position;
            child.play_unchecked(pit);
            let (lower, upper) = self.bounds(&child).expect("a move never adds stones");
            let (lower, upper) = if child.to_move() == position.to_move() {
                (lower, upper)
            } else {
                (-upper, -lower)
            };
            best = Some(best.map_or((lower, upper), |(l, u)| (l.max(lower), u.max(upper))));
        }
        // A mover without stones: the opponent's last sowing took them all.
        let home = i32::from(homes[0]) - i32::from(homes[1]);
        let moves = best.unwrap_or((home - k as i32, home - k as i32));
        if says == moves {
            Ok(())
        } else {
            Err(Disagreement {
                position,
                says,
                moves,
            })
        }
    }
}
