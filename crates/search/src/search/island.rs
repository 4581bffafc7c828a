//! Islands: one search spread over many processes (an MPI job), each with its own engine and
//! pool. Every round the islands agree on whether to stop; every few seconds they swap their
//! best schemes, which enter every pool after verification. Island 0 writes the results.
//!
//! The transport is a [`Peers`]: `flipgraph` brings one over MPI (the crate `flipgraph-cluster`, its feature `mpi`);
//! an embedder may bring its own.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use flipgraph_core::term::{FactorBits, Position};
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape, Term};
use serde_json::json;

use super::recipe::Recipe;
use super::{Driver, Stop};
use crate::engine::{cores, Width};

/// The other processes of a job. Every island makes the same calls in the same order (they are
/// collective operations): the driver sees to that.
pub trait Peers {
    /// This island's index, `0..size()`; island 0 writes the results.
    fn index(&self) -> usize;
    /// Islands in the job.
    fn size(&self) -> usize;
    /// The element-wise maximum of every island's `values`.
    fn max(&mut self, values: &[u64]) -> Result<Vec<u64>>;
    /// The element-wise sum of every island's `values`.
    fn sum(&mut self, values: &[u64]) -> Result<Vec<u64>>;
    /// Every island's `bytes`, by island index (this island's own included).
    fn all_gather(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>>;
}

/// How islands share: how often, and how many schemes each offers per exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sharing {
    pub every: Duration,
    pub schemes: usize,
}

impl Default for Sharing {
    fn default() -> Sharing {
        Sharing {
            every: Duration::from_secs(5),
            schemes: 2,
        }
    }
}

/// This process's part in a job of islands.
pub struct Island {
    peers: Box<dyn Peers>,
    sharing: Sharing,
    last_exchange: Instant,
    /// Schemes offered already (their sorted terms, encoded): each is offered once.
    offered: HashSet<Vec<u8>>,
    /// Time spent agreeing and exchanging, bytes offered, exchanges made.
    pub(super) cost: Cost,
}

/// What the islands agreed on in a round.
struct Agreed {
    stop: Option<Stop>,
    exchange: bool,
    /// The job's steps, vertices and reductions since its islands started.
    work: Counters,
}

/// What sharing cost an island.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cost {
    pub time: Duration,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub exchanges: u64,
}

/// Offered schemes remembered at most; past this the memory starts afresh (a scheme offered
/// twice is harmless: pools drop duplicates).
const OFFERED_MAX: usize = 1 << 14;

impl Island {
    pub fn new(peers: Box<dyn Peers>, sharing: Sharing) -> Island {
        Island {
            peers,
            sharing,
            last_exchange: Instant::now(),
            offered: HashSet::new(),
            cost: Cost::default(),
        }
    }

    pub fn index(&self) -> usize {
        self.peers.index()
    }

    pub fn size(&self) -> usize {
        self.peers.size()
    }

    /// Whether any island of the job of `island` says `yes` (`yes` itself for a search of one
    /// process): for choices every island must make alike (whether the job climbs a ladder,
    /// whether its climb ends before the next rung).
    pub fn any(island: Option<&mut Island>, yes: bool) -> Result<bool> {
        match island {
            Some(island) => Ok(island.peers.max(&[u64::from(yes)])?.first() == Some(&1)),
            None => Ok(yes),
        }
    }

    /// Agrees on how (whether) to stop and whether to exchange now, and sums the islands'
    /// work (`own`: this island's since it started) for the status line. `local` is this
    /// island's own reason: the job stops when any island has one, for the weightiest reason (a
    /// reached target over an interrupt over the time limit). One collective (a sum).
    fn agree(&mut self, local: Option<Stop>, own: &Counters) -> Result<Agreed> {
        let t = Instant::now();
        let due = self.last_exchange.elapsed() >= self.sharing.every;
        // One count per stop code (1-3), then whether an exchange is due, then the work.
        let mut values = [0, 0, 0, u64::from(due), own.steps, own.vertices, own.reductions];
        if let Some(slot) = (stop_code(local) as usize).checked_sub(1) {
            values[slot] = 1;
        }
        let sum = self.peers.sum(&values)?;
        let [time_limit, interrupted, target, due, steps, vertices, reductions] = sum[..] else {
            bail!("the peers summed {} values, not {}", sum.len(), values.len());
        };
        let by_code = [time_limit, interrupted, target];
        let code = (1..=3).rev().find(|&code| by_code[code - 1] > 0).unwrap_or(0);
        self.cost.time += t.elapsed();
        Ok(Agreed {
            stop: stop_from_code(code as u64),
            exchange: due > 0,
            work: Counters {
                steps,
                vertices,
                reductions,
                ..Counters::default()
            },
        })
    }

    /// Up to `sharing.schemes` of `schemes` (lowest rank first) not offered before, encoded.
    fn offer<'s, F: FactorBits>(&mut self, schemes: impl Iterator<Item = &'s Verified<F>>) -> Vec<u8> {
        if self.offered.len() > OFFERED_MAX {
            self.offered.clear();
        }
        let mut bytes = Vec::new();
        let mut taken = 0;
        for scheme in schemes {
            if taken == self.sharing.schemes {
                break;
            }
            let mut key = Vec::new();
            encode_terms(scheme.shape(), &super::pool::key(scheme), &mut key);
            if self.offered.insert(key) {
                encode(scheme, &mut bytes);
                taken += 1;
            }
        }
        bytes
    }
}

