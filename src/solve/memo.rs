//! The solver's transposition table: an array of the bounds worked out so
//! far, bounded in size, so a long solve fills it and then replaces what is
//! cheapest to work out again, instead of growing without end. It starts
//! small and doubles in place, so a short solve costs little whatever the
//! bound, and a doubling never holds the old array beside the new.
//!
//! An entry is one `u128`: the position's key (its pits, the mover's row
//! first: 12 bytes, the whole position, so two positions never share an
//! entry by accident), and the bounds of what the pits are worth to the
//! mover (the value less the homes' constant, as in the tables), the best
//! first sowing found, and the work it took. An all-zero entry is empty:
//! its key, no stones in any pit, is a finished game, never stored.
//! Iterative deepening's entries (bounds of a depth-limited search, its
//! depth where the work goes, flagged by the work byte's top bit) give the
//! exact search their best move only. Threads searching one position share
//! a memo in shards ([`Shards`]), each shard a table behind its own lock.

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::engine::Position;

/// The most cells a key holds: six pits a side.
const KEY_CELLS: usize = 12;
const KEY_BITS: u32 = 8 * KEY_CELLS as u32;
/// A bound no value reaches: values lie within the stones in pits (at most 100).
const OPEN: i8 = i8::MIN;
const NO_MOVE: u8 = u8::MAX;
/// The work byte's flag for a depth-limited search's entry (its depth
/// below): a game's entry's work is at most 64.
const HORIZON: u8 = 0x80;

/// The depth of a depth-limited search's entry; none for the game's.
fn horizon_of(slot: u128) -> Option<u8> {
    let work = Known::unpack(slot).work;
    (work & HORIZON != 0).then_some(work & !HORIZON)
}

/// A position as the memo knows it: the pits, the mover's row first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(u128);

impl Key {
    /// The key of `position`, or none for boards of more than 12 pits.
    pub fn of(position: &Position) -> Option<Key> {
        let n = usize::from(position.rules().pits);
        if 2 * n > KEY_CELLS {
            return None;
        }
        let mover = position.to_move();
        let mut bytes = [0u8; 16];
        bytes[..n].copy_from_slice(position.pits(mover));
        bytes[n..2 * n].copy_from_slice(position.pits(mover.other()));
        Some(Key(u128::from_le_bytes(bytes)))
    }

    /// The key's bits: the pits, a byte each.
    pub(super) fn raw(self) -> u128 {
        self.0
    }

    /// Where the key's pair of entries lies in a table of `mask + 1` pairs.
    pub(super) fn bucket(self, mask: usize) -> usize {
        (self.hash() as usize) & mask
    }

    fn hash(self) -> u64 {
        let lo = self.0 as u64;
        let hi = (self.0 >> 64) as u64;
        let mut h = lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ hi.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 31;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
        h
    }
}

/// The positions on a search's path, for telling play that cycles. Stones
/// in pits never increase, so only the tail with as many stones as a
/// position can hold it.
#[derive(Default)]
pub(super) struct Path(Vec<(u16, Key)>);

impl Path {
    /// Whether `position` (whose key is `key`) is on the path.
    pub(super) fn holds(&self, position: &Position, key: Key) -> bool {
        let stones = position.stones_in_pits();
        self.0
            .iter()
            .rev()
            .take_while(|(s, _)| *s == stones)
            .any(|(_, k)| *k == key)
    }

    pub(super) fn push(&mut self, position: &Position, key: Key) {
        self.0.push((position.stones_in_pits(), key));
    }

    pub(super) fn pop(&mut self) {
        self.0.pop();
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    /// The positions on the path.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
}

/// What is known of a position's worth to its mover, less the homes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// The bounds; `None` for no bound on that side.
    pub lower: Option<i32>,
    pub upper: Option<i32>,
    /// The first sowing that gave the best value found (its pit's index).
    pub best: Option<u8>,
    /// About log2 of the positions searched to learn this.
    pub work: u8,
}

