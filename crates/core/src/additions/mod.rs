//! Fewer additions for a scheme: straight-line programs for its three linear maps.
//!
//! A scheme costs its multiplications and the additions of three linear maps: the factor of A
//! of each product (a form in the entries of A), the factor of B, and each entry of C (a form
//! in the products). Written one by one, a form of `k` unit terms costs `k - 1` additions
//! ([`crate::Scheme::naive_additions`]). Forms that share a pair `x + s y` (`s = ±1`; over F2,
//! `x ^ y`) can compute it once: the greedy pass of Paar's algorithm takes the pair shared by
//! the most forms, names it as a new variable, substitutes it, and repeats until no pair is
//! shared by two forms ([`eliminate`]). The result is a straight-line [`Program`] whose
//! [`Program::additions`] is an upper bound on the additions the map needs (not a minimum:
//! the problem is NP-hard).
//!
//! [`minimize`] improves on one greedy pass: ties broken at random over many restarts, and
//! each map also computed as the transpose of a program for its transposed map (Tellegen's
//! principle: the other orientation of the scheme, which often shares more). [`SchemeProgram`]
//! holds the three programs of a scheme; [`walk`] looks for schemes of the same rank that cost
//! fewer additions.

mod bilinear;
mod file;
mod minimize;
mod transpose;
pub mod walk;

use std::collections::HashMap;
use std::vec::Vec;

use crate::rng::WyRand;
use crate::scheme::IntScheme;
use crate::term::Position;

pub use bilinear::{schoolbook, ProgramError, SchemeProgram};
pub use file::{is_program_file, read_program, write_program, ProgramFileError, PROGRAM_FORMAT};
pub use minimize::{minimize, minimize_map, Effort};

/// A linear form: `(variable, coefficient)` pairs, by variable, coefficients non-zero.
pub type LinearForm = Vec<(u32, i64)>;

/// A named pair: `x + sign * y` (over F2, `x ^ y`), a new variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pair {
    /// The first variable.
    pub x: u32,
    /// The second variable.
    pub y: u32,
    /// `1` or `-1` (always `1` over F2).
    pub sign: i64,
}

/// A straight-line program for a set of linear forms: variables `0..inputs` are the inputs,
/// variable `inputs + i` is `pairs[i]` (of earlier variables), and each output is a form over
/// all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The number of input variables.
    pub inputs: usize,
    /// The named pairs, in the order they are computed.
    pub pairs: Vec<Pair>,
    /// The outputs.
    pub outputs: Vec<LinearForm>,
}

/// The additions of a form written term by term: a coefficient `k` counts `|k|` copies.
pub fn form_additions(form: &LinearForm) -> usize {
    let copies: u64 = form.iter().map(|&(_, k)| k.unsigned_abs()).sum();
    (copies as usize).saturating_sub(1)
}

/// `k` in the ring: mod 2 over F2 (`f2`), itself over Z.
pub(crate) fn in_ring(k: i64, f2: bool) -> i64 {
    if f2 {
        k.rem_euclid(2)
    } else {
        k
    }
}

/// The combination `form` of `rows` (each a row of coefficients over `width` inputs), in the
/// ring.
fn combination(rows: &[Vec<i64>], form: &LinearForm, width: usize, f2: bool) -> Vec<i64> {
    let mut out = vec![0; width];
    for &(var, k) in form {
        for (o, &c) in out.iter_mut().zip(&rows[var as usize]) {
            *o = in_ring(*o + k * c, f2);
        }
    }
    out
}

/// Whether `form` needs a unary minus as written: every term negative (over Z).
pub fn is_negated(form: &LinearForm, f2: bool) -> bool {
    !f2 && !form.is_empty() && form.iter().all(|&(_, k)| k < 0)
}

impl Program {
    /// The program that computes `forms` term by term (no pair named).
    pub fn naive(inputs: usize, forms: Vec<LinearForm>) -> Program {
        Program {
            inputs,
            pairs: Vec::new(),
            outputs: forms,
        }
    }

    /// Additions (and subtractions): one per named pair, and those of each output.
    pub fn additions(&self) -> usize {
        self.pairs.len() + self.outputs.iter().map(form_additions).sum::<usize>()
    }

    /// The number of variables: inputs and named pairs.
    pub fn variables(&self) -> usize {
        self.inputs + self.pairs.len()
    }

