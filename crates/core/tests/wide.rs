//! Factors of up to 128 bits: formats beyond 8x8x8 (9x9x9, 10x10x10, 8x8x16, ...). Moves keep
//! the tensor, every writable format round-trips, and products and sums of known schemes give
//! verified schemes of the wide formats.

mod common;

use common::{scramble, valid};
use flipgraph_core::algebra::{product, sum, Dim};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::scheme::{WideScheme, WidthError};
use flipgraph_core::verify::{verify, verify_z};
use flipgraph_core::walk::{Plateau, Sparsity, Walk, WalkConfig, Walker};
use flipgraph_core::{IntScheme, Position, Scheme, Shape};
use proptest::prelude::*;

/// Formats beyond 8x8x8 (factors of 65 to 128 bits), and two that fit 64 bits with a dimension
/// past 8, walked with 128-bit factors.
fn wide_shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just((9, 9, 9)),
        Just((10, 10, 10)),
        Just((11, 11, 11)),
        Just((8, 8, 16)),
        Just((16, 8, 8)),
        Just((4, 5, 12)),
        Just((2, 3, 16))
    ]
    .prop_map(|(n, m, p)| Shape::new(n, m, p).unwrap())
}

fn data(name: &str) -> IntScheme {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name);
    formats::read_path(&path).unwrap().scheme
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn wide_flips_and_plus_moves_preserve_the_tensor(shape in wide_shapes(), seed in any::<u64>(), steps in 0usize..600) {
        let terms = scramble::<u128>(shape, seed, steps);
        prop_assert!(valid(shape, terms.clone()));
        // A broken tensor is caught: one more bit, the last of A, in one term.
        let mut broken = terms;
        broken[0].a ^= 1u128 << (shape.factor_bits(Position::A) - 1);
        prop_assert!(!valid(shape, broken));
    }

    #[test]
    fn wide_schemes_round_trip_through_every_writable_format(shape in wide_shapes(), seed in any::<u64>()) {
        let scheme = WideScheme::new(shape, scramble(shape, seed, 300)).unwrap();
        let int = IntScheme::from_f2(&scheme);
        for format in [Format::Letter, Format::PerminovJson, Format::PerminovTxt, Format::Seed] {
            let text = formats::write(&int, format, Ring::F2).unwrap();
            let back = formats::read(text.as_bytes()).unwrap();
            prop_assert_eq!(back.format, format);
            prop_assert_eq!(back.f2::<u128>().unwrap(), scheme.clone(), "{}", format);
        }
    }
}

#[test]
fn wide_formats_do_not_fit_64_bit_schemes() {
    let shape = Shape::square(9).unwrap();
    assert_eq!(
        Scheme::<u64>::try_naive(shape),
        Err(WidthError {
            shape,
            width: 81,
            bits: 64
        })
    );
    let naive = WideScheme::try_naive(shape).unwrap();
    assert_eq!((naive.rank(), verify(&naive)), (729, Ok(())));
    assert!(IntScheme::from_f2(&naive).mod2::<u64>().is_err());
    assert!(Scheme::<u64>::new(shape, Vec::new()).is_err());
}

#[test]
fn products_and_sums_of_known_schemes_verify_in_wide_formats() {
    let (strassen, laderman) = (data("2x2x2-r7-strassen.m"), data("3x3x3-r23-laderman.m"));
    let seven = data("7x7x7-r245-seed.b32");
    let check = |s: &IntScheme, dims: [usize; 3], rank: usize| {
        assert_eq!((s.shape.dims(), s.rank()), (dims, rank));
        assert_eq!(verify(&s.mod2::<u128>().unwrap()), Ok(()), "{}", s.shape);
    };
    // 9x9x9: Laderman squared, 529 (best known 486).
    let nine = product(&laderman, &laderman).unwrap();
    check(&nine, [9, 9, 9], 529);
    assert_eq!(verify_z(&nine), Ok(()));
    // 7x7x7 r245 beside itself along p: 7x7x14, rank 490.
    check(&sum(&seven, &seven, Dim::P).unwrap(), [7, 7, 14], 490);
    // 6x6x12 from 3x3x3 r23 x 2x2x4 (two Strassens), 23 * 14 = 322.
    let two = sum(&strassen, &strassen, Dim::P).unwrap();
    check(&product(&laderman, &two).unwrap(), [6, 6, 12], 322);
    // 8x8x16: 2x2x4 (two Strassens) x 4x4x4 (Strassen squared), 14 * 49 = 686.
    let sixteen = product(&two, &product(&strassen, &strassen).unwrap()).unwrap();
    check(&sixteen, [8, 8, 16], 14 * 49);
}

