//! The layers of the capture games' tables (Wari, Super-Wari): one byte a
//! position, bounds on the stones the mover gains from those on the
//! board, less the opponent's, under best play to the end of the game.
//!
//! Within a layer (a fixed number of stones on the board) play can cycle,
//! and the seed's rule 5 ends a game when a position repeats, each taking
//! the stones on their own side: a path-dependent rule no table can hold
//! exactly. So each position gets two bounds by value iteration, both in
//! its byte: what its mover can force (play that never leaves the layer
//! counted as the worst for them) and what the opponent can force. Where
//! the bounds meet, the forcing play never repeats a position, so the
//! value is the game's own from that position on a fresh history (as
//! after any capture). Where they do not, the value given is the
//! position's own split (the stones on the mover's side less the
//! opponent's, as if it were the repeated one) kept within the bounds,
//! and said not to be exact.
//!
//! The iteration starts from the widest bounds and only narrows them, so
//! any order of updates, and any number of threads updating at once,
//! reaches the same fixed point: the tables are the same bytes however
//! they were built.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicI8, AtomicUsize, Ordering::Relaxed};

use super::below::{Below, Reader};
use super::rank::{spreads, unrank};
use crate::engine::{Position, Rules};

/// The most stones on the board a layer may hold: the byte holds both
/// bounds, each of the layer's parity (`k` stones end as a margin of `k`,
/// `k - 2`, ... or `-k`), and the pairs of 21 stones are 253 codes.
pub(super) const MOST_STONES: usize = 21;

/// The byte of the bounds `lower..=upper` of a layer of `stones`: the
/// pairs in order of the upper bound, then the lower.
pub(super) fn encode(lower: i32, upper: i32, stones: usize) -> i8 {
    let k = stones as i32;
    let (a, b) = ((lower + k) / 2, (upper + k) / 2);
    (b * (b + 1) / 2 + a) as u8 as i8
}

/// The bounds a byte of a layer of `stones` holds.
pub(super) fn decode(byte: i8, stones: usize) -> (i32, i32) {
    let code = i32::from(byte as u8);
    let mut b = 0;
    while (b + 1) * (b + 2) / 2 <= code {
        b += 1;
    }
    let a = code - b * (b + 1) / 2;
    let k = stones as i32;
    (2 * a - k, 2 * b - k)
}

/// What the tables say of a position of `stones` stones on the board whose
/// own split (the mover's row less the opponent's) is `split`: its value
/// for the mover, and whether it is exact.
pub(super) fn value(byte: i8, stones: usize, split: i32) -> (i32, bool) {
    let (lower, upper) = decode(byte, stones);
    (split.clamp(lower, upper), lower == upper)
}

/// One move's worth: within the layer (the child's index), or out of it,
/// worth at least `lo` and at most `hi` to the mover.
#[derive(Clone, Copy)]
enum Step {
    Within(usize),
    Out(i32, i32),
}

/// The positions of one layer and what they need of the layers below.
pub(super) struct Layer<'a> {
    /// The tables' rules (with room for any layer's stones).
    pub rules: &'a Rules,
    pub stones: usize,
    pub below: &'a Below<'a>,
}

/// Positions handed to a thread at a time.
const BLOCK: usize = 1 << 12;

/// The moves of a block's positions that had not met their bounds after
/// the first sweep, so that later sweeps need no move generation: for each,
/// its index, then its moves out of the layer folded into one pair of
/// bounds and the count of its moves within, then those moves' indices.
type Cached = Vec<u32>;

/// Moves out of the layer packed with the count within: `lo` and `hi` as
/// bytes (`i8::MIN` when there is no such move: below any value).
fn pack(lo: i32, hi: i32, within: usize) -> u32 {
    u32::from(lo.max(-128) as i8 as u8)
        | u32::from(hi.max(-128) as i8 as u8) << 8
        | (within as u32) << 16
}

