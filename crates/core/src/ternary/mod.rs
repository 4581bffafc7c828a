//! The ternary ring ZT: schemes whose coefficients are -1, 0 and 1. Such a scheme that sums to
//! the matrix multiplication tensor over Z is valid over every ring, which is why the field's
//! catalogues rank schemes over ZT and where its 2026 records are.
//!
//! A factor is two bit planes ([`Trits`]): which entries are nonzero, and which of those are
//! -1. A term ([`TernaryTerm`]) is `±a(x)b(x)c` with each factor in *normal form* (its first
//! nonzero entry is +1) and the sign kept apart, so that two terms share a factor up to sign
//! exactly when their normal factors are equal: a walk's index (and a warp's match) finds flip
//! partners by equality, as over F2. A move is taken only where every new coefficient stays in
//! {-1,0,1}: two equal nonzero entries add to ±2, which ZT has not, so such a move does not
//! exist (it is refused, never wrapped). No allocation below [`TernaryScheme`], so the moves can
//! go to a kernel as the F2 moves do.

#[cfg(feature = "alloc")]
mod cyclic;
mod moves;
#[cfg(feature = "alloc")]
mod scheme;

#[cfg(feature = "alloc")]
pub use cyclic::CyclicOrbits;
pub use moves::{flip, merge, plus};
#[cfg(feature = "alloc")]
pub use scheme::{TernaryError, TernaryScheme};

use bytemuck::{Pod, Zeroable};

use crate::term::Position;

/// Entries in one ternary factor at most: a plane is a `u64` (every format up to 8x8x8).
pub const TRIT_BITS: usize = 64;

/// One factor matrix over {-1,0,1} as two bit planes (entry `i` as bit `i`, in the positions of
/// [`Shape::a_bit`](crate::Shape::a_bit) and its siblings). `negative` is a subset of
/// `nonzero`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
#[repr(C)]
pub struct Trits {
    /// The entries that are not zero.
    pub nonzero: u64,
    /// The entries that are -1.
    pub negative: u64,
}

impl Trits {
    /// The zero factor.
    pub const ZERO: Trits = Trits {
        nonzero: 0,
        negative: 0,
    };

    /// The factor whose only nonzero entry is `i`, equal to 1.
    pub const fn unit(i: usize) -> Trits {
        Trits {
            nonzero: 1 << i,
            negative: 0,
        }
    }

    /// Entry `i`: -1, 0 or 1.
    pub const fn get(self, i: usize) -> i64 {
        if self.nonzero >> i & 1 == 0 {
            0
        } else if self.negative >> i & 1 == 1 {
            -1
        } else {
            1
        }
    }

    /// The factor with entry `i` set to `value`; `None` when `value` is not -1, 0 or 1 or `i`
    /// is past [`TRIT_BITS`].
    pub const fn with(self, i: usize, value: i64) -> Option<Trits> {
        if i >= TRIT_BITS {
            return None;
        }
        let bit = 1u64 << i;
        let (nonzero, negative) = (self.nonzero & !bit, self.negative & !bit);
        match value {
            0 => Some(Trits { nonzero, negative }),
            1 => Some(Trits {
                nonzero: nonzero | bit,
                negative,
            }),
            -1 => Some(Trits {
                nonzero: nonzero | bit,
                negative: negative | bit,
            }),
            _ => None,
        }
    }

    /// Whether every entry is zero.
    #[inline(always)]
    pub const fn is_zero(self) -> bool {
        self.nonzero == 0
    }

    /// Nonzero entries: the factor's weight, as over F2.
    #[inline(always)]
    pub const fn weight(self) -> u32 {
        self.nonzero.count_ones()
    }

    /// `-self`.
    #[inline(always)]
    pub const fn negated(self) -> Trits {
        Trits {
            nonzero: self.nonzero,
            negative: self.nonzero & !self.negative,
        }
    }

