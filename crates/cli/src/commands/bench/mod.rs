//! `flipgraph bench`: throughput per size from the naive scheme, and time to a rank.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use flipgraph_core::verify::verify;
use flipgraph_core::{Scheme, Shape, WideScheme};
use serde_json::json;

use super::choices::RingArg;
use super::engine_args::{at_least_one, EngineArgs};
use crate::driver::progress::{si, Progress};
use crate::driver::{self, Driver, SearchConfig};
use crate::engine::{Backend, EngineSpec, StartKind, Width};
use crate::session::recipe::Recipe;

/// Measure: vertices/s, steps/s and rank reached per size from the naive scheme (or from given
/// schemes); or the wall time from process start to a verified scheme of a given rank.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  flipgraph bench --backend cpu --sizes 3,4,5,6,7,8 --seconds 10
  flipgraph bench --backend gpu --sizes 4 --seconds 20 --json
  flipgraph bench --backend gpu --sizes 5,6,7,8 --seconds 60 --seeds 1-3
  flipgraph bench --backend gpu --from tests/data/7x7x7-r245-seed.b32 --cpu-thread
  flipgraph bench --time-to-rank 4x4x4:47 --runs 10 --timeout 300s
  flipgraph bench --time-to-rank 4x5x5:73 --runs 10 --jobs 4 --timeout 100s   (one GPU a run)")]
pub struct Args {
    /// Sizes (square N or NxMxP), comma separated [default: 3,4,5,6,7,8].
    #[arg(long, value_delimiter = ',')]
    sizes: Option<Vec<Shape>>,
    /// Walk factors of this many bits, 64 or 128 (default: 64 where the format fits them, else
    /// 128, on the CPU). 128 on a format up to 8x8x8 measures the wide walk against the 64-bit
    /// one.
    #[arg(long, value_parser = parse_factor_bits)]
    factor_bits: Option<usize>,
    /// Start from these schemes instead of the naive scheme of --sizes (the record regime:
    /// throughput near the best known ranks).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    from: Vec<PathBuf>,
    /// Also measure one thread of the CPU engine on each start (for the same time), and the
    /// engine's ratio to it.
    #[arg(long)]
    cpu_thread: bool,
    /// Time per size (or start): seconds, or 90s, 10m, ...
    #[arg(long, default_value = "10", value_parser = super::duration::parse_duration)]
    seconds: Duration,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Measure each size (or start) once per seed, as 1-3 or 1,2,5, and report the medians of
    /// rank reached (the lower middle one of an even count) and of the rates, with each seed's
    /// rank beside them and every run in JSON (a row's `runs`). Default: once, with --seed.
    /// With --time-to-rank: the seeds of its runs, instead of 1..=--runs.
    #[arg(long, value_parser = parse_seeds, conflicts_with_all = ["seed", "runs"])]
    seeds: Option<Seeds>,
    /// Measure the wall time to a rank instead, as SHAPE:RANK (each run is a fresh process).
    #[arg(long, value_parser = parse_time_to_rank, conflicts_with_all = ["from", "cpu_thread"])]
    time_to_rank: Option<(Shape, usize)>,
    /// Runs of --time-to-rank (seeds 1..=runs; --seeds picks others), at most 1000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
    runs: u64,
    /// Runs of --time-to-rank at once, side by side: each on its own GPU (one GPU a run, where
    /// one run alone takes every GPU of the host; at most one a GPU, and not with --gpu), or its
    /// share of the cores (at most one run a core).
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<usize>, requires = "time_to_rank")]
    jobs: usize,
    /// Give up a --time-to-rank run after this long.
    #[arg(long, value_parser = super::duration::parse_duration, default_value = "600s")]
    timeout: Duration,
    #[command(flatten)]
    engine: EngineArgs,
}

/// The seeds of a throughput run, in the order given. A type of its own so that clap takes
/// one value and its parser makes the list (clap reads an `Option<Vec<_>>` as many values).
#[derive(Clone, Debug, PartialEq)]
struct Seeds(Vec<u64>);

/// The most seeds one run takes.
const MAX_SEEDS: u64 = 1000;

