//! A search over ZT by lifting (`--lift`): the walk is F2's (every engine, group, preset and
//! ladder), into the folder's `f2/`, and each new best scheme it finds is lifted to Z (Hensel
//! lifting, [`flipgraph_core::lift`]). A lift with coefficients in {-1,0,1} joins the ternary
//! search as a walker's best would (verified over Z, written, with its event). Symmetric walks'
//! schemes lift readily, as Moosbauer and Poole's c3 and c6 ones did; a plain walk's rarely.
//! Where the F2 walk ends without the lift the search wants (at its target, or stalled), another
//! walks with the next seed, into `f2-2/`, `f2-3/`, ...

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use flipgraph_core::lift::{lift_signs, DEFAULT_TRIES};
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::WideScheme;
use serde_json::json;

use super::{Plan, Shared};
use crate::driver::Stop;
use crate::session::recipe::Ring;
use crate::session::Search;

/// How often the search looks at its lifts and whether it ends.
const POLL: Duration = Duration::from_millis(20);

/// What a lift of one F2 scheme gave.
struct Lifted {
    /// The F2 scheme's rank.
    rank: usize,
    /// The ternary scheme, or why there is none.
    scheme: Result<TernaryScheme, String>,
}

impl Search {
    /// Walks `plan` by lifting: F2 walks one after another (each with the next seed), their new
    /// best schemes lifted as they come, until the plan ends; returns why it ended.
    pub(super) fn walk_lifted(
        &self,
        plan: &Plan,
        shared: &Mutex<Shared>,
        stop: &AtomicBool,
        (begun, process_start): (Instant, Instant),
    ) -> Result<Stop> {
        let root = shared.lock().expect("no walk yet").output.dir().to_path_buf();
        let tally = Arc::new(Tally::default());
        let mut walk = 0u64;
        loop {
            walk += 1;
            if let Some(why) = plan.ended(shared, stop, begun) {
                return Ok(why);
            }
            let dir = match walk {
                1 => root.join("f2"),
                k => root.join(format!("f2-{k}")),
            };
            let (sender, received) = mpsc::channel();
            // The walk owns its sender: the lifter ends once the walk has.
            let f2 = self.f2_walk(plan, walk - 1, dir.clone(), sender, begun);
            tracing::info!(
                "{} over ZT by lifting: F2 walk {walk} (seed {}) into {}; each new best lifted to Z",
                plan.shape,
                f2.recipe.seed(),
                dir.display()
            );
            tally
                .best
                .store(shared.lock().expect("no walk yet").best.rank(), Ordering::Relaxed);
            let lifter = spawn_lifter(received, tally.clone());
            let halt = AtomicBool::new(false);
            let ended = std::thread::scope(|scope| {
                let halt = &halt;
                let f2_walk = scope.spawn(move || f2.run(halt, process_start, None));
                plan.take_lifts(&lifter, (shared, &tally), (stop, halt), begun, || f2_walk.is_finished());
                f2_walk.join()
            });
            let ended = match ended {
                Ok(ended) => ended.with_context(|| format!("the F2 walk into {}", dir.display()))?,
                Err(_) => anyhow::bail!("the F2 walk into {} failed unexpectedly", dir.display()),
            };
            let mut s = shared.lock().expect("no walk thread panicked holding the pool");
            s.counters += ended.counters;
            tracing::info!(
                "F2 walk {walk} ended at rank {} ({}); the best over ZT so far: {} ({} of {} F2 schemes tried lifted so far)",
                ended.best_rank,
                ended.stop.name(),
                s.best.rank(),
                tally.lifted.load(Ordering::Relaxed),
                tally.tried.load(Ordering::Relaxed)
            );
        }
    }

    /// The F2 search of walk `index` (from 0) of a lifted search: this one's recipe over F2
    /// (its own presets where the recipe leaves them open), its seed moved on by `index`, toward
    /// the plan's target within what is left of its time (from `begun`), into `dir`, its new
    /// bests sent to `sender`. Its progress comes in log lines, and none with --json (whose
    /// lines are the ternary search's).
    fn f2_walk(&self, plan: &Plan, index: u64, dir: PathBuf, sender: Sender<WideScheme>, begun: Instant) -> Search {
        let mut recipe = self.recipe.clone();
        recipe.walk.ring = Ring::F2;
        recipe.walk.lift = false;
        recipe.walk.seed = Some(plan.seed.wrapping_add(index));
        Search {
            recipe,
            shape: Some(plan.shape),
            from: Vec::new(),
            resume: None,
            target: Some(plan.target),
            best_known: None,
            time: plan.time.map(|t| t.saturating_sub(begun.elapsed())),
            stall: self.stall,
            out: Some(dir),
            formats: self.formats.clone(),
            checkpoint_every: self.checkpoint_every,
            json: false,
            quiet: self.quiet || self.json,
            in_lines: true,
            best_schemes: Some(sender),
        }
    }
}

