//! A search over the ternary ring ZT (`--ring zt`): walkers on one GPU (the kernel `walk_zt`)
//! or core's `TernaryWalker`s on CPU threads, a pool of the best schemes that stalled walkers restart from, and every
//! improvement verified over Z and written at once (with an event), so that Ctrl-C or a crash
//! loses nothing found.
//!
//! The folder holds the start (written first) and each new best: a resume (`--resume DIR`)
//! starts from its lowest-rank scheme files and goes on writing there. The files are its state
//! (no checkpoint: its time and counters start afresh).
//! A search from the naive scheme climbs a ladder where the F2 search would ([`ladder`]).
//! With `--symmetry c3` it walks schemes invariant under the cyclic rotation on the CPU
//! (core's `TernaryC3Walker`), from the naive scheme, fixed cubes or given invariant files.
//! With `--lift` it walks over F2 instead and lifts what that walk finds ([`lift`]), which is how
//! F2's symmetric walks on a GPU (c3, c6) serve it.
//! What it is not yet: several GPUs, islands, ternary symmetric walks on a GPU or of the groups
//! z2 and c6, and generalized flips.
//! [`Search::run`] refuses those choices over ZT rather than ignore them ([`refusals`]).

mod cpu;
mod gpu;
mod ladder;
mod lift;
mod refusals;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::formats::Ring as FileRing;
use flipgraph_core::group::Group;
use flipgraph_core::known::best_known_zt_rank;
use flipgraph_core::ternary::{CyclicOrbits, TernaryScheme, Trits};
use flipgraph_core::walk::{Counters, Plateau, Reductions, WalkConfig};
use flipgraph_core::Shape;
use serde_json::json;

use super::ended::Ended;
use super::error::SearchError;
use super::starts::read_ternary_starts;
use super::Search;
use crate::driver::progress::{Progress, Status};
use crate::driver::{default_target, Stop, Unwritten, PATIENCE, PROGRESS_LOG_EVERY};
use crate::engine::gpu::{usable, GpuTuning};
use crate::engine::{cores, Backend};
use crate::islands::Place;
use crate::output::{self, Output};
use crate::session::recipe::{CUBE_PATIENCE, CUBE_PLATEAU};

/// The floor of the walkers' adaptive plateaus. Ternary reductions are rarer than F2 ones (a
/// flip that would make a coefficient ±2 is no move): on 3x4x5, 2 threads, 20-30 s, seeds 1-2,
/// fixed plateaus of 20k to 1M steps reached 51-55 where the F2 walk's adaptive floor of 1,000
/// reached 53-57.
const PLATEAU_FLOOR: u32 = 100_000;
/// The percent of the walkers behind a new best that restart from it, by default: none. Right
/// after an improvement the pool holds one scheme, and walkers that follow it lose their
/// diversity: on one H200 host's 16 cores (2026-11-28, seeds 1-2), 4x4x4 in 45 s reached 52 and
/// 49 (at 14.8 s) without following against 54 and 52 with half following, 3x4x5 in 25 s 49
/// and 50 against 51 and 51. (The F2 search's pool is diverse; its default is 100.)
const ZT_FOLLOW: u32 = 0;
/// Schemes of the best rank the pool keeps, for restarts.
const POOL: usize = 64;

/// What the threads share: the best scheme, the pool, the folder and the tallies.
struct Shared {
    best: TernaryScheme,
    pool: Vec<TernaryScheme>,
    output: Output,
    best_file: Option<PathBuf>,
    counters: Counters,
    rejected: u64,
    records: Vec<usize>,
    improved_at: Duration,
    /// What the folder could not take (rescued elsewhere).
    unwritten: Unwritten,
    /// New best schemes so far: a walker that has not seen the last one may follow it.
    improvements: u64,
    /// The status line (or log or JSON lines), and when it and the event log last took one.
    progress: Progress,
    shown: Option<(Instant, Counters)>,
    logged: Option<Instant>,
}

