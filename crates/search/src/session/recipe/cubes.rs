//! Fixed cubes: the start of a cube search (Moosbauer and Poole), diagonal patterns of the
//! cyclic symmetry's fixed terms, and the settings such a search walks with.

use flipgraph_core::Factor;

use super::RecipeError;

/// A cube search's defaults: Moosbauer and Poole's settings (a plus move after 50,000 plain flips
/// without a reduction, 16,667 orbit moves; a run restarted after 10^8 plain flips without a
/// new best; plus moves up to the start rank), with which 5x5x5 reached rank 93 here
/// (BENCHMARKS.md, CPU; docs/BENCHMARKS-ARCHIVE.md, The symmetric flip graph from fixed cubes).
pub const CUBE_PLATEAU: u64 = 16_667;
/// A cube search's patience ([`CUBE_PLATEAU`]).
pub const CUBE_PATIENCE: u64 = 33_000_000;
/// A cube search's slack of plus moves ([`CUBE_PLATEAU`]).
pub const CUBE_PLUS_SLACK: usize = 0;

/// A diagonal pattern of fixed cubes: digits 0 and 1, at least one 1, 8 at most.
pub fn check_cube(s: &str) -> Result<(), String> {
    // Not echoed: a damaged checkpoint's pattern may be megabytes long.
    if s.chars().count() > 8 {
        return Err(format!(
            "a pattern of {} characters is not a diagonal pattern: one digit 0 or 1 per diagonal entry, 8 at most",
            s.chars().count()
        ));
    }
    if s.is_empty() || s.chars().any(|c| c != '0' && c != '1') {
        return Err(format!(
            "'{s}' is not a diagonal pattern: one digit 0 or 1 per diagonal entry, like 10001"
        ));
    }
    if !s.contains('1') {
        return Err(format!("'{s}' is an empty cube: a pattern needs a 1"));
    }
    Ok(())
}

/// The factor `sum e_ii` over the diagonal entries `i` set in `pattern` (its first digit is
/// `e_11`), for `n x n` matrices.
pub(super) fn diagonal_factor(pattern: &str, n: usize) -> Result<Factor, RecipeError> {
    if pattern.len() != n {
        return Err(RecipeError::PatternLength {
            pattern: pattern.to_owned(),
            n,
            len: pattern.len(),
        });
    }
    Ok(pattern
        .bytes()
        .enumerate()
        .filter(|&(_, d)| d == b'1')
        .map(|(i, _)| 1 << (i * n + i))
        .sum())
}
