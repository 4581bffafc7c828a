//! Ternary schemes: a shape and its terms over {-1,0,1}, converted from and to the integer
//! schemes the formats read and write, and verified over Z.

use alloc::vec::Vec;
use core::fmt;

use super::{TernaryTerm, Trits, TRIT_BITS};
use crate::scheme::{IntScheme, IntTerm, Scheme};
use crate::shape::Shape;
use crate::term::{Position, Term};
use crate::verify::{verify_z, Diagnosis};

/// Why an integer scheme is no ternary scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TernaryError {
    /// A matrix of the format has more entries than a ternary factor holds ([`TRIT_BITS`]).
    TooWide {
        /// The format.
        shape: Shape,
    },
    /// A coefficient is not -1, 0 or 1.
    Coefficient {
        /// The term (0-based).
        term: usize,
        /// The factor.
        position: Position,
        /// The entry (0-based, row-major).
        entry: usize,
        /// The coefficient.
        value: i64,
    },
    /// A walk or start that needs a square shape (the rotation) was given another.
    NotSquare {
        /// The format.
        shape: Shape,
    },
    /// A term whose rotations are not all in the scheme: the scheme is not invariant under the
    /// cyclic rotation.
    NotInvariant {
        /// The term (0-based).
        term: usize,
    },
    /// A fixed cube that is not a factor of the format.
    Cube {
        /// The cube (0-based, in the order given).
        cube: usize,
    },
}

impl fmt::Display for TernaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TernaryError::TooWide { shape } => write!(
                f,
                "{shape} has a matrix of more than {TRIT_BITS} entries: ternary walks take formats up to 8x8x8"
            ),
            TernaryError::Coefficient {
                term,
                position,
                entry,
                value,
            } => write!(
                f,
                "term {} has coefficient {value} at entry {entry} of its {} factor: a ternary scheme has -1, 0 and 1 only",
                term + 1,
                position.letter()
            ),
            TernaryError::NotSquare { shape } => {
                write!(f, "{shape} is not square: the cyclic rotation acts on square formats only")
            }
            TernaryError::NotInvariant { term } => write!(
                f,
                "term {} has a rotation that is not in the scheme: the scheme is not invariant under the cyclic rotation (c3)",
                term + 1
            ),
            TernaryError::Cube { cube } => write!(f, "cube {} has entries outside its matrix", cube + 1),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TernaryError {}

/// A scheme over {-1,0,1}: what a ternary walk holds. Valid when it sums to the matrix
/// multiplication tensor over Z ([`TernaryScheme::verify`]); then it is valid over every ring.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TernaryScheme {
    shape: Shape,
    terms: Vec<TernaryTerm>,
}

impl TernaryScheme {
    /// A scheme of `terms` (zero terms kept) for `shape`; fails for a format too wide.
    pub fn new(shape: Shape, terms: Vec<TernaryTerm>) -> Result<TernaryScheme, TernaryError> {
        fits(shape)?;
        Ok(TernaryScheme { shape, terms })
    }

    /// The naive scheme: one term per product `a_ij b_jk`.
    pub fn naive(shape: Shape) -> Result<TernaryScheme, TernaryError> {
        Self::from_f2(&Scheme::<u64>::try_naive(shape).map_err(|_| TernaryError::TooWide { shape })?)
    }

    /// An F2 scheme read with coefficients 0 and 1 (valid over Z only where the F2 scheme
    /// lifts as it is, as the naive one does).
    pub fn from_f2(scheme: &Scheme<u64>) -> Result<TernaryScheme, TernaryError> {
        Self::from_int(&IntScheme::from_f2(scheme))
    }

