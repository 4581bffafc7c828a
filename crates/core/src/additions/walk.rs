//! The plateau walk for additions: flips at a fixed rank, over Z or F2, scored by additions.
//!
//! Two terms whose factors at one position agree up to sign, `a (x) b (x) c` and
//! `e a (x) b' (x) c'` (`e = ±1`), equal `a (x) (b + e b') (x) c + e a (x) b' (x) (c' - c)`: a
//! flip ([`flip`]). It keeps the tensor exactly, so over Z too; it is taken only where every
//! coefficient stays in {-1, 0, 1} and no factor vanishes (the rank stays). A change of basis
//! ([`transvect`]) moves every term at once and keeps the tensor too: `a -> X a Y^-1`,
//! `b -> Y b Z^-1`, `c -> Z c X^-1`, here with one of `X`, `Y`, `Z` an elementary matrix
//! `I + s E_uv` (Strassen's scheme and Winograd's variant lie in one such orbit). The walk
//! ([`walk`]) takes either move at random, scores each scheme by a quick count of its
//! additions, keeps the best few, and counts those again with the full effort of [`minimize`].

use std::collections::HashMap;
use std::vec::Vec;

use super::{in_ring, minimize, Effort, SchemeProgram};
use crate::rng::WyRand;
use crate::scheme::IntScheme;
use crate::term::Position;

/// Flips terms `i` and `j`, whose factors at `shared` agree up to sign: the factor of `i` at
/// `grow` takes `e` times that of `j`, and the factor of `j` at the third position loses that
/// of `i`. Returns false, and leaves `s` as it was, where a coefficient would leave {-1, 0, 1}
/// (over F2, coefficients are taken mod 2), a factor would vanish, or the factors at `shared`
/// do not agree.
pub fn flip(s: &mut IntScheme, i: usize, j: usize, shared: Position, grow: Position, f2: bool) -> bool {
    let third = Position::from_index(3 - shared.index() - grow.index());
    let Some(e) = agreement(s.terms[i].get(shared), s.terms[j].get(shared), f2) else {
        return false;
    };
    if i == j || grow == shared {
        return false;
    }
    let combine = |x: &[i64], y: &[i64], k: i64| -> Option<Vec<i64>> {
        let out: Vec<i64> = x.iter().zip(y).map(|(&x, &y)| in_ring(x + k * y, f2)).collect();
        ternary(&out).then_some(out)
    };
    let (ti, tj) = (&s.terms[i], &s.terms[j]);
    let Some(grown) = combine(ti.get(grow), tj.get(grow), e) else {
        return false;
    };
    let Some(shrunk) = combine(tj.get(third), ti.get(third), -1) else {
        return false;
    };
    s.terms[i].factors[grow.index()] = grown;
    s.terms[j].factors[third.index()] = shrunk;
    true
}

/// `e` with `y = e x` (`e = ±1`; over F2, `x = y` and `e = 1`), if there is one.
fn agreement(x: &[i64], y: &[i64], f2: bool) -> Option<i64> {
    let e = if x.iter().zip(y).all(|(&a, &b)| in_ring(a, f2) == in_ring(b, f2)) {
        1
    } else if !f2 && x.iter().zip(y).all(|(&a, &b)| a == -b) {
        -1
    } else {
        return None;
    };
    Some(e)
}

/// The pairs of terms `(i, j, position)` whose factors at that position agree up to sign:
/// where a flip can be tried.
pub fn flip_pairs(s: &IntScheme, f2: bool) -> Vec<(usize, usize, Position)> {
    let mut out = Vec::new();
    for pos in Position::ALL {
        let mut classes: HashMap<Vec<i64>, Vec<usize>> = HashMap::new();
        for (t, term) in s.terms.iter().enumerate() {
            classes.entry(up_to_sign(term.get(pos), f2)).or_default().push(t);
        }
        for terms in classes.values() {
            for (k, &i) in terms.iter().enumerate() {
                out.extend(terms[k + 1..].iter().map(|&j| (i, j, pos)));
            }
        }
    }
    out
}

