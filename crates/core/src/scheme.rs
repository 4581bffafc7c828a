//! Schemes: a shape and its terms, over F2 ([`Scheme`]) or with integer coefficients
//! ([`IntScheme`], for files over Z).

use alloc::vec::Vec;

use crate::shape::Shape;
use crate::term::{Factor, Position, Term};

/// A scheme over F2: terms whose sum should be the matrix multiplication tensor of `shape`.
///
/// Construction checks only that every factor fits its matrix; use
/// [`verify`](crate::verify::verify) to check the sum.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scheme {
    shape: Shape,
    terms: Vec<Term>,
}

/// A term whose factor has bits outside its matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("term {term}: factor {} has bits outside its {rows}x{cols} matrix", position.letter())]
pub struct FactorRangeError {
    /// Index of the offending term.
    pub term: usize,
    /// The offending position.
    pub position: Position,
    /// Rows of that factor's matrix.
    pub rows: usize,
    /// Columns of that factor's matrix.
    pub cols: usize,
}

/// The mask of the valid bits of factor `pos` of `shape`.
pub fn factor_mask(shape: Shape, pos: Position) -> Factor {
    match shape.factor_bits(pos) {
        64 => u64::MAX,
        bits => (1u64 << bits) - 1,
    }
}

impl FactorRangeError {
    /// Checks that every factor of `term` (term number `index`) lies inside its matrix.
    pub fn check(shape: Shape, index: usize, term: &Term) -> Result<(), FactorRangeError> {
        match Position::ALL
            .into_iter()
            .find(|&pos| term.get(pos) & !factor_mask(shape, pos) != 0)
        {
            None => Ok(()),
            Some(position) => {
                let (rows, cols) = shape.factor_dims(position);
                Err(FactorRangeError {
                    term: index,
                    position,
                    rows,
                    cols,
                })
            }
        }
    }
}

impl Scheme {
    /// A scheme from its terms; fails when a factor has bits outside its matrix.
    pub fn new(shape: Shape, terms: Vec<Term>) -> Result<Scheme, FactorRangeError> {
        for (i, t) in terms.iter().enumerate() {
            FactorRangeError::check(shape, i, t)?;
        }
        Ok(Scheme { shape, terms })
    }

    /// The standard algorithm: one term `a_ij (x) b_jk (x) c_ki` per `(i, j, k)`, rank `n*m*p`.
    pub fn naive(shape: Shape) -> Scheme {
        let [n, m, p] = shape.dims();
        let mut terms = Vec::with_capacity(n * m * p);
        for i in 0..n {
            for j in 0..m {
                for k in 0..p {
                    terms.push(Term::new(
                        1 << shape.a_bit(i, j),
                        1 << shape.b_bit(j, k),
                        1 << shape.c_bit(k, i),
                    ));
                }
            }
        }
        Scheme { shape, terms }
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The number of terms (multiplications).
    pub fn rank(&self) -> usize {
        self.terms.len()
    }

    /// The terms.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// The terms, consuming the scheme.
    pub fn into_terms(self) -> Vec<Term> {
        self.terms
    }

    /// Removes zero terms (a factor of zero); returns how many were removed.
    pub fn remove_zero_terms(&mut self) -> usize {
        let before = self.terms.len();
        self.terms.retain(|t| !t.is_zero());
        before - self.terms.len()
    }

    /// The flips this scheme offers: pairs of terms with the same (nonzero) factor at a
    /// position, counted once per position. Zero means a sink of the flip graph, which only a
    /// plus move leaves (Strassen's scheme, its Kronecker square, KM's 4x4x4 rank 47).
    pub fn flip_pairs(&self) -> usize {
        Position::ALL
            .into_iter()
            .map(|pos| {
                let mut factors: Vec<Factor> = self.terms.iter().map(|t| t.get(pos)).filter(|&f| f != 0).collect();
                factors.sort_unstable();
                factors
                    .chunk_by(|x, y| x == y)
                    .map(|run| run.len() * (run.len() - 1) / 2)
                    .sum::<usize>()
            })
            .sum()
    }

    /// Total number of set bits of the factors at `pos`, over all terms.
    pub fn weight(&self, pos: Position) -> usize {
        self.terms.iter().map(|t| t.get(pos).count_ones() as usize).sum()
    }

    /// Additions of the straightforward evaluation: forming each factor of A and B with
    /// `weight - 1` additions, and each entry of C as the sum of its products.
    pub fn naive_additions(&self) -> usize {
        let forms = |pos| {
            self.terms
                .iter()
                .map(|t: &Term| (t.get(pos).count_ones() as usize).saturating_sub(1))
                .sum::<usize>()
        };
        let c_entries = self.shape.factor_bits(Position::C);
        let c_sums = (0..c_entries)
            .map(|w| {
                self.terms
                    .iter()
                    .filter(|t| t.c >> w & 1 == 1)
                    .count()
                    .saturating_sub(1)
            })
            .sum::<usize>();
        forms(Position::A) + forms(Position::B) + c_sums
    }
}

/// A term with integer coefficients: each factor as a row-major vector (C transposed).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntTerm {
    /// The coefficients of A, B and C (transposed), row-major.
    pub factors: [Vec<i64>; 3],
}