/// How often the ternary search's status is shown (the event log takes one every
/// [`PROGRESS_LOG_EVERY`]).
const SHOW_EVERY: Duration = Duration::from_secs(1);

impl Shared {
    /// The state of a walk from `pool` (its best first) into `output`, whose best so far is in
    /// `best_file`.
    fn new(pool: Vec<TernaryScheme>, output: Output, best_file: Option<PathBuf>, progress: Progress) -> Shared {
        Shared {
            best: pool[0].clone(),
            pool,
            output,
            best_file,
            counters: Counters::default(),
            rejected: 0,
            records: Vec::new(),
            improved_at: Duration::ZERO,
            unwritten: Unwritten::default(),
            improvements: 0,
            progress,
            shown: None,
            logged: None,
        }
    }

    /// Shows the search's status (at most every [`SHOW_EVERY`]): the rates since it was last
    /// shown, and `ranks` and `plateaus`, the walkers' that reported last (a GPU's, or a
    /// thread's). Every [`PROGRESS_LOG_EVERY`] the event log takes it too.
    fn show(&mut self, plan: &Plan, begun: Instant, ranks: &mut [usize], plateaus: &mut [u64]) {
        let (since, before) = self.shown.unwrap_or((begun, Counters::default()));
        let dt = since.elapsed().as_secs_f64();
        if dt < SHOW_EVERY.as_secs_f64() || ranks.is_empty() {
            return;
        }
        let mut c = self.counters;
        c.subtract(before);
        ranks.sort_unstable();
        plateaus.sort_unstable();
        let status = Status {
            shape: plan.shape,
            best_rank: self.best.rank(),
            best_known: plan.best_known,
            vertices_per_s: c.vertices as f64 / dt,
            steps_per_s: c.steps as f64 / dt,
            reductions_per_s: c.reductions as f64 / dt,
            plateau: plateaus.get(plateaus.len() / 2).copied().unwrap_or(0),
            walker_ranks: [ranks[0], ranks[ranks.len() / 2], ranks[ranks.len() - 1]],
            hold_share: 0.0,
            elapsed: begun.elapsed(),
            pool: self.pool.len(),
        };
        self.progress.update(&status);
        self.shown = Some((Instant::now(), self.counters));
        if self.logged.is_none_or(|t| t.elapsed() >= PROGRESS_LOG_EVERY) {
            let mut event = status.json();
            event["ring"] = "zt".into();
            if let Err(e) = self.output.event(&event).context("event log") {
                tracing::error!("{e:#}");
            }
            self.logged = Some(Instant::now());
        }
    }

    /// Whether a walker's best of `rank` is worth reading: below the best so far, or of its
    /// rank while the pool has room.
    fn wants(&self, rank: usize) -> bool {
        rank < self.best.rank() || (rank == self.best.rank() && self.pool.len() < POOL)
    }
}

/// The settled search: where it starts and stops, and how its walkers walk.
#[derive(Clone)]
struct Plan {
    shape: Shape,
    target: usize,
    best_known: Option<usize>,
    time: Option<Duration>,
    stall: Option<Duration>,
    /// Schemes of the target rank to gather before the search stops there (waiting at most as
    /// long again as it took to reach it, and at most its stall limit): a rung's, which all
    /// grow into the next shape.
    gather: usize,
    threads: usize,
    /// The GPU that walks (its index), or None: the CPU's threads (or a lifted search's F2
    /// walk, which opens its own engine).
    device: Option<usize>,
    /// Set once its GPU walk failed under `--backend auto`: shared by the plans of a search's
    /// rungs and its own walk, which then walk on the CPU.
    gpu_failed: Arc<AtomicBool>,
    /// GPU walkers (default: as many as the GPU holds at once).
    walkers: Option<usize>,
    /// Steps of a walker's round, where given (`--round-steps`; else a GPU's rounds are by
    /// time and a CPU walker's of [`cpu::ROUND_STEPS`]).
    round_steps: Option<u64>,
    gpu_tuning: GpuTuning,
    /// The rank of the starts (sizes the GPU's walkers).
    start_rank: usize,
    /// Whether the walk keeps the cyclic rotation (c3: on the CPU).
    c3: bool,
    /// The rank at which plus moves stop, where set (`--plus-cap`, or a cube search's start
    /// rank); else a CPU walker's start rank and [`crate::engine::PLUS_SLACK`].
    plus_cap: Option<usize>,
    seed: u64,
    patience: u64,
    /// Percent of the walkers behind a new best that restart from it.
    follow: u32,
    config: WalkConfig,
}

