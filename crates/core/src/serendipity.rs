//! The serendipitous product (Perminov, arXiv 2606.02480 section 2.6, after Smith and
//! Sedoglavic): the product of a base scheme and an inner format, where terms of the base that
//! share a factor ("buds") are multiplied together.
//!
//! The product of a base `<N,M,P>` and an inner `<n,m,p>` takes, for each base term
//! `a (x) b (x) c`, the inner tensor mapped by `x -> a (x) x` and so on: `rank(inner)` terms. Take `k`
//! base terms that share their A factor `u`. Their part of the product is
//! `sum_r sum_ijl (u (x) E_ij) (b_r (x) E_jl) (c_r (x) E_li)`: the tensor of `<n, m, k p>` (the
//! index `(r, l)` running over `k p`) under the linear maps `E_ij -> u (x) E_ij`,
//! `E_j(r,l) -> b_r (x) E_jl`, `E_(r,l)i -> c_r (x) E_li`. A scheme of `<n,m,kp>` mapped factor by
//! factor is therefore a scheme of that part, of `rank(<n,m,kp>)` terms instead of
//! `k rank(<n,m,p>)` (for 3x3x3 inside, `<3,3,6>` takes 40 where two 3x3x3 take 46). Terms
//! sharing B extend `n`, terms sharing C extend `m`. It is an identity over any ring: the
//! result is valid wherever its three inputs are.

use alloc::vec::Vec;

use crate::algebra::{kron, product_shape, product_term};
use crate::scheme::{IntScheme, IntTerm};
use crate::shape::Shape;
use crate::term::Position;

/// Base terms multiplied together: they share the factor at `shared`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bud {
    /// Where the terms share their factor.
    pub shared: Position,
    /// The base terms, by index (two or more).
    pub terms: Vec<usize>,
}

impl Bud {
    /// The format that multiplies the bud's terms together: `inner` with the dimension that
    /// the shared factor lacks (`p` for A, `n` for B, `m` for C) times the number of terms.
    pub fn format(&self, inner: Shape) -> Option<Shape> {
        let mut d = inner.dims();
        d[extended(self.shared)] *= self.terms.len();
        Shape::new(d[0], d[1], d[2]).ok()
    }
}

/// The dimension (index into `[n, m, p]`) that terms sharing `shared` extend.
const fn extended(shared: Position) -> usize {
    match shared {
        Position::A => 2,
        Position::B => 0,
        Position::C => 1,
    }
}

/// Whether `shape` has a dimension 1 (a matrix times a vector, or an outer product): its rank
/// is its naive rank, which no scheme beats, so no file need hold one.
fn degenerate(shape: Shape) -> bool {
    shape.dims().contains(&1)
}

/// The rank of `shape` as the planner takes it: `rank_of`'s, or the naive rank of a shape with
/// a dimension 1.
pub fn rank_or_naive(shape: Shape, rank_of: impl Fn(Shape) -> Option<usize>) -> Option<usize> {
    match degenerate(shape) {
        true => Some(shape.naive_rank()),
        false => rank_of(shape),
    }
}

/// A serendipitous product: its buds and the rank it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The inner format.
    pub inner: Shape,
    /// Its rank: the plain product's is the base's times it.
    pub inner_rank: usize,
    /// The buds, disjoint; every other base term is multiplied by the inner scheme alone.
    pub buds: Vec<Bud>,
    /// The rank of the product.
    pub rank: usize,
}

