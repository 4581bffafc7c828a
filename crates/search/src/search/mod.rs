//! The search driver, shared by the CPU and GPU engines: a pool of the best schemes, descent
//! rank by rank to a target, walkers restarted from the pool, verified output, checkpoints,
//! progress and a clean stop on Ctrl-C.

mod config;
pub mod descent;
pub mod island;
pub mod ladder;
pub mod output;
mod pool;
pub mod progress;
mod record;
mod styles;
pub mod threads;

pub use config::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::device::Partners;
use flipgraph_core::group::Group;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::plateau::{Style, HOLD_FLOOR};
use flipgraph_core::rng::WyRand;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape};
use serde_json::json;

use crate::engine::{Engine, EngineSpec, WalkerStatus, Width};
use island::Island;
use output::{pool_entries, symmetric_name, Checkpoint, Output};
use pool::Pool;
use progress::{Progress, Status};
use record::Lifts;
use styles::Styles;

/// A better scheme than the last checkpoint's is checkpointed this soon (not only every
/// `checkpoint_every`), so that a kill loses at most this much of a descent.
const EARLY_CHECKPOINT: Duration = Duration::from_millis(500);

/// How often the status line and --json show progress.
const STATUS_EVERY: Duration = Duration::from_millis(500);

/// How often events.jsonl takes a progress line (the status line and --json: every 0.5 s).
const PROGRESS_LOG_EVERY: Duration = Duration::from_secs(10);

/// One restart in this many walks from the start scheme again rather than from the pool.
const FRESH_RESTARTS: usize = 8;

/// Per-walker bookkeeping of the driver.
#[derive(Clone, Copy)]
struct WalkerState {
    best_rank: usize,
    idle_steps: u64,
    /// The pool's best rank when the walker was loaded: a better one found since makes it
    /// restart from there (the best scheme is copied into many walkers), and only ranks below
    /// it count for its style's returns ([`WalkerState::gain`]).
    pool_best: usize,
    /// Where the walker's present walk began, for the record of who found what.
    origin: Origin,
}

impl WalkerState {
    /// The ranks gained this round, for its style's returns, by a walker whose best since its
    /// load is now `best`: only those below both its best before the round and the pool's best
    /// at its load. Why not all below its load: under pool restarts one in eight walks from the
    /// start scheme, and its walk down to ranks the pool already held credited its style with
    /// ranks found long before (on 4x5x5 from naive the share went to 69-87% holding, though
    /// every improvement at 80 and below came from an escaping walk; docs/BENCHMARKS-ARCHIVE.md,
    /// "4x5x5 from naive: a trap at 77"). With
    /// independent restarts a walk earns only by a new best of the whole search.
    fn gain(&self, best: usize) -> usize {
        self.best_rank.min(self.pool_best).saturating_sub(best)
    }
}

/// Where a walk began: the rank of the scheme it was loaded with, whether that was the start
/// scheme or one of the pool, its style, and the steps (of an average walker) it has walked
/// since. Improvements carry it in events.jsonl, so that a search shows which restarts pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    walker: usize,
    rank: usize,
    from_start: bool,
    style: Style,
    steps: u64,
}

impl Origin {
    fn json(&self) -> serde_json::Value {
        json!({
            "walker": self.walker,
            "loaded_rank": self.rank,
            "loaded_from": if self.from_start { "start" } else { "pool" },
            "style": self.style.name(),
            "steps_since_load": self.steps,
        })
    }
}

