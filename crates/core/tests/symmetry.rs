//! The symmetric flip graph: every orbit move keeps the tensor and the cyclic invariance, the
//! conversions to and from plain schemes round-trip, non-invariant schemes are refused with the
//! term that breaks invariance, moves that would break invariance are refused, and the
//! symmetric walk descends (3x3x3 to Laderman's rank 23, 4x4x4 below 64).

use flipgraph_core::group::{is_invariant, orbits, Group};
use flipgraph_core::moves;
use flipgraph_core::rng::WyRand;
use flipgraph_core::symmetry::{
    is_c3_invariant, rotate, sigma, FixedTerms, MoveError, Orbit, OrbitKind, OrbitTerm, SymmetricScheme, SymmetryError,
};
use flipgraph_core::verify::{f2_tensor as tensor, verify};
use flipgraph_core::walk::{Plateau, Reductions, SymmetricWalker, Walk, WalkConfig};
use flipgraph_core::{Position, Scheme, Shape, Term};
use proptest::prelude::*;

fn square(n: usize) -> Shape {
    Shape::square(n).unwrap()
}

fn naive(n: usize) -> SymmetricScheme {
    SymmetricScheme::naive(square(n)).unwrap()
}

/// The scheme is a valid matrix multiplication scheme, invariant, and its orbits add up.
fn assert_valid(s: &SymmetricScheme) {
    let plain = s.to_scheme();
    assert_eq!(verify(&plain), Ok(()));
    assert!(is_c3_invariant(&plain));
    assert_eq!(plain.rank(), s.rank());
    assert_eq!(s.rank(), s.fixed_count() + 3 * s.triple_count());
    assert!(s.orbits().iter().all(|o| !o.is_zero()));
}

/// All terms of the scheme as `OrbitTerm`s.
fn all_terms(s: &SymmetricScheme) -> Vec<OrbitTerm> {
    (0..s.orbits().len())
        .flat_map(|o| (0..s.orbits()[o].size()).map(move |k| OrbitTerm::new(o, k)))
        .collect()
}

