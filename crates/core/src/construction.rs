//! Constructions: the schemes of a format that smaller or neighbouring formats' schemes give
//! ([`crate::algebra`]'s products, sums, extensions and projections), ranked by the rank they
//! reach. Many best known ranks are such constructions (8x8x8 329 = Strassen x 4x4x4 r47, 4x4x8
//! 94 = 47 + 47); a better scheme of a small format improves every format built from it.
//!
//! The planner knows only ranks, through a function from a shape to its best rank at hand (the
//! built-in table, or the schemes found so far): ranks do not depend on the order of the
//! dimensions, so every orientation of every input is considered.

use alloc::vec::Vec;

use crate::algebra::{self, Dim};
use crate::projection;
use crate::scheme::IntScheme;
use crate::serendipity;
use crate::shape::{Shape, MAX_DIM};

/// How a format's scheme is built from others (each input in any orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construction {
    /// The Kronecker product of two schemes: `<n1 n2, m1 m2, p1 p2>`, rank `r1 r2`.
    Product(Shape, Shape),
    /// The sum of two schemes along a dimension: `<n, m, p1 + p2>`, rank `r1 + r2`.
    Sum(Shape, Shape, Dim),
    /// One dimension grown by one: the scheme's terms and the naive terms of the new slice.
    Extension(Shape, Dim),
    /// One dimension shrunk by one: at most the scheme's rank (terms that vanish go).
    Projection(Shape, Dim),
    /// The serendipitous product of a base scheme and an inner format
    /// ([`crate::serendipity`]): a product whose base terms sharing a factor are multiplied
    /// together, by a scheme of a larger inner format.
    Serendipitous(Shape, Shape),
}

impl core::fmt::Display for Construction {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Construction::Product(x, y) => write!(f, "product of {x} and {y}"),
            Construction::Sum(x, y, dim) => write!(f, "sum along {dim} of {x} and {y}"),
            Construction::Extension(x, dim) => write!(f, "extension along {dim} of {x}"),
            Construction::Projection(x, dim) => write!(f, "projection along {dim} of {x}"),
            Construction::Serendipitous(x, y) => write!(f, "serendipitous product of {x} and {y}"),
        }
    }
}

/// A construction of a format and the rank it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What is built from what.
    pub construction: Construction,
    /// The rank of the result: exact, or for a projection at most this.
    pub rank: usize,
}

impl Plan {
    /// Whether `rank` is exact (a projection's is an upper bound).
    pub const fn exact(&self) -> bool {
        !matches!(self.construction, Construction::Projection(..))
    }
}

/// The shape `d` if every dimension is from 1 to [`MAX_DIM`].
fn shape(d: [usize; 3]) -> Option<Shape> {
    Shape::new(d[0], d[1], d[2]).ok()
}

/// Every construction of `target` whose inputs `rank_of` knows, lowest rank first (exact ones
/// before bounds of the same rank). Products by a `1x1xk` in any orientation are left out: by
/// the identity it is the input again, and by `k > 1` it is a sum of `k` copies.
pub fn constructions(target: Shape, rank_of: impl Fn(Shape) -> Option<usize>) -> Vec<Plan> {
    let d = target.dims();
    let mut plans = Vec::new();
    let mut push = |construction, rank| plans.push(Plan { construction, rank });
    // Each unordered pair once, and no product by a 1x1xk.
    let vector = |s: Shape| s.dims().iter().filter(|&&x| x == 1).count() >= 2;
    for (x, y) in factorizations(target).filter(|&(x, y)| x.dims() <= y.dims() && !vector(x) && !vector(y)) {
        if let (Some(r1), Some(r2)) = (rank_of(x), rank_of(y)) {
            push(Construction::Product(x, y), r1 * r2);
        }
    }
    for (k, dim) in [Dim::N, Dim::M, Dim::P].into_iter().enumerate() {
        for part in 1..=d[k] / 2 {
            let (mut first, mut second) = (d, d);
            (first[k], second[k]) = (part, d[k] - part);
            let (Some(x), Some(y)) = (shape(first), shape(second)) else {
                continue;
            };
            if let (Some(r1), Some(r2)) = (rank_of(x), rank_of(y)) {
                push(Construction::Sum(x, y, dim), r1 + r2);
            }
        }
        let slice = d[(k + 1) % 3] * d[(k + 2) % 3];
        let mut smaller = d;
        smaller[k] -= 1;
        if let Some(r) = shape(smaller).and_then(&rank_of) {
            push(
                Construction::Extension(shape(smaller).expect("checked"), dim),
                r + slice,
            );
        }
        let mut larger = d;
        larger[k] += 1;
        if larger[k] <= MAX_DIM as usize {
            if let Some(r) = shape(larger).and_then(&rank_of) {
                push(Construction::Projection(shape(larger).expect("checked"), dim), r);
            }
        }
    }
    plans.sort_by_key(|p| (p.rank, !p.exact()));
    plans
}

