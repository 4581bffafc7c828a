//! One module per subcommand.

pub mod convert;
pub mod info;
pub mod verify;