/// One random orbit move (flip most of the time; plus, merge, generalized flip and the cube
/// moves now and then). Returns which move was taken, if any.
fn random_move(s: &mut SymmetricScheme, rng: &mut WyRand) -> Option<&'static str> {
    let terms = all_terms(s);
    let pick = |rng: &mut WyRand| terms[rng.below(terms.len())];
    match rng.below(20) {
        0 => {
            let (t, u) = (pick(rng), pick(rng));
            s.plus(t, u).ok().map(|_| "plus")
        }
        1 => {
            let x = s.orbits().iter().position(|o| o.kind() == OrbitKind::Fixed)?;
            let y = (x + 1..s.orbits().len()).find(|&y| s.orbits()[y].kind() == OrbitKind::Fixed)?;
            s.from_cubes(x, y).ok().map(|_| "from_cubes")
        }
        2 => (0..s.orbits().len())
            .find(|&o| s.to_cubes(o).is_ok())
            .map(|_| "to_cubes"),
        3 => {
            // A generalized flip of all terms of distinct triples sharing a random term's first factor.
            let t = pick(rng);
            let key = s.term(t)?.a;
            let mut group: Vec<OrbitTerm> = Vec::new();
            for u in terms.iter().filter(|u| s.term(**u).unwrap().a == key) {
                if s.orbits()[u.orbit].kind() == OrbitKind::Triple && group.iter().all(|g| g.orbit != u.orbit) {
                    group.push(*u);
                }
            }
            s.generalized_flip(&group).ok().map(|_| "generalized")
        }
        4 => {
            let removed = s.reduce();
            (removed > 0).then_some("reduce")
        }
        _ => {
            let t = pick(rng);
            let key = s.term(t)?.a;
            let partners: Vec<OrbitTerm> = terms
                .iter()
                .copied()
                .filter(|u| u.orbit != t.orbit && s.term(*u).unwrap().a == key)
                .collect();
            let u = *partners.get(rng.below(partners.len().max(1)))?;
            s.flip(t, u).ok().map(|_| "flip")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Each orbit move, checked after every single move, keeps a valid invariant scheme.
    #[test]
    fn every_orbit_move_keeps_invariance_and_the_tensor(n in 2usize..=4, seed in any::<u64>(), steps in 1usize..150) {
        let mut s = naive(n);
        let mut rng = WyRand::new(seed);
        let mut taken = 0;
        for _ in 0..steps {
            let before = s.to_scheme();
            if random_move(&mut s, &mut rng).is_some() {
                taken += 1;
                assert_valid(&s);
            } else {
                // A refused move leaves the scheme as it was.
                prop_assert_eq!(s.to_scheme(), before);
            }
        }
        prop_assert!(taken > 0 || steps < 10);
    }

    /// Longer random sequences on all square shapes, checked at the end.
    #[test]
    fn long_move_sequences_keep_invariance_and_the_tensor(n in 2usize..=8, seed in any::<u64>()) {
        let mut s = naive(n);
        let mut rng = WyRand::new(seed);
        for _ in 0..300 {
            random_move(&mut s, &mut rng);
        }
        assert_valid(&s);
    }

    /// Orbits to a plain scheme and back give the same orbits; a shuffled plain invariant
    /// scheme gives orbits whose terms are the scheme's.
    #[test]
    fn conversions_round_trip(n in 2usize..=6, seed in any::<u64>()) {
        let mut s = naive(n);
        let mut rng = WyRand::new(seed);
        for _ in 0..100 {
            random_move(&mut s, &mut rng);
        }
        let plain = s.to_scheme();
        prop_assert_eq!(&SymmetricScheme::from_scheme(&plain).unwrap(), &s);
        prop_assert_eq!(&Scheme::from(&s), &plain);
        let mut terms = plain.into_terms();
        for i in (1..terms.len()).rev() {
            terms.swap(i, rng.below(i + 1));
        }
        let shuffled = Scheme::new(square(n), terms.clone()).unwrap();
        let back = SymmetricScheme::try_from(&shuffled).unwrap();
        prop_assert_eq!((back.rank(), back.fixed_count()), (s.rank(), s.fixed_count()));
        let mut again = back.to_scheme().into_terms();
        again.sort_unstable();
        terms.sort_unstable();
        prop_assert_eq!(again, terms);
    }

    /// The walk keeps a valid invariant scheme and a consistent index, with or without
    /// generalized flips.
    #[test]
    fn the_walk_keeps_invariance_and_the_tensor(n in 2usize..=6, seed in any::<u64>(), generalized in any::<bool>()) {
        let config = WalkConfig {
            plateau: Plateau::Fixed(200),
            generalized,
            max_rank: n * n * n + 9,
            ..WalkConfig::default()
        };
        let mut w = SymmetricWalker::new(&naive(n), config, seed);
        for _ in 0..4 {
            w.walk(2_000, 0);
            w.check_invariants();
            let s = w.symmetric_scheme().unwrap();
            assert_valid(&s);
            prop_assert_eq!(w.scheme(), s.to_scheme());
        }
        assert_valid(&w.best_symmetric().unwrap());
        prop_assert_eq!(w.best().rank(), w.best_rank());
        prop_assert!(w.best_rank() <= w.rank());
    }

    /// Every group's walk (its orbit flips, plus moves and reductions, found by scans or by the
    /// walk) keeps the tensor and the group's invariance, on square and rectangular shapes.
    #[test]
    fn every_groups_walk_keeps_invariance_and_the_tensor(
        dims in prop_oneof![Just((3, 3, 3)), Just((4, 4, 4)), Just((5, 5, 5)), Just((2, 3, 4)), Just((3, 4, 5))],
        group in prop_oneof![Just(Group::C3), Just(Group::Z2), Just(Group::C6)],
        walk_reductions in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let shape = Shape::new(dims.0, dims.1, dims.2).unwrap();
        prop_assume!(group.acts_on(shape));
        let config = WalkConfig {
            plateau: Plateau::Fixed(200),
            max_rank: shape.naive_rank() + 12,
            reductions: if walk_reductions { Reductions::Walk } else { Reductions::Scan },
            ..WalkConfig::default()
        };
        let start = orbits(group, &Scheme::naive(shape)).unwrap();
        let mut w = SymmetricWalker::from_orbits(&start, config, seed, FixedTerms::Frozen);
        for _ in 0..4 {
            w.walk(2_000, 0);
            w.check_invariants();
            let s = w.scheme();
            prop_assert_eq!(verify(&s), Ok(()));
            prop_assert!(is_invariant(group, &s), "{} {}: not invariant", shape, group);
        }
        let best = w.best();
        prop_assert_eq!(verify(&best), Ok(()));
        prop_assert!(is_invariant(group, &best));
        prop_assert_eq!(best.rank(), w.best_rank());
    }
}

#[test]
fn orbits_expand_to_their_terms() {
    let t = Term::new(1, 2, 4);
    assert_eq!(sigma(t), Term::new(2, 4, 1));
    assert_eq!(rotate(t, 2), sigma(sigma(t)));
    assert_eq!(rotate(t, 3), t);
    let o = Orbit::new(t);
    assert_eq!((o.kind(), o.size()), (OrbitKind::Triple, 3));
    assert_eq!(
        o.terms().collect::<Vec<_>>(),
        vec![t, Term::new(2, 4, 1), Term::new(4, 1, 2)]
    );
    let f = Orbit::fixed(9);
    assert_eq!((f.kind(), f.size()), (OrbitKind::Fixed, 1));
    assert_eq!(f.terms().collect::<Vec<_>>(), vec![Term::new(9, 9, 9)]);
    // The kind follows the representative.
    assert_eq!(Orbit::new(Term::new(3, 3, 3)), Orbit::fixed(3));
}

#[test]
fn the_symmetric_naive_schemes_are_valid() {
    for n in 1..=8 {
        let s = naive(n);
        assert_valid(&s);
        assert_eq!((s.rank(), s.fixed_count()), (n * n * n, n));
        let fixed: Vec<Term> = s
            .orbits()
            .iter()
            .filter(|o| o.kind() == OrbitKind::Fixed)
            .map(|o| o.representative())
            .collect();
        let diagonal: Vec<Term> = (0..n)
            .map(|i| 1u64 << (i * n + i))
            .map(|x| Term::new(x, x, x))
            .collect();
        assert_eq!(fixed, diagonal);
    }
    assert!(matches!(
        SymmetricScheme::naive(Shape::new(2, 3, 4).unwrap()),
        Err(SymmetryError::NotSquare { .. })
    ));
}

#[test]
fn non_invariant_schemes_are_refused_with_the_term_whose_image_is_missing() {
    let shape = square(3);
    let mut terms = Scheme::naive(shape).into_terms();
    // Remove e_12 (x) e_23 (x) e_31 (i, j, k = 0, 1, 2): index 0*9 + 1*3 + 2 = 5.
    let removed = terms.remove(5);
    assert_eq!(removed, Term::new(1 << 1, 1 << 5, 1 << 6));
    let broken = Scheme::new(shape, terms.clone()).unwrap();
    assert!(verify(&broken).is_err());
    assert!(!is_c3_invariant(&broken));
    // The first remaining term of its orbit is its image under sigma: (j, k, i) = (1, 2, 0),
    // at index 1*9 + 2*3 + 0 = 15, now 14. Its image under sigma^2 is the removed term.
    let first = terms.iter().position(|t| Orbit::new(*t).contains(&removed)).unwrap();
    assert_eq!(first, 14);
    assert_eq!(sigma(removed), terms[14]);
    let err = SymmetricScheme::from_scheme(&broken).unwrap_err();
    assert_eq!(
        err,
        SymmetryError::NotInvariant {
            term: 14,
            power: 2,
            image: removed
        }
    );
    let message = err.to_string();
    assert!(
        message.contains("term 14") && message.contains("a=0x2 b=0x20 c=0x40"),
        "{message}"
    );

    // A doubled term needs its images doubled too.
    let mut doubled = Scheme::naive(shape).into_terms();
    doubled.push(doubled[5]);
    let err = SymmetricScheme::from_scheme(&Scheme::new(shape, doubled).unwrap()).unwrap_err();
    assert!(matches!(err, SymmetryError::NotInvariant { term: 27, .. }), "{err:?}");

    // Shapes that are not square.
    let rect = Scheme::naive(Shape::new(2, 2, 3).unwrap());
    assert!(!is_c3_invariant(&rect));
    assert_eq!(
        SymmetricScheme::from_scheme(&rect),
        Err(SymmetryError::NotSquare { shape: rect.shape() })
    );
    // Factors out of range and zero orbits.
    assert!(matches!(
        SymmetricScheme::new(square(2), vec![Orbit::new(Term::new(16, 1, 1))]),
        Err(SymmetryError::FactorRange(_))
    ));
    assert_eq!(
        SymmetricScheme::new(square(2), vec![Orbit::fixed(1), Orbit::new(Term::new(0, 1, 1))]),
        Err(SymmetryError::ZeroOrbit { orbit: 1 })
    );
}

#[test]
fn invariance_is_recognized_on_plain_schemes() {
    for n in 1..=8 {
        assert!(is_c3_invariant(&Scheme::naive(square(n))));
    }
    // Zero terms are ignored; the plain walk's schemes are almost never invariant.
    let mut terms = Scheme::naive(square(2)).into_terms();
    terms.push(Term::new(0, 3, 5));
    assert!(is_c3_invariant(&Scheme::new(square(2), terms).unwrap()));
    let mut plain = flipgraph_core::walk::Walker::new(&Scheme::naive(square(3)), WalkConfig::default(), 1);
    plain.walk(10_000, 0);
    assert!(!is_c3_invariant(&plain.scheme()));
}

/// The flip moves that would break invariance are refused, and applying them to the plain
/// scheme (the plain flip and, where they still apply, its images) indeed breaks it.
#[test]
fn moves_that_break_invariance_are_not_offered() {
    let shape = square(2);
    let s = naive(2);
    // A fixed term e_11^3 and a triple e_11 (x) e_12 (x) e_21 share e_11.
    let fixed = s.orbits().iter().position(|o| o.kind() == OrbitKind::Fixed).unwrap();
    let triple = (0..s.orbits().len())
        .find(|&o| s.orbits()[o].kind() == OrbitKind::Triple && s.orbits()[o].representative().a == 1)
        .unwrap();
    let (f, t) = (OrbitTerm::new(fixed, 0), OrbitTerm::new(triple, 0));
    assert_eq!(s.term(f).unwrap().a, s.term(t).unwrap().a);
    for (keep, other) in [(f, t), (t, f)] {
        let mut refused = s.clone();
        assert_eq!(refused.flip(keep, other), Err(MoveError::Fixed { orbit: fixed }));
        assert_eq!(refused, s);
        // The plain flip and its images, in every order they can be applied: never invariant.
        let mut terms = s.to_scheme().into_terms();
        let (i, j) = (
            terms.iter().position(|x| *x == s.term(keep).unwrap()).unwrap(),
            terms.iter().position(|x| *x == s.term(other).unwrap()).unwrap(),
        );
        let (mut x, mut y) = (terms[i], terms[j]);
        moves::flip(&mut x, &mut y, Position::A);
        terms[i] = x;
        terms[j] = y;
        let once = Scheme::new(shape, terms.clone()).unwrap();
        assert_eq!(verify(&once), Ok(()));
        assert!(!is_c3_invariant(&once));
    }
    // A plus move may read a fixed term but not change one.
    let mut p = s.clone();
    assert_eq!(p.plus(t, f), Err(MoveError::Fixed { orbit: fixed }));
    let other = (0..p.orbits().len())
        .find(|&o| p.orbits()[o].kind() == OrbitKind::Triple && p.orbits()[o].representative().a != 1)
        .unwrap();
    assert_eq!(p.plus(f, OrbitTerm::new(other, 0)), Ok(()));
    assert_valid(&p);
    assert_eq!(p.rank(), 11);

    // Within one orbit: a (x) a (x) c and its image a (x) c (x) a share a.
    let odd = SymmetricScheme::new(shape, vec![Orbit::new(Term::new(1, 1, 2))]).unwrap();
    let (t0, t1) = (OrbitTerm::new(0, 0), OrbitTerm::new(0, 1));
    assert_eq!(odd.term(t0).unwrap().a, odd.term(t1).unwrap().a);
    assert_eq!(odd.clone().flip(t0, t1), Err(MoveError::SameOrbit { orbit: 0 }));
    assert_eq!(odd.clone().plus(t0, t1), Err(MoveError::SameOrbit { orbit: 0 }));
    let mut terms = odd.to_scheme().into_terms();
    let (mut x, mut y) = (terms[0], terms[1]);
    moves::flip(&mut x, &mut y, Position::A);
    terms[0] = x;
    terms[1] = y;
    assert!(!is_c3_invariant(&Scheme::new(shape, terms).unwrap()));

    // Other refusals.
    let mut s2 = s.clone();
    assert_eq!(s2.flip(t, OrbitTerm::new(99, 0)), Err(MoveError::NoOrbit { orbit: 99 }));
    assert_eq!(s2.flip(t, OrbitTerm::new(other, 0)), Err(MoveError::NoSharedFactor));
    assert_eq!(s2.merge(t, OrbitTerm::new(other, 0)), Err(MoveError::NotMergeable));
    assert_eq!(s2.to_cubes(triple), Err(MoveError::NotCubes { orbit: triple }));
    assert_eq!(s2.from_cubes(fixed, triple), Err(MoveError::NotFixed { orbit: triple }));
    assert_eq!(s2.generalized_flip(&[t]), Err(MoveError::GroupTooSmall));
    assert_eq!(s2, s);
}

#[test]
fn orbit_reductions_settle_into_fixed_terms_and_cancel() {
    let shape = square(2);
    // Two copies of one triple merge to nothing; two equal fixed terms cancel.
    let t = Term::new(1, 2, 4);
    let mut s = SymmetricScheme::new(
        shape,
        vec![Orbit::new(t), Orbit::new(sigma(t)), Orbit::fixed(8), Orbit::fixed(8)],
    )
    .unwrap();
    assert_eq!(s.rank(), 8);
    assert_eq!(s.reduce(), 8);
    assert_eq!(s.rank(), 0);
    // A flip that makes a representative X (x) X (x) X leaves one fixed term (3 copies = 1).
    // t = 1 (x) 1 (x) 2 and u = 1 (x) 4 (x) 3: flipping keeps t's A and B, t.c + u.c = 1.
    let mut s = SymmetricScheme::new(
        shape,
        vec![Orbit::new(Term::new(1, 1, 2)), Orbit::new(Term::new(1, 4, 3))],
    )
    .unwrap();
    let before = s.to_scheme();
    s.flip(OrbitTerm::new(0, 0), OrbitTerm::new(1, 0)).unwrap();
    assert_eq!(s.orbits()[0], Orbit::fixed(1));
    assert_eq!(s.rank(), 4);
    assert!(is_c3_invariant(&s.to_scheme()));
    assert_eq!(tensor(&s.to_scheme()), tensor(&before));
    // Merge of two triples sharing two factors: three terms fewer.
    let mut m = SymmetricScheme::new(
        shape,
        vec![Orbit::new(Term::new(1, 2, 4)), Orbit::new(Term::new(8, 1, 2))],
    )
    .unwrap();
    let before = m.to_scheme();
    m.merge(OrbitTerm::new(0, 0), OrbitTerm::new(1, 1)).unwrap();
    assert_eq!(m.orbits(), &[Orbit::new(Term::new(1, 2, 12))]);
    assert_eq!(tensor(&m.to_scheme()), tensor(&before));
}

#[test]
fn a_walk_from_the_symmetric_naive_3x3x3_reaches_rank_23() {
    // Rank 23 = 5 fixed terms + 6 triples (or 2 + 7): the walk must change the fixed terms of
    // the naive start (3), which only settling and cube reductions do.
    let start = naive(3);
    let found = (0..16u64).find_map(|seed| {
        let mut w = SymmetricWalker::new(&start, WalkConfig::default(), seed);
        let steps = w.walk(1_000_000, 23);
        (w.best_rank() == 23).then_some((seed, steps, w))
    });
    let (seed, steps, w) = found.expect("no seed reached rank 23");
    assert!(steps < 1_000_000, "seed {seed}");
    let best = w.best();
    assert_eq!(best.rank(), 23);
    assert_eq!(verify(&best), Ok(()));
    assert!(is_c3_invariant(&best));
    let orbits = SymmetricScheme::from_scheme(&best).unwrap();
    assert_eq!(orbits.rank(), 23);
    assert_eq!(orbits.fixed_count() % 3, 2);
    w.check_invariants();
}

#[test]
fn a_walk_on_4x4x4_reduces_the_rank() {
    let mut w = SymmetricWalker::new(&naive(4), WalkConfig::default(), 3);
    w.walk(300_000, 0);
    assert!(w.best_rank() <= 61, "best {}", w.best_rank());
    let best = w.best();
    assert_eq!(verify(&best), Ok(()));
    assert!(is_c3_invariant(&best));
    w.check_invariants();
}

#[test]
fn counters_are_consistent_and_walks_reproducible() {
    let start = naive(4);
    let config = WalkConfig {
        plateau: Plateau::Fixed(200),
        ..WalkConfig::default()
    };
    let mut w = SymmetricWalker::new(&start, config, 7);
    let taken = w.walk(50_000, 0);
    let c = w.counters();
    assert_eq!(c.steps, taken);
    assert!(c.vertices <= c.steps && c.vertices >= c.flips + c.plus);
    assert_eq!(c.vertices, c.flips + c.plus);
    // Each plus move adds three terms of the plain scheme; reductions count them net.
    assert_eq!(w.rank() as u64, 64 + 3 * c.plus - c.reductions);
    assert!(c.reductions > 0 && c.plus > 0 && c.generalized > 0, "{c:?}");
    assert_eq!(w.plateau_limit(), 200);

    let run = |seed| {
        let mut w = SymmetricWalker::new(&start, WalkConfig::default(), seed);
        w.walk(20_000, 0);
        (w.scheme(), w.counters())
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5).0, run(6).0);

    // The walk stops at the target.
    let mut w = SymmetricWalker::new(&start, WalkConfig::default(), 3);
    let taken = w.walk(10_000_000, 61);
    assert!(taken < 10_000_000 && w.rank() <= 61);
}

