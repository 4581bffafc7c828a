//! Schemes: a shape and its terms, over F2 ([`Scheme`]) or with integer coefficients
//! ([`IntScheme`], for files over Z).

use alloc::vec::Vec;

use crate::shape::Shape;
use crate::term::{FactorBits, Position, Term};

/// A scheme over F2: terms whose sum should be the matrix multiplication tensor of `shape`.
///
/// Construction checks only that every factor fits its matrix; use
/// [`verify`](crate::verify::verify) to check the sum. The factors are `u64` by default (every
/// format up to 8x8x8); [`WideScheme`] holds the formats whose factors need up to 128 bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scheme<F: FactorBits = u64> {
    shape: Shape,
    terms: Vec<Term<F>>,
}

/// A scheme with factors of up to 128 bits (9x9x9, 10x10x10, 8x8x16, ...).
pub type WideScheme = Scheme<u128>;

/// A format whose factors do not fit the scheme's factor width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{shape} needs factors of {width} bits, wider than the {bits}-bit factors this takes")]
pub struct WidthError {
    /// The format.
    pub shape: Shape,
    /// The bits its largest factor needs.
    pub width: usize,
    /// The bits the scheme's factors hold.
    pub bits: usize,
}

impl WidthError {
    /// `Ok` when the factors of `shape` fit `F`.
    pub fn check<F: FactorBits>(shape: Shape) -> Result<(), WidthError> {
        if shape.fits::<F>() {
            Ok(())
        } else {
            Err(WidthError {
                shape,
                width: shape.factor_width(),
                bits: F::BITS,
            })
        }
    }
}

/// Why [`Scheme::new`] refused its terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SchemeError {
    /// A factor with bits outside its matrix.
    #[error(transparent)]
    Range(#[from] FactorRangeError),
    /// The format's factors are wider than the scheme's.
    #[error(transparent)]
    Width(#[from] WidthError),
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

/// The mask of the valid bits of factor `pos` of `shape` (which must fit `F`).
pub fn factor_mask<F: FactorBits>(shape: Shape, pos: Position) -> F {
    F::low_mask(shape.factor_bits(pos))
}

impl FactorRangeError {
    /// Checks that every factor of `term` (term number `index`) lies inside its matrix.
    pub fn check<F: FactorBits>(shape: Shape, index: usize, term: &Term<F>) -> Result<(), FactorRangeError> {
        match Position::ALL
            .into_iter()
            .find(|&pos| term.get(pos) & !factor_mask::<F>(shape, pos) != F::ZERO)
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
    /// The standard algorithm with 64-bit factors (see [`Scheme::try_naive`]).
    ///
    /// # Panics
    /// When the factors of `shape` need more than 64 bits ([`Shape::fits`]).
    pub fn naive(shape: Shape) -> Scheme {
        match Scheme::try_naive(shape) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }
}

impl<F: FactorBits> Scheme<F> {
    /// A scheme from its terms; fails when a factor has bits outside its matrix (a format whose
    /// factors `F` cannot hold fails as a whole, even without terms).
    pub fn new(shape: Shape, terms: Vec<Term<F>>) -> Result<Scheme<F>, SchemeError> {
        WidthError::check::<F>(shape)?;
        for (i, t) in terms.iter().enumerate() {
            FactorRangeError::check(shape, i, t)?;
        }
        Ok(Scheme { shape, terms })
    }

    /// The standard algorithm: one term `a_ij (x) b_jk (x) c_ki` per `(i, j, k)`, rank `n*m*p`,
    /// or an error when the factors of `shape` do not fit `F`.
    pub fn try_naive(shape: Shape) -> Result<Scheme<F>, WidthError> {
        WidthError::check::<F>(shape)?;
        let [n, m, p] = shape.dims();
        let mut terms = Vec::with_capacity(n * m * p);
        for i in 0..n {
            for j in 0..m {
                for k in 0..p {
                    terms.push(Term::from_factors(
                        F::bit(shape.a_bit(i, j)),
                        F::bit(shape.b_bit(j, k)),
                        F::bit(shape.c_bit(k, i)),
                    ));
                }
            }
        }
        Ok(Scheme { shape, terms })
    }

    /// The same scheme with factors of `G`, when its format fits them.
    pub fn to_width<G: FactorBits>(&self) -> Result<Scheme<G>, WidthError> {
        WidthError::check::<G>(self.shape)?;
        Ok(Scheme {
            shape: self.shape,
            terms: self.terms.iter().map(Term::to_width).collect(),
        })
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
    pub fn terms(&self) -> &[Term<F>] {
        &self.terms
    }

    /// Its terms in order: equal for the same scheme whatever the order of its terms (the
    /// key under which pools and islands tell schemes apart).
    pub fn sorted_terms(&self) -> Vec<Term<F>> {
        let mut terms = self.terms.to_vec();
        terms.sort_unstable();
        terms
    }

    /// The terms, consuming the scheme.
    pub fn into_terms(self) -> Vec<Term<F>> {
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
                let mut factors: Vec<F> = self
                    .terms
                    .iter()
                    .map(|t| t.get(pos))
                    .filter(|&f| f != F::ZERO)
                    .collect();
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
                .map(|t: &Term<F>| (t.get(pos).count_ones() as usize).saturating_sub(1))
                .sum::<usize>()
        };
        let c_entries = self.shape.factor_bits(Position::C);
        let c_sums = (0..c_entries)
            .map(|w| self.terms.iter().filter(|t| t.c.test(w)).count().saturating_sub(1))
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

    /// This term mod 2, as bit masks (each factor of at most `F::BITS` entries).
    pub fn mod2<F: FactorBits>(&self) -> Term<F> {
        let bits = |v: &[i64]| {
            v.iter()
                .enumerate()
                .filter(|&(_, &x)| x & 1 == 1)
                .fold(F::ZERO, |acc, (i, _)| acc | F::bit(i))
        };
        Term::from_factors(bits(&self.factors[0]), bits(&self.factors[1]), bits(&self.factors[2]))
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
    /// indices stay those of the file. Fails when the format's factors do not fit `F`.
    pub fn mod2<F: FactorBits>(&self) -> Result<Scheme<F>, WidthError> {
        WidthError::check::<F>(self.shape)?;
        Ok(Scheme {
            shape: self.shape,
            terms: self.terms.iter().map(IntTerm::mod2).collect(),
        })
    }

    /// The F2 scheme with coefficients 0 and 1.
    pub fn from_f2<F: FactorBits>(scheme: &Scheme<F>) -> IntScheme {
        let shape = scheme.shape();
        let unpack = |f: F, pos| (0..shape.factor_bits(pos)).map(|i| f.test(i) as i64).collect();
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
        assert!(matches!(
            bad,
            Err(SchemeError::Range(FactorRangeError {
                position: Position::A,
                ..
            }))
        ));
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
        assert_eq!(z.mod2(), Ok(s));
    }
}
