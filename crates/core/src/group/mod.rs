//! The symmetry groups a walk may keep: the cyclic symmetry of square shapes, the reversal of
//! every shape, and their product.
//!
//! Two maps act on the terms of `<n,m,p>` and keep the matrix multiplication tensor
//! `sum a_ij b_jk c_ki`:
//! - the **rotation** `sigma: a (x) b (x) c -> b (x) c (x) a`, for square shapes only (the
//!   three factors must have one layout; see [`crate::symmetry`]);
//! - the **reversal** `tau: (A, B, C) -> (Jn A Jm, Jm B Jp, Jp C Jn)`, `J` the anti-identity,
//!   for every shape. It sends the entry `(i, j, k)` to `(n-1-i, m-1-j, p-1-k)`; on a factor
//!   stored row-major it reverses the factor's bits ([`Reversal`]), so it costs one bit
//!   reversal and a shift per factor.
//!
//! Both are involutions or of order 3 and they commute, so they generate [`Group::Trivial`],
//! [`Group::C3`] (`sigma`), [`Group::Z2`] (`tau`) and [`Group::C6`] (`sigma` and `tau`: the
//! group of Moosbauer and Poole's 6x6x6 rank 153, whose run file says `SYMMETRY: 6`).
//! An [`Element`] is `sigma^rotation tau^reversed`.
//!
//! A scheme is invariant under a group when every element maps its terms (as a multiset) onto
//! themselves. Its terms then fall into orbits; an orbit whose representative no element but
//! the identity fixes is *free* (as many terms as the group has elements) and is what the
//! symmetric GPU walks move; the others (cubes `X (x) X (x) X` under `sigma`, terms equal to
//! their reversal under `tau`) stay as they are ([`orbits`]).

use crate::shape::Shape;
use crate::term::{Factor, Position, Term};

/// A group of symmetries of the matrix multiplication tensor (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// The identity alone: the plain flip graph.
    Trivial,
    /// The cyclic rotation of square shapes, order 3.
    C3,
    /// The reversal of every index, order 2; every shape.
    Z2,
    /// Rotation and reversal (C3 x Z2, cyclic of order 6); square shapes.
    C6,
}

impl Group {
    /// Every group, smallest first.
    pub const ALL: [Group; 4] = [Group::Trivial, Group::C3, Group::Z2, Group::C6];

    /// The command-line name: `none`, `c3`, `z2`, `c6`.
    pub const fn name(self) -> &'static str {
        match self {
            Group::Trivial => "none",
            Group::C3 => "c3",
            Group::Z2 => "z2",
            Group::C6 => "c6",
        }
    }

    /// The name as the literature writes it: `trivial`, `C3`, `Z2`, `C6`.
    pub const fn label(self) -> &'static str {
        match self {
            Group::Trivial => "trivial",
            Group::C3 => "C3",
            Group::Z2 => "Z2",
            Group::C6 => "C6",
        }
    }

    /// The group named `name` ([`Group::name`]).
    pub fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.name() == name)
    }

    /// The group of index `i` in [`Group::ALL`] (the kernels' constant parameter).
    pub const fn from_index(i: u8) -> Group {
        match i {
            0 => Group::Trivial,
            1 => Group::C3,
            2 => Group::Z2,
            _ => Group::C6,
        }
    }

    /// The index of this group in [`Group::ALL`].
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Whether the rotation `sigma` is in the group.
    pub const fn rotates(self) -> bool {
        matches!(self, Group::C3 | Group::C6)
    }

    /// Whether the reversal `tau` is in the group.
    pub const fn reverses(self) -> bool {
        matches!(self, Group::Z2 | Group::C6)
    }

    /// The number of elements: the terms of a free orbit.
    pub const fn order(self) -> usize {
        (if self.rotates() { 3 } else { 1 }) * (if self.reverses() { 2 } else { 1 })
    }

    /// Whether the group acts on the terms of `shape` (the rotation needs a square shape).
    pub const fn acts_on(self, shape: Shape) -> bool {
        !self.rotates() || shape.is_square()
    }

    /// The elements, the identity first.
    pub fn elements(self) -> impl Iterator<Item = Element> {
        let rotations = if self.rotates() { 3 } else { 1 };
        let reversals = if self.reverses() { 2 } else { 1 };
        (0..reversals).flat_map(move |r| (0..rotations).map(move |k| Element::new(k, r == 1)))
    }
}

