//! Exact verification: does a scheme sum to the matrix multiplication tensor?

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::scheme::{IntScheme, Scheme};
use crate::shape::Shape;
use crate::term::{FactorBits, Position};

/// How many wrong tensor entries a [`Diagnosis`] lists by index.
pub const EXAMPLES: usize = 4;

/// One entry `a_ij * b_jk * c_ki` of the tensor (0-based indices), with the coefficient
/// expected and the one the scheme gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Row and column of A.
    pub a: (usize, usize),
    /// Row and column of B.
    pub b: (usize, usize),
    /// Row and column of C transposed (so `c = (k, i)` for `c_ki`).
    pub c: (usize, usize),
    /// The coefficient of the matrix multiplication tensor: 0 or 1.
    pub expected: i64,
    /// The coefficient the scheme gives (0 or 1 over F2).
    pub found: i64,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Indices past 9 need a separator (a1_10), as in the letter format.
        let wide = [self.a, self.b, self.c].iter().any(|&(r, c)| r.max(c) >= 9);
        let entry = |f: &mut fmt::Formatter<'_>, letter: char, (r, c): (usize, usize)| match wide {
            true => write!(f, "{letter}{}_{}", r + 1, c + 1),
            false => write!(f, "{letter}{}{}", r + 1, c + 1),
        };
        entry(f, 'a', self.a)?;
        f.write_str("*")?;
        entry(f, 'b', self.b)?;
        f.write_str("*")?;
        entry(f, 'c', self.c)?;
        write!(f, ": expected {}, found {}", self.expected, self.found)
    }
}

/// Why a scheme is not valid: the count of entries missing (expected 1, found something
/// else) and extra (expected 0, found non-zero), and the first few of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnosis {
    /// Entries of the tensor that the scheme does not produce.
    pub missing: usize,
    /// Entries that the scheme produces but the tensor does not have.
    pub extra: usize,
    /// Up to [`EXAMPLES`] wrong entries, in index order.
    pub examples: Vec<Entry>,
}

impl fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} tensor entries missing, {} extra", self.missing, self.extra)?;
        for (i, e) in self.examples.iter().enumerate() {
            write!(f, "{}{e}", if i == 0 { "; e.g. " } else { ", " })?;
        }
        Ok(())
    }
}

/// Index helpers: the (row, col) pair of bit `bit` of factor `pos`.
fn coords(shape: Shape, pos: Position, bit: usize) -> (usize, usize) {
    let (_, cols) = shape.factor_dims(pos);
    (bit / cols, bit % cols)
}

/// The coefficient of the tensor at `(u, v, w)`: 1 when `a_ij b_jk c_ki` chain up.
pub(crate) fn expected(shape: Shape, u: usize, v: usize, w: usize) -> bool {
    let (i, j) = coords(shape, Position::A, u);
    let (j2, k) = coords(shape, Position::B, v);
    let (k2, i2) = coords(shape, Position::C, w);
    j == j2 && k == k2 && i == i2
}

/// Collects the wrong entries, given the found coefficient at each `(u, v, w)`.
fn diagnose(shape: Shape, found: impl Fn(usize, usize, usize) -> i64) -> Result<(), Diagnosis> {
    let mut d = Diagnosis {
        missing: 0,
        extra: 0,
        examples: Vec::new(),
    };
    let [nu, nv, nw] = Position::ALL.map(|pos| shape.factor_bits(pos));
    for u in 0..nu {
        for v in 0..nv {
            for w in 0..nw {
                let want = expected(shape, u, v, w) as i64;
                let got = found(u, v, w);
                if got == want {
                    continue;
                }
                if want == 1 {
                    d.missing += 1;
                } else {
                    d.extra += 1;
                }
                if d.examples.len() < EXAMPLES {
                    d.examples.push(Entry {
                        a: coords(shape, Position::A, u),
                        b: coords(shape, Position::B, v),
                        c: coords(shape, Position::C, w),
                        expected: want,
                        found: got,
                    });
                }
            }
        }
    }
    if d.missing + d.extra == 0 {
        Ok(())
    } else {
        Err(d)
    }
}

/// The sum of the terms over F2, as one factor (the C bits) per pair `(u, v)` of A and B bits:
/// two schemes of one shape compute the same tensor exactly when these are equal (a move kept
/// it, say).
pub fn f2_tensor<F: FactorBits>(scheme: &Scheme<F>) -> Vec<F> {
    let nv = scheme.shape().factor_bits(Position::B);
    let mut t = vec![F::ZERO; scheme.shape().factor_bits(Position::A) * nv];
    for term in scheme.terms() {
        for u in bits(term.a) {
            let row = &mut t[u * nv..(u + 1) * nv];
            for v in bits(term.b) {
                row[v] ^= term.c;
            }
        }
    }
    t
}