    /// The ternary scheme of an integer one; fails on a coefficient outside {-1,0,1} or a
    /// format too wide. Zero terms are kept, so term numbers stay the file's.
    pub fn from_int(scheme: &IntScheme) -> Result<TernaryScheme, TernaryError> {
        fits(scheme.shape)?;
        let factor = |term: usize, position: Position, values: &[i64]| {
            values.iter().enumerate().try_fold(Trits::ZERO, |f, (entry, &value)| {
                f.with(entry, value).ok_or(TernaryError::Coefficient {
                    term,
                    position,
                    entry,
                    value,
                })
            })
        };
        let terms = scheme
            .terms
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let [a, b, c] = Position::ALL.map(|p| factor(i, p, t.get(p)));
                Ok(TernaryTerm::new(a?, b?, c?))
            })
            .collect::<Result<_, TernaryError>>()?;
        Ok(TernaryScheme {
            shape: scheme.shape,
            terms,
        })
    }

    /// The integer scheme, for the formats and for verification over Z.
    pub fn to_int(&self) -> IntScheme {
        let shape = self.shape;
        let terms = self
            .terms
            .iter()
            .map(|t| IntTerm {
                factors: Position::ALL.map(|p| {
                    // The sign goes into C.
                    let f = if p == Position::C { t.signed_factor(p) } else { t.get(p) };
                    (0..shape.factor_bits(p)).map(|i| f.get(i)).collect()
                }),
            })
            .collect();
        IntScheme { shape, terms }
    }

    /// The scheme mod 2: an F2 scheme of the same rank (valid when this one is).
    pub fn mod2(&self) -> Scheme<u64> {
        let terms = self
            .terms
            .iter()
            .map(|t| {
                let [a, b, c] = t.factors().map(|f| f.nonzero);
                Term::from_factors(a, b, c)
            })
            .collect();
        Scheme::new(self.shape, terms).expect("a ternary factor's entries are its matrix's")
    }

    /// `Ok` when the terms sum to the matrix multiplication tensor over Z.
    pub fn verify(&self) -> Result<(), Diagnosis> {
        verify_z(&self.to_int())
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The number of terms.
    pub fn rank(&self) -> usize {
        self.terms.len()
    }

    /// The terms.
    pub fn terms(&self) -> &[TernaryTerm] {
        &self.terms
    }

    /// Drops the zero terms; returns how many there were.
    pub fn remove_zero_terms(&mut self) -> usize {
        let before = self.terms.len();
        self.terms.retain(|t| !t.is_zero());
        before - self.terms.len()
    }
}

/// Fails for a format with a matrix of more than [`TRIT_BITS`] entries.
fn fits(shape: Shape) -> Result<(), TernaryError> {
    if Position::ALL.iter().all(|&p| shape.factor_bits(p) <= TRIT_BITS) {
        Ok(())
    } else {
        Err(TernaryError::TooWide { shape })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_naive_scheme_verifies_and_round_trips_through_integers() {
        let shape = Shape::new(2, 3, 4).unwrap();
        let naive = TernaryScheme::naive(shape).unwrap();
        assert_eq!(naive.rank(), 24);
        assert_eq!(naive.verify(), Ok(()));
        assert_eq!(TernaryScheme::from_int(&naive.to_int()).unwrap(), naive);
        assert_eq!(naive.mod2(), Scheme::naive(shape));
    }

    #[test]
    fn signs_survive_the_round_trip_and_a_wrong_sign_is_diagnosed() {
        let shape = Shape::square(2).unwrap();
        let mut int = TernaryScheme::naive(shape).unwrap().to_int();
        // -a (x) -b (x) c is the same term: still valid, and read back the same.
        for v in &mut int.terms[0].factors[..2] {
            v.iter_mut().for_each(|x| *x = -*x);
        }
        let t = TernaryScheme::from_int(&int).unwrap();
        assert_eq!(t.verify(), Ok(()));
        assert_eq!(verify_z(&t.to_int()), Ok(()));
        // One sign: the tensor is off by 2 at one entry.
        int.terms[1].factors[2].iter_mut().for_each(|x| *x = -*x);
        assert!(TernaryScheme::from_int(&int).unwrap().verify().is_err());
    }

    #[test]
    fn coefficients_outside_minus_one_to_one_and_wide_formats_are_refused() {
        let shape = Shape::square(2).unwrap();
        let mut int = TernaryScheme::naive(shape).unwrap().to_int();
        int.terms[2].factors[1][3] = 2;
        let e = TernaryScheme::from_int(&int).unwrap_err();
        assert_eq!(
            e,
            TernaryError::Coefficient {
                term: 2,
                position: Position::B,
                entry: 3,
                value: 2
            }
        );
        assert!(e.to_string().contains("term 3 has coefficient 2"));
        let wide = Shape::square(9).unwrap();
        assert!(matches!(TernaryScheme::naive(wide), Err(TernaryError::TooWide { .. })));
    }
}