#[test]
fn a_walker_takes_the_reductions_of_its_start_and_refuses_non_invariant_ones() {
    // The naive 2x2x2 plus a triple twice and a fixed term twice: all cancel at once.
    let mut orbits = naive(2).orbits().to_vec();
    let t = Orbit::new(Term::new(3, 5, 6));
    orbits.extend([t, t, Orbit::fixed(15), Orbit::fixed(15)]);
    let s = SymmetricScheme::new(square(2), orbits).unwrap();
    let w = SymmetricWalker::new(&s, WalkConfig::default(), 0);
    assert_eq!(w.rank(), 8);
    assert_eq!(w.best_rank(), 8);
    assert_eq!(w.counters().reductions, 8);
    w.check_invariants();

    let ok = SymmetricWalker::from_scheme(&Scheme::naive(square(3)), WalkConfig::default(), 0).unwrap();
    assert_eq!(ok.rank(), 27);
    let mut terms = Scheme::naive(square(3)).into_terms();
    // Without a fixed term the scheme is wrong but invariant; without another, not invariant.
    let fixed = terms.pop().unwrap();
    assert_eq!(fixed, Term::new(1 << 8, 1 << 8, 1 << 8));
    assert!(SymmetricWalker::from_scheme(
        &Scheme::new(square(3), terms.clone()).unwrap(),
        WalkConfig::default(),
        0
    )
    .is_ok());
    terms.remove(1);
    let broken = Scheme::new(square(3), terms).unwrap();
    assert!(matches!(
        SymmetricWalker::from_scheme(&broken, WalkConfig::default(), 0),
        Err(SymmetryError::NotInvariant { .. })
    ));
}

