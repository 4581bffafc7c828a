//! Factors and rank-one terms, bit-packed.

use bytemuck::{Pod, Zeroable};

/// One factor matrix over F2 as a bit mask: bit `r*cols + c` is entry `[r][c]`
/// (see [`Shape::a_bit`](crate::Shape::a_bit) and its siblings for each position).
pub type Factor = u64;

/// Which of the three factors of a term: `A` (n x m), `B` (m x p) or `C` (C transposed, p x n).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Position {
    /// The factor of the left matrix.
    A = 0,
    /// The factor of the right matrix.
    B = 1,
    /// The factor of the (transposed) product.
    C = 2,
}

impl Position {
    /// The three positions in order.
    pub const ALL: [Position; 3] = [Position::A, Position::B, Position::C];

    /// The position with index `i % 3`.
    pub const fn from_index(i: usize) -> Position {
        match i % 3 {
            0 => Position::A,
            1 => Position::B,
            _ => Position::C,
        }
    }

    /// 0, 1 or 2.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The cyclically next position (A to B, B to C, C to A).
    pub const fn next(self) -> Position {
        // On a CPU a match rather than `from_index` (no remainder on the walk's hot path); the
        // GPU kernel's register allocation happens to be better with the remainder.
        if cfg!(target_arch = "nvptx64") {
            return Position::from_index(self.index() + 1);
        }
        match self {
            Position::A => Position::B,
            Position::B => Position::C,
            Position::C => Position::A,
        }
    }

    /// The cyclically previous position (A to C).
    pub const fn prev(self) -> Position {
        if cfg!(target_arch = "nvptx64") {
            return Position::from_index(self.index() + 2);
        }
        self.next().next()
    }

    /// The letter used by the letter format: `a`, `b` or `c`.
    pub const fn letter(self) -> char {
        match self {
            Position::A => 'a',
            Position::B => 'b',
            Position::C => 'c',
        }
    }
}

/// A rank-one term `a (x) b (x) c` over F2.
///
/// Layout (`#[repr(C)]`, 24 bytes, [`Pod`]): the factors `a`, `b`, `c` as three `u64` in this
/// order, so a slice of terms can be uploaded to a GPU as is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
#[repr(C)]
pub struct Term {
    /// Factor A (n x m).
    pub a: Factor,
    /// Factor B (m x p).
    pub b: Factor,
    /// Factor C, transposed (p x n).
    pub c: Factor,
}

impl Term {
    /// The term `a (x) b (x) c`.
    pub const fn new(a: Factor, b: Factor, c: Factor) -> Term {
        Term { a, b, c }
    }

    /// The factor at `pos`. On a CPU an indexed load (no branch on the position); on a GPU a
    /// select by value, since an index into a term held in registers would force it into
    /// local memory.
    #[inline(always)]
    pub fn get(&self, pos: Position) -> Factor {
        if cfg!(target_arch = "nvptx64") {
            match pos {
                Position::A => self.a,
                Position::B => self.b,
                Position::C => self.c,
            }
        } else {
            bytemuck::cast_ref::<Term, [Factor; 3]>(self)[pos as usize]
        }
    }

    /// Sets the factor at `pos`: an indexed store on a CPU, a store by value on a GPU (as in
    /// [`Term::get`]).
    #[inline(always)]
    pub fn set(&mut self, pos: Position, value: Factor) {
        if cfg!(target_arch = "nvptx64") {
            match pos {
                Position::A => self.a = value,
                Position::B => self.b = value,
                Position::C => self.c = value,
            }
        } else {
            bytemuck::cast_mut::<Term, [Factor; 3]>(self)[pos as usize] = value;
        }
    }

    /// The factors as `[a, b, c]`.
    pub const fn factors(&self) -> [Factor; 3] {
        [self.a, self.b, self.c]
    }

    /// The term seen from `pos`: its factors rotated so that the one at `pos` comes first,
    /// `(t[pos], t[pos.next()], t[pos.prev()])`. The rotation keeps the cyclic order of the
    /// positions, so a move at `pos` is the same move at `A` on rotated terms; the GPU kernel
    /// reads terms rotated (by address) and so flips without selecting factors by position.
    #[inline(always)]
    pub fn rotated(&self, pos: Position) -> Term {
        Term::new(self.get(pos), self.get(pos.next()), self.get(pos.prev()))
    }

    /// True for a cube `X (x) X (x) X`: all three factors equal (for a square shape, a term
    /// the cyclic symmetry fixes; see `symmetry`).
    #[inline(always)]
    pub const fn is_cube(&self) -> bool {
        self.a == self.b && self.b == self.c
    }

    /// A rank-one term is the zero tensor when any factor is zero.
    #[inline(always)]
    pub const fn is_zero(&self) -> bool {
        self.a == 0 || self.b == 0 || self.c == 0
    }
}
