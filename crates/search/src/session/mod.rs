//! The whole search of `flipgraph search`, for the command and for programs that embed it: a
//! [`Search`] says where it starts (a shape's naive scheme, scheme files, or a folder to resume),
//! how it walks (its [`Recipe`]), where it stops and what it writes; [`Search::run`] settles
//! the recipe for the start, climbs the ladder where it climbs, walks on the engine it opens
//! (with factors of 64 bits where the shape fits them), carries on on the CPU after a GPU fault
//! where the recipe's backend is `auto` and the search is alone (an island's fault ends its job,
//! whose resume carries on), and ends with its [`Ended`].

pub mod descent;
pub mod ended;
mod error;
pub mod ladder;
pub mod preset;
pub mod recipe;
mod resume;
mod starts;
mod ternary;
#[cfg(test)]
mod tests;
mod walk;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::formats::Format;
use flipgraph_core::group::Group;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape, WideScheme};

use crate::driver::progress::Progress;
use crate::driver::{default_target, Driver, SearchConfig, Start};
use crate::islands::portfolio::{Portfolio, MEMBERS};
use crate::islands::Island;
use crate::islands::Place;
use crate::output::{island_dir, Checkpoint, Output, Recorded, CHECKPOINT};
use ended::{ClimbReport, Ended};
pub use error::SearchError;
use ladder::Climb;
use recipe::Ladder;
use recipe::Recipe;
use resume::{refuse_contradictions, resume_start};
use starts::{fixed_terms_of, frozen_stop, lower_bound, read_starts};
use walk::Walk;

use crate::engine::{refuse_wide_symmetry, Backend, Kind, StartKind, Width};

/// The whole search of `flipgraph search`.
#[derive(Clone, Debug)]
pub struct Search {
    /// How it walks, as chosen ([`Search::run`] settles it for the start).
    pub recipe: Recipe,
    /// The shape of a search from its naive scheme (or the fixed cubes' start).
    pub shape: Option<Shape>,
    /// Start schemes: files in any format, or folders of them, all of one shape (beside a
    /// resume, they join the resumed pool).
    pub from: Vec<PathBuf>,
    /// A search's folder to resume.
    pub resume: Option<PathBuf>,
    /// The rank it stops at (default: the best known rank, else one below the start).
    pub target: Option<usize>,
    /// The rank a record must beat, where the built-in table does not know the best.
    pub best_known: Option<usize>,
    /// How long it runs.
    pub time: Option<Duration>,
    /// How long its best rank may go without improving (and at least as long as it took to
    /// reach it) before it stops.
    pub stall: Option<Duration>,
    /// Its folder (default: results/SHAPE).
    pub out: Option<PathBuf>,
    /// The formats of its result files.
    pub formats: Vec<Format>,
    /// Time between checkpoints (at least 0.1 s).
    pub checkpoint_every: Duration,
    /// Progress as JSON lines on standard output.
    pub json: bool,
    /// No progress output.
    pub quiet: bool,
    /// Progress in log lines even on a terminal.
    pub in_lines: bool,
    /// Where each new best scheme of its walk is sent too, verified (over F2; a ladder's rungs'
    /// are not), and each other scheme of the best rank its pool takes: what an embedder, or a
    /// ZT search's lift, takes them from as they come.
    pub best_schemes: Option<Sender<WideScheme>>,
}

impl Search {
    /// A new search of `shape` with `recipe`, into results/SHAPE, writing JSON results, a
    /// checkpoint every 5 s, quietly; until the best known rank. It starts from the naive
    /// scheme, or, where the shape has a measured preset and the recipe allows presets and
    /// leaves its choices open (5x5x5; 6x6x6 on a GPU), from the preset's fixed cubes.
    pub fn new(shape: Shape, recipe: Recipe) -> Search {
        Search {
            recipe,
            shape: Some(shape),
            from: Vec::new(),
            resume: None,
            target: None,
            best_known: None,
            time: None,
            stall: None,
            out: None,
            formats: vec![Format::PerminovJson],
            checkpoint_every: Duration::from_secs(5),
            json: false,
            quiet: true,
            in_lines: false,
            best_schemes: None,
        }
    }

