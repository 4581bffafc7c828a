//! The cyclic symmetry of square matrix multiplication, and the flip graph of the schemes that
//! keep it (Moosbauer and Poole, "Flip graphs with symmetry and new matrix multiplication
//! schemes", ISSAC 2025, arXiv 2502.04514).
//!
//! # The symmetry
//!
//! For a square shape `<n,n,n>` the tensor `sum_{i,j,k} a_ij b_jk c_ki` is unchanged by
//! `sigma: a (x) b (x) c -> b (x) c (x) a`: the entry `a_ij b_jk c_ki` goes to
//! `a_jk b_ki c_ij`, the entry of `(j, k, i)`. The three factors of a square shape are `n x n`
//! masks with one bit layout (row-major, C stored transposed as the cyclic convention has it),
//! so `sigma` only rotates the three words of a [`Term`]: [`sigma`] is
//! [`Term::rotated`]`(Position::B)`.
//!
//! A scheme is *invariant* when `sigma` maps its terms (as a multiset) onto themselves. Its
//! terms then fall into *orbits*: *fixed* terms `X (x) X (x) X` (`sigma t = t`) and *triples*
//! `{t, sigma t, sigma^2 t}` of three distinct terms. A [`SymmetricScheme`] keeps one
//! representative per orbit; its rank, counted in the plain scheme, is
//! `#fixed + 3 * #triples`.
//!
//! # Moves on orbits
//!
//! A move on orbits is a move of the plain flip graph ([`crate::moves`]) taken together with
//! its images under `sigma` and `sigma^2`. The result is invariant because the three moves
//! form a `sigma`-closed set, and it keeps the tensor when the three plain moves do not
//! interfere: they touch disjoint terms, or share only terms they read. Every term of an orbit
//! is `sigma^k` of the representative, and a plain move at position P between `t` and `u` is
//! the move at A between `sigma^k t` and `sigma^k u` for the `k` that brings P to A; so each
//! orbit move is taken at position A between rotated representatives ([`OrbitTerm`]).
//!
//! The cases:
//! - **Flip between two triple orbits** (`t`, `u` in distinct triples with `t[A] = u[A]`):
//!   the flips `(t, u)`, `(sigma t, sigma u)`, `(sigma^2 t, sigma^2 u)` act on six distinct
//!   terms (even when the two orbits are equal as sets: they are two copies), so they commute
//!   and each keeps the tensor. Offered ([`SymmetricScheme::flip`]).
//! - **Flip between a fixed term and a triple** (`X^3` and `u = X (x) b (x) c`): all three
//!   flips change the one fixed term, and the first one already leaves it non-fixed
//!   (`X (x) X (x) (X + c)` or `X (x) (X + b) (x) X`), so that the image flips no longer apply.
//!   No order of the three is invariant. Not offered: flips leave fixed terms alone, as in
//!   Moosbauer and Poole's search, which (as far as its published code shows) keeps the fixed
//!   terms ("cubes") chosen at the start of a run ([`SymmetricScheme::with_cubes`]).
//! - **Flip within one orbit** (`t` and `sigma t` share a factor: `t = a (x) a (x) c` up to
//!   rotation): the image flips `(sigma t, sigma^2 t)` and `(sigma^2 t, t)` overlap the first,
//!   and the first alone gives `a(x)a(x)(a+c) + a(x)(a+c)(x)a + c(x)a(x)a`, not invariant.
//!   Not offered.
//! - **Two fixed terms** share a factor only when they are equal; then they cancel.
//! - **Reduction (merge)**: terms of two distinct triples that share two factors merge, and so
//!   do their images: three terms fewer ([`SymmetricScheme::merge`]). Two terms of one triple
//!   never share two factors (that would make all three factors equal).
//! - **Settling**: a move may leave a representative zero (its orbit is gone) or of the form
//!   `X (x) X (x) X`: the triple's three terms are then equal and sum to one fixed term (three
//!   copies are one over F2: two terms fewer). Two equal fixed terms cancel, and two equal
//!   triples cancel (they merge to zero). [`Orbit`]'s kind follows its representative, so a
//!   triple whose representative becomes `X^3` is a fixed orbit at once.
//! - **Generalized flip**: terms of N distinct triples sharing the factor at A, rewritten by an
//!   element of `GL_N(F2)` ([`crate::moves::generalized_flip_rank`]), with their images: the
//!   three groups are disjoint. Offered ([`SymmetricScheme::generalized_flip`]).
//! - **Plus** (to leave a plateau): `t + u -> t + u' + v` changes only `u` and reads `t`. With
//!   `u` in a triple and `t` in any other orbit, a fixed term included, the three plus moves
//!   change disjoint terms and read `t`'s orbit, unchanged: three terms more
//!   ([`SymmetricScheme::plus`]). With `t` and `u` in one orbit the image moves would read
//!   terms already changed, and with `u` fixed the fixed term would change: not offered.
//! - **Cubes**: for distinct non-zero `x, y, z` with `x + y + z = 0` the triple of
//!   `x (x) y (x) z` equals `x^3 + y^3 + z^3` (written in the basis `x, y` of the plane
//!   `{0, x, y, z}`, both are the sum of the six products of `x` and `y` that use both). So a
//!   triple whose factors sum to zero may become three fixed terms, rank
//!   unchanged ([`SymmetricScheme::to_cubes`]), and each of those equal to a fixed term of the
//!   scheme cancels with it: two terms fewer. Conversely two fixed terms `x^3 + y^3` are the
//!   triple of `x (x) y (x) (x + y)` plus `(x + y)^3` ([`SymmetricScheme::from_cubes`]). These
//!   are the moves that change the fixed terms other than by settling; the walk takes the first
//!   as a reduction when it removes terms, unless its fixed terms are frozen ([`FixedTerms`]).
//!   (An addition of this module to the paper's moves.)
//!
//! As `rank = #fixed + 3 * #triples`, a walk changes its rank mod 3 only by changing its fixed
//! terms: settling a triple to a fixed term, cancelling fixed terms, or a cube reduction with
//! one cancellation. From the naive 3x3x3 (3 fixed terms, rank 27) Laderman's rank 23 needs 2
//! or 5 fixed terms; the walk gets there by cube reductions.
//!
//! [`SymmetricWalker`](crate::walk::SymmetricWalker) is the random walk on invariant schemes, the counterpart of
//! [`crate::walk::Walker`].

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::group::Group;
use crate::moves;
use crate::scheme::{factor_mask, FactorRangeError, Scheme};
use crate::shape::Shape;
use crate::term::{Factor, Position, Term};