/// The random move sequences of the property tests take every kind of move, each checked.
#[test]
fn the_random_moves_cover_every_kind() {
    let mut seen = std::collections::BTreeMap::new();
    for seed in 0..8 {
        let mut s = naive(3);
        let mut rng = WyRand::new(seed);
        for _ in 0..300 {
            if let Some(kind) = random_move(&mut s, &mut rng) {
                *seen.entry(kind).or_insert(0) += 1;
                assert_valid(&s);
            }
        }
    }
    let kinds: Vec<&str> = seen.keys().copied().collect();
    assert_eq!(
        kinds,
        ["flip", "from_cubes", "generalized", "plus", "reduce", "to_cubes"],
        "{seen:?}"
    );
}

/// Starts with chosen fixed terms, as in the searches of Moosbauer and Poole: the tensor is
/// kept, the cubes are in, and a walk from 3x3x3 with the cubes e_22 and e_11 + e_33 reaches
/// rank 23.
#[test]
fn cubes_put_into_a_scheme_keep_it_valid() {
    for n in 2..=6 {
        let identity: u64 = (0..n).map(|i| 1u64 << (i * n + i)).sum();
        let s = naive(n).with_cubes(&[identity]).unwrap();
        assert_valid(&s);
        assert!(s.orbits().contains(&Orbit::fixed(identity)));
        // The naive fixed terms e_ii^3 cancel with those of the expansion.
        assert_eq!(s.fixed_count(), 1, "{n}");
        assert_eq!(s.rank(), 2 * n * n * n - 2 * n + 1);
        // A unit cube is in the naive scheme already: put in, it changes nothing.
        assert_eq!(naive(n).with_cubes(&[1]).unwrap(), naive(n));
    }
    assert!(matches!(
        naive(2).with_cubes(&[1 << 4]),
        Err(SymmetryError::FactorRange(_))
    ));

    let start = naive(3).with_cubes(&[1 << 4, 1 | 1 << 8]).unwrap();
    assert_valid(&start);
    assert!(start.orbits().contains(&Orbit::fixed(1 << 4)) && start.orbits().contains(&Orbit::fixed(1 | 1 << 8)));
    // From these two cubes (Poole's 3x3x3 start) rank 23 comes within a few ten thousand steps.
    let w = (0..8u64)
        .map(|seed| {
            let mut w = SymmetricWalker::new(&start, WalkConfig::default(), seed);
            w.walk(300_000, 23);
            w
        })
        .find(|w| w.best_rank() == 23)
        .expect("no seed reached rank 23");
    assert_valid(&w.best_symmetric().unwrap());
}

