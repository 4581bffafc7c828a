//! Resuming a search from its folder: where it resumes (the checkpoints' pools, and which
//! islands' time and counters it takes over), and the flags that contradict its checkpoint.

use super::*;

/// Where island `index` of a job of `islands` (0 of 1 for a lone search) resumes the search in
/// `dir`, and the search's own checkpoint: the pools of every checkpoint there (a job's
/// islands' included), and the time and counters of those it takes over (of islands `index`,
/// `index + islands`, ...), so that a job resumes with any number of islands. A search from
/// fixed cubes (`recipe`, as [`recipe_of`] resolved it) gets its cube start back as well:
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

/// A resumed search continues as its checkpoint says: flags that say otherwise are refused,
/// not silently ignored.
pub(super) fn refuse_contradictions(args: &Args, dir: &Path, cp: &Checkpoint, shape: Shape) -> Result<()> {
    let at = dir.join(CHECKPOINT);
    if let Some(size) = args.size.filter(|&s| s != shape) {
        bail!(
            "--size {size} contradicts the search in {} ({shape}); leave --size out to resume",
            at.display()
        );
    }
    if let Some(seed) = args.engine.seed.filter(|&s| s != cp.seed) {
        bail!(
            "--seed {seed} contradicts the search in {} (seed {}); leave --seed out to resume",
            at.display(),
            cp.seed
        );
    }
    // The same folder spelled twice (`--resume ./d --out d`, a link) is the same folder.
    let same = |o: &Path| {
        o == dir
            || o.canonicalize()
                .ok()
                .is_some_and(|o| dir.canonicalize().ok() == Some(o))
    };
    if let Some(out) = args.out.as_ref().filter(|o| !same(o)) {
        bail!(
            "--out {} and --resume {} name different folders; a resumed search writes where it was",
            out.display(),
            dir.display()
        );
    }
    if let Some(target) = args.target_rank.filter(|&t| t != cp.target) {
        tracing::info!(
            "target rank {target} (--target-rank), where the checkpoint had {}",
            cp.target
        );
    }
    Ok(())
}
