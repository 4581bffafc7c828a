//! Factors and rank-one terms, bit-packed.

use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{BitAnd, BitOr, BitXor, BitXorAssign, Not, Shl, Shr};

use bytemuck::{Pod, Zeroable};

/// One factor matrix over F2 as a bit mask: bit `r*cols + c` is entry `[r][c]`
/// (see [`Shape::a_bit`](crate::Shape::a_bit) and its siblings for each position). This is
/// the width of every format up to 8x8x8, which the engines walk; see [`FactorBits`] for the
/// wider factors of larger formats.
pub type Factor = u64;

/// The integer that holds one factor's bit mask: `u64` for every matrix of up to 64 entries
/// (every format up to 8x8x8), `u128` for up to 128 (9x9x9, 10x10x10, 4x5x12, 8x8x16, ...).
///
/// Terms and schemes are generic over it, with `u64` as the default, so that code written for
/// 64-bit factors compiles as it did, and a wide format pays for its width only.
pub trait FactorBits:
    Copy
    + Default
    + Debug
    + Eq
    + Ord
    + Hash
    + Pod
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitXorAssign
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
    + 'static
{
    /// Bits in one factor.
    const BITS: usize;
    /// The empty factor.
    const ZERO: Self;
    /// The factor with only bit 0.
    const ONE: Self;

    /// Set bits.
    fn count_ones(self) -> u32;
    /// The index of the lowest set bit (`BITS` for zero).
    fn trailing_zeros(self) -> u32;
    /// The factor without its lowest set bit.
    fn clear_lowest(self) -> Self;

    /// The factor with only bit `i` (`i < BITS`).
    #[inline(always)]
    fn bit(i: usize) -> Self {
        Self::ONE << i
    }

    /// The factor with bits `0..bits` set (`bits <= BITS`).
    #[inline(always)]
    fn low_mask(bits: usize) -> Self {
        if bits >= Self::BITS {
            !Self::ZERO
        } else {
            !(!Self::ZERO << bits)
        }
    }

    /// Whether any of three factors is zero (a term that is the zero tensor). Written per
    /// width on the integers themselves, so that the kernels' 64-bit code is what it was before
    /// terms were generic.
    fn any_zero(a: Self, b: Self, c: Self) -> bool;

    /// The index of the highest set bit (`self` is not zero): a basis's pivot.
    fn leading_bit(self) -> usize;
    /// The bits in reverse order.
    fn reverse_bits(self) -> Self;
    /// The bits as a `u128`.
    fn to_u128(self) -> u128;
    /// The factor of the low `BITS` bits of `bits`.
    fn from_u128(bits: u128) -> Self;
    /// 64 bits that differ for factors that differ in few bits (the identity for `u64`): what a
    /// walk's hash table of factors hashes.
    fn fold64(self) -> u64;

    /// Whether bit `i` is set.
    #[inline(always)]
    fn test(self, i: usize) -> bool {
        (self >> i) & Self::ONE != Self::ZERO
    }
}

macro_rules! factor_bits {
    ($($t:ty),*) => {$(
        impl FactorBits for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: $t = 0;
            const ONE: $t = 1;

            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }

            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }

            #[inline(always)]
            fn clear_lowest(self) -> $t {
                self & self.wrapping_sub(1)
            }

            #[inline(always)]
            fn any_zero(a: $t, b: $t, c: $t) -> bool {
                a == 0 || b == 0 || c == 0
            }

            #[inline(always)]
            fn leading_bit(self) -> usize {
                (<$t>::BITS - 1 - self.leading_zeros()) as usize
            }

            #[inline(always)]
            fn reverse_bits(self) -> $t {
                <$t>::reverse_bits(self)
            }

            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }

            #[inline(always)]
            fn from_u128(bits: u128) -> $t {
                bits as $t
            }

            #[inline(always)]
            fn fold64(self) -> u64 {
                // The high half (none for u64) rotated, so that a factor and its halves
                // swapped do not collide.
                (self as u64) ^ (((self >> 32) >> 32) as u64).rotate_left(29)
            }
        }
    )*};
}

