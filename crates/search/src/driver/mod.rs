//! The search driver, shared by the CPU and GPU engines: a pool of the best schemes, descent
//! rank by rank to a target, walkers restarted from the pool, verified output, checkpoints,
//! progress and a clean stop on Ctrl-C. It drives one engine ([`crate::engine`]) and writes
//! through [`crate::output`]; a session ([`crate::session`]) settles what it is given.

mod clock;
mod config;
mod exchange;
mod pool;
pub mod progress;
mod restarts;
mod results;
mod styles;

pub use crate::output::{Start, Stop};
pub use config::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::device::Partners;
use flipgraph_core::group::Group;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::plateau::HOLD_FLOOR;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use flipgraph_core::Shape;
use serde_json::json;

use crate::engine::{Engine, EngineSpec, WalkerStatus, Width};
use crate::islands::Island;
use crate::output::{pool_entries, symmetric_name, Checkpoint, Output};
use clock::Clock;
use progress::{Progress, Status};
use restarts::{Origin, Population};
use results::Results;

/// A better scheme than the last checkpoint's is checkpointed this soon (not only every
/// `checkpoint_every`), so that a kill loses at most this much of a descent.
const EARLY_CHECKPOINT: Duration = Duration::from_millis(500);

/// How often the status line and --json show progress.
const STATUS_EVERY: Duration = Duration::from_millis(500);

/// How often events.jsonl takes a progress line (the status line and --json: every 0.5 s).
pub(crate) const PROGRESS_LOG_EVERY: Duration = Duration::from_secs(10);

/// The driver (of schemes with factors of `F`): owns the engine and, in parts, the search's
/// population (`restarts.rs`), its clock (`clock.rs`), what it keeps (`results.rs`) and its
/// place among islands ([`crate::islands`]).
pub struct Driver<'a, F: Width = u64> {
    engine: &'a mut dyn Engine<F>,
    config: SearchConfig,
    population: Population<F>,
    clock: Clock,
    results: Results<'a, F>,
    progress: Progress,
    /// The work of the search, the runs it resumed included, and that of the runs it resumed.
    counters: Counters,
    resumed_counters: Counters,
    rounds: u64,
    /// Invalid schemes met (from walkers or other islands), discarded.
    rejected: u64,
    /// Where the walkers stood after the last round.
    standing: Standing,
    /// Steps of an average walker since the pool's best rank last improved (this process).
    stalled: u64,
    /// The islands' work since they started, as last agreed (islands only): the status line's.
    job_work: Counters,
    /// This process's part in a job of many (an MPI job, or islands on threads), if it is one:
    /// lent for this search (the ladder's rungs and then the search itself take it in turn).
    island: Option<&'a mut Island>,
}

/// An embedder's hook, told of every new best scheme.
pub type OnImprovement<'a, F = u64> = Box<dyn FnMut(&Verified<F>) + 'a>;

/// Where the walkers stand after a round: what the status line shows of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Standing {
    /// The median plateau limit of the escaping walkers (of all, if every one holds).
    plateau: u64,
    /// The lowest, median and highest rank.
    ranks: [usize; 3],
}

impl Standing {
    fn of(walkers: &[WalkerStatus]) -> Standing {
        // The walkers that hold their plateaus would make the median a coin toss between
        // their floor and the others' limits.
        let escaping = walkers.iter().map(|w| w.plateau).filter(|&p| p < HOLD_FLOOR as u64);
        let mut plateaus: Vec<u64> = escaping.collect();
        if plateaus.is_empty() {
            plateaus = walkers.iter().map(|w| w.plateau).collect();
        }
        let mut ranks: Vec<usize> = walkers.iter().map(|w| w.rank).collect();
        plateaus.sort_unstable();
        ranks.sort_unstable();
        let median = |n: usize| n / 2;
        Standing {
            plateau: plateaus.get(median(plateaus.len())).copied().unwrap_or(0),
            ranks: match (ranks.first(), ranks.last()) {
                (Some(&low), Some(&high)) => [low, ranks[median(ranks.len())], high],
                _ => [0; 3],
            },
        }
    }
}

