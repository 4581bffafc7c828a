//! The engines and the descent driver of `flipgraph`, for programs that embed a search.
//!
//! [`search::descent::Descent`] runs the search of `flipgraph search` in a few lines. For more
//! control (a GPU engine, output folders, checkpoints), drive the parts yourself:
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//!
//! use flipgraph_core::{Scheme, Shape};
//! use flipgraph_search::engine::EngineSpec;
//! use flipgraph_search::search::{progress::Progress, Driver, Patience, SearchConfig, Start, PATIENCE};
//!
//! let shape = Shape::square(4).unwrap();
//! let spec = EngineSpec::default(); // the GPU when one is usable, else every core
//! let mut engine = spec.open(shape)?;
//! let config = SearchConfig {
//!     time_limit: Some(Duration::from_secs(10)),
//!     ..SearchConfig::new(shape, 47, 1, spec.steps_per_round(engine.timed_rounds()), Patience::Growing(PATIENCE))
//! };
//! let start = Start::from_scheme(Scheme::naive(shape));
//! let driver = Driver::new(engine.as_mut(), config, start, None, Progress::new(false, true), Instant::now())?;
//! let summary = driver.run(&AtomicBool::new(false))?;
//! println!("rank {}", summary.best.rank()); // a verified scheme
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod atomic_file;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod engine;
pub mod schemes;
pub mod search;
