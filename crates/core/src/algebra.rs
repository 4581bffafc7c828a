//! Scheme algebra: Kronecker products, the cyclic and transposition symmetries, extension by a
//! row or column, and projection (dropping an index). Each works on integer schemes, so it
//! serves F2 and Z alike; results are valid whenever the inputs are (callers verify).

use alloc::vec;
use alloc::vec::Vec;

use crate::scheme::{IntScheme, IntTerm};
use crate::shape::{Shape, ShapeError};
use crate::term::Position;

/// One of the three dimensions `n`, `m`, `p` of a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// Rows of A and of C.
    N,
    /// Columns of A, rows of B.
    M,
    /// Columns of B and of C.
    P,
}

/// A matrix of coefficients, row-major, `rows x cols`.
fn matrix(rows: usize, cols: usize) -> Vec<i64> {
    vec![0; rows * cols]
}

/// The Kronecker product of two `r1 x c1` and `r2 x c2` matrices.
pub(crate) fn kron(x: &[i64], (r1, c1): (usize, usize), y: &[i64], (r2, c2): (usize, usize)) -> Vec<i64> {
    let mut out = matrix(r1 * r2, c1 * c2);
    for i1 in 0..r1 {
        for j1 in 0..c1 {
            let a = x[i1 * c1 + j1];
            if a == 0 {
                continue;
            }
            for i2 in 0..r2 {
                for j2 in 0..c2 {
                    out[(i1 * r2 + i2) * (c1 * c2) + j1 * c2 + j2] = a.saturating_mul(y[i2 * c2 + j2]);
                }
            }
        }
    }
    out
}

/// The product scheme: `<n1,m1,p1>` and `<n2,m2,p2>` give `<n1 n2, m1 m2, p1 p2>` of rank
/// `r1 r2`, every pair of terms multiplied factor by factor (Kronecker products).
pub fn product(x: &IntScheme, y: &IntScheme) -> Result<IntScheme, ShapeError> {
    let shape = product_shape(x.shape, y.shape)?;
    let mut terms = Vec::with_capacity(x.rank() * y.rank());
    for s in &x.terms {
        terms.extend(y.terms.iter().map(|t| product_term((s, x.shape), (t, y.shape))));
    }
    Ok(IntScheme { shape, terms })
}

/// The shape of the product of schemes of `x` and `y`: `<n1 n2, m1 m2, p1 p2>`.
pub(crate) fn product_shape(x: Shape, y: Shape) -> Result<Shape, ShapeError> {
    let ([n1, m1, p1], [n2, m2, p2]) = (x.dims(), y.dims());
    Shape::new(n1 * n2, m1 * m2, p1 * p2)
}

/// The product of term `s` (of a scheme of shape `x`) and term `t` (of `y`), factor by factor.
pub(crate) fn product_term((s, x): (&IntTerm, Shape), (t, y): (&IntTerm, Shape)) -> IntTerm {
    IntTerm {
        factors: Position::ALL.map(|pos| kron(s.get(pos), x.factor_dims(pos), t.get(pos), y.factor_dims(pos))),
    }
}

/// The transpose of a `rows x cols` matrix.
fn transpose(x: &[i64], rows: usize, cols: usize) -> Vec<i64> {
    let mut out = matrix(cols, rows);
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}

/// The cyclic symmetry: `<n,m,p>` to `<m,p,n>`, each term `a (x) b (x) c` to `b (x) c (x) a`.
pub fn rotate(s: &IntScheme) -> IntScheme {
    let terms = s.terms.iter().map(|t| IntTerm {
        factors: [t.factors[1].clone(), t.factors[2].clone(), t.factors[0].clone()],
    });
    IntScheme {
        shape: s.shape.rotated(),
        terms: terms.collect(),
    }
}

/// The transposition symmetry, from `(AB)^T = B^T A^T`: `<n,m,p>` to `<p,m,n>`, each term
/// `a (x) b (x) c` to `b^T (x) a^T (x) c^T`.
pub fn transpose_scheme(s: &IntScheme) -> IntScheme {
    let [n, m, p] = s.shape.dims();
    let shape = Shape::new(p, m, n).expect("a permutation of a valid shape");
    let terms = s.terms.iter().map(|t| IntTerm {
        factors: [
            transpose(&t.factors[1], m, p),
            transpose(&t.factors[0], n, m),
            transpose(&t.factors[2], p, n),
        ],
    });
    IntScheme {
        shape,
        terms: terms.collect(),
    }
}

/// `s` turned by rotations and a transposition into a scheme of `to`, if `to` is an order of its
/// dimensions (every order is one of the three rotations, transposed or not).
pub fn orient(s: &IntScheme, to: Shape) -> Option<IntScheme> {
    let mut turned = s.clone();
    for _ in 0..2 {
        for _ in 0..3 {
            if turned.shape == to {
                return Some(turned);
            }
            turned = rotate(&turned);
        }
        turned = transpose_scheme(&turned);
    }
    None
}

