//! The driver's population: the pool of the best schemes, the start schemes, and each walker's
//! walk (where it began, how long it has gone without improving), which decide where a walker
//! restarts and with which style.

use anyhow::{Context, Result};
use flipgraph_core::plateau::Style;
use flipgraph_core::rng::WyRand;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::Scheme;
use serde_json::json;

use super::pool::Pool;
use super::styles::Styles;
use super::{Restarts, SearchConfig};
use crate::engine::WalkerStatus;

/// One restart in this many walks from the start scheme again rather than from the pool.
const FRESH_RESTARTS: usize = 8;

/// Per-walker bookkeeping of the driver.
#[derive(Clone, Copy)]
struct WalkerState {
    best_rank: usize,
    idle_steps: u64,
    /// The pool's best rank when the walker was loaded: a better one found since makes it
    /// restart from there (the best scheme is copied into many walkers), and only ranks below
    /// it count for its style's returns ([`WalkerState::gain`]).
    pool_best: usize,
    /// Where the walker's present walk began, for the record of who found what.
    origin: Origin,
    /// Whether a better scheme of the pool makes it restart at once (else it walks its own
    /// lineage on until its patience ends): drawn at each load, from the search's `follow`.
    follows: bool,
}

impl WalkerState {
    /// The ranks gained this round, for its style's returns, by a walker whose best since its
    /// load is now `best`: only those below both its best before the round and the pool's best
    /// at its load. Why not all below its load: under pool restarts one in eight walks from the
    /// start scheme, and its walk down to ranks the pool already held credited its style with
    /// ranks found long before (on 4x5x5 from naive the share went to 69-87% holding, though
    /// every improvement at 80 and below came from an escaping walk; docs/BENCHMARKS-ARCHIVE.md,
    /// "4x5x5 from naive: a trap at 77"). With
    /// independent restarts a walk earns only by a new best of the whole search.
    fn gain(&self, best: usize) -> usize {
        self.best_rank.min(self.pool_best).saturating_sub(best)
    }
}

/// Where a walk began: the rank of the scheme it was loaded with, whether that was the start
/// scheme or one of the pool, its style, and the steps (of an average walker) it has walked
/// since. Improvements carry it in events.jsonl, so that a search shows which restarts pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Origin {
    walker: usize,
    rank: usize,
    from_start: bool,
    style: Style,
    steps: u64,
}

impl Origin {
    pub(super) fn json(&self) -> serde_json::Value {
        json!({
            "walker": self.walker,
            "loaded_rank": self.rank,
            "loaded_from": if self.from_start { "start" } else { "pool" },
            "style": self.style.name(),
            "steps_since_load": self.steps,
        })
    }
}

/// A walker's next walk: the scheme to load, the seed of its random stream and its style.
pub(super) struct Load<'p, F: FactorBits> {
    pub scheme: &'p Verified<F>,
    pub seed: u64,
    pub style: Style,
}

/// The pool, the start schemes and the walkers' walks.
pub(super) struct Population<F: FactorBits> {
    pub pool: Pool<F>,
    /// The start schemes of the highest rank: a fraction of restarts walk from one of them
    /// again, which brings new schemes into the pool when its lowest ranks hold only dead ends.
    fresh: Vec<Verified<F>>,
    walkers: Vec<WalkerState>,
    /// Each style's recent returns, which choose the style of each walk.
    pub styles: Styles,
    rng: WyRand,
    restarts: Restarts,
    follow: u32,
}

