//! Lifting an F2 scheme to the integers (Hensel lifting).
//!
//! A scheme valid mod `2^k` becomes one valid mod `2^(k+1)` by adding `2^k d` to its
//! coefficients, where `d` solves a linear system over F2: `J d = (T - F(x)) / 2^k (mod 2)`,
//! with `J` the Jacobian of the trilinear map at the scheme mod 2 (the same matrix at every level).
//!
//! [`lift`] first looks for a lift with coefficients in {-1, 0, 1} on the scheme's own support
//! (signs only: one level decides them), trying the solution space's vectors at random; then it
//! checks the full system mod 4, whose inconsistency proves that no lift exists at all; then it
//! lifts the full system to `2^bits` and reads the coefficients as small signed integers.

use alloc::vec;
use alloc::vec::Vec;

use crate::rng::WyRand;
use crate::scheme::{IntScheme, Scheme};
use crate::term::{FactorBits, Position};
use crate::verify::{expected, verify_z};

/// Why no lift was returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiftError {
    /// The scheme is not valid over F2 to begin with.
    #[error("the scheme is not valid over F2")]
    Invalid,
    /// [`lift_signs`] found no signs on the scheme's support that make it valid over Z.
    #[error(
        "no signs on its support make it valid over Z ({tries} sign vectors tried, or none solves the system mod 4)"
    )]
    NoSigns {
        /// The sign vectors tried at most.
        tries: usize,
    },
    /// The linear system mod 4 has no solution: no integer scheme reduces to this one mod 2.
    #[error("no lift exists: the scheme does not even lift mod 4 (its linear system over F2 is inconsistent)")]
    NoLift,
    /// Lifts exist mod `2^bits`, but none read as small integers valid over Z was found.
    #[error("lifts exist mod 2^{bits}, but no integer scheme with small coefficients was found from them")]
    NotFound {
        /// The highest power of two lifted to.
        bits: u32,
    },
    /// No lift on the scheme's support was found, and the general system is too large to
    /// hold ([`MAX_SYSTEM_BYTES`]): not tried.
    #[error("no lift with signs on the scheme's support; the general system would take {} MiB (more than {} MiB), so it was not tried", bytes >> 20, MAX_SYSTEM_BYTES >> 20)]
    TooLarge {
        /// The bytes the general system's matrix would take.
        bytes: u64,
    },
}

/// The largest linear system [`lift`] builds: 2 GiB of matrix (8x8x8 at rank 256 or so; a
/// rank-65,536 8x8x8 scheme's would take 400 GB, and the lift was killed at 24 GB).
pub const MAX_SYSTEM_BYTES: u64 = 2 << 30;

/// The bytes of the matrix of a system of `rows` equations in `cols` unknowns.
fn system_bytes(rows: usize, cols: usize) -> u64 {
    rows as u64 * (cols as u64 + 1).div_ceil(64) * 8
}

/// A dense matrix over F2, one bit-vector per row.
struct BitMatrix {
    cols: usize,
    rows: Vec<Vec<u64>>,
}

/// A solution of `A x = b` over F2: one particular solution and a basis of the kernel.
struct Solution {
    particular: Vec<bool>,
    kernel: Vec<Vec<bool>>,
}

impl BitMatrix {
    fn new(rows: usize, cols: usize) -> BitMatrix {
        // One extra column for the right-hand side.
        let words = (cols + 1).div_ceil(64);
        BitMatrix {
            cols,
            rows: vec![vec![0; words]; rows],
        }
    }

    fn flip(&mut self, r: usize, c: usize) {
        self.rows[r][c / 64] ^= 1 << (c % 64);
    }

    fn get(row: &[u64], c: usize) -> bool {
        row[c / 64] >> (c % 64) & 1 == 1
    }

