//! How a search ended: what its report needs (its schemes are in its folder).

use std::path::PathBuf;
use std::time::Duration;

use flipgraph_core::term::FactorBits;
use flipgraph_core::walk::Counters;
use flipgraph_core::{IntScheme, Shape};

use crate::driver::{Stop, Summary, Unwritten};

/// A search that ended, with what its report needs (its schemes are in its folder).
#[derive(Debug)]
pub struct Ended {
    /// The shape searched.
    pub shape: Shape,
    /// The rank a record must beat.
    pub best_known: Option<usize>,
    /// Its folder.
    pub out_dir: PathBuf,
    /// The best rank it reached.
    pub best_rank: usize,
    /// The best scheme it reached (verified, as every result): over F2, or over Z for a search
    /// over ZT.
    pub best: IntScheme,
    /// The file its folder holds that scheme in, where it was written there (a scheme of the
    /// start's rank, or one the folder could not take, was not).
    pub best_file: Option<PathBuf>,
    /// The work of this process, done in `walk_time`.
    pub counters: Counters,
    /// The time it walked.
    pub walk_time: Duration,
    /// The search's time at its end, earlier runs included (as its status line counts).
    pub elapsed: Duration,
    /// Why it ended.
    pub stop: Stop,
    /// Improvements the engine reported that failed verification.
    pub rejected: u64,
    /// The ranks reached below the best known rank, best last.
    pub records: Vec<usize>,
    /// The ladder it climbed first, if any.
    pub climb: Option<ClimbReport>,
    /// What its folder could not take.
    pub unwritten: Unwritten,
}

/// What a search's climb took: its time and the work of its rungs (the `end` event's `climb`;
/// the search's own figures leave them out).
#[derive(Debug)]
pub struct ClimbReport {
    /// From the climb's start to its last rung's end.
    pub time: Duration,
    /// The steps and vertices of its rungs (none when a rung failed): in a job of islands,
    /// every island's (the islands climb together).
    pub counters: Counters,
    /// Whether Ctrl-C or the time cut it short.
    pub cut_short: bool,
}

impl Ended {
    /// The end of the search of `shape` into `out_dir` that `summary` sums up.
    pub fn new<F: FactorBits>(
        shape: Shape,
        best_known: Option<usize>,
        out_dir: PathBuf,
        summary: Summary<F>,
        climb: Option<ClimbReport>,
    ) -> Ended {
        let best_rank = summary.best.rank();
        Ended {
            best_file: result_file(&out_dir, shape, best_rank),
            best: IntScheme::from_f2(&summary.best),
            shape,
            best_known,
            out_dir,
            best_rank,
            counters: summary.counters,
            walk_time: summary.walk_time,
            elapsed: summary.elapsed,
            stop: summary.stop,
            rejected: summary.rejected,
            records: summary.records,
            climb,
            unwritten: summary.unwritten,
        }
    }
}

/// A result file of `shape` at `rank` in `dir` (`SHAPE-rRANK.EXT`, any of the formats written).
fn result_file(dir: &std::path::Path, shape: Shape, rank: usize) -> Option<PathBuf> {
    let stem = format!("{shape}-r{rank}.");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&stem))
        })
        .collect();
    files.sort();
    files.into_iter().next()
}
