//! `flipgraph search`: descend from the naive scheme (or a given one) to a target rank.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::Format;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape, WideScheme};

use super::engine_args::{at_least_one, EngineArgs};
use super::preset::preset_flags;
use crate::engine::{refuse_wide_symmetry, Backend, Group, Kind, StartKind, Width};
use crate::search::ladder::{Climb, Ladder};
use crate::search::output::{island_dir, read_all_checkpoints, Checkpoint, Output, CHECKPOINT};
use crate::search::progress::Progress;
use crate::search::recipe::Recipe;
use crate::search::{default_target, Driver, SearchConfig, Start};
use crate::write::parse_writable;

mod ended;
mod islands;
mod resume;
mod starts;

pub use super::duration::parse_duration;
pub use ended::{ClimbReport, Ended};
use islands::Place;
use resume::{refuse_contradictions, resume_start};
use starts::{fixed_terms_of, frozen_stop, lower_bound, read_starts};

/// Search for a scheme of lower rank.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph search --size 4 --time 10m                 4x4x4 from naive, to the best known rank 47
  flipgraph search --size 4x4x5 --target-rank 62 --out runs/445
  flipgraph search --from tests/data/3x3x3-r23-laderman.m --target-rank 22
  flipgraph search --resume runs/445                   continue a stopped search")]
pub struct Args {
    /// The shape: 4 (square) or 4x4x5.
    ///
    /// Taken from --from or --resume when given. Formats past 8x8x8 of up to 128 entries a
    /// matrix are searched too (9x9x9, 4x5x13; on the CPU where their factors pass 64 bits).
    #[arg(help_heading = "Start and target", long, required_unless_present_any = ["from", "resume"])]
    pub size: Option<Shape>,
    /// Start from these schemes (files in any format, or folders of them) instead of the naive
    /// one.
    ///
    /// The pool starts with every scheme given, all of one shape; a folder gives every scheme
    /// file in it (other files, such as a search's checkpoint and event log, are passed over).
    /// Beside --resume, the schemes join the resumed pool (a better start found since).
    #[arg(help_heading = "Start and target", long, num_args = 1..)]
    pub from: Vec<PathBuf>,
    /// Continue the search saved in this output folder.
    #[arg(help_heading = "Start and target", long)]
    pub resume: Option<PathBuf>,
    /// Stop at this rank (default: the best known rank over F2, else one below the start).
    #[arg(help_heading = "Start and target", long)]
    pub target_rank: Option<usize>,
    /// The rank a new record must beat, when you know of a better scheme than the built-in table
    /// (`flipgraph known`) does.
    #[arg(help_heading = "Start and target", long)]
    pub best_known: Option<usize>,
    /// Stop after this long: 90s, 10m, 2h, 1h30m, or plain seconds.
    #[arg(help_heading = "Start and target", long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Stop once the best rank has not improved for this long.
    ///
    /// Stop once the best rank has not improved for this long, and for at least as long as the
    /// search took to reach it: a time that follows progress (--time still caps it).
    #[arg(help_heading = "Start and target", long, value_parser = parse_duration)]
    pub stall: Option<Duration>,
    /// Output folder (default: results/SHAPE).
    #[arg(help_heading = "Output", long)]
    pub out: Option<PathBuf>,
    /// Formats of the result files (comma separated): json, txt, letter, seed.
    #[arg(help_heading = "Output", long, value_delimiter = ',', default_value = "json", value_parser = parse_writable)]
    pub formats: Vec<Format>,
    /// Time between checkpoints: seconds, or 90s, 10m, ...
    ///
    /// (at least 0.1 s). A checkpoint is also written at the start, and half a second after the
    /// best rank improves.
    #[arg(help_heading = "Output", long, default_value = "5", value_parser = parse_duration)]
    pub checkpoint_secs: Duration,
    /// Progress as JSON lines on standard output.
    #[arg(help_heading = "Output", long)]
    pub json: bool,
    /// No progress output.
    #[arg(help_heading = "Output", long, short)]
    pub quiet: bool,
    /// Progress in log lines even on a terminal (a campaign's formats searched side by side).
    #[arg(skip)]
    pub in_lines: bool,
    /// Islands on threads, each with its own pool and engine (the GPU of its index, or a share
    /// of the cores) [default: one per GPU; 1 on the CPU].
    ///
    /// The islands share their best schemes as an MPI job's processes do; island 0 writes the
    /// results, island K its checkpoint in OUT/island-K (a resume takes any number of islands).
    #[arg(help_heading = "Islands", long, value_parser = at_least_one::<usize>)]
    pub islands: Option<usize>,
    /// How often islands (of --islands, or an MPI job's processes) swap their best schemes.
    #[arg(help_heading = "Islands", long, default_value = "5", value_parser = parse_duration)]
    pub exchange_every: Duration,
    /// Most schemes each island offers per exchange (its best ones not offered yet).
    #[arg(help_heading = "Islands", long, default_value_t = 2)]
    pub exchange_schemes: usize,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Where a search begins: its shape, start (with factors of `F`), output folder, seed and
/// target rank.
struct Begin<F: Width = u128> {
    shape: Shape,
    start: Start<F>,
    out_dir: PathBuf,
    seed: u64,
    target: usize,
    /// The rank a record must beat.
    best_known: Option<usize>,
}

/// The recipe of the search `args` asks for: its flags', but a resumed search takes what its
/// checkpoint records of how it started ([`Recipe::resumed`]), so that it goes on as it started,
/// and a new search of a shape with a measured preset takes it where the flags leave it open.
fn recipe_of(args: &Args) -> Result<Recipe> {
    let mut recipe = args.engine.recipe();
    let Some(dir) = &args.resume else {
        if let (Some(shape), true) = (args.size, args.from.is_empty()) {
            if let Some(preset) = recipe.take_preset(shape, |r| r.spec().on_gpu()) {
                tracing::info!(
                    "{shape}: the best measured method, {} (BENCHMARKS.md, Time to the best known rank and CPU; --preset off walks as the other flags say)",
                    preset_flags(preset)
                );
            }
        }
        return Ok(recipe);
    };
    recipe.resumed(Checkpoint::read_recorded(dir)?, &dir.join(CHECKPOINT))
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
        })
    }
}

