//! Best known ranks over F2 of every format `<n,m,p>` with 2 <= n, m, p <= 8, and of the larger
//! formats whose matrices have at most 128 entries, with their sources: the targets of a
//! search, and what a record has to beat.
//!
//! The tables are `data/best-known-f2.tsv` (up to 8x8x8) and `data/best-known-f2-wide.tsv`
//! (beyond, up to 16), compiled from public tables (their headers say how), read as text so that
//! the files stay the one place a new record is entered. Any scheme valid over Z is valid over
//! F2, so an integer record counts here as well.

use crate::Shape;

/// The table: `n m p rank source note`, tab-separated, with n <= m <= p.
const TABLE: &str = include_str!("../data/best-known-f2.tsv");

/// The table beyond 8x8x8, in the same layout.
const WIDE_TABLE: &str = include_str!("../data/best-known-f2-wide.tsv");

/// The best known ranks over ZT (coefficients -1, 0, 1) up to 16, in the same layout.
const ZT_TABLE: &str = include_str!("../data/best-known-zt.tsv");

/// One format's best known rank over F2 (or, from [`zt_table`], over ZT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BestKnown {
    /// The dimensions in increasing order (the rank is the same for every order).
    pub dims: [usize; 3],
    /// The best known rank over the table's ring.
    pub rank: usize,
    /// Where the scheme of that rank comes from (a paper, a repository path).
    pub source: &'static str,
    /// How the F2 rank relates to the rational one, where they differ (may be empty).
    pub note: &'static str,
}

/// Every entry of the table up to 8x8x8, smallest format first.
pub fn table() -> impl Iterator<Item = BestKnown> {
    entries(TABLE)
}

/// Every entry of the table beyond 8x8x8 (a dimension from 9 to 16, at most 128 entries per
/// matrix), smallest format first.
pub fn wide_table() -> impl Iterator<Item = BestKnown> {
    entries(WIDE_TABLE)
}

/// Every entry of the table over ZT (schemes with coefficients -1, 0 and 1, valid over Z),
/// from 2x2x2 to 16x16x16, smallest format first; its note gives the Z rank.
pub fn zt_table() -> impl Iterator<Item = BestKnown> {
    entries(ZT_TABLE)
}

/// The best known rank over ZT for `shape`, if known: what a ternary search aims at, and what
/// a ternary record has to beat.
pub fn best_known_zt_rank(shape: Shape) -> Option<usize> {
    let d = shape.sorted_dims();
    if d[0] == 1 {
        return Some(d[1] * d[2]);
    }
    zt_table().find(|entry| entry.dims == d).map(|entry| entry.rank)
}

/// The entries of one table's text.
fn entries(text: &'static str) -> impl Iterator<Item = BestKnown> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("n\t"))
        .filter_map(parse_entry)
}

/// One line of the table; `None` for a malformed one (a unit test proves there is none).
fn parse_entry(line: &'static str) -> Option<BestKnown> {
    let mut fields = line.split('\t');
    let mut number = || fields.next()?.trim().parse::<usize>().ok();
    let dims = [number()?, number()?, number()?];
    let rank = number()?;
    Some(BestKnown {
        dims,
        rank,
        source: fields.next()?.trim(),
        note: fields.next().unwrap_or("").trim(),
    })
}

/// The tables' entry for `shape` (any order of its dimensions), if they have one.
pub fn best_known(shape: Shape) -> Option<BestKnown> {
    let d = shape.sorted_dims();
    table().chain(wide_table()).find(|entry| entry.dims == d)
}

/// The rank below which no scheme of `shape` exists over F2, where a proof says so and it meets
/// the best known rank (a hunt below it is in vain): lower bounds proven over every field, so
/// over F2 too. `<2,2,2>`: 7 (Winograd 1971; Hopcroft and Kerr 1971); `<2,2,3>`: 11 (Alekseyev
/// 1985); `<1,m,p>`: `m * p`.
pub fn proven_optimal_rank(shape: Shape) -> Option<usize> {
    match shape.sorted_dims() {
        [1, m, p] => Some(m * p),
        [2, 2, 2] => Some(7),
        [2, 2, 3] => Some(11),
        _ => None,
    }
}

