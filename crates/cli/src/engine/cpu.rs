//! The CPU engine: the core walk on every walker, the walkers spread over a thread pool.

use anyhow::{Context, Result};
use flipgraph_core::symmetry::SymmetricWalker;
use flipgraph_core::walk::{Counters, Walk, WalkConfig, Walker};
use flipgraph_core::Scheme;
use rayon::prelude::*;

use super::{Engine, Kind, Round, Symmetry, WalkerStatus};

/// Walkers on a rayon pool of fixed size.
pub struct CpuEngine {
    pool: rayon::ThreadPool,
    threads: usize,
    config: WalkConfig,
    symmetry: Symmetry,
    walkers: Vec<Option<Box<dyn Walk>>>,
}

impl CpuEngine {
    /// `walkers` walkers on `threads` threads, walking the schemes of `symmetry`.
    pub fn new(threads: usize, walkers: usize, config: WalkConfig, symmetry: Symmetry) -> Result<CpuEngine> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("walker-{i}"))
            .build()
            .context("cannot start the CPU worker threads")?;
        Ok(CpuEngine {
            pool,
            threads,
            config,
            symmetry,
            walkers: (0..walkers).map(|_| None).collect(),
        })
    }
}

impl Engine for CpuEngine {
    fn describe(&self) -> String {
        let symmetric = match self.symmetry {
            Symmetry::None => "",
            Symmetry::C3 => " (C3-invariant schemes)",
        };
        format!(
            "cpu: {} walkers on {} threads{symmetric}",
            self.walkers.len(),
            self.threads
        )
    }

    fn kind(&self) -> Kind {
        Kind::Cpu
    }

    fn timed_rounds(&self) -> bool {
        false
    }

    fn walkers(&self) -> usize {
        self.walkers.len()
    }

    fn load(&mut self, walker: usize, scheme: &Scheme, seed: u64) -> Result<()> {
        // The engine's `max_rank` is the slack above the start rank.
        let mut config = self.config;
        config.max_rank = scheme.rank() + self.config.max_rank;
        let walk: Box<dyn Walk> = match self.symmetry {
            Symmetry::None => Box::new(Walker::new(scheme, config, seed)),
            Symmetry::C3 => Box::new(
                SymmetricWalker::from_scheme(scheme, config, seed)
                    .context("--symmetry c3 walks C3-invariant schemes only")?,
            ),
        };
        self.walkers[walker] = Some(walk);
        Ok(())
    }

    fn run_round(&mut self, steps: u64, target: usize) -> Result<Round> {
        let results: Vec<(Counters, WalkerStatus)> = self.pool.install(|| {
            self.walkers
                .par_iter_mut()
                .map(|w| {
                    let w = w.as_mut().expect("every walker is loaded before a round");
                    let before = w.counters();
                    w.walk(steps, target);
                    let mut c = w.counters();
                    c.subtract(before);
                    (
                        c,
                        WalkerStatus {
                            rank: w.rank(),
                            best_rank: w.best_rank(),
                            plateau: w.plateau_limit(),
                        },
                    )
                })
                .collect()
        });
        let mut round = Round::default();
        for (c, status) in results {
            round.counters += c;
            round.walkers.push(status);
        }
        Ok(round)
    }

    fn best_scheme(&mut self, walker: usize) -> Result<Scheme> {
        Ok(self.walkers[walker].as_ref().context("walker not loaded")?.best())
    }

    fn current_scheme(&mut self, walker: usize) -> Result<Scheme> {
        Ok(self.walkers[walker].as_ref().context("walker not loaded")?.scheme())
    }
}