/// The table past 8x8x8 is closed under constructions: no product, sum, extension or
/// projection of the best known schemes (F2-only ones up to 8x8x8 included, such as 4x4x4 r47)
/// is below a format's entry, so a construction is never taken for a record.
#[test]
fn no_construction_beats_the_wide_table() {
    use flipgraph_core::construction::constructions;
    use flipgraph_core::known::{best_known_rank, wide_table};
    use std::collections::BTreeMap;

    let key = |s: Shape| s.sorted_dims();
    let mut ranks: BTreeMap<[usize; 3], usize> = BTreeMap::new();
    let mut better = Vec::new();
    // To a fixed point: a construction's inputs may themselves improve.
    loop {
        let mut changed = false;
        for e in wide_table() {
            let shape = Shape::new(e.dims[0], e.dims[1], e.dims[2]).unwrap();
            let rank_of = |s: Shape| ranks.get(&key(s)).copied().or_else(|| best_known_rank(s));
            let Some(plan) = constructions(shape, rank_of).into_iter().find(|p| p.exact()) else {
                continue;
            };
            if plan.rank < rank_of(shape).unwrap() {
                ranks.insert(e.dims, plan.rank);
                better.push(format!("{shape}\t{}\t{}", plan.rank, plan.construction));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    assert!(
        better.is_empty(),
        "constructions below the table:\n{}",
        better.join("\n")
    );
}

/// A 128-bit walker takes the very walk of a 64-bit one from the same scheme and seed: the
/// index does not depend on how its tables hash (4x4x4 and 5x5x5 are hashed, 3x3x3 addressed
/// directly), so any difference is a bug of the wide factors.
#[test]
fn a_wide_walker_walks_as_the_64_bit_one() {
    for n in [3, 4, 5] {
        let shape = Shape::square(n).unwrap();
        let config = WalkConfig {
            plateau: Plateau::Fixed(200),
            max_rank: shape.naive_rank() + 3,
            sparsity: Sparsity::All,
            ..WalkConfig::default()
        };
        let start = Scheme::naive(shape);
        let mut narrow = Walker::new(&start, config, 11);
        let mut wide = Walker::new(&start.to_width::<u128>().unwrap(), config, 11);
        for _ in 0..10 {
            narrow.walk(3_000, 0);
            wide.walk(3_000, 0);
            assert_eq!(wide.scheme(), narrow.scheme().to_width().unwrap(), "{shape}");
            assert_eq!(wide.counters(), narrow.counters(), "{shape}");
        }
        assert_eq!(wide.best(), narrow.best().to_width().unwrap());
    }
}

/// Walks of formats whose factors need 128 bits keep the tensor and the index, and take
/// reductions (merges and generalized flips) on the way.
#[test]
fn wide_walks_keep_the_tensor_and_reduce() {
    for (n, m, p) in [(9, 9, 9), (4, 5, 13), (2, 9, 10)] {
        let shape = Shape::new(n, m, p).unwrap();
        assert!(!shape.fits::<u64>(), "{shape}");
        let config = WalkConfig {
            plateau: Plateau::Fixed(2_000),
            max_rank: shape.naive_rank() + 3,
            ..WalkConfig::default()
        };
        let naive = WideScheme::try_naive(shape).unwrap();
        let mut w = Walker::new(&naive, config, 5);
        for _ in 0..4 {
            w.walk(20_000, 0);
            w.check_invariants();
            assert_eq!(verify(&w.scheme()), Ok(()), "{shape}");
        }
        assert_eq!(verify(&w.best()), Ok(()), "{shape}");
        let c = w.counters();
        assert!(c.reductions > 0 && c.generalized > 0 && c.plus > 0, "{shape}: {c:?}");
        assert_eq!(w.rank() as u64, shape.naive_rank() as u64 + c.plus - c.reductions);
    }
}

/// The lift to Z takes 128-bit factors: a walk of flips from the naive 2x5x13 (65-bit factors)
/// lifts to a scheme valid over Z that reduces to it mod 2.
#[test]
fn wide_schemes_lift_to_z() {
    let shape = Shape::new(2, 5, 13).unwrap();
    for seed in 0..3 {
        let terms = scramble::<u128>(shape, seed, 40);
        let f2 = Scheme::new(shape, terms).unwrap();
        let z = flipgraph_core::lift::lift(&f2, 50, 8).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(verify_z(&z), Ok(()), "seed {seed}");
        assert_eq!(z.mod2::<u128>().unwrap(), f2, "seed {seed}");
    }
}
