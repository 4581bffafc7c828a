//! Ternary schemes invariant under the cyclic rotation `sigma` of square shapes
//! ([`crate::symmetry`] has the maths over F2): Moosbauer and Poole's start from fixed cubes,
//! over Z, and the split of an invariant scheme into its orbits.
//!
//! Over Z a triple whose representative is a cube would be three copies of one term, and a
//! cube `x (x) x (x) x` is the sum of the products of `x`'s entries, not (as over F2) of a
//! plane's three points; so the ternary walk keeps the fixed cubes it starts from (as
//! Moosbauer and Poole's search and the GPU's symmetric walks do) and moves the triples only.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::{TernaryError, TernaryScheme, TernaryTerm, Trits};
use crate::shape::Shape;

/// The orbits of a scheme invariant under the rotation: its fixed terms (cubes) and one
/// representative per triple `{t, sigma t, sigma^2 t}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CyclicOrbits {
    /// The cubes, each once per occurrence.
    pub fixed: Vec<TernaryTerm>,
    /// One term of each triple.
    pub free: Vec<TernaryTerm>,
}

impl CyclicOrbits {
    /// The orbits of `scheme` (zero terms ignored): each term, in order, that no earlier orbit
    /// took starts one, which takes the first free occurrences of its rotations. Fails for a
    /// shape that is not square, or with the first term whose rotation is missing.
    pub fn of(scheme: &TernaryScheme) -> Result<CyclicOrbits, TernaryError> {
        let shape = scheme.shape();
        if !shape.is_square() {
            return Err(TernaryError::NotSquare { shape });
        }
        let terms = scheme.terms();
        // The indices of each term, largest first, so that `pop` gives the first free one.
        let mut free: BTreeMap<TernaryTerm, Vec<usize>> = BTreeMap::new();
        for (i, t) in terms.iter().enumerate().rev().filter(|(_, t)| !t.is_zero()) {
            free.entry(*t).or_default().push(i);
        }
        let mut taken = alloc::vec![false; terms.len()];
        let mut orbits = CyclicOrbits::default();
        for (i, &t) in terms.iter().enumerate() {
            if t.is_zero() || taken[i] {
                continue;
            }
            for k in 0..if t.is_cube() { 1 } else { 3 } {
                let occurrences = free.get_mut(&t.rotated(k));
                let j = occurrences
                    .and_then(|o| core::iter::from_fn(|| o.pop()).find(|&j| !taken[j]))
                    .ok_or(TernaryError::NotInvariant { term: i })?;
                taken[j] = true;
            }
            match t.is_cube() {
                true => orbits.fixed.push(t),
                false => orbits.free.push(t),
            }
        }
        Ok(orbits)
    }

    /// The rank of the plain scheme: each cube once, each triple three times.
    pub fn rank(&self) -> usize {
        self.fixed.len() + 3 * self.free.len()
    }

    /// The plain scheme of `shape`: the cubes, then each triple's three terms.
    pub fn to_scheme(&self, shape: Shape) -> Result<TernaryScheme, TernaryError> {
        let triples = self.free.iter().flat_map(|t| (0..3).map(|k| t.rotated(k)));
        TernaryScheme::new(shape, self.fixed.iter().copied().chain(triples).collect())
    }
}

