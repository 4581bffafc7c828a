//! `flipgraph campaign`: several formats searched in turn (side by side on a host's GPUs),
//! each toward its best known rank, with one table at the end; running the same command again
//! continues it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::formats::Format;
use flipgraph_core::known::{table, wide_table, BestKnown};
use flipgraph_core::Shape;

use super::choices::RingArg;
use super::duration::parse_duration;
use super::engine_args::{at_least_one, EngineArgs};
use super::lanes::{host_gpus, lanes, lanes_in_words};
use super::search::interrupt_flag;
use crate::engine::MAX_THREADS_PER_CORE;
use crate::output::CHECKPOINT;
use crate::schemes::{gather, gather_zt, Bests};
use crate::write::parse_writable;

mod format;
#[cfg(feature = "mpi")]
mod job;
mod schedule;
mod table;

use format::{run_format, Assignment, Standing};
use schedule::{Schedule, Turn};
use table::print_table;

/// Search several formats in turn (side by side on a host's GPUs), each down to its best known
/// rank (`flipgraph known`), and print one table of where each stands. Each format has its folder under --out; running the
/// same command again skips the formats that reached their target and resumes the others.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1   continue it
  flipgraph campaign --sizes all --time 10m --passes 3 --hunt --out runs/all   to each best known rank, then below
  flipgraph campaign --sizes all --time 60s --hunt --from FastMatrixMultiplication --out runs/hunt   below the public best
  flipgraph campaign --ring zt --sizes all --time 60s --hunt --from FastMatrixMultiplication --out runs/zt   over {-1,0,1}
  mpirun -n 8 flipgraph campaign --sizes all --time 10m --out runs/all   8 processes, one format each at a time (docs/CLUSTER.md)")]
