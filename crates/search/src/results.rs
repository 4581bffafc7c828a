//! The schemes that searches have found, in their result folders: the best verified one of
//! each format ([`ours`]), and the lowest-rank construction they build for another format
//! ([`best_construction`]: products, sums, extensions, projections and serendipitous products,
//! core's `construction`). `flipgraph known --results`, `flipgraph construct` and a campaign's
//! constructed starts read them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flipgraph_core::construction::{self, Plan};
use flipgraph_core::{IntScheme, Shape};

use crate::output::{atomic_file, CHECKPOINT, EVENTS, LOCK};
use crate::schemes::{read_checked, read_valid};

/// The lowest verified rank per format (sorted dims) found in result folders, with the file
/// that has it.
pub type Found = BTreeMap<[usize; 3], (usize, PathBuf)>;

/// The lowest verified rank per format (sorted dims) among the result files under `dirs`, with
/// the file that has it.
pub fn ours(dirs: &[PathBuf]) -> Result<Found> {
    let mut candidates: BTreeMap<[usize; 3], Vec<(usize, PathBuf)>> = BTreeMap::new();
    for dir in dirs {
        if !dir.exists() {
            anyhow::bail!("{}: no such folder", dir.display());
        }
        if !dir.is_dir() {
            anyhow::bail!("{}: not a folder", dir.display());
        }
        let passed_over = collect(dir, 2, &mut candidates)?;
        if let Some(example) = passed_over.first() {
            tracing::warn!(
                "{}: {} file(s) not named SHAPE-rRANK.EXT (as searches name their results) passed over, such as {}",
                dir.display(),
                passed_over.len(),
                example.display()
            );
        }
    }
    let mut best = BTreeMap::new();
    for (dims, mut files) in candidates {
        files.sort();
        // The lowest rank that verifies: a damaged or misnamed file is reported and skipped,
        // never counted.
        for (rank, path) in files {
            match read_checked(&path) {
                Ok(c)
                    if c.f2.is_ok()
                        && c.file.f2::<u128>().map(|s| s.rank()) == Ok(rank)
                        && c.file.scheme.shape.sorted_dims() == dims =>
                {
                    best.insert(dims, (rank, path));
                    break;
                }
                Ok(c) => tracing::warn!(
                    "{}: not a valid scheme of its name's format and rank {rank} (it holds {} rank {}); skipped",
                    path.display(),
                    c.file.scheme.shape,
                    c.file.scheme.rank()
                ),
                Err(e) => tracing::warn!("{e:#}; skipped"),
            }
        }
    }
    Ok(best)
}

/// Result files named `SHAPE-rRANK.EXT` under `dir`, `depth` folder levels down; returns the
/// other files found there, but a search's own (checkpoint, event log, lock, plot), so that a
/// scheme misnamed is not passed over without a word.
fn collect(dir: &Path, depth: usize, into: &mut BTreeMap<[usize; 3], Vec<(usize, PathBuf)>>) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut passed_over = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            if depth > 0 {
                passed_over.extend(collect(&path, depth - 1, into)?);
            }
        } else if let Some((dims, rank)) = result_name(&path) {
            into.entry(dims).or_default().push((rank, path));
        } else if !is_search_bookkeeping(&path) {
            passed_over.push(path);
        }
    }
    passed_over.sort();
    Ok(passed_over)
}

/// The files a search writes beside its results.
fn is_search_bookkeeping(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    [CHECKPOINT, EVENTS, LOCK].contains(&name) || name.ends_with(".svg") || atomic_file::is_temp_file(name)
}

/// `4x4x5-r60.json` -> ([4, 4, 5], 60), dims sorted.
fn result_name(path: &Path) -> Option<([usize; 3], usize)> {
    let stem = path.file_stem()?.to_str()?;
    let (shape, rank) = stem.split_once("-r")?;
    Some((shape.parse::<Shape>().ok()?.sorted_dims(), rank.parse().ok()?))
}

/// The lowest-rank construction of `shape` from the best verified schemes `found` in result
/// folders ([`ours`]), built (not yet verified), with its plan; None when no
/// construction has all its inputs there.
pub fn best_construction(shape: Shape, found: &Found) -> Option<(IntScheme, Plan)> {
    let rank_of = |s: Shape| found.get(&s.sorted_dims()).map(|&(rank, _)| rank);
    // Each file read (and verified) once: a serendipitous product asks for many formats.
    let read = std::cell::RefCell::new(std::collections::HashMap::new());
    let scheme_of = |s: Shape| {
        let dims = s.sorted_dims();
        read.borrow_mut()
            .entry(dims)
            .or_insert_with(|| read_valid(&found.get(&dims)?.1).ok())
            .clone()
    };
    // The lowest rank built: a projection's bound may hide a lower rank than an exact plan's.
    let mut best: Option<(IntScheme, Plan)> = None;
    for plan in construction::constructions_from_schemes(shape, scheme_of, rank_of) {
        if best.as_ref().is_some_and(|(b, _)| b.rank() <= plan.rank) {
            break;
        }
        if let Some(built) = construction::build(plan.construction, scheme_of) {
            if best.as_ref().is_none_or(|(b, _)| built.rank() < b.rank()) {
                best = Some((built, plan));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::result_name;
    use std::path::Path;

    #[test]
    fn result_names_are_recognised_and_others_ignored() {
        assert_eq!(result_name(Path::new("a/5x4x4-r60.json")), Some(([4, 4, 5], 60)));
        assert_eq!(result_name(Path::new("checkpoint.json")), None);
        assert_eq!(result_name(Path::new("4x4x4-rx.json")), None);
        assert_eq!(result_name(Path::new("notes-r5.txt")), None);
    }
}
