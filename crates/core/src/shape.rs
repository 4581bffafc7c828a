//! The shape `<n,m,p>` of a matrix multiplication: an `n x m` times an `m x p` matrix.

use core::fmt;

/// The largest supported dimension, where the other dimensions leave room (16 x 8 = 128 bits).
pub const MAX_DIM: u8 = 16;

/// The most entries of one factor matrix: a factor is held in one `u128` at most.
pub const MAX_FACTOR_BITS: usize = 128;

/// The largest dimension of the formats whose factors fit one `u64` in any order of the
/// dimensions (8 x 8 = 64): the formats the engines walk.
pub const NARROW_DIM: usize = 8;

/// The shape `<n,m,p>`: A is `n x m`, B is `m x p`, C (stored transposed) is `p x n`.
///
/// Always valid: `1 <= n, m, p <= 16` with at most 128 entries in each of the three matrices,
/// checked by [`Shape::new`]. Formats up to 8x8x8 have factors of at most 64 bits
/// ([`Shape::fits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    n: u8,
    m: u8,
    p: u8,
}

/// A shape with a dimension outside `1..=16`, or a matrix of more than 128 entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "shape <{n},{m},{p}> is not supported: every dimension must be between 1 and {MAX_DIM}, and each \
     of the three matrices (n x m, m x p, p x n) have at most {MAX_FACTOR_BITS} entries"
)]
pub struct ShapeError {
    /// The rejected rows of A.
    pub n: usize,
    /// The rejected columns of A.
    pub m: usize,
    /// The rejected columns of B.
    pub p: usize,
}

impl Shape {
    /// The shape `<n,m,p>`, or an error when a dimension is 0 or above [`MAX_DIM`], or a
    /// matrix has more than [`MAX_FACTOR_BITS`] entries.
    pub fn new(n: usize, m: usize, p: usize) -> Result<Shape, ShapeError> {
        let ok = |d: usize| (1..=MAX_DIM as usize).contains(&d);
        let fits = |x: usize, y: usize| x * y <= MAX_FACTOR_BITS;
        if ok(n) && ok(m) && ok(p) && fits(n, m) && fits(m, p) && fits(p, n) {
            Ok(Shape {
                n: n as u8,
                m: m as u8,
                p: p as u8,
            })
        } else {
            Err(ShapeError { n, m, p })
        }
    }

    /// The square shape `<n,n,n>`.
    pub fn square(n: usize) -> Result<Shape, ShapeError> {
        Shape::new(n, n, n)
    }

    /// Rows of A (and columns of C).
    pub const fn n(self) -> usize {
        self.n as usize
    }

    /// Columns of A, rows of B.
    pub const fn m(self) -> usize {
        self.m as usize
    }

    /// Columns of B (and rows of C).
    pub const fn p(self) -> usize {
        self.p as usize
    }

    /// Whether n = m = p (the shapes with the cyclic symmetry).
    pub const fn is_square(self) -> bool {
        self.n == self.m && self.m == self.p
    }

    /// `[n, m, p]`.
    pub const fn dims(self) -> [usize; 3] {
        [self.n(), self.m(), self.p()]
    }

    /// The dimensions smallest first: the same for every order of `n`, `m`, `p` (the key of
    /// a format in the tables, whose ranks every order shares).
    pub fn sorted_dims(self) -> [usize; 3] {
        let mut dims = self.dims();
        dims.sort_unstable();
        dims
    }

    /// Rows and columns of the matrix held by factor `pos` (`C` is stored transposed: `p x n`).
    pub const fn factor_dims(self, pos: crate::Position) -> (usize, usize) {
        match pos {
            crate::Position::A => (self.n(), self.m()),
            crate::Position::B => (self.m(), self.p()),
            crate::Position::C => (self.p(), self.n()),
        }
    }

    /// Number of bits of factor `pos`.
    pub const fn factor_bits(self, pos: crate::Position) -> usize {
        let (r, c) = self.factor_dims(pos);
        r * c
    }

