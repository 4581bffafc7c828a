//! The moves of the flip graph, as functions on terms. `no_std`, no allocation: the GPU
//! kernels compile this module for the nvptx64 target.
//!
//! Every move preserves the sum of the terms. Conventions: for a move "on position P", the two
//! other positions are `Q = P.next()` and `R = P.prev()`; for P = A these are B and C.

use crate::shape::MAX_FACTOR_BITS;
use crate::term::{FactorBits, Position, Term};

/// Flip on the factor at `pos` that `keep` and `other` share:
/// `a(x)b(x)c + a(x)b'(x)c'  ->  a(x)b(x)(c+c') + a(x)(b'+b)(x)c'` (shown for `pos` = A,
/// `keep` = the first term). `keep` changes at `R`, `other` at `Q`.
///
/// Either term may become zero (then the rank drops); callers check with [`Term::is_zero`].
#[inline(always)]
pub fn flip<F: Moves>(keep: &mut Term<F>, other: &mut Term<F>, pos: Position) {
    F::flip(keep, other, pos)
}

/// Reduction: two terms that agree in two positions are one term. Returns the merged term
/// (which may be zero) or `None` when the terms share fewer than two factors.
#[inline(always)]
pub fn merge<F: Moves>(t: &Term<F>, u: &Term<F>) -> Option<Term<F>> {
    F::merge(t, u)
}

/// Plus move on `pos` (rank +1, to leave a plateau): `t + u` becomes `t + u' + v` with
/// `u'` = u whose factor at `pos` is `u[pos] + t[pos]`, and `v` = u whose factor at `pos` is
/// `t[pos]`. Returns `(u', v)`; `t` is unchanged.
#[inline(always)]
pub fn plus<F: Moves>(t: &Term<F>, u: &Term<F>, pos: Position) -> (Term<F>, Term<F>) {
    F::plus(t, u, pos)
}

/// The moves on terms of one factor width: [`flip`], [`merge`] and [`plus`] for `u64` and
/// `u128`. One body, written per width by a macro on the integers themselves rather than
/// through the operator traits of [`FactorBits`], so that the GPU kernels' 64-bit moves compile
/// to the very code they did before terms had a width parameter (the kernels' PTX is compared
/// byte for byte).
pub trait Moves: FactorBits {
    /// See [`flip`].
    fn flip(keep: &mut Term<Self>, other: &mut Term<Self>, pos: Position);
    /// See [`merge`].
    fn merge(t: &Term<Self>, u: &Term<Self>) -> Option<Term<Self>>;
    /// See [`plus`].
    fn plus(t: &Term<Self>, u: &Term<Self>, pos: Position) -> (Term<Self>, Term<Self>);
}

macro_rules! moves {
    ($($t:ty),*) => {$(
        impl Moves for $t {
            #[inline(always)]
            fn flip(keep: &mut Term<$t>, other: &mut Term<$t>, pos: Position) {
                debug_assert_eq!(keep.get(pos), other.get(pos), "flip needs a shared factor");
                let (q, r) = (pos.next(), pos.prev());
                keep.set(r, keep.get(r) ^ other.get(r));
                other.set(q, other.get(q) ^ keep.get(q));
            }

            #[inline]
            fn merge(t: &Term<$t>, u: &Term<$t>) -> Option<Term<$t>> {
                let same = [t.a == u.a, t.b == u.b, t.c == u.c];
                match same {
                    [true, true, _] => Some(Term::from_factors(t.a, t.b, t.c ^ u.c)),
                    [true, _, true] => Some(Term::from_factors(t.a, t.b ^ u.b, t.c)),
                    [_, true, true] => Some(Term::from_factors(t.a ^ u.a, t.b, t.c)),
                    _ => None,
                }
            }

            #[inline]
            fn plus(t: &Term<$t>, u: &Term<$t>, pos: Position) -> (Term<$t>, Term<$t>) {
                let mut changed = *u;
                changed.set(pos, u.get(pos) ^ t.get(pos));
                let mut added = *u;
                added.set(pos, t.get(pos));
                (changed, added)
            }
        }
    )*};
}

moves!(u64, u128);

