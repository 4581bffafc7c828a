//! Presets: the best method measured for a shape, taken by a new search of it on a GPU (and on
//! the CPU where it was measured there too) unless its recipe says otherwise
//! ([`Recipe::take_preset`](super::recipe::Recipe::take_preset)).

use std::time::Duration;

use flipgraph_core::group::Group;
use flipgraph_core::Shape;

/// A shape's best measured method on a GPU: a symmetric search from fixed cubes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Whether it was measured the best on the CPU too.
    pub on_cpu: bool,
    /// The group.
    pub symmetry: Group,
    /// The cubes, as diagonal patterns.
    pub cubes: &'static [&'static str],
    /// The rank plus moves stop at, if any.
    pub plus_cap: Option<usize>,
    /// Over ZT: whether it walks over F2 and lifts each new best to Z (`--lift`).
    pub lift: bool,
    /// How long its walk went without improving on its way to the best known rank, as
    /// measured: a campaign's stall limit shorter than this would end it there.
    pub quiet_spell: Duration,
}

/// The presets, by square shape (BENCHMARKS.md, Time to the best known rank: the 5x5x5 and
/// 6x6x6 rows; on the CPU, the 5x5x5 one: BENCHMARKS.md, CPU, about 450 CPU seconds a 93 with
/// walk reductions, where the plain walk from naive stops near 101 in 5 minutes on 2 cores).
const PRESETS: [(usize, Preset); 2] = [
    (
        5,
        Preset {
            on_cpu: true,
            symmetry: Group::C3,
            cubes: &["10001", "01010", "00100"],
            plus_cap: None,
            lift: false,
            quiet_spell: Duration::ZERO,
        },
    ),
    (
        6,
        Preset {
            on_cpu: false,
            symmetry: Group::C6,
            cubes: &["110000", "001100", "000011"],
            plus_cap: Some(216),
            lift: false,
            // 153 at 148, 210 and 317 s; in one run 165 at 12 s, then nothing until 159 and 153
            // at 150 s (BENCHMARKS.md, Time to the best known rank).
            quiet_spell: Duration::from_secs(300),
        },
    ),
];

/// The presets over ZT (`--ring zt`). 4x4x4 walks ternary schemes from the identity's cube on
/// the CPU: rank 49 (the best known over Z) in a median of 0.50 s on 12 cores of an H200 host
/// and 2.7 s on 2, 5 of 5 seeds each, where the plain ternary walk reached it in 4 of 9 runs of
/// 40 s on the H200 itself and TFG on 16 cores not in 130 s (BENCHMARKS.md, Ternary (ZT)); other
/// cube patterns stopped at 50-54 in 30 s. 5x5x5 and 6x6x6 take the F2 presets and lift
/// (`--lift`): the F2 walks' symmetric schemes lift to Z readily. On one H200, 5x5x5 reached 93
/// over Z in a median of 5.2 s (5 of 5 seeds), where the ternary c3 walk stopped at 96 in 530 s
/// on 14 cores; 6x6x6 153 in 1 of 3 runs of 180 s, the others (and three of 165 s) at 165-177:
/// the F2 c6 walk's own pace (BENCHMARKS.md, ZT by lifting).
const ZT_PRESETS: [(usize, Preset); 3] = [
    (
        4,
        Preset {
            on_cpu: true,
            symmetry: Group::C3,
            cubes: &["1111"],
            plus_cap: None,
            lift: false,
            quiet_spell: Duration::ZERO,
        },
    ),
    (
        5,
        Preset {
            lift: true,
            ..PRESETS[0].1
        },
    ),
    (
        6,
        Preset {
            lift: true,
            ..PRESETS[1].1
        },
    ),
];

impl Preset {
    /// The preset of `shape`, if one was measured.
    pub fn of(shape: Shape) -> Option<Preset> {
        Self::find(&PRESETS, shape)
    }

    /// The preset of `shape` over ZT, if one was measured.
    pub fn over_zt(shape: Shape) -> Option<Preset> {
        Self::find(&ZT_PRESETS, shape)
    }

    fn find(presets: &[(usize, Preset)], shape: Shape) -> Option<Preset> {
        presets
            .iter()
            .find(|&&(n, _)| shape.is_square() && shape.n() == n)
            .map(|&(_, preset)| preset)
    }

    /// What it walks, in words: "c6 from the cubes 110000,001100,000011, plus moves up to rank
    /// 216" (and ", over F2, each new best lifted to Z" where it lifts).
    pub fn describe(self) -> String {
        let cap = self.plus_cap.map(|c| format!(", plus moves up to rank {c}"));
        let lift = if self.lift {
            ", over F2, each new best lifted to Z"
        } else {
            ""
        };
        format!(
            "{} from the cubes {}{}{lift}",
            self.symmetry,
            self.cubes.join(","),
            cap.unwrap_or_default()
        )
    }
}
