//! Property tests: every move preserves the tensor, on random schemes reached by random moves
//! from naive schemes of several shapes up to 8x8x8 (beyond it: `wide.rs`).

mod common;

use common::{scramble, valid};
use flipgraph_core::moves::{self, generalized_flip_rank, generalized_flip_subsets};
use flipgraph_core::{Position, Shape, Term};
use proptest::prelude::*;

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just((2, 2, 2)),
        Just((3, 3, 3)),
        Just((2, 3, 4)),
        Just((4, 4, 4)),
        Just((3, 4, 5)),
        Just((5, 5, 5)),
        Just((8, 8, 8))
    ]
    .prop_map(|(n, m, p)| Shape::new(n, m, p).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn flips_and_plus_moves_preserve_the_tensor(shape in shapes(), seed in any::<u64>(), steps in 0usize..400) {
        prop_assert!(valid(shape, scramble::<u64>(shape, seed, steps)));
    }

    #[test]
    fn merging_preserves_the_tensor(shape in shapes(), seed in any::<u64>()) {
        let mut terms = scramble(shape, seed, 200);
        // Split a term into two that share two factors, then merge them back.
        let t = terms.pop().unwrap();
        let extra = 1u64;
        let (u, v) = (Term::new(t.a, t.b, t.c ^ extra), Term::new(t.a, t.b, extra));
        let merged = moves::merge(&u, &v).unwrap();
        prop_assert_eq!(merged, t);
        terms.push(merged);
        prop_assert!(valid(shape, terms));
    }

    #[test]
    fn generalized_flips_preserve_the_tensor_and_agree(shape in shapes(), seed in any::<u64>(), pos in 0usize..3) {
        let pos = Position::from_index(pos);
        let mut terms = scramble(shape, seed, 300);
        // The largest group sharing one factor at `pos`.
        let key = terms.iter().map(|t| t.get(pos)).max_by_key(|&f| terms.iter().filter(|t| t.get(pos) == f).count()).unwrap();
        terms.sort_by_key(|t| t.get(pos) != key);
        let n = terms.iter().take_while(|t| t.get(pos) == key).count();
        let mut by_rank = terms.clone();
        let removed = generalized_flip_rank(&mut by_rank[..n], pos);
        prop_assert!(valid(shape, by_rank));
        if n <= moves::MAX_SUBSET_GROUP {
            let mut by_subsets = terms.clone();
            prop_assert_eq!(generalized_flip_subsets(&mut by_subsets[..n], pos), Some(removed));
            prop_assert!(valid(shape, by_subsets));
        }
    }

    /// Random groups of up to 5 terms with a shared factor: both methods remove the same count,
    /// and the group's tensor is unchanged.
    #[test]
    fn both_generalized_flip_methods_agree(qs in prop::collection::vec((1u64..16, 1u64..16), 1..=5)) {
        let group: Vec<Term> = qs.iter().map(|&(q, r)| Term::new(1, q, r)).collect();
        let (mut x, mut y) = (group.clone(), group.clone());
        let removed = generalized_flip_rank(&mut x, Position::A);
        prop_assert_eq!(generalized_flip_subsets(&mut y, Position::A), Some(removed));
        prop_assert_eq!(group_tensor(&x), group_tensor(&group));
        prop_assert_eq!(group_tensor(&y), group_tensor(&group));
        prop_assert_eq!(group.len() - removed, matrix_rank(&group));
        prop_assert_eq!(removed > 0, moves::group_is_reducible(&group, Position::A));
    }

    /// The rank method handles groups up to 32 and reaches N - rank(sum q (x) r).
    #[test]
    fn rank_method_handles_large_groups(qs in prop::collection::vec((1u64..1 << 12, 1u64..1 << 12), 6..=32)) {
        let group: Vec<Term> = qs.iter().map(|&(q, r)| Term::new(3, q, r)).collect();
        let mut x = group.clone();
        let removed = generalized_flip_rank(&mut x, Position::A);
        prop_assert_eq!(group_tensor(&x), group_tensor(&group));
        prop_assert_eq!(group.len() - removed, matrix_rank(&group));
        prop_assert_eq!(x.iter().filter(|t| t.is_zero()).count(), removed);
        prop_assert_eq!(removed > 0, moves::group_is_reducible(&group, Position::A));
    }
}

/// The matrix `sum q_i r_i^T` over F2 as rows indexed by the bits of q.
fn group_tensor(group: &[Term]) -> [u64; 64] {
    let mut rows = [0u64; 64];
    for t in group.iter().filter(|t| !t.is_zero()) {
        for (bit, row) in rows.iter_mut().enumerate() {
            if t.b >> bit & 1 == 1 {
                *row ^= t.c;
            }
        }
    }
    rows
}

/// Rank over F2 by plain row reduction: an independent oracle for the tests.
fn matrix_rank(group: &[Term]) -> usize {
    let mut rows: Vec<u64> = group_tensor(group).into_iter().filter(|&r| r != 0).collect();
    let mut rank = 0;
    for bit in 0..64 {
        let Some(i) = rows.iter().position(|r| r >> bit & 1 == 1) else {
            continue;
        };
        let pivot = rows.swap_remove(i);
        for r in rows.iter_mut().filter(|r| **r >> bit & 1 == 1) {
            *r ^= pivot;
        }
        rank += 1;
    }
    rank
}