/// True when the terms of `group` (all sharing the factor at `pos`) can be rewritten to fewer
/// terms by a generalized flip: their factors at `Q` or at `R` are linearly dependent.
pub fn group_is_reducible<F: FactorBits>(group: &[Term<F>], pos: Position) -> bool {
    [pos.next(), pos.prev()].into_iter().any(|along| {
        let mut basis = [F::ZERO; MAX_FACTOR_BITS];
        !group
            .iter()
            .filter(|t| !t.is_zero())
            .all(|t| insert_into_basis(&mut basis, t.get(along)))
    })
}

/// Adds `v` to a basis indexed by leading bit; false when `v` is in its span already.
fn insert_into_basis<F: FactorBits>(basis: &mut [F; MAX_FACTOR_BITS], mut v: F) -> bool {
    while v != F::ZERO {
        let lead = v.leading_bit();
        if basis[lead] == F::ZERO {
            basis[lead] = v;
            return true;
        }
        v ^= basis[lead];
    }
    false
}

/// Generalized flip by Gaussian elimination, for any number of terms.
///
/// All terms of `group` share the factor at `pos`, so their sum is `a (x) sum_i q_i (x) r_i`.
/// The group is rewritten by flips inside it (an element of GL_N(F2)) to the fewest terms
/// possible, `N - rank(sum_i q_i (x) r_i)`: first the `q_i` are made independent, then the
/// `r_i`. Terms that become zero stay in place; returns how many there are.
/// Call it when [`group_is_reducible`] holds: on an irreducible group it still rewrites terms.
pub fn generalized_flip_rank<F: Moves>(group: &mut [Term<F>], pos: Position) -> usize {
    let zero_before = group.iter().filter(|t| t.is_zero()).count();
    eliminate(group, pos.next(), |g, basis, i| flip_pair(g, basis, i, pos));
    eliminate(group, pos.prev(), |g, basis, i| flip_pair(g, i, basis, pos));
    group.iter().filter(|t| t.is_zero()).count() - zero_before
}

/// Gaussian elimination of the factors at `along` of the non-zero terms of `group`.
/// `reduce(g, basis, i)` must add factor `along` of term `basis` to term `i` by a flip (which
/// changes term `basis` too); a term whose factor reaches zero is zero.
fn eliminate<F: FactorBits>(
    group: &mut [Term<F>],
    along: Position,
    mut reduce: impl FnMut(&mut [Term<F>], usize, usize),
) {
    // pivot[bit] = 1 + index of the basis term whose leading bit is `bit`.
    let mut pivot = [0u16; MAX_FACTOR_BITS];
    for i in 0..group.len() {
        if group[i].is_zero() {
            continue;
        }
        loop {
            let v = group[i].get(along);
            if v == F::ZERO {
                break;
            }
            match pivot[v.leading_bit()] {
                0 => {
                    pivot[v.leading_bit()] = i as u16 + 1;
                    break;
                }
                j => reduce(group, j as usize - 1, i),
            }
        }
    }
}

/// [`flip`] between two members of one slice.
fn flip_pair<F: Moves>(group: &mut [Term<F>], keep: usize, other: usize, pos: Position) {
    debug_assert_ne!(keep, other);
    let (mut k, mut o) = (group[keep], group[other]);
    flip(&mut k, &mut o, pos);
    group[keep] = k;
    group[other] = o;
}

/// The largest group [`generalized_flip_subsets`] accepts (a warp has 32 lanes: 2^5 - 1 subsets).
pub const MAX_SUBSET_GROUP: usize = 5;

/// Generalized flip as the preprint does it on a GPU: try every non-empty subset of the (at most
/// [`MAX_SUBSET_GROUP`]) terms; a subset whose factors at `Q` (or `R`) sum to zero is a linear
/// dependency, and its last term is folded into the others and becomes zero. Repeats until no
/// subset is dependent, which reaches the same count as [`generalized_flip_rank`].
///
/// The sequential reference model of the kernels' lane-parallel generalized flip (one lane per
/// subset, a ballot, then each member's flip on its own lane): the tests hold the kernel's
/// method to this function, and this function to [`generalized_flip_rank`].
///
/// Zero terms stay in place. Returns how many terms became zero, or `None` for a larger group.
pub fn generalized_flip_subsets(group: &mut [Term], pos: Position) -> Option<usize> {
    if group.len() > MAX_SUBSET_GROUP {
        return None;
    }
    let zero_before = group.iter().filter(|t| t.is_zero()).count();
    loop {
        let found = [pos.next(), pos.prev()]
            .into_iter()
            .find_map(|along| dependent_subset(group, along).map(|s| (along, s)));
        let Some((along, subset)) = found else { break };
        fold_subset(group, pos, along, subset);
    }
    Some(group.iter().filter(|t| t.is_zero()).count() - zero_before)
}

