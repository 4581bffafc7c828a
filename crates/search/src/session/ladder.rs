//! Ladders: a search from the naive scheme of a shape climbs to it from smaller shapes. The
//! smallest rung is searched from its naive scheme; each rung's best scheme, extended by the
//! terms of one new slice (core's `algebra::extend`), starts the search of the next, and the
//! last extension starts the search of the shape asked for.
//!
//! Why: a search from the naive scheme gathers its walkers in traps that a smaller shape's best
//! scheme, grown, lies outside of. 4x5x5 from naive never went below 74 in 6 runs of 9-10
//! minutes (76-77 in 5; H100s and an H200); climbing, on one H100, it reached its best known 73
//! within 105 s in 13 runs of 15 (6.3 to 57 s), 4x4x4 reached 47 in a median of 1.8 s against
//! 5.1-5.5 s from naive (10 runs each), and 5x5x5 reached 96, 96 and 98 within 49 s where from
//! naive it reached 98 only after 78-98 s and no lower within 140-240 s (3 seeds). 3x4x5
//! reached 47 in 4 runs of 5 and stalled at 48 in one (BENCHMARKS.md, Time to the best known
//! rank; docs/BENCHMARKS-ARCHIVE.md, "Ladders" and "Engines kept open between rungs").
//! Which rung scheme is grown matters: one 3x4x4 rank 38 grown led the CPU to 47 within a
//! second in every run, another to 50 at best; so a rung gathers several
//! schemes of its target ([`GROWN_SCHEMES`]) and grows each in every orientation. Arai, Ichikawa
//! and Hukushima's adaptive flip graph and Wood's searches of larger formats grow schemes alike.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::algebra::{self, Dim};
use flipgraph_core::formats::Format;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::scheme::IntScheme;
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape};
use serde_json::json;

use super::recipe::{Ladder, Recipe};
use crate::driver::progress::Progress;
use crate::driver::{default_target, Driver, SearchConfig, Start, Summary};
use crate::engine::StartKind;
use crate::islands::Island;
use crate::output::{Checkpoint, Output, CHECKPOINT};

/// Shapes of at most this many naive terms are searched from the naive scheme: a ladder's foot
/// (such as 3x4x4, 48 terms, which reaches its best known 38 in about half a second on an H100).
pub const FOOT: usize = 48;

/// The default (`--ladder auto`) climbs to shapes of at most this many naive terms (5x5x5; it
/// was measured on 4x4x4, 3x4x5, 4x4x5, 4x5x5 and 5x5x5, not on other shapes of 101-125 terms);
/// larger shapes start from the naive scheme unless asked.
pub const AUTO_UP_TO: usize = 125;

/// A rung stops once it has gone this long without a better scheme (or as long as it took to
/// its last one, if longer): its best schemes by then start the next rung. (On an H100, 4x4x5
/// climbed from 4x4x4 reached its best known 60 after 7.7, 43 and 50 s in 3 runs of 5, and a
/// stall limit of 10 s cut one such rung at 62, from which 4x5x5 reached 74, not 73. On 4
/// H100s as islands, 4x5x5 to 73 with a stall of 15 s: a median of 8.4 s against 10.6 s, but 2
/// of 9 runs stayed at 74 for 100 s, against none of 9.) `--rung-stall` sets another.
pub const RUNG_STALL: Duration = Duration::from_secs(60);

/// The terms a new slice of dimension `grow` adds to `shape`: one for each entry of the
/// other two dimensions.
fn added_terms(shape: Shape, grow: Dim) -> usize {
    let [n, m, p] = shape.dims();
    match grow {
        Dim::N => m * p,
        Dim::M => n * p,
        Dim::P => n * m,
    }
}

/// The rung below `shape`: of the shapes one smaller in a dimension (each at least 2), the one
/// whose best known rank plus the terms of the new slice is least, so that the climb starts
/// lowest (ties: `m`, then `n`, then `p` shrinks; the shapes tied are alike up to symmetry,
/// and [`grown`] grows every orientation anyway). None at the foot ([`FOOT`]).
pub fn rung_below(shape: Shape) -> Option<Shape> {
    rung_above_foot(shape, FOOT)
}

