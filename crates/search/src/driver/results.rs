//! What the driver keeps of a search: every new best scheme written at once (or rescued), the
//! event log, the checkpoints, the records below the best known rank and their lifts, and an
//! embedder's hook.

use std::path::PathBuf;

use anyhow::Result;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;

use super::OnImprovement;
use crate::output::Lifts;
use crate::output::{self, Checkpoint, Output};

pub(super) struct Results<'a, F: FactorBits> {
    /// None for a search that writes nothing (an embedder's).
    output: Option<Output>,
    /// The pool's best rank at the last checkpoint written.
    pub checkpointed_best: usize,
    /// Ranks reached below the best known rank.
    pub records: Vec<usize>,
    pub lifts: Lifts<F>,
    /// Told of every new best scheme (an embedder's hook).
    pub on_improvement: Option<OnImprovement<'a, F>>,
    /// Told of every other scheme of the best rank the pool takes (an embedder's hook).
    pub on_pooled_best: Option<OnImprovement<'a, F>>,
    /// New best schemes the output folder could not take (each rescued elsewhere).
    pub unwritten: usize,
}

impl<'a, F: FactorBits> Results<'a, F> {
    pub fn new(output: Option<Output>) -> Self {
        Results {
            output,
            checkpointed_best: usize::MAX,
            records: Vec::new(),
            lifts: Lifts::default(),
            on_improvement: None,
            on_pooled_best: None,
            unwritten: 0,
        }
    }

    /// Tells the hook of a new best scheme and writes it; the files written (none where a full
    /// disk or a folder gone read-only refused it: then it is rescued elsewhere, never lost).
    pub fn keep(&mut self, scheme: &Verified<F>) -> Vec<PathBuf> {
        if let Some(f) = &mut self.on_improvement {
            f(scheme);
        }
        match self.output.as_ref().map(|out| out.write_scheme(scheme)) {
            Some(Ok(paths)) => paths,
            Some(Err(e)) => {
                let rescued = output::rescue(scheme);
                self.unwritten += 1;
                tracing::error!(
                    "cannot write the verified scheme of rank {} ({e:#}); {rescued}",
                    scheme.rank()
                );
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Tells the hook of another scheme of the best rank, taken into the pool.
    pub fn pooled_best(&mut self, scheme: &Verified<F>) {
        if let Some(f) = &mut self.on_pooled_best {
            f(scheme);
        }
    }

    /// A record: remembered, and lifted to the integers in the background where it is written.
    pub fn record(&mut self, scheme: &Verified<F>) {
        self.records.push(scheme.rank());
        if let Some(out) = &self.output {
            let (path, format) = out.lift_path(scheme);
            self.lifts.start(scheme, path, format);
        }
    }

    /// Appends to events.jsonl; a failure is a warning (the result files are what matters).
    pub fn event(&mut self, event: &serde_json::Value) {
        if let Some(out) = &mut self.output {
            if let Err(e) = out.event(event) {
                tracing::warn!("{e:#}");
            }
        }
    }

    /// Writes the checkpoint `checkpoint` builds (not built where nothing is written).
    pub fn checkpoint(&self, checkpoint: impl FnOnce() -> Checkpoint) -> Result<()> {
        match &self.output {
            Some(out) => out.checkpoint(&checkpoint()),
            None => Ok(()),
        }
    }

    /// Retires the folders of islands beyond `islands` ([`Output::retire_islands`]).
    pub fn retire_islands(&self, islands: usize) {
        if let Some(out) = &self.output {
            out.retire_islands(islands);
        }
    }
}
