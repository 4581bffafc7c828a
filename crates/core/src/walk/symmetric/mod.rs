//! The random walk on the flip graph of invariant schemes, for every [`Group`]:
//! [`SymmetricWalker`], the counterpart of [`crate::walk::Walker`] with the same methods and
//! meanings. One walk serves every group (`orbit_walk`): the group's [`Action`] says how an
//! orbit's factors are keyed and how a moved term goes back to its representative, so a new
//! group needs no walker of its own.
//!
//! Each step picks a group of two or more orbit factors that share a key, and flips the two
//! orbits' terms that share the factor, with all their images (a pair within one orbit is a
//! step that moves nothing; see the module docs of [`crate::symmetry`]). Ranks are those of
//! the plain scheme.
//!
//! With [`FixedTerms::Frozen`] the terms of the orbits that are not free stay as they are
//! (Moosbauer and Poole's search keeps the cubes it starts from): only the free orbits move,
//! and no move that would make one of them not free is taken. Only C3 walks may change their
//! fixed terms ([`FixedTerms::Free`]: triples settle to cubes, equal cubes cancel, cube
//! reductions); the other groups' walks keep them frozen, as the GPU kernels do.

mod orbit_walk;

use alloc::vec::Vec;

use crate::counters::Counters;
use crate::group::{Action, Group, Orbits};
use crate::scheme::Scheme;
use crate::shape::Shape;
use crate::symmetry::{FixedTerms, Orbit, SymmetricScheme, SymmetryError};
use crate::term::Term;
use crate::walk::WalkConfig;
use orbit_walk::OrbitWalk;

/// A walker on the schemes invariant under one group: free orbits, fixed terms, their index, a
/// random stream and counters. [`SymmetricWalker::scheme`] and [`SymmetricWalker::best`] give
/// plain schemes.
#[derive(Clone, Debug)]
pub struct SymmetricWalker {
    walk: Tables,
}

/// The walk of each group, with the index it needs: one table with the rotation, three
/// without.
#[derive(Clone, Debug)]
enum Tables {
    Trivial(OrbitWalk<3, 0>),
    C3(OrbitWalk<1, 1>),
    Z2(OrbitWalk<3, 2>),
    C6(OrbitWalk<1, 3>),
}

/// Runs `$body` on the walk, whichever its group.
macro_rules! on_walk {
    ($self:expr, $w:ident => $body:expr) => {
        match $self {
            Tables::Trivial($w) => $body,
            Tables::C3($w) => $body,
            Tables::Z2($w) => $body,
            Tables::C6($w) => $body,
        }
    };
}

impl SymmetricWalker {
    /// A C3 walker on `scheme` (reductions it allows are taken at once; the best scheme starts
    /// as `scheme`).
    pub fn new(scheme: &SymmetricScheme, config: WalkConfig, seed: u64) -> SymmetricWalker {
        SymmetricWalker::with_fixed_terms(scheme, config, seed, FixedTerms::Free)
    }

    /// A C3 walker on `scheme` that changes its fixed terms or not, as `fixed_terms` says.
    /// Equal fixed terms of `scheme` cancel at once either way; the others are those kept
    /// frozen.
    pub fn with_fixed_terms(
        scheme: &SymmetricScheme,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> SymmetricWalker {
        let (fixed, free): (Vec<Term>, Vec<Term>) = scheme
            .orbits()
            .iter()
            .filter(|o| !o.is_zero())
            .map(Orbit::representative)
            .partition(Term::is_cube);
        let orbits = Orbits {
            group: Group::C3,
            shape: scheme.shape(),
            free,
            fixed,
        };
        SymmetricWalker::from_orbits(&orbits, config, seed, fixed_terms)
    }

    /// A C3 walker on the invariant scheme of `scheme` ([`SymmetricScheme::from_scheme`]).
    pub fn from_scheme(scheme: &Scheme, config: WalkConfig, seed: u64) -> Result<SymmetricWalker, SymmetryError> {
        Ok(SymmetricWalker::new(
            &SymmetricScheme::from_scheme(scheme)?,
            config,
            seed,
        ))
    }

    /// A walker on `orbits` under their group ([`crate::group::orbits`] finds them in a
    /// scheme). `fixed_terms` applies to C3; every other group keeps its fixed terms frozen.
    /// The trivial group walks plain schemes, without sparse walks and about 1.6 times slower
    /// than the plain [`crate::walk::Walker`] (its work lists and in-place updates are for
    /// terms, not orbits), which the engines use for plain walks.
    pub fn from_orbits(orbits: &Orbits, config: WalkConfig, seed: u64, fixed_terms: FixedTerms) -> SymmetricWalker {
        let (group, shape) = (orbits.group, orbits.shape);
        let action = Action::new(group, shape).expect("orbits exist only where their group acts");
        let parts = (&orbits.free[..], &orbits.fixed[..]);
        let walk = match group {
            Group::Trivial => Tables::Trivial(OrbitWalk::new(action, shape, parts, config, seed, fixed_terms)),
            Group::C3 => Tables::C3(OrbitWalk::new(action, shape, parts, config, seed, fixed_terms)),
            Group::Z2 => Tables::Z2(OrbitWalk::new(action, shape, parts, config, seed, fixed_terms)),
            Group::C6 => Tables::C6(OrbitWalk::new(action, shape, parts, config, seed, fixed_terms)),
        };
        SymmetricWalker { walk }
    }

    /// The group whose invariant schemes the walker walks.
    pub fn group(&self) -> Group {
        on_walk!(&self.walk, w => w.group())
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        on_walk!(&self.walk, w => w.shape())
    }

    /// The current rank of the plain scheme: the fixed terms and every term of every free orbit.
    pub fn rank(&self) -> usize {
        on_walk!(&self.walk, w => w.rank())
    }

    /// The counters so far (reductions count terms of the plain scheme, net).
    pub fn counters(&self) -> Counters {
        on_walk!(&self.walk, w => w.counters())
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        on_walk!(&self.walk, w => w.plateau_limit())
    }

    /// The lowest rank this walker has reached.
    pub fn best_rank(&self) -> usize {
        on_walk!(&self.walk, w => w.best_rank())
    }

    /// One step: an orbit flip (with the reductions it allows) or, on a plateau, an orbit plus
    /// move. Returns true when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        on_walk!(&mut self.walk, w => w.step())
    }

