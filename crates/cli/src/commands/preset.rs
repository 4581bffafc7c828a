//! `--preset`: whether a new search takes the best method measured for its shape (the library's
//! `search::preset`).

use clap::ValueEnum;

/// `--preset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    /// The shape's best measured method, where one is known.
    Auto,
    /// The flags as given.
    Off,
}
