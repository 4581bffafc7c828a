//! The CPU engine: the core walk on every walker, the walkers spread over a thread pool.

use anyhow::{Context, Result};
use flipgraph_core::plateau::Style;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::walk::{Counters, Walk, WalkConfig, Walker};
use flipgraph_core::Scheme;
use rayon::prelude::*;

use super::{Engine, Group, Kind, PlusCap, Round, WalkerStatus, Width};

/// What the CPU engine's walkers walk, and how.
#[derive(Clone, Copy, Debug)]
pub struct Walks {
    /// The walk's settings (its `max_rank` set for each walker, from `plus`).
    pub config: WalkConfig,
    /// Where plus moves stop.
    pub plus: PlusCap,
    pub symmetry: Group,
    /// Whether symmetric walks may change their fixed terms.
    pub fixed_terms: FixedTerms,
}

/// Walkers of schemes with factors of `F` on a rayon pool of fixed size.
pub struct CpuEngine<F: Width = u64> {
    pool: rayon::ThreadPool,
    threads: usize,
    walks: Walks,
    walkers: Vec<Option<Box<dyn Walk<F>>>>,
}

impl<F: Width> CpuEngine<F> {
    /// `walkers` walkers on `threads` threads, walking as `walks` says.
    pub fn new(threads: usize, walkers: usize, walks: Walks) -> Result<CpuEngine<F>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("walker-{i}"))
            .build()
            .context("cannot start the CPU worker threads")?;
        Ok(CpuEngine {
            pool,
            threads,
            walks,
            walkers: (0..walkers).map(|_| None).collect(),
        })
    }
}

impl<F: Width> Engine<F> for CpuEngine<F> {
    fn describe(&self) -> String {
        let group = self.walks.symmetry;
        let symmetric = match (group, self.walks.fixed_terms.for_group(group)) {
            (Group::Trivial, _) => String::new(),
            (group, FixedTerms::Free) => format!(" ({}-invariant schemes)", group.label()),
            (group, FixedTerms::Frozen) => format!(" ({}-invariant schemes, fixed terms frozen)", group.label()),
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

    fn adaptive_plateau(&self) -> bool {
        self.walks.config.plateau.adapts()
    }

    fn walkers(&self) -> usize {
        self.walkers.len()
    }

    fn load(&mut self, walker: usize, scheme: &Scheme<F>, seed: u64, style: Style) -> Result<()> {
        let Walks {
            mut config,
            plus,
            symmetry,
            fixed_terms,
        } = self.walks;
        config.max_rank = plus.for_rank(scheme.rank());
        config.plateau = config.plateau.for_style(style);
        config.sparsity = config.sparsity.for_style(style);
        let walk: Box<dyn Walk<F>> = match symmetry {
            Group::Trivial => Box::new(Walker::new(scheme, config, seed)),
            group => F::symmetric_walker(group, scheme, config, seed, fixed_terms)?,
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

    fn best_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        Ok(self.walkers[walker].as_ref().context("walker not loaded")?.best())
    }

    fn current_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        Ok(self.walkers[walker].as_ref().context("walker not loaded")?.scheme())
    }
}
