//! A descent in a few lines, for programs that embed flipgraph: the engine, pool and restarts of
//! `flipgraph search` with its defaults, writing no files.
//!
//! ```
//! use std::time::Duration;
//! use flipgraph_core::{Scheme, Shape};
//! use flipgraph_search::Descent;
//!
//! let naive = Scheme::naive(Shape::square(3).unwrap());
//! let summary = Descent::new(naive)
//!     .threads(1)
//!     .time_limit(Duration::from_secs(30))
//!     .on_improvement(|s| println!("rank {}", s.rank()))
//!     .run()?;
//! assert_eq!(summary.best.rank(), 23); // Laderman's rank, the best known; verified
//! # Ok::<(), flipgraph_search::Error>(())
//! ```

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::verify::Verified;
use flipgraph_core::Scheme;

use super::recipe::Recipe;
use crate::driver::progress::Progress;
use crate::driver::{default_target, Driver, OnImprovement, Start, Summary};
use crate::engine::{Backend, StartKind};

/// A search from one scheme down to a target rank, set up by its builder methods.
pub struct Descent<'a> {
    start: Scheme,
    recipe: Recipe,
    target: Option<usize>,
    time_limit: Option<Duration>,
    on_improvement: Option<OnImprovement<'a>>,
}

impl<'a> Descent<'a> {
    /// A descent from `start` on every CPU core, toward the best known rank (else one below the
    /// start), with no time limit: the recipe of `flipgraph search --backend cpu --from FILE`
    /// (of `--size` where `start` is the naive scheme, but no ladder), settled for the start as
    /// the command settles it ([`Recipe::spec_from`], [`Recipe::config`]): the same seed and
    /// rounds give the same walk.
    pub fn new(start: Scheme) -> Descent<'a> {
        Descent {
            start,
            recipe: Recipe {
                backend: Backend::Cpu,
                ..Recipe::default()
            },
            target: None,
            time_limit: None,
            on_improvement: None,
        }
    }

    /// Another recipe (a GPU, other walkers or plateaus, a symmetric walk).
    pub fn recipe(mut self, recipe: Recipe) -> Self {
        self.recipe = recipe;
        self
    }

    /// CPU threads.
    pub fn threads(mut self, threads: usize) -> Self {
        self.recipe.threads = Some(threads);
        self
    }

    /// Rounds of exactly `steps` steps per walker instead of the engine's own (a reproducible
    /// run, as `--round-steps`).
    pub fn exact_rounds(mut self, steps: u64) -> Self {
        self.recipe.walk.round_steps = Some(steps);
        self
    }

    /// Stops once a scheme of this rank or lower is found.
    pub fn target(mut self, rank: usize) -> Self {
        self.target = Some(rank);
        self
    }

    /// Stops after this long.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// The seed of the walkers (the same seed and engine give the same CPU run).
    pub fn seed(mut self, seed: u64) -> Self {
        self.recipe.walk.seed = Some(seed);
        self
    }

    /// Calls `f` with every new best scheme, verified: at most one a round (the engine reports
    /// each walker's best of the round), so a round that descends several ranks at once (27 to
    /// 23 on 3x3x3) calls it once, with the lowest.
    pub fn on_improvement(mut self, f: impl FnMut(&Verified) + 'a) -> Self {
        self.on_improvement = Some(Box::new(f));
        self
    }

    /// Runs to the target or the time limit.
    pub fn run(self) -> Result<Summary, crate::Error> {
        self.run_until(&AtomicBool::new(false))
    }

    /// Runs to the target, the time limit or until `stop` is set (from another thread).
    pub fn run_until(self, stop: &AtomicBool) -> Result<Summary, crate::Error> {
        Ok(self.descend(stop)?)
    }

    fn descend(self, stop: &AtomicBool) -> Result<Summary> {
        let shape = self.start.shape();
        let target = self
            .target
            .unwrap_or_else(|| default_target(shape, best_known_rank(shape), self.start.rank()));
        let kind = match self.start == Scheme::naive(shape) {
            true => StartKind::Naive,
            false => StartKind::Given,
        };
        self.recipe.refuse_conflicts(true)?;
        let spec = self.recipe.spec_from(self.start.rank(), kind);
        let mut engine = spec.open(shape)?;
        let config = crate::driver::SearchConfig {
            time_limit: self.time_limit,
            ..self
                .recipe
                .config(shape, (target, self.recipe.seed()), &spec, engine.as_ref())
        };
        let start = Start::from_scheme(self.start);
        let quiet = Progress::new(false, true);
        let mut driver = Driver::new(engine.as_mut(), config, start, None, quiet, Instant::now())?;
        if let Some(f) = self.on_improvement {
            driver = driver.on_improvement(f);
        }
        driver.run(stop)
    }
}