/// The stop reasons by weight, 0 for none.
fn stop_code(stop: Option<Stop>) -> u64 {
    match stop {
        None => 0,
        // A stall is a time limit to the job: the islands agree on the weaker stop.
        Some(Stop::TimeLimit | Stop::Stalled) => 1,
        Some(Stop::Interrupted) => 2,
        Some(Stop::Target) => 3,
    }
}

fn stop_from_code(code: u64) -> Option<Stop> {
    match code {
        0 => None,
        1 => Some(Stop::TimeLimit),
        2 => Some(Stop::Interrupted),
        _ => Some(Stop::Target),
    }
}

/// Bytes of factor `pos` on the wire.
fn factor_bytes(shape: Shape, pos: Position) -> usize {
    shape.factor_bits(pos).div_ceil(8)
}

/// Appends `scheme` to `out`: its rank (2 bytes), then each term's factors A, B, C in as few
/// little-endian bytes as their matrices need (3 bytes a term for 2x2x2, 24 for 8x8x8).
pub fn encode<F: FactorBits>(scheme: &Scheme<F>, out: &mut Vec<u8>) {
    out.extend_from_slice(&(scheme.rank() as u16).to_le_bytes());
    encode_terms(scheme.shape(), scheme.terms(), out);
}

/// Appends each term's factors A, B, C in as few little-endian bytes as their matrices need.
fn encode_terms<F: FactorBits>(shape: Shape, terms: &[Term<F>], out: &mut Vec<u8>) {
    for term in terms {
        for pos in Position::ALL {
            out.extend_from_slice(&term.get(pos).to_u128().to_le_bytes()[..factor_bytes(shape, pos)]);
        }
    }
}

/// The schemes of `shape` that [`encode`] wrote into `bytes`, one after another (not yet
/// verified; a factor outside its matrix is an error).
pub fn decode<F: FactorBits>(shape: Shape, mut bytes: &[u8]) -> Result<Vec<Scheme<F>>> {
    let mut schemes = Vec::new();
    let widths = Position::ALL.map(|pos| factor_bytes(shape, pos));
    let term_bytes: usize = widths.iter().sum();
    while !bytes.is_empty() {
        let Some((rank, rest)) = bytes.split_first_chunk::<2>() else {
            bail!("a scheme cut short after {} schemes", schemes.len());
        };
        let rank = u16::from_le_bytes(*rank) as usize;
        if rest.len() < rank * term_bytes {
            bail!("a scheme of rank {rank} cut short after {} schemes", schemes.len());
        }
        let (body, rest) = rest.split_at(rank * term_bytes);
        let terms = body
            .chunks_exact(term_bytes)
            .map(|chunk| {
                let (a, bc) = chunk.split_at(widths[0]);
                let (b, c) = bc.split_at(widths[1]);
                Term::from_factors(le(a), le(b), le(c))
            })
            .collect();
        schemes.push(Scheme::new(shape, terms)?);
        bytes = rest;
    }
    Ok(schemes)
}

/// The factor of (at most `F::BITS / 8`, as the shape says) little-endian `bytes`.
fn le<F: FactorBits>(bytes: &[u8]) -> F {
    let mut word = [0u8; 16];
    word[..bytes.len()].copy_from_slice(bytes);
    F::from_u128(u128::from_le_bytes(word))
}

/// A search's part in a job of islands: its island, and its place among the job's processes
/// (or threads) on its host, which share its cores and GPUs.
pub struct Place {
    /// Its island.
    pub island: Island,
    /// Its index among the islands on its host.
    pub local_index: usize,
    /// The islands on its host.
    pub local_size: usize,
}