/// Folds the last term of a dependent `subset` (a bit mask over `group`, whose factors at
/// `along` sum to zero) into the others by flips, which zeroes it: the step the GPU kernel
/// takes after its ballot finds `subset`, each member's flip on its own lane.
fn fold_subset(group: &mut [Term], pos: Position, along: Position, subset: u32) {
    let last = 31 - subset.leading_zeros() as usize;
    for i in (0..last).filter(|i| subset & (1 << i) != 0) {
        // Fold `last` into `i`: along Q that is flip(keep = i, other = last); along R the dual.
        let (keep, other) = if along == pos.next() { (i, last) } else { (last, i) };
        flip_pair(group, keep, other, pos);
    }
    debug_assert!(group[last].is_zero());
}

/// The smallest non-empty subset of the non-zero terms (as a bit mask over `group`) whose
/// factors at `along` sum to zero: what one ballot over 31 lanes finds on the GPU.
fn dependent_subset(group: &[Term], along: Position) -> Option<u32> {
    let live = (0..group.len())
        .filter(|&i| !group[i].is_zero())
        .fold(0u32, |m, i| m | 1 << i);
    (1u32..1 << group.len())
        .filter(|&mask| mask & !live == 0)
        .find(|&mask| {
            let sum = (0..group.len())
                .filter(|i| mask & (1 << i) != 0)
                .fold(0, |acc, i| acc ^ group[i].get(along));
            sum == 0
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_keeps_shared_factor_and_changes_one_factor_each() {
        let (mut t, mut u) = (Term::new(1, 2, 4), Term::new(1, 8, 16));
        flip(&mut t, &mut u, Position::A);
        assert_eq!(t, Term::new(1, 2, 4 ^ 16));
        assert_eq!(u, Term::new(1, 8 ^ 2, 16));
    }

    #[test]
    fn a_flip_at_any_position_is_a_flip_at_a_of_the_rotated_terms() {
        for pos in Position::ALL {
            let (mut x, mut y) = (Term::new(5, 9, 17), Term::new(6, 12, 33));
            // The flip's precondition: the same factor at `pos`.
            x.set(pos, 3);
            y.set(pos, 3);
            let (mut rx, mut ry) = (x.rotated(pos), y.rotated(pos));
            assert_eq!(rx.a, 3);
            flip(&mut x, &mut y, pos);
            flip(&mut rx, &mut ry, Position::A);
            assert_eq!((rx, ry), (x.rotated(pos), y.rotated(pos)), "{pos:?}");
        }
    }

    #[test]
    fn merge_needs_two_shared_factors() {
        assert_eq!(
            merge(&Term::new(1, 2, 4), &Term::new(1, 2, 8)),
            Some(Term::new(1, 2, 12))
        );
        assert_eq!(merge(&Term::new(1, 2, 4), &Term::new(1, 3, 8)), None);
        assert!(merge(&Term::new(1, 2, 4), &Term::new(1, 2, 4)).unwrap().is_zero());
    }

    #[test]
    fn generalized_flip_removes_dependent_terms() {
        // Independent b-factors and c-factors: nothing to remove.
        let independent = [Term::new(7, 1, 1), Term::new(7, 2, 2), Term::new(7, 4, 4)];
        assert_eq!(generalized_flip_rank(&mut independent.clone(), Position::A), 0);
        // b-factors 1, 2, 3 span two dimensions: one of the three terms must go.
        let mut g = [Term::new(7, 1, 1), Term::new(7, 2, 2), Term::new(7, 3, 3)];
        let mut h = g;
        assert_eq!(generalized_flip_rank(&mut g, Position::A), 1);
        assert_eq!(generalized_flip_subsets(&mut h, Position::A), Some(1));
        assert!(g[2].is_zero() && h[2].is_zero());
        assert!(!group_is_reducible(&independent, Position::A));
        assert!(!group_is_reducible(&g[..2], Position::A));
    }
}
