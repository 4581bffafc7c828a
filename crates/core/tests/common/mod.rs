//! Random schemes for the property tests: walks of random moves from naive schemes.

use flipgraph_core::moves::{self, Moves};
use flipgraph_core::rng::WyRand;
use flipgraph_core::verify::verify;
use flipgraph_core::{Position, Scheme, Shape, Term};

/// A random scheme: `steps` random flips (and a few plus moves) from the naive scheme, with
/// factors of any width.
pub fn scramble<F: Moves>(shape: Shape, seed: u64, steps: usize) -> Vec<Term<F>> {
    let mut rng = WyRand::new(seed);
    let mut terms = Scheme::<F>::try_naive(shape).unwrap().into_terms();
    for step in 0..steps {
        let pos = Position::from_index(rng.below(3));
        let i = rng.below(terms.len());
        let partners: Vec<usize> = (0..terms.len())
            .filter(|&j| j != i && terms[j].get(pos) == terms[i].get(pos))
            .collect();
        if step % 17 == 16 {
            let j = (i + 1 + rng.below(terms.len() - 1)) % terms.len();
            let (changed, added) = moves::plus(&terms[i], &terms[j], pos);
            terms[j] = changed;
            terms.push(added);
        } else if let Some(&j) = partners.get(rng.below(partners.len().max(1))) {
            let (mut t, mut u) = (terms[i], terms[j]);
            moves::flip(&mut t, &mut u, pos);
            terms[i] = t;
            terms[j] = u;
        }
        terms.retain(|t| !t.is_zero());
    }
    terms
}

/// Whether the nonzero terms verify as a scheme of `shape`.
pub fn valid<F: Moves>(shape: Shape, terms: Vec<Term<F>>) -> bool {
    verify(&Scheme::new(shape, terms.into_iter().filter(|t| !t.is_zero()).collect()).unwrap()).is_ok()
}