/// The best known rank over F2 for `shape`, if known.
pub fn best_known_rank(shape: Shape) -> Option<usize> {
    let d = shape.sorted_dims();
    if d[0] == 1 {
        // <1,m,p> is the outer product of a vector and a matrix: every one of its m*p products
        // is needed.
        return Some(d[1] * d[2]);
    }
    best_known(shape).map(|entry| entry.rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: usize, m: usize, p: usize) -> Shape {
        Shape::new(n, m, p).unwrap()
    }

    #[test]
    fn the_zt_table_parses_whole_and_is_never_below_the_f2_table() {
        let lines = ZT_TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("n\t"))
            .count();
        assert_eq!(zt_table().count(), lines, "a line of the ZT table does not parse");
        // A ZT scheme mod 2 is an F2 scheme of its rank.
        for e in zt_table() {
            // Formats of more than 128 entries a matrix are listed but not walked.
            let Ok(shape) = Shape::new(e.dims[0], e.dims[1], e.dims[2]) else {
                continue;
            };
            if let Some(f2) = best_known_rank(shape) {
                assert!(f2 <= e.rank, "{shape}: F2 {f2} above ZT {}", e.rank);
            }
        }
        assert_eq!(best_known_zt_rank(s(4, 4, 4)), Some(49));
        assert_eq!(best_known_zt_rank(s(4, 3, 3)), best_known_zt_rank(s(3, 3, 4)));
        assert_eq!(best_known_zt_rank(s(3, 6, 6)), Some(82));
    }

    #[test]
    fn every_format_up_to_8_has_exactly_one_entry() {
        let lines = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("n\t"))
            .count();
        assert_eq!(table().count(), lines, "a line of the table does not parse");
        assert_eq!(lines, 84);
        for n in 2..=8 {
            for m in n..=8 {
                for p in m..=8 {
                    let found = table().filter(|e| e.dims == [n, m, p]).count();
                    assert_eq!(found, 1, "<{n},{m},{p}> has {found} entries");
                }
            }
        }
        assert!(table().all(|e| !e.source.is_empty()));
    }

    #[test]
    fn a_proven_optimal_rank_is_the_best_known_one_in_every_order() {
        for shape in [s(2, 2, 2), s(2, 2, 3), s(3, 2, 2), s(2, 3, 2), s(1, 4, 5)] {
            let proven = proven_optimal_rank(shape);
            assert!(proven.is_some(), "{shape}");
            assert_eq!(proven, best_known_rank(shape), "{shape}");
        }
        assert_eq!(proven_optimal_rank(s(2, 2, 4)), None);
        assert_eq!(proven_optimal_rank(s(3, 3, 3)), None);
    }

    #[test]
    fn every_wide_format_has_exactly_one_entry() {
        let lines = WIDE_TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("n\t"))
            .count();
        assert_eq!(wide_table().count(), lines, "a line of the wide table does not parse");
        let mut formats = 0;
        for n in 2..=16 {
            for m in n..=16 {
                for p in m.max(9)..=16 {
                    let Ok(shape) = Shape::new(n, m, p) else { continue };
                    formats += 1;
                    let found = wide_table().filter(|e| e.dims == [n, m, p]).count();
                    assert_eq!(found, 1, "{shape} has {found} entries");
                }
            }
        }
        assert_eq!(lines, formats);
        assert!(wide_table().all(|e| !e.source.is_empty()));
        assert_eq!(best_known_rank(s(10, 10, 10)), Some(651));
        assert_eq!(best_known_rank(s(12, 4, 5)), Some(174));
    }

    #[test]
    fn ranks_lie_between_the_bounds() {
        // Below the naive rank, and at least the rank of the largest flattening (m*p for
        // sorted dims): catches a swapped or shifted column.
        for e in table().chain(wide_table()) {
            let [n, m, p] = e.dims;
            assert!(e.rank < n * m * p, "{e:?}");
            assert!(e.rank >= m * p, "{e:?}");
        }
        assert_eq!(best_known_rank(s(2, 2, 2)), Some(7));
    }

    #[test]
    fn lookup_is_symmetric() {
        assert_eq!(best_known_rank(s(4, 4, 4)), Some(47));
        assert_eq!(best_known_rank(s(5, 4, 4)), Some(60));
        assert_eq!(best_known_rank(s(4, 5, 4)), Some(60));
        assert_eq!(best_known_rank(s(7, 2, 2)), Some(25));
        assert_eq!(best_known_rank(s(6, 5, 7)), Some(150));
        assert_eq!(best_known_rank(s(1, 3, 4)), Some(12));
    }
}
