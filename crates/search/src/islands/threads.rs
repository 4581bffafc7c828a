//! Islands on threads of one process ([`ThreadPeers`]): the job of islands that an MPI job
//! runs, without MPI, e.g. one island per GPU of a host, each with its own pool.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use anyhow::Result;

use super::Peers;

/// An island's wait ended because another island of the process left the job (it failed).
#[derive(Debug, thiserror::Error)]
#[error("another island of this process ended early")]
pub struct IslandLeft;

/// One island's end of a board that `size` islands on threads of this process share.
pub struct ThreadPeers {
    index: usize,
    board: Arc<Board>,
}

/// What the islands post, and the barrier they meet at.
struct Board {
    size: usize,
    state: Mutex<State>,
    met: Condvar,
}

struct State {
    posted: Vec<Vec<u8>>,
    /// Islands at the barrier now, and how many times it has opened.
    arrived: usize,
    opened: u64,
    /// An island left before the job ended (it failed): the others must not wait for it.
    broken: bool,
}

impl ThreadPeers {
    /// The ends of one board for `size` islands, by index.
    pub fn board(size: usize) -> Vec<ThreadPeers> {
        let board = Arc::new(Board {
            size,
            state: Mutex::new(State {
                posted: vec![Vec::new(); size],
                arrived: 0,
                opened: 0,
                broken: false,
            }),
            met: Condvar::new(),
        });
        (0..size)
            .map(|index| ThreadPeers {
                index,
                board: board.clone(),
            })
            .collect()
    }

    /// Waits until every island has arrived here; an error once one has left.
    fn meet(&self) -> Result<()> {
        let board = &self.board;
        let mut state = board.state.lock().unwrap_or_else(PoisonError::into_inner);
        let opened = state.opened;
        state.arrived += 1;
        if state.arrived == board.size {
            state.arrived = 0;
            state.opened += 1;
            board.met.notify_all();
        }
        while state.opened == opened && !state.broken {
            state = board.met.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        // Opened: every island arrived, whatever one did after.
        match state.opened == opened {
            true => Err(IslandLeft.into()),
            false => Ok(()),
        }
    }

    /// Every island's `values`, combined element-wise by `op`.
    fn reduce(&mut self, values: &[u64], op: fn(u64, u64) -> u64) -> Result<Vec<u64>> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let all = self.all_gather(&bytes)?;
        (0..values.len())
            .map(|i| {
                let mut words = all.iter().map(|posted| {
                    let word = posted.get(8 * i..8 * i + 8).and_then(|w| w.try_into().ok());
                    word.map(u64::from_le_bytes)
                });
                let first = words.next().flatten();
                words.try_fold(first?, |acc, word| Some(op(acc, word?)))
            })
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| anyhow::anyhow!("an island posted fewer than {} values", values.len()))
    }
}

impl Drop for ThreadPeers {
    /// An island that leaves ends the others' waits (after a job's last collective, none waits).
    fn drop(&mut self) {
        let mut state = self.board.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.broken = true;
        self.board.met.notify_all();
    }
}

impl Peers for ThreadPeers {
    fn index(&self) -> usize {
        self.index
    }

    fn size(&self) -> usize {
        self.board.size
    }

    fn max(&mut self, values: &[u64]) -> Result<Vec<u64>> {
        self.reduce(values, u64::max)
    }

    fn sum(&mut self, values: &[u64]) -> Result<Vec<u64>> {
        self.reduce(values, u64::wrapping_add)
    }

    fn all_gather(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        {
            let mut state = self.board.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.posted[self.index] = bytes.to_vec();
        }
        // Every island has posted; then every island has read, before any posts again.
        self.meet()?;
        let all = self
            .board
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .posted
            .clone();
        self.meet()?;
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::Peers;
    use super::{IslandLeft, ThreadPeers};

    #[test]
    fn islands_on_threads_gather_and_reduce_round_after_round() {
        let ends = ThreadPeers::board(3);
        let results: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = ends
                .into_iter()
                .map(|mut peers| {
                    scope.spawn(move || {
                        let i = peers.index() as u64;
                        let mut seen = Vec::new();
                        for round in 0..50u64 {
                            let max = peers.max(&[i + round, 7 - i]).unwrap();
                            let sum = peers.sum(&[i]).unwrap();
                            let all = peers.all_gather(&[i as u8; 2][..1 + (i as usize % 2)]).unwrap();
                            seen.push((max, sum, all));
                        }
                        seen
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for seen in &results {
            for (round, (max, sum, all)) in seen.iter().enumerate() {
                assert_eq!(max, &vec![2 + round as u64, 7]);
                assert_eq!(sum, &vec![3]);
                assert_eq!(all, &vec![vec![0], vec![1, 1], vec![2]]);
            }
        }
    }

    #[test]
    fn an_island_that_leaves_ends_the_others_waits_with_an_error() {
        let mut ends = ThreadPeers::board(2);
        let mut second = ends.pop().unwrap();
        let first = ends.pop().unwrap();
        let waiting = std::thread::spawn(move || second.max(&[1]));
        drop(first);
        let err = waiting.join().unwrap().unwrap_err();
        assert!(err.is::<IslandLeft>(), "{err}");
    }
}