mod orbit_moves;

/// Whether a walk of invariant schemes ([`crate::walk::SymmetricWalker`]) may change its
/// fixed terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixedTerms {
    /// The walk changes them: triples settle to fixed terms, equal ones cancel, and cube
    /// reductions turn triples into fixed terms (C3 only).
    #[default]
    Free,
    /// The fixed terms of the start never change; the walk moves the free orbits only.
    Frozen,
}

impl FixedTerms {
    /// What a walk under `group` does with its fixed terms when asked for `self`: only C3
    /// walks change them.
    pub fn for_group(self, group: Group) -> FixedTerms {
        if group == Group::C3 {
            self
        } else {
            FixedTerms::Frozen
        }
    }
}

/// The cyclic symmetry `a (x) b (x) c -> b (x) c (x) a` of square shapes.
#[inline(always)]
pub fn sigma(t: Term) -> Term {
    t.rotated(Position::B)
}

/// `sigma^k t`: the term rotated `k` times (`k` taken mod 3), so that its factor `k` comes first.
#[inline(always)]
pub fn rotate(t: Term, k: usize) -> Term {
    match k % 3 {
        0 => t,
        1 => t.rotated(Position::B),
        _ => t.rotated(Position::C),
    }
}

/// True when `sigma t = t`: all three factors are equal.
#[inline(always)]
pub fn is_fixed(t: &Term) -> bool {
    t.is_cube()
}

