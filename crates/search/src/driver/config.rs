//! What a search is asked to do (its settings, patience and restarts), where it starts and how
//! it ends.

use super::*;

/// Settings of a search.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub shape: Shape,
    /// Stop once a scheme of this rank or lower is found.
    pub target: usize,
    pub time_limit: Option<Duration>,
    /// Stop (as at the time limit) once the best rank has gone this long without improving, or
    /// as long as the search took to reach it if longer: a ladder's rungs end so.
    pub stall_limit: Option<Duration>,
    /// Schemes of the target rank to gather before the search stops there, waiting at most as
    /// long again as it took to reach it (1: stop at the first): a ladder's rungs hand on
    /// several, since some grow into dead ends.
    pub gather: usize,
    pub seed: u64,
    /// Steps each walker takes between two looks of the driver, at most (a GPU's rounds by
    /// time have no limit: `u64::MAX`).
    pub steps_per_round: u64,
    /// Steps a walker may go without improving before it restarts from the pool.
    pub patience: Patience,
    /// Schemes kept per rank in the pool.
    pub pool_per_rank: usize,
    /// Ranks the pool keeps, from its best up ([`POOL_RANKS`] by default).
    pub pool_ranks: usize,
    pub checkpoint_every: Duration,
    /// The rank a record must beat (the built-in table's, unless overridden).
    pub best_known: Option<usize>,
    /// Where walkers restart.
    pub restarts: Restarts,
    /// Of the walkers a new best of the pool leaves behind, the percent that restart from the
    /// pool at once (under pool restarts); the others walk their own lineage on until their
    /// patience ends ([`FOLLOW`] by default).
    pub follow: u32,
    /// The `--cubes` patterns of a search from fixed cubes, kept in its checkpoints.
    pub cubes: Vec<String>,
    /// For a search of invariant schemes, the group and whether its fixed terms are frozen:
    /// kept in its checkpoints, so that a resume walks the same schemes.
    pub symmetric: Option<(Group, FixedTerms)>,
    /// Which walkers walk sparse: kept in its checkpoints, so that a resume walks the same way.
    pub sparsity: Sparsity,
    /// How GPU walkers find flip partners: kept in its checkpoints, so that a resume walks the
    /// same way.
    pub partners: Partners,
    /// A search whose ladder was cut short (Ctrl-C or the time) before its walk: its
    /// checkpoints stay marked climbing, so that its resume climbs again.
    pub climbing: bool,
}

/// Where walkers restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Restarts {
    /// From the pool, when it improves past them or their patience ends: the walkers share
    /// what any of them finds (the default).
    #[default]
    Pool,
    /// From the start scheme, only when their patience ends: every walker is an independent
    /// run and the pool only collects results (how Moosbauer and Poole run their symmetric
    /// search: many long runs rather than one lineage).
    Independent,
}

/// The rank a search of `shape` aims at unless told: the best known rank when the start is
/// above it, else one below the start; but never below a proven optimum: a format with a
/// dimension 1 (an outer product) needs all its naive products, so it aims at that rank.
pub fn default_target(shape: Shape, best_known: Option<usize>, start_rank: usize) -> usize {
    if shape.dims().contains(&1) {
        return shape.naive_rank().min(start_rank);
    }
    best_known
        .filter(|&k| k < start_rank)
        .unwrap_or(start_rank.saturating_sub(1))
}

/// Steps a walker may go without improving before it restarts from the pool, by default: the
/// least of [`Patience::Growing`].
pub const PATIENCE: u64 = 4_000_000;

/// How many steps a walker may go without improving before it restarts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Patience {
    /// This many steps, whatever happens.
    Fixed(u64),
    /// At least this many steps, and half the steps an average walker has walked since the
    /// pool's best rank last improved. While the search descends, walkers restart from the
    /// pool's newest schemes every few million steps; once it stalls (a shape at its lowest
    /// ranks, a start near a record), each walk lasts about twice the one before, so walks
    /// grow as long as the stall needs without a per-shape constant. (On 4x4x5, seeds 1-2,
    /// 90 s on an H200: a fixed 4M gave 63 and 62, a fixed 64M gave 62 and the best known 60.)
    Growing(u64),
}

