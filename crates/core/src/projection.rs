//! Projections over F2 along any hyperplane of a dimension, not only along a coordinate one.
//!
//! Dropping index `k` of dimension `p` ([`algebra::project`]) keeps every term but those whose
//! B factor lives in column `k` alone or whose C^T factor lives in row `k` alone. A change of
//! basis `M` of that dimension (B to B M^-T, C^T to M^T C^T) keeps the tensor, and dropping the
//! last coordinate afterwards removes every term whose B factor has all its nonzero rows equal
//! to `v` (the last column of `M`) or whose C^T factor has all its nonzero columns equal to `w`
//! (the last row of `M^-1`), for any pair with `v . w = 1`: over F2, `(2^k - 1) 2^(k-1)` pairs
//! against `k` coordinate ones. Why it matters: a walked scheme has few terms lined up with a
//! coordinate (our 2x5x7 of rank 56 projects to 2x5x6 at 54 by the best index, at 50 by the
//! best pair), and the constructions take the lower start.
//!
//! The same holds along `n` and `m` with the factors that carry that dimension (A's columns and
//! B's rows for `m`, C^T's columns and A's rows for `n`). Coefficients are taken mod 2.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::algebra::{self, Dim, AXES};
use crate::scheme::{IntScheme, IntTerm};
use crate::shape::{Shape, ShapeError};
use crate::term::Position;

/// A vector along one dimension (at most 16 entries), bit `i` its entry `i` mod 2.
type Line = u32;

/// The parity of `x . y` over F2.
fn dot(x: Line, y: Line) -> bool {
    (x & y).count_ones() % 2 == 1
}

/// A factor that carries the dimension projected: its position, its size, and whether its rows
/// (else its columns) are the vectors along that dimension.
#[derive(Clone, Copy)]
struct Side {
    k: usize,
    rows: usize,
    cols: usize,
    along_rows: bool,
}

impl Side {
    /// The factor with `dim` as its column axis (its rows lie along `dim`) and the one with it
    /// as its row axis (its columns do).
    fn of(shape: Shape, dim: Dim) -> [Side; 2] {
        [true, false].map(|along_rows| {
            let k = (0..3)
                .find(|&k| if along_rows { AXES[k].1 == dim } else { AXES[k].0 == dim })
                .expect("every dimension is a row axis and a column axis");
            let (rows, cols) = shape.factor_dims(Position::from_index(k));
            Side {
                k,
                rows,
                cols,
                along_rows,
            }
        })
    }

    /// Where entry `j` of line `i` is in the factor.
    fn at(self, i: usize, j: usize) -> usize {
        match self.along_rows {
            true => i * self.cols + j,
            false => j * self.cols + i,
        }
    }

    /// (Lines, entries of a line).
    fn extent(self) -> (usize, usize) {
        match self.along_rows {
            true => (self.rows, self.cols),
            false => (self.cols, self.rows),
        }
    }

    /// The lines of this side's factor of `t`, mod 2.
    fn lines(self, t: &IntTerm) -> Vec<Line> {
        let (count, len) = self.extent();
        let factor = &t.factors[self.k];
        (0..count)
            .map(|i| {
                (0..len)
                    .map(|j| Line::from(factor[self.at(i, j)].rem_euclid(2) == 1) << j)
                    .sum()
            })
            .collect()
    }

    /// Sets line `i` of `factor` (of this side) to `line`.
    fn set(self, factor: &mut [i64], i: usize, line: Line) {
        for j in 0..self.extent().1 {
            factor[self.at(i, j)] = i64::from(line >> j & 1);
        }
    }
}

/// The one nonzero vector all the nonzero `lines` equal, if there is one: the factor is then
/// `u v^T` (or `v u^T`) and vanishes where `v` is projected away.
fn single(lines: &[Line]) -> Option<Line> {
    let mut nonzero = lines.iter().copied().filter(|&l| l != 0);
    let first = nonzero.next()?;
    nonzero.all(|l| l == first).then_some(first)
}

