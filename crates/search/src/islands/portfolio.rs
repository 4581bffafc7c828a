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

use crate::engine::{Member, LONE, PLUS_SLACK};

/// Whether the islands of a job walk with the portfolio's settings or all alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Portfolio {
    /// Island K walks with [`MEMBERS`]`[K % 4]`'s settings.
    #[default]
    On,
    /// Every island walks as a lone search does (they differ by their seeds alone).
    Off,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scaled_floor;

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
