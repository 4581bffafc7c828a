//! The moves of the flip graph, as functions on terms. `no_std`, no allocation: the GPU
//! kernels compile this module for the nvptx64 target.
//!
//! Every move preserves the sum of the terms. Conventions: for a move "on position P", the two
//! other positions are `Q = P.next()` and `R = P.prev()`; for P = A these are B and C.

use crate::term::{Position, Term};

/// Flip on the factor at `pos` that `keep` and `other` share:
/// `a(x)b(x)c + a(x)b'(x)c'  ->  a(x)b(x)(c+c') + a(x)(b'+b)(x)c'` (shown for `pos` = A,
/// `keep` = the first term). `keep` changes at `R`, `other` at `Q`.
///
/// Either term may become zero (then the rank drops); callers check with [`Term::is_zero`].
#[inline(always)]
pub fn flip(keep: &mut Term, other: &mut Term, pos: Position) {
    debug_assert_eq!(keep.get(pos), other.get(pos), "flip needs a shared factor");
    let (q, r) = (pos.next(), pos.prev());
    *keep.get_mut(r) ^= other.get(r);
    *other.get_mut(q) ^= keep.get(q);
}

/// Reduction: two terms that agree in two positions are one term. Returns the merged term
/// (which may be zero) or `None` when the terms share fewer than two factors.
#[inline]
pub fn merge(t: &Term, u: &Term) -> Option<Term> {
    let same = [t.a == u.a, t.b == u.b, t.c == u.c];
    match same {
        [true, true, _] => Some(Term::new(t.a, t.b, t.c ^ u.c)),
        [true, _, true] => Some(Term::new(t.a, t.b ^ u.b, t.c)),
        [_, true, true] => Some(Term::new(t.a ^ u.a, t.b, t.c)),
        _ => None,
    }
}

/// Plus move on `pos` (rank +1, to leave a plateau): `t + u` becomes `t + u' + v` with
/// `u'` = u whose factor at `pos` is `u[pos] + t[pos]`, and `v` = u whose factor at `pos` is
/// `t[pos]`. Returns `(u', v)`; `t` is unchanged.
#[inline]
pub fn plus(t: &Term, u: &Term, pos: Position) -> (Term, Term) {
    let mut changed = *u;
    *changed.get_mut(pos) ^= t.get(pos);
    let mut added = *u;
    *added.get_mut(pos) = t.get(pos);
    (changed, added)
}

/// Moves the zero terms of `group` to its end, keeping the order of the others; returns how
/// many are non-zero.
pub fn compact(group: &mut [Term]) -> usize {
    let mut live = 0;
    for i in 0..group.len() {
        if !group[i].is_zero() {
            group.swap(live, i);
            live += 1;
        }
    }
    live
}

/// Generalized flip by Gaussian elimination, for any number of terms.
///
/// All terms of `group` share the factor at `pos`, so their sum is `a (x) sum_i q_i (x) r_i`.
/// The group is rewritten by flips inside it (an element of GL_N(F2)) to the fewest terms
/// possible, `N - rank(sum_i q_i (x) r_i)`: first the `q_i` are made independent, then the
/// `r_i`. The result is compacted to the front; returns how many terms became zero.
pub fn generalized_flip_rank(group: &mut [Term], pos: Position) -> usize {
    let n = group.len();
    eliminate(group, pos.next(), |g, basis, i| flip_pair(g, basis, i, pos));
    let live = compact(group);
    eliminate(&mut group[..live], pos.prev(), |g, basis, i| {
        flip_pair(g, i, basis, pos)
    });
    n - compact(group)
}

