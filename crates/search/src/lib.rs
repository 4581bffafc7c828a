//! The engines and the descent driver of `flipgraph`, for programs that embed a search.
//!
//! [`Search`] is the whole search of `flipgraph search` (a new search, a resume, the ladder, the
//! GPU's fault carried on on the CPU, its folder of verified results and checkpoints), driven by
//! a [`Recipe`] that settles the engine, walk and schedule for the start;
//! `flipgraph search`, `bench` and `campaign` build theirs from their flags (a [`Campaign`]
//! searches several formats in turn, a [`Search`] each):
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use std::time::Duration;
//!
//! use flipgraph_core::Shape;
//! use flipgraph_search::{Recipe, Search};
//!
//! let search = Search {
//!     time: Some(Duration::from_secs(60)),
//!     ..Search::new(Shape::square(4).unwrap(), Recipe::default())
//! };
//! let ended = search.run_until(&AtomicBool::new(false))?;
//! println!("rank {} in {:?}", ended.best_rank, ended.best_file); // ended.best: the scheme
//! # Ok::<(), flipgraph_search::Error>(())
//! ```
//!
//! [`Descent`] walks a recipe from one scheme in a few lines, without files
//! (and without the ladder, presets or islands). For more control, drive the parts yourself:
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//!
//! use flipgraph_core::{Scheme, Shape};
//! use flipgraph_search::engine::EngineSpec;
//! use flipgraph_search::driver::{progress::Progress, Driver, Patience, SearchConfig, Start, PATIENCE};
//!
//! let shape = Shape::square(4).unwrap();
//! let spec = EngineSpec::default(); // the GPU when one is usable, else every core
//! let mut engine = spec.open(shape)?;
//! let config = SearchConfig {
//!     time_limit: Some(Duration::from_secs(10)),
//!     ..SearchConfig::new(shape, 47, 1, spec.steps_per_round(engine.timed_rounds(), engine.walkers()), Patience::Growing(PATIENCE))
//! };
//! let start = Start::from_scheme(Scheme::naive(shape));
//! let driver = Driver::new(engine.as_mut(), config, start, None, Progress::new(false, true), Instant::now())?;
//! let summary = driver.run(&AtomicBool::new(false))?;
//! println!("rank {}", summary.best.rank()); // a verified scheme
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod campaign;
pub mod driver;
pub mod engine;
mod error;
pub mod islands;
pub mod output;
pub mod results;
pub mod schemes;
pub mod session;

pub use campaign::Campaign;
pub use driver::Summary;
pub use error::{Error, Kind};
pub use session::descent::Descent;
pub use session::ended::Ended;
pub use session::recipe::Recipe;
pub use session::Search;