/// The fixed terms of a scheme, sorted.
fn fixed_terms(s: &SymmetricScheme) -> Vec<Term> {
    let mut fixed: Vec<Term> = s
        .orbits()
        .iter()
        .filter(|o| o.kind() == OrbitKind::Fixed)
        .map(Orbit::representative)
        .collect();
    fixed.sort_unstable();
    fixed
}

/// With frozen fixed terms a long walk (plus moves, reductions and generalized flips among
/// them) moves only the triples: the fixed terms of the start are those of every scheme it
/// holds and of its best, which is lower than the start. Moosbauer and Poole's 5x5x5 start has
/// the cubes (e_11 + e_55)^3, (e_22 + e_44)^3 and e_33^3; from naive the fixed terms are the
/// e_ii^3, which free walks of 3x3x3 change to reach rank 23.
#[test]
fn frozen_fixed_terms_stay_unchanged_over_a_long_walk() {
    let e = |n: usize, i: usize| 1u64 << (i * n + i);
    let starts = [
        naive(3),
        naive(4).with_cubes(&[e(4, 0) | e(4, 3), e(4, 1) | e(4, 2)]).unwrap(),
        naive(5)
            .with_cubes(&[e(5, 0) | e(5, 4), e(5, 1) | e(5, 3), e(5, 2)])
            .unwrap(),
    ];
    assert_eq!(starts[2].rank(), 135);
    for start in &starts {
        let fixed = fixed_terms(start);
        let config = WalkConfig {
            plateau: Plateau::Fixed(300),
            max_rank: start.rank() + 6,
            ..WalkConfig::default()
        };
        let mut w = SymmetricWalker::with_fixed_terms(start, config, 11, FixedTerms::Frozen);
        for _ in 0..20 {
            w.walk(20_000, 0);
            w.check_invariants();
            assert_valid(&w.symmetric_scheme().unwrap());
            assert_eq!(fixed_terms(&w.symmetric_scheme().unwrap()), fixed, "{}", start.shape());
        }
        let c = w.counters();
        assert!(c.plus > 0 && c.generalized > 0, "{c:?}");
        assert!(w.best_rank() < start.rank(), "{}: no descent", start.shape());
        assert_eq!(fixed_terms(&w.best_symmetric().unwrap()), fixed);
        assert_valid(&w.best_symmetric().unwrap());
    }
    // Free, the 3x3x3 walk changes them.
    let changed = (0..8).any(|seed| {
        let mut free = SymmetricWalker::new(&naive(3), WalkConfig::default(), seed);
        (0..20).any(|_| {
            free.walk(20_000, 0);
            fixed_terms(&free.symmetric_scheme().unwrap()) != fixed_terms(&naive(3))
        })
    });
    assert!(changed, "no free walk changed its fixed terms");
}

#[test]
fn a_walk_with_a_huge_plus_slack_stops_climbing_at_twice_the_naive_rank() {
    // Plus moves after every 2 steps, with no ceiling asked for: the walk must neither fill its
    // tables (it hung before the ceiling) nor climb past twice the naive rank.
    let config = WalkConfig {
        plateau: Plateau::Fixed(2),
        generalized: false,
        max_rank: usize::MAX / 2,
        ..WalkConfig::default()
    };
    let mut w = SymmetricWalker::new(&naive(3), config, 11);
    for _ in 0..20 {
        w.walk(5_000, 0);
        assert!(w.rank() <= 2 * 27, "rank {}", w.rank());
        w.check_invariants();
    }
    assert_eq!(verify(&w.scheme()), Ok(()));
}