/// The indices of the set bits of `x`, lowest first.
fn bits<F: FactorBits>(mut x: F) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        (x != F::ZERO).then(|| {
            let i = x.trailing_zeros() as usize;
            x = x.clear_lowest();
            i
        })
    })
}

/// The tensor itself over F2, in the layout of [`f2_tensor`].
fn f2_target<F: FactorBits>(shape: Shape) -> Vec<F> {
    f2_tensor(&Scheme::<F>::try_naive(shape).expect("a scheme's format fits its factors"))
}

/// A scheme that [`verify`] found valid over F2. Only [`Verified::new`], which verifies, makes
/// one, so code that takes a `Verified` (a search's pool, its result files) holds valid schemes
/// by its types rather than by each caller's discipline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified<F: FactorBits = u64>(Scheme<F>);

impl<F: FactorBits> Verified<F> {
    /// Verifies `scheme` over F2.
    pub fn new(scheme: Scheme<F>) -> Result<Verified<F>, Diagnosis> {
        verify(&scheme)?;
        Ok(Verified(scheme))
    }

    /// The scheme.
    pub fn scheme(&self) -> &Scheme<F> {
        &self.0
    }

    /// The scheme, no longer marked verified.
    pub fn into_scheme(self) -> Scheme<F> {
        self.0
    }
}

impl<F: FactorBits> core::ops::Deref for Verified<F> {
    type Target = Scheme<F>;

    fn deref(&self) -> &Scheme<F> {
        &self.0
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Diagnosis {}

/// Verifies a scheme over F2: `Ok` when its terms sum to the tensor mod 2.
pub fn verify<F: FactorBits>(scheme: &Scheme<F>) -> Result<(), Diagnosis> {
    let found = f2_tensor(scheme);
    if found == f2_target::<F>(scheme.shape()) {
        return Ok(());
    }
    let nv = scheme.shape().factor_bits(Position::B);
    diagnose(scheme.shape(), |u, v, w| found[u * nv + v].test(w) as i64)
}

/// Verifies an integer scheme over Z: `Ok` when its terms sum to the tensor exactly.
///
/// Sums are exact (128-bit, checked); an entry whose sum leaves that range is reported wrong
/// (found `i64::MAX`) rather than clamped, so no overflow ever passes for a valid scheme.
pub fn verify_z(scheme: &IntScheme) -> Result<(), Diagnosis> {
    /// An entry whose sum overflowed (no sum of the readers' coefficients comes near it).
    const OVERFLOW: i128 = i128::MIN;
    let shape = scheme.shape;
    let [nu, nv, nw] = Position::ALL.map(|pos| shape.factor_bits(pos));
    let mut t = vec![0i128; nu * nv * nw];
    for term in &scheme.terms {
        let [a, b, c] = &term.factors;
        for (u, &x) in a.iter().enumerate().filter(|e| *e.1 != 0) {
            for (v, &y) in b.iter().enumerate().filter(|e| *e.1 != 0) {
                let base = (u * nv + v) * nw;
                let xy = x as i128 * y as i128;
                for (w, &z) in c.iter().enumerate().filter(|e| *e.1 != 0) {
                    let sum = &mut t[base + w];
                    if *sum != OVERFLOW {
                        *sum = xy
                            .checked_mul(z as i128)
                            .and_then(|p| sum.checked_add(p))
                            .unwrap_or(OVERFLOW);
                    }
                }
            }
        }
    }
    diagnose(shape, |u, v, w| {
        i64::try_from(t[(u * nv + v) * nw + w]).unwrap_or(i64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::IntScheme;
    use crate::term::Term;

    #[test]
    fn naive_schemes_verify() {
        for (n, m, p) in [(1, 1, 1), (2, 3, 4), (8, 8, 8), (5, 1, 7)] {
            let s = Scheme::naive(Shape::new(n, m, p).unwrap());
            assert_eq!(verify(&s), Ok(()));
            assert_eq!(verify_z(&IntScheme::from_f2(&s)), Ok(()));
        }
    }

    #[test]
    fn a_missing_term_is_diagnosed() {
        let s = Scheme::naive(Shape::square(3).unwrap());
        let mut terms = s.terms().to_vec();
        terms.pop();
        let d = verify(&Scheme::new(s.shape(), terms).unwrap()).unwrap_err();
        assert_eq!((d.missing, d.extra), (1, 0));
        assert_eq!(d.examples[0].a, (2, 2));
    }

    #[test]
    fn a_flipped_bit_is_diagnosed() {
        let s = Scheme::naive(Shape::square(2).unwrap());
        let mut terms = s.terms().to_vec();
        terms[0] = Term::new(terms[0].a | 2, terms[0].b, terms[0].c);
        let d = verify(&Scheme::new(s.shape(), terms).unwrap()).unwrap_err();
        assert_eq!((d.missing, d.extra), (0, 1));
    }
}
