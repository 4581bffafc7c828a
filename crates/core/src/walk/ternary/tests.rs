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

mod cyclic {
    use super::super::TernaryC3Walker;
    use crate::shape::Shape;
    use crate::ternary::{CyclicOrbits, TernaryScheme, Trits};
    use crate::walk::{Plateau, WalkConfig};

    /// Moosbauer and Poole's 5x5x5 cubes: 10001, 01010, 00100.
    fn cubes_5() -> [Trits; 3] {
        let diagonal = |d: &[usize]| d.iter().fold(Trits::ZERO, |x, &i| x.with(6 * i, 1).unwrap());
        [diagonal(&[0, 4]), diagonal(&[1, 3]), diagonal(&[2])]
    }

    #[test]
    fn every_scheme_of_a_c3_walk_is_valid_over_z_invariant_and_keeps_its_cubes() {
        let starts = [
            TernaryScheme::naive(Shape::square(3).unwrap()).unwrap(),
            TernaryScheme::naive(Shape::square(4).unwrap()).unwrap(),
            TernaryScheme::with_cubes(Shape::square(5).unwrap(), &cubes_5()).unwrap(),
        ];
        for (i, start) in starts.iter().enumerate() {
            let shape = start.shape();
            let cubes = CyclicOrbits::of(start).unwrap().fixed;
            let config = WalkConfig {
                plateau: Plateau::Fixed(200),
                max_rank: start.rank() + 6,
                ..WalkConfig::default()
            };
            let mut w = TernaryC3Walker::new(start, config, 7 + i as u64).unwrap();
            for _ in 0..30 {
                w.walk(400, 0);
                w.check_invariants();
                let scheme = w.scheme();
                assert_eq!(scheme.verify(), Ok(()), "{shape}");
                assert_eq!(scheme.rank(), w.rank());
                let orbits = CyclicOrbits::of(&scheme).expect("invariant");
                assert_eq!(orbits.fixed, cubes, "{shape}: the cubes are frozen");
                assert_eq!((w.rank() - cubes.len()) % 3, 0);
            }
            assert_eq!(w.best().verify(), Ok(()), "{shape}");
            assert!(w.best_rank() <= w.rank(), "{shape}");
            let c = w.counters();
            assert!(c.flips > 1000 && c.plus > 0 && c.reductions > 0, "{shape}: {c:?}");
            assert_eq!(c.vertices, c.flips + c.plus, "{shape}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Any seed, plateau and start (naive, or one or two diagonal cubes): every scheme the
        /// walk passes is valid over Z and invariant, with its cubes as they started.
        #[test]
        fn every_orbit_move_keeps_the_tensor_over_z(
            seed: u64, n in 2usize..=4, plateau in 1u64..400, count in 0usize..3
        ) {
            let shape = Shape::square(n).unwrap();
            let diagonal = |d: core::ops::Range<usize>| d.fold(Trits::ZERO, |x, i| x.with(i * n + i, 1).unwrap());
            let cubes = [diagonal(0..n - 1), diagonal(n - 1..n)];
            let start = TernaryScheme::with_cubes(shape, &cubes[..count]).unwrap();
            let fixed = CyclicOrbits::of(&start).unwrap().fixed;
            let config = WalkConfig { plateau: Plateau::Fixed(plateau), max_rank: start.rank() + 9, ..WalkConfig::default() };
            let mut w = TernaryC3Walker::new(&start, config, seed).unwrap();
            for _ in 0..4 {
                w.walk(300, 0);
                let scheme = w.scheme();
                proptest::prop_assert_eq!(scheme.verify(), Ok(()));
                proptest::prop_assert_eq!(&CyclicOrbits::of(&scheme).unwrap().fixed, &fixed);
            }
            proptest::prop_assert_eq!(w.best().verify(), Ok(()));
        }
    }

    #[test]
    fn a_c3_walk_of_the_naive_3x3x3_reaches_rank_24_over_z() {
        let start = TernaryScheme::naive(Shape::square(3).unwrap()).unwrap();
        let found = (1..=8).find_map(|seed| {
            let mut w = TernaryC3Walker::new(&start, WalkConfig::default(), seed).unwrap();
            w.walk(2_000_000, 24);
            (w.best_rank() == 24).then(|| w.best())
        });
        let best = found.expect("rank 24 within 8 seeds");
        assert_eq!(best.verify(), Ok(()));
        assert!(CyclicOrbits::of(&best).is_ok());
    }

    #[test]
    fn a_walk_with_no_free_orbit_takes_no_move() {
        // 1x1x1: one cube and nothing else, so no flip and no plus move exists.
        let start = TernaryScheme::naive(Shape::square(1).unwrap()).unwrap();
        let mut w = TernaryC3Walker::new(&start, WalkConfig::default(), 1).unwrap();
        assert_eq!(w.walk(10, 0), 10);
        assert_eq!((w.rank(), w.counters().vertices), (1, 0));
    }

    #[test]
    fn a_scheme_that_is_not_invariant_is_refused() {
        let shape = Shape::new(2, 2, 3).unwrap();
        assert!(TernaryC3Walker::new(&TernaryScheme::naive(shape).unwrap(), WalkConfig::default(), 1).is_err());
    }
}
