//! Islands: one search spread over many processes or threads, each with its own engine and pool,
//! swapping their best schemes every few seconds. An [`Island`] is a search's part in a job (the
//! driver holds one); its [`Peers`] are the transport: threads of one process here
//! ([`ThreadPeers`]), MPI in the crate `flipgraph-cluster`, or an embedder's own. The job's
//! processes on one host share it ([`Place`]), and their walks differ by the [`portfolio`].

mod island;
mod place;
pub mod portfolio;
mod threads;

pub use island::{decode, encode, Cost, Island, Peers, Sharing};
pub use place::Place;
pub use portfolio::Portfolio;
pub use threads::{IslandLeft, ThreadPeers};