fn unpack(word: u32) -> (i32, i32, usize) {
    (
        i32::from(word as u8 as i8),
        i32::from((word >> 8) as u8 as i8),
        (word >> 16) as usize,
    )
}

/// The bounds a layer is building, shared among threads.
type Bounds<'b> = (&'b [AtomicI8], &'b [AtomicI8]);

/// Narrows the bounds of `index` to `lo..=hi`; says whether they moved.
fn narrow((lower, upper): Bounds, index: usize, (l, u): (i8, i8), lo: i32, hi: i32) -> bool {
    // Bounds only narrow: a stale read only delays a change.
    let (l2, u2) = (l.max(lo as i8), u.min(hi as i8));
    if (l2, u2) == (l, u) {
        return false;
    }
    lower[index].store(l2, Relaxed);
    upper[index].store(u2, Relaxed);
    true
}

impl Layer<'_> {
    fn cells(&self) -> usize {
        2 * usize::from(self.rules.pits)
    }

    /// The position of `index`, South to move (the mover's row first).
    fn position(&self, index: usize) -> Position {
        let mut counts = [0u8; 32];
        let cells = self.cells();
        unrank(index as u64, self.stones, &mut counts[..cells]);
        super::tables::position_of(self.rules, &counts[..cells])
    }

    /// The moves of `position` (the engine's own legal moves, sown by the
    /// engine: grand slams, feeding and the forced sweep as it has them).
    fn steps(&self, position: &Position, below: &mut Reader, out: &mut [Step; 8]) -> usize {
        let mover = position.to_move();
        let mut count = 0;
        for pit in position.legal_moves() {
            let mut child = *position;
            child.play_unchecked(pit);
            // Captures and the sweep go to the mover's store alone.
            let gained = i32::from(child.store(mover)) - i32::from(position.store(mover));
            let (k, index) = super::tables::key_of(&child);
            out[count] = if k == self.stones {
                Step::Within(index as usize)
            } else if k == 0 {
                Step::Out(gained, gained)
            } else {
                let (lo, hi) = decode(below.get(k, index), k);
                Step::Out(gained - hi, gained - lo)
            };
            count += 1;
        }
        count
    }

    /// One sweep over the positions of `range` whose bounds have not met,
    /// generating their moves; says whether any bound moved. With `cache`,
    /// keeps there the moves of those whose bounds still have not met.
    fn sweep(
        &self,
        (bounds, below): (Bounds, &mut Reader),
        range: Range<usize>,
        mut cache: Option<&mut Cached>,
    ) -> bool {
        let (lower, upper) = bounds;
        let mut changed = false;
        let mut steps = [Step::Out(0, 0); 8];
        for index in range {
            let (l, u) = (lower[index].load(Relaxed), upper[index].load(Relaxed));
            if l == u {
                continue;
            }
            let position = self.position(index);
            let count = self.steps(&position, below, &mut steps);
            // No move: the mover has no stones, which play never leaves
            // (the opponent's last sowing would have swept the board).
            let none = -(self.stones as i32);
            let (mut lo, mut hi) = if count == 0 {
                (none, none)
            } else {
                (i32::MIN, i32::MIN)
            };
            let (mut out_lo, mut out_hi, mut within) = (i32::MIN, i32::MIN, 0);
            for step in &steps[..count] {
                let (a, b) = match *step {
                    Step::Out(a, b) => {
                        (out_lo, out_hi) = (out_lo.max(a), out_hi.max(b));
                        (a, b)
                    }
                    Step::Within(child) => {
                        within += 1;
                        (
                            -i32::from(upper[child].load(Relaxed)),
                            -i32::from(lower[child].load(Relaxed)),
                        )
                    }
                };
                lo = lo.max(a);
                hi = hi.max(b);
            }
            changed |= narrow(bounds, index, (l, u), lo, hi);
            let open = lower[index].load(Relaxed) != upper[index].load(Relaxed);
            if let (Some(cache), true) = (cache.as_deref_mut(), open) {
                cache.extend([index as u32, pack(out_lo, out_hi, within)]);
                cache.extend(steps[..count].iter().filter_map(|s| match *s {
                    Step::Within(child) => Some(child as u32),
                    Step::Out(..) => None,
                }));
            }
        }
        changed
    }

    /// [`Layer::sweep`] over the positions a block's cache holds.
    fn sweep_cached(bounds: Bounds, cache: &Cached) -> bool {
        let (lower, upper) = bounds;
        let mut changed = false;
        let mut at = 0;
        while at < cache.len() {
            let index = cache[at] as usize;
            let (mut lo, mut hi, within) = unpack(cache[at + 1]);
            let children = &cache[at + 2..at + 2 + within];
            at += 2 + within;
            let (l, u) = (lower[index].load(Relaxed), upper[index].load(Relaxed));
            if l == u {
                continue;
            }
            for &child in children {
                lo = lo.max(-i32::from(upper[child as usize].load(Relaxed)));
                hi = hi.max(-i32::from(lower[child as usize].load(Relaxed)));
            }
            changed |= narrow(bounds, index, (l, u), lo, hi);
        }
        changed
    }

    /// Builds the layer on `threads` threads, sweeping it until no bound
    /// moves; returns its bytes and the sweeps it took. The first sweep
    /// keeps the moves of the positions left open, up to `cache` bytes
    /// (the blocks beyond generate theirs again each sweep).
    pub fn build(&self, threads: usize, cache: usize) -> (Vec<i8>, u32) {
        let size = spreads(self.stones, self.cells()) as usize;
        let k = self.stones as i8;
        let lower: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(-k)).collect();
        let upper: Vec<AtomicI8> = (0..size).map(|_| AtomicI8::new(k)).collect();
        let bounds = (&lower[..], &upper[..]);
        let blocks = size.div_ceil(BLOCK);
        let room = AtomicUsize::new(cache);
        let mut caches: Vec<Option<Cached>> = Vec::new();
        let mut sweeps = 0;
        loop {
            let next = AtomicUsize::new(0);
            let changed = AtomicBool::new(false);
            let first = sweeps == 0;
            let caches_read = &caches;
            let work = || {
                let mut kept = Vec::new();
                let mut below = self.below.reader();
                loop {
                    let block = next.fetch_add(1, Relaxed);
                    if block >= blocks {
                        break kept;
                    }
                    let range = block * BLOCK..((block + 1) * BLOCK).min(size);
                    let moved = match caches_read.get(block) {
                        Some(Some(cached)) => Self::sweep_cached(bounds, cached),
                        _ if first => {
                            let mut cached = Cached::new();
                            let moved = self.sweep((bounds, &mut below), range, Some(&mut cached));
                            if take(&room, cached.len() * 4) {
                                cached.shrink_to_fit();
                                kept.push((block, cached));
                            }
                            moved
                        }
                        _ => self.sweep((bounds, &mut below), range, None),
                    };
                    if moved {
                        changed.store(true, Relaxed);
                    }
                }
            };
            let kept: Vec<(usize, Cached)> = std::thread::scope(|scope| {
                let others: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
                let mut kept = work();
                for other in others {
                    // A sweep's thread cannot panic but by a bug: its
                    // blocks then go uncached, never wrong.
                    kept.extend(other.join().unwrap_or_default());
                }
                kept
            });
            if first {
                caches = (0..blocks).map(|_| None).collect();
                for (block, cached) in kept {
                    caches[block] = Some(cached);
                }
            }
            sweeps += 1;
            if !changed.load(Relaxed) {
                break;
            }
        }
        let bytes = lower
            .iter()
            .zip(&upper)
            .map(|(l, u)| encode(l.load(Relaxed).into(), u.load(Relaxed).into(), self.stones))
            .collect();
        (bytes, sweeps)
    }
}

/// Takes `bytes` from `room` if that many are left.
fn take(room: &AtomicUsize, bytes: usize) -> bool {
    room.fetch_update(Relaxed, Relaxed, |left| left.checked_sub(bytes))
        .is_ok()
}