    /// Solves `A x = b` (b as the extra column `cols`) by reduction to row echelon form; None
    /// when inconsistent. Consumes the matrix. The kernel's basis only `with_kernel` (it takes
    /// a vector of `cols` per free unknown: gigabytes for a large scheme's general system).
    fn solve(mut self, b: &[bool], with_kernel: bool) -> Option<Solution> {
        let rhs = self.cols;
        for (r, &bit) in b.iter().enumerate() {
            if bit {
                self.flip(r, rhs);
            }
        }
        // Rows with nothing in them take no part.
        let mut rows: Vec<Vec<u64>> = self.rows.into_iter().filter(|r| r.iter().any(|&w| w != 0)).collect();
        let mut pivots: Vec<usize> = Vec::new();
        let mut top = 0;
        for c in 0..self.cols {
            let Some(p) = (top..rows.len()).find(|&r| Self::get(&rows[r], c)) else {
                continue;
            };
            rows.swap(top, p);
            let pivot = rows[top].clone();
            for (r, row) in rows.iter_mut().enumerate() {
                if r != top && Self::get(row, c) {
                    for (w, &pw) in row.iter_mut().zip(&pivot) {
                        *w ^= pw;
                    }
                }
            }
            pivots.push(c);
            top += 1;
        }
        // A row 0 = 1 below the pivots: inconsistent.
        if rows[top..].iter().any(|r| Self::get(r, rhs)) {
            return None;
        }
        let mut particular = vec![false; self.cols];
        for (i, &c) in pivots.iter().enumerate() {
            particular[c] = Self::get(&rows[i], rhs);
        }
        let mut is_pivot = vec![false; self.cols];
        for &c in &pivots {
            is_pivot[c] = true;
        }
        let kernel = (0..self.cols)
            .filter(|&f| with_kernel && !is_pivot[f])
            .map(|f| {
                let mut v = vec![false; self.cols];
                v[f] = true;
                for (i, &c) in pivots.iter().enumerate() {
                    v[c] = Self::get(&rows[i], f);
                }
                v
            })
            .collect();
        Some(Solution { particular, kernel })
    }
}

/// The unknowns of a lift: (term, position, entry) of each coefficient taking part.
type Unknowns = Vec<(usize, Position, usize)>;

/// The Jacobian mod 2 at `s` for the columns `unknowns`, rows the tensor entries `(u, v, w)`.
fn jacobian<F: FactorBits>(s: &Scheme<F>, unknowns: &Unknowns) -> BitMatrix {
    let [nu, nv, nw] = Position::ALL.map(|p| s.shape().factor_bits(p));
    let mut j = BitMatrix::new(nu * nv * nw, unknowns.len());
    // The set bits of a factor, lowest first.
    let bits = |x: F| {
        let first = (x != F::ZERO).then_some(x);
        core::iter::successors(first, |&r| Some(r.clear_lowest()).filter(|&r| r != F::ZERO))
            .map(|r| r.trailing_zeros() as usize)
    };
    for (col, &(t, pos, i)) in unknowns.iter().enumerate() {
        let term = s.terms()[t];
        // d F[u,v,w] / d a_t[i] = b_t[v] c_t[w] at u = i, and likewise for B and C.
        let (x, y) = (term.get(pos.next()), term.get(pos.prev()));
        for p in bits(x) {
            for q in bits(y) {
                let (u, v, w) = match pos {
                    Position::A => (i, p, q),
                    Position::B => (q, i, p),
                    Position::C => (p, q, i),
                };
                j.flip((u * nv + v) * nw + w, col);
            }
        }
    }
    j
}

/// `F(x) - T` over the integers, per tensor entry.
fn residual(s: &IntScheme) -> Vec<i128> {
    let [nu, nv, nw] = Position::ALL.map(|p| s.shape.factor_bits(p));
    let mut f = vec![0i128; nu * nv * nw];
    for t in &s.terms {
        let [a, b, c] = &t.factors;
        for (u, &x) in a.iter().enumerate().filter(|e| *e.1 != 0) {
            for (v, &y) in b.iter().enumerate().filter(|e| *e.1 != 0) {
                for (w, &z) in c.iter().enumerate().filter(|e| *e.1 != 0) {
                    f[(u * nv + v) * nw + w] += x as i128 * y as i128 * z as i128;
                }
            }
        }
    }
    for (e, x) in f.iter_mut().enumerate() {
        *x -= expected(s.shape, e / (nv * nw), e / nw % nv, e % nw) as i128;
    }
    f
}