    /// The outputs for `inputs` values, over Z (`f2` false, wrapping) or over F2 (each value
    /// a 64-lane bit-slice: addition is XOR).
    pub fn evaluate(&self, inputs: &[i64], f2: bool) -> Vec<i64> {
        assert_eq!(inputs.len(), self.inputs, "one value per input");
        let add = |a: i64, b: i64| if f2 { a ^ b } else { a.wrapping_add(b) };
        let mut values = inputs.to_vec();
        for p in &self.pairs {
            let (x, y) = (values[p.x as usize], values[p.y as usize]);
            values.push(add(x, if f2 { y } else { y.wrapping_mul(p.sign) }));
        }
        let scale = |v: i64, k: i64| match f2 {
            true if k & 1 == 1 => v,
            true => 0,
            false => v.wrapping_mul(k),
        };
        self.outputs
            .iter()
            .map(|form| {
                form.iter()
                    .fold(0, |acc, &(var, k)| add(acc, scale(values[var as usize], k)))
            })
            .collect()
    }

    /// Each variable as its row of coefficients over the inputs (over F2, 0 and 1).
    fn values(&self, f2: bool) -> Vec<Vec<i64>> {
        let mut rows: Vec<Vec<i64>> = (0..self.inputs)
            .map(|i| (0..self.inputs).map(|j| i64::from(i == j)).collect())
            .collect();
        for p in &self.pairs {
            let (x, y) = (&rows[p.x as usize], &rows[p.y as usize]);
            let row = x.iter().zip(y).map(|(&a, &b)| in_ring(a + p.sign * b, f2)).collect();
            rows.push(row);
        }
        rows
    }

    /// Writes each output again over all the variables where that takes fewer terms, letting
    /// terms cancel: greedily, the variable (either sign) that leaves the fewest non-zero
    /// entries in what is left to add, until nothing is left. (A form `p - q` may stand for
    /// many terms that elimination, which only groups terms as they are, does not see.)
    pub fn rewrite_outputs(&mut self, f2: bool) {
        let values = self.values(f2);
        for form in &mut self.outputs {
            let mut left = combination(&values, form, self.inputs, f2);
            let mut terms: LinearForm = Vec::new();
            while left.iter().any(|&l| l != 0) {
                let weight = |v: &[i64], sign: i64| {
                    left.iter()
                        .zip(v)
                        .filter(|(&l, &c)| in_ring(l - sign * c, f2) != 0)
                        .count()
                };
                let signs: &[i64] = if f2 { &[1] } else { &[1, -1] };
                let (var, sign, _) = (0..values.len())
                    .flat_map(|var| signs.iter().map(move |&s| (var, s)))
                    .map(|(var, s)| (var, s, weight(&values[var], s)))
                    .min_by_key(|&(var, _, w)| (w, std::cmp::Reverse(var)))
                    .expect("the inputs at least");
                if weight(&values[var], sign) >= left.iter().filter(|&&l| l != 0).count() {
                    break;
                }
                for (l, &c) in left.iter_mut().zip(&values[var]) {
                    *l = in_ring(*l - sign * c, f2);
                }
                terms.push((var as u32, sign));
            }
            if left.iter().all(|&l| l == 0) && form_additions(&terms) < form_additions(form) {
                terms.sort_unstable();
                *form = normalized(&terms, f2);
            }
        }
    }

    /// The matrix the program computes: one row per output, one column per input (over F2,
    /// entries 0 and 1).
    pub fn matrix(&self, f2: bool) -> Vec<Vec<i64>> {
        let rows = self.values(f2);
        self.outputs
            .iter()
            .map(|form| combination(&rows, form, self.inputs, f2))
            .collect()
    }

    /// The same program with input `input` negated (its caller passes `-x` for `x`): the
    /// signs of the pairs and outputs that use it change, at no cost. A pair whose first
    /// operand changed sign is kept as the negation of the old pair (`-x + s y = -(x - s y)`),
    /// which its own users absorb in turn.
    pub fn negate_input(&mut self, input: usize) {
        let mut sign = vec![1i64; self.variables()];
        sign[input] = -1;
        for (i, p) in self.pairs.iter_mut().enumerate() {
            p.sign *= sign[p.x as usize] * sign[p.y as usize];
            sign[self.inputs + i] = sign[p.x as usize];
        }
        for form in &mut self.outputs {
            form.iter_mut().for_each(|(v, k)| *k *= sign[*v as usize]);
        }
    }

    /// Whether every variable a pair or an output names exists: pairs name earlier variables,
    /// outputs any variable. A program read from a file is checked with this before use.
    pub fn is_well_formed(&self) -> bool {
        let pairs_ok = self.pairs.iter().enumerate().all(|(i, p)| {
            let defined = (self.inputs + i) as u64;
            u64::from(p.x) < defined && u64::from(p.y) < defined && p.sign.abs() == 1
        });
        let all = self.variables() as u64;
        let outputs_ok = self
            .outputs
            .iter()
            .flatten()
            .all(|&(v, k)| u64::from(v) < all && k != 0 && k.unsigned_abs() <= MAX_COEFFICIENT);
        pairs_ok && outputs_ok
    }
}