impl Place {
    /// `recipe` on this island's share of the host (its cores and its own GPU, unless the
    /// recipe names them), with its member of the recipe's portfolio.
    pub fn share(&self, recipe: &Recipe) -> Recipe {
        Recipe {
            threads: recipe.threads.or(Some((cores() / self.local_size.max(1)).max(1))),
            gpu: recipe.gpu.or(Some(self.local_index)),
            member: recipe.member.or(Some(recipe.portfolio.member(self.island.index()))),
            ..recipe.clone()
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::recipe::{CUBE_PLATEAU, CUBE_PLUS_SLACK};
    use flipgraph_core::Shape;

    #[test]
    fn schemes_survive_the_wire_in_every_shape_size() {
        for (n, m, p) in [(2, 2, 2), (2, 3, 4), (3, 3, 3), (8, 8, 8), (5, 7, 8)] {
            let shape = Shape::new(n, m, p).unwrap();
            let naive = Scheme::naive(shape);
            let mut bytes = Vec::new();
            encode(&naive, &mut bytes);
            encode(&naive, &mut bytes);
            let back = decode::<u64>(shape, &bytes).unwrap();
            assert_eq!(back.len(), 2);
            assert_eq!(back[0].terms(), naive.terms(), "{shape}");
            assert_eq!(back[1].terms(), naive.terms(), "{shape}");
        }
        // Factors of up to 128 bits: 9x9x9 (81 bits, 11 bytes a factor) and 4x5x13.
        for (n, m, p) in [(9, 9, 9), (4, 5, 13)] {
            let shape = Shape::new(n, m, p).unwrap();
            let naive = Scheme::<u128>::try_naive(shape).unwrap();
            let mut bytes = Vec::new();
            encode(&naive, &mut bytes);
            assert_eq!(decode::<u128>(shape, &bytes).unwrap(), vec![naive], "{shape}");
        }
    }

    /// The places of a job of `size` islands on one host.
    fn places(size: usize) -> Vec<Place> {
        super::super::threads::ThreadPeers::board(size)
            .into_iter()
            .enumerate()
            .map(|(local_index, peers)| Place {
                island: Island::new(Box::new(peers), Sharing::default()),
                local_index,
                local_size: size,
            })
            .collect()
    }

    #[test]
    fn islands_walk_their_portfolio_members_where_the_recipe_leaves_it_open() {
        use super::super::portfolio::{Portfolio, MEMBERS};
        let specs = |recipe: &Recipe| places(4).iter().map(|p| p.share(recipe).spec()).collect::<Vec<_>>();
        let lone = Recipe::default().spec();
        let open = specs(&Recipe::default());
        assert_eq!(
            (open[0].plus_slack, open[0].floor_quarters),
            (lone.plus_slack, lone.floor_quarters)
        );
        for (spec, member) in open.iter().zip(MEMBERS) {
            assert_eq!(
                (spec.plus_slack, spec.floor_quarters),
                (member.plus_slack, member.floor_quarters)
            );
        }
        assert_ne!(
            open[1].walk_config(crate::engine::Kind::Gpu),
            open[0].walk_config(crate::engine::Kind::Gpu)
        );
        // Off: every island as a lone search; a given slack or fixed cubes hold on every island.
        let off = specs(&Recipe {
            portfolio: Portfolio::Off,
            ..Recipe::default()
        });
        assert!(off
            .iter()
            .all(|s| (s.plus_slack, s.floor_quarters) == (lone.plus_slack, lone.floor_quarters)));
        let given = specs(&Recipe {
            plus_slack: Some(3),
            ..Recipe::default()
        });
        assert!(given.iter().all(|s| s.plus_slack == 3));
        let cubes = specs(&Recipe {
            cubes: vec!["111".into()],
            ..Recipe::default()
        });
        assert!(cubes
            .iter()
            .all(|s| s.plus_slack == CUBE_PLUS_SLACK && s.plateau == Some(CUBE_PLATEAU)));
    }

    #[test]
    fn damaged_offers_are_errors_not_panics() {
        let shape = Shape::square(3).unwrap();
        let mut bytes = Vec::new();
        encode(&Scheme::naive(shape), &mut bytes);
        for cut in [1, 2, 5, bytes.len() - 1] {
            assert!(decode::<u64>(shape, &bytes[..cut]).is_err(), "cut at {cut}");
        }
        // A factor with a bit outside its 3x3 matrix.
        let mut bad = bytes.clone();
        bad[3] = 0xff;
        assert!(decode::<u64>(shape, &bad).is_err());
        assert!(decode::<u64>(shape, &[]).unwrap().is_empty());
    }

    #[test]
    fn islands_agree_on_the_weightiest_stop_and_sum_their_work() {
        use crate::search::threads::ThreadPeers;
        let local = [None, Some(Stop::TimeLimit), Some(Stop::Interrupted)];
        let agreed: Vec<(Option<Stop>, bool, Counters)> = std::thread::scope(|scope| {
            let threads: Vec<_> = ThreadPeers::board(3)
                .into_iter()
                .zip(local)
                .map(|(peers, stop)| {
                    scope.spawn(move || {
                        let mut island = Island::new(Box::new(peers), Sharing::default());
                        let i = island.index() as u64;
                        let own = Counters {
                            steps: 10 + i,
                            vertices: 100 * i,
                            reductions: 1,
                            ..Counters::default()
                        };
                        let first = island.agree(None, &own).unwrap();
                        assert_eq!(first.stop, None);
                        let a = island.agree(stop, &own).unwrap();
                        (a.stop, a.exchange, a.work)
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for (stop, exchange, work) in agreed {
            assert_eq!(stop, Some(Stop::Interrupted));
            assert!(!exchange, "not due within 5 s");
            assert_eq!((work.steps, work.vertices, work.reductions), (33, 300, 3));
        }
    }

    #[test]
    fn stop_codes_order_the_reasons() {
        for stop in [None, Some(Stop::TimeLimit), Some(Stop::Interrupted), Some(Stop::Target)] {
            assert_eq!(stop_from_code(stop_code(stop)), stop);
        }
        assert!(stop_code(Some(Stop::Target)) > stop_code(Some(Stop::Interrupted)));
        assert!(stop_code(Some(Stop::Interrupted)) > stop_code(Some(Stop::TimeLimit)));
    }
}
