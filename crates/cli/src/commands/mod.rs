//! One module per subcommand.

pub mod additions;
pub mod algebra;
pub mod bench;
pub mod campaign;
pub mod choices;
pub mod codegen;
pub mod convert;
pub mod duration;
pub mod engine_args;
pub mod gpu;
pub mod info;
pub mod known;
pub mod lift;
pub mod path;
pub mod plot;
pub mod preset;
pub mod search;
pub mod verify;