/// Gaussian elimination of the factors at `along` of the non-zero terms of `group`.
/// `reduce(g, basis, i)` must add factor `along` of term `basis` to term `i` by a flip (which
/// changes term `basis` too); a term whose factor reaches zero is zero.
fn eliminate(
    group: &mut [Term],
    along: Position,
    mut reduce: impl FnMut(&mut [Term], usize, usize),
) {
    // pivot[bit] = 1 + index of the basis term whose leading bit is `bit`.
    let mut pivot = [0u16; 64];
    for i in 0..group.len() {
        if group[i].is_zero() {
            continue;
        }
        loop {
            let v = group[i].get(along);
            if v == 0 {
                break;
            }
            let lead = 63 - v.leading_zeros() as usize;
            match pivot[lead] {
                0 => {
                    pivot[lead] = i as u16 + 1;
                    break;
                }
                j => reduce(group, j as usize - 1, i),
            }
        }
    }
}

/// [`flip`] between two members of one slice.
fn flip_pair(group: &mut [Term], keep: usize, other: usize, pos: Position) {
    debug_assert_ne!(keep, other);
    let (k, o) = (group[keep], group[other]);
    let (mut k2, mut o2) = (k, o);
    flip(&mut k2, &mut o2, pos);
    group[keep] = k2;
    group[other] = o2;
}

/// The largest group [`generalized_flip_subsets`] accepts (a warp has 32 lanes: 2^5 - 1 subsets).
pub const MAX_SUBSET_GROUP: usize = 5;

/// Generalized flip as the preprint does it on a GPU: try every non-empty subset of the (at most
/// [`MAX_SUBSET_GROUP`]) terms; a subset whose factors at `Q` (or `R`) sum to zero is a linear
/// dependency, and its last term is folded into the others and removed. Repeats until no subset
/// is dependent, which reaches the same count as [`generalized_flip_rank`].
///
/// Returns how many terms became zero (compacted to the end), or `None` for a larger group.
pub fn generalized_flip_subsets(group: &mut [Term], pos: Position) -> Option<usize> {
    if group.len() > MAX_SUBSET_GROUP {
        return None;
    }
    let n = group.len();
    let mut live = compact(group);
    loop {
        let found = [pos.next(), pos.prev()]
            .into_iter()
            .find_map(|along| dependent_subset(&group[..live], along).map(|s| (along, s)));
        let Some((along, subset)) = found else { break };
        let last = 31 - subset.leading_zeros() as usize;
        for i in (0..last).filter(|i| subset & (1 << i) != 0) {
            // Fold `last` into `i`: along Q that is flip(keep = i, other = last); along R the dual.
            if along == pos.next() {
                flip_pair(group, i, last, pos);
            } else {
                flip_pair(group, last, i, pos);
            }
        }
        debug_assert!(group[last].is_zero());
        live = compact(&mut group[..live]);
    }
    Some(n - live)
}

/// The smallest non-empty subset (as a bit mask over `group`) whose factors at `along` sum to
/// zero: what one ballot over 31 lanes finds on the GPU.
fn dependent_subset(group: &[Term], along: Position) -> Option<u32> {
    (1u32..1 << group.len()).find(|&mask| {
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
    fn merge_needs_two_shared_factors() {
        assert_eq!(
            merge(&Term::new(1, 2, 4), &Term::new(1, 2, 8)),
            Some(Term::new(1, 2, 12))
        );
        assert_eq!(merge(&Term::new(1, 2, 4), &Term::new(1, 3, 8)), None);
        assert!(merge(&Term::new(1, 2, 4), &Term::new(1, 2, 4))
            .unwrap()
            .is_zero());
    }

    #[test]
    fn generalized_flip_removes_dependent_terms() {
        // Independent b-factors and c-factors: nothing to remove.
        let independent = [Term::new(7, 1, 1), Term::new(7, 2, 2), Term::new(7, 4, 4)];
        assert_eq!(
            generalized_flip_rank(&mut independent.clone(), Position::A),
            0
        );
        // b-factors 1, 2, 3 span two dimensions: one of the three terms must go.
        let mut g = [Term::new(7, 1, 1), Term::new(7, 2, 2), Term::new(7, 3, 3)];
        let mut h = g;
        assert_eq!(generalized_flip_rank(&mut g, Position::A), 1);
        assert_eq!(generalized_flip_subsets(&mut h, Position::A), Some(1));
        assert!(g[2].is_zero() && h[2].is_zero());
    }
}