    /// Takes `steps` steps, or fewer when the rank reaches `target`; returns the steps taken
    /// ([`crate::walk::Walk::walk`], with one dispatch per call rather than one per step).
    pub fn walk(&mut self, steps: u64, target: usize) -> u64 {
        on_walk!(&mut self.walk, w => w.walk(steps, target))
    }

    /// The current orbits.
    pub fn orbits(&self) -> Orbits {
        let (free, fixed) = on_walk!(&self.walk, w => w.orbits());
        self.orbits_of(free, fixed)
    }

    /// The orbits of the first scheme of the lowest rank this walker has reached.
    pub fn best_orbits(&self) -> Orbits {
        let (free, fixed) = on_walk!(&self.walk, w => w.best_orbits());
        self.orbits_of(free, fixed)
    }

    fn orbits_of(&self, free: Vec<Term>, fixed: Vec<Term>) -> Orbits {
        Orbits {
            group: self.group(),
            shape: self.shape(),
            free,
            fixed,
        }
    }

    /// The current scheme, expanded to a plain scheme (fixed terms, then each free orbit's
    /// terms in the order of [`Group::elements`]).
    pub fn scheme(&self) -> Scheme {
        expand(&self.orbits())
    }

    /// The first scheme of the lowest rank this walker has reached, expanded.
    pub fn best(&self) -> Scheme {
        expand(&self.best_orbits())
    }

    /// The current scheme as C3 orbits (fixed terms first); `None` for other groups.
    pub fn symmetric_scheme(&self) -> Option<SymmetricScheme> {
        c3_scheme(&self.orbits())
    }

    /// The best scheme as C3 orbits; `None` for other groups.
    pub fn best_symmetric(&self) -> Option<SymmetricScheme> {
        c3_scheme(&self.best_orbits())
    }

    /// Checks every invariant of the orbits and the index, and that the expanded scheme is
    /// invariant; panics with the broken one. For tests: quadratic in the rank.
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        on_walk!(&self.walk, w => w.check_invariants());
        let plain = self.scheme();
        assert_eq!(plain.rank(), self.rank());
        assert!(
            crate::group::is_invariant(self.group(), &plain),
            "the expanded scheme is not {}-invariant",
            self.group()
        );
    }
}

crate::walk::walk_by_inherent_methods!(SymmetricWalker, walk);

/// The plain scheme of `orbits`: the fixed terms, then each free orbit's images.
fn expand(orbits: &Orbits) -> Scheme {
    let action = Action::new(orbits.group, orbits.shape).expect("the walk's group acts");
    let mut terms = orbits.fixed.clone();
    for rep in &orbits.free {
        terms.extend(orbits.group.elements().map(|g| action.term(g, [rep.a, rep.b, rep.c])));
    }
    Scheme::new(orbits.shape, terms).expect("the walk keeps its factors in range")
}

/// `orbits` as a [`SymmetricScheme`], fixed terms first, if their group is C3.
fn c3_scheme(orbits: &Orbits) -> Option<SymmetricScheme> {
    (orbits.group == Group::C3).then(|| {
        let fixed = orbits.fixed.iter().map(|t| Orbit::fixed(t.a));
        let all = fixed.chain(orbits.free.iter().map(|&t| Orbit::new(t))).collect();
        SymmetricScheme::new(orbits.shape, all).expect("the walk keeps orbits valid")
    })
}

#[cfg(test)]
mod tests;
