//! The islands' portfolio: each island of a job walks with its own plateau and plus settings,
//! so that islands differ by more than their seeds.
//!
//! Why: the best plateau floor and plus slack depend on the shape and on how near the walk is
//! to a record (4x4x4 to 47 on a GPU: a fixed plateau of 100 took a median 6.3 s, one of 1000
//! 20 s; plus moves are the only way down at the lowest ranks of small shapes, and undone at
//! once on large ones). No one setting suits every search, and islands swap their best schemes
//! every few seconds, so an island whose settings suit the search carries the others. Island 0
//! walks as a lone search does; the others spread around it. Only settings the recipe leaves
//! open change: a given plateau or plus slack, and fixed cubes' settings, hold on every island.

use super::recipe::PLUS_SLACK;

/// Whether the islands of a job walk with the portfolio's settings or all alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Portfolio {
    /// Island K walks with [`MEMBERS`]`[K % 4]`'s settings.
    #[default]
    On,
    /// Every island walks as a lone search does (they differ by their seeds alone).
    Off,
}

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

/// The members, by island index modulo their number: a lone search's, longer plateaus,
/// further climbs, and quick shallow escapes.
pub const MEMBERS: [Member; 4] = [
    LONE,
    Member {
        floor_quarters: 16,
        plus_slack: PLUS_SLACK,
    },
    Member {
        floor_quarters: 4,
        plus_slack: 8,
    },
    Member {
        floor_quarters: 1,
        plus_slack: 2,
    },
];

impl Portfolio {
    /// The settings of island `index` of a job.
    pub fn member(self, index: usize) -> Member {
        match self {
            Portfolio::On => MEMBERS[index % MEMBERS.len()],
            Portfolio::Off => LONE,
        }
    }
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

/// `quarters` quarters of an engine's adaptive plateau floor `floor`, never below the adaptive
/// rule's least limit.
pub fn scaled_floor(floor: u32, quarters: u32) -> u32 {
    (floor.saturating_mul(quarters) / 4).max(flipgraph_core::plateau::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn island_zero_walks_as_a_lone_search_and_the_others_differ() {
        assert_eq!(Portfolio::On.member(0), LONE);
        for i in 1..MEMBERS.len() {
            assert_ne!(Portfolio::On.member(i), LONE, "island {i}");
            assert_eq!(Portfolio::On.member(i + MEMBERS.len()), Portfolio::On.member(i));
        }
        assert!((0..8).all(|i| Portfolio::Off.member(i) == LONE));
    }

    #[test]
    fn floors_scale_by_quarters_within_the_rule() {
        assert_eq!(scaled_floor(100, LONE.floor_quarters), 100);
        assert_eq!(scaled_floor(100, MEMBERS[1].floor_quarters), 400);
        assert_eq!(scaled_floor(1000, MEMBERS[3].floor_quarters), 250);
        assert_eq!(
            scaled_floor(20, MEMBERS[3].floor_quarters),
            flipgraph_core::plateau::MIN
        );
    }
}
