//! The driver's part in a job of islands ([`crate::islands`]): it agrees with the other islands
//! on when to stop, swaps its best schemes with theirs and pools theirs, verified.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use serde_json::json;

use super::{Driver, Stop};
use crate::engine::Width;
use crate::islands::decode;

impl<F: Width> Driver<'_, F> {
    /// This island's index, or 0 for a search of one process.
    pub(super) fn island_index(&self) -> usize {
        self.island.as_ref().map_or(0, |island| island.index())
    }

    /// The job's stop reason, agreed with the other islands (exchanging first when due);
    /// `local` alone without islands.
    pub(super) fn agree(&mut self, local: Option<Stop>) -> Result<Option<Stop>> {
        let own = self.walked();
        let Some(island) = &mut self.island else {
            return Ok(local);
        };
        let agreed = island.agree(local, &own)?;
        self.job_work = agreed.work;
        if agreed.exchange && agreed.stop.is_none() {
            self.exchange()?;
        }
        Ok(agreed.stop)
    }

    /// Offers this island's best new schemes to every other and pools theirs, verified.
    pub(super) fn exchange(&mut self) -> Result<()> {
        let Some(island) = &mut self.island else {
            return Ok(());
        };
        let t = Instant::now();
        let offer = island.offer(self.population.pool.iter());
        let received = island.peers.all_gather(&offer)?;
        let me = island.index();
        island.cost.exchanges += 1;
        island.cost.bytes_sent += offer.len() as u64;
        island.cost.bytes_received += received.iter().map(|b| b.len() as u64).sum::<u64>();
        island.last_exchange = Instant::now();
        for (from, bytes) in received.iter().enumerate().filter(|&(from, _)| from != me) {
            self.pool_received(from, bytes)?;
        }
        if let Some(island) = &mut self.island {
            island.cost.time += t.elapsed();
        }
        Ok(())
    }

    /// Verifies and pools the schemes island `from` offered; logs which entered the pool.
    fn pool_received(&mut self, from: usize, bytes: &[u8]) -> Result<()> {
        let schemes = match decode(self.config.shape, bytes) {
            Ok(schemes) => schemes,
            Err(e) => {
                self.rejected += 1;
                tracing::error!("island {from} sent a damaged offer ({e:#}); discarded");
                return Ok(());
            }
        };
        let mut pooled = Vec::new();
        for scheme in schemes {
            let scheme = match Verified::new(scheme) {
                Ok(scheme) => scheme,
                Err(d) => {
                    self.rejected += 1;
                    tracing::error!("island {from} sent an invalid scheme ({d}); discarded");
                    continue;
                }
            };
            let improves = self.population.pool.best_rank().is_none_or(|b| scheme.rank() < b);
            if self.population.pool.insert(scheme.clone()) {
                pooled.push(scheme.rank());
                if improves {
                    tracing::info!("rank {} from island {from}", scheme.rank());
                    self.record_best(&scheme, None)?;
                }
            }
        }
        if !pooled.is_empty() {
            let event = json!({
                "event": "received",
                "t": self.clock.t(),
                "from": from,
                "ranks": pooled,
            });
            self.results.event(&event);
        }
        Ok(())
    }

    /// The job's work: every island's counters summed (this island's alone without islands).
    pub(super) fn job_counters(&mut self, own: Counters) -> Result<Counters> {
        let Some(island) = &mut self.island else {
            return Ok(own);
        };
        let c = own;
        let sum = island
            .peers
            .sum(&[c.steps, c.vertices, c.flips, c.plus, c.reductions, c.generalized])?;
        let [steps, vertices, flips, plus, reductions, generalized] = sum[..] else {
            bail!("the peers summed {} counters, not 6", sum.len());
        };
        Ok(Counters {
            steps,
            vertices,
            flips,
            plus,
            reductions,
            generalized,
        })
    }

    /// Reports what sharing cost the job (events and log): every island's time spent agreeing
    /// and exchanging, against `walk_time`, and the bytes offered.
    pub(super) fn report_sharing(&mut self, walk_time: Duration) -> Result<()> {
        let Some(island) = &mut self.island else {
            return Ok(());
        };
        let c = island.cost;
        let own = [c.time.as_micros() as u64, c.bytes_sent, c.bytes_received];
        let job = island.peers.sum(&own)?;
        let islands = island.size();
        let share = job[0] as f64 / 1e6 / (walk_time.as_secs_f64() * islands as f64).max(1e-9);
        let event = json!({
            "event": "islands",
            "islands": islands,
            "exchanges": c.exchanges,
            "sharing_share": share,
            "sharing_s_per_island": job[0] as f64 / 1e6 / islands as f64,
            "bytes_offered": job[1],
            "bytes_received": job[2],
        });
        let text = format!(
            "{islands} islands, {} exchanges: sharing took {:.2}% of the walk time, {} bytes offered in all",
            c.exchanges,
            share * 100.0,
            job[1]
        );
        self.progress.note(&event, &text);
        self.results.event(&event);
        Ok(())
    }

    /// Waits for every island to start (so each has read the checkpoints it resumes from),
    /// then island 0 (or a lone search) retires the folders of islands the job no longer has:
    /// their pools and counters live on in the islands that resumed them.
    pub(super) fn settle_islands(&mut self) -> Result<()> {
        let islands = match &mut self.island {
            None => 1,
            Some(island) => {
                island.peers.max(&[0])?;
                if island.index() != 0 {
                    return Ok(());
                }
                island.size()
            }
        };
        self.results.retire_islands(islands);
        Ok(())
    }
}
