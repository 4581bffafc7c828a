//! Why an engine refuses a walk, in the library's words: the command line names its flags for
//! each (`flipgraph`'s `flags.rs`), an embedder its own settings.

use flipgraph_core::Shape;

use super::Group;

/// CPU threads a core at most.
pub const MAX_THREADS_PER_CORE: usize = 8;

/// A walk an engine cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Frozen fixed terms asked of a plain walk, which has none.
    #[error("frozen fixed terms need a symmetry group (plain walks have no fixed terms to keep)")]
    FrozenWithoutGroup,
    /// The group does not act on the shape (its rotation needs a square one).
    #[error("the group {group} acts on square shapes only; {shape} is not")]
    NotSquare { group: Group, shape: Shape },
    /// The GPU, asked for by name, cannot take this symmetric walk.
    #[error("the GPU cannot take this walk of {group}-invariant schemes: {limit}")]
    GpuSymmetric { group: Group, limit: GpuLimit },
    /// A symmetric walk of factors wider than 64 bits.
    #[error("symmetric walks take factors that fit 64 bits, not {bits}-bit ones ({shape})")]
    WideSymmetric { group: Group, shape: Shape, bits: usize },
    /// A start that is not invariant under the group walked.
    #[error("a walk of the group {group} takes {}-invariant schemes only", .group.label())]
    NotInvariant { group: Group },
    /// More CPU threads than [`MAX_THREADS_PER_CORE`] a core: they would only take turns, and
    /// their switching costs the system time (500 threads on 2 cores: 6.9 s of it in a 3 s
    /// search).
    #[error("{threads} CPU threads on {cores} cores: at most {} ({MAX_THREADS_PER_CORE} a core)", MAX_THREADS_PER_CORE * .cores)]
    TooManyThreads { threads: usize, cores: usize },
    /// The GPU engine, asked for by name, did not open (the cause follows in the chain).
    #[error("the GPU engine did not open")]
    GpuEngine,
}

/// What the GPU kernel's symmetric walk cannot do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GpuLimit {
    #[error("the GPU walks symmetric schemes with their fixed terms frozen")]
    FreeFixedTerms,
    #[error("the GPU finds the reductions of symmetric walks by the walk")]
    ScanReductions,
    #[error("the GPU samples the partners of symmetric walks")]
    PartnersByGroups,
}
