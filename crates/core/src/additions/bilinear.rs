//! A scheme as three programs: the bilinear algorithm that multiplies with it.

use std::string::String;
use std::vec::Vec;

use super::{is_negated, normalized, scheme_forms, Program};
use crate::rng::WyRand;
use crate::scheme::{IntScheme, IntTerm};
use crate::shape::Shape;
use crate::verify::{verify, verify_z, Diagnosis};

/// The programs of a scheme's three maps: `maps[0]` computes each product's factor of A from
/// the entries of A (row-major), `maps[1]` that of B, and `maps[2]` each entry of C (entry
/// `(i, k)` at `i * p + k`) from the products. Over Z or over F2 (`f2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemeProgram {
    /// The shape `<n,m,p>` it multiplies.
    pub shape: Shape,
    /// Over F2 (additions are XORs) rather than Z.
    pub f2: bool,
    /// The programs of A, B and C.
    pub maps: [Program; 3],
}

/// Why a program does not multiply matrices.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// Its parts do not fit together or name variables that do not exist.
    #[error("malformed program: {0}")]
    Malformed(String),
    /// The scheme it computes is not a scheme for its shape.
    #[error("the scheme it computes is not valid: {0}")]
    Invalid(Diagnosis),
    /// It multiplied random matrices wrongly.
    #[error("it multiplied random matrices wrongly")]
    WrongProduct,
}

impl SchemeProgram {
    /// The scheme's maps written term by term, nothing shared.
    pub fn naive(s: &IntScheme, f2: bool) -> SchemeProgram {
        let [n, m, p] = s.shape.dims();
        let inputs = [n * m, m * p, s.rank()];
        let mut forms = scheme_forms(s).into_iter().zip(inputs);
        let maps = core::array::from_fn(|_| {
            let (forms, inputs) = forms.next().expect("three maps");
            Program::naive(inputs, forms.iter().map(|f| normalized(f, f2)).collect())
        });
        SchemeProgram {
            shape: s.shape,
            f2,
            maps,
        }
    }

    /// The number of multiplications (products).
    pub fn rank(&self) -> usize {
        self.maps[0].outputs.len()
    }

    /// All additions and subtractions, counted from the programs: their pairs and output
    /// forms, and the unary minus of each [`SchemeProgram::negations`].
    pub fn additions(&self) -> usize {
        self.maps.iter().map(Program::additions).sum::<usize>() + self.negations()
    }

    /// The unary minuses left: a product with exactly one negated factor form (`(-x)(-y)` is
    /// `xy`), and each negated entry of C.
    pub fn negations(&self) -> usize {
        let f2 = self.f2;
        let [a, b, c] = &self.maps;
        let products = a
            .outputs
            .iter()
            .zip(&b.outputs)
            .filter(|(x, y)| is_negated(x, f2) != is_negated(y, f2))
            .count();
        products + c.outputs.iter().filter(|f| is_negated(f, f2)).count()
    }

    /// Moves signs from the factor forms to the products where that removes unary minuses:
    /// `(-x) y = -(x y)`, the product's sign taken by its uses in C ([`Program::negate_input`]),
    /// one product at a time while the count goes down.
    pub fn absorb_signs(&mut self) {
        if self.f2 {
            return;
        }
        let mut best = self.negations();
        let mut improved = true;
        while improved {
            improved = false;
            for r in 0..self.rank() {
                for map in [0, 1] {
                    self.move_sign(map, r);
                    let now = self.negations();
                    if now < best {
                        (best, improved) = (now, true);
                    } else {
                        self.move_sign(map, r);
                    }
                }
            }
        }
    }

    /// Negates product `r`'s factor form in `map` (A or B) and its uses in C: the same
    /// algorithm, its own inverse.
    fn move_sign(&mut self, map: usize, r: usize) {
        self.maps[map].outputs[r].iter_mut().for_each(|(_, k)| *k = -*k);
        self.maps[2].negate_input(r);
    }