impl Known {
    fn pack(self, key: Key) -> u128 {
        // A bound beyond a byte is weakened, never tightened: a lower bound
        // too low (or an upper one too high) is no bound, one too high (too
        // low) is the byte's end. Values lie within the stones in pits, so
        // neither happens in these games.
        let lower = match self.lower {
            Some(v) if v >= -127 => v.min(127) as i8,
            _ => OPEN,
        };
        let upper = match self.upper {
            Some(v) if v <= 127 => v.max(-127) as i8,
            _ => OPEN,
        };
        key.0
            | u128::from(lower as u8) << KEY_BITS
            | u128::from(upper as u8) << (KEY_BITS + 8)
            | u128::from(self.best.unwrap_or(NO_MOVE)) << (KEY_BITS + 16)
            | u128::from(self.work) << (KEY_BITS + 24)
    }

    fn unpack(slot: u128) -> Known {
        let byte = |at: u32| (slot >> (KEY_BITS + at)) as u8;
        let bound = |b: u8| (b as i8 != OPEN).then_some(i32::from(b as i8));
        Known {
            lower: bound(byte(0)),
            upper: bound(byte(8)),
            best: Some(byte(16)).filter(|&m| m != NO_MOVE),
            work: byte(24),
        }
    }
}

fn key_of(slot: u128) -> u128 {
    slot & ((1u128 << KEY_BITS) - 1)
}

/// The table: pairs of entries, the first kept for the most work, the
/// second always replaced.
pub struct Memo {
    slots: Vec<u128>,
    mask: usize,
    /// Entries held, and the most pairs the table may grow to.
    filled: usize,
    most_pairs: usize,
}

impl Memo {
    const SMALLEST: usize = 1024;

    /// A table that starts at 1024 entries (16 KB) and doubles as it
    /// fills, up to at most `entries` entries (the largest power of two
    /// within, and at least 1024), 16 bytes each: a short search then
    /// takes only the memory it needs, however large the bound.
    pub fn growing(entries: usize) -> Memo {
        Memo {
            slots: vec![0; Memo::SMALLEST],
            mask: Memo::SMALLEST / 2 - 1,
            filled: 0,
            most_pairs: pairs_within(entries),
        }
    }

    /// As [`Memo::growing`], first asking the system whether it could give
    /// the whole bound (reserving address space only: nothing is touched,
    /// so this costs no time), so that a bound beyond the machine is
    /// refused at once rather than met hours into a solve.
    ///
    /// # Errors
    /// When the system would not give that much memory.
    pub fn growing_within(entries: usize) -> Result<Memo, TryReserveError> {
        let memo = Memo::growing(entries);
        Vec::<u128>::new().try_reserve_exact(2 * memo.most_pairs)?;
        Ok(memo)
    }

    /// The most bytes the table may grow to.
    pub fn most_bytes(&self) -> usize {
        self.most_pairs * 32
    }

