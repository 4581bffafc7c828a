//! The moves of the ternary flip graph. Each keeps the sum of the terms over Z, and each is
//! refused (returns false or `None`, changing nothing) where a new coefficient would leave
//! {-1,0,1}. The sign choice is the caller's: over F2 there is one flip of a pair, over ZT two
//! (`b' - b` or `b' + b`), and a walk tries both.

use super::{TernaryTerm, Trits};
use crate::term::Position;

/// Flip on the factor at `pos` that `keep` and `other` share (equal normal factors):
/// `a(x)b(x)c + a(x)b'(x)c'  ->  a(x)b(x)(c + s c') + a(x)(b' - s b)(x)c'` with `s` = -1 when
/// `minus`, else +1 (shown for `pos` = A, signs folded into the C factors). `keep` changes at
/// `R` = `pos.prev()`, `other` at `Q` = `pos.next()`, as over F2.
///
/// Returns false, changing nothing, where a new coefficient would be ±2. Either term may become
/// zero (a reduction); callers check with [`TernaryTerm::is_zero`].
#[inline(always)]
pub fn flip(keep: &mut TernaryTerm, other: &mut TernaryTerm, pos: Position, minus: bool) -> bool {
    debug_assert_eq!(keep.get(pos), other.get(pos), "flip needs a shared factor");
    let (q, r) = (pos.next(), pos.prev());
    let Some(new_r) = keep.signed_factor(r).checked_add(other.signed_factor(r).times(minus)) else {
        return false;
    };
    let Some(new_q) = other.get(q).checked_add(keep.get(q).times(!minus)) else {
        return false;
    };
    // keep's sign went into its new R factor.
    *keep = TernaryTerm::signed(with(keep.factors(), r, new_r), false);
    *other = other.with_factor(q, new_q);
    true
}

/// Reduction: two terms that agree in two positions are one term (or none, where they cancel).
/// Returns the merged term, which may be zero, or `None` when they share fewer than two factors
/// or their sum is no ternary term.
#[inline]
pub fn merge(t: &TernaryTerm, u: &TernaryTerm) -> Option<TernaryTerm> {
    let same = Position::ALL.map(|p| t.get(p) == u.get(p));
    let differing = match same {
        [true, true, true] => {
            return (t.is_negative() != u.is_negative()).then(TernaryTerm::default);
        }
        [true, true, false] => Position::C,
        [true, false, true] => Position::B,
        [false, true, true] => Position::A,
        _ => return None,
    };
    let sum = t.signed_factor(differing).checked_add(u.signed_factor(differing))?;
    Some(TernaryTerm::signed(with(t.factors(), differing, sum), false))
}

/// Plus move on `pos` (rank +1, to leave a plateau): `t + u` becomes `t + u' + v` with `u'` = u
/// whose factor at `pos` is `u[pos] - s t[pos]` and `v` = u whose factor at `pos` is
/// `s t[pos]` (`s` = -1 when `minus`), so that `v` shares `t`'s factor. Returns `(u', v)`, or
/// `None` where `u'` would have a coefficient ±2; `t` is unchanged.
#[inline]
pub fn plus(t: &TernaryTerm, u: &TernaryTerm, pos: Position, minus: bool) -> Option<(TernaryTerm, TernaryTerm)> {
    let shared = t.get(pos).times(minus);
    let rest = u.get(pos).checked_add(shared.negated())?;
    Some((u.with_factor(pos, rest), u.with_factor(pos, shared)))
}

/// `factors` with the one at `pos` replaced by `value`.
#[inline(always)]
const fn with(mut factors: [Trits; 3], pos: Position, value: Trits) -> [Trits; 3] {
    factors[pos.index()] = value;
    factors
}

#[cfg(test)]
mod tests {
    use super::super::tests::trits;
    use super::*;
    use proptest::prelude::*;

    /// The tensor of `terms` over 16 entries a factor, exactly.
    fn tensor(terms: &[TernaryTerm]) -> alloc::vec::Vec<i64> {
        let mut t = alloc::vec![0; 16 * 16 * 16];
        for term in terms {
            for (i, x) in t.iter_mut().enumerate() {
                *x += term.coefficient(i / 256, i / 16 % 16, i % 16);
            }
        }
        t
    }