    /// What the checkpoint of island `index` of a resumed search records (island 0's, a lone
    /// search's, or the search's own where the island had none): read once, before any
    /// island writes its own (an island's climb rewrites its checkpoint); None for a new search.
    fn recorded(&self, index: usize) -> Result<Option<(Recorded, PathBuf)>> {
        let Some(dir) = &self.resume else {
            return Ok(None);
        };
        let own = island_dir(dir, index);
        let dir = match index > 0 && own.join(CHECKPOINT).exists() {
            true => own,
            false => dir.clone(),
        };
        Ok(Some((Checkpoint::read_recorded(&dir)?, dir.join(CHECKPOINT))))
    }

    /// The recipe this search walks by: as chosen, but a resumed search takes what its
    /// checkpoint `recorded` of how it started ([`Recipe::resumed`]), so that it goes on as it
    /// started, and a new search of a shape with a measured preset takes it where the recipe
    /// leaves it open.
    fn settle(&self, recorded: Option<(Recorded, PathBuf)>) -> Result<Recipe> {
        let mut recipe = self.recipe.clone();
        let Some((recorded, checkpoint)) = recorded else {
            if let (Some(shape), true) = (self.shape, self.from.is_empty()) {
                if let Some(preset) = recipe.take_preset(shape, |r| r.spec().on_gpu()) {
                    tracing::info!(
                        "{shape}: the best measured method, {} (BENCHMARKS.md, Time to the best known rank and CPU; without presets it walks as chosen)",
                        preset.describe()
                    );
                }
            }
            return Ok(recipe);
        };
        recipe.resumed(recorded, &checkpoint, !self.from.is_empty())
    }

    /// Runs the search alone until its target, its time limit or `stop` (set it from another
    /// thread, or a Ctrl-C handler): what an embedder calls.
    pub fn run_until(&self, stop: &AtomicBool) -> Result<Ended, crate::Error> {
        self.run(stop, Instant::now(), None)
    }

    /// Runs the search until its target, its time limit or `stop`: alone, or as the island
    /// of a job that `place` says; `process_start` is when its events' clock began.
    pub fn run(&self, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended, crate::Error> {
        Ok(match self.recipe.walk.ring {
            recipe::Ring::F2 => {
                if self.recipe.walk.lift {
                    return Err(anyhow::Error::from(SearchError::LiftOverF2).into());
                }
                self.refuse_f2_resume_of_zt()?;
                self.run_walk(stop, process_start, place)?
            }
            recipe::Ring::Zt => self.run_ternary(stop, process_start, place)?,
        })
    }

    fn run_walk(&self, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended> {
        let (index, islands) = place.as_ref().map_or((0, 1), |p| (p.island.index(), p.island.size()));
        let recorded = self.recorded(index)?;
        let climbing = recorded.as_ref().is_some_and(|(r, _)| r.climbing);
        let recipe = self.settle(recorded)?;
        let begun = self.begin(&recipe, index, islands)?;
        let walk = Walk {
            recipe: &recipe,
            climbing,
            stop,
            process_start,
            place,
        };
        match begun.shape.fits::<u64>() {
            true => self.walk::<u64>(begun.narrowed()?, walk),
            false => self.walk::<u128>(begun, walk),
        }
    }

    /// The beginning this search asks for (of island `index` of `islands`), with `recipe`
    /// (settled for the start): a checkpoint to resume, scheme files, or the naive scheme (from
    /// fixed cubes, the cubes and unit terms). Its schemes have 128-bit factors, which every
    /// format fits; [`Begin::narrowed`] gives the width the search walks.
    fn begin(&self, recipe: &Recipe, index: usize, islands: usize) -> Result<Begin> {
        recipe.refuse_conflicts(!self.from.is_empty())?;
        if let Some(dir) = &self.resume {
            return self.begin_resumed(recipe, dir, index, islands);
        }
        let starts: Vec<(String, WideScheme)> = match self.from.is_empty() {
            true => {
                let naive = recipe.naive_start(self.shape.ok_or(SearchError::NoStart)?)?;
                let name = match recipe.symmetric.cubes.is_empty() {
                    true => "the naive scheme".to_owned(),
                    false => format!("the start from the cubes {}", recipe.symmetric.cubes.join(",")),
                };
                vec![(name, naive)]
            }
            false => read_starts(&self.from)?,
        };
        let shape = starts[0].1.shape();
        if let Some((name, other)) = starts.iter().find(|(_, s)| s.shape() != shape) {
            anyhow::bail!(
                "{name}: a {} scheme, where {} is {shape}; a search starts from schemes of one shape",
                other.shape(),
                starts[0].0
            );
        }
        if let (Some(given), false) = (self.shape, self.from.is_empty()) {
            if given != shape {
                return Err(SearchError::ShapeOfStarts { given, shape }.into());
            }
        }
        let spec = recipe.spec();
        let group = spec.symmetry;
        if !group.acts_on(shape) {
            return Err(crate::engine::Refusal::NotSquare { group, shape }.into());
        }
        refuse_wide_symmetry(group, shape, shape.factor_width())?;
        let fixed = fixed_terms_of(group, &starts)?;
        let lowest = starts.iter().map(|(_, s)| s.rank()).min().expect("a start");
        let best_known = self.best_known.or(best_known_rank(shape));
        let target = self.target.unwrap_or_else(|| default_target(shape, best_known, lowest));
        let bound = lower_bound(shape);
        if target < bound {
            tracing::warn!(
                "the target rank {target} is below {bound}, the rank every {shape} scheme has at least (each of the three flattenings of the tensor has rank n*m, m*p or p*n): the search cannot reach it and runs until its time limit or Ctrl-C"
            );
        }
        if let (Some(fixed), FixedTerms::Frozen) = (fixed, spec.fixed_terms) {
            let unit = group.order();
            if let Some(stop) = frozen_stop(target, fixed, unit) {
                tracing::warn!(
                    "with {fixed} frozen fixed terms every rank of this walk is {} modulo {unit}: it cannot end at rank {target}, only at {stop} or below (another start changes that)",
                    fixed % unit
                );
            }
        }
        Ok(Begin {
            shape,
            start: Start {
                pool: starts.into_iter().map(|(_, s)| s).collect(),
                elapsed: Duration::ZERO,
                counters: Counters::default(),
                rounds: 0,
            },
            out_dir: self
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("results/{shape}"))),
            seed: recipe.seed(),
            target,
            best_known,
            time: self.time,
        })
    }