    /// The bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 16
    }

    /// What is known of `key` for the exact search: the bounds of a
    /// depth-limited search (see [`Memo::put_horizon`]) left out, its best
    /// move kept.
    pub fn get(&self, key: Key) -> Option<Known> {
        self.at_depth(key, u8::MAX)
    }

    /// What is known of `key` for a depth-limited search `depth` deep:
    /// the game's bounds, and those of a depth-limited search at least as
    /// deep.
    pub fn at_depth(&self, key: Key, depth: u8) -> Option<Known> {
        let slot = self.slot(key)?;
        let mut known = Known::unpack(slot);
        if let Some(horizon) = horizon_of(slot) {
            known.work = 0;
            if horizon < depth {
                (known.lower, known.upper) = (None, None);
            }
        }
        Some(known)
    }

    /// What is held for `key`, as stored: the bounds, best move and
    /// work, with the depth of the depth-limited search behind them (none
    /// for the game's own bounds).
    pub fn entry(&self, key: Key) -> Option<(Known, Option<u8>)> {
        let slot = self.slot(key)?;
        Some((Known::unpack(slot), horizon_of(slot)))
    }

    fn slot(&self, key: Key) -> Option<u128> {
        if key.0 == 0 {
            return None;
        }
        let at = 2 * key.bucket(self.mask);
        self.slots[at..at + 2]
            .iter()
            .find(|&&slot| key_of(slot) == key.0)
            .copied()
    }

    /// Keeps bounds found by a search `depth` deep whose horizon was
    /// reached (the homes' difference there): bounds for such searches
    /// only, never the game's, kept below the game's (an entry holding
    /// those keeps them, and takes only the best move) and below deeper
    /// ones, and the first replaced.
    pub fn put_horizon(&mut self, key: Key, mut known: Known, depth: u8) {
        let depth = depth.min(HORIZON - 1);
        if let Some(i) = self.index_of(key) {
            let slot = self.slots[i];
            let old = Known::unpack(slot);
            match horizon_of(slot) {
                Some(d) if d == depth => {
                    known.lower = max_bound(known.lower, old.lower);
                    known.upper = min_bound(known.upper, old.upper);
                }
                Some(d) if d < depth => {}
                _ => {
                    // The game's bounds, or a deeper search's, stay.
                    let best = known.best.or(old.best);
                    known = Known { best, ..old };
                    if horizon_of(slot).is_none() {
                        self.slots[i] = known.pack(key);
                        return;
                    }
                }
            }
            known.work = HORIZON | depth.max(horizon_of(slot).unwrap_or(0));
            self.slots[i] = known.pack(key);
            return;
        }
        known.work = HORIZON | depth;
        self.insert(key, known);
    }

    fn index_of(&self, key: Key) -> Option<usize> {
        let at = 2 * key.bucket(self.mask);
        (at..at + 2).find(|&i| key_of(self.slots[i]) == key.0)
    }

    /// Keeps `known` for `key`, the tighter of its bounds and any already held.
    pub fn put(&mut self, key: Key, mut known: Known) {
        // Above this, a work would read as a depth-limited search's entry.
        known.work = known.work.min(HORIZON - 1);
        if let Some(i) = self.index_of(key) {
            let slot = self.slots[i];
            let old = Known::unpack(slot);
            if horizon_of(slot).is_none() {
                known.lower = max_bound(known.lower, old.lower);
                known.upper = min_bound(known.upper, old.upper);
                known.work = known.work.max(old.work);
            }
            if known.best.is_none() {
                known.best = old.best;
            }
            self.slots[i] = known.pack(key);
        } else {
            self.insert(key, known);
        }
    }

    /// A key not held: into its pair, the costlier entry first (a
    /// depth-limited search's the cheapest), the other dropped.
    fn insert(&mut self, key: Key, known: Known) {
        let at = 2 * key.bucket(self.mask);
        let [first, second] = [self.slots[at], self.slots[at + 1]];
        if second == 0 {
            self.filled += 1;
        }
        let work = |slot: u128, work: u8| match slot != 0 && work & HORIZON == 0 {
            true => work,
            false => 0,
        };
        let packed = known.pack(key);
        if work(packed, known.work) >= work(first, Known::unpack(first).work) || first == 0 {
            // The first entry goes to the costlier; what it held moves down.
            self.slots[at + 1] = first;
            self.slots[at] = packed;
        } else {
            self.slots[at + 1] = packed;
        }
        // At a quarter full, few pairs have lost a key yet.
        if 4 * self.filled > self.slots.len() && self.mask + 1 < self.most_pairs {
            self.grow();
        }
    }

    /// Doubles the table in place, keeping all it holds; short of
    /// memory, it stops growing instead. The array is extended (a large
    /// one is remapped, not copied), and each entry either stays in its
    /// pair or moves to the pair as far above as the table was long: the
    /// hash's next bit decides. So the table never holds more than its
    /// new size, and no entry is lost.
    fn grow(&mut self) {
        let pairs = self.mask + 1;
        if self.slots.try_reserve_exact(2 * pairs).is_err() {
            self.most_pairs = pairs;
            return;
        }
        self.slots.resize(4 * pairs, 0);
        self.mask = 2 * pairs - 1;
        for low in 0..pairs {
            let held = [self.slots[2 * low], self.slots[2 * low + 1]];
            self.slots[2 * low..2 * low + 2].fill(0);
            // The first (costlier) entry first, so it stays first.
            for slot in held.into_iter().filter(|&s| s != 0) {
                let at = 2 * Key(key_of(slot)).bucket(self.mask);
                let free = if self.slots[at] == 0 { at } else { at + 1 };
                self.slots[free] = slot;
            }
        }
    }
}

/// A solver's memo: its own, or one shared among threads searching the
/// same position ([`Shards`]).
pub enum Memos {
    Own(Memo),
    Shared(Arc<Shards>),
}

impl Memos {
    /// See [`Memo::get`].
    pub fn get(&self, key: Key) -> Option<Known> {
        match self {
            Memos::Own(memo) => memo.get(key),
            Memos::Shared(shards) => shards.of(key).get(key),
        }
    }

