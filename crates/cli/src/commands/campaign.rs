//! `flipgraph campaign`: several formats searched in turn, each toward its best known rank,
//! with one table at the end; running the same command again continues it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::formats::Format;
use flipgraph_core::known::{best_known_rank, table, wide_table, BestKnown};
use flipgraph_core::Shape;

use super::algebra::best_construction;
use super::duration::parse_duration;
use super::engine_args::EngineArgs;
use super::search::{self, interrupt_flag};
use crate::search::island::Sharing;
use crate::search::output::Checkpoint;
use crate::write::{parse_writable, write_verified, WriteArgs};

/// Search several formats in turn, each down to its best known rank (`flipgraph known`), and
/// print one table of where each stands. Each format has its folder under --out; running the
/// same command again skips the formats that reached their target and resumes the others.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1   continue it
  flipgraph campaign --sizes all --time 10m --passes 3 --hunt --out runs/all   to each best known rank, then below")]
pub struct Args {
    /// The formats, comma separated (2x2x3,2x3x3 or 4 for 4x4x4), or `all`: the 84 formats of
    /// `flipgraph known`, smallest first (so that the formats a larger one is built from come
    /// before it), or `wide`: the 309 formats of `flipgraph known --wide` (a dimension past 8,
    /// at most 128 entries a matrix), smallest first.
    #[arg(long, value_delimiter = ',', required = true, value_parser = parse_sizes)]
    sizes: Vec<Sizes>,
    /// Time for each format (in each run of the campaign): 90s, 10m, 2h, or plain seconds.
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
    /// No progress output.
    #[arg(long, short)]
    quiet: bool,
    /// Start every format from the naive scheme, even where the results of the formats before
    /// it construct one at its best known rank (by default such a format starts there).
    #[arg(long)]
    no_constructions: bool,
    /// Go through the formats this many times: each later pass resumes every format where it
    /// stands, with the starts that the results of the passes before construct.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    passes: u32,
    /// Formats at their best known rank search below it (for a new record) instead of being
    /// skipped: each such format resumes aimed one rank lower.
    #[arg(long)]
    hunt: bool,
    #[command(flatten)]
    engine: EngineArgs,
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

/// Where one format of the campaign stands.
struct Standing {
    shape: Shape,
    best_known: Option<usize>,
    /// Best rank reached and total search time, once the format has a checkpoint.
    reached: Option<(usize, Duration)>,
    done: bool,
    /// The construction it started from in this run, if any.
    start: Option<String>,
    /// Why the format failed in this run, if it did.
    failed: Option<String>,
}

impl Standing {
    /// A format not started.
    fn new(shape: Shape) -> Standing {
        Standing {
            shape,
            best_known: best_known_rank(shape),
            reached: None,
            done: false,
            start: None,
            failed: None,
        }
    }
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    // Every process of a job would run the whole campaign into the same folders.
    #[cfg(feature = "mpi")]
    if flipgraph_search::cluster::Job::init()?.is_some() {
        anyhow::bail!("campaign does not run as an MPI job; run `mpirun ... flipgraph search` for each format instead");
    }
    let stop = interrupt_flag()?;
    let sizes = formats(&args.sizes);
    let mut table = Vec::new();
    for pass in 1..=args.passes {
        if args.passes > 1 {
            tracing::info!("pass {pass} of {}", args.passes);
        }
        table = run_pass(&args, &sizes, &stop, process_start);
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    // The formats after a stop: where their folders stand (earlier runs may have finished them).
    for &shape in &sizes[table.len()..] {
        let dir = args.out.join(shape.to_string());
        let known = has_checkpoint(&dir).then(|| standing(shape, &dir).ok()).flatten();
        table.push(known.unwrap_or_else(|| Standing::new(shape)));
    }
    print_table(&table, args.json);
    let failed = table.iter().filter(|s| s.failed.is_some()).count();
    if failed > 0 {
        eprintln!("error: {failed} of {} formats failed (see the table)", table.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// One pass over the formats, until a stop: where each stands. A format that fails (a damaged
/// or locked folder, another shape's checkpoint) is reported, and the pass goes on.
fn run_pass(args: &Args, sizes: &[Shape], stop: &AtomicBool, process_start: Instant) -> Vec<Standing> {
    let mut table = Vec::new();
    for &shape in sizes {
        let now = run_format(args, shape, stop, process_start).unwrap_or_else(|e| {
            tracing::error!("{shape}: {e:#}");
            Standing {
                failed: Some(format!("{e:#}")),
                ..Standing::new(shape)
            }
        });
        table.push(now);
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    table
}

fn has_checkpoint(dir: &std::path::Path) -> bool {
    dir.join(crate::search::output::CHECKPOINT).exists()
}

/// Searches one format of the campaign (or skips it, at its target already) and says where
/// it stands.
fn run_format(args: &Args, shape: Shape, stop: &AtomicBool, process_start: Instant) -> Result<Standing> {
    let dir = args.out.join(shape.to_string());
    let previous = has_checkpoint(&dir).then(|| standing(shape, &dir)).transpose()?;
    let resume = previous.is_some();
    let known = best_known_rank(shape);
    let best_so_far = previous.as_ref().and_then(|p| p.reached).map(|(best, _)| best);
    let at_known = best_so_far.is_some_and(|best| known.is_some_and(|known| best <= known));
    if let Some(done) = previous.filter(|p| (p.done || at_known) && !args.hunt) {
        tracing::info!(
            "{shape}: at its target or its best known rank in {}; skipped (--hunt searches below it)",
            dir.display()
        );
        return Ok(done);
    }
    tracing::info!(
        "{shape}: {} toward {}",
        if resume { "resuming" } else { "searching" },
        known.map_or("one below the start".into(), |r| format!("rank {r}"))
    );
    // A new format starts from a construction at its best known rank; one resumed takes any
    // construction below its best so far (a smaller format improved since), beside its pool.
    let at_most = best_so_far.map(|best| best - 1).or(known);
    let start = match (args.no_constructions, at_most) {
        (false, Some(at_most)) => constructed_start(args, shape, at_most)?,
        _ => None,
    };
    let mut flags = search_args(args, shape, resume);
    if let (true, Some(best)) = (at_known && args.hunt, best_so_far) {
        tracing::info!("{shape}: at its best known rank or below ({best}); hunting below it");
        flags.target_rank = Some(best - 1);
    }
    if let Some((path, _)) = &start {
        flags.from = vec![path.clone()];
        if !resume {
            // Aimed at the best known rank, as a search from naive is: a start already there
            // ends at once (a search --from a record would aim below it).
            flags.size = None;
            flags.target_rank = known;
        }
    }
    search::execute(&flags, stop, process_start, None)?.report(args.json);
    Ok(Standing {
        start: start.map(|(_, how)| how),
        ..standing(shape, &dir)?
    })
}

/// The `search` one format of the campaign runs: fresh, or resumed from its folder.
fn search_args(args: &Args, shape: Shape, resume: bool) -> search::Args {
    let dir = args.out.join(shape.to_string());
    search::Args {
        size: (!resume).then_some(shape),
        from: Vec::new(),
        resume: resume.then(|| dir.clone()),
        target_rank: None,
        best_known: None,
        time: args.time,
        stall: args.stall,
        out: Some(dir),
        formats: args.formats.clone(),
        checkpoint_secs: args.checkpoint_secs,
        json: args.json,
        quiet: args.quiet,
        exchange_every: Sharing::default().every,
        exchange_schemes: Sharing::default().schemes,
        // A resumed format keeps the cubes its checkpoint records (a resume refuses --cubes).
        engine: EngineArgs {
            cubes: if resume { Vec::new() } else { args.engine.cubes.clone() },
            ..args.engine.clone()
        },
    }
}

/// A start for `shape` built from the campaign's results so far, when its best construction
/// has rank `at_most` or lower (a composite such as 4x4x8 = 47 + 47): written, verified, to
/// `OUT/starts/`, with the construction in words. None otherwise: the search starts as usual.
fn constructed_start(args: &Args, shape: Shape, at_most: usize) -> Result<Option<(PathBuf, String)>> {
    if !args.out.is_dir() {
        return Ok(None);
    }
    let Some((built, plan)) = best_construction(shape, std::slice::from_ref(&args.out))? else {
        return Ok(None);
    };
    if built.rank() > at_most {
        return Ok(None);
    }
    let path = args.out.join("starts").join(format!("{shape}-r{}.json", built.rank()));
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    let write = WriteArgs {
        to: Format::PerminovJson,
        output: Some(path.clone()),
        mod2: true,
    };
    write_verified(&built, &write, "constructed start")?;
    let how = format!("the {} (rank {})", plan.construction, built.rank());
    tracing::info!("{shape}: starts from {how}, built from the campaign's results");
    Ok(Some((path, how)))
}

fn best_rank(cp: &Checkpoint) -> Result<usize> {
    cp.schemes::<u128>()?
        .iter()
        .map(|s| s.rank())
        .min()
        .context("the checkpoint's pool is empty")
}

/// Where the search in `dir` stands, from its checkpoint; an error when the checkpoint is of
/// another shape (a folder of the campaign holding some other search).
fn standing(shape: Shape, dir: &std::path::Path) -> Result<Standing> {
    let cp = Checkpoint::read(dir)?;
    let held = cp.shape()?;
    if held != shape {
        anyhow::bail!(
            "{} holds a search of {held}, not {shape}; move it away or choose another --out",
            dir.display()
        );
    }
    let best = best_rank(&cp)?;
    Ok(Standing {
        reached: Some((best, cp.elapsed())),
        done: best <= cp.target,
        ..Standing::new(shape)
    })
}

fn print_table(table: &[Standing], json: bool) {
    if json {
        let rows: Vec<_> = table
            .iter()
            .map(|s| {
                serde_json::json!({
                    "shape": s.shape.to_string(),
                    "best_known": s.best_known,
                    "reached": s.reached.map(|r| r.0),
                    "seconds": s.reached.map(|r| r.1.as_secs_f64()),
                    "target_reached": s.done,
                    "start": s.start,
                    "failed": s.failed,
                })
            })
            .collect();
        println!("{}", serde_json::json!({ "event": "campaign", "formats": rows }));
    }
    println!(
        "{:<8} {:>10} {:>8} {:>10}  status",
        "format", "best known", "reached", "time"
    );
    for s in table {
        let known = s.best_known.map_or("-".into(), |r| r.to_string());
        let (reached, time) = match s.reached {
            Some((rank, t)) => (rank.to_string(), format!("{:.1}s", t.as_secs_f64())),
            None => ("-".into(), "-".into()),
        };
        let below = |rank: usize| s.best_known.is_some_and(|known| rank < known);
        let status = match (s.reached, s.done, &s.failed) {
            (_, _, Some(_)) => "failed",
            (None, _, None) => "not started",
            (Some((rank, _)), _, None) if below(rank) => "below the best known rank",
            (Some(_), true, None) => "target reached",
            (Some((rank, _)), false, None) if s.best_known == Some(rank) => "at the best known rank, hunting below",
            (Some(_), false, None) => "unfinished",
        };
        println!(
            "{:<8} {known:>10} {reached:>8} {time:>10}  {status}",
            s.shape.to_string()
        );
    }
    for s in table {
        if let Some(how) = &s.start {
            println!("{} started from {how}", s.shape);
        }
        if let Some(why) = &s.failed {
            println!("{} failed: {why}", s.shape);
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
