//! Sums and splits of schemes: the sum of two valid schemes along any dimension is valid, of
//! the summed rank, over F2 and over Z; splitting it at the seam gives the two back (term for
//! term); a split anywhere gives valid schemes; shapes that do not fit are refused. A change of
//! basis keeps a scheme valid, and the best projection (over F2) beats every index and finds a
//! slice a change of basis hid.

use flipgraph_core::algebra::{extend, project, split, sum, Dim, SumError};
use flipgraph_core::projection::{best_projection, change_basis};
use flipgraph_core::verify::{verify, verify_z};
use flipgraph_core::walk::{Walk, WalkConfig, Walker};
use flipgraph_core::{IntScheme, Scheme, Shape};
use proptest::prelude::*;

/// A valid scheme of `shape` with little structure left: the naive one after a short walk.
fn walked(shape: Shape, seed: u64) -> IntScheme {
    let mut walker = Walker::new(&Scheme::naive(shape), WalkConfig::default(), seed);
    walker.walk(100, 0);
    IntScheme::from_f2(&walker.scheme())
}

fn dim(k: usize) -> Dim {
    [Dim::N, Dim::M, Dim::P][k]
}

/// The terms sorted: a multiset to compare.
fn sorted(s: &IntScheme) -> Vec<Vec<Vec<i64>>> {
    let mut t: Vec<Vec<Vec<i64>>> = s.terms.iter().map(|t| t.factors.to_vec()).collect();
    t.sort();
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_sum_is_valid_and_splits_back_at_its_seam(
        (n, m, p) in (1usize..=4, 1usize..=4, 1usize..=4),
        extra in 1usize..=4,
        k in 0usize..3,
        seeds in any::<(u64, u64)>(),
    ) {
        let mut second = [n, m, p];
        second[k] = extra;
        let x = walked(Shape::new(n, m, p).unwrap(), seeds.0);
        let y = walked(Shape::new(second[0], second[1], second[2]).unwrap(), seeds.1);
        let s = sum(&x, &y, dim(k)).unwrap();
        let mut dims = [n, m, p];
        dims[k] += extra;
        prop_assert_eq!(s.shape.dims(), dims);
        prop_assert_eq!(s.rank(), x.rank() + y.rank());
        prop_assert_eq!(verify(&s.mod2::<u64>().unwrap()), Ok(()));
        // Over Z too, where both parts are (the flips of F2 schemes need not be).
        if verify_z(&x).is_ok() && verify_z(&y).is_ok() {
            prop_assert_eq!(verify_z(&s), Ok(()));
        }
        let (a, b) = split(&s, dim(k), [n, m, p][k]).unwrap();
        prop_assert_eq!(sorted(&a), sorted(&x));
        prop_assert_eq!(sorted(&b), sorted(&y));
    }

    #[test]
    fn a_split_anywhere_gives_valid_schemes(
        (n, m, p) in (1usize..=5, 1usize..=5, 1usize..=5),
        k in 0usize..3,
        at in 1usize..5,
        seed in any::<u64>(),
    ) {
        let size = [n, m, p][k];
        prop_assume!(at < size);
        let s = walked(Shape::new(n, m, p).unwrap(), seed);
        let (a, b) = split(&s, dim(k), at).unwrap();
        prop_assert_eq!(a.shape.dims()[k] + b.shape.dims()[k], size);
        prop_assert_eq!(verify(&a.mod2::<u64>().unwrap()), Ok(()));
        prop_assert_eq!(verify(&b.mod2::<u64>().unwrap()), Ok(()));
        prop_assert!(a.rank() <= s.rank() && b.rank() <= s.rank());
    }
}

#[test]
fn shapes_that_do_not_fit_are_refused() {
    let x = walked(Shape::new(2, 3, 4).unwrap(), 1);
    let y = walked(Shape::new(2, 2, 4).unwrap(), 2);
    assert_eq!(
        sum(&x, &y, Dim::P),
        Err(SumError::Mismatch {
            x: x.shape,
            y: y.shape,
            dim: Dim::P
        })
    );
    assert!(sum(&x, &y, Dim::M).is_ok());
    let big = walked(Shape::new(2, 3, 9).unwrap(), 3);
    assert!(matches!(sum(&big, &big, Dim::P), Err(SumError::TooLarge(_))));
    assert!(split(&x, Dim::P, 0).is_err());
    assert!(split(&x, Dim::P, 4).is_err());
}

#[test]
fn two_strassens_make_a_2x2x4_of_rank_14() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/2x2x2-r7-strassen.m");
    let strassen = flipgraph_core::formats::read_path(std::path::Path::new(path))
        .unwrap()
        .scheme;
    let s = sum(&strassen, &strassen, Dim::P).unwrap();
    assert_eq!((s.shape, s.rank()), (Shape::new(2, 2, 4).unwrap(), 14));
    assert_eq!(verify_z(&s), Ok(()));
}

/// A random invertible change of basis of `k` entries (its columns), from `seed`.
fn random_basis(k: usize, seed: u64) -> impl Fn(&IntScheme, Dim) -> IntScheme {
    move |s: &IntScheme, d: Dim| {
        let mut state = seed | 1;
        loop {
            let columns: Vec<u32> = (0..k)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state as u32) & ((1 << k) - 1)
                })
                .collect();
            if let Some(changed) = change_basis(s, d, &columns) {
                return changed;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_change_of_basis_keeps_a_scheme_valid_and_the_best_projection_beats_every_index(
        (n, m, p) in (2usize..=4, 2usize..=4, 2usize..=4),
        k in 0usize..3,
        seeds in any::<(u64, u64)>(),
    ) {
        let x = walked(Shape::new(n, m, p).unwrap(), seeds.0);
        let size = [n, m, p][k];
        let changed = random_basis(size, seeds.1)(&x, dim(k));
        prop_assert_eq!(changed.rank(), x.rank());
        prop_assert_eq!(verify(&changed.mod2::<u64>().unwrap()), Ok(()));
        for s in [&x, &changed] {
            let best = best_projection(s, dim(k)).unwrap();
            prop_assert_eq!(verify(&best.mod2::<u64>().unwrap()), Ok(()));
            let coordinate = (0..size).map(|i| project(s, dim(k), i).unwrap().rank()).min().unwrap();
            prop_assert!(best.rank() <= coordinate, "{} against {}", best.rank(), coordinate);
        }
    }

    #[test]
    fn the_best_projection_finds_a_slice_hidden_by_a_change_of_basis(
        (n, m, p) in (2usize..=3, 2usize..=3, 2usize..=3),
        k in 0usize..3,
        seeds in any::<(u64, u64)>(),
    ) {
        // The extension's new slice, turned by a random basis, lies on no coordinate; the best
        // pair finds it again (or better).
        let x = walked(Shape::new(n, m, p).unwrap(), seeds.0);
        let grown = extend(&x, dim(k)).unwrap();
        let hidden = random_basis([n, m, p][k] + 1, seeds.1)(&grown, dim(k));
        let back = best_projection(&hidden, dim(k)).unwrap();
        prop_assert_eq!(back.shape, x.shape);
        prop_assert!(back.rank() <= x.rank(), "{} against {}", back.rank(), x.rank());
        prop_assert_eq!(verify(&back.mod2::<u64>().unwrap()), Ok(()));
    }
}
