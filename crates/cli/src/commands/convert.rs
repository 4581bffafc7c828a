//! `flipgraph convert IN --to FORMAT [-o OUT]`

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::schemes::read_checked;
use crate::write::{write_verified, WriteArgs};

/// Convert a scheme between formats. The scheme is verified first; a scheme valid over Z keeps
/// its integer coefficients unless --mod2 is given (the seed format always holds F2).
#[derive(clap::Args)]
#[command(after_help = "Formats: letter (.exp), json (Perminov JSON), txt (Perminov txt), seed (zlib-base32 block).")]
pub struct Args {
    /// The scheme to convert (any readable format).
    input: PathBuf,
    #[command(flatten)]
    write: WriteArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let checked = read_checked(&args.input)?;
    write_verified(&checked.file.scheme, &args.write, &args.input.display().to_string())?;
    Ok(ExitCode::SUCCESS)
}
