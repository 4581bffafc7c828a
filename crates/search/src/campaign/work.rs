//! A lane's work: it takes turns from the campaign's queue until none is left, the stop, or
//! the end of the campaign's whole time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use flipgraph_core::Shape;

use super::lanes::Lane;
use super::schedule::{Schedule, Turn};
use super::turn::{run_turn, Assignment};
use super::{Campaign, Reporter, Standing};
use crate::schemes::Bests;

/// Where a lane takes its turns and reports their ends: the campaign's [`Schedule`], or in a
/// job of several processes, the schedule of the process that holds it.
pub trait Queue {
    /// The next turn; None once none is left or `halt` says to stop.
    fn take(&self, halt: &dyn Fn() -> bool) -> Option<Turn>;
    /// `turn` has ended with its format at `now`.
    fn finish(&self, turn: Turn, now: Standing);
}

impl Queue for Schedule<Standing> {
    fn take(&self, halt: &dyn Fn() -> bool) -> Option<Turn> {
        Schedule::take(self, halt)
    }

    fn finish(&self, turn: Turn, now: Standing) {
        Schedule::finish(self, turn, |earlier| now.after(earlier));
    }
}

/// A format's turn takes at least this long of what the campaign's whole time leaves, or is
/// not begun.
pub(super) const SHORTEST_TURN: Duration = Duration::from_secs(1);

/// What every lane shares: the campaign, its queue of turns, its stop and its reporter.
pub struct Work<'a, Q: ?Sized> {
    campaign: &'a Campaign,
    sizes: &'a [Shape],
    queue: &'a Q,
    stop: &'a AtomicBool,
    process_start: Instant,
    reporter: &'a dyn Reporter,
    /// The end of the campaign's whole time.
    until: Option<Instant>,
    side_by_side: bool,
    /// In a job of several processes, this process's index.
    process: Option<usize>,
    /// The best of each format under the campaign's `from`.
    public: Option<&'a Bests>,
}

impl<Q: ?Sized> Clone for Work<'_, Q> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Q: ?Sized> Copy for Work<'_, Q> {}

impl<'a, Q: Queue + ?Sized> Work<'a, Q> {
    /// The work of the formats `sizes` of `campaign` from `queue`, alone: the campaign's whole
    /// time counts from now; `stop` (Ctrl-C) begins no more turns and ends the searches under
    /// way; `reporter` says how each search ended.
    pub fn new(
        campaign: &'a Campaign,
        sizes: &'a [Shape],
        queue: &'a Q,
        (stop, process_start): (&'a AtomicBool, Instant),
        reporter: &'a dyn Reporter,
    ) -> Self {
        Work {
            campaign,
            sizes,
            queue,
            stop,
            process_start,
            reporter,
            until: campaign.total.map(|total| Instant::now() + total),
            side_by_side: false,
            process: None,
            public: None,
        }
    }

    /// The same work with formats side by side (progress in log lines, each line naming its
    /// format), here as `process` of a job of several processes if given.
    pub fn side_by_side(self, process: Option<usize>) -> Self {
        Work {
            side_by_side: true,
            process,
            ..self
        }
    }

    /// The same work with new formats started from `public`, the best of each format under the
    /// campaign's `from` ([`Campaign::public_bests`]).
    pub fn from_public(self, public: Option<&'a Bests>) -> Self {
        Work { public, ..self }
    }

    /// The time left of the campaign's whole time (None: no limit).
    fn left(&self) -> Option<Duration> {
        self.until.map(|until| until.saturating_duration_since(Instant::now()))
    }

    /// Whether no turn begins any more: the stop, or the end of the campaign's whole time.
    pub fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.left().is_some_and(|left| left < SHORTEST_TURN)
    }

    /// Takes turns on `lane` until none is left, the stop, or the end of the campaign's whole
    /// time. A format that fails (a damaged or locked folder, another shape's checkpoint) is
    /// reported, and the campaign goes on.
    pub fn run(self, lane: Lane) {
        let recipe = lane.recipe(&self.campaign.recipe);
        while let Some(turn) = self.queue.take(&|| self.halted()) {
            let shape = self.sizes[turn.format];
            let _format = self.side_by_side.then(|| {
                match self.process {
                    Some(process) => tracing::info_span!("", process, format = %shape),
                    None => tracing::info_span!("", format = %shape),
                }
                .entered()
            });
            // The turn's time, or what the whole time leaves if less.
            let time = [self.campaign.time, self.left()].into_iter().flatten().min();
            let passes = self.campaign.passes;
            let assignment = Assignment {
                recipe: &recipe,
                time,
                pass: (passes > 1).then_some((turn.pass, passes)),
                side_by_side: self.side_by_side,
                public: self.public,
            };
            let clock = (self.stop, self.process_start);
            let now = run_turn(self.campaign, &assignment, shape, clock, self.reporter).unwrap_or_else(|e| {
                let why = self.reporter.failure(&e.into());
                tracing::error!("{shape}: {why}");
                Standing::failed(shape, self.campaign.ring(), why)
            });
            self.queue.finish(turn, now);
        }
    }
}