    /// See [`Memo::entry`].
    pub fn entry(&self, key: Key) -> Option<(Known, Option<u8>)> {
        match self {
            Memos::Own(memo) => memo.entry(key),
            Memos::Shared(shards) => shards.of(key).entry(key),
        }
    }

    /// See [`Memo::put`].
    pub fn put(&mut self, key: Key, known: Known) {
        match self {
            Memos::Own(memo) => memo.put(key, known),
            Memos::Shared(shards) => shards.of(key).put(key, known),
        }
    }

    /// See [`Memo::put_horizon`].
    pub fn put_horizon(&mut self, key: Key, known: Known, depth: u8) {
        match self {
            Memos::Own(memo) => memo.put_horizon(key, known, depth),
            Memos::Shared(shards) => shards.of(key).put_horizon(key, known, depth),
        }
    }

    /// The most bytes the memo may grow to.
    pub fn most_bytes(&self) -> usize {
        match self {
            Memos::Own(memo) => memo.most_bytes(),
            Memos::Shared(shards) => shards.most_bytes,
        }
    }

    /// The memo to share among threads: this one if shared already, else
    /// an empty one of the same bound in its place (what it held is lost).
    pub fn shared(&mut self) -> Arc<Shards> {
        if let Memos::Own(memo) = self {
            *self = Memos::Shared(Arc::new(Shards::new(memo.most_bytes() / 16)));
        }
        match self {
            Memos::Shared(shards) => shards.clone(),
            Memos::Own(_) => unreachable!("made shared above"),
        }
    }
}

/// A memo shared among threads: [`Memo`]s each behind a lock, a key's
/// shard chosen by its hash's top bits (its pair within by the low ones),
/// so that two threads seldom wait on one another.
pub struct Shards {
    shards: Vec<Mutex<Memo>>,
    most_bytes: usize,
    /// The positions some thread is searching now, a key's hash a slot
    /// (0 for none), so that another thread can take a sibling first
    /// (simplified ABDADA): a clash only defers a move, never skips it.
    busy: Vec<AtomicU64>,
}

impl Shards {
    const COUNT: usize = 256;
    const BUSY: usize = 1 << 16;

    /// Shards holding at most `entries` entries in all, each growing as
    /// [`Memo::growing`].
    pub fn new(entries: usize) -> Shards {
        let shards: Vec<Mutex<Memo>> = (0..Shards::COUNT)
            .map(|_| Mutex::new(Memo::growing(entries / Shards::COUNT)))
            .collect();
        let most_bytes = shards
            .iter()
            .map(|s| s.lock().map_or(0, |m| m.most_bytes()))
            .sum();
        let busy = (0..Shards::BUSY).map(|_| AtomicU64::new(0)).collect();
        Shards {
            shards,
            most_bytes,
            busy,
        }
    }

    /// Whether another thread is searching `key` now.
    pub fn is_busy(&self, key: Key) -> bool {
        let h = key.hash() | 1;
        self.busy[h as usize % Shards::BUSY].load(Ordering::Relaxed) == h
    }

    /// Marks `key` searched by this thread until [`Shards::done`].
    pub fn start(&self, key: Key) {
        let h = key.hash() | 1;
        self.busy[h as usize % Shards::BUSY].store(h, Ordering::Relaxed);
    }

