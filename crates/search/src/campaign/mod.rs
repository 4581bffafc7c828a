//! A campaign: several formats searched in turn (side by side on a host's GPUs), each toward
//! its best known rank, each in its folder under one; running the same campaign again
//! continues it. `flipgraph campaign` builds its [`Campaign`] from its flags.
//!
//! A format's turn skips it at its target, or runs a [`Search`](crate::Search): fresh (from
//! the naive scheme, a construction from the campaign's results, or the public best), or
//! resumed from its folder. The [`schedule`] hands turns to free [lanes](mod@lanes)
//! ([`Work`]), pass after pass; [`Standing`] says where each format stands, read from its
//! folder.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//!
//! use flipgraph_search::campaign::{shapes, Campaign, Reporter, Sizes};
//! use flipgraph_search::session::ended::Ended;
//! use flipgraph_search::Error;
//!
//! /// Says each format's end in a line.
//! struct Lines;
//! impl Reporter for Lines {
//!     fn ended(&self, ended: &Ended) -> bool {
//!         println!("rank {} ({:?})", ended.best_rank, ended.best_file);
//!         true
//!     }
//!     fn failure(&self, error: &Error) -> String {
//!         error.to_string()
//!     }
//! }
//!
//! let campaign = Campaign {
//!     time: Some(Duration::from_secs(60)),
//!     ..Campaign::new(shapes(&[Sizes::All]), "runs/all".into())
//! };
//! for standing in campaign.run(&Lines, &AtomicBool::new(false), Instant::now())? {
//!     println!("{}: {:?} (best known {:?})", standing.shape, standing.reached, standing.best_known);
//! }
//! # Ok::<(), Error>(())
//! ```

mod error;
pub mod lanes;
pub mod schedule;
mod sizes;
mod standing;
mod turn;
mod work;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use flipgraph_core::formats::Format;
use flipgraph_core::Shape;

pub use error::CampaignError;
pub use sizes::{shapes, Sizes};
pub use standing::Standing;
pub use work::{Queue, Work};

use crate::engine::{cores, MAX_THREADS_PER_CORE};
use crate::output::CHECKPOINT;
use crate::schemes::{gather, gather_zt, Bests};
use crate::session::ended::Ended;
use crate::session::recipe::{Recipe, Ring};
use crate::Error;
use lanes::{host_gpus, lanes, lanes_in_words, Lane};
use schedule::Schedule;
use work::SHORTEST_TURN;

/// What a campaign's caller says for it, beside the log: how each format's search ended, and a
/// format's failure in the caller's words (a command line names its flags).
pub trait Reporter: Sync {
    /// Says how a format's search ended; false where its folder could not take every result.
    fn ended(&self, ended: &Ended) -> bool;
    /// `error`, which failed a format's turn, in the caller's words.
    fn failure(&self, error: &Error) -> String;
}

/// A campaign: its formats, how each is searched, and where.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The formats, in order ([`shapes`] lists those of the best known tables).
    pub sizes: Vec<Shape>,
    /// How every format walks (each lane takes its own GPU or share of the cores).
    pub recipe: Recipe,
    /// Time for each format in each run of the campaign.
    pub time: Option<Duration>,
    /// How long a format's best rank may go without improving (and at least as long as it took
    /// to reach it) before its turn ends.
    pub stall: Option<Duration>,
    /// The campaign's folder: one folder per format (SHAPE/) beneath it.
    pub out: PathBuf,
    /// The formats of the result files.
    pub formats: Vec<Format>,
    /// Time between checkpoints.
    pub checkpoint_every: Duration,
    /// Progress as JSON lines on standard output.
    pub json: bool,
    /// No progress of its searches.
    pub quiet: bool,
    /// Whether a format starts from what the results of the formats before it construct.
    pub constructions: bool,
    /// How many times it goes through the formats.
    pub passes: u32,
    /// Whether formats at their best known rank search below it instead of being skipped.
    pub hunt: bool,
    /// A folder of scheme files whose best of each format starts it (the public best).
    pub from: Option<PathBuf>,
    /// Formats searched at once (None: one per GPU; on the CPU one).
    pub jobs: Option<usize>,
    /// The whole campaign's time: no format begins after it.
    pub total: Option<Duration>,
}

impl Campaign {
    /// A campaign of `sizes` into `out` with `flipgraph campaign`'s defaults: the default
    /// recipe, no time limits, JSON result files, a checkpoint every 5 s, constructions taken,
    /// one pass, one format a GPU (or the CPU's cores), no hunt.
    pub fn new(sizes: Vec<Shape>, out: PathBuf) -> Campaign {
        Campaign {
            sizes,
            recipe: Recipe::default(),
            time: None,
            stall: None,
            out,
            formats: vec![Format::PerminovJson],
            checkpoint_every: Duration::from_secs(5),
            json: false,
            quiet: false,
            constructions: true,
            passes: 1,
            hunt: false,
            from: None,
            jobs: None,
            total: None,
        }
    }

    /// The ring its formats are searched over.
    pub fn ring(&self) -> Ring {
        self.recipe.walk.ring
    }

