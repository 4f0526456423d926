//! Proof-number search (df-pn: Nagai's depth-first proof-number search)
//! for the games valued by win or loss alone (Waurie): it proves or
//! disproves "the mover wins" by always working on the child that looks
//! cheapest to settle, and stops at the first proof, where MTD(f) ranks
//! every move. Its table keeps each position's proof and disproof numbers.
//!
//! Each node's numbers are for its own mover: `phi`, the proof number of
//! "the mover wins", and `delta`, of "the mover loses". A bonus sowing keeps
//! the mover, so its child's numbers count as they are; otherwise they swap.

use super::memo::{Key, Path};
use super::{Scoring, Tables};
use crate::engine::Position;

/// A proof or disproof number that is settled: this side is proven.
const INF: u32 = u32::MAX;

/// Why a proof search stopped short: the caller then searches otherwise.
#[derive(Debug, PartialEq, Eq)]
pub enum Unproven {
    Budget,
    /// A position met again on the path, or a drawn ending: win or loss
    /// alone cannot say what such play is worth.
    NotWinLoss,
}

/// The proof numbers seen so far: pairs of entries (a key, then its
/// numbers and work), the first of a pair kept for the most work, the
/// second always replaced. Zeroed lazily by the system, so a large table
/// costs nothing until it is used.
struct ProofTable {
    slots: Vec<u128>,
    mask: usize,
}

impl ProofTable {
    /// A table of `entries` entries (a power of two, at least 2^16: df-pn
    /// in a table much smaller than its search re-searches what it lost,
    /// without end; 2 MB, touched only as used, costs nothing).
    fn new(entries: usize) -> ProofTable {
        let pairs = (entries / 2).max(1 << 15).next_power_of_two();
        ProofTable {
            slots: vec![0; 4 * pairs],
            mask: pairs - 1,
        }
    }

    fn get(&self, key: Key) -> Option<(u32, u32)> {
        let at = 4 * key.bucket(self.mask);
        (0..2)
            .map(|i| at + 2 * i)
            .find(|&i| self.slots[i] == key.raw())
            .map(|i| {
                let data = self.slots[i + 1];
                (data as u32, (data >> 32) as u32)
            })
    }

    fn put(&mut self, key: Key, (phi, delta): (u32, u32), work: u64) {
        let at = 4 * key.bucket(self.mask);
        let work = work.min(u64::from(u32::MAX)) as u128;
        let data = u128::from(phi) | u128::from(delta) << 32 | work << 64;
        let same = (0..2)
            .map(|i| at + 2 * i)
            .find(|&i| self.slots[i] == key.raw());
        let first_work = (self.slots[at + 1] >> 64) as u32;
        let into = match same {
            Some(i) => i,
            None if self.slots[at] == 0 || work >= u128::from(first_work) => {
                // The first entry goes to the costlier; what it held moves down.
                self.slots.copy_within(at..at + 2, at + 2);
                at
            }
            None => at + 2,
        };
        self.slots[into] = key.raw();
        self.slots[into + 1] = data;
    }
}

/// A child of the node being worked on: its position, whether the mover
/// stays, its key and, if settled, its numbers.
#[derive(Clone, Copy)]
struct Child {
    position: Position,
    same: bool,
    key: Option<Key>,
    settled: Option<(u32, u32)>,
}

/// One proof search session: its tables, table of numbers and budget.
pub struct ProofSearch<'a> {
    tables: Option<&'a Tables>,
    table: ProofTable,
    path: Path,
    pub nodes: u64,
    budget: u64,
}

