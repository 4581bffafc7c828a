//! The formats a campaign walks: those whose factors fit 64 bits (search and bench walk wider
//! ones on the CPU).

use flipgraph_core::Shape;

/// A format a campaign can walk: every format up to 8x8x8, and larger ones whose three
/// matrices have at most 64 entries each (4x5x12, 2x4x16). Wider formats (9x9x9, 8x8x16) are
/// refused with what does handle them.
pub fn parse_walkable(s: &str) -> Result<Shape, String> {
    let shape: Shape = s.parse().map_err(|e| format!("{e}"))?;
    if shape.fits::<u64>() {
        return Ok(shape);
    }
    Err(format!(
        "{shape} has matrices of {} entries: campaigns walk factors of up to 64 bits (every \
         format up to 8x8x8, and larger ones such as 4x5x12); search and bench walk {shape} on \
         the CPU, and verify, convert, product, sum, extend and project handle it",
        shape.factor_width()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_formats_are_refused_with_the_reason() {
        assert_eq!(parse_walkable("4x5x12"), Ok(Shape::new(4, 5, 12).unwrap()));
        assert!(parse_walkable("8").is_ok());
        let e = parse_walkable("9").unwrap_err();
        assert!(
            e.contains("81 entries") && e.contains("search and bench walk 9x9x9"),
            "{e}"
        );
        assert!(parse_walkable("17").unwrap_err().contains("between 1 and 16"));
    }
}
