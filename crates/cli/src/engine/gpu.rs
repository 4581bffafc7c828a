//! The GPU engine (cudarc): one warp per scheme.

use anyhow::{bail, Result};
use flipgraph_core::walk::WalkConfig;
use flipgraph_core::{Scheme, Shape};

use super::{Engine, Round};

/// The PTX of crates/kernels, built by build.rs (empty when the toolchain was missing).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/flipgraph_kernels.ptx"));

/// Settings of the GPU engine.
pub struct GpuOptions {
    pub walkers: Option<usize>,
    pub config: WalkConfig,
    pub device: usize,
}

pub struct GpuEngine {}

impl GpuEngine {
    pub fn open(_shape: Shape, _options: GpuOptions) -> Result<GpuEngine> {
        bail!("the GPU engine is not available in this build")
    }
}

impl Engine for GpuEngine {
    fn describe(&self) -> String {
        "gpu".into()
    }
    fn walkers(&self) -> usize {
        0
    }
    fn load(&mut self, _walker: usize, _scheme: &Scheme, _seed: u64) -> Result<()> {
        bail!("no GPU")
    }
    fn run_round(&mut self, _steps: u64, _target: usize) -> Result<Round> {
        bail!("no GPU")
    }
    fn best_scheme(&mut self, _walker: usize) -> Result<Scheme> {
        bail!("no GPU")
    }
}
