//! How a walk escapes its plateaus, beyond its seed: its adaptive plateau's floor and how far
//! plus moves may climb. A lone search walks as [`LONE`]; the islands of a job spread around it
//! (their portfolio, [`crate::islands::portfolio`]).

/// How far above its start rank a walker may climb by default.
pub const PLUS_SLACK: usize = 4;

/// One island's settings: how its walk's plateaus and plus moves differ from a lone search's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// The adaptive plateau's floor, in quarters of its engine's floor (4: the engine's own).
    pub floor_quarters: u32,
    /// How far above its start rank a walker may climb by plus moves.
    pub plus_slack: usize,
}

/// A lone search's settings: the engine's floor, a slack of 4.
pub const LONE: Member = Member {
    floor_quarters: 4,
    plus_slack: PLUS_SLACK,
};

/// `quarters` quarters of an engine's adaptive plateau floor `floor`, never below the adaptive
/// rule's least limit.
pub fn scaled_floor(floor: u32, quarters: u32) -> u32 {
    (floor.saturating_mul(quarters) / 4).max(flipgraph_core::plateau::MIN)
}

impl std::fmt::Display for Member {
    /// Its settings in words, for the log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "plateau floors {}x the engine's, plus moves up to {} above the start",
            self.floor_quarters as f64 / 4.0,
            self.plus_slack
        )
    }
}