/// The buds of `base` worth taking with an `inner` format, by the ranks `rank_of` knows (any
/// orientation): greedily, the bud that saves the most terms first, each base term in one bud
/// at most. None when `rank_of` knows no rank of `inner`, or the product's shape is too large.
pub fn plan(base: &IntScheme, inner: Shape, rank_of: impl Fn(Shape) -> Option<usize>) -> Option<Plan> {
    let rank_of = |s: Shape| rank_or_naive(s, &rank_of);
    product_shape(base.shape, inner).ok()?;
    let single = rank_of(inner)?;
    // The terms of each factor value at each position, as candidates.
    let mut classes: Vec<(Position, Vec<usize>)> = Vec::new();
    for pos in Position::ALL {
        let mut order: Vec<usize> = (0..base.rank())
            .filter(|&r| base.terms[r].get(pos).iter().any(|&x| x != 0))
            .collect();
        order.sort_by(|&x, &y| base.terms[x].get(pos).cmp(base.terms[y].get(pos)));
        for group in order.chunk_by(|&x, &y| base.terms[x].get(pos) == base.terms[y].get(pos)) {
            if group.len() >= 2 {
                classes.push((pos, group.to_vec()));
            }
        }
    }
    let mut used = alloc::vec![false; base.rank()];
    let mut buds = Vec::new();
    let mut rank = base.rank() * single;
    loop {
        // The bud saving the most terms: a class's first k free terms, k from 2 up.
        let mut best: Option<(usize, Bud)> = None;
        for (pos, terms) in &classes {
            let free: Vec<usize> = terms.iter().copied().filter(|&r| !used[r]).collect();
            for k in 2..=free.len() {
                let bud = Bud {
                    shared: *pos,
                    terms: free[..k].to_vec(),
                };
                let Some(together) = bud.format(inner).and_then(&rank_of) else {
                    continue;
                };
                let saved = (k * single).saturating_sub(together);
                if saved > 0 && best.as_ref().is_none_or(|(s, _)| saved > *s) {
                    best = Some((saved, bud));
                }
            }
        }
        let Some((saved, bud)) = best else { break };
        bud.terms.iter().for_each(|&r| used[r] = true);
        rank -= saved;
        buds.push(bud);
    }
    Some(Plan {
        inner,
        inner_rank: single,
        buds,
        rank,
    })
}

/// Builds the product `plan` describes from `base`, a scheme of its inner format and the
/// schemes `scheme_of` gives of each bud's format (in that orientation). None where one is
/// missing or of another shape. Valid wherever the inputs are (callers verify).
pub fn build(base: &IntScheme, plan: &Plan, scheme_of: impl Fn(Shape) -> Option<IntScheme>) -> Option<IntScheme> {
    let scheme_of = |s: Shape| match degenerate(s) {
        true => Some(IntScheme::from_f2(&crate::scheme::Scheme::<u128>::try_naive(s).ok()?)),
        false => scheme_of(s),
    };
    let inner = scheme_of(plan.inner).filter(|s| s.shape == plan.inner)?;
    let shape = product_shape(base.shape, plan.inner).ok()?;
    let mut in_bud = alloc::vec![false; base.rank()];
    let mut terms = Vec::new();
    for bud in &plan.buds {
        let format = bud.format(plan.inner)?;
        let together = scheme_of(format).filter(|s| s.shape == format)?;
        bud.terms.iter().for_each(|&r| in_bud[r] = true);
        terms.extend(together.terms.iter().map(|t| mapped(base, bud, plan.inner, t)));
    }
    for s in base.terms.iter().zip(&in_bud).filter(|(_, &b)| !b).map(|(s, _)| s) {
        terms.extend(
            inner
                .terms
                .iter()
                .map(|t| product_term((s, base.shape), (t, plan.inner))),
        );
    }
    Some(IntScheme { shape, terms })
}

/// A term of a bud's format mapped into the product: the shared factor's Kronecker product
/// with the base's shared factor, each other factor the sum over the bud's terms of the base
/// factor's Kronecker product with its block (of rows or columns, along the extended dimension).
fn mapped(base: &IntScheme, bud: &Bud, inner: Shape, t: &IntTerm) -> IntTerm {
    let factors = Position::ALL.map(|pos| {
        let (base_dims, inner_dims) = (base.shape.factor_dims(pos), inner.factor_dims(pos));
        if pos == bud.shared {
            return kron(base.terms[bud.terms[0]].get(pos), base_dims, t.get(pos), inner_dims);
        }
        // Which of the factor's two dimensions the bud extends: rows or columns.
        let by_rows = factor_dim_indices(pos).0 == extended(bud.shared);
        let (rows, cols) = inner_dims;
        let mut sum = alloc::vec![0i64; base_dims.0 * rows * base_dims.1 * cols];
        for (k, &r) in bud.terms.iter().enumerate() {
            let block: Vec<i64> = (0..rows)
                .flat_map(|i| (0..cols).map(move |j| (i, j)))
                .map(|(i, j)| match by_rows {
                    true => t.get(pos)[(k * rows + i) * cols + j],
                    false => t.get(pos)[i * (bud.terms.len() * cols) + k * cols + j],
                })
                .collect();
            let part = kron(base.terms[r].get(pos), base_dims, &block, inner_dims);
            sum.iter_mut().zip(part).for_each(|(s, x)| *s += x);
        }
        sum
    });
    IntTerm { factors }
}

