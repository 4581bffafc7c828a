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
use crate::term::{Factor, FactorBits, Position, Term};

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
    pub fn factor<F: FactorBits>(self, pos: Position, f: F) -> F {
        let width = self.widths[pos.index()] as usize;
        if width == 0 {
            F::ZERO
        } else {
            f.reverse_bits() >> (F::BITS - width)
        }
    }

    /// `tau t`.
    #[inline(always)]
    pub fn term<F: FactorBits>(self, t: Term<F>) -> Term<F> {
        Term::from_factors(
            self.factor(Position::A, t.a),
            self.factor(Position::B, t.b),
            self.factor(Position::C, t.c),
        )
    }

    /// `g t`: `t` reversed if `g` reverses, then rotated so that its factor `g.rotation` comes
    /// first (the rotation only where the group has it: square shapes).
    #[inline(always)]
    pub fn act<F: FactorBits>(self, g: Element, t: Term<F>) -> Term<F> {
        let t = if g.reversed { self.term(t) } else { t };
        t.rotated(g.position())
    }

    /// Whether no element of `group` but the identity fixes `t`: its orbit is free (as many
    /// terms as the group has elements).
    pub fn is_free(self, group: Group, t: Term) -> bool {
        !group.elements().skip(1).any(|g| self.act(g, t) == t)
    }
}

/// The next factor index, mod 3.
const NEXT: [usize; 3] = [1, 2, 0];
/// The previous factor index, mod 3.
const PREV: [usize; 3] = [2, 0, 1];

/// A group acting on the terms of one shape, as a walk of invariant schemes asks of it: the
/// key under which two orbits share a factor, the term of an orbit that shows that factor at
/// the move's position, the way back from a moved term to its representative, and freeness.
///
/// Every orbit move is taken between one term of each orbit. With the rotation in the group,
/// every factor of a representative reaches position A in some term, so all moves are taken
/// at A; without it, at the factor's own position. With the reversal, a factor `f` and its
/// reversal `tau f` appear at the same position in two terms of the orbit, so an orbit is
/// indexed under the smaller of the two ([`Action::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    group: Group,
    reversal: Reversal,
}

impl Action {
    /// `group` acting on the terms of `shape`, if it acts there ([`Group::acts_on`]).
    pub const fn new(group: Group, shape: Shape) -> Option<Action> {
        if group.acts_on(shape) {
            Some(Action {
                group,
                reversal: Reversal::of(shape),
            })
        } else {
            None
        }
    }

    /// The group.
    pub const fn group(self) -> Group {
        self.group
    }

    /// The same action with its group given again: a walk generic over the group passes its
    /// constant, so that every test of the group folds away.
    #[inline(always)]
    #[cfg(feature = "alloc")]
    pub(crate) const fn with_group(self, group: Group) -> Action {
        Action { group, ..self }
    }

    /// The key of factor `k` (0, 1 or 2) of a representative with value `f`: `f`, or the
    /// smaller of `f` and its reversal when the group reverses.
    #[inline(always)]
    pub fn key(self, k: usize, f: Factor) -> Factor {
        if !self.group.reverses() {
            return f;
        }
        let r = self.reversal.factor(Position::from_index(k), f);
        if r < f {
            r
        } else {
            f
        }
    }

    /// The element whose image of a representative `rep` shows factor `k`'s key at the
    /// position of the move ([`Action::position`]).
    #[inline(always)]
    pub fn element(self, k: usize, rep: [Factor; 3]) -> Element {
        let reversed = self.group.reverses() && self.key(k, rep[k]) != rep[k];
        Element::new(if self.group.rotates() { k as u8 } else { 0 }, reversed)
    }

    /// The position at which moves on factor `k`'s key are taken: A with the rotation, else
    /// `k`'s own.
    #[inline(always)]
    pub const fn position(self, k: usize) -> Position {
        if self.group.rotates() {
            Position::A
        } else {
            Position::from_index(k)
        }
    }

    /// `g` applied to the term of representative `rep`.
    #[inline(always)]
    pub fn term(self, g: Element, rep: [Factor; 3]) -> Term {
        let f = if g.reversed { self.reversed(rep) } else { rep };
        // By table rather than `Term::rotated`: the rotation is random from step to step, and
        // a branch on it is mispredicted (the C3 walk ran at half speed).
        let k = g.rotation as usize % 3;
        Term::new(f[k], f[NEXT[k]], f[PREV[k]])
    }

    /// The representative whose image under `g` is `t`: `g^-1 t`, by factor.
    #[inline(always)]
    pub fn representative(self, g: Element, t: Term) -> [Factor; 3] {
        let k = g.rotation as usize % 3;
        let mut rep = [0; 3];
        rep[k] = t.a;
        rep[NEXT[k]] = t.b;
        rep[PREV[k]] = t.c;
        if g.reversed {
            self.reversed(rep)
        } else {
            rep
        }
    }

    /// Where a factor `f` at position `pos` of a representative's image under `g` comes from:
    /// the factor index in the representative, and its value there.
    #[inline(always)]
    pub fn factor_at(self, g: Element, pos: Position, f: Factor) -> (usize, Factor) {
        let k = (g.rotation as usize + pos.index()) % 3;
        let f = if g.reversed {
            self.reversal.factor(Position::from_index(k), f)
        } else {
            f
        };
        (k, f)
    }

    /// The factors of a representative, each reversed (`tau` on its term).
    #[inline(always)]
    fn reversed(self, f: [Factor; 3]) -> [Factor; 3] {
        let t = self.reversal.term(Term::new(f[0], f[1], f[2]));
        [t.a, t.b, t.c]
    }

    /// Whether no element but the identity fixes `t` (as [`Reversal::is_free`], without going
    /// through the elements): a rotation fixes only `X (x) X (x) X`, and an element with the
    /// reversal fixes `t` only when `tau` does or all three factors are equal.
    #[inline(always)]
    pub fn is_free(self, t: Term) -> bool {
        let cube = t.a == t.b && t.b == t.c;
        !(self.group.rotates() && cube) && !(self.group.reverses() && self.reversal.term(t) == t)
    }
}

#[cfg(feature = "alloc")]
mod orbits;
#[cfg(feature = "alloc")]
pub use orbits::{invariant_groups, is_invariant, orbits, Orbits, OrbitsError};
