//! The ternary search's CPU walk: core's [`TernaryWalker`]s (or, keeping the cyclic rotation,
//! [`TernaryC3Walker`]s), a few to a thread, each round of [`ROUND_STEPS`] steps offering
//! their bests to the shared pool.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use flipgraph_core::rng::WyRand;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::walk::{Counters, TernaryC3Walker, TernaryWalker, WalkConfig};

use super::{Plan, Shared};
use crate::driver::Stop;
use crate::engine::PLUS_SLACK;

/// Walkers a thread runs in turn.
const WALKERS_PER_THREAD: usize = 4;
/// How long a thread whose walkers all reached the target waits before it looks again.
const GATHER_WAIT: Duration = Duration::from_millis(20);
/// Steps a walker takes between its looks at the pool (about 30 ms on one core).
pub(super) const ROUND_STEPS: u64 = 100_000;

/// A walk of either kind: plain, or of C3-invariant schemes.
enum Walk {
    Plain(TernaryWalker),
    C3(TernaryC3Walker),
}

/// Runs `$body` on the walk, whichever its kind.
macro_rules! on_walk {
    ($self:expr, $w:ident => $body:expr) => {
        match $self {
            Walk::Plain($w) => $body,
            Walk::C3($w) => $body,
        }
    };
}

impl Walk {
    fn walk(&mut self, steps: u64, target: usize) -> u64 {
        on_walk!(self, w => w.walk(steps, target))
    }

    fn rank(&self) -> usize {
        on_walk!(self, w => w.rank())
    }

    fn best_rank(&self) -> usize {
        on_walk!(self, w => w.best_rank())
    }

    fn best(&self) -> TernaryScheme {
        on_walk!(self, w => w.best())
    }

    fn counters(&self) -> Counters {
        on_walk!(self, w => w.counters())
    }

    fn plateau_limit(&self) -> u64 {
        on_walk!(self, w => w.plateau_limit())
    }
}

/// One walker of a thread: the walk, and its best rank and steps when it last improved.
struct Walker {
    walk: Walk,
    best: usize,
    steps_at_best: u64,
    counted: Counters,
    /// The pool's improvements this walker has seen.
    seen: u64,
}

impl Plan {
    /// The walk on the CPU's threads until the target, the time, the stall limit or `stop`;
    /// returns why it ended (the first thread's reason).
    pub(super) fn walk_cpu(&self, shared: &Mutex<Shared>, stop: &AtomicBool, begun: Instant) -> Option<Stop> {
        std::thread::scope(|s| {
            let walks: Vec<_> = (0..self.threads)
                .map(|thread| s.spawn(move || self.walk(thread, shared, stop, begun)))
                .collect();
            walks
                .into_iter()
                .map(|w| w.join().expect("a ternary walk thread panicked"))
                .min_by_key(|s| *s as u8)
        })
    }

    /// Thread `thread`'s walk until the target, the time, the stall limit or `stop`; returns why
    /// it ended.
    fn walk(&self, thread: usize, shared: &Mutex<Shared>, stop: &AtomicBool, begun: Instant) -> Stop {
        let mut rng = WyRand::new(WyRand::nth(self.seed, thread as u64 + 1));
        let mut walkers: Vec<Walker> = (0..WALKERS_PER_THREAD)
            .map(|_| self.load(&shared.lock().expect("pool").pool, &mut rng))
            .collect();
        loop {
            if let Some(why) = self.ended(shared, stop, begun) {
                return why;
            }
            for w in &mut walkers {
                w.walk.walk(self.round_steps.unwrap_or(ROUND_STEPS), self.target);
            }
            let mut s = shared.lock().expect("a walk thread panicked holding the pool");
            for w in &mut walkers {
                let now = w.walk.counters();
                let mut done = now;
                done.subtract(w.counted);
                s.counters += done;
                w.counted = now;
                if w.walk.best_rank() < w.best {
                    w.best = w.walk.best_rank();
                    w.steps_at_best = w.walk.counters().steps;
                }
                if s.wants(w.best) {
                    self.offer(&mut s, w.walk.best(), begun);
                }
                // Behind a new best, a walker follows it by chance (--follow; none by default);
                // one without progress for its patience restarts from the pool.
                let follows =
                    w.seen < s.improvements && w.best > s.best.rank() && rng.below(100) < self.follow as usize;
                if follows || now.steps - w.steps_at_best > self.patience {
                    *w = self.load(&s.pool, &mut rng);
                }
                w.seen = s.improvements;
            }
            // Walkers at the target take no steps: a thread whose walkers all wait there (a rung
            // gathering schemes of its target) waits rather than spins on the pool.
            if walkers.iter().all(|w| w.walk.rank() <= self.target) {
                drop(s);
                std::thread::sleep(GATHER_WAIT);
                continue;
            }
            let mut ranks: Vec<usize> = walkers.iter().map(|w| w.walk.rank()).collect();
            let mut plateaus: Vec<u64> = walkers.iter().map(|w| w.walk.plateau_limit()).collect();
            s.show(self, begun, &mut ranks, &mut plateaus);
        }
    }

    /// A walker on a random scheme of `pool`, with plus moves up to the plan's cap or
    /// [`PLUS_SLACK`] above it.
    fn load(&self, pool: &[TernaryScheme], rng: &mut WyRand) -> Walker {
        let start = &pool[rng.below(pool.len())];
        let config = WalkConfig {
            max_rank: self.plus_cap.unwrap_or(start.rank() + PLUS_SLACK),
            ..self.config
        };
        let walk = match self.c3 {
            // The starts were checked invariant, and the walks keep it.
            true => Walk::C3(TernaryC3Walker::new(start, config, rng.bits()).expect("an invariant scheme in the pool")),
            false => Walk::Plain(TernaryWalker::new(start, config, rng.bits())),
        };
        Walker {
            best: walk.best_rank(),
            walk,
            steps_at_best: 0,
            counted: Counters::default(),
            seen: 0,
        }
    }
}