impl core::fmt::Display for Group {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// `sigma^rotation tau^reversed`, an element of a [`Group`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Element {
    /// 0, 1 or 2: how often `sigma` is applied.
    pub rotation: u8,
    /// Whether `tau` is applied.
    pub reversed: bool,
}

impl Element {
    /// The identity.
    pub const IDENTITY: Element = Element::new(0, false);

    /// `sigma^rotation tau^reversed` (`rotation` taken mod 3).
    pub const fn new(rotation: u8, reversed: bool) -> Element {
        Element {
            rotation: rotation % 3,
            reversed,
        }
    }

    /// The element packed in 3 bits (rotation, then the reversal in bit 2): the kernels'
    /// offers and the move log carry it so.
    pub const fn bits(self) -> u32 {
        self.rotation as u32 | (self.reversed as u32) << 2
    }

    /// The element of [`Element::bits`].
    pub const fn from_bits(bits: u32) -> Element {
        Element::new((bits & 3) as u8 % 3, bits & 4 != 0)
    }

    /// The position whose factor comes first in the image: `sigma^k` brings factor `k` first.
    pub const fn position(self) -> Position {
        Position::from_index(self.rotation as usize)
    }
}

/// The reversal `tau` on the factors of one shape: the bit widths of its factors A (`n*m`),
/// B (`m*p`) and C (`p*n`), since a factor stored row-major is reversed by reversing its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reversal {
    widths: [u32; 3],
}

impl Reversal {
    /// The reversal of the factors of `shape`.
    pub const fn of(shape: Shape) -> Reversal {
        Reversal {
            widths: [
                shape.factor_bits(Position::A) as u32,
                shape.factor_bits(Position::B) as u32,
                shape.factor_bits(Position::C) as u32,
            ],
        }
    }

    /// A reversal from the widths of factors A, B and C (each 1 to 64; a kernel's copy of
    /// [`Reversal::widths`]).
    pub const fn from_widths(widths: [u32; 3]) -> Reversal {
        Reversal { widths }
    }

    /// The bit widths of factors A, B and C.
    pub const fn widths(self) -> [u32; 3] {
        self.widths
    }

    /// `f` at position `pos` reversed.
    #[inline(always)]
    pub const fn factor(self, pos: Position, f: Factor) -> Factor {
        let width = self.widths[pos.index()];
        if width == 0 {
            0
        } else {
            f.reverse_bits() >> (64 - width)
        }
    }

    /// `tau t`.
    #[inline(always)]
    pub const fn term(self, t: Term) -> Term {
        Term::new(
            self.factor(Position::A, t.a),
            self.factor(Position::B, t.b),
            self.factor(Position::C, t.c),
        )
    }

    /// `g t`: `t` reversed if `g` reverses, then rotated so that its factor `g.rotation` comes
    /// first (the rotation only where the group has it: square shapes).
    #[inline(always)]
    pub fn act(self, g: Element, t: Term) -> Term {
        let t = if g.reversed { self.term(t) } else { t };
        t.rotated(g.position())
    }

    /// Whether no element of `group` but the identity fixes `t`: its orbit is free (as many
    /// terms as the group has elements).
    pub fn is_free(self, group: Group, t: Term) -> bool {
        !group.elements().skip(1).any(|g| self.act(g, t) == t)
    }
}

#[cfg(feature = "alloc")]
mod orbits;
#[cfg(feature = "alloc")]
pub use orbits::{invariant_groups, is_invariant, orbits, Orbits, OrbitsError};
