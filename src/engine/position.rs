//! A position and the one sowing routine every ruleset shares.

use std::fmt;

use super::errors::{PlayError, PlayErrorKind, SetUpError, SetUpFault};
use super::rules::{Capture, EmptyRow, Rules};
use super::{EndReason, Outcome, Pit, PitSet, Side, MAX_PITS};

/// Cells: South's pits from `a`, then North's (so the pits of both rows,
/// in sowing order, are the first `2 * pits` bytes, one 128-bit word), then
/// South's store and North's store at fixed places. Wari games keep
/// captured stones in the store cells and never sow into them.
const CELLS: usize = 2 * MAX_PITS as usize + 2;
const STORES: usize = 2 * MAX_PITS as usize;

/// `cell` brought back into a ring of `ring` cells, for `cell < 2 * ring`
/// (cheaper than `%`, a division).
#[inline]
fn wrap(cell: usize, ring: usize) -> usize {
    if cell >= ring {
        cell - ring
    } else {
        cell
    }
}

/// Gathers the low bit of each byte of `word` into one bit each.
#[inline]
fn gather_low_bits(word: u64) -> u16 {
    ((word & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16
}

/// `RING_ONES[pits][start][len]`: `len` ones, a byte each, from byte
/// `start` of the ring of both rows' pits (`2 * pits` bytes), wrapping
/// round to byte 0. Made at compile time: a sowing then costs one load.
static RING_ONES: [[[u128; 17]; 16]; MAX_PITS as usize + 1] = {
    let mut table = [[[0u128; 17]; 16]; MAX_PITS as usize + 1];
    let mut pits = 1;
    while pits <= MAX_PITS as usize {
        let ring = 2 * pits;
        let mut start = 0;
        while start < ring {
            let mut len = 0;
            while len <= ring {
                let mut word = 0u128;
                let mut i = 0;
                while i < len {
                    word |= 1 << (8 * ((start + i) % ring));
                    i += 1;
                }
                table[pits][start][len] = word;
                len += 1;
            }
            start += 1;
        }
        pits += 1;
    }
    table
};

/// `len` ones, a byte each, from byte `start` of the pits' ring (wrapping
/// round to byte 0); `start < 2 * ring`, `len <= ring`.
#[inline]
fn ring_ones(start: usize, len: usize, ring: usize) -> u128 {
    RING_ONES[ring / 2][wrap(start, ring)][len]
}

/// Where a sowing's last stone fell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Landing {
    Pit(Side, Pit),
    Store(Side),
}

/// What one sowing did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sowing {
    pub side: Side,
    pub pit: Pit,
    /// Stones picked up.
    pub stones: u8,
    pub last: Landing,
    /// Stones captured (Wari: into the store; Mankala: into the pit).
    pub captured: u8,
    /// The mover sows again.
    pub bonus: bool,
    /// Stones the mover took when the opponent could not be fed (Wari).
    pub swept: u8,
}

/// A board and the side to move: everything the rules need to go on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    rules: Rules,
    cells: [u8; CELLS],
    to_move: Side,
}

impl Position {
    /// The start of a game: every pit holds the ruleset's stones.
    pub fn start(rules: Rules, first: Side) -> Position {
        let mut cells = [0; CELLS];
        let n = usize::from(rules.pits);
        cells[..2 * n].fill(rules.stones);
        Position {
            rules,
            cells,
            to_move: first,
        }
    }