/// For each term of `s`, the vector along `dim` its row-side factor lies on and the one its
/// column-side factor lies on (see [`single`]).
fn lined_up(s: &IntScheme, dim: Dim) -> Vec<(Option<Line>, Option<Line>)> {
    let [x, y] = Side::of(s.shape, dim);
    s.terms
        .iter()
        .map(|t| (single(&x.lines(t)), single(&y.lines(t))))
        .collect()
}

/// The pair `(v, w)` with `v . w = 1` that removes the most terms of `s` along `dim` (a
/// coordinate pair on a tie), and how many it removes.
fn best_pair(s: &IntScheme, dim: Dim) -> (Line, Line, usize) {
    let k = s.shape.dims()[dim as usize];
    let lined = lined_up(s, dim);
    let mut rows: BTreeMap<Line, usize> = BTreeMap::new();
    let mut columns: BTreeMap<Line, usize> = BTreeMap::new();
    for &(v, w) in &lined {
        if let Some(v) = v {
            *rows.entry(v).or_default() += 1;
        }
        if let Some(w) = w {
            *columns.entry(w).or_default() += 1;
        }
    }
    let removed = |v: Line, w: Line| lined.iter().filter(|&&(x, y)| x == Some(v) || y == Some(w)).count();
    // The coordinate pairs (e_i, e_i) first, and only a strictly better pair after them: a tie
    // keeps the plain drop of an index.
    let mut best = (0..k)
        .map(|i| (1 << i, 1 << i, removed(1 << i, 1 << i)))
        .max_by_key(|&(v, _, r)| (r, core::cmp::Reverse(v)))
        .expect("a dimension of at least one index");
    for &v in rows.keys() {
        for &w in columns.keys().filter(|&&w| dot(v, w)) {
            // Only pairs that can beat the best are counted in full.
            if rows[&v] + columns[&w] > best.2 {
                let r = removed(v, w);
                if r > best.2 {
                    best = (v, w, r);
                }
            }
        }
    }
    // A line met on one side only pairs with a coordinate on the other (any with `v . w = 1`:
    // one the other side lines up on is paired above).
    let lone_rows = rows.keys().map(|&v| (v, 1 << v.trailing_zeros()));
    let lone_columns = columns.keys().map(|&w| (1 << w.trailing_zeros(), w));
    for (v, w) in lone_rows.chain(lone_columns) {
        let r = removed(v, w);
        if r > best.2 {
            best = (v, w, r);
        }
    }
    best
}

/// The columns of a change of basis of `k` entries whose last column is `v` and whose others
/// span the vectors orthogonal to `w` (`v . w = 1`): the last row of its inverse is then `w`.
fn basis(v: Line, w: Line, k: usize) -> Vec<Line> {
    debug_assert!(dot(v, w), "a hyperplane pair has v . w = 1");
    let pivot = w.trailing_zeros();
    let mut columns: Vec<Line> = (0..k as u32)
        .filter(|&i| i != pivot)
        .map(|i| match w >> i & 1 {
            0 => 1 << i,
            _ => 1 << i | 1 << pivot,
        })
        .collect();
    columns.push(v);
    columns
}

/// The rows of the inverse of the `k x k` matrix with these `columns` over F2, if invertible.
fn inverse(columns: &[Line]) -> Option<Vec<Line>> {
    let k = columns.len();
    // Row i of M, beside row i of the identity.
    let mut rows: Vec<(Line, Line)> = (0..k)
        .map(|i| {
            let row = columns.iter().enumerate().map(|(j, &c)| (c >> i & 1) << j).sum();
            (row, 1 << i)
        })
        .collect();
    for c in 0..k {
        let p = (c..k).find(|&r| rows[r].0 >> c & 1 == 1)?;
        rows.swap(c, p);
        let pivot = rows[c];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != c && row.0 >> c & 1 == 1 {
                *row = (row.0 ^ pivot.0, row.1 ^ pivot.1);
            }
        }
    }
    Some(rows.into_iter().map(|(_, inv)| inv).collect())
}