/// Adds `scale * d` to the unknowns of `x`.
fn apply(x: &mut IntScheme, unknowns: &Unknowns, d: &[bool], scale: i64) {
    for (k, &(t, pos, i)) in unknowns.iter().enumerate() {
        if d[k] {
            let c = &mut x.terms[t].factors[pos.index()][i];
            *c = c.wrapping_add(scale);
        }
    }
}

/// XOR of `v` into `acc`.
fn xor_into(acc: &mut [bool], v: &[bool]) {
    for (a, &b) in acc.iter_mut().zip(v) {
        *a ^= b;
    }
}

/// The unknowns: every coefficient (`all`) or only those that are 1 mod 2.
fn unknowns<F: FactorBits>(s: &Scheme<F>, all: bool) -> Unknowns {
    let mut out = Vec::new();
    for (t, term) in s.terms().iter().enumerate() {
        for pos in Position::ALL {
            for i in 0..s.shape().factor_bits(pos) {
                if all || term.get(pos).test(i) {
                    out.push((t, pos, i));
                }
            }
        }
    }
    out
}

/// Random sign vectors [`lift`] tries by default (the `lift` command's and a record's).
pub const DEFAULT_TRIES: usize = 200;

/// How far the general lift goes by default: `2^DEFAULT_BITS`.
pub const DEFAULT_BITS: u32 = 24;

/// Where a lift is, for progress reports ([`lift_reporting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiftStage {
    /// Solving for signs on the scheme's support: `equations` x `unknowns` over F2.
    Signs {
        /// Rows of the system.
        equations: usize,
        /// Columns of the system.
        unknowns: usize,
    },
    /// The general lift, solving for the digit of `2^level` (of `bits`).
    Level {
        /// The power of two being solved for.
        level: u32,
        /// The last power.
        bits: u32,
        /// Rows of the system.
        equations: usize,
        /// Columns of the system.
        unknowns: usize,
    },
}

/// Lifts `s` (valid over F2) to a scheme valid over Z with coefficients in {-1, 0, 1} on its own
/// support, trying `tries` random vectors of the sign solutions: [`lift`]'s first stage alone,
/// which takes milliseconds where the general lift can take a minute (a ternary search's lifts).
pub fn lift_signs<F: FactorBits>(s: &Scheme<F>, tries: usize) -> Result<IntScheme, LiftError> {
    crate::verify::verify(s).map_err(|_| LiftError::Invalid)?;
    signs(s, &IntScheme::from_f2(s), tries, &mut |_| {}).ok_or(LiftError::NoSigns { tries })
}

/// The equations of a lift of `s`: one a coefficient of its tensor.
fn equations<F: FactorBits>(s: &Scheme<F>) -> usize {
    Position::ALL.map(|p| s.shape().factor_bits(p)).iter().product()
}

/// The signs on the support of `s` (valid over F2; `start` is it over Z): `x = x0 + 2 d
/// (mod 4)`, read as -1 where `d = 1`, for the particular solution and up to `tries - 1` random
/// vectors of the kernel added; the first valid over Z, if any.
fn signs<F: FactorBits>(
    s: &Scheme<F>,
    start: &IntScheme,
    tries: usize,
    report: &mut dyn FnMut(LiftStage),
) -> Option<IntScheme> {
    let equations = equations(s);
    let support = unknowns(s, false);
    report(LiftStage::Signs {
        equations,
        unknowns: support.len(),
    });
    let sol = jacobian(s, &support).solve(&rhs(start, 1), true)?;
    let mut rng = WyRand::new(0x11f7);
    let mut d = sol.particular.clone();
    for attempt in 0..tries.max(1) {
        if attempt > 0 {
            d.clone_from(&sol.particular);
            for v in &sol.kernel {
                if rng.bits() & 1 == 1 {
                    xor_into(&mut d, v);
                }
            }
        }
        let mut x = start.clone();
        apply(&mut x, &support, &d, -2);
        if verify_z(&x).is_ok() {
            return Some(x);
        }
        if sol.kernel.is_empty() {
            break;
        }
    }
    None
}

/// The right-hand side of the system at level `k`: `(T - F(x)) / 2^k mod 2`.
fn rhs(x: &IntScheme, k: u32) -> Vec<bool> {
    residual(x).iter().map(|&r| (-r >> k) & 1 == 1).collect()
}