pub struct Args {
    /// The formats, comma separated (2x2x3,2x3x3 or 4 for 4x4x4), or `all`: the 84 formats of
    /// `flipgraph known`, smallest first (so that the formats a larger one is built from come
    /// before it), or `wide`: the 309 formats of `flipgraph known --wide` (a dimension past 8,
    /// at most 128 entries a matrix), smallest first.
    #[arg(long, value_delimiter = ',', required = true, value_parser = parse_sizes)]
    sizes: Vec<Sizes>,
    /// Time for each format (in each run of the campaign): 90s, 10m, 2h, 1h30m, or plain seconds.
    #[arg(long, value_parser = parse_duration)]
    time: Option<Duration>,
    /// A format's search ends once its best rank has not improved for this long (and for as
    /// long as reaching it took): time follows progress; --time caps it.
    #[arg(long, value_parser = parse_duration)]
    stall: Option<Duration>,
    /// The campaign folder: one folder per format (SHAPE/) beneath it.
    #[arg(long, default_value = "results/campaign")]
    out: PathBuf,
    /// Formats of the result files (comma separated): json, txt, letter, seed.
    #[arg(long, value_delimiter = ',', default_value = "json", value_parser = parse_writable)]
    formats: Vec<Format>,
    /// Time between checkpoints (see `search --help`).
    #[arg(long, default_value = "5", value_parser = parse_duration)]
    checkpoint_secs: Duration,
    /// Progress as JSON lines on standard output.
    #[arg(long)]
    json: bool,
    /// No progress of its searches (status lines, each search's log); the campaign's own
    /// lines, a format each, and the table stay.
    #[arg(long, short)]
    quiet: bool,
    /// Start every format from the naive scheme, even where the results of the formats before
    /// it construct one at its best known rank (by default such a format starts there, or from
    /// a sum, extension or projection at most 3 above it).
    #[arg(long)]
    no_constructions: bool,
    /// Go through the formats this many times: each later pass resumes every format where it
    /// stands, with the starts that the results of the passes before construct.
    /// At most 1000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    passes: u32,
    /// Formats at their best known rank search below it (for a new record) instead of being
    /// skipped: each such format resumes aimed one rank lower (not where that rank is proven
    /// optimal: 2x2x2 and 2x2x3).
    #[arg(long)]
    hunt: bool,
    /// Start each new format from the best scheme of its format (in any orientation) among the
    /// scheme files under DIR, e.g. a clone of FastMatrixMultiplication or fmm_digest (integer
    /// schemes taken mod 2; schemes over Q passed over; with --ring zt, the best ternary scheme
    /// valid over Z, as it is); with --hunt, aimed one rank below the lower of it and the best
    /// known rank.
    #[arg(long = "from", value_name = "DIR")]
    from: Option<PathBuf>,
    /// Formats searched at once, side by side (default: one per GPU, each on its own GPU; on
    /// the CPU one, with every core). A format that ends (at its target, stalled, out of time)
    /// gives its lane to the next; on the CPU the lanes share the cores.
    #[arg(long, value_parser = at_least_one::<usize>)]
    jobs: Option<usize>,
    /// The whole campaign's time: no format begins after it, and the formats searched then stop
    /// there (checkpointed; the same command continues).
    #[arg(long, value_parser = parse_duration)]
    total: Option<Duration>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// The best scheme of each format under --from, read once (for a hunt from the public best).
fn public_bests(args: &Args) -> Result<Option<Bests>> {
    let Some(dir) = &args.from else { return Ok(None) };
    let (gathered, valid) = match args.engine.ring {
        RingArg::F2 => (gather(dir)?, "valid mod 2"),
        RingArg::Zt => (gather_zt(dir)?, "ternary and valid over Z"),
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

/// One entry of `--sizes`.
#[derive(Clone, Debug)]
enum Sizes {
    One(Shape),
    All,
    Wide,
}

fn parse_sizes(s: &str) -> Result<Sizes, String> {
    match s.trim() {
        "all" => Ok(Sizes::All),
        "wide" => Ok(Sizes::Wide),
        one => one.parse().map(Sizes::One).map_err(|e| format!("{e}")),
    }
}

/// The formats of `entries`, by naive rank (then by dimensions).
fn by_size(entries: impl Iterator<Item = BestKnown>) -> Vec<Shape> {
    let mut all: Vec<Shape> = entries
        .filter_map(|e| Shape::new(e.dims[0], e.dims[1], e.dims[2]).ok())
        .collect();
    all.sort_by_key(|s| (s.naive_rank(), s.dims()));
    all
}

/// The formats `sizes` names, in order, each once: `all` is every format of the best known
/// table by naive rank (then by dimensions).
fn formats(sizes: &[Sizes]) -> Vec<Shape> {
    let mut out: Vec<Shape> = Vec::new();
    for entry in sizes {
        let more: Vec<Shape> = match entry {
            Sizes::One(shape) => vec![*shape],
            Sizes::All => by_size(table()),
            Sizes::Wide => by_size(wide_table()),
        };
        for shape in more {
            if !out.contains(&shape) {
                out.push(shape);
            }
        }
    }
    out
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    if let Some(total) = args.total.filter(|&total| total <= SHORTEST_TURN) {
        anyhow::bail!(
            "--total {:.1}s leaves no time for a turn (a turn takes at least {}s)",
            total.as_secs_f64(),
            SHORTEST_TURN.as_secs()
        );
    }
    // A campaign's formats are folders of their own: inside a search's folder they would be
    // taken for its islands' or bury its results.
    if let Some(search) = args.out.ancestors().find(|dir| dir.join(CHECKPOINT).is_file()) {
        anyhow::bail!(
            "{} is inside the folder of a search ({} holds its checkpoint); choose another --out",
            args.out.display(),
            search.display()
        );
    }
    // Once, here, rather than as every format's failure.
    if args.out.exists() && !args.out.is_dir() {
        anyhow::bail!(
            "{} is not a folder; --out names the folder the campaign writes into",
            args.out.display()
        );
    }
    #[cfg(feature = "mpi")]
    if let Some(job) = flipgraph_cluster::Job::init()? {
        if args.engine.ring == RingArg::Zt {
            anyhow::bail!("--ring zt: a campaign over ZT as an MPI job is not built yet; run it as one process");
        }
        return job::run(&args, &job, process_start);
    }
    let stop = interrupt_flag()?;
    let sizes = ternary_formats(&args, formats(&args.sizes))?;
    let public = public_bests(&args)?;
    let lanes = campaign_lanes(&args, sizes.len())?;
    if lanes.len() > 1 {
        tracing::info!(
            "{} formats at a time, side by side ({})",
            lanes.len(),
            lanes_in_words(&lanes)
        );
    }
    let schedule = Schedule::new(sizes.len(), args.passes);
    let work = Work {
        side_by_side: lanes.len() > 1,
        public: public.as_ref(),
        ..Work::new(&args, &sizes, &schedule, &stop, process_start)
    };
    std::thread::scope(|scope| {
        for lane in &lanes {
            scope.spawn(move || work.run(lane));
        }
    });
    Ok(report(&args, &sizes, schedule))
}

/// Over ZT, the formats a ternary search takes (every matrix of at most 64 entries), the others
/// left out with one message rather than failing one by one; none at all is an error. Over F2,
/// all of them.
fn ternary_formats(args: &Args, sizes: Vec<Shape>) -> Result<Vec<Shape>> {
    if args.engine.ring != RingArg::Zt {
        return Ok(sizes);
    }
    let (taken, wide): (Vec<Shape>, Vec<Shape>) = sizes.into_iter().partition(|s| s.fits::<u64>());
    if taken.is_empty() {
        anyhow::bail!("--ring zt: none of these formats has its matrices within 64 entries, which a ternary search takes (up to 8x8x8)");
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

/// Prints the table of where every format stands, and says how many failed.
fn report(args: &Args, sizes: &[Shape], schedule: Schedule<Standing>) -> ExitCode {
    // The formats this run did not reach: where their folders stand (earlier runs may have
    // searched them).
    let table: Vec<Standing> = schedule
        .into_latest()
        .into_iter()
        .zip(sizes)
        .map(|(latest, &shape)| latest.unwrap_or_else(|| Standing::on_disk(shape, args.engine.ring, &args.out)))
        .collect();
    print_table(&table, args.json);
    let failed = table.iter().filter(|s| s.failed.is_some()).count();
    if failed > 0 {
        eprintln!("error: {failed} of {} formats failed (see the table)", table.len());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The engine flags of each lane, the formats searched at once: on GPUs one lane per GPU (each
/// walking on its own), on the CPU one lane unless --jobs asks for more (each then takes its
/// share of the cores).
/// More lanes than formats would only wait; more than [`MAX_THREADS_PER_CORE`] a GPU (or a
/// core) only take turns.
fn campaign_lanes(args: &Args, formats: usize) -> Result<Vec<EngineArgs>> {
    let gpus = host_gpus(&args.engine)?;
    if let Some(jobs) = args.jobs {
        let (units, unit) = match gpus {
            0 => (crate::engine::cores(), "core"),
            gpus => (gpus, "GPU"),
        };
        let most = MAX_THREADS_PER_CORE * units;
        if jobs > most {
            anyhow::bail!(
                "--jobs {jobs}: this host takes at most {most} formats at once ({MAX_THREADS_PER_CORE} a {unit}, {units} {unit}s); more only take turns"
            );
        }
    }
    let jobs = args
        .jobs
        .unwrap_or(if gpus > 0 && args.engine.gpu.is_none() { gpus } else { 1 })
        .clamp(1, formats.max(1));
    Ok(lanes(&args.engine, jobs, gpus))
}

/// Where a lane takes its turns and reports their ends: the campaign's [`Schedule`], or in an
/// MPI job, process 0's.
trait Queue {
    /// The next turn; None once none is left or `halt` says to stop.
    fn take(&self, halt: &dyn Fn() -> bool) -> Option<Turn>;
    /// `turn` has ended with its format at `now`.
    fn finish(&self, turn: Turn, now: Standing);
}

impl Queue for Schedule<Standing> {
    fn take(&self, halt: &dyn Fn() -> bool) -> Option<Turn> {
        Schedule::take(self, halt)
    }

    fn finish(&self, turn: Turn, now: Standing) {
        Schedule::finish(self, turn, |earlier| now.after(earlier));
    }
}

/// What every lane shares: the campaign, its queue of turns and its stops.
struct Work<'a, Q: ?Sized> {
    args: &'a Args,
    sizes: &'a [Shape],
    queue: &'a Q,
    stop: &'a AtomicBool,
    /// The end of --total.
    until: Option<Instant>,
    side_by_side: bool,
    /// In an MPI job, this process's index.
    process: Option<usize>,
    process_start: Instant,
    /// The best of each format under --from.
    public: Option<&'a Bests>,
}

impl<Q: ?Sized> Clone for Work<'_, Q> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Q: ?Sized> Copy for Work<'_, Q> {}

/// A format's turn takes at least this long of what --total leaves, or is not begun.
const SHORTEST_TURN: Duration = Duration::from_secs(1);

impl<'a, Q: Queue + ?Sized> Work<'a, Q> {
    /// The work of one lane alone: --total counts from now.
    fn new(args: &'a Args, sizes: &'a [Shape], queue: &'a Q, stop: &'a AtomicBool, process_start: Instant) -> Self {
        Work {
            args,
            sizes,
            queue,
            stop,
            until: args.total.map(|total| Instant::now() + total),
            side_by_side: false,
            process: None,
            process_start,
            public: None,
        }
    }

    /// The time left of --total (None: no --total).
    fn left(&self) -> Option<Duration> {
        self.until.map(|until| until.saturating_duration_since(Instant::now()))
    }

    /// Whether no turn begins any more: Ctrl-C, or the end of --total.
    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.left().is_some_and(|left| left < SHORTEST_TURN)
    }

    /// Takes turns on `lane` until none is left, Ctrl-C, or the end of --total. A format that
    /// fails (a damaged or locked folder, another shape's checkpoint) is reported, and the
    /// campaign goes on.
    fn run(self, lane: &EngineArgs) {
        while let Some(turn) = self.queue.take(&|| self.halted()) {
            let shape = self.sizes[turn.format];
            let _format = self.side_by_side.then(|| {
                match self.process {
                    Some(process) => tracing::info_span!("", process, format = %shape),
                    None => tracing::info_span!("", format = %shape),
                }
                .entered()
            });
            // --time, or what --total leaves if less.
            let time = [self.args.time, self.left()].into_iter().flatten().min();
            let assignment = Assignment {
                engine: lane,
                time,
                pass: (self.args.passes > 1).then_some((turn.pass, self.args.passes)),
                side_by_side: self.side_by_side,
                public: self.public,
            };
            let now = run_format(self.args, &assignment, shape, self.stop, self.process_start).unwrap_or_else(|e| {
                tracing::error!("{shape}: {}", crate::flags::in_flags(&e));
                Standing::failed(shape, self.args.engine.ring, &e)
            });
            self.queue.finish(turn, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{formats, parse_sizes, Sizes};
    use flipgraph_core::Shape;

    fn shape(n: usize, m: usize, p: usize) -> Shape {
        Shape::new(n, m, p).unwrap()
    }

    #[test]
    fn all_is_every_known_format_smallest_first_and_each_once() {
        let all = formats(&[Sizes::All]);
        assert_eq!(all.len(), 84);
        assert_eq!((all[0], all[83]), (shape(2, 2, 2), shape(8, 8, 8)));
        let at = |s: Shape| all.iter().position(|&x| x == s).unwrap();
        // What a composite is built from comes before it.
        assert!(at(shape(4, 4, 4)) < at(shape(4, 4, 8)) && at(shape(4, 4, 8)) < at(shape(8, 8, 8)));
        let mixed = formats(&[parse_sizes("2x2x3").unwrap(), parse_sizes("all").unwrap()]);
        assert_eq!((mixed.len(), mixed[0]), (84, shape(2, 2, 3)));
        assert!(parse_sizes("9").is_ok() && parse_sizes("17").is_err());
    }

    #[test]
    fn wide_is_every_format_past_8() {
        let wide = formats(&[parse_sizes("wide").unwrap()]);
        assert_eq!(wide.len(), 309);
        assert_eq!(wide[0], shape(2, 2, 9));
        assert!(wide.iter().all(|s| s.dims().iter().any(|&d| d > 8)));
        assert!(wide.contains(&shape(4, 5, 12)) && wide.contains(&shape(8, 8, 9)));
        assert!(parse_sizes("4x5x12").is_ok());
    }
}