    /// Refuses a campaign that cannot begin: a whole time shorter than a turn, a folder inside
    /// a search's folder (its formats would be taken for the search's islands, or bury its
    /// results), that is a file, or a lift over F2 (refused once here rather than as every
    /// format's failure).
    pub fn check(&self) -> Result<(), Error> {
        if let Some(total) = self.total.filter(|&total| total <= SHORTEST_TURN) {
            return Err(refused(CampaignError::NoTimeForATurn {
                total,
                shortest: SHORTEST_TURN,
            }));
        }
        if let Some(search) = self.out.ancestors().find(|dir| dir.join(CHECKPOINT).is_file()) {
            return Err(refused(CampaignError::InsideASearch {
                out: self.out.clone(),
                search: search.to_path_buf(),
            }));
        }
        if self.out.exists() && !self.out.is_dir() {
            return Err(refused(CampaignError::NotAFolder { out: self.out.clone() }));
        }
        if self.recipe.walk.lift && self.ring() != Ring::Zt {
            return Err(anyhow::Error::from(crate::session::SearchError::LiftOverF2).into());
        }
        Ok(())
    }

    /// Runs the campaign on this host until every turn is taken, `stop` (which also ends the
    /// searches under way, checkpointed) or the end of its whole time; `reporter` says how
    /// each search ended. Returns where every format stands.
    pub fn run(
        &self,
        reporter: &dyn Reporter,
        stop: &AtomicBool,
        process_start: Instant,
    ) -> Result<Vec<Standing>, Error> {
        self.check()?;
        let sizes = self.ternary_sizes()?;
        let public = self.public_bests()?;
        let lanes = self.lanes(sizes.len())?;
        let schedule = Schedule::new(sizes.len(), self.passes);
        let mut work = Work::new(self, &sizes, &schedule, (stop, process_start), reporter).from_public(public.as_ref());
        if lanes.len() > 1 {
            tracing::info!(
                "{} formats at a time, side by side ({})",
                lanes.len(),
                lanes_in_words(&lanes)
            );
            work = work.side_by_side(None);
        }
        std::thread::scope(|scope| {
            for &lane in &lanes {
                scope.spawn(move || work.run(lane));
            }
        });
        Ok(self.table(&sizes, schedule))
    }

    /// Where each of `sizes` stands after the turns of `schedule`: a format this run did not
    /// reach, where its folder stands (earlier runs may have searched it).
    pub fn table(&self, sizes: &[Shape], schedule: Schedule<Standing>) -> Vec<Standing> {
        schedule
            .into_latest()
            .into_iter()
            .zip(sizes)
            .map(|(latest, &shape)| latest.unwrap_or_else(|| Standing::on_disk(shape, self.ring(), &self.out)))
            .collect()
    }

    /// The best scheme of each format under [`Campaign::from`], read once (for a hunt from the
    /// public best): valid mod 2, or over ZT the ternary schemes valid over Z.
    pub fn public_bests(&self) -> Result<Option<Bests>, Error> {
        let Some(dir) = &self.from else { return Ok(None) };
        let (gathered, valid) = match self.ring() {
            Ring::F2 => (gather(dir)?, "valid mod 2"),
            Ring::Zt => (gather_zt(dir)?, "ternary and valid over Z"),
        };
        tracing::info!(
            "{}: {} scheme files {valid}, of {} formats; {} files passed over{}",
            dir.display(),
            gathered.valid,
            gathered.bests.len(),
            gathered.passed_over.len(),
            gathered
                .passed_over
                .first()
                .map(|(path, why)| format!(" (such as {}: {why})", path.display()))
                .unwrap_or_default()
        );
        Ok(Some(gathered.bests))
    }

    /// Over ZT, the formats a ternary search takes (every matrix of at most 64 entries), the
    /// others left out with one message rather than failing one by one; none at all is an
    /// error. Over F2, all of them.
    fn ternary_sizes(&self) -> Result<Vec<Shape>, Error> {
        if self.ring() != Ring::Zt {
            return Ok(self.sizes.clone());
        }
        let (taken, wide): (Vec<Shape>, Vec<Shape>) = self.sizes.iter().partition(|s| s.fits::<u64>());
        if taken.is_empty() {
            return Err(refused(CampaignError::NoTernaryFormat));
        }
        if !wide.is_empty() {
            tracing::warn!(
                "--ring zt: {} of the formats have a matrix of more than 64 entries, which a ternary search does not take; left out: {}",
                wide.len(),
                wide.iter().map(Shape::to_string).collect::<Vec<_>>().join(", ")
            );
        }
        Ok(taken)
    }

    /// The lanes, the formats searched at once: on GPUs one lane per GPU (each walking on its
    /// own), on the CPU one lane unless [`Campaign::jobs`] asks for more (each then takes its
    /// share of the cores). More lanes than formats would only wait; more than
    /// [`MAX_THREADS_PER_CORE`] a GPU (or a core) only take turns.
    fn lanes(&self, formats: usize) -> Result<Vec<Lane>, Error> {
        let gpus = host_gpus(&self.recipe)?;
        if let Some(jobs) = self.jobs {
            let (units, unit) = match gpus {
                0 => (cores(), "core"),
                gpus => (gpus, "GPU"),
            };
            if jobs > MAX_THREADS_PER_CORE * units {
                return Err(refused(CampaignError::TooManyLanes {
                    jobs,
                    units,
                    unit,
                    per_unit: MAX_THREADS_PER_CORE,
                }));
            }
        }
        let jobs = self
            .jobs
            .unwrap_or(if gpus > 0 && self.recipe.gpu.is_none() { gpus } else { 1 })
            .clamp(1, formats.max(1));
        Ok(lanes(&self.recipe, jobs, gpus))
    }
}

/// The library's error for a campaign refused.
fn refused(error: CampaignError) -> Error {
    anyhow::Error::from(error).into()
}
