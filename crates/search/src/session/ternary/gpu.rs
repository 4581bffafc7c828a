//! The ternary search's GPU walk: one GPU's warps walk ZT (the kernel `walk_zt`, through
//! [`TernaryGpu`]) in rounds by time; after each round the host offers each walker's new best
//! to the shared pool, and restarts from the pool the walkers that made no progress for their
//! patience (or, by chance, follow a new best: `--follow`).

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result};
use flipgraph_core::device::Partners;
use flipgraph_core::plateau::Style;
use flipgraph_core::rng::WyRand;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::walk::WalkConfig;

use super::{Plan, Shared};
use crate::driver::Stop;
use crate::engine::gpu::{GpuOptions, Hints, TernaryGpu};
use crate::engine::{Group, PlusCap, PLUS_SLACK};

/// What the host keeps of a GPU walker: its best rank since its load, its steps since it
/// improved (the round's mean), and the pool's improvements it has seen.
struct Walker {
    best: usize,
    since_best: u64,
    seen: u64,
}

impl Plan {
    /// The walk on GPU `device` until the target, the time, the stall limit or `stop`; returns
    /// why it ended.
    pub(super) fn walk_gpu(
        &self,
        device: usize,
        shared: &Mutex<Shared>,
        stop: &AtomicBool,
        begun: Instant,
    ) -> Result<Stop> {
        let options = GpuOptions {
            walkers: self.walkers,
            config: WalkConfig {
                max_rank: usize::MAX,
                ..self.config
            },
            device,
            log_entries: 0,
            match_rounds: self.gpu_tuning.match_rounds,
            flips: self.gpu_tuning.flips,
            // Rounds of --round-steps where given, else by time.
            round_us: match self.round_steps {
                Some(_) => 0,
                None => self.gpu_tuning.round_ms.saturating_mul(1000),
            },
            hints: Hints::Off,
            partners: Partners::Sample,
            symmetry: Group::Trivial,
            plus: PlusCap {
                slack: PLUS_SLACK,
                from: None,
            },
            start_rank: Some(self.start_rank),
        };
        let mut engine = TernaryGpu::open(self.shape, options).context("the GPU walk over ZT")?;
        tracing::info!("{}", engine.describe());
        let mut rng = WyRand::new(WyRand::nth(self.seed, 0));
        let mut walkers = Vec::with_capacity(engine.walkers());
        {
            let s = shared.lock().expect("pool");
            for w in 0..engine.walkers() {
                walkers.push(load(&mut engine, w, &s.pool, &mut rng)?);
            }
        }
        // A round's steps: --round-steps where given, else as many as its time allows.
        let steps = self.round_steps.map_or(u32::MAX as u64, |s| s.min(u32::MAX as u64));
        loop {
            if let Some(why) = self.ended(shared, stop, begun) {
                return Ok(why);
            }
            let round = engine.run_round(steps, self.target)?;
            let mean_steps = round.counters.steps / walkers.len().max(1) as u64;
            let mut s = shared.lock().expect("pool");
            s.counters += round.counters;
            for (w, (walker, status)) in walkers.iter_mut().zip(&round.walkers).enumerate() {
                walker.since_best += mean_steps;
                if status.best_rank < walker.best {
                    walker.best = status.best_rank;
                    walker.since_best = 0;
                    if s.wants(walker.best) {
                        let best = engine.best(w)?;
                        self.offer(&mut s, best, begun);
                    }
                }
                let follows = walker.seen < s.improvements
                    && walker.best > s.best.rank()
                    && rng.below(100) < self.follow as usize;
                if follows || walker.since_best > self.patience {
                    *walker = load(&mut engine, w, &s.pool, &mut rng)?;
                }
                walker.seen = s.improvements;
            }
            let mut ranks: Vec<usize> = round.walkers.iter().map(|w| w.rank).collect();
            let mut plateaus: Vec<u64> = round.walkers.iter().map(|w| w.plateau).collect();
            s.show(self, begun, &mut ranks, &mut plateaus);
        }
    }
}

/// Loads GPU walker `w` with a random scheme of `pool`.
fn load(engine: &mut TernaryGpu, w: usize, pool: &[TernaryScheme], rng: &mut WyRand) -> Result<Walker> {
    let start = &pool[rng.below(pool.len())];
    engine.load(w, start, rng.bits(), Style::Escape)?;
    Ok(Walker {
        best: start.rank(),
        since_best: 0,
        seen: 0,
    })
}
