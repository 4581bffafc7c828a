//! A scheme below the best known rank: announced where it cannot be missed, and lifted to the
//! integers (in the background) so that the record holds over Z as well when it can.

use std::path::PathBuf;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::lift::{lift, DEFAULT_BITS, DEFAULT_TRIES};
use flipgraph_core::verify::{verify_z, Verified};

use crate::atomic_file::replace_own_file;

/// The lifts under way, one per record scheme.
#[derive(Default)]
pub struct Lifts {
    running: Vec<(usize, JoinHandle<Result<Option<PathBuf>>>)>,
}

impl Lifts {
    /// Starts lifting `scheme` to Z; the lift (verified over Z) goes to `path` when one exists.
    pub fn start(&mut self, scheme: &Verified, path: PathBuf, format: Format) {
        let rank = scheme.rank();
        let scheme = scheme.clone();
        let handle = std::thread::spawn(move || {
            let Ok(z) = lift(&scheme, DEFAULT_TRIES, DEFAULT_BITS) else {
                return Ok(None);
            };
            // The lift is written only once it is proved valid over Z, like every other scheme.
            verify_z(&z).map_err(|d| anyhow::anyhow!("the lift of rank {} is not valid over Z: {d}", z.rank()))?;
            let text = formats::write(&z, format, Ring::Z)?;
            replace_own_file(&path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
            Ok(Some(path))
        });
        self.running.push((rank, handle));
    }

    /// Waits for the lifts and says what each gave.
    pub fn finish(self) {
        if !self.running.is_empty() {
            tracing::info!("waiting for the lift of the record schemes to Z ...");
        }
        for (rank, handle) in self.running {
            match handle.join() {
                Ok(Ok(Some(path))) => {
                    tracing::warn!("the record of rank {rank} lifts to Z: {} (verified)", path.display())
                }
                Ok(Ok(None)) => tracing::warn!(
                    "the record of rank {rank} has no lift to Z that the lifter finds (it holds over F2)"
                ),
                Ok(Err(e)) => tracing::error!("lifting the record of rank {rank}: {e:#}"),
                Err(_) => tracing::error!("lifting the record of rank {rank} failed unexpectedly"),
            }
        }
    }

    /// Leaves the lifts unfinished (an interrupted search does not wait for them).
    pub fn abandon(self) {
        for (rank, _) in &self.running {
            tracing::warn!("the lift of the record of rank {rank} was not finished; run `flipgraph lift` on its file");
        }
    }
}