/// The beginning the flags ask for (of island `index` of `islands`; `recipe`: the recipe
/// that [`recipe_of`] resolved): a checkpoint to resume, a scheme file, or the naive scheme
/// (with --cubes, the fixed cubes and unit terms). Its schemes have 128-bit factors, which
/// every format fits; [`Begin::narrowed`] gives the width the search walks.
fn begin(args: &Args, recipe: &Recipe, index: usize, islands: usize) -> Result<Begin> {
    recipe.refuse_conflicts(!args.from.is_empty())?;
    if let Some(dir) = &args.resume {
        let (cp, mut start) = resume_start(dir, index, islands, recipe)?;
        let shape = cp.shape()?;
        refuse_contradictions(args, dir, &cp, shape)?;
        let added = read_starts(&args.from)?;
        if let Some((name, other)) = added.iter().find(|(_, s)| s.shape() != shape) {
            bail!(
                "{name}: a {} scheme; the search in {} is of {shape}",
                other.shape(),
                dir.display()
            );
        }
        fixed_terms_of(recipe.spec().symmetry, &added)?;
        start.pool.extend(added.into_iter().map(|(_, s)| s));
        return Ok(Begin {
            shape,
            best_known: args.best_known.or(best_known_rank(shape)),
            start,
            out_dir: dir.clone(),
            seed: cp.seed,
            target: args.target_rank.unwrap_or(cp.target),
        });
    }
    let starts: Vec<(String, WideScheme)> = match args.from.is_empty() {
        true => {
            let naive = recipe.naive_start(args.size.expect("clap requires --size"))?;
            let name = match recipe.cubes.is_empty() {
                true => "the naive scheme".to_owned(),
                false => format!("the start from --cubes {}", recipe.cubes.join(",")),
            };
            vec![(name, naive)]
        }
        false => read_starts(&args.from)?,
    };
    let shape = starts[0].1.shape();
    if let Some((name, other)) = starts.iter().find(|(_, s)| s.shape() != shape) {
        bail!(
            "{name}: a {} scheme, where {} is {shape}; --from takes schemes of one shape",
            other.shape(),
            starts[0].0
        );
    }
    if let (Some(size), false) = (args.size, args.from.is_empty()) {
        if size != shape {
            bail!("--size {size} does not match the shape {shape} of --from");
        }
    }
    let spec = recipe.spec();
    let group = spec.symmetry;
    if !group.acts_on(shape) {
        bail!("--symmetry {group} needs a square shape; {shape} is not");
    }
    refuse_wide_symmetry(group, shape, shape.factor_width())?;
    let fixed = fixed_terms_of(group, &starts)?;
    let lowest = starts.iter().map(|(_, s)| s.rank()).min().expect("a start");
    let best_known = args.best_known.or(best_known_rank(shape));
    let target = args
        .target_rank
        .unwrap_or_else(|| default_target(shape, best_known, lowest));
    let bound = lower_bound(shape);
    if target < bound {
        tracing::warn!(
            "--target-rank {target} is below {bound}, the rank every {shape} scheme has at least (each of the three flattenings of the tensor has rank n*m, m*p or p*n): the search cannot reach it and runs until its time limit or Ctrl-C"
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
        out_dir: args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("results/{shape}"))),
        seed: recipe.seed(),
        target,
        best_known,
    })
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    let stop = interrupt_flag()?;
    #[cfg(feature = "mpi")]
    if let Some(job) = flipgraph_search::cluster::Job::init()? {
        if args.islands.is_some() {
            anyhow::bail!("--islands: an MPI job's processes are its islands; leave --islands out");
        }
        return islands::in_job(&args, &stop, process_start, &job);
    }
    let ended = match islands::count(&args)? {
        1 => execute(&args, &stop, process_start, None)?,
        islands => islands::on_threads(&args, &stop, process_start, islands)?,
    };
    ended.report(args.json);
    Ok(ExitCode::SUCCESS)
}

