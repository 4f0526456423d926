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
//! a memo without locks ([`Shared`]).

use std::collections::TryReserveError;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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

/// What an entry says for a search `depth` deep (see [`Memo::at_depth`]).
fn at_depth(slot: u128, depth: u8) -> Known {
    let mut known = Known::unpack(slot);
    if let Some(horizon) = horizon_of(slot) {
        known.work = 0;
        if horizon < depth {
            (known.lower, known.upper) = (None, None);
        }
    }
    known
}

fn entry(slot: u128) -> (Known, Option<u8>) {
    (Known::unpack(slot), horizon_of(slot))
}

/// A shared pair's two entries, from its four words.
fn read(words: &[AtomicU64]) -> [u128; 2] {
    [0, 2].map(|at| {
        let high = words[at + 1].load(Ordering::Relaxed);
        let low = words[at].load(Ordering::Relaxed) ^ high;
        u128::from(low) | u128::from(high) << 64
    })
}

/// The entry a pair holds for `key`.
fn held(pair: [u128; 2], key: Key) -> Option<u128> {
    if key.0 == 0 {
        return None;
    }
    pair.into_iter().find(|&slot| key_of(slot) == key.0)
}

/// The pair with `known` kept for `key`, and whether it filled an empty
/// slot. The game's bounds (`horizon` none) are the tighter of the new and
/// any held. A depth-limited search's (`horizon` its depth: see
/// [`Memo::put_horizon`]) are kept below the game's and below deeper
/// ones. A key not held goes into its pair, the costlier entry first (a
/// depth-limited search's the cheapest), the other dropped.
fn kept(pair: [u128; 2], key: Key, mut known: Known, horizon: Option<u8>) -> ([u128; 2], bool) {
    let depth = horizon.map(|d| d.min(HORIZON - 1));
    // Above this, a work would read as a depth-limited search's entry.
    known.work = match depth {
        Some(d) => HORIZON | d,
        None => known.work.min(HORIZON - 1),
    };
    if let Some(i) = (0..2).find(|&i| key_of(pair[i]) == key.0) {
        let mut pair = pair;
        pair[i] = updated(pair[i], key, known, depth);
        return (pair, false);
    }
    let work = |slot: u128| match slot != 0 && Known::unpack(slot).work & HORIZON == 0 {
        true => Known::unpack(slot).work,
        false => 0,
    };
    let packed = known.pack(key);
    let [first, second] = pair;
    let pair = if first == 0 || work(packed) >= work(first) {
        // The first entry goes to the costlier; what it held moves down.
        [packed, first]
    } else {
        [first, packed]
    };
    (pair, second == 0)
}