/// The shapes `x` and `y` whose product is `target`, dimension by dimension, in every order.
fn factorizations(target: Shape) -> impl Iterator<Item = (Shape, Shape)> {
    let d = target.dims();
    let divisors = |x: usize| (1..=x).filter(move |k| x % k == 0);
    divisors(d[0])
        .flat_map(move |n1| divisors(d[1]).flat_map(move |m1| divisors(d[2]).map(move |p1| [n1, m1, p1])))
        .filter_map(move |first| {
            Some((
                shape(first)?,
                shape([d[0] / first[0], d[1] / first[1], d[2] / first[2]])?,
            ))
        })
}

/// Every construction of `target` ([`constructions`]), and the serendipitous products
/// ([`Construction::Serendipitous`]) of the base schemes `base_of` gives (of a shape asked for
/// in any orientation) below their plain products, lowest rank first (exact ones before
/// bounds of the same rank); a projection whose input `base_of` gives is ranked as built.
pub fn constructions_from_schemes(
    target: Shape,
    base_of: impl Fn(Shape) -> Option<IntScheme>,
    rank_of: impl Fn(Shape) -> Option<usize>,
) -> Vec<Plan> {
    let mut plans = constructions(target, &rank_of);
    // A projection's rank is known once built (its bound is the larger scheme's rank, so the
    // sum it beats would be taken first): built here, it is weighed at what it gives.
    for plan in plans.iter_mut().filter(|p| !p.exact()) {
        if let Some(built) = build(plan.construction, &base_of) {
            plan.rank = plan.rank.min(built.rank());
        }
    }
    for (x, y) in factorizations(target) {
        let Some(base) = base_of(x).and_then(|b| algebra::orient(&b, x)) else {
            continue;
        };
        let planned = serendipity::plan(&base, y, &rank_of);
        if let Some(planned) = planned.filter(|p| p.rank < p.inner_rank * base.rank()) {
            plans.push(Plan {
                construction: Construction::Serendipitous(x, y),
                rank: planned.rank,
            });
        }
    }
    plans.sort_by_key(|p| (p.rank, !p.exact()));
    plans
}

/// Builds `construction` from the schemes `scheme_of` gives (a scheme of the shape asked for in
/// any order of its dimensions; it is turned to fit). None when an input is missing or of
/// another format. The result is as valid as its inputs: callers verify it.
pub fn build(construction: Construction, scheme_of: impl Fn(Shape) -> Option<IntScheme>) -> Option<IntScheme> {
    let input = |s: Shape| algebra::orient(&scheme_of(s)?, s);
    match construction {
        Construction::Product(x, y) => algebra::product(&input(x)?, &input(y)?).ok(),
        Construction::Sum(x, y, dim) => algebra::sum(&input(x)?, &input(y)?, dim).ok(),
        Construction::Extension(x, dim) => algebra::extend(&input(x)?, dim).ok(),
        Construction::Projection(x, dim) => lowest_projection(&input(x)?, dim),
        Construction::Serendipitous(x, y) => {
            let base = input(x)?;
            let planned = serendipity::plan(&base, y, |s| Some(input(s)?.rank()))?;
            serendipity::build(&base, &planned, input)
        }
    }
}

/// The lowest projection of `s` along `dim`: by the index that removes the most terms (in
/// `s`'s ring), or over F2 by a hyperplane where that removes more ([`projection`]).
fn lowest_projection(s: &IntScheme, dim: Dim) -> Option<IntScheme> {
    let size = s.shape.dims()[dim as usize];
    let by_index = (0..size)
        .filter_map(|i| algebra::project(s, dim, i).ok())
        .min_by_key(IntScheme::rank)?;
    // Compared mod 2: a term of the index's projection with an even factor is none over F2.
    let by_index_mod2 = match by_index.mod2::<u128>() {
        Ok(mut f2) => by_index.rank() - f2.remove_zero_terms(),
        Err(_) => by_index.rank(),
    };
    match projection::best_projection(s, dim) {
        Ok(f2) if f2.rank() < by_index_mod2 => Some(f2),
        _ => Some(by_index),
    }
}

#[cfg(test)]
mod tests {
    use super::{constructions, Construction};
    use crate::algebra::Dim;
    use crate::known::best_known_rank;
    use crate::Shape;