/// `factor` with its first non-zero coefficient made positive (over F2, mod 2): equal for two
/// factors that agree up to sign.
fn up_to_sign(factor: &[i64], f2: bool) -> Vec<i64> {
    let lead = factor.iter().find(|&&v| v != 0).map_or(1, |v| v.signum());
    factor.iter().map(|&v| in_ring(v * lead, f2)).collect()
}

/// Changes the basis of dimension `d` of `<n,m,p>` (0: n, 1: m, 2: p) by `I + sign E_uv`
/// (`u != v`): in every term, row `u` of the factor whose rows run over that dimension gains
/// `sign` times row `v`, and column `v` of the factor whose columns run over it loses `sign`
/// times column `u` (A is n x m, B m x p, C transposed p x n). Returns false, leaving `s` as
/// it was, where a coefficient would leave {-1, 0, 1} or a factor would vanish.
pub fn transvect(s: &mut IntScheme, d: usize, u: usize, v: usize, sign: i64, f2: bool) -> bool {
    let dims = s.shape.dims();
    let (rows_at, cols_at) = (Position::from_index(d), Position::from_index(d + 2));
    if u == v || u.max(v) >= dims[d] {
        return false;
    }
    let reduce = |x: i64| in_ring(x, f2);
    let mut terms = s.terms.clone();
    for term in &mut terms {
        // The factor at `rows_at` has dims[d] rows of dims[d + 1] entries; that at `cols_at`
        // has dims[d] columns, rows of dims[d] entries.
        let width = dims[(d + 1) % 3];
        let rows = &mut term.factors[rows_at.index()];
        for j in 0..width {
            rows[u * width + j] = reduce(rows[u * width + j] + sign * rows[v * width + j]);
        }
        let cols = &mut term.factors[cols_at.index()];
        for r in 0..cols.len() / dims[d] {
            let row = &mut cols[r * dims[d]..(r + 1) * dims[d]];
            row[v] = reduce(row[v] - sign * row[u]);
        }
        if !ternary(&term.factors[rows_at.index()]) || !ternary(&term.factors[cols_at.index()]) {
            return false;
        }
    }
    s.terms = terms;
    true
}

/// Whether `factor` may stand in a scheme the walk keeps: coefficients in {-1, 0, 1}, not all
/// zero (the rank stays).
fn ternary(factor: &[i64]) -> bool {
    factor.iter().all(|x| x.abs() <= 1) && factor.iter().any(|&x| x != 0)
}

/// One random change of basis ([`transvect`]); false where the one drawn was refused.
pub fn random_transvection(s: &mut IntScheme, f2: bool, rng: &mut WyRand) -> bool {
    let d = rng.below(3);
    let size = s.shape.dims()[d];
    if size < 2 {
        return false;
    }
    let (u, v) = rng.distinct_pair(size);
    let sign = if f2 || rng.below(2) == 0 { 1 } else { -1 };
    transvect(s, d, u, v, sign, f2)
}

/// One random move: a flip or a change of basis, half and half (a change of basis where no
/// flip is found). False where none was taken in a few tries.
pub fn random_move(s: &mut IntScheme, f2: bool, rng: &mut WyRand) -> bool {
    if rng.below(2) == 0 && random_flip(s, f2, rng) {
        return true;
    }
    (0..8).any(|_| random_transvection(s, f2, rng))
}

/// One random flip of `s` among those [`flip`] takes (both terms, and which of the other two
/// positions grows, at random). Returns false where none was found in a few tries.
pub fn random_flip(s: &mut IntScheme, f2: bool, rng: &mut WyRand) -> bool {
    let pairs = flip_pairs(s, f2);
    if pairs.is_empty() {
        return false;
    }
    for _ in 0..32 {
        let (i, j, shared) = pairs[rng.below(pairs.len())];
        let (i, j) = if rng.below(2) == 0 { (i, j) } else { (j, i) };
        let grow = if rng.below(2) == 0 {
            shared.next()
        } else {
            shared.prev()
        };
        if flip(s, i, j, shared, grow, f2) {
            return true;
        }
    }
    false
}