impl Search {
    /// [`Search::run`] over ZT: with the shape's ZT preset where a new search from the naive
    /// scheme leaves it open.
    pub(super) fn run_ternary(&self, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended> {
        match self.with_zt_preset() {
            Some(settled) => settled.run_ternary_as_chosen(stop, process_start, place),
            None => self.run_ternary_as_chosen(stop, process_start, place),
        }
    }

    /// This search with its shape's ZT preset taken
    /// ([`take_preset`](super::recipe::Recipe::take_preset)), if it is new,
    /// from the naive scheme, and its recipe leaves the preset open.
    fn with_zt_preset(&self) -> Option<Search> {
        let shape = self.shape.filter(|_| self.from.is_empty() && self.resume.is_none())?;
        let mut recipe = self.recipe.clone();
        let preset = recipe.take_preset(shape, |r| r.spec().on_gpu())?;
        let place = if preset.lift { "" } else { " on the CPU" };
        tracing::info!(
            "{shape} over ZT: the best measured method, {}{place} (BENCHMARKS.md, Ternary (ZT); with --preset off it walks as chosen)",
            preset.describe()
        );
        Some(Search { recipe, ..self.clone() })
    }

    fn run_ternary_as_chosen(&self, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended> {
        self.refuse_over_zt(place.as_ref())?;
        let mut paths = self.from.clone();
        paths.extend(self.resume.clone());
        let starts = match paths.is_empty() {
            true => vec![self.naive_ternary_start(self.shape.ok_or(SearchError::NoStart)?)?],
            false => read_ternary_starts(&paths)?,
        };
        if self.c3_over_zt() {
            for (name, s) in &starts {
                CyclicOrbits::of(s).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            }
        }
        let shape = starts[0].1.shape();
        if let Some((name, s)) = starts.iter().find(|(_, s)| s.shape() != shape) {
            anyhow::bail!(
                "{name}: a {} scheme among {shape} starts (all starts are of one shape)",
                s.shape()
            );
        }
        if let Some(given) = self.shape.filter(|&g| g != shape) {
            return Err(SearchError::ShapeOfStarts { given, shape }.into());
        }
        let lowest = starts.iter().map(|(_, s)| s.rank()).min().expect("a start");
        let plan = self.plan(shape, lowest);
        let lifts = self.recipe.walk.lift;
        if plan.device.is_some() && self.recipe.walk.sparsity.is_some() {
            tracing::warn!("--sparse is not taken by the GPU walk over ZT (the CPU's walkers take it)");
        }
        // A lifted search's F2 walk climbs F2's ladder where it climbs.
        let climbs = !lifts && self.climbs_over_zt(shape, lowest, plan.device.is_some())?;
        let out_dir = match (&self.resume, &self.out) {
            (Some(dir), Some(out)) if out != dir => {
                return Err(SearchError::ResumedElsewhere {
                    out: out.display().to_string(),
                    dir: dir.display().to_string(),
                }
                .into())
            }
            (Some(dir), _) => dir.clone(),
            (None, out) => out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("results/{shape}-zt"))),
        };
        let mut output = Output::open(&out_dir, self.formats.clone(), self.resume.is_some())?;
        // The pool: the starts of the lowest rank (a resume's best files, not its earlier ranks).
        let pool: Vec<TernaryScheme> = starts
            .into_iter()
            .map(|(_, s)| s)
            .filter(|s| s.rank() == lowest)
            .collect();
        // The folder holds its best from the start, written before the start event (a campaign
        // takes a folder with events for a search to resume): a resume reads its files, and a
        // start never improved on would be missing there.
        let start_file = match self.resume {
            Some(_) => None,
            None => output
                .write_int(&pool[0].to_int(), FileRing::Z)
                .context("writing the start into the results folder")?
                .first()
                .cloned(),
        };
        output.event(&json!({
            "event": "start", "ring": "zt", "shape": shape.to_string(), "rank": lowest,
            "target": plan.target, "threads": plan.threads, "gpu": plan.device, "seed": plan.seed,
            "resumed": self.resume.is_some(),
        }))?;
        let begun = Instant::now();
        let climb = match climbs {
            true => Some(self.climb_over_zt(&plan, &mut output, stop, (begun, process_start))?),
            false => None,
        };
        // A lifted search's lines come between its F2 walk's.
        let progress = match self.in_lines || lifts {
            true => Progress::in_lines(self.json, self.quiet),
            false => Progress::new(self.json, self.quiet),
        };
        let shared = Mutex::new(Shared::new(pool, output, start_file, progress));
        if let Some((grown, _)) = &climb {
            // The first grown start is the search's best (written, with its event); the rest
            // join the pool.
            let mut s = shared.lock().expect("no walk yet");
            for start in grown.iter().flatten() {
                plan.offer(&mut s, start.clone(), begun);
            }
        }
        let why = match lifts {
            true => Some(self.walk_lifted(&plan, &shared, stop, (begun, process_start))?),
            false => self.walk_ternary(&plan, &shared, stop, begun)?,
        };
        let mut shared = shared.into_inner().expect("no walk thread panicked holding the pool");
        shared.progress.finish();
        let climb = climb.map(|(_, report)| report);
        let walk_time = begun
            .elapsed()
            .saturating_sub(climb.as_ref().map_or(Duration::ZERO, |c| c.time));
        let stop = why.unwrap_or(Stop::Interrupted);
        shared.output.event(&json!({
            "event": "end", "ring": "zt", "stop": stop.name(), "best_rank": shared.best.rank(),
            "vertices": shared.counters.vertices, "seconds": walk_time.as_secs_f64(),
            "climb": climb.as_ref().map(|c| json!({"seconds": c.time.as_secs_f64(), "vertices": c.counters.vertices})),
        }))?;
        Ok(Ended {
            shape,
            best_known: plan.best_known,
            out_dir,
            best_rank: shared.best.rank(),
            best: shared.best.to_int(),
            best_file: shared.best_file,
            counters: shared.counters,
            walk_time,
            elapsed: begun.elapsed(),
            stop,
            rejected: shared.rejected,
            records: shared.records,
            climb,
            unwritten: shared.unwritten,
        })
    }