impl Patience {
    /// The patience after `stalled` steps (of an average walker) without a better pool.
    pub fn after(self, stalled: u64) -> u64 {
        match self {
            Patience::Fixed(steps) => steps,
            Patience::Growing(least) => least.max(stalled / 2),
        }
    }
}

/// The percent of walkers behind a new best that restart from the pool at once, by default:
/// all of them.
pub const FOLLOW: u32 = 100;

/// Schemes kept per rank in the pool by default.
pub const POOL_PER_RANK: usize = 64;

/// Ranks the pool keeps by default, from its best up: restarts from the four above the best
/// keep lineages other than the best one's in play. With three (the best half the time, the
/// next two a quarter each) a 4x5x5 search from naive with the style chooser went no lower than
/// 77 in 17 runs of 25-50 s, where five reached 76 in 2 of 6 runs of 50 s; 8x8x8 came to 449 and
/// 455 in 60 s against 462, and 4x4x4 reached 47 within 10 s in 29 runs of 30 against 27
/// (H100); 5x5x5 to 7x7x7 were 1-3 ranks worse on each seed compared, within the seeds'
/// spread. The CPU's 32 walkers did worse with five on 7x7x7 (docs/BENCHMARKS-ARCHIVE.md,
/// "Occupancy near records, and five pool ranks"); `--pool-ranks 3` gives the old pool.
pub const POOL_RANKS: usize = 5;

impl SearchConfig {
    /// A search of `shape` down to `target` with rounds of `steps_per_round` steps and walkers
    /// restarted after `patience` steps without improvement; the default pool, no time limit,
    /// a checkpoint every 5 seconds.
    pub fn new(shape: Shape, target: usize, seed: u64, steps_per_round: u64, patience: Patience) -> SearchConfig {
        SearchConfig {
            shape,
            target,
            time_limit: None,
            stall_limit: None,
            gather: 1,
            seed,
            steps_per_round,
            patience,
            pool_per_rank: POOL_PER_RANK,
            pool_ranks: POOL_RANKS,
            checkpoint_every: Duration::from_secs(5),
            best_known: best_known_rank(shape),
            restarts: Restarts::Pool,
            follow: FOLLOW,
            cubes: Vec::new(),
            symmetric: None,
            sparsity: Sparsity::default(),
            partners: Partners::Sample,
            climbing: false,
        }
    }

    /// A search of `shape` down to `target` as `flipgraph search` runs one on `engine` (opened
    /// from `spec`): its rounds, growing patience, the default pool.
    pub fn on_engine<F: FactorBits>(
        shape: Shape,
        target: usize,
        seed: u64,
        spec: &EngineSpec,
        engine: &dyn Engine<F>,
    ) -> SearchConfig {
        let steps = spec.steps_per_round(engine.timed_rounds(), engine.walkers());
        SearchConfig::new(shape, target, seed, steps, Patience::Growing(PATIENCE))
    }
}

/// The end of a search.
#[derive(Debug)]
pub struct Summary<F: FactorBits = u64> {
    pub best: Verified<F>,
    /// The work of this process (a resumed search's earlier runs not included), done in
    /// `walk_time`.
    pub counters: Counters,
    /// Time spent walking in this process.
    pub walk_time: Duration,
    /// The search's time at its end, its earlier runs' included (as its status line counts).
    pub elapsed: Duration,
    pub stop: Stop,
    /// Improvements the engine reported that failed verification (should be zero).
    pub rejected: u64,
    /// The ranks reached below the best known rank (new records), best last.
    pub records: Vec<usize>,
    /// Every scheme of the best rank the pool held at the end (`best` among them).
    pub bests: Vec<Verified<F>>,
    /// What the output folder could not take: new best schemes (each rescued elsewhere), and
    /// whether the final checkpoint failed (a resume then starts from the last good one).
    pub unwritten: Unwritten,
}

/// What a search's output folder could not take ([`Summary::unwritten`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unwritten {
    /// New best schemes, each rescued elsewhere (`output::rescue`).
    pub schemes: usize,
    /// Whether the final checkpoint failed.
    pub final_checkpoint: bool,
}

impl Unwritten {
    /// Whether the folder took everything.
    pub fn none(self) -> bool {
        self == Unwritten::default()
    }
}