/// The most schemes the lifter tries at once: the lowest ranks waiting, the newest of each
/// first (a GPU's pool takes hundreds of a rank a second).
const LIFTS_AT_ONCE: usize = 64;

/// The lifter's tallies, shared with the search.
#[derive(Default)]
struct Tally {
    /// The ternary search's best rank: only lower ones are worth a lift.
    best: AtomicUsize,
    tried: AtomicU64,
    lifted: AtomicU64,
}

/// Lifts the F2 schemes `received` as they come, on a thread of its own (a large scheme's lift
/// takes a while): of those waiting below the ternary search's best, the lowest ranks first,
/// until one lifts. It sends each lift, and the first failure at each new lowest rank (to be
/// said); it ends when the F2 walk has and its last scheme is lifted.
fn spawn_lifter(received: Receiver<WideScheme>, tally: Arc<Tally>) -> (Receiver<Lifted>, JoinHandle<()>) {
    let (sender, lifts) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let mut lowest_tried = usize::MAX;
        while let Ok(first) = received.recv() {
            let mut waiting: Vec<WideScheme> = std::iter::once(first).chain(received.try_iter()).collect();
            let bar = tally.best.load(Ordering::Relaxed);
            waiting.retain(|s| s.rank() < bar);
            // Newest first within a rank (the sort is stable).
            waiting.reverse();
            waiting.sort_by_key(WideScheme::rank);
            waiting.truncate(LIFTS_AT_ONCE);
            for f2 in &waiting {
                let lifted = Lifted {
                    rank: f2.rank(),
                    scheme: lift_to_zt(f2),
                };
                tally.tried.fetch_add(1, Ordering::Relaxed);
                let done = lifted.scheme.is_ok();
                let said = done || lifted.rank < lowest_tried;
                lowest_tried = lowest_tried.min(lifted.rank);
                if said && sender.send(lifted).is_err() {
                    return;
                }
                if done {
                    tally.lifted.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
        }
    });
    (lifts, handle)
}

/// The lift of `f2` to Z with coefficients in {-1,0,1} (signs on its support: the general
/// lift takes up to a minute and seldom gives coefficients that small), or why there is none.
fn lift_to_zt(f2: &WideScheme) -> Result<TernaryScheme, String> {
    let z = lift_signs(f2, DEFAULT_TRIES).map_err(|e| e.to_string())?;
    TernaryScheme::from_int(&z).map_err(|e| format!("its lift is not ternary ({e})"))
}

impl Plan {
    /// Takes the lifts of an F2 walk from `lifter` into `shared`'s pool until the walk has
    /// ended (`walked`) and its lifts are taken, or the plan ends (a `stop`, its time, its
    /// target): then it sets `halt`, which ends the F2 walk, and leaves a lift under way.
    fn take_lifts(
        &self,
        (lifts, lifter): &(Receiver<Lifted>, JoinHandle<()>),
        (shared, tally): (&Mutex<Shared>, &Tally),
        (stop, halt): (&AtomicBool, &AtomicBool),
        begun: Instant,
        walked: impl Fn() -> bool,
    ) {
        loop {
            // Seen before the lifts are taken: a lifter that finished has sent its last.
            let all_in = walked() && lifter.is_finished();
            for lifted in lifts.try_iter() {
                self.take_lift(lifted, (shared, tally), begun);
            }
            if self.ended(shared, stop, begun).is_some() {
                halt.store(true, Ordering::Relaxed);
                if walked() {
                    return;
                }
            } else if all_in {
                return;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Offers a lift to the pool (where it is ternary), and logs what it gave; `tally` learns
    /// the best rank.
    fn take_lift(&self, lifted: Lifted, (shared, tally): (&Mutex<Shared>, &Tally), begun: Instant) {
        let mut s = shared.lock().expect("no walk thread panicked holding the pool");
        let event = match lifted.scheme {
            Ok(scheme) => {
                tracing::debug!(
                    "rank {} over F2 lifts to Z with coefficients in {{-1,0,1}}",
                    lifted.rank
                );
                self.offer(&mut s, scheme, begun);
                tally.best.store(s.best.rank(), Ordering::Relaxed);
                json!({"event": "lift", "ring": "zt", "rank": lifted.rank, "lifted": true})
            }
            Err(why) => {
                tracing::info!(
                    "rank {} over F2: no ternary lift ({why}); the F2 walk goes on",
                    lifted.rank
                );
                json!({"event": "lift", "ring": "zt", "rank": lifted.rank, "lifted": false, "why": why})
            }
        };
        if let Err(e) = s.output.event(&event).context("event log") {
            tracing::error!("{e:#}");
        }
    }
}