/// What a walk found: the scheme with the fewest additions among those it kept, its program
/// (by [`minimize`] with [`Effort::DEFAULT`]), and how far it went.
#[derive(Clone, Debug)]
pub struct Walked {
    /// The best scheme (the start itself when nothing beat it).
    pub scheme: IntScheme,
    /// Its program.
    pub program: SchemeProgram,
    /// The program of the start, counted the same way.
    pub start: SchemeProgram,
    /// Schemes scored.
    pub steps: u64,
}

/// How many of the best schemes by the quick score are counted again with the full effort.
const KEPT: usize = 8;

/// The temperature of the walk: a scheme `d` additions worse than the current one is taken
/// with probability `exp(-d / TEMPERATURE)`, so that the walk crosses small ridges.
const TEMPERATURE: f64 = 0.7;

/// Walks the flip graph from `start` at its rank (over F2 when `f2`, else over Z with
/// coefficients in {-1, 0, 1}) while `go(steps)` says so, from `seed`; see the module docs.
/// Every scheme it returns has the start's tensor (flips keep it).
pub fn walk(start: &IntScheme, f2: bool, seed: u64, mut go: impl FnMut(u64) -> bool) -> Walked {
    let quick = |s: &IntScheme| minimize(s, f2, Effort::QUICK).additions();
    let mut rng = WyRand::new(seed);
    let (mut current, mut score) = (start.clone(), quick(start));
    let mut kept: Vec<(usize, IntScheme)> = vec![(score, start.clone())];
    let mut steps = 0;
    while go(steps) {
        steps += 1;
        let mut next = current.clone();
        let flips = 1 + rng.below(3);
        if !(0..flips).all(|_| random_move(&mut next, f2, &mut rng)) {
            // Stuck (no move taken): back to the best kept.
            current = kept[0].1.clone();
            continue;
        }
        let now = quick(&next);
        let worse = now.saturating_sub(score) as f64;
        let u = (rng.bits() >> 11) as f64 / (1u64 << 53) as f64;
        if now <= score || u < (-worse / TEMPERATURE).exp() {
            (current, score) = (next, now);
            keep(&mut kept, score, &current);
        }
    }
    let start_program = minimize(start, f2, Effort::DEFAULT);
    let (program, scheme) = kept
        .into_iter()
        .map(|(_, s)| (minimize(&s, f2, Effort::DEFAULT), s))
        .chain([(start_program.clone(), start.clone())])
        .min_by_key(|(p, _)| p.additions())
        .expect("the start at least");
    Walked {
        scheme,
        program,
        start: start_program,
        steps,
    }
}

