//! The engines that walk many schemes at once: the CPU engine (threads running the core walk)
//! and the GPU engine (one warp per scheme). Both serve the search driver through [`Engine`].

pub mod cpu;
pub mod gpu;

use anyhow::Result;
use flipgraph_core::walk::Counters;
use flipgraph_core::Scheme;

/// What a walker did in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkerStatus {
    /// Rank at the end of the round.
    pub rank: usize,
    /// Lowest rank since the walker was last loaded.
    pub best_rank: usize,
    /// Its plateau limit now (steps without a reduction before a plus move).
    pub plateau: u64,
}

/// The result of one round over all walkers.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// Steps, vertices and moves of all walkers in this round.
    pub counters: Counters,
    /// One entry per walker.
    pub walkers: Vec<WalkerStatus>,
}

/// A set of walkers that the driver loads with schemes and runs in rounds.
///
/// Rounds are barriers: every walker takes its steps, then the driver reads the results and
/// decides which walkers to reload. With rounds of so many steps the trajectory depends only
/// on the seeds and the walker count, never on timing, so a run is reproducible; a GPU's
/// rounds by time (its default) trade that for throughput.
pub trait Engine {
    /// Names the engine and its hardware, for logs and reports.
    fn describe(&self) -> String;
    /// How many walkers it runs.
    fn walkers(&self) -> usize;
    /// Whether its rounds end after a time (then `run_round`'s steps are only a cap).
    fn timed_rounds(&self) -> bool;
    /// Loads `scheme` into walker `walker` with a fresh random stream from `seed`.
    fn load(&mut self, walker: usize, scheme: &Scheme, seed: u64) -> Result<()>;
    /// Runs every walker for up to `steps` steps (or the engine's round time, where it has
    /// one), stopping a walker early at rank `target`.
    fn run_round(&mut self, steps: u64, target: usize) -> Result<Round>;
    /// The best scheme walker `walker` reached since it was loaded (not yet verified).
    fn best_scheme(&mut self, walker: usize) -> Result<Scheme>;
    /// The scheme walker `walker` holds now (not yet verified): for audits.
    fn current_scheme(&mut self, walker: usize) -> Result<Scheme>;
}