/// The two kinds of orbit of `sigma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OrbitKind {
    /// One term `X (x) X (x) X`, its own image.
    Fixed,
    /// Three distinct terms `t`, `sigma t`, `sigma^2 t`.
    Triple,
}

/// An orbit of `sigma`, given by a representative term. Its kind follows the representative:
/// fixed when the three factors are equal, else a triple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Orbit {
    rep: Term,
}

impl Orbit {
    /// The orbit of `representative`.
    pub const fn new(representative: Term) -> Orbit {
        Orbit { rep: representative }
    }

    /// The fixed orbit `x (x) x (x) x`.
    pub const fn fixed(x: Factor) -> Orbit {
        Orbit::new(Term::new(x, x, x))
    }

    /// The representative.
    pub fn representative(&self) -> Term {
        self.rep
    }

    /// Fixed or triple.
    pub fn kind(&self) -> OrbitKind {
        if is_fixed(&self.rep) {
            OrbitKind::Fixed
        } else {
            OrbitKind::Triple
        }
    }

    /// The number of terms: 1 for a fixed orbit, 3 for a triple.
    pub fn size(&self) -> usize {
        match self.kind() {
            OrbitKind::Fixed => 1,
            OrbitKind::Triple => 3,
        }
    }

    /// `sigma^k` of the representative (for a fixed orbit, its one term).
    pub fn term(&self, k: usize) -> Term {
        rotate(self.rep, k)
    }

    /// The terms of the orbit: the representative, then its images under `sigma` and
    /// `sigma^2` for a triple.
    pub fn terms(&self) -> impl Iterator<Item = Term> + '_ {
        (0..self.size()).map(|k| self.term(k))
    }

    /// True when `t` is one of the orbit's terms.
    pub fn contains(&self, t: &Term) -> bool {
        self.terms().any(|u| u == *t)
    }

    /// True when the representative is zero (a factor is zero): the orbit has no terms.
    pub fn is_zero(&self) -> bool {
        self.rep.is_zero()
    }
}

/// One term of an orbit of a [`SymmetricScheme`]: `sigma^rotation` of the representative of
/// orbit `orbit` (its factor `rotation` first). Orbit moves are taken at position A between
/// such terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrbitTerm {
    /// Index of the orbit in [`SymmetricScheme::orbits`].
    pub orbit: usize,
    /// 0, 1 or 2 (taken mod 3).
    pub rotation: usize,
}

impl OrbitTerm {
    /// Term `rotation` of orbit `orbit`.
    pub const fn new(orbit: usize, rotation: usize) -> OrbitTerm {
        OrbitTerm { orbit, rotation }
    }
}

/// Why a scheme or a list of orbits is not a [`SymmetricScheme`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SymmetryError {
    /// The cyclic symmetry needs a square shape.
    #[error("shape {shape} is not square: the cyclic symmetry needs n x n x n")]
    NotSquare {
        /// The shape.
        shape: Shape,
    },
    /// A term whose image under `sigma^power` has no term of its own left in the scheme.
    #[error(
        "the scheme is not invariant under the cyclic symmetry: term {term} has no image under sigma^{power} \
         (no term a={:#x} b={:#x} c={:#x} left to match it)",
        .image.a, .image.b, .image.c
    )]
    NotInvariant {
        /// Index of the term in the scheme.
        term: usize,
        /// 1 (`sigma`) or 2 (`sigma^2`).
        power: u8,
        /// The missing image.
        image: Term,
    },
    /// An orbit's representative has bits outside its matrix (`term` is the orbit's index).
    #[error(transparent)]
    FactorRange(#[from] FactorRangeError),
    /// An orbit with a zero representative.
    #[error("orbit {orbit} is zero")]
    ZeroOrbit {
        /// Index of the orbit.
        orbit: usize,
    },
}

