//! The engines and the descent driver of `flipgraph`, for programs that embed a search.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//!
//! use flipgraph_core::{Scheme, Shape};
//! use flipgraph_search::engine::{Backend, EngineSpec};
//! use flipgraph_search::engine::gpu::{Hints, Reductions};
//! use flipgraph_search::search::{progress::Progress, Driver, SearchConfig, Start};
//!
//! let shape = Shape::square(4).unwrap();
//! let spec = EngineSpec {
//!     backend: Backend::Auto,
//!     threads: None,
//!     walkers: None,
//!     plateau: None,
//!     plus_slack: 4,
//!     generalized: true,
//!     round_steps: None,
//!     gpu_round_ms: 100,
//!     gpu_match_rounds: 2,
//!     gpu_flips: 8,
//!     gpu_reductions: Reductions::Walk,
//!     gpu_hints: Hints::Auto,
//! };
//! let mut engine = spec.open(shape)?;
//! let config = SearchConfig {
//!     time_limit: Some(Duration::from_secs(10)),
//!     ..SearchConfig::new(shape, 47, 1, spec.steps_per_round(engine.timed_rounds()), 4_000_000)
//! };
//! let start = Start::from_scheme(Scheme::naive(shape));
//! let driver = Driver::new(engine.as_mut(), config, start, None, Progress::new(false, true), Instant::now())?;
//! let summary = driver.run(&AtomicBool::new(false))?;
//! println!("rank {}", summary.best.rank()); // a verified scheme
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod atomic_file;
pub mod engine;
pub mod schemes;
pub mod search;
