//! The factor widths a search walks: `u64`, the width of every format up to 8x8x8, on every
//! engine and walk, and `u128`, for the formats of up to 128 entries a matrix beyond it (9x9x9,
//! 4x5x13, 8x8x16, ...), on the CPU engine's plain walk.

use anyhow::{bail, Context, Result};
use flipgraph_core::group::orbits;
use flipgraph_core::moves::Moves;
use flipgraph_core::symmetry::{FixedTerms, SymmetricWalker};
use flipgraph_core::walk::{Walk, WalkConfig};
use flipgraph_core::{Scheme, Shape};

use super::{Engine, EngineSpec, Group};

/// A factor width the engines walk: what differs between the widths, where an engine or a walk
/// exists for one of them only.
pub trait Width: Moves {
    /// A walker of `group`-invariant schemes from `scheme` (`group` is not trivial).
    fn symmetric_walker(
        group: Group,
        scheme: &Scheme<Self>,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> Result<Box<dyn Walk<Self>>>;

    /// The GPU engine of `spec` for schemes of `shape`.
    fn open_gpu(spec: &EngineSpec, shape: Shape) -> Result<Box<dyn Engine<Self>>>;
}

impl Width for u64 {
    fn symmetric_walker(
        group: Group,
        scheme: &Scheme,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> Result<Box<dyn Walk>> {
        let orbits = orbits(group, scheme)
            .with_context(|| format!("--symmetry {group} walks {}-invariant schemes only", group.label()))?;
        Ok(Box::new(SymmetricWalker::from_orbits(
            &orbits,
            config,
            seed,
            fixed_terms,
        )))
    }

    fn open_gpu(spec: &EngineSpec, shape: Shape) -> Result<Box<dyn Engine>> {
        spec.open_gpu(shape)
    }
}

impl Width for u128 {
    fn symmetric_walker(
        group: Group,
        scheme: &Scheme<u128>,
        _: WalkConfig,
        _: u64,
        _: FixedTerms,
    ) -> Result<Box<dyn Walk<u128>>> {
        bail!(
            "--symmetry {group}: symmetric walks take formats whose factors fit 64 bits; {} needs {}",
            scheme.shape(),
            scheme.shape().factor_width()
        )
    }

    fn open_gpu(spec: &EngineSpec, shape: Shape) -> Result<Box<dyn Engine<u128>>> {
        spec.open_gpu(shape)
    }
}
