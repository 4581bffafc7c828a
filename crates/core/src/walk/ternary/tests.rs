//! Tests of the ternary walk.

use super::*;
use crate::walk::Plateau;

#[test]
fn every_scheme_of_a_walk_is_valid_over_z_and_the_index_consistent() {
    for (n, m, p) in [(2, 2, 2), (3, 3, 3), (2, 3, 4), (4, 4, 4)] {
        let shape = Shape::new(n, m, p).unwrap();
        for (sparsity, reductions) in [
            (Sparsity::Off, Reductions::Scan),
            (Sparsity::All, Reductions::Scan),
            (Sparsity::Off, Reductions::Walk),
        ] {
            let config = WalkConfig {
                plateau: Plateau::Fixed(300),
                max_rank: shape.naive_rank() + 4,
                sparsity,
                reductions,
                ..WalkConfig::default()
            };
            let mut w = TernaryWalker::new(&TernaryScheme::naive(shape).unwrap(), config, 42);
            for _ in 0..20 {
                w.walk(500, 0);
                w.check_invariants();
                assert_eq!(w.scheme().verify(), Ok(()), "{shape}");
            }
            assert_eq!(w.best().verify(), Ok(()), "{shape}");
            assert!(w.best_rank() <= w.rank());
            let c = w.counters();
            assert!(c.flips > 1000 && c.vertices == c.flips + c.plus, "{shape}: {c:?}");
        }
    }
}

#[test]
fn a_walk_from_the_naive_2x2x2_finds_a_rank_7_scheme_with_minus_signs() {
    let shape = Shape::square(2).unwrap();
    let found = (1..=8).find_map(|seed| {
        let mut w = TernaryWalker::new(&TernaryScheme::naive(shape).unwrap(), WalkConfig::default(), seed);
        w.walk(2_000_000, 7);
        (w.best_rank() == 7).then(|| w.best())
    });
    let best = found.expect("no seed of 8 reached rank 7 in 2M steps");
    assert_eq!(best.verify(), Ok(()));
    // Over Z, rank 7 needs a minus sign (Strassen's and every other rank-7 scheme has one).
    assert!(best
        .to_int()
        .terms
        .iter()
        .flat_map(|t| t.factors.iter().flatten())
        .any(|&x| x == -1));
}

#[test]
fn merges_of_terms_that_share_two_factors_are_taken_when_the_walker_starts() {
    let shape = Shape::square(2).unwrap();
    let naive = TernaryScheme::naive(shape).unwrap();
    // Split the first term's C factor into two terms: c = c + 0 as (c + e) + (-e).
    let t = naive.terms()[0];
    let e = Trits::unit(if t.get(Position::C).nonzero & 1 == 0 { 0 } else { 1 });
    let split = [
        t.with_factor(Position::C, t.get(Position::C).checked_add(e).unwrap()),
        t.with_factor(Position::C, e.negated()),
    ];
    let terms: Vec<_> = split.into_iter().chain(naive.terms()[1..].iter().copied()).collect();
    let scheme = TernaryScheme::new(shape, terms).unwrap();
    assert_eq!((scheme.rank(), scheme.verify()), (9, Ok(())));
    let w = TernaryWalker::new(&scheme, WalkConfig::default(), 1);
    assert_eq!(w.rank(), 8);
    assert_eq!(w.scheme().verify(), Ok(()));
}
