//! `flipgraph campaign`: several formats searched in turn, each toward its best known rank,
//! with one table at the end; running the same command again continues it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::formats::Format;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::Shape;

use super::engine_args::EngineArgs;
use super::search::{self, interrupt_flag, parse_duration};
use crate::schemes::parse_writable;
use crate::search::island::Sharing;
use crate::search::output::Checkpoint;

/// Search several formats in turn, each down to its best known rank (`flipgraph known`), and
/// print one table of where each stands. Each format has its folder under --out; running the
/// same command again skips the formats that reached their target and resumes the others.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1
  flipgraph campaign --sizes 4x4x5,3x4x5,4x5x5 --time 10m --out runs/c1   continue it")]
pub struct Args {
    /// The formats, comma separated (2x2x3,2x3x3 or 4 for 4x4x4).
    #[arg(long, value_delimiter = ',', required = true)]
    sizes: Vec<Shape>,
    /// Time for each format (in each run of the campaign): 90s, 10m, 2h, or plain seconds.
    #[arg(long, value_parser = parse_duration)]
    time: Option<Duration>,
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
    #[command(flatten)]
    engine: EngineArgs,
}

/// Where one format of the campaign stands.
struct Standing {
    shape: Shape,
    best_known: Option<usize>,
    /// Best rank reached and total search time, once the format has a checkpoint.
    reached: Option<(usize, Duration)>,
    done: bool,
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    // Every process of a job would run the whole campaign into the same folders.
    #[cfg(feature = "mpi")]
    if flipgraph_search::cluster::Job::init()?.is_some() {
        anyhow::bail!("campaign does not run as an MPI job; run `mpirun ... flipgraph search` for each format instead");
    }
    let stop = interrupt_flag()?;
    let mut table = Vec::new();
    for &shape in &args.sizes {
        let dir = args.out.join(shape.to_string());
        let previous = dir
            .join(crate::search::output::CHECKPOINT)
            .exists()
            .then(|| standing(shape, &dir))
            .transpose()?;
        let now = match previous {
            Some(done) if done.done => {
                tracing::info!("{shape}: already at its target in {}; skipped", dir.display());
                done
            }
            _ => {
                tracing::info!(
                    "{shape}: {} toward {}",
                    if previous.is_some() { "resuming" } else { "searching" },
                    best_known_rank(shape).map_or("one below the start".into(), |r| format!("rank {r}"))
                );
                let flags = search_args(&args, shape, previous.is_some());
                search::execute(&flags, &stop, process_start, None)?.report(args.json);
                standing(shape, &dir)?
            }
        };
        table.push(now);
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    for &shape in &args.sizes[table.len()..] {
        table.push(Standing {
            shape,
            best_known: best_known_rank(shape),
            reached: None,
            done: false,
        });
    }
    print_table(&table, args.json);
    Ok(ExitCode::SUCCESS)
}

/// The `search` one format of the campaign runs: fresh, or resumed from its folder.
fn search_args(args: &Args, shape: Shape, resume: bool) -> search::Args {
    let dir = args.out.join(shape.to_string());
    search::Args {
        size: (!resume).then_some(shape),
        from: None,
        resume: resume.then(|| dir.clone()),
        target_rank: None,
        best_known: None,
        time: args.time,
        out: Some(dir),
        formats: args.formats.clone(),
        checkpoint_secs: args.checkpoint_secs,
        json: args.json,
        quiet: args.quiet,
        exchange_every: Sharing::default().every,
        exchange_schemes: Sharing::default().schemes,
        engine: args.engine.clone(),
    }
}

fn best_rank(cp: &Checkpoint) -> Result<usize> {
    cp.schemes()?
        .iter()
        .map(|s| s.rank())
        .min()
        .context("the checkpoint's pool is empty")
}

/// Where the search in `dir` stands, from its checkpoint.
fn standing(shape: Shape, dir: &std::path::Path) -> Result<Standing> {
    let cp = Checkpoint::read(dir)?;
    let best = best_rank(&cp)?;
    Ok(Standing {
        shape,
        best_known: best_known_rank(shape),
        reached: Some((best, cp.elapsed())),
        done: best <= cp.target,
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
        let status = match (s.reached, s.done) {
            (None, _) => "not started",
            (Some(_), true) => "target reached",
            (Some(_), false) => "unfinished",
        };
        println!(
            "{:<8} {known:>10} {reached:>8} {time:>10}  {status}",
            s.shape.to_string()
        );
    }
}
