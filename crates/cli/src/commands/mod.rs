//! One module per subcommand.

pub mod convert;
pub mod info;
pub mod search;
pub mod verify;