impl<'a, F: Width> Driver<'a, F> {
    pub fn new(
        engine: &'a mut dyn Engine<F>,
        config: SearchConfig,
        start: Start<F>,
        output: Option<Output>,
        progress: Progress,
        process_start: Instant,
    ) -> Result<Driver<'a, F>> {
        // Under a fixed plateau no walker holds: the odd walkers take the holding style, which
        // then only makes them sparse under `Sparsity::Half`.
        let choose_styles = engine.adaptive_plateau();
        let population = Population::new(&config, start.pool, engine.walkers(), choose_styles)?;
        Ok(Driver {
            clock: Clock::new(&config, start.elapsed, process_start),
            engine,
            config,
            population,
            results: Results::new(output),
            progress,
            counters: start.counters,
            resumed_counters: start.counters,
            rounds: start.rounds,
            rejected: 0,
            standing: Standing::default(),
            stalled: 0,
            job_work: Counters::default(),
            island: None,
        })
    }

    /// This process's work since it started (the runs it resumed not counted).
    fn walked(&self) -> Counters {
        let mut own = self.counters;
        own.subtract(self.resumed_counters);
        own
    }

    /// The work the status line shows: the job's, as last agreed, in a job of islands.
    fn shown_work(&self) -> Counters {
        match self.island {
            Some(_) => self.job_work,
            None => self.walked(),
        }
    }

    fn pool(&self) -> &pool::Pool<F> {
        &self.population.pool
    }

    /// Loads walker `w` for its next walk ([`Population::restart`]).
    fn reload(&mut self, w: usize) -> Result<()> {
        let load = self.population.restart(w);
        self.engine.load(w, load.scheme, load.seed, load.style)
    }

    /// Runs until the target, the time limit or `stop` is set.
    pub fn run(mut self, stop: &AtomicBool) -> Result<Summary<F>> {
        let shape = self.config.shape;
        tracing::info!(
            "searching {shape} from rank {} to {} on {}",
            self.pool().best_rank().unwrap_or(0),
            self.config.target,
            self.engine.describe()
        );
        if let Some(best) = self.pool().best().cloned() {
            self.record_best(&best, None)?;
        }
        for w in 0..self.population.walkers() {
            self.reload(w)?;
        }
        // At once, so that a search killed in its first seconds can be resumed.
        let mut last_checkpoint = Instant::now();
        self.checkpoint_now(&mut last_checkpoint);
        self.settle_islands()?;
        let mut window = (Instant::now(), self.shown_work());
        let mut progress_logged: Option<Instant> = None;
        let walk_start = Instant::now();
        let outcome = loop {
            let local = self.stop_reason(stop);
            if let Some(reason) = self.agree(local)? {
                break reason;
            }
            if let Err(e) = self.round() {
                // Keep what was found for a resume (or another engine) before giving up.
                if let Err(cp) = self.checkpoint() {
                    tracing::error!("checkpoint failed too: {cp:#}");
                }
                self.progress.finish();
                return Err(e);
            }
            let since = last_checkpoint.elapsed();
            let improved = self.pool().best_rank() < Some(self.results.checkpointed_best);
            if since >= self.config.checkpoint_every || (improved && since >= EARLY_CHECKPOINT) {
                self.checkpoint_now(&mut last_checkpoint);
            }
            if window.0.elapsed() >= STATUS_EVERY {
                self.report_progress(&window, &mut progress_logged);
                window = (Instant::now(), self.shown_work());
            }
        };
        let walk_time = walk_start.elapsed();
        // The last offers, so that island 0 writes the job's best.
        self.exchange()?;
        let final_checkpoint_failed = match self.checkpoint() {
            Ok(()) => false,
            Err(e) => {
                // The results are written (or rescued); the last good checkpoint stays in place.
                tracing::error!("the final checkpoint failed ({e:#}); a resume starts from the last good one");
                true
            }
        };
        self.progress.finish();
        let counters = self.job_counters(self.walked())?;
        self.report_sharing(walk_time)?;
        match outcome {
            Stop::Interrupted => self.results.lifts.abandon(),
            // A time limit is kept within a grace: a wide record's lift took 3 minutes past a
            // --time 35 search.
            Stop::TimeLimit => self
                .results
                .lifts
                .finish(stop, Some(crate::output::record::lift_grace(self.config.time_limit))),
            _ => self.results.lifts.finish(stop, None),
        }
        Ok(Summary {
            best: self.population.pool.best().cloned().expect("non-empty pool"),
            counters,
            walk_time,
            elapsed: self.clock.elapsed(),
            stop: outcome,
            rejected: self.rejected,
            records: self.results.records,
            bests: self.population.pool.lowest().to_vec(),
            unwritten: Unwritten {
                schemes: self.results.unwritten,
                final_checkpoint: final_checkpoint_failed,
            },
        })
    }

    /// Why the search should stop now, if it should.
    fn stop_reason(&self, stop: &AtomicBool) -> Option<Stop> {
        if self.pool().best_rank().is_some_and(|r| r <= self.config.target) && self.gathered() {
            Some(Stop::Target)
        } else if stop.load(Ordering::Relaxed) {
            Some(Stop::Interrupted)
        } else if self.clock.out_of_time() {
            Some(Stop::TimeLimit)
        } else if self.clock.stalled_out() {
            Some(Stop::Stalled)
        } else {
            None
        }
    }

    /// Whether the search, at its target, holds enough schemes of its best rank or has waited
    /// for them as long as it took to get there.
    fn gathered(&self) -> bool {
        self.pool().lowest().len() >= self.config.gather || self.clock.quiet_for(Duration::ZERO)
    }

    /// Shows the rates since `window` began; the event log takes a progress line every
    /// PROGRESS_LOG_EVERY (every improvement is logged anyway): about 100 KB an hour, so a
    /// week-long search does not fill its disk.
    fn report_progress(&mut self, window: &(Instant, Counters), logged: &mut Option<Instant>) {
        let dt = window.0.elapsed().as_secs_f64();
        let mut c = self.shown_work();
        c.subtract(window.1);
        let status = Status {
            shape: self.config.shape,
            best_rank: self.pool().best_rank().unwrap_or(0),
            best_known: self.config.best_known,
            vertices_per_s: c.vertices as f64 / dt,
            steps_per_s: c.steps as f64 / dt,
            reductions_per_s: c.reductions as f64 / dt,
            plateau: self.standing.plateau,
            walker_ranks: self.standing.ranks,
            hold_share: self.population.styles.hold_share(),
            elapsed: self.clock.elapsed(),
            pool: self.pool().len(),
        };
        self.progress.update(&status);
        if logged.is_none_or(|t| t.elapsed() >= PROGRESS_LOG_EVERY) {
            self.results.event(&status.json());
            *logged = Some(Instant::now());
        }
    }

    /// One round: every walker walks, improvements are verified into the pool, walkers that
    /// fell behind or stalled restart from the pool.
    fn round(&mut self) -> Result<()> {
        let round = self.engine.run_round(self.config.steps_per_round, self.config.target)?;
        self.counters += round.counters;
        self.rounds += 1;
        self.standing = Standing::of(&round.walkers);
        // Steps of an average walker: rounds by time give walkers different counts.
        let walked = round.counters.steps / round.walkers.len().max(1) as u64;
        let before = self.pool().best_rank();
        for w in self.population.walked(&round.walkers, walked) {
            // Asked again: a scheme pooled just before may have filled the rank.
            if self.pool().wants(round.walkers[w].best_rank) {
                self.collect(w)?;
            }
        }
        let best = self.pool().best_rank().expect("non-empty pool");
        self.stalled = if before == Some(best) { self.stalled + walked } else { 0 };
        for w in self.population.due(self.config.patience.after(self.stalled)) {
            self.reload(w)?;
        }
        Ok(())
    }

    /// Fetches, verifies and pools walker `w`'s best scheme.
    fn collect(&mut self, w: usize) -> Result<()> {
        let scheme = self.engine.best_scheme(w)?;
        let rank = scheme.rank();
        let scheme = match Verified::new(scheme) {
            Ok(scheme) => scheme,
            Err(d) => {
                self.rejected += 1;
                tracing::error!("walker {w} returned an invalid scheme of rank {rank} ({d}); discarded");
                return Ok(());
            }
        };
        let improves = self.pool().best_rank().is_none_or(|b| scheme.rank() < b);
        let of_best = self.pool().best_rank() == Some(scheme.rank());
        match self.population.pool.insert(scheme.clone()) {
            true if improves => self.record_best(&scheme, Some(self.population.origin(w)))?,
            true if of_best => self.results.pooled_best(&scheme),
            _ => {}
        }
        Ok(())
    }

    /// Runs as `island` of a job: agreeing with the other islands when to stop, sharing the
    /// best schemes, walking its own random streams.
    pub fn island(mut self, island: &'a mut Island) -> Self {
        self.population.for_island(self.config.seed, island.index());
        // What sharing costs is reported per search (a rung's, then the search's).
        island.cost = crate::islands::Cost::default();
        self.island = Some(island);
        self
    }

    /// Calls `f` with every new best scheme (the start's best included), verified.
    pub fn on_improvement(mut self, f: impl FnMut(&Verified<F>) + 'a) -> Self {
        self.results.on_improvement = Some(Box::new(f));
        self
    }

    /// Calls `f` with every other scheme of the best rank that a walker finds and the pool
    /// takes (verified, and new to the pool): more of a rank than its first.
    pub fn on_pooled_best(mut self, f: impl FnMut(&Verified<F>) + 'a) -> Self {
        self.results.on_pooled_best = Some(Box::new(f));
        self
    }

    /// Writes a new best scheme at once and reports it, with where the walk that found it
    /// began (`found_by`; none for a start scheme or another island's).
    fn record_best(&mut self, scheme: &Verified<F>, found_by: Option<Origin>) -> Result<()> {
        self.clock.improved();
        let paths = self.results.keep(scheme);
        let t = self.clock.t();
        let mut event = json!({
            "event": "improved",
            "t": t,
            "search_t": self.clock.elapsed().as_secs_f64(),
            "rank": scheme.rank(),
            "vertices": self.counters.vertices,
            "steps": self.counters.steps,
            "files": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        if let Some(origin) = found_by {
            event["found_by"] = origin.json();
        }
        let file = paths
            .first()
            .map(|p| format!(" -> {}", p.display()))
            .unwrap_or_default();
        self.progress
            .note(&event, &format!("rank {} at {t:.2}s (verified){file}", scheme.rank()));
        self.results.event(&event);
        // Island 0 announces records for the job: it is offered every island's best.
        let announcer = self.island_index() == 0;
        if announcer && self.config.best_known.is_some_and(|known| scheme.rank() < known) {
            self.announce_record(scheme, &paths);
        }
        Ok(())
    }

    /// A scheme below the best known rank: an event, a line nobody can miss, and a lift to Z.
    fn announce_record(&mut self, scheme: &Verified<F>, paths: &[std::path::PathBuf]) {
        let known = self.config.best_known.unwrap_or(usize::MAX);
        let shape = scheme.shape();
        let event = json!({
            "event": "record",
            "t": self.clock.t(),
            "shape": shape.to_string(),
            "rank": scheme.rank(),
            "best_known": known,
            "files": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        let text = format!(
            "NEW RECORD: {shape} rank {} is below the best known rank {known} (verified over F2)",
            scheme.rank()
        );
        self.progress.note(&event, &text);
        tracing::warn!("*** {text} ***");
        self.results.event(&event);
        self.results.record(scheme);
    }

    /// Writes a checkpoint; a failure is reported and retried next time (the search goes on).
    fn checkpoint_now(&mut self, last: &mut Instant) {
        match self.checkpoint() {
            Ok(()) => self.results.checkpointed_best = self.pool().best_rank().unwrap_or(usize::MAX),
            Err(e) => tracing::warn!("checkpoint failed: {e:#}"),
        }
        *last = Instant::now();
    }

    fn checkpoint(&self) -> Result<()> {
        self.results.checkpoint(|| Checkpoint {
            shape: self.config.shape.dims(),
            seed: self.config.seed,
            target: self.config.target,
            elapsed_s: crate::output::elapsed_s(self.clock.elapsed()),
            time_limit_s: self.clock.whole_limit().map(crate::output::elapsed_s),
            steps: self.counters.steps,
            vertices: self.counters.vertices,
            rounds: self.rounds,
            pool: pool_entries(self.pool().iter().map(|s| &**s)),
            cubes: self.config.cubes.clone(),
            symmetric: self.config.symmetric.map(symmetric_name),
            sparse: Some(self.config.sparsity.name().to_owned()),
            partners: Some(self.config.partners.name().to_owned()),
            climbing: self.config.climbing,
        })
    }
}

#[cfg(test)]
mod tests;
