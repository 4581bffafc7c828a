//! `flipgraph search`: descend from the naive scheme (or a given one) to a target rank.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::Format;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::plateau::{CPU_FLOOR, GPU_FLOOR};
use flipgraph_core::walk::{Counters, Plateau, WalkConfig};
use flipgraph_core::{Scheme, Shape};

use crate::engine::cpu::CpuEngine;
use crate::engine::gpu::{self, GpuEngine, GpuOptions, Hints, MultiGpu, Reductions};
use crate::engine::Engine;
use crate::schemes::read_valid_f2;
use crate::search::output::{Checkpoint, Output};
use crate::search::progress::{si, Progress};
use crate::search::{Driver, SearchConfig, Start, Stop};

/// Which engine walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// The GPU when one is usable, else the CPU.
    Auto,
    Cpu,
    Gpu,
}

/// Settings shared by `search` and `bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine: auto takes the GPU when one is usable, else the CPU, and says which. On a
    /// GPU every visible device runs its own walkers (CUDA_VISIBLE_DEVICES picks the devices).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// CPU threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Walkers (schemes walked at once). Default: 16 per CPU thread; on GPUs, as many warps as they hold.
    #[arg(long)]
    pub walkers: Option<usize>,
    /// Steps without a reduction before a plus move leaves the plateau, fixed (0: never).
    /// Default: adaptive, per walker: after each reduction the limit moves halfway to 4 times
    /// the wait that reduction took, and a plateau that ends in a plus move doubles it (up to
    /// 2^26), never below the engine's floor (1000 on the CPU, 100 on a GPU, the best fixed
    /// values on 4x4x4). Descents then take few plus moves on any shape; a walker at its
    /// lowest rank takes them about every floor steps. The status line and the JSON progress
    /// show the walkers' median limit.
    #[arg(long)]
    pub plateau: Option<u64>,
    /// How far above its start rank a walker may climb by plus moves.
    #[arg(long, default_value_t = 4)]
    pub plus_slack: usize,
    /// Turn generalized flips (reductions of dependent groups of 3+ terms) off.
    #[arg(long)]
    pub no_generalized_flips: bool,
    /// Random seed: the same seed, engine and walker count give the same run (on a GPU, with
    /// --round-steps).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Steps per walker between two looks of the driver (default 65536). On a GPU, rounds
    /// last --gpu-round-ms instead unless this is given: then they are exact step counts, and
    /// the same seed gives the same run.
    #[arg(long)]
    pub round_steps: Option<u64>,
    /// GPU: how walkers find the reductions that their flips make possible.
    #[arg(long, value_enum, default_value = "walk")]
    pub gpu_reductions: Reductions,
    /// GPU: how long a round lasts, in milliseconds, when --round-steps is not given. Every
    /// warp walks until the same moment: with rounds of so many steps, the warps whose steps
    /// cost more hold the GPU while the others idle (BENCHMARKS.md).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=60_000))]
    pub gpu_round_ms: u32,
    /// GPU: slots each lane samples per step (match.any.sync rounds) before the step gives up.
    #[arg(long, default_value_t = 2)]
    pub gpu_rounds: u32,
    /// GPU: most flips taken from the disjoint pairs that one match finds.
    #[arg(long, default_value_t = 8)]
    pub gpu_flips: u32,
    /// GPU: whether lanes draw the terms they offer to a match by their partner hints.
    #[arg(long, value_enum, default_value = "auto")]
    pub gpu_hints: Hints,
    /// Steps a walker may go without improving before it restarts from the pool.
    #[arg(long, default_value_t = 4_000_000)]
    pub patience: u64,
}

/// Steps per walker in a round when `--round-steps` is not given (and the round is not timed).
const ROUND_STEPS: u64 = 1 << 16;

impl EngineArgs {
    /// Steps per walker in a round of an engine whose rounds are `timed` (`Engine::timed_rounds`):
    /// then no limit.
    pub fn steps_per_round(&self, timed: bool) -> u64 {
        match self.round_steps {
            Some(steps) => steps,
            None if timed => u64::MAX,
            None => ROUND_STEPS,
        }
    }

    /// The walk's settings on an engine whose adaptive plateau keeps at least `floor`.
    pub fn walk_config(&self, floor: u32) -> WalkConfig {
        WalkConfig {
            plateau: self.plateau.map_or(Plateau::Adaptive { floor }, Plateau::Fixed),
            generalized: !self.no_generalized_flips,
            max_rank: self.plus_slack,
        }
    }

