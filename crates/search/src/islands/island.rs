//! An island: one search's part in a job of many processes (an MPI job) or threads, each with
//! its own engine and pool. Every round the islands agree on whether to stop; every few seconds they swap their
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

use crate::output::Stop;

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
    pub(crate) peers: Box<dyn Peers>,
    pub(crate) sharing: Sharing,
    pub(crate) last_exchange: Instant,
    /// Schemes offered already (their sorted terms, encoded): each is offered once.
    pub(crate) offered: HashSet<Vec<u8>>,
    /// Time spent agreeing and exchanging, bytes offered, exchanges made.
    pub(crate) cost: Cost,
}

/// What the islands agreed on in a round.
pub(crate) struct Agreed {
    pub(crate) stop: Option<Stop>,
    pub(crate) exchange: bool,
    /// The job's steps, vertices and reductions since its islands started.
    pub(crate) work: Counters,
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
    pub(crate) fn agree(&mut self, local: Option<Stop>, own: &Counters) -> Result<Agreed> {
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
    pub(crate) fn offer<'s, F: FactorBits>(&mut self, schemes: impl Iterator<Item = &'s Verified<F>>) -> Vec<u8> {
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
            encode_terms(scheme.shape(), &scheme.sorted_terms(), &mut key);
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

#[cfg(test)]
mod tests {
    use super::*;
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
        use super::super::ThreadPeers;
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