/// [`rung_below`] for a ladder whose foot is shapes of at most `foot` naive terms.
pub fn rung_above_foot(shape: Shape, foot: usize) -> Option<Shape> {
    let [n, m, p] = shape.dims();
    if n * m * p <= foot {
        return None;
    }
    let mut best: Option<(usize, Shape)> = None;
    for grow in [Dim::M, Dim::N, Dim::P] {
        let mut dims = [n, m, p];
        let d = &mut dims[grow as usize];
        if *d <= 2 {
            continue;
        }
        *d -= 1;
        let Ok(smaller) = Shape::new(dims[0], dims[1], dims[2]) else {
            continue;
        };
        let Some(known) = best_known_rank(smaller) else {
            continue;
        };
        let start = known + added_terms(smaller, grow);
        if best.is_none_or(|(least, _)| start < least) {
            best = Some((start, smaller));
        }
    }
    best.map(|(_, rung)| rung)
}

/// The rungs below `shape`, the foot first; empty for a shape at the foot.
pub fn rungs(shape: Shape) -> Vec<Shape> {
    rungs_to_foot(shape, FOOT)
}

/// [`rungs`] down to a foot of shapes of at most `foot` naive terms.
pub fn rungs_to_foot(shape: Shape, foot: usize) -> Vec<Shape> {
    let below = |s: Shape| rung_above_foot(s, foot);
    let mut rungs: Vec<Shape> = std::iter::successors(below(shape), |&r| below(r)).collect();
    rungs.reverse();
    rungs
}

impl Ladder {
    /// Whether a search of `shape` from its naive scheme climbs; `on_gpu` says whether it walks
    /// on a GPU (asked only where that decides: it may open the driver).
    pub fn climbs(self, shape: Shape, on_gpu: impl FnOnce() -> bool) -> bool {
        self.climbs_to_foot(shape, FOOT, on_gpu)
    }

    /// [`Ladder::climbs`] for a ladder whose foot is shapes of at most `foot` naive terms.
    pub fn climbs_to_foot(self, shape: Shape, foot: usize, on_gpu: impl FnOnce() -> bool) -> bool {
        let [n, m, p] = shape.dims();
        // The rungs walk 64-bit factors.
        if !shape.fits::<u64>() {
            return false;
        }
        match self {
            Ladder::Off => false,
            Ladder::On => rung_above_foot(shape, foot).is_some(),
            Ladder::Auto => n * m * p <= AUTO_UP_TO && rung_above_foot(shape, foot).is_some() && on_gpu(),
        }
    }
}

/// Schemes of its target a rung gathers (waiting at most as long again as it took to reach it)
/// and grows into the next shape, each in up to six orientations. (H100: 3x4x5 to 47 in 4 runs
/// of 5 with 8, in 3 of 5 with the first scheme alone; 4x4x4 to 47 a median of 2.65 s against
/// 2.05 s; 4x5x5 reached 73 in the two runs of 3 that had stalled at 74 without.)
pub const GROWN_SCHEMES: usize = 8;

/// Every way `scheme` grows by one slice into `target`: each of its six orientations (the
/// cyclic symmetry, with and without the transposition) whose shape grows into `target` in some
/// dimension, grown so, verified. Which orientation descends best differs from scheme to scheme
/// (4x4x4 from one 3x4x4 rank 38 on the CPU: 47 in 3.5 s in one of six, 50-51 in 8 s in the
/// others), so the search above takes them all and its pool follows the lineage that descends.
pub fn grown(scheme: &Scheme, target: Shape) -> Result<Vec<Verified>> {
    grown_int(&IntScheme::from_f2(scheme), target)?
        .into_iter()
        .map(|g| Verified::new(g.mod2()?).context("an extended scheme failed verification"))
        .collect()
}

