//! Why the library refuses a recipe.

use flipgraph_core::group::Group;
use flipgraph_core::Shape;

/// A recipe the library refuses, in its own words (the command line words it by its flags).
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecipeError {
    /// Fixed cubes beside start schemes.
    #[error("fixed cubes and start schemes are two different starts; give one")]
    CubesBesideStarts,
    /// Free fixed terms under a group whose walks keep them.
    #[error("free fixed terms: only c3 walks change their fixed terms; {0} keeps them frozen")]
    FreeFixedTerms(Group),
    /// A cube pattern that is not one ([`check_cube`](super::check_cube) says why).
    #[error("the cube pattern {0}")]
    BadCube(String),
    /// Fixed cubes of a shape whose factors pass 64 bits.
    #[error("fixed cubes: {0}")]
    CubesTooWide(String),
    /// Fixed cubes under a group without the rotation.
    #[error("fixed cubes need the group c3 or c6: the cubes are the fixed terms of the cyclic symmetry")]
    CubesWithoutRotation,
    /// Fixed cubes of a shape that is not square.
    #[error("fixed cubes need a square shape; {0} is not")]
    CubesNotSquare(Shape),
    /// A cube pattern of the wrong length.
    #[error("the cube {pattern}: a pattern of {n}x{n}x{n} has {n} digits, one per diagonal entry (not {len})")]
    PatternLength {
        /// The pattern.
        pattern: String,
        /// The matrices' size.
        n: usize,
        /// The pattern's length.
        len: usize,
    },
    /// Two cubes that share a diagonal entry.
    #[error("the cubes {0} and {1} share a diagonal entry; the cubes must be disjoint")]
    CubesOverlap(String, String),
    /// Fixed cubes asked of a resumed search.
    #[error("fixed cubes start a new search; a resumed one keeps the cubes of its checkpoint")]
    CubesOnResume,
    /// Start schemes beside the resume of a search from fixed cubes.
    #[error("{checkpoint}: a search from the cubes {cubes} restarts from its cube start; start schemes cannot join it (start a new search from them instead)")]
    StartsBesideResumedCubes {
        /// The checkpoint.
        checkpoint: String,
        /// Its cubes, comma separated.
        cubes: String,
    },
    /// A group other than the checkpoint's asked of a resumed symmetric search.
    #[error("{checkpoint}: the search walks {recorded}-invariant schemes; a resume keeps its group ({asked} asked)")]
    ResumedGroup {
        /// The checkpoint.
        checkpoint: String,
        /// The group its search walks.
        recorded: Group,
        /// The group asked for.
        asked: Group,
    },
    /// A plain walk asked to resume a search from fixed cubes.
    #[error("{checkpoint}: a search from the cubes {cubes} walks C3-invariant schemes; a plain walk cannot resume it (start a new search from one of its results instead)")]
    PlainResumeOfCubes {
        /// The checkpoint.
        checkpoint: String,
        /// Its cube patterns, joined by commas.
        cubes: String,
    },
}
