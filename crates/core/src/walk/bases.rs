//! Dependency checks of a group's factors: two F2 bases indexed by leading bit.

use crate::shape::MAX_FACTOR_BITS as PIVOTS;
use crate::term::FactorBits;

/// Two F2 bases (the factors at the two other positions of a group) indexed by leading bit.
/// An entry is valid only when stamped with the current check, so no check clears 1 KiB.
#[derive(Clone, Debug)]
pub(crate) struct Bases<F = u64> {
    values: [[F; PIVOTS]; 2],
    stamps: [[u64; PIVOTS]; 2],
    check: u64,
}

impl<F: FactorBits> Bases<F> {
    pub(crate) fn new() -> Bases<F> {
        Bases {
            values: [[F::ZERO; PIVOTS]; 2],
            stamps: [[0; PIVOTS]; 2],
            check: 0,
        }
    }

    /// True when the first or the second factors of `pairs` are linearly dependent (a zero
    /// factor is dependent).
    pub(crate) fn dependent(&mut self, pairs: impl IntoIterator<Item = (F, F)>) -> bool {
        self.check += 1;
        pairs.into_iter().any(|(q, r)| !self.insert(0, q) || !self.insert(1, r))
    }

    /// Adds `v` to basis `which`; false when it was in the span already.
    #[inline]
    fn insert(&mut self, which: usize, mut v: F) -> bool {
        while v != F::ZERO {
            let lead = v.leading_bit();
            if self.stamps[which][lead] != self.check {
                self.stamps[which][lead] = self.check;
                self.values[which][lead] = v;
                return true;
            }
            v ^= self.values[which][lead];
        }
        false
    }
}

/// Whether three terms' factors, given as three pairs, are dependent in either coordinate:
/// three vectors are when one is zero, two are equal or all three sum to zero.
#[inline]
pub(crate) fn three_are_dependent<F: FactorBits>(pairs: [(F, F); 3]) -> bool {
    let three = |a: F, b: F, c: F| F::any_zero(a, b, c) || a == b || a == c || b == c || a ^ b ^ c == F::ZERO;
    let [(a, x), (b, y), (c, z)] = pairs;
    three(a, b, c) || three(x, y, z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::group_is_reducible;
    use crate::rng::WyRand;
    use crate::term::{Position, Term};

    #[test]
    fn the_checks_agree_with_the_moves() {
        let mut rng = WyRand::new(5);
        let mut bases = Bases::new();
        let mut seen = [0; 2];
        for _ in 0..20_000 {
            // Five-bit factors and groups of 2 to 7: dependent and independent ones are common.
            let len = 2 + rng.below(6);
            let terms: alloc::vec::Vec<Term> = (0..len)
                .map(|_| Term::new(7, 1 + rng.below(31) as u64, 1 + rng.below(31) as u64))
                .collect();
            let expected = group_is_reducible(&terms, Position::A);
            let pairs = || terms.iter().map(|t| (t.b, t.c));
            assert_eq!(bases.dependent(pairs()), expected, "{terms:?}");
            if let [x, y, z] = terms[..] {
                assert_eq!(
                    three_are_dependent([x, y, z].map(|t| (t.b, t.c))),
                    expected,
                    "{terms:?}"
                );
            }
            seen[expected as usize] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }
}