    /// The entries of the largest of the three matrices: the bits a factor needs.
    pub const fn factor_width(self) -> usize {
        let [a, b, c] = [self.n() * self.m(), self.m() * self.p(), self.p() * self.n()];
        let ab = if a > b { a } else { b };
        if ab > c {
            ab
        } else {
            c
        }
    }

    /// Whether every factor of this shape fits `F` (`u64`: every format up to 8x8x8).
    pub const fn fits<F: crate::term::FactorBits>(self) -> bool {
        self.factor_width() <= F::BITS
    }

    /// The rank of the standard algorithm, `n*m*p`.
    pub const fn naive_rank(self) -> usize {
        self.n() * self.m() * self.p()
    }

    /// Bit of `a_ij` in factor A: `i*m + j`.
    pub const fn a_bit(self, i: usize, j: usize) -> usize {
        i * self.m() + j
    }

    /// Bit of `b_jk` in factor B: `j*p + k`.
    pub const fn b_bit(self, j: usize, k: usize) -> usize {
        j * self.p() + k
    }

    /// Bit of `c_ki` in factor C (C transposed): `k*n + i`.
    pub const fn c_bit(self, k: usize, i: usize) -> usize {
        k * self.n() + i
    }

    /// The shape rotated cyclically: `<n,m,p>` to `<m,p,n>`.
    pub const fn rotated(self) -> Shape {
        Shape {
            n: self.m,
            m: self.p,
            p: self.n,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.n, self.m, self.p)
    }
}

impl core::str::FromStr for Shape {
    type Err = ParseShapeError;

    /// Parses `4` (square), `4x4x5` or `4,4,5`.
    fn from_str(s: &str) -> Result<Shape, ParseShapeError> {
        let mut dims = [0usize; 3];
        let mut count = 0;
        for part in s.split(['x', 'X', ',']) {
            if count == 3 {
                return Err(ParseShapeError::Syntax);
            }
            dims[count] = part.trim().parse().map_err(|_| ParseShapeError::Syntax)?;
            count += 1;
        }
        let [n, m, p] = match count {
            1 => [dims[0]; 3],
            3 => dims,
            _ => return Err(ParseShapeError::Syntax),
        };
        Ok(Shape::new(n, m, p)?)
    }
}

/// A shape string that could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseShapeError {
    /// Not of the form `N` or `NxMxP`.
    #[error("expected a shape like 4 or 4x4x5")]
    Syntax,
    /// A dimension out of range.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range() {
        assert!(Shape::new(17, 2, 2).is_err());
        assert!(Shape::new(0, 2, 2).is_err());
        assert!(Shape::new(12, 11, 11).is_err());
        assert!(Shape::new(16, 8, 9).is_err());
        assert!(Shape::new(8, 8, 8).unwrap().fits::<u64>());
        let wide = [(9, 9, 9), (10, 10, 10), (11, 11, 11), (8, 8, 16), (16, 8, 8)];
        for (n, m, p) in wide {
            let s = Shape::new(n, m, p).unwrap();
            assert!(!s.fits::<u64>() && s.fits::<u128>(), "{s}");
        }
        assert_eq!(Shape::new(4, 5, 12).unwrap().factor_width(), 60);
        assert!(Shape::new(4, 5, 12).unwrap().fits::<u64>());
    }

    #[test]
    fn parses() {
        assert_eq!("4".parse::<Shape>().unwrap(), Shape::new(4, 4, 4).unwrap());
        assert_eq!("3x4x5".parse::<Shape>().unwrap(), Shape::new(3, 4, 5).unwrap());
        assert!("3x4".parse::<Shape>().is_err());
        assert!("17x4x4".parse::<Shape>().is_err());
        assert_eq!("9".parse::<Shape>().unwrap(), Shape::square(9).unwrap());
    }
}
