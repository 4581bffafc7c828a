//! A search as islands: on threads of this process (`--islands`, one per GPU by default on
//! several), or as this process's island of an MPI job (feature `mpi`).

#[cfg(feature = "mpi")]
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;

use super::{execute, Args, Ended};
use crate::islands::{Island, Place, Sharing};
use crate::islands::{IslandLeft, ThreadPeers};

/// The islands of this process: --islands, else one per GPU where the search walks on several
/// (on 4 H100s, islands reached 4x5x5 73 and 3x5x5 58 in a median 0.28x and 0.27x one GPU's
/// time; one engine across the four took 0.74x on 3x5x5: BENCHMARKS.md, Several GPUs and
/// processes).
pub fn count(args: &Args) -> Result<usize> {
    let on_cpu = args.engine.gpu.is_none() && !args.engine.recipe().spec().on_gpu();
    if let Some(islands) = args.islands {
        // Each island takes a core at least, with walkers and a pool of its own: more would
        // only take turns, and their memory adds up past what one island's guard sees.
        let cores = crate::engine::cores();
        if on_cpu && islands > cores {
            anyhow::bail!(
                "--islands {islands}: on the CPU each island takes a core at least, and this host has {cores}"
            );
        }
        return Ok(islands);
    }
    if args.engine.gpu.is_some() || on_cpu {
        return Ok(1);
    }
    // Without a usable GPU the engine's opening says why, in the flags' words.
    let gpus = crate::engine::gpu::device_count().unwrap_or(1);
    if gpus > 1 {
        tracing::info!("{gpus} islands, one per GPU (--islands 1: one engine across them)");
    }
    Ok(gpus.max(1))
}

/// How islands share, as the flags say.
fn sharing(args: &Args) -> Sharing {
    Sharing {
        every: args.exchange_every,
        schemes: args.exchange_schemes,
    }
}

/// Runs the search as `islands` islands on threads of this process; island 0's end speaks for
/// them. An island that fails ends the others (at their next agreement); its error is the one
/// returned.
pub fn on_threads(args: &Args, stop: &AtomicBool, process_start: Instant, islands: usize) -> Result<Ended> {
    let ends = std::thread::scope(|scope| {
        let threads: Vec<_> = ThreadPeers::board(islands)
            .into_iter()
            .enumerate()
            .map(|(index, peers)| {
                scope.spawn(move || {
                    let _island = tracing::info_span!("", island = index).entered();
                    let place = Place {
                        island: Island::new(Box::new(peers), sharing(args)),
                        local_index: index,
                        local_size: islands,
                    };
                    execute(args, stop, process_start, Some(place))
                })
            })
            .collect();
        let joined = threads.into_iter().map(|t| t.join());
        joined
            .map(|end| end.unwrap_or_else(|_| Err(anyhow::anyhow!("an island panicked"))))
            .collect::<Vec<_>>()
    });
    let (ended, mut failed): (Vec<_>, Vec<_>) = ends.into_iter().partition(Result::is_ok);
    // The island that failed, rather than those its leaving ended.
    let first = failed
        .iter()
        .position(|e| e.as_ref().is_err_and(|e| !e.is::<IslandLeft>()));
    match (first.or((!failed.is_empty()).then_some(0)), ended.into_iter().next()) {
        (Some(i), _) => failed.swap_remove(i),
        (None, Some(island_0)) => island_0,
        (None, None) => anyhow::bail!("no island ran"),
    }
}

/// Runs this process's island of an MPI job; island 0 reports. An island that fails ends the
/// job: the others would wait for it forever.
#[cfg(feature = "mpi")]
pub fn in_job(
    args: &Args,
    stop: &AtomicBool,
    process_start: Instant,
    job: &flipgraph_cluster::Job,
) -> Result<ExitCode> {
    let place = Place {
        island: Island::new(Box::new(job.peers()), sharing(args)),
        local_index: job.local_index,
        local_size: job.local_size,
    };
    match execute(args, stop, process_start, Some(place)) {
        Ok(ended) => {
            // Island 0 writes the results; every island its checkpoint.
            let whole = match job.index() {
                0 => crate::ended::report(&ended, args.json, args.quiet),
                _ => ended.unwritten.none(),
            };
            Ok(if whole { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Err(e) => {
            tracing::error!("island {}: {}; ending the job", job.index(), crate::flags::in_flags(&e));
            job.abort(1)
        }
    }
}
