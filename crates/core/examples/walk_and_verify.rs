//! Reads a scheme, applies random flips and a generalized flip, and verifies the result.
//!
//! `cargo run -p flipgraph-core --example walk_and_verify -- tests/data/7x7x7-r245-seed.b32`

use flipgraph_core::formats;
use flipgraph_core::moves::{flip, generalized_flip_rank};
use flipgraph_core::rng::WyRand;
use flipgraph_core::verify::verify;
use flipgraph_core::{Position, Scheme};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/data/7x7x7-r245-seed.b32".into());
    let file = formats::read_path(path.as_ref())?;
    let mut scheme: Scheme = file.scheme.mod2()?;
    println!(
        "read {path}: {} {}, rank {}",
        file.format,
        scheme.shape(),
        scheme.rank()
    );
    verify(&scheme).map_err(|d| format!("not valid over F2: {d}"))?;

    let mut terms = scheme.into_terms();
    let mut rng = WyRand::new(1);
    let mut flips = 0;
    for _ in 0..10_000 {
        let pos = Position::from_index(rng.below(3));
        let (i, j) = (rng.below(terms.len()), rng.below(terms.len()));
        if i != j && terms[i].get(pos) == terms[j].get(pos) {
            let (mut t, mut u) = (terms[i], terms[j]);
            flip(&mut t, &mut u, pos);
            (terms[i], terms[j]) = (t, u);
            flips += 1;
        }
    }
    // Gather the terms sharing the first term's factor A and reduce them optimally.
    let key = terms[0].a;
    terms.sort_by_key(|t| t.a != key);
    let group = terms.iter().take_while(|t| t.a == key).count();
    let removed = generalized_flip_rank(&mut terms[..group], Position::A);
    terms.retain(|t| !t.is_zero());

    scheme = Scheme::new(file.scheme.shape, terms)?;
    verify(&scheme).map_err(|d| format!("a move broke the scheme: {d}"))?;
    println!(
        "{flips} flips and a generalized flip (removed {removed}): rank {}, still valid",
        scheme.rank()
    );
    Ok(())
}
