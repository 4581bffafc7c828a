//! `bench --time-to-rank`: the wall time from a fresh `flipgraph search` process's start to a
//! verified scheme of a rank, over seeds, one run at a time or side by side (`--jobs`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use flipgraph_core::device::Partners;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::verify::verify;
use flipgraph_core::Shape;
use flipgraph_search::campaign::lanes::{host_gpus, lanes, lanes_in_words, Lane};
use serde_json::json;

use super::{median_of_runs, Args};
use crate::commands::choices::RingArg;
use crate::commands::engine_args::EngineArgs;
use crate::engine::cores;
use crate::interrupt::interrupt_flag;

/// How one run ended: the seconds to the rank, or without it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum RunEnd {
    Reached(f64),
    /// The lowest rank it wrote (None: nothing), and why it failed where the search ended in an
    /// error (its last line) rather than at its time limit.
    Missed {
        lowest: Option<usize>,
        error: Option<String>,
    },
}

/// Runs `flipgraph search` as fresh processes, `--jobs` at a time (each on its own GPU or its
/// share of the cores), and times each from spawn to exit. Ctrl-C (or SIGTERM) ends the runs
/// under way, starts no more, and reports those that ended.
pub fn time_to_rank(args: &Args, shape: Shape, rank: usize) -> Result<ExitCode> {
    let stop = interrupt_flag()?;
    let exe = std::env::current_exe().context("cannot find the flipgraph executable")?;
    remove_folders_of_dead_benches();
    let tmp = std::env::temp_dir().join(format!("{TEMP_PREFIX}{}", std::process::id()));
    let seeds: Vec<u64> = args
        .seeds
        .as_ref()
        .map_or_else(|| (1..=args.runs).collect(), |s| s.0.clone());
    // No lane without a run to take.
    let lanes = match args.jobs.min(seeds.len()) {
        0 | 1 => vec![args.engine.clone()],
        jobs => {
            let lanes = side_by_side(&args.engine, jobs, host_gpus(&args.engine.recipe())?)?;
            eprintln!("{jobs} runs at a time, {}", lanes_in_words(&lanes));
            let on = |lane: &Lane| EngineArgs {
                threads: lane.threads,
                gpu: lane.gpu,
                ..args.engine.clone()
            };
            lanes.iter().map(on).collect()
        }
    };
    let next = AtomicUsize::new(0);
    let ended: Vec<(usize, u64, RunEnd)> = std::thread::scope(|scope| {
        let workers: Vec<_> = lanes
            .iter()
            .map(|lane| {
                let (exe, tmp, seeds, next, stop) = (&exe, &tmp, &seeds, &next, &*stop);
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&seed) = seeds.get(i) else { break };
                        mine.push((i, seed, time_run((exe, tmp), args, (lane, stop), (shape, rank), seed)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(report(args, (shape, rank), lanes.len(), &in_seed_order(ended)))
}

/// The temp folder of a time-to-rank bench: this prefix, then its process id.
const TEMP_PREFIX: &str = "flipgraph-ttr-";

/// Removes the temp folders that benches killed outright (`kill -9`) left behind: those whose
/// process is gone (Linux, where /proc says).
fn remove_folders_of_dead_benches() {
    let proc = Path::new("/proc");
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    if !proc.join("self").exists() {
        return;
    }
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(TEMP_PREFIX)?.parse::<u32>().ok());
        if pid.is_some_and(|pid| !proc.join(pid.to_string()).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// What the runs walked on, kept beside their times: the GPUs' names where they walk on GPUs
/// (None where the driver could not say), the host's cores, and this build's version.
fn machine(engine: &EngineArgs) -> serde_json::Value {
    let gpus = match host_gpus(&engine.recipe()) {
        Ok(n) if n > 0 => crate::engine::gpu::devices().ok(),
        _ => None,
    };
    json!({ "gpus": gpus, "cpu_cores": cores(), "flipgraph": env!("CARGO_PKG_VERSION") })
}

/// The lanes of `jobs` runs side by side on a host of `gpus` GPUs (none: on the CPU), each on
/// a GPU or cores of its own: refused where they would share them, which would skew the times.
pub(super) fn side_by_side(engine: &EngineArgs, jobs: usize, gpus: usize) -> Result<Vec<Lane>> {
    if engine.gpu.is_some() {
        bail!("--jobs {jobs} with --gpu: the runs would share one GPU (without --gpu each takes its own)")
    }
    match gpus {
        0 if jobs > cores() => bail!(
            "--jobs {jobs}: this host has {} cores, and runs side by side take at least one each",
            cores()
        ),
        0 => {}
        _ if jobs > gpus => bail!("--jobs {jobs}: this host has {gpus} GPUs, and runs side by side take one each"),
        _ => {}
    }
    Ok(lanes(&engine.recipe(), jobs, gpus))
}

/// The runs' ends by the index of their seed, as the lanes gave them back, in the seeds' order.
pub(super) fn in_seed_order(mut ended: Vec<(usize, u64, RunEnd)>) -> Vec<(u64, RunEnd)> {
    ended.sort_by_key(|&(i, ..)| i);
    ended.into_iter().map(|(_, seed, end)| (seed, end)).collect()
}

/// Runs one `flipgraph search` of `shape` to `rank` with `seed` on the engine flags of `lane`
/// into a folder of `tmp`, and says how it ended (a scheme of the rank written and verified).
fn time_run(
    (exe, tmp): (&Path, &Path),
    args: &Args,
    (lane, stop): (&EngineArgs, &AtomicBool),
    (shape, rank): (Shape, usize),
    seed: u64,
) -> RunEnd {
    let out: PathBuf = tmp.join(format!("run{seed}"));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(exe);
    cmd.args(["search", "--quiet", "--size", &shape.to_string()])
        .args(["--target-rank", &rank.to_string(), "--seed", &seed.to_string()])
        .args(["--time", &format!("{}s", args.timeout.as_secs_f64())])
        .arg("--out")
        .arg(&out)
        .args(engine_flags(lane))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    end_with_this_process(&mut cmd);
    let started = Instant::now();
    let ran = cmd.spawn().and_then(|child| wait_or_stop(child, stop));
    let secs = started.elapsed().as_secs_f64();
    // A run that ended well before the stop came keeps its time; one killed by it was cut short.
    let error = match &ran {
        Ok(done) if done.status.success() => None,
        Ok(_) if stop.load(Ordering::Relaxed) => Some("interrupted".to_owned()),
        Ok(done) => Some(error_line(&done.stderr).unwrap_or_else(|| done.status.to_string())),
        Err(e) => Some(format!("cannot run {}: {e}", exe.display())),
    };
    let reached = (0..=rank).rev().find_map(|r| {
        let path = out.join(format!("{shape}-r{r}.json"));
        path.exists().then_some(path)
    });
    let ok = reached.is_some_and(|path| valid_result(&path, rank, lane.ring));
    if error.is_none() && ok {
        eprintln!("run {seed}: rank {rank} in {secs:.2}s");
        return RunEnd::Reached(secs);
    }
    let lowest = lowest_rank_written(&out, shape);
    let best = lowest.map_or("none".to_owned(), |r| r.to_string());
    match &error {
        Some(e) => eprintln!("run {seed}: the search failed: {e} (lowest rank written: {best})"),
        None => eprintln!(
            "run {seed}: no rank {rank} within {:.0}s (lowest rank written: {best})",
            args.timeout.as_secs_f64()
        ),
    }
    RunEnd::Missed { lowest, error }
}

/// Whether the result file `path` holds a valid scheme of rank `rank` or less over `ring`.
fn valid_result(path: &Path, rank: usize, ring: RingArg) -> bool {
    match ring {
        RingArg::F2 => crate::schemes::read_valid_f2::<u64>(path).is_ok_and(|s| s.rank() <= rank && verify(&s).is_ok()),
        RingArg::Zt => flipgraph_core::formats::read_path(path).is_ok_and(|file| {
            TernaryScheme::from_int(&file.scheme).is_ok_and(|s| s.rank() <= rank && s.verify().is_ok())
        }),
    }
}

/// The run ends when this process does, even by `kill -9` (which no handler sees): Linux sends
/// it SIGTERM then, and it checkpoints and ends as on Ctrl-C.
fn end_with_this_process(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe; the closure allocates nothing. The signal follows
        // the spawning thread's death: the lane's thread waits for its run before it ends.
        unsafe {
            cmd.pre_exec(|| match libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// What `child` printed once it ends, or once `stop` is set (then it is killed: a time-to-rank
/// run's folder is temporary). Its standard error is read as it comes, so that a full pipe never
/// holds it up.
fn wait_or_stop(mut child: Child, stop: &AtomicBool) -> std::io::Result<Output> {
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr.read_to_end(&mut text);
        }
        text
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if stop.load(Ordering::Relaxed) => {
                let _ = child.kill();
                break child.wait();
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => break Err(e),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    Ok(Output {
        status: status?,
        stdout: Vec::new(),
        stderr,
    })
}

/// How often a run under way is looked at for its end or a stop.
const POLL: Duration = Duration::from_millis(20);

/// The error a failed `flipgraph search` printed last (its `error: ...` line), if any.
fn error_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .map(str::to_owned)
}

/// Prints what the runs' `ends` (by seed, in the seeds' order) say: the median over all runs,
/// the times of those that reached the rank, and the lowest ranks of those that did not.
fn report(args: &Args, (shape, rank): (Shape, usize), jobs: usize, ends: &[(u64, RunEnd)]) -> ExitCode {
    let runs = ends.len();
    let times: Vec<f64> = ends
        .iter()
        .filter_map(|(_, end)| match end {
            RunEnd::Reached(secs) => Some(*secs),
            RunEnd::Missed { .. } => None,
        })
        .collect();
    let missed: Vec<Option<usize>> = ends
        .iter()
        .filter_map(|(_, end)| match end {
            RunEnd::Missed { lowest, .. } => Some(*lowest),
            RunEnd::Reached(_) => None,
        })
        .collect();
    let by_seed: Vec<serde_json::Value> = ends
        .iter()
        .map(|(seed, end)| match end {
            RunEnd::Reached(secs) => json!({ "seed": seed, "s": secs }),
            RunEnd::Missed { lowest, error } => {
                json!({ "seed": seed, "s": null, "lowest_rank": lowest, "error": error })
            }
        })
        .collect();
    // A run interrupted or failed did not run its course: it is no run "above the timeout".
    let cut_short = ends
        .iter()
        .filter(|(_, end)| matches!(end, RunEnd::Missed { error: Some(_), .. }))
        .count();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = median_of_runs(&sorted, runs - cut_short);
    let mean = mean_of(&sorted);
    let timeout = args.timeout.as_secs_f64();
    let result = json!({
        "shape": shape.to_string(), "rank": rank, "runs": runs, "reached": sorted.len(), "failures": missed.len(),
        "timeout_s": timeout, "median_s": median, "median_above_timeout": median.is_none(),
        "mean_reached_s": mean, "min_s": sorted.first(), "max_s": sorted.last(), "times_s": times,
        "missed_lowest_ranks": missed, "by_seed": by_seed, "jobs": jobs, "cut_short": cut_short,
        "generalized_flips": !args.engine.no_generalized_flips, "machine": machine(&args.engine),
    });
    if args.json {
        println!("{result}");
    } else {
        let median = match (median, runs - cut_short) {
            (Some(m), _) => format!("{m:.2}s"),
            (None, 0) => "none (no run ran its course)".to_owned(),
            (None, _) => format!("> {timeout:.0}s"),
        };
        let counted = match cut_short {
            0 => "all runs".to_owned(),
            n => format!(
                "the {} runs that ran their course ({n} interrupted or failed)",
                runs - n
            ),
        };
        println!(
            "{shape} to rank {rank}: {}/{} runs reached it; median of {counted} {median}; {}",
            sorted.len(),
            runs,
            reached_summary(&sorted)
        );
    }
    if missed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The lowest rank of the result files of `shape` in `out` (named `SHAPE-rRANK.json`).
pub(super) fn lowest_rank_written(out: &Path, shape: Shape) -> Option<usize> {
    let prefix = format!("{shape}-r");
    std::fs::read_dir(out)
        .ok()?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_prefix(&prefix)?.strip_suffix(".json")?.parse().ok()
        })
        .min()
}

/// What the `sorted` times of the runs that reached the rank say: their mean, min and max.
pub(super) fn reached_summary(sorted: &[f64]) -> String {
    match (mean_of(sorted), sorted.first(), sorted.last()) {
        (Some(mean), Some(min), Some(max)) => {
            format!("of those that reached it: mean {mean:.2}s, min {min:.2}s, max {max:.2}s")
        }
        _ => "none reached it".to_owned(),
    }
}

/// The mean of `times`, if there are any.
fn mean_of(times: &[f64]) -> Option<f64> {
    (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
}

/// A choice's name on the command line (`none` for `SymmetryArg::Trivial`, not its variant's).
fn value_name(choice: impl ValueEnum) -> String {
    choice
        .to_possible_value()
        .expect("every choice has a name")
        .get_name()
        .to_owned()
}

/// The engine flags to pass on to `flipgraph search`.
pub(super) fn engine_flags(e: &EngineArgs) -> Vec<String> {
    // Every field named, so that a new engine flag cannot be left behind unnoticed; the seed is
    // each run's own.
    let EngineArgs {
        backend,
        ring,
        lift,
        threads,
        gpu,
        walkers,
        plateau,
        plus_slack,
        plus_cap,
        no_generalized_flips,
        sparse,
        seed: _,
        round_steps,
        reductions,
        gpu_round_ms,
        gpu_rounds,
        gpu_flips,
        gpu_hints,
        gpu_partners,
        patience,
        restarts,
        follow,
        pool_ranks,
        ladder,
        rung_stall,
        preset,
        symmetry,
        cubes,
        fixed_terms,
    } = e;
    let mut flags = vec![
        "--backend".to_owned(),
        value_name(*backend),
        "--gpu-rounds".into(),
        gpu_rounds.to_string(),
        "--gpu-flips".into(),
        gpu_flips.to_string(),
        "--gpu-round-ms".into(),
        gpu_round_ms.to_string(),
        "--gpu-hints".into(),
        value_name(*gpu_hints),
    ];
    for (flag, on) in [("--no-generalized-flips", *no_generalized_flips), ("--lift", *lift)] {
        if on {
            flags.push(flag.into());
        }
    }
    for (flag, value) in [
        ("--ring", (*ring != RingArg::F2).then(|| value_name(*ring))),
        ("--threads", threads.map(|v| v.to_string())),
        ("--gpu", gpu.map(|v| v.to_string())),
        ("--reductions", reductions.map(value_name)),
        ("--walkers", walkers.map(|v| v.to_string())),
        ("--plateau", plateau.map(|v| v.to_string())),
        ("--round-steps", round_steps.map(|v| v.to_string())),
        ("--rung-stall", rung_stall.map(|d| format!("{}s", d.as_secs_f64()))),
        ("--plus-slack", plus_slack.map(|s| s.to_string())),
        ("--plus-cap", plus_cap.map(|s| s.to_string())),
        ("--patience", patience.map(|p| p.to_string())),
        ("--restarts", restarts.map(value_name)),
        ("--follow", follow.map(|f| f.to_string())),
        ("--pool-ranks", pool_ranks.map(|r| r.to_string())),
        ("--symmetry", symmetry.map(value_name)),
        ("--sparse", sparse.map(value_name)),
        ("--ladder", ladder.map(value_name)),
        ("--preset", preset.map(value_name)),
        (
            "--gpu-partners",
            gpu_partners.map(|p| Partners::from(p).name().to_owned()),
        ),
        ("--cubes", (!cubes.is_empty()).then(|| cubes.join(","))),
        ("--fixed-terms", fixed_terms.map(value_name)),
    ] {
        if let Some(value) = value {
            flags.extend([flag.to_owned(), value]);
        }
    }
    flags
}