/// The dimensions (indices into `[n, m, p]`) of the rows and columns of the factor at `pos`.
const fn factor_dim_indices(pos: Position) -> (usize, usize) {
    match pos {
        Position::A => (0, 1),
        Position::B => (1, 2),
        Position::C => (2, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::{build, plan, Bud};
    use crate::scheme::{IntScheme, Scheme};
    use crate::verify::verify_z;
    use crate::{Position, Shape};

    fn shape(n: usize, m: usize, p: usize) -> Shape {
        Shape::new(n, m, p).unwrap()
    }

    /// The naive scheme has buds at every position (`n` terms share each `a_ij`): with naive
    /// inner schemes every bud saves nothing, and with ranks that reward it the plan takes
    /// them; every build, buds or none, is a valid scheme of the plan's rank.
    #[test]
    fn buds_of_the_naive_scheme_build_valid_products_of_the_planned_rank() {
        let naive = |s: Shape| Some(IntScheme::from_f2(&Scheme::naive(s)));
        let base = naive(shape(2, 2, 2)).unwrap();
        let inner = shape(2, 2, 2);
        assert_eq!(plan(&base, inner, |s| Some(s.naive_rank())).unwrap().buds, []);
        // Ranks that make a pair cheaper together (as 3x3x6 is, 40 < 2 x 23): a bud of two
        // saves one term.
        let cheap = |s: Shape| Some(s.naive_rank() - usize::from(s.naive_rank() == 16));
        let planned = plan(&base, inner, cheap).unwrap();
        assert!(!planned.buds.is_empty());
        assert_eq!(planned.rank, 8 * 8 - planned.buds.len());
        // Build with naive schemes of each format (no saving there, but every map exercised):
        // the result is valid, of rank 8 x 2 less nothing.
        for shared in Position::ALL {
            let bud = Bud {
                shared,
                terms: (0..8)
                    .filter(|&r| base.terms[r].get(shared) == base.terms[0].get(shared))
                    .collect(),
            };
            let one = super::Plan {
                inner: shape(2, 1, 2),
                inner_rank: 4,
                rank: 0,
                buds: alloc::vec![bud],
            };
            let built = build(&base, &one, naive).unwrap();
            assert_eq!(built.shape, shape(4, 2, 4));
            assert_eq!(verify_z(&built), Ok(()), "{shared:?}");
        }
    }

    /// The record 8x12x8 rank 500 (records/ORIGIN.md) from the files of tests/data: Perminov's
    /// serendipitous base 2x3x4 r20 with 4x4x2 inside, its buds by 2x4x8 r51 and our 4x4x4 r47;
    /// the plain product takes 520, the table had 508.
    #[cfg(feature = "std")]
    #[test]
    fn the_record_8x12x8_of_rank_500_is_built_from_the_test_data() {
        use crate::formats::read_path;
        use crate::verify::verify;
        let data = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/data")
                .join(name);
            read_path(&path).unwrap().scheme
        };
        let base = data("2x3x4-r20-perminov-serendipitous-base.json");
        let schemes = [
            data("2x4x4-r26-perminov-ternary.json"),
            data("2x4x8-r51-perminov-ternary.json"),
            data("4x4x4-r47-flipgraph.json"),
        ];
        let scheme_of = |s: Shape| schemes.iter().find_map(|x| crate::algebra::orient(x, s));
        let rank_of = |s: Shape| scheme_of(s).map(|x| x.rank());
        let planned = plan(&base, shape(4, 4, 2), rank_of).unwrap();
        assert_eq!(planned.rank, 500, "{planned:?}");
        let built = build(&base, &planned, scheme_of).unwrap();
        assert_eq!((built.shape, built.rank()), (shape(8, 12, 8), 500));
        assert_eq!(verify(&built.mod2::<u128>().unwrap()), Ok(()));
    }
}