/// `1-3` (inclusive) or `1,2,5`, each seed once, at most [`MAX_SEEDS`].
fn parse_seeds(s: &str) -> Result<Seeds, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("'{s}': expected seeds as FIRST-LAST (1-3) or a list (1,2,5) of whole numbers"))
    };
    let seeds: Vec<u64> = match s.split_once('-') {
        Some((first, last)) => {
            let (first, last) = (number(first)?, number(last)?);
            if first > last {
                return Err(format!("the range {s} is empty: write the smaller seed first"));
            }
            if last - first >= MAX_SEEDS {
                return Err(format!("the range {s} holds more than {MAX_SEEDS} seeds"));
            }
            (first..=last).collect()
        }
        None => s.split(',').map(number).collect::<Result<_, _>>()?,
    };
    if seeds.len() as u64 > MAX_SEEDS {
        return Err(format!("{} seeds: at most {MAX_SEEDS}", seeds.len()));
    }
    if let Some(twice) = seeds
        .iter()
        .enumerate()
        .find_map(|(i, s)| seeds[..i].contains(s).then_some(s))
    {
        return Err(format!("seed {twice} is given twice"));
    }
    Ok(Seeds(seeds))
}

fn parse_factor_bits(s: &str) -> Result<usize, String> {
    match s {
        "64" => Ok(64),
        "128" => Ok(128),
        _ => Err(format!("{s}: factors of 64 or 128 bits")),
    }
}

fn parse_time_to_rank(s: &str) -> Result<(Shape, usize), String> {
    let (shape, rank) = s.split_once(':').ok_or("expected SHAPE:RANK, like 4x4x4:47")?;
    Ok((
        shape.parse().map_err(|e| format!("{e}"))?,
        rank.parse().map_err(|_| "bad rank")?,
    ))
}

/// The sizes a throughput run measures without --sizes: the cubes 3 to 8.
fn default_sizes() -> Vec<Shape> {
    (3..=8).map(|n| Shape::square(n).expect("3 to 8 are sizes")).collect()
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.time_to_rank {
        // Not a clap conflict: clap then excuses --jobs's `requires` (see the tests).
        Some(_) if args.sizes.is_some() => {
            anyhow::bail!("--sizes is for throughput runs; --time-to-rank names its own format")
        }
        Some((shape, rank)) => time_to_rank::time_to_rank(&args, shape, rank),
        None if args.engine.ring == RingArg::Zt => anyhow::bail!(
            "--ring zt: bench measures ternary searches by --time-to-rank (throughput runs open the F2 engines); a ternary search reports its vertices/s when it ends"
        ),
        None => throughput(&args),
    }
}

/// A measured start: its name and scheme (at 128 bits, which every format fits).
struct Start {
    name: String,
    scheme: WideScheme,
}

/// The starts of a throughput run: the files of --from, else the naive scheme of each size
/// (with --cubes, its fixed cubes and unit terms).
fn starts(args: &Args) -> Result<Vec<Start>> {
    let recipe = args.engine.recipe();
    if args.from.is_empty() {
        let cubes = match args.engine.cubes.join(",") {
            c if c.is_empty() => c,
            c => format!(" cubes {c}"),
        };
        return args
            .sizes
            .clone()
            .unwrap_or_else(default_sizes)
            .into_iter()
            .map(|shape| {
                Ok(Start {
                    name: format!("{shape}{cubes}"),
                    scheme: recipe.naive_start(shape)?,
                })
            })
            .collect();
    }
    recipe.refuse_conflicts(true)?;
    args.from
        .iter()
        .map(|path| {
            let scheme = crate::schemes::read_valid_f2::<u128>(path)?;
            let file = path
                .file_name()
                .map_or(path.display().to_string(), |f| f.to_string_lossy().into_owned());
            Ok(Start {
                name: format!("{} r{} ({file})", scheme.shape(), scheme.rank()),
                scheme,
            })
        })
        .collect()
}

fn throughput(args: &Args) -> Result<ExitCode> {
    let recipe = args.engine.recipe();
    let seeds = args.seeds.as_ref().map_or_else(|| vec![recipe.seed()], |s| s.0.clone());
    let base = Run {
        seed: recipe.seed(),
        recipe: &recipe,
        seconds: args.seconds,
    };
    let mut rows = Vec::new();
    let mut engine_name = String::new();
    for start in starts(args)? {
        let kind = if args.from.is_empty() {
            StartKind::Naive
        } else {
            StartKind::Given
        };
        let spec = recipe.spec_from(start.scheme.rank(), kind);
        let mut runs = Vec::new();
        for &seed in &seeds {
            let (name, row) = measure_seed(args, &spec, &Run { seed, ..base }, &start)?;
            engine_name = name;
            runs.push(row);
        }
        rows.push(if args.seeds.is_some() {
            row_over_seeds(runs)
        } else {
            runs.remove(0)
        });
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print_table(&engine_name, &rows, args.cpu_thread);
    }
    Ok(ExitCode::SUCCESS)
}

