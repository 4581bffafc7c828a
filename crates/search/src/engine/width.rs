//! The factor widths a search walks: `u64`, the width of every format up to 8x8x8, on every
//! engine and walk, and `u128`, for the formats of up to 128 entries a matrix beyond it (9x9x9,
//! 4x5x13, 8x8x16, ...), on the plain walks of the CPU and GPU engines.

use anyhow::{bail, Context, Result};
use flipgraph_core::group::orbits;
use flipgraph_core::moves::Moves;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::walk::SymmetricWalker;
use flipgraph_core::walk::{Walk, WalkConfig};
use flipgraph_core::{Scheme, Shape};

use super::{Group, Refusal};

/// Refuses a walk of `group`-invariant schemes (any group but the trivial one) on factors of
/// `bits` bits of `shape`: the symmetric walks, CPU and GPU, take factors that fit 64 bits.
pub fn refuse_wide_symmetry(group: Group, shape: Shape, bits: usize) -> Result<()> {
    if group != Group::Trivial && bits > 64 {
        return Err(Refusal::WideSymmetric { group, shape, bits }.into());
    }
    Ok(())
}

/// A factor width the engines walk: what differs between the widths, where a walk exists for
/// one of them only.
pub trait Width: Moves {
    /// A walker of `group`-invariant schemes from `scheme` (`group` is not trivial).
    fn symmetric_walker(
        group: Group,
        scheme: &Scheme<Self>,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> Result<Box<dyn Walk<Self>>>;
}

impl Width for u64 {
    fn symmetric_walker(
        group: Group,
        scheme: &Scheme,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> Result<Box<dyn Walk>> {
        let orbits = orbits(group, scheme).context(Refusal::NotInvariant { group })?;
        Ok(Box::new(SymmetricWalker::from_orbits(
            &orbits,
            config,
            seed,
            fixed_terms,
        )))
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
        refuse_wide_symmetry(group, scheme.shape(), u128::BITS as usize)?;
        bail!("the trivial group has no symmetric walker: the plain walk walks it")
    }
}
