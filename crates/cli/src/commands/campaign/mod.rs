//! `flipgraph campaign`: several formats searched in turn (side by side on a host's GPUs),
//! each toward its best known rank, with one table at the end; running the same command again
//! continues it. The campaign itself is the library's ([`Campaign`]); this maps its flags.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use flipgraph_core::formats::Format;
use flipgraph_search::campaign::{shapes, Reporter, Sizes, Standing};
use flipgraph_search::{Campaign, Ended, Error};

use super::duration::parse_duration;
use super::engine_args::{at_least_one, EngineArgs};
use crate::interrupt::interrupt_flag;
use crate::write::parse_writable;

#[cfg(feature = "mpi")]
mod job;
mod table;

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
    #[arg(long, value_delimiter = ',', required = true)]
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

impl Args {
    /// The library's campaign these flags ask for.
    fn campaign(&self) -> Campaign {
        Campaign {
            sizes: shapes(&self.sizes),
            recipe: self.engine.recipe(),
            time: self.time,
            stall: self.stall,
            out: self.out.clone(),
            formats: self.formats.clone(),
            checkpoint_every: self.checkpoint_secs,
            json: self.json,
            quiet: self.quiet,
            constructions: !self.no_constructions,
            passes: self.passes,
            hunt: self.hunt,
            from: self.from.clone(),
            jobs: self.jobs,
            total: self.total,
        }
    }
}

/// How a campaign's searches end on the command line: each with the report of `flipgraph
/// search`, and a format's failure worded by the flags.
struct Said {
    json: bool,
}

impl Reporter for Said {
    fn ended(&self, ended: &Ended) -> bool {
        crate::ended::report(ended, self.json, false)
    }

    fn failure(&self, error: &Error) -> String {
        crate::flags::worded(error.clone())
    }
}

pub fn run(args: Args, process_start: Instant) -> Result<ExitCode> {
    let campaign = args.campaign();
    // Refused before a job begins, as one process's campaign refuses it.
    #[cfg(feature = "mpi")]
    campaign.check()?;
    #[cfg(feature = "mpi")]
    if let Some(job) = flipgraph_cluster::Job::init()? {
        if campaign.ring() == flipgraph_search::session::recipe::Ring::Zt {
            anyhow::bail!("--ring zt: a campaign over ZT as an MPI job is not built yet; run it as one process");
        }
        return job::run(&campaign, &job, process_start);
    }
    let stop = interrupt_flag()?;
    let table = campaign.run(&Said { json: args.json }, &stop, process_start)?;
    Ok(report(&table, args.json))
}

/// Prints the table of where every format stands, and says how many failed.
fn report(table: &[Standing], json: bool) -> ExitCode {
    print_table(table, json);
    let failed = table.iter().filter(|s| s.failed.is_some()).count();
    if failed > 0 {
        eprintln!("error: {failed} of {} formats failed (see the table)", table.len());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