    /// A position from its counts, for tests and set-ups. Rows list each
    /// player's pits from their own `a`; `stores` is South's then North's.
    /// A position that is already over is allowed (see [`Position::set_up`]).
    ///
    /// # Errors
    /// Every fault found: a row's length is not the ruleset's, a pit holds
    /// more stones than the game has, or the stones do not add up to the
    /// ruleset's total.
    pub fn from_counts(
        rules: Rules,
        south: &[u8],
        north: &[u8],
        stores: [u8; 2],
        to_move: Side,
    ) -> Result<Position, SetUpError> {
        let mut faults = row_faults(&rules, south, north);
        let in_pits = pit_total(south) + pit_total(north);
        let total = in_pits + stores.iter().map(|&s| u16::from(s)).sum::<u16>();
        if faults.is_empty() && total != rules.total_stones() {
            faults.push(SetUpFault::Total {
                total,
                expected: rules.total_stones(),
            });
        }
        if !faults.is_empty() {
            return Err(SetUpError { faults });
        }
        let n = usize::from(rules.pits);
        let mut position = Position {
            rules,
            cells: [0; CELLS],
            to_move,
        };
        position.cells[..n].copy_from_slice(south);
        position.cells[n..2 * n].copy_from_slice(north);
        position.cells[STORES] = stores[0];
        position.cells[STORES + 1] = stores[1];
        Ok(position)
    }

    /// A position set up by hand, for a game to start from: the rows as in
    /// [`Position::from_counts`]; the stores (or Wari's captured totals)
    /// when given must make up the game's stones, else they share the
    /// stones left over, South taking the odd one.
    ///
    /// # Errors
    /// Every fault found, as for [`Position::from_counts`], and a position
    /// whose game is already over.
    pub fn set_up(
        rules: Rules,
        south: &[u8],
        north: &[u8],
        stores: Option<[u8; 2]>,
        to_move: Side,
    ) -> Result<Position, SetUpError> {
        let stores = match stores {
            Some(stores) => stores,
            None => {
                let faults = row_faults(&rules, south, north);
                let in_pits = pit_total(south) + pit_total(north);
                let left = rules.total_stones().checked_sub(in_pits);
                match left.filter(|_| faults.is_empty()) {
                    // At most 240 stones in all: each half fits a byte.
                    Some(left) => [left.div_ceil(2) as u8, (left / 2) as u8],
                    None => {
                        let mut faults = faults;
                        if faults.is_empty() {
                            faults.push(SetUpFault::TooManyStones {
                                in_pits,
                                total: rules.total_stones(),
                            });
                        }
                        return Err(SetUpError { faults });
                    }
                }
            }
        };
        let position = Position::from_counts(rules, south, north, stores, to_move)?;
        match position.outcome() {
            Some(outcome) => Err(SetUpError {
                faults: vec![SetUpFault::Over(outcome.reason)],
            }),
            None => Ok(position),
        }
    }

    /// Is this the start of a game, every pit holding the ruleset's stones?
    pub fn is_start(&self) -> bool {
        *self == Position::start(self.rules, self.to_move)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    fn n(&self) -> usize {
        usize::from(self.rules.pits)
    }

    fn row_start(&self, side: Side) -> usize {
        side.index() * self.n()
    }

    fn store_cell(&self, side: Side) -> usize {
        STORES + side.index()
    }

    fn row(&self, side: Side) -> &[u8] {
        let start = self.row_start(side);
        &self.cells[start..start + self.n()]
    }

    /// Stones in one of `side`'s pits.
    #[inline]
    pub fn stones(&self, side: Side, pit: Pit) -> u8 {
        self.cells[self.row_start(side) + usize::from(pit.index())]
    }

    /// A player's pits from their own `a`.
    pub fn pits(&self, side: Side) -> &[u8] {
        self.row(side)
    }

    /// The store: endpit or home, or the stones captured in Wari games.
    pub fn store(&self, side: Side) -> u8 {
        self.cells[self.store_cell(side)]
    }

    /// Stones in both players' pits.
    pub fn stones_in_pits(&self) -> u16 {
        self.row_total(Side::South) + self.row_total(Side::North)
    }

    /// Stones in a player's pits.
    pub fn row_total(&self, side: Side) -> u16 {
        // A row never holds more than 240 stones, so the byte sum by
        // multiplication cannot carry out of the top byte.
        (self.row_word(side).wrapping_mul(0x0101_0101_0101_0101) >> 56) as u16
    }

    /// A row's cells as the bytes of one word, `a` lowest, unused bytes zero:
    /// legal-move generation looks at all the pits at once, without branches.
    #[inline]
    fn row_word(&self, side: Side) -> u64 {
        let start = self.row_start(side);
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&self.cells[start..start + 8]);
        u64::from_le_bytes(bytes) & (u64::MAX >> (64 - 8 * self.n()))
    }