    /// `C = A B` by the programs, for `a` (n x m) and `b` (m x p), row-major: over Z with
    /// wrapping arithmetic, over F2 on 64-lane bit-slices (AND multiplies).
    pub fn multiply(&self, a: &[i64], b: &[i64]) -> Vec<i64> {
        let x = self.maps[0].evaluate(a, self.f2);
        let y = self.maps[1].evaluate(b, self.f2);
        let products: Vec<i64> = x
            .iter()
            .zip(&y)
            .map(|(&x, &y)| if self.f2 { x & y } else { x.wrapping_mul(y) })
            .collect();
        self.maps[2].evaluate(&products, self.f2)
    }

    /// The scheme the programs compute, read back from their matrices.
    pub fn scheme(&self) -> Result<IntScheme, ProgramError> {
        self.check_sizes()?;
        let [n, _, p] = self.shape.dims();
        let [a, b, c] = self.maps.each_ref().map(|m| m.matrix(self.f2));
        let terms = (0..self.rank())
            .map(|r| {
                // Term r's factor of C (transposed, k * n + i) is column r of the map of C.
                let ct = (0..n * p).map(|kn| c[(kn % n) * p + kn / n][r]).collect();
                IntTerm {
                    factors: [a[r].clone(), b[r].clone(), ct],
                }
            })
            .collect();
        Ok(IntScheme {
            shape: self.shape,
            terms,
        })
    }

    /// Checks that the programs multiply matrices: their scheme is valid (over Z, or F2), and
    /// they multiply `trials` random pairs of matrices as the schoolbook product does. Returns
    /// the scheme.
    pub fn verify(&self, trials: usize, seed: u64) -> Result<IntScheme, ProgramError> {
        let scheme = self.scheme()?;
        match self.f2 {
            true => verify(
                &scheme
                    .mod2::<u128>()
                    .map_err(|e| ProgramError::Malformed(e.to_string()))?,
            ),
            false => verify_z(&scheme),
        }
        .map_err(ProgramError::Invalid)?;
        let [n, m, p] = self.shape.dims();
        let mut rng = WyRand::new(seed);
        for _ in 0..trials {
            let mut random = |len: usize| -> Vec<i64> {
                (0..len)
                    .map(|_| match self.f2 {
                        true => rng.bits() as i64,
                        false => rng.below(2001) as i64 - 1000,
                    })
                    .collect()
            };
            let (a, b) = (random(n * m), random(m * p));
            if self.multiply(&a, &b) != schoolbook(&a, &b, [n, m, p], self.f2) {
                return Err(ProgramError::WrongProduct);
            }
        }
        Ok(scheme)
    }

    /// Checks that the three programs fit the shape and each other and are well formed.
    fn check_sizes(&self) -> Result<(), ProgramError> {
        let [n, m, p] = self.shape.dims();
        let rank = self.rank();
        let expected = [(n * m, rank), (m * p, rank), (rank, n * p)];
        for ((map, (inputs, outputs)), name) in self.maps.iter().zip(expected).zip(["A", "B", "C"]) {
            if (map.inputs, map.outputs.len()) != (inputs, outputs) {
                return Err(ProgramError::Malformed(format!(
                    "the map of {name} has {} inputs and {} outputs; {inputs} and {outputs} expected",
                    map.inputs,
                    map.outputs.len()
                )));
            }
            if !map.is_well_formed() {
                return Err(ProgramError::Malformed(format!(
                    "the map of {name} names a variable it has not defined, or a coefficient out of range"
                )));
            }
        }
        Ok(())
    }
}

/// The schoolbook product of `a` (n x m) and `b` (m x p), row-major, over Z (wrapping) or F2
/// (bit-sliced).
pub fn schoolbook(a: &[i64], b: &[i64], [n, m, p]: [usize; 3], f2: bool) -> Vec<i64> {
    let mut c = vec![0i64; n * p];
    for i in 0..n {
        for k in 0..p {
            c[i * p + k] = (0..m).fold(0, |acc, j| {
                let (x, y) = (a[i * m + j], b[j * p + k]);
                match f2 {
                    true => acc ^ (x & y),
                    false => acc.wrapping_add(x.wrapping_mul(y)),
                }
            });
        }
    }
    c
}