impl IntTerm {
    /// The factor at `pos`.
    pub fn get(&self, pos: Position) -> &[i64] {
        &self.factors[pos.index()]
    }

    /// This term mod 2, as bit masks.
    pub fn mod2(&self) -> Term {
        let bits = |v: &[i64]| {
            v.iter()
                .enumerate()
                .fold(0u64, |acc, (i, &x)| acc | ((x & 1) as u64) << i)
        };
        Term::new(bits(&self.factors[0]), bits(&self.factors[1]), bits(&self.factors[2]))
    }
}

/// A scheme with integer coefficients, as read from a file over Z.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntScheme {
    /// The shape.
    pub shape: Shape,
    /// The terms; each factor has exactly the length of its matrix.
    pub terms: Vec<IntTerm>,
}

impl IntScheme {
    /// The number of terms.
    pub fn rank(&self) -> usize {
        self.terms.len()
    }

    /// True when every coefficient is 0 or 1 (an F2 scheme written with integers).
    pub fn is_binary(&self) -> bool {
        self.terms
            .iter()
            .all(|t| t.factors.iter().flatten().all(|&x| x == 0 || x == 1))
    }

    /// Reduction mod 2. Terms that vanish mod 2 are kept (as zero terms) so the rank and term
    /// indices stay those of the file.
    pub fn mod2(&self) -> Scheme {
        Scheme {
            shape: self.shape,
            terms: self.terms.iter().map(IntTerm::mod2).collect(),
        }
    }

    /// The F2 scheme with coefficients 0 and 1.
    pub fn from_f2(scheme: &Scheme) -> IntScheme {
        let shape = scheme.shape();
        let unpack = |f: Factor, pos| (0..shape.factor_bits(pos)).map(|i| (f >> i & 1) as i64).collect();
        let terms = scheme
            .terms()
            .iter()
            .map(|t| IntTerm {
                factors: Position::ALL.map(|pos| unpack(t.get(pos), pos)),
            })
            .collect();
        IntScheme { shape, terms }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_rank_and_mask() {
        let s = Scheme::naive(Shape::new(2, 3, 4).unwrap());
        assert_eq!(s.rank(), 24);
        assert!(Scheme::new(s.shape(), s.terms().to_vec()).is_ok());
        let bad = Scheme::new(s.shape(), alloc::vec![Term::new(1 << 6, 1, 1)]);
        assert_eq!(bad.unwrap_err().position, Position::A);
    }

    #[test]
    fn flip_pairs_count_the_terms_that_share_a_factor() {
        // Naive 2x2x2: each of the 4 factors at each position is shared by two terms.
        assert_eq!(Scheme::naive(Shape::square(2).unwrap()).flip_pairs(), 12);
        // Naive 1x1x2: two terms share the one factor of A.
        assert_eq!(Scheme::naive(Shape::new(1, 1, 2).unwrap()).flip_pairs(), 1);
        let shape = Shape::square(1).unwrap();
        let sink = Scheme::new(shape, alloc::vec![Term::new(1, 1, 1)]).unwrap();
        assert_eq!(sink.flip_pairs(), 0);
        // Zero factors are no partners; three equal factors are three pairs.
        let zeros = Scheme::new(shape, alloc::vec![Term::new(0, 1, 0), Term::new(0, 0, 1)]).unwrap();
        assert_eq!(zeros.flip_pairs(), 0);
        let three = Scheme::new(shape, alloc::vec![Term::new(1, 0, 0); 3]).unwrap();
        assert_eq!(three.flip_pairs(), 3);
    }

    #[test]
    fn int_round_trip_through_f2() {
        let s = Scheme::naive(Shape::new(3, 2, 2).unwrap());
        let z = IntScheme::from_f2(&s);
        assert!(z.is_binary());
        assert_eq!(z.mod2(), s);
    }
}