    /// `-self` when `negative`, else `self`.
    #[inline(always)]
    pub const fn times(self, negative: bool) -> Trits {
        if negative {
            self.negated()
        } else {
            self
        }
    }

    /// `self + other`, or `None` where an entry would be 2 or -2.
    #[inline(always)]
    pub const fn checked_add(self, other: Trits) -> Option<Trits> {
        let both = self.nonzero & other.nonzero;
        if both & !(self.negative ^ other.negative) != 0 {
            return None;
        }
        // Entries nonzero in both have opposite signs and cancel.
        let nonzero = self.nonzero ^ other.nonzero;
        Some(Trits {
            nonzero,
            negative: (self.negative | other.negative) & nonzero,
        })
    }

    /// Whether the first nonzero entry (the lowest bit) is +1; zero is normal.
    #[inline(always)]
    pub const fn is_normal(self) -> bool {
        self.negative & self.nonzero & self.nonzero.wrapping_neg() == 0
    }

    /// The normal form (first nonzero entry +1) and whether it is `-self`.
    #[inline(always)]
    pub const fn normalized(self) -> (Trits, bool) {
        let negated = !self.is_normal();
        (self.times(negated), negated)
    }

    /// Both planes of a factor of `entries` entries side by side in one integer (`nonzero`
    /// low, `negative` above it): the key a walk's index looks up, equal for equal factors
    /// only, and as narrow as the factor allows (a 2x2 factor's key has 8 bits).
    #[inline(always)]
    pub const fn key(self, entries: usize) -> u128 {
        self.nonzero as u128 | (self.negative as u128) << entries
    }
}

/// A rank-one term `±a(x)b(x)c` over {-1,0,1}, its factors in normal form (see the module).
/// Every constructor normalizes, so two terms are equal exactly when they are the same tensor
/// (zero terms aside).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TernaryTerm {
    factors: [Trits; 3],
    negative: bool,
}

impl TernaryTerm {
    /// `a(x)b(x)c`, normalized.
    pub const fn new(a: Trits, b: Trits, c: Trits) -> TernaryTerm {
        TernaryTerm::signed([a, b, c], false)
    }

    /// `±a(x)b(x)c` (minus when `negative`), normalized.
    pub const fn signed(factors: [Trits; 3], negative: bool) -> TernaryTerm {
        let (a, na) = factors[0].normalized();
        let (b, nb) = factors[1].normalized();
        let (c, nc) = factors[2].normalized();
        TernaryTerm {
            factors: [a, b, c],
            negative: negative ^ na ^ nb ^ nc,
        }
    }

    /// The normal factor at `pos`.
    #[inline(always)]
    pub const fn get(&self, pos: Position) -> Trits {
        self.factors[pos.index()]
    }

    /// The three normal factors.
    #[inline(always)]
    pub const fn factors(&self) -> [Trits; 3] {
        self.factors
    }

    /// Whether the term is minus the product of its normal factors.
    #[inline(always)]
    pub const fn is_negative(&self) -> bool {
        self.negative
    }

    /// Whether the term is the zero tensor (a zero factor).
    #[inline(always)]
    pub const fn is_zero(&self) -> bool {
        self.factors[0].is_zero() || self.factors[1].is_zero() || self.factors[2].is_zero()
    }

    /// Nonzero entries of the three factors: what a sparse walk keeps low.
    #[inline(always)]
    pub const fn weight(&self) -> u32 {
        self.factors[0].weight() + self.factors[1].weight() + self.factors[2].weight()
    }

    /// The factor at `pos` with the term's sign in it: `±get(pos)`, so that the term is the
    /// product of this and the other two normal factors.
    #[inline(always)]
    pub const fn signed_factor(&self, pos: Position) -> Trits {
        self.get(pos).times(self.negative)
    }

    /// The term with its factor at `pos` replaced by `value` (which may carry a sign),
    /// normalized.
    #[inline(always)]
    pub const fn with_factor(&self, pos: Position, value: Trits) -> TernaryTerm {
        let mut factors = self.factors;
        factors[pos.index()] = value;
        TernaryTerm::signed(factors, self.negative)
    }