/// [`grown`] for a scheme with integer coefficients (a ternary rung's): the grown schemes keep
/// its coefficients, since a new slice adds terms of coefficient 1 only.
pub fn grown_int(scheme: &IntScheme, target: Shape) -> Result<Vec<IntScheme>> {
    let turned = algebra::transpose_scheme(scheme);
    let mut orientations = Vec::new();
    for first in [scheme.clone(), turned] {
        let once = algebra::rotate(&first);
        let twice = algebra::rotate(&once);
        orientations.extend([first, once, twice]);
    }
    let mut out = Vec::new();
    for o in &orientations {
        for dim in [Dim::M, Dim::N, Dim::P] {
            let mut dims = o.shape.dims();
            dims[dim as usize] += 1;
            if target.dims() == dims {
                out.push(algebra::extend(o, dim).context("cannot extend the scheme")?);
            }
        }
    }
    Ok(out)
}

/// How the rungs of a ladder are searched.
pub struct Climb<'a> {
    /// The search's recipe: each rung's engine is its engine from the rung's start
    /// ([`Recipe::spec_from`]; an extended start walks as a given scheme does).
    pub recipe: &'a Recipe,
    /// The seed of every rung's walkers.
    pub seed: u64,
    /// When the whole search must end: each rung takes at most half the time left.
    pub deadline: Option<Instant>,
    /// Where each rung writes its results and checkpoints (`DIR/SHAPE`); none: nowhere.
    pub out: Option<&'a Path>,
    /// The formats of the rungs' result files.
    pub formats: Vec<Format>,
    /// No status line or log of the rungs' progress (the rungs' own; `rung` events are the
    /// caller's to print).
    pub quiet: bool,
    /// When the process started: events' times count from it.
    pub process_start: Instant,
}

/// What a climb did: the starts it grew for the search (none when it was cut short), and the
/// work of its rungs.
pub struct Climbed {
    /// The last rung's best schemes grown into the shape; None when the climb was cut short.
    pub starts: Option<Vec<Scheme>>,
    /// Steps and vertices of every rung.
    pub counters: Counters,
}

