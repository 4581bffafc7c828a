//! `flipgraph search`: descend from the naive scheme (or a given one) to a target rank.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::formats::Format;
use flipgraph_core::Shape;

use super::choices::PortfolioArg;
use super::engine_args::{at_least_one, EngineArgs};
use crate::ended::report;
use crate::interrupt::interrupt_flag;
use crate::islands::Place;
use crate::session::ended::Ended;
use crate::session::recipe::{Islands, Recipe};
use crate::session::Search;
use crate::write::parse_writable;

mod islands;

pub use super::duration::parse_duration;

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
    /// Stop after this long: 90s, 10m, 2h, or seconds [default: none; xtask on a CPU: 5m]
    ///
    /// Stop after this long: 90s, 10m, 2h, 1h30m, or plain seconds. Default: no limit (until
    /// the target rank or Ctrl-C); `cargo xtask search` on a CPU adds 5m. With --resume: this
    /// run's limit; left out, the resume runs for what is left of the search's own --time
    /// (no limit if it had none).
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
    #[arg(help_heading = "Islands", long, value_parser = parse_islands)]
    pub islands: Option<usize>,
    /// How often islands (of --islands, or an MPI job's processes) swap their best schemes.
    #[arg(help_heading = "Islands", long, default_value = "5", value_parser = parse_duration)]
    pub exchange_every: Duration,
    /// Most schemes each island offers per exchange (its best ones not offered yet).
    #[arg(help_heading = "Islands", long, default_value_t = 2)]
    pub exchange_schemes: usize,
    /// Whether islands walk with plateau and plus settings of their own (a portfolio), or
    /// all as a lone search does.
    #[arg(help_heading = "Islands", long, value_enum, default_value = "on")]
    pub portfolio: PortfolioArg,
    #[command(flatten)]
    pub engine: EngineArgs,
}

impl Args {
    /// The library's search these flags ask for.
    pub fn search(&self) -> Search {
        Search {
            recipe: Recipe {
                islands: Islands {
                    portfolio: self.portfolio.into(),
                    member: None,
                },
                ..self.engine.recipe()
            },
            shape: self.size,
            from: self.from.clone(),
            resume: self.resume.clone(),
            target: self.target_rank,
            best_known: self.best_known,
            time: self.time,
            stall: self.stall,
            out: self.out.clone(),
            formats: self.formats.clone(),
            checkpoint_every: self.checkpoint_secs,
            json: self.json,
            quiet: self.quiet,
            in_lines: self.in_lines,
            best_schemes: None,
        }
    }
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    let stop = interrupt_flag()?;
    #[cfg(feature = "mpi")]
    if let Some(job) = flipgraph_cluster::Job::init()? {
        if args.islands.is_some() {
            anyhow::bail!("--islands: an MPI job's processes are its islands; leave --islands out");
        }
        return islands::in_job(&args, &stop, process_start, &job);
    }
    let ended = match islands::count(&args)? {
        1 => execute(&args, &stop, process_start, None)?,
        islands => islands::on_threads(&args, &stop, process_start, islands)?,
    };
    Ok(match report(&ended, args.json, args.quiet) {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    })
}

/// Runs the search `args` asks for until its target, its time limit or `stop`: alone, or as
/// the island of a job that `place` says.
pub fn execute(args: &Args, stop: &AtomicBool, process_start: Instant, place: Option<Place>) -> Result<Ended> {
    Ok(args.search().run(stop, process_start, place)?)
}

/// Islands on threads of one process, at most.
const MAX_ISLANDS: usize = 1024;

/// `--islands`: 1 to [`MAX_ISLANDS`] (each is a thread with its own engine and pool).
fn parse_islands(s: &str) -> Result<usize, String> {
    match at_least_one::<usize>(s)? {
        n if n > MAX_ISLANDS => Err(format!(
            "at most {MAX_ISLANDS} islands in one process (an MPI job takes more)"
        )),
        n => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

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
}
