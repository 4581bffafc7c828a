//! How a search ended, and the report of it: a line on standard error, records loudly, and
//! with `--json` an `end` event.

use std::path::PathBuf;
use std::time::Duration;

use flipgraph_core::term::FactorBits;
use flipgraph_core::walk::Counters;
use flipgraph_core::Shape;

use crate::search::progress::si;
use crate::search::{Stop, Summary};

/// A search that ended, with what its report needs (its schemes are in its folder).
pub struct Ended {
    pub shape: Shape,
    pub best_known: Option<usize>,
    pub out_dir: PathBuf,
    pub best_rank: usize,
    /// The work of this process, done in `walk_time`.
    pub counters: Counters,
    pub walk_time: Duration,
    pub stop: Stop,
    /// Improvements the engine reported that failed verification.
    pub rejected: u64,
    /// The ranks reached below the best known rank, best last.
    pub records: Vec<usize>,
    /// The ladder it climbed first, if any.
    pub climb: Option<ClimbReport>,
}

/// What a search's climb took: its time and the work of its rungs (the `end` event's `climb`;
/// the search's own figures leave them out).
pub struct ClimbReport {
    /// From the climb's start to its last rung's end.
    pub time: Duration,
    /// The steps and vertices of its rungs (none when a rung failed).
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
        Ended {
            shape,
            best_known,
            out_dir,
            best_rank: summary.best.rank(),
            counters: summary.counters,
            walk_time: summary.walk_time,
            stop: summary.stop,
            rejected: summary.rejected,
            records: summary.records,
            climb,
        }
    }

    /// Says how the search ended: a line on standard error, records loudly, and with `json`
    /// an `end` event on standard output.
    pub fn report(&self, json: bool) {
        let Ended {
            shape,
            best_known,
            out_dir,
            best_rank,
            counters,
            walk_time,
            stop,
            rejected,
            records,
            climb,
        } = self;
        let secs = walk_time.as_secs_f64().max(1e-9);
        let why = match *stop {
            Stop::Target => "target reached",
            Stop::TimeLimit => "time limit",
            Stop::Stalled => "stalled (--stall)",
            Stop::Interrupted => "interrupted; checkpoint written",
        };
        let climbed = climb
            .as_ref()
            .map(|c| format!(" after a climb of {:.1}s", c.time.as_secs_f64()))
            .unwrap_or_default();
        eprintln!(
            "{why}: best rank {} ({}), {} vertices/s, {} steps/s over {:.1}s{climbed}; results in {}",
            best_rank,
            shape,
            si(counters.vertices as f64 / secs),
            si(counters.steps as f64 / secs),
            secs,
            out_dir.display()
        );
        if let (Some(&best), Some(known)) = (records.last(), best_known) {
            tracing::warn!(
                "*** NEW RECORD: {shape} rank {best} below the best known rank {known}; results in {} ***",
                out_dir.display()
            );
        }
        if *rejected > 0 {
            tracing::warn!(
                "{} schemes from the engine failed verification and were discarded",
                rejected
            );
        }
        if json {
            let climb = climb.as_ref().map(|c| {
                serde_json::json!({
                    "seconds": c.time.as_secs_f64(),
                    "vertices": c.counters.vertices,
                    "steps": c.counters.steps,
                    "cut_short": c.cut_short,
                })
            });
            println!(
                "{}",
                serde_json::json!({
                    "event": "end",
                    "climb": climb,
                    "stop": stop.name(),
                    "shape": shape.to_string(),
                    "best_rank": best_rank,
                    "best_known": best_known,
                    "records": records,
                    "seconds": secs,
                    "vertices": counters.vertices,
                    "steps": counters.steps,
                    "vertices_per_s": counters.vertices as f64 / secs,
                    "out": out_dir.display().to_string(),
                })
            );
        }
    }
}