    /// How long a GPU round lasts, in microseconds: 0 (rounds of exact step counts) when
    /// `--round-steps` is given.
    fn gpu_round_us(&self) -> u32 {
        match self.round_steps {
            Some(_) => 0,
            None => self.gpu_round_ms * 1000,
        }
    }

    /// Opens the engine the arguments ask for; `auto` falls back to the CPU with a message.
    pub fn open(&self, shape: Shape) -> Result<Box<dyn Engine>> {
        match self.backend {
            Backend::Cpu => self.open_cpu(),
            Backend::Gpu => self.open_gpu(shape).context("--backend gpu"),
            Backend::Auto => self.open_gpu(shape).or_else(|e| {
                tracing::info!("no usable GPU ({e:#}); running on the CPU");
                self.open_cpu()
            }),
        }
    }

    /// The CPU engine on all (or `--threads`) cores.
    pub fn open_cpu(&self) -> Result<Box<dyn Engine>> {
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        // Many walkers per thread keep the descent from piling onto one dead end.
        let walkers = self.walkers.unwrap_or(16 * threads);
        Ok(Box::new(CpuEngine::new(threads, walkers, self.walk_config(CPU_FLOOR))?))
    }

    fn open_gpu(&self, shape: Shape) -> Result<Box<dyn Engine>> {
        let options = GpuOptions {
            walkers: self.walkers,
            config: self.walk_config(GPU_FLOOR),
            device: 0,
            log_entries: 0,
            rounds: self.gpu_rounds,
            flips: self.gpu_flips,
            reductions: self.gpu_reductions,
            hints: self.gpu_hints,
            round_us: self.gpu_round_us(),
        };
        // One runner per visible GPU (CUDA_VISIBLE_DEVICES picks which).
        Ok(match gpu::devices()?.len() {
            1 => Box::new(GpuEngine::open(shape, options)?),
            count => Box::new(MultiGpu::open(shape, options, count)?),
        })
    }
}

/// Search for a scheme of lower rank.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph search --size 4 --time 10m                 4x4x4 from naive, to the best known rank 47
  flipgraph search --size 4x4x5 --target-rank 62 --out runs/445
  flipgraph search --from tests/data/3x3x3-r23-laderman.m --target-rank 22
  flipgraph search --resume runs/445                   continue a stopped search")]
pub struct Args {
    /// The shape: 4 (square) or 4x4x5. Taken from --from or --resume when given.
    #[arg(long, required_unless_present_any = ["from", "resume"])]
    pub size: Option<Shape>,
    /// Start from this scheme (any format) instead of the naive one.
    #[arg(long, conflicts_with = "resume")]
    pub from: Option<PathBuf>,
    /// Continue the search saved in this output folder.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Stop at this rank (default: the best known rank over F2, else one below the start).
    #[arg(long)]
    pub target_rank: Option<usize>,
    /// Stop after this long: 90s, 10m, 2h, or plain seconds.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Output folder (default: results/<shape>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Formats of the result files (comma separated): json, txt, letter, seed.
    #[arg(long, value_delimiter = ',', default_value = "json")]
    pub formats: Vec<Format>,
    /// Seconds between checkpoints.
    #[arg(long, default_value_t = 5.0)]
    pub checkpoint_secs: f64,
    /// Progress as JSON lines on standard output.
    #[arg(long)]
    pub json: bool,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len()));
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a duration like 90s, 10m or 2h"))?;
    let secs = match unit {
        "" | "s" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        "d" => v * 86400.0,
        _ => return Err(format!("unknown unit '{unit}' (use s, m, h or d)")),
    };
    if secs.is_finite() && secs >= 0.0 {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err(format!("bad duration '{s}'"))
    }
}

/// Where a resumed search starts: the checkpoint's pool, time and counters.
fn start_from(cp: &Checkpoint) -> Result<Start> {
    Ok(Start {
        pool: cp.schemes()?,
        elapsed: Duration::from_secs_f64(cp.elapsed_s),
        counters: Counters {
            steps: cp.steps,
            vertices: cp.vertices,
            ..Counters::default()
        },
        rounds: cp.rounds,
    })
}

