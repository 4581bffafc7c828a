//! How a search ended, and the report of it: a line on standard error, records loudly, and
//! with `--json` an `end` event.

use std::path::PathBuf;
use std::time::Duration;

use flipgraph_core::walk::Counters;
use flipgraph_core::Shape;

use crate::search::progress::si;
use crate::search::{Stop, Summary};

/// A search that ended, with what its report needs.
pub struct Ended {
    pub shape: Shape,
    pub best_known: Option<usize>,
    pub out_dir: PathBuf,
    pub summary: Summary,
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
    /// Says how the search ended: a line on standard error, records loudly, and with `json`
    /// an `end` event on standard output.
    pub fn report(&self, json: bool) {
        let Ended {
            shape,
            best_known,
            out_dir,
            summary,
            climb,
        } = self;
        let secs = summary.walk_time.as_secs_f64().max(1e-9);
        let why = match summary.stop {
            Stop::Target => "target reached",
            Stop::TimeLimit => "time limit",
            Stop::Interrupted => "interrupted; checkpoint written",
        };
        let climbed = climb
            .as_ref()
            .map(|c| format!(" after a climb of {:.1}s", c.time.as_secs_f64()))
            .unwrap_or_default();
        eprintln!(
            "{why}: best rank {} ({}), {} vertices/s, {} steps/s over {:.1}s{climbed}; results in {}",
            summary.best.rank(),
            shape,
            si(summary.counters.vertices as f64 / secs),
            si(summary.counters.steps as f64 / secs),
            secs,
            out_dir.display()
        );
        if let (Some(&best), Some(known)) = (summary.records.last(), best_known) {
            tracing::warn!(
                "*** NEW RECORD: {shape} rank {best} below the best known rank {known}; results in {} ***",
                out_dir.display()
            );
        }
        if summary.rejected > 0 {
            tracing::warn!(
                "{} schemes from the engine failed verification and were discarded",
                summary.rejected
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
                    "stop": summary.stop.name(),
                    "shape": shape.to_string(),
                    "best_rank": summary.best.rank(),
                    "best_known": best_known,
                    "records": summary.records,
                    "seconds": secs,
                    "vertices": summary.counters.vertices,
                    "steps": summary.counters.steps,
                    "vertices_per_s": summary.counters.vertices as f64 / secs,
                    "out": out_dir.display().to_string(),
                })
            );
        }
    }
}