impl Climb<'_> {
    /// Climbs the rungs below `shape`, calling `on_rung` with each rung's `rung` event as it
    /// ends, and returns the starts of its search: the last rung's best schemes
    /// ([`GROWN_SCHEMES`] of them at most), grown into `shape` ([`grown`]). No starts when `stop`
    /// is set or the time is up before the last rung ends: the search then has no time to walk,
    /// and its resume climbs again (the rungs' results stay in their folders).
    ///
    /// As an `island` of a job, every rung is a job of islands: the job's islands climb
    /// together, each rung ending for all of them at once, sharing their best schemes on the way.
    pub fn to(
        &self,
        shape: Shape,
        stop: &AtomicBool,
        mut island: Option<&mut Island>,
        mut on_rung: impl FnMut(&serde_json::Value),
    ) -> Result<Climbed> {
        let rungs = rungs(shape);
        let foot = rungs
            .first()
            .context("a shape at the foot of the ladder has no rungs")?;
        let mut starts = vec![Scheme::naive(*foot)];
        let mut start = StartKind::Naive;
        let mut counters = Counters::default();
        for (i, &rung) in rungs.iter().enumerate() {
            if self.cut_short(stop, island.as_deref_mut())? {
                return Ok(Climbed { starts: None, counters });
            }
            let above = rungs.get(i + 1).copied().unwrap_or(shape);
            let (summary, event) = self.search_rung(rung, (starts, start), stop, island.as_deref_mut())?;
            counters += summary.counters;
            on_rung(&event);
            starts = Vec::new();
            for best in summary.bests.iter().take(GROWN_SCHEMES) {
                starts.extend(grown(best, above)?.into_iter().map(Verified::into_scheme));
            }
            start = StartKind::Given;
        }
        let starts = (!self.cut_short(stop, island)?).then_some(starts);
        Ok(Climbed { starts, counters })
    }

    /// Whether the climb must end now: a stop, or no time left (on any island of the job).
    fn cut_short(&self, stop: &AtomicBool, island: Option<&mut Island>) -> Result<bool> {
        let own = stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d);
        Island::any(island, own)
    }

    /// Searches one rung from `starts` to its best known rank, a stall, half the time left or
    /// a stop; returns its summary (the schemes of the best rank it reached among them) and
    /// its `rung` event.
    fn search_rung(
        &self,
        shape: Shape,
        (starts, start): (Vec<Scheme>, StartKind),
        stop: &AtomicBool,
        island: Option<&mut Island>,
    ) -> Result<(Summary, serde_json::Value)> {
        let from = starts.iter().map(Scheme::rank).max().unwrap_or(0);
        // A rung searched before (a climb killed and resumed): its pool joins the starts, so the
        // rung goes on from its best and its checkpoint never goes back.
        let earlier = self
            .out
            .map(|dir| earlier_pool(&dir.join(shape.to_string()), shape))
            .unwrap_or_default();
        let resumed_at = earlier.iter().map(Scheme::rank).min();
        let mut starts = starts;
        starts.extend(earlier);
        let spec = self.recipe.spec_from(from, start);
        let mut engine = spec.open(shape)?;
        let time_limit = self.deadline.map(|d| d.saturating_duration_since(Instant::now()) / 2);
        let best_known = best_known_rank(shape);
        let config = SearchConfig {
            time_limit,
            stall_limit: Some(self.recipe.schedule.rung_stall.unwrap_or(RUNG_STALL)),
            gather: GROWN_SCHEMES,
            // A rung that goes below its shape's best known rank announces the record.
            best_known,
            sparsity: spec.sparsity,
            partners: spec.gpu_partners,
            ..SearchConfig::on_engine(
                shape,
                default_target(shape, best_known, from),
                self.seed,
                &spec,
                engine.as_ref(),
            )
        };
        let output = match self.out {
            // Taken over (as a resume would) by the next search into the same --out.
            Some(dir) => Some(Output::open(&dir.join(shape.to_string()), self.formats.clone(), true)?),
            None => None,
        };
        let began = Instant::now();
        // Progress on the status line or the log; with --json, only each rung's end (below).
        let progress = Progress::new(false, self.quiet);
        let start = Start {
            pool: starts,
            ..Start::from_scheme(Scheme::naive(shape))
        };
        let mut driver = Driver::new(engine.as_mut(), config, start, output, progress, self.process_start)?;
        if let Some(island) = island {
            driver = driver.island(island);
        }
        let summary = driver.run(stop)?;
        let rank = summary.best.rank();
        let secs = began.elapsed().as_secs_f64();
        tracing::info!("ladder: {shape} from rank {from} to {rank} in {secs:.2}s");
        let event = json!({
            "event": "rung", "shape": shape.to_string(), "from": from, "rank": rank,
            "seconds": secs, "vertices": summary.counters.vertices, "steps": summary.counters.steps,
            "records": summary.records, "resumed_at": resumed_at,
            "t": self.process_start.elapsed().as_secs_f64(),
        });
        Ok((summary, event))
    }
}