    /// `sigma^k` of the term (square shapes, [`crate::symmetry`]): factor `k` (0, 1 or 2, taken
    /// mod 3) first, then the next two, cyclically; the sign unchanged. Its normal factors stay
    /// normal, so this is the term of the rotated tensor.
    #[inline(always)]
    pub const fn rotated(&self, k: usize) -> TernaryTerm {
        let f = self.factors;
        TernaryTerm {
            factors: [f[k % 3], f[(k + 1) % 3], f[(k + 2) % 3]],
            negative: self.negative,
        }
    }

    /// True for a cube `±X (x) X (x) X`: the terms the rotation fixes.
    #[inline(always)]
    pub const fn is_cube(&self) -> bool {
        let [a, b, c] = self.factors;
        a.nonzero == b.nonzero && b.nonzero == c.nonzero && a.negative == b.negative && b.negative == c.negative
    }

    /// The term's coefficient at `(u, v, w)`: entry `u` of A times `v` of B times `w` of C.
    pub const fn coefficient(&self, u: usize, v: usize, w: usize) -> i64 {
        let sign = if self.negative { -1 } else { 1 };
        sign * self.factors[0].get(u) * self.factors[1].get(v) * self.factors[2].get(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A random factor over 16 entries.
    pub(super) fn trits() -> impl Strategy<Value = Trits> {
        (any::<u16>(), any::<u16>()).prop_map(|(nz, neg)| Trits {
            nonzero: nz as u64,
            negative: (nz & neg) as u64,
        })
    }

    fn entries(t: Trits) -> [i64; 16] {
        core::array::from_fn(|i| t.get(i))
    }

    proptest! {
        #[test]
        fn addition_is_entrywise_or_refused(x in trits(), y in trits()) {
            let sums = core::array::from_fn::<i64, 16, _>(|i| x.get(i) + y.get(i));
            match x.checked_add(y) {
                Some(s) => {
                    prop_assert_eq!(entries(s), sums);
                    prop_assert_eq!(s.negative & !s.nonzero, 0);
                }
                None => prop_assert!(sums.iter().any(|v| v.abs() == 2)),
            }
        }

        #[test]
        fn normal_forms_start_with_plus_one_and_keep_the_factor_up_to_sign(x in trits()) {
            let (n, negated) = x.normalized();
            prop_assert!(n.is_normal());
            prop_assert_eq!(n.times(negated), x);
            if let Some(first) = (0..16).find(|&i| n.get(i) != 0) {
                prop_assert_eq!(n.get(first), 1);
            }
            prop_assert_eq!(x.negated().negated(), x);
            prop_assert_eq!(x.negated().normalized().0, n);
        }

        #[test]
        fn a_term_keeps_its_tensor_through_normalization(a in trits(), b in trits(), c in trits(), neg: bool) {
            let t = TernaryTerm::signed([a, b, c], neg);
            let sign = if neg { -1 } else { 1 };
            for (u, v, w) in [(0, 0, 0), (1, 2, 3), (15, 7, 0), (4, 4, 4)] {
                prop_assert_eq!(t.coefficient(u, v, w), sign * a.get(u) * b.get(v) * c.get(w));
            }
            prop_assert!(Position::ALL.iter().all(|&p| t.get(p).is_normal()));
        }
    }

    #[test]
    fn entries_are_set_and_read_back() {
        let t = Trits::ZERO.with(3, -1).unwrap().with(5, 1).unwrap();
        assert_eq!((t.get(3), t.get(5), t.get(0)), (-1, 1, 0));
        assert_eq!(t.with(3, 0).unwrap().get(3), 0);
        assert_eq!(t.with(1, 2), None);
        assert_eq!(t.with(64, 1), None);
        assert!(!t.is_normal());
        assert_eq!(t.key(16) >> 16, 1 << 3);
    }
}