    /// Walks `plan` from `shared`'s pool on its GPU or the CPU until it ends; returns why (None:
    /// the CPU's threads were interrupted). Under `--backend auto` a failed GPU walk carries on
    /// on the CPU from what it found (in the pool and the folder).
    fn walk_ternary(
        &self,
        plan: &Plan,
        shared: &Mutex<Shared>,
        stop: &AtomicBool,
        begun: Instant,
    ) -> Result<Option<Stop>> {
        // A walk that ends before it begins (a climb that took the time or was stopped, a start
        // at the target) opens no GPU.
        if let Some(why) = plan.ended(shared, stop, begun) {
            return Ok(Some(why));
        }
        let device = plan.device.filter(|_| !plan.gpu_failed.load(Ordering::Relaxed));
        Ok(match device {
            Some(device) => match plan.walk_gpu(device, shared, stop, begun) {
                Ok(why) => Some(why),
                Err(e) if self.recipe.backend == Backend::Auto => {
                    // The rest of the search (the ladder's next rungs, the walk after them)
                    // stays on the CPU rather than failing and warning again.
                    plan.gpu_failed.store(true, Ordering::Relaxed);
                    tracing::warn!("the GPU walk over ZT failed ({e:#}); carrying on with the CPU");
                    plan.walk_cpu(shared, stop, begun)
                }
                Err(e) => return Err(e),
            },
            None => plan.walk_cpu(shared, stop, begun),
        })
    }