    /// [`Search::begin`] of a resumed search in `dir`, with the schemes of `from` joining its
    /// pool.
    fn begin_resumed(&self, recipe: &Recipe, dir: &std::path::Path, index: usize, islands: usize) -> Result<Begin> {
        let (cp, mut start) = resume_start(dir, index, islands, recipe)?;
        let shape = cp.shape()?;
        refuse_contradictions(self, dir, &cp, shape)?;
        let added = read_starts(&self.from)?;
        if let Some((name, other)) = added.iter().find(|(_, s)| s.shape() != shape) {
            anyhow::bail!(
                "{name}: a {} scheme; the search in {} is of {shape}",
                other.shape(),
                dir.display()
            );
        }
        fixed_terms_of(recipe.spec().symmetry, &added)?;
        start.pool.extend(added.into_iter().map(|(_, s)| s));
        Ok(Begin {
            shape,
            best_known: self.best_known.or(best_known_rank(shape)),
            start,
            out_dir: dir.to_path_buf(),
            seed: cp.seed,
            target: self.target.unwrap_or(cp.target),
            time: self.time.or_else(|| resumed_time(&cp)),
        })
    }

    /// Whether this search climbs a ladder to `shape`: a new search from the naive scheme as
    /// the recipe's ladder says, and a resume of one killed or
    /// stopped during its climb (`climbing`: its checkpoint says so) climbs again unless its
    /// ladder is off.
    /// A ladder asked for where the start is given is refused; where it is moot (a search that
    /// climbed already) it is said. An `island` agrees with the others of its job: they climb
    /// together where any of them would (a resumed island may have climbed already where
    /// another had not).
    fn climbs(&self, recipe: &Recipe, shape: Shape, climbing: bool, island: Option<&mut Island>) -> Result<bool> {
        let start_given = !self.from.is_empty() || recipe.group() != Group::Trivial || recipe.cube_search();
        let asked = recipe.schedule.ladder == Some(Ladder::On);
        if start_given && asked {
            return Err(SearchError::LadderOnGivenStart.into());
        }
        let own = match &self.resume {
            _ if start_given => false,
            Some(_) => climbing && recipe.schedule.ladder != Some(Ladder::Off),
            None => recipe.climbs(shape),
        };
        // The islands climb together or not at all.
        let climbs = Island::any(island, own)?;
        if asked && !climbs {
            tracing::info!("a ladder asked for: this search does not climb (a resumed search climbed already; the rungs walk factors of up to 64 bits)");
        }
        if recipe.schedule.rung_stall.is_some() && !climbs {
            tracing::info!("--rung-stall is moot: this search climbs no ladder");
        }
        Ok(climbs)
    }

