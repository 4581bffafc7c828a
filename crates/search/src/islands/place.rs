//! An island's place on its host: the job's processes (or threads) on one host share its cores
//! and GPUs, and each takes its part of them.

use super::Island;

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