/// The pool of the rung of `shape` searched before in `dir`, if its checkpoint is there and
/// sound (a damaged one is left to the rung's search, which writes a new one, and said).
fn earlier_pool(dir: &Path, shape: Shape) -> Vec<Scheme> {
    if !dir.join(CHECKPOINT).exists() {
        return Vec::new();
    }
    match Checkpoint::read(dir).and_then(|cp| Ok((cp.shape()?, cp.schemes()?))) {
        Ok((found, pool)) if found == shape => pool,
        Ok((found, _)) => {
            tracing::warn!(
                "{}: a checkpoint of {found}, not of the rung {shape}; not resumed",
                dir.display()
            );
            Vec::new()
        }
        Err(e) => {
            tracing::warn!("the rung {shape} starts afresh: {e:#}");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgraph_core::verify::verify;

    fn shape(s: &str) -> Shape {
        s.parse().unwrap()
    }

    #[test]
    fn the_rungs_start_lowest() {
        // 4x5x5: 4x4x5 (60) and 20 terms, against 3x5x5 (58) and 25.
        assert_eq!(rung_below(shape("4x5x5")), Some(shape("4x4x5")));
        // 4x4x5: 4x4x4's 47 and 16 terms, against 3x4x5's or 4x3x5's 47 and 20.
        assert_eq!(rung_below(shape("4x4x5")), Some(shape("4x4x4")));
        assert_eq!(rung_below(shape("4x4x4")), Some(shape("4x3x4")));
        assert_eq!(rung_below(shape("4x3x4")), None, "48 terms: the foot");
        assert_eq!(rungs(shape("4x5x5")), [shape("4x3x4"), shape("4x4x4"), shape("4x4x5")]);
        assert!(rungs(shape("3x3x3")).is_empty());
    }

    #[test]
    fn a_lower_foot_adds_the_rungs_below_the_default_foot() {
        // The ZT ladder's foot, 36 naive terms: 4x3x4 climbs from 3x3x4 (29 and 12 terms).
        assert_eq!(rungs_to_foot(shape("4x4x4"), 36), [shape("3x3x4"), shape("4x3x4")]);
        assert_eq!(rungs_to_foot(shape("3x4x4"), 36), [shape("3x3x4")]);
        assert!(rungs_to_foot(shape("3x3x4"), 36).is_empty());
        assert!(Ladder::On.climbs_to_foot(shape("3x4x4"), 36, || true));
        assert!(!Ladder::On.climbs(shape("3x4x4"), || true), "the default foot");
    }

    #[test]
    fn no_rung_has_a_dimension_below_two() {
        for s in ["2x8x8", "2x2x8", "8x8x8", "3x8x8"] {
            for rung in rungs(shape(s)) {
                assert!(rung.dims().iter().all(|&d| d >= 2), "{s}: {rung:?}");
            }
        }
    }

    #[test]
    fn the_default_climbs_only_where_ladders_were_measured() {
        assert!(Ladder::Auto.climbs(shape("4x4x4"), || true));
        assert!(Ladder::Auto.climbs(shape("4x5x5"), || true));
        assert!(!Ladder::Auto.climbs(shape("4x4x4"), || false), "not on the CPU");
        assert!(!Ladder::Auto.climbs(shape("3x4x4"), || true), "the foot");
        assert!(Ladder::Auto.climbs(shape("5x5x5"), || true));
        assert!(!Ladder::Auto.climbs(shape("5x5x6"), || true));
        assert!(Ladder::On.climbs(shape("5x5x6"), || false));
        assert!(!Ladder::On.climbs(shape("3x4x4"), || true));
        assert!(!Ladder::Off.climbs(shape("4x4x4"), || true));
        assert!(!Ladder::Auto.climbs(shape("7x7x7"), || panic!("the GPU is not asked about 7x7x7")));
    }

    #[test]
    fn every_orientation_that_grows_into_the_target_is_grown_and_valid() {
        let laderman = flipgraph_core::formats::read_path(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/3x3x3-r23-laderman.m"
        )))
        .unwrap()
        .f2::<u64>()
        .unwrap();
        let target = shape("3x4x3");
        let all = grown(&laderman, target).unwrap();
        // Six orientations of a 3x3x3 scheme, each grown in m.
        assert_eq!(all.len(), 6);
        for g in &all {
            assert_eq!((g.shape(), g.rank()), (target, 23 + 9));
            assert!(verify(g).is_ok());
        }
        let distinct: std::collections::HashSet<_> = all.iter().map(|g| g.sorted_terms()).collect();
        assert!(distinct.len() > 1, "the orientations grow into different schemes");
        assert!(
            grown(&laderman, shape("4x4x3")).unwrap().is_empty(),
            "not one slice away"
        );
    }
}
