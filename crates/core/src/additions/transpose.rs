//! The transpose of a program (Tellegen's principle): a program for `M` gives one for `M^T`
//! by running its additions backwards, each variable becoming the sum of its uses.

use std::vec::Vec;

use super::{LinearForm, Pair, Program};

/// A value of the transposed program: `sign * variable`, or zero (an unused variable).
type Alias = Option<(u32, i64)>;

impl Program {
    /// A program for the transposed map: its inputs are this program's outputs and its
    /// outputs this program's inputs. A variable used `d` times here costs `d - 1` additions
    /// there, so the count changes by the outputs less the inputs (for maps without zero rows
    /// or columns).
    pub fn transposed(&self, f2: bool) -> Program {
        let uses = self.uses();
        let mut out = Program::naive(self.outputs.len(), Vec::new());
        // The new value of each old variable; the old outputs are the new inputs.
        let mut value: Vec<Alias> = vec![None; self.variables()];
        for var in (self.inputs..self.variables()).rev() {
            let terms = gather(&uses[var], &value, self.variables(), f2);
            value[var] = out.chain(&terms, f2);
        }
        out.outputs = (0..self.inputs)
            .map(|var| gather(&uses[var], &value, self.variables(), f2))
            .collect();
        out
    }

    /// For each variable, its uses: `(user, coefficient)`, where a user below
    /// [`Program::variables`] is a pair and `variables + j` is output `j`.
    fn uses(&self) -> Vec<Vec<(usize, i64)>> {
        let mut uses = vec![Vec::new(); self.variables()];
        for (i, p) in self.pairs.iter().enumerate() {
            uses[p.x as usize].push((self.inputs + i, 1));
            uses[p.y as usize].push((self.inputs + i, p.sign));
        }
        for (j, form) in self.outputs.iter().enumerate() {
            for &(v, k) in form {
                uses[v as usize].push((self.variables() + j, k));
            }
        }
        uses
    }

    /// Names `terms` (unit copies chained pair by pair) and returns what stands for them.
    fn chain(&mut self, terms: &LinearForm, f2: bool) -> Alias {
        let mut copies = terms
            .iter()
            .flat_map(|&(v, k)| std::iter::repeat_n((v, k.signum()), k.unsigned_abs() as usize));
        let mut acc = copies.next()?;
        for (v, s) in copies {
            // acc_sign * acc + s * v = acc_sign * (acc + acc_sign * s * v).
            let sign = if f2 { 1 } else { acc.1 * s };
            self.pairs.push(Pair { x: acc.0, y: v, sign });
            acc = ((self.variables() - 1) as u32, acc.1);
        }
        Some(acc)
    }
}

/// The transposed value of an old variable: the sum of its users' values times the
/// coefficients of its uses, as a form over the new variables (duplicates merged).
fn gather(uses: &[(usize, i64)], value: &[Alias], variables: usize, f2: bool) -> LinearForm {
    let mut form: LinearForm = Vec::new();
    for &(user, k) in uses {
        let (var, sign) = match user.checked_sub(variables) {
            Some(output) => (output as u32, 1),
            None => match value[user] {
                Some(alias) => alias,
                None => continue,
            },
        };
        match form.iter_mut().find(|(v, _)| *v == var) {
            Some((_, c)) => *c += k * sign,
            None => form.push((var, k * sign)),
        }
    }
    super::normalized(&form, f2)
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_forms;
    use super::super::{eliminate, transposed_forms};
    use super::*;
    use crate::rng::WyRand;

    /// The transposed program computes the transposed matrix, and costs no more than
    /// Tellegen's principle says when the map has no zero row or column (less where two uses
    /// of a variable meet and merge).
    #[test]
    fn the_transpose_computes_the_transposed_map() {
        let mut rng = WyRand::new(17);
        for f2 in [false, true] {
            for _ in 0..200 {
                let inputs = 1 + rng.below(10);
                let count = 1 + rng.below(14);
                let forms = random_forms(&mut rng, inputs, count, f2);
                let program = eliminate(inputs, &forms, f2, None);
                let matrix = program.matrix(f2);
                let transposed = program.transposed(f2);
                assert!(transposed.is_well_formed());
                let expected: Vec<Vec<i64>> = (0..inputs).map(|j| matrix.iter().map(|r| r[j]).collect()).collect();
                assert_eq!(transposed.matrix(f2), expected);
                let full = |m: &Vec<Vec<i64>>| m.iter().all(|r| r.iter().any(|&k| k != 0));
                let unit = matrix.iter().flatten().all(|k| k.abs() <= 1);
                if full(&matrix) && full(&expected) && unit {
                    let (rows, cols) = (matrix.len() as i64, inputs as i64);
                    assert!(transposed.additions() as i64 <= program.additions() as i64 + rows - cols);
                }
                let again = eliminate(forms.len(), &transposed_forms(&matrix, inputs), f2, None);
                assert_eq!(again.matrix(f2), expected);
            }
        }
    }
}