/// A flag that Ctrl-C (or SIGTERM) sets; installed once per process.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
    Ok(stop)
}

/// Whether the search `args` climbs a ladder to `shape` (`recipe`: [`recipe_of`]'s; `in_job`:
/// as an island of an MPI job, which never does): a new search from the naive scheme as
/// `--ladder` says, and a resume of one killed or stopped during its climb (its checkpoint says
/// so) climbs again unless `--ladder off`. `--ladder on` where the start is given is refused;
/// where it is moot (a job, a search that climbed already) it is said.
fn climbs(args: &Args, recipe: &Recipe, shape: Shape, in_job: bool) -> Result<bool> {
    let start_given = !args.from.is_empty() || recipe.group() != Group::Trivial || !recipe.cubes.is_empty();
    let asked = recipe.ladder == Some(Ladder::On);
    if start_given && asked {
        bail!("--ladder on climbs from the naive scheme; a search --from a scheme, of C3-invariant schemes or from --cubes has its own start");
    }
    let climbs = match &args.resume {
        _ if in_job || start_given => false,
        Some(dir) => Checkpoint::read_recorded(dir)?.climbing && recipe.ladder != Some(Ladder::Off),
        None => recipe.climbs(shape),
    };
    if asked && !climbs {
        tracing::info!("--ladder on: this search does not climb (an MPI job's islands start from naive; a resumed search climbed already; the rungs walk factors of up to 64 bits)");
    }
    Ok(climbs)
}