/// The driver (of schemes with factors of `F`): owns the engine, the pool and the output.
pub struct Driver<'a, F: Width = u64> {
    engine: &'a mut dyn Engine<F>,
    config: SearchConfig,
    pool: Pool<F>,
    /// The start schemes of the highest rank: a fraction of restarts walk from one of them
    /// again, which brings new schemes into the pool when its lowest ranks hold only dead ends.
    fresh: Vec<Verified<F>>,
    output: Option<Output>,
    progress: Progress,
    rng: WyRand,
    walkers: Vec<WalkerState>,
    counters: Counters,
    /// The counters the search resumed with (zero for a fresh one).
    resumed_counters: Counters,
    rounds: u64,
    elapsed_before: Duration,
    rejected: u64,
    started: Instant,
    /// When the best rank last improved (or the search started).
    improved_at: Instant,
    process_start: Instant,
    /// Where the walkers stood after the last round.
    standing: Standing,
    /// Steps of an average walker since the pool's best rank last improved (this process).
    stalled: u64,
    /// The pool's best rank at the last checkpoint written.
    checkpointed_best: usize,
    /// Ranks reached below the best known rank.
    records: Vec<usize>,
    lifts: Lifts<F>,
    /// Each style's recent returns, which choose the style of each walk.
    styles: Styles,
    /// Told of every new best scheme (an embedder's hook).
    on_improvement: Option<OnImprovement<'a, F>>,
    /// This process's part in a job of many (an MPI job), if it is one.
    island: Option<Island>,
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
        let mut pool = Pool::new(config.pool_per_rank, config.pool_ranks);
        let starts = start
            .pool
            .into_iter()
            .map(|s| Verified::new(s).context("a start scheme is not valid"))
            .collect::<Result<Vec<_>>>()?;
        // At least one start scheme: the pool is never empty from here on.
        let highest = starts
            .iter()
            .map(|s| s.rank())
            .max()
            .ok_or_else(|| anyhow::anyhow!("no start scheme"))?;
        let fresh = starts.iter().filter(|s| s.rank() == highest).cloned().collect();
        for s in starts {
            pool.insert(s);
        }
        let walkers = (0..engine.walkers())
            .map(|walker| WalkerState {
                best_rank: usize::MAX,
                idle_steps: 0,
                pool_best: usize::MAX,
                origin: Origin {
                    walker,
                    rank: usize::MAX,
                    from_start: true,
                    style: Style::of_walker(walker),
                    steps: 0,
                },
            })
            .collect();
        let rng = WyRand::new(config.seed ^ 0x5eed_f11b);
        // Under a fixed plateau no walker holds: the odd walkers take the holding style, which
        // then only makes them sparse under `Sparsity::Half`.
        let choose_styles = engine.adaptive_plateau();
        Ok(Driver {
            engine,
            config,
            pool,
            fresh,
            output,
            progress,
            rng,
            walkers,
            counters: start.counters,
            resumed_counters: start.counters,
            rounds: start.rounds,
            elapsed_before: start.elapsed,
            rejected: 0,
            started: Instant::now(),
            improved_at: Instant::now(),
            process_start,
            standing: Standing::default(),
            stalled: 0,
            checkpointed_best: usize::MAX,
            records: Vec::new(),
            lifts: Lifts::default(),
            styles: Styles::new(choose_styles),
            on_improvement: None,
            island: None,
        })
    }

    fn elapsed(&self) -> Duration {
        self.elapsed_before + self.started.elapsed()
    }

    /// Loads walker `w` from a random scheme of the pool: of the best rank mostly, of the next
    /// ranks sometimes, which keeps the walkers from piling onto one dead end.
    fn reload(&mut self, w: usize) -> Result<()> {
        let seed = self.rng.bits();
        let independent = self.config.restarts == Restarts::Independent;
        let from_start = independent || self.rng.below(FRESH_RESTARTS) == 0;
        let scheme = if from_start {
            // One draw only where there is a choice: a search from one scheme walks as before.
            let i = if self.fresh.len() > 1 {
                self.rng.below(self.fresh.len())
            } else {
                0
            };
            self.fresh[i].clone()
        } else {
            self.pool.pick(&mut self.rng).clone()
        };
        let pool_best = self.pool.best_rank().expect("non-empty pool");
        let style = self.styles.choose(w, &mut self.rng);
        self.walkers[w] = WalkerState {
            best_rank: scheme.rank(),
            idle_steps: 0,
            pool_best,
            origin: Origin {
                walker: w,
                rank: scheme.rank(),
                from_start,
                style,
                steps: 0,
            },
        };
        self.engine.load(w, &scheme, seed, style)
    }

    /// Runs until the target, the time limit or `stop` is set.
    pub fn run(mut self, stop: &AtomicBool) -> Result<Summary<F>> {
        let shape = self.config.shape;
        tracing::info!(
            "searching {shape} from rank {} to {} on {}",
            self.pool.best_rank().unwrap_or(0),
            self.config.target,
            self.engine.describe()
        );
        if let Some(best) = self.pool.best().cloned() {
            self.record_best(&best, None)?;
        }
        for w in 0..self.walkers.len() {
            self.reload(w)?;
        }
        // At once, so that a search killed in its first seconds can be resumed.
        let mut last_checkpoint = Instant::now();
        self.checkpoint_now(&mut last_checkpoint);
        self.settle_islands()?;
        let mut window = (Instant::now(), self.counters);
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
            let improved = self.pool.best_rank() < Some(self.checkpointed_best);
            if since >= self.config.checkpoint_every || (improved && since >= EARLY_CHECKPOINT) {
                self.checkpoint_now(&mut last_checkpoint);
            }
            if window.0.elapsed() >= STATUS_EVERY {
                self.report_progress(&window, &mut progress_logged);
                window = (Instant::now(), self.counters);
            }
        };
        let walk_time = walk_start.elapsed();
        // The last offers, so that island 0 writes the job's best.
        self.exchange()?;
        if let Err(e) = self.checkpoint() {
            // The results are written (or rescued); the last good checkpoint stays in place.
            tracing::error!("the final checkpoint failed ({e:#}); a resume starts from the last good one");
        }
        self.progress.finish();
        let mut own = self.counters;
        own.subtract(self.resumed_counters);
        let counters = self.job_counters(own)?;
        self.report_sharing(walk_time)?;
        match outcome {
            Stop::Interrupted => self.lifts.abandon(),
            _ => self.lifts.finish(stop),
        }
        Ok(Summary {
            best: self.pool.best().cloned().expect("non-empty pool"),
            counters,
            walk_time,
            stop: outcome,
            rejected: self.rejected,
            records: self.records,
            bests: self.pool.lowest().to_vec(),
        })
    }

    /// Why the search should stop now, if it should.
    fn stop_reason(&self, stop: &AtomicBool) -> Option<Stop> {
        if self.pool.best_rank().is_some_and(|r| r <= self.config.target) && self.gathered() {
            Some(Stop::Target)
        } else if stop.load(Ordering::Relaxed) {
            Some(Stop::Interrupted)
        } else if self.config.time_limit.is_some_and(|t| self.started.elapsed() >= t) {
            Some(Stop::TimeLimit)
        } else if self.stalled_out() {
            Some(Stop::Stalled)
        } else {
            None
        }
    }

    /// Whether the search, at its target, holds enough schemes of its best rank or has waited
    /// for them as long as it took to get there.
    fn gathered(&self) -> bool {
        self.pool.lowest().len() >= self.config.gather || self.quiet_for(Duration::ZERO)
    }

    /// Whether the best rank has gone longer without improving than the stall limit allows.
    fn stalled_out(&self) -> bool {
        self.config.stall_limit.is_some_and(|least| self.quiet_for(least))
    }

    /// Whether the best rank has gone without improving for `least`, and for at least as long
    /// as the search took to reach it.
    fn quiet_for(&self, least: Duration) -> bool {
        let took = self.improved_at.saturating_duration_since(self.started);
        self.improved_at.elapsed() >= least.max(took)
    }

    /// Shows the rates since `window` began; the event log takes a progress line every
    /// PROGRESS_LOG_EVERY (every improvement is logged anyway): about 100 KB an hour, so a
    /// week-long search does not fill its disk.
    fn report_progress(&mut self, window: &(Instant, Counters), logged: &mut Option<Instant>) {
        let dt = window.0.elapsed().as_secs_f64();
        let mut c = self.counters;
        c.subtract(window.1);
        let status = Status {
            shape: self.config.shape,
            best_rank: self.pool.best_rank().unwrap_or(0),
            best_known: self.config.best_known,
            vertices_per_s: c.vertices as f64 / dt,
            steps_per_s: c.steps as f64 / dt,
            reductions_per_s: c.reductions as f64 / dt,
            plateau: self.standing.plateau,
            walker_ranks: self.standing.ranks,
            hold_share: self.styles.hold_share(),
            elapsed: self.elapsed(),
            pool: self.pool.len(),
        };
        self.progress.update(&status);
        if logged.is_none_or(|t| t.elapsed() >= PROGRESS_LOG_EVERY) {
            self.log_event(&status.json());
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
        let before = self.pool.best_rank();
        for (w, status) in round.walkers.iter().enumerate() {
            let state = &mut self.walkers[w];
            state.origin.steps += walked;
            let gained = state.gain(status.best_rank);
            self.styles.record(state.origin.style, walked, gained);
            if status.best_rank < state.best_rank {
                state.best_rank = status.best_rank;
                state.idle_steps = 0;
                if self.pool.wants(status.best_rank) {
                    self.collect(w)?;
                }
            } else {
                state.idle_steps += walked;
            }
        }
        self.styles.end_round();
        let best = self.pool.best_rank().expect("non-empty pool");
        self.stalled = if before == Some(best) { self.stalled + walked } else { 0 };
        let patience = self.config.patience.after(self.stalled);
        for w in 0..self.walkers.len() {
            let s = self.walkers[w];
            let behind = s.pool_best > best && self.config.restarts == Restarts::Pool;
            if behind || s.idle_steps >= patience {
                self.reload(w)?;
            }
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
        let improves = self.pool.best_rank().is_none_or(|b| scheme.rank() < b);
        if self.pool.insert(scheme.clone()) && improves {
            self.record_best(&scheme, Some(self.walkers[w].origin))?;
        }
        Ok(())
    }

    /// Runs as `island` of a job: agreeing with the other islands when to stop, sharing the
    /// best schemes, walking its own random streams.
    pub fn island(mut self, island: Island) -> Self {
        let index = island.index() as u64;
        self.rng = WyRand::new(self.config.seed ^ 0x5eed_f11b ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        self.island = Some(island);
        self
    }

    /// Calls `f` with every new best scheme (the start's best included), verified.
    pub fn on_improvement(mut self, f: impl FnMut(&Verified<F>) + 'a) -> Self {
        self.on_improvement = Some(Box::new(f));
        self
    }

    /// Writes a new best scheme at once and reports it, with where the walk that found it
    /// began (`found_by`; none for a start scheme or another island's).
    fn record_best(&mut self, scheme: &Verified<F>, found_by: Option<Origin>) -> Result<()> {
        self.improved_at = Instant::now();
        if let Some(f) = &mut self.on_improvement {
            f(scheme);
        }
        let paths = match self.output.as_ref().map(|out| out.write_scheme(scheme)) {
            Some(Ok(paths)) => paths,
            Some(Err(e)) => {
                // A full disk or a folder gone read-only must not lose the scheme.
                let rescued = output::rescue(scheme);
                tracing::error!(
                    "cannot write the verified scheme of rank {} ({e:#}); {rescued}",
                    scheme.rank()
                );
                Vec::new()
            }
            None => Vec::new(),
        };
        let t = self.process_start.elapsed().as_secs_f64();
        let mut event = json!({
            "event": "improved",
            "t": t,
            "search_t": self.elapsed().as_secs_f64(),
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
        self.log_event(&event);
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
            "t": self.process_start.elapsed().as_secs_f64(),
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
        self.log_event(&event);
        self.records.push(scheme.rank());
        if let Some(out) = &self.output {
            let (path, format) = out.lift_path(scheme);
            self.lifts.start(scheme, path, format);
        }
    }

    /// Appends to events.jsonl; a failure is a warning (the result files are what matters).
    fn log_event(&mut self, event: &serde_json::Value) {
        if let Some(out) = &mut self.output {
            if let Err(e) = out.event(event) {
                tracing::warn!("{e:#}");
            }
        }
    }

    /// Writes a checkpoint; a failure is reported and retried next time (the search goes on).
    fn checkpoint_now(&mut self, last: &mut Instant) {
        match self.checkpoint() {
            Ok(()) => self.checkpointed_best = self.pool.best_rank().unwrap_or(usize::MAX),
            Err(e) => tracing::warn!("checkpoint failed: {e:#}"),
        }
        *last = Instant::now();
    }

    fn checkpoint(&self) -> Result<()> {
        let Some(out) = &self.output else {
            return Ok(());
        };
        let cp = Checkpoint {
            shape: self.config.shape.dims(),
            seed: self.config.seed,
            target: self.config.target,
            elapsed_s: output::elapsed_s(self.elapsed()),
            steps: self.counters.steps,
            vertices: self.counters.vertices,
            rounds: self.rounds,
            pool: pool_entries(self.pool.iter().map(|s| &**s)),
            cubes: self.config.cubes.clone(),
            symmetric: self.config.symmetric.map(symmetric_name),
            sparse: Some(self.config.sparsity.name().to_owned()),
            partners: Some(self.config.partners.name().to_owned()),
            climbing: self.config.climbing,
        };
        out.checkpoint(&cp)
    }
}

#[cfg(test)]
mod tests;
