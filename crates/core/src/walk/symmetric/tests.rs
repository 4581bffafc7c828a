use super::*;
use crate::group::{orbits, Element, Reversal};
use crate::plateau::Plateau;
use crate::rng::WyRand;
use crate::verify::verify;
use crate::walk::Reductions;

fn config(shape: Shape, generalized: bool) -> WalkConfig {
    WalkConfig {
        plateau: Plateau::Fixed(300),
        generalized,
        max_rank: shape.naive_rank() + 12,
        ..WalkConfig::default()
    }
}

/// The three ways a walk finds reductions: scans with and without generalized flips, and by
/// the walk (flips that zero a factor).
fn configs(shape: Shape) -> [WalkConfig; 3] {
    [
        config(shape, false),
        config(shape, true),
        WalkConfig {
            reductions: Reductions::Walk,
            ..config(shape, true)
        },
    ]
}

/// Walks of every group from naive schemes, square and rectangular, with and without
/// generalized flips: the tensor is kept, every scheme is invariant, the index consistent, and
/// the frozen fixed terms unchanged.
#[test]
fn every_group_keeps_the_tensor_invariance_and_its_index() {
    let shapes = [
        (2, 2, 2),
        (3, 3, 3),
        (4, 4, 4),
        (5, 5, 5),
        (2, 3, 4),
        (3, 4, 5),
        (3, 3, 5),
    ];
    for (n, m, p) in shapes {
        let shape = Shape::new(n, m, p).unwrap();
        for group in Group::ALL.into_iter().filter(|g| g.acts_on(shape)) {
            let start = orbits(group, &Scheme::naive(shape)).unwrap();
            for config in configs(shape) {
                let mut w = SymmetricWalker::from_orbits(&start, config, 42, FixedTerms::Frozen);
                for _ in 0..6 {
                    w.walk(500, 0);
                    w.check_invariants();
                    assert_eq!(verify(&w.scheme()), Ok(()), "{shape} {group}");
                    let mut fixed = w.orbits().fixed;
                    fixed.sort_unstable();
                    let mut before = start.fixed.clone();
                    before.sort_unstable();
                    assert_eq!(fixed, before, "{shape} {group}: a frozen fixed term moved");
                }
                let best = w.best();
                assert_eq!(verify(&best), Ok(()), "{shape} {group}");
                assert!(crate::group::is_invariant(group, &best), "{shape} {group}");
                assert_eq!(best.rank(), w.best_rank());
                let c = w.counters();
                assert!(c.flips > 0 && c.plus > 0, "{shape} {group}: {c:?}");
                if config.reductions == Reductions::Walk {
                    assert_eq!(
                        c.generalized, 0,
                        "{shape} {group}: a walk by flips took a generalized flip"
                    );
                }
            }
        }
    }
}

/// The free C3 walk (cubes may change) keeps the tensor and the index, as before it was generic.
#[test]
fn the_free_c3_walk_keeps_the_tensor_and_its_index() {
    for n in 2..=5 {
        let shape = Shape::square(n).unwrap();
        for config in configs(shape) {
            let mut w = SymmetricWalker::new(&SymmetricScheme::naive(shape).unwrap(), config, 42);
            for _ in 0..10 {
                w.walk(500, 0);
                w.check_invariants();
                assert_eq!(verify(&w.scheme()), Ok(()), "{shape}");
                assert_eq!(w.symmetric_scheme().unwrap().to_scheme(), w.scheme());
            }
            assert_eq!(verify(&w.best()), Ok(()), "{shape}");
            assert!(w.best_rank() <= w.rank());
        }
    }
}

/// Walks under Z2 and C6 descend from naive schemes: 3x3x3 and 3x4x5 under Z2 (by two terms
/// at a time), 4x4x4 under C6 (by six: its cubes and reversed pairs of cubes are frozen).
#[test]
fn walks_under_z2_and_c6_descend() {
    for (dims, group, below) in [
        ((3, 3, 3), Group::Z2, 27),
        ((4, 4, 4), Group::C6, 64),
        ((3, 4, 5), Group::Z2, 60),
    ] {
        let shape = Shape::new(dims.0, dims.1, dims.2).unwrap();
        let start = orbits(group, &Scheme::naive(shape)).unwrap();
        let reached = (0..4u64).any(|seed| {
            let mut w = SymmetricWalker::from_orbits(&start, WalkConfig::default(), seed, FixedTerms::Frozen);
            w.walk(300_000, below - 2);
            w.best_rank() < below
        });
        assert!(reached, "{shape} {group}: no seed went below {below}");
    }
}

/// The action's shortcuts agree with the group's elements: a term's representative under
/// `g` gives the term back, the key is the smaller of a factor and its reversal, and freeness
/// is [`Reversal::is_free`].
#[test]
fn the_action_agrees_with_the_elements() {
    let mut rng = WyRand::new(7);
    for (n, m, p) in [(3, 3, 3), (4, 4, 4), (2, 3, 5), (4, 5, 6)] {
        let shape = Shape::new(n, m, p).unwrap();
        let reversal = Reversal::of(shape);
        for group in Group::ALL.into_iter().filter(|g| g.acts_on(shape)) {
            let action = Action::new(group, shape).unwrap();
            for _ in 0..500 {
                let mut f = [0; 3];
                for (k, x) in f.iter_mut().enumerate() {
                    let bits = shape.factor_bits(crate::term::Position::from_index(k));
                    // Small factors too, so that cubes and palindromes come up.
                    *x = rng.bits() & ((1u64 << bits.min(rng.below(4) + 1)) - 1) | 1;
                }
                if rng.below(4) == 0 && shape.is_square() {
                    f = [f[0]; 3];
                }
                let t = Term::new(f[0], f[1], f[2]);
                assert_eq!(action.is_free(t), reversal.is_free(group, t), "{shape} {group} {t:?}");
                for g in group.elements() {
                    assert_eq!(action.representative(g, action.term(g, f)), f);
                    assert_eq!(action.term(g, f), reversal.act(g, t));
                }
                for k in 0..3 {
                    let g = action.element(k, f);
                    let shown = action.term(g, f).get(action.position(k));
                    assert_eq!(shown, action.key(k, f[k]), "{shape} {group}");
                    assert!(group.elements().any(|h| h == g));
                }
                assert_eq!(
                    action.key(0, f[0]) == f[0],
                    !group.reverses() || f[0] <= reversal.factor(crate::term::Position::A, f[0])
                );
            }
            assert_eq!(action.element(0, [1, 1, 1]), Element::IDENTITY);
        }
    }
}
