//! The ladder over ZT: a ternary search from the naive scheme climbs to its shape from smaller
//! shapes, as the F2 search does ([`crate::session::ladder`]: rungs chosen alike, down to a lower
//! foot, [`ZT_FOOT`]; each searched to its best known ZT rank or a short stall,
//! [`ZT_RUNG_STALL`]; its best schemes grown by the terms of one new slice in every orientation
//! into the next).
//!
//! Why: the ternary walk's slow part is the descent from the naive scheme (one H200 took 4x4x4
//! from 64 to 53 in 15-25 s, 2026-11-28), where 3x4x4's best known 38, grown, starts 4x4x4 at
//! 54. On one H200 (2026-11-29), climbing, 3x4x5 reached 48 (twice), 4x4x5 62 and 64, 4x5x5 78
//! and 79 within 40-45 s, where from naive they reached 49-51, 68 and 88-90 in 30 s; 4x4x4 54
//! in a median of 9.5 s against 16-19 s. Not 4x4x4's last steps: 49 in none of 6 runs of 40 s
//! climbing, in 1 of 3 from naive (BENCHMARKS.md, "The ladder over ZT").
//!
//! Each rung writes its results into `OUT/ladder/SHAPE/` (with its own event log), and the
//! search's log takes a `rung` event as each ends. A rung searched before (a search stopped in
//! its climb and resumed: its folder holds only its naive start, so it climbs again) goes on
//! from the schemes its folder holds.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::formats::Ring as FileRing;
use flipgraph_core::known::best_known_zt_rank;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::walk::Counters;
use flipgraph_core::Shape;
use serde_json::json;

use super::{Plan, Shared};
use crate::driver::default_target;
use crate::driver::progress::{json_line, Progress};
use crate::output::Output;
use crate::session::ended::ClimbReport;
use crate::session::ladder::{grown_int, rungs_to_foot, GROWN_SCHEMES};
use crate::session::recipe::Ladder;
use crate::session::starts::read_ternary_starts;
use crate::session::{Search, SearchError};

/// Shapes of at most this many naive terms are a ZT ladder's foot (3x3x4; over F2 48, 3x4x4):
/// the ternary walk descends slowly from a naive scheme, 3x4x4's too, where 3x3x4's 29, grown,
/// starts it at 41. On one H200 (2026-11-29) 3x4x4 from naive reached 39 at 13.8-16.2 s and not
/// its best known 38 in 20 s (seeds 1-3); climbing from 3x3x4, 38 at 9.5 and 10.7 s (seeds 1-2).
const ZT_FOOT: usize = 36;

/// A ZT rung ends after this long without a better scheme (or as long as it took to its last
/// one, if longer; `--rung-stall` sets another). The ternary walk descends slowly and steadily,
/// so with the F2 ladder's 60 s each rung took half the time left (4x4x4 -> 54 in a median of
/// 16.0 s on one H200, the 4x3x4 rung its 15 s of 30 in every run), where with 3 s it took 9.5 s
/// (BENCHMARKS.md, "The ladder over ZT").
const ZT_RUNG_STALL: Duration = Duration::from_secs(3);

/// What a rung gave: its schemes of the best rank it reached, its `rung` event and its work.
struct Rung {
    bests: Vec<TernaryScheme>,
    event: serde_json::Value,
    counters: Counters,
}

impl Search {
    /// Whether a ZT search of `shape`, whose starts' lowest rank is `lowest`, climbs: a new
    /// search from the naive scheme, or a resume of one stopped in its climb (its folder holds
    /// only the naive start), where the ladder says so (`--ladder auto`: on a GPU, `on_gpu`). A
    /// ladder asked for (`--ladder on`) beside `--from` files is refused, as over F2; where it is
    /// moot (a resume that climbed already) it is said.
    pub(super) fn climbs_over_zt(&self, shape: Shape, lowest: usize, on_gpu: bool) -> Result<bool> {
        let ladder = self.recipe.schedule.ladder.unwrap_or_default();
        if !self.from.is_empty() && ladder == Ladder::On {
            return Err(SearchError::LadderOnGivenStart.into());
        }
        // The rungs are not square: a c3 walk starts at its shape.
        let naive = self.from.is_empty() && lowest == shape.naive_rank() && !self.c3_over_zt();
        let climbs = naive && ladder.climbs_to_foot(shape, ZT_FOOT, || on_gpu);
        if ladder == Ladder::On && !climbs {
            tracing::info!("a ladder asked for: this search does not climb (a resumed search climbed already, or the shape is at the foot)");
        }
        if self.recipe.schedule.rung_stall.is_some() && !climbs {
            tracing::info!("--rung-stall is moot: this search climbs no ladder");
        }
        Ok(climbs)
    }