    /// Climbs the ladder to `shape` for a search into `out` with `seed`, whose checkpoint says
    /// it is climbing ([`Checkpoint::before_climb`]) until its walk writes one; each rung's
    /// event goes to the event log (and, where it `speaks` for its job, as JSON to standard
    /// output, with its progress). Returns the starts grown
    /// (None when the climb was cut short, which leaves the search climbing, or when a lone
    /// search's climb failed: it then walks from the naive scheme) and what the climb took; an
    /// island's failed climb is an error, which ends its job.
    /// An `island` climbs with the other islands of its job, rung by rung.
    fn climb_to(
        &self,
        recipe: &Recipe,
        (shape, seed, speaks, time): (Shape, u64, bool, Option<Duration>),
        (out, island): (&mut Output, Option<&mut Island>),
        stop: &AtomicBool,
        process_start: Instant,
    ) -> Result<(Option<Vec<Scheme>>, ClimbReport)> {
        let began = Instant::now();
        let climb = Climb {
            recipe,
            seed,
            deadline: time.map(|t| began + t),
            out: Some(&out.dir().join("ladder")),
            formats: self.formats.clone(),
            quiet: self.quiet || self.json || !speaks,
            process_start,
        };
        let together = island.is_some();
        let climbed = climb.to(shape, stop, island, |event| {
            if self.json && speaks {
                crate::driver::progress::json_line(event);
            }
            if let Err(e) = out.event(event) {
                tracing::warn!("{e:#}");
            }
        });
        let (starts, counters, cut_short) = match climbed {
            Ok(climbed) if climbed.starts.is_none() => {
                tracing::info!("the ladder was cut short; a resume climbs again");
                (None, climbed.counters, true)
            }
            Ok(climbed) => (climbed.starts, climbed.counters, false),
            // The other islands wait for this one at their next agreement: end the job. Its
            // checkpoint still says it is climbing, so a resume would climb into the same fault.
            Err(e) if together => {
                return Err(e.context("the ladder failed; a resume climbs again unless its ladder is off (then it walks from the naive scheme)"))
            }
            // The search itself runs into the same fault and says what it does about it.
            Err(e) => {
                tracing::error!(
                    "the ladder failed: {}; searching {shape} from the naive scheme",
                    crate::Error::from(e)
                );
                (None, Counters::default(), false)
            }
        };
        let report = ClimbReport {
            time: began.elapsed(),
            counters,
            cut_short,
        };
        Ok((starts, report))
    }

    /// The progress output this search asks for; none for a `quiet` one.
    fn progress(&self, quiet: bool) -> Progress {
        match self.in_lines {
            true => Progress::in_lines(self.json, self.quiet || quiet),
            false => Progress::new(self.json, self.quiet || quiet),
        }
    }
}

/// How long the resume of the search `cp` checkpointed may run when given no `--time`: what is
/// left of its own time limit (said, since a resume may end at once), or no limit.
fn resumed_time(cp: &Checkpoint) -> Option<Duration> {
    let left = cp.time_left()?;
    tracing::info!(
        "the search had a time limit of {:.0}s, {:.0}s of it left (--time gives this run another)",
        cp.time_limit_s.unwrap_or_default(),
        left.as_secs_f64()
    );
    Some(left)
}

/// Where a search begins: its shape, start (with factors of `F`), output folder, seed and
/// target rank.
pub(super) struct Begin<F: Width = u128> {
    shape: Shape,
    start: Start<F>,
    out_dir: PathBuf,
    seed: u64,
    target: usize,
    /// The rank a record must beat.
    best_known: Option<usize>,
    /// How long this run may take: `--time`, or for a resume given none what is left of the
    /// search's own.
    time: Option<Duration>,
}

impl Begin {
    /// The same beginning with factors of `F` (which the shape fits).
    fn narrowed<F: Width>(self) -> Result<Begin<F>> {
        let Start {
            pool,
            elapsed,
            counters,
            rounds,
        } = self.start;
        let pool = pool.iter().map(WideScheme::to_width).collect::<Result<_, _>>()?;
        Ok(Begin {
            start: Start {
                pool,
                elapsed,
                counters,
                rounds,
            },
            shape: self.shape,
            out_dir: self.out_dir,
            seed: self.seed,
            target: self.target,
            best_known: self.best_known,
            time: self.time,
        })
    }
}
