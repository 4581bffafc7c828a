//! Why the library refuses a campaign, or one format of it.

use std::path::PathBuf;
use std::time::Duration;

use flipgraph_core::Shape;

/// A campaign (or a format of it) the library refuses, in its own words (the command line
/// words it by its flags).
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum CampaignError {
    /// The campaign's whole time is shorter than a turn.
    #[error("a campaign of {:.1}s leaves no time for a turn (a turn takes at least {}s)", total.as_secs_f64(), shortest.as_secs())]
    NoTimeForATurn {
        /// The campaign's whole time.
        total: Duration,
        /// The shortest turn.
        shortest: Duration,
    },
    /// The campaign's folder lies inside a search's folder.
    #[error("{} is inside the folder of a search ({} holds its checkpoint)", out.display(), search.display())]
    InsideASearch {
        /// The campaign's folder.
        out: PathBuf,
        /// The search's folder.
        search: PathBuf,
    },
    /// The campaign's folder is a file.
    #[error("{} is not a folder", out.display())]
    NotAFolder {
        /// The campaign's folder.
        out: PathBuf,
    },
    /// More formats at once than the host's GPUs or cores take.
    #[error("this host takes at most {} formats at once ({per_unit} a {unit}, {units} {unit}s); more only take turns", per_unit * units)]
    TooManyLanes {
        /// The formats asked for at once.
        jobs: usize,
        /// The host's GPUs, or its cores on the CPU.
        units: usize,
        /// "GPU" or "core".
        unit: &'static str,
        /// The formats one GPU or core takes at once.
        per_unit: usize,
    },
    /// Over ZT, no format of the campaign fits a ternary search.
    #[error("none of these formats has its matrices within 64 entries, which a ternary search takes (up to 8x8x8)")]
    NoTernaryFormat,
    /// A format's folder holds a search of another shape.
    #[error("{} holds a search of {held}, not {shape}", dir.display())]
    OtherShape {
        /// The format's folder.
        dir: PathBuf,
        /// What the folder holds (a shape, or "another shape").
        held: String,
        /// The format.
        shape: Shape,
    },
}