/// The largest coefficient an output form may have (each copy is an addition).
pub const MAX_COEFFICIENT: u64 = 64;

/// `form` sorted by variable with zero coefficients left out (over F2, coefficients mod 2).
pub fn normalized(form: &LinearForm, f2: bool) -> LinearForm {
    let mut out: LinearForm = form
        .iter()
        .map(|&(v, k)| (v, in_ring(k, f2)))
        .filter(|&(_, k)| k != 0)
        .collect();
    out.sort_unstable();
    out
}

/// The pair shared by the most forms (two at least). Ties go to the smallest pair, so that
/// the program does not depend on a hash order, or with `rng` to one of them at random.
/// Pairs are of unit terms (`|k| = 1`).
fn most_shared(forms: &[LinearForm], rng: Option<&mut WyRand>) -> Option<Pair> {
    let mut counts: HashMap<Pair, u32> = HashMap::new();
    let mut units = Vec::new();
    for form in forms {
        units.clear();
        units.extend(form.iter().copied().filter(|&(_, k)| k.abs() == 1));
        for (i, &(x, kx)) in units.iter().enumerate() {
            for &(y, ky) in &units[i + 1..] {
                *counts.entry(Pair { x, y, sign: kx * ky }).or_default() += 1;
            }
        }
    }
    let most = counts.values().copied().max().filter(|&n| n >= 2)?;
    let mut tied: Vec<Pair> = counts.into_iter().filter(|&(_, n)| n == most).map(|(p, _)| p).collect();
    tied.sort_unstable();
    Some(match rng {
        Some(rng) => tied[rng.below(tied.len())],
        None => tied[0],
    })
}

/// Replaces `x` and `y` in `form` by variable `var` (the pair `x + sign y`) where the form
/// holds them as `k x + k sign y` with `|k| = 1`.
fn substitute(form: &mut LinearForm, pair: Pair, var: u32) {
    let at = |v: u32, form: &LinearForm| form.iter().position(|&(w, _)| w == v);
    let (Some(i), Some(j)) = (at(pair.x, form), at(pair.y, form)) else {
        return;
    };
    let (kx, ky) = (form[i].1, form[j].1);
    if kx.abs() != 1 || ky != kx * pair.sign {
        return;
    }
    form.retain(|&(v, _)| v != pair.x && v != pair.y);
    form.push((var, kx));
}

/// A program for `forms` (over variables `0..inputs`) with pairs shared by two or more forms
/// named once, the most shared first (see the module docs). Over F2 (`f2`) coefficients are
/// taken mod 2. With `rng`, ties between equally shared pairs are broken at random (one run
/// of many restarts); without, deterministically.
pub fn eliminate(inputs: usize, forms: &[LinearForm], f2: bool, mut rng: Option<&mut WyRand>) -> Program {
    let mut outputs: Vec<LinearForm> = forms.iter().map(|f| normalized(f, f2)).collect();
    let mut pairs = Vec::new();
    while let Some(pair) = most_shared(&outputs, rng.as_deref_mut()) {
        let var = (inputs + pairs.len()) as u32;
        pairs.push(pair);
        for form in &mut outputs {
            substitute(form, pair, var);
            form.sort_unstable();
        }
    }
    Program { inputs, pairs, outputs }
}

/// The three sets of linear forms of a scheme: the factors of A (over the entries of A, row
/// by row), of B, and the entries of C (over the products; entry `(i, k)` at `i * p + k`).
pub fn scheme_forms(s: &IntScheme) -> [Vec<LinearForm>; 3] {
    let [a, b, c] = scheme_matrices(s);
    [a, b, c].map(|rows| rows.iter().map(|r| sparse(r)).collect())
}

/// The three maps of a scheme as dense matrices (rows: outputs, columns: inputs), in the
/// order and layout of [`scheme_forms`].
pub fn scheme_matrices(s: &IntScheme) -> [Vec<Vec<i64>>; 3] {
    let [n, _, p] = s.shape.dims();
    let factors = |pos| s.terms.iter().map(|t| t.get(pos).to_vec()).collect();
    // c_ik collects coefficient c^T[k][i] of every product.
    let entries = (0..n * p)
        .map(|ik| {
            let (i, k) = (ik / p, ik % p);
            s.terms.iter().map(|t| t.get(Position::C)[k * n + i]).collect()
        })
        .collect();
    [factors(Position::A), factors(Position::B), entries]
}