    /// Whether this search over ZT walks C3-invariant schemes.
    fn c3_over_zt(&self) -> bool {
        self.recipe.group() == Group::C3
    }

    /// The start of a search of `shape` given no files: the naive scheme, or with `--cubes`
    /// the naive scheme with those fixed cubes, over Z.
    fn naive_ternary_start(&self, shape: Shape) -> Result<(String, TernaryScheme)> {
        let zt = |e: flipgraph_core::ternary::TernaryError| anyhow::anyhow!("{shape}: {e}");
        if !self.recipe.cube_search() {
            return Ok(("the naive scheme".to_owned(), TernaryScheme::naive(shape).map_err(zt)?));
        }
        let cubes: Vec<Trits> = self
            .recipe
            .cube_factors(shape)?
            .into_iter()
            .map(|nonzero| Trits { nonzero, negative: 0 })
            .collect();
        let start = TernaryScheme::with_cubes(shape, &cubes).map_err(zt)?;
        Ok((
            format!(
                "the naive scheme with the cubes {}",
                self.recipe.symmetric.cubes.join(",")
            ),
            start,
        ))
    }

    /// The plan of a search of `shape` from a start of rank `start_rank`.
    fn plan(&self, shape: Shape, start_rank: usize) -> Plan {
        // The best known rank over ZT (a ternary scheme below the F2 table's would be an F2
        // record too: its reduction mod 2 is an F2 scheme of its rank).
        let best_known = self.best_known.or(best_known_zt_rank(shape));
        let walk = &self.recipe.walk;
        let (c3, cubes) = (self.c3_over_zt(), self.recipe.cube_search());
        // Said without asking the driver for a GPU: a c3 walk opens none.
        if c3 && self.recipe.backend == Backend::Auto && !walk.lift {
            tracing::info!("c3 over ZT walks on the CPU's threads (the GPU's ternary walk is plain)");
        }
        Plan {
            shape,
            target: self
                .target
                .unwrap_or_else(|| default_target(shape, best_known, start_rank)),
            best_known,
            time: self.time,
            stall: self.stall,
            gather: 1,
            threads: self.recipe.threads.unwrap_or_else(cores).max(1),
            device: match self.recipe.backend {
                Backend::Cpu => None,
                _ if c3 || walk.lift => None,
                Backend::Gpu => Some(self.recipe.gpu.unwrap_or(0)),
                Backend::Auto => usable().then(|| self.recipe.gpu.unwrap_or(0)),
            },
            gpu_failed: Arc::default(),
            walkers: self.recipe.walkers,
            round_steps: self.recipe.walk.round_steps,
            gpu_tuning: self.recipe.gpu_tuning,
            start_rank,
            c3,
            plus_cap: walk.plus_cap.or(cubes.then_some(start_rank)),
            seed: self.recipe.seed(),
            // A cube search takes Moosbauer and Poole's settings, as over F2.
            patience: self
                .recipe
                .schedule
                .patience
                .unwrap_or(if cubes { CUBE_PATIENCE } else { PATIENCE }),
            follow: self.recipe.schedule.follow.unwrap_or(ZT_FOLLOW).min(100),
            config: WalkConfig {
                plateau: match (walk.plateau, cubes) {
                    (Some(steps), _) => Plateau::Fixed(steps),
                    (None, true) => Plateau::Fixed(CUBE_PLATEAU),
                    (None, false) => Plateau::Adaptive { floor: PLATEAU_FLOOR },
                },
                generalized: false,
                max_rank: usize::MAX,
                sparsity: walk
                    .sparsity
                    .unwrap_or_default()
                    .for_style(flipgraph_core::plateau::Style::Escape),
                reductions: walk.reductions.unwrap_or(Reductions::Scan),
            },
        }
    }
}