    fn ternary(term: &TernaryTerm) -> bool {
        Position::ALL.iter().all(|&p| {
            let f = term.get(p);
            f.is_normal() && f.negative & !f.nonzero == 0
        })
    }

    fn position() -> impl Strategy<Value = Position> {
        (0..3usize).prop_map(Position::from_index)
    }

    /// Sparse factors (a quarter of the entries nonzero), so that most flips exist.
    fn sparse() -> impl Strategy<Value = Trits> {
        (trits(), any::<u16>()).prop_map(|(t, keep)| Trits {
            nonzero: t.nonzero & keep as u64,
            negative: t.negative & keep as u64,
        })
    }

    fn term() -> impl Strategy<Value = TernaryTerm> {
        (sparse(), sparse(), sparse(), any::<bool>()).prop_map(|(a, b, c, n)| TernaryTerm::signed([a, b, c], n))
    }

    proptest! {
        #[test]
        fn a_flip_keeps_the_tensor_or_changes_nothing(
            t in term(), u in term(), pos in position(), minus: bool
        ) {
            // Make the pair share the factor at `pos`.
            let u = u.with_factor(pos, t.get(pos));
            let (mut x, mut y) = (t, u);
            if flip(&mut x, &mut y, pos, minus) {
                prop_assert_eq!(tensor(&[x, y]), tensor(&[t, u]));
                prop_assert!(ternary(&x) && ternary(&y));
                prop_assert_eq!(x.get(pos), t.get(pos));
                prop_assert_eq!(y.get(pos), t.get(pos));
            } else {
                prop_assert_eq!((x, y), (t, u));
            }
        }

        #[test]
        fn a_merge_keeps_the_tensor(t in term(), u in term(), keep in position(), keep2 in position()) {
            prop_assume!(!t.is_zero() && !u.is_zero());
            // Make the pair share the factors at `keep` and `keep2` (one or two positions).
            let u = u.with_factor(keep, t.get(keep)).with_factor(keep2, t.get(keep2));
            match merge(&t, &u) {
                Some(m) => {
                    prop_assert_eq!(tensor(&[m]), tensor(&[t, u]));
                    prop_assert!(ternary(&m));
                }
                None => {
                    // Sharing two or three factors, the sum leaves {-1,0,1}.
                    let shared = Position::ALL.iter().filter(|&&p| t.get(p) == u.get(p)).count();
                    let d = Position::ALL.into_iter().find(|&p| t.get(p) != u.get(p)).unwrap_or(Position::C);
                    let outside = t.signed_factor(d).checked_add(u.signed_factor(d)).is_none();
                    prop_assert!(shared < 2 || outside);
                }
            }
        }

        #[test]
        fn a_plus_move_keeps_the_tensor_and_shares_the_factor(
            t in term(), u in term(), pos in position(), minus: bool
        ) {
            if let Some((changed, added)) = plus(&t, &u, pos, minus) {
                prop_assert_eq!(tensor(&[changed, added]), tensor(&[u]));
                prop_assert!(ternary(&changed) && ternary(&added));
                prop_assert!(added.is_zero() || added.get(pos) == t.get(pos));
            } else {
                prop_assert!(u.get(pos).checked_add(t.get(pos).times(!minus)).is_none());
            }
        }
    }

    #[test]
    fn a_flip_of_two_terms_sharing_two_factors_is_a_merge() {
        let (a, b) = (Trits::unit(0), Trits::unit(1));
        let c = Trits::ZERO.with(2, -1).unwrap();
        let (t, u) = (TernaryTerm::new(a, b, c), TernaryTerm::new(a, b, Trits::unit(3)));
        let (mut x, mut y) = (t, u);
        // b' - b = 0: `other` vanishes and `keep` carries both C factors.
        assert!(flip(&mut x, &mut y, Position::A, false));
        assert!(y.is_zero());
        assert_eq!(Some(x), merge(&t, &u));
        assert_eq!(tensor(&[x]), tensor(&[t, u]));
        // Equal terms add to 2: no ternary term; opposite ones cancel.
        assert_eq!(merge(&t, &t), None);
        let minus_t = TernaryTerm::signed(t.factors(), !t.is_negative());
        assert!(merge(&t, &minus_t).unwrap().is_zero());
    }
}
