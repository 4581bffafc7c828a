//! Resuming a search from its folder: where it resumes (the checkpoints' pools, and which
//! islands' time and counters it takes over), and the choices that contradict its checkpoint.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Result};
use flipgraph_core::walk::Counters;
use flipgraph_core::Shape;

use super::recipe::Recipe;
use crate::driver::Start;
use crate::engine::Width;
use crate::output::{island_dir, read_all_checkpoints, Checkpoint, CHECKPOINT};
use crate::session::{Search, SearchError};

/// Where island `index` of a job of `islands` (0 of 1 for a lone search) resumes the search in
/// `dir`, and the search's own checkpoint: the pools of every checkpoint there (a job's
/// islands' included), and the time and counters of those it takes over (of islands `index`,
/// `index + islands`, ...), so that a job resumes with any number of islands. A search from
/// fixed cubes (`recipe`, as [`Search::run`] settled it) gets its cube start back as well:
/// the start of independent restarts, and the rank the plus slack counts from.
pub(super) fn resume_start<F: Width>(
    dir: &Path,
    index: usize,
    islands: usize,
    recipe: &Recipe,
) -> Result<(Checkpoint, Start<F>)> {
    let all = read_all_checkpoints(dir)?;
    let mut start = Start {
        pool: Vec::new(),
        elapsed: Duration::ZERO,
        counters: Counters::default(),
        rounds: 0,
    };
    let main = &all[0].1;
    for (i, cp) in &all {
        if cp.shape != main.shape || cp.seed != main.seed {
            bail!(
                "{}: island {i} searched {:?} with seed {}, the search in {} {:?} with seed {}; not one job",
                island_dir(dir, *i).join(CHECKPOINT).display(),
                cp.shape,
                cp.seed,
                dir.display(),
                main.shape,
                main.seed
            );
        }
        start.pool.extend(cp.schemes()?);
        start.elapsed = start.elapsed.max(cp.elapsed());
        if i % islands == index {
            start.counters.steps += cp.steps;
            start.counters.vertices += cp.vertices;
            start.rounds = start.rounds.max(cp.rounds);
        }
    }
    let (_, main) = all.into_iter().next().expect("the search's own checkpoint");
    if recipe.cube_search() {
        start.pool.push(recipe.naive_start(main.shape()?)?);
    }
    Ok((main, start))
}

/// A resumed search continues as its checkpoint at `dir` (`cp`, of `shape`) says: choices of
/// `search` that say otherwise are refused, not silently ignored.
pub(super) fn refuse_contradictions(search: &Search, dir: &Path, cp: &Checkpoint, shape: Shape) -> Result<()> {
    let checkpoint = dir.join(CHECKPOINT).display().to_string();
    if let Some(given) = search.shape.filter(|&s| s != shape) {
        return Err(SearchError::ResumedShape {
            given,
            checkpoint,
            shape,
        }
        .into());
    }
    if let Some(given) = search.recipe.walk.seed.filter(|&s| s != cp.seed) {
        return Err(SearchError::ResumedSeed {
            given,
            checkpoint,
            seed: cp.seed,
        }
        .into());
    }
    // The same folder spelled twice (`--resume ./d --out d`, a link) is the same folder.
    let same = |o: &Path| {
        o == dir
            || o.canonicalize()
                .ok()
                .is_some_and(|o| dir.canonicalize().ok() == Some(o))
    };
    if let Some(out) = search.out.as_ref().filter(|o| !same(o)) {
        return Err(SearchError::ResumedElsewhere {
            out: out.display().to_string(),
            dir: dir.display().to_string(),
        }
        .into());
    }
    if let Some(target) = search.target.filter(|&t| t != cp.target) {
        tracing::info!("target rank {target} as asked, where the checkpoint had {}", cp.target);
    }
    Ok(())
}
