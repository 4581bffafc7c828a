//! The formats a campaign searches: named one by one, or every format of a best known table,
//! smallest first.

use flipgraph_core::known::{table, wide_table, BestKnown};
use flipgraph_core::shape::ParseShapeError;
use flipgraph_core::Shape;

/// An entry of a campaign's list of formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// One format.
    One(Shape),
    /// The formats of the best known table (up to 8x8x8).
    All,
    /// The formats of the wide table (a dimension past 8, at most 128 entries a matrix).
    Wide,
}

impl std::str::FromStr for Sizes {
    type Err = ParseShapeError;

    /// `all`, `wide`, or a shape (`4`, `4x4x5`).
    fn from_str(s: &str) -> Result<Sizes, ParseShapeError> {
        match s.trim() {
            "all" => Ok(Sizes::All),
            "wide" => Ok(Sizes::Wide),
            one => one.parse().map(Sizes::One),
        }
    }
}

/// The formats of `entries`, by naive rank (then by dimensions).
fn by_size(entries: impl Iterator<Item = BestKnown>) -> Vec<Shape> {
    let mut all: Vec<Shape> = entries
        .filter_map(|e| Shape::new(e.dims[0], e.dims[1], e.dims[2]).ok())
        .collect();
    all.sort_by_key(|s| (s.naive_rank(), s.dims()));
    all
}

/// The formats `sizes` names, in order, each once: `All` and `Wide` are every format of their
/// table by naive rank (then by dimensions), so that the formats a larger one is built from
/// come before it.
pub fn shapes(sizes: &[Sizes]) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for entry in sizes {
        let more: Vec<Shape> = match entry {
            Sizes::One(shape) => vec![*shape],
            Sizes::All => by_size(table()),
            Sizes::Wide => by_size(wide_table()),
        };
        for shape in more {
            if !out.contains(&shape) {
                out.push(shape);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{shapes, Sizes};
    use flipgraph_core::Shape;

    fn shape(n: usize, m: usize, p: usize) -> Shape {
        Shape::new(n, m, p).unwrap()
    }

    fn parse(s: &str) -> Sizes {
        s.parse().unwrap()
    }

    #[test]
    fn all_is_every_known_format_smallest_first_and_each_once() {
        let all = shapes(&[Sizes::All]);
        assert_eq!(all.len(), 84);
        assert_eq!((all[0], all[83]), (shape(2, 2, 2), shape(8, 8, 8)));
        let at = |s: Shape| all.iter().position(|&x| x == s).unwrap();
        // What a composite is built from comes before it.
        assert!(at(shape(4, 4, 4)) < at(shape(4, 4, 8)) && at(shape(4, 4, 8)) < at(shape(8, 8, 8)));
        let mixed = shapes(&[parse("2x2x3"), parse("all")]);
        assert_eq!((mixed.len(), mixed[0]), (84, shape(2, 2, 3)));
        assert!("9".parse::<Sizes>().is_ok() && "17".parse::<Sizes>().is_err());
    }

    #[test]
    fn wide_is_every_format_past_8() {
        let wide = shapes(&[parse("wide")]);
        assert_eq!(wide.len(), 309);
        assert_eq!(wide[0], shape(2, 2, 9));
        assert!(wide.iter().all(|s| s.dims().iter().any(|&d| d > 8)));
        assert!(wide.contains(&shape(4, 5, 12)) && wide.contains(&shape(8, 8, 9)));
        assert!("4x5x12".parse::<Sizes>().is_ok());
    }
}
