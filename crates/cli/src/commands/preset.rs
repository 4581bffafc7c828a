//! `--preset`: whether a new search takes the best method measured for its shape (the library's
//! [`Preset`]s), and a preset in the command line's words.

use clap::ValueEnum;

use crate::search::preset::Preset;

/// `--preset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    /// The shape's best measured method, where one is known.
    Auto,
    /// The flags as given.
    Off,
}

/// The flags `preset` sets, as a command line would give them.
pub fn preset_flags(preset: Preset) -> String {
    let cap = preset.plus_cap.map(|c| format!(" --plus-cap {c}")).unwrap_or_default();
    format!("--symmetry {} --cubes {}{cap}", preset.symmetry, preset.cubes.join(","))
}