/// One run of `start` with `run`'s seed: its row, with the seed and, when asked, the rate of one
/// CPU thread beside it; reported on stderr unless the output is JSON.
fn measure_seed(args: &Args, spec: &EngineSpec, run: &Run, start: &Start) -> Result<(String, serde_json::Value)> {
    let (name, mut row) = measure(spec, run, start, args.factor_bits)?;
    row["seed"] = json!(run.seed);
    if args.cpu_thread {
        let (_, cpu) = measure(&one_cpu_thread(spec), run, start, args.factor_bits)?;
        let per_thread = cpu["vertices_per_s"].as_f64().unwrap_or(0.0);
        row["cpu_thread_vertices_per_s"] = json!(per_thread);
        row["cpu_threads_equivalent"] = json!(row["vertices_per_s"].as_f64().unwrap_or(0.0) / per_thread);
    }
    if !args.json {
        let seed = if args.seeds.is_some() {
            format!(", seed {}", run.seed)
        } else {
            String::new()
        };
        eprintln!(
            "{}{seed}: {} vertices/s, rank {}",
            start.name,
            si(row["vertices_per_s"].as_f64().unwrap_or(0.0)),
            row["rank"]
        );
    }
    Ok((name, row))
}

/// The rates and times that a row over several seeds shows as their medians (the ratio to one
/// CPU thread is the median of each seed's ratio).
const MEDIAN_FIELDS: &[&str] = &[
    "vertices_per_s",
    "steps_per_s",
    "seconds",
    "cpu_thread_vertices_per_s",
    "cpu_threads_equivalent",
];

/// The counts of one run, which a row over several seeds leaves to its `runs`.
const RUN_COUNTS: &[&str] = &["vertices", "steps", "flips", "plus", "reductions", "generalized"];

/// One row for the `runs` of one start, one run per seed: the medians of [`MEDIAN_FIELDS`], the
/// median rank (the lower middle one of an even count: a rank some run reached) and each seed's
/// rank beside it (`ranks`), the walkers audited and rejections over all runs, and the runs.
fn row_over_seeds(runs: Vec<serde_json::Value>) -> serde_json::Value {
    let mut row = runs.first().cloned().unwrap_or_else(|| json!({}));
    for &field in MEDIAN_FIELDS {
        let mut values: Vec<f64> = runs.iter().filter_map(|r| r[field].as_f64()).collect();
        values.sort_unstable_by(f64::total_cmp);
        if let Some(m) = median_of_runs(&values, values.len()) {
            row[field] = json!(m);
        }
    }
    let mut ranks: Vec<u64> = runs.iter().filter_map(|r| r["rank"].as_u64()).collect();
    ranks.sort_unstable();
    if let Some(&lower_middle) = ranks.get(ranks.len().saturating_sub(1) / 2) {
        row["rank"] = json!(lower_middle);
    }
    let sum = |field: &str| runs.iter().filter_map(|r| r[field].as_u64()).sum::<u64>();
    for field in ["walkers_audited", "walkers_invalid", "rejected"] {
        row[field] = json!(sum(field));
    }
    row["seeds"] = runs.iter().map(|r| r["seed"].clone()).collect();
    row["ranks"] = runs.iter().map(|r| r["rank"].clone()).collect();
    if let Some(fields) = row.as_object_mut() {
        fields.remove("seed");
        for field in RUN_COUNTS {
            fields.remove(*field);
        }
    }
    row["runs"] = json!(runs);
    row
}

/// The engine of `spec` on one CPU thread (its default walkers per thread).
fn one_cpu_thread(spec: &EngineSpec) -> EngineSpec {
    EngineSpec {
        backend: Backend::Cpu,
        threads: Some(1),
        walkers: None,
        ..*spec
    }
}

/// The driver's settings of a measurement.
struct Run<'a> {
    seed: u64,
    /// Its patience, restarts and pool ([`Recipe::config`]).
    recipe: &'a Recipe,
    seconds: Duration,
}

/// Walks from `start` on the engine of `spec` as `run` says; audits every walker at the end.
/// Returns the engine's description and the row of figures.
fn measure(spec: &EngineSpec, run: &Run, start: &Start, bits: Option<usize>) -> Result<(String, serde_json::Value)> {
    let fits = start.scheme.shape().fits::<u64>();
    match bits.unwrap_or(if fits { 64 } else { 128 }) {
        64 => measure_in::<u64>(spec, run, &start.name, start.scheme.to_width()?),
        _ => measure_in::<u128>(spec, run, &start.name, start.scheme.clone()),
    }
}

