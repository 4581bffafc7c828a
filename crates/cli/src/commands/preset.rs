//! `--preset`: the best method measured for a shape, taken by a new search of it on a GPU (and
//! on the CPU where it was measured there too).

use std::time::Duration;

use clap::ValueEnum;
use flipgraph_core::Shape;

use super::choices::SymmetryArg;
use super::engine_args::EngineArgs;
use crate::engine::Group;

/// `--preset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    /// The shape's best measured method, where one is known.
    Auto,
    /// The flags as given.
    Off,
}

/// A shape's best measured method on a GPU: a symmetric search from cubes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Whether it was measured the best on the CPU too.
    pub on_cpu: bool,
    /// The group.
    pub symmetry: SymmetryArg,
    /// The `--cubes` patterns.
    pub cubes: &'static [&'static str],
    /// The `--plus-cap`, if any.
    pub plus_cap: Option<usize>,
    /// How long its walk went without improving on its way to the best known rank, as
    /// measured: a campaign's `--stall` shorter than this would end it there.
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
            symmetry: SymmetryArg::C3,
            cubes: &["10001", "01010", "00100"],
            plus_cap: None,
            quiet_spell: Duration::ZERO,
        },
    ),
    (
        6,
        Preset {
            on_cpu: false,
            symmetry: SymmetryArg::C6,
            cubes: &["110000", "001100", "000011"],
            plus_cap: Some(216),
            // 153 at 148, 210 and 317 s; in one run 165 at 12 s, then nothing until 159 and 153
            // at 150 s (BENCHMARKS.md, Time to the best known rank).
            quiet_spell: Duration::from_secs(300),
        },
    ),
];

impl Preset {
    /// The preset of `shape`, if one was measured.
    pub fn of(shape: Shape) -> Option<Preset> {
        PRESETS
            .into_iter()
            .find(|&(n, _)| shape.is_square() && shape.n() == n)
            .map(|(_, preset)| preset)
    }

    /// The flags it sets, as a command line would give them.
    pub fn describe(self) -> String {
        let symmetry = Group::from(self.symmetry);
        let cap = self.plus_cap.map(|c| format!(" --plus-cap {c}")).unwrap_or_default();
        format!("--symmetry {symmetry} --cubes {}{cap}", self.cubes.join(","))
    }
}

impl EngineArgs {
    /// Takes the preset of `shape` ([`Preset::of`]) where `--preset` allows it and none of the
    /// flags it sets (nor a plus-move limit) was given; `on_gpu` says whether the engine walks
    /// on a GPU, where the presets were measured (asked only of a preset not measured on the
    /// CPU). Returns the preset taken.
    pub fn take_preset(&mut self, shape: Shape, on_gpu: impl FnOnce(&EngineArgs) -> bool) -> Option<Preset> {
        let untouched = self.symmetry.is_none()
            && self.cubes.is_empty()
            && self.plus_slack.is_none()
            && self.plus_cap.is_none()
            && self.preset != Some(PresetArg::Off);
        let preset = Preset::of(shape).filter(|p| untouched && (p.on_cpu || on_gpu(self)))?;
        self.symmetry = Some(preset.symmetry);
        self.cubes = preset.cubes.iter().map(|&c| c.to_owned()).collect();
        self.plus_cap = preset.plus_cap;
        Some(preset)
    }
}