/// `x` mapped by the matrix whose rows are `rows`: bit `i` is `rows[i] . x` (the columns of
/// `M` as rows give `M^T x`).
fn apply(rows: &[Line], x: Line) -> Line {
    rows.iter().enumerate().map(|(i, &r)| Line::from(dot(r, x)) << i).sum()
}

/// `s` (mod 2) after the change of basis of dimension `dim` whose matrix `M` has these
/// `columns` (invertible): factors with `dim` as column axis have their rows `x` mapped to
/// `M^-1 x`, those with it as row axis their columns `y` to `M^T y`. The tensor is kept, so a
/// valid scheme stays valid over F2; entries come out 0 or 1. None when `M` is singular.
pub fn change_basis(s: &IntScheme, dim: Dim, columns: &[Line]) -> Option<IntScheme> {
    let k = s.shape.dims()[dim as usize];
    if columns.len() != k {
        return None;
    }
    let inverse = inverse(columns)?;
    let [x, y] = Side::of(s.shape, dim);
    let maps = [(x, inverse.as_slice()), (y, columns)];
    let terms = s
        .terms
        .iter()
        .map(|t| {
            let mut factors = t
                .factors
                .clone()
                .map(|f| f.into_iter().map(|e| e.rem_euclid(2)).collect::<Vec<_>>());
            for (side, matrix) in maps {
                for (i, line) in side.lines(t).into_iter().enumerate() {
                    side.set(&mut factors[side.k], i, apply(matrix, line));
                }
            }
            IntTerm { factors }
        })
        .collect();
    Some(IntScheme { shape: s.shape, terms })
}

/// Over F2, the projection of `s` along `dim` (one index fewer) by the hyperplane pair that
/// removes the most terms (see the module's doc): never of higher rank than the best
/// coordinate projection, to which it falls back on a tie. Entries come out 0 or 1; a valid
/// scheme gives a scheme valid over F2 (callers verify).
pub fn best_projection(s: &IntScheme, dim: Dim) -> Result<IntScheme, ShapeError> {
    // Dimensions are at most 16 (`Shape`), so a `Line` holds a vector along any of them.
    let k = s.shape.dims()[dim as usize];
    let (v, w, _) = best_pair(s, dim);
    let changed = change_basis(s, dim, &basis(v, w, k)).expect("v . w = 1 makes the basis invertible");
    algebra::project(&changed, dim, k - 1)
}

#[cfg(test)]
mod tests {
    use super::{basis, best_projection, dot, inverse};
    use crate::algebra::{project, Dim};
    use crate::scheme::{IntScheme, Scheme};
    use crate::Shape;

    #[test]
    fn a_tie_keeps_the_plain_drop_of_an_index() {
        // Every index of the naive scheme removes one slice, as any hyperplane at best does:
        // the first index is dropped, no change of basis.
        let naive = IntScheme::from_f2(&Scheme::naive(Shape::new(2, 3, 4).unwrap()));
        for dim in [Dim::N, Dim::M, Dim::P] {
            let sorted = |s: IntScheme| {
                let mut t: alloc::vec::Vec<_> = s.terms.into_iter().map(|t| t.factors).collect();
                t.sort();
                t
            };
            let best = best_projection(&naive, dim).unwrap();
            assert_eq!(sorted(best), sorted(project(&naive, dim, 0).unwrap()), "{dim}");
        }
    }

    #[test]
    fn the_basis_of_a_pair_inverts_to_w_in_its_last_row() {
        for k in 1..=6usize {
            for v in 1..1u32 << k {
                for w in (1..1u32 << k).filter(|&w| dot(v, w)) {
                    let columns = basis(v, w, k);
                    let inv = inverse(&columns).expect("invertible");
                    assert_eq!(inv[k - 1], w, "k {k} v {v:b} w {w:b}");
                    assert_eq!(columns[k - 1], v);
                }
            }
        }
        assert_eq!(inverse(&[0b11, 0b11]), None);
    }
}