/// Why an orbit move is not offered (see the [module docs](self) for each case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// No orbit of that index.
    #[error("no orbit {orbit}")]
    NoOrbit {
        /// The index.
        orbit: usize,
    },
    /// The move would change a fixed term, which breaks invariance.
    #[error("orbit {orbit} is a fixed term: this move would break invariance")]
    Fixed {
        /// The fixed orbit.
        orbit: usize,
    },
    /// The move needs a triple orbit at this place.
    #[error("orbit {orbit} is a triple: this move needs a fixed term")]
    NotFixed {
        /// The triple orbit.
        orbit: usize,
    },
    /// Both terms in one orbit: the images overlap the move.
    #[error("both terms are in orbit {orbit}: the images of the move would overlap it")]
    SameOrbit {
        /// The orbit.
        orbit: usize,
    },
    /// The terms do not share their first factor (flip, generalized flip).
    #[error("the terms do not share their first factor")]
    NoSharedFactor,
    /// The terms share their first factor (a plus move needs different ones).
    #[error("the terms share their first factor: a plus move needs different ones")]
    SharedFactor,
    /// The terms share fewer than two factors.
    #[error("the terms share fewer than two factors")]
    NotMergeable,
    /// The group's factors are linearly independent: a generalized flip removes nothing.
    #[error("the group is not reducible")]
    NotReducible,
    /// A generalized flip needs two terms or more.
    #[error("a generalized flip needs two terms or more")]
    GroupTooSmall,
    /// The triple's factors do not sum to zero.
    #[error("the factors of orbit {orbit} do not sum to zero")]
    NotCubes {
        /// The orbit.
        orbit: usize,
    },
    /// Two fixed terms that are equal (they cancel; see [`SymmetricScheme::reduce`]).
    #[error("the fixed terms are equal")]
    EqualCubes,
}

/// A C3-invariant scheme of a square shape: one [`Orbit`] per fixed term or triple of terms.
///
/// Construction checks the shape, the factors' range and that no orbit is zero; the sum is
/// checked by [`verify`](crate::verify::verify) on [`SymmetricScheme::to_scheme`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymmetricScheme {
    shape: Shape,
    orbits: Vec<Orbit>,
}

/// True when `scheme` has a square shape and is invariant under the cyclic symmetry: its
/// non-zero terms, as a multiset, are mapped onto themselves by `sigma`.
pub fn is_c3_invariant(scheme: &Scheme) -> bool {
    crate::group::is_invariant(crate::group::Group::C3, scheme)
}

/// The shape if it is square.
fn square(shape: Shape) -> Result<Shape, SymmetryError> {
    if shape.is_square() {
        Ok(shape)
    } else {
        Err(SymmetryError::NotSquare { shape })
    }
}

impl SymmetricScheme {
    /// A scheme from its orbits; fails when the shape is not square, a factor has bits outside
    /// its matrix or an orbit is zero.
    pub fn new(shape: Shape, orbits: Vec<Orbit>) -> Result<SymmetricScheme, SymmetryError> {
        let shape = square(shape)?;
        for (i, o) in orbits.iter().enumerate() {
            FactorRangeError::check(shape, i, &o.representative())?;
            if o.is_zero() {
                return Err(SymmetryError::ZeroOrbit { orbit: i });
            }
        }
        Ok(SymmetricScheme { shape, orbits })
    }