    /// Unmarks `key`, unless another position took its slot since.
    pub fn done(&self, key: Key) {
        let h = key.hash() | 1;
        let slot = &self.busy[h as usize % Shards::BUSY];
        let _ = slot.compare_exchange(h, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    fn of(&self, key: Key) -> MutexGuard<'_, Memo> {
        let shard = (key.hash() >> 56) as usize % Shards::COUNT;
        // A thread that panicked holding a lock is a bug passed on by its
        // join; the memo's entries are whole either way.
        self.shards[shard]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The pairs in a table of at most `entries` entries: the largest power of
/// two within the bound, and no fewer than the smallest table's.
fn pairs_within(entries: usize) -> usize {
    1 << (entries / 2).max(Memo::SMALLEST / 2).ilog2()
}

fn max_bound(a: Option<i32>, b: Option<i32>) -> Option<i32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn min_bound(a: Option<i32>, b: Option<i32>) -> Option<i32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Ruleset, Side};

    fn position(south: [u8; 6], north: [u8; 6], to_move: Side) -> Position {
        let rules = Ruleset::Mankala.rules();
        let rest = rules.total_stones()
            - south
                .iter()
                .chain(&north)
                .map(|&c| u16::from(c))
                .sum::<u16>();
        Position::from_counts(rules, &south, &north, [rest as u8, 0], to_move).unwrap()
    }

    #[test]
    fn an_entry_round_trips_and_keys_are_the_movers_view() {
        let mut memo = Memo::growing(1024);
        let south = position([1, 2, 3, 0, 0, 4], [0, 5, 0, 0, 0, 1], Side::South);
        let mirror = position([0, 5, 0, 0, 0, 1], [1, 2, 3, 0, 0, 4], Side::North);
        let key = Key::of(&south).unwrap();
        assert_eq!(Key::of(&mirror), Some(key));
        let known = Known {
            lower: Some(-3),
            upper: None,
            best: Some(5),
            work: 17,
        };
        memo.put(key, known);
        assert_eq!(memo.get(key), Some(known));
        // Bounds learnt later narrow what is held.
        memo.put(
            key,
            Known {
                lower: Some(-5),
                upper: Some(4),
                best: None,
                work: 2,
            },
        );
        let held = memo.get(key).unwrap();
        assert_eq!(
            (held.lower, held.upper, held.best, held.work),
            (Some(-3), Some(4), Some(5), 17)
        );
        let other = position([1, 2, 3, 0, 0, 4], [0, 5, 0, 0, 1, 0], Side::South);
        assert_eq!(memo.get(Key::of(&other).unwrap()), None);
    }

    #[test]
    fn bounds_beyond_a_byte_are_weakened_never_tightened() {
        let key = Key(1);
        let packed = |lower, upper| {
            let known = Known {
                lower,
                upper,
                best: None,
                work: 0,
            };
            let held = Known::unpack(known.pack(key));
            (held.lower, held.upper)
        };
        assert_eq!(packed(Some(-130), Some(130)), (None, None));
        assert_eq!(packed(Some(130), Some(-130)), (Some(127), Some(-127)));
        assert_eq!(packed(Some(-127), Some(127)), (Some(-127), Some(127)));
    }

    #[test]
    fn a_growing_table_keeps_what_it_held() {
        let mut memo = Memo::growing(1 << 20);
        let entries: Vec<(Key, Known)> = (0..5000u32)
            .map(|n| {
                // Any 96-bit pattern but zero is a key here.
                let key = Key(u128::from(n).wrapping_mul(0x9E37_79B9) % (1 << 90) + 1);
                let known = Known {
                    lower: Some(n as i32 % 50),
                    upper: None,
                    best: Some(2),
                    work: 30,
                };
                (key, known)
            })
            .collect();
        for &(key, known) in &entries {
            memo.put(key, known);
        }
        assert!(memo.bytes() > Memo::SMALLEST * 16, "it grew");
        assert!(memo.bytes() <= (1 << 20) * 16);
        // A cache: a pair holds two of the keys that land on it, so a few
        // go, but what it answers is what was put.
        let mut kept = 0;
        for &(key, known) in &entries {
            if let Some(held) = memo.get(key) {
                assert_eq!(held, known);
                kept += 1;
            }
        }
        assert!(
            kept * 10 >= entries.len() * 9,
            "{kept} of {} kept",
            entries.len()
        );
    }

    /// Distinct keys (any 96-bit pattern but zero is a key here).
    fn keys(n: u32) -> impl Iterator<Item = Key> {
        (1..=n).map(|i| Key(u128::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) % (1 << 90) + 1))
    }

    fn with_work(work: u8) -> Known {
        Known {
            lower: Some(1),
            upper: None,
            best: None,
            work,
        }
    }