/// Lifts `s` (valid over F2) to a scheme valid over Z, preferring coefficients in {-1, 0, 1};
/// `tries` random vectors of the sign solutions are checked, and the general lift goes to
/// `2^bits` (at most 40, so products of three coefficients stay within `i128`).
pub fn lift<F: FactorBits>(s: &Scheme<F>, tries: usize, bits: u32) -> Result<IntScheme, LiftError> {
    lift_reporting(s, tries, bits, &mut |_| {})
}

/// [`lift`], calling `report` as each stage begins (a large scheme's lift takes minutes).
pub fn lift_reporting<F: FactorBits>(
    s: &Scheme<F>,
    tries: usize,
    bits: u32,
    report: &mut dyn FnMut(LiftStage),
) -> Result<IntScheme, LiftError> {
    crate::verify::verify(s).map_err(|_| LiftError::Invalid)?;
    let start = IntScheme::from_f2(s);
    if let Some(x) = signs(s, &start, tries, report) {
        return Ok(x);
    }
    let equations = equations(s);

    // The general lift: every coefficient may move, level after level.
    let all = unknowns(s, true);
    let bytes = system_bytes(equations, all.len());
    if bytes > MAX_SYSTEM_BYTES {
        return Err(LiftError::TooLarge { bytes });
    }
    let bits = bits.clamp(2, 40);
    let mut x = start;
    for k in 1..bits {
        report(LiftStage::Level {
            level: k,
            bits,
            equations,
            unknowns: all.len(),
        });
        let Some(sol) = jacobian(s, &all).solve(&rhs(&x, k), false) else {
            return Err(if k == 1 {
                LiftError::NoLift
            } else {
                LiftError::NotFound { bits: k }
            });
        };
        apply(&mut x, &all, &sol.particular, 1 << k);
        // Read every coefficient as the signed residue mod 2^(k+1): small integers show.
        let m = 1i64 << (k + 1);
        let mut small = x.clone();
        for t in &mut small.terms {
            for c in t.factors.iter_mut().flatten() {
                let r = c.rem_euclid(m);
                *c = if r > m / 2 { r - m } else { r };
            }
        }
        if verify_z(&small).is_ok() {
            return Ok(small);
        }
    }
    Err(LiftError::NotFound { bits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    #[test]
    fn naive_schemes_lift_as_they_are() {
        let s = Scheme::naive(Shape::new(2, 3, 2).unwrap());
        let mut stages = Vec::new();
        let z = lift_reporting(&s, 4, 8, &mut |stage| stages.push(stage)).unwrap();
        // Signs on the support suffice: one stage, its system's size said.
        assert_eq!(
            stages,
            [LiftStage::Signs {
                equations: 6 * 6 * 4,
                unknowns: 3 * 12
            }]
        );
        assert_eq!(verify_z(&z), Ok(()));
        assert_eq!(z.mod2(), Ok(s));
    }

    #[test]
    fn solves_small_systems_and_finds_inconsistency() {
        // x0 + x1 = 1, x1 = 1  ->  x = (0, 1)
        let mut m = BitMatrix::new(2, 2);
        m.flip(0, 0);
        m.flip(0, 1);
        m.flip(1, 1);
        let sol = m.solve(&[true, true], true).unwrap();
        assert_eq!(sol.particular, vec![false, true]);
        assert!(sol.kernel.is_empty());
        // x0 = 1 and x0 = 0
        let mut m = BitMatrix::new(2, 1);
        m.flip(0, 0);
        m.flip(1, 0);
        assert!(m.solve(&[true, false], true).is_none());
    }

    #[test]
    fn a_system_too_large_to_hold_is_refused_before_it_is_built() {
        // 8x8x8 at rank 65,536: 262,144 equations in 12.6 million unknowns, some 400 GB.
        let bytes = system_bytes(1 << 18, 65_536 * 192);
        assert!(bytes > 300 << 30, "{bytes}");
        // Naive 8x8x8 (rank 512) lifts as it is, on its support, before any general system.
        assert!(system_bytes(1 << 18, 512 * 192) > MAX_SYSTEM_BYTES);
        let naive = Scheme::naive(Shape::square(8).unwrap());
        assert_eq!(verify_z(&lift(&naive, 1, 8).unwrap()), Ok(()));
    }
}
