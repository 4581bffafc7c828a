//! A scheme below the best known rank: announced where it cannot be missed, and lifted to the
//! integers (in the background) so that the record holds over Z as well when it can.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::lift::{lift, DEFAULT_BITS, DEFAULT_TRIES};
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::{verify_z, Verified};

use super::atomic_file::replace_own_file;

/// How long a search ended by its time limit (`limit`) waits for the lift of its records: a
/// tenth of the limit, 2 to 60 s. A lift left unfinished is said so, and `flipgraph lift` does
/// it later.
pub fn lift_grace(limit: Option<Duration>) -> Duration {
    (limit.unwrap_or_default() / 10).clamp(Duration::from_secs(2), Duration::from_secs(60))
}

/// A record to lift: the scheme, and where its lift goes in which format.
struct Job<F: FactorBits> {
    scheme: Verified<F>,
    path: PathBuf,
    format: Format,
}

/// The lifts of the records: one at a time (a lift of a large scheme takes minutes and
/// gigabytes), and of those found meanwhile only the latest, which supersedes the others.
pub struct Lifts<F: FactorBits = u64> {
    running: Option<(usize, JoinHandle<Result<Option<PathBuf>>>)>,
    next: Option<Job<F>>,
}

impl<F: FactorBits> Default for Lifts<F> {
    fn default() -> Lifts<F> {
        Lifts {
            running: None,
            next: None,
        }
    }
}

impl<F: FactorBits> Lifts<F> {
    /// Lifts `scheme` to Z when no lift runs, else after the one running (replacing a record
    /// waiting for its turn); the lift (verified over Z) goes to `path` when one exists.
    pub fn start(&mut self, scheme: &Verified<F>, path: PathBuf, format: Format) {
        let job = Job {
            scheme: scheme.clone(),
            path,
            format,
        };
        if let Some(superseded) = self.next.replace(job) {
            tracing::info!(
                "the lift of rank {} is superseded by rank {}",
                superseded.scheme.rank(),
                scheme.rank()
            );
        }
        self.reap();
    }

    /// Reports the running lift if it ended, and starts the next when none runs.
    fn reap(&mut self) {
        if self.running.as_ref().is_some_and(|(_, h)| h.is_finished()) {
            let (rank, handle) = self.running.take().expect("a running lift");
            report(rank, handle);
        }
        if self.running.is_none() {
            if let Some(job) = self.next.take() {
                self.running = Some((job.scheme.rank(), std::thread::spawn(move || lift_to_file(job))));
            }
        }
    }

    /// Waits for the lifts and says what each gave; `stop` (Ctrl-C, a signal) abandons them at
    /// once, and so does the end of `grace` where one is given (a search at its time limit).
    pub fn finish(mut self, stop: &AtomicBool, grace: Option<Duration>) {
        if self.running.is_some() || self.next.is_some() {
            tracing::info!("waiting for the lift of the record schemes to Z (Ctrl-C abandons it) ...");
        }
        let began = std::time::Instant::now();
        loop {
            self.reap();
            if self.running.is_none() {
                return;
            }
            if stop.load(Ordering::Relaxed) || grace.is_some_and(|g| began.elapsed() >= g) {
                return self.abandon();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Leaves the lifts unfinished (an interrupted search does not wait for them).
    pub fn abandon(self) {
        let ranks = self
            .running
            .iter()
            .map(|(rank, _)| *rank)
            .chain(self.next.iter().map(|j| j.scheme.rank()));
        for rank in ranks {
            tracing::warn!("the lift of the record of rank {rank} was not finished; run `flipgraph lift` on its file");
        }
    }
}

/// Lifts a record and writes the lift, proved valid over Z first like every other scheme.
fn lift_to_file<F: FactorBits>(job: Job<F>) -> Result<Option<PathBuf>> {
    let Ok(z) = lift(&job.scheme, DEFAULT_TRIES, DEFAULT_BITS) else {
        return Ok(None);
    };
    verify_z(&z).map_err(|d| anyhow::anyhow!("the lift of rank {} is not valid over Z: {d}", z.rank()))?;
    let text = formats::write(&z, job.format, Ring::Z)?;
    replace_own_file(&job.path, text.as_bytes()).with_context(|| format!("cannot write {}", job.path.display()))?;
    Ok(Some(job.path))
}

/// Says what the lift of the record of `rank` gave.
fn report(rank: usize, handle: JoinHandle<Result<Option<PathBuf>>>) {
    match handle.join() {
        Ok(Ok(Some(path))) => tracing::warn!("the record of rank {rank} lifts to Z: {} (verified)", path.display()),
        Ok(Ok(None)) => {
            tracing::warn!("the record of rank {rank} has no lift to Z that the lifter finds (it holds over F2)")
        }
        Ok(Err(e)) => tracing::error!("lifting the record of rank {rank}: {e:#}"),
        Err(_) => tracing::error!("lifting the record of rank {rank} failed unexpectedly"),
    }
}