    /// Climbs the rungs below `plan`'s shape within its time (from `begun`; events' times count
    /// from `process_start`), each rung's event into `output`'s log. Returns the last rung's best
    /// schemes grown into the shape (None when a stop or the time cut the climb short) and what
    /// the climb took.
    pub(super) fn climb_over_zt(
        &self,
        plan: &Plan,
        output: &mut Output,
        stop: &AtomicBool,
        (begun, process_start): (Instant, Instant),
    ) -> Result<(Option<Vec<TernaryScheme>>, ClimbReport)> {
        let deadline = plan.time.map(|t| begun + t);
        let cut_short = || stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
        let rungs = rungs_to_foot(plan.shape, ZT_FOOT);
        let foot = *rungs
            .first()
            .context("a shape at the foot of the ladder has no rungs")?;
        let mut starts = vec![TernaryScheme::naive(foot).map_err(|e| anyhow::anyhow!("{e}"))?];
        let mut counters = Counters::default();
        let ladder_dir = output.dir().join("ladder");
        for (i, &rung) in rungs.iter().enumerate() {
            if cut_short() {
                return Ok((None, report(begun, counters, true)));
            }
            let above = rungs.get(i + 1).copied().unwrap_or(plan.shape);
            let Rung {
                bests,
                mut event,
                counters: work,
            } = self.search_zt_rung(plan, rung, starts, &ladder_dir.join(rung.to_string()), stop, deadline)?;
            counters += work;
            event["t"] = process_start.elapsed().as_secs_f64().into();
            if self.json {
                json_line(&event);
            }
            output.event(&event)?;
            starts = Vec::new();
            for best in bests.iter().take(GROWN_SCHEMES) {
                for g in grown_int(&best.to_int(), above)? {
                    let g = TernaryScheme::from_int(&g).map_err(|e| anyhow::anyhow!("a grown rung scheme: {e}"))?;
                    g.verify()
                        .map_err(|d| anyhow::anyhow!("a grown rung scheme failed verification over Z: {d}"))?;
                    starts.push(g);
                }
            }
        }
        let cut = cut_short();
        Ok(((!cut).then_some(starts), report(begun, counters, cut)))
    }

    /// Searches `rung` from `starts` (and the schemes its folder `dir` holds from before) to
    /// its best known ZT rank, gathering up to [`GROWN_SCHEMES`] schemes of it, or to a stall,
    /// half the time left or a stop.
    fn search_zt_rung(
        &self,
        above: &Plan,
        rung: Shape,
        mut starts: Vec<TernaryScheme>,
        dir: &Path,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<Rung> {
        let from = starts.iter().map(TernaryScheme::rank).min().expect("a start");
        let earlier = earlier_bests(dir);
        let fresh = earlier.is_empty();
        let resumed_at = earlier.iter().map(TernaryScheme::rank).min();
        starts.extend(earlier);
        let lowest = starts.iter().map(TernaryScheme::rank).min().expect("a start");
        let mut pool: Vec<TernaryScheme> = Vec::new();
        for s in starts.into_iter().filter(|s| s.rank() == lowest) {
            if !pool.contains(&s) {
                pool.push(s);
            }
        }
        let best_known = best_known_zt_rank(rung);
        let plan = Plan {
            shape: rung,
            // Aimed from the new starts, as over F2: a rung that reached its best known rank
            // before is not aimed below it.
            target: default_target(rung, best_known, from),
            best_known,
            time: deadline.map(|d| d.saturating_duration_since(Instant::now()) / 2),
            stall: Some(self.recipe.schedule.rung_stall.unwrap_or(ZT_RUNG_STALL)),
            gather: GROWN_SCHEMES,
            start_rank: lowest,
            ..above.clone()
        };
        // Taken over as a resume would: the rung's folder holds its results from before. A new
        // rung's folder holds its start from the first, as a search's does.
        let output = Output::open(dir, self.formats.clone(), true)?;
        if fresh {
            output
                .write_int(&pool[0].to_int(), FileRing::Z)
                .context("writing a rung's start into its folder")?;
        }
        let progress = Progress::new(false, self.quiet || self.json);
        let shared = Mutex::new(Shared::new(pool, output, None, progress));
        let began = Instant::now();
        self.walk_ternary(&plan, &shared, stop, began)?;
        let s = shared.into_inner().expect("no walk thread panicked holding the pool");
        s.progress.finish();
        let rank = s.best.rank();
        let secs = began.elapsed().as_secs_f64();
        tracing::info!("ladder over ZT: {rung} from rank {from} to {rank} in {secs:.2}s");
        let event = json!({
            "event": "rung", "ring": "zt", "shape": rung.to_string(), "from": from, "rank": rank,
            "seconds": secs, "vertices": s.counters.vertices, "steps": s.counters.steps,
            "records": s.records, "resumed_at": resumed_at,
        });
        Ok(Rung {
            bests: s.pool,
            event,
            counters: s.counters,
        })
    }
}

/// The climb's report: its time since `begun` and its rungs' work.
fn report(begun: Instant, counters: Counters, cut_short: bool) -> ClimbReport {
    ClimbReport {
        time: begun.elapsed(),
        counters,
        cut_short,
    }
}

/// The schemes a rung's folder holds from an earlier climb, valid over Z (none where it holds
/// none; one it cannot read is said and left out).
fn earlier_bests(dir: &Path) -> Vec<TernaryScheme> {
    if !dir.is_dir() {
        return Vec::new();
    }
    match read_ternary_starts(&[dir.to_path_buf()]) {
        Ok(found) => found.into_iter().map(|(_, s)| s).collect(),
        Err(e) => {
            tracing::debug!("the rung in {} starts afresh: {e:#}", dir.display());
            Vec::new()
        }
    }
}
