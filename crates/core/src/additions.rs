//! Fewer additions for a scheme's linear forms: greedy elimination of common pairs.
//!
//! A scheme costs its multiplications and the additions of three sets of linear forms: the
//! factor of A of each product (a form in the entries of A), the factor of B, and each entry
//! of C (a form in the products). Written one by one, a form of `k` unit terms costs `k - 1`
//! additions ([`crate::Scheme::naive_additions`]). Forms that share a pair `x + s y`
//! (`s = ±1`; over F2, `x ^ y`) can compute it once: the greedy pass of Paar's algorithm
//! takes the pair shared by the most forms, names it as a new variable, substitutes it, and
//! repeats until no pair is shared by two forms ([`eliminate`]). The result is a straight-line
//! [`Program`] whose [`Program::additions`] is an upper bound on the additions the scheme needs
//! (not a minimum: the problem is NP-hard).

use std::collections::HashMap;
use std::vec::Vec;

use crate::scheme::IntScheme;
use crate::term::Position;

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
        let scale = |v: i64, k: i64| {
            if f2 {
                if k & 1 == 1 {
                    v
                } else {
                    0
                }
            } else {
                v.wrapping_mul(k)
            }
        };
        self.outputs
            .iter()
            .map(|form| {
                form.iter()
                    .fold(0, |acc, &(var, k)| add(acc, scale(values[var as usize], k)))
            })
            .collect()
    }
}

/// `form` sorted by variable with zero coefficients left out (over F2, coefficients mod 2).
fn normalized(form: &LinearForm, f2: bool) -> LinearForm {
    let mut out: LinearForm = form
        .iter()
        .map(|&(v, k)| (v, if f2 { k.rem_euclid(2) } else { k }))
        .filter(|&(_, k)| k != 0)
        .collect();
    out.sort_unstable();
    out
}

/// The pair shared by the most forms (two at least); ties go to the smallest pair, so that
/// the program does not depend on a hash order. Pairs are of unit terms (`|k| = 1`).
fn most_shared(forms: &[LinearForm]) -> Option<Pair> {
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
    counts
        .into_iter()
        .filter(|&(_, n)| n >= 2)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(pair, _)| pair)
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
/// taken mod 2.
pub fn eliminate(inputs: usize, forms: &[LinearForm], f2: bool) -> Program {
    let mut outputs: Vec<LinearForm> = forms.iter().map(|f| normalized(f, f2)).collect();
    let mut pairs = Vec::new();
    while let Some(pair) = most_shared(&outputs) {
        let var = (inputs + pairs.len()) as u32;
        pairs.push(pair);
        for form in &mut outputs {
            substitute(form, pair, var);
        }
    }
    Program { inputs, pairs, outputs }
}

/// The three sets of linear forms of a scheme: the factors of A (over the entries of A, row
/// by row), of B, and the entries of C (over the products; entry `(i, k)` at `i * p + k`).
pub fn scheme_forms(s: &IntScheme) -> [Vec<LinearForm>; 3] {
    let sparse = |coefs: &[i64]| -> LinearForm {
        let nonzero = coefs.iter().enumerate().filter(|(_, &k)| k != 0);
        nonzero.map(|(v, &k)| (v as u32, k)).collect()
    };
    let [n, _, p] = s.shape.dims();
    let factors = |pos| s.terms.iter().map(|t| sparse(t.get(pos))).collect();
    let entries = (0..n * p)
        .map(|ik| {
            // c_ik collects coefficient c^T[k][i] of every product.
            let (i, k) = (ik / p, ik % p);
            sparse(
                &s.terms
                    .iter()
                    .map(|t| t.get(Position::C)[k * n + i])
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    [factors(Position::A), factors(Position::B), entries]
}

/// The programs for a scheme's three sets of forms ([`scheme_forms`]), over F2 or Z: with the
/// shared pairs named once ([`eliminate`], `shared`), or term by term.
pub fn programs(s: &IntScheme, f2: bool, shared: bool) -> [Program; 3] {
    let [n, m, p] = s.shape.dims();
    let inputs = [n * m, m * p, s.rank()];
    let mut sets = scheme_forms(s).into_iter().zip(inputs);
    core::array::from_fn(|_| {
        let (forms, inputs) = sets.next().expect("three sets");
        if shared {
            eliminate(inputs, &forms, f2)
        } else {
            Program::naive(inputs, forms.iter().map(|f| normalized(f, f2)).collect())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::WyRand;

    fn random_forms(rng: &mut WyRand, inputs: usize, count: usize, f2: bool) -> Vec<LinearForm> {
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
    /// additions than term by term; and it finds the shared pairs of a small example.
    #[test]
    fn the_program_computes_the_forms_with_fewer_additions() {
        let mut rng = WyRand::new(5);
        for f2 in [false, true] {
            for _ in 0..200 {
                let inputs = 2 + rng.below(12);
                let count = 1 + rng.below(20);
                let forms = random_forms(&mut rng, inputs, count, f2);
                let naive = Program::naive(inputs, forms.iter().map(|f| normalized(f, f2)).collect());
                let program = eliminate(inputs, &forms, f2);
                assert!(program.additions() <= naive.additions());
                for _ in 0..4 {
                    let values: Vec<i64> = (0..inputs).map(|_| rng.bits() as i64).collect();
                    assert_eq!(program.evaluate(&values, f2), naive.evaluate(&values, f2));
                }
            }
        }
        // a+b+c, a+b+d, a+b-c: a+b once, then (a+b)+c and (a+b)-c; 6 additions become 4.
        let forms = vec![
            vec![(0, 1), (1, 1), (2, 1)],
            vec![(0, 1), (1, 1), (3, 1)],
            vec![(0, 1), (1, 1), (2, -1)],
        ];
        let program = eliminate(4, &forms, false);
        assert_eq!(program.pairs[0], Pair { x: 0, y: 1, sign: 1 });
        assert_eq!(program.additions(), 4);
    }
}