    /// The standard algorithm as an invariant scheme: the term `e_ij (x) e_jk (x) e_ki` of
    /// `(i, j, k)` goes to that of `(j, k, i)` under `sigma`, so the fixed terms are the `n`
    /// terms `e_ii (x) e_ii (x) e_ii` and the other `n^3 - n` terms form triples. Orbits in
    /// the order of their representatives' `(i, j, k)`, each represented by its least
    /// rotation. Fails for a shape that is not square.
    pub fn naive(shape: Shape) -> Result<SymmetricScheme, SymmetryError> {
        let shape = square(shape)?;
        let n = shape.n();
        let e = |r: usize, c: usize| 1u64 << (r * n + c);
        let mut orbits = Vec::with_capacity(n + (n * n * n - n) / 3);
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    // The least of (i, j, k), (j, k, i), (k, i, j) represents the orbit.
                    if (i, j, k) <= (j, k, i) && (i, j, k) <= (k, i, j) {
                        orbits.push(Orbit::new(Term::new(e(i, j), e(j, k), e(k, i))));
                    }
                }
            }
        }
        Ok(SymmetricScheme { shape, orbits })
    }

    /// This scheme with fixed terms `x^3` for the factors `x` of `cubes` put in, the start of a
    /// search whose fixed terms are chosen up front (as Moosbauer and Poole's are, e.g. the
    /// identity matrix). Each `x^3` is added twice, which leaves the tensor as it was: once as
    /// the fixed term and once expanded into unit terms `e_u (x) e_v (x) e_w` (`u, v, w` bits of
    /// `x`) grouped into orbits; then equal orbits cancel in pairs (the others keep their
    /// order, new ones come after). Fails when a factor has bits outside the matrix.
    pub fn with_cubes(&self, cubes: &[Factor]) -> Result<SymmetricScheme, SymmetryError> {
        let n = self.shape.n();
        let mask: Factor = factor_mask(self.shape, Position::A);
        if let Some(i) = cubes.iter().position(|&x| x & !mask != 0) {
            let position = Position::A;
            return Err(FactorRangeError {
                term: i,
                position,
                rows: n,
                cols: n,
            }
            .into());
        }
        // Orbits by their least rotation, with the parity of their count.
        let mut order: Vec<Term> = Vec::new();
        let mut odd: BTreeMap<Term, bool> = BTreeMap::new();
        let mut toggle = |t: Term| {
            let key = (0..3).map(|k| rotate(t, k)).min().expect("three rotations");
            let parity = odd.entry(key).or_insert_with(|| {
                order.push(t);
                false
            });
            *parity = !*parity;
        };
        for o in &self.orbits {
            toggle(o.representative());
        }
        let bits = |x: Factor| (0..n * n).filter(move |b| x >> b & 1 == 1).map(|b| 1u64 << b);
        for &x in cubes.iter().filter(|&&x| x != 0) {
            toggle(Term::new(x, x, x));
            for u in bits(x) {
                for v in bits(x) {
                    for w in bits(x) {
                        // One term per orbit: the least of its rotations.
                        if (u, v, w) <= (v, w, u) && (u, v, w) <= (w, u, v) {
                            toggle(Term::new(u, v, w));
                        }
                    }
                }
            }
        }
        let key = |t: &Term| (0..3).map(|k| rotate(*t, k)).min().expect("three rotations");
        let orbits = order.into_iter().filter(|t| odd[&key(t)]).map(Orbit::new).collect();
        Ok(SymmetricScheme {
            shape: self.shape,
            orbits,
        })
    }

    /// The invariant scheme of `scheme`, whose terms are grouped into orbits: each term, in
    /// order, that no earlier orbit took starts an orbit, which takes the first free
    /// occurrences of its images. Zero terms are ignored. Fails when the shape is not square
    /// or a term's image is missing ([`SymmetryError::NotInvariant`] names the first such term).
    pub fn from_scheme(scheme: &Scheme) -> Result<SymmetricScheme, SymmetryError> {
        let shape = square(scheme.shape())?;
        // The indices of each term, largest first, so that `pop` gives the first free one.
        let mut free: BTreeMap<Term, Vec<usize>> = BTreeMap::new();
        for (i, t) in scheme.terms().iter().enumerate().rev() {
            if !t.is_zero() {
                free.entry(*t).or_default().push(i);
            }
        }
        let mut orbits = Vec::new();
        for (i, t) in scheme.terms().iter().enumerate() {
            let Some(first) = free.get_mut(t).and_then(|v| v.last().copied()) else {
                continue;
            };
            if first != i {
                // Taken by an earlier orbit.
                continue;
            }
            free.get_mut(t).map(Vec::pop);
            if !is_fixed(t) {
                for power in 1..3 {
                    let image = rotate(*t, power);
                    if free.get_mut(&image).and_then(Vec::pop).is_none() {
                        return Err(SymmetryError::NotInvariant {
                            term: i,
                            power: power as u8,
                            image,
                        });
                    }
                }
            }
            orbits.push(Orbit::new(*t));
        }
        Ok(SymmetricScheme { shape, orbits })
    }

    /// The plain scheme: each orbit's terms in turn (rank = `#fixed + 3 * #triples`).
    pub fn to_scheme(&self) -> Scheme {
        let terms = self.orbits.iter().flat_map(Orbit::terms).collect();
        Scheme::new(self.shape, terms).expect("orbits keep factors in range")
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The orbits.
    pub fn orbits(&self) -> &[Orbit] {
        &self.orbits
    }

    /// The rank of the plain scheme: `#fixed + 3 * #triples`.
    pub fn rank(&self) -> usize {
        self.orbits.iter().map(Orbit::size).sum()
    }

    /// The number of fixed terms.
    pub fn fixed_count(&self) -> usize {
        self.orbits.iter().filter(|o| o.kind() == OrbitKind::Fixed).count()
    }

    /// The number of triple orbits.
    pub fn triple_count(&self) -> usize {
        self.orbits.len() - self.fixed_count()
    }

    /// The term `at`, if its orbit exists.
    pub fn term(&self, at: OrbitTerm) -> Option<Term> {
        self.orbits.get(at.orbit).map(|o| o.term(at.rotation))
    }
}

