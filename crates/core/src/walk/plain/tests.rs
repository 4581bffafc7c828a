//! Tests of the plain walk.

use super::*;
use crate::verify::verify;
use crate::walk::{Plateau, Walk};

fn shapes() -> [Shape; 5] {
    [(2, 2, 2), (3, 3, 3), (2, 3, 4), (4, 4, 4), (5, 5, 5)].map(|(n, m, p)| Shape::new(n, m, p).unwrap())
}

#[test]
fn the_tensor_is_preserved_and_the_index_consistent_after_many_steps() {
    for shape in shapes() {
        for (generalized, sparsity, reductions) in [
            (false, Sparsity::Off, Reductions::Scan),
            (true, Sparsity::Off, Reductions::Scan),
            (true, Sparsity::All, Reductions::Scan),
            (true, Sparsity::Off, Reductions::Walk),
        ] {
            let config = WalkConfig {
                plateau: Plateau::Fixed(300),
                generalized,
                max_rank: shape.naive_rank() + 4,
                sparsity,
                reductions,
            };
            let mut w = Walker::new(&Scheme::naive(shape), config, 42);
            for _ in 0..20 {
                w.walk(500, 0);
                w.check_invariants();
                assert_eq!(verify(&w.scheme()), Ok(()), "{shape}");
            }
            assert_eq!(verify(&w.best()), Ok(()), "{shape}");
            assert!(w.best_rank() <= w.rank());
        }
    }
}

#[test]
fn counters_are_consistent() {
    let shape = Shape::square(4).unwrap();
    let mut w = Walker::new(
        &Scheme::naive(shape),
        WalkConfig {
            plateau: Plateau::Fixed(200),
            ..WalkConfig::default()
        },
        7,
    );
    let taken = w.walk(50_000, 0);
    let c = w.counters();
    assert_eq!(c.steps, taken);
    assert_eq!(c.vertices, c.flips + c.plus);
    assert!(c.vertices <= c.steps);
    // Every removed term came from the naive terms or from a plus move.
    assert_eq!(w.rank() as u64, shape.naive_rank() as u64 + c.plus - c.reductions);
    assert!(c.reductions > 0 && c.plus > 0, "{c:?}");
}

#[test]
fn a_walk_that_finds_its_reductions_by_flips_takes_merges_only() {
    // From naive 4x4x4 every reduction is a flip that zeroes a term: no generalized flips,
    // and the rank still falls.
    let shape = Shape::square(4).unwrap();
    let config = WalkConfig {
        plateau: Plateau::Fixed(1000),
        reductions: Reductions::Walk,
        ..WalkConfig::default()
    };
    let mut w = Walker::new(&Scheme::naive(shape), config, 3);
    w.walk(200_000, 0);
    let c = w.counters();
    assert_eq!(c.generalized, 0, "{c:?}");
    assert!(w.best_rank() < shape.naive_rank(), "{c:?}");
    assert_eq!(w.rank() as u64, shape.naive_rank() as u64 + c.plus - c.reductions);
    w.check_invariants();
    assert_eq!(verify(&w.best()), Ok(()));
}

#[test]
fn the_same_seed_gives_the_same_walk() {
    let s = Scheme::naive(Shape::square(3).unwrap());
    let run = |seed| {
        let mut w = Walker::new(&s, WalkConfig::default(), seed);
        w.walk(20_000, 0);
        (w.scheme(), w.counters())
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5).0, run(6).0);
}

#[test]
fn a_sparse_walk_keeps_its_factors_lighter_and_turns_flips_down() {
    let s = Scheme::naive(Shape::square(6).unwrap());
    let walk = |sparsity| {
        let config = WalkConfig {
            plateau: Plateau::Fixed(0),
            sparsity,
            ..WalkConfig::default()
        };
        let mut w = Walker::new(&s, config, 9);
        w.walk(100_000, 0);
        assert_eq!(verify(&w.scheme()), Ok(()));
        let weight: u32 = w.scheme().terms().iter().map(crate::sparsity::weight).sum();
        (weight, w.counters())
    };
    let (free, free_counters) = walk(Sparsity::Off);
    let (sparse, sparse_counters) = walk(Sparsity::All);
    assert_eq!(
        free_counters.flips, free_counters.steps,
        "a free walk takes every flip it draws"
    );
    assert!(sparse_counters.flips < sparse_counters.steps, "{sparse_counters:?}");
    assert!(2 * sparse < free, "sparse {sparse}, free {free}");
}

#[test]
fn a_walk_from_naive_3x3x3_descends() {
    let s = Scheme::naive(Shape::square(3).unwrap());
    let mut w = Walker::new(&s, WalkConfig::default(), 1);
    w.walk(2_000_000, 23);
    assert!(w.best_rank() <= 25, "reached only {}", w.best_rank());
    assert_eq!(verify(&w.best()), Ok(()));
}

#[test]
fn the_walk_stops_at_the_target() {
    let s = Scheme::naive(Shape::square(3).unwrap());
    let mut w = Walker::new(&s, WalkConfig::default(), 3);
    let taken = w.walk(10_000_000, 26);
    assert!(taken < 10_000_000);
    assert!(w.rank() <= 26);
}

#[test]
fn reducible_start_schemes_are_reduced() {
    let shape = Shape::square(2).unwrap();
    let mut terms = Scheme::naive(shape).into_terms();
    let t = terms.pop().unwrap();
    // Split one term into two that share two factors: the walker must merge them back.
    terms.push(Term::new(t.a, t.b, t.c ^ 1));
    terms.push(Term::new(t.a, t.b, 1));
    let w = Walker::new(&Scheme::new(shape, terms).unwrap(), WalkConfig::default(), 0);
    assert_eq!(w.rank(), 8);
    w.check_invariants();
}