    #[inline]
    fn nonempty(&self, side: Side) -> PitSet {
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        let row = self.row_word(side);
        // The top bit of each byte says whether that byte is non-zero...
        let nonzero = (((row & LOW7) + LOW7) | row) & !LOW7;
        // ... and the multiply gathers the eight top bits into one byte.
        PitSet(((nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16)
    }

    /// How the game stands if it is over by the position alone (repetition
    /// needs the history: see [`super::Game`]).
    pub fn outcome(&self) -> Option<Outcome> {
        let stores = [
            u16::from(self.store(Side::South)),
            u16::from(self.store(Side::North)),
        ];
        match self.rules.empty_row {
            EmptyRow::MustFeed => {
                // The board empties (every stone is in a store) only when a
                // starved opponent's stones were swept.
                if stores[0] + stores[1] == self.rules.total_stones() {
                    return Some(Outcome::by_score(EndReason::Starvation, stores));
                }
                let half = self.rules.total_stones() / 2;
                if self.rules.majority_wins && stores.iter().any(|&s| s > half) {
                    return Some(Outcome::by_score(EndReason::Majority, stores));
                }
                None
            }
            EmptyRow::CannotMoveWins => (self.row_total(self.to_move) == 0).then_some(Outcome {
                winner: Some(self.to_move),
                reason: EndReason::CannotMove,
                score: stores,
            }),
            EmptyRow::EmptiedRowWins => {
                // Only the mover's own sowing empties a row (sowing never
                // takes from the opponent's), so the one who just moved is
                // looked at first.
                let emptied = [self.to_move.other(), self.to_move]
                    .into_iter()
                    .find(|&side| self.row_word(side) == 0)?;
                Some(Outcome {
                    winner: Some(emptied),
                    reason: EndReason::FirstEmpty,
                    score: stores,
                })
            }
            EmptyRow::EndsGame => {
                let (south, north) = (self.row_total(Side::South), self.row_total(Side::North));
                (south == 0 || north == 0).then(|| {
                    Outcome::by_score(EndReason::RowEmpty, [stores[0] + south, stores[1] + north])
                })
            }
        }
    }

    /// The same as `outcome().is_some()`, without working out the outcome.
    #[inline]
    pub fn is_over(&self) -> bool {
        match self.rules.empty_row {
            EmptyRow::MustFeed => {
                let stores = [self.store(Side::South), self.store(Side::North)].map(u16::from);
                let (total, half) = (self.rules.total_stones(), self.rules.total_stones() / 2);
                stores[0] + stores[1] == total
                    || (self.rules.majority_wins && (stores[0] > half || stores[1] > half))
            }
            EmptyRow::CannotMoveWins => self.row_word(self.to_move) == 0,
            EmptyRow::EndsGame | EmptyRow::EmptiedRowWins => {
                self.row_word(Side::South) == 0 || self.row_word(Side::North) == 0
            }
        }
    }

    /// The pits the player to move may sow; empty when the game is over.
    #[inline]
    pub fn legal_moves(&self) -> PitSet {
        if self.is_over() {
            return PitSet::EMPTY;
        }
        self.legal_moves_while_playing()
    }

    /// The legal moves of a position known not to be over.
    #[inline]
    pub(super) fn legal_moves_while_playing(&self) -> PitSet {
        let nonempty = self.nonempty(self.to_move);
        if self.rules.empty_row != EmptyRow::MustFeed {
            return nonempty;
        }
        // Sowing only adds, so an opponent cell holding 4 or more can never
        // be captured: no move can leave the opponent empty.
        if self.row_word(self.to_move.other()) & 0xFCFC_FCFC_FCFC_FCFC != 0 {
            return nonempty;
        }
        // Every opponent cell holds 0 to 3: look at each move. Bit masks of
        // the opponent's cells keep this cheap: it runs on most late plies.
        let n = self.n();
        let full = (1u16 << n) - 1;
        let empty = !self.nonempty(self.to_move.other()).0 & full;
        // A count below 4 is 1 or 2 exactly when its two low bits differ.
        let opponent = self.row_word(self.to_move.other());
        let one_or_two = gather_low_bits(opponent ^ opponent >> 1) & full;
        let mut feeding = nonempty;
        for pit in nonempty {
            let seeds = usize::from(self.stones(self.to_move, pit));
            let to_opponent_row = n - usize::from(pit.index());
            let starves = if seeds < to_opponent_row {
                // Ends in the mover's own row: no stone for the opponent.
                empty == full
            } else if seeds - to_opponent_row < n {
                // No lap: the opponent's a up to the last cell gain a stone
                // each. All are taken if those become 2 or 3 and the rest are empty.
                let reached = (1u16 << (seeds - to_opponent_row + 1)) - 1;
                one_or_two & reached == reached && (empty | reached) == full
            } else {
                let mut after = *self;
                after.sow(pit);
                after.row_total(self.to_move.other()) == 0
            };
            if starves {
                feeding.remove(pit);
            }
        }
        // When every move starves the opponent, any move may be played.
        if feeding.is_empty() {
            nonempty
        } else {
            feeding
        }
    }

    /// Sows `pit` after checking that the move is legal. On error the
    /// position is unchanged.
    ///
    /// # Errors
    /// When the game is over, the pit is not on the board, it is empty, or
    /// the rules forbid it (starving the opponent).
    pub fn play(&mut self, pit: Pit) -> Result<Sowing, PlayError> {
        let legal = self.legal_moves();
        if !legal.contains(pit) {
            let kind = if self.is_over() {
                PlayErrorKind::GameOver
            } else if pit.index() >= self.rules.pits {
                PlayErrorKind::NoSuchPit
            } else if self.stones(self.to_move, pit) == 0 {
                PlayErrorKind::Empty
            } else {
                PlayErrorKind::StarvesOpponent
            };
            return Err(PlayError {
                side: self.to_move,
                pit,
                kind,
                legal,
            });
        }
        Ok(self.play_unchecked(pit))
    }

    /// Sows `pit` without checking legality, for replaying moves already
    /// checked and for search. The pit must be a legal move.
    #[inline]
    pub fn play_unchecked(&mut self, pit: Pit) -> Sowing {
        let mut sowing = self.sow(pit);
        // A legal move leaves the opponent empty only when no move could help it.
        let forced_starvation =
            self.rules.empty_row == EmptyRow::MustFeed && self.row_word(sowing.side.other()) == 0;
        if forced_starvation {
            // Rule 4: the sower wins all the remaining stones, and the game ends.
            let mut swept = 0;
            for side in Side::BOTH {
                let (start, n) = (self.row_start(side), self.n());
                for cell in &mut self.cells[start..start + n] {
                    swept += *cell;
                    *cell = 0;
                }
            }
            let store = self.store_cell(sowing.side);
            self.cells[store] += swept;
            sowing.swept = swept;
        }
        if !sowing.bonus {
            self.to_move = self.to_move.other();
        }
        sowing
    }

    /// The sowing core, shared by every ruleset: take the stones, sow them
    /// one a cell anti-clockwise, then apply the ruleset's capture.
    #[inline]
    fn sow(&mut self, pit: Pit) -> Sowing {
        let mover = self.to_move;
        let n = self.n();
        let origin = self.row_start(mover) + usize::from(pit.index());
        let own_store = self.store_cell(mover);
        let stones = self.cells[origin];
        let cell = match self.sow_within_a_lap(origin, usize::from(stones)) {
            Some(cell) => cell,
            None => {
                self.cells[origin] = 0;
                self.sow_laps(origin, stones)
            }
        };
        let last = if cell >= STORES {
            // Only Waurie's both-stores variant sows the opponent's store.
            Landing::Store(if cell == own_store {
                mover
            } else {
                mover.other()
            })
        } else if cell < n {
            Landing::Pit(Side::South, Pit(cell as u8))
        } else {
            Landing::Pit(Side::North, Pit((cell - n) as u8))
        };
        let captured = match (self.rules.capture, last) {
            (Capture::TwoOrThreeBackwards, Landing::Pit(side, landed)) if side != mover => {
                self.capture_two_or_three(side, landed)
            }
            (
                Capture::OppositeIntoOwnPit | Capture::OppositeIntoStore,
                Landing::Pit(side, landed),
            ) if side == mover && self.cells[cell] == 1 => self.capture_opposite(landed),
            _ => 0,
        };
        Sowing {
            side: mover,
            pit,
            stones,
            last,
            captured,
            bonus: self.rules.bonus_in_own_store && last == Landing::Store(mover),
            swept: 0,
        }
    }

    /// The common case, a sowing that does not come round to its origin:
    /// the pits it reaches are one run of the pits' ring (the mover's row
    /// runs into the opponent's, and back), so one add of a word of ones
    /// sows them all. Returns the last cell, or `None` (having changed
    /// nothing) for a lapping sowing.
    #[inline]
    fn sow_within_a_lap(&mut self, origin: usize, stones: usize) -> Option<usize> {
        let mover = self.to_move;
        let n = self.n();
        let ring = 2 * n;
        let stores = usize::from(self.rules.stores);
        let opponent_store = usize::from(self.rules.sow_opponent_store);
        // Cells in one lap: Wari's skips the origin, the others re-sow it.
        let lap = ring - 1 + stores + opponent_store + usize::from(!self.rules.skip_origin);
        if stones == 0 || stones >= lap {
            return None;
        }
        // Picking the stones up happens in the word too: writing the byte
        // first and then reading the word would stall the processor.
        let mut pits = u128::from_le_bytes(self.cells[..16].try_into().ok()?);
        pits &= !(0xFF << (8 * origin));
        let to_row_end = self.row_start(mover) + n - origin - 1;
        let last = if stores == 0 || stones <= to_row_end {
            pits += ring_ones(origin + 1, stones, ring);
            wrap(origin + stones, ring)
        } else {
            // The rest of the row, the store, then on from the opponent's `a`.
            pits += ring_ones(origin + 1, to_row_end, ring);
            self.cells[self.store_cell(mover)] += 1;
            let beyond = stones - to_row_end - 1;
            let opponent = self.row_start(mover.other());
            if opponent_store == 1 && beyond > n {
                // The opponent's row, their store, then on from the mover's `a`.
                pits += ring_ones(opponent, n, ring);
                self.cells[self.store_cell(mover.other())] += 1;
                let again = beyond - n - 1;
                let own = self.row_start(mover);
                pits += ring_ones(own, again, ring);
                if again == 0 {
                    self.store_cell(mover.other())
                } else {
                    own + again - 1
                }
            } else {
                pits += ring_ones(opponent, beyond, ring);
                if beyond == 0 {
                    self.store_cell(mover)
                } else {
                    wrap(opponent + beyond - 1, ring)
                }
            }
        };
        self.cells[..16].copy_from_slice(&pits.to_le_bytes());
        Some(last)
    }

    /// A sowing that laps, sown lap by lap; returns the last cell.
    fn sow_laps(&mut self, origin: usize, stones: u8) -> usize {
        let mover = self.to_move;
        let n = self.n();
        let own_store = self.store_cell(mover);
        let own = self.row_start(mover);
        let opponent = self.row_start(mover.other());
        let opponent_store = self.store_cell(mover.other());
        // One lap, as runs of cells in sowing order from the origin: the
        // rest of the mover's row, their store, the opponent's row, the
        // opponent's store (only in Waurie's both-stores variant), the
        // mover's row up to the origin, and the origin itself unless the
        // rules skip it. Whole runs are sown at once: no test per stone.
        let runs = [
            (origin + 1, own + n),
            (own_store, own_store + usize::from(self.rules.stores)),
            (opponent, opponent + n),
            (
                opponent_store,
                opponent_store + usize::from(self.rules.sow_opponent_store),
            ),
            (own, origin),
            (origin, origin + usize::from(!self.rules.skip_origin)),
        ];
        let lap: usize = runs.iter().map(|(from, to)| to - from).sum();
        let laps = usize::from(stones) / lap;
        let mut left = usize::from(stones) - laps * lap;
        if laps > 0 {
            for &(from, to) in &runs {
                for c in &mut self.cells[from..to] {
                    *c += laps as u8; // laps <= stones, a u8
                }
            }
        }
        let mut cell = origin;
        if left == 0 {
            // A whole number of laps ends on the lap's last cell.
            if let Some(&(_, to)) = runs
                .iter()
                .rev()
                .find(|(from, to)| to > from)
                .filter(|_| laps > 0)
            {
                cell = to - 1;
            }
        }
        for &(from, to) in &runs {
            if left == 0 {
                break;
            }
            let take = left.min(to - from);
            for c in &mut self.cells[from..from + take] {
                *c += 1;
            }
            left -= take;
            cell = from + take - 1;
        }
        cell
    }

    /// Wari: take the landing cell and the unbroken run of 2s and 3s behind it.
    #[inline]
    fn capture_two_or_three(&mut self, victim: Side, landed: Pit) -> u8 {
        let start = self.row_start(victim);
        let mut taken = 0;
        for index in (0..=usize::from(landed.index())).rev() {
            let stones = self.cells[start + index];
            if !(2..=3).contains(&stones) {
                break;
            }
            taken += stones;
            self.cells[start + index] = 0;
        }
        let store = self.store_cell(victim.other());
        self.cells[store] += taken;
        taken
    }

    /// Mankala: the opposite pit's stones move into the mover's landing
    /// pit. Kalah: when there are any (in empty-capture, always), they and
    /// the landing stone move into the mover's store. Returns the opposite
    /// pit's stones.
    fn capture_opposite(&mut self, landed: Pit) -> u8 {
        let mover = self.to_move;
        let opposite =
            self.row_start(mover.other()) + usize::from(self.rules.opposite(landed).index());
        let taken = self.cells[opposite];
        if taken == 0 && !self.rules.lone_capture {
            return 0;
        }
        self.cells[opposite] = 0;
        let own = self.row_start(mover) + usize::from(landed.index());
        if self.rules.capture == Capture::OppositeIntoStore {
            self.cells[own] = 0;
            let store = self.store_cell(mover);
            self.cells[store] += taken + 1;
        } else {
            self.cells[own] += taken;
        }
        taken
    }

    /// A cheap 64-bit hash of the cells and the side to move, for spotting
    /// repetitions quickly; equal positions have equal keys, not always the
    /// other way round.
    pub fn key(&self) -> u64 {
        let mut lo = [0u8; 8];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&self.cells[..8]);
        hi.copy_from_slice(&self.cells[8..16]);
        let mut h = u64::from_le_bytes(lo).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= u64::from_le_bytes(hi)
            .rotate_left(29)
            .wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= u64::from(self.cells[16]) << 8 | u64::from(self.cells[17]) << 16;
        h ^ (self.to_move as u64) << 63
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} north {:?} [{}] south {:?} [{}], {} to move",
            self.rules.ruleset,
            self.pits(Side::North),
            self.store(Side::North),
            self.pits(Side::South),
            self.store(Side::South),
            self.to_move
        )
    }
}

/// The faults of the rows alone: their lengths, and pits fuller than the game.
fn row_faults(rules: &Rules, south: &[u8], north: &[u8]) -> Vec<SetUpFault> {
    let mut faults = Vec::new();
    let total = rules.total_stones();
    for (side, row) in [(Side::South, south), (Side::North, north)] {
        if row.len() != usize::from(rules.pits) {
            faults.push(SetUpFault::RowLength {
                side,
                listed: row.len(),
                pits: rules.pits,
            });
            continue;
        }
        for (pit, &stones) in Pit::all(rules.pits).zip(row) {
            if u16::from(stones) > total {
                faults.push(SetUpFault::PitOverTotal {
                    side,
                    pit,
                    stones,
                    total,
                });
            }
        }
    }
    faults
}

fn pit_total(row: &[u8]) -> u16 {
    row.iter().map(|&c| u16::from(c)).sum()
}