/// Climbs the ladder to `shape` for a search into `out` with `seed`, whose checkpoint says it is
/// climbing ([`Checkpoint::before_climb`]) until its walk writes one; each rung's event goes to
/// the event log (and with --json to standard output). Returns the starts grown (None when the
/// climb was cut short, which leaves the search climbing, or failed: the search then walks from
/// the naive scheme) and what the climb took.
fn climb_to(
    args: &Args,
    recipe: &Recipe,
    shape: Shape,
    seed: u64,
    out: &mut Output,
    stop: &AtomicBool,
    process_start: Instant,
) -> Result<(Option<Vec<Scheme>>, ClimbReport)> {
    let began = Instant::now();
    let climb = Climb {
        recipe,
        seed,
        deadline: args.time.map(|t| began + t),
        out: Some(&out.dir().join("ladder")),
        formats: args.formats.clone(),
        quiet: args.quiet || args.json,
        process_start,
    };
    let climbed = climb.to(shape, stop, |event| {
        if args.json {
            println!("{event}");
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
        // The search itself runs into the same fault and says what it does about it.
        Err(e) => {
            tracing::error!(
                "the ladder failed: {}; searching {shape} from the naive scheme",
                crate::flags::in_flags(&e)
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

/// Runs the search `args` asks for until its target, its time limit or `stop`: alone, or as
/// the island of a job that `place` says; with 64-bit factors where the format fits them.
pub fn execute(args: &Args, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended> {
    let (index, islands) = place.as_ref().map_or((0, 1), |p| (p.island.index(), p.island.size()));
    let recipe = recipe_of(args)?;
    let begun = begin(args, &recipe, index, islands)?;
    match begun.shape.fits::<u64>() {
        true => walk::<u64>(args, &recipe, begun.narrowed()?, stop, process_start, place),
        false => walk::<u128>(args, &recipe, begun, stop, process_start, place),
    }
}

/// The progress output `args` asks for; none for a `quiet` one.
fn progress_of(args: &Args, quiet: bool) -> Progress {
    match args.in_lines {
        true => Progress::in_lines(args.json, args.quiet || quiet),
        false => Progress::new(args.json, args.quiet || quiet),
    }
}

/// The search of [`execute`] from `begun`, on factors of `F`.
fn walk<F: Width>(
    args: &Args,
    recipe: &Recipe,
    begun: Begin<F>,
    stop: &AtomicBool,
    process_start: Instant,
    place: Option<Place>,
) -> Result<Ended> {
    let index = place.as_ref().map_or(0, |p| p.island.index());
    let Begin {
        shape,
        mut start,
        out_dir,
        seed,
        target,
        best_known,
    } = begun;
    let resume = args.resume.is_some();
    let open_output = || match index {
        0 => Output::open(&out_dir, args.formats.clone(), resume),
        _ => Output::open_island(&out_dir, index, resume),
    };
    let mut output = None;
    let mut climb = None;
    let mut grown = false;
    if climbs(args, recipe, shape, place.is_some())? {
        // Before the ladder, so that another search cannot take the folder meanwhile.
        let mut out = open_output()?;
        let sparsity = recipe.sparsity;
        let partners = recipe.gpu_partners;
        out.checkpoint(&Checkpoint::before_climb(
            shape,
            (seed, target),
            &start,
            sparsity,
            partners,
        ))?;
        let (starts, report) = climb_to(args, recipe, shape, seed, &mut out, stop, process_start)?;
        if let Some(starts) = starts {
            let starts = starts.iter().map(Scheme::to_width).collect::<Result<_, _>>()?;
            (start.pool, grown) = (starts, true);
        }
        start.elapsed += report.time;
        (output, climb) = (Some(out), Some(report));
    }
    let climbed = climb.as_ref().map_or(Duration::ZERO, |c| c.time);
    let given = if !args.from.is_empty() || grown {
        StartKind::Given
    } else {
        StartKind::Naive
    };
    let start_rank = start.pool.iter().map(|s| s.rank()).max().unwrap_or(0);
    let spec = match &place {
        Some(place) => place.share(recipe.spec_from(start_rank, given)),
        None => recipe.spec_from(start_rank, given),
    };
    let mut engine = spec.open_for::<F>(shape)?;
    let output = match output {
        Some(output) => output,
        None => open_output()?,
    };
    let config = SearchConfig {
        time_limit: args.time.map(|t| t.saturating_sub(climbed)),
        stall_limit: args.stall,
        checkpoint_every: args.checkpoint_secs.max(Duration::from_millis(100)),
        best_known,
        climbing: climb.as_ref().is_some_and(|c| c.cut_short),
        ..recipe.config(shape, (target, seed), &spec, engine.as_ref())
    };
    // Island 0 speaks for the job.
    let progress = progress_of(args, index > 0);
    let on_gpu = engine.kind() == Kind::Gpu;
    let lone = place.is_none();
    let mut driver = Driver::new(
        engine.as_mut(),
        config.clone(),
        start,
        Some(output),
        progress,
        process_start,
    )?;
    if let Some(place) = place {
        driver = driver.island(place.island);
    }
    let summary = match driver.run(stop) {
        Ok(summary) => summary,
        // A GPU fault in a long run: with `auto`, the CPU carries on from the last checkpoint
        // (an island of a job ends the job instead, and its resume carries on).
        Err(e) if on_gpu && spec.backend == Backend::Auto && lone => {
            tracing::error!(
                "the GPU engine failed: {}; carrying on with the CPU engine from the last checkpoint",
                crate::flags::in_flags(&e)
            );
            let mut cpu = spec.open_cpu(shape)?;
            let config = SearchConfig {
                steps_per_round: spec.steps_per_round(cpu.timed_rounds()),
                ..config
            };
            let (_, start) = resume_start(&out_dir, 0, 1, recipe)?;
            let output = Output::open(&out_dir, args.formats.clone(), true)?;
            let progress = progress_of(args, false);
            let driver = Driver::new(cpu.as_mut(), config, start, Some(output), progress, process_start)?;
            driver.run(stop)?
        }
        Err(e) => return Err(e),
    };
    Ok(Ended::new(shape, best_known, out_dir, summary, climb))
}

#[cfg(test)]
mod tests {
    use super::{frozen_stop, lower_bound, parse_duration};
    use flipgraph_core::Shape;
    use std::time::Duration;

    #[test]
    fn the_flattenings_bound_the_rank_from_below() {
        assert_eq!(lower_bound(Shape::square(4).unwrap()), 16);
        assert_eq!(lower_bound(Shape::new(2, 3, 5).unwrap()), 15);
        // Every best known rank is at or above it.
        for e in flipgraph_core::known::table() {
            let shape = Shape::new(e.dims[0], e.dims[1], e.dims[2]).unwrap();
            assert!(e.rank >= lower_bound(shape), "{shape}");
        }
    }

    #[test]
    fn durations_take_units_and_exponents() {
        for (text, secs) in [
            ("90", 90.0),
            ("90s", 90.0),
            ("10m", 600.0),
            ("2h", 7200.0),
            ("1d", 86400.0),
        ] {
            assert_eq!(parse_duration(text), Ok(Duration::from_secs_f64(secs)), "{text}");
        }
        assert_eq!(parse_duration("1e3"), Ok(Duration::from_secs(1000)));
        assert_eq!(parse_duration("1.5e1m"), Ok(Duration::from_secs(900)));
        assert!(parse_duration("3x").unwrap_err().contains("unknown unit 'x'"));
        assert!(parse_duration("inf").unwrap_err().contains("is not a duration"));
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn a_frozen_symmetric_walk_stops_only_at_ranks_of_its_residue() {
        // 5x5x5 from naive: 5 fixed terms, ranks 2 modulo 3; 93 is 0 modulo 3, 92 is the stop.
        assert_eq!(frozen_stop(93, 5, 3), Some(92));
        // 6x6x6 under c6 from the cubes 110000,001100,000011: 3 fixed terms, orbits of 6.
        assert_eq!(frozen_stop(153, 3, 6), None);
        assert_eq!(frozen_stop(152, 3, 6), Some(147));
        // From the cubes 10001,01010,00100: 3 fixed terms, and 93 is reachable.
        assert_eq!(frozen_stop(93, 3, 3), None);
        assert_eq!(frozen_stop(94, 3, 3), Some(93));
        assert_eq!(frozen_stop(1, 2, 3), Some(0));
    }
}
