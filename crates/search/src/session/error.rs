//! Why the library refuses a search.

use flipgraph_core::Shape;

/// A search the library refuses, in its own words (the command line words it by its flags).
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum SearchError {
    /// Neither a shape, nor start schemes, nor a folder to resume.
    #[error("a search needs a shape, start schemes or a folder to resume")]
    NoStart,
    /// A shape beside start schemes of another.
    #[error("the shape {given} does not match the shape {shape} of the start schemes")]
    ShapeOfStarts {
        /// The shape asked for.
        given: Shape,
        /// The starts' shape.
        shape: Shape,
    },
    /// A ladder asked of a search with a start of its own.
    #[error("a ladder climbs from the naive scheme; a search from given schemes, of invariant schemes or from fixed cubes has its own start")]
    LadderOnGivenStart,
    /// A choice a ternary search does not take yet.
    #[error("over ZT (--ring zt), {what} is not built yet: a ternary search walks plain schemes on one GPU or the CPU's threads, or c3-invariant ones on the CPU, from the naive scheme (climbing a ladder as over F2), fixed cubes or given files")]
    NotOverZt {
        /// The choice.
        what: &'static str,
    },
    /// A lift asked of a search over F2.
    #[error("a lift takes an F2 walk's schemes to Z for a search over ZT; an F2 search has no lift")]
    LiftOverF2,
    /// A lifted ZT search given start files or a folder to resume.
    #[error("a lifted search walks over F2 from the naive scheme or fixed cubes; a start from files or a resume is not built yet (a ternary walk without the lift takes them)")]
    LiftFromFiles,
    /// A resume asked for another shape than its checkpoint's.
    #[error("the shape {given} contradicts the search in {checkpoint} ({shape})")]
    ResumedShape {
        /// The shape asked for.
        given: Shape,
        /// The checkpoint.
        checkpoint: String,
        /// The checkpoint's shape.
        shape: Shape,
    },
    /// A resume asked for another seed than its checkpoint's.
    #[error("the seed {given} contradicts the search in {checkpoint} (seed {seed})")]
    ResumedSeed {
        /// The seed asked for.
        given: u64,
        /// The checkpoint.
        checkpoint: String,
        /// The checkpoint's seed.
        seed: u64,
    },
    /// A resume asked to write elsewhere than its folder.
    #[error("a resumed search writes where it was ({dir}), not into {out}")]
    ResumedElsewhere {
        /// The folder asked for.
        out: String,
        /// The search's folder.
        dir: String,
    },
}
