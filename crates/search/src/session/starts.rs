//! A search's starts: its scheme files (folders of them too), what a symmetric
//! walk keeps of them, and where the target stands against the ranks a walk can take.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::{self, Format};
use flipgraph_core::group::orbits;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::{Scheme, Shape, WideScheme};

use crate::engine::Group;
use crate::output::{CHECKPOINT, EVENTS};
use crate::schemes::read_valid_f2;

/// The fewest terms outside free orbits (what a frozen walk keeps) among `starts`, for a
/// symmetric walk (None for a plain one); an error naming the first start not invariant.
pub(super) fn fixed_terms_of(group: Group, starts: &[(String, WideScheme)]) -> Result<Option<usize>> {
    if group == Group::Trivial {
        return Ok(None);
    }
    let mut fewest = None;
    for (name, scheme) in starts {
        let scheme: Scheme = scheme.to_width()?;
        let fixed = orbits(group, &scheme).map(|o| o.fixed.len()).map_err(|_| {
            anyhow::anyhow!(
                "{name}: not invariant under {group} ({}); a walk under {group} needs an invariant start (the naive scheme is one; flipgraph info names the groups of a scheme)",
                group_words(group)
            )
        })?;
        fewest = Some(fewest.map_or(fixed, |f: usize| f.min(fixed)));
    }
    Ok(fewest)
}

/// The start schemes in `paths`, each named by its file: every file given, and every scheme file in
/// a folder given (files of no scheme format, a search's checkpoint and log among them, are
/// passed over; a scheme file that does not read is an error naming it).
pub(super) fn read_starts(paths: &[PathBuf]) -> Result<Vec<(String, WideScheme)>> {
    scheme_files(paths)?
        .into_iter()
        .map(|f| Ok((f.display().to_string(), read_valid_f2(&f)?)))
        .collect()
}

/// [`read_starts`] over {-1,0,1}: each file's scheme as it is (no reduction mod 2), refused
/// where a coefficient is outside {-1,0,1} or it is not valid over Z.
pub(super) fn read_ternary_starts(paths: &[PathBuf]) -> Result<Vec<(String, TernaryScheme)>> {
    scheme_files(paths)?
        .into_iter()
        .map(|f| {
            let name = f.display().to_string();
            let file = formats::read_path(&f)?;
            let mut scheme = TernaryScheme::from_int(&file.scheme).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            scheme.remove_zero_terms();
            scheme
                .verify()
                .map_err(|d| anyhow::anyhow!("{name}: not a valid scheme over Z: {d}"))?;
            Ok((name, scheme))
        })
        .collect()
}

/// Every file of `paths`, and every scheme file in a folder of them, sorted within a folder.
fn scheme_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("cannot read the folder {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && has_scheme_extension(p) && !is_search_file(p))
            .collect();
        if found.is_empty() {
            bail!("{}: no scheme files in this folder", path.display());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Whether `path` ends in a scheme format's extension (`.json`, `.m`, `.exp`, `.txt`, `.b32`).
fn has_scheme_extension(path: &Path) -> bool {
    let extension = path.extension().and_then(|e| e.to_str());
    extension.is_some_and(|e| Format::ALL.iter().any(|f| f.extension() == e))
}

/// Whether `path` is one of a search's own files, not a scheme (its checkpoint or event log).
fn is_search_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == CHECKPOINT || n == EVENTS)
}

/// Where a symmetric walk with `fixed` frozen fixed terms can stop on its way to `target`: its
/// moves change the rank by `unit` terms at a time (its group's order), so every rank it takes
/// is `fixed` modulo `unit`. None when `target` is such a rank; else the highest one below it.
pub(super) fn frozen_stop(target: usize, fixed: usize, unit: usize) -> Option<usize> {
    let off = (target + unit - fixed % unit) % unit;
    (off != 0).then(|| target.saturating_sub(off))
}

/// A rank no scheme of `shape` goes below: the largest rank of the tensor's flattenings, `n m`,
/// `m p` and `p n` (each flattening is a full-rank matrix of that size).
pub(super) fn lower_bound(shape: Shape) -> usize {
    let [n, m, p] = shape.dims();
    (n * m).max(m * p).max(p * n)
}

/// What `group` keeps, in words for an error.
fn group_words(group: Group) -> &'static str {
    match group {
        Group::Trivial => "every scheme",
        Group::C3 => "the cyclic symmetry a(x)b(x)c -> b(x)c(x)a",
        Group::Z2 => "reversing every index",
        Group::C6 => "the cyclic symmetry and reversing every index",
    }
}

#[cfg(test)]
mod tests {
    use super::{frozen_stop, lower_bound};
    use flipgraph_core::Shape;

    #[test]
    fn the_flattenings_bound_the_rank_from_below() {
        assert_eq!(lower_bound(Shape::square(4).unwrap()), 16);
        assert_eq!(lower_bound(Shape::new(2, 3, 5).unwrap()), 15);
        // Every best known rank is at or above it.
        for e in flipgraph_core::known::table() {
            let shape = Shape::new(e.dims[0], e.dims[1], e.dims[2]).unwrap();
            assert!(e.rank >= lower_bound(shape), "{shape}");
        }
    }

    #[test]
    fn a_frozen_symmetric_walk_stops_only_at_ranks_of_its_residue() {
        // 5x5x5 from naive: 5 fixed terms, ranks 2 modulo 3; 93 is 0 modulo 3, 92 is the stop.
        assert_eq!(frozen_stop(93, 5, 3), Some(92));
        // 6x6x6 under c6 from the cubes 110000,001100,000011: 3 fixed terms, orbits of 6.
        assert_eq!(frozen_stop(153, 3, 6), None);
        assert_eq!(frozen_stop(152, 3, 6), Some(147));
        // From the cubes 10001,01010,00100: 3 fixed terms, and 93 is reachable.
        assert_eq!(frozen_stop(93, 3, 3), None);
        assert_eq!(frozen_stop(94, 3, 3), Some(93));
        assert_eq!(frozen_stop(1, 2, 3), Some(0));
    }
}