impl TernaryScheme {
    /// The naive scheme of the square `shape` with the fixed cubes `cubes` (Moosbauer and
    /// Poole's start, over Z): for each cube `x (x) x (x) x` added, the products
    /// `x_a x_b x_c e_a (x) e_b (x) e_c` of its entries are taken away, so the sum is the
    /// same; terms that meet the naive ones cancel or add. Invariant under the rotation (every
    /// part is). Fails for a shape that is not square or a cube with entries outside its
    /// matrix; a coefficient that adds to ±2 gives two equal terms.
    pub fn with_cubes(shape: Shape, cubes: &[Trits]) -> Result<TernaryScheme, TernaryError> {
        if !shape.is_square() {
            return Err(TernaryError::NotSquare { shape });
        }
        let entries = shape.n() * shape.n();
        if let Some(cube) = cubes.iter().position(|x| entries < 64 && x.nonzero >> entries != 0) {
            return Err(TernaryError::Cube { cube });
        }
        // Each term's coefficient, by its normal factors.
        let mut coefficients: BTreeMap<[Trits; 3], i64> = BTreeMap::new();
        let mut add = |t: TernaryTerm, c: i64| {
            *coefficients.entry(t.factors()).or_default() += if t.is_negative() { -c } else { c };
        };
        for &t in TernaryScheme::naive(shape)?.terms() {
            add(t, 1);
        }
        let support = |x: Trits| (0..entries).filter(move |&i| x.get(i) != 0);
        for &x in cubes {
            add(TernaryTerm::new(x, x, x), 1);
            for a in support(x) {
                for b in support(x) {
                    for c in support(x) {
                        let unit = TernaryTerm::new(Trits::unit(a), Trits::unit(b), Trits::unit(c));
                        add(unit, -x.get(a) * x.get(b) * x.get(c));
                    }
                }
            }
        }
        let terms = coefficients
            .into_iter()
            .flat_map(|(factors, c)| {
                core::iter::repeat_n(TernaryTerm::signed(factors, c < 0), c.unsigned_abs() as usize)
            })
            .collect();
        TernaryScheme::new(shape, terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diagonal factor of the entries `diagonal` of an `n x n` matrix.
    fn diagonal(n: usize, diagonal: &[usize]) -> Trits {
        diagonal.iter().fold(Trits::ZERO, |x, &i| x.with(i * n + i, 1).unwrap())
    }

    #[test]
    fn the_naive_square_scheme_is_invariant_with_its_diagonal_cubes_fixed() {
        let shape = Shape::square(3).unwrap();
        let naive = TernaryScheme::naive(shape).unwrap();
        let orbits = CyclicOrbits::of(&naive).unwrap();
        assert_eq!((orbits.fixed.len(), orbits.free.len()), (3, 8));
        assert_eq!(orbits.rank(), 27);
        let back = orbits.to_scheme(shape).unwrap();
        assert_eq!(back.verify(), Ok(()));
        assert_eq!(back.rank(), 27);
    }

    #[test]
    fn a_start_from_cubes_keeps_the_tensor_over_z_and_is_invariant() {
        // Moosbauer and Poole's 5x5x5 cubes: 10001, 01010, 00100 (135 terms, as over F2).
        let shape = Shape::square(5).unwrap();
        let cubes = [diagonal(5, &[0, 4]), diagonal(5, &[1, 3]), diagonal(5, &[2])];
        let start = TernaryScheme::with_cubes(shape, &cubes).unwrap();
        assert_eq!(start.verify(), Ok(()));
        assert_eq!(start.rank(), 135);
        let orbits = CyclicOrbits::of(&start).unwrap();
        assert_eq!(orbits.fixed.len(), 3);
        assert!(orbits.fixed.iter().all(|t| t.is_cube() && !t.is_negative()));
        // A cube with a minus sign in it cancels with nothing: still valid.
        let signed = [diagonal(4, &[0, 1]).with(15, -1).unwrap()];
        let start = TernaryScheme::with_cubes(Shape::square(4).unwrap(), &signed).unwrap();
        assert_eq!(start.verify(), Ok(()));
        assert!(CyclicOrbits::of(&start).is_ok());
    }

    #[test]
    fn a_scheme_without_a_rotation_of_a_term_is_not_invariant() {
        let shape = Shape::square(2).unwrap();
        let mut terms = TernaryScheme::naive(shape).unwrap().terms().to_vec();
        // The naive 2x2x2's first non-cube term, dropped: its rotations lose their partner.
        let i = terms.iter().position(|t| !t.is_cube()).unwrap();
        terms.remove(i);
        let e = CyclicOrbits::of(&TernaryScheme::new(shape, terms).unwrap()).unwrap_err();
        assert!(matches!(e, TernaryError::NotInvariant { .. }), "{e}");
        let wide = TernaryScheme::naive(Shape::new(2, 2, 3).unwrap()).unwrap();
        assert_eq!(
            CyclicOrbits::of(&wide),
            Err(TernaryError::NotSquare { shape: wide.shape() })
        );
        let outside = Trits::unit(9);
        assert_eq!(
            TernaryScheme::with_cubes(Shape::square(3).unwrap(), &[Trits::unit(0), outside]),
            Err(TernaryError::Cube { cube: 1 })
        );
    }
}
