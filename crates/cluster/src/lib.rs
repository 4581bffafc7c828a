//! One process of an MPI job (`mpirun -n K flipgraph search ...`, or Slurm's `srun`): the
//! islands' [`island::Peers`] over MPI, and where on its host the process runs.
//!
//! Its own crate over the system's MPI (OpenMPI or MPICH) through rsmpi, which the binary
//! `flipgraph` takes with its feature `mpi`: the search library knows islands only through
//! [`island::Peers`], so a build with MPI compiles this crate and rsmpi, not the search again.
//! MPI's own error handling applies: a failed call, or a process that dies, ends the whole job
//! (each island's last checkpoint stays, and `--resume` continues from them).
//!
//! [`island::Peers`]: flipgraph_search::islands::Peers

#![cfg(feature = "mpi")]

use anyhow::{bail, Result};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;

use flipgraph_search::islands::Peers;

/// Variables a launcher (mpirun of OpenMPI or MPICH, or srun through PMI or PMIx) sets in the
/// processes it starts: without one, the process runs alone and MPI is not started.
const LAUNCHER_VARIABLES: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"];

/// This process's part in an MPI job of two or more processes.
pub struct Job {
    world: SimpleCommunicator,
    /// This process's index among the job's processes on its host, and their number.
    pub local_index: usize,
    pub local_size: usize,
    /// Finalizes MPI when dropped: last.
    _universe: Universe,
}

impl Job {
    /// Starts MPI when a launcher started this process; `None` when it runs alone (or in a job
    /// of one process).
    pub fn init() -> Result<Option<Job>> {
        if !LAUNCHER_VARIABLES.iter().any(|v| std::env::var_os(v).is_some()) {
            return Ok(None);
        }
        // Only the driver's thread calls MPI; the engines' threads never do.
        let Some((universe, _)) = mpi::initialize_with_threading(Threading::Funneled) else {
            bail!("MPI was started already in this process");
        };
        let world = universe.world();
        if world.size() < 2 {
            return Ok(None);
        }
        let local = world.split_shared(world.rank());
        Ok(Some(Job {
            local_index: local.rank() as usize,
            local_size: local.size() as usize,
            world,
            _universe: universe,
        }))
    }

    /// This process's index in the job.
    pub fn index(&self) -> usize {
        self.world.rank() as usize
    }

    /// The islands' peers over this job's processes.
    pub fn peers(&self) -> MpiPeers {
        MpiPeers {
            world: self.world.duplicate(),
        }
    }

    /// Ends the whole job (every process) with `code`: what an island that fails does, since
    /// the others would wait for it forever.
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// The job's number of processes.
    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// Sends `message` (not empty) to process 0, which holds work the job shares out
    /// ([`Job::next_request`]); it arrives after this process's earlier ones.
    pub fn request(&self, message: &[u8]) {
        self.world.process_at_rank(0).send_with_tag(message, REQUEST);
    }

    /// Waits for process 0's answer to this process's last request.
    pub fn answer_from_0(&self) -> Vec<u8> {
        self.world.process_at_rank(0).receive_vec_with_tag(ANSWER).0
    }

    /// Process 0: the next request another process sent, with its sender, if one has come
    /// (it does not wait).
    pub fn next_request(&self) -> Option<(usize, Vec<u8>)> {
        let probed = self.world.any_process().immediate_matched_probe_with_tag(REQUEST)?;
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as usize, bytes))
    }

    /// Process 0: answers process `to`'s request with `message` (not empty).
    pub fn answer(&self, to: usize, message: &[u8]) {
        self.world.process_at_rank(to as i32).send_with_tag(message, ANSWER);
    }
}

/// The tags of a request to process 0 and of its answer: apart from the islands' collectives
/// (they use none), so that neither is mistaken for the other.
const REQUEST: mpi::Tag = 0x5eed;
const ANSWER: mpi::Tag = 0x5eee;

/// The byte in front of every offer.
const OFFER: u8 = 0xf1;

/// [`Peers`] over an MPI communicator: collectives of the whole job.
pub struct MpiPeers {
    world: SimpleCommunicator,
}

impl MpiPeers {
    fn reduce(&self, values: &[u64], op: SystemOperation) -> Vec<u64> {
        let mut out = vec![0u64; values.len()];
        self.world.all_reduce_into(values, &mut out[..], op);
        out
    }
}

impl Peers for MpiPeers {
    fn index(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn max(&mut self, values: &[u64]) -> Result<Vec<u64>> {
        Ok(self.reduce(values, SystemOperation::max()))
    }

    fn sum(&mut self, values: &[u64]) -> Result<Vec<u64>> {
        Ok(self.reduce(values, SystemOperation::sum()))
    }

    fn all_gather(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        // Every offer is sent behind one byte: an empty Rust slice's address is 1, which
        // OpenMPI reads as MPI_IN_PLACE.
        let mut sent = Vec::with_capacity(bytes.len() + 1);
        sent.push(OFFER);
        sent.extend_from_slice(bytes);
        let Ok(count) = i32::try_from(sent.len()) else {
            bail!("an offer of {} bytes is too large for MPI", bytes.len());
        };
        let size = self.size();
        let mut counts = vec![0i32; size];
        self.world.all_gather_into(&count, &mut counts[..]);
        let mut displs = Vec::with_capacity(size);
        let mut total = 0i64;
        for &c in &counts {
            displs.push(i32::try_from(total)?);
            total += i64::from(c);
        }
        let mut all = vec![0u8; usize::try_from(total)?];
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(&sent[..], &mut partition);
        }
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| match all.get(d as usize..(d + c) as usize) {
                Some([OFFER, offer @ ..]) => Ok(offer.to_vec()),
                _ => bail!("a damaged offer ({c} bytes at {d})"),
            })
            .collect()
    }
}