/// Adds `scheme` to the `KEPT` best by score, unless it is there already or worse than all.
fn keep(kept: &mut Vec<(usize, IntScheme)>, score: usize, scheme: &IntScheme) {
    if kept.iter().any(|(_, s)| s == scheme) || (kept.len() == KEPT && score >= kept[KEPT - 1].0) {
        return;
    }
    kept.push((score, scheme.clone()));
    kept.sort_by_key(|(score, _)| *score);
    kept.truncate(KEPT);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{verify, verify_z};
    use proptest::prelude::*;

    /// Strassen's scheme, over Z.
    pub(crate) fn strassen() -> IntScheme {
        let text = include_str!("../../../../tests/data/2x2x2-r7-strassen.m");
        crate::formats::read(text.as_bytes()).expect("Strassen reads").scheme
    }

    fn laderman() -> IntScheme {
        let text = include_str!("../../../../tests/data/3x3x3-r23-laderman.m");
        crate::formats::read(text.as_bytes()).expect("Laderman reads").scheme
    }

    /// Our 5x5x5 rank 93 over Z: it has flips (Laderman's and Strassen's schemes have none).
    fn lifted_5x5x5() -> IntScheme {
        let text = include_str!("../../../../tests/data/5x5x5-r93-c3-flipgraph-lifted.json");
        crate::formats::read(text.as_bytes()).expect("the 5x5x5 reads").scheme
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Any sequence of flips keeps the tensor (over Z, and over F2 for the reduction),
        /// the rank, and coefficients in {-1, 0, 1}; and flips are found.
        #[test]
        fn flips_keep_the_tensor(seed in any::<u64>(), count in 1usize..40, f2 in any::<bool>()) {
            let mut rng = WyRand::new(seed);
            let lifted = lifted_5x5x5();
            let mut s = if f2 { IntScheme::from_f2(&lifted.mod2::<u64>().unwrap()) } else { lifted };
            let flipped = (0..count).filter(|_| random_flip(&mut s, f2, &mut rng)).count();
            prop_assert!(flipped > 0);
            prop_assert_eq!(s.rank(), 93);
            prop_assert!(s.terms.iter().flat_map(|t| t.factors.iter().flatten()).all(|v| v.abs() <= 1));
            if f2 {
                prop_assert_eq!(verify(&s.mod2::<u64>().unwrap()), Ok(()));
            } else {
                prop_assert_eq!(verify_z(&s), Ok(()));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any sequence of changes of basis and flips keeps the tensor over Z (and mod 2) and
        /// coefficients in {-1, 0, 1}.
        #[test]
        fn moves_keep_the_tensor(seed in any::<u64>(), count in 1usize..60, f2 in any::<bool>()) {
            let mut rng = WyRand::new(seed);
            let mut s = if f2 { IntScheme::from_f2(&laderman().mod2::<u64>().unwrap()) } else { laderman() };
            let mut moved = 0;
            for _ in 0..count {
                moved += usize::from(random_move(&mut s, f2, &mut rng));
            }
            prop_assert!(moved > 0 || count < 4);
            prop_assert!(s.terms.iter().flat_map(|t| t.factors.iter().flatten()).all(|v| v.abs() <= 1));
            if f2 {
                prop_assert_eq!(verify(&s.mod2::<u64>().unwrap()), Ok(()));
            } else {
                prop_assert_eq!(verify_z(&s), Ok(()));
            }
        }
    }

    /// Strassen's scheme has no flip, but changes of basis move it, and keep it valid.
    #[test]
    fn strassen_moves_by_changes_of_basis() {
        let s = strassen();
        assert!(flip_pairs(&s, false).is_empty());
        let mut moved = 0;
        for d in 0..3 {
            for (u, v) in [(0, 1), (1, 0)] {
                for sign in [1, -1] {
                    let mut t = s.clone();
                    if transvect(&mut t, d, u, v, sign, false) {
                        moved += 1;
                        assert_ne!(t, s);
                        assert_eq!(verify_z(&t), Ok(()));
                    } else {
                        assert_eq!(t, s);
                    }
                }
            }
        }
        assert!(moved > 0);
    }

    /// A flip refused (a coefficient out of {-1, 0, 1} or an empty factor) changes nothing;
    /// one taken changes the scheme.
    #[test]
    fn a_flip_out_of_range_is_refused() {
        let s = lifted_5x5x5();
        let (mut taken, mut refused) = (0, 0);
        for (i, j, shared) in flip_pairs(&s, false) {
            for grow in [shared.next(), shared.prev()] {
                let mut t = s.clone();
                match flip(&mut t, i, j, shared, grow, false) {
                    true => (assert_ne!(t, s), taken += 1),
                    false => (assert_eq!(t, s), refused += 1),
                };
            }
        }
        assert!(taken > 0 && refused > 0, "{taken} taken, {refused} refused");
        let mut s = strassen();
        let before = s.clone();
        // Term 0 with itself: no flip.
        assert!(!flip(&mut s, 0, 0, Position::A, Position::B, false));
        assert_eq!(s, before);
    }

    /// The walk returns a valid scheme of the same rank with no more additions than the start.
    #[test]
    fn the_walk_keeps_validity_and_never_gets_worse() {
        for f2 in [false, true] {
            let start = laderman();
            let walked = walk(&start, f2, 3, |steps| steps < 60);
            assert_eq!(walked.steps, 60);
            assert_eq!(walked.scheme.rank(), 23);
            assert!(walked.program.additions() <= walked.start.additions());
            walked.program.verify(4, 1).expect("the program multiplies");
            if f2 {
                assert_eq!(verify(&walked.scheme.mod2::<u64>().unwrap()), Ok(()));
            } else {
                assert_eq!(verify_z(&walked.scheme), Ok(()));
            }
        }
    }
}
