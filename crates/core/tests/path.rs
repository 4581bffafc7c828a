//! Flip-graph paths between real schemes replay exactly.

use std::path::PathBuf;

use flipgraph_core::formats;
use flipgraph_core::path::{parse, path, to_text, Replay};
use flipgraph_core::verify::verify;
use flipgraph_core::{Scheme, Shape, Term};

fn read(name: &str) -> Scheme {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name);
    let mut s = formats::read_path(&p).unwrap().scheme.mod2().unwrap();
    s.remove_zero_terms();
    s
}

fn sorted(mut v: Vec<Term>) -> Vec<Term> {
    v.sort_unstable();
    v
}

/// Replays a path from `a`, checking each intermediate scheme, and returns the end.
fn replay_checked(a: &Scheme, b: &Scheme) -> usize {
    let moves = path(a, b);
    let (shape, parsed) = parse(&to_text(a.shape(), &moves)).unwrap();
    assert_eq!((shape, &parsed), (a.shape(), &moves));
    let mut replay = Replay::new(a.terms());
    for (i, m) in moves.iter().enumerate() {
        replay.apply(m).unwrap();
        // Every move keeps the tensor: spot-check along the way.
        if i % 7 == 0 {
            assert_eq!(
                verify(&Scheme::new(a.shape(), replay.terms()).unwrap()),
                Ok(()),
                "after move {i}"
            );
        }
    }
    assert_eq!(replay.steps(), moves.len());
    assert_eq!(
        replay.terms(),
        sorted(b.terms().to_vec()),
        "the path must end exactly at the target"
    );
    moves.len()
}

#[test]
fn naive_to_strassen_and_laderman_and_between_schemes() {
    let strassen = read("2x2x2-r7-strassen.m");
    let laderman = read("3x3x3-r23-laderman.m");
    let n2 = replay_checked(&Scheme::naive(Shape::square(2).unwrap()), &strassen);
    let n3 = replay_checked(&Scheme::naive(Shape::square(3).unwrap()), &laderman);
    let back = replay_checked(&laderman, &Scheme::naive(Shape::square(3).unwrap()));
    assert!(n2 > 0 && n3 > 0 && back == n3);
    let json = read("3x3x8-r55-perminov.json");
    replay_checked(&json, &Scheme::naive(json.shape()));
}
