//! Invariance of a scheme under a [`Group`], and its orbits.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::{Group, Reversal};
use crate::scheme::{Scheme, SchemeError};
use crate::shape::Shape;
use crate::term::Term;

/// Why a scheme has no orbits under a group, or orbits make no scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrbitsError {
    /// The group does not act on the shape (its rotation needs a square shape).
    #[error("the group {group} does not act on {shape}: its rotation needs a square shape")]
    NotActing {
        /// The group.
        group: Group,
        /// The shape.
        shape: Shape,
    },
    /// A term whose image has no term of its own left in the scheme.
    #[error(
        "the scheme is not invariant under {group}: term {term} has no image (no term a={:#x} b={:#x} c={:#x} left to match it)",
        .image.a, .image.b, .image.c
    )]
    NotInvariant {
        /// The group.
        group: Group,
        /// Index of the term in the scheme.
        term: usize,
        /// The missing image.
        image: Term,
    },
    /// A representative with bits outside its matrix (or a format too wide for its factors).
    #[error(transparent)]
    Scheme(#[from] SchemeError),
}

/// The orbits of a scheme invariant under a group: one representative per free orbit (the
/// walked part of a symmetric walk) and the terms of the other orbits (kept as they are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orbits {
    /// The group.
    pub group: Group,
    /// The shape.
    pub shape: Shape,
    /// One representative per free orbit.
    pub free: Vec<Term>,
    /// Every term of the orbits that are not free.
    pub fixed: Vec<Term>,
}

impl Orbits {
    /// The rank of the scheme: every term of every orbit.
    pub fn rank(&self) -> usize {
        self.fixed.len() + self.group.order() * self.free.len()
    }

    /// The scheme: each free orbit's images under every element, then the fixed terms. Fails
    /// when a representative has bits outside its matrix.
    pub fn to_scheme(&self) -> Result<Scheme, OrbitsError> {
        let reversal = Reversal::of(self.shape);
        let mut terms = Vec::with_capacity(self.rank());
        for &rep in &self.free {
            terms.extend(self.group.elements().map(|g| reversal.act(g, rep)));
        }
        terms.extend_from_slice(&self.fixed);
        Ok(Scheme::new(self.shape, terms)?)
    }
}

/// The terms of `scheme` as a multiset: each term with its count.
fn multiset(terms: &[Term]) -> BTreeMap<Term, usize> {
    let mut counts = BTreeMap::new();
    for &t in terms {
        *counts.entry(t).or_insert(0) += 1;
    }
    counts
}

fn acting(group: Group, shape: Shape) -> Result<Reversal, OrbitsError> {
    if group.acts_on(shape) {
        Ok(Reversal::of(shape))
    } else {
        Err(OrbitsError::NotActing { group, shape })
    }
}

/// Whether every element of `group` maps the non-zero terms of `scheme` (as a multiset) onto
/// themselves; false where the group does not act on the shape.
pub fn is_invariant(group: Group, scheme: &Scheme) -> bool {
    orbits(group, scheme).is_ok()
}

/// The groups `scheme` is invariant under, the trivial group first.
pub fn invariant_groups(scheme: &Scheme) -> Vec<Group> {
    Group::ALL.into_iter().filter(|&g| is_invariant(g, scheme)).collect()
}

/// The orbits of `scheme` under `group`: fails when the group does not act on its shape or the
/// scheme is not invariant. Zero terms (a zero factor: no contribution) are left out, as
/// `symmetry::SymmetricScheme` leaves them out. Representatives come in the order of their
/// first term in the scheme.
pub fn orbits(group: Group, scheme: &Scheme) -> Result<Orbits, OrbitsError> {
    let reversal = acting(group, scheme.shape())?;
    let nonzero: Vec<Term> = scheme.terms().iter().copied().filter(|t| !t.is_zero()).collect();
    let mut left = multiset(&nonzero);
    let mut out = Orbits {
        group,
        shape: scheme.shape(),
        free: Vec::new(),
        fixed: Vec::new(),
    };
    for (i, &t) in scheme.terms().iter().enumerate() {
        if t.is_zero() || left.get(&t).is_none_or(|&n| n == 0) {
            continue;
        }
        // The orbit's distinct terms: an invariant multiset holds each as often as `t`, so one
        // copy of each goes at a time.
        let mut images: Vec<Term> = group.elements().map(|g| reversal.act(g, t)).collect();
        images.sort();
        images.dedup();
        for &image in &images {
            match left.get_mut(&image) {
                Some(n) if *n > 0 => *n -= 1,
                _ => return Err(OrbitsError::NotInvariant { group, term: i, image }),
            }
        }
        if images.len() == group.order() {
            out.free.push(t);
        } else {
            out.fixed.extend_from_slice(&images);
        }
    }
    Ok(out)
}