impl Plan {
    /// Takes a walker's best `scheme` into the pool where it is of the pool's rank (and the
    /// pool has room), and writes it where it is better than every scheme so far (verified
    /// over Z first).
    fn offer(&self, s: &mut Shared, scheme: TernaryScheme, begun: Instant) {
        if scheme.rank() > s.best.rank() || (scheme.rank() == s.best.rank() && s.pool.len() >= POOL) {
            return;
        }
        if scheme.verify().is_err() {
            s.rejected += 1;
            tracing::error!(
                "a ternary walker's scheme of rank {} failed verification over Z; passed over",
                scheme.rank()
            );
            return;
        }
        if scheme.rank() == s.best.rank() {
            if !s.pool.contains(&scheme) {
                s.pool.push(scheme);
            }
            return;
        }
        s.pool = vec![scheme.clone()];
        s.best = scheme;
        s.improved_at = begun.elapsed();
        s.improvements += 1;
        self.write_best(s);
    }

    /// Writes the new best scheme and its event, and says so.
    fn write_best(&self, s: &mut Shared) {
        let rank = s.best.rank();
        let secs = s.improved_at.as_secs_f64();
        let written = s.output.write_int(&s.best.to_int(), FileRing::Z);
        let files: Vec<String> = match written {
            Ok(paths) => {
                s.best_file = paths.first().cloned();
                paths.iter().map(|p| p.display().to_string()).collect()
            }
            Err(e) => {
                // Never lost: saved elsewhere, and counted in the end's report.
                let rescued = output::rescue_int(&s.best.to_int(), FileRing::Z);
                s.unwritten.schemes += 1;
                tracing::error!(
                    "cannot write the {} scheme of rank {rank} ({e:#}); {rescued}",
                    self.shape
                );
                Vec::new()
            }
        };
        if let Some(known) = self.best_known.filter(|&k| rank < k) {
            s.records.push(rank);
            tracing::warn!(
                "*** NEW RECORD over ZT: {} rank {rank} below the best known ZT rank {known}: {} ***",
                self.shape,
                files.join(", ")
            );
        }
        let event = json!({"event": "improved", "ring": "zt", "rank": rank, "seconds": secs, "files": files});
        if let Err(e) = s.output.event(&event).context("event log") {
            tracing::error!("{e:#}");
        }
        // A lifted search counts its F2 walk's vertices once the walk ends.
        let rate = match s.counters.vertices {
            0 => String::new(),
            v => format!(" ({:.1} M vertices/s)", v as f64 / secs.max(1e-9) / 1e6),
        };
        let text = format!("{} over ZT: rank {rank} at {secs:.1}s{rate}", self.shape);
        s.progress.note(&event, &text);
    }

    /// Why the search ends now, if it does.
    fn ended(&self, shared: &Mutex<Shared>, stop: &AtomicBool, begun: Instant) -> Option<Stop> {
        let s = shared.lock().expect("a walk thread panicked holding the pool");
        let elapsed = begun.elapsed();
        // At its target, a search gathers schemes of its rank as long again as it took to get
        // there, but no longer than its stall limit (a rung's, short over ZT).
        let wait = s.improved_at.min(self.stall.unwrap_or(Duration::MAX));
        let gathered = s.pool.len() >= self.gather || elapsed.saturating_sub(s.improved_at) >= wait;
        if s.best.rank() <= self.target && gathered {
            Some(Stop::Target)
        } else if stop.load(Ordering::Relaxed) {
            Some(Stop::Interrupted)
        } else if self.time.is_some_and(|t| elapsed >= t) {
            Some(Stop::TimeLimit)
        } else if self
            .stall
            .is_some_and(|limit| elapsed.saturating_sub(s.improved_at) >= limit.max(s.improved_at))
        {
            Some(Stop::Stalled)
        } else {
            None
        }
    }
}