impl TryFrom<&Scheme> for SymmetricScheme {
    type Error = SymmetryError;

    fn try_from(scheme: &Scheme) -> Result<SymmetricScheme, SymmetryError> {
        SymmetricScheme::from_scheme(scheme)
    }
}

impl From<&SymmetricScheme> for Scheme {
    fn from(s: &SymmetricScheme) -> Scheme {
        s.to_scheme()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{f2_tensor as tensor, verify};

    #[test]
    fn sigma_keeps_the_tensor_of_square_shapes() {
        for n in 1..=8 {
            let naive = Scheme::naive(Shape::square(n).unwrap());
            let rotated = naive.terms().iter().map(|&t| sigma(t)).collect();
            assert_eq!(verify(&Scheme::new(naive.shape(), rotated).unwrap()), Ok(()), "{n}");
        }
    }

    #[test]
    fn the_symmetric_naive_scheme_is_the_naive_scheme() {
        for n in 1..=8 {
            let shape = Shape::square(n).unwrap();
            let s = SymmetricScheme::naive(shape).unwrap();
            assert_eq!(s.fixed_count(), n);
            assert_eq!(s.triple_count(), (n * n * n - n) / 3);
            assert_eq!(s.rank(), n * n * n);
            let mut mine = s.to_scheme().into_terms();
            let mut plain = Scheme::naive(shape).into_terms();
            mine.sort_unstable();
            plain.sort_unstable();
            assert_eq!(mine, plain);
        }
    }

    #[test]
    fn the_cube_identity_holds() {
        // x^3 + y^3 + z^3 = orbit(x, y, z) for x + y + z = 0, on the 2x2 identity and e_12.
        let shape = Shape::square(2).unwrap();
        let (x, y) = (0b1001, 0b0010);
        let mut s = SymmetricScheme::new(shape, alloc::vec![Orbit::fixed(x), Orbit::fixed(y)]).unwrap();
        let before = tensor(&s.to_scheme());
        s.from_cubes(0, 1).unwrap();
        assert_eq!(s.rank(), 4);
        assert_eq!(tensor(&s.to_scheme()), before);
        s.to_cubes(0).unwrap();
        assert_eq!(s.rank(), 4);
        assert_eq!(s.reduce(), 2);
        assert_eq!(tensor(&s.to_scheme()), before);
    }
}