/// The seed of the driver's own random stream (restart choices), island 0's or a lone search's.
fn stream_seed(seed: u64, island: u64) -> u64 {
    seed ^ 0x5eed_f11b ^ island.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl<F: FactorBits> Population<F> {
    /// The pool of `starts` (verified here; at least one), for `walkers` walkers; `choose_styles`
    /// where walkers may hold their plateaus (an adaptive plateau).
    pub fn new(config: &SearchConfig, starts: Vec<Scheme<F>>, walkers: usize, choose_styles: bool) -> Result<Self> {
        let mut pool = Pool::new(config.pool_per_rank, config.pool_ranks);
        let starts = starts
            .into_iter()
            .map(|s| Verified::new(s).context("a start scheme is not valid"))
            .collect::<Result<Vec<_>>>()?;
        // At least one start scheme: the pool is never empty from here on.
        let highest = starts
            .iter()
            .map(|s| s.rank())
            .max()
            .ok_or_else(|| anyhow::anyhow!("no start scheme"))?;
        let fresh = starts.iter().filter(|s| s.rank() == highest).cloned().collect();
        // Highest rank first: the pool takes no rank above its best once it holds one, so a
        // checkpoint's pool (written best first) would shrink to its best rank on a resume.
        let mut starts = starts;
        starts.sort_by_key(|s| std::cmp::Reverse(s.rank()));
        for s in starts {
            pool.insert(s);
        }
        let walkers = (0..walkers)
            .map(|walker| WalkerState {
                best_rank: usize::MAX,
                idle_steps: 0,
                pool_best: usize::MAX,
                origin: Origin {
                    walker,
                    rank: usize::MAX,
                    from_start: true,
                    style: Style::of_walker(walker),
                    steps: 0,
                },
                follows: true,
            })
            .collect();
        Ok(Population {
            pool,
            fresh,
            walkers,
            styles: Styles::new(choose_styles),
            rng: WyRand::new(stream_seed(config.seed, 0)),
            restarts: config.restarts,
            follow: config.follow,
        })
    }

    /// Draws from island `index`'s own random stream (island 0's is a lone search's).
    pub fn for_island(&mut self, seed: u64, index: usize) {
        self.rng = WyRand::new(stream_seed(seed, index as u64));
    }

    pub fn walkers(&self) -> usize {
        self.walkers.len()
    }

    /// Where walker `w`'s present walk began.
    pub fn origin(&self, w: usize) -> Origin {
        self.walkers[w].origin
    }

    /// Walker `w`'s next walk, from a random scheme of the pool: of the best rank mostly, of the
    /// next ranks sometimes, which keeps the walkers from piling onto one dead end; one in
    /// [`FRESH_RESTARTS`] (every one, under independent restarts) from a start scheme.
    pub fn restart(&mut self, w: usize) -> Load<'_, F> {
        let seed = self.rng.bits();
        let independent = self.restarts == Restarts::Independent;
        let from_start = independent || self.rng.below(FRESH_RESTARTS) == 0;
        let scheme = match from_start {
            // One draw only where there is a choice: a search from one scheme walks as before.
            true => match self.fresh.len() {
                1 => &self.fresh[0],
                n => &self.fresh[self.rng.below(n)],
            },
            false => self.pool.pick(&mut self.rng),
        };
        let pool_best = self.pool.best_rank().expect("non-empty pool");
        let style = self.styles.choose(w, &mut self.rng);
        // No draw where all follow: the default's random stream is as it was.
        let follows = self.follow >= 100 || (self.rng.below(100) as u32) < self.follow;
        self.walkers[w] = WalkerState {
            best_rank: scheme.rank(),
            idle_steps: 0,
            pool_best,
            origin: Origin {
                walker: w,
                rank: scheme.rank(),
                from_start,
                style,
                steps: 0,
            },
            follows,
        };
        Load { scheme, seed, style }
    }

    /// Books a round: each walker walked `walked` steps and stands as `walkers` say; its style
    /// earns what it gained. Returns the walkers whose best improved to a rank the pool wants.
    pub fn walked(&mut self, walkers: &[WalkerStatus], walked: u64) -> Vec<usize> {
        let mut improved = Vec::new();
        for (w, status) in walkers.iter().enumerate() {
            let state = &mut self.walkers[w];
            state.origin.steps += walked;
            let gained = state.gain(status.best_rank);
            self.styles.record(state.origin.style, walked, gained);
            if status.best_rank < state.best_rank {
                state.best_rank = status.best_rank;
                state.idle_steps = 0;
                if self.pool.wants(status.best_rank) {
                    improved.push(w);
                }
            } else {
                state.idle_steps += walked;
            }
        }
        self.styles.end_round();
        improved
    }

    /// The walkers to restart: those behind the pool's best that follow it (under pool
    /// restarts) and those idle for `patience` steps.
    pub fn due(&self, patience: u64) -> Vec<usize> {
        let best = self.pool.best_rank().expect("non-empty pool");
        let pool_restarts = self.restarts == Restarts::Pool;
        (0..self.walkers.len())
            .filter(|&w| {
                let s = &self.walkers[w];
                (s.pool_best > best && pool_restarts && s.follows) || s.idle_steps >= patience
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Origin, Population, Style, WalkerState};
    use crate::driver::pool::tests::split_naive;
    use crate::driver::{Patience, SearchConfig};
    use flipgraph_core::Shape;

    /// The walkers `due` to restart (patience never ends) after a better scheme than their
    /// start joined the pool, out of 64, when `follow` percent follow it.
    fn behind_and_due(follow: u32) -> usize {
        let shape = Shape::square(3).unwrap();
        let config = SearchConfig {
            follow,
            ..SearchConfig::new(shape, 20, 1, 1000, Patience::Fixed(u64::MAX))
        };
        let start = split_naive(shape, 1, 0);
        let mut population = Population::new(&config, vec![start.into_scheme()], 64, false).unwrap();
        for w in 0..64 {
            population.restart(w);
        }
        assert!(population.due(u64::MAX).is_empty(), "none behind yet");
        assert!(population.pool.insert(split_naive(shape, 0, 0)));
        population.due(u64::MAX).len()
    }

    /// A resumed pool is the checkpoint's, whatever the order of its schemes (it is written
    /// best first, and shrank to its best rank on a resume).
    #[test]
    fn the_pool_keeps_every_rank_of_its_starts_in_any_order() {
        let shape = Shape::square(3).unwrap();
        let config = SearchConfig::new(shape, 20, 1, 1000, Patience::Fixed(u64::MAX));
        let starts = |order: &[usize]| {
            order
                .iter()
                .map(|&split| split_naive(shape, split, 0).into_scheme())
                .collect::<Vec<_>>()
        };
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            let population = Population::new(&config, starts(&order), 4, false).unwrap();
            assert_eq!(population.pool.len(), 4, "starts of ranks 27 + {order:?}");
        }
    }

    #[test]
    fn a_better_scheme_restarts_the_share_of_walkers_that_follow() {
        assert_eq!(behind_and_due(100), 64);
        assert_eq!(behind_and_due(0), 0);
        let half = behind_and_due(50);
        assert!((16..=48).contains(&half), "{half} of 64");
    }

    #[test]
    fn a_walk_is_credited_only_with_ranks_below_the_pools_best_at_its_load() {
        // A walker whose best since its load is `best`, loaded when the pool's best was
        // `pool_best`.
        let walker = |best: usize, pool_best: usize| WalkerState {
            best_rank: best,
            idle_steps: 0,
            pool_best,
            origin: Origin {
                walker: 0,
                rank: best,
                from_start: false,
                style: Style::Hold,
                steps: 0,
            },
            follows: true,
        };
        // From the start scheme (100) down to 80, where the pool holds 77 already: nothing new.
        assert_eq!(walker(100, 77).gain(80), 0);
        assert_eq!(walker(100, 77).gain(75), 2);
        // From the pool's best: every rank below it.
        assert_eq!(walker(77, 77).gain(76), 1);
        // From a rank above the best, below its own best only once below the pool's.
        assert_eq!(walker(79, 77).gain(78), 0);
        // A walker that had gone below the pool's best gains only below its own best.
        assert_eq!(walker(75, 77).gain(74), 1);
        assert_eq!(walker(75, 77).gain(76), 0);
    }
}