/// A dense row as a form: its non-zero entries.
fn sparse(row: &[i64]) -> LinearForm {
    let nonzero = row.iter().enumerate().filter(|(_, &k)| k != 0);
    nonzero.map(|(v, &k)| (v as u32, k)).collect()
}

/// `rows` transposed: the forms of the transposed map (one per column).
fn transposed_forms(rows: &[Vec<i64>], columns: usize) -> Vec<LinearForm> {
    (0..columns)
        .map(|j| sparse(&rows.iter().map(|r| r[j]).collect::<Vec<_>>()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn random_forms(rng: &mut WyRand, inputs: usize, count: usize, f2: bool) -> Vec<LinearForm> {
        let form = |rng: &mut WyRand| {
            let mut out = LinearForm::new();
            for v in 0..inputs as u32 {
                if rng.below(3) == 0 {
                    out.push((v, if f2 { 1 } else { [1, -1, 1, -1, 2, -3][rng.below(6)] }));
                }
            }
            out
        };
        (0..count).map(|_| form(rng)).collect()
    }

    /// The program computes the very forms it was given, over Z and over F2, with no more
    /// additions than term by term, with ties broken either way; and it finds the shared
    /// pairs of a small example.
    #[test]
    fn the_program_computes_the_forms_with_fewer_additions() {
        let mut rng = WyRand::new(5);
        for f2 in [false, true] {
            for round in 0..200 {
                let inputs = 2 + rng.below(12);
                let count = 1 + rng.below(20);
                let forms = random_forms(&mut rng, inputs, count, f2);
                let naive = Program::naive(inputs, forms.iter().map(|f| normalized(f, f2)).collect());
                let mut ties = WyRand::new(round);
                for program in [
                    eliminate(inputs, &forms, f2, None),
                    eliminate(inputs, &forms, f2, Some(&mut ties)),
                ] {
                    assert!(program.additions() <= naive.additions());
                    assert!(program.is_well_formed());
                    assert_eq!(program.matrix(f2), naive.matrix(f2));
                    for _ in 0..4 {
                        let values: Vec<i64> = (0..inputs).map(|_| rng.bits() as i64).collect();
                        assert_eq!(program.evaluate(&values, f2), naive.evaluate(&values, f2));
                    }
                }
            }
        }
        // a+b+c, a+b+d, a+b-c: a+b once, then (a+b)+c and (a+b)-c; 6 additions become 4.
        let forms = vec![
            vec![(0, 1), (1, 1), (2, 1)],
            vec![(0, 1), (1, 1), (3, 1)],
            vec![(0, 1), (1, 1), (2, -1)],
        ];
        let program = eliminate(4, &forms, false, None);
        assert_eq!(program.pairs[0], Pair { x: 0, y: 1, sign: 1 });
        assert_eq!(program.additions(), 4);
    }

    /// An output that two named variables give with a cancellation is rewritten to use them:
    /// a+b+c+d (three additions) is p - q with p = a+b+c+e and q = e-d.
    #[test]
    fn outputs_are_rewritten_with_cancellation() {
        // Variables: a..e = 0..4; 5 = a+b, 6 = c+e, 7 = 5+6 (p), 8 = e-d (q).
        let pairs = vec![
            Pair { x: 0, y: 1, sign: 1 },
            Pair { x: 2, y: 4, sign: 1 },
            Pair { x: 5, y: 6, sign: 1 },
            Pair { x: 4, y: 3, sign: -1 },
        ];
        let outputs = vec![vec![(7, 1)], vec![(8, 1)], vec![(0, 1), (1, 1), (2, 1), (3, 1)]];
        let mut program = Program {
            inputs: 5,
            pairs,
            outputs,
        };
        let before = program.matrix(false);
        program.rewrite_outputs(false);
        assert_eq!(program.outputs[2], vec![(7, 1), (8, -1)]);
        assert_eq!(program.matrix(false), before);
        assert_eq!(program.additions(), 4 + 1);
    }

    /// Negating an input changes no count, and the program then computes the old forms of
    /// the negated input.
    #[test]
    fn negating_an_input_keeps_the_count_and_the_map() {
        let mut rng = WyRand::new(9);
        for _ in 0..100 {
            let inputs = 2 + rng.below(10);
            let count = 1 + rng.below(12);
            let forms = random_forms(&mut rng, inputs, count, false);
            let program = eliminate(inputs, &forms, false, None);
            let input = rng.below(inputs);
            let mut negated = program.clone();
            negated.negate_input(input);
            assert_eq!(negated.additions(), program.additions());
            let mut expected = program.matrix(false);
            expected.iter_mut().for_each(|row| row[input] = -row[input]);
            assert_eq!(negated.matrix(false), expected);
        }
    }
}
