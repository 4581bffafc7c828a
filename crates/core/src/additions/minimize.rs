//! The search for a short program: greedy elimination with random ties, in both orientations.

use std::vec::Vec;

use super::{eliminate, scheme_matrices, sparse, transposed_forms, Program, SchemeProgram};
use crate::rng::WyRand;
use crate::scheme::IntScheme;

/// How hard [`minimize`] tries: greedy runs per map and orientation (the first breaks ties
/// deterministically, the others at random), from a fixed seed so that every command that
/// counts a scheme's additions finds the same program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effort {
    /// Greedy runs per map and orientation (at least one).
    pub restarts: usize,
    /// The seed of the random ties.
    pub seed: u64,
}

impl Effort {
    /// What `flipgraph additions`, `info` and `codegen` use: the same count from each.
    pub const DEFAULT: Effort = Effort {
        restarts: 32,
        seed: 0x5eed_add5,
    };

    /// One deterministic run per map and orientation: the walk's quick score.
    pub const QUICK: Effort = Effort { restarts: 1, seed: 0 };
}

/// The shortest program found for the map whose matrix is `rows` (one row per output, each of
/// `inputs` columns): elimination on the map itself, and on its transpose with the program
/// transposed back; the fewest additions wins.
pub fn minimize_map(rows: &[Vec<i64>], inputs: usize, f2: bool, effort: Effort) -> Program {
    let direct: Vec<_> = rows.iter().map(|r| sparse(r)).collect();
    let dual = transposed_forms(rows, inputs);
    let mut rng = WyRand::new(effort.seed);
    let mut best: Option<Program> = None;
    for run in 0..effort.restarts.max(1) {
        let mut ties = (run > 0).then(|| WyRand::new(rng.bits()));
        let candidates = [
            eliminate(inputs, &direct, f2, ties.as_mut()),
            eliminate(rows.len(), &dual, f2, ties.as_mut()).transposed(f2),
        ];
        for mut program in candidates {
            program.rewrite_outputs(f2);
            if best.as_ref().is_none_or(|b| program.additions() < b.additions()) {
                best = Some(program);
            }
        }
    }
    best.expect("at least one run")
}

/// The shortest program found for the scheme `s` over Z (or over F2, `f2`): each of its three
/// maps by [`minimize_map`] (on threads of their own), then the signs moved where they cost
/// nothing ([`SchemeProgram::absorb_signs`]).
pub fn minimize(s: &IntScheme, f2: bool, effort: Effort) -> SchemeProgram {
    let matrices = scheme_matrices(s);
    let [n, m, p] = s.shape.dims();
    let inputs = [n * m, m * p, s.rank()];
    let maps = std::thread::scope(|scope| {
        let runs: Vec<_> = matrices
            .iter()
            .zip(inputs)
            .map(|(rows, inputs)| scope.spawn(move || minimize_map(rows, inputs, f2, effort)))
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("the minimiser does not panic"))
            .collect::<Vec<_>>()
    });
    let maps: [Program; 3] = maps.try_into().expect("three maps");
    let mut program = SchemeProgram {
        shape: s.shape,
        f2,
        maps,
    };
    program.absorb_signs();
    program
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read;

    fn scheme(text: &str) -> IntScheme {
        read(text.as_bytes()).expect("the test scheme reads").scheme
    }

    /// The programs of the bundled schemes multiply correctly over Z and over F2, and are no
    /// longer than term by term; Perminov's addition-reduced schemes get their published
    /// counts (15, 58, 159) over Z, Strassen's its 18.
    #[test]
    fn the_programs_of_known_schemes_multiply_with_the_published_counts() {
        for (text, published) in [
            (include_str!("../../../../tests/data/2x2x2-r7-strassen.m"), 18),
            (
                include_str!("../../../../tests/data/2x2x2-r7-perminov-additions15.json"),
                15,
            ),
            (
                include_str!("../../../../tests/data/3x3x3-r23-perminov-additions58.json"),
                58,
            ),
            (
                include_str!("../../../../tests/data/4x4x4-r49-perminov-additions159.json"),
                159,
            ),
            (include_str!("../../../../tests/data/3x3x3-r23-laderman.m"), 62),
        ] {
            let s = scheme(text);
            for f2 in [false, true] {
                let program = minimize(&s, f2, Effort::DEFAULT);
                program.verify(16, 7).expect("it multiplies");
                assert!(program.additions() <= SchemeProgram::naive(&s, f2).additions());
                if !f2 {
                    assert_eq!(program.additions(), published);
                }
            }
        }
    }

    /// The schemes the walk found for 4x4x5 rank 61, 5x5x5 rank 93 and 6x6x6 rank 153 are
    /// valid over Z and need 229, 347 and 595 additions (Perminov's published 233, 383 and 655).
    #[test]
    fn the_walked_schemes_beat_the_published_counts() {
        for (text, count) in [
            (
                include_str!("../../../../tests/data/4x4x5-r61-additions229-flipgraph.json"),
                229,
            ),
            (
                include_str!("../../../../tests/data/5x5x5-r93-additions347-flipgraph.json"),
                347,
            ),
            (
                include_str!("../../../../tests/data/6x6x6-r153-additions595-flipgraph.json"),
                595,
            ),
        ] {
            let s = scheme(text);
            assert_eq!(crate::verify::verify_z(&s), Ok(()));
            let program = minimize(&s, false, Effort::DEFAULT);
            program.verify(4, 3).expect("it multiplies");
            assert_eq!(program.additions(), count);
        }
    }
}