factor_bits!(u64, u128);

/// A term with factors of up to 128 bits, for formats beyond 8x8x8.
pub type WideTerm = Term<u128>;

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
/// Layout (`#[repr(C)]`, [`Pod`]): the factors `a`, `b`, `c` in this order (24 bytes for the
/// default `u64` factors), so a slice of terms can be uploaded to a GPU as is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C)]
pub struct Term<F: FactorBits = Factor> {
    /// Factor A (n x m).
    pub a: F,
    /// Factor B (m x p).
    pub b: F,
    /// Factor C, transposed (p x n).
    pub c: F,
}

// SAFETY: `repr(C)` with three fields of one `Pod` type: no padding, every bit pattern valid.
unsafe impl<F: FactorBits> Zeroable for Term<F> {}
// SAFETY: as above.
unsafe impl<F: FactorBits> Pod for Term<F> {}

impl Term {
    /// The term `a (x) b (x) c` of 64-bit factors.
    pub const fn new(a: Factor, b: Factor, c: Factor) -> Term {
        Term { a, b, c }
    }
}

impl<F: FactorBits> Term<F> {
    /// The term `a (x) b (x) c` of any width (for 64-bit factors, [`Term::new`] needs no
    /// annotation on literals).
    pub const fn from_factors(a: F, b: F, c: F) -> Term<F> {
        Term { a, b, c }
    }

    /// The same term with factors of `G`: exact where the format fits `G`, which callers check
    /// first ([`crate::Scheme::to_width`] does).
    pub fn to_width<G: FactorBits>(&self) -> Term<G> {
        let factor = |f: F| G::from_u128(f.to_u128());
        Term::from_factors(factor(self.a), factor(self.b), factor(self.c))
    }

    /// The factor at `pos`. On a CPU an indexed load (no branch on the position); on a GPU a
    /// select by value, since an index into a term held in registers would force it into
    /// local memory.
    #[inline(always)]
    pub fn get(&self, pos: Position) -> F {
        if cfg!(target_arch = "nvptx64") {
            match pos {
                Position::A => self.a,
                Position::B => self.b,
                Position::C => self.c,
            }
        } else {
            bytemuck::cast_ref::<Term<F>, [F; 3]>(self)[pos as usize]
        }
    }

    /// Sets the factor at `pos`: an indexed store on a CPU, a store by value on a GPU (as in
    /// [`Term::get`]).
    #[inline(always)]
    pub fn set(&mut self, pos: Position, value: F) {
        if cfg!(target_arch = "nvptx64") {
            match pos {
                Position::A => self.a = value,
                Position::B => self.b = value,
                Position::C => self.c = value,
            }
        } else {
            bytemuck::cast_mut::<Term<F>, [F; 3]>(self)[pos as usize] = value;
        }
    }

    /// The factors as `[a, b, c]`.
    pub const fn factors(&self) -> [F; 3] {
        [self.a, self.b, self.c]
    }

    /// The term seen from `pos`: its factors rotated so that the one at `pos` comes first,
    /// `(t[pos], t[pos.next()], t[pos.prev()])`. The rotation keeps the cyclic order of the
    /// positions, so a move at `pos` is the same move at `A` on rotated terms; the GPU kernel
    /// reads terms rotated (by address) and so flips without selecting factors by position.
    #[inline(always)]
    pub fn rotated(&self, pos: Position) -> Term<F> {
        Term::from_factors(self.get(pos), self.get(pos.next()), self.get(pos.prev()))
    }

    /// True for a cube `X (x) X (x) X`: all three factors equal (for a square shape, a term
    /// the cyclic symmetry fixes; see `symmetry`).
    #[inline(always)]
    pub fn is_cube(&self) -> bool {
        self.a == self.b && self.b == self.c
    }

    /// A rank-one term is the zero tensor when any factor is zero.
    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        F::any_zero(self.a, self.b, self.c)
    }
}