/// `slot`, which holds `key`, with `known` (its work set) kept in it.
fn updated(slot: u128, key: Key, mut known: Known, depth: Option<u8>) -> u128 {
    let old = Known::unpack(slot);
    let Some(depth) = depth else {
        if horizon_of(slot).is_none() {
            known.lower = max_bound(known.lower, old.lower);
            known.upper = min_bound(known.upper, old.upper);
            known.work = known.work.max(old.work);
        }
        known.best = known.best.or(old.best);
        return known.pack(key);
    };
    match horizon_of(slot) {
        Some(d) if d == depth => {
            known.lower = max_bound(known.lower, old.lower);
            known.upper = min_bound(known.upper, old.upper);
        }
        Some(d) if d < depth => {}
        // The game's bounds stay, taking the best move only.
        None => {
            let best = known.best.or(old.best);
            return Known { best, ..old }.pack(key);
        }
        // A deeper search's bounds stay.
        Some(_) => {
            let best = known.best.or(old.best);
            known = Known { best, ..old };
        }
    }
    known.work = HORIZON | depth.max(horizon_of(slot).unwrap_or(0));
    known.pack(key)
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
        self.slot(key).map(|slot| at_depth(slot, depth))
    }

    /// What is held for `key`, as stored: the bounds, best move and
    /// work, with the depth of the depth-limited search behind them (none
    /// for the game's own bounds).
    pub fn entry(&self, key: Key) -> Option<(Known, Option<u8>)> {
        self.slot(key).map(entry)
    }

    fn slot(&self, key: Key) -> Option<u128> {
        let at = 2 * key.bucket(self.mask);
        held([self.slots[at], self.slots[at + 1]], key)
    }

    /// Keeps bounds found by a search `depth` deep whose horizon was
    /// reached (the homes' difference there): bounds for such searches
    /// only, never the game's, kept below the game's (an entry holding
    /// those keeps them, and takes only the best move) and below deeper
    /// ones, and the first replaced.
    pub fn put_horizon(&mut self, key: Key, known: Known, depth: u8) {
        self.keep(key, known, Some(depth));
    }

    /// Keeps `known` for `key`, the tighter of its bounds and any already held.
    pub fn put(&mut self, key: Key, known: Known) {
        self.keep(key, known, None);
    }

    fn keep(&mut self, key: Key, known: Known, horizon: Option<u8>) {
        let at = 2 * key.bucket(self.mask);
        let (pair, new) = kept([self.slots[at], self.slots[at + 1]], key, known, horizon);
        self.slots[at..at + 2].copy_from_slice(&pair);
        if new {
            self.filled += 1;
            // At a quarter full, few pairs have lost a key yet.
            if 4 * self.filled > self.slots.len() && self.mask + 1 < self.most_pairs {
                self.grow();
            }
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
/// same position ([`Shared`]).
pub enum Memos {
    Own(Memo),
    Shared(Arc<Shared>),
}

impl Memos {
    /// See [`Memo::get`].
    pub fn get(&self, key: Key) -> Option<Known> {
        match self {
            Memos::Own(memo) => memo.get(key),
            Memos::Shared(shared) => held(shared.pair(key), key).map(|s| at_depth(s, u8::MAX)),
        }
    }

    /// See [`Memo::entry`].
    pub fn entry(&self, key: Key) -> Option<(Known, Option<u8>)> {
        match self {
            Memos::Own(memo) => memo.entry(key),
            Memos::Shared(shared) => held(shared.pair(key), key).map(entry),
        }
    }

    /// See [`Memo::put`].
    pub fn put(&mut self, key: Key, known: Known) {
        match self {
            Memos::Own(memo) => memo.put(key, known),
            Memos::Shared(shared) => shared.keep(key, known, None),
        }
    }

    /// See [`Memo::put_horizon`].
    pub fn put_horizon(&mut self, key: Key, known: Known, depth: u8) {
        match self {
            Memos::Own(memo) => memo.put_horizon(key, known, depth),
            Memos::Shared(shared) => shared.keep(key, known, Some(depth)),
        }
    }

    /// The most bytes the memo may grow to.
    pub fn most_bytes(&self) -> usize {
        match self {
            Memos::Own(memo) => memo.most_bytes(),
            Memos::Shared(shared) => shared.most_pairs * 32,
        }
    }

    /// The memo to share among threads: this one if shared already, else
    /// an empty one of the same bound in its place (what it held is lost).
    pub fn shared(&mut self) -> Arc<Shared> {
        if let Memos::Own(memo) = self {
            *self = Memos::Shared(Arc::new(Shared::new(memo.most_pairs)));
        }
        match self {
            Memos::Shared(shared) => shared.clone(),
            Memos::Own(_) => unreachable!("made shared above"),
        }
    }
}

/// A memo shared among threads, without locks: an entry is two words, the
/// first the key's low half xor the second, so an entry read while another
/// thread writes it reads as some other key, never as this key with
/// another's bounds. Two threads keeping entries in one pair at once may
/// lose one: a bound lost, never a wrong one. It starts small and doubles
/// when a quarter full, as [`Memo`] does, but in chunks taken as it grows
/// and without moving what it holds: the half of the entries whose pair
/// moved up is lost (a memo loses entries anyway; these are the oldest).
pub struct Shared {
    /// Pairs of entries, [`Shared::CHUNK`] pairs a chunk.
    chunks: Vec<OnceLock<Box<[AtomicU64]>>>,
    /// The pairs in use, less one.
    mask: AtomicUsize,
    most_pairs: usize,
    /// Entries kept in empty slots, and the thread doubling the table.
    filled: AtomicUsize,
    growing: Mutex<()>,
    /// The positions some thread is searching now, a key's hash a slot
    /// (0 for none), so that another thread can take a sibling first
    /// (simplified ABDADA): a clash only defers a move, never skips it.
    busy: Vec<AtomicU64>,
}

impl Shared {
    const BUSY: usize = 1 << 16;
    const CHUNK: usize = 1 << 14;

    /// A table of at most `most_pairs` pairs (a power of two).
    fn new(most_pairs: usize) -> Shared {
        let first = Shared::CHUNK.min(most_pairs);
        let chunks: Vec<_> = (0..most_pairs.div_ceil(first))
            .map(|_| OnceLock::new())
            .collect();
        chunks[0].get_or_init(|| (0..4 * first).map(|_| AtomicU64::new(0)).collect());
        Shared {
            chunks,
            mask: AtomicUsize::new((Memo::SMALLEST / 2).min(most_pairs) - 1),
            most_pairs,
            filled: AtomicUsize::new(0),
            growing: Mutex::new(()),
            busy: (0..Shared::BUSY).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The words of `key`'s pair.
    fn words(&self, key: Key) -> Option<&[AtomicU64]> {
        let pair = key.bucket(self.mask.load(Ordering::Acquire));
        let chunk = self.chunks[pair / Shared::CHUNK].get()?;
        let at = 4 * (pair % Shared::CHUNK);
        Some(&chunk[at..at + 4])
    }

    fn pair(&self, key: Key) -> [u128; 2] {
        self.words(key).map_or([0, 0], read)
    }

    fn keep(&self, key: Key, known: Known, horizon: Option<u8>) {
        let Some(words) = self.words(key) else {
            return;
        };
        // The pair read and written through one lookup of the mask.
        let pair = read(words);
        let (kept, new) = kept(pair, key, known, horizon);
        for (at, (&old, &slot)) in [0, 2].into_iter().zip(pair.iter().zip(&kept)) {
            if old != slot {
                let high = (slot >> 64) as u64;
                words[at + 1].store(high, Ordering::Relaxed);
                words[at].store(slot as u64 ^ high, Ordering::Relaxed);
            }
        }
        if new {
            let filled = self.filled.fetch_add(1, Ordering::Relaxed) + 1;
            let pairs = self.mask.load(Ordering::Acquire) + 1;
            if 2 * filled > pairs && pairs < self.most_pairs {
                self.grow(pairs);
            }
        }
    }

    /// Doubles the table from `pairs` pairs: its new chunks taken first,
    /// then the mask raised. Short of memory, it stops growing instead.
    fn grow(&self, pairs: usize) {
        let Ok(_only) = self.growing.try_lock() else {
            return;
        };
        if self.mask.load(Ordering::Acquire) + 1 != pairs {
            return;
        }
        // Below a chunk, the first chunk holds the new pairs already.
        let (from, to) = ((pairs / Shared::CHUNK).max(1), 2 * pairs / Shared::CHUNK);
        for chunk in self.chunks.iter().take(to).skip(from) {
            let mut words = Vec::new();
            if words.try_reserve_exact(4 * Shared::CHUNK).is_err() {
                return;
            }
            words.resize_with(4 * Shared::CHUNK, || AtomicU64::new(0));
            let _ = chunk.set(words.into_boxed_slice());
        }
        self.mask.store(2 * pairs - 1, Ordering::Release);
    }

    /// Whether another thread is searching `key` now.
    pub fn is_busy(&self, key: Key) -> bool {
        let h = key.hash() | 1;
        self.busy[h as usize % Shared::BUSY].load(Ordering::Relaxed) == h
    }

    /// Marks `key` searched by this thread until [`Shared::done`].
    pub fn start(&self, key: Key) {
        let h = key.hash() | 1;
        self.busy[h as usize % Shared::BUSY].store(h, Ordering::Relaxed);
    }

    /// Unmarks `key`, unless another position took its slot since.
    pub fn done(&self, key: Key) {
        let h = key.hash() | 1;
        let slot = &self.busy[h as usize % Shared::BUSY];
        let _ = slot.compare_exchange(h, 0, Ordering::Relaxed, Ordering::Relaxed);
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

    /// The shared table keeps entries as an own one does, and what one
    /// thread keeps the other reads, whole.
    #[test]
    fn a_shared_table_keeps_what_its_threads_keep() {
        let known = |i: u32| Known {
            lower: Some(i as i32 % 50 - 25),
            upper: Some(i as i32 % 50 - 20),
            best: Some((i % 6) as u8),
            work: (i % 40) as u8,
        };
        // (Entries are merged by the same function in both, tested with
        // Memo's.)
        let puts = |memo: &mut Memos, i: u32, key: Key| memo.put(key, known(i));
        let mut shared = Memos::Own(Memo::growing(1 << 16));
        let table = shared.shared();
        for (i, key) in (0..).zip(keys(300)) {
            puts(&mut shared, i, key);
        }
        // Each entry held is the one kept; the table doubled, losing some.
        let mut held = 0;
        for (i, key) in (0..).zip(keys(300)) {
            let mut alone = Memos::Own(Memo::growing(0));
            puts(&mut alone, i, key);
            if let Some(entry) = shared.entry(key) {
                assert_eq!(Some(entry), alone.entry(key));
                assert_eq!(shared.get(key), alone.get(key));
                held += 1;
            }
        }
        assert!((100..300).contains(&held), "{held}");
        assert_eq!(table.mask.load(Ordering::Relaxed), 1023);
        // Two threads keeping entries of their own at once: each entry
        // read whole, this key's bounds or none.
        let other = Memos::Shared(table.clone());
        std::thread::scope(|scope| {
            for half in 0..2u32 {
                let mut memo = Memos::Shared(table.clone());
                scope.spawn(move || {
                    for (i, key) in (0..).zip(keys(20_000)).filter(|(i, _)| i % 2 == half) {
                        memo.put(key, known(i));
                    }
                });
            }
        });
        let mut held = 0;
        for (i, key) in (0..).zip(keys(20_000)) {
            if let Some(entry) = other.get(key) {
                let put = known(i);
                let entry = (entry.lower, entry.upper, entry.best);
                assert_eq!(entry, (put.lower, put.upper, put.best));
                held += 1;
            }
        }
        // Grown in chunks to hold them, within its bound.
        assert!(held > 5_000, "{held}");
        let taken = table.chunks.iter().filter(|c| c.get().is_some()).count();
        assert_eq!(
            (table.mask.load(Ordering::Relaxed) + 1, taken),
            (1 << 15, 2)
        );
    }
}
