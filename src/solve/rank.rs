//! The combinatorial index of a table: the rank of `k` stones spread over
//! `m` pits among all such spreads, in lexicographic order of the counts.
//! There are C(k + m - 1, m - 1) of them, so a layer of a table is exactly
//! that many values, with no gaps.

/// Binomial coefficients up to `MAX_N` choose `MAX_K`.
const MAX_N: usize = 128;
const MAX_K: usize = 16;

/// Pascal's triangle, built once at compile time.
static BINOMIAL: [[u64; MAX_K + 1]; MAX_N + 1] = {
    let mut table = [[0u64; MAX_K + 1]; MAX_N + 1];
    let mut n = 0;
    while n <= MAX_N {
        table[n][0] = 1;
        let mut k = 1;
        while k <= MAX_K && k <= n {
            // Saturating: counts past u64 lie beyond any table built here.
            table[n][k] =
                table[n - 1][k - 1].saturating_add(if k < n { table[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    table
};

/// n choose k (0 when k > n).
#[inline]
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n][k]
    }
}

/// How many ways `stones` spread over `pits` pits.
#[inline]
pub fn spreads(stones: usize, pits: usize) -> u64 {
    match pits {
        0 => u64::from(stones == 0),
        _ => binomial(stones + pits - 1, pits - 1),
    }
}

/// The rank of `counts` among the spreads of their total over their pits.
/// With `r` stones left before a pit and `p` pits after it, the spreads
/// that put fewer than `c` stones there number C(r+p, p) - C(r-c+p, p).
pub fn rank(counts: &[u8]) -> u64 {
    let mut left: usize = counts.iter().map(|&c| usize::from(c)).sum();
    let mut index = 0;
    let m = counts.len();
    for (i, &c) in counts.iter().enumerate().take(m.saturating_sub(1)) {
        let after = m - i - 1;
        let c = usize::from(c);
        index += binomial(left + after, after) - binomial(left - c + after, after);
        left -= c;
    }
    index
}

/// The counts of rank `index` among the spreads of `stones` over `counts.len()` pits.
pub fn unrank(mut index: u64, stones: usize, counts: &mut [u8]) {
    let m = counts.len();
    let mut left = stones;
    for (i, count) in counts.iter_mut().enumerate() {
        let after = m - i - 1;
        if after == 0 {
            *count = left as u8;
            break;
        }
        let mut c = 0;
        loop {
            let with = spreads(left - c, after);
            if index < with {
                break;
            }
            index -= with;
            c += 1;
        }
        *count = c as u8;
        left -= c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_round_trip_over_whole_layers() {
        for (stones, pits) in [(0, 12), (1, 12), (5, 12), (7, 6), (9, 4), (3, 1)] {
            let size = spreads(stones, pits);
            let mut seen = vec![false; size as usize];
            let mut counts = vec![0u8; pits];
            for index in 0..size {
                unrank(index, stones, &mut counts);
                assert_eq!(
                    counts.iter().map(|&c| usize::from(c)).sum::<usize>(),
                    stones
                );
                assert_eq!(rank(&counts), index, "{counts:?}");
                seen[index as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "every index is a spread");
        }
        assert_eq!(spreads(36, 12), binomial(47, 11));
        assert_eq!(spreads(10, 12), 352_716);
    }

    #[test]
    fn the_order_is_lexicographic() {
        let (mut a, mut b) = ([0u8; 4], [0u8; 4]);
        for index in 1..spreads(6, 4) {
            unrank(index - 1, 6, &mut a);
            unrank(index, 6, &mut b);
            assert!(a < b, "{a:?} before {b:?}");
        }
    }
}
