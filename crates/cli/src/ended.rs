//! The report of how a search ended: a line on standard error, records loudly, and with
//! `--json` an `end` event.

use crate::driver::progress::si;
use crate::driver::Stop;
use crate::session::ended::Ended;
use std::time::Duration;

/// Says how the search `ended` ended: a line on standard error, records loudly, and with
/// `json` an `end` event on standard output. False, said as an error, where its folder could not
/// take everything (schemes rescued elsewhere, or the final checkpoint): a script must see it.
/// A `quiet` search says only records, warnings and errors.
pub fn report(ended: &Ended, json: bool, quiet: bool) -> bool {
    let Ended {
        shape,
        best_known,
        out_dir,
        best_rank,
        counters,
        walk_time,
        elapsed,
        stop,
        rejected,
        records,
        climb,
        unwritten,
        best: _,
        best_file: _,
    } = ended;
    let secs = walk_time.as_secs_f64().max(1e-9);
    let why = match *stop {
        Stop::Target => "target reached",
        Stop::TimeLimit => "time limit",
        Stop::Stalled => "stalled (--stall)",
        Stop::Interrupted if unwritten.final_checkpoint => "interrupted",
        Stop::Interrupted => "interrupted; checkpoint written",
    };
    let climbed = climb
        .as_ref()
        .map(|c| format!(" after a climb of {:.1}s", c.time.as_secs_f64()))
        .unwrap_or_default();
    // A resumed search's status line counts its earlier runs too.
    let this_run = *walk_time + climb.as_ref().map_or(Duration::ZERO, |c| c.time);
    let in_all = match elapsed.saturating_sub(this_run) > Duration::from_millis(500) {
        true => format!(" ({:.1}s in all, earlier runs included)", elapsed.as_secs_f64()),
        false => String::new(),
    };
    if !quiet {
        eprintln!(
            "{why}: best rank {} ({}), {} vertices/s, {} steps/s over {:.1}s{climbed}{in_all}; results in {}",
            best_rank,
            shape,
            si(counters.vertices as f64 / secs),
            si(counters.steps as f64 / secs),
            secs,
            out_dir.display()
        );
    }
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
        crate::driver::progress::json_line(&serde_json::json!({
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
            "unwritten": {
                "schemes": unwritten.schemes,
                "final_checkpoint": unwritten.final_checkpoint,
            },
        }));
    }
    if unwritten.schemes > 0 {
        let what = match unwritten.schemes {
            1 => "a verified scheme".to_owned(),
            n => format!("{n} verified schemes"),
        };
        eprintln!(
            "error: {what} could not be written into {} (saved elsewhere, as said above)",
            out_dir.display()
        );
    }
    if unwritten.final_checkpoint {
        eprintln!("error: the final checkpoint could not be written; a resume starts from the last good one");
    }
    unwritten.none()
}