    fn shape(n: usize, m: usize, p: usize) -> Shape {
        Shape::new(n, m, p).unwrap()
    }

    #[test]
    fn the_known_composites_come_from_the_table_of_smaller_formats() {
        // The planner sees every format's best known rank but the target's own.
        let best = |target: Shape| constructions(target, |s| (s != target).then(|| best_known_rank(s)).flatten())[0];
        let plan = best(shape(4, 4, 8));
        assert_eq!(plan.rank, 94);
        assert_eq!(
            plan.construction,
            Construction::Sum(shape(4, 4, 4), shape(4, 4, 4), Dim::P)
        );
        let plan = best(shape(8, 8, 8));
        assert_eq!(plan.rank, 329);
        assert_eq!(plan.construction, Construction::Product(shape(2, 2, 2), shape(4, 4, 4)));
        assert_eq!(best(shape(6, 6, 8)).rank, 203);
        assert_eq!(best(shape(6, 8, 8)).rank, 266);
        assert_eq!(best(shape(4, 6, 6)).rank, 105);
        assert_eq!(best(shape(4, 6, 8)).rank, 140);
    }

    #[test]
    fn every_construction_builds_a_valid_scheme_of_its_rank() {
        use crate::scheme::{IntScheme, Scheme};
        use crate::verify::verify_z;
        // From naive schemes stored in one orientation only (sorted dimensions).
        let stored = |s: Shape| {
            let d = s.sorted_dims();
            Some(IntScheme::from_f2(&Scheme::naive(Shape::new(d[0], d[1], d[2]).ok()?)))
        };
        let target = shape(2, 3, 4);
        let plans = super::constructions(target, |s| Some(s.naive_rank()));
        for plan in &plans {
            let built = super::build(plan.construction, stored).unwrap();
            assert_eq!(built.shape, target, "{plan:?}");
            assert_eq!(verify_z(&built), Ok(()), "{plan:?}");
            if plan.exact() {
                assert_eq!(built.rank(), plan.rank, "{plan:?}");
            } else {
                assert!(built.rank() <= plan.rank, "{plan:?}");
            }
        }
        assert_eq!(super::build(plans[0].construction, |_| None), None);
    }

    #[test]
    fn a_projection_is_ranked_as_built_where_its_input_is_given() {
        use crate::algebra::extend;
        use crate::scheme::{IntScheme, Scheme};
        // 2x2x3 is the naive 2x2x2 grown by a slice (rank 12): projected, the slice goes.
        let target = shape(2, 2, 2);
        let grown = extend(&IntScheme::from_f2(&Scheme::naive(target)), Dim::P).unwrap();
        let base_of = |s: Shape| (s == shape(2, 2, 3)).then(|| grown.clone());
        let plans = super::constructions_from_schemes(target, base_of, |s| Some(s.naive_rank()));
        let projection = |plan: &&super::Plan| plan.construction == Construction::Projection(shape(2, 2, 3), Dim::P);
        assert_eq!(plans.iter().find(projection).map(|p| p.rank), Some(8), "{plans:?}");
        // Without its input it keeps its bound.
        let plans = super::constructions_from_schemes(target, |_| None, |s| Some(s.naive_rank()));
        assert_eq!(plans.iter().find(projection).map(|p| p.rank), Some(12), "{plans:?}");
    }

    #[test]
    fn every_kind_is_offered_with_its_rank() {
        // A table of naive ranks: every construction then reaches the naive rank, and a
        // projection bounds it from above.
        let naive = |s: Shape| Some(s.naive_rank());
        let plans = constructions(shape(2, 3, 4), naive);
        let exact = plans.iter().filter(|p| p.exact()).count();
        assert!(plans.iter().filter(|p| p.exact()).all(|p| p.rank == 24), "{plans:?}");
        assert!(plans
            .iter()
            .any(|p| matches!(p.construction, Construction::Sum(_, _, Dim::M))));
        assert!(plans
            .iter()
            .any(|p| matches!(p.construction, Construction::Extension(_, Dim::N))));
        assert!(plans
            .iter()
            .any(|p| matches!(p.construction, Construction::Product(..))));
        let bounds: Vec<_> = plans.iter().filter(|p| !p.exact()).collect();
        assert_eq!(bounds.len(), 3);
        assert!(bounds.iter().all(|p| p.rank > 24));
        assert_eq!(plans.len(), exact + 3);
        // An unknown input offers nothing.
        assert!(constructions(shape(2, 3, 4), |_| None).is_empty());
    }
}