    #[test]
    fn a_doubling_is_in_place_and_loses_nothing() {
        let mut memo = Memo::growing(1 << 12);
        // Fill the smallest table past a quarter without letting it grow,
        // so that pairs hold two entries and some keys were pushed out.
        memo.most_pairs = memo.mask + 1;
        for (n, key) in keys(700).enumerate() {
            memo.put(key, with_work(n as u8));
        }
        let held: Vec<u128> = memo.slots.iter().copied().filter(|&s| s != 0).collect();
        assert!(held.len() > 512, "{} held", held.len());
        memo.most_pairs = 1 << 11;
        memo.grow();
        assert_eq!(memo.slots.len(), 2 * Memo::SMALLEST);
        assert_eq!(
            memo.slots.capacity(),
            memo.slots.len(),
            "one array, no spare"
        );
        let after = memo.slots.iter().filter(|&&s| s != 0).count();
        assert_eq!(after, held.len(), "no entry lost or made");
        for &slot in &held {
            let key = Key(key_of(slot));
            assert_eq!(memo.get(key), Some(Known::unpack(slot)));
            // A pair's costlier entry is still its first.
            let at = 2 * key.bucket(memo.mask);
            let pair = [memo.slots[at], memo.slots[at + 1]];
            if pair[1] != 0 {
                assert!(Known::unpack(pair[0]).work >= Known::unpack(pair[1]).work);
            }
        }
    }

    #[test]
    fn a_growing_table_never_holds_more_than_its_bound() {
        // A bound of 2^14 entries (256 KB), met with 50,000 keys: at every
        // step the one array is within the bound, and it ends at the bound.
        let bound = 1 << 14;
        let mut memo = Memo::growing(bound);
        assert_eq!(memo.bytes(), Memo::SMALLEST * 16, "it starts small");
        let mut most = 0;
        for key in keys(50_000) {
            memo.put(key, with_work(1));
            assert!(memo.slots.capacity() <= bound, "{}", memo.slots.capacity());
            most = most.max(memo.bytes());
        }
        assert_eq!(most, bound * 16);
        assert_eq!(memo.most_bytes(), bound * 16);
        // Asking for more than any machine has is refused at once.
        assert!(Memo::growing_within(usize::MAX / 4).is_err());
        assert!(Memo::growing_within(bound).is_ok());
    }

    #[test]
    fn a_full_table_keeps_the_costliest_and_the_latest() {
        // One pair only: every key lands in it.
        let mut memo = Memo {
            slots: vec![0; 2],
            mask: 0,
            filled: 0,
            most_pairs: 1,
        };
        let keys: Vec<Key> = (1..=3u8)
            .map(|c| Key::of(&position([c, 0, 0, 0, 0, 1], [0; 6], Side::South)).unwrap())
            .collect();
        let with = |work| Known {
            lower: Some(0),
            upper: Some(0),
            best: None,
            work,
        };
        memo.put(keys[0], with(9));
        memo.put(keys[1], with(3));
        memo.put(keys[2], with(4));
        assert!(memo.get(keys[0]).is_some(), "the costliest stays");
        assert!(memo.get(keys[1]).is_none(), "the cheaper one is replaced");
        assert!(memo.get(keys[2]).is_some(), "the latest is held");
    }

    #[test]
    fn a_depth_limited_entry_never_gives_the_game_bounds() {
        let mut memo = Memo::growing(1024);
        let key = keys(1).next().unwrap();
        let shallow = |lower, best| Known {
            lower: Some(lower),
            upper: None,
            best: Some(best),
            work: 0,
        };
        memo.put_horizon(key, shallow(6, 2), 9);
        // The exact search sees its best move only; a search as deep or
        // shallower its bound, a deeper one not.
        let exact = memo.get(key).unwrap();
        assert_eq!(
            (exact.lower, exact.upper, exact.best),
            (None, None, Some(2))
        );
        assert_eq!(memo.at_depth(key, 9).unwrap().lower, Some(6));
        assert_eq!(memo.at_depth(key, 4).unwrap().lower, Some(6));
        assert_eq!(memo.at_depth(key, 12).unwrap().lower, None);
        // A shallower search's bound leaves the deeper one's.
        memo.put_horizon(key, shallow(8, 3), 6);
        assert_eq!(memo.at_depth(key, 9).unwrap().lower, Some(6));
        assert_eq!(memo.get(key).unwrap().best, Some(3));
        // The game's bounds replace a horizon's, and stay after one.
        memo.put(key, with_work(5));
        memo.put_horizon(key, shallow(9, 4), 20);
        let held = memo.get(key).unwrap();
        assert_eq!(
            (held.lower, held.upper, held.best, held.work),
            (Some(1), None, Some(4), 5)
        );
        assert_eq!(memo.at_depth(key, 20).unwrap().lower, Some(1));
    }
}
