//! Best known ranks over F2 (any scheme valid over Z is valid over F2), for targets and gaps.

/// `(n, m, p, rank)`, with n <= m <= p; the rank is invariant under permuting the dimensions.
const BEST_KNOWN: &[(u8, u8, u8, u16)] = &[
    (2, 2, 2, 7),
    (2, 2, 3, 11),
    (2, 3, 3, 15),
    (2, 3, 4, 20),
    (2, 4, 5, 33),
    (3, 3, 3, 23),
    (3, 3, 4, 29),
    (3, 3, 6, 42),
    (3, 3, 8, 55),
    (3, 4, 4, 38),
    (3, 4, 5, 47),
    (3, 5, 5, 58),
    (4, 4, 4, 47),
    (4, 4, 5, 60),
    (4, 4, 6, 73),
    (4, 4, 8, 94),
    (4, 5, 5, 73),
    (5, 5, 5, 93),
    (6, 6, 6, 153),
    (7, 7, 7, 245),
    (8, 8, 8, 329),
];

/// The best known rank over F2 for `<n,m,p>`, if the table has it.
pub fn best_known_rank(shape: crate::Shape) -> Option<usize> {
    let mut d = shape.dims();
    d.sort_unstable();
    if d[0] == 1 {
        // <1,m,p> is the outer product of a vector and a matrix: every one of its m*p products
        // is needed.
        return Some(d[1] * d[2]);
    }
    BEST_KNOWN
        .iter()
        .find(|&&(n, m, p, _)| [n as usize, m as usize, p as usize] == d)
        .map(|&(.., r)| r as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_symmetric() {
        let s = |n, m, p| crate::Shape::new(n, m, p).unwrap();
        assert_eq!(best_known_rank(s(4, 4, 4)), Some(47));
        assert_eq!(best_known_rank(s(5, 4, 4)), Some(60));
        assert_eq!(best_known_rank(s(4, 5, 4)), Some(60));
        assert_eq!(best_known_rank(s(5, 6, 7)), None);
    }
}