/// [`measure`] with factors of `F`.
fn measure_in<F: Width>(
    spec: &EngineSpec,
    run: &Run,
    name: &str,
    scheme: Scheme<F>,
) -> Result<(String, serde_json::Value)> {
    let shape = scheme.shape();
    let spec = EngineSpec {
        start_rank: Some(scheme.rank()),
        ..*spec
    };
    let mut engine = spec.open_for::<F>(shape)?;
    let engine_name = engine.describe();
    let config = SearchConfig {
        time_limit: Some(run.seconds),
        ..run.recipe.config(shape, (1, run.seed), &spec, engine.as_ref())
    };
    let driver = Driver::new(
        engine.as_mut(),
        config,
        driver::Start::from_scheme(scheme.clone()),
        None,
        Progress::new(false, true),
        Instant::now(),
    )?;
    let summary = driver.run(&AtomicBool::new(false))?;
    // Audit: every walker's scheme at the end must verify.
    let audited = engine.walkers();
    let mut invalid = 0;
    for w in 0..audited {
        if verify(&engine.current_scheme(w)?).is_err() {
            invalid += 1;
        }
    }
    if invalid > 0 || summary.rejected > 0 {
        bail!(
            "{name}: {invalid} walkers hold invalid schemes, {} improvements failed verification",
            summary.rejected
        );
    }
    let secs = summary.walk_time.as_secs_f64();
    let c = summary.counters;
    let row = json!({
        "size": shape.to_string(),
        "start": name,
        "start_rank": scheme.rank(),
        "factor_bits": F::BITS,
        "engine": engine_name,
        "seconds": secs,
        "vertices": c.vertices,
        "steps": c.steps,
        "vertices_per_s": c.vertices as f64 / secs,
        "steps_per_s": c.steps as f64 / secs,
        "rank": summary.best.rank(),
        "flips": c.flips, "plus": c.plus, "reductions": c.reductions, "generalized": c.generalized,
        "walkers_audited": audited,
        "walkers_invalid": invalid,
        "rejected": summary.rejected,
    });
    Ok((engine_name, row))
}

/// The rows of a throughput run as a Markdown table.
fn print_table(engine_name: &str, rows: &[serde_json::Value], cpu_thread: bool) {
    let f = |r: &serde_json::Value, key: &str| r[key].as_f64().unwrap_or(0.0);
    println!("engine: {engine_name}");
    if let Some(seeds) = rows.first().and_then(|r| r["seeds"].as_array()) {
        println!(
            "medians over seeds {}; each seed's rank in parentheses; walkers audited in all runs",
            joined(seeds, ", ")
        );
    }
    let extra = if cpu_thread { " one CPU thread | ratio |" } else { "" };
    let rule = if cpu_thread { "---|---|" } else { "" };
    println!("| start | vertices/s | steps/s | rank reached | seconds | walkers audited |{extra}");
    println!("|---|---|---|---|---|---|{rule}");
    for r in rows {
        let cpu = if cpu_thread {
            format!(
                " {} | {:.0}x |",
                si(f(r, "cpu_thread_vertices_per_s")),
                f(r, "cpu_threads_equivalent")
            )
        } else {
            String::new()
        };
        let rank = match r["ranks"].as_array() {
            Some(ranks) => format!("{} ({})", r["rank"], joined(ranks, " / ")),
            None => r["rank"].to_string(),
        };
        println!(
            "| {} | {} | {} | {rank} | {:.1} | {} valid |{cpu}",
            r["start"].as_str().unwrap_or(""),
            si(f(r, "vertices_per_s")),
            si(f(r, "steps_per_s")),
            f(r, "seconds"),
            r["walkers_audited"]
        );
    }
}

/// JSON values as text, joined by `separator`.
fn joined(values: &[serde_json::Value], separator: &str) -> String {
    values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(separator)
}

/// The median over all `runs` (the mean of the middle two of an even count), from the `sorted`
/// values of those that have one. For times to a rank: a run that did not reach it counts as
/// slower than any that did, so the median is None (above the timeout) when it falls among
/// those. With a value for every run, the plain median.
fn median_of_runs(sorted: &[f64], runs: usize) -> Option<f64> {
    let at = |i: usize| sorted.get(i).copied();
    match runs {
        0 => None,
        n if n % 2 == 1 => at(n / 2),
        n => Some((at(n / 2 - 1)? + at(n / 2)?) / 2.0),
    }
}

#[cfg(test)]
mod tests;
mod time_to_rank;