/// Which dimension indexes the rows and the columns of each factor: A (N, M), B (M, P), C^T (P, N).
pub(crate) const AXES: [(Dim, Dim); 3] = [(Dim::N, Dim::M), (Dim::M, Dim::P), (Dim::P, Dim::N)];

/// `t`, a term of shape `from`, moved into shape `to`: the entry at index `i` along a dimension
/// goes to `place(dim, i)`, or is left out where that is None.
fn relocate(t: &IntTerm, from: Shape, to: Shape, place: impl Fn(Dim, usize) -> Option<usize>) -> IntTerm {
    let factors = [0, 1, 2].map(|k| {
        let pos = Position::from_index(k);
        let ((rows, cols), (rows2, cols2)) = (from.factor_dims(pos), to.factor_dims(pos));
        let mut out = matrix(rows2, cols2);
        for r in 0..rows {
            for c in 0..cols {
                if let (Some(r2), Some(c2)) = (place(AXES[k].0, r), place(AXES[k].1, c)) {
                    out[r2 * cols2 + c2] = t.factors[k][r * cols + c];
                }
            }
        }
        out
    });
    IntTerm { factors }
}

/// True when no factor of `t` is zero.
fn nonzero(t: &IntTerm) -> bool {
    t.factors.iter().all(|f| f.iter().any(|&x| x != 0))
}

/// The shape with dimension `dim` changed by `delta`.
fn resized(shape: Shape, dim: Dim, delta: isize) -> Result<Shape, ShapeError> {
    let mut d = shape.dims();
    let k = dim as usize;
    d[k] = d[k].wrapping_add_signed(delta);
    Shape::new(d[0], d[1], d[2])
}

/// `<n,m,p>` to `<n+1,m,p>` (or `m+1`, `p+1`): the old terms, embedded, plus the naive terms of
/// the new slice (`m p`, `n p` or `n m` of them).
pub fn extend(s: &IntScheme, dim: Dim) -> Result<IntScheme, ShapeError> {
    let shape = resized(s.shape, dim, 1)?;
    let mut terms: Vec<IntTerm> = s
        .terms
        .iter()
        .map(|t| relocate(t, s.shape, shape, |_, i| Some(i)))
        .collect();
    let [n, m, p] = shape.dims();
    for i in 0..n {
        for j in 0..m {
            for k in 0..p {
                let new = match dim {
                    Dim::N => i == n - 1,
                    Dim::M => j == m - 1,
                    Dim::P => k == p - 1,
                };
                if new {
                    let mut factors =
                        Position::ALL.map(|pos| matrix(shape.factor_dims(pos).0, shape.factor_dims(pos).1));
                    factors[0][shape.a_bit(i, j)] = 1;
                    factors[1][shape.b_bit(j, k)] = 1;
                    factors[2][shape.c_bit(k, i)] = 1;
                    terms.push(IntTerm { factors });
                }
            }
        }
    }
    Ok(IntScheme { shape, terms })
}

/// `<n,m,p>` to `<n-1,m,p>` (or `m-1`, `p-1`) by dropping index `index` of that dimension
/// (setting its entries to zero); terms that vanish are removed.
pub fn project(s: &IntScheme, dim: Dim, index: usize) -> Result<IntScheme, ShapeError> {
    let shape = resized(s.shape, dim, -1)?;
    let [n, m, p] = s.shape.dims();
    let size = [n, m, p][dim as usize];
    if index >= size {
        let [n2, m2, p2] = shape.dims();
        return Err(ShapeError { n: n2, m: m2, p: p2 });
    }
    let drop = |axis: Dim, i: usize| -> Option<usize> {
        if axis != dim {
            Some(i)
        } else if i == index {
            None
        } else {
            Some(if i > index { i - 1 } else { i })
        }
    };
    let terms = s
        .terms
        .iter()
        .map(|t| relocate(t, s.shape, shape, drop))
        .filter(nonzero)
        .collect();
    Ok(IntScheme { shape, terms })
}

/// Why two schemes have no sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SumError {
    /// The shapes differ in a dimension other than the one summed along.
    #[error("{x} and {y} differ outside dimension {dim}: a sum along {dim} needs the other two equal")]
    Mismatch {
        /// The first shape.
        x: Shape,
        /// The second shape.
        y: Shape,
        /// The dimension summed along.
        dim: Dim,
    },
    /// The sum is larger than the largest shape.
    #[error(transparent)]
    TooLarge(#[from] ShapeError),
}