pub fn run(args: Args, process_start: std::time::Instant) -> Result<ExitCode> {
    let (shape, start, out_dir, seed, target) = match &args.resume {
        Some(dir) => {
            let cp = Checkpoint::read(dir)?;
            let start = start_from(&cp)?;
            (
                cp.shape()?,
                start,
                dir.clone(),
                cp.seed,
                args.target_rank.unwrap_or(cp.target),
            )
        }
        None => {
            let scheme = match &args.from {
                Some(path) => read_valid_f2(path)?,
                None => Scheme::naive(args.size.expect("clap requires --size")),
            };
            if let (Some(size), Some(_)) = (args.size, &args.from) {
                if size != scheme.shape() {
                    bail!("--size {size} does not match the shape {} of --from", scheme.shape());
                }
            }
            let shape = scheme.shape();
            let target = args.target_rank.unwrap_or_else(|| {
                best_known_rank(shape)
                    .filter(|&k| k < scheme.rank())
                    .unwrap_or(scheme.rank().saturating_sub(1))
            });
            let dir = args
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("results/{shape}")));
            let start = Start {
                pool: vec![scheme],
                elapsed: Duration::ZERO,
                counters: Counters::default(),
                rounds: 0,
            };
            (shape, start, dir, args.engine.seed, target)
        }
    };
    let mut engine_args = args.engine.clone();
    engine_args.seed = seed;
    let mut engine = engine_args.open(shape)?;
    let output = Output::open(&out_dir, args.formats.clone(), args.resume.is_some())?;
    let config = SearchConfig {
        shape,
        target,
        time_limit: args.time,
        seed,
        steps_per_round: engine_args.steps_per_round(engine.timed_rounds()),
        patience: engine_args.patience,
        pool_per_rank: 64,
        checkpoint_every: Duration::from_secs_f64(args.checkpoint_secs.max(0.1)),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
    let progress = Progress::new(args.json, args.quiet);
    let on_gpu = engine.describe().starts_with("gpu");
    let driver = Driver::new(
        engine.as_mut(),
        config.clone(),
        start,
        Some(output),
        progress,
        process_start,
    )?;
    let summary = match driver.run(&stop) {
        Ok(summary) => summary,
        // A GPU fault in a long run: with `auto`, the CPU carries on from the last checkpoint.
        Err(e) if on_gpu && args.engine.backend == Backend::Auto => {
            tracing::error!("the GPU engine failed: {e:#}; carrying on with the CPU engine from the last checkpoint");
            let mut cpu = engine_args.open_cpu()?;
            let config = SearchConfig {
                steps_per_round: engine_args.steps_per_round(cpu.timed_rounds()),
                ..config
            };
            let start = start_from(&Checkpoint::read(&out_dir)?)?;
            let output = Output::open(&out_dir, args.formats.clone(), true)?;
            let progress = Progress::new(args.json, args.quiet);
            Driver::new(cpu.as_mut(), config, start, Some(output), progress, process_start)?.run(&stop)?
        }
        Err(e) => return Err(e),
    };
    let secs = summary.walk_time.as_secs_f64().max(1e-9);
    let why = match summary.stop {
        Stop::Target => "target reached",
        Stop::TimeLimit => "time limit",
        Stop::Interrupted => "interrupted; checkpoint written",
    };
    eprintln!(
        "{why}: best rank {} ({}), {} vertices/s, {} steps/s over {:.1}s; results in {}",
        summary.best.rank(),
        shape,
        si(summary.counters.vertices as f64 / secs),
        si(summary.counters.steps as f64 / secs),
        secs,
        out_dir.display()
    );
    if summary.rejected > 0 {
        tracing::warn!(
            "{} schemes from the engine failed verification and were discarded",
            summary.rejected
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
pub(crate) mod tests {
    use clap::Parser;

    use super::EngineArgs;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        engine: EngineArgs,
    }

    /// The engine settings that these command-line flags give.
    pub(crate) fn engine<S: AsRef<str>>(args: &[S]) -> EngineArgs {
        Cli::try_parse_from(std::iter::once("flipgraph").chain(args.iter().map(AsRef::as_ref)))
            .expect("valid flags")
            .engine
    }

    #[test]
    fn gpu_rounds_are_timed_unless_steps_are_given() {
        let default = engine::<&str>(&[]);
        assert_eq!(default.steps_per_round(true), u64::MAX);
        assert_eq!(default.gpu_round_us(), 100_000);
        assert_eq!(default.steps_per_round(false), 1 << 16);
        let steps = engine(&["--round-steps", "500", "--gpu-round-ms", "20"]);
        assert_eq!(steps.steps_per_round(true), 500);
        assert_eq!(steps.gpu_round_us(), 0);
        assert_eq!(engine(&["--gpu-round-ms", "20"]).gpu_round_us(), 20_000);
        assert!(Cli::try_parse_from(["flipgraph", "--gpu-round-ms", "0"]).is_err());
    }
}