impl<'a> ProofSearch<'a> {
    /// A search with `tables` (if any) and a table of `entries` entries
    /// (32 bytes each, zeroed as the system gives them).
    pub fn new(tables: Option<&'a Tables>, entries: usize) -> ProofSearch<'a> {
        ProofSearch {
            tables,
            table: ProofTable::new(entries),
            path: Path::default(),
            nodes: 0,
            budget: 0,
        }
    }

    /// Whether `position`'s mover wins (true) or loses (false), within
    /// `budget` positions (`nodes` then says how many it took).
    ///
    /// # Errors
    /// When the budget is spent, or play is not a plain win or loss.
    pub fn wins(&mut self, position: &Position, budget: u64) -> Result<bool, Unproven> {
        (self.nodes, self.budget) = (0, budget);
        let numbers = match self.settled(position)? {
            Some(numbers) => numbers,
            None => {
                let key = Key::of(position).ok_or(Unproven::NotWinLoss)?;
                self.path.clear();
                self.mid(position, key, (INF, INF))?
            }
        };
        Ok(numbers.0 == 0)
    }

    /// The numbers of a finished position, or one in the tables.
    fn settled(&self, position: &Position) -> Result<Option<(u32, u32)>, Unproven> {
        let value = if position.is_over() {
            Some(Scoring::WinLoss.final_value(position))
        } else {
            self.tables.and_then(|t| t.value(position))
        };
        match value {
            None => Ok(None),
            Some(v) if v > 0 => Ok(Some((0, INF))),
            Some(v) if v < 0 => Ok(Some((INF, 0))),
            Some(_) => Err(Unproven::NotWinLoss),
        }
    }

    /// Works on `position` until its numbers reach a threshold
    /// (`th.0` for the proof, `th.1` for the disproof); returns them.
    fn mid(
        &mut self,
        position: &Position,
        key: Key,
        th: (u32, u32),
    ) -> Result<(u32, u32), Unproven> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(Unproven::Budget);
        }
        if self.path.holds(position, key) {
            return Err(Unproven::NotWinLoss);
        }
        let mut children = [None; 8];
        for (slot, pit) in children.iter_mut().zip(position.legal_moves()) {
            let mut child = *position;
            child.play_unchecked(pit);
            *slot = Some(Child {
                position: child,
                same: child.to_move() == position.to_move(),
                key: Key::of(&child),
                settled: self.settled(&child)?,
            });
        }
        let before = self.nodes;
        self.path.push(position, key);
        let numbers = self.work_on(&children, th);
        self.path.pop();
        let numbers = numbers?;
        self.table.put(key, numbers, self.nodes - before);
        Ok(numbers)
    }

    /// [`ProofSearch::mid`]'s loop: the most proving child, again and
    /// again, until the node's numbers reach a threshold.
    fn work_on(
        &mut self,
        children: &[Option<Child>],
        th: (u32, u32),
    ) -> Result<(u32, u32), Unproven> {
        loop {
            // For this node's mover: the cost of proving each child a win
            // (w) and a loss (l); the node is the cheapest w, and all l.
            let mut phi = INF;
            let mut second = INF;
            let mut delta: u64 = 0;
            let mut best = None;
            for (i, child) in children.iter().enumerate() {
                let Some(child) = child else { continue };
                let (w, l) = self.costs(child);
                if w < phi {
                    (second, phi, best) = (phi, w, Some((i, w, l)));
                } else if w < second {
                    second = w;
                }
                delta = delta.saturating_add(u64::from(l));
            }
            let delta = if phi == 0 {
                INF
            } else {
                delta.min(u64::from(INF - 1)) as u32
            };
            let Some((i, _, l)) = best.filter(|_| phi < th.0 && delta < th.1) else {
                return Ok((phi, delta));
            };
            let child = children[i].ok_or(Unproven::NotWinLoss)?;
            let key = child.key.ok_or(Unproven::NotWinLoss)?;
            // The child is worked on until it is no longer the cheapest
            // (a second's proof number plus one) or the node's disproof
            // threshold is met.
            let th_w = th.0.min(second.saturating_mul(3).saturating_add(1));
            let th_l =
                (u64::from(th.1) - u64::from(delta) + u64::from(l)).min(u64::from(INF)) as u32;
            let child_th = if child.same {
                (th_w, th_l)
            } else {
                (th_l, th_w)
            };
            self.mid(&child.position, key, child_th)?;
        }
    }

    /// A child's (proof, disproof) costs for the parent's mover.
    fn costs(&self, child: &Child) -> (u32, u32) {
        let (phi, delta) = child
            .settled
            .or_else(|| child.key.and_then(|k| self.table.get(k)))
            .unwrap_or_else(|| (1, child.position.legal_moves().len() as u32));
        if child.same {
            (phi, delta)
        } else {
            (delta, phi)
        }
    }
}