/// The sum along `dim`: `<n,m,p1>` and `<n,m,p2>` give `<n,m,p1+p2>` (or along n or m) of rank
/// `r1 + r2`, the second scheme's indices along `dim` shifted past the first's. The product
/// splits into two independent products of those sizes, so the sum is valid where both are.
pub fn sum(x: &IntScheme, y: &IntScheme, dim: Dim) -> Result<IntScheme, SumError> {
    let (dx, dy) = (x.shape.dims(), y.shape.dims());
    let k = dim as usize;
    if (0..3).any(|i| i != k && dx[i] != dy[i]) {
        return Err(SumError::Mismatch {
            x: x.shape,
            y: y.shape,
            dim,
        });
    }
    let shape = resized(x.shape, dim, dy[k] as isize)?;
    let first = x.terms.iter().map(|t| relocate(t, x.shape, shape, |_, i| Some(i)));
    let shift = |axis: Dim, i: usize| Some(if axis == dim { i + dx[k] } else { i });
    let second = y.terms.iter().map(|t| relocate(t, y.shape, shape, shift));
    Ok(IntScheme {
        shape,
        terms: first.chain(second).collect(),
    })
}

/// The inverse of [`sum`]: `<n,m,p>` split along `dim` before index `at` into `<n,m,at>` and
/// `<n,m,p-at>`, each the scheme restricted to its indices (terms that vanish there are
/// removed). Fails when `at` leaves a part empty.
pub fn split(s: &IntScheme, dim: Dim, at: usize) -> Result<(IntScheme, IntScheme), ShapeError> {
    let size = s.shape.dims()[dim as usize];
    let part = |from: usize, to: usize| -> Result<IntScheme, ShapeError> {
        let shape = resized(s.shape, dim, to as isize - size as isize - from as isize)?;
        let keep = |axis: Dim, i: usize| match axis == dim {
            true => (from..to).contains(&i).then(|| i - from),
            false => Some(i),
        };
        let terms = s
            .terms
            .iter()
            .map(|t| relocate(t, s.shape, shape, keep))
            .filter(nonzero)
            .collect();
        Ok(IntScheme { shape, terms })
    };
    Ok((part(0, at)?, part(at, size)?))
}

impl core::fmt::Display for Dim {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Dim::N => "n",
            Dim::M => "m",
            Dim::P => "p",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::Scheme;
    use crate::verify::{verify, verify_z};

    fn naive(n: usize, m: usize, p: usize) -> IntScheme {
        IntScheme::from_f2(&Scheme::naive(Shape::new(n, m, p).unwrap()))
    }

    #[test]
    fn products_of_naive_schemes_are_valid() {
        let s = product(&naive(2, 1, 3), &naive(1, 2, 2)).unwrap();
        assert_eq!(s.shape, Shape::new(2, 2, 6).unwrap());
        assert_eq!(s.rank(), 24);
        assert_eq!(verify_z(&s), Ok(()));
        assert!(
            product(&naive(4, 4, 4), &naive(4, 4, 1)).is_err(),
            "16 x 16 is over 128 entries"
        );
        assert_eq!(
            product(&naive(3, 3, 3), &naive(3, 1, 1)).unwrap().shape,
            Shape::new(9, 3, 3).unwrap()
        );
    }

    #[test]
    fn symmetries_keep_validity_and_permute_the_shape() {
        let s = naive(2, 3, 4);
        let r = rotate(&s);
        assert_eq!(r.shape, Shape::new(3, 4, 2).unwrap());
        assert_eq!(verify_z(&r), Ok(()));
        let t = transpose_scheme(&s);
        assert_eq!(t.shape, Shape::new(4, 3, 2).unwrap());
        assert_eq!(verify_z(&t), Ok(()));
        assert_eq!(rotate(&rotate(&rotate(&s))), s);
        assert_eq!(transpose_scheme(&t), s);
    }

    #[test]
    fn extend_and_project_change_one_dimension() {
        let s = naive(2, 2, 2);
        for (dim, shape, rank) in [
            (Dim::N, (3, 2, 2), 12),
            (Dim::M, (2, 3, 2), 12),
            (Dim::P, (2, 2, 3), 12),
        ] {
            let e = extend(&s, dim).unwrap();
            assert_eq!(e.shape, Shape::new(shape.0, shape.1, shape.2).unwrap());
            assert_eq!(e.rank(), rank);
            assert_eq!(verify(&e.mod2::<u64>().unwrap()), Ok(()));
            let back = project(&e, dim, 0).unwrap();
            assert_eq!(back.shape, s.shape);
            assert_eq!(back.rank(), 8);
            assert_eq!(verify_z(&back), Ok(()));
        }
        assert!(project(&s, Dim::N, 2).is_err());
    }
}
